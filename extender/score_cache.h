/* SPDX-License-Identifier: Apache-2.0 */
/* Scores computed by filter, kept for the prioritize call that
 * kube-scheduler sends right after it for the same pod: a few entries keyed
 * by the pod's demand (pod_demand_key), the inventory generation and the
 * settings value. Any change to one of the three misses, so a hit is exactly
 * what prioritize would compute. Thread-safe. */
#ifndef EXTENDER_SCORE_CACHE_H
#define EXTENDER_SCORE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "extender/settings.h"

/* Records scores for names (copied); takes its own settings reference. */
void score_cache_put(const char *key, uint64_t generation, struct settings *settings,
		     char *const *names, const int64_t *scores, size_t n);

/* Fills scores[i] for the names found and sets found[i]; returns how many
 * were found (0 when there is no matching entry). */
size_t score_cache_get(const char *key, uint64_t generation, const struct settings *settings,
		       char *const *names, size_t n, int64_t *scores, unsigned char *found);

/* Drops every entry (tests, shutdown). */
void score_cache_clear(void);

#endif
