/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a pod's predicted DRA devices sit on the NUMA nodes the kubelet's
 * Topology Manager would give its containers. The Topology Manager does not
 * see DRA devices (only the device, CPU and memory managers are its hint
 * providers), so nothing in Kubernetes lines the two up: this comparison is
 * the only check.
 *
 * A unit is a container that references claims (resources.claims: a whole
 * claim, or one request of it, which covers its prioritized-list
 * alternatives), or under the pod scope the whole pod, with every
 * container's references. Its devices are aligned when each device's NUMA
 * set is inside the unit's affinity; misaligned at the first one that is
 * not; null when there is nothing to align (no device, or no affinity: no
 * Topology-Manager resources, or a pod the kubelet rejects anyway) or a
 * device's NUMA node is unknown. Pure. */
#ifndef DRA_ALIGN_H
#define DRA_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/textbuf.h"
#include "dra/alloc.h"
#include "dra/types.h"

enum dra_aligned {
	DRA_ALIGNED_NULL,
	DRA_ALIGNED_YES,
	DRA_ALIGNED_NO,
};

enum dra_align_why {
	DRA_ALIGN_NOTHING,      /* no device referenced */
	DRA_ALIGN_NO_AFFINITY,  /* devices, but no affinity to compare with */
	DRA_ALIGN_UNKNOWN_NUMA, /* a device's NUMA node is unknown (none outside) */
	DRA_ALIGN_INSIDE,       /* aligned */
	DRA_ALIGN_OUTSIDE,      /* misaligned */
};

struct dra_align_unit {
	const char *name;          /* the container's, or the pod's */
	bool pod_scope;            /* the unit is the whole pod */
	const struct dra_container_claim *refs;
	size_t nrefs;
	bool has_affinity;         /* false: nothing to align with */
	uint64_t affinity;         /* NUMA ids */
};

struct dra_align_verdict {
	enum dra_aligned aligned;
	enum dra_align_why why;
	/* OUTSIDE: the first device off the affinity; UNKNOWN_NUMA: the first
	 * device without a NUMA node; else NULL. Borrowed from the result. */
	const struct dra_pick *device;
	const struct dra_align_unit *unit; /* the unit that decided (overall) */
};

/* pod_claims[i] is the pod's claim whose prediction is res->claims[i]
 * (res must be DRA_ALLOC_OK or DRA_ALLOC_SAME_NUMA). per_unit (nunits
 * entries, may be NULL) gets each unit's verdict; the overall one is
 * returned: a misaligned unit, else one with an unknown NUMA node, else an
 * aligned one, else null. */
struct dra_align_verdict dra_align(const struct dra_alloc_result *res,
				   const struct dra_pod_claim *pod_claims, size_t nclaims,
				   const struct dra_align_unit *units, size_t nunits,
				   struct dra_align_verdict *per_unit);

/* The reason of a misaligned verdict, like the other NUMA reasons:
 * `NUMA: DRA devices gpu-3 (gpu.nvidia.com) on NUMA 1, container "train"
 * CPUs on NUMA 0`; "" for any other verdict. */
const char *dra_align_reason(const struct dra_align_verdict *v, char *buf, size_t size);

/* s as it is when it is a plain DNS-like name, quoted otherwise (a file
 * may put anything in a name, and reasons end up in events). */
void dra_align_add_name(struct textbuf *b, const char *s);

enum dra_reach {
	DRA_REACH_YES,     /* devices that match exist on the affinity's NUMA nodes */
	DRA_REACH_NO,      /* not even on the node emptied of allocations */
	DRA_REACH_UNKNOWN, /* a selector cannot be evaluated here */
};

/* For the unresolvable decision: could each request the unit references be
 * served from the affinity's NUMA nodes if nothing on the node were
 * allocated? Every alternative of the request is tried, its selectors run
 * over every device of the node's complete pools; a device of unknown NUMA
 * counts as possible (it would not be misaligned). ExactCount needs count
 * such devices, All needs every matching device inside. Constraints are
 * not considered, so YES may be optimistic. in->claims[i] is pod_claims[i]. */
enum dra_reach dra_align_reach(const struct dra_alloc_input *in,
			       const struct dra_pod_claim *pod_claims,
			       const struct dra_align_unit *unit);

#endif
