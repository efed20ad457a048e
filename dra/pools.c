/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/pools.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/xalloc.h"
#include "scheduler/match.h"

static void list_push(struct dra_slice_list *l, size_t i)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->idx = xreallocarray(l->idx, l->cap, sizeof *l->idx);
	}
	l->idx[l->n++] = i;
}

static bool has_node_name(const struct dra_slice *s)
{
	return s->selection == DRA_NODE_NAME && s->node_name != NULL && s->node_name[0] != '\0';
}

void dra_slice_index_build(struct dra_slice_index *ix, const struct dra_slice *const *slices,
			   size_t n)
{
	size_t i, cap = 0;

	memset(ix, 0, sizeof *ix);
	ix->slices = slices;
	ix->nslices = n;
	for (i = 0; i < n; i++) {
		const struct dra_slice *s = slices[i];
		uintptr_t at;

		/* Decoders refuse such a slice; one that slips through is not
		 * published rather than a crash. */
		if (s->name == NULL || s->driver == NULL || s->pool == NULL)
			continue;
		if (!has_node_name(s)) {
			list_push(&ix->shared, i);
			continue;
		}
		at = (uintptr_t)strmap_get(&ix->by_node, s->node_name);
		if (at == 0) {
			if (ix->nlists == cap) {
				cap = cap ? 2 * cap : 16;
				ix->lists = xreallocarray(ix->lists, cap, sizeof *ix->lists);
			}
			memset(&ix->lists[ix->nlists], 0, sizeof *ix->lists);
			at = ++ix->nlists;
			strmap_put(&ix->by_node, s->node_name, (void *)at);
		}
		list_push(&ix->lists[at - 1], i);
	}
}

void dra_slice_index_free(struct dra_slice_index *ix)
{
	size_t i;

	strmap_clear(&ix->by_node);
	for (i = 0; i < ix->nlists; i++)
		free(ix->lists[i].idx);
	free(ix->lists);
	free(ix->shared.idx);
	memset(ix, 0, sizeof *ix);
}

bool dra_selection_matches(enum dra_node_selection sel, const char *node_name,
			   const struct sched_term *selector, const struct sched_node *node)
{
	switch (sel) {
	case DRA_NODE_NAME:
		return node_name != NULL && node_name[0] != '\0' && strcmp(node_name, node->name) == 0;
	case DRA_ALL_NODES:
		return true;
	case DRA_NODE_SELECTOR:
		return sched_term_matches(selector, node);
	case DRA_PER_DEVICE:
		return false;
	}
	return false;
}

static bool slice_relevant(const struct dra_slice *s, const struct sched_node *node)
{
	size_t i;

	if (s->selection != DRA_PER_DEVICE)
		return dra_selection_matches(s->selection, s->node_name, &s->node_selector, node);
	for (i = 0; i < s->ndevices; i++) {
		const struct dra_device *d = &s->devices[i];

		if (dra_selection_matches(d->selection, d->node_name, &d->node_selector, node))
			return true;
	}
	return false;
}

/* A relevant slice and where it came in the scheduler's input (the node's
 * own slices, then the shared ones): the first slice of the newest
 * generation gives the pool's resourceSliceCount. */
struct cand {
	const struct dra_slice *s;
	size_t order;
};

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = strcmp(a->s->driver, b->s->driver);

	if (c == 0)
		c = strcmp(a->s->pool, b->s->pool);
	if (c != 0)
		return c;
	if (a->s->generation != b->s->generation)
		return a->s->generation > b->s->generation ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_slice_name(const void *pa, const void *pb)
{
	const struct dra_slice *const *a = pa, *const *b = pb;

	return strcmp((*a)->name, (*b)->name);
}

static bool same_pool(const struct dra_slice *a, const struct dra_slice *b)
{
	return strcmp(a->driver, b->driver) == 0 && strcmp(a->pool, b->pool) == 0;
}

/* checkSlicesInPool: false when a newer generation of the pool exists
 * anywhere; *count gets how many slices of this generation exist. */
static bool pool_current(const struct dra_slice_index *ix, const struct dra_slice *first,
			 size_t *count)
{
	size_t i;

	*count = 0;
	for (i = 0; i < ix->nslices; i++) {
		const struct dra_slice *s = ix->slices[i];

		if (!same_pool(s, first))
			continue;
		if (s->generation > first->generation)
			return false;
		if (s->generation == first->generation)
			(*count)++;
	}
	return true;
}

/* The first device name that occurs twice in the pool's slices, or NULL.
 * Most pools are one slice of a few devices: those are compared pairwise,
 * without a table to allocate for each node, or answered by the slice
 * itself when the store checked it. */
static const char *duplicate_device(const struct dra_pool *p)
{
	struct strmap seen = { NULL, 0, 0 };
	const char *dup = NULL;
	size_t i, k, total = 0;

	if (p->nslices == 1 && p->slices[0]->dup_checked)
		return p->slices[0]->dup_name;
	for (i = 0; i < p->nslices; i++)
		total += p->slices[i]->ndevices;
	if (p->nslices == 1 && total <= 32) {
		const struct dra_device *d = p->slices[0]->devices;

		for (i = 0; i < total; i++)
			for (k = 0; k < i && d[i].name != NULL; k++)
				if (d[k].name != NULL && strcmp(d[i].name, d[k].name) == 0)
					return d[i].name;
		return NULL;
	}
	for (i = 0; i < p->nslices && dup == NULL; i++)
		for (k = 0; k < p->slices[i]->ndevices && dup == NULL; k++) {
			const char *name = p->slices[i]->devices[k].name;

			if (name == NULL)
				continue;
			if (strmap_get(&seen, name) != NULL)
				dup = name;
			else
				strmap_put(&seen, name, &seen); /* any non-NULL value */
		}
	strmap_clear(&seen);
	return dup;
}

