/* SPDX-License-Identifier: Apache-2.0 */
/* Copy-on-publish node sets: a sorted array of refcounted node snapshots.
 * Lookups go through a hash index of positions, which a set shares with the
 * one before it when the names did not change (every ledger refresh and NRT
 * update); a publish merges the sorted batch into a new array (O(nodes +
 * batch)), sharing every unchanged snapshot. */
#include "extender/inventory/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/hash.h"
#include "base/xalloc.h"

static _Atomic uint64_t next_node_id = 1;

/* Open addressing: slot -> position + 1 in the set's sorted array (low 32
 * bits; 0: empty) and the high 32 bits of the name's hash, so that a probe
 * of another name is passed over without following it to its name (four
 * dependent cache misses away in a large set). */
struct name_index {
	_Atomic int refs;
	uint64_t *slots;
	size_t mask;
};

static inline uint64_t slot_tag(size_t h)
{
	return (uint64_t)h >> 32 << 32;
}

struct store_set {
	_Atomic int refs;
	uint64_t generation;
	struct store_node **nodes;  /* sorted by inventory->name */
	size_t n;
	struct name_index *index;   /* NULL: binary search */
};

struct store {
	pthread_mutex_t lock;          /* guards the pointer `current` */
	pthread_mutex_t publish_lock;  /* one publisher at a time */
	struct store_set *current;
	_Atomic bool ready;
	_Atomic int64_t last_contact_ms;
	store_overlay_fn overlay;
	void *overlay_arg;
};

struct batch_entry {
	char *name;
	struct store_node *node;    /* NULL: delete */
};

struct store_batch {
	struct batch_entry *entries;
	size_t n, cap;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void node_ref(struct store_node *n)
{
	atomic_fetch_add_explicit((_Atomic int *)&n->refs, 1, memory_order_relaxed);
}

static void node_unref(struct store_node *n)
{
	if (n == NULL)
		return;
	if (atomic_fetch_sub_explicit((_Atomic int *)&n->refs, 1, memory_order_acq_rel) != 1)
		return;
	node_unref(n->base);
	inventory_node_free(n->inventory);
	free(n->raw);
	free(n->origin);
	free(n->version);
	free(n);
}

void store_node_ref(const struct store_node *n)
{
	node_ref((struct store_node *)(uintptr_t)n);
}

void store_node_unref(const struct store_node *n)
{
	node_unref((struct store_node *)(uintptr_t)n);
}

static struct store_set *set_new(size_t n, uint64_t generation)
{
	struct store_set *set = xcalloc(1, sizeof *set);

	atomic_init(&set->refs, 1);
	set->generation = generation;
	set->nodes = xcalloc(n ? n : 1, sizeof *set->nodes);
	return set;
}

static void index_unref(struct name_index *x)
{
	if (x == NULL || atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(x->slots);
	free(x);
}

static struct name_index *index_build(const struct store_set *set)
{
	struct name_index *x;
	size_t slots = 16, i;

	if (set->n >= UINT32_MAX / 4)
		return NULL;
	while (slots < 2 * set->n)
		slots *= 2;
	x = xcalloc(1, sizeof *x);
	atomic_init(&x->refs, 1);
	x->slots = xcalloc(slots, sizeof *x->slots);
	x->mask = slots - 1;
	for (i = 0; i < set->n; i++) {
		size_t h = hash_key(set->nodes[i]->inventory->name), at = h & x->mask;

		while (x->slots[at] != 0)
			at = (at + 1) & x->mask;
		x->slots[at] = slot_tag(h) | (uint32_t)(i + 1);
	}
	return x;
}

/* Same names at the same positions: a publish that only replaced snapshots. */
static bool same_names(const struct store_set *a, const struct store_set *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->nodes[i] != b->nodes[i] &&
		    strcmp(a->nodes[i]->inventory->name, b->nodes[i]->inventory->name) != 0)
			return false;
	return true;
}

void store_release(struct store_set *set)
{
	size_t i;

	if (set == NULL)
		return;
	if (atomic_fetch_sub_explicit(&set->refs, 1, memory_order_acq_rel) != 1)
		return;
	index_unref(set->index);
	for (i = 0; i < set->n; i++)
		node_unref(set->nodes[i]);
	free(set->nodes);
	free(set);
}

struct store *store_new(void)
{
	struct store *s = xcalloc(1, sizeof *s);

	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->publish_lock, NULL);
	s->current = set_new(0, 0);
	atomic_init(&s->ready, false);
	atomic_init(&s->last_contact_ms, 0);
	return s;
}

void store_free(struct store *s)
{
	if (s == NULL)
		return;
	store_release(s->current);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->publish_lock);
	free(s);
}

struct store_set *store_acquire(struct store *s)
{
	struct store_set *set;

	pthread_mutex_lock(&s->lock);
	set = s->current;
	atomic_fetch_add_explicit(&set->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&s->lock);
	return set;
}

/* The first slot from at holding a name of hash h (tag and position), or
 * an empty one (0): probes of other names are passed over by their tags. */
