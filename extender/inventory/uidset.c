/* SPDX-License-Identifier: Apache-2.0 */
/* A ring of hashes in arrival order (the oldest is forgotten first) and a
 * linear-probing table of ring positions, twice the capacity so probes stay
 * short; removal shifts the probe run back instead of leaving tombstones. */
#include "extender/inventory/uidset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

#define EMPTY SIZE_MAX

struct uidset {
	uint64_t *ring;    /* hashes by arrival; 0: removed or never used */
	size_t cap, next, count;
	size_t *table;     /* ring positions, EMPTY when free */
	size_t mask;
};

static uint64_t hash_of(const char *uid)
{
	uint64_t h = hash_key(uid);

	return h ? h : 1; /* 0 marks a free ring slot */
}

struct uidset *uidset_new(size_t cap)
{
	struct uidset *s = xcalloc(1, sizeof *s);
	size_t slots = 2, i;

	if (cap == 0)
		cap = 1;
	while (slots < 2 * cap)
		slots *= 2;
	s->cap = cap;
	s->ring = xcalloc(cap, sizeof *s->ring);
	s->table = xcalloc(slots, sizeof *s->table);
	for (i = 0; i < slots; i++)
		s->table[i] = EMPTY;
	s->mask = slots - 1;
	return s;
}

void uidset_free(struct uidset *s)
{
	if (s == NULL)
		return;
	free(s->ring);
	free(s->table);
	free(s);
}

/* The table slot holding h, or the free slot that ends its probe run. */
static size_t probe(const struct uidset *s, uint64_t h)
{
	size_t i = (size_t)h & s->mask;

	while (s->table[i] != EMPTY && s->ring[s->table[i]] != h)
		i = (i + 1) & s->mask;
	return i;
}

bool uidset_has(const struct uidset *s, const char *uid)
{
	return s->table[probe(s, hash_of(uid))] != EMPTY;
}

/* Empties table slot i and moves back the entries after it whose home is
 * at or before i, so every probe run stays unbroken. */
static void table_delete(struct uidset *s, size_t i)
{
	size_t j = i;

	s->table[i] = EMPTY;
	for (;;) {
		size_t home;

		j = (j + 1) & s->mask;
		if (s->table[j] == EMPTY)
			return;
		home = (size_t)s->ring[s->table[j]] & s->mask;
		/* Is home cyclically outside (i, j]? Then the entry can move to i. */
		if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
			s->table[i] = s->table[j];
			s->table[j] = EMPTY;
			i = j;
		}
	}
}

static void forget(struct uidset *s, uint64_t h)
{
	size_t i = probe(s, h);

	if (s->table[i] == EMPTY)
		return;
	s->ring[s->table[i]] = 0;
	table_delete(s, i);
	s->count--;
}

bool uidset_add(struct uidset *s, const char *uid)
{
	uint64_t h = hash_of(uid);
	size_t i = probe(s, h);

	if (s->table[i] != EMPTY)
		return false;
	if (s->ring[s->next] != 0) {
		forget(s, s->ring[s->next]);
		i = probe(s, h); /* the deletion may have moved the free slot */
	}
	s->ring[s->next] = h;
	s->table[i] = s->next;
	s->next = (s->next + 1) % s->cap;
	s->count++;
	return true;
}

void uidset_remove(struct uidset *s, const char *uid)
{
	forget(s, hash_of(uid));
}

size_t uidset_count(const struct uidset *s)
{
	return s->count;
}
