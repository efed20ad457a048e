/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/kustomize.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/file_read.h"
#include "tests/support/doc_query.h"
#include "base/xalloc.h"

/* ------------------------------------------------------------------ files */

static void files_add(struct kz_files *fs, const char *path)
{
	struct kz_file *f;
	char real[PATH_MAX];
	size_t len = 0;

	fs->v = xreallocarray(fs->v, fs->n + 1, sizeof *fs->v);
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->real = xstrdup(realpath(path, real) ? real : path);
	f->ok = file_read_all(path, 0, &f->buf, &len, &f->err) == ERR_OK &&
		doc_parse(f->buf, len, path, &f->docs, &f->ndocs, &f->err) == ERR_OK;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct kz_file *)a)->path, ((const struct kz_file *)b)->path);
}

/* Every *.yaml / *.yml under dir, recursively, sorted by path. */
void kz_files_walk(struct kz_files *fs, const char *dir, bool recursive)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (fs->root == NULL)
		fs->root = xstrdup(dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && recursive)
			kz_files_walk(fs, path, true);
		else if (S_ISREG(st.st_mode) && (dq_has_suffix(e->d_name, ".yaml") || dq_has_suffix(e->d_name, ".yml")))
			files_add(fs, path);
	}
	closedir(d);
	qsort(fs->v, fs->n, sizeof *fs->v, by_path);
}

void kz_files_free(struct kz_files *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		doc_free_all(fs->v[i].docs, fs->v[i].ndocs);
		free(fs->v[i].buf);
		free(fs->v[i].path);
		free(fs->v[i].real);
	}
	free(fs->v);
	free(fs->root);
	memset(fs, 0, sizeof *fs);
}

const struct kz_file *kz_files_find(const struct kz_files *fs, const char *path)
{
	char real[PATH_MAX];
	size_t i;

	if (realpath(path, real) == NULL)
		return NULL;
	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].real, real) == 0)
			return &fs->v[i];
	return NULL;
}

bool kz_is_kustomization(const struct kz_file *f)
{
	const char *slash = strrchr(f->path, '/');

	return strcmp(slash ? slash + 1 : f->path, "kustomization.yaml") == 0;
}

/* ------------------------------------------- kustomize, the part we use */

/* images only retags containers: harmless to every check here, and what
 * `kustomize edit set image` adds. Anything else would change what the
 * model resolves, so it is refused rather than ignored. */
static const char *const kust_keys[] = { "apiVersion", "kind", "resources", "patches", "images", NULL };

/* The structure of one kustomization.yaml: known keys, and every resource or
 * patch path exists (a file among fs, or a directory with its own
 * kustomization.yaml). */
bool kz_check_kustomization(const struct kz_files *fs, const struct kz_file *k, struct errmsg *msg)
{
	const struct doc *kust, *list;
	char dir[PATH_MAX], path[PATH_MAX];
	size_t i, l;

	if (!k->ok)
		return dq_fail(msg, "%s", k->err.text);
	if (k->ndocs != 1 || k->docs[0]->kind != DOC_OBJECT)
		return dq_fail(msg, "%s: expected one mapping", k->path);
	kust = k->docs[0];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(k->path, '/') - k->path), k->path);
	for (i = 0; i < kust->nchildren; i++)
		if (!dq_in_list(kust->children[i].key, kust_keys))
			return dq_fail(msg, "%s: key \"%s\" is not modelled", k->path,
				     kust->children[i].key);
	if (!dq_same_str(dq_str(kust, "apiVersion"), "kustomize.config.k8s.io/v1beta1") ||
	    !dq_same_str(dq_str(kust, "kind"), "Kustomization"))
		return dq_fail(msg, "%s: not a kustomize.config.k8s.io/v1beta1 Kustomization", k->path);
	if (dq_count(doc_lookup(kust, "resources")) == 0)
		return dq_fail(msg, "%s: lists no resources", k->path);
	for (l = 0; l < 2; l++) {
		list = doc_lookup(kust, l == 0 ? "resources" : "patches");
		if (list && list->kind != DOC_ARRAY)
			return dq_fail(msg, "%s: %s is not a list", k->path, l == 0 ? "resources" : "patches");
		for (i = 0; i < dq_count(list); i++) {
			const struct doc *e = dq_item(list, i);
			const char *rel = l == 0 ? dq_text(e) : dq_str(e, "path");
			struct stat st;

			if (l == 1 && (e->kind != DOC_OBJECT || e->nchildren != 1))
				return dq_fail(msg, "%s: patches[%zu]: only {path: FILE} is modelled",
					     k->path, i);
			if (rel == NULL)
				return dq_fail(msg, "%s: %s[%zu] names no file", k->path,
					     l == 0 ? "resources" : "patches", i);
			if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path || stat(path, &st) != 0)
				return dq_fail(msg, "%s: %s[%zu] \"%s\" does not exist", k->path,
					     l == 0 ? "resources" : "patches", i, rel);
			if (S_ISDIR(st.st_mode)) {
				char sub[PATH_MAX + 32];

				snprintf(sub, sizeof sub, "%s/kustomization.yaml", path);
				if (l == 1 || stat(sub, &st) != 0)
					return dq_fail(msg, "%s: \"%s\" is a directory without kustomization.yaml",
						     k->path, rel);
			} else if (kz_files_find(fs, path) == NULL) {
				return dq_fail(msg, "%s: \"%s\" is not a YAML file under %s/", k->path, rel,
					       fs->root ? fs->root : ".");
			}
		}
	}
	return true;
}

