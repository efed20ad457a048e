/* SPDX-License-Identifier: Apache-2.0 */
/* The views a DRA snapshot derives from its objects, and the lookups in
 * them. The slice view (slices by node, slices without a node, pools) is
 * rebuilt only when a slice changed, the allocated devices only when a
 * claim did; each node's version is recomputed on every publish from a
 * hash of what that node's prediction reads, so it moves only when that
 * does. */
#include "extender/inventory/dra_store_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"
#include "extender/codec/dra_fields.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t pair[2] = { h, v };

	return hash_bytes(pair, sizeof pair);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return mix(h, hash_str(s));
}

/* ---- the slice view ------------------------------------------------------ */

static int pool_cmp(const char *d1, const char *p1, const char *d2, const char *p2)
{
	int c = strcmp(d1, d2);

	return c ? c : strcmp(p1, p2);
}

/* By node, then as the allocator walks a node's slices. */
static int by_node(const void *a, const void *b)
{
	const struct dra_slice *x = *(const struct dra_slice *const *)a;
	const struct dra_slice *y = *(const struct dra_slice *const *)b;
	int c = strcmp(x->node_name, y->node_name);

	if (c == 0)
		c = pool_cmp(x->driver, x->pool, y->driver, y->pool);
	return c ? c : strcmp(x->name, y->name);
}

/* By pool, the newest generation first. */
static int by_pool(const void *a, const void *b)
{
	const struct dra_slice *x = *(const struct dra_slice *const *)a;
	const struct dra_slice *y = *(const struct dra_slice *const *)b;
	int c = pool_cmp(x->driver, x->pool, y->driver, y->pool);

	if (c == 0)
		c = x->generation > y->generation ? -1 : x->generation < y->generation;
	return c ? c : strcmp(x->name, y->name);
}

/* The pool of the slices s[0..n) (sorted by_pool), of which the first ones
 * have the highest generation. */
static void pool_of(const struct dra_slice *const *s, size_t n, struct dra_store_pool *p)
{
	const char **names;
	size_t i, k, ndev = 0, dup;

	p->driver = s[0]->driver;
	p->pool = s[0]->pool;
	p->generation = s[0]->generation;
	p->slice_count = s[0]->slice_count;
	for (p->nslices = 0; p->nslices < n && s[p->nslices]->generation == p->generation;)
		ndev += s[p->nslices++]->ndevices;
	names = xcalloc(ndev + 1, sizeof *names);
	for (i = 0, ndev = 0; i < p->nslices; i++)
		for (k = 0; k < s[i]->ndevices; k++)
			names[ndev++] = s[i]->devices[k].name;
	if (doc_find_duplicate(names, ndev, &dup))
		p->state = DRA_POOL_INVALID;
	else if ((int64_t)p->nslices != p->slice_count)
		p->state = DRA_POOL_INCOMPLETE;
	else
		p->state = DRA_POOL_COMPLETE;
	free(names);
}

static struct dra_slice_view *slice_view_build(struct dra_entry *const *e, size_t n)
{
	struct dra_slice_view *v = xcalloc(1, sizeof *v);
	const struct dra_slice **all = xcalloc(n + 1, sizeof *all);
	size_t i, nlocal = 0;

