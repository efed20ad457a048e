/* SPDX-License-Identifier: Apache-2.0 */
/* The install manifests (manifests/: a kustomize base, overlays, examples)
 * and the Dockerfile, checked without a cluster: every file parses and names
 * itself; the kustomizations resolve (a small model of kustomize: resources,
 * strategic-merge patches on maps and on the pod template's keyed lists,
 * $patch: delete); kube-scheduler's strictly decoded configuration holds
 * only real v1 fields and its URLs reach the routes the extender's own
 * configuration serves (loaded with config_load_buffer), bindVerb exactly
 * when the extender enables bind; probes reach the health listener; RBAC
 * grants exactly the API calls found in the extender's source; the
 * NodeResourceTopology CRD matches the API and accepts the example objects
 * (a small OpenAPI v3 validator); every container is locked down. Run from
 * the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/config.h"
#include "extender/doc.h"
#include "topology/alloc.h"
#include "topology/err.h"
#include "topology/quantity.h"

/* What the issue asks kube-scheduler to send to the extender. */
static const char *const managed_resources[] = {
	"nvidia.com/gpu", "dsa.intel.com/wq-user-shared", "dsa.intel.com/wq-user-dedicated", NULL,
};
/* Built-in ClusterRoles a second kube-scheduler runs with. */
static const char *const scheduler_roles[] = {
	"system:kube-scheduler", "system:volume-scheduler", NULL,
};

static bool failf(struct errmsg *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool failf(struct errmsg *msg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg->text, sizeof msg->text, fmt, ap);
	va_end(ap);
	return false;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static bool nonempty(const char *s)
{
	return s != NULL && *s != '\0';
}

static bool same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool matches(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

/* ------------------------------------------------------------ doc helpers */

/* The text of a string or plain scalar; NULL for anything else or null. */
static const char *text_of(const struct doc *d)
{
	if (d == NULL || (d->kind != DOC_STRING && d->kind != DOC_PLAIN) || doc_is_null(d))
		return NULL;
	return d->text;
}

/* Member by dotted path ("spec.template.spec"); explicit nulls are absent. */
static const struct doc *at(const struct doc *d, const char *dotted)
{
	char key[128];

	while (d != NULL && *dotted) {
		size_t n = strcspn(dotted, ".");

		if (n >= sizeof key)
			return NULL;
		memcpy(key, dotted, n);
		key[n] = '\0';
		d = doc_lookup(d, key);
		dotted += n;
		if (*dotted == '.')
			dotted++;
	}
	return d;
}

static const char *str_at(const struct doc *d, const char *dotted)
{
	return text_of(at(d, dotted));
}

static bool is_bool(const struct doc *d, const char *value)
{
	return d != NULL && (d->kind == DOC_BOOL || d->kind == DOC_PLAIN) && strcmp(d->text, value) == 0;
}

static bool is_true(const struct doc *d)
{
	return is_bool(d, "true");
}

static bool is_false(const struct doc *d)
{
	return is_bool(d, "false");
}

static size_t count(const struct doc *d)
{
	return d != NULL && (d->kind == DOC_ARRAY || d->kind == DOC_OBJECT) ? d->nchildren : 0;
}

static const struct doc *item(const struct doc *d, size_t i)
{
	return d->children[i].value;
}

/* A ConfigMap's data value by key (keys hold dots, so not through at()). */
static const char *cm_data(const struct doc *cm, const char *key)
{
	const struct doc *data = doc_lookup(cm, "data");
	size_t i;

	for (i = 0; data && data->kind == DOC_OBJECT && i < data->nchildren; i++)
		if (strcmp(data->children[i].key, key) == 0)
			return text_of(data->children[i].value);
	return NULL;
}

static bool list_has(const struct doc *list, const char *s)
{
	size_t i;

	for (i = 0; i < count(list); i++)
		if (text_of(item(list, i)) && strcmp(text_of(item(list, i)), s) == 0)
			return true;
	return false;
}

static struct doc *clone(const struct doc *d)
{
	struct doc *c = doc_new(d->kind, d->line, d->column);
	size_t i;

	if (d->text)
		doc_set_text(c, d->text, d->len);
	if (d->nchildren) {
		c->children = xcalloc(d->nchildren, sizeof *c->children);
		for (i = 0; i < d->nchildren; i++) {
			c->children[i].key = d->children[i].key ? xstrdup(d->children[i].key) : NULL;
			c->children[i].value = clone(d->children[i].value);
		}
		c->nchildren = d->nchildren;
	}
	return c;
}

/* "nvidia/k8s-device-plugin:v1" -> "k8s-device-plugin". */
static void image_base(const char *image, char *buf, size_t cap)
{
	const char *start = strrchr(image, '/');

	start = start ? start + 1 : image;
	snprintf(buf, cap, "%.*s", (int)strcspn(start, ":@"), start);
}

static bool image_is(const struct doc *container, const char *base)
{
	const char *image = str_at(container, "image");
	char b[128];

	if (image == NULL)
		return false;
	image_base(image, b, sizeof b);
	return strcmp(b, base) == 0;
}

/* The value of "--flag V" or "--flag=V" in command, then args. */
static const char *flag_value(const struct doc *container, const char *flag)
{
	static const char *const lists[] = { "command", "args" };
	size_t l, i, n = strlen(flag);

	for (l = 0; l < 2; l++) {
		const struct doc *a = doc_lookup(container, lists[l]);

		for (i = 0; i < count(a); i++) {
			const char *s = text_of(item(a, i));

			if (s && strcmp(s, flag) == 0 && i + 1 < count(a))
				return text_of(item(a, i + 1));
			if (s && strncmp(s, flag, n) == 0 && s[n] == '=')
				return s + n + 1;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ files */

struct yfile {
	char *path;     /* as walked, e.g. "manifests/base/rbac.yaml" */
	char *real;     /* realpath, to match kustomize references */
	char *buf;
	struct doc **docs;
	size_t ndocs;
	bool ok;
	struct errmsg err;
};

struct yfiles {
	struct yfile *v;
	size_t n;
};

static void yfiles_add(struct yfiles *fs, const char *path)
{
	struct yfile *f;
	char real[PATH_MAX];
	size_t len = 0;

	fs->v = xreallocarray(fs->v, fs->n + 1, sizeof *fs->v);
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->real = xstrdup(realpath(path, real) ? real : path);
	f->ok = doc_read_file(path, 0, &f->buf, &len, &f->err) == ERR_OK &&
		doc_parse(f->buf, len, path, &f->docs, &f->ndocs, &f->err) == ERR_OK;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct yfile *)a)->path, ((const struct yfile *)b)->path);
}

/* Every *.yaml / *.yml under dir, recursively, sorted by path. */
static void yfiles_walk(struct yfiles *fs, const char *dir, bool recursive)
{
	DIR *d = opendir(dir);
	struct dirent *e;

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
			yfiles_walk(fs, path, true);
		else if (S_ISREG(st.st_mode) && (has_suffix(e->d_name, ".yaml") || has_suffix(e->d_name, ".yml")))
			yfiles_add(fs, path);
	}
	closedir(d);
	qsort(fs->v, fs->n, sizeof *fs->v, by_path);
}

static void yfiles_free(struct yfiles *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		doc_free_all(fs->v[i].docs, fs->v[i].ndocs);
		free(fs->v[i].buf);
		free(fs->v[i].path);
		free(fs->v[i].real);
	}
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

static const struct yfile *find_file(const struct yfiles *fs, const char *path)
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

static bool is_kustomization(const struct yfile *f)
{
	const char *slash = strrchr(f->path, '/');

	return strcmp(slash ? slash + 1 : f->path, "kustomization.yaml") == 0;
}

/* ------------------------------------------- kustomize, the part we use */

/* A resolved build: what `kubectl apply -k dir` would send. */
struct res {
	struct doc *doc;    /* owned copy, patched */
	const char *origin; /* file it came from (borrowed) */
};

struct rset {
	char *dir;
	struct res *v;
	size_t n;
	bool ok;
	struct errmsg err;
};

static struct yfiles manifests;  /* every *.yaml under manifests/ */
static struct rset *sets;        /* manifests/base, then each overlay */
static size_t nsets;

/* images only retags containers: harmless to every check here, and what
 * `kustomize edit set image` adds. Anything else would change what the
 * model resolves, so it is refused rather than ignored. */
static const char *const kust_keys[] = { "apiVersion", "kind", "resources", "patches", "images", NULL };

/* The structure of one kustomization.yaml: known keys, and every resource or
 * patch path exists (a file under manifests/, or a directory with its own
 * kustomization.yaml). */
static bool check_kustomization(const struct yfile *k, struct errmsg *msg)
{
	const struct doc *kust, *list;
	char dir[PATH_MAX], path[PATH_MAX];
	size_t i, l;

	if (!k->ok)
		return failf(msg, "%s", k->err.text);
	if (k->ndocs != 1 || k->docs[0]->kind != DOC_OBJECT)
		return failf(msg, "%s: expected one mapping", k->path);
	kust = k->docs[0];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(k->path, '/') - k->path), k->path);
	for (i = 0; i < kust->nchildren; i++)
		if (!in_list(kust->children[i].key, kust_keys))
			return failf(msg, "%s: key \"%s\" is not modelled by this test", k->path,
				     kust->children[i].key);
	if (!same_str(str_at(kust, "apiVersion"), "kustomize.config.k8s.io/v1beta1") ||
	    !same_str(str_at(kust, "kind"), "Kustomization"))
		return failf(msg, "%s: not a kustomize.config.k8s.io/v1beta1 Kustomization", k->path);
	if (count(doc_lookup(kust, "resources")) == 0)
		return failf(msg, "%s: lists no resources", k->path);
	for (l = 0; l < 2; l++) {
		list = doc_lookup(kust, l == 0 ? "resources" : "patches");
		if (list && list->kind != DOC_ARRAY)
			return failf(msg, "%s: %s is not a list", k->path, l == 0 ? "resources" : "patches");
		for (i = 0; i < count(list); i++) {
			const struct doc *e = item(list, i);
			const char *rel = l == 0 ? text_of(e) : str_at(e, "path");
			struct stat st;

			if (l == 1 && (e->kind != DOC_OBJECT || e->nchildren != 1))
				return failf(msg, "%s: patches[%zu]: only {path: FILE} is modelled by this test",
					     k->path, i);
			if (rel == NULL)
				return failf(msg, "%s: %s[%zu] names no file", k->path,
					     l == 0 ? "resources" : "patches", i);
			if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path || stat(path, &st) != 0)
				return failf(msg, "%s: %s[%zu] \"%s\" does not exist", k->path,
					     l == 0 ? "resources" : "patches", i, rel);
			if (S_ISDIR(st.st_mode)) {
				char sub[PATH_MAX + 32];

				snprintf(sub, sizeof sub, "%s/kustomization.yaml", path);
				if (l == 1 || stat(sub, &st) != 0)
					return failf(msg, "%s: \"%s\" is a directory without kustomization.yaml",
						     k->path, rel);
			} else if (find_file(&manifests, path) == NULL) {
				return failf(msg, "%s: \"%s\" is not a YAML file under manifests/", k->path, rel);
			}
		}
	}
	return true;
}

static const char *ns_of(const struct doc *d)
{
	return str_at(d, "metadata.namespace");
}

/* kustomize's resource id: group/version, kind, namespace, name. */
static bool same_id(const struct doc *a, const struct doc *b)
{
	return same_str(str_at(a, "apiVersion"), str_at(b, "apiVersion")) &&
	       same_str(str_at(a, "kind"), str_at(b, "kind")) &&
	       same_str(str_at(a, "metadata.name"), str_at(b, "metadata.name")) &&
	       same_str(ns_of(a), ns_of(b));
}

static void rset_add(struct rset *s, const struct doc *d, const char *origin)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
	s->v[s->n].doc = clone(d);
	s->v[s->n].origin = origin;
	s->n++;
}

static bool has_object_items(const struct doc *a)
{
	size_t i;

	for (i = 0; i < count(a); i++)
		if (item(a, i)->kind == DOC_OBJECT)
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
		if (matches(keys[i].re, path))
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
		const char *want = text_of(doc_lookup(v, mkey));
		size_t mark = doc_path_index(p, i);

		if (v->kind != DOC_OBJECT || want == NULL) {
			doc_errorf(msg, origin, p, "a list item without its merge key %s", mkey);
			return false;
		}
		for (j = 0; j < dst->nchildren; j++)
			if (same_str(text_of(doc_lookup(dst->children[j].value, mkey)), want))
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
			dst->children[dst->nchildren].value = clone(v);
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
			doc_errorf(msg, origin, p, "strategic-merge directive not modelled by this test");
			return false;
		}
		for (j = 0; j < dst->nchildren; j++)
			if (strcmp(dst->children[j].key, key) == 0)
				break;
		if (v->kind == DOC_ARRAY && has_object_items(v)) {
			const char *mkey = merge_key_of(p);

			if (mkey == NULL) {
				doc_errorf(msg, origin, p, "a list of objects: kustomize merges it by key, this test would replace it");
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
			dst->children[j].value = clone(v);
		} else {
			dst->children = xreallocarray(dst->children, dst->nchildren + 1, sizeof *dst->children);
			dst->children[dst->nchildren].key = xstrdup(key);
			dst->children[dst->nchildren].value = clone(v);
			dst->nchildren++;
		}
		doc_path_pop(p, mark);
	}
	return true;
}

static bool apply_patch(struct rset *s, const struct doc *patch, const char *origin, struct errmsg *msg)
{
	const struct doc *directive = doc_get(patch, "$patch");
	struct doc_path p;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (same_id(s->v[i].doc, patch))
			break;
	if (i == s->n)
		return failf(msg, "%s: the patch of %s %s matches no resource", origin,
			     str_at(patch, "kind") ? str_at(patch, "kind") : "?",
			     str_at(patch, "metadata.name") ? str_at(patch, "metadata.name") : "?");
	if (directive) {
		if (!text_of(directive) || strcmp(text_of(directive), "delete") != 0 || patch->nchildren != 4)
			return failf(msg, "%s: only a bare \"$patch: delete\" is modelled by this test", origin);
		doc_free(s->v[i].doc);
		memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
		s->n--;
		return true;
	}
	doc_path_init(&p);
	return merge_into(s->v[i].doc, patch, origin, &p, msg);
}

static bool resolve_dir(struct rset *s, const char *dir, int depth, struct errmsg *msg)
{
	char path[PATH_MAX];
	const struct yfile *k, *f;
	const struct doc *list;
	size_t i, j;

	if (depth > 8)
		return failf(msg, "%s: kustomizations nested too deep", dir);
	snprintf(path, sizeof path, "%s/kustomization.yaml", dir);
	k = find_file(&manifests, path);
	if (k == NULL)
		return failf(msg, "%s: not a kustomization under manifests/", path);
	if (!check_kustomization(k, msg))
		return false;
	list = doc_lookup(k->docs[0], "resources");
	for (i = 0; i < count(list); i++) {
		struct stat st;

		snprintf(path, sizeof path, "%s/%s", dir, text_of(item(list, i)));
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!resolve_dir(s, path, depth + 1, msg))
				return false;
			continue;
		}
		f = find_file(&manifests, path);
		if (f == NULL || !f->ok)
			return failf(msg, "%s: cannot use resource %s", k->path, path);
		for (j = 0; j < f->ndocs; j++)
			rset_add(s, f->docs[j], f->path);
	}
	list = doc_lookup(k->docs[0], "patches");
	for (i = 0; i < count(list); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, str_at(item(list, i), "path"));
		f = find_file(&manifests, path);
		if (f == NULL || !f->ok)
			return failf(msg, "%s: cannot use patch %s", k->path, path);
		for (j = 0; j < f->ndocs; j++)
			if (!apply_patch(s, f->docs[j], f->path, msg))
				return false;
	}
	return true;
}

static void rset_resolve(struct rset *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	s->dir = xstrdup(dir);
	s->ok = resolve_dir(s, dir, 0, &s->err);
}

static void rset_free(struct rset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		doc_free(s->v[i].doc);
	free(s->v);
	free(s->dir);
}

static bool kind_is(const struct doc *d, const char *kind)
{
	return str_at(d, "kind") && strcmp(str_at(d, "kind"), kind) == 0;
}

/* ns NULL: cluster-scoped. */
static const struct res *set_find(const struct rset *s, const char *kind, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (kind_is(s->v[i].doc, kind) && same_str(ns_of(s->v[i].doc), ns) &&
		    same_str(str_at(s->v[i].doc, "metadata.name"), name))
			return &s->v[i];
	return NULL;
}

/* --------------------------------------------- files inside a pod's volumes */

struct file_ref {
	bool secret;
	const char *name;    /* ConfigMap or Secret */
	const char *key;
	const char *content; /* ConfigMap data; NULL for a Secret (not shipped) */
};

/* The key a volume source maps rel to: through items, or rel itself. */
static bool item_key(const struct doc *items, const char *rel, const char **key)
{
	size_t i;

	if (items == NULL) {
		*key = rel;
		return strchr(rel, '/') == NULL;
	}
	for (i = 0; i < count(items); i++)
		if (str_at(item(items, i), "path") && strcmp(str_at(item(items, i), "path"), rel) == 0) {
			*key = str_at(item(items, i), "key");
			return *key != NULL;
		}
	return false;
}

static bool source_ref(const struct rset *s, const char *ns, const struct doc *src, bool secret,
		       const char *rel, struct file_ref *out)
{
	const char *key;
	const struct res *cm;

	if (src == NULL || !item_key(doc_lookup(src, "items"), rel, &key))
		return false;
	out->secret = secret;
	out->name = str_at(src, secret ? "secretName" : "name");
	if (out->name == NULL)
		out->name = str_at(src, "name"); /* projected secrets say name */
	out->key = key;
	out->content = NULL;
	if (secret)
		return out->name != NULL;
	cm = set_find(s, "ConfigMap", ns, out->name);
	out->content = cm ? cm_data(cm->doc, key) : NULL;
	return out->content != NULL;
}

