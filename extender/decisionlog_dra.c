/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA state of a logged decision (decisionlog_dra.h). The request
 * thread keeps a reference to its DRA snapshot and the pod's claims as
 * resolved; the writer thread picks from the snapshot what each node's
 * prediction reads and writes what the file does not hold yet. */
#include "extender/decisionlog_dra.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "dra/pools.h"
#include "extender/codec/dra_encode.h"
#include "extender/codec/json_write.h"
#include "extender/decisionlog.h"
#include "extender/log.h"
#include "extender/metrics.h"

/* A node state's id: a node name (at most 253 bytes), '/', a version. */
#define DRA_NODE_ID_MAX 288

struct decision_dra {
	const struct dra_snapshot *snap;      /* referenced */
	char *pod_json;                       /* the pod's claims */
	const char *settings[3];              /* alignment, unknownNUMA, allocatorOrder */
	/* The objects the pod reads whatever the node: claims and templates
	 * as resolved, the classes they name, a slice selecting by label. */
	const void **objects;
	enum dra_kind *kinds;
	size_t nobjects;
};

static const char *const alignment_names[] = { "require", "prefer", "off" };
static const char *const unknown_names[] = { "allow", "deny" };
static const char *const order_names[] = { "sorted", "unsorted" };

static void add_object(struct decision_dra *d, enum dra_kind k, const void *obj)
{
	size_t i;

	for (i = 0; i < d->nobjects; i++)
		if (d->objects[i] == obj)
			return;
	d->objects = xreallocarray(d->objects, d->nobjects + 1, sizeof *d->objects);
	d->kinds = xreallocarray(d->kinds, d->nobjects + 1, sizeof *d->kinds);
	d->objects[d->nobjects] = obj;
	d->kinds[d->nobjects++] = k;
}

struct decision_dra *decision_dra_new(const struct dra_snapshot *snap, const struct dra_pod *pod,
				      const struct dra_pod_claims *claims, const struct settings *st)
{
	struct decision_dra *d = xcalloc(1, sizeof *d);
	const struct dra_pod_claim *pcs;
	const struct dra_claim *const *resolved;
	const char *label = dra_pod_label_slice(pod);
	size_t n = dra_pod_claims_resolved(pod, &pcs, &resolved), i, r, s;

	d->snap = dra_snapshot_ref(snap);
	d->pod_json = dra_pod_claims_to_json(claims);
	d->settings[0] = (unsigned)st->dra_alignment < 3 ? alignment_names[st->dra_alignment] : "prefer";
	d->settings[1] = (unsigned)st->dra_unknown_numa < 2 ? unknown_names[st->dra_unknown_numa] : "allow";
	d->settings[2] = (unsigned)st->dra_order < 2 ? order_names[st->dra_order] : "sorted";
	for (i = 0; i < n; i++) {
		const struct dra_claim *c = resolved[i];

		if (c == NULL)
			continue;
		add_object(d, c->from_template ? DRA_KIND_TEMPLATE : DRA_KIND_CLAIM, c);
		/* A class the snapshot lacks is missing in replay too. */
		for (r = 0; r < c->nrequests; r++)
			for (s = 0; s < c->requests[r].nspecs; s++) {
				const char *cls = c->requests[r].specs[s].class_name;
				const struct dra_class *k = cls ? dra_snapshot_class(snap, cls) : NULL;

				if (k != NULL)
					add_object(d, DRA_KIND_CLASS, k);
			}
	}
	for (i = 0; label != NULL && i < snap->nshared; i++)
		if (strcmp(snap->shared[i]->name, label) == 0)
			add_object(d, DRA_KIND_SLICE, snap->shared[i]);
	return d;
}

void decision_dra_free(struct decision_dra *d)
{
	if (d == NULL)
		return;
	dra_snapshot_release(d->snap);
	free(d->pod_json);
	free(d->objects);
	free(d->kinds);
	free(d);
}

