/* SPDX-License-Identifier: Apache-2.0 */
/* KubeSchedulerConfigurations into the model (extender/codec/
 * sched_config_decode.c): a two-profile file, the ConfigMaps this repository
 * ships under manifests/, the defaults, and every check with the field it
 * names. Then a placement from files alone: nodes.yaml, pods.yaml,
 * pod-placement.yaml and the shipped default-scheduler configuration. Run
 * from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/sched_config_decode.h"
#include "extender/codec/sched_node_decode.h"
#include "extender/codec/sched_pod_decode.h"
#include "scheduler/cycle.h"

#define DATA "tests/data/scheduler/"
#define BASE_CM "manifests/base/configmap-scheduler.yaml"
#define MTLS_CM "manifests/overlays/default-scheduler-mtls/configmap-kube-scheduler-config.yaml"

static void load(const char *path, struct sched_config *c)
{
	struct errmsg msg = { { 0 } };

	if (sched_config_load(path, c, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
}

static void test_two_profiles(void **state)
{
	struct sched_config c;
	const struct sched_profile *d, *numa;

	(void)state;
	load(DATA "kube-scheduler-config.yaml", &c);
	assert_true(c.has_percentage);
	assert_int_equal(c.percentage, 0);
	assert_int_equal(c.nprofiles, 2);
	d = sched_config_profile(&c, "default-scheduler");
	numa = sched_config_profile(&c, "numa-scheduler");
	assert_non_null(d);
	assert_non_null(numa);
	assert_null(sched_config_profile(&c, "other"));
	assert_int_equal(d->strategy, SCHED_MOST_ALLOCATED);
	assert_int_equal(d->nfit_resources, 3);
	assert_int_equal(d->fit_resources[0].weight, 2);
	assert_int_equal(d->fit_resources[1].weight, 1);
	assert_string_equal(d->fit_resources[2].name, "nvidia.com/gpu");
	assert_int_equal(d->fit_resources[2].weight, 5);
	assert_int_equal(d->nignored_groups, 1);
	/* The extender's ignoredByScheduler replaces ignoredResources. */
	assert_int_equal(d->nignored_resources, 1);
	assert_string_equal(d->ignored_resources[0], "numa-extender.io/aligned");
	assert_true(d->score[SCHED_BALANCED_ALLOCATION]);
	assert_int_equal(d->weight[SCHED_TAINT_TOLERATION], 3);
	assert_false(d->has_percentage);
	assert_true(numa->has_percentage);
	assert_int_equal(numa->percentage, 100);
	assert_false(numa->score[SCHED_BALANCED_ALLOCATION]);
	assert_int_equal(numa->weight[SCHED_TAINT_TOLERATION], 1);
	assert_int_equal(numa->strategy, SCHED_REQUESTED_TO_CAPACITY_RATIO);
	assert_int_equal(numa->nfit_resources, 1);
	assert_int_equal(numa->nshape, 2);
	assert_int_equal(numa->shape[1].utilization, 100);
	assert_int_equal(numa->shape[1].score, 10);
	assert_int_equal(numa->nunmodelled, 1);
	assert_string_equal(numa->unmodelled[0], "NodeAffinityArgs.addedAffinity");
	assert_int_equal(numa->nignored_resources, 1);
	assert_int_equal(c.nextenders, 2);
	assert_string_equal(c.extenders[0].url_prefix, "http://127.0.0.1:8888/numa");
	assert_int_equal(c.extenders[0].weight, 5);
	assert_true(c.extenders[0].node_cache_capable);
	assert_int_equal(c.extenders[0].nmanaged, 2);
	assert_true(c.extenders[0].managed[1].ignored_by_scheduler);
	assert_true(sched_extender_filters(&c.extenders[0]));
	assert_false(sched_extender_filters(&c.extenders[1]));
	assert_true(sched_extender_prioritizes(&c.extenders[1]));
	assert_true(c.extenders[1].ignorable);
	sched_config_cleanup(&c);
}

/* The configurations this repository ships, read from their ConfigMaps. */
static void test_shipped_manifests(void **state)
{
	struct sched_config c;

	(void)state;
	load(BASE_CM, &c);
	assert_int_equal(c.nprofiles, 1);
	assert_string_equal(c.profiles[0].scheduler_name, "numa-scheduler");
	assert_int_equal(c.profiles[0].percentage, 100);
	assert_int_equal(c.nextenders, 1);
	assert_int_equal(c.extenders[0].weight, 5);
	assert_true(c.extenders[0].node_cache_capable);
	assert_false(c.extenders[0].ignorable);
	assert_int_equal(c.extenders[0].nmanaged, 0);
	assert_string_equal(c.extenders[0].preempt_verb, "preempt");
	sched_config_cleanup(&c);

	load(MTLS_CM, &c);
	assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
	assert_false(c.profiles[0].has_percentage);
	assert_int_equal(c.extenders[0].nmanaged, 4);
	assert_int_equal(c.profiles[0].nignored_resources, 1);
	assert_string_equal(c.profiles[0].ignored_resources[0], "numa-extender.io/aligned");
	assert_int_equal(c.profiles[0].strategy, SCHED_LEAST_ALLOCATED);
	sched_config_cleanup(&c);
}