/* Which ConfigMap or Secret key a container sees at path. */
static bool resolve_in_pod(const struct rset *s, const char *ns, const struct doc *podspec,
			   const struct doc *container, const char *path, struct file_ref *out,
			   struct errmsg *msg)
{
	const struct doc *mounts = doc_lookup(container, "volumeMounts"), *best = NULL, *vols, *vol = NULL;
	const char *rel = NULL, *cname = str_at(container, "name");
	size_t i, bestlen = 0;

	for (i = 0; i < count(mounts); i++) {
		const char *mp = str_at(item(mounts, i), "mountPath"), *sub = str_at(item(mounts, i), "subPath");
		size_t len = mp ? strlen(mp) : 0;

		while (len > 1 && mp[len - 1] == '/')
			len--;
		if (mp == NULL)
			continue;
		if (sub) {
			if (strlen(path) == len && strncmp(path, mp, len) == 0) {
				best = item(mounts, i);
				rel = sub;
				bestlen = len;
			}
		} else if (strncmp(path, mp, len) == 0 && path[len] == '/' && len > bestlen) {
			best = item(mounts, i);
			rel = path + len + 1;
			bestlen = len;
		}
	}
	if (best == NULL)
		return failf(msg, "container %s: %s is on no volumeMount", cname, path);
	vols = doc_lookup(podspec, "volumes");
	for (i = 0; i < count(vols); i++)
		if (same_str(str_at(item(vols, i), "name"), str_at(best, "name")))
			vol = item(vols, i);
	if (vol == NULL)
		return failf(msg, "container %s: volume %s is not defined", cname, str_at(best, "name"));
	if (doc_lookup(vol, "configMap")) {
		if (source_ref(s, ns, doc_lookup(vol, "configMap"), false, rel, out))
			return true;
	} else if (doc_lookup(vol, "secret")) {
		if (source_ref(s, ns, doc_lookup(vol, "secret"), true, rel, out))
			return true;
	} else if (doc_lookup(vol, "projected")) {
		const struct doc *srcs = at(vol, "projected.sources");

		for (i = 0; i < count(srcs); i++) {
			if (source_ref(s, ns, doc_lookup(item(srcs, i), "configMap"), false, rel, out) ||
			    source_ref(s, ns, doc_lookup(item(srcs, i), "secret"), true, rel, out))
				return true;
		}
	} else {
		return failf(msg, "container %s: volume %s: only configMap, secret and projected are modelled",
			     cname, str_at(vol, "name"));
	}
	return failf(msg, "container %s: %s: no ConfigMap key or Secret in this build provides it", cname, path);
}

/* ------------------------------------- where the extender and scheduler run */

struct ext_site {
	const struct res *deploy;
	const struct doc *podspec, *container;
	const char *ns, *cm, *key, *config_path;
	struct config cfg;
};

struct sched_site {
	const struct res *cm;
	const char *key;
	struct doc **docs;
	size_t ndocs;
	const struct doc *cfg;
	const struct res *deploy;       /* whose kube-scheduler reads it; NULL: meant for the control plane */
	const struct doc *podspec;
};

struct sites {
	struct ext_site *ext;
	size_t next;
	struct sched_site *sched;
	size_t nsched;
};

static const struct doc *podspec_of(const struct res *r)
{
	return at(r->doc, "spec.template.spec");
}

static void sites_free(struct sites *st)
{
	size_t i;

	for (i = 0; i < st->next; i++)
		config_cleanup(&st->ext[i].cfg);
	for (i = 0; i < st->nsched; i++)
		doc_free_all(st->sched[i].docs, st->sched[i].ndocs);
	free(st->ext);
	free(st->sched);
	memset(st, 0, sizeof *st);
}

/* Every KubeSchedulerConfiguration carried in a ConfigMap of the build, every
 * numa-extender container with its loaded configuration, and which
 * kube-scheduler container reads which configuration. */
static bool load_sites(const struct rset *s, struct sites *st, struct errmsg *msg)
{
	size_t i, j, c;

	memset(st, 0, sizeof *st);
	for (i = 0; i < s->n; i++) {
		const struct doc *data = doc_lookup(s->v[i].doc, "data");

		if (!kind_is(s->v[i].doc, "ConfigMap"))
			continue;
		for (j = 0; j < count(data); j++) {
			const char *text = text_of(item(data, j));
			struct doc **docs = NULL;
			size_t ndocs = 0;
			struct errmsg ignored;
			struct sched_site *sc;

			if (text == NULL || doc_parse(text, strlen(text), s->v[i].origin, &docs, &ndocs, &ignored) != ERR_OK)
				continue;
			if (ndocs != 1 || !kind_is(docs[0], "KubeSchedulerConfiguration")) {
				doc_free_all(docs, ndocs);
				continue;
			}
			st->sched = xreallocarray(st->sched, st->nsched + 1, sizeof *st->sched);
			sc = &st->sched[st->nsched++];
			memset(sc, 0, sizeof *sc);
			sc->cm = &s->v[i];
			sc->key = data->children[j].key;
			sc->docs = docs;
			sc->ndocs = ndocs;
			sc->cfg = docs[0];
		}
	}
	for (i = 0; i < s->n; i++) {
		const struct doc *podspec = podspec_of(&s->v[i]);
		const struct doc *containers = doc_lookup(podspec, "containers");
		const char *ns = ns_of(s->v[i].doc);

		if (!kind_is(s->v[i].doc, "Deployment"))
			continue;
		for (c = 0; c < count(containers); c++) {
			const struct doc *ct = item(containers, c);
			const char *path = flag_value(ct, "--config");
			struct file_ref ref;

			if (!image_is(ct, "numa-extender") && !image_is(ct, "kube-scheduler"))
				continue;
			if (path == NULL)
				return failf(msg, "%s: container %s has no --config", s->v[i].origin, str_at(ct, "name"));
			if (!resolve_in_pod(s, ns, podspec, ct, path, &ref, msg))
				return false;
			if (ref.secret)
				return failf(msg, "%s: container %s: --config %s comes from a Secret", s->v[i].origin,
					     str_at(ct, "name"), path);
			if (image_is(ct, "numa-extender")) {
				struct ext_site *e;
				char origin[256];

				st->ext = xreallocarray(st->ext, st->next + 1, sizeof *st->ext);
				e = &st->ext[st->next++];
				memset(e, 0, sizeof *e);
				e->deploy = &s->v[i];
				e->podspec = podspec;
				e->container = ct;
				e->ns = ns;
				e->cm = ref.name;
				e->key = ref.key;
				e->config_path = path;
				config_init(&e->cfg);
				snprintf(origin, sizeof origin, "ConfigMap %s/%s %s", ns ? ns : "", ref.name, ref.key);
				if (config_load_buffer(ref.content, strlen(ref.content), origin, &e->cfg, msg) != ERR_OK)
					return false;
			} else {
				for (j = 0; j < st->nsched; j++)
					if (same_str(str_at(st->sched[j].cm->doc, "metadata.name"), ref.name) &&
					    strcmp(st->sched[j].key, ref.key) == 0)
						break;
				if (j == st->nsched)
					return failf(msg, "%s: container %s: %s is no KubeSchedulerConfiguration",
						     s->v[i].origin, str_at(ct, "name"), path);
				st->sched[j].deploy = &s->v[i];
				st->sched[j].podspec = podspec;
			}
		}
	}
	return true;
}

/* ------------------------------------------------------------------ tests */

static int setup(void **state)
{
	DIR *d;
	struct dirent *e;
	char path[PATH_MAX];

	(void)state;
	yfiles_walk(&manifests, "manifests", true);
	sets = xcalloc(1, sizeof *sets);
	rset_resolve(&sets[nsets++], "manifests/base");
	d = opendir("manifests/overlays");
	while (d && (e = readdir(d)) != NULL) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "manifests/overlays/%s/kustomization.yaml", e->d_name);
		if (stat(path, &st) != 0)
			continue;
		snprintf(path, sizeof path, "manifests/overlays/%s", e->d_name);
		sets = xreallocarray(sets, nsets + 1, sizeof *sets);
		rset_resolve(&sets[nsets++], path);
	}
	if (d)
		closedir(d);
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < nsets; i++)
		rset_free(&sets[i]);
	free(sets);
	yfiles_free(&manifests);
	return 0;
}

static void manifests_every_yaml_parses_and_names_itself(void **state)
{
	size_t i, j;

	(void)state;
	/* base (6), the overlay's own files and patches, the examples. */
	assert_true(manifests.n >= 15);
	for (i = 0; i < manifests.n; i++) {
		const struct yfile *f = &manifests.v[i];

		if (!f->ok)
			fail_msg("%s", f->err.text);
		if (f->ndocs == 0)
			fail_msg("%s: no document", f->path);
		if (is_kustomization(f))
			continue; /* manifests_kustomizations_reference_existing_files */
		for (j = 0; j < f->ndocs; j++) {
			const struct doc *d = f->docs[j];

			if (d->kind != DOC_OBJECT)
				fail_msg("%s: document %zu is %s, not a mapping", f->path, j + 1, doc_kind_name(d));
			if (!nonempty(str_at(d, "apiVersion")) || !nonempty(str_at(d, "kind")) ||
			    !nonempty(str_at(d, "metadata.name")))
				fail_msg("%s: document %zu lacks apiVersion, kind or metadata.name", f->path, j + 1);
		}
	}
}

static void manifests_kustomizations_reference_existing_files(void **state)
{
	size_t i, j, l, nk = 0, noverlays = 0;
	struct errmsg msg;

	(void)state;
	assert_non_null(find_file(&manifests, "manifests/base/kustomization.yaml"));
	for (i = 0; i < manifests.n; i++) {
		const struct yfile *k = &manifests.v[i];
		char dir[PATH_MAX];
		size_t dlen;

		if (!is_kustomization(k))
			continue;
		nk++;
		if (!check_kustomization(k, &msg))
			fail_msg("%s", msg.text);
		dlen = (size_t)(strrchr(k->path, '/') - k->path);
		snprintf(dir, sizeof dir, "%.*s", (int)dlen, k->path);
		if (strncmp(dir, "manifests/overlays/", 19) == 0) {
			noverlays++;
			if (!list_has(doc_lookup(k->docs[0], "resources"), "../../base"))
				fail_msg("%s: an overlay must build on ../../base", k->path);
		}
		/* No orphans: every YAML file of this kustomization's folder
		 * (and its subfolders without their own kustomization) is a
		 * resource or a patch; an unlisted file is silently not installed. */
		for (j = 0; j < manifests.n; j++) {
			const struct yfile *f = &manifests.v[j];
			bool listed = false, nested = false;
			size_t m;

			if (f == k || strncmp(f->path, dir, dlen) != 0 || f->path[dlen] != '/')
				continue;
			for (m = 0; m < manifests.n; m++) {
				const struct yfile *o = &manifests.v[m];
				size_t olen = (size_t)(strrchr(o->path, '/') - o->path);

				if (o != k && is_kustomization(o) && olen > dlen && strncmp(o->path, dir, dlen) == 0 &&
				    strncmp(f->path, o->path, olen) == 0 && f->path[olen] == '/')
					nested = true;
			}
			if (nested)
				continue;
			for (l = 0; l < 2 && !listed; l++) {
				const struct doc *list = doc_lookup(k->docs[0], l == 0 ? "resources" : "patches");

				for (m = 0; m < count(list) && !listed; m++) {
					const char *rel = l == 0 ? text_of(item(list, m)) : str_at(item(list, m), "path");
					char p[PATH_MAX];

					listed = (size_t)snprintf(p, sizeof p, "%s/%s", dir, rel ? rel : "") < sizeof p &&
						 find_file(&manifests, p) == f;
				}
			}
			if (!listed)
				fail_msg("%s: not listed in %s", f->path, k->path);
		}
	}
	assert_true(nk >= 3);
	assert_true(noverlays >= 2);
}

static bool namespaced(const char *kind)
{
	static const char *const cluster[] = {
		"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "PriorityClass", NULL,
	};

	return !in_list(kind, cluster);
}

/* The overlays the tests must see (docs/operator-guide.md describes each). */
static const char *const overlays[] = {
	"manifests/overlays/default-scheduler-mtls", "manifests/overlays/bind", NULL,
};

static void manifests_builds_resolve_without_clashes(void **state)
{
	size_t i, j, k;

	(void)state;
	/* setup() resolves every overlay it finds; these must be among them,
	 * so that each test over sets[] covers them. */
	assert_true(nsets >= 3);
	assert_string_equal(sets[0].dir, "manifests/base");
	for (const char *const *o = overlays; *o; o++) {
		for (i = 1; i < nsets && strcmp(sets[i].dir, *o) != 0; i++)
			;
		if (i == nsets)
			fail_msg("%s was not resolved", *o);
	}
	for (i = 0; i < nsets; i++) {
		const struct rset *s = &sets[i];
		struct sites st;
		struct errmsg msg;

		if (!s->ok)
			fail_msg("%s: %s", s->dir, s->err.text);
		for (j = 0; j < s->n; j++) {
			const struct doc *d = s->v[j].doc;
			const char *kind = str_at(d, "kind"), *ns = ns_of(d);

			for (k = j + 1; k < s->n; k++)
				if (same_id(d, s->v[k].doc))
					fail_msg("%s: %s %s is defined twice (%s, %s)", s->dir, kind,
						 str_at(d, "metadata.name"), s->v[j].origin, s->v[k].origin);
			/* Without an explicit namespace, kubectl apply -k would put
			 * it in whatever namespace the user's context says. */
			if (namespaced(kind) && ns == NULL)
				fail_msg("%s: %s %s has no metadata.namespace", s->v[j].origin, kind,
					 str_at(d, "metadata.name"));
			if (!namespaced(kind) && ns != NULL)
				fail_msg("%s: cluster-scoped %s %s has a namespace", s->v[j].origin, kind,
					 str_at(d, "metadata.name"));
			if (ns && !set_find(s, "Namespace", NULL, ns))
				fail_msg("%s: namespace %s is not created by %s", s->v[j].origin, ns, s->dir);
		}
		if (!load_sites(s, &st, &msg))
			fail_msg("%s: %s", s->dir, msg.text);
		if (st.next == 0)
			fail_msg("%s: no numa-extender container", s->dir);
		for (j = 1; j < st.next; j++)
			if (strcmp(st.ext[j].cm, st.ext[0].cm) != 0 || strcmp(st.ext[j].key, st.ext[0].key) != 0)
				fail_msg("%s: numa-extender containers read different configurations", s->dir);
		if (st.nsched == 0)
			fail_msg("%s: no KubeSchedulerConfiguration", s->dir);
		sites_free(&st);
	}
}

/* The strategic-merge model on lists of objects: the pod template's merge
 * by key (what the bind overlay's probe patch relies on), everything else
 * refused rather than silently replaced. */
static void manifests_kustomize_model_merges_pod_lists_by_key(void **state)
{
	static const char base[] =
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n"
		"spec:\n  template:\n    spec:\n      containers:\n"
		"      - name: a\n        image: a:1\n"
		"      - name: b\n        image: b:1\n        ports: [{name: m, containerPort: 9090}]\n"
		"        livenessProbe: {httpGet: {path: /healthz, port: m}, periodSeconds: 10}\n"
		"        volumeMounts: [{name: v, mountPath: /v}]\n";
	static const char head[] =
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n"
		"spec:\n  template:\n    spec:\n";
	static const struct {
		const char *body, *needle;
	} bad[] = {
		{ "      tolerations: [{key: k, operator: Exists}]\n", "kustomize merges it by key" },
		{ "      containers: [{image: c:1}]\n", "without its merge key name" },
		{ "      containers: [{name: b, ports: [{containerPort: 9090, $patch: delete}]}]\n",
		  "directive not modelled" },
	};
	static const char good[] =
		"      containers:\n"
		"      - name: b\n        ports: null\n"
		"        livenessProbe: {httpGet: null, exec: {command: [x]}}\n"
		"        volumeMounts: [{mountPath: /v, readOnly: true}, {name: w, mountPath: /w}]\n"
		"      - name: c\n        image: c:1\n";
	char buf[2048];
	struct doc **bdocs = NULL, **pdocs = NULL;
	size_t nb = 0, np = 0, i;
	struct rset s;
	struct errmsg msg;
	const struct doc *cs, *b;

	(void)state;
	assert_int_equal(doc_parse(base, strlen(base), "base", &bdocs, &nb, &msg), ERR_OK);
	memset(&s, 0, sizeof s);
	rset_add(&s, bdocs[0], "base");
	snprintf(buf, sizeof buf, "%s%s", head, good);
	assert_int_equal(doc_parse(buf, strlen(buf), "patch", &pdocs, &np, &msg), ERR_OK);
	if (!apply_patch(&s, pdocs[0], "patch", &msg))
		fail_msg("the by-key patch was refused: %s", msg.text);
	doc_free_all(pdocs, np);
	cs = at(s.v[0].doc, "spec.template.spec.containers");
	assert_int_equal(count(cs), 3);
	assert_string_equal(str_at(item(cs, 0), "image"), "a:1");
	b = item(cs, 1);
	assert_string_equal(str_at(b, "name"), "b");
	assert_string_equal(str_at(b, "image"), "b:1");
	assert_null(doc_lookup(b, "ports"));
	assert_null(at(b, "livenessProbe.httpGet"));
	assert_non_null(at(b, "livenessProbe.exec"));
	assert_string_equal(str_at(b, "livenessProbe.periodSeconds"), "10");
	assert_int_equal(count(doc_lookup(b, "volumeMounts")), 2);
	assert_string_equal(str_at(item(doc_lookup(b, "volumeMounts"), 0), "name"), "v");
	assert_true(is_true(doc_lookup(item(doc_lookup(b, "volumeMounts"), 0), "readOnly")));
	assert_string_equal(str_at(item(cs, 2), "image"), "c:1");
	rset_free(&s);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		bool ok;

		memset(&s, 0, sizeof s);
		rset_add(&s, bdocs[0], "base");
		snprintf(buf, sizeof buf, "%s%s", head, bad[i].body);
		assert_int_equal(doc_parse(buf, strlen(buf), "patch", &pdocs, &np, &msg), ERR_OK);
		ok = apply_patch(&s, pdocs[0], "patch", &msg);
		doc_free_all(pdocs, np);
		rset_free(&s);
		if (ok || strstr(msg.text, bad[i].needle) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, bad[i].needle);
	}
	doc_free_all(bdocs, nb);
}

