/* SPDX-License-Identifier: Apache-2.0 */
/* inventory_node_give, the inverse of inventory_node_take that preemption
 * uses (what evicting pods frees, zone by zone): amounts go back to the
 * zones named, never above allocatable, and the summaries are what
 * inventory_node_new builds for the NRT with those amounts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/nrt_decode.h"
#include "tests/support/inventory_equal.h"
#include "topology/inventory.h"

static struct inventory_node *build(int cpu0, int cpu1, int gpu0)
{
	struct nrt_object *objs = NULL;
	struct inventory_node *node = NULL;
	struct errmsg msg;
	char text[2048];
	size_t n = 0;

	snprintf(text, sizeof text,
		 "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		 "metadata: {name: w1}\n"
		 "attributes: [{name: topologyManagerPolicy, value: single-numa-node}]\n"
		 "zones:\n"
		 "- name: node-0\n  type: Node\n  resources:\n"
		 "  - {name: cpu, capacity: 16, allocatable: 14, available: %d}\n"
		 "  - {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: %d}\n"
		 "- name: node-01\n  type: Node\n  resources:\n"
		 "  - {name: cpu, capacity: 16, allocatable: 16, available: %d}\n",
		 cpu0, gpu0, cpu1);
	if (nrt_decode_buffer(text, strlen(text), "w1.yaml", &objs, &n, &msg) != ERR_OK)
		fail_msg("decode: %s", msg.text);
	if (inventory_node_new(&objs[0], &node, &msg) != ERR_OK)
		fail_msg("inventory: %s", msg.text);
	nrt_objects_free(objs, n);
	return node;
}

static void assert_equal_nodes(const struct inventory_node *a, const struct inventory_node *b)
{
	char why[512];

	if (!inventory_equal(a, b, why, sizeof why))
		fail_msg("%s", why);
}

static void give_raises_named_zones_up_to_allocatable(void **state)
{
	struct inventory_node *n = build(2, 10, 0);
	const struct inventory_usage usage[] = {
		{ "cpu", 1, 4 },               /* zone "node-01": 10 -> 14 */
		{ "cpu", 0, 20 },              /* more than allocatable: 14, not 22 */
		{ "nvidia.com/gpu", -1, 1 },   /* every zone listing it: node-0 only */
		{ "example.com/nic", 0, 1 },   /* not on this node: nothing */
		{ "cpu", 7, 1 },               /* no NUMA 7: nothing */
		{ "cpu", 1, -3 },              /* never takes */
	};
	struct inventory_node *g, *want;

	(void)state;
	g = inventory_node_give(n, usage, sizeof usage / sizeof usage[0]);
	want = build(14, 14, 1);
	assert_equal_nodes(g, want);
	assert_int_equal(g->resources[g->cpu].total_available, 28);
	/* The base is untouched. */
	assert_int_equal(n->resources[n->cpu].available[0], 2);
	assert_int_equal(n->resources[n->cpu].total_available, 12);
	inventory_node_free(want);
	inventory_node_free(g);
	inventory_node_free(n);
}

static void give_undoes_take(void **state)
{
	struct inventory_node *n = build(9, 12, 2);
	const struct inventory_usage usage[] = {
		{ "cpu", 0, 4 },
		{ "cpu", 1, 8 },
		{ "nvidia.com/gpu", 0, 1 },
	};
	struct inventory_node *t, *back;

	(void)state;
	t = inventory_node_take(n, usage, 3);
	assert_int_equal(t->resources[t->cpu].available[0], 5);
	back = inventory_node_give(t, usage, 3);
	assert_equal_nodes(back, n);
	inventory_node_free(back);
	inventory_node_free(t);
	inventory_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(give_raises_named_zones_up_to_allocatable),
		cmocka_unit_test(give_undoes_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