	atomic_init(&v->refs, 1);
	v->by_node = xcalloc(n + 1, sizeof *v->by_node);
	v->shared = xcalloc(n + 1, sizeof *v->shared);
	v->nodes = xcalloc(n + 1, sizeof *v->nodes);
	v->pools = xcalloc(n + 1, sizeof *v->pools);
	v->nslices = n;
	for (i = 0; i < n; i++) {
		const struct dra_slice *s = &e[i]->u.slice;

		all[i] = s;
		v->ndevices += s->ndevices;
		if (s->selection == DRA_NODE_NAME)
			v->by_node[nlocal++] = s;
		else
			v->shared[v->nshared++] = s; /* entries are in name order */
	}
	if (nlocal > 1)
		qsort(v->by_node, nlocal, sizeof *v->by_node, by_node);
	for (i = 0; i < nlocal; i++) {
		if (i == 0 || strcmp(v->by_node[i - 1]->node_name, v->by_node[i]->node_name) != 0) {
			v->nodes[v->nnodes].node = v->by_node[i]->node_name;
			v->nodes[v->nnodes++].slices = &v->by_node[i];
		}
		v->nodes[v->nnodes - 1].nslices++;
	}
	{
		size_t bytes = 0, at = 0, len;

		for (i = 0; i < v->nnodes; i++)
			bytes += strlen(v->nodes[i].node) + 1;
		v->node_names = xmalloc(bytes + 1);
		for (i = 0; i < v->nnodes; i++) {
			len = strlen(v->nodes[i].node) + 1;
			memcpy(v->node_names + at, v->nodes[i].node, len);
			strmap_put(&v->node_at, v->node_names + at, (void *)(uintptr_t)(i + 1));
			at += len;
		}
	}
	/* The allocator's view of the same slices, for each node's pools. */
	v->all = xcalloc(n + 1, sizeof *v->all);
	memcpy(v->all, all, n * sizeof *all);
	dra_slice_index_build(&v->index, v->all, n);
	if (n > 1)
		qsort(all, n, sizeof *all, by_pool);
	for (i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && pool_cmp(all[i]->driver, all[i]->pool, all[j]->driver, all[j]->pool) == 0)
			j++;
		pool_of(&all[i], j - i, &v->pools[v->npools++]);
		i = j;
	}
	free(all);
	return v;
}

static void slice_view_unref(struct dra_slice_view *v)
{
	if (v == NULL || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1)
		return;
	dra_slice_index_free(&v->index);
	strmap_clear(&v->node_at);
	free(v->node_names);
	free(v->all);
	free(v->nodes);
	free(v->by_node);
	free(v->shared);
	free(v->pools);
	free(v);
}

/* ---- the allocated devices ----------------------------------------------- */

static int ref_cmp(const void *a, const void *b)
{
	const struct dra_device_ref *x = a, *y = b;
	int c = pool_cmp(x->driver, x->pool, y->driver, y->pool);

	return c ? c : strcmp(x->device, y->device);
}

/* "driver\npool" into buf; false when it does not fit (no name holds a
 * newline: the API server refuses them). */
static bool pool_key(char *buf, size_t size, const char *driver, const char *pool)
{
	size_t d = strlen(driver), p = strlen(pool);

	if (d + p + 2 > size)
		return false;
	memcpy(buf, driver, d);
	buf[d] = '\n';
	memcpy(buf + d + 1, pool, p + 1);
	return true;
}

/* A driver name, the newline, a pool name (the decoders' limits: 63 and
 * 253 characters), the NUL. */
#define POOL_KEY_MAX (DRA_MAX_DRIVER + 1 + DRA_MAX_POOL + 1)

/* The runs of v's sorted devices, one per pool, keyed side by side in
 * run_keys. */
static void pool_runs(struct dra_alloc_view *v)
{
	size_t i, j, bytes = 0, at = 0;

	v->runs = xcalloc(v->n + 1, sizeof *v->runs);
	for (i = 0; i < v->n; i++)
		bytes += strlen(v->v[i].driver) + strlen(v->v[i].pool) + 2;
	v->run_keys = xmalloc(bytes + 1);
	for (i = 0; i < v->n; i = j) {
		for (j = i + 1; j < v->n && pool_cmp(v->v[i].driver, v->v[i].pool, v->v[j].driver,
						      v->v[j].pool) == 0; j++)
			;
		if (!pool_key(v->run_keys + at, bytes + 1 - at, v->v[i].driver, v->v[i].pool))
			continue;
		v->runs[v->nruns].at = i;
		v->runs[v->nruns].n = j - i;
		strmap_put(&v->by_pool, v->run_keys + at, &v->runs[v->nruns]);
		at += strlen(v->run_keys + at) + 1;
		v->nruns++;
	}
}