/* -------------------------------------------- KubeSchedulerConfiguration */

/* kubescheduler.config.k8s.io/v1 (staging/src/k8s.io/kube-scheduler/config/v1
 * types.go): the top level and profile fields, the embedded
 * component-base leader election and client connection, and the extender
 * fields of extender-protocol.md section 2.10. plugins and pluginConfig are
 * not used here and not looked into. */
static const char *const top_keys[] = {
	"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
	"enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
	"podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
	"delayCacheUntilActive", NULL,
};
static const char *const leader_keys[] = {
	"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
	"resourceName", "resourceNamespace", NULL,
};
static const char *const client_keys[] = {
	"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst", NULL,
};
static const char *const profile_keys[] = {
	"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", NULL,
};
static const char *const extender_keys[] = {
	"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
	"enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
	"ignorable", NULL,
};
static const char *const tls_keys[] = {
	"insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData", NULL,
};
static const char *const managed_keys[] = { "name", "ignoredByScheduler", NULL };

static bool check_keys(const struct doc *obj, const char *const *allowed, const char *where,
		       struct errmsg *msg)
{
	size_t i;

	if (obj == NULL || obj->kind != DOC_OBJECT)
		return failf(msg, "%s: expected a mapping", where);
	for (i = 0; i < obj->nchildren; i++)
		if (!in_list(obj->children[i].key, allowed))
			return failf(msg, "%s: unknown field \"%s\" (kube-scheduler decodes strictly and would not start)",
				     where, obj->children[i].key);
	return true;
}

/* A present field must be a YAML boolean (strict decoding refuses "true"). */
static bool check_bool(const struct doc *obj, const char *key, const char *where, struct errmsg *msg)
{
	const struct doc *v = doc_lookup(obj, key);

	if (v && !is_true(v) && !is_false(v))
		return failf(msg, "%s.%s: expected a boolean", where, key);
	return true;
}

static bool check_int(const struct doc *obj, const char *key, int64_t min, int64_t max,
		      const char *where, struct errmsg *msg)
{
	const struct doc *v = doc_lookup(obj, key);
	int64_t n;
	struct errmsg ignored;

	if (v && (doc_read_int64(v, &n, &ignored) != ERR_OK || n < min || n > max))
		return failf(msg, "%s.%s: expected an integer in %lld..%lld", where, key, (long long)min,
			     (long long)max);
	return true;
}

static bool extended_resource_name(const char *n)
{
	const char *slash = strchr(n, '/');
	char prefix[256];

	if (slash == NULL || (size_t)(slash - n) >= sizeof prefix)
		return false;
	snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - n), n);
	/* Native resources live under kubernetes.io; the rest must be a DNS
	 * subdomain and a qualified name. */
	if (strcmp(prefix, "kubernetes.io") == 0 || has_suffix(prefix, ".kubernetes.io") ||
	    strncmp(n, "requests.", 9) == 0)
		return false;
	return matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", prefix) &&
	       strlen(slash + 1) <= 63 &&
	       matches("^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$", slash + 1);
}

/* Field names, types, kube-scheduler's validation rules (section 2.10), and
 * this project's choices: nodeCacheCapable, fail closed, both verbs, a
 * timeout, and the managed resources of the issue. */
static bool check_scheduler_config(const struct doc *c, const char *origin, struct errmsg *msg)
{
	const struct doc *profiles = doc_lookup(c, "profiles"), *exts = doc_lookup(c, "extenders");
	const char *managed_seen[64];
	size_t i, j, nseen = 0, binders = 0;
	char where[256];

	if (!check_keys(c, top_keys, origin, msg))
		return false;
	if (!same_str(str_at(c, "apiVersion"), "kubescheduler.config.k8s.io/v1"))
		return failf(msg, "%s: apiVersion must be kubescheduler.config.k8s.io/v1", origin);
	if (doc_lookup(c, "leaderElection")) {
		snprintf(where, sizeof where, "%s: leaderElection", origin);
		if (!check_keys(doc_lookup(c, "leaderElection"), leader_keys, where, msg) ||
		    !check_bool(doc_lookup(c, "leaderElection"), "leaderElect", where, msg))
			return false;
	}
	snprintf(where, sizeof where, "%s: clientConnection", origin);
	if (doc_lookup(c, "clientConnection") &&
	    !check_keys(doc_lookup(c, "clientConnection"), client_keys, where, msg))
		return false;
	snprintf(where, sizeof where, "%s", origin);
	if (!check_int(c, "percentageOfNodesToScore", 0, 100, where, msg))
		return false;
	if (count(profiles) == 0 || profiles->kind != DOC_ARRAY)
		return failf(msg, "%s: no profiles", origin);
	for (i = 0; i < count(profiles); i++) {
		snprintf(where, sizeof where, "%s: profiles[%zu]", origin, i);
		if (!check_keys(item(profiles, i), profile_keys, where, msg) ||
		    !check_int(item(profiles, i), "percentageOfNodesToScore", 0, 100, where, msg))
			return false;
		if (!str_at(item(profiles, i), "schedulerName"))
			return failf(msg, "%s: no schedulerName", where);
	}
	if (count(exts) == 0 || exts->kind != DOC_ARRAY)
		return failf(msg, "%s: no extenders", origin);
	for (i = 0; i < count(exts); i++) {
		const struct doc *e = item(exts, i), *mr = doc_lookup(e, "managedResources");
		const char *timeout = str_at(e, "httpTimeout");
		int64_t weight = 0;
		struct errmsg ignored;

		snprintf(where, sizeof where, "%s: extenders[%zu]", origin, i);
		if (!check_keys(e, extender_keys, where, msg))
			return false;
		if (doc_lookup(e, "tlsConfig")) {
			char tw[300];

			snprintf(tw, sizeof tw, "%s.tlsConfig", where);
			if (!check_keys(doc_lookup(e, "tlsConfig"), tls_keys, tw, msg) ||
			    !check_bool(doc_lookup(e, "tlsConfig"), "insecure", tw, msg))
				return false;
		}
		if (!check_bool(e, "enableHTTPS", where, msg) || !check_bool(e, "nodeCacheCapable", where, msg) ||
		    !check_bool(e, "ignorable", where, msg) || !check_int(e, "weight", INT64_MIN, INT64_MAX, where, msg))
			return false;
		if (!str_at(e, "urlPrefix"))
			return failf(msg, "%s: urlPrefix is required", where);
		if (doc_lookup(e, "weight"))
			doc_read_int64(doc_lookup(e, "weight"), &weight, &ignored);
		if (str_at(e, "prioritizeVerb") && weight <= 0)
			return failf(msg, "%s: weight must be > 0 with prioritizeVerb", where);
		if (str_at(e, "bindVerb") && ++binders > 1)
			return failf(msg, "%s: only one extender may have bindVerb", where);
		/* metav1.Duration decodes from a string only. */
		if (doc_lookup(e, "httpTimeout") &&
		    (doc_lookup(e, "httpTimeout")->kind == DOC_NUMBER || timeout == NULL ||
		     !matches("^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$", timeout)))
			return failf(msg, "%s.httpTimeout: expected a duration string such as 2s", where);
		for (j = 0; j < count(mr); j++) {
			const char *name = str_at(item(mr, j), "name");
			char mw[300];

			snprintf(mw, sizeof mw, "%s.managedResources[%zu]", where, j);
			if (!check_keys(item(mr, j), managed_keys, mw, msg) ||
			    !check_bool(item(mr, j), "ignoredByScheduler", mw, msg))
				return false;
			if (name == NULL || !extended_resource_name(name))
				return failf(msg, "%s.name: not a valid extended resource name", mw);
			for (size_t k = 0; k < nseen; k++)
				if (strcmp(managed_seen[k], name) == 0)
					return failf(msg, "%s.name: %s is managed twice", mw, name);
			if (nseen < sizeof managed_seen / sizeof *managed_seen)
				managed_seen[nseen++] = name;
		}
		/* This project's choices. */
		if (!is_true(doc_lookup(e, "nodeCacheCapable")))
			return failf(msg, "%s: nodeCacheCapable must be true (the extender has its own inventory)", where);
		if (!is_false(doc_lookup(e, "ignorable")))
			return failf(msg, "%s: ignorable must be set to false (fail closed)", where);
		if (!str_at(e, "filterVerb") || !str_at(e, "prioritizeVerb"))
			return failf(msg, "%s: filterVerb and prioritizeVerb are both needed", where);
		if (timeout == NULL)
			return failf(msg, "%s: set httpTimeout (the default is 5 s per filter call)", where);
		for (const char *const *m = managed_resources; *m; m++) {
			for (j = 0; j < count(mr); j++)
				if (same_str(str_at(item(mr, j), "name"), *m))
					break;
			if (j == count(mr))
				return failf(msg, "%s: managedResources lacks %s", where, *m);
			if (!is_false(doc_lookup(item(mr, j), "ignoredByScheduler")))
				return failf(msg, "%s: managedResources %s: ignoredByScheduler must be false", where, *m);
		}
	}
	return true;
}

static void manifests_scheduler_configs_use_only_known_fields(void **state)
{
	size_t i, j, n = 0;

	(void)state;
	for (i = 0; i < nsets; i++) {
		struct sites st;
		struct errmsg msg;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		for (j = 0; j < st.nsched; j++) {
			char origin[256];

			snprintf(origin, sizeof origin, "%s (%s)", st.sched[j].cm->origin, st.sched[j].key);
			if (!check_scheduler_config(st.sched[j].cfg, origin, &msg))
				fail_msg("%s", msg.text);
			n++;
		}
		sites_free(&st);
	}
	/* The second scheduler of the base and of the bind overlay, and the
	 * default scheduler of default-scheduler-mtls. */
	assert_true(n >= 3);
}

static const char good_scheduler_config[] =
	"apiVersion: kubescheduler.config.k8s.io/v1\n"
	"kind: KubeSchedulerConfiguration\n"
	"profiles:\n"
	"- schedulerName: numa-scheduler\n"
	"extenders:\n"
	"- urlPrefix: http://127.0.0.1:8888/numa\n"
	"  filterVerb: filter\n"
	"  prioritizeVerb: prioritize\n"
	"  weight: 5\n"
	"  nodeCacheCapable: true\n"
	"  ignorable: false\n"
	"  httpTimeout: 2s\n"
	"  @@\n"
	"  managedResources:\n"
	"  - {name: nvidia.com/gpu, ignoredByScheduler: false}\n"
	"  - {name: dsa.intel.com/wq-user-shared, ignoredByScheduler: false}\n"
	"  - {name: dsa.intel.com/wq-user-dedicated, ignoredByScheduler: false}\n";

/* good_scheduler_config with "@@" replaced, then checked. */
static bool check_variant(const char *replacement, const char *drop, struct errmsg *msg)
{
	char buf[2048], *hole;
	struct doc **docs = NULL;
	size_t ndocs = 0;
	bool ok;

	snprintf(buf, sizeof buf, "%s", good_scheduler_config);
	hole = strstr(buf, "@@");
	memmove(hole + strlen(replacement), hole + 2, strlen(hole + 2) + 1);
	memcpy(hole, replacement, strlen(replacement));
	if (drop) {
		char *line = strstr(buf, drop), *end = line ? strchr(line, '\n') : NULL;

		assert_non_null(end);
		memmove(line, end + 1, strlen(end + 1) + 1);
	}
	assert_int_equal(doc_parse(buf, strlen(buf), "variant", &docs, &ndocs, msg), ERR_OK);
	ok = check_scheduler_config(docs[0], "variant", msg);
	doc_free_all(docs, ndocs);
	return ok;
}

static void expect_variant_fails(const char *replacement, const char *drop, const char *needle)
{
	struct errmsg msg;

	if (check_variant(replacement, drop, &msg))
		fail_msg("accepted a configuration with \"%s\"", replacement);
	if (strstr(msg.text, needle) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", msg.text, needle);
}

static void manifests_scheduler_check_rejects_bad_configs(void **state)
{
	struct errmsg msg;

	(void)state;
	if (!check_variant("bindVerb: bind", NULL, &msg))
		fail_msg("the well-formed variant was refused: %s", msg.text);
	/* The Policy-era spelling that breaks install guides. */
	expect_variant_fails("enableHttps: true", NULL, "unknown field \"enableHttps\"");
	expect_variant_fails("tlsConfig: {caFile: a, cafile: b}", NULL, "unknown field \"cafile\"");
	expect_variant_fails("tlsConfig: {insecure: \"true\"}", NULL, "tlsConfig.insecure: expected a boolean");
	expect_variant_fails("preemptVerb: preempt", "  weight: 5\n", "weight must be > 0");
	expect_variant_fails("bindVerb: bind", "  nodeCacheCapable: true\n", "nodeCacheCapable must be true");
	expect_variant_fails("ignorable: true", "  ignorable: false\n", "ignorable must be set to false");
	expect_variant_fails("bindVerb: bind", "  ignorable: false\n", "ignorable must be set to false");
	expect_variant_fails("httpTimeout: 2", "  httpTimeout: 2s\n", "httpTimeout: expected a duration");
	expect_variant_fails("bindVerb: bind",
			     "  - {name: dsa.intel.com/wq-user-dedicated, ignoredByScheduler: false}\n",
			     "managedResources lacks dsa.intel.com/wq-user-dedicated");
	expect_variant_fails("bindVerb: bind", "  filterVerb: filter\n", "filterVerb and prioritizeVerb");
}

/* ------------------------------------------------ URLs versus routes */

struct url {
	char scheme[8];
	char host[256];
	int port;
	char path[512];
};

static bool parse_url(const char *s, struct url *u, struct errmsg *msg)
{
	const char *p, *host_end, *path;
	size_t n;

	memset(u, 0, sizeof *u);
	p = strstr(s, "://");
	if (p == NULL || (size_t)(p - s) >= sizeof u->scheme)
		return failf(msg, "%s: not an absolute URL", s);
	snprintf(u->scheme, sizeof u->scheme, "%.*s", (int)(p - s), s);
	if (strcmp(u->scheme, "http") != 0 && strcmp(u->scheme, "https") != 0)
		return failf(msg, "%s: scheme must be http or https", s);
	p += 3;
	path = p + strcspn(p, "/?#");
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (host_end == NULL || host_end > path)
			return failf(msg, "%s: bad IPv6 host", s);
		snprintf(u->host, sizeof u->host, "%.*s", (int)(host_end - p - 1), p + 1);
		host_end++;
	} else {
		n = strcspn(p, ":/?#");
		snprintf(u->host, sizeof u->host, "%.*s", (int)n, p);
		host_end = p + n;
	}
	if (*host_end == ':') {
		char *end;
		long port = strtol(host_end + 1, &end, 10);

		if (end != path || port < 1 || port > 65535)
			return failf(msg, "%s: bad port", s);
		u->port = (int)port;
	} else {
		u->port = strcmp(u->scheme, "https") == 0 ? 443 : 80;
	}
	if (strchr(path, '?') || strchr(path, '#'))
		return failf(msg, "%s: query or fragment in a URL prefix", s);
	snprintf(u->path, sizeof u->path, "%s", path);
	return u->host[0] != '\0' || failf(msg, "%s: no host", s);
}

static bool loopback(const char *host)
{
	return strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strncmp(host, "127.", 4) == 0;
}

static bool wildcard(const char *host)
{
	return host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0;
}

/* kube-scheduler's URL for a verb (strings.TrimRight(urlPrefix, "/") + "/" +
 * verb) must be a route the extender serves with cfg: <urlPrefix>/filter and
 * <urlPrefix>/prioritize, on the port it listens on, with TLS exactly when
 * the extender has it, and plain HTTP only on loopback. bindVerb, when set,
 * must reach <urlPrefix>/bind of an extender with bind.enabled (without it
 * the route does not exist and every bind fails); an extender with
 * bind.enabled must be given a bindVerb (else its bind never runs, and the
 * grants and exposure it needs are for nothing). */
static bool check_routes(const char *url_prefix, const char *filter_verb, const char *prioritize_verb,
			 const char *bind_verb, const struct config *cfg, struct errmsg *msg)
{
	const char *verbs[3] = { filter_verb, prioritize_verb, bind_verb };
	const char *const routes[3] = { "filter", "prioritize", "bind" };
	char trimmed[512], full[600], want[600], *host = NULL;
	struct url u;
	size_t k, n;
	int port = 0;
	bool ok;

	if (bind_verb != NULL && !cfg->bind_enabled)
		return failf(msg, "kube-scheduler calls bindVerb \"%s\", but the extender's bind.enabled is false: "
			     "it serves no bind route", bind_verb);
	if (bind_verb == NULL && cfg->bind_enabled)
		return failf(msg, "bind is enabled but kube-scheduler never calls it: set bindVerb: bind "
			     "in the scheduler's extender entry");
	snprintf(trimmed, sizeof trimmed, "%s", url_prefix);
	n = strlen(trimmed);
	while (n > 0 && trimmed[n - 1] == '/')
		trimmed[--n] = '\0';
	for (k = 0; k < 3; k++) {
		if (k == 2 && verbs[k] == NULL)
			break;
		if (verbs[k] == NULL)
			return failf(msg, "no %sVerb", routes[k]);
		snprintf(full, sizeof full, "%s/%s", trimmed, verbs[k]);
		if (!parse_url(full, &u, msg))
			return false;
		snprintf(want, sizeof want, "%s/%s", cfg->url_prefix ? cfg->url_prefix : "", routes[k]);
		if (strcmp(u.path, want) != 0)
			return failf(msg, "kube-scheduler POSTs %s to path %s, but the extender serves %s (urlPrefix \"%s\")",
				     routes[k], u.path, want, cfg->url_prefix ? cfg->url_prefix : "");
	}
	if (config_split_hostport(cfg->listen, &host, &port, msg) != ERR_OK)
		return false;
	ok = true;
	if (u.port != port)
		ok = failf(msg, "urlPrefix %s uses port %d, the extender listens on %s", url_prefix, u.port,
			   cfg->listen);
	else if ((strcmp(u.scheme, "https") == 0) != (cfg->tls_cert_file != NULL))
		ok = failf(msg, "urlPrefix %s is %s but the extender %s TLS", url_prefix, u.scheme,
			   cfg->tls_cert_file ? "serves" : "does not serve");
	else if (strcmp(u.scheme, "http") == 0 && (!loopback(u.host) || !loopback(host)))
		ok = failf(msg, "plain HTTP is for loopback only: urlPrefix %s, listen %s", url_prefix, cfg->listen);
	free(host);
	return ok;
}

