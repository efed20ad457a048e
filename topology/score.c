/* SPDX-License-Identifier: Apache-2.0 */
/* Node scores from an admitted verdict (score.h). The placement is the set of
 * NUMA nodes where the simulation put the pod's NUMA-bound resources (CPU,
 * memory/hugepages, devices); every strategy looks at that set only.
 *
 * Formulas: LeastAllocated/MostAllocated follow kube-scheduler's
 * NodeResourcesFit (weighted integer mean of per-resource 0..100 scores),
 * computed as koordinator's NodeNUMAResource does, over
 * (already used + this pod) / allocatable of the placement rather than
 * scheduler-plugins' per-zone "request vs available" with a minimum over
 * zones. BalancedAllocation is kube-scheduler's NodeResourcesBalancedAllocation
 * (population standard deviation, not scheduler-plugins' sample variance).
 * LeastNUMANodes keeps scheduler-plugins' idea (fewer NUMA nodes, then
 * closer ones) but scales its step by the node's NUMA count, takes k from the
 * simulated placement instead of re-deriving it, and never zeroes a node
 * because the pod also asks a host-level resource (ephemeral-storage).
 * Unlike scheduler-plugins: NUMA nodes are dense indices (sparse ids are
 * fine), exclusive CPUs come from the simulation (1500m is no CPU part, not
 * 2), and host-level resources never enter a score. */
#include "score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked.h"

/* Beyond this many NUMA nodes the k-subset enumeration for the distance term
 * would cost too much per node and per pod; the kubelet itself stops
 * simulating at INVENTORY_MAX_SIMULATED_NUMA. */
#define SCORE_MAX_DISTANCE_NUMA 16

/* Inventories come from outside: amounts and distances are any int64, so
 * sums saturate (checked.h) instead of wrapping. */
/* floor(a * m / b) for 0 <= a <= b, b > 0, m >= 0, without the overflow of
 * a * m for petabyte-sized memory: binary long division in which the
 * remainder stays below b < 2^63, so doubling it fits in 64 bits. Outside
 * that domain the result is still defined: b <= 0 gives 0 (nothing
 * allocatable scores nothing), a is clamped to 0..b (a share is never below
 * none or above all), m < 0 gives 0. */
static int64_t mul_div(int64_t a, int64_t m, int64_t b)
{
	uint64_t ua, ub, um;
	uint64_t q = 0, rem = 0;
	int64_t p;
	int bit;

	if (b <= 0 || m <= 0 || a <= 0)
		return 0;
	if (a > b)
		a = b;
	if (i64_mul_ok(a, m, &p))
		return p / b;
	ua = (uint64_t)a;
	ub = (uint64_t)b;
	um = (uint64_t)m;
	for (bit = 63; bit >= 0; bit--) {
		q <<= 1;
		rem <<= 1;
		if (rem >= ub) {
			q++;
			rem -= ub;
		}
		if ((um >> bit) & 1u) {
			rem += ua;
			if (rem >= ub) {
				q++;
				rem -= ub;
			}
		}
	}
	return (int64_t)q;
}

static bool numa_bound(enum resource_kind k)
{
	return k == RESOURCE_CPU || k == RESOURCE_MEMORY || k == RESOURCE_DEVICE;
}

/* The configured weight, 1 when not listed; clamped to the documented range
 * so that Σ w·score100 cannot overflow whatever the caller passes. */
static int64_t weight_of(const struct score_config *cfg, const char *name)
{
	size_t i;

	if (cfg == NULL)
		return 1;
	for (i = 0; i < cfg->nweights; i++) {
		int64_t w = cfg->weights[i].weight;

		if (cfg->weights[i].name == NULL || strcmp(cfg->weights[i].name, name) != 0)
			continue;
		return w < 0 ? 0 : w > SCORE_MAX_WEIGHT ? SCORE_MAX_WEIGHT : w;
	}
	return 1;
}

/* The verdict's usage stride may differ from the node's NUMA count only if
 * the caller mixed a verdict and a node; read within both. */
static int numa_span(const struct inventory_node *node, const struct verdict *v)
{
	return v->usage_numa < node->numa_count ? v->usage_numa : node->numa_count;
}

/* What the pod takes, read once from the verdict: the dense NUMA indices
 * holding any NUMA-bound part of it, and for the first 64 resources which
 * ones it uses and how much in all. */
