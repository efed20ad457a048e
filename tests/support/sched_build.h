/* SPDX-License-Identifier: Apache-2.0 */
/* Builds scheduler views of nodes and pods by hand for tests: quantities
 * as text ("500m", "1Gi"), everything owned by the view and freed by
 * sched_node_cleanup / sched_pod_cleanup. A bad quantity aborts the test. */
#ifndef TESTS_SUPPORT_SCHED_BUILD_H
#define TESTS_SUPPORT_SCHED_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler/node_view.h"
#include "scheduler/pod_view.h"

/* A node with allocatable cpu, memory and pods (cpu known). */
void sb_node(struct sched_node *n, const char *name, const char *cpu,
	     const char *mem, int64_t pods);
/* Sets one allocatable amount. */
void sb_node_alloc(struct sched_node *n, const char *resource, const char *qty);
/* Pods already there requesting cpu and memory, with explicit requests (so
 * the non-zero sums are the same). */
void sb_node_used(struct sched_node *n, const char *cpu, const char *mem,
		  int64_t pods);
void sb_node_label(struct sched_node *n, const char *key, const char *value);
void sb_node_taint(struct sched_node *n, const char *key, const char *value,
		   enum sched_taint_effect effect);

/* A pod with no container yet. */
void sb_pod(struct sched_pod *p, const char *name);
/* Appends a container; returns its index. Init containers must be added
 * before app containers, as in a decoded pod. */
size_t sb_container(struct sched_pod *p, enum container_kind kind);
void sb_request(struct sched_pod *p, size_t c, const char *resource, const char *qty);
void sb_limit(struct sched_pod *p, size_t c, const char *resource, const char *qty);
void sb_overhead(struct sched_pod *p, const char *resource, const char *qty);
void sb_pod_request(struct sched_pod *p, const char *resource, const char *qty);
/* A one-container pod requesting cpu and memory (NULL: not requested). */
void sb_simple_pod(struct sched_pod *p, const char *name, const char *cpu,
		   const char *mem);
void sb_toleration(struct sched_pod *p, const char *key, enum sched_toleration_op op,
		   const char *value, enum sched_taint_effect effect);
void sb_node_selector(struct sched_pod *p, const char *key, const char *value);
/* A new required term / preferred term of weight w. */
struct sched_term *sb_required(struct sched_pod *p);
struct sched_term *sb_preferred(struct sched_pod *p, int32_t weight);
/* Adds an expression (fields: a matchFields element) with the values that
 * follow, NULL-terminated. */
void sb_expr(struct sched_term *t, int fields, const char *key,
	     enum sched_selector_op op, ...);

#endif
