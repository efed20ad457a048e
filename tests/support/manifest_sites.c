/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/manifest_sites.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/doc_query.h"
#include "base/xalloc.h"

void mf_load(struct kz_files *files, struct kz_build **sets, size_t *nsets, const char *root)
{
	DIR *d;
	struct dirent *e;
	char path[PATH_MAX];

	memset(files, 0, sizeof *files);
	kz_files_walk(files, root, true);
	*sets = xcalloc(1, sizeof **sets);
	*nsets = 0;
	snprintf(path, sizeof path, "%s/base", root);
	kz_build_resolve(&(*sets)[(*nsets)++], files, path);
	snprintf(path, sizeof path, "%s/overlays", root);
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/overlays/%s/kustomization.yaml", root, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		snprintf(path, sizeof path, "%s/overlays/%s", root, e->d_name);
		*sets = xreallocarray(*sets, *nsets + 1, sizeof **sets);
		kz_build_resolve(&(*sets)[(*nsets)++], files, path);
	}
	if (d)
		closedir(d);
}

void mf_free(struct kz_files *files, struct kz_build *sets, size_t nsets)
{
	size_t i;

	for (i = 0; i < nsets; i++)
		kz_build_free(&sets[i]);
	free(sets);
	kz_files_free(files);
}

struct mf_tree mf_tree;

int mf_tree_setup(void **state)
{
	(void)state;
	mf_load(&mf_tree.files, &mf_tree.sets, &mf_tree.nsets, "manifests");
	return 0;
}

int mf_tree_teardown(void **state)
{
	(void)state;
	mf_free(&mf_tree.files, mf_tree.sets, mf_tree.nsets);
	return 0;
}

const char *mf_cm_data(const struct doc *cm, const char *key)
{
	const struct doc *data = doc_lookup(cm, "data");
	size_t i;

	for (i = 0; data && data->kind == DOC_OBJECT && i < data->nchildren; i++)
		if (strcmp(data->children[i].key, key) == 0)
			return dq_text(data->children[i].value);
	return NULL;
}

/* "nvidia/k8s-device-plugin:v1" -> "k8s-device-plugin". */
static void image_base(const char *image, char *buf, size_t cap)
{
	const char *start = strrchr(image, '/');

	start = start ? start + 1 : image;
	snprintf(buf, cap, "%.*s", (int)strcspn(start, ":@"), start);
}

bool mf_image_is(const struct doc *container, const char *base)
{
	const char *image = dq_str(container, "image");
	char b[128];

	if (image == NULL)
		return false;
	image_base(image, b, sizeof b);
	return strcmp(b, base) == 0;
}

const char *mf_flag_value(const struct doc *container, const char *flag)
{
	static const char *const lists[] = { "command", "args" };
	size_t l, i, n = strlen(flag);

	for (l = 0; l < 2; l++) {
		const struct doc *a = doc_lookup(container, lists[l]);

		for (i = 0; i < dq_count(a); i++) {
			const char *s = dq_text(dq_item(a, i));

			if (s && strcmp(s, flag) == 0 && i + 1 < dq_count(a))
				return dq_text(dq_item(a, i + 1));
			if (s && strncmp(s, flag, n) == 0 && s[n] == '=')
				return s + n + 1;
		}
	}
	return NULL;
}

/* --------------------------------------------- files inside a pod's volumes */

/* The key a volume source maps rel to: through items, or rel itself. */
static bool item_key(const struct doc *items, const char *rel, const char **key)
{
	size_t i;

	if (items == NULL) {
		*key = rel;
		return strchr(rel, '/') == NULL;
	}
	for (i = 0; i < dq_count(items); i++)
		if (dq_str(dq_item(items, i), "path") && strcmp(dq_str(dq_item(items, i), "path"), rel) == 0) {
			*key = dq_str(dq_item(items, i), "key");
			return *key != NULL;
		}
	return false;
}

static bool source_ref(const struct kz_build *s, const char *ns, const struct doc *src, bool secret,
		       const char *rel, struct mf_file_ref *out)
{
	const char *key;
	const struct kz_res *cm;

	if (src == NULL || !item_key(doc_lookup(src, "items"), rel, &key))
		return false;
	out->secret = secret;
	out->name = dq_str(src, secret ? "secretName" : "name");
	if (out->name == NULL)
		out->name = dq_str(src, "name"); /* projected secrets say name */
	out->key = key;
	out->content = NULL;
	if (secret)
		return out->name != NULL;
	cm = kz_find(s, "ConfigMap", ns, out->name);
	out->content = cm ? mf_cm_data(cm->doc, key) : NULL;
	return out->content != NULL;
}

/* Which ConfigMap or Secret key a container sees at path. */
bool mf_resolve_in_pod(const struct kz_build *s, const char *ns, const struct doc *podspec,
			   const struct doc *container, const char *path, struct mf_file_ref *out,
			   struct errmsg *msg)
{
	const struct doc *mounts = doc_lookup(container, "volumeMounts"), *best = NULL, *vols, *vol = NULL;
	const char *rel = NULL, *cname = dq_str(container, "name");
	size_t i, bestlen = 0;

