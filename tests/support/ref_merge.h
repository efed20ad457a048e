/* SPDX-License-Identifier: Apache-2.0 */
/* The reference merge: a straight port of the kubelet's cross-product merge
 * (policy.go: filterProvidersHints, iterateAllProviderTopologyHints,
 * mergePermutation, HintMerger.compare; policy_single_numa_node.go). Slow on
 * purpose; the fast merge in topology/merge.c must agree with it exactly. */
#ifndef TESTS_REF_MERGE_H
#define TESTS_REF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/hint.h"
#include "topology/inventory.h"

/* One provider's output: nil map, or resources each with nil / empty / hints. */
enum ref_list_kind { REF_LIST_NIL, REF_LIST_EMPTY, REF_LIST_HINTS };

struct ref_resource {
	enum ref_list_kind kind;
	struct topo_hint hints[8];
	size_t nhints;
};

struct ref_provider {
	bool nil_map;              /* nil or empty map: "no preference at all" */
	struct ref_resource resources[4];
	size_t nresources;
};

/* A flattened list (after filterProvidersHints). */
struct ref_list {
	struct topo_hint hints[8];
	size_t nhints;
};

size_t ref_flatten(const struct ref_provider *providers, size_t nproviders,
		   struct ref_list *out, size_t cap);

/* The policy's Merge (best-effort, restricted or single-numa-node). */
struct topo_hint ref_policy_merge(int n, enum tm_policy policy, bool prefer_closest,
				  const int64_t *distance, const struct ref_list *lists,
				  size_t nlists, bool *admit);

#endif
