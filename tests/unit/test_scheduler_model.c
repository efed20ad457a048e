/* SPDX-License-Identifier: Apache-2.0 */
/* The kube-scheduler model (scheduler/): every score formula on its own, the
 * filters with their reason strings, and whole scheduling cycles through
 * sched_schedule_one with a scripted extender — the two-node example whose
 * totals are worked by hand from upstream's formulas (A 436, B 418 in
 * tree; with an extender of weight 5 scoring A 2 and B 4: 536 and 618, so B),
 * clusters where an extender's weight flips the winner or does not, ties,
 * and numFeasibleNodesToFind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/cycle.h"
#include "scheduler/filter.h"
#include "scheduler/match.h"
#include "scheduler/score.h"
#include "scheduler/select.h"
#include "tests/support/sched_build.h"

static const enum sched_version versions[] = {
	SCHED_V1_32, SCHED_V1_33, SCHED_V1_34, SCHED_V1_35,
};
#define NVERSIONS (sizeof versions / sizeof versions[0])

/* A scripted extender: scores by node name, drops the nodes it names. */
struct script {
	const char *names[8];
	int64_t scores[8];
	const char *drop;      /* a node its filter rejects, or NULL */
	bool fail_filter;
	bool echo;             /* answers filter with Node objects */
	int prioritize_calls;
	int filter_calls;
};

static enum err script_filter(void *arg, size_t ext, const struct sched_pod *pod,
			      const struct sched_node *nodes, const size_t *cand,
			      size_t n, struct sched_ext_filter *out, struct errmsg *msg)
{
	struct script *s = arg;
	size_t i;

	(void)ext;
	(void)pod;
	s->filter_calls++;
	if (s->fail_filter) {
		errmsg_set(msg, "extender down");
		return ERR_HTTP;
	}
	for (i = 0; i < n; i++) {
		out->pass[i] = s->drop == NULL || strcmp(nodes[cand[i]].name, s->drop) != 0;
		if (!out->pass[i])
			out->reason[i] = "no NUMA fit";
	}
	out->echoed = s->echo;
	return ERR_OK;
}

static enum err script_prioritize(void *arg, size_t ext, const struct sched_pod *pod,
				  const struct sched_node *nodes, const size_t *idx,
				  size_t n, int64_t *score, bool *has, struct errmsg *msg)
{
	struct script *s = arg;
	size_t i, k;

	(void)ext;
	(void)pod;
	(void)msg;
	s->prioritize_calls++;
	for (i = 0; i < n; i++)
		for (k = 0; k < 8 && s->names[k] != NULL; k++)
			if (strcmp(nodes[idx[i]].name, s->names[k]) == 0) {
				score[i] = s->scores[k];
				has[i] = true;
			}
	return ERR_OK;
}

/* A configuration of the default profile and one extender of weight w
 * (none when w is 0). */
static void config_with_extender(struct sched_config *c, int64_t w)
{
	sched_config_default(c);
	if (w == 0)
		return;
	c->extenders = xcalloc(1, sizeof *c->extenders);
	c->nextenders = 1;
	c->extenders[0].url_prefix = xstrdup("http://127.0.0.1:8888/numa");
	c->extenders[0].filter_verb = xstrdup("filter");
	c->extenders[0].prioritize_verb = xstrdup("prioritize");
	c->extenders[0].weight = w;
	c->extenders[0].node_cache_capable = true;
}

static enum sched_outcome run(const struct sched_config *c, enum sched_version v,
			      const struct sched_pod *pod, const struct sched_node *nodes,
			      size_t n, struct script *s, struct sched_cycle_out *out)
{
	struct sched_extender_ops ops = { s, script_filter, script_prioritize };
	struct sched_cycle_in in = {
		c, &c->profiles[0], v, pod, nodes, n, 0, s != NULL ? &ops : NULL,
	};

	return sched_schedule_one(&in, out);
}