static struct dra_alloc_view *alloc_view_build(struct dra_entry *const *e, size_t n)
{
	struct dra_alloc_view *v = xcalloc(1, sizeof *v);
	size_t i, k, total = 0, out = 0;

	atomic_init(&v->refs, 1);
	for (i = 0; i < n; i++)
		total += e[i]->u.claim.allocated ? e[i]->u.claim.nresults : 0;
	v->v = xcalloc(total + 1, sizeof *v->v);
	for (i = 0; i < n; i++) {
		const struct dra_claim *c = &e[i]->u.claim;

		for (k = 0; c->allocated && k < c->nresults; k++) {
			const struct dra_result *r = &c->results[k];

			/* Admin access does not take the device; a share of
			 * one (consumable capacity) leaves room for others. */
			if (r->admin_access || r->share_id != NULL)
				continue;
			v->v[v->n++] = (struct dra_device_ref){ r->driver, r->pool, r->device };
		}
	}
	if (v->n > 1)
		qsort(v->v, v->n, sizeof *v->v, ref_cmp);
	for (i = 0; i < v->n; i++)
		if (out == 0 || ref_cmp(&v->v[out - 1], &v->v[i]) != 0)
			v->v[out++] = v->v[i];
	v->n = out;
	pool_runs(v);
	return v;
}

static void alloc_view_unref(struct dra_alloc_view *v)
{
	if (v == NULL || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1)
		return;
	strmap_clear(&v->by_pool);
	free(v->run_keys);
	free(v->runs);
	free(v->v);
	free(v);
}

/* ---- versions ------------------------------------------------------------ */

