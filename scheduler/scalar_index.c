/* SPDX-License-Identifier: Apache-2.0 */
#include "scalar_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/xalloc.h"

/* One column of one node: both amounts. */
struct slot {
	size_t col;
	int64_t alloc;
	int64_t used;
};

/* One node: its slots (sorted by column) at slots[at..at+n), and what they
 * were read from, to notice a change. A zeroed row is a node without
 * scalars. */
struct row {
	size_t at, n, room;
	const struct sched_scalar *alloc_at, *used_at;
	size_t nalloc, nused;
	int64_t npods;
};

struct sched_scalar_index {
	struct strmap columns; /* name -> column + 1 */
	char **names;          /* by column: the keys of columns */
	size_t nnames;
	const struct sched_node *nodes;
	size_t n;
	struct row *rows;
	/* Every row's slots, in node order but for rows that outgrew their
	 * room and moved to the end; packed again when half is waste. */
	struct slot *slots;
	size_t nslots, cap, live;
};

struct sched_scalar_index *sched_scalar_index_new(void)
{
	return xcalloc(1, sizeof(struct sched_scalar_index));
}

void sched_scalar_index_free(struct sched_scalar_index *x)
{
	size_t i;

	if (x == NULL)
		return;
	free(x->rows);
	free(x->slots);
	strmap_clear(&x->columns);
	for (i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x);
}

size_t sched_scalar_index_column(const struct sched_scalar_index *x, const char *name)
{
	void *v = strmap_get(&x->columns, name);

	return v == NULL ? SCHED_NO_COLUMN : (size_t)(uintptr_t)v - 1;
}

static size_t intern(struct sched_scalar_index *x, const char *name)
{
	size_t col = sched_scalar_index_column(x, name);

	if (col != SCHED_NO_COLUMN)
		return col;
	x->names = xreallocarray(x->names, x->nnames + 1, sizeof *x->names);
	x->names[x->nnames] = xstrdup(name);
	strmap_put(&x->columns, x->names[x->nnames], (void *)(uintptr_t)(x->nnames + 1));
	return x->nnames++;
}

static int slot_cmp(const void *a, const void *b)
{
	size_t x = ((const struct slot *)a)->col, y = ((const struct slot *)b)->col;

	return (x > y) - (x < y);
}

/* The slot of col among s[0..n), or NULL. */
static struct slot *find(struct slot *s, size_t n, size_t col)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].col == col)
			return &s[mid];
		if (s[mid].col < col)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Room for k more slots at the end of x->slots. */
static void reserve(struct sched_scalar_index *x, size_t k)
{
	if (x->cap - x->nslots >= k)
		return;
	/* Every count here is of entries already held in the nodes' lists:
	 * the sums cannot wrap. */
	x->cap = 2 * (x->nslots + k);
	x->slots = xreallocarray(x->slots, x->cap, sizeof *x->slots);
}

/* The slots of a node's lists at s, sorted by column; returns how many. */
static size_t fill(struct sched_scalar_index *x, const struct sched_resources *alloc,
		   const struct sched_resources *used, struct slot *s)
{
	size_t k, n = alloc->nscalars;
	struct slot *hit;

	for (k = 0; k < alloc->nscalars; k++) {
		s[k].col = intern(x, alloc->scalars[k].name);
		s[k].alloc = alloc->scalars[k].value;
		s[k].used = 0;
	}
	if (n > 1)
		qsort(s, n, sizeof *s, slot_cmp);
	for (k = 0; k < used->nscalars; k++) {
		size_t col = intern(x, used->scalars[k].name);

		hit = find(s, alloc->nscalars, col);
		if (hit == NULL) {
			hit = &s[n++];
			hit->col = col;
			hit->alloc = 0;
		}
		hit->used = used->scalars[k].value;
	}
	if (n > alloc->nscalars && n > 1)
		qsort(s, n, sizeof *s, slot_cmp);
	return n;
}

/* Node i's row: its slots at the row's place, or at the end of the array
 * when they do not fit there. */
static void index_row(struct sched_scalar_index *x, size_t i)
{
	const struct sched_node *node = &x->nodes[i];
	const struct sched_resources *alloc = &node->allocatable, *used = &node->requested;
	struct row *row = &x->rows[i];
	size_t room = alloc->nscalars + used->nscalars;

	x->live -= row->n;
	row->n = 0;
	if (room > row->room) {
		reserve(x, room);
		row->at = x->nslots;
		row->room = room;
		x->nslots += room;
	}
	if (room > 0)
		row->n = fill(x, alloc, used, x->slots + row->at);
	x->live += row->n;
	row->alloc_at = alloc->scalars;
	row->nalloc = alloc->nscalars;
	row->used_at = used->scalars;
	row->nused = used->nscalars;
	row->npods = node->npods;
}

static bool row_current(const struct row *row, const struct sched_node *node)
{
	return row->npods == node->npods && row->alloc_at == node->allocatable.scalars &&
	       row->nalloc == node->allocatable.nscalars &&
	       row->used_at == node->requested.scalars &&
	       row->nused == node->requested.nscalars;
}

/* Every row's slots in node order again, each with just its room. */
static void pack(struct sched_scalar_index *x)
{
	struct slot *packed = xcalloc(x->live + 1, sizeof *packed);
	size_t i, at = 0;

	for (i = 0; i < x->n; i++) {
		struct row *row = &x->rows[i];

		if (row->n > 0)
			memcpy(packed + at, x->slots + row->at, row->n * sizeof *packed);
		row->at = at;
		row->room = row->n;
		at += row->n;
	}
	free(x->slots);
	x->slots = packed;
	x->nslots = at;
	x->cap = x->live + 1;
}

void sched_scalar_index_sync(struct sched_scalar_index *x,
			     const struct sched_node *nodes, size_t n)
{
	size_t i;

	if (nodes != x->nodes || n != x->n) {
		free(x->rows);
		x->nodes = nodes;
		x->n = n;
		x->rows = xcalloc(n + 1, sizeof *x->rows);
		x->nslots = x->live = 0;
	}
	for (i = 0; i < n; i++)
		if (!row_current(&x->rows[i], &nodes[i]))
			index_row(x, i);
	if (x->nslots > 2 * x->live + 64)
		pack(x);
}

void sched_scalar_index_amounts(const struct sched_scalar_index *x, size_t i,
				size_t col, int64_t *alloc, int64_t *used)
{
	const struct row *row = &x->rows[i];
	const struct slot *s = row->n > 0 ? find(x->slots + row->at, row->n, col) : NULL;

	*alloc = s != NULL ? s->alloc : 0;
	*used = s != NULL ? s->used : 0;
}