/* The two nodes of the worked example. */
static void example_nodes(struct sched_node *nodes)
{
	sb_node(&nodes[0], "A", "4", "8Gi", 110);
	sb_node_used(&nodes[0], "2", "2Gi", 3);
	sb_node(&nodes[1], "B", "8", "16Gi", 110);
	sb_node_used(&nodes[1], "6", "4Gi", 5);
}

/* The worked example: its two nodes, its pod (500m, 1Gi) and a
 * configuration with one extender of weight w (none when 0). */
struct example {
	struct sched_node nodes[2];
	struct sched_pod pod;
	struct sched_config c;
};

static void example_init(struct example *e, int64_t w)
{
	example_nodes(e->nodes);
	sb_simple_pod(&e->pod, "p", "500m", "1Gi");
	config_with_extender(&e->c, w);
}

static void example_cleanup(struct example *e)
{
	sched_config_cleanup(&e->c);
	sched_pod_cleanup(&e->pod);
	sched_node_cleanup(&e->nodes[0]);
	sched_node_cleanup(&e->nodes[1]);
}

static enum sched_outcome example_run(struct example *e, enum sched_version v,
				      struct script *s, struct sched_cycle_out *out)
{
	return run(&e->c, v, &e->pod, e->nodes, 2, s, out);
}

static const char *chosen(const struct example *e, const struct sched_cycle_out *out)
{
	return e->nodes[out->chosen].name;
}

static void test_worked_example(void **state)
{
	size_t v;

	(void)state;
	for (v = 0; v < NVERSIONS; v++) {
		struct script s = { { "A", "B" }, { 2, 4 }, NULL, false, false, 0, 0 };
		struct sched_cycle_out out;
		const struct sched_node_score *a, *b;
		struct example e;

		example_init(&e, 5);
		assert_int_equal(example_run(&e, versions[v], &s, &out), SCHED_SCHEDULED);
		a = sched_cycle_score(&out, 0);
		b = sched_cycle_score(&out, 1);
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->weighted[SCHED_NODE_RESOURCES_FIT], 49);
		assert_int_equal(b->weighted[SCHED_NODE_RESOURCES_FIT], 43);
		assert_int_equal(a->weighted[SCHED_BALANCED_ALLOCATION], 87);
		assert_int_equal(b->weighted[SCHED_BALANCED_ALLOCATION], 75);
		assert_int_equal(a->weighted[SCHED_TAINT_TOLERATION], 300);
		assert_int_equal(b->weighted[SCHED_TAINT_TOLERATION], 300);
		assert_false(a->ran[SCHED_NODE_AFFINITY]);
		assert_int_equal(a->total - a->extender, 436);
		assert_int_equal(b->total - b->extender, 418);
		assert_int_equal(a->extender, 100);
		assert_int_equal(b->extender, 200);
		assert_int_equal(a->total, 536);
		assert_int_equal(b->total, 618);
		assert_string_equal(chosen(&e, &out), "B");
		assert_int_equal(out.ntied, 1);
		assert_int_equal(s.filter_calls, 1);
		assert_int_equal(s.prioritize_calls, 1);
		sched_cycle_out_cleanup(&out);
		example_cleanup(&e);

		/* Without the extender, A wins 436 to 418. */
		example_init(&e, 0);
		assert_int_equal(example_run(&e, versions[v], NULL, &out), SCHED_SCHEDULED);
		assert_string_equal(chosen(&e, &out), "A");
		assert_int_equal(sched_cycle_score(&out, 0)->total, 436);
		assert_int_equal(sched_cycle_score(&out, 1)->total, 418);
		sched_cycle_out_cleanup(&out);
		example_cleanup(&e);
	}
}

/* The extender flips the winner when (sB - sA)·w·10 > 18: with A=2, B=4 a
 * weight of 1 gives 20 and flips; with A=3, B=4 it gives 10 and does not,
 * while weight 2 (20) does. */