static inline uint64_t probe(const struct name_index *x, size_t at, size_t h)
{
	uint64_t tag = slot_tag(h), v;

	while ((v = x->slots[at]) != 0 && (v >> 32 << 32) != tag)
		at = (at + 1) & x->mask;
	return v;
}

/* The slow path of an indexed lookup: every slot of the name's tag. */
static const struct store_node *index_get(const struct store_set *set, const char *name,
					  size_t h)
{
	const struct name_index *x = set->index;
	size_t at = h & x->mask;
	uint64_t v;

	for (; (v = x->slots[at]) != 0; at = (at + 1) & x->mask) {
		const struct store_node *n;

		if ((v >> 32 << 32) != slot_tag(h))
			continue;
		n = set->nodes[(uint32_t)v - 1];
		if (strcmp(n->inventory->name, name) == 0)
			return n;
	}
	return NULL;
}

const struct store_node *store_get(const struct store_set *set, const char *name)
{
	size_t lo = 0, hi = set->n;

	if (set->index)
		return index_get(set, name, hash_key(name));

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, set->nodes[mid]->inventory->name);

		if (c == 0)
			return set->nodes[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Stages of store_get_many, each PIPE_GAP names behind the one before. */
#define PIPE_GAP 2
#define PIPE_STAGES 6
#define PIPE_RING 16
_Static_assert(PIPE_RING > PIPE_GAP * (PIPE_STAGES - 1), "the ring holds every name in flight");

void store_get_many(const struct store_set *set, const char *const *names, size_t n,
		    const struct store_node **out)
{
	const struct name_index *x = set->index;
	size_t hash[PIPE_RING];
	uint64_t slot[PIPE_RING];
	size_t k, i;

	if (x == NULL) {
		for (i = 0; i < n; i++)
			out[i] = store_get(set, names[i]);
		return;
	}
	/* A lookup is a chain of dependent loads: slot, position, snapshot,
	 * inventory, name. Name k starts while the names before it are a
	 * stage or more along, each stage asking for the memory the next
	 * one reads. */
	for (k = 0; k < n + PIPE_GAP * (PIPE_STAGES - 1); k++) {
		if (k < n) {
			i = k;
			hash[i % PIPE_RING] = hash_key(names[i]);
			__builtin_prefetch(&x->slots[hash[i % PIPE_RING] & x->mask]);
		}
		if (k >= PIPE_GAP && (i = k - PIPE_GAP) < n) {
			slot[i % PIPE_RING] = probe(x, hash[i % PIPE_RING] & x->mask, hash[i % PIPE_RING]);
			if (slot[i % PIPE_RING])
				__builtin_prefetch(&set->nodes[(uint32_t)slot[i % PIPE_RING] - 1]);
		}
		if (k >= 2 * PIPE_GAP && (i = k - 2 * PIPE_GAP) < n && slot[i % PIPE_RING])
			__builtin_prefetch(set->nodes[(uint32_t)slot[i % PIPE_RING] - 1]);
		if (k >= 3 * PIPE_GAP && (i = k - 3 * PIPE_GAP) < n && slot[i % PIPE_RING])
			__builtin_prefetch(set->nodes[(uint32_t)slot[i % PIPE_RING] - 1]->inventory);
		if (k >= 4 * PIPE_GAP && (i = k - 4 * PIPE_GAP) < n && slot[i % PIPE_RING])
			__builtin_prefetch(set->nodes[(uint32_t)slot[i % PIPE_RING] - 1]->inventory->name);
		if (k >= 5 * PIPE_GAP && (i = k - 5 * PIPE_GAP) < n) {
			const struct store_node *sn = NULL;

			if (slot[i % PIPE_RING]) {
				sn = set->nodes[(uint32_t)slot[i % PIPE_RING] - 1];
				/* Another name of the same tag: the slow path. */
				if (strcmp(sn->inventory->name, names[i]) != 0)
					sn = index_get(set, names[i], hash[i % PIPE_RING]);
			}
			out[i] = sn;
		}
	}
}

size_t store_size(const struct store_set *set)
{
	return set->n;
}

const struct store_node *store_at(const struct store_set *set, size_t i)
{
	return i < set->n ? set->nodes[i] : NULL;
}

uint64_t store_generation(const struct store_set *set)
{
	return set->generation;
}

struct store_batch *store_batch_new(void)
{
	return xcalloc(1, sizeof(struct store_batch));
}

static void batch_add(struct store_batch *b, const char *name, struct store_node *node)
{
	size_t i;

	/* A later change to the same node in one batch replaces the earlier. */
	for (i = 0; i < b->n; i++) {
		if (strcmp(b->entries[i].name, name) == 0) {
			node_unref(b->entries[i].node);
			b->entries[i].node = node;
			return;
		}
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->entries = xreallocarray(b->entries, b->cap, sizeof *b->entries);
	}
	b->entries[b->n].name = xstrdup(name);
	b->entries[b->n].node = node;
	b->n++;
}

void store_batch_put(struct store_batch *b, struct inventory_node *inventory, const char *origin,
		     const char *version)
{
	store_batch_put_raw(b, inventory, origin, version, NULL);
}

struct store_node *store_node_new(struct inventory_node *inventory, const char *origin,
				  const char *version, char *raw)
{
	struct store_node *n = xcalloc(1, sizeof *n);

	n->raw = raw;
	n->inventory = inventory;
	n->origin = xstrdup(origin ? origin : "");
	n->version = xstrdup(version ? version : "");
	n->loaded_ms = now_ms();
	n->refs = 1;
	n->id = atomic_fetch_add(&next_node_id, 1);
	return n;
}

void store_batch_put_raw(struct store_batch *b, struct inventory_node *inventory,
			 const char *origin, const char *version, char *raw)
{
	struct store_node *n = store_node_new(inventory, origin, version, raw);

	batch_add(b, inventory->name, n);
}

void store_batch_delete(struct store_batch *b, const char *name)
{
	batch_add(b, name, NULL);
}

size_t store_batch_size(const struct store_batch *b)
{
	return b->n;
}

void store_batch_free(struct store_batch *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++) {
		free(b->entries[i].name);
		node_unref(b->entries[i].node);
	}
	free(b->entries);
	free(b);
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct batch_entry *)a)->name, ((const struct batch_entry *)b)->name);
}

