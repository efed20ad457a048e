/* SPDX-License-Identifier: Apache-2.0 */
/* Arithmetic edge cases of the inventory, the judge and the score: zero
 * capacity with allocatable CPUs, zero allocatable, available above
 * allocatable, and 2^62-sized amounts. Each has a defined verdict (see the
 * comments in topology/inventory.c, providers.c and score.c); none may crash. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"

#define HEADER                                                                  \
	"apiVersion: topology.node.k8s.io/v1alpha2\n"                           \
	"kind: NodeResourceTopology\n"                                          \
	"metadata: {name: w1}\n"

static struct inventory_node *node_of(const char *policy, const char *zones)
{
	char text[8192];
	struct nrt_object *objs = NULL;
	struct inventory_node *node = NULL;
	struct errmsg msg;
	size_t n = 0;

	snprintf(text, sizeof text,
		 HEADER "attributes:\n"
		 "- {name: topologyManagerPolicy, value: %s}\n"
		 "- {name: topologyManagerScope, value: container}\n"
		 "zones:\n%s",
		 policy, zones);
	if (nrt_decode_buffer(text, strlen(text), "w1.yaml", &objs, &n, &msg) != ERR_OK)
		fail_msg("decode: %s", msg.text);
	assert_int_equal(n, 1);
	if (inventory_node_new(&objs[0], &node, &msg) != ERR_OK)
		fail_msg("inventory: %s", msg.text);
	nrt_objects_free(objs, n);
	return node;
}

struct podd {
	struct pod_spec spec;
	struct pod_demand *demand;
};

/* A Guaranteed one-container pod: requests == limits. */
static struct podd *pod_of(const char *resources)
{
	struct podd *p = calloc(1, sizeof *p);
	char text[4096];
	struct errmsg msg;

	assert_non_null(p);
	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
		 "spec:\n  containers:\n  - name: app\n    resources:\n"
		 "      requests: {%s}\n      limits: {%s}\n",
		 resources, resources);
	if (pod_decode_buffer(text, strlen(text), "p.yaml", &p->spec, &msg) != ERR_OK)
		fail_msg("pod: %s", msg.text);
	if (pod_demand_new(&p->spec, &p->demand, &msg) != ERR_OK)
		fail_msg("demand: %s", msg.text);
	return p;
}

static void pod_free(struct podd *p)
{
	pod_demand_free(p->demand);
	pod_spec_cleanup(&p->spec);
	free(p);
}

/* Judges and scores under every strategy; returns the verdict. */
static void judge_and_score(const struct inventory_node *node, const struct podd *p,
			    struct verdict *v)
{
	static const enum score_strategy all[] = {
		SCORE_LEAST_ALLOCATED, SCORE_MOST_ALLOCATED,
		SCORE_BALANCED_ALLOCATION, SCORE_LEAST_NUMA_NODES,
	};
	size_t i;

	judge_node(node, p->demand, v);
	for (i = 0; i < 4; i++) {
		struct score_config cfg = { all[i], NULL, 0 };
		struct score_breakdown b;
		int64_t s = score_node(&cfg, node, v, &b);

		assert_in_range(s, 0, SCORE_MAX);
	}
}

/* The reported crash: cpu capacity 0 with allocatable 8 (best-effort,
 * container scope) and a Guaranteed 4-CPU pod. Capacity is read as at least
 * the allocatable (8), so NUMA 0 holds the CPUs: preferred, admitted there. */
static void zero_cpu_capacity_with_allocatable(void **state)
{
	struct inventory_node *node = node_of("best-effort",
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"0\", allocatable: \"8\", available: \"8\"}\n"
		"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 8Gi}\n");
	struct podd *p = pod_of("cpu: 4, memory: 1Gi");
	struct verdict v;

	(void)state;
	judge_and_score(node, p, &v);
	assert_true(v.admit);
	assert_int_equal(node->resources[node->cpu].capacity[0], 8);
	assert_true(v.containers[0].preferred);
	assert_int_equal(v.containers[0].numa_ids, 1);
	verdict_cleanup(&v);
	inventory_node_free(node);
	pod_free(p);
}