static const struct ext_site *ext_in_pod(const struct sites *st, const struct doc *podspec)
{
	size_t i;

	for (i = 0; i < st->next; i++)
		if (st->ext[i].podspec == podspec)
			return &st->ext[i];
	return NULL;
}

static bool labels_select(const struct doc *selector, const struct doc *labels)
{
	size_t i;

	if (count(selector) == 0)
		return false;
	for (i = 0; i < selector->nchildren; i++)
		if (!same_str(text_of(doc_lookup(labels, selector->children[i].key)), text_of(item(selector, i))))
			return false;
	return true;
}

/* The containerPort a probe or Service targetPort names (a name or a number). */
static bool container_port(const struct doc *container, const struct doc *target, int64_t *out)
{
	const struct doc *ports = doc_lookup(container, "ports");
	struct errmsg ignored;
	size_t i;

	if (target == NULL)
		return false;
	if (doc_read_int64(target, out, &ignored) == ERR_OK)
		return true;
	for (i = 0; i < count(ports); i++)
		if (same_str(str_at(item(ports, i), "name"), text_of(target)))
			return doc_read_int64(doc_lookup(item(ports, i), "containerPort"), out, &ignored) == ERR_OK;
	return false;
}

/* The extender behind the URL is this build's extender: in the scheduler's
 * own pod for a loopback URL, else through a Service of the build. TLS on
 * the scheduler's side matches the extender's. */
static bool check_reachable(const struct rset *s, const struct sites *st, const struct sched_site *sc,
			    const struct doc *ext, struct errmsg *msg)
{
	const struct doc *tls = doc_lookup(ext, "tlsConfig");
	const struct ext_site *es = &st->ext[0];
	struct url u;
	char svc[128], ns[128], rest[128], *host = NULL;
	int port = 0;
	bool https = is_true(doc_lookup(ext, "enableHTTPS"));

	if (!parse_url(str_at(ext, "urlPrefix"), &u, msg))
		return false;
	if (https != (strcmp(u.scheme, "https") == 0))
		return failf(msg, "urlPrefix %s and enableHTTPS disagree", str_at(ext, "urlPrefix"));
	if (https) {
		if (is_true(doc_lookup(tls, "insecure")))
			return failf(msg, "tlsConfig.insecure: the extender's certificate would not be checked");
		if (!str_at(tls, "caFile") && !str_at(tls, "caData"))
			return failf(msg, "tlsConfig without caFile or caData: kube-scheduler silently skips verification");
		if (es->cfg.tls_client_ca_file && (!(str_at(tls, "certFile") || str_at(tls, "certData")) ||
						   !(str_at(tls, "keyFile") || str_at(tls, "keyData"))))
			return failf(msg, "the extender requires a client certificate; tlsConfig has none");
	}
	if (loopback(u.host)) {
		if (sc->podspec == NULL || ext_in_pod(st, sc->podspec) == NULL)
			return failf(msg, "loopback urlPrefix %s, but no numa-extender runs in the scheduler's pod",
				     str_at(ext, "urlPrefix"));
		return true;
	}
	if (sscanf(u.host, "%127[^.].%127[^.].%127s", svc, ns, rest) != 3 ||
	    (strcmp(rest, "svc") != 0 && strcmp(rest, "svc.cluster.local") != 0))
		return failf(msg, "urlPrefix host %s is neither loopback nor SERVICE.NAMESPACE.svc", u.host);
	if (str_at(tls, "serverName")) {
		char a[300], b[320];

		snprintf(a, sizeof a, "%s.%s.svc", svc, ns);
		snprintf(b, sizeof b, "%s.%s.svc.cluster.local", svc, ns);
		if (strcmp(str_at(tls, "serverName"), a) != 0 && strcmp(str_at(tls, "serverName"), b) != 0)
			return failf(msg, "tlsConfig.serverName %s does not name Service %s/%s",
				     str_at(tls, "serverName"), ns, svc);
	}
	{
		const struct res *service = set_find(s, "Service", ns, svc);
		const struct doc *ports = service ? at(service->doc, "spec.ports") : NULL;
		size_t i, j;

		if (service == NULL)
			return failf(msg, "urlPrefix names Service %s/%s, which %s does not create", ns, svc, s->dir);
		for (i = 0; i < count(ports); i++) {
			int64_t p = 0, target = 0;
			struct errmsg ignored;
			const struct doc *tp = doc_lookup(item(ports, i), "targetPort");

			if (doc_read_int64(doc_lookup(item(ports, i), "port"), &p, &ignored) != ERR_OK || p != u.port)
				continue;
			if (tp == NULL)
				tp = doc_lookup(item(ports, i), "port");
			if (config_split_hostport(es->cfg.listen, &host, &port, msg) != ERR_OK)
				return false;
			if (!wildcard(host)) {
				failf(msg, "reached through Service %s, but the extender listens on %s only", svc,
				      es->cfg.listen);
				free(host);
				return false;
			}
			free(host);
			for (j = 0; j < st->next; j++) {
				const struct doc *labels = at(st->ext[j].deploy->doc, "spec.template.metadata.labels");

				if (!labels_select(at(service->doc, "spec.selector"), labels))
					continue;
				if (!container_port(st->ext[j].container, tp, &target) || target != port)
					return failf(msg, "Service %s port %d reaches container port %lld, the extender listens on %s",
						     svc, u.port, (long long)target, es->cfg.listen);
				return true;
			}
			return failf(msg, "Service %s selects no numa-extender pod", svc);
		}
		return failf(msg, "Service %s has no port %d", svc, u.port);
	}
}

static void manifests_scheduler_urls_match_extender_routes(void **state)
{
	size_t i, j, k, checked = 0, binds = 0;

	(void)state;
	for (i = 0; i < nsets; i++) {
		struct sites st;
		struct errmsg msg;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		assert_true(st.next >= 1);
		for (j = 0; j < st.nsched; j++) {
			const struct doc *exts = doc_lookup(st.sched[j].cfg, "extenders");

			for (k = 0; k < count(exts); k++) {
				const struct doc *e = item(exts, k);
				char *host = NULL;
				int port = 0;

				if (!check_routes(str_at(e, "urlPrefix"), str_at(e, "filterVerb"),
						  str_at(e, "prioritizeVerb"), str_at(e, "bindVerb"), &st.ext[0].cfg,
						  &msg) ||
				    !check_reachable(&sets[i], &st, &st.sched[j], e, &msg))
					fail_msg("%s (%s, in %s) extenders[%zu]: %s", st.sched[j].cm->origin, st.sched[j].key,
						 sets[i].dir, k, msg.text);
				/* Reached through a Service: must listen beyond loopback. */
				assert_int_equal(config_split_hostport(st.ext[0].cfg.listen, &host, &port, &msg), ERR_OK);
				if (!loopback(host) && !wildcard(host))
					fail_msg("%s: listen %s is neither loopback nor all addresses", sets[i].dir,
						 st.ext[0].cfg.listen);
				free(host);
				checked++;
				binds += str_at(e, "bindVerb") != NULL;
			}
		}
		sites_free(&st);
	}
	assert_true(checked >= 3);
	/* The bind overlay's scheduler delegates binding. */
	assert_true(binds >= 1);
}

static void manifests_route_check_rejects_mismatches(void **state)
{
	struct config plain, tls;
	struct errmsg msg;
	static const char plain_yaml[] = "listen: \"127.0.0.1:8888\"\nurlPrefix: /numa\n";
	static const char tls_yaml[] =
		"listen: \"0.0.0.0:8443\"\nurlPrefix: /numa\n"
		"tls: {certFile: /c, keyFile: /k, clientCAFile: /ca}\n";

	(void)state;
	config_init(&plain);
	config_init(&tls);
	assert_int_equal(config_load_buffer(plain_yaml, strlen(plain_yaml), "plain", &plain, &msg), ERR_OK);
	assert_int_equal(config_load_buffer(tls_yaml, strlen(tls_yaml), "tls", &tls, &msg), ERR_OK);
	assert_true(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &plain, &msg));
	/* Trailing slashes are trimmed by kube-scheduler. */
	assert_true(check_routes("http://127.0.0.1:8888/numa//", "filter", "prioritize", NULL, &plain, &msg));
	assert_false(check_routes("http://127.0.0.1:8888/v1", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "the extender serves /numa/filter"));
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "score", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "/numa/prioritize"));
	assert_false(check_routes("http://127.0.0.1:8889/numa", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "port 8889"));
	assert_false(check_routes("https://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "does not serve TLS"));
	assert_false(check_routes("http://x.y.svc:8443/numa", "filter", "prioritize", NULL, &tls, &msg));
	assert_non_null(strstr(msg.text, "serves TLS"));
	assert_true(check_routes("https://x.y.svc:8443/numa", "filter", "prioritize", NULL, &tls, &msg));
	config_cleanup(&plain);
	config_cleanup(&tls);
}

/* bindVerb against bind.enabled, and the loader's rule that makes the bind
 * overlay move metricsListen to loopback. */
static void manifests_route_check_rejects_bind_mismatches(void **state)
{
	struct config plain, bind, refused;
	struct errmsg msg;
	static const char plain_yaml[] = "listen: \"127.0.0.1:8888\"\nurlPrefix: /numa\n";
	static const char bind_yaml[] =
		"listen: \"127.0.0.1:8888\"\nmetricsListen: \"127.0.0.1:9090\"\nurlPrefix: /numa\n"
		"inventory: {source: kubernetes}\nbind: {enabled: true}\n";
	/* The base's metricsListen: reachable from the pod network. */
	static const char open_yaml[] =
		"listen: \"127.0.0.1:8888\"\nmetricsListen: \"0.0.0.0:9090\"\nurlPrefix: /numa\n"
		"inventory: {source: kubernetes}\nbind: {enabled: true}\n";

	(void)state;
	config_init(&plain);
	config_init(&bind);
	config_init(&refused);
	assert_int_equal(config_load_buffer(plain_yaml, strlen(plain_yaml), "plain", &plain, &msg), ERR_OK);
	if (config_load_buffer(bind_yaml, strlen(bind_yaml), "bind", &bind, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_true(bind.bind_enabled);
	assert_int_not_equal(config_load_buffer(open_yaml, strlen(open_yaml), "open", &refused, &msg), ERR_OK);
	assert_non_null(strstr(msg.text, "loopback"));

	assert_true(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "bind", &bind, &msg));
	assert_true(check_routes("http://127.0.0.1:8888/numa/", "filter", "prioritize", "bind", &bind, &msg));
	/* The route is <urlPrefix>/bind whatever the verb is called. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "binding", &bind, &msg));
	assert_non_null(strstr(msg.text, "POSTs bind to path /numa/binding, but the extender serves /numa/bind"));
	/* kube-scheduler binds, the extender's route is never called. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &bind, &msg));
	assert_non_null(strstr(msg.text, "bind is enabled but kube-scheduler never calls it"));
	/* bindVerb against an extender without the route: every bind a 404. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "bind", &plain, &msg));
	assert_non_null(strstr(msg.text, "bind.enabled is false"));
	/* The other checks still apply with a bindVerb. */
	assert_false(check_routes("http://127.0.0.1:8889/numa", "filter", "prioritize", "bind", &bind, &msg));
	assert_non_null(strstr(msg.text, "port 8889"));
	config_cleanup(&plain);
	config_cleanup(&bind);
	config_cleanup(&refused);
}

/* A probe run inside the container, for a health listener on loopback (the
 * kubelet probes the pod IP; an httpGet host of 127.0.0.1 is the node's
 * own): bash, which the image's debian:bookworm-slim base ships, opens
 * host:port through /dev/tcp, GETs path and succeeds on status 200 only. */
static bool check_exec_probe(const struct doc *probe, const char *host, int port, const char *path,
			     struct errmsg *msg)
{
	const struct doc *cmd = at(probe, "exec.command");
	const char *script = count(cmd) == 3 ? text_of(item(cmd, 2)) : NULL;
	char want[300];

	if (doc_lookup(probe, "httpGet") || doc_lookup(probe, "tcpSocket") || doc_lookup(probe, "grpc"))
		return failf(msg, "an exec probe with a second handler");
	if (script == NULL || !same_str(text_of(item(cmd, 0)), "/bin/bash") || !same_str(text_of(item(cmd, 1)), "-c"))
		return failf(msg, "exec.command must be [/bin/bash, -c, SCRIPT]");
	snprintf(want, sizeof want, "/dev/tcp/%s/%d ", host, port);
	if (strstr(script, want) == NULL)
		return failf(msg, "the script does not connect to %s:%d, where health is served", host, port);
	snprintf(want, sizeof want, "'GET %s HTTP/1.0\\r\\n\\r\\n'", path);
	if (strstr(script, want) == NULL)
		return failf(msg, "the script does not send GET %s", path);
	if (strstr(script, "read -r _ code _ <&3 && [ \"$code\" = 200 ]") == NULL)
		return failf(msg, "the script does not require status 200");
	return true;
}

static void manifests_extender_probes_reach_the_health_listener(void **state)
{
	static const char *const probes[2] = { "livenessProbe", "readinessProbe" };
	static const char *const paths[2] = { "/healthz", "/readyz" };
	size_t i, j, k, checked = 0, inside = 0;

	(void)state;
	for (i = 0; i < nsets; i++) {
		struct sites st;
		struct errmsg msg;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct ext_site *e = &st.ext[j];
			const char *health = e->cfg.metrics_listen ? e->cfg.metrics_listen : e->cfg.listen;
			char *host = NULL, where[512];
			int port = 0;
			bool local;

			snprintf(where, sizeof where, "%s (%s)", e->deploy->origin, sets[i].dir);
			assert_int_equal(config_split_hostport(health, &host, &port, &msg), ERR_OK);
			local = loopback(host);
			/* A TLS health listener is out of the kubelet's reach (it has
			 * no client certificate). */
			if (!local && !e->cfg.metrics_listen && e->cfg.tls_cert_file)
				fail_msg("%s: /healthz and /readyz on %s need TLS, out of the kubelet's reach; set metricsListen",
					 where, health);
			for (k = 0; k < 2; k++) {
				const struct doc *probe = at(e->container, probes[k]), *get = doc_lookup(probe, "httpGet");
				int64_t target = 0;

				if (probe == NULL)
					fail_msg("%s: the numa-extender container has no %s", where, probes[k]);
				/* Loopback: only a probe inside the container reaches it. */
				if (local) {
					if (!check_exec_probe(probe, host, port, paths[k], &msg))
						fail_msg("%s: %s: /healthz and /readyz on %s are out of the kubelet's reach, "
							 "probe from inside the container: %s", where, probes[k], health, msg.text);
					checked++;
					continue;
				}
				if (get == NULL)
					fail_msg("%s: the numa-extender container has no %s.httpGet", where, probes[k]);
				if (!same_str(str_at(get, "path"), paths[k]))
					fail_msg("%s: %s must GET %s", where, probes[k], paths[k]);
				if (str_at(get, "scheme") && strcmp(str_at(get, "scheme"), "HTTP") != 0)
					fail_msg("%s: %s: the health listener is plain HTTP", where, probes[k]);
				if (!container_port(e->container, doc_lookup(get, "port"), &target) || target != port)
					fail_msg("%s: %s probes port %lld, health is served on %s", where, probes[k],
						 (long long)target, health);
				checked++;
			}
			/* A declared port nothing outside the pod can connect to would
			 * mislead Services and PodMonitors. */
			if (local) {
				const struct doc *ports = doc_lookup(e->container, "ports");

				for (k = 0; k < count(ports); k++) {
					int64_t declared = 0;
					struct errmsg ignored;

					if (doc_read_int64(doc_lookup(item(ports, k), "containerPort"), &declared, &ignored) ==
						    ERR_OK && declared == port)
						fail_msg("%s: containerPort %d is declared, but health listens on %s only",
							 where, port, health);
				}
				inside++;
			}
			free(host);
		}
		sites_free(&st);
	}
	/* Base, default-scheduler-mtls and bind; the bind overlay's on loopback. */
	assert_true(checked >= 6);
	assert_true(inside >= 1);
}

static void manifests_probe_check_rejects_unreachable_exec_probes(void **state)
{
	static const char good[] =
		"exec:\n  command:\n  - /bin/bash\n  - -c\n"
		"  - exec 3<>/dev/tcp/127.0.0.1/9090 && printf 'GET /readyz HTTP/1.0\\r\\n\\r\\n' >&3 && "
		"read -r _ code _ <&3 && [ \"$code\" = 200 ]\n";
	static const struct {
		const char *from, *to, *needle;
	} cases[] = {
		{ NULL, NULL, NULL },
		{ "/9090 ", "/9091 ", "does not connect to 127.0.0.1:9090" },
		{ "/127.0.0.1/", "/10.0.0.1/", "does not connect to 127.0.0.1:9090" },
		{ "GET /readyz", "GET /healthz", "does not send GET /readyz" },
		{ " && [ \"$code\" = 200 ]", "", "does not require status 200" },
		{ "/bin/bash", "/bin/sh", "[/bin/bash, -c, SCRIPT]" },
		{ "exec:", "httpGet: {path: /readyz, port: 9090}\nexec:", "second handler" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[1024];
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		snprintf(buf, sizeof buf, "%s", good);
		if (cases[i].from) {
			char *p = strstr(buf, cases[i].from);

			assert_non_null(p);
			memmove(p + strlen(cases[i].to), p + strlen(cases[i].from), strlen(p + strlen(cases[i].from)) + 1);
			memcpy(p, cases[i].to, strlen(cases[i].to));
		}
		assert_int_equal(doc_parse(buf, strlen(buf), "probe", &docs, &ndocs, &msg), ERR_OK);
		ok = check_exec_probe(docs[0], "127.0.0.1", 9090, "/readyz", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("the good probe was refused: %s", msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* The files the extender's TLS settings name are in its pod: certificate and
 * CA from the Secrets the operator creates, the private key never from a
 * ConfigMap. */
static void manifests_extender_tls_files_come_from_secrets(void **state)
{
	static const char *const secrets[] = { "numa-extender-tls", "numa-extender-client-ca", NULL };
	size_t i, j, k, ntls = 0;

	(void)state;
	for (i = 0; i < nsets; i++) {
		struct sites st;
		struct errmsg msg;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct ext_site *e = &st.ext[j];
			const char *paths[3] = { e->cfg.tls_cert_file, e->cfg.tls_key_file, e->cfg.tls_client_ca_file };

			if (paths[0] == NULL)
				continue;
			ntls++;
			for (k = 0; k < 3; k++) {
				struct file_ref ref;

				if (paths[k] == NULL)
					continue;
				if (!resolve_in_pod(&sets[i], e->ns, e->podspec, e->container, paths[k], &ref, &msg))
					fail_msg("%s: %s", e->deploy->origin, msg.text);
				if (!ref.secret || !in_list(ref.name, secrets))
					fail_msg("%s: %s must come from Secret numa-extender-tls or numa-extender-client-ca, not %s %s",
						 e->deploy->origin, paths[k], ref.secret ? "Secret" : "ConfigMap", ref.name);
			}
		}
		sites_free(&st);
	}
	/* The default-scheduler-mtls overlay serves TLS. */
	assert_true(ntls >= 1);
}

/* The extender writes only its decision log, and the root filesystem is
 * read-only: the log's directory must be a writable emptyDir mount, or the
 * extender refuses to start ("cannot open the decision log"). */
static void manifests_decision_log_has_a_writable_directory(void **state)
{
	size_t i, j, k, nlogs = 0;

	(void)state;
	for (i = 0; i < nsets; i++) {
		struct sites st;
		struct errmsg msg;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct ext_site *e = &st.ext[j];
			const struct doc *mounts = doc_lookup(e->container, "volumeMounts");
			const struct doc *vols = doc_lookup(e->podspec, "volumes");
			const char *path = e->cfg.decision_log_path, *slash, *vol = NULL;
			bool writable = false;

			if (path == NULL)
				continue;
			nlogs++;
			slash = strrchr(path, '/');
			for (k = 0; slash && k < count(mounts); k++) {
				const char *mp = str_at(item(mounts, k), "mountPath");

				if (mp && strlen(mp) == (size_t)(slash - path) && strncmp(mp, path, strlen(mp)) == 0 &&
				    !is_true(doc_lookup(item(mounts, k), "readOnly")) && !str_at(item(mounts, k), "subPath"))
					vol = str_at(item(mounts, k), "name");
			}
			for (k = 0; vol && k < count(vols); k++)
				if (same_str(str_at(item(vols, k), "name"), vol) && doc_get(item(vols, k), "emptyDir"))
					writable = true;
			if (!writable)
				fail_msg("%s: decisionLog.path %s is not in a writable emptyDir mount", e->deploy->origin, path);
		}
		sites_free(&st);
	}
	assert_true(nlogs >= 1);
}

/* ------------------------------------------------------------------- RBAC */

struct triple {
	char group[96];
	char resource[96];
	char verb[16];
};

struct api_calls {
	struct triple v[32];
	size_t n;
	char versions[8][32];
	size_t nversions;
};

static void add_triple(struct triple *v, size_t *n, size_t cap, const char *g, const char *r,
		       const char *verb)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i].group, g) == 0 && strcmp(v[i].resource, r) == 0 && strcmp(v[i].verb, verb) == 0)
			return;
	assert_true(*n < cap);
	snprintf(v[*n].group, sizeof v[*n].group, "%s", g);
	snprintf(v[*n].resource, sizeof v[*n].resource, "%s", r);
	snprintf(v[*n].verb, sizeof v[*n].verb, "%s", verb);
	(*n)++;
}

