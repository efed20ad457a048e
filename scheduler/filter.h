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

enum sched_code {
	SCHED_SUCCESS,
	SCHED_UNSCHEDULABLE,            /* preemption might help */
	SCHED_UNSCHEDULABLE_UNRESOLVABLE /* it would not */
};

/* A node's status: which filter (or extender, or PreFilter) rejected it and
 * its reasons, each counted separately in the FitError message. */
struct sched_status {
	enum sched_code code;
	/* "NodeAffinity", "Extender", ...: a name of static storage, not
	 * copied (a simulation rejects thousands of nodes a pod); NULL on
	 * success. */
	const char *plugin;
	char **reasons;
	size_t nreasons;
};

void sched_status_cleanup(struct sched_status *st);
/* Marks st rejected by plugin (static storage, kept as given) with code (the
 * more severe code wins) and adds one reason (copied). */
void sched_status_reject(struct sched_status *st, enum sched_code code,
			 const char *plugin, const char *reason);

/* Runs the profile's modelled filters on node; st (zeroed by the caller)
 * stays SCHED_SUCCESS when the node fits. */
void sched_filter_node(const struct sched_pod_cycle *c,
		       const struct sched_node *node, struct sched_status *st);

/* NodeResourcesFit's fitsRequest alone, with the profile's ignored
 * resources and groups. */
void sched_fit_filter(const struct sched_pod_cycle *c,
		      const struct sched_node *node, struct sched_status *st);

/* NodeAffinity's PreFilter: when every required term has matchFields
 * metadata.name In, only the union of those names can fit. Returns false
 * when there is no such restriction; else true with *names (borrowed from
 * the pod, may hold repeats) and *nnames; *nnames 0 means the terms
 * conflict ("pod affinity terms conflict"). *names is the caller's to free. */
bool sched_affinity_node_names(const struct sched_pod *pod, const char ***names,
			       size_t *nnames);

#endif
