/* SPDX-License-Identifier: Apache-2.0 */
/* A small LRU of filter results; each entry holds its names in request
 * order with an open-addressing index over them (built in one pass: sorting
 * 500 names cost more than the lookups it served). */
#include "extender/score_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "extender/strhash.h"
#include "extender/xalloc.h"

#define ENTRIES 16

struct pair {
	char *name;
	int64_t score;
};

struct entry {
	char *key;
	uint64_t generation;
	struct settings *settings;
	struct pair *pairs;
	size_t n;
	uint32_t *index;   /* slots of pair index + 1 (0: empty), a power of two */
	size_t slots;
	uint64_t used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry entries[ENTRIES];
static uint64_t tick;

static void entry_clear(struct entry *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->pairs[i].name);
	free(e->pairs);
	free(e->index);
	free(e->key);
	settings_unref(e->settings);
	memset(e, 0, sizeof *e);
}

/* The pair named name, or NULL. */
static const struct pair *find(const struct entry *e, const char *name)
{
	size_t mask = e->slots - 1, at = strhash(name) & mask;

	for (; e->index[at] != 0; at = (at + 1) & mask)
		if (strcmp(e->pairs[e->index[at] - 1].name, name) == 0)
			return &e->pairs[e->index[at] - 1];
	return NULL;
}

void score_cache_put(const char *key, uint64_t generation, struct settings *settings,
		     char *const *names, const int64_t *scores, size_t n)
{
	struct entry fresh, *victim = NULL;
	size_t i;

	/* Built outside the lock: only the swap is shared. */
	memset(&fresh, 0, sizeof fresh);
	fresh.key = xstrdup(key);
	fresh.generation = generation;
	atomic_fetch_add_explicit((_Atomic int *)&settings->refs, 1, memory_order_relaxed);
	fresh.settings = settings;
	fresh.pairs = xcalloc(n + 1, sizeof *fresh.pairs);
	for (i = 0; i < n; i++) {
		fresh.pairs[i].name = xstrdup(names[i]);
		fresh.pairs[i].score = scores[i];
	}
	fresh.n = n;
	for (fresh.slots = 16; fresh.slots < 2 * n; fresh.slots *= 2)
		;
	fresh.index = xcalloc(fresh.slots, sizeof *fresh.index);
	for (i = 0; i < n && i < UINT32_MAX - 1; i++) {
		size_t at = strhash(names[i]) & (fresh.slots - 1);

		while (fresh.index[at] != 0) {
			if (strcmp(fresh.pairs[fresh.index[at] - 1].name, names[i]) == 0)
				break; /* a repeated name: the first one stands */
			at = (at + 1) & (fresh.slots - 1);
		}
		if (fresh.index[at] == 0)
			fresh.index[at] = (uint32_t)(i + 1);
	}
	pthread_mutex_lock(&lock);
	fresh.used = ++tick;
	for (i = 0; i < ENTRIES; i++) {
		if (entries[i].key && strcmp(entries[i].key, key) == 0 &&
		    entries[i].generation == generation && entries[i].settings == settings) {
			victim = &entries[i];
			break;
		}
		if (victim == NULL || entries[i].used < victim->used)
			victim = &entries[i];
	}
	{
		struct entry old = *victim;

		*victim = fresh;
		pthread_mutex_unlock(&lock);
		entry_clear(&old);
	}
}

size_t score_cache_get(const char *key, uint64_t generation, const struct settings *settings,
		       char *const *names, size_t n, int64_t *scores, unsigned char *found)
{
	size_t hits = 0, i, k;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES; i++) {
		struct entry *e = &entries[i];

		if (e->key == NULL || e->generation != generation || e->settings != settings ||
		    strcmp(e->key, key) != 0)
			continue;
		e->used = ++tick;
		for (k = 0; k < n; k++) {
			const struct pair *p = find(e, names[k]);

			if (p) {
				scores[k] = p->score;
				found[k] = 1;
				hits++;
			}
		}
		break;
	}
	pthread_mutex_unlock(&lock);
	return hits;
}

void score_cache_clear(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES; i++)
		entry_clear(&entries[i]);
	pthread_mutex_unlock(&lock);
}
