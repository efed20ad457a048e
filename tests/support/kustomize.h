/* SPDX-License-Identifier: Apache-2.0 */
/* A small model of kustomize, the part the install manifests use: a
 * kustomization.yaml lists resources (files, or directories with their own
 * kustomization.yaml) and patches ({path: FILE}, strategic merge) and may
 * retag images; a build is what `kubectl apply -k dir` would send. Strategic
 * merge is modelled where it behaves the same for every field: maps merge
 * key by key, null deletes, anything else replaces, and the pod template's
 * lists of objects (containers, initContainers, volumes; env, volumeMounts,
 * ports) merge by their patchMergeKey; a bare "$patch: delete" removes a
 * resource. Anything else (other keys, other lists of objects, other
 * $-directives) is refused with a message rather than modelled wrongly. */
#ifndef TESTS_KUSTOMIZE_H
#define TESTS_KUSTOMIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/doc.h"
#include "base/err.h"

/* One YAML file, parsed (ok false: err says why). */
struct kz_file {
	char *path;     /* as walked, e.g. "manifests/base/rbac.yaml" */
	char *real;     /* realpath, to match kustomize references */
	char *buf;
	struct doc **docs;
	size_t ndocs;
	bool ok;
	struct errmsg err;
};

/* The YAML files a build may use, sorted by path; root is the first
 * directory walked (named in messages). Zero-initialise before walking. */
struct kz_files {
	struct kz_file *v;
	size_t n;
	char *root;
};

/* Adds every *.yaml / *.yml in dir (and below it when recursive). */
void kz_files_walk(struct kz_files *fs, const char *dir, bool recursive);
void kz_files_free(struct kz_files *fs);
/* The file at path (compared by realpath); NULL when not walked. */
const struct kz_file *kz_files_find(const struct kz_files *fs, const char *path);
/* The file is named kustomization.yaml. */
bool kz_is_kustomization(const struct kz_file *f);
/* The structure of one kustomization.yaml: known keys only, a
 * kustomize.config.k8s.io/v1beta1 Kustomization with resources, and every
 * resource or patch path exists (a file among fs, or a directory with its
 * own kustomization.yaml). */
bool kz_check_kustomization(const struct kz_files *fs, const struct kz_file *k, struct errmsg *msg);

/* A resource of a build. */
struct kz_res {
	struct doc *doc;    /* owned copy, patched */
	const char *origin; /* file it came from (borrowed) */
};

/* A resolved build. */
struct kz_build {
	char *dir;
	struct kz_res *v;
	size_t n;
	bool ok;            /* false: err says why the build failed */
	struct errmsg err;
};

/* Resolves the kustomization in dir (whose files must be among fs, which
 * must outlive the build). */
void kz_build_resolve(struct kz_build *b, const struct kz_files *fs, const char *dir);
void kz_build_free(struct kz_build *b);
/* Appends a copy of d to b (b zero-initialised for a build made by hand). */
void kz_build_add(struct kz_build *b, const struct doc *d, const char *origin);
/* Applies one patch document to the resource of b with the same id. */
bool kz_apply_patch(struct kz_build *b, const struct doc *patch, const char *origin, struct errmsg *msg);
/* The resource of that kind, namespace (NULL: cluster-scoped) and name. */
const struct kz_res *kz_find(const struct kz_build *b, const char *kind, const char *ns, const char *name);

/* metadata.namespace, or NULL. */
const char *kz_ns(const struct doc *d);
/* kustomize's resource id: group/version, kind, namespace, name. */
bool kz_same_id(const struct doc *a, const struct doc *b);

#endif