const char *kz_ns(const struct doc *d)
{
	return dq_str(d, "metadata.namespace");
}

/* kustomize's resource id: group/version, kind, namespace, name. */
bool kz_same_id(const struct doc *a, const struct doc *b)
{
	return dq_same_str(dq_str(a, "apiVersion"), dq_str(b, "apiVersion")) &&
	       dq_same_str(dq_str(a, "kind"), dq_str(b, "kind")) &&
	       dq_same_str(dq_str(a, "metadata.name"), dq_str(b, "metadata.name")) &&
	       dq_same_str(kz_ns(a), kz_ns(b));
}

void kz_build_add(struct kz_build *s, const struct doc *d, const char *origin)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
	s->v[s->n].doc = dq_clone(d);
	s->v[s->n].origin = origin;
	s->n++;
}

static bool has_object_items(const struct doc *a)
{
	size_t i;

	for (i = 0; i < dq_count(a); i++)
		if (dq_item(a, i)->kind == DOC_OBJECT)
			return true;
	return false;
}

/* The patchMergeKey of a list of objects in a pod template (core/v1
 * types.go), by the list's path from the document root; NULL for any other
 * list, which this model cannot merge. */
static const char *merge_key_of(const struct doc_path *p)
{
	static const struct {
		const char *re, *key;
	} keys[] = {
		{ "^spec\\.template\\.spec\\.(containers|initContainers|volumes)$", "name" },
		{ "^spec\\.template\\.spec\\.(containers|initContainers)\\[[0-9]+\\]\\.env$", "name" },
		{ "^spec\\.template\\.spec\\.(containers|initContainers)\\[[0-9]+\\]\\.volumeMounts$", "mountPath" },
		{ "^spec\\.template\\.spec\\.(containers|initContainers)\\[[0-9]+\\]\\.ports$", "containerPort" },
	};
	char path[sizeof p->text];
	size_t i;

	snprintf(path, sizeof path, "%.*s", (int)p->len, p->text);
	for (i = 0; i < sizeof keys / sizeof *keys; i++)
		if (dq_matches(keys[i].re, path))
			return keys[i].key;
	return NULL;
}

static bool merge_into(struct doc *dst, const struct doc *patch, const char *origin,
		       struct doc_path *p, struct errmsg *msg);

/* A list of objects with a merge key: each patch item merges into the item
 * with the same key, or is appended; items the patch does not name stay. */
static bool merge_list(struct doc *dst, const struct doc *patch, const char *mkey, const char *origin,
		       struct doc_path *p, struct errmsg *msg)
{
	size_t i, j;

	for (i = 0; i < patch->nchildren; i++) {
		const struct doc *v = patch->children[i].value;
		const char *want = dq_text(doc_lookup(v, mkey));
		size_t mark = doc_path_index(p, i);

		if (v->kind != DOC_OBJECT || want == NULL) {
			doc_errorf(msg, origin, p, "a list item without its merge key %s", mkey);
			return false;
		}
		for (j = 0; j < dst->nchildren; j++)
			if (dq_same_str(dq_text(doc_lookup(dst->children[j].value, mkey)), want))
				break;
		if (j < dst->nchildren) {
			doc_path_pop(p, mark);
			mark = doc_path_index(p, j);
			if (dst->children[j].value->kind != DOC_OBJECT) {
				doc_errorf(msg, origin, p, "the base's list item is not a mapping");
				return false;
			}
			if (!merge_into(dst->children[j].value, v, origin, p, msg))
				return false;
		} else {
			dst->children = xreallocarray(dst->children, dst->nchildren + 1, sizeof *dst->children);
			dst->children[dst->nchildren].key = NULL;
			dst->children[dst->nchildren].value = dq_clone(v);
			dst->nchildren++;
		}
		doc_path_pop(p, mark);
	}
	return true;
}

/* Strategic merge, the subset that behaves the same for every field: maps
 * merge key by key, null deletes, anything else replaces; the pod
 * template's lists of objects merge by their key (merge_key_of). Other lists
 * of objects (merged by key in kustomize, with keys this model does not
 * know) and $-directives are refused. */
static bool merge_into(struct doc *dst, const struct doc *patch, const char *origin,
		       struct doc_path *p, struct errmsg *msg)
{
	size_t i, j;

