/* SPDX-License-Identifier: Apache-2.0 */
/* Notes and free capacity for simulate's outputs (sim_report.h). */
#include "extender/cmd/sim_report.h"

#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/cmd/sim_cluster.h"
#include "extender/decide/dra.h"

#define NOTE_MAX 2048

static void add(char ***lines, size_t *n, struct textbuf *t)
{
	*lines = xreallocarray(*lines, *n + 1, sizeof **lines);
	(*lines)[(*n)++] = textbuf_take(t, NULL);
	textbuf_init(t, NOTE_MAX);
}

static void quoted(struct textbuf *t, const char *s)
{
	textbuf_quote(t, s ? s : "", s ? strlen(s) : 0, 200, TEXTBUF_QUOTE_RAW_HIGH);
}

static void extender_note(const struct sim_setup *s, bool no_urls, struct textbuf *t)
{
	const struct sched_extender *e;
	size_t i;

	if (!s->has_numa) {
		textbuf_adds(t, "numa-extender: the scheduler configuration has no extender: "
				"the scheduler alone");
		return;
	}
	e = &s->config.extenders[s->numa];
	textbuf_printf(t, "numa-extender: extenders[%zu]", s->numa);
	if (!no_urls) {
		textbuf_adds(t, ", urlPrefix ");
		quoted(t, e->url_prefix);
	}
	textbuf_printf(t, ", weight %lld (score x %lld x 10), ", (long long)e->weight,
		       (long long)e->weight);
	if (e->nmanaged == 0) {
		textbuf_adds(t, "no managedResources (asked about every pod)");
		return;
	}
	textbuf_adds(t, "asked about pods that request ");
	for (i = 0; i < e->nmanaged; i++) {
		textbuf_adds(t, i == 0 ? "" : i + 1 == e->nmanaged ? " or " : ", ");
		textbuf_adds(t, e->managed[i].name);
	}
}

static void nodes_note(const struct sim_cluster *c, struct textbuf *t)
{
	if (c->nrt_only) {
		textbuf_printf(t, "nodes: %zu from NodeResourceTopology; %s", c->n, SIM_NRT_ONLY_TEXT);
		return;
	}
	textbuf_printf(t, "nodes: %zu from --nodes", c->n);
	if (c->no_inventory)
		textbuf_printf(t, "; %zu without a NodeResourceTopology (missingInventory decides)",
			       c->no_inventory);
	if (c->nrt_unlisted)
		textbuf_printf(t, "; %zu NodeResourceTopology object(s) of nodes not listed left out",
			       c->nrt_unlisted);
	if (c->invalid_nodes)
		textbuf_printf(t, "; %zu Node item(s) that did not decode left out", c->invalid_nodes);
}

size_t sim_run_notes(const struct sim_run *r, bool has_running, bool no_urls, char ***lines)
{
	const struct sim_setup *s = &r->setup;
	struct textbuf t;
	size_t n = 0, i, k, fallback = 0;

	*lines = NULL;
	textbuf_init(&t, NOTE_MAX);
	textbuf_adds(&t, "scheduler: ");
	if (s->builtin)
		textbuf_adds(&t, SIM_BUILTIN_TEXT);
	else
		quoted(&t, s->source);
	textbuf_printf(&t, "; kube-scheduler %s", sched_version_name(s->version));
	add(lines, &n, &t);
	extender_note(s, no_urls, &t);
	add(lines, &n, &t);
	if (s->other_extenders) {
		textbuf_printf(&t, "%zu other extender(s): not modelled, taken as keeping every node "
				   "and scoring nothing",
			       s->other_extenders);
		add(lines, &n, &t);
	}
	nodes_note(&r->cluster, &t);
	add(lines, &n, &t);
	if (has_running) {
		textbuf_printf(&t, "running: %zu pod(s) counted on their nodes", r->cluster.running);
		if (r->cluster.running_elsewhere)
			textbuf_printf(&t, "; %zu bound to nodes the cluster does not have",
				       r->cluster.running_elsewhere);
		add(lines, &n, &t);
	}
	for (i = 0; i < s->config.nprofiles; i++) {
		const struct sched_profile *p = &s->config.profiles[i];

		if (p->nunmodelled == 0)
			continue;
		textbuf_adds(&t, "profile ");
		quoted(&t, p->scheduler_name);
		textbuf_adds(&t, ": not modelled (left out): ");
		for (k = 0; k < p->nunmodelled; k++) {
			textbuf_adds(&t, k ? ", " : "");
			quoted(&t, p->unmodelled[k]);
		}
		add(lines, &n, &t);
	}
	for (i = 0; i < r->npods; i++)
		fallback += r->placed[i].profile_fallback;
	if (fallback) {
		textbuf_printf(&t, "%zu pod(s) name no profile of the configuration: scheduled by its "
				   "only profile ",
			       fallback);
		quoted(&t, s->config.profiles[0].scheduler_name);
		add(lines, &n, &t);
	}
	textbuf_free(&t);
	return n;
}

