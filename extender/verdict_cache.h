/* SPDX-License-Identifier: Apache-2.0 */
/* Filter outcomes remembered across requests: pods of one workload share a
 * demand, and kube-scheduler asks about each of them in turn. An entry is
 * keyed by the node snapshot's id, the settings value's id and the demand
 * (pod_demand_key, interned), so any change of inventory, config or request
 * misses and a hit is exactly what the judge would answer. Fixed size,
 * lock-striped; thread-safe. */
#ifndef EXTENDER_VERDICT_CACHE_H
#define EXTENDER_VERDICT_CACHE_H

#include <stdbool.h>
#include <stdint.h>

struct verdict_entry {
	unsigned char outcome;    /* enum wire_outcome */
	const char *reason;       /* interned, never freed; "" when passing */
	const char *kubelet_reason; /* verdict_reason_name, for metrics */
	int64_t score;
	uint64_t numa_ids;
};

/* The id of a demand key (0: the table of keys is full, do not cache). */
uint64_t verdict_cache_demand(const char *key);
bool verdict_cache_get(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       struct verdict_entry *out);
/* Copies e (interning its reason). */
void verdict_cache_put(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       const struct verdict_entry *e);

#endif
