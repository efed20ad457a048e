/* SPDX-License-Identifier: Apache-2.0 */
/* NodeResourcesBalancedAllocation (balanced_allocation.go,
 * balancedResourceScorer), the one float64 score: the same operations in the
 * same order as the Go code, so that IEEE-754 doubles round alike. The
 * Makefile compiles this file with -ffp-contract=off: a fused multiply-add
 * in (f - mean) * (f - mean) + sum would round once where Go (on amd64)
 * rounds twice, and a score sitting on an integer boundary would move. */
#include "score.h"

#include <math.h>
#include <stdlib.h>

#include "base/xalloc.h"

int64_t sched_balanced_allocation(const int64_t *req, const int64_t *alloc, size_t n)
{
	double small[SCHED_SMALL_VECTOR];
	double *fractions = n <= SCHED_SMALL_VECTOR ? small : xcalloc(n, sizeof *fractions);
	double total = 0.0, std = 0.0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double f;

		if (alloc[i] == 0)
			continue;
		f = (double)req[i] / (double)alloc[i];
		if (f > 1)
			f = 1;
		total += f;
		fractions[k++] = f;
	}
	if (k == 2) {
		std = fabs((fractions[0] - fractions[1]) / 2);
	} else if (k > 2) {
		double mean = total / (double)k, sum = 0.0;

		for (i = 0; i < k; i++)
			sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
		std = sqrt(sum / (double)k);
	}
	if (fractions != small)
		free(fractions);
	return (int64_t)((1 - std) * (double)SCHED_MAX_NODE_SCORE);
}

int64_t sched_balanced_score(const struct sched_pod_cycle *c,
			     const struct sched_node *node, bool fresh)
{
	size_t n = c->profile->nbalanced_resources;
	int64_t small[2 * SCHED_SMALL_VECTOR];
	int64_t *req = n <= SCHED_SMALL_VECTOR ? small : xcalloc(2 * n, sizeof *req);
	int64_t *alloc = req + n, score;

	sched_resource_vectors(c, node, true, fresh, req, alloc);
	score = sched_balanced_allocation(req, alloc, n);
	if (req != small)
		free(req);
	return score;
}
