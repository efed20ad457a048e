/* SPDX-License-Identifier: Apache-2.0 */
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

static struct strmap_slot *find(const struct strmap *m, const char *key, uint64_t hash)
{
	size_t mask = m->cap - 1, i;

	if (m->cap == 0)
		return NULL;
	for (i = (size_t)hash & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];

		if (s->key == NULL)
			return NULL;
		if (s->hash == hash && strcmp(s->key, key) == 0)
			return s;
	}
}

void *strmap_get(const struct strmap *m, const char *key)
{
	const struct strmap_slot *s = find(m, key, hash_key(key));

	return s != NULL ? s->val : NULL;
}

/* Places an entry known to be absent into a table with a free slot. */
static void place(struct strmap_slot *slots, size_t cap, const char *key, uint64_t hash, void *val)
{
	size_t i;

	for (i = (size_t)hash & (cap - 1); slots[i].key != NULL; i = (i + 1) & (cap - 1))
		;
	slots[i].key = key;
	slots[i].hash = hash;
	slots[i].val = val;
}

void strmap_put(struct strmap *m, const char *key, void *val)
{
	uint64_t hash = hash_key(key);
	struct strmap_slot *s = find(m, key, hash);
	size_t i;

	if (s != NULL) {
		s->val = val;
		return;
	}
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct strmap_slot *slots = xcalloc(cap, sizeof *slots);

		for (i = 0; i < m->cap; i++)
			if (m->slots[i].key != NULL)
				place(slots, cap, m->slots[i].key, m->slots[i].hash, m->slots[i].val);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	place(m->slots, m->cap, key, hash, val);
	m->n++;
}

void *strmap_remove(struct strmap *m, const char *key)
{
	struct strmap_slot *s = find(m, key, hash_key(key));
	size_t mask = m->cap - 1, hole, j;
	void *val;

	if (s == NULL)
		return NULL;
	val = s->val;
	hole = j = (size_t)(s - m->slots);
	/* Later entries of the run move back into the hole unless their home
	 * lies cyclically in (hole, j]: lookups never meet a gap. */
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (m->slots[j].key == NULL)
			break;
		home = (size_t)m->slots[j].hash & mask;
		if ((hole < j) ? (home <= hole || home > j) : (home <= hole && home > j)) {
			m->slots[hole] = m->slots[j];
			hole = j;
		}
	}
	m->slots[hole].key = NULL;
	m->n--;
	return val;
}

void strmap_clear(struct strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof *m);
}
