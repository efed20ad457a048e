/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict: would the kubelet on this node admit this pod, with which NUMA
 * affinity per container, and if not, why. One judge for every caller
 * (explain, serve, replay, simulate). Pure: no I/O, no globals; safe to call
 * concurrently on shared snapshots. */
#ifndef TOPOLOGY_JUDGE_H
#define TOPOLOGY_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmask.h"
#include "demand.h"
#include "inventory.h"

enum verdict_reason {
	REASON_NONE,
	REASON_TOPOLOGY_AFFINITY,     /* TopologyAffinityError */
	REASON_UNEXPECTED_ADMISSION,  /* UnexpectedAdmissionError */
	REASON_CONFIG,                /* TopologyManagerConfigError */
	/* Not a kubelet reason: a merge search on this node ran out of its
	 * budget (merge.h), so the simulation gives no verdict. */
	REASON_NOT_SIMULATED,
	/* Not the judge's: the extender has no inventory for the node
	 * (decide's missingInventory rule). Here so that every reason a node
	 * fails for has one name, in one table. */
	REASON_NO_INVENTORY,
	/* Not the judge's either: the pod's DRA devices would not sit on the
	 * NUMA nodes of its CPUs (dra.alignment: require). */
	REASON_DRA_ALIGNMENT,
	REASON_COUNT,
};

struct verdict_container {
	const char *name;          /* borrowed from the pod */
	bool has_affinity;         /* false: the kubelet stores a nil affinity */
	bitmask_t numa_ids;        /* NUMA ids (not dense indices) */
	bool preferred;
};

struct verdict {
	bool admit;
	enum verdict_reason reason;
	bool unresolvable;         /* not even an empty node would admit */
	enum tm_policy policy;
	enum tm_scope scope;
	char message[480];         /* one line, names resources and NUMA nodes */
	char resources[160];       /* resources that could not be aligned, "a, b" */
	/* Set when reusable init-container units pinned a container to NUMA
	 * nodes where it does not fit (container scope): "reused
	 * init-container CPUs pin cpu to NUMA 0"; verdict_summary adds it. */
	char pinned[160];
	struct verdict_container *containers;
	size_t ncontainers;
	/* Admitted pods: what the pod would take, per node resource (index
	 * as in inventory_node.resources) and dense NUMA index:
	 * usage[resource * numa_count + numa]. NULL when rejected. */
	int64_t *usage;
	int usage_numa;
};

static inline int64_t verdict_usage(const struct verdict *v, int resource, int numa)
{
	return v->usage[(size_t)resource * (size_t)v->usage_numa + (size_t)numa];
}

/* What a judgement computes beyond admit and reason. */
enum judge_flags {
	/* The one-line message with amounts and NUMA nodes, and on a
	 * restricted rejection the exact best (non-preferred) hint. Without it
	 * message is empty and resources still names what could not be aligned. */
	JUDGE_DETAIL = 1,
	/* Whether an empty node would admit (a second judgement on rejection);
	 * without it unresolvable is false. */
	JUDGE_UNRESOLVABLE = 2,
};

/* Judges the pod on the node with everything (JUDGE_DETAIL |
 * JUDGE_UNRESOLVABLE). Fills out (verdict_cleanup frees it). */
void judge_node(const struct inventory_node *node, const struct pod_demand *pod,
		struct verdict *out);
/* The same with only what flags ask for: the filter path needs no message,
 * prioritize neither message nor unresolvable. Admit, reason, resources and,
 * for admitted pods, affinities and usage are always exact. */
void judge_node_ex(const struct inventory_node *node, const struct pod_demand *pod,
		   unsigned flags, struct verdict *out);

void verdict_cleanup(struct verdict *v);

/* A sufficient condition for an emptied node (available = allocatable) to
 * admit the pod, far cheaper than judging it: one NUMA node holds the whole
 * pod (see judge.c for why and for what it leaves to the judgement). False
 * says nothing. A node and its emptied copy give the same answer (only
 * capacity and allocatable are read). Exported for tests. */
bool judge_emptied_fits_one_numa(const struct inventory_node *emptied,
				 const struct pod_demand *pod);

/* The demand's memo of verdicts on emptied nodes (pod_demand.memo); accepts
 * NULL. Called by pod_demand_free. */
struct judge_memo;
void judge_memo_free(struct judge_memo *memo);

/* The short reason for a rejection, identical for identical causes (no
 * node-specific numbers), as kube-scheduler aggregates them in `kubectl
 * describe pod`: "NUMA: cannot align cpu, nvidia.com/gpu on one NUMA node
 * (single-numa-node)". The single place every output (HTTP reply, log,
 * metrics, decision log) takes it from. "" for an admitted verdict. */
void verdict_summary(const struct verdict *v, char *buf, size_t size);

/* "TopologyAffinityError", ... ; "" for REASON_NONE (and out of range). */
const char *verdict_reason_name(enum verdict_reason r);

#endif
