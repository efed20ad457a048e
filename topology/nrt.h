/* SPDX-License-Identifier: Apache-2.0 */
/* A NodeResourceTopology object as decoded from JSON or YAML (v1alpha1 or
 * v1alpha2): plain strings and exact integers, no interpretation yet.
 * topology/inventory.h turns it into an immutable node snapshot. The decoder in
 * extender/ fills these structs; nrt_object_cleanup frees everything in them. */
#ifndef TOPOLOGY_NRT_H
#define TOPOLOGY_NRT_H

#include <stdint.h>
#include <stddef.h>

/* One entry of zones[].resources[]. Quantities are already converted:
 * Value() (bytes for memory and hugepages, counts otherwise). */
struct nrt_resource {
	char *name;
	int64_t capacity;
	int64_t allocatable;
	int64_t available;
};

/* One entry of zones[].costs[] or of any attributes[] list. */
struct nrt_cost {
	char *name;
	int64_t value;
};

struct nrt_attribute {
	char *name;
	char *value;
};

struct nrt_zone {
	char *name;
	char *type;                     /* "Node" for NUMA nodes */
	struct nrt_resource *resources;
	size_t nresources;
	struct nrt_cost *costs;
	size_t ncosts;
};

struct nrt_object {
	char *name;                     /* metadata.name == the Node name */
	char *api_version;              /* "topology.node.k8s.io/v1alpha2" */
	char *resource_version;         /* metadata.resourceVersion, or NULL */
	char **policies;                /* deprecated topologyPolicies[] */
	size_t npolicies;
	struct nrt_attribute *attributes;
	size_t nattributes;
	struct nrt_zone *zones;
	size_t nzones;
	/* Non-NULL for an item of a multi-object file (YAML stream or List)
	 * that did not decode: the decoder's message, naming the item's index
	 * and node. Only name (when it was readable, or "") is set then, and
	 * inventory_node_new refuses the object with this message, so one bad
	 * item never takes the other nodes of its file with it. */
	char *invalid;
};

/* Frees every string and array the object owns (not the object itself) and
 * zeroes it. Accepts a zeroed object. */
void nrt_object_cleanup(struct nrt_object *obj);

#endif