struct pod_use {
	bitmask_t placement;
	uint64_t used;              /* bit r: NUMA-bound resource r < 64 used */
	int64_t requested[64];      /* for those: the sum of positive usage */
};

static void pod_use_of(const struct inventory_node *node, const struct verdict *v,
		       struct pod_use *pu)
{
	int r, i, n = numa_span(node, v);

	pu->placement = 0;
	pu->used = 0;
	for (r = 0; r < node->nresources; r++) {
		const int64_t *u = &v->usage[(size_t)r * (size_t)v->usage_numa];
		int64_t requested = 0;
		bitmask_t here = 0;

		if (!numa_bound(node->resources[r].kind))
			continue;
		for (i = 0; i < n; i++) {
			if (u[i] > 0) {
				here |= (bitmask_t)1 << i;
				requested = i64_add_sat(requested, u[i]);
			}
		}
		pu->placement |= here;
		if (r < 64 && here) {
			pu->used |= (uint64_t)1 << r;
			pu->requested[r] = requested;
		}
	}
}

struct amounts {
	int64_t requested;
	int64_t used;
	int64_t allocatable;
	int64_t after;      /* used + requested, at most allocatable */
};

/* Whether the score looks at resource r (NUMA-bound, used by the pod,
 * weight > 0), and then its weight and amounts on the placement p: one
 * pass over the usage row and one over p's NUMA nodes. */
static bool scored(const struct score_config *cfg, const struct inventory_node *node,
		   const struct verdict *v, int r, const struct pod_use *pu, int64_t *weight,
		   struct amounts *a)
{
	const struct inventory_resource *res = &node->resources[r];
	bitmask_t b, p = pu->placement;
	int64_t requested = 0;
	bool any = false;
	int i, n = numa_span(node, v);

	if (!numa_bound(res->kind))
		return false;
	if (r < 64) {
		any = (pu->used >> r) & 1;
		requested = any ? pu->requested[r] : 0;
	} else {
		const int64_t *u = &v->usage[(size_t)r * (size_t)v->usage_numa];

		for (i = 0; i < n; i++) {
			if (u[i] > 0) {
				requested = i64_add_sat(requested, u[i]);
				any = true;
			}
		}
	}
	if (!any)
		return false;
	*weight = weight_of(cfg, res->name);
	if (*weight <= 0)
		return false;
	a->requested = requested;
	a->used = 0;
	a->allocatable = 0;
	/* p holds only NUMA nodes below numa_count (pod_use_of). */
	for (b = p; b; b &= b - 1) {
		int64_t al, av;

		i = bitmask_lowest(b);
		/* Negative amounts mean nothing; clamping them also keeps
		 * al - av from overflowing. */
		al = res->allocatable[i] > 0 ? res->allocatable[i] : 0;
		av = res->available[i] > 0 ? res->available[i] : 0;
		a->allocatable = i64_add_sat(a->allocatable, al);
		/* Agents report available above allocatable now and then
		 * (reserved CPUs, stale updates): nothing is used then. */
		if (al > av)
			a->used = i64_add_sat(a->used, al - av);
	}
	a->after = i64_add_sat(a->used, a->requested);
	if (a->after > a->allocatable)
		a->after = a->allocatable;
	return true;
}

/* Resource r's requested fraction of allocatable after the pod, when the
 * balanced score counts it (scored, with some allocatable). */
static bool balanced_fraction(const struct score_config *cfg, const struct inventory_node *node,
			      const struct verdict *v, int r, const struct pod_use *pu, double *f)
{
	struct amounts a;
	int64_t w;

	if (!scored(cfg, node, v, r, pu, &w, &a) || a.allocatable == 0)
		return false;
	*f = (double)a.after / (double)a.allocatable;
	return true;
}

/* kube-scheduler balancedResourceScorer: resources with no allocatable are
 * left out; std is |f0 - f1| / 2 for two (the same value as the population
 * formula, written as upstream writes it so results match bit for bit). */
