/* SPDX-License-Identifier: Apache-2.0 */
/* A direct-mapped table of 65,536 entries under 256 striped mutexes, and
 * two bounded intern tables (demand keys and reason strings). */
#include "extender/verdict_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "extender/xalloc.h"

#define SLOTS 65536
#define STRIPES 256
#define MAX_DEMANDS 4096
#define MAX_REASONS 4096

struct slot {
	uint64_t node, settings, demand;  /* demand 0: empty */
	struct verdict_entry e;
};

static struct slot slots[SLOTS];
static pthread_mutex_t stripes[STRIPES];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static char *demands[MAX_DEMANDS];
static size_t ndemands;
static char *reasons[MAX_REASONS];
static size_t nreasons;

static void init(void)
{
	size_t i;

	for (i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripes[i], NULL);
}

uint64_t verdict_cache_demand(const char *key)
{
	uint64_t id = 0;
	size_t i;

	pthread_mutex_lock(&intern_lock);
	for (i = 0; i < ndemands; i++)
		if (strcmp(demands[i], key) == 0)
			id = i + 1;
	if (id == 0 && ndemands < MAX_DEMANDS) {
		demands[ndemands++] = xstrdup(key);
		id = ndemands;
	}
	pthread_mutex_unlock(&intern_lock);
	return id;
}

static const char *intern_reason(const char *r)
{
	const char *out = NULL;
	size_t i;

	pthread_mutex_lock(&intern_lock);
	for (i = 0; i < nreasons && out == NULL; i++)
		if (strcmp(reasons[i], r) == 0)
			out = reasons[i];
	if (out == NULL && nreasons < MAX_REASONS)
		out = reasons[nreasons++] = xstrdup(r);
	pthread_mutex_unlock(&intern_lock);
	return out;
}

static size_t slot_of(uint64_t node, uint64_t settings, uint64_t demand)
{
	uint64_t h = node * 0x9e3779b97f4a7c15u ^ settings * 0xc2b2ae3d27d4eb4fu ^
		     demand * 0x165667b19e3779f9u;

	return (size_t)((h ^ (h >> 29)) & (SLOTS - 1));
}

bool verdict_cache_get(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       struct verdict_entry *out)
{
	size_t s;
	bool hit;

	if (demand_id == 0)
		return false;
	pthread_once(&once, init);
	s = slot_of(node_id, settings_id, demand_id);
	pthread_mutex_lock(&stripes[s % STRIPES]);
	hit = slots[s].demand == demand_id && slots[s].node == node_id &&
	      slots[s].settings == settings_id;
	if (hit)
		*out = slots[s].e;
	pthread_mutex_unlock(&stripes[s % STRIPES]);
	return hit;
}

void verdict_cache_put(uint64_t node_id, uint64_t settings_id, uint64_t demand_id,
		       const struct verdict_entry *e)
{
	struct verdict_entry copy = *e;
	size_t s;

	if (demand_id == 0)
		return;
	copy.reason = intern_reason(e->reason ? e->reason : "");
	if (copy.reason == NULL)
		return; /* the reason table is full: do not cache */
	pthread_once(&once, init);
	s = slot_of(node_id, settings_id, demand_id);
	pthread_mutex_lock(&stripes[s % STRIPES]);
	slots[s].node = node_id;
	slots[s].settings = settings_id;
	slots[s].demand = demand_id;
	slots[s].e = copy;
	pthread_mutex_unlock(&stripes[s % STRIPES]);
}
