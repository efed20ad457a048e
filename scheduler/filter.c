/* SPDX-License-Identifier: Apache-2.0 */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "scheduler/match.h"

#define REASON_UNSCHEDULABLE "node(s) were unschedulable"
#define REASON_NODE_NAME "node(s) didn't match the requested node name"
#define REASON_TAINTS "node(s) had untolerated taint(s)"
#define REASON_AFFINITY "node(s) didn't match Pod's node affinity/selector"
#define REASON_TOO_MANY_PODS "Too many pods"

#define INSUFFICIENT "Insufficient "

/* A reason is short; one built from a hostile taint or resource name is
 * cut, not lost. */
#define REASON_MAX 512

struct sched_fit_want {
	const char *name;
	int64_t amount;
	size_t column;            /* in the run's index */
	const char *insufficient; /* interned in the run's reasons */
};

/* The node being filtered fails with code under plugin (static) for
 * reason (static or interned in fr->reasons). */
static void reject(struct sched_filter_run *fr, enum sched_code code,
		   enum sched_plugin plugin, const char *reason)
{
	if (code > fr->code)
		fr->code = code;
	if (fr->plugin == NULL)
		fr->plugin = sched_plugin_info(plugin)->name;
	fr->held[fr->nheld++] = reason;
}

static bool enabled(const struct sched_pod_cycle *c, enum sched_plugin p)
{
	return c->profile->filter[p];
}

static bool unschedulable_fails(const struct sched_pod *pod, const struct sched_node *node)
{
	static char key[] = "node.kubernetes.io/unschedulable", value[] = "";
	static const struct sched_taint cordon = { key, value, SCHED_EFFECT_NO_SCHEDULE };

	return node->unschedulable && !sched_pod_tolerates(pod, &cordon);
}

static void taint_reason(struct sched_filter_run *fr, const struct sched_taint *t)
{
	char buf[REASON_MAX];
	struct textbuf b;

	if (!sched_taint_reason_names_taint(fr->pc->version)) {
		reject(fr, SCHED_UNSCHEDULABLE_UNRESOLVABLE, SCHED_TAINT_TOLERATION, REASON_TAINTS);
		return;
	}
	/* fmt.Sprintf("node(s) had untolerated taint {%s: %s}", key, value) */
	textbuf_init_fixed(&b, buf, sizeof buf);
	textbuf_printf(&b, "node(s) had untolerated taint {%s: %s}", t->key, t->value);
	reject(fr, SCHED_UNSCHEDULABLE_UNRESOLVABLE, SCHED_TAINT_TOLERATION,
	       sched_reasons_intern(fr->reasons, textbuf_str(&b)));
}

/* One resource's check: the request exceeds what is left. From 1.34 a
 * request beyond the whole allocatable is unresolvable. */
static void check(struct sched_filter_run *fr, const char *insufficient, int64_t want,
		  int64_t alloc, int64_t used)
{
	enum sched_code code = SCHED_UNSCHEDULABLE;

	/* alloc - used cannot wrap: both are 0..INT64_MAX. */
	if (want <= 0 || want <= alloc - used)
		return;
	if (fr->pc->version >= SCHED_V1_34 && want > alloc)
		code = SCHED_UNSCHEDULABLE_UNRESOLVABLE;
	reject(fr, code, SCHED_NODE_RESOURCES_FIT, insufficient);
}

/* NodeResourcesFit's fitsRequest, with the profile's ignored resources and
 * groups left out of fr->wants. */
static void fit_filter(struct sched_filter_run *fr, const struct sched_node *node, size_t i)
{
	const struct sched_resources *req = &fr->pc->request;
	const struct sched_resources *alloc = &node->allocatable;
	const struct sched_resources *used = &node->requested;
	size_t k;

	/* len(pods) + 1 > allowed, without the + 1 overflowing. */
	if (node->npods >= alloc->pods)
		reject(fr, SCHED_UNSCHEDULABLE, SCHED_NODE_RESOURCES_FIT, REASON_TOO_MANY_PODS);
	if (node->cpu_known)
		check(fr, INSUFFICIENT "cpu", req->milli_cpu, alloc->milli_cpu, used->milli_cpu);
	check(fr, INSUFFICIENT "memory", req->memory, alloc->memory, used->memory);
	check(fr, INSUFFICIENT "ephemeral-storage", req->ephemeral_storage,
	      alloc->ephemeral_storage, used->ephemeral_storage);
	/* Upstream walks a Go map, in random order; sorted names here. */
	for (k = 0; k < fr->nwants; k++) {
		const struct sched_fit_want *w = &fr->wants[k];
		int64_t a, u;

		if (fr->index != NULL) {
			sched_scalar_index_amounts(fr->index, i, w->column, &a, &u);
		} else {
			a = sched_resources_get(alloc, w->name, NULL);
			u = sched_resources_get(used, w->name, NULL);
		}
		check(fr, w->insufficient, w->amount, a, u);
	}
}