static void test_weight_flips_winner(void **state)
{
	static const struct {
		int64_t a, b, w;
		const char *winner;
	} cases[] = {
		{ 2, 4, 1, "B" }, { 3, 4, 1, "A" }, { 3, 4, 2, "B" },
		{ 4, 4, 10, "A" }, { 4, 2, 10, "A" }, { 0, 10, 1, "B" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct script s = { { "A", "B" }, { cases[i].a, cases[i].b }, NULL, false, false, 0, 0 };
		struct sched_cycle_out out;
		struct example e;

		example_init(&e, cases[i].w);
		assert_int_equal(example_run(&e, SCHED_V1_35, &s, &out), SCHED_SCHEDULED);
		assert_string_equal(chosen(&e, &out), cases[i].winner);
		sched_cycle_out_cleanup(&out);
		example_cleanup(&e);
	}
}

static const struct sched_resource_weight cpu_mem[2] = {
	{ (char *)(uintptr_t)"cpu", 1 }, { (char *)(uintptr_t)"memory", 1 },
};

/* The Fit strategies on A's vectors of the example: cpu 2500m of 4000m,
 * memory 3Gi of 8Gi. */
static void test_fit_strategies(void **state)
{
	const int64_t req[2] = { 2500, 3LL << 30 }, alloc[2] = { 4000, 8LL << 30 };
	const int64_t over[2] = { 5000, 3LL << 30 };
	struct sched_resource_weight heavy_cpu[2] = { cpu_mem[0], cpu_mem[1] };
	static const struct sched_shape_point rising[] = { { 0, 0 }, { 100, 10 } };
	static const struct sched_shape_point falling[] = { { 0, 10 }, { 100, 0 } };
	static const struct sched_shape_point peak[] = { { 0, 0 }, { 50, 10 }, { 100, 5 } };
	static const struct sched_shape_point late[] = { { 50, 0 }, { 100, 10 } };

	(void)state;
	heavy_cpu[0].weight = 3;
	/* Least: (1500·100/4000 = 37, 5Gi·100/8Gi = 62) -> 49. */
	assert_int_equal(sched_least_allocated(req, alloc, cpu_mem, 2), 49);
	/* Over-requested cpu scores 0: (0 + 62) / 2. */
	assert_int_equal(sched_least_allocated(over, alloc, cpu_mem, 2), 31);
	/* Most: 62 (62.5) and 37 (37.5): 49; weights 3:1 give 223/4 = 55. */
	assert_int_equal(sched_most_allocated(req, alloc, cpu_mem, 2), 49);
	assert_int_equal(sched_most_allocated(req, alloc, heavy_cpu, 2), 55);
	/* Most clamps requested to the capacity: (100 + 37) / 2. */
	assert_int_equal(sched_most_allocated(over, alloc, cpu_mem, 2), 68);
	/* RequestedToCapacityRatio rounds a float: (62 + 37) / 2 = 49.5 -> 50,
	 * where the integer strategies truncate. */
	assert_int_equal(sched_requested_to_capacity(req, alloc, cpu_mem, 2, rising, 2), 50);
	/* (38 + 63) / 2 = 50.5 -> 51. */
	assert_int_equal(sched_requested_to_capacity(req, alloc, cpu_mem, 2, falling, 2), 51);
	/* u 62 on the falling half: 100 + (50 - 100)·12/50 = 88; u 37 on the
	 * rising one: 100·37/50 = 74; mean 81. */
	assert_int_equal(sched_requested_to_capacity(req, alloc, cpu_mem, 2, peak, 3), 81);
	/* A resource whose shape score is 0 leaves the mean: memory (u 37)
	 * scores 0, cpu 0 + 100·12/50 = 24. */
	assert_int_equal(sched_requested_to_capacity(req, alloc, cpu_mem, 2, late, 2), 24);
	/* Over capacity is utilization 100, which this shape scores 0: only
	 * memory (100 - 37) is left. */
	assert_int_equal(sched_requested_to_capacity(over, alloc, cpu_mem, 2, falling, 2), 63);
	/* A resource without allocatable is left out of every strategy. */
	{
		const int64_t req1[2] = { 2500, 0 }, alloc1[2] = { 4000, 0 };

		assert_int_equal(sched_least_allocated(req1, alloc1, cpu_mem, 2), 37);
		assert_int_equal(sched_most_allocated(req1, alloc1, cpu_mem, 2), 62);
		assert_int_equal(sched_least_allocated(req1, alloc1, cpu_mem, 0), 0);
	}
}

static void test_balanced_allocation(void **state)
{
	/* The example: |0.625 - 0.375| / 2 = 0.125 -> 87.5 -> 87. */
	const int64_t ra[2] = { 2500, 3LL << 30 }, aa[2] = { 4000, 8LL << 30 };
	/* Three resources: 0.5, 0.25, 0.75: std = sqrt(0.125/3) = 0.2041 -> 79. */
	const int64_t r3[3] = { 2000, 2LL << 30, 3 }, a3[3] = { 4000, 8LL << 30, 4 };
	/* Over capacity counts as 1: |1 - 0.375| / 2 = 0.3125 -> 68. */
	const int64_t ro[2] = { 5000, 3LL << 30 };
	/* One resource: no spread, 100. */
	const int64_t r1[2] = { 2500, 0 }, a1[2] = { 4000, 0 };

	(void)state;
	assert_int_equal(sched_balanced_allocation(ra, aa, 2), 87);
	assert_int_equal(sched_balanced_allocation(r3, a3, 3), 79);
	assert_int_equal(sched_balanced_allocation(ro, aa, 2), 68);
	assert_int_equal(sched_balanced_allocation(r1, a1, 2), 100);
	assert_int_equal(sched_balanced_allocation(r1, a1, 0), 100);
}

/* Scores of pod on nodes[0..n) with profile p (all nodes feasible). */
static void score_all(const struct sched_profile *p, enum sched_version v,
		      const struct sched_pod *pod, const struct sched_node *nodes,
		      size_t n, struct sched_node_score *out)
{
	struct sched_pod_cycle pc;
	size_t idx[8], i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	sched_pod_cycle_init(&pc, p, v, pod);
	sched_score_nodes(&pc, nodes, idx, n, false, out);
	sched_pod_cycle_cleanup(&pc);
}

static void free_nodes(struct sched_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sched_node_cleanup(&nodes[i]);
}

/* PreferNoSchedule taints counted per node (0, 1, 2; a tolerated one does
 * not count), normalized in reverse: 100, 50, 0, times 3. */
static void test_taint_toleration_score(void **state)
{
	struct sched_node nodes[3];
	struct sched_node_score sc[3];
	struct sched_profile p;
	struct sched_pod pod;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		sb_node(&nodes[i], i == 0 ? "n0" : i == 1 ? "n1" : "n2", "4", "8Gi", 110);
	sb_node_taint(&nodes[1], "spot", "true", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	sb_node_taint(&nodes[2], "spot", "true", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	sb_node_taint(&nodes[2], "old", "", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	sb_node_taint(&nodes[2], "team", "a", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	sb_node_taint(&nodes[2], "gpu", "", SCHED_EFFECT_NO_SCHEDULE); /* not counted */
	sb_simple_pod(&pod, "p", "1", "1Gi");
	sb_toleration(&pod, "team", SCHED_TOL_EQUAL, "a", SCHED_EFFECT_ALL);
	sched_profile_default(&p, NULL);
	score_all(&p, SCHED_V1_35, &pod, nodes, 3, sc);
	assert_int_equal(sc[0].raw[SCHED_TAINT_TOLERATION], 0);
	assert_int_equal(sc[1].raw[SCHED_TAINT_TOLERATION], 1);
	assert_int_equal(sc[2].raw[SCHED_TAINT_TOLERATION], 2);
	assert_int_equal(sc[0].weighted[SCHED_TAINT_TOLERATION], 300);
	assert_int_equal(sc[1].weighted[SCHED_TAINT_TOLERATION], 150);
	assert_int_equal(sc[2].weighted[SCHED_TAINT_TOLERATION], 0);
	/* A toleration of effect NoSchedule does not tolerate PreferNoSchedule. */
	sb_toleration(&pod, "spot", SCHED_TOL_EXISTS, "", SCHED_EFFECT_NO_SCHEDULE);
	score_all(&p, SCHED_V1_35, &pod, nodes, 3, sc);
	assert_int_equal(sc[2].raw[SCHED_TAINT_TOLERATION], 2);
	/* An empty key with Exists tolerates everything: all 100. */
	sb_toleration(&pod, "", SCHED_TOL_EXISTS, "", SCHED_EFFECT_ALL);
	score_all(&p, SCHED_V1_35, &pod, nodes, 3, sc);
	for (i = 0; i < 3; i++)
		assert_int_equal(sc[i].weighted[SCHED_TAINT_TOLERATION], 300);
	sched_profile_cleanup(&p);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 3);
}

/* Preferred terms of weight 10 (zone a) and 30 (disk ssd): raw 10, 30, 40
 * and 0, normalized 25, 75, 100, 0, times 2. */
static void test_node_affinity_score(void **state)
{
	struct sched_node nodes[4];
	struct sched_node_score sc[4];
	struct sched_profile p;
	struct sched_pod pod;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		sb_node(&nodes[i], i == 0 ? "n0" : i == 1 ? "n1" : i == 2 ? "n2" : "n3", "4", "8Gi", 110);
	sb_node_label(&nodes[0], "zone", "a");
	sb_node_label(&nodes[1], "disk", "ssd");
	sb_node_label(&nodes[2], "zone", "a");
	sb_node_label(&nodes[2], "disk", "ssd");
	sb_node_label(&nodes[3], "zone", "b");
	sb_simple_pod(&pod, "p", "1", "1Gi");
	sb_expr(sb_preferred(&pod, 10), 0, "zone", SCHED_OP_IN, "a", "c", NULL);
	sb_expr(sb_preferred(&pod, 30), 0, "disk", SCHED_OP_EXISTS, NULL);
	/* Weight 0 and an empty term count for nothing. */
	sb_expr(sb_preferred(&pod, 0), 0, "zone", SCHED_OP_IN, "b", NULL);
	(void)sb_preferred(&pod, 50);
	sched_profile_default(&p, NULL);
	score_all(&p, SCHED_V1_35, &pod, nodes, 4, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_AFFINITY], 10);
	assert_int_equal(sc[1].raw[SCHED_NODE_AFFINITY], 30);
	assert_int_equal(sc[2].raw[SCHED_NODE_AFFINITY], 40);
	assert_int_equal(sc[3].raw[SCHED_NODE_AFFINITY], 0);
	assert_int_equal(sc[0].weighted[SCHED_NODE_AFFINITY], 50);
	assert_int_equal(sc[1].weighted[SCHED_NODE_AFFINITY], 150);
	assert_int_equal(sc[2].weighted[SCHED_NODE_AFFINITY], 200);
	assert_int_equal(sc[3].weighted[SCHED_NODE_AFFINITY], 0);
	sched_profile_cleanup(&p);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 4);
}

/* Appends name, weight 1, to a profile's resource list. */
static void add_weight(struct sched_resource_weight **w, size_t *n, const char *name)
{
	*w = xreallocarray(*w, *n + 1, sizeof **w);
	(*w)[*n].name = xstrdup(name);
	(*w)[*n].weight = 1;
	(*n)++;
}

/* A profile scoring cpu, memory and nvidia.com/gpu: a pod without a gpu
 * request leaves the gpu out (scalar with request 0), one with scores it. */
static void test_zero_scalar_skipped(void **state)
{
	struct sched_node nodes[1];
	struct sched_node_score sc[1];
	struct sched_profile p, plain;
	struct sched_pod pod;

	(void)state;
	sb_node(&nodes[0], "n0", "4", "8Gi", 110);
	sb_node_alloc(&nodes[0], "nvidia.com/gpu", "4");
	sb_node_used(&nodes[0], "2", "2Gi", 2);
	sched_profile_default(&p, NULL);
	sched_profile_default(&plain, NULL);
	add_weight(&p.fit_resources, &p.nfit_resources, "nvidia.com/gpu");
	sb_simple_pod(&pod, "p", "500m", "1Gi");
	score_all(&p, SCHED_V1_35, &pod, nodes, 1, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 49);
	score_all(&plain, SCHED_V1_35, &pod, nodes, 1, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 49);
	/* With gpu 1 of 4: (37 + 62 + 75) / 3 = 58. */
	sb_request(&pod, 0, "nvidia.com/gpu", "1");
	score_all(&p, SCHED_V1_35, &pod, nodes, 1, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 58);
	sched_profile_cleanup(&p);
	sched_profile_cleanup(&plain);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 1);
}

/* MostAllocated and RequestedToCapacityRatio chosen in the profile, and
 * BalancedAllocation over three resources, on a real node. */
static void test_profile_strategies(void **state)
{
	static const struct sched_shape_point shape[] = { { 0, 0 }, { 50, 10 }, { 100, 5 } };
	struct sched_node nodes[2]; /* example_nodes fills two */
	struct sched_node_score sc[1];
	struct sched_profile p;
	struct sched_pod pod;

	(void)state;
	example_nodes(nodes);
	sched_node_cleanup(&nodes[1]);
	sb_simple_pod(&pod, "p", "500m", "1Gi");
	sched_profile_default(&p, NULL);
	p.strategy = SCHED_MOST_ALLOCATED;
	score_all(&p, SCHED_V1_35, &pod, nodes, 1, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 49);
	p.strategy = SCHED_REQUESTED_TO_CAPACITY_RATIO;
	p.shape = xcalloc(3, sizeof *p.shape);
	memcpy(p.shape, shape, sizeof shape);
	p.nshape = 3;
	score_all(&p, SCHED_V1_35, &pod, nodes, 1, sc);
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 81);
	/* Balanced over cpu, memory and a gpu: 0.625, 0.375, 0.75. */
	sb_node_alloc(&nodes[0], "nvidia.com/gpu", "4");
	sched_resources_set(&nodes[0].requested, "nvidia.com/gpu", 2);
	sb_request(&pod, 0, "nvidia.com/gpu", "1");
	add_weight(&p.balanced_resources, &p.nbalanced_resources, "nvidia.com/gpu");
	score_all(&p, SCHED_V1_35, &pod, nodes, 1, sc);
	/* mean 0.58333, deviations .04167 -.20833 .16667: std 0.1559 -> 84. */
	assert_int_equal(sc[0].raw[SCHED_BALANCED_ALLOCATION], 84);
	sched_profile_cleanup(&p);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 1);
}

