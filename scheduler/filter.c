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

/* A reason is short; one built from a hostile taint is cut, not lost. */
#define REASON_MAX 512

void sched_status_cleanup(struct sched_status *st)
{
	size_t i;

	for (i = 0; i < st->nreasons; i++)
		free(st->reasons[i]);
	free(st->reasons);
	memset(st, 0, sizeof *st);
}

void sched_status_reject(struct sched_status *st, enum sched_code code,
			 const char *plugin, const char *reason)
{
	if (code > st->code)
		st->code = code;
	if (st->plugin == NULL)
		st->plugin = plugin;
	st->reasons = xreallocarray(st->reasons, st->nreasons + 1, sizeof *st->reasons);
	st->reasons[st->nreasons++] = xstrdup(reason);
}

static bool enabled(const struct sched_pod_cycle *c, enum sched_plugin p)
{
	return c->profile->filter[p];
}

static const char *name_of(enum sched_plugin p)
{
	return sched_plugin_info(p)->name;
}

static bool unschedulable_fails(const struct sched_pod *pod, const struct sched_node *node)
{
	static char key[] = "node.kubernetes.io/unschedulable", value[] = "";
	static const struct sched_taint cordon = { key, value, SCHED_EFFECT_NO_SCHEDULE };

	return node->unschedulable && !sched_pod_tolerates(pod, &cordon);
}

static void taint_reason(const struct sched_pod_cycle *c, const struct sched_taint *t,
			 struct sched_status *st)
{
	char buf[REASON_MAX];
	struct textbuf b;

	if (!sched_taint_reason_names_taint(c->version)) {
		sched_status_reject(st, SCHED_UNSCHEDULABLE_UNRESOLVABLE,
				    name_of(SCHED_TAINT_TOLERATION), REASON_TAINTS);
		return;
	}
	/* fmt.Sprintf("node(s) had untolerated taint {%s: %s}", key, value) */
	textbuf_init_fixed(&b, buf, sizeof buf);
	textbuf_printf(&b, "node(s) had untolerated taint {%s: %s}", t->key, t->value);
	sched_status_reject(st, SCHED_UNSCHEDULABLE_UNRESOLVABLE,
			    name_of(SCHED_TAINT_TOLERATION), textbuf_str(&b));
}

void sched_filter_node(const struct sched_pod_cycle *c,
		       const struct sched_node *node, struct sched_status *st)
{
	const struct sched_pod *pod = c->pod;
	const struct sched_taint *taint;

	if (enabled(c, SCHED_NODE_UNSCHEDULABLE) && unschedulable_fails(pod, node)) {
		sched_status_reject(st, SCHED_UNSCHEDULABLE_UNRESOLVABLE,
				    name_of(SCHED_NODE_UNSCHEDULABLE), REASON_UNSCHEDULABLE);
		return;
	}
	if (enabled(c, SCHED_NODE_NAME) && pod->node_name != NULL &&
	    pod->node_name[0] != '\0' && strcmp(pod->node_name, node->name) != 0) {
		sched_status_reject(st, SCHED_UNSCHEDULABLE_UNRESOLVABLE,
				    name_of(SCHED_NODE_NAME), REASON_NODE_NAME);
		return;
	}
	taint = enabled(c, SCHED_TAINT_TOLERATION) ? sched_untolerated_taint(node, pod) : NULL;
	if (taint != NULL) {
		taint_reason(c, taint, st);
		return;
	}
	if (enabled(c, SCHED_NODE_AFFINITY) && !sched_required_affinity_matches(pod, node)) {
		sched_status_reject(st, SCHED_UNSCHEDULABLE_UNRESOLVABLE,
				    name_of(SCHED_NODE_AFFINITY), REASON_AFFINITY);
		return;
	}
	if (enabled(c, SCHED_NODE_RESOURCES_FIT))
		sched_fit_filter(c, node, st);
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

	/* The name check costs more than the lists: it runs for every scalar
	 * of every node a simulation filters. */
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

/* One resource's check: the request exceeds what is left. From 1.34 a
 * request beyond the whole allocatable is unresolvable. */
static void check(const struct sched_pod_cycle *c, const char *name, int64_t want,
		  int64_t alloc, int64_t used, struct sched_status *st)
{
	char buf[REASON_MAX];
	struct textbuf b;
	enum sched_code code = SCHED_UNSCHEDULABLE;

	/* alloc - used cannot wrap: both are 0..INT64_MAX. */
	if (want <= 0 || want <= alloc - used)
		return;
	if (c->version >= SCHED_V1_34 && want > alloc)
		code = SCHED_UNSCHEDULABLE_UNRESOLVABLE;
	textbuf_init_fixed(&b, buf, sizeof buf);
	textbuf_adds(&b, "Insufficient ");
	textbuf_adds(&b, name);
	sched_status_reject(st, code, name_of(SCHED_NODE_RESOURCES_FIT), textbuf_str(&b));
}

/* The amount of scalar name in r (0 when absent), searching from *at on;
 * names asked in increasing order leave *at where the next search starts. */
static int64_t scalar_after(const struct sched_resources *r, const char *name, size_t *at)
{
	int c = 1;

	while (*at < r->nscalars && (c = strcmp(r->scalars[*at].name, name)) < 0)
		(*at)++;
	return *at < r->nscalars && c == 0 ? r->scalars[*at].value : 0;
}

void sched_fit_filter(const struct sched_pod_cycle *c,
		      const struct sched_node *node, struct sched_status *st)
{
	const struct sched_resources *req = &c->request;
	const struct sched_resources *alloc = &node->allocatable;
	const struct sched_resources *used = &node->requested;
	size_t i, a = 0, u = 0;

	/* len(pods) + 1 > allowed, without the + 1 overflowing. */
	if (node->npods >= alloc->pods)
		sched_status_reject(st, SCHED_UNSCHEDULABLE, name_of(SCHED_NODE_RESOURCES_FIT),
				    REASON_TOO_MANY_PODS);
	if (node->cpu_known)
		check(c, "cpu", req->milli_cpu, alloc->milli_cpu, used->milli_cpu, st);
	check(c, "memory", req->memory, alloc->memory, used->memory, st);
	check(c, "ephemeral-storage", req->ephemeral_storage, alloc->ephemeral_storage,
	      used->ephemeral_storage, st);
	/* Upstream walks a Go map, in random order; sorted names here. All
	 * three lists are sorted by name: one merge walk finds the amounts. */
	for (i = 0; i < req->nscalars; i++) {
		const char *name = req->scalars[i].name;

		if (req->scalars[i].value == 0 || ignored(c->profile, name))
			continue;
		check(c, name, req->scalars[i].value, scalar_after(alloc, name, &a),
		      scalar_after(used, name, &u), st);
	}
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