static int64_t balanced_score(const struct score_config *cfg, const struct inventory_node *node,
			      const struct verdict *v, const struct pod_use *pu)
{
	double sum = 0.0, first = 0.0, second = 0.0, mean, sq = 0.0, std, f;
	int r, count = 0;
	int64_t s;

	for (r = 0; r < node->nresources; r++) {
		if (!balanced_fraction(cfg, node, v, r, pu, &f))
			continue;
		if (count == 0)
			first = f;
		else if (count == 1)
			second = f;
		sum += f;
		count++;
	}
	if (count <= 1)
		return 100;
	if (count == 2) {
		std = fabs((first - second) / 2.0);
	} else {
		mean = sum / (double)count;
		for (r = 0; r < node->nresources; r++)
			if (balanced_fraction(cfg, node, v, r, pu, &f))
				sq += (f - mean) * (f - mean);
		std = sqrt(sq / (double)count);
	}
	s = (int64_t)((1.0 - std) * 100.0);
	return s < 0 ? 0 : s > 100 ? 100 : s;
}

/* Σ distance[i][j] over ordered pairs of the mask, diagonal included: k²
 * times scheduler-plugins' average, so it orders sets of equal size alike. */
static int64_t distance_sum(const struct inventory_node *node, bitmask_t mask)
{
	int64_t sum = 0;
	bitmask_t a = mask;
	int n = node->numa_count;

	while (a) {
		int i = bitmask_lowest(a);
		bitmask_t b = mask;

		while (b) {
			int j = bitmask_lowest(b);

			sum = i64_add_sat(sum, node->distance[(size_t)i * (size_t)n + (size_t)j]);
			b &= b - 1;
		}
		a &= a - 1;
	}
	return sum;
}

/* Whether some k-subset of the node's NUMA nodes is strictly closer than the
 * placement. Gosper's hack walks the subsets in increasing order; the walk
 * stops at the first closer one since only "is P minimal" matters. */
static bool closer_subset_exists(const struct inventory_node *node, bitmask_t p, int k)
{
	int m = node->numa_count;
	int64_t mine;
	uint32_t c, limit;

	if (node->distance == NULL || m > SCORE_MAX_DISTANCE_NUMA || k < 2 || k >= m)
		return false;
	mine = distance_sum(node, p);
	c = (1u << k) - 1u;
	limit = 1u << m;
	while (c < limit) {
		uint32_t u = c & (~c + 1u), nx = c + u;

		if (distance_sum(node, c) < mine)
			return true;
		c = nx + (((nx ^ c) / u) >> 2);
	}
	return false;
}

static int64_t least_numa_score(const struct inventory_node *node, bitmask_t p, int k)
{
	int64_t step = 100 / (node->numa_count > 0 ? node->numa_count : 1);
	int64_t s = 100 - (int64_t)(k - 1) * step;

	if (closer_subset_exists(node, p, k))
		s -= step / 2;
	return s < 0 ? 0 : s;
}

/* LeastAllocated / MostAllocated share of one resource. */
static int64_t allocated_part(enum score_strategy st, const struct amounts *a)
{
	if (a->allocatable <= 0)
		return 0;
	if (st == SCORE_MOST_ALLOCATED)
		return mul_div(a->after, 100, a->allocatable);
	return mul_div(a->allocatable - a->after, 100, a->allocatable);
}

static int64_t part_score(enum score_strategy st, const struct amounts *a, int64_t node100)
{
	switch (st) {
	case SCORE_LEAST_ALLOCATED:
	case SCORE_MOST_ALLOCATED:
		return allocated_part(st, a);
	case SCORE_BALANCED_ALLOCATION:
		return a->allocatable > 0 ? mul_div(a->after, 100, a->allocatable) : 0;
	case SCORE_LEAST_NUMA_NODES:
		return node100;
	}
	return 0;
}

/* 0..100 to the extender's 0..SCORE_MAX, half up. */
static int64_t scale(int64_t score100)
{
	int64_t s = (score100 + 5) / 10;

	return s < 0 ? 0 : s > SCORE_MAX ? SCORE_MAX : s;
}

static int64_t finish(struct score_breakdown *out, int64_t score100, int k, const char *note)
{
	if (out) {
		out->score = scale(score100);
		out->score100 = score100;
		out->numa_used = k;
		out->note = note;
	}
	return scale(score100);
}

int64_t score_node(const struct score_config *cfg, const struct inventory_node *node,
		   const struct verdict *v, struct score_breakdown *out)
{
	return score_node_extra(cfg, node, v, NULL, out);
}