/* 1.32 scores a best-effort pod with BalancedAllocation; 1.33 on skip it. */
static void test_balanced_best_effort(void **state)
{
	struct sched_node nodes[2]; /* example_nodes fills two */
	struct sched_node_score sc[1];
	struct sched_profile p;
	struct sched_pod pod;

	(void)state;
	example_nodes(nodes);
	sched_node_cleanup(&nodes[1]);
	sb_simple_pod(&pod, "p", NULL, NULL);
	sched_profile_default(&p, NULL);
	score_all(&p, SCHED_V1_32, &pod, nodes, 1, sc);
	assert_true(sc[0].ran[SCHED_BALANCED_ALLOCATION]);
	/* 2000/4000 and 2Gi/8Gi: |0.5 - 0.25| / 2 -> 87. */
	assert_int_equal(sc[0].weighted[SCHED_BALANCED_ALLOCATION], 87);
	score_all(&p, SCHED_V1_33, &pod, nodes, 1, sc);
	assert_false(sc[0].ran[SCHED_BALANCED_ALLOCATION]);
	assert_int_equal(sc[0].weighted[SCHED_BALANCED_ALLOCATION], 0);
	/* NodeResourcesFit counts the non-zero defaults (100m, 200Mi) for it:
	 * (1900·100/4000 = 47, (8Gi - 2Gi - 200Mi)·100/8Gi = 72) -> 59. */
	assert_int_equal(sc[0].raw[SCHED_NODE_RESOURCES_FIT], 59);
	sched_profile_cleanup(&p);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 1);
}

