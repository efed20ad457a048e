/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict cache (verdict_cache.h): 8,192 sets of 16 ways under 1,024
 * striped spinlocks, CLOCK within a set; demand keys in 256 stripes of 64
 * slots, CLOCK within a stripe, ids from one atomic counter. The locks guard a
 * few dozen instructions (a demand miss: one allocation), so a spinlock that
 * yields the CPU when it waits long costs less than a mutex and needs no
 * initialisation: every table is zero at start. */
#include "extender/decide/verdict_cache.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

#define WAYS VERDICT_CACHE_WAYS
#define SETS VERDICT_CACHE_SETS
#define SET_BITS 13
#define STRIPES 1024           /* sets per stripe: SETS / STRIPES */

#define DSTRIPES 256
#define DSLOTS 64              /* DSTRIPES * DSLOTS == VERDICT_CACHE_DEMANDS */
#define DBUDGET ((size_t)64 * 1024)  /* key bytes a demand stripe holds */

_Static_assert(SETS == 1 << SET_BITS, "SET_BITS");
_Static_assert(SETS % STRIPES == 0, "stripes divide the sets");
_Static_assert(WAYS <= 16, "one 16-bit mask of reference bits a set");
_Static_assert(DSTRIPES * DSLOTS == VERDICT_CACHE_DEMANDS, "demand table size");
_Static_assert(DSLOTS == 64, "one 64-bit mask of reference bits a stripe");
_Static_assert(VERDICT_CACHE_DEMAND_KEY_MAX <= DBUDGET, "a key fits a stripe");
_Static_assert(VERDICT_REASON_MAX <= 65535, "reason length fits 16 bits");
_Static_assert(WAYS <= 16, "one 16-bit mask of owned reasons a set");
_Static_assert(sizeof(uint32_t) * WAYS <= 64, "the tags fit one line");

/* One remembered verdict: 64 bytes, one line. */
struct way {
	uint64_t node, settings, demand;
	int64_t score;
	uint64_t numa_ids;
	enum verdict_reason kubelet_reason;
	/* An interned text (reason_intern), or owned when the set's owned bit
	 * says so; NULL: "". */
	const char *reason;
	uint16_t reason_len;
	unsigned char outcome;
	unsigned char dra;
};

/* Two lines of header, then the ways each on its own line: a get or put
 * reads the tags' line and the bits', and touches one way. */
struct set {
	_Alignas(64) uint32_t tag[WAYS]; /* tag_of the key, never 0; 0: the way is empty */
	_Alignas(64) uint16_t ref;       /* CLOCK reference bits */
	uint16_t owned;                  /* ways whose reason is their own copy */
	unsigned char hand;
	_Alignas(64) struct way way[WAYS];
};

_Static_assert(sizeof(struct way) == 64, "a way is one line");

/* Reasons, interned: a filter's rejections share a handful of texts, so a
 * put neither allocates a copy nor frees the one it evicts (a cold chunk
 * each), and a get copies from text every hit shares. Texts stay until
 * verdict_cache_clear; the table is bounded (RSLOTS texts, RBUDGET bytes)
 * and past it, or after RPROBES probes, a way keeps its own copy. */
#define RSLOTS 4096
#define RPROBES 32
#define RBUDGET ((size_t)1 << 20)

struct reason_text {
	uint64_t hash;
	size_t len;
	char text[];
};

static struct reason_text *_Atomic rtab[RSLOTS];
static _Atomic size_t rbytes;
static _Atomic uint64_t rcount;

/* A lock and the counters of the sets it guards, alone on its cache lines. */
struct stripe {
	_Alignas(64) atomic_bool lock;
	uint64_t hits, misses, evictions, entries;
};

struct demand_stripe {
	_Alignas(64) atomic_bool lock;
	uint64_t hash[DSLOTS];
	uint64_t id[DSLOTS];
	char *key[DSLOTS];         /* owned; NULL: the slot is empty */
	uint32_t len[DSLOTS];
	uint64_t ref;
	unsigned hand, count;
	size_t bytes;
	uint64_t evictions;
};

