/* SPDX-License-Identifier: Apache-2.0 */
/* A pod's effective request R(pod): component-helpers' PodRequests as
 * kube-scheduler calls it (staging/src/k8s.io/component-helpers/resource/
 * helpers.go), then cut to scheduler units: cpu in millicores and every
 * other resource in Value() units, both rounded up, after summing (the
 * helpers add exact quantities and round once). */
#ifndef SCHEDULER_REQUESTS_H
#define SCHEDULER_REQUESTS_H

#include <stdint.h>

#include "scheduler/pod_view.h"
#include "scheduler/resources.h"
#include "scheduler/version.h"

/* Which resources get kube-scheduler's non-zero defaults (DefaultMilliCPURequest
 * 100m, DefaultMemoryRequest 200Mi) in every container, init containers
 * included, whose requests lack the key (an explicit 0 stays 0). */
enum {
	SCHED_DEFAULT_CPU = 0x1,
	SCHED_DEFAULT_MEMORY = 0x2,
};

#define SCHED_DEFAULT_MILLI_CPU 100
#define SCHED_DEFAULT_MEMORY_BYTES (200 * 1024 * 1024)

/* R(pod) into out (overwritten):
 *  - each container's requests, its limits filling the keys requests lack
 *    (the API server's defaulting, so a pod file reads as the stored pod);
 *  - the defaults above for the containers lacking cpu or memory, as asked;
 *  - app containers summed; each init container's use is its own request
 *    plus the sidecars (restartPolicy Always) before it, a sidecar's use is
 *    the sum of the sidecars so far, and sidecars also add to the sum; the
 *    result is the larger of that sum and the largest use;
 *  - from 1.34 (PodLevelResources), spec.resources.requests of cpu, memory
 *    and hugepages-* replace the containers' figure;
 *  - plus spec.overhead.
 * *present (may be NULL) gets the SCHED_DEFAULT_* bits of the keys that the
 * resulting list holds. Negative quantities count as 0; amounts beyond
 * int64 saturate. */
void sched_pod_requests(const struct sched_pod *pod, enum sched_version v,
			unsigned defaults, struct sched_resources *out,
			unsigned *present);

/* NodeInfo's view of an assigned pod (PodInfo.CalculateResource): R(pod),
 * and the cpu and memory of R with the non-zero defaults. With pod-level
 * requests in force, a default applies only to a resource that neither the
 * pod level nor any container names. */
void sched_pod_node_usage(const struct sched_pod *pod, enum sched_version v,
			  struct sched_resources *req, int64_t *nonzero_milli_cpu,
			  int64_t *nonzero_memory);

#endif