static void test_num_feasible(void **state)
{
	(void)state;
	assert_int_equal(sched_num_feasible(0, 500), 230);
	assert_int_equal(sched_num_feasible(0, 1000), 420);
	assert_int_equal(sched_num_feasible(0, 5000), 500);
	assert_int_equal(sched_num_feasible(0, 6000), 300);
	assert_int_equal(sched_num_feasible(0, 99), 99);
	assert_int_equal(sched_num_feasible(0, 3), 3);
	assert_int_equal(sched_num_feasible(0, 100), 100);
	assert_int_equal(sched_num_feasible(0, 150), 100);
	assert_int_equal(sched_num_feasible(100, 1000), 1000);
	assert_int_equal(sched_num_feasible(10, 500), 100);
	assert_int_equal(sched_num_feasible(30, 5000), 1500);
	assert_int_equal(sched_num_feasible(100, 50), 50);
}

/* 150 equal nodes: 49 % would be 73, so 100 are looked for; the search
 * stops there and the next cycle starts at node 100. Three ties at the top
 * are reported by name. */
static void test_search_stops_and_ties(void **state)
{
	struct sched_node *nodes = xcalloc(150, sizeof *nodes);
	struct sched_config c;
	struct sched_cycle_out out;
	struct sched_pod pod;
	size_t i;

	(void)state;
	for (i = 0; i < 150; i++) {
		char name[16];

		snprintf(name, sizeof name, "n%03zu", 149 - i);
		sb_node(&nodes[i], name, "4", "8Gi", 110);
	}
	sb_simple_pod(&pod, "p", "1", "1Gi");
	config_with_extender(&c, 0);
	assert_int_equal(run(&c, SCHED_V1_35, &pod, nodes, 150, NULL, &out), SCHED_SCHEDULED);
	assert_int_equal(out.num_to_find, 100);
	assert_int_equal(out.nfeasible, 100);
	assert_int_equal(out.nscores, 100);
	assert_int_equal(out.next_start, 100);
	assert_int_equal(out.stage[99], SCHED_FEASIBLE);
	assert_int_equal(out.stage[100], SCHED_NOT_CHECKED);
	/* All 100 scored nodes tie; the first by name is n050 (index 99). */
	assert_int_equal(out.ntied, 100);
	assert_string_equal(nodes[out.chosen].name, "n050");
	assert_string_equal(nodes[out.tied[1]].name, "n051");
	sched_cycle_out_cleanup(&out);
	sched_config_cleanup(&c);
	sched_pod_cleanup(&pod);
	free_nodes(nodes, 150);
	free(nodes);
}