static struct set sets[SETS];
static struct stripe stripes[STRIPES];
static struct demand_stripe dstripes[DSTRIPES];
static _Atomic uint64_t last_demand_id;

static inline void lock(atomic_bool *l)
{
	unsigned spins = 0;

	while (atomic_exchange_explicit(l, true, memory_order_acquire))
		while (atomic_load_explicit(l, memory_order_relaxed)) {
			/* The holder may have been preempted: let it run. */
			if (++spins % 64 == 0)
				sched_yield();
#if defined(__x86_64__) || defined(__i386__)
			else
				__builtin_ia32_pause();
#endif
		}
}

static inline void unlock(atomic_bool *l)
{
	atomic_store_explicit(l, false, memory_order_release);
}

/* murmur3's finaliser: every input bit reaches every output bit. */
static inline uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static inline uint64_t key_hash(uint64_t node, uint64_t settings, uint64_t demand)
{
	uint64_t h = fmix64(node * 0x9e3779b97f4a7c15ull ^ settings * 0xbf58476d1ce4e5b9ull ^
			    demand * 0x94d049bb133111ebull);

	return h | 1; /* never 0, the empty tag */
}

/* The way's tag: the hash's low half (the set comes from the high bits). */
static inline uint32_t tag_of(uint64_t h)
{
	return (uint32_t)h | 1u;
}

/* The high bits choose the set, the low ones the stripe of sets. */
static inline struct set *set_of(uint64_t h, struct stripe **st)
{
	size_t s = (size_t)(h >> (64 - SET_BITS));

	*st = &stripes[s % STRIPES];
	return &sets[s];
}

static inline int find_way(const struct set *set, uint64_t h, uint64_t node, uint64_t settings,
			   uint64_t demand)
{
	int w;

	for (w = 0; w < WAYS; w++)
		if (set->tag[w] == tag_of(h) && set->way[w].node == node && set->way[w].settings == settings &&
		    set->way[w].demand == demand)
			return w;
	return -1;
}

bool verdict_cache_get(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       struct verdict_entry *out)
{
	uint64_t h = key_hash(node_id, settings_id, demand_id);
	struct stripe *st;
	struct set *set = set_of(h, &st);
	const struct way *way;
	int w;

	if (demand_id == 0)
		return false;
	lock(&st->lock);
	w = find_way(set, h, node_id, settings_id, demand_id);
	if (w < 0) {
		st->misses++;
		unlock(&st->lock);
		return false;
	}
	way = &set->way[w];
	set->ref |= (uint16_t)(1u << w);
	st->hits++;
	out->outcome = way->outcome;
	out->dra = way->dra;
	out->kubelet_reason = way->kubelet_reason;
	out->score = way->score;
	out->numa_ids = way->numa_ids;
	if (way->reason_len)
		memcpy(out->reason, way->reason, way->reason_len);
	out->reason[way->reason_len] = '\0';
	unlock(&st->lock);
	return true;
}

/* The way to fill: the key's own, an empty one, or CLOCK's victim (the
 * first unreferenced way from the hand on, clearing bits as it passes). */
static int way_for_put(struct set *set, struct stripe *st, uint64_t h, uint64_t node,
		       uint64_t settings, uint64_t demand)
{
	int w = find_way(set, h, node, settings, demand);

	if (w >= 0)
		return w;
	for (w = 0; w < WAYS; w++)
		if (set->tag[w] == 0) {
			st->entries++;
			return w;
		}
	for (;;) {
		w = set->hand;
		set->hand = (unsigned char)((w + 1) % WAYS);
		if (!(set->ref & (1u << w)))
			break;
		set->ref &= (uint16_t)~(1u << w);
	}
	st->evictions++;
	return w;
}

/* The interned text[0..len), or NULL when the table has no room for it.
 * Published texts never change or move: readers need no lock. */
