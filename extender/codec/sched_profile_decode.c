/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_profile_decode.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/sched_fields.h"
#include "scheduler/plugins.h"
#include "topology/names.h"

static const char *const strategies[] = {
	"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio",
};

static enum err decode_plugin_ref(struct decode_ctx *c, const struct doc *d, void *elem,
				  void *arg)
{
	struct sched_plugin_ref *r = elem;
	int64_t w = 0;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &r->name);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "weight", INT32_MIN, INT32_MAX, &w, &r->has_weight);
	r->weight = (int32_t)w;
	return rc;
}

static enum err decode_disabled(struct decode_ctx *c, const struct doc *d, void *elem,
				void *arg)
{
	(void)arg;
	return decode_named(c, d, elem);
}

static enum err decode_set(struct decode_ctx *c, const struct doc *plugins, const char *key,
			   struct sched_plugin_set *s)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *set;
	void *enabled = NULL, *disabled = NULL;
	enum err rc;

	rc = decode_field(c, plugins, key, DOC_OBJECT, 0, &set);
	if (rc == ERR_OK && set != NULL) {
		rc = decode_array(c, set, "enabled", 0, sizeof *s->enabled, &enabled,
				  &s->nenabled, decode_plugin_ref, NULL);
		s->enabled = enabled;
		if (rc == ERR_OK) {
			rc = decode_array(c, set, "disabled", 0, sizeof *s->disabled, &disabled,
					  &s->ndisabled, decode_disabled, NULL);
			s->disabled = disabled;
		}
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_plugins(struct decode_ctx *c, const struct doc *prof,
			       struct sched_profile *p)
{
	size_t mark = doc_path_key(&c->path, "plugins");
	struct sched_plugins_spec s;
	const struct doc *plugins;
	enum err rc;

	memset(&s, 0, sizeof s);
	rc = decode_field(c, prof, "plugins", DOC_OBJECT, 0, &plugins);
	if (rc == ERR_OK && plugins != NULL) {
		rc = decode_set(c, plugins, "multiPoint", &s.multi_point);
		if (rc == ERR_OK)
			rc = decode_set(c, plugins, "filter", &s.filter);
		if (rc == ERR_OK)
			rc = decode_set(c, plugins, "score", &s.score);
		if (rc == ERR_OK)
			sched_profile_apply_plugins(p, &s);
	}
	sched_plugins_spec_cleanup(&s);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* A list of {name, weight} with weight 0 (or absent) meaning 1 and the
 * result in [1, max]; the default cpu and memory list when empty. */
static enum err decode_weight(struct decode_ctx *c, const struct doc *d, void *elem,
			      void *arg)
{
	struct sched_resource_weight *w = elem;
	int64_t max = *(const int64_t *)arg;
	enum err rc;

	rc = decode_named(c, d, &w->name);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "weight", 0, max, &w->weight, NULL);
	if (w->weight == 0)
		w->weight = 1;
	return rc;
}

static void weights_free(struct sched_resource_weight *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i].name);
	free(w);
}

static enum err decode_weights(struct decode_ctx *c, const struct doc *obj, int64_t max,
			       struct sched_resource_weight **out, size_t *n)
{
	struct sched_resource_weight *w = NULL;
	void *v = NULL;
	size_t nw = 0;
	enum err rc;

	rc = decode_array(c, obj, "resources", 0, sizeof *w, &v, &nw, decode_weight, &max);
	w = v;
	if (rc != ERR_OK || nw == 0) {
		weights_free(w, nw);
		return rc;
	}
	weights_free(*out, *n);
	*out = w;
	*n = nw;
	return ERR_OK;
}

static enum err decode_shape_point(struct decode_ctx *c, const struct doc *d, void *elem,
				   void *arg)
{
	struct sched_shape_point *pt = elem;
	int64_t u = 0, s = 0;
	enum err rc;

	(void)arg;
	/* Either may be left out: 0, as Go decodes it. */
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "utilization", 0, 100, &u, NULL);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "score", 0, 10, &s, NULL);
	pt->utilization = (int32_t)u;
	pt->score = (int32_t)s;
	return rc;
}

