/* SPDX-License-Identifier: Apache-2.0 */
/* What the model counts before it filters: a pod's request R(pod) (init and
 * sidecar containers, limits standing in for requests, the non-zero
 * defaults, pod-level requests, overhead, exact sums of fractions), the
 * running pods summed into their nodes, the profile's plugins after a
 * `plugins:` section, the node tree's order and version names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/plugins.h"
#include "scheduler/requests.h"
#include "tests/support/sched_build.h"

static int64_t request_of(const struct sched_pod *pod, enum sched_version v,
			  unsigned defaults, const char *name)
{
	struct sched_resources r = { 0 };
	int64_t x;

	sched_pod_requests(pod, v, defaults, &r, NULL);
	x = sched_resources_get(&r, name, NULL);
	sched_resources_cleanup(&r);
	return x;
}

/* init 2, sidecar 1, init 1.5, apps 0.5 + 0.25: the sidecar runs beside the
 * later init (1.5 + 1 = 2.5) and the apps (0.75 + 1 = 1.75): 2500m. */
static void test_init_and_sidecars(void **state)
{
	struct sched_pod pod;
	size_t c;

	(void)state;
	sb_pod(&pod, "p");
	sb_request(&pod, sb_container(&pod, CONTAINER_INIT), "cpu", "2");
	c = sb_container(&pod, CONTAINER_SIDECAR);
	sb_request(&pod, c, "cpu", "1");
	sb_request(&pod, c, "memory", "1Gi");
	sb_request(&pod, sb_container(&pod, CONTAINER_INIT), "cpu", "1500m");
	sb_request(&pod, sb_container(&pod, CONTAINER_APP), "cpu", "500m");
	c = sb_container(&pod, CONTAINER_APP);
	sb_request(&pod, c, "cpu", "250m");
	sb_request(&pod, c, "memory", "3Gi");
	assert_int_equal(request_of(&pod, SCHED_V1_35, 0, "cpu"), 2500);
	/* memory: apps 3Gi + sidecar 1Gi = 4Gi; inits use 1Gi at most. */
	assert_int_equal(request_of(&pod, SCHED_V1_35, 0, "memory"), 4LL << 30);
	/* Non-zero defaults fill the containers lacking memory (both inits and
	 * the first app): init use 200Mi + 1Gi, apps 3Gi + 200Mi + 1Gi. */
	assert_int_equal(request_of(&pod, SCHED_V1_35, SCHED_DEFAULT_MEMORY, "memory"),
			 (4LL << 30) + 200LL * 1024 * 1024);
	sched_pod_cleanup(&pod);
}

static void test_defaults_limits_and_units(void **state)
{
	struct sched_pod pod;
	unsigned present = 0;
	struct sched_resources r = { 0 };
	size_t c;

	(void)state;
	sb_pod(&pod, "p");
	/* A limit stands in for a missing request (API defaulting). */
	c = sb_container(&pod, CONTAINER_APP);
	sb_limit(&pod, c, "cpu", "1");
	sb_limit(&pod, c, "nvidia.com/gpu", "2");
	/* An explicit 0 stays 0 with the defaults; a missing key gets them. */
	c = sb_container(&pod, CONTAINER_APP);
	sb_request(&pod, c, "cpu", "0");
	sb_container(&pod, CONTAINER_APP);
	assert_int_equal(request_of(&pod, SCHED_V1_35, 0, "cpu"), 1000);
	assert_int_equal(request_of(&pod, SCHED_V1_35, SCHED_DEFAULT_CPU, "cpu"), 1100);
	assert_int_equal(request_of(&pod, SCHED_V1_35, SCHED_DEFAULT_MEMORY, "memory"),
			 3LL * 200 * 1024 * 1024);
	assert_int_equal(request_of(&pod, SCHED_V1_35, 0, "nvidia.com/gpu"), 2);
	sched_pod_requests(&pod, SCHED_V1_35, 0, &r, &present);
	assert_int_equal(present, SCHED_DEFAULT_CPU);
	sched_resources_cleanup(&r);
	sched_pod_cleanup(&pod);

	/* Quantities are summed exactly and rounded once: 0.5m + 0.5m is 1m,
	 * 0.4 + 0.4 bytes is 1 byte, and a lone 0.5m is 1m. */
	sb_pod(&pod, "p");
	c = sb_container(&pod, CONTAINER_APP);
	sb_request(&pod, c, "cpu", "0.5m");
	sb_request(&pod, c, "memory", "0.4");
	c = sb_container(&pod, CONTAINER_APP);
	sb_request(&pod, c, "cpu", "500u");
	sb_request(&pod, c, "memory", "400m");
	sb_request(&pod, c, "example.com/dev", "1");
	sb_request(&pod, c, "pods", "1");
	sb_request(&pod, c, "unknown-native", "1");
	sched_pod_requests(&pod, SCHED_V1_35, 0, &r, NULL);
	assert_int_equal(r.milli_cpu, 1);
	assert_int_equal(r.memory, 1);
	assert_int_equal(r.nscalars, 1);
	assert_string_equal(r.scalars[0].name, "example.com/dev");
	sched_resources_cleanup(&r);
	sched_pod_cleanup(&pod);
}