static void decode_text(const char *text, struct sched_config *c, struct errmsg *msg,
			enum err want)
{
	assert_int_equal(sched_config_decode(text, strlen(text), "s.yaml", c, msg), want);
}

#define HEAD "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

static void test_defaults(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_config c;

	(void)state;
	decode_text(HEAD, &c, &msg, ERR_OK);
	assert_int_equal(c.nprofiles, 1);
	assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
	assert_int_equal(c.profiles[0].nfit_resources, 2);
	assert_int_equal(c.profiles[0].nbalanced_resources, 2);
	assert_true(c.profiles[0].filter[SCHED_NODE_RESOURCES_FIT]);
	assert_int_equal(c.nextenders, 0);
	assert_false(c.has_percentage);
	sched_config_cleanup(&c);
	/* A scoring strategy without resources scores cpu and memory. */
	decode_text(HEAD "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		    "    args: {scoringStrategy: {type: MostAllocated}}\n", &c, &msg, ERR_OK);
	assert_int_equal(c.profiles[0].strategy, SCHED_MOST_ALLOCATED);
	assert_int_equal(c.profiles[0].nfit_resources, 2);
	assert_string_equal(c.profiles[0].fit_resources[1].name, "memory");
	sched_config_cleanup(&c);
}

static void expect_error(const char *body, const char *want)
{
	struct errmsg msg = { { 0 } };
	struct sched_config c;
	char text[4096];

	snprintf(text, sizeof text, HEAD "%s", body);
	assert_int_not_equal(sched_config_decode(text, strlen(text), "s.yaml", &c, &msg), ERR_OK);
	if (strcmp(msg.text, want) != 0)
		fail_msg("got  %s\nwant %s", msg.text, want);
	sched_config_cleanup(&c);
}

static void test_errors(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_config c;
	static const char v1beta3[] =
		"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n";
	static const char no_config_map[] =
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: hello}\n";

	(void)state;
	decode_text(v1beta3, &c, &msg, ERR_INVALID);
	assert_string_equal(msg.text, "s.yaml: apiVersion: \"kubescheduler.config.k8s.io/v1beta3\": "
				      "expected kubescheduler.config.k8s.io/v1");
	decode_text(no_config_map, &c, &msg, ERR_INVALID);
	assert_string_equal(msg.text, "s.yaml: a ConfigMap with not one data value holding a "
				      "KubeSchedulerConfiguration");
	expect_error("percentageOfNodesToScore: 101\n",
		     "s.yaml: percentageOfNodesToScore: 101: not in [0, 100]");
	expect_error("extenders:\n- {urlPrefix: x, prioritizeVerb: p}\n",
		     "s.yaml: extenders[0].weight: must have a positive weight applied to it");
	expect_error("extenders:\n- {urlPrefix: x, bindVerb: b}\n- {urlPrefix: y, bindVerb: b}\n",
		     "s.yaml: extenders: only one extender can implement bind, found 2");
	expect_error("extenders:\n- {urlPrefix: x, managedResources: [{name: a.io/x}]}\n"
		     "- {urlPrefix: y, managedResources: [{name: b.io/y}, {name: a.io/x}]}\n",
		     "s.yaml: extenders[1].managedResources[1].name: \"a.io/x\": duplicate extender "
		     "managed resource name");
	expect_error("extenders:\n- {urlPrefix: x, managedResources: [{name: cpu}]}\n",
		     "s.yaml: extenders[0].managedResources[0].name: \"cpu\": is an invalid extended "
		     "resource name");
	expect_error("extenders:\n- {filterVerb: f}\n", "s.yaml: extenders[0].urlPrefix: missing");
	expect_error("profiles:\n- schedulerName: a\n- schedulerName: a\n",
		     "s.yaml: profiles[1].schedulerName: duplicate profile name");
	expect_error("profiles:\n- schedulerName: a\n- percentageOfNodesToScore: 5\n",
		     "s.yaml: profiles[1].schedulerName: missing");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		     "    args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: "
		     "shape is required for RequestedToCapacityRatio");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		     "    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
		     "        requestedToCapacityRatio: {shape: [{utilization: 50}, {utilization: 50}]}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio"
		     ".shape[1].utilization: values must be sorted in increasing order");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		     "    args: {scoringStrategy: {type: Spread}}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.type: \"Spread\": expected "
		     "LeastAllocated, MostAllocated or RequestedToCapacityRatio");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		     "    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 101}]}}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: 101: "
		     "not in [0, 100]");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n"
		     "    args: {resources: [{name: cpu, weight: 2}]}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.resources[0].weight: 2: not in [0, 1]");
	expect_error("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
		     "    args: {ignoredResourceGroups: [example.com/x]}\n",
		     "s.yaml: profiles[0].pluginConfig[0].args.ignoredResourceGroups[0]: \"example.com/x\": "
		     "resource group name can't contain '/'");
	expect_error("profiles:\n- pluginConfig:\n  - {name: NodeAffinity}\n  - {name: NodeAffinity}\n",
		     "s.yaml: profiles[0].pluginConfig[1].name: repeated config for this plugin");
	/* The second entry's args are never read into the first's lists (an
	 * ignoredResourceGroups list there once held a NULL, which crashed). */
	expect_error("profiles:\n- pluginConfig:\n"
		     "  - name: NodeResourcesFit\n    args: {ignoredResourceGroups: [example.com]}\n"
		     "  - name: NodeResourcesFit\n    args: {ignoredResourceGroups: [example.com]}\n",
		     "s.yaml: profiles[0].pluginConfig[1].name: repeated config for this plugin");
	expect_error("profiles:\n- pluginConfig:\n"
		     "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
		     "        type: RequestedToCapacityRatio\n"
		     "        requestedToCapacityRatio: {shape: [{utilization: 50}]}\n"
		     "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
		     "        type: RequestedToCapacityRatio\n"
		     "        requestedToCapacityRatio: {shape: [{utilization: 10}]}\n",
		     "s.yaml: profiles[0].pluginConfig[1].name: repeated config for this plugin");
	expect_error("profiles:\n- plugins:\n    score:\n      enabled: [{weight: 2}]\n",
		     "s.yaml: profiles[0].plugins.score.enabled[0].name: missing");
	expect_error("extenders:\n- {urlPrefix: x, nodeCacheCapable: yes}\n",
		     "s.yaml: extenders[0].nodeCacheCapable: expected a boolean, got a string");
}

