/* SPDX-License-Identifier: Apache-2.0 */
/* The model's filters (scheduler/filter.c) one by one with kube-scheduler's
 * reason strings, the matching rules under them, NodeAffinity's PreFilter
 * and the FitError message a pod that fits nowhere gets. */
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
#include "scheduler/select.h"
#include "tests/support/sched_build.h"

/* Filters pod on node with the default profile; returns the reasons joined
 * by "; " ("" when the node fits), in a static buffer. */
static const char *verdict(enum sched_version v, const struct sched_pod *pod,
			   const struct sched_node *node, const struct sched_profile *prof)
{
	static char buf[1024];
	struct sched_profile def;
	struct sched_pod_cycle pc;
	struct sched_status st = { 0 };
	size_t i;

	sched_profile_default(&def, NULL);
	sched_pod_cycle_init(&pc, prof != NULL ? prof : &def, v, pod);
	sched_filter_node(&pc, node, &st);
	buf[0] = '\0';
	for (i = 0; i < st.nreasons; i++) {
		if (i > 0)
			strcat(buf, "; ");
		strncat(buf, st.reasons[i], sizeof buf - strlen(buf) - 3);
	}
	if (st.code == SCHED_SUCCESS)
		assert_int_equal(st.nreasons, 0);
	else
		assert_true(st.nreasons > 0);
	sched_status_cleanup(&st);
	sched_pod_cycle_cleanup(&pc);
	sched_profile_cleanup(&def);
	return buf;
}

static void test_untolerated_no_schedule(void **state)
{
	struct sched_node n;
	struct sched_pod pod;

	(void)state;
	sb_node(&n, "n", "4", "8Gi", 110);
	sb_node_taint(&n, "spot", "", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	sb_node_taint(&n, "dedicated", "gpu", SCHED_EFFECT_NO_SCHEDULE);
	sb_simple_pod(&pod, "p", "1", "1Gi");
	assert_string_equal(verdict(SCHED_V1_32, &pod, &n, NULL),
			    "node(s) had untolerated taint {dedicated: gpu}");
	assert_string_equal(verdict(SCHED_V1_33, &pod, &n, NULL),
			    "node(s) had untolerated taint {dedicated: gpu}");
	assert_string_equal(verdict(SCHED_V1_34, &pod, &n, NULL),
			    "node(s) had untolerated taint(s)");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "node(s) had untolerated taint(s)");
	/* The wrong value, or the PreferNoSchedule effect, does not tolerate. */
	sb_toleration(&pod, "dedicated", SCHED_TOL_EQUAL, "cpu", SCHED_EFFECT_NO_SCHEDULE);
	sb_toleration(&pod, "dedicated", SCHED_TOL_EXISTS, "", SCHED_EFFECT_PREFER_NO_SCHEDULE);
	/* Lt/Gt (gate off) never tolerate. */
	sb_toleration(&pod, "dedicated", SCHED_TOL_GT, "1", SCHED_EFFECT_ALL);
	assert_string_equal(verdict(SCHED_V1_32, &pod, &n, NULL),
			    "node(s) had untolerated taint {dedicated: gpu}");
	sb_toleration(&pod, "dedicated", SCHED_TOL_EQUAL, "gpu", SCHED_EFFECT_ALL);
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "");
	/* NoExecute counts too, and its reason names the first untolerated. */
	sb_node_taint(&n, "node.kubernetes.io/not-ready", "", SCHED_EFFECT_NO_EXECUTE);
	assert_string_equal(verdict(SCHED_V1_33, &pod, &n, NULL),
			    "node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
	sb_toleration(&pod, "", SCHED_TOL_EXISTS, "", SCHED_EFFECT_ALL);
	assert_string_equal(verdict(SCHED_V1_33, &pod, &n, NULL), "");
	sched_pod_cleanup(&pod);
	sched_node_cleanup(&n);
}

static void test_unschedulable_and_node_name(void **state)
{
	struct sched_node n;
	struct sched_pod pod;

	(void)state;
	sb_node(&n, "n", "4", "8Gi", 110);
	n.unschedulable = true;
	sb_simple_pod(&pod, "p", "1", "1Gi");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "node(s) were unschedulable");
	sb_toleration(&pod, "node.kubernetes.io/unschedulable", SCHED_TOL_EXISTS, "",
		      SCHED_EFFECT_NO_SCHEDULE);
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "");
	pod.node_name = xstrdup("other");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "node(s) didn't match the requested node name");
	free(pod.node_name);
	pod.node_name = xstrdup("n");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "");
	sched_pod_cleanup(&pod);
	sched_node_cleanup(&n);
}