/* Available above allocatable is read as the allocatable: 12 CPUs do not
 * fit 8 allocatable even when 16 are said to be free. */
static void available_above_allocatable(void **state)
{
	struct inventory_node *node = node_of("best-effort",
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"8\", allocatable: \"8\", available: \"16\"}\n"
		"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 9Gi}\n");
	struct podd *p = pod_of("cpu: 12, memory: 1Gi");
	struct verdict v;

	(void)state;
	assert_int_equal(node->resources[node->cpu].available[0], 8);
	judge_and_score(node, p, &v);
	assert_false(v.admit);
	assert_int_equal(v.reason, REASON_UNEXPECTED_ADMISSION);
	verdict_cleanup(&v);
	inventory_node_free(node);
	pod_free(p);
}

/* Allocatable 0 on every zone: CPU hints off (no static CPU manager), the
 * pod is admitted unpinned, and the score never divides by the zero. */
static void zero_allocatable(void **state)
{
	struct inventory_node *node = node_of("single-numa-node",
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"8\", allocatable: \"0\", available: \"0\"}\n"
		"- name: node-1\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"8\", allocatable: \"0\", available: \"0\"}\n");
	struct podd *p = pod_of("cpu: 4, memory: 1Gi");
	struct verdict v;

	(void)state;
	assert_false(node->cpu_static);
	judge_and_score(node, p, &v);
	assert_true(v.admit);
	verdict_cleanup(&v);
	inventory_node_free(node);
	pod_free(p);
}

/* 2^62-byte NUMA nodes: sums saturate instead of wrapping, so 7Ei (more than
 * one node, less than two) spreads over both under best-effort; every score
 * stays in range. */
static void huge_quantities(void **state)
{
	struct inventory_node *node = node_of("best-effort",
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"4611686018427387904\", allocatable: \"4611686018427387904\", available: \"4611686018427387904\"}\n"
		"  - {name: memory, capacity: 4Ei, allocatable: 4Ei, available: 4Ei}\n"
		"- name: node-1\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: \"4611686018427387904\", allocatable: \"4611686018427387904\", available: \"4611686018427387904\"}\n"
		"  - {name: memory, capacity: 4Ei, allocatable: 4Ei, available: 4Ei}\n");
	struct podd *p = pod_of("cpu: 2, memory: 7Ei");
	struct verdict v;

	(void)state;
	assert_int_equal(node->resources[node->cpu].total_capacity, INT64_MAX);
	judge_and_score(node, p, &v);
	assert_true(v.admit);
	assert_int_equal(v.containers[0].numa_ids, 3);
	verdict_cleanup(&v);
	inventory_node_free(node);
	pod_free(p);
}

/* Pod names and numbers at the door: a 240-character prefix is valid; an
 * absurd quantity is refused naming its field. */
static void pod_names_and_ranges(void **state)
{
	char prefix[241], text[2048];
	struct pod_spec pod;
	struct errmsg msg;

	(void)state;
	memset(prefix, 'a', 240);
	prefix[240] = '\0';
	prefix[100] = '.';
	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
		 "  - name: app\n    resources:\n      limits: {%s/dev: \"1\"}\n", prefix);
	assert_int_equal(pod_decode_buffer(text, strlen(text), "p.yaml", &pod, &msg), ERR_OK);
	pod_spec_cleanup(&pod);
	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
		 "  - name: app\n    resources:\n      limits: {memory: 100Ei}\n");
	assert_int_equal(pod_decode_buffer(text, strlen(text), "p.yaml", &pod, &msg), ERR_RANGE);
	assert_non_null(strstr(msg.text, "limits.memory: \"100Ei\": out of range"));
	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
		 "  - name: app\n    resources:\n      limits: {\"Bad Name\": \"1\"}\n");
	assert_int_equal(pod_decode_buffer(text, strlen(text), "p.yaml", &pod, &msg), ERR_INVALID);
	assert_non_null(strstr(msg.text, "not a valid resource name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zero_cpu_capacity_with_allocatable),
		cmocka_unit_test(available_above_allocatable),
		cmocka_unit_test(zero_allocatable),
		cmocka_unit_test(huge_quantities),
		cmocka_unit_test(pod_names_and_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