static bool too_large(struct textbuf *b, const char *what)
{
	if (!textbuf_failed(b))
		return false;
	log_warn("decision log record too large: dropped", "part=%s limit_bytes=%zu", what,
		 DECISION_LOG_MAX_LINE_BYTES);
	metrics_decision_log_dropped();
	return true;
}

static const char *object_ns(enum dra_kind k, const void *obj)
{
	return k == DRA_KIND_CLAIM || k == DRA_KIND_TEMPLATE ? ((const struct dra_claim *)obj)->namespace_
							     : NULL;
}

static const char *object_name(enum dra_kind k, const void *obj)
{
	switch (k) {
	case DRA_KIND_SLICE:
		return ((const struct dra_slice *)obj)->name;
	case DRA_KIND_CLASS:
		return ((const struct dra_class *)obj)->name;
	default:
		return ((const struct dra_claim *)obj)->name;
	}
}

/* "kind":K,["namespace":NS,]"name":N,"version":V: a reference's members. */
static void add_ref(struct textbuf *b, enum dra_kind k, const void *obj)
{
	const char *ns = object_ns(k, obj);

	textbuf_adds(b, "\"kind\":");
	textbuf_json_cstr(b, dra_kind_name(k));
	if (ns != NULL) {
		textbuf_adds(b, ",\"namespace\":");
		textbuf_json_cstr(b, ns);
	}
	textbuf_adds(b, ",\"name\":");
	textbuf_json_cstr(b, object_name(k, obj));
	textbuf_adds(b, ",\"version\":");
	textbuf_json_cstr(b, dra_object_version(obj));
}

/* The draObject record of obj, unless the file holds it. */
static bool put_object(struct decision_file *f, struct decision_dra_bufs *bufs, enum dra_kind k,
		       const void *obj)
{
	const char *ns = object_ns(k, obj);
	char *json;

	textbuf_reset(&bufs->key);
	textbuf_printf(&bufs->key, "dra %s %s/%s %s", dra_kind_name(k), ns ? ns : "", object_name(k, obj),
		       dra_object_version(obj));
	if (too_large(&bufs->key, "dra object"))
		return false;
	if (decision_file_holds(f, textbuf_str(&bufs->key)))
		return true;
	json = k == DRA_KIND_SLICE ? dra_slice_to_json(obj)
	       : k == DRA_KIND_CLASS ? dra_class_to_json(obj)
				     : dra_claim_to_json(obj);
	textbuf_reset(&bufs->line);
	textbuf_adds(&bufs->line, "{\"type\":\"draObject\",");
	add_ref(&bufs->line, k, obj);
	textbuf_adds(&bufs->line, ",\"object\":");
	textbuf_adds(&bufs->line, json);
	textbuf_addc(&bufs->line, '}');
	free(json);
	if (too_large(&bufs->line, "dra object"))
		return false;
	decision_file_support(f, textbuf_str(&bufs->line), textbuf_len(&bufs->line),
			      textbuf_str(&bufs->key));
	return true;
}

/* ---- one node's state ---------------------------------------------------- */

/* Whether a slice without a node reaches node (labels unknown, as the
 * request's node has none: a slice that selects by label reaches none). */
static bool reaches(const struct dra_slice *s, const struct sched_node *node)
{
	size_t i;

	if (s->selection != DRA_PER_DEVICE)
		return dra_selection_matches(s->selection, s->node_name, &s->node_selector, node);
	for (i = 0; i < s->ndevices; i++)
		if (dra_selection_matches(s->devices[i].selection, s->devices[i].node_name,
					  &s->devices[i].node_selector, node))
			return true;
	return false;
}

struct node_state {
	const struct dra_slice **v;
	size_t n, cap;
	struct strmap seen;   /* slice name -> slice */
};

static void state_add(struct node_state *st, const struct dra_slice *s)
{
	if (strmap_get(&st->seen, s->name) != NULL)
		return;
	strmap_put(&st->seen, s->name, (void *)(uintptr_t)s);
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 8;
		st->v = xreallocarray(st->v, st->cap, sizeof *st->v);
	}
	st->v[st->n++] = s;
}