/* The string literals of a C source, adjacent literals joined; comments and
 * character constants skipped. */
static size_t c_literals(const char *src, char ***out)
{
	char **lits = NULL, *cur = NULL;
	size_t n = 0, len = 0, i = 0;

	while (src[i]) {
		if (src[i] == '/' && src[i + 1] == '*') {
			const char *end = strstr(src + i + 2, "*/");

			i = end ? (size_t)(end - src) + 2 : strlen(src);
		} else if (src[i] == '/' && src[i + 1] == '/') {
			i += strcspn(src + i, "\n");
		} else if (src[i] == '"') {
			size_t start = ++i;

			while (src[i] && src[i] != '"')
				i += src[i] == '\\' && src[i + 1] ? 2 : 1;
			cur = xrealloc(cur, len + (i - start) + 1);
			memcpy(cur + len, src + start, i - start);
			len += i - start;
			cur[len] = '\0';
			if (src[i])
				i++;
		} else if (isspace((unsigned char)src[i])) {
			i++;
		} else {
			if (src[i] == '\'') {
				i++;
				while (src[i] && src[i] != '\'')
					i += src[i] == '\\' && src[i + 1] ? 2 : 1;
			}
			if (src[i])
				i++;
			if (cur) {
				lits = xreallocarray(lits, n + 1, sizeof *lits);
				lits[n++] = cur;
				cur = NULL;
				len = 0;
			}
		}
	}
	if (cur) {
		lits = xreallocarray(lits, n + 1, sizeof *lits);
		lits[n++] = cur;
	}
	*out = lits;
	return n;
}

/* Every Kubernetes API call the extender's source makes: each literal path
 * /apis/GROUP/VERSION/[namespaces/NS/]PLURAL[/NAME][?QUERY] (or /api/v1/...)
 * becomes (group, plural, verb): watch when the query says watch=1/true,
 * get with a NAME, list otherwise; a collection path in a file that drives a
 * kube_reflector is both listed and watched. A file that POSTs (sets
 * CURLOPT_POSTFIELDS) creates the subresources its paths name (pods/binding);
 * its other paths are GETs. A "%s" version takes every
 * API version literal of the same file. Any other method set through libcurl
 * stops the test, which would not know the verb. */
static void add_version(struct api_calls *calls, const char *version)
{
	size_t j;

	for (j = 0; j < calls->nversions; j++)
		if (strcmp(calls->versions[j], version) == 0)
			return;
	assert_true(calls->nversions < sizeof calls->versions / sizeof *calls->versions);
	snprintf(calls->versions[calls->nversions++], sizeof calls->versions[0], "%s", version);
}

/* The calls of one source file (origin names it in messages). */
static bool extract_from_source(const char *src, const char *origin, struct api_calls *calls,
				struct errmsg *msg)
{
	char **lits = NULL;
	size_t n = c_literals(src, &lits), i, before = calls->n;
	bool any_version = false, ok = true;
	bool reflector = strstr(src, "#include \"extender/kube_reflector.h\"") != NULL;
	bool posts = strstr(src, "CURLOPT_POSTFIELDS") != NULL;

	for (i = 0; i < n; i++) {
		char *p = strstr(lits[i], "/apis/"), *query, *seg[8], *save = NULL, copy[1024];
		const char *group, *version, *verb;
		char resource[96];
		size_t nseg = 0, r;
		bool named = false;

		if (p == NULL && strncmp(lits[i], "/api/", 5) != 0)
			continue;
		snprintf(copy, sizeof copy, "%s", p ? p + 6 : lits[i] + 5);
		query = strchr(copy, '?');
		if (query)
			*query++ = '\0';
		for (char *t = strtok_r(copy, "/", &save); t && nseg < 8; t = strtok_r(NULL, "/", &save))
			seg[nseg++] = t;
		group = p ? (nseg > 0 ? seg[0] : "") : "";
		r = p ? 1 : 0;
		if (nseg < r + 2)
			continue; /* discovery */
		version = seg[r++];
		if (strcmp(seg[r], "namespaces") == 0 && nseg >= r + 3)
			r += 2;
		snprintf(resource, sizeof resource, "%s", seg[r]);
		if (nseg > r + 1)
			named = true;
		if (nseg > r + 2) /* a subresource: RBAC names it "pods/status" */
			snprintf(resource, sizeof resource, "%s/%s", seg[r], seg[r + 2]);
		if (posts && nseg > r + 2)
			verb = "create";
		else if (query && (strncmp(query, "watch=1", 7) == 0 || strncmp(query, "watch=true", 10) == 0 ||
				   strstr(query, "&watch=1") || strstr(query, "&watch=true")))
			verb = "watch";
		else
			verb = named ? "get" : "list";
		add_triple(calls->v, &calls->n, sizeof calls->v / sizeof *calls->v, group, resource, verb);
		if (reflector && !named)
			add_triple(calls->v, &calls->n, sizeof calls->v / sizeof *calls->v, group, resource,
				   "watch");
		/* Versions are those of API groups (CRDs); the core API is v1. */
		if (strcmp(version, "%s") == 0)
			any_version = true;
		else if (p)
			add_version(calls, version);
	}
	for (i = 0; any_version && i < n; i++)
		if (matches("^v[0-9]+((alpha|beta)[0-9]+)?$", lits[i]))
			add_version(calls, lits[i]);
	if (calls->n > before && (strstr(src, "CURLOPT_CUSTOMREQUEST") || strstr(src, "CURLOPT_UPLOAD") ||
				  strstr(src, "CURLOPT_PUT")))
		ok = failf(msg, "%s sets an HTTP method: teach this test its verbs", origin);
	for (i = 0; i < n; i++)
		free(lits[i]);
	free(lits);
	return ok;
}

/* Files whose calls only some configurations make, and whether cfg does. */
static bool file_in_use(const char *name, const struct config *cfg)
{
	if (cfg == NULL)
		return true;
	if (strcmp(name, "kube_bind.c") == 0)
		return cfg->bind_enabled;
	if (strcmp(name, "source_pods.c") == 0)
		return cfg->ledger_enabled && cfg->inventory_source == CONFIG_SOURCE_KUBERNETES;
	return true;
}

/* The calls of every source file (cfg NULL), or of those a configuration
 * uses. */
static bool extract_api_calls_for(const char *dir, const struct config *cfg, struct api_calls *calls,
				  struct errmsg *msg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = true;

	memset(calls, 0, sizeof *calls);
	if (d == NULL)
		return failf(msg, "%s: cannot open", dir);
	while (ok && (e = readdir(d)) != NULL) {
		char path[PATH_MAX], *src = NULL;
		size_t len = 0;
		struct errmsg ignored;

		if ((!has_suffix(e->d_name, ".c") && !has_suffix(e->d_name, ".h")) ||
		    !file_in_use(e->d_name, cfg) ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    doc_read_file(path, 0, &src, &len, &ignored) != ERR_OK)
			continue;
		ok = extract_from_source(src, path, calls, msg);
		free(src);
	}
	closedir(d);
	return ok;
}

static bool extract_api_calls(const char *dir, struct api_calls *calls, struct errmsg *msg)
{
	return extract_api_calls_for(dir, NULL, calls, msg);
}

static bool has_call(const struct api_calls *c, const char *group, const char *resource, const char *verb)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].group, group) == 0 && strcmp(c->v[i].resource, resource) == 0 &&
		    strcmp(c->v[i].verb, verb) == 0)
			return true;
	return false;
}

/* The extraction itself, on sources written for it. */
static void manifests_api_call_extraction_reads_c_sources(void **state)
{
	static const char src[] =
		"#include \"extender/doc.h\"\n"
		"static const char *const v[] = { \"v1\", \"v2beta1\" };\n"
		"/* \"/apis/ignored.io/v1/comments\" */\n"
		"// \"/apis/ignored.io/v1/lines\"\n"
		"char q = '\"';\n"
		"void f(void) {\n"
		"  get(\"/api/v1/namespaces/%s/pods/%s\");\n"
		"  get(\"/api/v1/nodes\" \"?limit=500\");\n"
		"  get(\"/apis/coordination.k8s.io/\"\n    \"v1/namespaces/%s/leases?watch=true&x=1\");\n"
		"  get(\"/apis/example.io/%s/widgets?limit=1&watch=1\");\n"
		"  get(\"/api/v1/namespaces/%s/pods/%s/status\");\n"
		"  get(\"/apis/example.io\");\n"
		"}\n";
	struct api_calls calls;
	struct errmsg msg;

	(void)state;
	memset(&calls, 0, sizeof calls);
	assert_true(extract_from_source(src, "src.c", &calls, &msg));
	assert_int_equal(calls.n, 5);
	assert_true(has_call(&calls, "", "pods", "get"));
	assert_true(has_call(&calls, "", "nodes", "list"));
	assert_true(has_call(&calls, "coordination.k8s.io", "leases", "watch"));
	assert_true(has_call(&calls, "example.io", "widgets", "watch"));
	assert_true(has_call(&calls, "", "pods/status", "get"));
	assert_false(has_call(&calls, "ignored.io", "comments", "list"));
	/* "v1" from the paths, then every version literal for "%s". */
	assert_int_equal(calls.nversions, 2);
	assert_string_equal(calls.versions[0], "v1");
	assert_string_equal(calls.versions[1], "v2beta1");
	memset(&calls, 0, sizeof calls);
	assert_false(extract_from_source("x(\"/api/v1/pods\");\n"
					 "curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, \"DELETE\");",
					 "del.c", &calls, &msg));
	assert_non_null(strstr(msg.text, "del.c sets an HTTP method"));
}

/* The (group, resource, verb) triples of a Role or ClusterRole. Wildcards,
 * resourceNames and nonResourceURLs are refused unless allowed_names. */
static bool role_triples(const struct doc *role, bool allow_names, struct triple *v, size_t *n, size_t cap,
			 struct errmsg *msg)
{
	const struct doc *rules = doc_lookup(role, "rules");
	const char *name = str_at(role, "metadata.name");
	size_t i, g, r, k;

	for (i = 0; i < count(rules); i++) {
		const struct doc *rule = item(rules, i);
		const struct doc *groups = doc_lookup(rule, "apiGroups"), *res = doc_lookup(rule, "resources"),
				 *verbs = doc_lookup(rule, "verbs");

		if (doc_lookup(rule, "nonResourceURLs"))
			return failf(msg, "%s: rules[%zu] grants nonResourceURLs", name, i);
		if (doc_lookup(rule, "resourceNames") && !allow_names)
			return failf(msg, "%s: rules[%zu] has resourceNames (list and watch ignore them)", name, i);
		if (list_has(groups, "*") || list_has(res, "*") || list_has(verbs, "*"))
			return failf(msg, "%s: rules[%zu] uses a wildcard", name, i);
		for (g = 0; g < count(groups); g++)
			for (r = 0; r < count(res); r++)
				for (k = 0; k < count(verbs); k++)
					add_triple(v, n, cap, text_of(item(groups, g)) ? text_of(item(groups, g)) : "",
						   text_of(item(res, r)) ? text_of(item(res, r)) : "",
						   text_of(item(verbs, k)) ? text_of(item(verbs, k)) : "");
	}
	return true;
}

static bool has_triple(const struct triple *v, size_t n, const struct triple *t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].group, t->group) == 0 && strcmp(v[i].resource, t->resource) == 0 &&
		    strcmp(v[i].verb, t->verb) == 0)
			return true;
	return false;
}

/* Granted == needed, naming the first difference. */
static bool same_grants(const struct triple *have, size_t nhave, const struct api_calls *need,
			const char *who, struct errmsg *msg)
{
	size_t i;

	for (i = 0; i < need->n; i++)
		if (!has_triple(have, nhave, &need->v[i]))
			return failf(msg, "%s does not grant %s on %s/%s, which the extender calls", who, need->v[i].verb,
				     need->v[i].group, need->v[i].resource);
	for (i = 0; i < nhave; i++)
		if (!has_triple(need->v, need->n, &have[i]))
			return failf(msg, "%s grants %s on %s/%s, which the extender never calls", who, have[i].verb,
				     have[i].group, have[i].resource);
	return true;
}

static bool subject_is(const struct doc *binding, const char *sa, const char *ns)
{
	const struct doc *subjects = doc_lookup(binding, "subjects");
	size_t i;

	for (i = 0; i < count(subjects); i++) {
		const struct doc *s = item(subjects, i);
		const char *sns = str_at(s, "namespace") ? str_at(s, "namespace") : ns_of(binding);

		if (same_str(str_at(s, "kind"), "ServiceAccount") && same_str(str_at(s, "name"), sa) &&
		    same_str(sns, ns))
			return true;
	}
	return false;
}

static const char *service_account(const struct doc *podspec)
{
	return str_at(podspec, "serviceAccountName") ? str_at(podspec, "serviceAccountName") : "default";
}

/* What the extender's service account gets through ClusterRoles this build
 * defines (the built-in kube-scheduler roles are checked by
 * manifests_kube_scheduler_grants_only_where_it_runs). */
static bool extender_grants(const struct rset *s, const struct ext_site *e, struct triple *v, size_t *n,
			    size_t cap, struct errmsg *msg)
{
	const char *sa = service_account(e->podspec);
	size_t i;

	*n = 0;
	if (strcmp(sa, "default") == 0)
		return failf(msg, "%s: the extender runs as the namespace's default service account", e->deploy->origin);
	for (i = 0; i < s->n; i++) {
		const struct doc *b = s->v[i].doc;
		const struct res *role;

		if (!kind_is(b, "ClusterRoleBinding") || !subject_is(b, sa, e->ns) ||
		    !same_str(str_at(b, "roleRef.kind"), "ClusterRole"))
			continue;
		role = set_find(s, "ClusterRole", NULL, str_at(b, "roleRef.name"));
		if (role && !role_triples(role->doc, false, v, n, cap, msg))
			return false;
	}
	return true;
}

