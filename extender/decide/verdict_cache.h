/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions remembered across requests: pods of one workload share a demand,
 * and kube-scheduler asks about each of them in turn (filter, then
 * prioritize). An entry is keyed by the node snapshot's id, the settings
 * value's id and the demand's id (pod_demand_key, interned here), so any
 * change of inventory, ledger, config or request misses, and a hit is exactly
 * what the judge would answer.
 *
 * Verdicts: a set-associative table of VERDICT_CACHE_SETS sets of
 * VERDICT_CACHE_WAYS ways, the set chosen by a 64-bit mix of the three ids;
 * CLOCK (second chance) evicts within a set. One demand's 5000 nodes spread
 * over thousands of sets and do not evict each other. Demands: keys interned
 * by hash into a bounded table that evicts old keys by CLOCK; an evicted key
 * gets a new id when seen again, and no id is ever given to two keys.
 *
 * Memory, all of it bounded: fixed tables of about 9.6 MiB (131,072 verdicts
 * of 72 bytes with their tags, 0.5 MiB for the demands; untouched pages cost
 * nothing); reasons interned once each, up to 4,096 texts and 1 MiB, and
 * past that one allocation per remembered rejection for its own copy, at
 * most VERDICT_REASON_MAX bytes (42 MiB if every verdict held were a
 * rejection with its own longest reason; real reasons are about 60 to 150
 * bytes and a cluster has few distinct ones); and at most 16,384 demand keys
 * of at most 16 MiB of text in all.
 *
 * Thread-safe: every operation locks one stripe of sets (1,024 stripes for
 * the verdicts, 256 for the demands); nothing is shared across stripes but
 * an atomic id counter. */
#ifndef EXTENDER_VERDICT_CACHE_H
#define EXTENDER_VERDICT_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "topology/judge.h"

#define VERDICT_REASON_MAX 320
#define VERDICT_CACHE_WAYS 16
#define VERDICT_CACHE_SETS 8192
#define VERDICT_CACHE_ENTRIES (VERDICT_CACHE_WAYS * VERDICT_CACHE_SETS)
#define VERDICT_CACHE_DEMANDS 16384
/* A longer demand key is not interned: each call gets a fresh id (a miss
 * every time, never a wrong answer). */
#define VERDICT_CACHE_DEMAND_KEY_MAX 16384

/* What a decision leaves to remember. */
struct verdict_entry {
	unsigned char outcome;                /* the caller's outcome enum value */
	char reason[VERDICT_REASON_MAX];      /* copied in and out ("" when passing) */
	enum verdict_reason kubelet_reason;
	int64_t score;
	uint64_t numa_ids;
	unsigned char dra;                    /* the caller's DRA outcome enum value */
};

struct verdict_cache_stats {
	uint64_t hits, misses;      /* get() calls, since the start or the last clear */
	uint64_t evictions;         /* verdicts pushed out by others (not replaced by a put of the same key) */
	uint64_t entries;           /* verdicts held now */
	uint64_t demands;           /* demand keys held now */
	uint64_t reasons;           /* distinct reason texts interned (bounded; see verdict_cache.c) */
	uint64_t demand_evictions;  /* demand keys pushed out by others */
};

/* The id of a demand key: never 0; the same while the key stays interned;
 * never given to another key. */
uint64_t verdict_cache_demand(const char *key);
/* verdict_cache_demand, and *fresh: whether this call gave the id (the key
 * was not interned). No verdict can be held under a fresh id until someone
 * puts one, so the caller that got it may skip its lookups (a cold filter's
 * thousands of misses, each a few cache misses in a table of megabytes) and
 * count them with verdict_cache_count_misses. */
uint64_t verdict_cache_intern(const char *key, bool *fresh);
/* Adds n to the misses, for lookups skipped as above. */
void verdict_cache_count_misses(uint64_t n);
/* Asks the CPU to bring the lines a get or put of this key will touch into
 * the cache (no effect on the contents): issued a node ahead, they arrive
 * while the node before is judged. */
void verdict_cache_prefetch(uint64_t node_id, uint64_t settings_id, uint64_t demand_id);
/* Copies the remembered entry into *out; false (a miss) when there is none.
 * Demand id 0 never hits and is not counted. */
bool verdict_cache_get(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       struct verdict_entry *out);
/* Remembers a copy of *e (its reason up to the first NUL), replacing what the
 * same key held. Demand id 0 is not remembered. */
void verdict_cache_put(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       const struct verdict_entry *e);
void verdict_cache_stats(struct verdict_cache_stats *out);
/* Forgets every verdict and demand key and zeroes the counters (tests); ids
 * given before are still never given again. */
void verdict_cache_clear(void);

#endif
