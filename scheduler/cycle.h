/* SPDX-License-Identifier: Apache-2.0 */
/* One scheduling cycle of one pod, as kube-scheduler runs it around its
 * extenders (schedulePod, findNodesThatFitPod, findNodesThatPassExtenders,
 * prioritizeNodes in pkg/scheduler/schedule_one.go):
 *  1. NodeAffinity's PreFilter may restrict the nodes to the names of
 *     required matchFields terms;
 *  2. the filters run over the nodes from index start on, wrapping, until
 *     numFeasibleNodesToFind nodes fit (all of them below 100 nodes);
 *  3. each extender in turn (the ignorable ones last) that is interested in
 *     the pod and has a filter verb filters what is left; an error fails the
 *     cycle unless the extender is ignorable;
 *  4. no node left: unschedulable, with FitError's message; one node: it is
 *     taken without scoring (no extender prioritize call either);
 *  5. the score plugins, then every interested extender's prioritize:
 *     score × weight × 10 added per node it returns (an error adds nothing);
 *  6. the highest total wins; ties are reported whole, and the first by name
 *     is taken.
 * The extenders' answers come from the caller (sched_extender_ops): in
 * simulate, numa-extender's own decision. Deterministic: upstream filters in
 * parallel and breaks ties at random, this model does neither. */
#ifndef SCHEDULER_CYCLE_H
#define SCHEDULER_CYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "scheduler/config.h"
#include "scheduler/filter.h"
#include "scheduler/node_view.h"
#include "scheduler/pod_view.h"
#include "scheduler/score.h"
#include "scheduler/version.h"

/* What one extender's filter verb answered, for candidates cand[0..n). */
struct sched_ext_filter {
	bool *pass;               /* n, all false on entry: set the kept ones */
	const char **reason;      /* n, NULL on entry: why a node was dropped
				   * (copied before the next call) */
	bool *unresolvable;       /* n: in failedAndUnresolvableNodes */
	/* The answer carried Node objects rather than names (nodeCacheCapable
	 * false, or NodeNames absent): kube-scheduler builds new, empty
	 * NodeInfos for them, which its Score plugins see from 1.33 on. */
	bool echoed;
};

struct sched_extender_ops {
	void *arg;
	/* Extender number ext (index into config->extenders) filters
	 * nodes[cand[0..n)]. ERR_OK, or an error with msg set. NULL: every
	 * filtering extender keeps every node. */
	enum err (*filter)(void *arg, size_t ext, const struct sched_pod *pod,
			   const struct sched_node *nodes, const size_t *cand,
			   size_t n, struct sched_ext_filter *out,
			   struct errmsg *msg);
	/* Extender ext scores nodes[idx[0..n)]: score[i] for each node with
	 * has[i] set (both zeroed on entry). The scheduler multiplies by
	 * weight × 10 and does not clamp. NULL: no extender scores. */
	enum err (*prioritize)(void *arg, size_t ext, const struct sched_pod *pod,
			       const struct sched_node *nodes, const size_t *idx,
			       size_t n, int64_t *score, bool *has,
			       struct errmsg *msg);
};

struct sched_cycle_in {
	const struct sched_config *config;   /* global percentage, extenders */
	const struct sched_profile *profile; /* the pod's profile */
	enum sched_version version;
	const struct sched_pod *pod;
	const struct sched_node *nodes;      /* in the scheduler's order */
	size_t nnodes;                       /* placeholders (invalid) are skipped */
	size_t start;                        /* nextStartNodeIndex, 0 at first */
	const struct sched_extender_ops *ops; /* NULL: extenders left out */
};

enum sched_outcome {
	SCHED_SCHEDULED,
	SCHED_NO_FIT, /* FitError: preemption would be next */
	SCHED_ERROR,  /* an extender failed, or there is no node at all */
};

enum sched_stage {
	SCHED_NOT_CHECKED,  /* enough nodes fitted before its turn */
	SCHED_PREFILTERED,  /* outside NodeAffinity's PreFilter names */
	SCHED_FILTERED,     /* an in-tree filter rejected it */
	SCHED_EXTENDER_FILTERED,
	SCHED_FEASIBLE,     /* passed everything */
};

struct sched_cycle_out {
	enum sched_outcome outcome;
	size_t chosen;          /* node index when scheduled */
	size_t *tied;           /* node indices at the top total, by name */
	size_t ntied;
	bool scored;            /* scoring ran (more than one feasible node) */
	bool fresh;             /* scores saw empty NodeInfos (see echoed) */
	bool approximate;       /* a node without known cpu took part */
	int64_t num_to_find;    /* numFeasibleNodesToFind */
	size_t nfeasible;       /* after the in-tree filters */
	size_t next_start;      /* nextStartNodeIndex for the next pod */
	size_t nnodes;          /* = in->nnodes */
	enum sched_stage *stage;      /* nnodes */
	struct sched_status *status;  /* nnodes: why a node was rejected */
	struct sched_reasons *reasons; /* the statuses' reasons live here */
	struct sched_node_score *scores; /* nscores, when scored */
	size_t nscores;
	char *message;          /* SCHED_NO_FIT: FitError; SCHED_ERROR: the error */
};

/* Runs the cycle. out is overwritten; free it with sched_cycle_out_cleanup.
 * Returns out->outcome. */
enum sched_outcome sched_schedule_one(const struct sched_cycle_in *in,
				      struct sched_cycle_out *out);
void sched_cycle_out_cleanup(struct sched_cycle_out *out);

/* What the cycles of one simulation share: the scalar index of its nodes
 * (scheduler/scalar_index.h: the nodes may gain pods between cycles, any
 * other change to their resources wants a new context) and the cycle's
 * working arrays, so that a cycle over thousands of nodes neither compares
 * resource names nor allocates per node. */
struct sched_cycle_ctx;

struct sched_cycle_ctx *sched_cycle_ctx_new(void);
void sched_cycle_ctx_free(struct sched_cycle_ctx *ctx);

/* sched_schedule_one with ctx. */
enum sched_outcome sched_schedule_one_ctx(const struct sched_cycle_in *in,
					  struct sched_cycle_ctx *ctx,
					  struct sched_cycle_out *out);

/* The score of node index `node` in out->scores, or NULL. */
const struct sched_node_score *sched_cycle_score(const struct sched_cycle_out *out,
						 size_t node);

#endif