static const struct reason_text *reason_intern(const char *text, size_t len)
{
	uint64_t h = hash_key_bytes(text, len);
	size_t i;

	for (i = 0; i < RPROBES; i++) {
		struct reason_text *_Atomic *slot = &rtab[(h + i) % RSLOTS];
		struct reason_text *r = atomic_load_explicit(slot, memory_order_acquire);

		if (r == NULL) {
			struct reason_text *fresh, *expect = NULL;

			if (atomic_fetch_add(&rbytes, len + 1) + len + 1 > RBUDGET) {
				atomic_fetch_sub(&rbytes, len + 1);
				return NULL;
			}
			fresh = xmalloc(sizeof *fresh + len + 1);
			fresh->hash = h;
			fresh->len = len;
			memcpy(fresh->text, text, len);
			fresh->text[len] = '\0';
			if (atomic_compare_exchange_strong_explicit(slot, &expect, fresh,
								    memory_order_acq_rel,
								    memory_order_acquire)) {
				atomic_fetch_add(&rcount, 1);
				return fresh;
			}
			/* Another put published here first: that one is
			 * compared below like any other. */
			free(fresh);
			atomic_fetch_sub(&rbytes, len + 1);
			r = expect;
		}
		if (r->hash == h && r->len == len && memcmp(r->text, text, len) == 0)
			return r;
	}
	return NULL;
}

void verdict_cache_put(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       const struct verdict_entry *e)
{
	uint64_t h = key_hash(node_id, settings_id, demand_id);
	size_t len = strnlen(e->reason, VERDICT_REASON_MAX - 1);
	const struct reason_text *shared = NULL;
	char *own = NULL, *old = NULL;
	struct stripe *st;
	struct set *set = set_of(h, &st);
	struct way *way;
	int w;

	if (demand_id == 0)
		return;
	if (len && (shared = reason_intern(e->reason, len)) == NULL)
		own = xmemdup0(e->reason, len);
	lock(&st->lock);
	w = way_for_put(set, st, h, node_id, settings_id, demand_id);
	way = &set->way[w];
	/* Only an owned reason is read back (to free it): the way's line is
	 * otherwise written, never waited for. */
	if (set->owned & (1u << w))
		old = (char *)(uintptr_t)way->reason;
	set->tag[w] = tag_of(h);
	way->node = node_id;
	way->settings = settings_id;
	way->demand = demand_id;
	way->score = e->score;
	way->numa_ids = e->numa_ids;
	way->kubelet_reason = e->kubelet_reason;
	way->reason = shared ? shared->text : own;
	way->reason_len = (uint16_t)len;
	way->outcome = e->outcome;
	way->dra = e->dra;
	if (own)
		set->owned |= (uint16_t)(1u << w);
	else
		set->owned &= (uint16_t)~(1u << w);
	/* Unreferenced until read: a verdict nobody asks for again goes first. */
	set->ref &= (uint16_t)~(1u << w);
	unlock(&st->lock);
	free(old);
}

/* A demand slot to fill in stripe ds for a key of len bytes: evicts by CLOCK
 * until both a slot and the bytes are free. */
static unsigned demand_slot(struct demand_stripe *ds, size_t len)
{
	unsigned s;

	while (ds->count == DSLOTS || ds->bytes + len > DBUDGET) {
		for (;;) {
			s = ds->hand;
			ds->hand = (s + 1) % DSLOTS;
			if (ds->key[s] == NULL)
				continue;
			if (!(ds->ref & ((uint64_t)1 << s)))
				break;
			ds->ref &= ~((uint64_t)1 << s);
		}
		ds->bytes -= ds->len[s];
		ds->count--;
		ds->evictions++;
		free(ds->key[s]);
		ds->key[s] = NULL;
	}
	for (s = 0; ds->key[s] != NULL; s++)
		;
	return s;
}

uint64_t verdict_cache_demand(const char *key)
{
	bool fresh;

	return verdict_cache_intern(key, &fresh);
}