static void manifests_rbac_grants_exactly_the_api_calls_in_the_source(void **state)
{
	/* What the derivation must find for a bind-enabled extender with the
	 * ledger: the inventory and the pod watch, plus kube_bind.c's GET of
	 * the pod and POST of its Binding. Pinned, so that neither the source
	 * scan nor the bind overlay can drift unnoticed. */
	static const char *const bind_calls[][3] = {
		{ "topology.node.k8s.io", "noderesourcetopologies", "list" },
		{ "topology.node.k8s.io", "noderesourcetopologies", "watch" },
		{ "", "pods", "list" },
		{ "", "pods", "watch" },
		{ "", "pods", "get" },
		{ "", "pods/binding", "create" },
	};
	struct api_calls calls;
	struct errmsg msg;
	size_t i, j, k, nbind = 0;

	(void)state;
	if (!extract_api_calls("extender", &calls, &msg))
		fail_msg("%s", msg.text);
	/* The Kubernetes inventory source lists and watches. */
	assert_true(calls.n >= 2);
	for (i = 0; i < nsets; i++) {
		struct sites st;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s: %s", sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			struct triple have[64];
			size_t nhave = 0;
			char who[256];

			snprintf(who, sizeof who, "%s: the ClusterRoles of service account %s", sets[i].dir,
				 service_account(st.ext[j].podspec));
			if (!extract_api_calls_for("extender", &st.ext[j].cfg, &calls, &msg) ||
			    !extender_grants(&sets[i], &st.ext[j], have, &nhave, 64, &msg) ||
			    !same_grants(have, nhave, &calls, who, &msg))
				fail_msg("%s", msg.text);
			if (!st.ext[j].cfg.bind_enabled)
				continue;
			if (!st.ext[j].cfg.ledger_enabled || calls.n != sizeof bind_calls / sizeof *bind_calls)
				fail_msg("%s: bind with the ledger should need %zu grants, the source scan found %zu",
					 sets[i].dir, sizeof bind_calls / sizeof *bind_calls, calls.n);
			for (k = 0; k < sizeof bind_calls / sizeof *bind_calls; k++)
				if (!has_call(&calls, bind_calls[k][0], bind_calls[k][1], bind_calls[k][2]))
					fail_msg("%s: the source scan misses %s on %s/%s", sets[i].dir, bind_calls[k][2],
						 bind_calls[k][0], bind_calls[k][1]);
			nbind++;
		}
		sites_free(&st);
	}
	/* manifests/overlays/bind */
	assert_true(nbind >= 1);
}

static void manifests_rbac_check_rejects_extra_and_missing_verbs(void **state)
{
	static const char *const roles[] = {
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [get, list, watch]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list]\n",
		"rules:\n- apiGroups: [\"*\"]\n  resources: [noderesourcetopologies]\n  verbs: [list, watch]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list, watch]\n- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [list]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list, watch]\n",
	};
	static const char *const expect[] = {
		"grants get on topology.node.k8s.io/noderesourcetopologies, which the extender never calls",
		"does not grant watch on topology.node.k8s.io/noderesourcetopologies",
		"uses a wildcard",
		"grants list on /secrets",
		NULL,
	};
	struct api_calls need;
	size_t i;

	(void)state;
	memset(&need, 0, sizeof need);
	add_triple(need.v, &need.n, 32, "topology.node.k8s.io", "noderesourcetopologies", "list");
	add_triple(need.v, &need.n, 32, "topology.node.k8s.io", "noderesourcetopologies", "watch");
	for (i = 0; i < sizeof roles / sizeof *roles; i++) {
		struct doc **docs = NULL;
		size_t ndocs = 0, nhave = 0;
		struct triple have[16];
		struct errmsg msg;
		bool ok;

		assert_int_equal(doc_parse(roles[i], strlen(roles[i]), "role", &docs, &ndocs, &msg), ERR_OK);
		ok = role_triples(docs[0], false, have, &nhave, 16, &msg) &&
		     same_grants(have, nhave, &need, "role", &msg);
		doc_free_all(docs, ndocs);
		if (expect[i] == NULL) {
			if (!ok)
				fail_msg("role %zu refused: %s", i, msg.text);
		} else if (ok || strstr(msg.text, expect[i]) == NULL) {
			fail_msg("role %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, expect[i]);
		}
	}
}

/* Does a kube-scheduler container run with service account sa in ns? */
static const struct sched_site *scheduler_of(const struct sites *st, const char *sa, const char *ns)
{
	size_t i;

	for (i = 0; i < st->nsched; i++)
		if (st->sched[i].podspec && strcmp(service_account(st->sched[i].podspec), sa) == 0 &&
		    same_str(ns_of(st->sched[i].deploy->doc), ns))
			return &st->sched[i];
	return NULL;
}

/* Lease namespace and name the scheduler elects on (v1 defaults). */
static void lease_of(const struct doc *cfg, const char **ns, const char **name, bool *elect)
{
	const struct doc *le = doc_lookup(cfg, "leaderElection");

	*elect = !is_false(doc_lookup(le, "leaderElect"));
	*ns = str_at(le, "resourceNamespace") ? str_at(le, "resourceNamespace") : "kube-system";
	*name = str_at(le, "resourceName") ? str_at(le, "resourceName") : "kube-scheduler";
}

static void manifests_kube_scheduler_grants_only_where_it_runs(void **state)
{
	size_t i, j, k;

	(void)state;
	for (i = 0; i < nsets; i++) {
		const struct rset *s = &sets[i];
		struct sites st;
		struct errmsg msg;

		if (!load_sites(s, &st, &msg))
			fail_msg("%s: %s", s->dir, msg.text);
		for (j = 0; j < s->n; j++) {
			const struct doc *d = s->v[j].doc;
			const struct doc *subjects = doc_lookup(d, "subjects");
			const char *ref = str_at(d, "roleRef.name");
			bool cluster = kind_is(d, "ClusterRoleBinding");

			if (kind_is(d, "Role") || kind_is(d, "ClusterRole")) {
				struct triple t[64];
				size_t nt = 0;

				/* resourceNames are legitimate on a lease Role. */
				if (!role_triples(d, kind_is(d, "Role"), t, &nt, 64, &msg))
					fail_msg("%s: %s", s->v[j].origin, msg.text);
				continue;
			}
			if (!cluster && !kind_is(d, "RoleBinding"))
				continue;
			for (k = 0; k < count(subjects); k++) {
				const struct doc *sub = item(subjects, k);
				const char *sns = str_at(sub, "namespace") ? str_at(sub, "namespace") : ns_of(d);
				const struct sched_site *sched;

				if (!same_str(str_at(sub, "kind"), "ServiceAccount") ||
				    !set_find(s, "ServiceAccount", sns, str_at(sub, "name")))
					fail_msg("%s: binding %s grants to %s %s, not a service account of this build",
						 s->v[j].origin, str_at(d, "metadata.name"), str_at(sub, "kind"),
						 str_at(sub, "name"));
				sched = scheduler_of(&st, str_at(sub, "name"), sns);
				if (same_str(str_at(d, "roleRef.kind"), "ClusterRole") &&
				    !set_find(s, "ClusterRole", NULL, ref)) {
					/* A built-in role: only kube-scheduler's, only where one runs. */
					if (!in_list(ref, scheduler_roles))
						fail_msg("%s: binding to built-in ClusterRole %s", s->v[j].origin, ref);
					if (sched == NULL)
						fail_msg("%s: %s binds %s, but no kube-scheduler runs as %s in %s",
							 s->v[j].origin, str_at(d, "metadata.name"), ref,
							 str_at(sub, "name"), s->dir);
				}
				if (same_str(str_at(d, "roleRef.kind"), "Role")) {
					const struct res *role = set_find(s, "Role", ns_of(d), ref);
					const char *lns, *lname;
					bool elect;
					struct triple t[16], want;
					size_t nt = 0;

					if (role == NULL)
						fail_msg("%s: Role %s is not in this build", s->v[j].origin, ref);
					if (sched == NULL)
						fail_msg("%s: Role %s is bound where no kube-scheduler runs", s->v[j].origin, ref);
					lease_of(sched->cfg, &lns, &lname, &elect);
					if (!elect || !same_str(lns, ns_of(d)))
						fail_msg("%s: Role %s: the scheduler does not elect a leader in %s",
							 s->v[j].origin, ref, ns_of(d));
					assert_true(role_triples(role->doc, true, t, &nt, 16, &msg));
					/* Exactly get and update on the one Lease (create comes
					 * with system:kube-scheduler). */
					assert_int_equal(nt, 2);
					snprintf(want.group, sizeof want.group, "coordination.k8s.io");
					snprintf(want.resource, sizeof want.resource, "leases");
					snprintf(want.verb, sizeof want.verb, "get");
					assert_true(has_triple(t, nt, &want));
					snprintf(want.verb, sizeof want.verb, "update");
					assert_true(has_triple(t, nt, &want));
					if (!list_has(at(item(doc_lookup(role->doc, "rules"), 0), "resourceNames"), lname) ||
					    count(at(item(doc_lookup(role->doc, "rules"), 0), "resourceNames")) != 1)
						fail_msg("%s: Role %s must name exactly the Lease %s", role->origin, ref, lname);
				}
			}
		}
		/* Each second scheduler: its built-in roles, a Lease of its own
		 * (never the default scheduler's kube-system/kube-scheduler), and
		 * leader election whenever it has replicas. */
		for (j = 0; j < st.nsched; j++) {
			const struct sched_site *sc = &st.sched[j];
			const char *sa, *lns, *lname;
			int64_t replicas = 1;
			bool elect, found;
			struct errmsg ignored;

			if (sc->podspec == NULL)
				continue;
			sa = service_account(sc->podspec);
			for (const char *const *r = scheduler_roles; *r; r++) {
				found = false;
				for (k = 0; k < s->n; k++)
					if (kind_is(s->v[k].doc, "ClusterRoleBinding") &&
					    same_str(str_at(s->v[k].doc, "roleRef.name"), *r) &&
					    subject_is(s->v[k].doc, sa, ns_of(sc->deploy->doc)))
						found = true;
				if (!found)
					fail_msg("%s: kube-scheduler runs as %s without ClusterRole %s", sc->deploy->origin, sa, *r);
			}
			lease_of(sc->cfg, &lns, &lname, &elect);
			if (doc_lookup(at(sc->deploy->doc, "spec"), "replicas"))
				doc_read_int64(at(sc->deploy->doc, "spec.replicas"), &replicas, &ignored);
			if (replicas > 1 && !elect)
				fail_msg("%s: %lld replicas without leader election would all schedule", sc->deploy->origin,
					 (long long)replicas);
			if (elect && strcmp(lns, "kube-system") == 0 && strcmp(lname, "kube-scheduler") == 0)
				fail_msg("%s: a second scheduler must not contend for the default scheduler's Lease",
					 sc->cm->origin);
			found = false;
			for (k = 0; elect && k < s->n; k++)
				if (kind_is(s->v[k].doc, "RoleBinding") && same_str(ns_of(s->v[k].doc), lns) &&
				    subject_is(s->v[k].doc, sa, ns_of(sc->deploy->doc)))
					found = true;
			if (elect && !found)
				fail_msg("%s: nothing lets %s renew Lease %s/%s", sc->cm->origin, sa, lns, lname);
		}
		sites_free(&st);
	}
}

/* ---------------------------------------------------------------- the CRD */

/* nrt-api-and-peers.md section 1.2, as schema paths ("[]" = items). */
struct field_spec {
	const char *path;
	const char *type; /* "quantity": x-kubernetes-int-or-string */
	int required;     /* -1: an items entry */
};

static const struct field_spec nrt_v1alpha2[] = {
	{ "apiVersion", "string", 0 },
	{ "kind", "string", 0 },
	{ "metadata", "object", 0 },
	{ "topologyPolicies", "array", 0 },
	{ "topologyPolicies[]", "string", -1 },
	{ "attributes", "array", 0 },
	{ "attributes[]", "object", -1 },
	{ "attributes[].name", "string", 1 },
	{ "attributes[].value", "string", 1 },
	{ "zones", "array", 1 },
	{ "zones[]", "object", -1 },
	{ "zones[].name", "string", 1 },
	{ "zones[].type", "string", 1 },
	{ "zones[].parent", "string", 0 },
	{ "zones[].costs", "array", 0 },
	{ "zones[].costs[]", "object", -1 },
	{ "zones[].costs[].name", "string", 1 },
	{ "zones[].costs[].value", "integer", 1 },
	{ "zones[].attributes", "array", 0 },
	{ "zones[].attributes[]", "object", -1 },
	{ "zones[].attributes[].name", "string", 1 },
	{ "zones[].attributes[].value", "string", 1 },
	{ "zones[].resources", "array", 0 },
	{ "zones[].resources[]", "object", -1 },
	{ "zones[].resources[].name", "string", 1 },
	{ "zones[].resources[].capacity", "quantity", 1 },
	{ "zones[].resources[].allocatable", "quantity", 1 },
	{ "zones[].resources[].available", "quantity", 1 },
	{ NULL, NULL, 0 },
};

/* v1alpha1: no top-level attributes, topologyPolicies required. */
static const struct field_spec nrt_v1alpha1[] = {
	{ "apiVersion", "string", 0 },
	{ "kind", "string", 0 },
	{ "metadata", "object", 0 },
	{ "topologyPolicies", "array", 1 },
	{ "topologyPolicies[]", "string", -1 },
	{ "zones", "array", 1 },
	{ "zones[]", "object", -1 },
	{ "zones[].name", "string", 1 },
	{ "zones[].type", "string", 1 },
	{ "zones[].parent", "string", 0 },
	{ "zones[].costs", "array", 0 },
	{ "zones[].costs[]", "object", -1 },
	{ "zones[].costs[].name", "string", 1 },
	{ "zones[].costs[].value", "integer", 1 },
	{ "zones[].attributes", "array", 0 },
	{ "zones[].attributes[]", "object", -1 },
	{ "zones[].attributes[].name", "string", 1 },
	{ "zones[].attributes[].value", "string", 1 },
	{ "zones[].resources", "array", 0 },
	{ "zones[].resources[]", "object", -1 },
	{ "zones[].resources[].name", "string", 1 },
	{ "zones[].resources[].capacity", "quantity", 1 },
	{ "zones[].resources[].allocatable", "quantity", 1 },
	{ "zones[].resources[].available", "quantity", 1 },
	{ NULL, NULL, 0 },
};

static const char *const schema_types[] = {
	"object", "array", "string", "integer", "number", "boolean", NULL,
};

static const char *const schema_keywords[] = {
	"type", "format", "description", "properties", "required", "items", "x-kubernetes-int-or-string",
	"anyOf", "pattern", "enum", NULL,
};

static const struct doc *find_crd(const struct rset *s, const char *group, const char *plural)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (kind_is(s->v[i].doc, "CustomResourceDefinition") &&
		    same_str(str_at(s->v[i].doc, "spec.group"), group) &&
		    (plural == NULL || same_str(str_at(s->v[i].doc, "spec.names.plural"), plural)))
			return s->v[i].doc;
	return NULL;
}

static const struct doc *crd_version(const struct doc *crd, const char *version)
{
	const struct doc *versions = at(crd, "spec.versions");
	size_t i;

	for (i = 0; i < count(versions); i++)
		if (same_str(str_at(item(versions, i), "name"), version))
			return item(versions, i);
	return NULL;
}

static bool int_or_string(const struct doc *schema)
{
	return is_true(doc_lookup(schema, "x-kubernetes-int-or-string"));
}

/* Every node of a structural schema, using only keywords the validator below
 * implements; calls back with the path of each property and items node. */
static bool walk_schema(const struct doc *node, char *path, size_t cap, const struct field_spec *spec,
			struct errmsg *msg)
{
	const struct doc *props = doc_lookup(node, "properties"), *items = doc_lookup(node, "items");
	const char *type = str_at(node, "type");
	size_t i, len = strlen(path);

	for (i = 0; i < count(node); i++)
		if (!in_list(node->children[i].key, schema_keywords))
			return failf(msg, "%s: schema keyword %s is not implemented by this test's validator",
				     path[0] ? path : "(root)", node->children[i].key);
	if (int_or_string(node)) {
		const struct doc *any = doc_lookup(node, "anyOf");

		if (type)
			return failf(msg, "%s: x-kubernetes-int-or-string with a type is not structural", path);
		if (any && (count(any) != 2 || !same_str(str_at(item(any, 0), "type"), "integer") ||
			    !same_str(str_at(item(any, 1), "type"), "string")))
			return failf(msg, "%s: int-or-string anyOf must be [integer, string]", path);
	} else if (!in_list(type, schema_types)) {
		return failf(msg, "%s: every node of a structural schema needs a type", path[0] ? path : "(root)");
	}
	if (same_str(type, "array") && items == NULL)
		return failf(msg, "%s: an array without items", path);
	if (props && !same_str(type, "object"))
		return failf(msg, "%s: properties on a non-object", path);
	for (i = 0; i < count(doc_lookup(node, "required")); i++) {
		const char *name = text_of(item(doc_lookup(node, "required"), i));

		if (name == NULL || !doc_get(props, name))
			return failf(msg, "%s: required field %s has no schema", path[0] ? path : "(root)",
				     name ? name : "(not a string)");
	}
	for (i = 0; i < count(props); i++) {
		const struct field_spec *f;

		snprintf(path + len, cap - len, "%s%s", len ? "." : "", props->children[i].key);
		for (f = spec; f->path && strcmp(f->path, path) != 0; f++)
			;
		if (f->path == NULL)
			return failf(msg, "%s: not a field of the NodeResourceTopology API", path);
		if (!walk_schema(props->children[i].value, path, cap, spec, msg))
			return false;
		path[len] = '\0';
	}
	if (items) {
		snprintf(path + len, cap - len, "[]");
		if (!walk_schema(items, path, cap, spec, msg))
			return false;
		path[len] = '\0';
	}
	return true;
}

/* Schema node at a spec path ("zones[].costs[].value"), and whether its
 * parent requires it. */