	for (i = 0; i < patch->nchildren; i++) {
		const char *key = patch->children[i].key;
		const struct doc *v = patch->children[i].value;
		size_t mark = doc_path_key(p, key);

		if (key[0] == '$') {
			doc_errorf(msg, origin, p, "strategic-merge directive not modelled");
			return false;
		}
		for (j = 0; j < dst->nchildren; j++)
			if (strcmp(dst->children[j].key, key) == 0)
				break;
		if (v->kind == DOC_ARRAY && has_object_items(v)) {
			const char *mkey = merge_key_of(p);

			if (mkey == NULL) {
				doc_errorf(msg, origin, p, "a list of objects: kustomize merges it by key, this model would replace it");
				return false;
			}
			if (j < dst->nchildren && dst->children[j].value->kind == DOC_ARRAY) {
				if (!merge_list(dst->children[j].value, v, mkey, origin, p, msg))
					return false;
				doc_path_pop(p, mark);
				continue;
			}
		}
		if (doc_is_null(v)) {
			if (j < dst->nchildren) {
				free(dst->children[j].key);
				doc_free(dst->children[j].value);
				memmove(&dst->children[j], &dst->children[j + 1],
					(dst->nchildren - j - 1) * sizeof *dst->children);
				dst->nchildren--;
			}
		} else if (j < dst->nchildren && dst->children[j].value->kind == DOC_OBJECT &&
			   v->kind == DOC_OBJECT) {
			if (!merge_into(dst->children[j].value, v, origin, p, msg))
				return false;
		} else if (j < dst->nchildren) {
			doc_free(dst->children[j].value);
			dst->children[j].value = dq_clone(v);
		} else {
			dst->children = xreallocarray(dst->children, dst->nchildren + 1, sizeof *dst->children);
			dst->children[dst->nchildren].key = xstrdup(key);
			dst->children[dst->nchildren].value = dq_clone(v);
			dst->nchildren++;
		}
		doc_path_pop(p, mark);
	}
	return true;
}

bool kz_apply_patch(struct kz_build *s, const struct doc *patch, const char *origin, struct errmsg *msg)
{
	const struct doc *directive = doc_get(patch, "$patch");
	struct doc_path p;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (kz_same_id(s->v[i].doc, patch))
			break;
	if (i == s->n)
		return dq_fail(msg, "%s: the patch of %s %s matches no resource", origin,
			     dq_str(patch, "kind") ? dq_str(patch, "kind") : "?",
			     dq_str(patch, "metadata.name") ? dq_str(patch, "metadata.name") : "?");
	if (directive) {
		if (!dq_text(directive) || strcmp(dq_text(directive), "delete") != 0 || patch->nchildren != 4)
			return dq_fail(msg, "%s: only a bare \"$patch: delete\" is modelled", origin);
		doc_free(s->v[i].doc);
		memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
		s->n--;
		return true;
	}
	doc_path_init(&p);
	return merge_into(s->v[i].doc, patch, origin, &p, msg);
}

static bool resolve_dir(struct kz_build *s, const struct kz_files *fs, const char *dir, int depth,
			struct errmsg *msg)
{
	char path[PATH_MAX];
	const struct kz_file *k, *f;
	const struct doc *list;
	size_t i, j;

	if (depth > 8)
		return dq_fail(msg, "%s: kustomizations nested too deep", dir);
	snprintf(path, sizeof path, "%s/kustomization.yaml", dir);
	k = kz_files_find(fs, path);
	if (k == NULL)
		return dq_fail(msg, "%s: not a kustomization under %s/", path, fs->root ? fs->root : ".");
	if (!kz_check_kustomization(fs, k, msg))
		return false;
	list = doc_lookup(k->docs[0], "resources");
	for (i = 0; i < dq_count(list); i++) {
		struct stat st;

		snprintf(path, sizeof path, "%s/%s", dir, dq_text(dq_item(list, i)));
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!resolve_dir(s, fs, path, depth + 1, msg))
				return false;
			continue;
		}
		f = kz_files_find(fs, path);
		if (f == NULL || !f->ok)
			return dq_fail(msg, "%s: cannot use resource %s", k->path, path);
		for (j = 0; j < f->ndocs; j++)
			kz_build_add(s, f->docs[j], f->path);
	}
	list = doc_lookup(k->docs[0], "patches");
	for (i = 0; i < dq_count(list); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, dq_str(dq_item(list, i), "path"));
		f = kz_files_find(fs, path);
		if (f == NULL || !f->ok)
			return dq_fail(msg, "%s: cannot use patch %s", k->path, path);
		for (j = 0; j < f->ndocs; j++)
			if (!kz_apply_patch(s, f->docs[j], f->path, msg))
				return false;
	}
	return true;
}

void kz_build_resolve(struct kz_build *s, const struct kz_files *fs, const char *dir)
{
	memset(s, 0, sizeof *s);
	s->dir = xstrdup(dir);
	s->ok = resolve_dir(s, fs, dir, 0, &s->err);
}

void kz_build_free(struct kz_build *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		doc_free(s->v[i].doc);
	free(s->v);
	free(s->dir);
}

/* ns NULL: cluster-scoped. */
const struct kz_res *kz_find(const struct kz_build *s, const char *kind, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (dq_kind_is(s->v[i].doc, kind) && dq_same_str(kz_ns(s->v[i].doc), ns) &&
		    dq_same_str(dq_str(s->v[i].doc, "metadata.name"), name))
			return &s->v[i];
	return NULL;
}