uint64_t verdict_cache_intern(const char *key, bool *fresh)
{
	size_t len = strlen(key);
	uint64_t h, id = 0;
	struct demand_stripe *ds;
	unsigned s;

	*fresh = true;
	if (len > VERDICT_CACHE_DEMAND_KEY_MAX)
		return atomic_fetch_add(&last_demand_id, 1) + 1;
	h = hash_key_bytes(key, len);
	ds = &dstripes[h % DSTRIPES];
	lock(&ds->lock);
	for (s = 0; s < DSLOTS; s++)
		if (ds->hash[s] == h && ds->key[s] != NULL && ds->len[s] == len &&
		    memcmp(ds->key[s], key, len) == 0) {
			id = ds->id[s];
			ds->ref |= (uint64_t)1 << s;
			*fresh = false;
			break;
		}
	if (id == 0) {
		s = demand_slot(ds, len);
		id = atomic_fetch_add(&last_demand_id, 1) + 1;
		ds->key[s] = xmemdup0(key, len);
		ds->len[s] = (uint32_t)len;
		ds->hash[s] = h;
		ds->id[s] = id;
		ds->ref &= ~((uint64_t)1 << s);
		ds->count++;
		ds->bytes += len;
	}
	unlock(&ds->lock);
	return id;
}

void verdict_cache_count_misses(uint64_t n)
{
	/* Any stripe: the totals are sums over all of them. */
	lock(&stripes[0].lock);
	stripes[0].misses += n;
	unlock(&stripes[0].lock);
}

void verdict_cache_prefetch(uint64_t node_id, uint64_t settings_id, uint64_t demand_id)
{
	uint64_t h = key_hash(node_id, settings_id, demand_id);
	struct stripe *st;
	struct set *set = set_of(h, &st);

	/* The tags' line, the bits' line, the lock. */
	__builtin_prefetch(&set->tag[0], 1);
	__builtin_prefetch(&set->ref, 1);
	__builtin_prefetch(&st->lock, 1);
}

void verdict_cache_stats(struct verdict_cache_stats *out)
{
	size_t i;

	memset(out, 0, sizeof *out);
	for (i = 0; i < STRIPES; i++) {
		lock(&stripes[i].lock);
		out->hits += stripes[i].hits;
		out->misses += stripes[i].misses;
		out->evictions += stripes[i].evictions;
		out->entries += stripes[i].entries;
		unlock(&stripes[i].lock);
	}
	out->reasons = atomic_load(&rcount);
	for (i = 0; i < DSTRIPES; i++) {
		lock(&dstripes[i].lock);
		out->demands += dstripes[i].count;
		out->demand_evictions += dstripes[i].evictions;
		unlock(&dstripes[i].lock);
	}
}

void verdict_cache_clear(void)
{
	size_t i, s;
	int w;

	for (i = 0; i < STRIPES; i++) {
		lock(&stripes[i].lock);
		for (s = i; s < SETS; s += STRIPES) {
			for (w = 0; w < WAYS; w++)
				if (sets[s].owned & (1u << w))
					free((char *)(uintptr_t)sets[s].way[w].reason);
			memset(&sets[s], 0, sizeof sets[s]);
		}
		stripes[i].hits = stripes[i].misses = 0;
		stripes[i].evictions = stripes[i].entries = 0;
		unlock(&stripes[i].lock);
	}
	/* No way points to an interned text any more (tests only: a put
	 * running alongside could still be handed one). */
	for (i = 0; i < RSLOTS; i++)
		free(atomic_exchange(&rtab[i], NULL));
	atomic_store(&rbytes, 0);
	atomic_store(&rcount, 0);
	for (i = 0; i < DSTRIPES; i++) {
		struct demand_stripe *ds = &dstripes[i];

		lock(&ds->lock);
		for (s = 0; s < DSLOTS; s++) {
			free(ds->key[s]);
			ds->key[s] = NULL;
			ds->hash[s] = ds->id[s] = 0;
			ds->len[s] = 0;
		}
		ds->ref = 0;
		ds->hand = ds->count = 0;
		ds->bytes = 0;
		ds->evictions = 0;
		unlock(&ds->lock);
	}
}
