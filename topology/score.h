/* SPDX-License-Identifier: Apache-2.0 */
/* Scoring a node for a pod on the placement the simulation predicts (the
 * NUMA nodes and amounts in an admitted verdict), 0..10 as the extender
 * protocol wants. Pure and deterministic: integer arithmetic except
 * BalancedAllocation's standard deviation. Unlike scheduler-plugins'
 * NodeResourceTopologyMatch it indexes NUMA nodes densely (sparse ids are
 * fine), counts exclusive CPUs exactly (no Value() rounding of 1500m), and
 * ignores host-level resources (ephemeral-storage, untracked devices). */
#ifndef TOPOLOGY_SCORE_H
#define TOPOLOGY_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "demand.h"
#include "inventory.h"
#include "judge.h"

enum score_strategy {
	SCORE_LEAST_ALLOCATED,     /* prefer the emptiest NUMA placement (spread) */
	SCORE_MOST_ALLOCATED,      /* prefer the fullest (pack, keep whole NUMA nodes free) */
	SCORE_BALANCED_ALLOCATION, /* prefer equal utilisation across resources */
	SCORE_LEAST_NUMA_NODES,    /* prefer fewer NUMA nodes, then closer ones */
};

#define SCORE_MAX 10
#define SCORE_MAX_WEIGHT 100
#define SCORE_MAX_PARTS 16

struct score_weight {
	char *name;
	int64_t weight;            /* 0..SCORE_MAX_WEIGHT; 0 excludes the resource */
};

/* Resources the pod uses but the list does not name count with weight 1. */
struct score_config {
	enum score_strategy strategy;
	struct score_weight *weights;
	size_t nweights;
};

/* One resource's share of the score. */
struct score_part {
	const char *resource;      /* borrowed from the node */
	int64_t weight;
	int64_t score100;          /* 0..100 */
	int64_t requested;         /* what the pod takes on the placement */
	int64_t used;              /* already taken there before the pod */
	int64_t allocatable;       /* on the placement */
};

struct score_breakdown {
	int64_t score;             /* 0..SCORE_MAX, what the extender answers */
	int64_t score100;          /* the same before scaling, 0..100 */
	int numa_used;             /* NUMA nodes in the placement */
	struct score_part parts[SCORE_MAX_PARTS];
	size_t nparts;
	const char *note;          /* why the score is neutral, or NULL */
};

/* Scores an admitted verdict; a rejected verdict scores 0 (note says so).
 * out may be NULL. */
int64_t score_node(const struct score_config *cfg, const struct inventory_node *node,
		   const struct verdict *v, struct score_breakdown *out);

/* A part of the score that the simulation does not compute (the DRA
 * alignment: "dra", 0 or 100), weighted like a resource: its weight is the
 * one scoring.resources gives its name, 1 when not listed. */
struct score_extra {
	const char *name;
	int64_t score100;          /* 0..100 */
};

/* score_node with extra (NULL: score_node) among the parts. The node score
 * is the weighted mean of the strategy's node score (its weight the sum of
 * the weights of the resources it looked at) and the extra's score: for
 * LeastAllocated and MostAllocated that is the weighted mean over every
 * part, exactly as if the extra were one more resource. A placement that
 * scores nothing (no NUMA-bound request, all weights 0) leaves the extra
 * out. */
int64_t score_node_extra(const struct score_config *cfg, const struct inventory_node *node,
			 const struct verdict *v, const struct score_extra *extra,
			 struct score_breakdown *out);

const char *score_strategy_name(enum score_strategy s);
/* "LeastAllocated", ... -> strategy; false when unknown. */
bool score_strategy_parse(const char *name, enum score_strategy *out);

void score_config_cleanup(struct score_config *cfg);

#endif
