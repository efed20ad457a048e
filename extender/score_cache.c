/* SPDX-License-Identifier: Apache-2.0 */
/* A small LRU of filter results; each entry holds its names sorted for
 * binary search. */
#include "extender/score_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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
	free(e->key);
	settings_unref(e->settings);
	memset(e, 0, sizeof *e);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pair *)a)->name, ((const struct pair *)b)->name);
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
	qsort(fresh.pairs, n, sizeof *fresh.pairs, by_name);
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
			struct pair probe = { names[k], 0 }, *p;

			p = bsearch(&probe, e->pairs, e->n, sizeof *e->pairs, by_name);
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
