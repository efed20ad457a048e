/* SPDX-License-Identifier: Apache-2.0 */
/* The default profile's filters this model computes, in the order they run,
 * each with kube-scheduler's reason strings. A node stops at its first
 * failing filter (RunFilterPlugins):
 *   NodeUnschedulable  "node(s) were unschedulable" unless the pod tolerates
 *                      node.kubernetes.io/unschedulable:NoSchedule
 *   NodeName           "node(s) didn't match the requested node name"
 *   TaintToleration    the first untolerated NoSchedule/NoExecute taint:
 *                      "node(s) had untolerated taint {key: value}" (1.32,
 *                      1.33), "node(s) had untolerated taint(s)" (1.34+)
 *   NodeAffinity       "node(s) didn't match Pod's node affinity/selector"
 *   NodeResourcesFit   "Too many pods", "Insufficient cpu", "Insufficient
 *                      memory", "Insufficient ephemeral-storage",
 *                      "Insufficient <scalar>" — every one that applies.
 * NodePorts, the volume filters and the PodTopologySpread and
 * InterPodAffinity filters are not modelled: they pass. */
#ifndef SCHEDULER_FILTER_H
#define SCHEDULER_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "scheduler/node_view.h"
#include "scheduler/pod_cycle.h"
#include "scheduler/scalar_index.h"
#include "scheduler/status.h"

/* Runs the profile's modelled filters on node; st (zeroed by the caller)
 * stays SCHED_SUCCESS when the node fits, else owns its reasons. */
void sched_filter_node(const struct sched_pod_cycle *c,
		       const struct sched_node *node, struct sched_status *st);

/* NodeResourcesFit's view of one scalar the pod requests (filter.c). */
struct sched_fit_want;

/* The filters of one pod over many nodes, with what they need worked out
 * once: the scalars NodeResourcesFit checks (the pod's non-zero requests
 * less the profile's ignored ones), each resolved to an index column and
 * with its "Insufficient" text, and room for one node's reasons. */
struct sched_filter_run {
	const struct sched_pod_cycle *pc;
	struct sched_reasons *reasons;
	const struct sched_scalar_index *index;
	bool own_copies;
	struct sched_fit_want *wants;
	size_t nwants;
	/* The node being filtered: its code, plugin and reasons so far. */
	enum sched_code code;
	const char *plugin;
	const char **held;
	size_t nheld;
};

/* Borrows c, reasons (where the statuses' reasons go: texts interned
 * there, arrays cut from it unless own_copies) and index (in sync with the
 * nodes to filter; NULL: scalars are found by name). */
void sched_filter_run_init(struct sched_filter_run *fr, const struct sched_pod_cycle *c,
			   struct sched_reasons *reasons,
			   const struct sched_scalar_index *index, bool own_copies);
void sched_filter_run_cleanup(struct sched_filter_run *fr);

/* sched_filter_node on nodes[i] (i as in the index), into st. */
void sched_filter_run_node(struct sched_filter_run *fr, const struct sched_node *nodes,
			   size_t i, struct sched_status *st);

/* NodeAffinity's PreFilter: when every required term has matchFields
 * metadata.name In, only the union of those names can fit. Returns false
 * when there is no such restriction; else true with *names (borrowed from
 * the pod, may hold repeats) and *nnames; *nnames 0 means the terms
 * conflict ("pod affinity terms conflict"). *names is the caller's to free. */
bool sched_affinity_node_names(const struct sched_pod *pod, const char ***names,
			       size_t *nnames);

#endif