static enum err decode_strategy(struct decode_ctx *c, const struct doc *args,
				struct sched_profile *p)
{
	size_t mark = doc_path_key(&c->path, "scoringStrategy"), type = SIZE_MAX, i;
	const struct doc *st, *rtcr = NULL;
	void *shape = NULL;
	enum err rc;

	rc = decode_field(c, args, "scoringStrategy", DOC_OBJECT, 0, &st);
	if (rc != ERR_OK || st == NULL)
		goto out;
	rc = decode_choice(c, st, "type", DECODE_REQUIRED, strategies, 3, &type);
	if (rc == ERR_OK)
		p->strategy = (enum sched_fit_strategy)type;
	if (rc == ERR_OK)
		rc = decode_weights(c, st, 100, &p->fit_resources, &p->nfit_resources);
	if (rc == ERR_OK) {
		size_t m = doc_path_key(&c->path, "requestedToCapacityRatio");

		rc = decode_field(c, st, "requestedToCapacityRatio", DOC_OBJECT, 0, &rtcr);
		if (rc == ERR_OK && rtcr != NULL) {
			rc = decode_array(c, rtcr, "shape", DECODE_REQUIRED | DECODE_NONEMPTY,
					  sizeof *p->shape, &shape, &p->nshape, decode_shape_point, NULL);
			p->shape = shape;
		}
		for (i = 1; rc == ERR_OK && i < p->nshape; i++) {
			if (p->shape[i - 1].utilization >= p->shape[i].utilization) {
				size_t s = doc_path_key(&c->path, "shape");

				doc_path_index(&c->path, i);
				rc = decode_fail_at(c, "utilization", ERR_INVALID, "values must be sorted in increasing order");
				doc_path_pop(&c->path, s);
			}
		}
		doc_path_pop(&c->path, m);
	}
	/* Upstream would dereference the missing shape and crash. */
	if (rc == ERR_OK && p->strategy == SCHED_REQUESTED_TO_CAPACITY_RATIO && p->nshape == 0)
		rc = decode_fail_at(c, "requestedToCapacityRatio", ERR_INVALID, "shape is required for RequestedToCapacityRatio");
out:
	doc_path_pop(&c->path, mark);
	return rc;
}

/* ignoredResources / ignoredResourceGroups: qualified names, groups
 * without '/'. */
static enum err decode_ignored(struct decode_ctx *c, const struct doc *args, const char *key,
			       bool groups, char ***out, size_t *n)
{
	char why[160], quoted[DOC_QUOTE_CAP];
	size_t i, mark;
	enum err rc = sf_strings(c, args, key, out, n);

	for (i = 0; rc == ERR_OK && i < *n; i++) {
		const char *s = (*out)[i];
		const char *problem = NULL;

		if (groups && strchr(s, '/') != NULL)
			problem = "resource group name can't contain '/'";
		else if (!name_is_resource(s, strlen(s), why, sizeof why))
			problem = why;
		if (problem == NULL)
			continue;
		mark = doc_path_key(&c->path, key);
		doc_path_index(&c->path, i);
		doc_quote(quoted, sizeof quoted, s, strlen(s));
		rc = decode_fail(c, ERR_INVALID, "%s: %s", quoted, problem);
		doc_path_pop(&c->path, mark);
	}
	return rc;
}

static enum err decode_fit_args(struct decode_ctx *c, const struct doc *args,
				struct sched_profile *p)
{
	enum err rc;

	rc = decode_ignored(c, args, "ignoredResources", false, &p->ignored_resources,
			    &p->nignored_resources);
	if (rc == ERR_OK)
		rc = decode_ignored(c, args, "ignoredResourceGroups", true, &p->ignored_groups,
				    &p->nignored_groups);
	if (rc == ERR_OK)
		rc = decode_strategy(c, args, p);
	return rc;
}

