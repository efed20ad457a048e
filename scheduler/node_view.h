/* SPDX-License-Identifier: Apache-2.0 */
/* A node as kube-scheduler's NodeInfo holds it: name, labels, taints,
 * spec.unschedulable, status.allocatable, and what the pods assigned to it
 * request (Requested, NonZeroRequested, the pod count). */
#ifndef SCHEDULER_NODE_VIEW_H
#define SCHEDULER_NODE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/pod_view.h"
#include "scheduler/resources.h"
#include "scheduler/version.h"

struct sched_taint {
	char *key;
	char *value; /* "" when absent */
	enum sched_taint_effect effect; /* never SCHED_EFFECT_ALL */
};

struct sched_node {
	char *name;
	struct sched_label *labels;
	size_t nlabels;
	struct sched_taint *taints;
	size_t ntaints;
	bool unschedulable;
	struct sched_resources allocatable;
	/* False when the source did not say the node's allocatable cpu (a node
	 * known from a NodeResourceTopology object alone): NodeResourcesFit then
	 * leaves cpu out of its filter, and its scores skip cpu as upstream does
	 * for an allocatable of 0. Results built from such a node are marked
	 * approximate. */
	bool cpu_known;
	struct sched_resources requested;  /* Σ R(pod) of the assigned pods */
	int64_t nonzero_milli_cpu;         /* the same with 100m per container lacking cpu */
	int64_t nonzero_memory;            /* ... and 200Mi per container lacking memory */
	int64_t npods;
	char *invalid; /* as sched_pod.invalid */
};

void sched_node_cleanup(struct sched_node *node);
void sched_nodes_free(struct sched_node *nodes, size_t n);

/* The value of label key, or NULL. */
const char *sched_node_label(const struct sched_node *node, const char *key);

/* Counts pod on node the way NodeInfo.AddPod does: Requested += R(pod),
 * NonZeroRequested += the non-zero cpu and memory, one pod more. */
void sched_node_add_pod(struct sched_node *node, const struct sched_pod *pod,
			enum sched_version v);

/* Adds every assigned pod (sched_pod_is_assigned) to the node it names.
 * Returns how many assigned pods named a node that is not in nodes (or an
 * invalid one); pods marked invalid are skipped and not counted. */
size_t sched_nodes_add_pods(struct sched_node *nodes, size_t n,
			    const struct sched_pod *pods, size_t npods,
			    enum sched_version v);

/* The scheduler's node order (its node tree): nodes grouped by zone (the
 * region and zone labels, the deprecated failure-domain.beta ones first),
 * zones in order of first appearance, then one node of each zone in turn.
 * nodes are taken as inserted in their array order. order gets n indices. */
void sched_node_tree_order(const struct sched_node *nodes, size_t n,
			   size_t *order);

#endif
