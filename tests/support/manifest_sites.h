/* SPDX-License-Identifier: Apache-2.0 */
/* The install manifests as the manifest checks see them: every YAML file
 * under manifests/, the kustomize builds of manifests/base and of each
 * overlay (tests/support/kustomize.h), and in a build, where the extender and
 * kube-scheduler run: each numa-extender container with its configuration
 * loaded as serve would (config_load_buffer), each KubeSchedulerConfiguration
 * carried in a ConfigMap and the kube-scheduler container reading it, and
 * which ConfigMap key or Secret a container sees at a path. */
#ifndef TESTS_MANIFEST_SITES_H
#define TESTS_MANIFEST_SITES_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/config.h"
#include "extender/codec/doc.h"
#include "tests/support/kustomize.h"
#include "base/err.h"

/* The files under root (e.g. "manifests") and the builds of root/base, then
 * of each root/overlays/NAME with a kustomization.yaml. */
void mf_load(struct kz_files *files, struct kz_build **sets, size_t *nsets, const char *root);
void mf_free(struct kz_files *files, struct kz_build *sets, size_t nsets);

/* The install manifests of a manifest test program: mf_load(..., "manifests")
 * once for all its tests. */
struct mf_tree {
	struct kz_files files;  /* every *.yaml under manifests/ */
	struct kz_build *sets;  /* manifests/base, then each overlay */
	size_t nsets;
};
extern struct mf_tree mf_tree;
/* cmocka group setup and teardown: load mf_tree, free it. */
int mf_tree_setup(void **state);
int mf_tree_teardown(void **state);

/* A numa-extender container and its configuration. */
struct mf_ext_site {
	const struct kz_res *deploy;
	const struct doc *podspec, *container;
	const char *ns, *cm, *key, *config_path;
	struct config cfg;
};

/* A KubeSchedulerConfiguration of the build. */
struct mf_sched_site {
	const struct kz_res *cm;
	const char *key;
	struct doc **docs;
	size_t ndocs;
	const struct doc *cfg;
	const struct kz_res *deploy;    /* whose kube-scheduler reads it; NULL: meant for the control plane */
	const struct doc *podspec;
};

struct mf_sites {
	struct mf_ext_site *ext;
	size_t next;
	struct mf_sched_site *sched;
	size_t nsched;
};

/* Every site of build s; false (msg says why) when a container's --config
 * cannot be resolved or an extender configuration does not load. */
bool mf_load_sites(const struct kz_build *s, struct mf_sites *st, struct errmsg *msg);
void mf_sites_free(struct mf_sites *st);

/* What a container sees at a path. */
struct mf_file_ref {
	bool secret;
	const char *name;    /* ConfigMap or Secret */
	const char *key;
	const char *content; /* ConfigMap data; NULL for a Secret (not shipped) */
};

/* Which ConfigMap key or Secret of build s container sees at path. */
bool mf_resolve_in_pod(const struct kz_build *s, const char *ns, const struct doc *podspec,
		       const struct doc *container, const char *path, struct mf_file_ref *out,
		       struct errmsg *msg);

/* spec.template.spec of a workload. */
const struct doc *mf_podspec_of(const struct kz_res *r);
/* A ConfigMap's data value by key (keys hold dots, so not through dq_at). */
const char *mf_cm_data(const struct doc *cm, const char *key);
/* The container's image is base ("nvidia/k8s-device-plugin:v1" is
 * "k8s-device-plugin"). */
bool mf_image_is(const struct doc *container, const char *base);
/* The value of "--flag V" or "--flag=V" in command, then args. */
const char *mf_flag_value(const struct doc *container, const char *flag);

#endif