static void test_node_selector_and_affinity(void **state)
{
	struct sched_node n;
	struct sched_pod pod;
	struct sched_term *t;

	(void)state;
	sb_node(&n, "n", "4", "8Gi", 110);
	sb_node_label(&n, "disk", "ssd");
	sb_node_label(&n, "cpu-gen", "5");
	sb_simple_pod(&pod, "p", "1", "1Gi");
	sb_node_selector(&pod, "disk", "hdd");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "node(s) didn't match Pod's node affinity/selector");
	free(pod.node_selector[0].value);
	pod.node_selector[0].value = xstrdup("ssd");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "");
	/* Required terms are ORed; a term's expressions are ANDed. */
	t = sb_required(&pod);
	sb_expr(t, 0, "cpu-gen", SCHED_OP_GT, "5", NULL);
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "node(s) didn't match Pod's node affinity/selector");
	t = sb_required(&pod);
	sb_expr(t, 0, "cpu-gen", SCHED_OP_GT, "4", NULL);
	sb_expr(t, 0, "gpu", SCHED_OP_DOES_NOT_EXIST, NULL);
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "");
	/* Required affinity with no terms matches nothing. */
	sched_term_cleanup(&pod.required[0]);
	sched_term_cleanup(&pod.required[1]);
	pod.nrequired = 0;
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "node(s) didn't match Pod's node affinity/selector");
	sched_pod_cleanup(&pod);
	sched_node_cleanup(&n);
}

static void test_requirements(void **state)
{
	struct sched_node n;
	struct sched_term t = { 0 };
	static const struct {
		const char *key;
		enum sched_selector_op op;
		const char *value;
		bool want;
	} cases[] = {
		{ "gen", SCHED_OP_GT, "4", true },
		{ "gen", SCHED_OP_GT, "5", false },
		{ "gen", SCHED_OP_LT, "6", true },
		{ "gen", SCHED_OP_LT, "-7", false },
		{ "gen", SCHED_OP_GT, "+4", true },
		{ "gen", SCHED_OP_GT, "x", false },      /* value not an integer */
		{ "name", SCHED_OP_GT, "0", false },     /* label not an integer */
		{ "absent", SCHED_OP_LT, "9", false },
		{ "gen", SCHED_OP_IN, "5", true },
		{ "gen", SCHED_OP_NOT_IN, "5", false },
		{ "absent", SCHED_OP_NOT_IN, "5", true },
		{ "absent", SCHED_OP_IN, "5", false },
		{ "name", SCHED_OP_EXISTS, NULL, true },
		{ "absent", SCHED_OP_DOES_NOT_EXIST, NULL, true },
	};
	size_t i;
	int64_t v;

	(void)state;
	sb_node(&n, "node-1", "4", "8Gi", 110);
	sb_node_label(&n, "gen", "5");
	sb_node_label(&n, "name", "abc");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sb_expr(&t, 0, cases[i].key, cases[i].op, cases[i].value, NULL);
		if (sched_expression_matches(&t.exprs[t.nexprs - 1], &n) != cases[i].want)
			fail_msg("case %zu: %s", i, cases[i].key);
	}
	sched_term_cleanup(&t);
	/* matchFields: metadata.name; another field reads as "". */
	sb_expr(&t, 1, "metadata.name", SCHED_OP_IN, "node-1", NULL);
	assert_true(sched_term_matches(&t, &n));
	sb_expr(&t, 1, "metadata.name", SCHED_OP_NOT_IN, "node-2", NULL);
	assert_true(sched_term_matches(&t, &n));
	sb_expr(&t, 1, "spec.other", SCHED_OP_IN, "x", NULL);
	assert_false(sched_term_matches(&t, &n));
	sched_term_cleanup(&t);
	assert_false(sched_term_matches(&t, &n));
	assert_true(sched_parse_go_int64("-9223372036854775808", &v));
	assert_true(v == INT64_MIN);
	assert_false(sched_parse_go_int64("9223372036854775808", &v));
	assert_false(sched_parse_go_int64("1_000", &v));
	assert_false(sched_parse_go_int64("", &v));
	sched_node_cleanup(&n);
}

static void test_fit_reasons(void **state)
{
	struct sched_node n;
	struct sched_pod pod, big;
	struct sched_profile p;

	(void)state;
	sb_node(&n, "n", "4", "8Gi", 3);
	sb_node_used(&n, "3500m", "1Gi", 2);
	sb_simple_pod(&big, "big", "1", "1Gi");
	assert_string_equal(verdict(SCHED_V1_35, &big, &n, NULL), "Insufficient cpu");
	n.npods = 3;
	assert_string_equal(verdict(SCHED_V1_35, &big, &n, NULL), "Too many pods; Insufficient cpu");
	n.npods = 0;
	/* A node whose cpu is not known is not checked for cpu. */
	n.cpu_known = false;
	assert_string_equal(verdict(SCHED_V1_35, &big, &n, NULL), "");
	n.cpu_known = true;
	/* Exactly what is left fits; every other shortfall is listed, scalars
	 * by name. */
	sb_simple_pod(&pod, "p", "500m", "7Gi");
	sb_request(&pod, 0, "ephemeral-storage", "1Gi");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL), "Insufficient ephemeral-storage");
	sb_node_alloc(&n, "ephemeral-storage", "10Gi");
	sb_request(&pod, 0, "hugepages-2Mi", "4Mi");
	sb_request(&pod, 0, "example.com/foo", "2");
	sb_request(&pod, 0, "example.com/zero", "0");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, NULL),
			    "Insufficient example.com/foo; Insufficient hugepages-2Mi");
	/* Ignored by name or by group (extended resources only). */
	sched_profile_default(&p, NULL);
	p.ignored_resources = xcalloc(1, sizeof *p.ignored_resources);
	p.ignored_resources[0] = xstrdup("example.com/foo");
	p.nignored_resources = 1;
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, &p), "Insufficient hugepages-2Mi");
	free(p.ignored_resources[0]);
	p.ignored_resources[0] = xstrdup("example.com/bar");
	p.ignored_groups = xcalloc(2, sizeof *p.ignored_groups);
	p.ignored_groups[0] = xstrdup("example.com");
	p.ignored_groups[1] = xstrdup("hugepages-2Mi");
	p.nignored_groups = 2;
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, &p), "Insufficient hugepages-2Mi");
	sb_node_alloc(&n, "hugepages-2Mi", "4Mi");
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, &p), "");
	/* Memory over by a byte. */
	n.requested.memory++;
	assert_string_equal(verdict(SCHED_V1_35, &pod, &n, &p), "Insufficient memory");
	sched_profile_cleanup(&p);
	sched_pod_cleanup(&pod);
	sched_pod_cleanup(&big);
	sched_node_cleanup(&n);
}

