/* SPDX-License-Identifier: Apache-2.0 */
/* The Topology Manager merge and policies (kubelet policy.go HintMerger,
 * policy_best_effort.go, policy_restricted.go, policy_single_numa_node.go),
 * computed over sets of masks instead of the kubelet's cross product. Exact:
 * the kubelet's comparison is a total order, so its result is the best element
 * of the set of achievable merged hints, whatever the enumeration order.
 *  - preferred merged masks: masks M that every list offers as preferred (or
 *    answers with a preferred nil) — one AND of bitmaps per list;
 *  - otherwise every achievable AND of one hint per list, by subset-sum
 *    (zeta/Moebius) convolution over the 2^n masks;
 *  - single-numa-node: lists are reduced to preferred single-node hints, so
 *    the merge is an AND of n-bit sets. */
#ifndef TOPOLOGY_MERGE_H
#define TOPOLOGY_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "hint.h"
#include "inventory.h"

/* Search steps one merge of rule lists may take (a step: one candidate mask
 * or partial mask visited, or one assignment tried in an achievability
 * test). Enough for every realistic 64-NUMA node; past it the merge does not
 * answer (merge_stats.exhausted) and the judge says so. */
#define MERGE_DEFAULT_BUDGET 200000L

struct merge_stats {
	long steps;
	bool exhausted;          /* some search ran out of budget: no answer */
};

struct merge_params {
	int n;                   /* NUMA nodes (dense indices 0..n-1) */
	enum tm_policy policy;
	bool prefer_closest;     /* ignored by single-numa-node */
	const int64_t *distance; /* n*n row-major, or NULL (all 0) */
	long budget;             /* rule lists: search steps; 0: the default */
	struct merge_stats *stats; /* optional */
	bool preferred_only;     /* rule lists: skip the non-preferred search
				  * (the answer is then {all, not preferred}
				  * when nothing preferred merges) */
	bool search_only;        /* rule lists: never take the cross product of
				  * explicit hints instead of the search (tests
				  * hold the search itself to the kubelet's) */
};

/* kubelet HintMerger.Merge: the best merged hint; {all nodes, not preferred}
 * when no permutation survives. Lists must be non-empty-or-filtered as the
 * kubelet would pass them. Uses scratch for the non-preferred path. */
struct topo_hint merge_best(const struct merge_params *p, const struct hint_list *lists,
			    size_t nlists, struct arena *scratch);

/* The preferred half of the merge alone: true and *best when some
 * permutation merges to a preferred hint (then it is the merge's answer).
 * Needs only each list's preferred masks and nil flags. Maskset lists. */
bool merge_preferred(const struct merge_params *p, const struct hint_list *lists, size_t nlists,
		     struct arena *scratch, struct topo_hint *best);

/* The policy's Merge: single-numa-node filtering (maskset lists are reduced to
 * singleton form in place), the merge, single-numa-node's nil replacement, and
 * the admit decision (best-effort: always; restricted and single-numa-node:
 * preferred). Policy none is not a merge: callers never get here with it. */
struct topo_hint policy_merge(const struct merge_params *p, struct hint_list *lists,
			      size_t nlists, struct arena *scratch, bool *admit);

/* The fittest hint of one rule list (its family and extra masks) that
 * contains `within`: preferred first, then fewest bits, then smallest value
 * (memorymanager findBestHint). False when there is none or the search ran
 * out of budget (stats). */
bool merge_rule_best_hint(const struct merge_params *p, const struct hint_list *l,
			  bitmask_t within, struct topo_hint *out);

/* The fewest bits of a member of the family (0: none, or out of budget). */
int merge_fam_min_count(const struct merge_params *p, const struct hint_fam *f);

/* Some member of f has exactly k bits. */
bool merge_fam_has_size(const struct merge_params *p, const struct hint_fam *f, int k);

bool merge_fam_member(const struct hint_fam *f, bitmask_t m);

/* Sum of distance[i][j] over all ordered pairs of the mask (diagonal
 * included): the kubelet's average distance times count^2, which orders masks
 * of equal size exactly as the average does. */
int64_t merge_distance_sum(const struct merge_params *p, bitmask_t mask);

#endif