/* spec.resources.requests replace the containers' cpu and memory from 1.34;
 * overhead adds on top in every version. */
static void test_pod_level_and_overhead(void **state)
{
	struct sched_pod pod;
	struct sched_resources r = { 0 };
	int64_t cpu = 0, mem = 0;
	size_t c;

	(void)state;
	sb_pod(&pod, "p");
	c = sb_container(&pod, CONTAINER_APP);
	sb_request(&pod, c, "cpu", "100m");
	sb_container(&pod, CONTAINER_APP);
	sb_pod_request(&pod, "memory", "2Gi");
	sb_overhead(&pod, "cpu", "250m");
	sb_overhead(&pod, "memory", "64Mi");
	sb_overhead(&pod, "example.com/x", "1");
	assert_int_equal(request_of(&pod, SCHED_V1_33, 0, "cpu"), 350);
	assert_int_equal(request_of(&pod, SCHED_V1_33, 0, "memory"), 64LL << 20);
	assert_int_equal(request_of(&pod, SCHED_V1_34, 0, "memory"), (2LL << 30) + (64LL << 20));
	assert_int_equal(request_of(&pod, SCHED_V1_34, 0, "example.com/x"), 1);
	/* The node's non-zero view: without pod-level requests each container
	 * lacking cpu gets 100m (100 + 100 + 250 overhead); with them in force
	 * only a resource the whole pod lacks would, and cpu is there. */
	sched_pod_node_usage(&pod, SCHED_V1_33, &r, &cpu, &mem);
	assert_int_equal(cpu, 450);
	assert_int_equal(mem, 2LL * 200 * 1024 * 1024 + (64LL << 20));
	sched_pod_node_usage(&pod, SCHED_V1_34, &r, &cpu, &mem);
	assert_int_equal(cpu, 350);
	assert_int_equal(mem, (2LL << 30) + (64LL << 20));
	sched_resources_cleanup(&r);
	/* A pod-level request of a name no container lists still counts. */
	sb_pod_request(&pod, "hugepages-2Mi", "4Mi");
	assert_int_equal(request_of(&pod, SCHED_V1_35, 0, "hugepages-2Mi"), 4LL << 20);
	assert_int_equal(request_of(&pod, SCHED_V1_33, 0, "hugepages-2Mi"), 0);
	sched_pod_cleanup(&pod);
}

/* Running pods add up on their nodes; finished, unassigned and placeholder
 * pods do not; a pod on an unknown node is counted as such. */
static void test_running_pods(void **state)
{
	struct sched_node nodes[2];
	struct sched_pod pods[5];
	size_t i;

	(void)state;
	sb_node(&nodes[0], "a", "4", "8Gi", 110);
	sb_node(&nodes[1], "b", "4", "8Gi", 110);
	for (i = 0; i < 5; i++)
		sb_simple_pod(&pods[i], "p", i == 1 ? NULL : "500m", "1Gi");
	pods[0].node_name = xstrdup("a");
	pods[1].node_name = xstrdup("a");
	pods[1].phase = xstrdup("Running");
	pods[2].node_name = xstrdup("b");
	pods[2].phase = xstrdup("Succeeded");
	pods[3].node_name = xstrdup("gone");
	pods[4].node_name = xstrdup("b");
	pods[4].invalid = xstrdup("bad");
	assert_int_equal(sched_nodes_add_pods(nodes, 2, pods, 5, SCHED_V1_35), 1);
	assert_int_equal(nodes[0].npods, 2);
	assert_int_equal(nodes[0].requested.milli_cpu, 500);
	assert_int_equal(nodes[0].nonzero_milli_cpu, 600);
	assert_int_equal(nodes[0].requested.memory, 2LL << 30);
	assert_int_equal(nodes[1].npods, 0);
	for (i = 0; i < 5; i++)
		sched_pod_cleanup(&pods[i]);
	sched_node_cleanup(&nodes[0]);
	sched_node_cleanup(&nodes[1]);
}

static void set_add(struct sched_plugin_set *s, const char *name, int weight)
{
	s->enabled = xreallocarray(s->enabled, s->nenabled + 1, sizeof *s->enabled);
	s->enabled[s->nenabled].name = xstrdup(name);
	s->enabled[s->nenabled].has_weight = weight >= 0;
	s->enabled[s->nenabled].weight = weight >= 0 ? weight : 0;
	s->nenabled++;
}

static void set_disable(struct sched_plugin_set *s, const char *name)
{
	s->disabled = xreallocarray(s->disabled, s->ndisabled + 1, sizeof *s->disabled);
	s->disabled[s->ndisabled++] = xstrdup(name);
}

