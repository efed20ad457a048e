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

static void test_worked_example(void **state)
{
	struct sched_node nodes[2];
	struct sched_pod pod;
	size_t v;

	(void)state;
	example_nodes(nodes);
	sb_simple_pod(&pod, "p", "500m", "1Gi");
	for (v = 0; v < NVERSIONS; v++) {
		struct script s = { { "A", "B" }, { 2, 4 }, NULL, false, false, 0, 0 };
		struct sched_config c;
		struct sched_cycle_out out;
		const struct sched_node_score *a, *b;

		config_with_extender(&c, 5);
		assert_int_equal(run(&c, versions[v], &pod, nodes, 2, &s, &out), SCHED_SCHEDULED);
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
		assert_string_equal(nodes[out.chosen].name, "B");
		assert_int_equal(out.ntied, 1);
		assert_int_equal(s.filter_calls, 1);
		assert_int_equal(s.prioritize_calls, 1);
		sched_cycle_out_cleanup(&out);
		sched_config_cleanup(&c);

		/* Without the extender, A wins 436 to 418. */
		config_with_extender(&c, 0);
		assert_int_equal(run(&c, versions[v], &pod, nodes, 2, NULL, &out), SCHED_SCHEDULED);
		assert_string_equal(nodes[out.chosen].name, "A");
		assert_int_equal(sched_cycle_score(&out, 0)->total, 436);
		assert_int_equal(sched_cycle_score(&out, 1)->total, 418);
		sched_cycle_out_cleanup(&out);
		sched_config_cleanup(&c);
	}
	sched_pod_cleanup(&pod);
	sched_node_cleanup(&nodes[0]);
	sched_node_cleanup(&nodes[1]);
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
	struct sched_node nodes[2];
	struct sched_pod pod;
	size_t i;

	(void)state;
	example_nodes(nodes);
	sb_simple_pod(&pod, "p", "500m", "1Gi");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct script s = { { "A", "B" }, { cases[i].a, cases[i].b }, NULL, false, false, 0, 0 };
		struct sched_config c;
		struct sched_cycle_out out;

		config_with_extender(&c, cases[i].w);
		assert_int_equal(run(&c, SCHED_V1_35, &pod, nodes, 2, &s, &out), SCHED_SCHEDULED);
		assert_string_equal(nodes[out.chosen].name, cases[i].winner);
		sched_cycle_out_cleanup(&out);
		sched_config_cleanup(&c);
	}
	sched_pod_cleanup(&pod);
	sched_node_cleanup(&nodes[0]);
	sched_node_cleanup(&nodes[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_weight_flips_winner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