void sim_notes_free(char **lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

void sim_free_of(const struct inventory_node *inv, const char *resource, struct sim_free *out)
{
	const struct inventory_resource *res;
	int64_t top = 0;
	int r, d;

	memset(out, 0, sizeof *out);
	r = inv ? inventory_find(inv, resource) : -1;
	if (r < 0)
		return;
	res = &inv->resources[r];
	for (d = 0; d < inv->numa_count; d++) {
		int64_t f = res->available[d] < 0 ? 0 : res->available[d];

		out->allocatable = i64_add_sat(out->allocatable, res->allocatable[d]);
		out->free = i64_add_sat(out->free, f);
		if (f > top)
			top = f;
	}
	out->used = out->allocatable - out->free;
	out->fragmented = out->free - top;
}

static int rank(const char *name)
{
	return strcmp(name, "cpu") == 0 ? 0 : strcmp(name, "memory") == 0 ? 1 : 2;
}

static int by_rank(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int d = rank(x) - rank(y);

	return d != 0 ? d : strcmp(x, y);
}

size_t sim_resource_names(const struct sim_cluster *c, const char ***names)
{
	size_t i, n = 0, k;
	int r;

	*names = NULL;
	for (i = 0; i < c->n; i++) {
		const struct inventory_node *inv = c->numa[i].first ? c->numa[i].first->inventory : NULL;

		for (r = 0; inv != NULL && r < inv->nresources; r++) {
			if (inv->resources[r].kind == RESOURCE_HOST)
				continue;
			for (k = 0; k < n && strcmp((*names)[k], inv->resources[r].name) != 0; k++)
				;
			if (k < n)
				continue;
			*names = xreallocarray(*names, n + 1, sizeof **names);
			(*names)[n++] = inv->resources[r].name;
		}
	}
	if (n > 1)
		qsort(*names, n, sizeof **names, by_rank);
	return n;
}

void sim_cluster_free(const struct sim_cluster *c, const char *resource, bool after,
		      struct sim_free *out)
{
	size_t i;

	memset(out, 0, sizeof *out);
	for (i = 0; i < c->n; i++) {
		const struct store_node *sn = after ? c->numa[i].now : c->numa[i].first;
		struct sim_free f;

		sim_free_of(sn ? sn->inventory : NULL, resource, &f);
		out->allocatable = i64_add_sat(out->allocatable, f.allocatable);
		out->used = i64_add_sat(out->used, f.used);
		out->free = i64_add_sat(out->free, f.free);
		out->fragmented = i64_add_sat(out->fragmented, f.fragmented);
	}
}

const char *sim_dra_line(const struct sim_placement *pl, char *buf, size_t size)
{
	struct textbuf t;
	size_t i;

	textbuf_init_fixed(&t, buf, size);
	textbuf_printf(&t, "DRA %s", dra_outcome_name(pl->dra));
	for (i = 0; i < pl->ndevices; i++) {
		const struct sim_dra_device *d = &pl->devices[i];
		char numa[200];

		textbuf_adds(&t, i ? ", " : ": ");
		textbuf_printf(&t, "%s/%s %s (%s, NUMA %s)", d->claim, d->request, d->device, d->driver,
			       dra_numa_text(&d->numa, numa, sizeof numa));
	}
	if (pl->dra_why != NULL && pl->dra_why[0] != '\0')
		textbuf_printf(&t, "; %s", pl->dra_why);
	return buf;
}

struct named {
	const char *name;
	size_t index;
};

static int by_node_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

size_t *sim_nodes_by_name(const struct sim_cluster *c)
{
	struct named *t = xcalloc(c->n + 1, sizeof *t);
	size_t *order = xcalloc(c->n + 1, sizeof *order), i;

	for (i = 0; i < c->n; i++)
		t[i] = (struct named){ c->views[i].name, i };
	if (c->n > 1)
		qsort(t, c->n, sizeof *t, by_node_name);
	for (i = 0; i < c->n; i++)
		order[i] = t[i].index;
	free(t);
	return order;
}
