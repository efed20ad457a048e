/* SPDX-License-Identifier: Apache-2.0 */
/* NodeResourcesFit's three strategies and the vectors they score
 * (least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go,
 * helper/shape_score.go, resource_allocation.go). Integer arithmetic with
 * Go's truncating division; only RequestedToCapacityRatio rounds a float. */
#include "score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/xalloc.h"

__extension__ typedef __int128 i128;

/* a * m / b truncated, b > 0, without the overflow of a * m. */
static int64_t mul_div(int64_t a, int64_t m, int64_t b)
{
	i128 q = (i128)a * m / b;

	return q > INT64_MAX ? INT64_MAX : q < INT64_MIN ? INT64_MIN : (int64_t)q;
}

static int64_t least_requested(int64_t req, int64_t cap)
{
	if (cap == 0 || req > cap)
		return 0;
	return mul_div(cap - req, SCHED_MAX_NODE_SCORE, cap);
}

static int64_t most_requested(int64_t req, int64_t cap)
{
	if (cap == 0)
		return 0;
	/* requested may exceed capacity: pods without requests count the
	 * non-zero defaults. */
	if (req > cap)
		req = cap;
	return mul_div(req, SCHED_MAX_NODE_SCORE, cap);
}

typedef int64_t resource_fn(int64_t req, int64_t cap);

static int64_t weighted_mean(const int64_t *req, const int64_t *alloc,
			     const struct sched_resource_weight *w, size_t n,
			     resource_fn *fn)
{
	int64_t score = 0, sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (alloc[i] == 0)
			continue;
		score = i64_add_sat(score, i64_mul_sat(fn(req[i], alloc[i]), w[i].weight));
		sum = i64_add_sat(sum, w[i].weight);
	}
	return sum == 0 ? 0 : score / sum;
}

int64_t sched_least_allocated(const int64_t *req, const int64_t *alloc,
			      const struct sched_resource_weight *w, size_t n)
{
	return weighted_mean(req, alloc, w, n, least_requested);
}

int64_t sched_most_allocated(const int64_t *req, const int64_t *alloc,
			     const struct sched_resource_weight *w, size_t n)
{
	return weighted_mean(req, alloc, w, n, most_requested);
}

/* BuildBrokenLinearFunction over points (u_k, 10·s_k). */
static int64_t broken_line(const struct sched_shape_point *shape, size_t n, int64_t p)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t u = shape[i].utilization;
		int64_t s = (int64_t)shape[i].score * (SCHED_MAX_NODE_SCORE / SCHED_MAX_CUSTOM_PRIORITY);
		int64_t u0, s0;

		if (p > u)
			continue;
		if (i == 0)
			return s;
		u0 = shape[i - 1].utilization;
		s0 = (int64_t)shape[i - 1].score * (SCHED_MAX_NODE_SCORE / SCHED_MAX_CUSTOM_PRIORITY);
		/* Validated shapes increase strictly; a hand-built one that
		 * does not gets its earlier point's score. */
		if (u == u0)
			return s0;
		return s0 + (s - s0) * (p - u0) / (u - u0);
	}
	return n == 0 ? 0 : (int64_t)shape[n - 1].score * (SCHED_MAX_NODE_SCORE / SCHED_MAX_CUSTOM_PRIORITY);
}

int64_t sched_requested_to_capacity(const int64_t *req, const int64_t *alloc,
				    const struct sched_resource_weight *w, size_t n,
				    const struct sched_shape_point *shape, size_t nshape)
{
	int64_t score = 0, sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t u, s;

		if (alloc[i] == 0)
			continue;
		u = req[i] > alloc[i] ? 100 : mul_div(req[i], 100, alloc[i]);
		s = broken_line(shape, nshape, u);
		if (s > 0) {
			score = i64_add_sat(score, i64_mul_sat(s, w[i].weight));
			sum = i64_add_sat(sum, w[i].weight);
		}
	}
	if (sum == 0)
		return 0;
	/* math.Round: halves away from zero, as C's round(). */
	return (int64_t)round((double)score / (double)sum);
}

void sched_resource_vectors(const struct sched_pod_cycle *c,
			    const struct sched_node *node, bool balanced,
			    bool fresh, int64_t *req, int64_t *alloc)
{
	const struct sched_profile *p = c->profile;
	const struct sched_resource_weight *w = balanced ? p->balanced_resources : p->fit_resources;
	const int64_t *pod = balanced ? c->balanced_request : c->fit_request;
	const unsigned char *kind = balanced ? c->balanced_kind : c->fit_kind;
	size_t i, n = balanced ? p->nbalanced_resources : p->nfit_resources;
	int64_t cpu_used = balanced ? node->requested.milli_cpu : node->nonzero_milli_cpu;
	int64_t mem_used = balanced ? node->requested.memory : node->nonzero_memory;
	const struct sched_resources none = { 0 };
	const struct sched_resources *used = fresh ? &none : &node->requested;

	if (fresh)
		cpu_used = mem_used = 0;
	for (i = 0; i < n; i++) {
		bool present = false;

		alloc[i] = req[i] = 0;
		switch ((enum sched_resource_kind)kind[i]) {
		case SCHED_KIND_CPU:
			alloc[i] = node->cpu_known ? node->allocatable.milli_cpu : 0;
			req[i] = i64_add_sat(cpu_used, pod[i]);
			break;
		case SCHED_KIND_MEMORY:
			alloc[i] = node->allocatable.memory;
			req[i] = i64_add_sat(mem_used, pod[i]);
			break;
		case SCHED_KIND_EPHEMERAL:
			alloc[i] = node->allocatable.ephemeral_storage;
			req[i] = i64_add_sat(used->ephemeral_storage, pod[i]);
			break;
		case SCHED_KIND_SCALAR:
			if (pod[i] == 0)
				continue;
			alloc[i] = sched_resources_get(&node->allocatable, w[i].name, &present);
			req[i] = present ? i64_add_sat(sched_resources_get(used, w[i].name, NULL), pod[i])
					 : 0;
			break;
		case SCHED_KIND_OTHER:
			break;
		}
		/* score(): a resource without allocatable is not scored. */
		if (alloc[i] == 0)
			req[i] = 0;
	}
}

int64_t sched_fit_score(const struct sched_pod_cycle *c,
			const struct sched_node *node, bool fresh)
{
	const struct sched_profile *p = c->profile;
	size_t n = p->nfit_resources;
	int64_t small[2 * SCHED_SMALL_VECTOR];
	int64_t *req = n <= SCHED_SMALL_VECTOR ? small : xcalloc(2 * n, sizeof *req);
	int64_t *alloc = req + n, score = 0;

	sched_resource_vectors(c, node, false, fresh, req, alloc);
	switch (p->strategy) {
	case SCHED_LEAST_ALLOCATED:
		score = sched_least_allocated(req, alloc, p->fit_resources, n);
		break;
	case SCHED_MOST_ALLOCATED:
		score = sched_most_allocated(req, alloc, p->fit_resources, n);
		break;
	case SCHED_REQUESTED_TO_CAPACITY_RATIO:
		score = sched_requested_to_capacity(req, alloc, p->fit_resources, n,
						    p->shape, p->nshape);
		break;
	}
	if (req != small)
		free(req);
	return score;
}