/* Fills p from the run of relevant slices of its newest generation. */
void dra_slice_check_duplicates(struct dra_slice *s)
{
	struct dra_pool one;
	const struct dra_slice *only = s;

	memset(&one, 0, sizeof one);
	one.slices = &only;
	one.nslices = 1;
	s->dup_checked = false;
	s->dup_name = duplicate_device(&one);
	s->dup_checked = true;
}

static void pool_build(struct dra_pool *p, const struct cand *run, size_t nrun,
		       const struct dra_slice **buf)
{
	size_t i, k;

	p->driver = run[0].s->driver;
	p->name = run[0].s->pool;
	p->generation = run[0].s->generation;
	p->slices = buf;
	for (i = 0; i < nrun; i++) {
		const struct dra_slice *s = run[i].s;

		/* A slice of counter sets holds no allocatable device. */
		if (s->shared_counters) {
			p->counters = true;
			continue;
		}
		buf[p->nslices++] = s;
		for (k = 0; k < s->ndevices; k++) {
			p->counters |= s->devices[k].consumes_counters;
			p->binding_conditions |= s->devices[k].binding_conditions;
		}
	}
	qsort(buf, p->nslices, sizeof *buf, cmp_slice_name);
	if (p->state != DRA_POOL_COMPLETE) {
		/* Upstream drops an incomplete pool's devices, and with them what
		 * would put it last. */
		p->binding_conditions = false;
		return;
	}
	p->duplicate = duplicate_device(p);
	if (p->duplicate != NULL) {
		p->state = DRA_POOL_INVALID;
		p->binding_conditions = false;
	}
}

/* The pools, binding-condition pools moved after the others (each part
 * keeps its (driver, pool) order). */
static void binding_last(struct dra_pool *v, size_t n)
{
	struct dra_pool *tmp;
	size_t i, k = 0;

	for (i = 0; i < n && !v[i].binding_conditions; i++)
		;
	if (i == n)
		return;
	tmp = xcalloc(n, sizeof *tmp);
	for (i = 0; i < n; i++)
		if (!v[i].binding_conditions)
			tmp[k++] = v[i];
	for (i = 0; i < n; i++)
		if (v[i].binding_conditions)
			tmp[k++] = v[i];
	memcpy(v, tmp, n * sizeof *v);
	free(tmp);
}

/* own: l is the node's own list, whose slices name it by construction
 * (the index files a slice under its nodeName): nothing to compare. */
static size_t collect(struct cand *c, const struct dra_slice_index *ix,
		      const struct dra_slice_list *l, const struct sched_node *node, size_t n,
		      bool own)
{
	size_t i;

	for (i = 0; l != NULL && i < l->n; i++) {
		const struct dra_slice *s = ix->slices[l->idx[i]];

		if (own || slice_relevant(s, node)) {
			c[n].s = s;
			c[n].order = n;
			n++;
		}
	}
	return n;
}

/* n zeroed entries of size bytes, in arena when there is one. */
static void *table(struct arena *arena, size_t n, size_t size)
{
	/* xcalloc also stops the process on a product that overflows. */
	if (arena == NULL || n > SIZE_MAX / size)
		return xcalloc(n ? n : 1, size);
	return arena_alloc(arena, (n ? n : 1) * size);
}

void dra_node_pools_gather(struct dra_node_pools *out, const struct dra_slice_index *ix,
			   const struct sched_node *node)
{
	dra_node_pools_gather_in(out, ix, node, NULL);
}

void dra_node_pools_gather_in(struct dra_node_pools *out, const struct dra_slice_index *ix,
			      const struct sched_node *node, struct arena *arena)
{
	uintptr_t at = (uintptr_t)strmap_get(&ix->by_node, node->name);
	const struct dra_slice_list *own = at ? &ix->lists[at - 1] : NULL;
	size_t total = (own ? own->n : 0) + ix->shared.n, n, i, j;
	struct cand *c = table(arena, total, sizeof *c);

	memset(out, 0, sizeof *out);
	out->arena = arena;
	n = collect(c, ix, own, node, 0, true);
	n = collect(c, ix, &ix->shared, node, n, false);
	qsort(c, n, sizeof *c, cmp_cand);
	out->pools = table(arena, n, sizeof *out->pools);
	out->slice_buf = table(arena, n, sizeof *out->slice_buf);
	for (i = 0; i < n; i = j) {
		struct dra_pool *p = &out->pools[out->n];
		size_t run = 0, count = (size_t)0;

		for (j = i; j < n && same_pool(c[j].s, c[i].s); j++)
			if (c[j].s->generation == c[i].s->generation)
				run++;
		memset(p, 0, sizeof *p);
		if ((int64_t)run != c[i].s->slice_count) {
			if (!pool_current(ix, c[i].s, &count))
				continue; /* being replaced by a newer generation */
			if ((int64_t)count != c[i].s->slice_count)
				p->state = DRA_POOL_INCOMPLETE;
		}
		pool_build(p, &c[i], run, out->slice_buf + i);
		out->n++;
	}
	binding_last(out->pools, out->n);
	if (arena == NULL)
		free(c);
}

void dra_node_pools_free(struct dra_node_pools *p)
{
	if (p->arena == NULL) {
		free(p->pools);
		free(p->slice_buf);
	}
	memset(p, 0, sizeof *p);
}