/* One feasible node is taken without scoring and without a prioritize
 * call; an extender that drops a node leaves one. */
static void test_single_node_not_scored(void **state)
{
	struct script s = { { "A", "B" }, { 10, 0 }, "A", false, false, 0, 0 };
	struct sched_cycle_out out;
	struct example e;

	(void)state;
	example_init(&e, 5);
	assert_int_equal(example_run(&e, SCHED_V1_35, &s, &out), SCHED_SCHEDULED);
	assert_string_equal(chosen(&e, &out), "B");
	assert_false(out.scored);
	assert_int_equal(s.prioritize_calls, 0);
	assert_int_equal(out.stage[0], SCHED_EXTENDER_FILTERED);
	assert_string_equal(out.status[0].reasons[0], "no NUMA fit");
	sched_cycle_out_cleanup(&out);
	example_cleanup(&e);
}

/* A failing filter verb ends the cycle unless the extender is ignorable;
 * an extender not interested in the pod is not called at all. */
static void test_extender_errors_and_interest(void **state)
{
	struct script s = { { "A", "B" }, { 2, 4 }, NULL, true, false, 0, 0 };
	struct sched_cycle_out out;
	struct sched_extender *x;
	struct example e;

	(void)state;
	example_init(&e, 5);
	x = &e.c.extenders[0];
	assert_int_equal(example_run(&e, SCHED_V1_35, &s, &out), SCHED_ERROR);
	assert_string_equal(out.message, "extender down");
	sched_cycle_out_cleanup(&out);
	x->ignorable = true;
	assert_int_equal(example_run(&e, SCHED_V1_35, &s, &out), SCHED_SCHEDULED);
	/* Its prioritize still counts: B 618. */
	assert_string_equal(chosen(&e, &out), "B");
	sched_cycle_out_cleanup(&out);
	x->managed = xcalloc(1, sizeof *x->managed);
	x->managed[0].name = xstrdup("nvidia.com/gpu");
	x->nmanaged = 1;
	s.filter_calls = s.prioritize_calls = 0;
	assert_int_equal(example_run(&e, SCHED_V1_35, &s, &out), SCHED_SCHEDULED);
	assert_int_equal(s.filter_calls + s.prioritize_calls, 0);
	assert_string_equal(chosen(&e, &out), "A");
	sched_cycle_out_cleanup(&out);
	/* A limit alone makes the pod interesting. */
	sb_limit(&e.pod, 0, "nvidia.com/gpu", "1");
	assert_true(sched_extender_interested(x, &e.pod));
	example_cleanup(&e);
}

