/* SPDX-License-Identifier: Apache-2.0 */
/* The scheduler's DRA allocator, predicted for one node: which devices the
 * DynamicResources plugin's Filter would give the pod's claims there
 * (k8s.io/dynamic-resource-allocation/structured/internal/incubating/
 * allocator_incubating.go, the implementation 1.36 runs with its default
 * gates).
 *
 * Claims come in the pod's order. Claims already allocated are not
 * allocated again: their status.allocation results are read back as they
 * are (a node-local allocation for another node rejects this one). The
 * others are searched depth-first, first fit: requests in order, the N
 * devices of a request as combinations (the scan resumes after the device
 * chosen before it), pools by (driver, pool name) with binding-condition
 * pools last, slices by name, devices as published; backtracking across
 * devices, requests and claims. A device is skipped when it is in the
 * allocated set or was chosen earlier in this call. Selectors: the class's,
 * then the request's. matchAttribute and distinctAttribute hold within one
 * claim over the requests they list. Mode All takes every matching device:
 * none is unsatisfiable, an allocated one too, an incomplete or invalid
 * pool on the node fails the pod everywhere.
 *
 * Where the answer depends on what is not modelled, the prediction says
 * "cannot predict" rather than guess: partitionable devices (counters),
 * consumable capacity (allowMultipleAllocations, capacity requests),
 * binding conditions, device taints that matter (NoSchedule, NoExecute) and
 * tolerations, prioritized lists past their first alternative, admin
 * access, selectors outside the CEL subset, and, under the unsorted order
 * of 1.32-1.35 (or 1.36 with the stable implementation), any request whose
 * candidates do not all sit on one NUMA set. Pure: no I/O. */
#ifndef DRA_ALLOC_H
#define DRA_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "dra/alloc_selectors.h"
#include "dra/alloc_set.h"
#include "dra/numa.h"
#include "dra/pools.h"
#include "dra/types.h"
#include "scheduler/node_view.h"

/* resourceapi.AllocationResultsMaxSize: devices per claim. */
#define DRA_MAX_RESULTS 32
/* Device placements tried before the search gives up as "cannot predict"
 * (upstream has no bound but the scheduler's; a hostile set of constraints
 * must not hang a filter). */
#define DRA_SEARCH_BUDGET 1000000

enum dra_alloc_order {
	DRA_ORDER_SORTED,   /* 1.36+ (incubating, experimental) */
	DRA_ORDER_UNSORTED, /* 1.32-1.35, or the stable implementation */
};

struct dra_alloc_input {
	const struct sched_node *node;      /* name and labels */
	const struct dra_slice_index *slices;
	const struct dra_class *classes;
	size_t nclasses;
	const struct dra_claim *const *claims; /* the pod's, in spec.resourceClaims order */
	size_t nclaims;
	const struct dra_device_set *allocated; /* may be NULL: nothing allocated */
	/* Devices in use besides allocated, asked per device (a caller whose
	 * allocated devices are already indexed another way); NULL: none. */
	bool (*in_use)(const void *ctx, const char *driver, const char *pool, const char *device);
	const void *in_use_ctx;
	enum dra_alloc_order order;
	/* Compiled selectors; filled as needed (see dra_selectors_prepare to
	 * share one set between threads). */
	struct dra_selectors *selectors;
	uint64_t budget;                    /* 0: DRA_SEARCH_BUDGET */
};

enum dra_alloc_verdict {
	DRA_ALLOC_OK,             /* claims[] holds the devices */
	/* Unsorted order: claims[] holds one possible choice; which devices the
	 * allocator takes is not known, but every candidate of each request
	 * sits on the NUMA set shown. */
	DRA_ALLOC_SAME_NUMA,
	DRA_ALLOC_UNSATISFIABLE,  /* DynamicResources' Filter rejects the node */
	DRA_ALLOC_CANNOT_PREDICT, /* why says what is not modelled */
	/* The allocator errors out (a CEL runtime error, mode All on an
	 * incomplete pool, a missing class...): the pod's scheduling attempt
	 * fails on every node. */
	DRA_ALLOC_FATAL,
};

struct dra_pick {
	char *request;               /* "<req>" or "<req>/<sub>" */
	const char *driver, *pool, *device; /* borrowed from the slices or the claim */
	const struct dra_device *dev; /* NULL: a read-back result the node does not see */
	struct dra_numa numa;
	enum dra_numa_source numa_source;
};

struct dra_claim_picks {
	struct dra_pick *picks;
	size_t n;
	bool preallocated;           /* read back from status.allocation */
};

struct dra_alloc_result {
	enum dra_alloc_verdict verdict;
	struct errmsg why;           /* every verdict but OK and SAME_NUMA */
	struct dra_claim_picks *claims; /* nclaims entries for OK and SAME_NUMA */
	size_t nclaims;
	uint64_t steps;              /* device placements tried */
};

void dra_alloc_predict(const struct dra_alloc_input *in, struct dra_alloc_result *out);
void dra_alloc_result_free(struct dra_alloc_result *r);

const char *dra_alloc_verdict_name(enum dra_alloc_verdict v);

#endif
