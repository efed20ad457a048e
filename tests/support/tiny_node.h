/* SPDX-License-Identifier: Apache-2.0 */
/* Tiny nodes and pods for table tests of the core: a node of 1-4 NUMA
 * zones, each listing cpu, memory (GiB), hugepages-1Gi (pages) and
 * nvidia.com/gpu by {allocatable (= capacity), available}; and a pod from the
 * inside of its spec in YAML. No cmocka here (benchmarks link tests/support):
 * failures come back as NULL with msg set. */
#ifndef TESTS_TINY_NODE_H
#define TESTS_TINY_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "topology/demand.h"
#include "base/err.h"
#include "topology/inventory.h"
#include "topology/pod.h"

#define TINY_GI ((int64_t)1 << 30)
/* A pair {0, 0} leaves the resource out of the zone; TINY_ZERO lists it with 0. */
#define TINY_ZERO (-1)
#define TINY_GPU "nvidia.com/gpu"

struct tiny_zone {
	int64_t cpu[2];  /* capacity (= allocatable), available */
	int64_t mem[2];  /* GiB: allocatable (= capacity), available */
	int64_t hp[2];   /* hugepages-1Gi pages: allocatable, available */
	int64_t gpu[2];  /* devices: capacity (= allocatable), available */
};

/* policy NULL: best-effort; attr: one more attribute "name=value", or NULL. */
struct inventory_node *tiny_node(const char *policy, bool pod_scope, const char *attr, int n,
				 const struct tiny_zone *zones, struct errmsg *msg);
/* spec_inside: "containers: [...]" and the like; *spec is the caller's to clean up. */
struct pod_demand *tiny_pod(const char *spec_inside, struct pod_spec *spec, struct errmsg *msg);

#endif