/* An extender answering with Node objects: 1.32 still scores the cached
 * nodes, 1.33+ scores empty NodeInfos (Fit sees only the pod). */
static void test_echoed_nodes(void **state)
{
	size_t v;

	(void)state;
	for (v = 0; v < NVERSIONS; v++) {
		struct script s = { { "A", "B" }, { 2, 4 }, NULL, false, true, 0, 0 };
		struct sched_cycle_out out;
		struct example e;
		int64_t fit;

		example_init(&e, 5);
		e.c.extenders[0].node_cache_capable = false;
		assert_int_equal(example_run(&e, versions[v], &s, &out), SCHED_SCHEDULED);
		assert_true(out.fresh);
		fit = sched_cycle_score(&out, 0)->weighted[SCHED_NODE_RESOURCES_FIT];
		/* Empty: (3500·100/4000 = 87, 7Gi·100/8Gi = 87). */
		assert_int_equal(fit, versions[v] == SCHED_V1_32 ? 49 : 87);
		sched_cycle_out_cleanup(&out);
		example_cleanup(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_weight_flips_winner),
		cmocka_unit_test(test_fit_strategies),
		cmocka_unit_test(test_balanced_allocation),
		cmocka_unit_test(test_taint_toleration_score),
		cmocka_unit_test(test_node_affinity_score),
		cmocka_unit_test(test_zero_scalar_skipped),
		cmocka_unit_test(test_profile_strategies),
		cmocka_unit_test(test_balanced_best_effort),
		cmocka_unit_test(test_num_feasible),
		cmocka_unit_test(test_search_stops_and_ties),
		cmocka_unit_test(test_single_node_not_scored),
		cmocka_unit_test(test_extender_errors_and_interest),
		cmocka_unit_test(test_echoed_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