	for (i = 0; i < dq_count(mounts); i++) {
		const char *mp = dq_str(dq_item(mounts, i), "mountPath"), *sub = dq_str(dq_item(mounts, i), "subPath");
		size_t len = mp ? strlen(mp) : 0;

		while (len > 1 && mp[len - 1] == '/')
			len--;
		if (mp == NULL)
			continue;
		if (sub) {
			if (strlen(path) == len && strncmp(path, mp, len) == 0) {
				best = dq_item(mounts, i);
				rel = sub;
				bestlen = len;
			}
		} else if (strncmp(path, mp, len) == 0 && path[len] == '/' && len > bestlen) {
			best = dq_item(mounts, i);
			rel = path + len + 1;
			bestlen = len;
		}
	}
	if (best == NULL)
		return dq_fail(msg, "container %s: %s is on no volumeMount", cname, path);
	vols = doc_lookup(podspec, "volumes");
	for (i = 0; i < dq_count(vols); i++)
		if (dq_same_str(dq_str(dq_item(vols, i), "name"), dq_str(best, "name")))
			vol = dq_item(vols, i);
	if (vol == NULL)
		return dq_fail(msg, "container %s: volume %s is not defined", cname, dq_str(best, "name"));
	if (doc_lookup(vol, "configMap")) {
		if (source_ref(s, ns, doc_lookup(vol, "configMap"), false, rel, out))
			return true;
	} else if (doc_lookup(vol, "secret")) {
		if (source_ref(s, ns, doc_lookup(vol, "secret"), true, rel, out))
			return true;
	} else if (doc_lookup(vol, "projected")) {
		const struct doc *srcs = dq_at(vol, "projected.sources");

		for (i = 0; i < dq_count(srcs); i++) {
			if (source_ref(s, ns, doc_lookup(dq_item(srcs, i), "configMap"), false, rel, out) ||
			    source_ref(s, ns, doc_lookup(dq_item(srcs, i), "secret"), true, rel, out))
				return true;
		}
	} else {
		return dq_fail(msg, "container %s: volume %s: only configMap, secret and projected are modelled",
			     cname, dq_str(vol, "name"));
	}
	return dq_fail(msg, "container %s: %s: no ConfigMap key or Secret in this build provides it", cname, path);
}


const struct doc *mf_podspec_of(const struct kz_res *r)
{
	return dq_at(r->doc, "spec.template.spec");
}

void mf_sites_free(struct mf_sites *st)
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
bool mf_load_sites(const struct kz_build *s, struct mf_sites *st, struct errmsg *msg)
{
	size_t i, j, c;

	memset(st, 0, sizeof *st);
	for (i = 0; i < s->n; i++) {
		const struct doc *data = doc_lookup(s->v[i].doc, "data");

		if (!dq_kind_is(s->v[i].doc, "ConfigMap"))
			continue;
		for (j = 0; j < dq_count(data); j++) {
			const char *text = dq_text(dq_item(data, j));
			struct doc **docs = NULL;
			size_t ndocs = 0;
			struct errmsg ignored;
			struct mf_sched_site *sc;

			if (text == NULL || doc_parse(text, strlen(text), s->v[i].origin, &docs, &ndocs, &ignored) != ERR_OK)
				continue;
			if (ndocs != 1 || !dq_kind_is(docs[0], "KubeSchedulerConfiguration")) {
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
		const struct doc *podspec = mf_podspec_of(&s->v[i]);
		const struct doc *containers = doc_lookup(podspec, "containers");
		const char *ns = kz_ns(s->v[i].doc);

		if (!dq_kind_is(s->v[i].doc, "Deployment"))
			continue;
		for (c = 0; c < dq_count(containers); c++) {
			const struct doc *ct = dq_item(containers, c);
			const char *path = mf_flag_value(ct, "--config");
			struct mf_file_ref ref;

			if (!mf_image_is(ct, "numa-extender") && !mf_image_is(ct, "kube-scheduler"))
				continue;
			if (path == NULL)
				return dq_fail(msg, "%s: container %s has no --config", s->v[i].origin, dq_str(ct, "name"));
			if (!mf_resolve_in_pod(s, ns, podspec, ct, path, &ref, msg))
				return false;
			if (ref.secret)
				return dq_fail(msg, "%s: container %s: --config %s comes from a Secret", s->v[i].origin,
					     dq_str(ct, "name"), path);
			if (mf_image_is(ct, "numa-extender")) {
				struct mf_ext_site *e;
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
					if (dq_same_str(dq_str(st->sched[j].cm->doc, "metadata.name"), ref.name) &&
					    strcmp(st->sched[j].key, ref.key) == 0)
						break;
				if (j == st->nsched)
					return dq_fail(msg, "%s: container %s: %s is no KubeSchedulerConfiguration",
						     s->v[i].origin, dq_str(ct, "name"), path);
				st->sched[j].deploy = &s->v[i];
				st->sched[j].podspec = podspec;
			}
		}
	}
	return true;
}
