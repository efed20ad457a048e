/* SPDX-License-Identifier: Apache-2.0 */
/* The reloadable part of the configuration (scoring, missing-inventory
 * stance, log level) as an immutable, refcounted value. SIGHUP builds a new
 * one and swaps it in; a request takes one reference for its whole duration,
 * so a reload never changes a decision half-way. */
#ifndef EXTENDER_SETTINGS_H
#define EXTENDER_SETTINGS_H

#include <pthread.h>
#include <stdint.h>

#include "extender/config.h"

struct settings {
	int refs;                       /* atomic */
	struct score_config scoring;
	enum config_missing missing_inventory;
	enum log_level log_level;
	uint64_t id;                    /* unique per value: a cache key part */
	/* dra.alignment, dra.unknownNUMA, dra.allocatorOrder. */
	enum config_dra_alignment dra_alignment;
	enum config_dra_unknown_numa dra_unknown_numa;
	enum config_dra_order dra_order;
};

struct settings_holder {
	pthread_mutex_t lock;
	struct settings *current;
};

/* A new value copied from cfg (one reference). */
struct settings *settings_new(const struct config *cfg);
void settings_unref(struct settings *s);

void settings_holder_init(struct settings_holder *h, struct settings *initial);
void settings_holder_cleanup(struct settings_holder *h);
/* The current value, referenced. */
struct settings *settings_acquire(struct settings_holder *h);
/* Replaces the current value (takes ownership of s). */
void settings_replace(struct settings_holder *h, struct settings *s);

#endif