int64_t score_node_extra(const struct score_config *cfg, const struct inventory_node *node,
			 const struct verdict *v, const struct score_extra *extra,
			 struct score_breakdown *out)
{
	int64_t wextra = 0, e100 = 0;
	enum score_strategy st = cfg ? cfg->strategy : SCORE_LEAST_ALLOCATED;
	int64_t wsum = 0, wscore = 0, score100 = 0, w;
	struct pod_use pu;
	bitmask_t p;
	int r, k;

	if (out)
		memset(out, 0, sizeof *out);
	if (!v->admit)
		return finish(out, 0, 0, "rejected");
	pu.placement = 0;
	pu.used = 0;
	if (v->usage)
		pod_use_of(node, v, &pu);
	p = pu.placement;
	k = bitmask_count(p);
	if (k == 0)
		return finish(out, 0, 0, "no NUMA-bound request");
	/* The weights' sum and, for LeastAllocated/MostAllocated, the node
	 * score in the same pass (it is only read when the sum is not 0). */
	for (r = 0; r < node->nresources; r++) {
		struct amounts a;

		if (!scored(cfg, node, v, r, &pu, &w, &a))
			continue;
		wsum = i64_add_sat(wsum, w);
		if (st == SCORE_LEAST_ALLOCATED || st == SCORE_MOST_ALLOCATED)
			wscore = i64_add_sat(wscore, i64_mul_sat(w, allocated_part(st, &a)));
	}
	if (wsum == 0)
		return finish(out, 0, k, "all weights are 0");

	/* The node score first (the parts of LeastNUMANodes repeat it). */
	if (st == SCORE_BALANCED_ALLOCATION)
		score100 = balanced_score(cfg, node, v, &pu);
	else if (st == SCORE_LEAST_NUMA_NODES)
		score100 = least_numa_score(node, p, k);
	else
		score100 = wscore / wsum;
	if (extra != NULL && (wextra = weight_of(cfg, extra->name)) > 0) {
		e100 = extra->score100 < 0 ? 0 : extra->score100 > 100 ? 100 : extra->score100;
		int64_t num = st == SCORE_LEAST_ALLOCATED || st == SCORE_MOST_ALLOCATED
				      ? wscore : i64_mul_sat(score100, wsum);

		/* wsum + wextra > 0; saturated sums only round. */
		score100 = i64_add_sat(num, wextra * e100) / i64_add_sat(wsum, wextra);
	}

	if (out) {
		for (r = 0; r < node->nresources && out->nparts < SCORE_MAX_PARTS; r++) {
			struct score_part *part;
			struct amounts a;

			if (!scored(cfg, node, v, r, &pu, &w, &a))
				continue;
			part = &out->parts[out->nparts++];
			part->resource = node->resources[r].name;
			part->weight = w;
			part->score100 = part_score(st, &a, score100);
			part->requested = a.requested;
			part->used = a.used;
			part->allocatable = a.allocatable;
		}
		if (wextra > 0 && out->nparts < SCORE_MAX_PARTS) {
			struct score_part *part = &out->parts[out->nparts++];

			part->resource = extra->name;
			part->weight = wextra;
			part->score100 = e100;
		}
	}
	return finish(out, score100, k, NULL);
}

const char *score_strategy_name(enum score_strategy s)
{
	switch (s) {
	case SCORE_LEAST_ALLOCATED:
		return "LeastAllocated";
	case SCORE_MOST_ALLOCATED:
		return "MostAllocated";
	case SCORE_BALANCED_ALLOCATION:
		return "BalancedAllocation";
	case SCORE_LEAST_NUMA_NODES:
		return "LeastNUMANodes";
	}
	return "unknown";
}

bool score_strategy_parse(const char *name, enum score_strategy *out)
{
	static const enum score_strategy all[] = {
		SCORE_LEAST_ALLOCATED, SCORE_MOST_ALLOCATED,
		SCORE_BALANCED_ALLOCATION, SCORE_LEAST_NUMA_NODES,
	};
	size_t i;

	if (name == NULL)
		return false;
	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (strcmp(name, score_strategy_name(all[i])) == 0) {
			if (out)
				*out = all[i];
			return true;
		}
	}
	return false;
}

void score_config_cleanup(struct score_config *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nweights; i++)
		free(cfg->weights[i].name);
	free(cfg->weights);
	memset(cfg, 0, sizeof *cfg);
}
