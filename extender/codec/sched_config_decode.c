/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_config_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/sched_fields.h"
#include "extender/codec/sched_objects.h"
#include "extender/codec/sched_profile_decode.h"
#include "extender/file_read.h"
#include "scheduler/resources.h"
#include "topology/names.h"

#define KIND "KubeSchedulerConfiguration"
#define API_VERSION "kubescheduler.config.k8s.io/v1"

static enum err decode_managed(struct decode_ctx *c, const struct doc *d, void *elem,
			       void *arg)
{
	struct sched_managed_resource *m = elem;
	char why[160], quoted[DOC_QUOTE_CAP];
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &m->name);
	if (rc == ERR_OK)
		rc = sf_bool(c, d, "ignoredByScheduler", &m->ignored_by_scheduler);
	if (rc != ERR_OK)
		return rc;
	doc_quote(quoted, sizeof quoted, m->name, strlen(m->name));
	if (!name_is_resource(m->name, strlen(m->name), why, sizeof why))
		return decode_fail_at(c, "name", ERR_INVALID, "%s: %s", quoted, why);
	if (!sched_name_is_extended(m->name))
		return decode_fail_at(c, "name", ERR_INVALID,
				      "%s: is an invalid extended resource name", quoted);
	return ERR_OK;
}

static enum err decode_extender(struct decode_ctx *c, const struct doc *d, void *elem,
				void *arg)
{
	struct sched_extender *e = elem;
	void *managed = NULL;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "urlPrefix", DECODE_REQUIRED | DECODE_NONEMPTY, &e->url_prefix);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "filterVerb", 0, &e->filter_verb);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "prioritizeVerb", 0, &e->prioritize_verb);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "preemptVerb", 0, &e->preempt_verb);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "bindVerb", 0, &e->bind_verb);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "weight", INT64_MIN, INT64_MAX, &e->weight, NULL);
	if (rc == ERR_OK)
		rc = sf_bool(c, d, "nodeCacheCapable", &e->node_cache_capable);
	if (rc == ERR_OK)
		rc = sf_bool(c, d, "ignorable", &e->ignorable);
	if (rc == ERR_OK) {
		rc = decode_array(c, d, "managedResources", 0, sizeof *e->managed, &managed,
				  &e->nmanaged, decode_managed, NULL);
		e->managed = managed;
	}
	if (rc == ERR_OK && sched_extender_prioritizes(e) && e->weight <= 0)
		rc = decode_fail_at(c, "weight", ERR_INVALID, "must have a positive weight applied to it");
	return rc;
}

static enum err duplicate_managed(struct decode_ctx *c, size_t ext, size_t at,
				  const char *name)
{
	char quoted[DOC_QUOTE_CAP];

	doc_path_index(&c->path, ext);
	doc_path_key(&c->path, "managedResources");
	doc_path_index(&c->path, at);
	doc_path_key(&c->path, "name");
	doc_quote(quoted, sizeof quoted, name, strlen(name));
	return decode_fail(c, ERR_INVALID, "%s: duplicate extender managed resource name", quoted);
}

/* Across extenders: one binder at most, each managed resource once. */
static enum err check_extenders(struct decode_ctx *c, const struct sched_config *cfg)
{
	size_t mark = doc_path_key(&c->path, "extenders"), i, j, k, l, binders = 0;
	enum err rc = ERR_OK;