/* ignoredByScheduler on an extender's managed resource replaces every
 * profile's ignoredResources. */
static void test_extender_ignored_resources(void **state)
{
	struct sched_config c;

	(void)state;
	sched_config_default(&c);
	c.profiles[0].ignored_resources = xcalloc(1, sizeof(char *));
	c.profiles[0].ignored_resources[0] = xstrdup("example.com/old");
	c.profiles[0].nignored_resources = 1;
	c.extenders = xcalloc(1, sizeof *c.extenders);
	c.nextenders = 1;
	c.extenders[0].managed = xcalloc(2, sizeof *c.extenders[0].managed);
	c.extenders[0].managed[0].name = xstrdup("nvidia.com/gpu");
	c.extenders[0].managed[1].name = xstrdup("numa-extender.io/aligned");
	c.extenders[0].managed[1].ignored_by_scheduler = true;
	c.extenders[0].nmanaged = 2;
	sched_config_apply_extenders(&c);
	assert_int_equal(c.profiles[0].nignored_resources, 1);
	assert_string_equal(c.profiles[0].ignored_resources[0], "numa-extender.io/aligned");
	sched_config_cleanup(&c);
}

/* Two nodes short of cpu and one tainted: the FitError message counts each
 * reason and sorts the entries as strings. */
static void test_fit_error_message(void **state)
{
	struct sched_node nodes[3];
	struct sched_pod pod;
	struct sched_config c;
	struct sched_cycle_out out;
	struct sched_cycle_in in = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		sb_node(&nodes[i], i == 0 ? "a" : i == 1 ? "b" : "c", "1", "8Gi", 110);
	sb_node_taint(&nodes[2], "dedicated", "x", SCHED_EFFECT_NO_SCHEDULE);
	sb_simple_pod(&pod, "p", "2", "1Gi");
	sched_config_default(&c);
	in.config = &c;
	in.profile = &c.profiles[0];
	in.version = SCHED_V1_34;
	in.pod = &pod;
	in.nodes = nodes;
	in.nnodes = 3;
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_NO_FIT);
	assert_string_equal(out.message, "0/3 nodes are available: 1 node(s) had untolerated "
					 "taint(s), 2 Insufficient cpu.");
	sched_cycle_out_cleanup(&out);
	/* NodeAffinity's PreFilter: only node b may fit, and does not. */
	sb_expr(sb_required(&pod), 1, "metadata.name", SCHED_OP_IN, "b", NULL);
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_NO_FIT);
	assert_int_equal(out.stage[0], SCHED_PREFILTERED);
	assert_int_equal(out.stage[1], SCHED_FILTERED);
	assert_string_equal(out.message, "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) "
					 "didn't satisfy plugin(s) [NodeAffinity].");
	sched_cycle_out_cleanup(&out);
	/* Two names in one term conflict. */
	sb_expr(&pod.required[0], 1, "metadata.name", SCHED_OP_IN, "c", NULL);
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_NO_FIT);
	assert_string_equal(out.message, "0/3 nodes are available: pod affinity terms conflict.");
	sched_cycle_out_cleanup(&out);
	/* No node at all. */
	in.nnodes = 0;
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_ERROR);
	assert_string_equal(out.message, "no nodes available to schedule pods");
	sched_cycle_out_cleanup(&out);
	sched_config_cleanup(&c);
	sched_pod_cleanup(&pod);
	for (i = 0; i < 3; i++)
		sched_node_cleanup(&nodes[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_untolerated_no_schedule),
		cmocka_unit_test(test_unschedulable_and_node_name),
		cmocka_unit_test(test_node_selector_and_affinity),
		cmocka_unit_test(test_requirements),
		cmocka_unit_test(test_fit_reasons),
		cmocka_unit_test(test_extender_ignored_resources),
		cmocka_unit_test(test_fit_error_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