static enum err decode_balanced_args(struct decode_ctx *c, const struct doc *args,
				     struct sched_profile *p)
{
	size_t i, j;
	enum err rc;

	/* Every weight must be 1 (0 defaults to it). */
	rc = decode_weights(c, args, 1, &p->balanced_resources, &p->nbalanced_resources);
	for (i = 0; rc == ERR_OK && i < p->nbalanced_resources; i++)
		for (j = 0; rc == ERR_OK && j < i; j++)
			if (strcmp(p->balanced_resources[i].name, p->balanced_resources[j].name) == 0) {
				size_t mark = doc_path_key(&c->path, "resources");

				doc_path_index(&c->path, i);
				rc = decode_fail_at(c, "name", ERR_INVALID, "duplicate resource name");
				doc_path_pop(&c->path, mark);
			}
	return rc;
}

static void note(struct sched_profile *p, const char *what)
{
	p->unmodelled = xreallocarray(p->unmodelled, p->nunmodelled + 1, sizeof *p->unmodelled);
	p->unmodelled[p->nunmodelled++] = xstrdup(what);
}

/* pluginConfig[i] of list; the entries before it are decoded. A plugin's
 * second entry is refused before its args are read: they would be decoded
 * on top of the first's. */
static enum err decode_plugin_config(struct decode_ctx *c, const struct doc *list, size_t i,
				     struct sched_profile *p)
{
	const struct doc *d = list->children[i].value, *args;
	const char *name;
	size_t mark, j;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_text(c, d, "name", DECODE_REQUIRED | DECODE_NONEMPTY, &name);
	if (rc != ERR_OK)
		return rc;
	for (j = 0; j < i; j++)
		if (strcmp(name, doc_lookup(list->children[j].value, "name")->text) == 0)
			return decode_fail_at(c, "name", ERR_INVALID, "repeated config for this plugin");
	mark = doc_path_key(&c->path, "args");
	rc = decode_field(c, d, "args", DOC_OBJECT, 0, &args);
	if (rc == ERR_OK && args != NULL) {
		if (strcmp(name, "NodeResourcesFit") == 0)
			rc = decode_fit_args(c, args, p);
		else if (strcmp(name, "NodeResourcesBalancedAllocation") == 0)
			rc = decode_balanced_args(c, args, p);
		else if (strcmp(name, "NodeAffinity") == 0 && doc_lookup(args, "addedAffinity") != NULL)
			note(p, "NodeAffinityArgs.addedAffinity");
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

/* pluginConfig: one entry per plugin name, its args into p. */
static enum err decode_plugin_configs(struct decode_ctx *c, const struct doc *prof,
				      struct sched_profile *p)
{
	size_t mark = doc_path_key(&c->path, "pluginConfig"), i;
	const struct doc *list;
	enum err rc;

	rc = decode_field(c, prof, "pluginConfig", DOC_ARRAY, 0, &list);
	for (i = 0; rc == ERR_OK && list != NULL && i < list->nchildren; i++) {
		size_t m = doc_path_index(&c->path, i);

		rc = decode_plugin_config(c, list, i, p);
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err sched_profile_decode(struct decode_ctx *c, const struct doc *d,
			      struct sched_profile *p)
{
	int64_t pct = 0;
	enum err rc;

	sched_profile_default(p, NULL);
	free(p->scheduler_name);
	p->scheduler_name = NULL;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "schedulerName", DECODE_NONEMPTY, &p->scheduler_name);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "percentageOfNodesToScore", 0, 100, &pct, &p->has_percentage);
	p->percentage = (int32_t)pct;
	if (rc == ERR_OK)
		rc = decode_plugins(c, d, p);
	if (rc == ERR_OK)
		rc = decode_plugin_configs(c, d, p);
	return rc;
}