/* Puts the overlay's view of a base in the entry (publish lock held). */
static void derive(struct store *s, struct batch_entry *e)
{
	struct store_node *derived;

	if (s->overlay == NULL)
		return;
	if (e->node == NULL) {
		s->overlay(s->overlay_arg, e->name, NULL);
		return;
	}
	derived = s->overlay(s->overlay_arg, e->name, e->node);
	if (derived == NULL)
		return;
	derived->base = e->node;
	e->node = derived;
}

void store_set_overlay(struct store *s, store_overlay_fn fn, void *arg)
{
	pthread_mutex_lock(&s->publish_lock);
	s->overlay = fn;
	s->overlay_arg = arg;
	pthread_mutex_unlock(&s->publish_lock);
}

static uint64_t publish_locked(struct store *s, struct store_batch *b);

uint64_t store_publish(struct store *s, struct store_batch *b)
{
	size_t i;

	if (b->n > 0)
		qsort(b->entries, b->n, sizeof *b->entries, entry_cmp);
	/* Publishers are serialised; readers only ever wait for the pointer
	 * swap in publish_locked. */
	pthread_mutex_lock(&s->publish_lock);
	for (i = 0; i < b->n; i++)
		derive(s, &b->entries[i]);
	return publish_locked(s, b);
}

uint64_t store_refresh(struct store *s, const char *const *names, size_t n)
{
	struct store_batch *b = store_batch_new();
	size_t i;

	pthread_mutex_lock(&s->publish_lock);
	for (i = 0; i < n; i++) {
		const struct store_node *cur = store_get(s->current, names[i]);
		struct store_node *base;

		if (cur == NULL)
			continue;
		base = cur->base ? cur->base : (struct store_node *)(uintptr_t)cur;
		node_ref(base);
		batch_add(b, names[i], base);
	}
	if (b->n > 0)
		qsort(b->entries, b->n, sizeof *b->entries, entry_cmp);
	for (i = 0; i < b->n; i++)
		derive(s, &b->entries[i]);
	return publish_locked(s, b);
}

/* Merges the sorted batch into a new set and swaps it in; releases the
 * publish lock and frees the batch. */
static uint64_t publish_locked(struct store *s, struct store_batch *b)
{
	struct store_set *old, *set;
	size_t i = 0, j = 0;
	uint64_t generation;

	old = s->current; /* stable: only publishers change it */
	set = set_new(old->n + b->n, old->generation + 1);
	while (i < old->n || j < b->n) {
		int c;

		if (i == old->n)
			c = 1;
		else if (j == b->n)
			c = -1;
		else
			c = strcmp(old->nodes[i]->inventory->name, b->entries[j].name);
		if (c < 0) { /* unchanged */
			node_ref(old->nodes[i]);
			set->nodes[set->n++] = old->nodes[i++];
			continue;
		}
		/* added, replaced (c == 0) or deleted (node NULL) */
		if (b->entries[j].node) {
			set->nodes[set->n++] = b->entries[j].node;
			b->entries[j].node = NULL;
		}
		if (c == 0)
			i++;
		j++;
	}
	generation = set->generation;
	if (old->index && same_names(old, set)) {
		atomic_fetch_add_explicit(&old->index->refs, 1, memory_order_relaxed);
		set->index = old->index;
	} else {
		set->index = index_build(set);
	}
	pthread_mutex_lock(&s->lock);
	s->current = set;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&s->publish_lock);
	store_release(old);
	store_batch_free(b);
	return generation;
}

int64_t store_now_ms(void)
{
	return now_ms();
}

void store_touch(struct store *s)
{
	atomic_store(&s->last_contact_ms, now_ms());
}

int64_t store_last_contact_ms(struct store *s)
{
	return atomic_load(&s->last_contact_ms);
}

void store_set_ready(struct store *s, bool ready)
{
	atomic_store(&s->ready, ready);
}

bool store_ready(struct store *s)
{
	return atomic_load(&s->ready);
}
