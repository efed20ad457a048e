/* SPDX-License-Identifier: Apache-2.0 */
/* What the two halves of the merge share, for them alone: merge.c (the
 * bitmap merge of maskset and singleton lists, and the policies) and
 * merge_search.c (the search over rule lists, any NUMA count up to 64, and
 * the kubelet's order of merged hints that both rank by). */
#ifndef TOPOLOGY_MERGE_INTERNAL_H
#define TOPOLOGY_MERGE_INTERNAL_H

#include "merge.h"

/* Whether ties in size are broken by distance (prefer-closest-numa-nodes;
 * never under single-numa-node). */
bool merge_use_closest(const struct merge_params *p);

/* kubelet NUMAInfo.Narrowest / Closest: true when a is fitter than b. */
bool merge_fitter(const struct merge_params *p, bitmask_t a, bitmask_t b);

/* The non-preferred ranking: exactly best_count bits first, then fewer (more
 * bits first), then more (fewer bits first); ties by fitness. True when a
 * ranks before b. */
bool merge_nonpreferred_before(const struct merge_params *p, int best_count, bitmask_t a,
			       bitmask_t b);

/* merge_best over lists of which at least one is a rule list. */
struct topo_hint merge_rules(const struct merge_params *p, const struct hint_list *lists,
			     size_t nlists);

/* The rule list offers no hint at all (not even a nil one). */
bool merge_rule_list_empty(const struct hint_list *l);

/* The rule list offers m as a preferred hint. */
bool merge_rule_has_pref(const struct hint_list *l, bitmask_t m);

#endif
