/* SPDX-License-Identifier: Apache-2.0 */
/* The node inventory: an immutable snapshot of one node's NUMA layout built
 * from a decoded NodeResourceTopology object, with everything the judge needs
 * precomputed once (dense NUMA indices, distances, resource kinds, kubelet
 * configuration and its start-up validity). Built off the request path; read
 * concurrently by any number of requests. inventory_node_new allocates,
 * inventory_node_free releases (accepts NULL). */
#ifndef TOPOLOGY_INVENTORY_H
#define TOPOLOGY_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmask.h"
#include "base/err.h"
#include "nrt.h"

#define INVENTORY_MAX_NUMA 64
/* The kubelet's bitmask holds 64 NUMA nodes; the judge simulates any count
 * max-allowable-numa-nodes allows up to that (merge_search.c searches instead of
 * enumerating subsets; a search past its budget is a "not simulated"
 * verdict, never a wrong one). */
#define INVENTORY_MAX_SIMULATED_NUMA 64

enum tm_policy {
	TM_POLICY_NONE,
	TM_POLICY_BEST_EFFORT,
	TM_POLICY_RESTRICTED,
	TM_POLICY_SINGLE_NUMA_NODE,
};

enum tm_scope {
	TM_SCOPE_CONTAINER,
	TM_SCOPE_POD,
};

enum resource_kind {
	RESOURCE_CPU,
	RESOURCE_MEMORY,    /* memory and hugepages-<size>: memory manager */
	RESOURCE_DEVICE,    /* device-plugin resources: device manager */
	RESOURCE_HOST,      /* ephemeral-storage, storage, pods: no NUMA meaning */
};

/* One resource across the node's NUMA nodes; arrays are indexed by dense NUMA
 * index. A zone that does not list the resource contributes zeros (and clears
 * listed_everywhere): for a hugepage size that means 0 pages there, as
 * exporters leave out blocks whose allocatable is 0.
 * capacity is at least allocatable and available at most allocatable (see
 * inventory_node_new for these readings of inconsistent exporters). */
struct inventory_resource {
	char *name;
	enum resource_kind kind;
	bool listed_everywhere;
	int64_t *capacity;
	int64_t *allocatable;
	int64_t *available;
	int64_t total_capacity;
	int64_t total_allocatable;
	int64_t total_available;
	/* Capacity summary for "preferred" sizes: top_capacity[k] is the sum of
	 * the k largest per-NUMA capacities (k = 0..n); nonzero_numa counts the
	 * NUMA nodes with any capacity. */
	int64_t *top_capacity;
	int nonzero_numa;
	/* The dense NUMA indices whose zone lists the resource. */
	bitmask_t listed;
};

/* The kubelet's minAffinitySize from capacity: the fewest NUMA nodes whose
 * capacities reach want; `fallback` (the size of the provider's NUMA set) when
 * none do. */
int inventory_min_affinity(const struct inventory_resource *r, int64_t want, int fallback);

/* The fields every judgement reads come first, in one cache line (the
 * snapshot is allocated on a line): a filter judges thousands of snapshots
 * scattered over many megabytes, and each line it touches is a miss. */
struct inventory_node {
	/* Kubelet configuration as published. */
	enum tm_policy policy;
	enum tm_scope scope;
	int numa_count;              /* n */
	int nresources;
	int cpu;                     /* index of "cpu" or -1 */
	int max_allowable;           /* max-allowable-numa-nodes, default 8 */
	bool prefer_closest;
	bool cpu_static;             /* cpuManagerPolicy static (default) */
	bool memory_static;          /* memoryManagerPolicy Static (default) */
	bool memory_listed;          /* some zone lists "memory" */
	/* Tests and benchmarks only: generate hints over every NUMA subset in
	 * one pass, skipping the shortcuts (single-node hints only under
	 * single-numa-node; preferred hints first under the other policies).
	 * Both must give identical verdicts. */
	bool full_enumeration;
	/* numa_ids[i] == i for every dense index: a dense mask is already a
	 * mask of NUMA ids. */
	bool ids_dense;
	/* The NUMA nodes where some memory or hugepage resource's available
	 * is below its allocatable: the judge's count view of memory groups
	 * (a single-NUMA allocation there). Kept with the amounts by every
	 * function here that writes them. */
	bitmask_t memory_short;
	/* In one block with their arrays and names (inventory_node_prefetch
	 * reads it in one sweep), once the snapshot is built. */
	struct inventory_resource *resources;
	/* The same node with every pod gone (available := allocatable), built
	 * with the snapshot; NULL on the emptied copy itself. Its resources
	 * are the node's, in the same order (the judge uses the node's
	 * resource indices on it). */
	struct inventory_node *emptied;
	/* Non-empty when the kubelet would refuse to start with this
	 * configuration on this machine: every pod gets TopologyManagerConfigError.
	 * Its first bytes share the line above. */
	char config_error[200];

