/* SPDX-License-Identifier: Apache-2.0 */
#include "select.h"

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

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct reason_count *)a)->text, ((const struct reason_count *)b)->text);
}

char *sched_fit_error(const struct sched_status *status, size_t n, size_t nall,
		      const char *prefilter)
{
	struct textbuf b, entry;
	struct reason_count *runs = NULL;
	char **entries = NULL;
	size_t nruns = 0, nentries = 0, i, j;

	textbuf_init(&b, FIT_ERROR_MAX);
	textbuf_printf(&b, "0/%zu nodes are available:", nall);
	if (prefilter != NULL) {
		textbuf_printf(&b, " %s.", prefilter);
		return textbuf_take(&b, NULL);
	}
	for (i = 0; i < n; i++)
		nruns += status[i].nreasons;
	runs = xcalloc(nruns + 1, sizeof *runs);
	/* Neighbouring nodes mostly fail for the same reason: counted in runs
	 * first, so that thousands of equal texts are not sorted one by one. */
	for (i = 0, nruns = 0; i < n; i++)
		for (j = 0; j < status[i].nreasons; j++) {
			if (nruns > 0 && strcmp(runs[nruns - 1].text, status[i].reasons[j]) == 0) {
				runs[nruns - 1].count++;
				continue;
			}
			runs[nruns].text = status[i].reasons[j];
			runs[nruns++].count = 1;
		}
	qsort(runs, nruns, sizeof *runs, cmp_count);
	entries = xcalloc(nruns + 1, sizeof *entries);
	for (i = 0; i < nruns; i = j) {
		size_t count = runs[i].count;

		for (j = i + 1; j < nruns && strcmp(runs[j].text, runs[i].text) == 0; j++)
			count += runs[j].count;
		textbuf_init(&entry, FIT_ERROR_MAX);
		textbuf_printf(&entry, "%zu %s", count, runs[i].text);
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
	free(runs);
	return textbuf_take(&b, NULL);
}
