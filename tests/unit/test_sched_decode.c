/* SPDX-License-Identifier: Apache-2.0 */
/* The scheduler-model decoders (extender/codec/sched_*_decode.c) on real-
 * shaped text: `kubectl get nodes -o yaml`, `kubectl get pods -A -o yaml`, a
 * pod with every field the model reads, KubeSchedulerConfigurations (ours in
 * tests/data/scheduler/ and the ConfigMaps under manifests/), and their
 * errors, each naming the field. Then one whole placement from those files.
 * Run from the repository root. */
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

static const struct sched_node *node_named(const struct sched_node *nodes, size_t n,
					   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(nodes[i].name, name) == 0)
			return &nodes[i];
	fail_msg("no node %s", name);
	abort();
}

static void test_kubectl_nodes(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	const struct sched_node *cp1, *w1, *w2;
	size_t n = 0;
	bool present = false;

	(void)state;
	if (sched_nodes_load(DATA "nodes.yaml", &nodes, &n, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(n, 3);
	cp1 = node_named(nodes, n, "cp1");
	w1 = node_named(nodes, n, "w1");
	w2 = node_named(nodes, n, "w2");
	assert_null(cp1->invalid);
	assert_true(cp1->cpu_known);
	assert_int_equal(cp1->allocatable.milli_cpu, 4000);
	assert_int_equal(cp1->allocatable.memory, 7901832LL * 1024);
	assert_int_equal(cp1->allocatable.ephemeral_storage, 94580335255LL);
	assert_int_equal(cp1->allocatable.pods, 110);
	assert_int_equal(sched_resources_get(&cp1->allocatable, "hugepages-2Mi", &present), 0);
	assert_true(present);
	assert_int_equal(cp1->ntaints, 1);
	assert_string_equal(cp1->taints[0].key, "node-role.kubernetes.io/control-plane");
	assert_string_equal(cp1->taints[0].value, "");
	assert_int_equal(cp1->taints[0].effect, SCHED_EFFECT_NO_SCHEDULE);
	assert_string_equal(sched_node_label(cp1, "node-role.kubernetes.io/control-plane"), "");
	assert_string_equal(sched_node_label(cp1, "topology.kubernetes.io/zone"), "zone-a");
	assert_int_equal(w1->allocatable.milli_cpu, 31500);
	assert_int_equal(sched_resources_get(&w1->allocatable, "nvidia.com/gpu", NULL), 4);
	assert_int_equal(sched_resources_get(&w1->allocatable, "hugepages-1Gi", NULL), 8LL << 30);
	assert_string_equal(sched_node_label(w1, "numa"), "true");
	assert_false(w1->unschedulable);
	assert_true(w2->unschedulable);
	assert_int_equal(w2->ntaints, 2);
	assert_int_equal(w2->taints[1].effect, SCHED_EFFECT_PREFER_NO_SCHEDULE);
	assert_string_equal(w2->taints[1].value, "true");
	sched_nodes_free(nodes, n);
}

static void test_node_stream_isolates(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	size_t n = 0;

	(void)state;
	if (sched_nodes_load(DATA "nodes-stream.yaml", &nodes, &n, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(n, 3);
	assert_null(nodes[0].invalid);
	assert_string_equal(nodes[1].name, "n2");
	assert_non_null(nodes[1].invalid);
	assert_string_equal(nodes[1].invalid,
			    DATA "nodes-stream.yaml (document 2, node n2): status.allocatable.cpu: "
				 "\"8 cores\": not a quantity");
	assert_null(nodes[2].invalid);
	assert_int_equal(nodes[2].taints[0].effect, SCHED_EFFECT_NO_EXECUTE);
	sched_nodes_free(nodes, n);
}

/* One object fails as a whole, with the field named. */
static void expect_node_error(const char *text, const char *want)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	size_t n = 0;

	assert_int_not_equal(sched_nodes_decode(text, strlen(text), "n.yaml", &nodes, &n, &msg),
			     ERR_OK);
	assert_null(nodes);
	assert_int_equal(n, 0);
	assert_string_equal(msg.text, want);
}

static void test_node_errors(void **state)
{
	(void)state;
	expect_node_error("kind: Node\nmetadata: {name: a}\nspec:\n  taints:\n"
			  "  - {key: k, effect: NoScheduel}\n",
			  "n.yaml: spec.taints[0].effect: \"NoScheduel\": expected NoSchedule, "
			  "PreferNoSchedule or NoExecute");
	expect_node_error("kind: Node\nmetadata: {name: a}\nspec:\n  taints:\n  - {key: k}\n",
			  "n.yaml: spec.taints[0].effect: missing");
	expect_node_error("kind: Node\nmetadata: {name: A_1}\n",
			  "n.yaml: metadata.name: \"A_1\": not a node name: must consist of "
			  "lowercase letters, digits, '-' and '.' (RFC 1123 subdomain)");
	expect_node_error("kind: Node\nmetadata: {name: a}\nstatus: {allocatable: {memory: -1Gi}}\n",
			  "n.yaml: status.allocatable.memory: \"-1Gi\": must not be negative");
	expect_node_error("kind: Node\nmetadata: {name: a}\nspec: {unschedulable: maybe}\n",
			  "n.yaml: spec.unschedulable: expected a boolean, got a string");
	expect_node_error("kind: Pod\nmetadata: {name: a}\n", "n.yaml: kind: \"Pod\": expected Node");
	expect_node_error("metadata: {name: a}\n", "n.yaml: kind: missing");
	expect_node_error("{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\", \"labels\": [1]}}",
			  "n.yaml: metadata.labels: expected an object, got an array");
}

static const struct sched_pod *pod_named(const struct sched_pod *pods, size_t n,
					 const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(pods[i].spec.name, name) == 0)
			return &pods[i];
	fail_msg("no pod %s", name);
	abort();
}

/* The running pods of pods.yaml summed into nodes.yaml's nodes. */
static void test_kubectl_pods(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	struct sched_pod *pods = NULL;
	const struct sched_node *w1, *cp1;
	size_t n = 0, np = 0;

	(void)state;
	if (sched_nodes_load(DATA "nodes.yaml", &nodes, &n, &msg) != ERR_OK ||
	    sched_pods_load(DATA "pods.yaml", &pods, &np, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(np, 5);
	assert_string_equal(pod_named(pods, np, "etcd-cp1")->spec.namespace_, "kube-system");
	assert_string_equal(pod_named(pods, np, "etcd-cp1")->phase, "Running");
	assert_int_equal(pod_named(pods, np, "etcd-cp1")->tolerations[0].op, SCHED_TOL_EXISTS);
	assert_string_equal(pod_named(pods, np, "etcd-cp1")->tolerations[0].key, "");
	assert_null(pod_named(pods, np, "waiting")->node_name);
	assert_int_equal(sched_nodes_add_pods(nodes, n, pods, np, SCHED_V1_35), 0);
	cp1 = node_named(nodes, n, "cp1");
	w1 = node_named(nodes, n, "w1");
	assert_int_equal(cp1->npods, 1);
	assert_int_equal(cp1->requested.milli_cpu, 100);
	assert_int_equal(cp1->requested.memory, 100LL << 20);
	/* web: init setup 3 beats nginx 2 (+ proxy 0); trainer 8 (Pending but
	 * assigned counts); the finished report does not. */
	assert_int_equal(w1->npods, 2);
	assert_int_equal(w1->requested.milli_cpu, 11000);
	assert_int_equal(w1->nonzero_milli_cpu, 11000);
	assert_int_equal(w1->requested.memory, 34LL << 30);
	/* proxy and setup lack memory: 200Mi each where they count. */
	assert_int_equal(w1->nonzero_memory, (34LL << 30) + (200LL << 20));
	assert_int_equal(sched_resources_get(&w1->requested, "nvidia.com/gpu", NULL), 2);
	sched_pods_free(pods, np);
	sched_nodes_free(nodes, n);
}

static void test_pod_with_everything(void **state)
{
	struct errmsg msg = { { 0 } };
	struct sched_pod *pods = NULL;
	const struct sched_pod *p;
	size_t n = 0;

	(void)state;
	if (sched_pods_load(DATA "pod-placement.yaml", &pods, &n, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(n, 1);
	p = &pods[0];
	assert_string_equal(p->scheduler_name, "default-scheduler");
	assert_int_equal(p->nnode_selector, 1);
	assert_string_equal(p->node_selector[0].value, "true");
	assert_true(p->has_required);
	assert_int_equal(p->nrequired, 2);
	assert_int_equal(p->required[0].exprs[0].op, SCHED_OP_GT);
	assert_string_equal(p->required[0].exprs[0].values[0], "5");
	assert_string_equal(p->required[1].fields[0].key, "metadata.name");
	assert_int_equal(p->npreferred, 1);
	assert_int_equal(p->preferred[0].weight, 20);
	assert_int_equal(p->preferred[0].term.exprs[0].nvalues, 2);
	assert_int_equal(p->ntolerations, 2);
	assert_int_equal(p->tolerations[0].effect, SCHED_EFFECT_PREFER_NO_SCHEDULE);
	assert_int_equal(p->tolerations[1].effect, SCHED_EFFECT_NO_EXECUTE);
	assert_string_equal(p->tolerations[1].key, "");
	assert_int_equal(p->noverhead, 1);
	assert_int_equal(p->spec.ncontainers, 1);
	sched_pods_free(pods, n);
}

static void expect_pod_error(const char *spec_tail, const char *want)
{
	char text[2048];
	struct errmsg msg = { { 0 } };
	struct sched_pod *pods = NULL;
	size_t n = 0;

	snprintf(text, sizeof text,
		 "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n%s", spec_tail);
	assert_int_not_equal(sched_pods_decode(text, strlen(text), "p.yaml", &pods, &n, &msg),
			     ERR_OK);
	assert_string_equal(msg.text, want);
}

static void test_pod_errors(void **state)
{
	(void)state;
	expect_pod_error("  tolerations: [{operator: Equal, value: x}]\n",
			 "p.yaml: spec.tolerations[0].operator: must be Exists when key is empty");
	expect_pod_error("  tolerations: [{key: k, operator: Exists, value: x}]\n",
			 "p.yaml: spec.tolerations[0].value: must be empty when operator is Exists");
	expect_pod_error("  tolerations: [{key: k, effect: Sometimes}]\n",
			 "p.yaml: spec.tolerations[0].effect: \"Sometimes\": expected \"\", "
			 "NoSchedule, PreferNoSchedule or NoExecute");
	expect_pod_error("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
			 "        nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]\n",
			 "p.yaml: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
			 ".nodeSelectorTerms[0].matchExpressions[0].values: must be specified when "
			 "operator is In or NotIn");
	expect_pod_error("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
			 "        nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Gt, values: [x]}]}]\n",
			 "p.yaml: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
			 ".nodeSelectorTerms[0].matchExpressions[0].values: must be one integer when "
			 "operator is Gt or Lt");
	expect_pod_error("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
			 "        nodeSelectorTerms: [{matchFields: [{key: metadata.uid, operator: In, values: [x]}]}]\n",
			 "p.yaml: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
			 ".nodeSelectorTerms[0].matchFields[0].key: only metadata.name is supported");
	expect_pod_error("  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
			 "      - {weight: 0, preference: {}}\n",
			 "p.yaml: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
			 "[0].weight: 0: not in [1, 100]");
	expect_pod_error("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution: {}\n",
			 "p.yaml: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
			 ".nodeSelectorTerms: missing");
	expect_pod_error("  overhead: {cpu: -1}\n", "p.yaml: spec.overhead.cpu: \"-1\": must not be negative");
	expect_pod_error("  nodeSelector: {disk: [ssd]}\n",
			 "p.yaml: spec.nodeSelector.disk: expected a string, got an array");
	expect_pod_error("status: {phase: Done}\n",
			 "p.yaml: status.phase: \"Done\": expected Pending, Running, Succeeded, "
			 "Failed or Unknown");
	/* pod_decode's own checks come first. */
	expect_pod_error("  initContainers: [{name: c}]\n",
			 "p.yaml: spec.containers[0].name: duplicate container name \"c\"");
}

/* In a list a bad pod stands alone, named in its message. */
static void test_pod_list_isolates(void **state)
{
	static const char text[] =
		"apiVersion: v1\nkind: PodList\nitems:\n"
		"- metadata: {name: good, namespace: a}\n  spec: {containers: [{name: c}], nodeName: w1}\n"
		"- metadata: {name: bad, namespace: b}\n  spec: {containers: [{name: c}], tolerations: 3}\n";
	struct errmsg msg = { { 0 } };
	struct sched_pod *pods = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(sched_pods_decode(text, strlen(text), "l.yaml", &pods, &n, &msg), ERR_OK);
	assert_int_equal(n, 2);
	assert_null(pods[0].invalid);
	assert_true(sched_pod_is_assigned(&pods[0]));
	assert_string_equal(pods[1].invalid,
			    "l.yaml (pod b/bad): items[1].spec.tolerations: expected an array, got a number");
	assert_false(sched_pod_is_assigned(&pods[1]));
	sched_pods_free(pods, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kubectl_nodes),
		cmocka_unit_test(test_node_stream_isolates),
		cmocka_unit_test(test_node_errors),
		cmocka_unit_test(test_kubectl_pods),
		cmocka_unit_test(test_pod_with_everything),
		cmocka_unit_test(test_pod_errors),
		cmocka_unit_test(test_pod_list_isolates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