/* The first allocated device of a pool (or where it would be). */
static size_t alloc_lower(const struct dra_snapshot *s, const char *driver, const char *pool)
{
	size_t lo = 0, hi = s->nallocated;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dra_device_ref *r = &s->allocated[mid];

		if (pool_cmp(r->driver, r->pool, driver, pool) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A slice's identity, its pool's state and the devices allocated in it. */
static uint64_t mix_slice(uint64_t h, const struct dra_snapshot *s, const struct dra_slice *slice)
{
	const struct dra_store_pool *p = dra_snapshot_pool(s, slice->driver, slice->pool);
	size_t i;

	h = mix_str(mix_str(h, dra_object_version(slice)), slice->name);
	if (p != NULL)
		h = mix(mix(mix(h, (uint64_t)p->generation), p->nslices), p->state);
	for (i = alloc_lower(s, slice->driver, slice->pool);
	     i < s->nallocated && pool_cmp(s->allocated[i].driver, s->allocated[i].pool, slice->driver,
					   slice->pool) == 0;
	     i++)
		h = mix_str(h, s->allocated[i].device);
	return h;
}

static uint64_t global_hash(const struct dra_snap *snap)
{
	const struct dra_snapshot *s = &snap->pub;
	uint64_t h = 0x6472612d76696577ULL;
	size_t i;

	for (i = 0; i < s->nclasses; i++)
		h = mix_str(mix_str(h, s->classes[i]->name), dra_object_version(s->classes[i]));
	for (i = 0; i < s->nshared; i++)
		h = mix_slice(h, s, s->shared[i]);
	return h;
}

/* Node i's hash, and its version: prev's (node was) when the hash is the
 * same, else this snapshot's. */
static void node_version(struct dra_snap *snap, const struct dra_snap *prev, size_t i,
			 const struct dra_node_slices *was)
{
	const struct dra_snapshot *s = &snap->pub;
	const struct dra_node_slices *n = &snap->nodes[i];
	uint64_t h = snap->global_hash;
	size_t k;

	for (k = 0; k < n->nslices; k++)
		h = mix_slice(h, s, n->slices[k]);
	snap->node_hash[i] = h;
	snap->nodes[i].version = s->version;
	if (was != NULL && prev->node_hash[was - prev->nodes] == h)
		snap->nodes[i].version = was->version;
}

/* The pools whose allocated devices differ between a and b (sorted), into
 * *out (borrowed strings); how many. */
static size_t changed_pools(const struct dra_alloc_view *a, const struct dra_alloc_view *b,
			    struct dra_device_ref **out)
{
	size_t i = 0, j = 0, n = 0;

	*out = xcalloc(a->n + b->n + 1, sizeof **out);
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : ref_cmp(&a->v[i], &b->v[j]);
		const struct dra_device_ref *r = c < 0 ? &a->v[i] : &b->v[j];

		if (c != 0 && (n == 0 || pool_cmp((*out)[n - 1].driver, (*out)[n - 1].pool, r->driver,
						  r->pool) != 0))
			(*out)[n++] = *r;
		i += c <= 0;
		j += c >= 0;
	}
	return n;
}

static bool in_pools(const struct dra_device_ref *pools, size_t n, const struct dra_slice *slice)
{
	struct dra_device_ref want = { slice->driver, slice->pool, "" };
	size_t i;

	for (i = 0; i < n; i++)
		if (pool_cmp(pools[i].driver, pools[i].pool, want.driver, want.pool) == 0)
			return true;
	return false;
}

/* Every node's version. Only the claims changed (the slice view is prev's,
 * so the nodes are in the same order): the nodes with a slice in a pool
 * whose allocated devices changed are hashed again, the others keep prev's
 * hash and version; a change in a pool of the slices without a node is
 * everyone's. Anything else: every node is hashed again. */
static void node_versions(struct dra_snap *snap, const struct dra_snap *prev, bool only_claims)
{
	const struct dra_snapshot *s = &snap->pub;
	struct dra_device_ref *pools = NULL;
	size_t i, k, npools = 0;
	bool all = prev == NULL || !only_claims || prev->slices != snap->slices;

	if (!all) {
		npools = changed_pools(prev->alloc, snap->alloc, &pools);
		for (i = 0; i < s->nshared && !all; i++)
			all = in_pools(pools, npools, s->shared[i]);
	}
	snap->global_hash = all ? global_hash(snap) : prev->global_hash;
	for (i = 0; i < s->nnodes; i++) {
		const struct dra_node_slices *n = &snap->nodes[i];
		bool touched = all;

		for (k = 0; k < n->nslices && !touched; k++)
			touched = in_pools(pools, npools, n->slices[k]);
		if (touched) {
			node_version(snap, prev, i, prev ? dra_snapshot_node(&prev->pub, n->node) : NULL);
		} else {
			snap->node_hash[i] = prev->node_hash[i];
			snap->nodes[i].version = prev->nodes[i].version;
		}
	}
	free(pools);
}

void dra_views_build(struct dra_snap *snap, const struct dra_snap *prev, bool share_slices,
		     bool share_alloc, bool only_claims)
{
	struct dra_snapshot *s = &snap->pub;
	struct dra_slice_view *v;

	if (share_slices && prev != NULL) {
		snap->slices = prev->slices;
		atomic_fetch_add(&snap->slices->refs, 1);
	} else {
		snap->slices = slice_view_build(snap->kinds[DRA_KIND_SLICE], snap->nkinds[DRA_KIND_SLICE]);
	}
	if (share_alloc && prev != NULL) {
		snap->alloc = prev->alloc;
		atomic_fetch_add(&snap->alloc->refs, 1);
	} else {
		snap->alloc = alloc_view_build(snap->kinds[DRA_KIND_CLAIM], snap->nkinds[DRA_KIND_CLAIM]);
	}
	v = snap->slices;
	snap->nodes = xcalloc(v->nnodes + 1, sizeof *snap->nodes);
	memcpy(snap->nodes, v->nodes, v->nnodes * sizeof *snap->nodes);
	snap->node_hash = xcalloc(v->nnodes + 1, sizeof *snap->node_hash);
	s->nodes = snap->nodes;
	s->nnodes = v->nnodes;
	s->shared = v->shared;
	s->nshared = v->nshared;
	s->pools = v->pools;
	s->npools = v->npools;
	s->nslices = v->nslices;
	s->ndevices = v->ndevices;
	s->index = &v->index;
	s->allocated = snap->alloc->v;
	s->nallocated = snap->alloc->n;
	node_versions(snap, prev, only_claims);
}

void dra_views_release(struct dra_snap *snap)
{
	slice_view_unref(snap->slices);
	alloc_view_unref(snap->alloc);
	free(snap->nodes);
	free(snap->node_hash);
}

/* ---- lookups ------------------------------------------------------------- */

static int node_key_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct dra_node_slices *)elem)->node);
}