static const struct doc *schema_at(const struct doc *root, const char *path, bool *required)
{
	const struct doc *node = root, *parent = NULL;
	char seg[64];
	const char *p = path;

	*required = false;
	while (node && *p) {
		size_t n = strcspn(p, ".[");

		if (n > 0) {
			snprintf(seg, sizeof seg, "%.*s", (int)n, p);
			parent = node;
			node = doc_get(doc_lookup(node, "properties"), seg);
			*required = list_has(doc_lookup(parent, "required"), seg);
			p += n;
		}
		if (strncmp(p, "[]", 2) == 0) {
			node = doc_lookup(node, "items");
			p += 2;
		}
		if (*p == '.')
			p++;
	}
	return node;
}

static bool check_fields(const struct doc *schema, const struct field_spec *spec, const char *version,
			 struct errmsg *msg)
{
	const struct field_spec *f;
	char path[512] = "";

	if (!same_str(str_at(schema, "type"), "object"))
		return failf(msg, "%s: the root must be an object", version);
	for (f = spec; f->path; f++) {
		bool required;
		const struct doc *node = schema_at(schema, f->path, &required);

		if (node == NULL)
			return failf(msg, "%s: %s is missing from the schema", version, f->path);
		if (strcmp(f->type, "quantity") == 0 ? !int_or_string(node) : !same_str(str_at(node, "type"), f->type))
			return failf(msg, "%s: %s must be %s", version, f->path, f->type);
		if (f->required >= 0 && required != (f->required == 1))
			return failf(msg, "%s: %s must %sbe required", version, f->path, f->required ? "" : "not ");
	}
	if (!walk_schema(schema, path, sizeof path, spec, msg)) {
		errmsg_prefix(msg, "%s: ", version);
		return false;
	}
	return true;
}

static void manifests_crd_matches_the_source_and_the_nrt_api(void **state)
{
	struct api_calls calls;
	struct errmsg msg;
	const struct doc *crd, *v2, *v1, *versions;
	size_t i, nstorage = 0;

	(void)state;
	if (!extract_api_calls("extender", &calls, &msg))
		fail_msg("%s", msg.text);
	assert_true(calls.n >= 1);
	/* The core group ("") needs no CRD. */
	for (i = 0; i < calls.n && calls.v[i].group[0] == '\0'; i++)
		;
	assert_true(i < calls.n);
	crd = find_crd(&sets[0], calls.v[i].group, calls.v[i].resource);
	if (crd == NULL)
		fail_msg("manifests/base installs no CRD for %s/%s, which the extender reads", calls.v[i].group,
			 calls.v[i].resource);
	assert_string_equal(str_at(crd, "metadata.name"), "noderesourcetopologies.topology.node.k8s.io");
	assert_string_equal(str_at(crd, "spec.group"), "topology.node.k8s.io");
	assert_string_equal(str_at(crd, "spec.names.kind"), "NodeResourceTopology");
	assert_string_equal(str_at(crd, "spec.names.listKind"), "NodeResourceTopologyList");
	assert_string_equal(str_at(crd, "spec.names.plural"), "noderesourcetopologies");
	assert_string_equal(str_at(crd, "spec.names.singular"), "noderesourcetopology");
	assert_true(list_has(at(crd, "spec.names.shortNames"), "node-res-topo"));
	assert_string_equal(str_at(crd, "spec.scope"), "Cluster");
	/* *.k8s.io groups are protected: the API server refuses the CRD without it. */
	if (has_suffix(str_at(crd, "spec.group"), ".k8s.io") && !at(crd, "metadata.annotations") )
		fail_msg("the CRD lacks the api-approved.kubernetes.io annotation");
	{
		const struct doc *ann = at(crd, "metadata.annotations");
		bool found = false;

		for (i = 0; i < count(ann); i++)
			found |= strcmp(ann->children[i].key, "api-approved.kubernetes.io") == 0 &&
				 text_of(item(ann, i)) && strncmp(text_of(item(ann, i)), "https://", 8) == 0;
		assert_true(found);
	}
	/* Every version the code may request is served. */
	assert_true(calls.nversions >= 1);
	for (i = 0; i < calls.nversions; i++) {
		const struct doc *v = crd_version(crd, calls.versions[i]);

		if (v == NULL || !is_true(doc_lookup(v, "served")))
			fail_msg("the extender requests %s, which the CRD does not serve", calls.versions[i]);
	}
	versions = at(crd, "spec.versions");
	for (i = 0; i < count(versions); i++)
		nstorage += is_true(doc_lookup(item(versions, i), "storage"));
	assert_int_equal(nstorage, 1);
	v2 = crd_version(crd, "v1alpha2");
	v1 = crd_version(crd, "v1alpha1");
	assert_non_null(v2);
	assert_non_null(v1);
	assert_true(is_true(doc_lookup(v2, "served")) && is_true(doc_lookup(v2, "storage")));
	assert_true(is_true(doc_lookup(v1, "served")) && is_false(doc_lookup(v1, "storage")));
	if (!check_fields(at(v2, "schema.openAPIV3Schema"), nrt_v1alpha2, "v1alpha2", &msg) ||
	    !check_fields(at(v1, "schema.openAPIV3Schema"), nrt_v1alpha1, "v1alpha1", &msg))
		fail_msg("%s", msg.text);
}

/* ------------------------------------------- an OpenAPI v3 validator subset */

/* How sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) types a plain scalar. */
static const char *plain_type(const char *t)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const bools[] = {
		"true", "True", "TRUE", "false", "False", "FALSE", "y", "Y", "yes", "Yes", "YES",
		"n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", NULL,
	};

	if (in_list(t, nulls))
		return "null";
	if (in_list(t, bools))
		return "boolean";
	if (matches("^[-+]?([0-9][0-9_]*|0x[0-9a-fA-F_]+|0b[01_]+)$", t))
		return "integer";
	if (matches("^[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?$", t) ||
	    matches("^[-+]?\\.(inf|Inf|INF)$", t) || matches("^\\.(nan|NaN|NAN)$", t))
		return "number";
	return "string";
}

static const char *value_type(const struct doc *d)
{
	switch (d->kind) {
	case DOC_NULL:
		return "null";
	case DOC_BOOL:
		return "boolean";
	case DOC_NUMBER:
		return strpbrk(d->text, ".eE") ? "number" : "integer";
	case DOC_STRING:
		return "string";
	case DOC_PLAIN:
		return plain_type(d->text);
	case DOC_ARRAY:
		return "array";
	case DOC_OBJECT:
		return "object";
	}
	return "string";
}

static bool type_ok(const char *want, const char *got)
{
	return strcmp(want, got) == 0 || (strcmp(want, "number") == 0 && strcmp(got, "integer") == 0);
}

/* Validates v against schema: type (int-or-string, anyOf of types), enum,
 * pattern, required, properties (unknown fields are errors, as kubectl's
 * default strict field validation makes them; an object schema without
 * properties, i.e. metadata, takes anything) and items. Null members count as
 * absent. Messages: "origin: zones[0].type: required field is missing". */
static bool validate(const struct doc *schema, const struct doc *v, const char *origin, struct doc_path *p,
		     struct errmsg *msg)
{
	const char *got = value_type(v), *want = str_at(schema, "type");
	const struct doc *any = doc_lookup(schema, "anyOf"), *en = doc_lookup(schema, "enum");
	const struct doc *props = doc_lookup(schema, "properties"), *items = doc_lookup(schema, "items");
	size_t i;

	if (int_or_string(schema) && strcmp(got, "integer") != 0 && strcmp(got, "string") != 0) {
		doc_errorf(msg, origin, p, "expected an integer or a string, got %s", got);
		return false;
	}
	if (want && !type_ok(want, got)) {
		doc_errorf(msg, origin, p, "expected %s, got %s", want, got);
		return false;
	}
	if (any && !int_or_string(schema)) {
		bool ok = false;

		for (i = 0; i < count(any) && !ok; i++)
			ok = !str_at(item(any, i), "type") || type_ok(str_at(item(any, i), "type"), got);
		if (!ok) {
			doc_errorf(msg, origin, p, "%s matches none of anyOf", got);
			return false;
		}
	}
	if (en && !list_has(en, v->text ? v->text : "")) {
		doc_errorf(msg, origin, p, "\"%s\" is not one of the allowed values", v->text ? v->text : "");
		return false;
	}
	if (str_at(schema, "pattern") && strcmp(got, "string") == 0) {
		regex_t re;
		int rc;

		if (regcomp(&re, str_at(schema, "pattern"), REG_EXTENDED | REG_NOSUB) != 0) {
			doc_errorf(msg, origin, p, "pattern is not a POSIX extended expression");
			return false;
		}
		rc = regexec(&re, v->text, 0, NULL, 0);
		regfree(&re);
		if (rc != 0) {
			char q[DOC_QUOTE_CAP];

			doc_quote(q, sizeof q, v->text, v->len);
			doc_errorf(msg, origin, p, "%s does not match the pattern %s", q, str_at(schema, "pattern"));
			return false;
		}
	}
	if (v->kind == DOC_OBJECT) {
		for (i = 0; i < count(doc_lookup(schema, "required")); i++) {
			const char *name = text_of(item(doc_lookup(schema, "required"), i));

			if (name && doc_lookup(v, name) == NULL) {
				size_t mark = doc_path_key(p, name);

				doc_errorf(msg, origin, p, "required field is missing");
				doc_path_pop(p, mark);
				return false;
			}
		}
		for (i = 0; i < v->nchildren; i++) {
			const struct doc *sub = props ? doc_get(props, v->children[i].key) : NULL;
			size_t mark = doc_path_key(p, v->children[i].key);

			if (props && sub == NULL) {
				doc_errorf(msg, origin, p, "unknown field");
				return false;
			}
			if (sub && !doc_is_null(v->children[i].value) &&
			    !validate(sub, v->children[i].value, origin, p, msg))
				return false;
			doc_path_pop(p, mark);
		}
	}
	if (v->kind == DOC_ARRAY && items) {
		for (i = 0; i < v->nchildren; i++) {
			size_t mark = doc_path_index(p, i);

			if (!validate(items, item(v, i), origin, p, msg))
				return false;
			doc_path_pop(p, mark);
		}
	}
	return true;
}

/* Validates an object against the CRD version its apiVersion names. */
static bool validate_object(const struct doc *crd, const struct doc *obj, const char *origin,
			    struct errmsg *msg)
{
	const char *api = str_at(obj, "apiVersion"), *slash = api ? strchr(api, '/') : NULL;
	const struct doc *version;
	struct doc_path p;
	char group[128];

	if (slash == NULL)
		return failf(msg, "%s: apiVersion %s has no group", origin, api ? api : "(none)");
	snprintf(group, sizeof group, "%.*s", (int)(slash - api), api);
	if (!same_str(group, str_at(crd, "spec.group")) ||
	    !same_str(str_at(obj, "kind"), str_at(crd, "spec.names.kind")))
		return failf(msg, "%s: %s %s is not this CRD's kind", origin, api, str_at(obj, "kind"));
	version = crd_version(crd, slash + 1);
	if (version == NULL || !is_true(doc_lookup(version, "served")))
		return failf(msg, "%s: version %s is not served", origin, slash + 1);
	doc_path_init(&p);
	return validate(at(version, "schema.openAPIV3Schema"), obj, origin, &p, msg);
}

static const struct doc *nrt_crd(void)
{
	const struct doc *crd = find_crd(&sets[0], "topology.node.k8s.io", "noderesourcetopologies");

	assert_non_null(crd);
	return crd;
}

static void manifests_crd_schema_is_structural(void **state)
{
	const struct doc *versions = at(nrt_crd(), "spec.versions");
	size_t i;

	(void)state;
	for (i = 0; i < count(versions); i++) {
		const struct doc *schema = at(item(versions, i), "schema.openAPIV3Schema"), *meta;
		struct errmsg msg;
		char path[512] = "";

		assert_non_null(schema);
		if (!walk_schema(schema, path, sizeof path,
				 same_str(str_at(item(versions, i), "name"), "v1alpha1") ? nrt_v1alpha1 : nrt_v1alpha2, &msg))
			fail_msg("%s: %s", str_at(item(versions, i), "name"), msg.text);
		/* metadata may only say it is an object. */
		meta = doc_get(doc_lookup(schema, "properties"), "metadata");
		assert_non_null(meta);
		assert_int_equal(count(meta), 1);
	}
}

static void manifests_crd_accepts_the_example_objects(void **state)
{
	struct yfiles ex = { NULL, 0 };
	const struct doc *crd = nrt_crd();
	size_t i, j, n = 0, v1 = 0;

	(void)state;
	yfiles_walk(&ex, "config/examples", false);
	yfiles_walk(&ex, "manifests/examples", false);
	for (i = 0; i < ex.n; i++) {
		if (!ex.v[i].ok)
			fail_msg("%s", ex.v[i].err.text);
		for (j = 0; j < ex.v[i].ndocs; j++) {
			const struct doc *d = ex.v[i].docs[j];
			struct errmsg msg;

			if (!kind_is(d, "NodeResourceTopology"))
				continue;
			if (!validate_object(crd, d, ex.v[i].path, &msg))
				fail_msg("%s", msg.text);
			n++;
			v1 += has_suffix(str_at(d, "apiVersion"), "/v1alpha1");
		}
	}
	yfiles_free(&ex);
	/* config/examples (7, one of them v1alpha1) and manifests/examples. */
	assert_true(n >= 8);
	assert_true(v1 >= 1 && v1 < n);
}

#define NRT2 "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: w}\n"
#define NRT1 "apiVersion: topology.node.k8s.io/v1alpha1\nkind: NodeResourceTopology\nmetadata: {name: w}\n"
#define ZONE "zones:\n- name: node-0\n  type: Node\n"
#define RES  "  resources:\n  - {name: cpu, capacity: \"4\", allocatable: \"4\", available: "

