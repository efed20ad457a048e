/* SPDX-License-Identifier: Apache-2.0 */
/* Amounts of resources the way kube-scheduler keeps them (Resource in
 * pkg/scheduler/framework/types.go): cpu in millicores, memory and
 * ephemeral-storage in bytes, the allowed pod count, and "scalar" resources
 * by name. A name that is none of these is dropped, as upstream drops it.
 * Sums saturate at INT64_MAX instead of wrapping (base/checked.h). */
#ifndef SCHEDULER_RESOURCES_H
#define SCHEDULER_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "topology/pod.h"

/* hugepages-<anything> (v1helper.IsHugePageResourceName). */
bool sched_name_is_hugepages(const char *name);
/* An extended resource (v1helper.IsExtendedResourceName): a prefixed name
 * outside *kubernetes.io/, not starting with "requests.", that stays a
 * qualified name with "requests." in front. */
bool sched_name_is_extended(const char *name);
/* A scalar resource (schedutil.IsScalarResourceName): extended, hugepages-*,
 * *kubernetes.io/<name> or attachable-volumes-*. */
bool sched_name_is_scalar(const char *name);

struct sched_scalar {
	char *name;
	int64_t value;
};

struct sched_resources {
	int64_t milli_cpu;
	int64_t memory;
	int64_t ephemeral_storage;
	int64_t pods;                 /* allocatable only */
	struct sched_scalar *scalars; /* strictly sorted by name (strcmp) */
	size_t nscalars;
};

void sched_resources_cleanup(struct sched_resources *r);
/* dst becomes a deep copy of src (dst's old content is freed). */
void sched_resources_copy(struct sched_resources *dst,
			  const struct sched_resources *src);

/* The amount of name: cpu (millicores), memory, ephemeral-storage, pods or a
 * scalar; 0 when absent. *present (may be NULL) says whether a scalar is
 * listed; the four fixed ones are always present. */
int64_t sched_resources_get(const struct sched_resources *r, const char *name,
			    bool *present);
/* Adds v (saturating) to name's amount, creating a scalar entry when needed.
 * A name that is neither fixed nor scalar is ignored. */
void sched_resources_add(struct sched_resources *r, const char *name, int64_t v);
/* Sets name's amount. */
void sched_resources_set(struct sched_resources *r, const char *name, int64_t v);
/* dst += src for every amount, pods included. */
void sched_resources_add_all(struct sched_resources *dst,
			     const struct sched_resources *src);

/* NewResource(list): a node's status.allocatable. cpu becomes MilliValue(),
 * everything else Value(), both rounded up; a negative amount counts as 0
 * and an amount beyond int64 as INT64_MAX. */
void sched_resources_from_list(struct sched_resources *r,
			       const struct pod_quantity *list, size_t n);

/* A quantity at the scale kube-scheduler uses for name (millicores for cpu,
 * else units), rounded up, clamped to 0..INT64_MAX. */
int64_t sched_quantity_value(const char *name, const struct quantity *q);

#endif
