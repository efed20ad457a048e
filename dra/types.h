/* SPDX-License-Identifier: Apache-2.0 */
/* Dynamic Resource Allocation (resource.k8s.io/v1) as plain data: what the
 * decoders (extender/codec/dra_*) fill and what the CEL evaluator
 * (dra/cel*), the allocator's prediction (dra/alloc*) and the NUMA
 * alignment (dra/numa*) read. Pure C, no I/O.
 *
 * Names follow k8s.io/api/resource/v1 types.go. Every string is owned by
 * the struct that holds it (freed by the matching *_cleanup). Qualified
 * names are split at their first '/': an unqualified attribute or capacity
 * name belongs to the device's driver's domain, so `domain` is never empty
 * once decoded. */
#ifndef DRA_TYPES_H
#define DRA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/pod_view.h"
#include "topology/quantity.h"

/* --- devices, as ResourceSlices publish them --- */

enum dra_attr_type {
	DRA_ATTR_INT,
	DRA_ATTR_BOOL,
	DRA_ATTR_STRING,
	DRA_ATTR_VERSION,   /* a semver 2.0.0 string, kept as text */
	/* The list forms (gate DRAListTypeAttributes): n >= 1 values. */
	DRA_ATTR_INTS,
	DRA_ATTR_BOOLS,
	DRA_ATTR_STRINGS,
	DRA_ATTR_VERSIONS,
};

struct dra_attribute {
	char *domain;              /* "gpu.nvidia.com", "resource.kubernetes.io" */
	char *name;                /* the C identifier after the '/' */
	enum dra_attr_type type;
	/* Scalars use the first element; lists use n of them. */
	size_t n;
	int64_t *ints;             /* INT, INTS */
	bool *bools;               /* BOOL, BOOLS */
	char **strings;            /* STRING, VERSION, STRINGS, VERSIONS */
};

struct dra_capacity {
	char *domain, *name;
	struct quantity value;
};

struct dra_device_taint {
	char *key, *value;
	char *effect;              /* "None", "NoSchedule", "NoExecute" */
};

/* Where a slice (or, with perDeviceNodeSelection, a device) is available. */
enum dra_node_selection {
	DRA_NODE_NAME,             /* nodeName */
	DRA_NODE_SELECTOR,         /* nodeSelector: one term */
	DRA_ALL_NODES,             /* allNodes: true */
	DRA_PER_DEVICE,            /* perDeviceNodeSelection: true (slices only) */
};

struct dra_device {
	char *name;                /* unique in its pool */
	struct dra_attribute *attributes;
	size_t nattributes;
	struct dra_capacity *capacity;
	size_t ncapacity;
	struct dra_device_taint *taints;
	size_t ntaints;
	/* Features the prediction may answer "cannot predict" for. */
	bool consumes_counters;    /* consumesCounters[] non-empty */
	bool binding_conditions;   /* bindingConditions[] non-empty */
	bool allow_multiple_allocations;
	/* dra_cel_device_prepare's tables (entries_hashed), kept when the
	 * slice is stored: for each attribute, then each capacity, the hash
	 * of its domain and name and the hash of its value, side by side, and
	 * whether every version attribute parses. The selector memo's keys
	 * read these rather than the strings. */
	bool entries_hashed, versions_ok;
	uint64_t *entry_hashes;        /* 2 * (nattributes + ncapacity) */
	const char *hashed_driver;     /* the driver string hashed below */
	uint64_t driver_hash;
	/* dra_numa_own's answer kept (numa_cached) when the slice is stored:
	 * every filter reads it for every device of every node. */
	bool numa_cached, numa_known;
	unsigned char numa_source;
	uint64_t numa_nodes;
	/* With the slice's DRA_PER_DEVICE: this device's own selection. */
	enum dra_node_selection selection;
	char *node_name;
	struct sched_term node_selector;
};

