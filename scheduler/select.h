/* SPDX-License-Identifier: Apache-2.0 */
/* How many nodes kube-scheduler looks for, which node it takes, and the
 * message of a pod that fits nowhere (pkg/scheduler/schedule_one.go,
 * pkg/scheduler/framework/types.go FitError). */
#ifndef SCHEDULER_SELECT_H
#define SCHEDULER_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler/config.h"
#include "scheduler/filter.h"
#include "scheduler/node_view.h"
#include "scheduler/score.h"

/* numFeasibleNodesToFind(percentage, n): every node below 100 nodes;
 * otherwise percentage (0: 50 - n/125, at least 5) of n, at least 100.
 * 500 -> 230, 1000 -> 420, 5000 -> 500, 6000 -> 300. */
int64_t sched_num_feasible(int32_t percentage, int64_t n);

/* The percentage in force: the profile's when set, else the global one. */
int32_t sched_percentage(const struct sched_config *c,
			 const struct sched_profile *p);

/* The nodes tied at the highest total, as indices into scores, sorted by
 * node name (strcmp), written to tied; returns how many (0 when n is 0).
 * kube-scheduler picks one of them at random (1.32-1.34 reservoir sampling,
 * 1.35 a random tie-break among nodes an extender scored); the model takes
 * the first by name so that a simulation is repeatable. */
size_t sched_top_nodes(const struct sched_node_score *scores, size_t n,
		       const struct sched_node *nodes, size_t *tied);

/* FitError's message: "0/<nall> nodes are available: <count> <reason>, ...."
 * with each distinct reason counted over the statuses and the entries
 * sorted as strings; prefilter (may be NULL) replaces the list when a
 * PreFilter plugin rejected the pod. Heap string. */
char *sched_fit_error(const struct sched_status *status, size_t n, size_t nall,
		      const char *prefilter);

#endif