static void test_plugin_sets(void **state)
{
	struct sched_plugins_spec s = { 0 };
	struct sched_profile p;

	(void)state;
	sched_profile_default(&p, NULL);
	assert_int_equal(p.weight[SCHED_TAINT_TOLERATION], 3);
	assert_int_equal(p.weight[SCHED_NODE_AFFINITY], 2);
	assert_true(p.score[SCHED_BALANCED_ALLOCATION]);
	assert_false(p.filter[SCHED_BALANCED_ALLOCATION]);
	set_disable(&s.multi_point, "NodeResourcesBalancedAllocation");
	set_add(&s.multi_point, "NodeAffinity", 5);
	set_add(&s.multi_point, "NodeResourcesFit", -1);     /* no weight: 1 */
	set_add(&s.multi_point, "NodeResourceTopologyMatch", 4);
	set_add(&s.score, "TaintToleration", 7);            /* score wins */
	set_disable(&s.filter, "TaintToleration");
	sched_profile_apply_plugins(&p, &s);
	assert_false(p.score[SCHED_BALANCED_ALLOCATION]);
	assert_int_equal(p.weight[SCHED_NODE_AFFINITY], 5);
	assert_int_equal(p.weight[SCHED_NODE_RESOURCES_FIT], 1);
	assert_int_equal(p.weight[SCHED_TAINT_TOLERATION], 7);
	assert_true(p.score[SCHED_TAINT_TOLERATION]);
	assert_false(p.filter[SCHED_TAINT_TOLERATION]);
	assert_true(p.filter[SCHED_NODE_AFFINITY]);
	assert_int_equal(p.nunmodelled, 1);
	assert_string_equal(p.unmodelled[0], "NodeResourceTopologyMatch");
	assert_true(p.other_scorers);
	sched_plugins_spec_cleanup(&s);
	/* score.disabled "*" keeps only score.enabled. */
	set_disable(&s.score, "*");
	set_add(&s.score, "NodeResourcesFit", 0);
	sched_profile_apply_plugins(&p, &s);
	assert_true(p.score[SCHED_NODE_RESOURCES_FIT]);
	assert_false(p.score[SCHED_TAINT_TOLERATION]);
	assert_false(p.score[SCHED_IMAGE_LOCALITY]);
	assert_int_equal(p.weight[SCHED_NODE_RESOURCES_FIT], 1);
	assert_true(p.filter[SCHED_TAINT_TOLERATION]);
	assert_false(p.other_scorers);
	sched_plugins_spec_cleanup(&s);
	/* multiPoint.disabled "*" with nothing enabled: no filter, no score. */
	set_disable(&s.multi_point, "*");
	sched_profile_apply_plugins(&p, &s);
	assert_false(p.filter[SCHED_NODE_RESOURCES_FIT]);
	assert_false(p.score[SCHED_NODE_RESOURCES_FIT]);
	sched_plugins_spec_cleanup(&s);
	sched_profile_cleanup(&p);
}

static void test_node_tree_order(void **state)
{
	static const char *const names[] = { "a1", "b1", "b2", "a2", "c1", "a3" };
	static const char *const zones[] = { "a", "b", "b", "a", NULL, "a" };
	struct sched_node nodes[6];
	size_t order[6], i;

	(void)state;
	for (i = 0; i < 6; i++) {
		sb_node(&nodes[i], names[i], "1", "1Gi", 110);
		if (zones[i] != NULL)
			sb_node_label(&nodes[i], "topology.kubernetes.io/zone", zones[i]);
	}
	/* The deprecated label wins over the GA one. */
	sb_node_label(&nodes[5], "failure-domain.beta.kubernetes.io/zone", "b");
	sched_node_tree_order(nodes, 6, order);
	/* zones a (a1, a2), b (b1, b2, a3), "" (c1): a1 b1 c1, a2 b2, a3 */
	assert_string_equal(nodes[order[0]].name, "a1");
	assert_string_equal(nodes[order[1]].name, "b1");
	assert_string_equal(nodes[order[2]].name, "c1");
	assert_string_equal(nodes[order[3]].name, "a2");
	assert_string_equal(nodes[order[4]].name, "b2");
	assert_string_equal(nodes[order[5]].name, "a3");
	for (i = 0; i < 6; i++)
		sched_node_cleanup(&nodes[i]);
}

static void test_versions(void **state)
{
	enum sched_version v;

	(void)state;
	assert_true(sched_version_parse("1.32", &v));
	assert_int_equal(v, SCHED_V1_32);
	assert_true(sched_version_parse("v1.33.3", &v));
	assert_int_equal(v, SCHED_V1_33);
	assert_string_equal(sched_version_name(v), "1.33");
	assert_false(sched_version_parse("1.31", &v));
	assert_false(sched_version_parse("1.36", &v));
	assert_false(sched_version_parse("1.3x", &v));
	assert_false(sched_version_parse("1.34.", &v));
	assert_false(sched_version_parse("2.34", &v));
	assert_true(sched_balanced_skips_best_effort(SCHED_V1_33));
	assert_false(sched_balanced_skips_best_effort(SCHED_V1_32));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_sidecars),
		cmocka_unit_test(test_defaults_limits_and_units),
		cmocka_unit_test(test_pod_level_and_overhead),
		cmocka_unit_test(test_running_pods),
		cmocka_unit_test(test_plugin_sets),
		cmocka_unit_test(test_node_tree_order),
		cmocka_unit_test(test_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
