/* SPDX-License-Identifier: Apache-2.0 */
#include "select.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"

#define MIN_FEASIBLE_NODES 100
#define MIN_FEASIBLE_PERCENTAGE 5
/* Room for a FitError message; a longer one is cut. */
#define FIT_ERROR_MAX (64 * 1024)

int64_t sched_num_feasible(int32_t percentage, int64_t n)
{
	int64_t k;

	if (n < MIN_FEASIBLE_NODES)
		return n;
	if (percentage == 0) {
		percentage = (int32_t)(50 - n / 125 < MIN_FEASIBLE_PERCENTAGE
					       ? MIN_FEASIBLE_PERCENTAGE
					       : 50 - n / 125);
	}
	/* n fits int32 upstream; here n * 100 fits int64 for any real n. */
	k = n / 100 * percentage + n % 100 * percentage / 100;
	return k < MIN_FEASIBLE_NODES ? MIN_FEASIBLE_NODES : k;
}

int32_t sched_percentage(const struct sched_config *c,
			 const struct sched_profile *p)
{
	if (p != NULL && p->has_percentage)
		return p->percentage;
	return c != NULL ? c->percentage : 0;
}

static int cmp_name(const struct sched_node *nodes,
		    const struct sched_node_score *scores, size_t a, size_t b)
{
	int c = strcmp(nodes[scores[a].node].name, nodes[scores[b].node].name);

	return c != 0 ? c : (a > b) - (a < b);
}

size_t sched_top_nodes(const struct sched_node_score *scores, size_t n,
		       const struct sched_node *nodes, size_t *tied)
{
	int64_t best = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (i == 0 || scores[i].total > best)
			best = scores[i].total;
	for (i = 0; i < n; i++)
		if (scores[i].total == best)
			tied[k++] = i;
	/* Ties are few: insertion sort by name. */
	for (i = 1; i < k; i++) {
		size_t v = tied[i], j = i;

		while (j > 0 && cmp_name(nodes, scores, tied[j - 1], v) > 0) {
			tied[j] = tied[j - 1];
			j--;
		}
		tied[j] = v;
	}
	return k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One reason and how many statuses gave it. */
struct reason_count {
	const char *text;
	size_t count;
};

/* The distinct reason pointers and their counts: open addressing on the
 * pointer, a power-of-two capacity at most half full. */
struct counts {
	struct reason_count *slots;
	size_t cap, n;
};

static size_t slot_of(const struct counts *c, const char *text)
{
	/* Fibonacci hashing: neighbouring addresses land far apart. */
	size_t i = (size_t)(((uint64_t)(uintptr_t)text * UINT64_C(0x9E3779B97F4A7C15)) >> 32);

	for (i &= c->cap - 1; c->slots[i].text != NULL && c->slots[i].text != text;
	     i = (i + 1) & (c->cap - 1))
		;
	return i;
}

static void count(struct counts *c, const char *text, size_t k)
{
	size_t i;

	if (2 * (c->n + 1) > c->cap) {
		struct counts bigger = { xcalloc(2 * c->cap, sizeof *c->slots), 2 * c->cap, 0 };

		for (i = 0; i < c->cap; i++)
			if (c->slots[i].text != NULL)
				count(&bigger, c->slots[i].text, c->slots[i].count);
		free(c->slots);
		*c = bigger;
	}
	i = slot_of(c, text);
	if (c->slots[i].text == NULL) {
		c->slots[i].text = text;
		c->n++;
	}
	c->slots[i].count += k;
}

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct reason_count *)a)->text, ((const struct reason_count *)b)->text);
}

char *sched_fit_error(const struct sched_status *status, size_t n, size_t nall,
		      const char *prefilter)
{
	struct counts c = { xcalloc(16, sizeof *c.slots), 16, 0 };
	struct textbuf b, entry;
	char **entries = NULL;
	const char *last = NULL;
	size_t nentries = 0, run = 0, i, j;

	textbuf_init(&b, FIT_ERROR_MAX);
	textbuf_printf(&b, "0/%zu nodes are available:", nall);
	if (prefilter != NULL) {
		free(c.slots);
		textbuf_printf(&b, " %s.", prefilter);
		return textbuf_take(&b, NULL);
	}
	/* A cycle's statuses share their texts (scheduler/status.h) and
	 * neighbouring nodes mostly fail for the same one: counted by
	 * pointer, in runs, so that only the few distinct texts are compared. */
	for (i = 0; i < n; i++)
		for (j = 0; j < status[i].nreasons; j++) {
			if (status[i].reasons[j] == last) {
				run++;
				continue;
			}
			if (run > 0)
				count(&c, last, run);
			last = status[i].reasons[j];
			run = 1;
		}
	if (run > 0)
		count(&c, last, run);
	/* Equal texts at different addresses (an extender's reason that a
	 * filter also gives) are one reason: sorted by text, runs merged. */
	for (i = 0, j = 0; i < c.cap; i++)
		if (c.slots[i].text != NULL)
			c.slots[j++] = c.slots[i];
	qsort(c.slots, c.n, sizeof *c.slots, cmp_count);
	entries = xcalloc(c.n + 1, sizeof *entries);
	for (i = 0; i < c.n; i = j) {
		size_t total = c.slots[i].count;

		for (j = i + 1; j < c.n && strcmp(c.slots[j].text, c.slots[i].text) == 0; j++)
			total += c.slots[j].count;
		textbuf_init(&entry, FIT_ERROR_MAX);
		textbuf_printf(&entry, "%zu %s", total, c.slots[i].text);
		entries[nentries++] = textbuf_take(&entry, NULL);
	}
	/* Go's sort.Strings over "<count> <reason>": byte order, so "10 x"
	 * comes before "2 x". */
	qsort(entries, nentries, sizeof *entries, cmp_str);
	for (i = 0; i < nentries; i++) {
		textbuf_adds(&b, i == 0 ? " " : ", ");
		textbuf_adds(&b, entries[i]);
		free(entries[i]);
	}
	if (nentries > 0)
		textbuf_addc(&b, '.');
	free(entries);
	free(c.slots);
	return textbuf_take(&b, NULL);
}