static int entry_key_cmp(const void *key, const void *elem)
{
	return strcmp(key, (*(struct dra_entry *const *)elem)->key);
}

static int pool_key_cmp(const void *key, const void *elem)
{
	const struct dra_store_pool *k = key, *p = elem;

	return pool_cmp(k->driver, k->pool, p->driver, p->pool);
}

const struct dra_node_slices *dra_snapshot_node(const struct dra_snapshot *snap, const char *node)
{
	const struct dra_snap *in = (const struct dra_snap *)snap;
	uintptr_t at;

	if (in->slices != NULL) {
		at = (uintptr_t)strmap_get(&in->slices->node_at, node);
		return at != 0 && at <= snap->nnodes ? &snap->nodes[at - 1] : NULL;
	}
	return bsearch(node, snap->nodes, snap->nnodes, sizeof *snap->nodes, node_key_cmp);
}

static const void *find_entry(const struct dra_snapshot *snap, enum dra_kind k, const char *ns,
			      const char *name)
{
	const struct dra_snap *in = (const struct dra_snap *)snap;
	struct dra_entry *const *e;
	char key[DRA_KEY_MAX];

	/* The empty snapshot has no arrays, and bsearch wants one. */
	if (in->nkinds[k] == 0)
		return NULL;
	dra_key(key, sizeof key, ns, name);
	e = bsearch(key, in->kinds[k], in->nkinds[k], sizeof *in->kinds[k], entry_key_cmp);
	return e ? &(*e)->u : NULL;
}

const struct dra_class *dra_snapshot_class(const struct dra_snapshot *snap, const char *name)
{
	return find_entry(snap, DRA_KIND_CLASS, NULL, name);
}

const struct dra_claim *dra_snapshot_claim(const struct dra_snapshot *snap, const char *ns,
					   const char *name)
{
	return find_entry(snap, DRA_KIND_CLAIM, ns, name);
}

const struct dra_claim *dra_snapshot_template(const struct dra_snapshot *snap, const char *ns,
					      const char *name)
{
	return find_entry(snap, DRA_KIND_TEMPLATE, ns, name);
}

const struct dra_store_pool *dra_snapshot_pool(const struct dra_snapshot *snap, const char *driver,
					 const char *pool)
{
	struct dra_store_pool want = { .driver = driver, .pool = pool };

	return bsearch(&want, snap->pools, snap->npools, sizeof *snap->pools, pool_key_cmp);
}

bool dra_snapshot_allocated(const struct dra_snapshot *snap, const char *driver, const char *pool,
			    const char *device)
{
	const struct dra_snap *in = (const struct dra_snap *)snap;
	struct dra_device_ref want = { driver, pool, device };
	char key[POOL_KEY_MAX];

	if (in->alloc != NULL && pool_key(key, sizeof key, driver, pool)) {
		const struct dra_pool_run *r = strmap_get(&in->alloc->by_pool, key);

		return r != NULL && bsearch(&want, snap->allocated + r->at, r->n, sizeof want, ref_cmp) != NULL;
	}
	return bsearch(&want, snap->allocated, snap->nallocated, sizeof want, ref_cmp) != NULL;
}