	char *name;
	char *version;               /* resourceVersion, or NULL */
	int numa_ids[INVENTORY_MAX_NUMA]; /* dense index -> NUMA id, ascending */
	/* dense index -> the zone's name as published ("node-1", or "node-01":
	 * never rebuilt from the id), n entries. */
	char **zone_names;
	int64_t *distance;           /* n*n, distance[i*n+j]; missing costs are 0 */
	/* The one allocation holding resources, their arrays and names, and
	 * its size; NULL while the snapshot is being built. */
	void *packed;
	size_t packed_size;
	/* The configuration as published, verbatim: attributes (those with a
	 * name, in order) and the deprecated topologyPolicies[]. The fields
	 * above are read from them; inventory_node_to_nrt writes them back,
	 * and inventory_attribute answers for the others (the pods
	 * fingerprint). */
	struct nrt_attribute *attributes;
	size_t nattributes;
	char **policies;
	size_t npolicies;
	/* The judge's own, filled on first need and freed with the node (one
	 * allocation): the bytes the unresolvable memo keys on. Written once
	 * with a compare-and-swap, so concurrent readers of a shared snapshot
	 * are safe. Copies start without it. */
	void *judge_shape;
};

/* Builds a snapshot. Structural problems (zone names, duplicate NUMA ids or
 * resources, more than 64 NUMA nodes) are ERR_INVALID with msg naming the
 * field, e.g. `zones[2].name: "node-1": duplicate NUMA node`. Configuration the
 * kubelet would reject is not an error: it lands in config_error. */
enum err inventory_node_new(const struct nrt_object *obj,
			    struct inventory_node **out, struct errmsg *msg);

/* A copy in which every resource is as free as it can be (available :=
 * allocatable): the node with no pods, used to tell whether preemption could
 * ever help. */
struct inventory_node *inventory_node_emptied(const struct inventory_node *node);

void inventory_node_free(struct inventory_node *node);

/* Asks the CPU for the memory a judgement of node reads, without waiting
 * for it: a filter judges thousands of snapshots scattered over many
 * megabytes. The snapshot's first line points to the rest, so a caller
 * walking a list issues stage 0 two nodes ahead (that line) and stage 1 one
 * ahead (the block of resources, arrays and names, which stage 0 brought the
 * address of). NULL is ignored. */
void inventory_node_prefetch(const struct inventory_node *node, int stage);

/* An amount a pod takes from one NUMA node (numa_id), or from every NUMA node
 * whose zone lists the resource (numa_id -1). */
struct inventory_usage {
	const char *resource;
	int numa_id;
	int64_t amount;
};

/* A new snapshot: node with every usage taken off its available amounts,
 * each clamped at 0 (an NRT that already counts the pod must not go
 * negative). Usages of resources or NUMA ids the node does not have, and
 * amounts <= 0, take nothing. Every summary is what inventory_node_new would
 * compute for the NRT of inventory_node_to_nrt(node) with those available
 * amounts lowered the same way (emptied included). */
struct inventory_node *inventory_node_take(const struct inventory_node *node,
					   const struct inventory_usage *usage, size_t n);

/* The inverse of inventory_node_take: a new snapshot with every usage given
 * back to its available amounts, each clamped at allocatable (what evicting
 * pods frees, for preemption). Usages of resources or NUMA ids the node does
 * not have, and amounts <= 0, give nothing; numa_id -1 gives to every zone
 * listing the resource. Summaries as inventory_node_take makes them. */
struct inventory_node *inventory_node_give(const struct inventory_node *node,
					   const struct inventory_usage *usage, size_t n);

/* The inverse of inventory_node_new: an NRT object (v1alpha2) that builds an
 * equal snapshot: the published configuration, the NUMA zones under their
 * names with their nonzero distances, and each zone's listed resources with
 * the amounts as read (capacity at least allocatable, available at most
 * allocatable). Zones of other types are not kept. Free with
 * nrt_object_cleanup. */
void inventory_node_to_nrt(const struct inventory_node *node, struct nrt_object *out);

/* The value of the first attribute so named, or NULL. */
const char *inventory_attribute(const struct inventory_node *node, const char *name);

/* Index of the named resource, or -1. */
int inventory_find(const struct inventory_node *node, const char *name);

enum resource_kind resource_kind_of(const char *name);

/* An amount for people: "4Gi", "1536Mi" or bytes for memory types, a plain
 * count otherwise. */
void resource_amount_format(const char *resource, int64_t v, char *buf, size_t size);

const char *tm_policy_name(enum tm_policy p);
const char *tm_scope_name(enum tm_scope s);

#endif