	for (i = 0; i < cfg->nextenders; i++)
		binders += cfg->extenders[i].bind_verb != NULL && cfg->extenders[i].bind_verb[0] != '\0';
	if (binders > 1)
		rc = decode_fail(c, ERR_INVALID, "only one extender can implement bind, found %zu",
				 binders);
	for (i = 0; rc == ERR_OK && i < cfg->nextenders; i++) {
		const struct sched_extender *e = &cfg->extenders[i];

		for (j = 0; rc == ERR_OK && j < e->nmanaged; j++)
			for (k = 0; rc == ERR_OK && k <= i; k++)
				for (l = 0; rc == ERR_OK && l < (k == i ? j : cfg->extenders[k].nmanaged); l++)
					if (strcmp(cfg->extenders[k].managed[l].name, e->managed[j].name) == 0)
						rc = duplicate_managed(c, i, j, e->managed[j].name);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_profiles(struct decode_ctx *c, const struct doc *d,
				struct sched_config *cfg)
{
	size_t mark = doc_path_key(&c->path, "profiles"), i, j;
	const struct doc *arr;
	enum err rc;

	rc = decode_field(c, d, "profiles", DOC_ARRAY, 0, &arr);
	if (rc == ERR_OK && arr != NULL && arr->nchildren > 0) {
		cfg->profiles = xcalloc(arr->nchildren, sizeof *cfg->profiles);
		for (i = 0; i < arr->nchildren && rc == ERR_OK; i++) {
			size_t m = doc_path_index(&c->path, i);

			cfg->nprofiles++;
			rc = sched_profile_decode(c, arr->children[i].value, &cfg->profiles[i]);
			if (rc == ERR_OK && cfg->profiles[i].scheduler_name == NULL) {
				if (arr->nchildren == 1)
					cfg->profiles[i].scheduler_name = xstrdup("default-scheduler");
				else
					rc = decode_fail_at(c, "schedulerName", ERR_INVALID, "missing");
			}
			for (j = 0; rc == ERR_OK && j < i; j++)
				if (strcmp(cfg->profiles[j].scheduler_name,
					   cfg->profiles[i].scheduler_name) == 0)
					rc = decode_fail_at(c, "schedulerName", ERR_INVALID, "duplicate profile name");
			doc_path_pop(&c->path, m);
		}
	}
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK && cfg->nprofiles == 0) {
		cfg->profiles = xcalloc(1, sizeof *cfg->profiles);
		cfg->nprofiles = 1;
		sched_profile_default(&cfg->profiles[0], NULL);
	}
	return rc;
}

static enum err decode_configuration(struct decode_ctx *c, const struct doc *d,
				     struct sched_config *cfg)
{
	const char *api;
	int64_t pct = 0;
	void *ext = NULL;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_kind(c, d, KIND, true);
	if (rc == ERR_OK)
		rc = decode_text(c, d, "apiVersion", DECODE_REQUIRED, &api);
	if (rc == ERR_OK && strcmp(api, API_VERSION) != 0) {
		char quoted[DOC_QUOTE_CAP];

		doc_quote(quoted, sizeof quoted, api, strlen(api));
		rc = decode_fail_at(c, "apiVersion", ERR_INVALID, "%s: expected " API_VERSION, quoted);
	}
	if (rc == ERR_OK)
		rc = sf_int(c, d, "percentageOfNodesToScore", 0, 100, &pct, &cfg->has_percentage);
	cfg->percentage = (int32_t)pct;
	if (rc == ERR_OK)
		rc = decode_profiles(c, d, cfg);
	if (rc == ERR_OK) {
		rc = decode_array(c, d, "extenders", 0, sizeof *cfg->extenders, &ext,
				  &cfg->nextenders, decode_extender, NULL);
		cfg->extenders = ext;
	}
	if (rc == ERR_OK)
		rc = check_extenders(c, cfg);
	if (rc == ERR_OK)
		sched_config_apply_extenders(cfg);
	return rc;
}

/* The one document of the text that is not empty. */
static enum err one_document(struct doc **docs, size_t ndocs, const char *origin,
			     const struct doc **out, struct errmsg *msg)
{
	size_t i, n = 0;

	for (i = 0; i < ndocs; i++)
		if (!doc_is_null(docs[i])) {
			*out = docs[i];
			n++;
		}
	if (n == 1)
		return ERR_OK;
	if (n == 0)
		errmsg_set(msg, "%s: no document", origin);
	else
		errmsg_set(msg, "%s: expected one document, got %zu", origin, n);
	return ERR_INVALID;
}

/* A ConfigMap's data values that hold a KubeSchedulerConfiguration: the
 * one there must be is decoded, with the key in the origin. */
static enum err decode_config_map(const struct doc *cm, const char *origin,
				  struct sched_config *cfg, struct errmsg *msg)
{
	const struct doc *data = doc_lookup(cm, "data"), *found = NULL, *root;
	struct doc **docs = NULL;
	size_t ndocs = 0, i, n = 0;
	char inner[1024];
	struct decode_ctx c;
	enum err rc = ERR_OK;

	for (i = 0; data != NULL && data->kind == DOC_OBJECT && i < data->nchildren; i++) {
		const struct doc *v = data->children[i].value;

		if ((v->kind != DOC_STRING && v->kind != DOC_PLAIN) || strstr(v->text, KIND) == NULL)
			continue;
		n++;
		found = data->children[i].value;
		snprintf(inner, sizeof inner, "%s (data.%s)", origin, data->children[i].key);
	}
	if (n != 1) {
		errmsg_set(msg, "%s: a ConfigMap with %s one data value holding a " KIND, origin,
			   n == 0 ? "not" : "more than");
		return ERR_INVALID;
	}
	rc = doc_parse(found->text, found->len, inner, &docs, &ndocs, msg);
	if (rc == ERR_OK)
		rc = one_document(docs, ndocs, inner, &root, msg);
	if (rc == ERR_OK) {
		decode_ctx_init(&c, inner, msg);
		rc = decode_configuration(&c, root, cfg);
	}
	doc_free_all(docs, ndocs);
	return rc;
}

enum err sched_config_decode(const char *buf, size_t len, const char *origin,
			     struct sched_config *out, struct errmsg *msg)
{
	struct doc **docs = NULL;
	const struct doc *root = NULL;
	const struct doc *kind;
	size_t ndocs = 0;
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc == ERR_OK)
		rc = one_document(docs, ndocs, origin, &root, msg);
	if (rc == ERR_OK) {
		kind = doc_lookup(root, "kind");
		if (kind != NULL && kind->kind != DOC_ARRAY && kind->kind != DOC_OBJECT &&
		    strcmp(kind->text, "ConfigMap") == 0) {
			rc = decode_config_map(root, origin, out, msg);
		} else {
			decode_ctx_init(&c, origin, msg);
			rc = decode_configuration(&c, root, out);
		}
	}
	doc_free_all(docs, ndocs);
	if (rc != ERR_OK)
		sched_config_cleanup(out);
	return rc;
}

static enum err config_text(const char *buf, size_t len, const char *origin, void *arg,
			    struct errmsg *msg)
{
	return sched_config_decode(buf, len, origin, arg, msg);
}

enum err sched_config_load(const char *path, struct sched_config *out,
			   struct errmsg *msg)
{
	memset(out, 0, sizeof *out);
	return file_read_with(path, FILE_READ_DOC_MAX_BYTES, config_text, out, msg);
}
