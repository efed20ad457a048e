/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA verdict of one node for one pod: whether the devices the
 * scheduler's allocator would give the pod's claims there sit on the NUMA
 * nodes the kubelet's Topology Manager would give the containers that use
 * them. The Topology Manager does not see DRA devices, so nothing in
 * Kubernetes lines the two up; decide folds this verdict into its own
 * (dra.alignment), explain and simulate show it.
 *
 * Two steps. dra_pod_new, once per request: the pod's claims resolved in a
 * DRA snapshot (a claim by name in the pod's namespace; a template's
 * generated claim, or the template's own spec while that claim does not
 * exist yet), their selectors compiled, the devices in use indexed (every
 * allocation in the snapshot plus the caller's assumed devices). Then
 * dra_judge per node, reading the kubelet's verdict for the node (its
 * containers' NUMA affinities; under the pod scope the pod's): the
 * allocator's prediction (dra/alloc.h, the CEL subset as evaluator), then
 * the alignment (dra/align.h). A dra_pod is read-only once built: many
 * threads may judge nodes with it at once. Pure but for the CEL programs
 * it compiles: no I/O, no globals. */
#ifndef EXTENDER_DECIDE_DRA_H
#define EXTENDER_DECIDE_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/textbuf.h"
#include "dra/align.h"
#include "dra/alloc.h"
#include "dra/alloc_set.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/inventory/dra_store.h"
#include "scheduler/node_view.h"
#include "topology/judge.h"

/* One node's DRA verdict. The names (dra_outcome_name) are the values of
 * the result label of numa_extender_dra_verdicts_total. */
enum dra_outcome {
	/* Nothing to align: the pod has no claims, or no container that uses
	 * one has a NUMA affinity (no Topology-Manager resources, or a pod the
	 * kubelet rejects anyway), or no device is referenced. */
	DRA_OUTCOME_NO_CLAIMS,
	DRA_OUTCOME_ALIGNED,
	DRA_OUTCOME_MISALIGNED,
	/* The allocator cannot be predicted here (why says what), or predicts
	 * what the scheduler cannot have done (it let the node through). */
	DRA_OUTCOME_UNPREDICTABLE,
	/* A device the containers use has no known NUMA node. */
	DRA_OUTCOME_UNKNOWN_NUMA,
	DRA_OUTCOME_COUNT,
};

/* "noClaims", "aligned", "misaligned", "unpredictable", "unknownNUMA";
 * "" out of range. */
const char *dra_outcome_name(enum dra_outcome o);

struct dra_pod_input {
	const struct dra_snapshot *snap;       /* held by the caller while the pod lives */
	const struct dra_pod_claims *claims;   /* the pod's (borrowed while the pod lives) */
	const char *namespace_;                /* the pod's; NULL reads "default" */
	const char *pod_name;                  /* the unit's name under the pod scope */
	enum dra_alloc_order order;
	/* Devices in use that the snapshot does not show yet (our binds whose
	 * allocations the watch has not delivered); NULL: none. Borrowed. */
	const struct dra_device_set *assumed;
	/* Whether dra_judge's nodes carry their labels. Without them a slice
	 * that selects nodes by label cannot be placed: nodes that such a
	 * slice could reach are unpredictable. */
	bool node_labels_known;
	/* With node_labels_known, for callers (decide) that hand dra_judge a
	 * node by its name alone: the node of that name with its labels (NULL
	 * answer: the node as given); NULL: the node as given. */
	const struct sched_node *(*node_of)(const void *ctx, const char *name);
	const void *node_ctx;
};

struct dra_pod;

/* NULL when the pod has no claims (nothing to judge: callers take the
 * path they take without DRA). */
struct dra_pod *dra_pod_new(const struct dra_pod_input *in);
void dra_pod_free(struct dra_pod *p);

/* What a verdict depends on besides the node's DRA state and the kubelet's
 * verdict, for the verdict cache's demand key: each claim's source and
 * the version of the object read (or that it is missing), the containers'
 * references, the pod's name and the assumed devices. Appended to b. */
void dra_pod_key(const struct dra_pod *p, struct textbuf *b);

/* The DRA state version of node (the store's per-node version; the
 * snapshot's version for a node without slices of its own). */
uint64_t dra_pod_node_version(const struct dra_pod *p, const char *node);

/* The verdict cache's node id for a node whose NRT snapshot id is
 * snapshot_id: that id mixed with the node's DRA version; 0 stays 0 (no
 * cache). */
uint64_t dra_pod_cache_id(const struct dra_pod *p, const char *node, uint64_t snapshot_id);

/* The pod's claims as resolved (claims[i] for spec.resourceClaims[i];
 * NULL: missing), for explain. */
size_t dra_pod_claims_resolved(const struct dra_pod *p, const struct dra_pod_claim **pod_claims,
			       const struct dra_claim *const **claims);

/* The name of the slice without a node that selects nodes by label, which
 * makes every node unpredictable while node labels are unknown; NULL when
 * there is none (or labels are known). Borrowed from the snapshot. */
const char *dra_pod_label_slice(const struct dra_pod *p);

enum dra_judge_flags {
	/* For a misaligned verdict, whether devices that match exist on the
	 * affinity's NUMA nodes at all (dra_align_reach): unresolvable when
	 * not even the emptied node has them. */
	DRA_JUDGE_REACH = 1,
	/* Keep the prediction (alloc, units, align) for the caller, and
	 * predict even when nothing has an affinity to align with. */
	DRA_JUDGE_KEEP = 2,
	/* No reason text for a misaligned or unknown-NUMA verdict (why stays
	 * empty): the caller only needs the outcome. */
	DRA_JUDGE_NO_WHY = 4,
};

#define DRA_WHY_MAX 320

struct dra_node_verdict {
	enum dra_outcome outcome;
	/* MISALIGNED: the reason (`NUMA: DRA devices gpu-3 (gpu.nvidia.com)
	 * on NUMA 1, container "train" CPUs on NUMA 0`); UNKNOWN_NUMA: the
	 * device without a NUMA node; UNPREDICTABLE: why; NO_CLAIMS: why
	 * there is nothing to align. */
	char why[DRA_WHY_MAX];
	/* MISALIGNED with DRA_JUDGE_REACH: no device that matches sits on the
	 * affinity's NUMA nodes even with nothing allocated. */
	bool unresolvable;
	/* With DRA_JUDGE_KEEP (free with dra_node_verdict_cleanup): the
	 * prediction (alloc.claims[i] for the pod's claim i, when the verdict
	 * is DRA_ALLOC_OK or DRA_ALLOC_SAME_NUMA), the units compared, each
	 * unit's verdict and the overall one. */
	bool kept;
	struct dra_alloc_result alloc;
	struct dra_align_unit *units;
	struct dra_align_verdict *per_unit;
	size_t nunits;
	struct dra_align_verdict align;
	struct dra_container_claim *refs_; /* private: the pod unit's references */
};

/* Judges node (its name; labels as dra_pod_input says) against kubelet,
 * the judge's verdict for the pod on that node. */
void dra_judge(const struct dra_pod *p, const struct sched_node *node,
	       const struct verdict *kubelet, unsigned flags, struct dra_node_verdict *out);
void dra_node_verdict_cleanup(struct dra_node_verdict *v);

#endif
