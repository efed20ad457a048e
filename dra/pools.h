/* SPDX-License-Identifier: Apache-2.0 */
/* The resource pools one node sees, as the scheduler's allocator gathers
 * them (k8s.io/dynamic-resource-allocation/structured/internal/incubating/
 * pools_incubating.go GatherPools): the slices published for the node by
 * name, plus those whose nodeSelector matches its labels, allNodes ones,
 * and perDeviceNodeSelection ones with at least one device for the node.
 * Per (driver, pool) only the highest generation among those counts. A pool
 * is complete when it has resourceSliceCount slices; when it does not, every
 * slice of the pool in the cluster is looked at: a newer generation
 * anywhere means the driver is replacing the pool and it is ignored, too
 * few slices of this generation leave it incomplete. Duplicate device names
 * make it invalid. Pools come sorted by (driver, pool name), those with a
 * device that has bindingConditions after all others; their slices by
 * metadata.name. Pure; borrows the slices it was given. */
#ifndef DRA_POOLS_H
#define DRA_POOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "dra/types.h"
#include "scheduler/node_view.h"

/* The cluster's slices indexed by nodeName, built once per set of slices
 * (upstream keeps the same split: slicesOnNode and slicesShared). */
struct dra_slice_list {
	size_t *idx;
	size_t n, cap;
};

struct dra_slice_index {
	const struct dra_slice *const *slices; /* borrowed, and what they point to */
	size_t nslices;
	struct strmap by_node;          /* nodeName -> list index + 1 */
	struct dra_slice_list *lists;
	size_t nlists;
	struct dra_slice_list shared;   /* slices without a nodeName */
};

void dra_slice_index_build(struct dra_slice_index *ix, const struct dra_slice *const *slices,
			   size_t n);
void dra_slice_index_free(struct dra_slice_index *ix);

enum dra_pool_state {
	DRA_POOL_COMPLETE,
	DRA_POOL_INCOMPLETE, /* skipped by ExactCount; mode All fails on it */
	DRA_POOL_INVALID,    /* the same */
};

struct dra_pool {
	const char *driver, *name;
	enum dra_pool_state state;
	int64_t generation;
	/* The pool's slices this node sees that hold devices, by name (kept for
	 * incomplete and invalid pools too: their devices still say where PCIe
	 * roots sit, though none is allocated from them). */
	const struct dra_slice **slices;
	size_t nslices;
	const char *duplicate;   /* INVALID: the device name seen twice */
	bool binding_conditions; /* a device has bindingConditions: sorted last */
	/* sharedCounters or consumesCounters in the pool (partitionable devices):
	 * the counters' validity and use are not modelled. */
	bool counters;
};

struct arena;

struct dra_node_pools {
	struct dra_pool *pools;
	size_t n;
	const struct dra_slice **slice_buf; /* storage of every pool's slices */
	struct arena *arena;                /* where the tables are, or NULL: malloc */
};

/* Whether a slice (or, with perDeviceNodeSelection, a device) selected this
 * way is available on node (NodeMatches upstream). */
bool dra_selection_matches(enum dra_node_selection sel, const char *node_name,
			   const struct sched_term *selector, const struct sched_node *node);

/* Keeps in s the first device name it holds twice (dup_checked), so that a
 * pool of that one slice need not compare its devices for every node; s's
 * devices must not change after. */
void dra_slice_check_duplicates(struct dra_slice *s);

void dra_node_pools_gather(struct dra_node_pools *out, const struct dra_slice_index *ix,
			   const struct sched_node *node);
/* The same with the tables in arena (the allocator's prediction: one per
 * node of a filter); dra_node_pools_free then frees nothing of them. */
void dra_node_pools_gather_in(struct dra_node_pools *out, const struct dra_slice_index *ix,
			      const struct sched_node *node, struct arena *arena);
void dra_node_pools_free(struct dra_node_pools *p);

#endif
