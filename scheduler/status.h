/* SPDX-License-Identifier: Apache-2.0 */
/* Why a node was rejected (a framework.Status: its code, the plugin that
 * failed and its reasons), and where a cycle keeps those reasons. A
 * simulation rejects thousands of nodes a pod, most for one of a few
 * reasons: so a cycle's statuses do not own their texts or arrays. Every
 * reason array is cut from one arena and every text that is not static is
 * interned there once (struct sched_reasons), all freed together with the
 * cycle's result; the same text is then mostly the same pointer, which is
 * what FitError counts by (scheduler/select.h). */
#ifndef SCHEDULER_STATUS_H
#define SCHEDULER_STATUS_H

#include <stdbool.h>
#include <stddef.h>

enum sched_code {
	SCHED_SUCCESS,
	SCHED_UNSCHEDULABLE,            /* preemption might help */
	SCHED_UNSCHEDULABLE_UNRESOLVABLE /* it would not */
};

/* A node's status: which filter (or extender, or PreFilter) rejected it and
 * its reasons, each counted separately in the FitError message. */
struct sched_status {
	enum sched_code code;
	/* "NodeAffinity", "Extender", ...: a name of static storage; NULL on
	 * success. */
	const char *plugin;
	/* nreasons texts, borrowed from the cycle's sched_reasons, or heap
	 * copies the status owns (owned: a status filled on its own, as
	 * sched_filter_node does). */
	const char **reasons;
	size_t nreasons;
	bool owned;
};

/* Frees what st owns and zeroes it. */
void sched_status_cleanup(struct sched_status *st);

/* The reasons of one cycle's statuses. */
struct sched_reasons;

struct sched_reasons *sched_reasons_new(void);
void sched_reasons_free(struct sched_reasons *r);

/* text's copy in r: one copy of each distinct text, the same pointer each
 * time, valid until sched_reasons_free. */
const char *sched_reasons_intern(struct sched_reasons *r, const char *text);

/* Gives st the reasons text[0..n) (each static or interned in r) with code
 * and plugin: the more severe code wins, the first plugin stays. The
 * reasons are added after st's own; with own_copies st gets heap copies of
 * everything (owned), else an array cut from r. */
void sched_status_add(struct sched_reasons *r, struct sched_status *st,
		      enum sched_code code, const char *plugin,
		      const char *const *text, size_t n, bool own_copies);

#endif
