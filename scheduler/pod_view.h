/* SPDX-License-Identifier: Apache-2.0 */
/* A pod as kube-scheduler reads it: the containers (topology/pod.h, as the
 * pod decoder fills them) plus what the default filters and scores look at —
 * spec.nodeName, spec.schedulerName, status.phase, nodeSelector, node
 * affinity, tolerations, spec.overhead and pod-level requests. Plain data:
 * the decoder in extender/codec/ builds it, tests may build it by hand. */
#ifndef SCHEDULER_POD_VIEW_H
#define SCHEDULER_POD_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/pod.h"

struct sched_label {
	char *key;
	char *value;
};

enum sched_taint_effect {
	SCHED_EFFECT_ALL, /* a toleration's empty effect: every effect */
	SCHED_EFFECT_NO_SCHEDULE,
	SCHED_EFFECT_PREFER_NO_SCHEDULE,
	SCHED_EFFECT_NO_EXECUTE,
};

enum sched_toleration_op {
	SCHED_TOL_EQUAL,  /* also the empty operator */
	SCHED_TOL_EXISTS,
	/* Numeric comparisons behind the TaintTolerationComparisonOperators
	 * gate (alpha in 1.35, off by default): with the gate off they never
	 * tolerate anything, which is what the model does. */
	SCHED_TOL_LT,
	SCHED_TOL_GT,
};

struct sched_toleration {
	char *key;   /* "" tolerates every key (operator Exists) */
	enum sched_toleration_op op;
	char *value; /* "" when absent */
	enum sched_taint_effect effect;
};

enum sched_selector_op {
	SCHED_OP_IN,
	SCHED_OP_NOT_IN,
	SCHED_OP_EXISTS,
	SCHED_OP_DOES_NOT_EXIST,
	SCHED_OP_GT,
	SCHED_OP_LT,
};

/* One matchExpressions or matchFields element. For matchFields the key is
 * metadata.name and the operator In or NotIn with one value (the decoder
 * checks what the API server checks). */
struct sched_requirement {
	char *key;
	enum sched_selector_op op;
	char **values;
	size_t nvalues;
};

/* A nodeSelectorTerm: every requirement must hold. A term with neither
 * expressions nor fields matches no node. */
struct sched_term {
	struct sched_requirement *exprs;
	size_t nexprs;
	struct sched_requirement *fields;
	size_t nfields;
};

struct sched_preferred {
	int32_t weight; /* 1..100; a term of weight 0 is ignored */
	struct sched_term term;
};

struct sched_pod {
	struct pod_spec spec;        /* identity and containers */
	char *node_name;             /* spec.nodeName, NULL when unset */
	char *scheduler_name;        /* spec.schedulerName, NULL when unset */
	char *phase;                 /* status.phase, NULL when unset */
	struct sched_label *node_selector;
	size_t nnode_selector;
	/* requiredDuringSchedulingIgnoredDuringExecution: any term may match. */
	bool has_required;
	struct sched_term *required;
	size_t nrequired;
	struct sched_preferred *preferred;
	size_t npreferred;
	struct sched_toleration *tolerations;
	size_t ntolerations;
	struct pod_quantity *overhead;     /* spec.overhead */
	size_t noverhead;
	struct pod_quantity *pod_requests; /* spec.resources.requests */
	size_t npod_requests;
	/* A decoder's placeholder for an item that did not decode: the message
	 * naming the item and the field; everything else may be empty. */
	char *invalid;
};

void sched_pod_cleanup(struct sched_pod *pod);
void sched_pods_free(struct sched_pod *pods, size_t n);
void sched_term_cleanup(struct sched_term *t);

/* kube-scheduler's cache holds the pods with spec.nodeName set whose phase
 * is neither Succeeded nor Failed (the informer's field selector): those
 * count on their node. */
bool sched_pod_is_assigned(const struct sched_pod *pod);

/* The scheduler name a pod asks for: spec.schedulerName, else
 * "default-scheduler" (the API server's default). */
const char *sched_pod_scheduler(const struct sched_pod *pod);

#endif