static bool same_pool(const struct dra_slice *a, const char *driver, const char *pool)
{
	return strcmp(a->driver, driver) == 0 && strcmp(a->pool, pool) == 0;
}

static int pool_cmp(const char *d1, const char *p1, const char *d2, const char *p2)
{
	int c = strcmp(d1, d2);

	return c ? c : strcmp(p1, p2);
}

/* The first allocated device of a pool (or where it would be). */
static size_t alloc_lower(const struct dra_snapshot *s, const char *driver, const char *pool)
{
	size_t lo = 0, hi = s->nallocated;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pool_cmp(s->allocated[mid].driver, s->allocated[mid].pool, driver, pool) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The slices node's prediction reads: its own, those without a node that
 * reach it and, for a pool of theirs the node does not see whole at its
 * newest generation, the pool's slices elsewhere (the allocator counts
 * them to tell an incomplete pool from one being replaced). */
static void gather(const struct dra_snapshot *snap, const char *node, struct node_state *st)
{
	const struct dra_node_slices *own = dra_snapshot_node(snap, node);
	struct sched_node view;
	size_t i, k, nvisible;

	memset(&view, 0, sizeof view);
	view.name = (char *)(uintptr_t)node;
	for (i = 0; own != NULL && i < own->nslices; i++)
		state_add(st, own->slices[i]);
	for (i = 0; i < snap->nshared; i++)
		if (reaches(snap->shared[i], &view))
			state_add(st, snap->shared[i]);
	nvisible = st->n;
	for (i = 0; i < nvisible; i++) {
		const struct dra_slice *s = st->v[i];
		size_t seen = 0;

		for (k = 0; k < nvisible; k++)
			seen += same_pool(st->v[k], s->driver, s->pool) && st->v[k]->generation == s->generation;
		if ((int64_t)seen == s->slice_count)
			continue;
		for (k = 0; k < snap->index->nslices; k++)
			if (same_pool(snap->index->slices[k], s->driver, s->pool))
				state_add(st, snap->index->slices[k]);
	}
}

/* "slices":[...],"allocated":[...] of a node's state into b. */
static void state_text(const struct dra_snapshot *snap, const struct node_state *st,
		       struct textbuf *b)
{
	bool first = true;
	size_t i, k;

	textbuf_adds(b, "\"slices\":[");
	for (i = 0; i < st->n; i++) {
		textbuf_adds(b, i ? ",{\"name\":" : "{\"name\":");
		textbuf_json_cstr(b, st->v[i]->name);
		textbuf_adds(b, ",\"version\":");
		textbuf_json_cstr(b, dra_object_version(st->v[i]));
		textbuf_addc(b, '}');
	}
	textbuf_adds(b, "],\"allocated\":[");
	for (i = 0; i < st->n; i++) {
		const struct dra_slice *s = st->v[i];

		/* Each pool once. */
		for (k = 0; k < i && !same_pool(st->v[k], s->driver, s->pool); k++)
			;
		if (k < i)
			continue;
		for (k = alloc_lower(snap, s->driver, s->pool);
		     k < snap->nallocated && same_pool(s, snap->allocated[k].driver, snap->allocated[k].pool);
		     k++) {
			textbuf_adds(b, first ? "{\"driver\":" : ",{\"driver\":");
			textbuf_json_cstr(b, snap->allocated[k].driver);
			textbuf_adds(b, ",\"pool\":");
			textbuf_json_cstr(b, snap->allocated[k].pool);
			textbuf_adds(b, ",\"device\":");
			textbuf_json_cstr(b, snap->allocated[k].device);
			textbuf_addc(b, '}');
			first = false;
		}
	}
	textbuf_addc(b, ']');
}

/* The draNode record of node's state, and the draObject records of its
 * slices, unless the file holds them; its id into id. A node with slices
 * of its own is named by its DRA version (it moves whenever anything the
 * node's prediction reads does); a node without is named by a hash of its
 * state, so the nodes that only slices without a node reach (most of a
 * cluster, often reached by none) share one record whatever the snapshot
 * version. */
