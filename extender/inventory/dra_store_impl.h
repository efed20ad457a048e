/* SPDX-License-Identifier: Apache-2.0 */
/* What dra_store.c (objects, batches, publishing) and dra_view.c (the
 * views derived from them) share. Not for other callers. */
#ifndef EXTENDER_DRA_STORE_IMPL_H
#define EXTENDER_DRA_STORE_IMPL_H

#include <stdatomic.h>

#include "base/strmap.h"
#include "extender/inventory/dra_store.h"

/* One stored object, refcounted: the snapshots that hold it share it. The
 * object comes first, so that its address is the entry's. */
struct dra_entry {
	union {
		struct dra_slice slice;
		struct dra_class cls;
		struct dra_claim claim;
	} u;
	_Atomic int refs;
	enum dra_kind kind;
	char *key;       /* name, or namespace "\x01" name: sorts by namespace, then name */
	char *version;
	char *origin;
};

void dra_entry_ref(struct dra_entry *e);
void dra_entry_unref(struct dra_entry *e);

/* The key of (ns, name) into buf (ns NULL: cluster-scoped). */
void dra_key(char *buf, size_t size, const char *ns, const char *name);
#define DRA_KEY_MAX 320

/* What the slices give, shared by snapshots until the slices change. */
struct dra_slice_view {
	_Atomic int refs;
	struct dra_node_slices *nodes;       /* versions unset: see dra_snap */
	size_t nnodes;
	const struct dra_slice **by_node;    /* nodes[i].slices point into it */
	const struct dra_slice **shared;
	size_t nshared;
	struct dra_store_pool *pools;
	size_t npools;
	size_t nslices, ndevices;
	const struct dra_slice **all;        /* in name order: what index borrows */
	struct dra_slice_index index;
	/* Node name -> 1 + its place in nodes: a filter looks up every
	 * candidate's DRA version. The keys are copies side by side in
	 * node_names, not the slices' own strings spread over the heap: a
	 * lookup compares one, and the next is likely in cache already. */
	struct strmap node_at;
	char *node_names;
};

/* The allocated devices, shared until the claims change. */
struct dra_alloc_view {
	_Atomic int refs;
	struct dra_device_ref *v;
	size_t n;
	/* "driver\npool" -> its run of v (struct dra_pool_run): the
	 * allocator asks about every device of every node it predicts. */
	struct strmap by_pool;
	struct dra_pool_run *runs;
	char *run_keys;
	size_t nruns;
};

struct dra_pool_run {
	size_t at, n;
};

struct dra_snap {
	struct dra_snapshot pub;             /* first: its address is the snap's */
	_Atomic int refs;
	struct dra_entry **kinds[DRA_KIND_COUNT]; /* each sorted by key */
	size_t nkinds[DRA_KIND_COUNT];
	const void **typed[DRA_KIND_COUNT];  /* the objects, for pub's arrays */
	struct dra_slice_view *slices;
	struct dra_alloc_view *alloc;
	struct dra_node_slices *nodes;       /* slices->nodes with this snapshot's versions */
	uint64_t *node_hash;                 /* what each node's version stands for */
	uint64_t global_hash;                /* classes and slices without a node */
};

/* The views of snap's objects: its slice view (prev's when share_slices),
 * its allocated devices (prev's when share_alloc), and every node's version:
 * prev's where the node's hash did not change, snap->pub.version where it
 * did. only_claims: nothing but claims and templates changed, so only the
 * nodes of pools whose allocations changed need hashing again. prev may be
 * NULL. */
void dra_views_build(struct dra_snap *snap, const struct dra_snap *prev, bool share_slices,
		     bool share_alloc, bool only_claims);
void dra_views_release(struct dra_snap *snap);

#endif
