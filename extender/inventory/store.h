/* SPDX-License-Identifier: Apache-2.0 */
/* The inventory store: the current set of node snapshots, immutable and
 * refcounted. Sources (files, Kubernetes) publish changes in batches; each
 * publish builds a new set that shares the unchanged snapshots and swaps it in
 * atomically. A request takes a reference to the current set once
 * (store_acquire) and judges every node against that one set, so it never
 * sees half an update and never waits for a writer (the swap holds a mutex
 * for a pointer copy only). Thread-safe. */
#ifndef EXTENDER_STORE_H
#define EXTENDER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/inventory.h"

/* One node's snapshot and where it came from. */
struct store_node {
	struct inventory_node *inventory;
	char *origin;          /* file path, or "kubernetes" */
	char *version;         /* resourceVersion or content hash */
	int64_t loaded_ms;     /* CLOCK_REALTIME ms when built */
	char *raw;             /* the object as JSON (for the decision log), or NULL */
	uint64_t id;           /* unique per snapshot: a cache key part */
	int refs;              /* atomic; owned by the sets that hold it */
	/* The source's snapshot this one was derived from by the overlay
	 * (referenced), or NULL when this is the source's snapshot itself. */
	struct store_node *base;
};

struct store_set;

struct store;

struct store *store_new(void);
/* Frees the store and its current set (callers must have released theirs). */
void store_free(struct store *s);

/* The current set, referenced; release with store_release. Never NULL. */
struct store_set *store_acquire(struct store *s);
void store_release(struct store_set *set);

/* Extra references on one node snapshot (for work that outlives a set). */
void store_node_ref(const struct store_node *n);
void store_node_unref(const struct store_node *n);

/* Lookup by node name in a set: borrowed, valid while the set is held. */
const struct store_node *store_get(const struct store_set *set, const char *name);
/* store_get of each of n names into out[0..n): the same answers, with the
 * lookups' cache misses overlapped (a filter asks thousands of names). */
void store_get_many(const struct store_set *set, const char *const *names, size_t n,
		    const struct store_node **out);
size_t store_size(const struct store_set *set);
/* The i-th node in name order (0 <= i < store_size). */
const struct store_node *store_at(const struct store_set *set, size_t i);
/* Publish generation of the set (increments with every publish). */
uint64_t store_generation(const struct store_set *set);

/* A batch of changes, applied together by store_publish. */
struct store_batch;

struct store_batch *store_batch_new(void);
/* Adds or replaces a node; takes ownership of inventory. */
void store_batch_put(struct store_batch *b, struct inventory_node *inventory, const char *origin,
		     const char *version);
/* The same, keeping the object's JSON text (takes ownership of raw). */
void store_batch_put_raw(struct store_batch *b, struct inventory_node *inventory,
			 const char *origin, const char *version, char *raw);
void store_batch_delete(struct store_batch *b, const char *name);
size_t store_batch_size(const struct store_batch *b);
/* Applies and frees the batch; returns the new generation. */
uint64_t store_publish(struct store *s, struct store_batch *b);
void store_batch_free(struct store_batch *b);

/* A node snapshot outside any batch (refs 1): what an overlay returns.
 * Takes ownership of inventory and raw. */
struct store_node *store_node_new(struct inventory_node *inventory, const char *origin,
				  const char *version, char *raw);

/* The overlay (the assumed-pod ledger) derives what requests see from what
 * the source published: called for every node a publish puts and for every
 * node store_refresh names, with the store's publish lock held (it must not
 * publish itself). It returns a new snapshot (store_node_new) to publish in
 * place of base, which the store then links as its base, or NULL to publish
 * base as it is. A deletion calls it with base NULL (its answer is ignored).
 * Set it before the first publish. */
typedef struct store_node *(*store_overlay_fn)(void *arg, const char *name,
					       const struct store_node *base);
void store_set_overlay(struct store *s, store_overlay_fn fn, void *arg);
/* Derives the named nodes again from their bases (those in the current set)
 * and publishes the result; returns the new generation. */
uint64_t store_refresh(struct store *s, const char *const *names, size_t n);

/* Freshness: sources call store_touch whenever they hear from their origin
 * (a list, watch bytes, a bookmark); 0 until the first contact. */
void store_touch(struct store *s);
int64_t store_last_contact_ms(struct store *s);
/* Milliseconds of CLOCK_REALTIME, the clock of loaded_ms and contacts. */
int64_t store_now_ms(void);

/* Readiness: set once the source's first complete load is in. */
void store_set_ready(struct store *s, bool ready);
bool store_ready(struct store *s);

#endif
