/* SPDX-License-Identifier: Apache-2.0 */
/* The kube-scheduler minor versions the model follows, and every place where
 * their behaviour differs (with default feature gates). One switch per
 * difference, so that a caller never compares version numbers itself. */
#ifndef SCHEDULER_VERSION_H
#define SCHEDULER_VERSION_H

#include <stdbool.h>
#include <stddef.h>

enum sched_version {
	SCHED_V1_32 = 32,
	SCHED_V1_33 = 33,
	SCHED_V1_34 = 34,
	SCHED_V1_35 = 35,
};

#define SCHED_VERSION_DEFAULT SCHED_V1_35

/* "1.33", "v1.33" or "v1.33.3" (any patch); false for anything else or a
 * minor outside 32..35. */
bool sched_version_parse(const char *text, enum sched_version *out);
/* "1.32" .. "1.35". */
const char *sched_version_name(enum sched_version v);

/* NodeResourcesBalancedAllocation's PreScore skips a pod whose requests of
 * its resources are all 0 (a best-effort pod) from 1.33 on; 1.32 scores it. */
static inline bool sched_balanced_skips_best_effort(enum sched_version v)
{
	return v >= SCHED_V1_33;
}

/* The PodLevelResources gate (beta, on) from 1.34: spec.resources.requests
 * of cpu, memory and hugepages-* replace the containers' sum. */
static inline bool sched_pod_level_resources(enum sched_version v)
{
	return v >= SCHED_V1_34;
}

/* TaintToleration's filter reason: "node(s) had untolerated taint {k: v}"
 * up to 1.33, "node(s) had untolerated taint(s)" from 1.34. */
static inline bool sched_taint_reason_names_taint(enum sched_version v)
{
	return v <= SCHED_V1_33;
}

/* From 1.33 Score plugins read the NodeInfo they are handed. An extender
 * that filters with nodeCacheCapable false answers with Node objects, which
 * become new, empty NodeInfos (no pods, nothing requested); 1.32 looked the
 * node up in the snapshot again. */
static inline bool sched_score_sees_extender_nodes(enum sched_version v)
{
	return v >= SCHED_V1_33;
}

#endif