struct dra_slice {
	char *name;                /* metadata.name */
	char *driver;
	char *pool;
	int64_t generation;        /* pool.generation */
	int64_t slice_count;       /* pool.resourceSliceCount */
	enum dra_node_selection selection;
	char *node_name;           /* DRA_NODE_NAME */
	struct sched_term node_selector; /* DRA_NODE_SELECTOR */
	struct dra_device *devices;
	size_t ndevices;
	bool shared_counters;      /* sharedCounters[] non-empty */
	/* dra_slice_check_duplicates' answer kept when the slice is stored:
	 * the first device name the slice holds twice, or NULL. */
	bool dup_checked;
	const char *dup_name;
};

struct dra_class {
	char *name;
	char **selectors;          /* CEL expressions, in order */
	size_t nselectors;
	char *extended_resource_name; /* or NULL */
};

/* --- claims --- */

enum dra_alloc_mode {
	DRA_EXACT_COUNT,           /* the default, count 1 */
	DRA_ALL,
};

/* exactly{...}, or one firstAvailable[] alternative. */
struct dra_request_spec {
	char *class_name;
	char **selectors;          /* CEL expressions */
	size_t nselectors;
	enum dra_alloc_mode mode;
	int64_t count;             /* ExactCount */
	bool admin_access;
	bool tolerations;          /* tolerations[] non-empty */
	bool capacity_requests;    /* capacity.requests non-empty */
};

struct dra_request {
	char *name;
	/* exactly: one spec; firstAvailable: nalternatives specs, in order,
	 * each named by subnames[i] (results are "<name>/<subname>"). */
	struct dra_request_spec *specs;
	size_t nspecs;
	char **subnames;           /* NULL for exactly */
};

enum dra_constraint_kind {
	DRA_MATCH_ATTRIBUTE,
	DRA_DISTINCT_ATTRIBUTE,
};

struct dra_constraint {
	char **requests;           /* empty: every request of the claim */
	size_t nrequests;
	enum dra_constraint_kind kind;
	char *domain, *name;       /* the fully qualified attribute */
};

/* One device of status.allocation.devices.results[]. */
struct dra_result {
	char *request;             /* "<req>" or "<req>/<sub>" */
	char *driver, *pool, *device;
	bool admin_access;
	char *share_id;            /* or NULL */
};

struct dra_claim {
	char *namespace_, *name, *uid;
	struct dra_request *requests;
	size_t nrequests;
	struct dra_constraint *constraints;
	size_t nconstraints;
	/* status.allocation, when allocated. */
	bool allocated;
	struct dra_result *results;
	size_t nresults;
	/* allocation.nodeSelector names this node (metadata.name In [...]);
	 * NULL when the allocation is not node-local. */
	char *allocated_node;
	/* A ResourceClaimTemplate's spec judged before its claim exists. */
	bool from_template;
};

/* --- the pod's side --- */

/* spec.resourceClaims[i]: the claim's name in the pod, and where it comes
 * from: a claim by name, or a template whose generated claim's name is in
 * status.resourceClaimStatuses (NULL until then). */
struct dra_pod_claim {
	char *name;
	char *claim_name;          /* resourceClaimName, or the generated name */
	char *template_name;       /* resourceClaimTemplateName, or NULL */
};

/* containers[i].resources.claims[k]: the claim (by its name in the pod),
 * and one request of it or the whole claim (request NULL). */
struct dra_container_claim {
	char *claim;
	char *request;
};

void dra_attribute_cleanup(struct dra_attribute *a);
void dra_device_cleanup(struct dra_device *d);
void dra_slice_cleanup(struct dra_slice *s);
void dra_class_cleanup(struct dra_class *c);
void dra_request_cleanup(struct dra_request *r);
void dra_constraint_cleanup(struct dra_constraint *c);
void dra_claim_cleanup(struct dra_claim *c);
void dra_pod_claim_cleanup(struct dra_pod_claim *c);
void dra_container_claim_cleanup(struct dra_container_claim *c);

/* The attribute of device d named domain/name, or NULL. */
const struct dra_attribute *dra_device_attribute(const struct dra_device *d, const char *domain,
						 const char *name);

#endif
