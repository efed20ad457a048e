/* SPDX-License-Identifier: Apache-2.0 */
/* Nodes the bind verb found a pod's real DRA devices misaligned on: the
 * scheduler's allocator wrote the claims' allocation (PreBind) and it
 * differs from what filter predicted, or filter could not predict it. The
 * bind fails, kube-scheduler schedules the pod again, and the next filter
 * of that pod must not send it back to the same node: each veto rejects
 * one (pod UID, node) pair, with the bind's reason, until it expires.
 *
 * Bounded: at most DRA_VETO_MAX vetoes (the oldest goes first), each for
 * DRA_VETO_TTL_MS, which outlasts kube-scheduler's longest pod backoff
 * (10 s by default) many times over and still lets a node whose devices
 * were freed since be tried again. Thread-safe: one mutex. */
#ifndef EXTENDER_DECIDE_DRA_VETO_H
#define EXTENDER_DECIDE_DRA_VETO_H

#include <stddef.h>
#include <stdint.h>

#define DRA_VETO_MAX 4096
#define DRA_VETO_TTL_MS ((int64_t)10 * 60 * 1000)
#define DRA_VETO_REASON_MAX 320

struct dra_veto;

struct dra_veto *dra_veto_new(void);
/* Accepts NULL. */
void dra_veto_free(struct dra_veto *v);

/* Vetoes node for the pod uid from now_ms on (a veto of the same pair is
 * renewed with this reason). */
void dra_veto_add(struct dra_veto *v, const char *uid, const char *node, const char *reason,
		  int64_t now_ms);

/* The vetoes of one pod in force at now_ms, looked up once per request. */
struct dra_veto_list {
	char **nodes;
	char **reasons;
	size_t n;
};
/* Fills out (n 0 when none); free with dra_veto_list_free. */
void dra_veto_of(struct dra_veto *v, const char *uid, int64_t now_ms, struct dra_veto_list *out);
/* The reason node is vetoed for, or NULL. */
const char *dra_veto_list_find(const struct dra_veto_list *l, const char *node);
void dra_veto_list_free(struct dra_veto_list *l);

/* Vetoes in force at now_ms (metrics, tests). */
size_t dra_veto_count(struct dra_veto *v, int64_t now_ms);

#endif