static void manifests_crd_rejects_bad_objects(void **state)
{
	static const struct {
		const char *yaml, *needle;
	} cases[] = {
		{ NRT2 ZONE RES "2}\n", NULL },
		{ NRT2 ZONE RES "\"2Gi\"}\n  costs: [{name: node-0, value: 10}]\n  attributes: [{name: a, value: b}]\n"
		       "attributes: [{name: topologyManagerPolicy, value: single-numa-node}]\n", NULL },
		{ NRT1 "topologyPolicies: [SingleNUMANodeContainerLevel]\n" ZONE, NULL },
		{ NRT2 "zones:\n- name: node-0\n  resources: []\n", "bad: zones[0].type: required field is missing" },
		{ NRT2 ZONE "  resources:\n  - {name: cpu, capacity: \"4\", allocatable: \"4\"}\n",
		  "bad: zones[0].resources[0].available: required field is missing" },
		{ NRT2 ZONE RES "\"12x\"}\n", "bad: zones[0].resources[0].available: \"12x\" does not match the pattern" },
		{ NRT2 ZONE RES "[2]}\n", "zones[0].resources[0].available: expected an integer or a string, got array" },
		{ NRT2 ZONE "  costs: [{name: node-0, value: ten}]\n",
		  "zones[0].costs[0].value: expected integer, got string" },
		{ NRT2 ZONE "  costs: [{name: node-0}]\n", "zones[0].costs[0].value: required field is missing" },
		{ NRT2 ZONE "  cost: []\n", "zones[0].cost: unknown field" },
		{ NRT2 "attributes: [{name: topologyManagerPolicy, value: off}]\n" ZONE,
		  "attributes[0].value: expected string, got boolean" },
		{ NRT2 "zones: {name: node-0}\n", "bad: zones: expected array, got object" },
		{ NRT2 "attributes: []\n", "bad: zones: required field is missing" },
		{ NRT1 ZONE, "bad: topologyPolicies: required field is missing" },
		{ NRT1 "topologyPolicies: [None]\nattributes: []\n" ZONE, "bad: attributes: unknown field" },
		{ "apiVersion: topology.node.k8s.io/v1beta1\nkind: NodeResourceTopology\nmetadata: {name: w}\n" ZONE,
		  "version v1beta1 is not served" },
	};
	const struct doc *crd = nrt_crd();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		assert_int_equal(doc_parse(cases[i].yaml, strlen(cases[i].yaml), "bad", &docs, &ndocs, &msg), ERR_OK);
		ok = validate_object(crd, docs[0], "bad", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("case %zu refused: %s", i, msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* What the API server admits as a quantity, the extender must decode, and
 * the other way round. */
static void manifests_crd_quantity_pattern_agrees_with_the_decoder(void **state)
{
	static const char *const samples[] = {
		"0", "64", "269755191296", "1.5", ".5", "1.", "+1", "-1", "1Gi", "1.5Gi", "500m", "100n", "1e3",
		"1E3", "1e-3", "1E+3", "+.5E", "1k", "12x", "", "Gi", "1GiB", "1 Gi", "0x10", "1e", "1K", "1ki",
		"--1", "1.5.5", ".", "+", "1m1", "1Ei", "5u",
	};
	bool required;
	const struct doc *node = schema_at(at(crd_version(nrt_crd(), "v1alpha2"), "schema.openAPIV3Schema"),
					   "zones[].resources[].available", &required);
	const char *pattern = str_at(node, "pattern");
	size_t i, accepted = 0;

	(void)state;
	assert_non_null(pattern);
	for (i = 0; i < sizeof samples / sizeof *samples; i++) {
		struct quantity q;
		struct errmsg msg;
		enum err rc = quantity_parse(samples[i], strlen(samples[i]), &q, &msg);
		bool decoder = rc == ERR_OK || rc == ERR_RANGE, crd = matches(pattern, samples[i]);

		if (decoder != crd)
			fail_msg("\"%s\": the CRD %s it, the extender's decoder %s it", samples[i],
				 crd ? "accepts" : "refuses", decoder ? "accepts" : "refuses");
		accepted += crd;
	}
	assert_true(accepted >= 10 && accepted < sizeof samples / sizeof *samples);
}

/* ------------------------------------------------------ locked-down pods */

static const struct doc *effective(const struct doc *container_sc, const struct doc *pod_sc, const char *key)
{
	return at(container_sc, key) ? at(container_sc, key) : at(pod_sc, key);
}

static bool quantity_milli(const struct doc *d, int64_t *out)
{
	const char *t = text_of(d);
	struct quantity q;
	struct errmsg ignored;

	if (t == NULL && d && d->kind == DOC_NUMBER)
		t = d->text;
	return t && quantity_parse(t, strlen(t), &q, &ignored) == ERR_OK &&
	       quantity_scaled(&q, -3, out) == ERR_OK;
}

/* A container of a Deployment: non-root, read-only root, no capabilities,
 * no privilege escalation, RuntimeDefault seccomp (pod or container level),
 * cpu and memory requests and limits, a pinned image. */
static bool check_lockdown(const struct doc *podspec, const char *where, struct errmsg *msg)
{
	static const char *const lists[] = { "initContainers", "containers" };
	const struct doc *psc = doc_lookup(podspec, "securityContext");
	size_t l, i;

	if (is_true(doc_lookup(podspec, "hostNetwork")) || is_true(doc_lookup(podspec, "hostPID")) ||
	    is_true(doc_lookup(podspec, "hostIPC")))
		return failf(msg, "%s: shares a host namespace", where);
	if (count(doc_lookup(podspec, "containers")) == 0)
		return failf(msg, "%s: no containers", where);
	for (l = 0; l < 2; l++) {
		const struct doc *cs = doc_lookup(podspec, lists[l]);

		for (i = 0; i < count(cs); i++) {
			const struct doc *c = item(cs, i), *csc = doc_lookup(c, "securityContext");
			const struct doc *drop = at(csc, "capabilities.drop"), *uid = effective(csc, psc, "runAsUser");
			const char *name = str_at(c, "name"), *image = str_at(c, "image");
			static const char *const res[] = { "cpu", "memory" };
			int64_t n;
			struct errmsg ignored;
			size_t r;

			if (!is_true(effective(csc, psc, "runAsNonRoot")))
				return failf(msg, "%s: container %s: runAsNonRoot must be true", where, name);
			if (uid && (doc_read_int64(uid, &n, &ignored) != ERR_OK || n == 0))
				return failf(msg, "%s: container %s: runAsUser 0", where, name);
			if (!is_true(doc_lookup(csc, "readOnlyRootFilesystem")))
				return failf(msg, "%s: container %s: readOnlyRootFilesystem must be true", where, name);
			if (!is_false(doc_lookup(csc, "allowPrivilegeEscalation")))
				return failf(msg, "%s: container %s: allowPrivilegeEscalation must be false", where, name);
			if (is_true(doc_lookup(csc, "privileged")))
				return failf(msg, "%s: container %s: privileged", where, name);
			if (!list_has(drop, "ALL") || count(at(csc, "capabilities.add")) > 0)
				return failf(msg, "%s: container %s: capabilities must drop ALL and add none", where, name);
			if (!same_str(text_of(effective(csc, psc, "seccompProfile.type")), "RuntimeDefault"))
				return failf(msg, "%s: container %s: seccompProfile must be RuntimeDefault", where, name);
			for (r = 0; r < 2; r++) {
				int64_t req, lim;

				if (!quantity_milli(at(doc_lookup(c, "resources"), "requests") ?
						    doc_get(at(c, "resources.requests"), res[r]) : NULL, &req) ||
				    !quantity_milli(doc_get(at(c, "resources.limits"), res[r]), &lim))
					return failf(msg, "%s: container %s: resources.requests and resources.limits need %s",
						     where, name, res[r]);
				if (req > lim)
					return failf(msg, "%s: container %s: %s request above its limit", where, name, res[r]);
			}
			if (image == NULL || (!strchr(strrchr(image, '/') ? strrchr(image, '/') : image, ':') &&
					      !strchr(image, '@')) ||
			    has_suffix(image, ":latest"))
				return failf(msg, "%s: container %s: image %s is not pinned", where, name,
					     image ? image : "(none)");
		}
	}
	return true;
}

static void manifests_deployments_are_locked_down(void **state)
{
	size_t i, j, n = 0;
	struct errmsg msg;

	(void)state;
	for (i = 0; i < nsets; i++)
		for (j = 0; j < sets[i].n; j++) {
			const struct doc *d = sets[i].v[j].doc;
			char where[512];

			if (kind_is(d, "DaemonSet") || kind_is(d, "StatefulSet") || kind_is(d, "Pod") || kind_is(d, "Job"))
				fail_msg("%s: %s: only Deployments are expected (and checked)", sets[i].v[j].origin,
					 str_at(d, "kind"));
			if (!kind_is(d, "Deployment"))
				continue;
			snprintf(where, sizeof where, "%s (%s)", sets[i].v[j].origin, sets[i].dir);
			if (!check_lockdown(podspec_of(&sets[i].v[j]), where, &msg))
				fail_msg("%s", msg.text);
			n++;
		}
	/* numa-scheduler of the base and the bind overlay, numa-extender of
	 * default-scheduler-mtls. */
	assert_true(n >= 3);
}

static void manifests_lockdown_check_rejects_loose_containers(void **state)
{
	static const char base[] =
		"securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n"
		"containers:\n"
		"- name: c\n"
		"  image: registry.example/c:1\n"
		"  resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: \"1\", memory: 64Mi}}\n"
		"  securityContext:\n"
		"    readOnlyRootFilesystem: true\n"
		"    allowPrivilegeEscalation: false\n"
		"    capabilities: {drop: [ALL]}\n";
	static const struct {
		const char *from, *to, *needle;
	} cases[] = {
		{ NULL, NULL, NULL },
		{ "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem" },
		{ "allowPrivilegeEscalation: false", "privileged: false", "allowPrivilegeEscalation" },
		{ "drop: [ALL]", "drop: [NET_RAW]", "drop ALL" },
		{ "drop: [ALL]", "drop: [ALL], add: [NET_ADMIN]", "add none" },
		{ "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot" },
		{ "type: RuntimeDefault", "type: Unconfined", "seccompProfile" },
		{ "limits: {cpu: \"1\", memory: 64Mi}", "limits: {cpu: \"1\"}", "need memory" },
		{ "memory: 64Mi}, limits", "memory: 128Mi}, limits", "memory request above its limit" },
		{ "c:1", "c", "not pinned" },
		{ "containers:", "hostNetwork: true\ncontainers:", "host namespace" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[2048];
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		snprintf(buf, sizeof buf, "%s", base);
		if (cases[i].from) {
			char *p = strstr(buf, cases[i].from);

			assert_non_null(p);
			memmove(p + strlen(cases[i].to), p + strlen(cases[i].from), strlen(p + strlen(cases[i].from)) + 1);
			memcpy(p, cases[i].to, strlen(cases[i].to));
		}
		assert_int_equal(doc_parse(buf, strlen(buf), "pod", &docs, &ndocs, &msg), ERR_OK);
		ok = check_lockdown(docs[0], "pod", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("the locked-down pod was refused: %s", msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* ------------------------------------------------------------- examples */

/* The sample pods go to the second scheduler, are Guaranteed with whole
 * CPUs (exclusive, so the Topology Manager aligns them), and ask a resource
 * the scheduler sends to the extender. */
static void manifests_example_pods_are_guaranteed_and_reach_the_extender(void **state)
{
	struct sites st;
	struct errmsg msg;
	size_t i, j, npods = 0;

	(void)state;
	if (!load_sites(&sets[0], &st, &msg))
		fail_msg("%s", msg.text);
	for (i = 0; i < manifests.n; i++) {
		const struct yfile *f = &manifests.v[i];

		if (strncmp(f->path, "manifests/examples/", 19) != 0)
			continue;
		for (j = 0; j < f->ndocs; j++) {
			const struct doc *pod = f->docs[j], *cs = at(pod, "spec.containers");
			const struct sched_site *sc = NULL;
			bool managed = false;
			size_t k, c, e;

			if (!kind_is(pod, "Pod"))
				continue;
			npods++;
			for (k = 0; k < st.nsched && sc == NULL; k++) {
				const struct doc *profiles = doc_lookup(st.sched[k].cfg, "profiles");

				for (c = 0; c < count(profiles); c++)
					if (st.sched[k].podspec &&
					    same_str(str_at(item(profiles, c), "schedulerName"), str_at(pod, "spec.schedulerName")))
						sc = &st.sched[k];
			}
			if (sc == NULL)
				fail_msg("%s: schedulerName %s is no profile of the base's scheduler", f->path,
					 str_at(pod, "spec.schedulerName") ? str_at(pod, "spec.schedulerName") : "(default)");
			if (count(cs) == 0)
				fail_msg("%s: no containers", f->path);
			for (c = 0; c < count(cs); c++) {
				const struct doc *req = at(item(cs, c), "resources.requests");
				const struct doc *lim = at(item(cs, c), "resources.limits");
				int64_t cpu = 0, a = 0, b = 0;

				if (!quantity_milli(doc_get(lim, "cpu"), &cpu) || cpu % 1000 != 0 || cpu == 0 ||
				    !quantity_milli(doc_get(lim, "memory"), &a))
					fail_msg("%s: container %zu: Guaranteed with exclusive CPUs needs whole cpu and memory limits",
						 f->path, c);
				/* Requests default to limits; set ones must equal them. */
				for (k = 0; k < count(req); k++) {
					if (!quantity_milli(item(req, k), &a) ||
					    !quantity_milli(doc_get(lim, req->children[k].key), &b) || a != b)
						fail_msg("%s: container %zu: %s request differs from its limit", f->path, c,
							 req->children[k].key);
				}
				for (k = 0; k < count(lim); k++)
					for (e = 0; e < count(doc_lookup(sc->cfg, "extenders")); e++) {
						const struct doc *mr = at(item(doc_lookup(sc->cfg, "extenders"), e), "managedResources");

						for (size_t m = 0; m < count(mr); m++)
							managed |= same_str(str_at(item(mr, m), "name"), lim->children[k].key);
					}
			}
			if (!managed)
				fail_msg("%s: asks no managed resource, so the extender never sees it", f->path);
		}
	}
	sites_free(&st);
	assert_true(npods >= 2);
}

/* ------------------------------------------------------------ Dockerfile */

/* Debian's development and runtime package of each pkg-config module the
 * Makefile links (PKGS). */
static const struct {
	const char *module, *dev, *runtime;
} pkg_map[] = {
	{ "json-c", "libjson-c-dev", "libjson-c5" },
	{ "yaml-0.1", "libyaml-dev", "libyaml-0-2" },
	{ "libmicrohttpd", "libmicrohttpd-dev", "libmicrohttpd12" },
	{ "libcurl", "libcurl4-openssl-dev", "libcurl4" },
	{ "gnutls", "libgnutls28-dev", "libgnutls30" },
	{ "libxxhash", "libxxhash-dev", "libxxhash0" },
};

/* " word " occurs in the space-padded list. */
static bool has_word(const char *list, const char *word)
{
	char w[160];

	snprintf(w, sizeof w, " %s ", word);
	return strstr(list, w) != NULL;
}

/* The image runs the user the Deployments expect, with the entrypoint and
 * default command the issue fixes; it builds with packages that
 * scripts/install-deps.sh installs, one per library the Makefile links, and
 * ships the runtime library of each. */
static void manifests_dockerfile_matches_the_deployments(void **state)
{
	char *df = NULL, *deps = NULL, *mk = NULL, *line, *save = NULL, *last_from = NULL;
	char user[64] = "", entry[256] = "", cmd[256] = "", pkgs[2][1024] = { " ", " " }, modules[512] = "";
	size_t len, i, j, nfrom = 0;
	struct errmsg msg;
	int64_t uid;

	(void)state;
	assert_int_equal(doc_read_file("Dockerfile", 0, &df, &len, &msg), ERR_OK);
	assert_int_equal(doc_read_file("scripts/install-deps.sh", 0, &deps, &len, &msg), ERR_OK);
	assert_int_equal(doc_read_file("Makefile", 0, &mk, &len, &msg), ERR_OK);
	for (char *q = deps; *q; q++)
		if (*q == '\n' || *q == '"' || *q == '\\' || *q == '\t')
			*q = ' ';
	for (line = strtok_r(mk, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "PKGS", 4) == 0 && strstr(line, ":="))
			snprintf(modules, sizeof modules, "%s", strstr(line, ":=") + 2);
	/* Continuation lines joined, so that RUN ... \ lines are one. */
	for (char *p = strstr(df, "\\\n"); p; p = strstr(p, "\\\n"))
		p[0] = p[1] = ' ';
	for (line = strtok_r(df, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *inst;

		while (*line == ' ')
			line++;
		if (strncmp(line, "FROM ", 5) == 0) {
			nfrom++;
			last_from = line + 5;
			if (nfrom == 1 && strncmp(line + 5, "debian:bookworm ", 16) != 0)
				fail_msg("Dockerfile: the build stage must be FROM debian:bookworm");
		} else if (strncmp(line, "USER ", 5) == 0) {
			snprintf(user, sizeof user, "%s", line + 5);
		} else if (strncmp(line, "ENTRYPOINT ", 11) == 0) {
			snprintf(entry, sizeof entry, "%s", line + 11);
		} else if (strncmp(line, "CMD ", 4) == 0) {
			snprintf(cmd, sizeof cmd, "%s", line + 4);
		} else if (nfrom >= 1 && nfrom <= 2 && (inst = strstr(line, "--no-install-recommends")) != NULL) {
			char *end = strstr(inst, "&&");
			int n = (int)((end ? end : inst + strlen(inst)) - inst - 23);

			snprintf(pkgs[nfrom - 1], sizeof pkgs[0], " %.*s ", n, inst + 23);
		}
	}
	assert_int_equal(nfrom, 2);
	assert_non_null(last_from);
	assert_string_equal(last_from, "debian:bookworm-slim");
	assert_string_equal(entry, "[\"/usr/local/bin/numa-extender\"]");
	assert_string_equal(cmd, "[\"serve\", \"--config\", \"/etc/numa-extender/config.yaml\"]");
	/* Numeric, so that the kubelet can enforce runAsNonRoot. */
	if (!matches("^[1-9][0-9]*(:[0-9]+)?$", user))
		fail_msg("Dockerfile: USER \"%s\" is not a numeric non-root uid", user);
	uid = strtoll(user, NULL, 10);
	{
		char copy[1024];

		snprintf(copy, sizeof copy, "%s", pkgs[0]);
		for (char *p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save))
			if (!has_word(deps, p))
				fail_msg("Dockerfile installs %s, which scripts/install-deps.sh does not list", p);
	}
	assert_true(strlen(modules) > 0);
	for (char *m = strtok_r(modules, " \t", &save); m; m = strtok_r(NULL, " \t", &save)) {
		for (i = 0; i < sizeof pkg_map / sizeof *pkg_map && strcmp(pkg_map[i].module, m) != 0; i++)
			;
		if (i == sizeof pkg_map / sizeof *pkg_map)
			fail_msg("the Makefile links %s: add its packages to the Dockerfile and to pkg_map here", m);
		if (!has_word(pkgs[0], pkg_map[i].dev))
			fail_msg("Dockerfile: the build stage lacks %s (for %s)", pkg_map[i].dev, m);
		if (!has_word(pkgs[1], pkg_map[i].runtime))
			fail_msg("Dockerfile: the runtime stage lacks %s (for %s)", pkg_map[i].runtime, m);
	}
	/* The Deployments run the image's user (or leave it to the image). */
	for (i = 0; i < nsets; i++) {
		struct sites st;

		if (!load_sites(&sets[i], &st, &msg))
			fail_msg("%s", msg.text);
		for (j = 0; j < st.next; j++) {
			const struct doc *u = effective(doc_lookup(st.ext[j].container, "securityContext"),
							doc_lookup(st.ext[j].podspec, "securityContext"), "runAsUser");
			int64_t n;
			struct errmsg ignored;

			if (u && (doc_read_int64(u, &n, &ignored) != ERR_OK || n != uid))
				fail_msg("%s: numa-extender runs as another user than the image's %lld",
					 st.ext[j].deploy->origin, (long long)uid);
			if (strcmp(st.ext[j].config_path, "/etc/numa-extender/config.yaml") != 0)
				fail_msg("%s: --config %s is not the image's default", st.ext[j].deploy->origin,
					 st.ext[j].config_path);
		}
		sites_free(&st);
	}
	free(df);
	free(deps);
	free(mk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(manifests_every_yaml_parses_and_names_itself),
		cmocka_unit_test(manifests_kustomizations_reference_existing_files),
		cmocka_unit_test(manifests_builds_resolve_without_clashes),
		cmocka_unit_test(manifests_kustomize_model_merges_pod_lists_by_key),
		cmocka_unit_test(manifests_scheduler_configs_use_only_known_fields),
		cmocka_unit_test(manifests_scheduler_check_rejects_bad_configs),
		cmocka_unit_test(manifests_scheduler_urls_match_extender_routes),
		cmocka_unit_test(manifests_route_check_rejects_mismatches),
		cmocka_unit_test(manifests_route_check_rejects_bind_mismatches),
		cmocka_unit_test(manifests_extender_probes_reach_the_health_listener),
		cmocka_unit_test(manifests_probe_check_rejects_unreachable_exec_probes),
		cmocka_unit_test(manifests_extender_tls_files_come_from_secrets),
		cmocka_unit_test(manifests_decision_log_has_a_writable_directory),
		cmocka_unit_test(manifests_api_call_extraction_reads_c_sources),
		cmocka_unit_test(manifests_rbac_grants_exactly_the_api_calls_in_the_source),
		cmocka_unit_test(manifests_rbac_check_rejects_extra_and_missing_verbs),
		cmocka_unit_test(manifests_kube_scheduler_grants_only_where_it_runs),
		cmocka_unit_test(manifests_crd_matches_the_source_and_the_nrt_api),
		cmocka_unit_test(manifests_crd_schema_is_structural),
		cmocka_unit_test(manifests_crd_accepts_the_example_objects),
		cmocka_unit_test(manifests_crd_rejects_bad_objects),
		cmocka_unit_test(manifests_crd_quantity_pattern_agrees_with_the_decoder),
		cmocka_unit_test(manifests_deployments_are_locked_down),
		cmocka_unit_test(manifests_lockdown_check_rejects_loose_containers),
		cmocka_unit_test(manifests_example_pods_are_guaranteed_and_reach_the_extender),
		cmocka_unit_test(manifests_dockerfile_matches_the_deployments),
	};

	return cmocka_run_group_tests_name("manifests", tests, setup, teardown);
}