static void filters(struct sched_filter_run *fr, const struct sched_node *node, size_t i)
{
	const struct sched_pod_cycle *c = fr->pc;
	const struct sched_pod *pod = c->pod;
	const struct sched_taint *taint;

	if (enabled(c, SCHED_NODE_UNSCHEDULABLE) && unschedulable_fails(pod, node)) {
		reject(fr, SCHED_UNSCHEDULABLE_UNRESOLVABLE, SCHED_NODE_UNSCHEDULABLE,
		       REASON_UNSCHEDULABLE);
		return;
	}
	if (enabled(c, SCHED_NODE_NAME) && pod->node_name != NULL &&
	    pod->node_name[0] != '\0' && strcmp(pod->node_name, node->name) != 0) {
		reject(fr, SCHED_UNSCHEDULABLE_UNRESOLVABLE, SCHED_NODE_NAME, REASON_NODE_NAME);
		return;
	}
	taint = enabled(c, SCHED_TAINT_TOLERATION) ? sched_untolerated_taint(node, pod) : NULL;
	if (taint != NULL) {
		taint_reason(fr, taint);
		return;
	}
	if (enabled(c, SCHED_NODE_AFFINITY) && !sched_required_affinity_matches(pod, node)) {
		reject(fr, SCHED_UNSCHEDULABLE_UNRESOLVABLE, SCHED_NODE_AFFINITY, REASON_AFFINITY);
		return;
	}
	if (enabled(c, SCHED_NODE_RESOURCES_FIT))
		fit_filter(fr, node, i);
}

void sched_filter_run_node(struct sched_filter_run *fr, const struct sched_node *nodes,
			   size_t i, struct sched_status *st)
{
	fr->code = SCHED_SUCCESS;
	fr->plugin = NULL;
	fr->nheld = 0;
	filters(fr, &nodes[i], i);
	if (fr->nheld > 0)
		sched_status_add(fr->reasons, st, fr->code, fr->plugin, fr->held, fr->nheld,
				 fr->own_copies);
}

static bool listed(char *const *v, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(v[i]) == len && strncmp(v[i], s, len) == 0)
			return true;
	return false;
}

/* An extended resource the profile tells NodeResourcesFit to ignore, by
 * name or by the prefix before its '/'. */
static bool ignored(const struct sched_profile *p, const char *name)
{
	const char *slash;

	if (p->nignored_resources == 0 && p->nignored_groups == 0)
		return false;
	if (!sched_name_is_extended(name))
		return false;
	if (listed(p->ignored_resources, p->nignored_resources, name, strlen(name)))
		return true;
	slash = strchr(name, '/');
	return slash != NULL &&
	       listed(p->ignored_groups, p->nignored_groups, name, (size_t)(slash - name));
}

void sched_filter_run_init(struct sched_filter_run *fr, const struct sched_pod_cycle *c,
			   struct sched_reasons *reasons,
			   const struct sched_scalar_index *index, bool own_copies)
{
	const struct sched_resources *req = &c->request;
	size_t k;

	memset(fr, 0, sizeof *fr);
	fr->pc = c;
	fr->reasons = reasons;
	fr->index = index;
	fr->own_copies = own_copies;
	fr->wants = xcalloc(req->nscalars + 1, sizeof *fr->wants);
	for (k = 0; k < req->nscalars; k++) {
		struct sched_fit_want *w = &fr->wants[fr->nwants];
		char buf[REASON_MAX];
		struct textbuf b;

		if (req->scalars[k].value == 0 || ignored(c->profile, req->scalars[k].name))
			continue;
		w->name = req->scalars[k].name;
		w->amount = req->scalars[k].value;
		w->column = index != NULL ? sched_scalar_index_column(index, w->name)
					  : SCHED_NO_COLUMN;
		textbuf_init_fixed(&b, buf, sizeof buf);
		textbuf_adds(&b, INSUFFICIENT);
		textbuf_adds(&b, w->name);
		w->insufficient = sched_reasons_intern(reasons, textbuf_str(&b));
		fr->nwants++;
	}
	/* The most one node gets: NodeResourcesFit's pods, cpu, memory,
	 * ephemeral-storage and every scalar; any other filter gives one. */
	fr->held = xcalloc(fr->nwants + 4, sizeof *fr->held);
}

void sched_filter_run_cleanup(struct sched_filter_run *fr)
{
	free(fr->wants);
	free(fr->held);
	memset(fr, 0, sizeof *fr);
}

void sched_filter_node(const struct sched_pod_cycle *c,
		       const struct sched_node *node, struct sched_status *st)
{
	struct sched_reasons *reasons = sched_reasons_new();
	struct sched_filter_run fr;

	sched_filter_run_init(&fr, c, reasons, NULL, true);
	sched_filter_run_node(&fr, node, 0, st);
	sched_filter_run_cleanup(&fr);
	sched_reasons_free(reasons);
}

/* The names one term's matchFields metadata.name In allow: the
 * intersection over its such requirements (each names one node). Returns
 * false when the term has none. */
static bool term_names(const struct sched_term *t, const char **name, bool *empty)
{
	bool any = false;
	size_t i;

	*name = NULL;
	*empty = false;
	for (i = 0; i < t->nfields; i++) {
		const struct sched_requirement *r = &t->fields[i];

		if (strcmp(r->key, "metadata.name") != 0 || r->op != SCHED_OP_IN || r->nvalues != 1)
			continue;
		if (!any)
			*name = r->values[0];
		else if (*name != NULL && strcmp(*name, r->values[0]) != 0)
			*empty = true;
		any = true;
	}
	return any;
}

bool sched_affinity_node_names(const struct sched_pod *pod, const char ***names,
			       size_t *nnames)
{
	const char **out;
	size_t i, n = 0;

	*names = NULL;
	*nnames = 0;
	if (!pod->has_required || pod->nrequired == 0)
		return false;
	out = xcalloc(pod->nrequired, sizeof *out);
	for (i = 0; i < pod->nrequired; i++) {
		const char *name;
		bool empty;

		if (!term_names(&pod->required[i], &name, &empty)) {
			free(out);
			return false;
		}
		if (!empty)
			out[n++] = name;
	}
	*names = out;
	*nnames = n;
	return true;
}