static bool put_node(struct decision_file *f, const struct dra_snapshot *snap, const char *node,
		     struct decision_dra_bufs *bufs, char *id, size_t idsize)
{
	const struct dra_node_slices *own = dra_snapshot_node(snap, node);
	struct node_state st;
	bool ok = true;
	size_t i;

	if (own != NULL) {
		snprintf(id, idsize, "%s/%llu", node, (unsigned long long)own->version);
		textbuf_reset(&bufs->key);
		textbuf_printf(&bufs->key, "draNode %s", id);
		if (too_large(&bufs->key, "dra node"))
			return false;
		if (decision_file_holds(f, textbuf_str(&bufs->key)))
			return true;
	}
	memset(&st, 0, sizeof st);
	gather(snap, node, &st);
	textbuf_reset(&bufs->state);
	state_text(snap, &st, &bufs->state);
	ok = !too_large(&bufs->state, "dra node");
	if (ok && own == NULL) {
		snprintf(id, idsize, "shared/%016llx",
			 (unsigned long long)hash_bytes(textbuf_str(&bufs->state), textbuf_len(&bufs->state)));
		textbuf_reset(&bufs->key);
		textbuf_printf(&bufs->key, "draNode %s", id);
		if (decision_file_holds(f, textbuf_str(&bufs->key)))
			goto out;
	}
	for (i = 0; i < st.n && ok; i++)
		ok = put_object(f, bufs, DRA_KIND_SLICE, st.v[i]);
	if (ok) {
		textbuf_reset(&bufs->line);
		textbuf_adds(&bufs->line, "{\"type\":\"draNode\",\"id\":");
		textbuf_json_cstr(&bufs->line, id);
		textbuf_addc(&bufs->line, ',');
		textbuf_add(&bufs->line, textbuf_str(&bufs->state), textbuf_len(&bufs->state));
		textbuf_addc(&bufs->line, '}');
		ok = !too_large(&bufs->line, "dra node");
	}
	if (ok) {
		/* The slices' records used the key. */
		textbuf_reset(&bufs->key);
		textbuf_printf(&bufs->key, "draNode %s", id);
		decision_file_support(f, textbuf_str(&bufs->line), textbuf_len(&bufs->line),
				      textbuf_str(&bufs->key));
	}
out:
	strmap_clear(&st.seen);
	free(st.v);
	return ok;
}

bool decision_dra_put(struct decision_file *f, const struct decision_dra *d,
		      const char *const *nodes, const bool *has_inventory, size_t n,
		      struct decision_dra_bufs *bufs, struct textbuf *member)
{
	char id[DRA_NODE_ID_MAX];
	size_t i;

	for (i = 0; i < d->nobjects; i++)
		if (!put_object(f, bufs, d->kinds[i], d->objects[i]))
			return false;
	textbuf_adds(member, ",\"dra\":{\"alignment\":");
	textbuf_json_cstr(member, d->settings[0]);
	textbuf_adds(member, ",\"unknownNUMA\":");
	textbuf_json_cstr(member, d->settings[1]);
	textbuf_adds(member, ",\"allocatorOrder\":");
	textbuf_json_cstr(member, d->settings[2]);
	textbuf_adds(member, ",\"pod\":");
	textbuf_adds(member, d->pod_json);
	textbuf_adds(member, ",\"objects\":[");
	for (i = 0; i < d->nobjects; i++) {
		textbuf_adds(member, i ? ",{" : "{");
		add_ref(member, d->kinds[i], d->objects[i]);
		textbuf_addc(member, '}');
	}
	textbuf_adds(member, "],\"nodes\":[");
	for (i = 0; i < n; i++) {
		if (i)
			textbuf_addc(member, ',');
		if (!has_inventory[i]) {
			textbuf_adds(member, "\"\"");
			continue;
		}
		if (!put_node(f, d->snap, nodes[i], bufs, id, sizeof id))
			return false;
		textbuf_json_cstr(member, id);
	}
	textbuf_adds(member, "]}");
	return true;
}