/* The pod of pod-placement.yaml among nodes.yaml's nodes with pods.yaml's
 * pods running: only w1 is labelled numa and of a family above 5, so it is
 * taken without scoring. Asking 30 cpus, it fits nowhere, and each node
 * says why at its first failing filter (w2 is cordoned before anything). */
static void test_placement_from_files(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	struct sched_pod *pods = NULL, *incoming = NULL;
	size_t n = 0, np = 0, ni = 0;
	struct sched_config c;
	struct sched_cycle_out out;
	struct sched_cycle_in in = { 0 };

	(void)state;
	if (sched_nodes_load(DATA "nodes.yaml", &nodes, &n, &msg) != ERR_OK ||
	    sched_pods_load(DATA "pods.yaml", &pods, &np, &msg) != ERR_OK ||
	    sched_pods_load(DATA "pod-placement.yaml", &incoming, &ni, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	load(MTLS_CM, &c);
	sched_nodes_add_pods(nodes, n, pods, np, SCHED_V1_33);
	in.config = &c;
	in.profile = sched_config_profile(&c, sched_pod_scheduler(&incoming[0]));
	assert_non_null(in.profile);
	in.version = SCHED_V1_33;
	in.pod = &incoming[0];
	in.nodes = nodes;
	in.nnodes = n;
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_SCHEDULED);
	assert_string_equal(nodes[out.chosen].name, "w1");
	assert_false(out.scored);
	sched_cycle_out_cleanup(&out);
	/* A pod needing more cpu than w1 has left: the FitError of 1.33. */
	incoming[0].spec.containers[0].requests[0].q.mantissa = 30;
	assert_int_equal(sched_schedule_one(&in, &out), SCHED_NO_FIT);
	assert_string_equal(out.message,
			    "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated "
			    "taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were "
			    "unschedulable.");
	sched_cycle_out_cleanup(&out);
	sched_config_cleanup(&c);
	sched_pods_free(incoming, ni);
	sched_pods_free(pods, np);
	sched_nodes_free(nodes, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_profiles),
		cmocka_unit_test(test_shipped_manifests),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_placement_from_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
