/* SPDX-License-Identifier: Apache-2.0 */
/* What kube-scheduler works out about a pod once per scheduling cycle, in
 * PreFilter and PreScore, before it looks at any node: the NodeResourcesFit
 * request, the scoring vectors of NodeResourcesFit and
 * NodeResourcesBalancedAllocation, and whether the latter skips the pod. */
#ifndef SCHEDULER_POD_CYCLE_H
#define SCHEDULER_POD_CYCLE_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/config.h"
#include "scheduler/pod_view.h"
#include "scheduler/resources.h"
#include "scheduler/version.h"

enum sched_resource_kind {
	SCHED_KIND_CPU,
	SCHED_KIND_MEMORY,
	SCHED_KIND_EPHEMERAL,
	SCHED_KIND_SCALAR,
	SCHED_KIND_OTHER, /* neither: never scored */
};

struct sched_pod_cycle {
	const struct sched_profile *profile;
	enum sched_version version;
	const struct sched_pod *pod;
	struct sched_resources request; /* R(pod): the Fit filter's */
	/* One per profile->fit_resources: R(pod) with the non-zero defaults
	 * (100m cpu, 200Mi memory per container lacking them). */
	int64_t *fit_request;
	/* One per profile->balanced_resources: plain R(pod). */
	int64_t *balanced_request;
	/* What each of those resources is (enum sched_resource_kind), so
	 * that scoring thousands of nodes does not classify names. */
	unsigned char *fit_kind, *balanced_kind;
	/* BalancedAllocation's PreScore returned Skip (1.33+, all of
	 * balanced_request 0). */
	bool balanced_skip;
};

/* Borrows profile and pod until sched_pod_cycle_cleanup. */
void sched_pod_cycle_init(struct sched_pod_cycle *c,
			  const struct sched_profile *profile,
			  enum sched_version v, const struct sched_pod *pod);
void sched_pod_cycle_cleanup(struct sched_pod_cycle *c);

#endif
