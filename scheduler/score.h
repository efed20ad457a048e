/* SPDX-License-Identifier: Apache-2.0 */
/* kube-scheduler's node scores for one pod (pkg/scheduler/framework/plugins/
 * noderesources and helper/normalize_score.go), integer for integer and
 * float for float, in upstream's order of operations:
 *  - NodeResourcesFit, by strategy over (allocatable, requested + pod):
 *    LeastAllocated  Σ w·((a - r)·100/a) / Σ w   (0 where r > a)
 *    MostAllocated   Σ w·(min(r, a)·100/a) / Σ w
 *    RequestedToCapacityRatio  round(Σ w·f(u) / Σ w) over resources with
 *                    f(u) > 0, u = r·100/a (100 when r > a), f the broken
 *                    line through (utilization, 10·score) points;
 *    requested counts 100m/200Mi for each container without a cpu/memory
 *    request; a scalar the pod does not request and a resource the node
 *    does not have (allocatable 0) are left out;
 *  - NodeResourcesBalancedAllocation: 100·(1 - std) truncated, std the
 *    population standard deviation of min(1, r/a) (|f0 - f1|/2 for two);
 *  - TaintToleration: PreferNoSchedule taints the pod does not tolerate,
 *    normalized in reverse (DefaultNormalizeScore);
 *  - NodeAffinity: Σ weights of the preferred terms the node matches,
 *    normalized (DefaultNormalizeScore).
 * Then each normalized score times the plugin's weight, summed.
 * Products that would pass int64 are computed exactly (128 bits) or
 * saturate; Go would wrap there, on absurd input only. */
#ifndef SCHEDULER_SCORE_H
#define SCHEDULER_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/config.h"
#include "scheduler/node_view.h"
#include "scheduler/pod_cycle.h"

#define SCHED_MAX_NODE_SCORE 100
#define SCHED_MAX_EXTENDER_PRIORITY 10
#define SCHED_MAX_CUSTOM_PRIORITY 10
/* Resource lists up to this long are scored without allocating. */
#define SCHED_SMALL_VECTOR 8

/* The strategies over vectors req[i], alloc[i] (alloc 0: left out). */
int64_t sched_least_allocated(const int64_t *req, const int64_t *alloc,
			      const struct sched_resource_weight *w, size_t n);
int64_t sched_most_allocated(const int64_t *req, const int64_t *alloc,
			     const struct sched_resource_weight *w, size_t n);
int64_t sched_requested_to_capacity(const int64_t *req, const int64_t *alloc,
				    const struct sched_resource_weight *w, size_t n,
				    const struct sched_shape_point *shape, size_t nshape);
int64_t sched_balanced_allocation(const int64_t *req, const int64_t *alloc, size_t n);

/* DefaultNormalizeScore(100, reverse, scores). */
void sched_default_normalize(int64_t *scores, size_t n, bool reverse);

/* The (allocatable, requested) vectors a resource scorer sees on a node
 * (calculateResourceAllocatableRequest), for the profile's fit resources
 * (balanced false: non-zero requested for cpu and memory) or balanced
 * resources (true: requested). With fresh, the node counts no pod (the
 * empty NodeInfo an echoing extender leaves). req and alloc get n each. */
void sched_resource_vectors(const struct sched_pod_cycle *c,
			    const struct sched_node *node, bool balanced,
			    bool fresh, int64_t *req, int64_t *alloc);

/* One plugin's raw score on a node (before normalizing); only for the
 * plugins this model scores. */
int64_t sched_fit_score(const struct sched_pod_cycle *c,
			const struct sched_node *node, bool fresh);
int64_t sched_balanced_score(const struct sched_pod_cycle *c,
			     const struct sched_node *node, bool fresh);

struct sched_node_score {
	size_t node;                        /* index into the node array */
	bool ran[SCHED_PLUGIN_COUNT];       /* scored (enabled, modelled, not skipped) */
	int64_t raw[SCHED_PLUGIN_COUNT];    /* the plugin's Score */
	int64_t weighted[SCHED_PLUGIN_COUNT]; /* normalized × weight */
	int64_t extender;                   /* Σ score × weight × 10 over extenders */
	bool has_extender;                  /* at least one extender scored it */
	int64_t total;
};

/* RunPreScorePlugins + RunScorePlugins over nodes[idx[0..n)]: fills out[i]
 * (node, ran, raw, weighted, total; extender left 0). */
void sched_score_nodes(const struct sched_pod_cycle *c,
		       const struct sched_node *nodes, const size_t *idx,
		       size_t n, bool fresh, struct sched_node_score *out);

/* Adds an extender's entry: score × weight × (100 / 10), saturating. */
void sched_add_extender_score(struct sched_node_score *s, int64_t score,
			      int64_t weight);

#endif
