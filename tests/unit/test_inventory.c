/* SPDX-License-Identifier: Apache-2.0 */
/* Node snapshots: NUMA zones, distances, resource kinds, and the kubelet
 * configuration in attributes with the kubelet's start-up validation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/nrt_decode.h"
#include "topology/inventory.h"

/* Builds a snapshot from YAML: a header with the given attribute lines, then
 * the given zones text. */
static enum err build(const char *attrs, const char *zones, struct inventory_node **node,
		      struct errmsg *msg)
{
	char text[8192];
	struct nrt_object *objs = NULL;
	size_t n = 0;
	enum err rc;

	snprintf(text, sizeof text,
		 "apiVersion: topology.node.k8s.io/v1alpha2\n"
		 "kind: NodeResourceTopology\n"
		 "metadata: {name: w1}\n"
		 "%s"
		 "zones:\n%s",
		 attrs, zones);
	rc = nrt_decode_buffer(text, strlen(text), "w1.yaml", &objs, &n, msg);
	if (rc != ERR_OK)
		fail_msg("decode: %s", msg->text);
	assert_int_equal(n, 1);
	rc = inventory_node_new(&objs[0], node, msg);
	nrt_objects_free(objs, n);
	return rc;
}

#define TWO_ZONES                                                                         \
	"- name: node-0\n  type: Node\n  costs: [{name: node-0, value: 10}, {name: node-1, value: 21}]\n" \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 16, allocatable: 14, available: 2}\n"                  \
	"  - {name: memory, capacity: 64Gi, allocatable: 62Gi, available: 62Gi}\n"        \
	"  - {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: 1}\n"         \
	"- name: node-1\n  type: Node\n  costs: [{name: node-0, value: 21}, {name: node-1, value: 10}]\n" \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 16, allocatable: 16, available: 16}\n"                 \
	"  - {name: ephemeral-storage, capacity: 1Ti, allocatable: 1Ti, available: 1Ti}\n"

static struct inventory_node *ok(const char *attrs, const char *zones)
{
	struct inventory_node *node = NULL;
	struct errmsg msg;

	if (build(attrs, zones, &node, &msg) != ERR_OK)
		fail_msg("inventory: %s", msg.text);
	return node;
}

static void inventory_defaults(void **state)
{
	struct inventory_node *n = ok("", TWO_ZONES);

	(void)state;
	assert_int_equal(n->policy, TM_POLICY_NONE);
	assert_int_equal(n->scope, TM_SCOPE_CONTAINER);
	assert_int_equal(n->max_allowable, 8);
	assert_true(n->cpu_static);
	assert_true(n->memory_static);
	assert_false(n->prefer_closest);
	assert_string_equal(n->config_error, "");
	inventory_node_free(n);
}

static void inventory_resources_and_distances(void **state)
{
	struct inventory_node *n = ok("", TWO_ZONES);
	int gpu, mem, eph;

	(void)state;
	assert_int_equal(n->numa_count, 2);
	assert_int_equal(n->distance[0 * 2 + 1], 21);
	assert_int_equal(n->distance[1 * 2 + 1], 10);
	assert_int_equal(n->resources[n->cpu].capacity[0], 16);
	assert_int_equal(n->resources[n->cpu].available[0], 2);
	gpu = inventory_find(n, "nvidia.com/gpu");
	mem = inventory_find(n, "memory");
	eph = inventory_find(n, "ephemeral-storage");
	assert_true(gpu >= 0 && mem >= 0 && eph >= 0);
	assert_int_equal(n->resources[gpu].kind, RESOURCE_DEVICE);
	assert_int_equal(n->resources[mem].kind, RESOURCE_MEMORY);
	assert_int_equal(n->resources[eph].kind, RESOURCE_HOST);
	/* Listed on NUMA 0 only: zero elsewhere, and flagged. */
	assert_int_equal(n->resources[gpu].capacity[1], 0);
	assert_false(n->resources[mem].listed_everywhere);
	assert_true(n->resources[n->cpu].listed_everywhere);
	assert_int_equal(n->resources[gpu].total_capacity, 2);
	assert_true(n->memory_listed);
	/* The emptied twin: available := allocatable. */
	assert_non_null(n->emptied);
	assert_int_equal(n->emptied->resources[n->cpu].available[0], 14);
	assert_int_equal(n->emptied->resources[gpu].available[0], 2);
	assert_null(n->emptied->emptied);
	inventory_node_free(n);
}

static void inventory_sparse_ids_are_dense_in_order(void **state)
{
	struct inventory_node *n = ok("",
		"- {name: node-5, type: Node, resources: [{name: cpu, capacity: 1, allocatable: 1, available: 1}]}\n"
		"- {name: socket-0, type: Socket}\n"
		"- {name: node-2, type: Node, costs: [{name: node-5, value: 31}]}\n");

	(void)state;
	assert_int_equal(n->numa_count, 2);
	assert_int_equal(n->numa_ids[0], 2);
	assert_int_equal(n->numa_ids[1], 5);
	assert_int_equal(n->distance[0 * 2 + 1], 31);
	assert_int_equal(n->distance[1 * 2 + 0], 0); /* missing costs count as 0 */
	assert_int_equal(n->resources[n->cpu].capacity[1], 1);
	inventory_node_free(n);
}

static void expect_invalid(const char *zones, const char *message)
{
	struct inventory_node *n = NULL;
	struct errmsg msg;

	assert_int_equal(build("", zones, &n, &msg), ERR_INVALID);
	assert_null(n);
	assert_string_equal(msg.text, message);
}

static void inventory_rejects_bad_zones(void **state)
{
	(void)state;
	expect_invalid("- {name: numa0, type: Node}\n",
		       "zones[0].name: \"numa0\": a zone of type Node must be named node-<id> with id 0..63");
	expect_invalid("- {name: node-64, type: Node}\n",
		       "zones[0].name: \"node-64\": a zone of type Node must be named node-<id> with id 0..63");
	expect_invalid("- {name: node-1, type: Node}\n- {name: node-1, type: Node}\n",
		       "zones[1].name: \"node-1\": duplicate NUMA node");
}

/* Policy none needs no NUMA node (koordlet publishes "zones: []" for a new
 * node); any other policy does. */
static void inventory_no_numa_zone(void **state)
{
	struct inventory_node *n = NULL;
	struct errmsg msg;

	(void)state;
	n = ok("", "- {name: socket-0, type: Socket}\n");
	assert_int_equal(n->numa_count, 0);
	assert_int_equal(n->policy, TM_POLICY_NONE);
	inventory_node_free(n);
	assert_int_equal(build("attributes:\n- {name: topologyManagerPolicy, value: restricted}\n",
			       "- {name: socket-0, type: Socket}\n", &n, &msg), ERR_INVALID);
	assert_null(n);
	assert_string_equal(msg.text,
			    "zones: no zone of type Node (node-<id>): nothing to simulate under policy restricted");
}

static void expect_config(const char *attrs, const char *error)
{
	struct inventory_node *n = ok(attrs, TWO_ZONES);

	if (error == NULL)
		assert_string_equal(n->config_error, "");
	else if (strstr(n->config_error, error) == NULL)
		fail_msg("config_error \"%s\" lacks \"%s\"", n->config_error, error);
	inventory_node_free(n);
}

#define ATTR(name, value) "- {name: " name ", value: \"" value "\"}\n"
#define SNN "attributes:\n" ATTR("topologyManagerPolicy", "single-numa-node")

static void inventory_kubelet_config_validation(void **state)
{
	(void)state;
	expect_config(SNN, NULL);
	expect_config("attributes:\n" ATTR("topologyManagerPolicy", "strict"),
		      "unknown topologyManagerPolicy \"strict\"");
	expect_config(SNN ATTR("topologyManagerScope", "node"), "unknown topologyManagerScope \"node\"");
	expect_config(SNN ATTR("topologyManagerPolicyOptions", "prefer-closest-numa-nodes=yes"),
		      "bad value for option \"prefer-closest-numa-nodes\"");
	expect_config(SNN ATTR("topologyManagerPolicyOptions", "max-allowable-numa-nodes=4"),
		      "should not be less than 8");
	expect_config(SNN ATTR("topologyManagerPolicyOptions", "prefer-closest-numa-nodes"),
		      "malformed pair");
	expect_config(SNN ATTR("topologyManagerOptionMaxAllowableNUMANodes", "x"),
		      "bad value for option \"max-allowable-numa-nodes\"");
	expect_config(SNN ATTR("cpuManagerPolicy", "dynamic"), "unknown cpuManagerPolicy");
	expect_config(SNN ATTR("memoryManagerPolicy", "static"), "unknown memoryManagerPolicy");
	/* Policy none reads no option at all. */
	expect_config("attributes:\n" ATTR("topologyManagerPolicy", "none")
			      ATTR("topologyManagerPolicyOptions", "no-such-option=1"),
		      NULL);
}

static void inventory_options_in_both_spellings(void **state)
{
	struct inventory_node *n;

	(void)state;
	n = ok(SNN ATTR("topologyManagerPolicyOptions",
			" prefer-closest-numa-nodes = True , max-allowable-numa-nodes=16"), TWO_ZONES);
	assert_true(n->prefer_closest);
	assert_int_equal(n->max_allowable, 16);
	inventory_node_free(n);
	/* The per-option attribute wins over the flag syntax. */
	n = ok(SNN ATTR("topologyManagerPolicyOptions", "prefer-closest-numa-nodes=true")
		       ATTR("topologyManagerOptionPreferClosestNumaNodes", "false"), TWO_ZONES);
	assert_false(n->prefer_closest);
	inventory_node_free(n);
	n = ok("attributes:\n" ATTR("topologyManagerPolicy", "best-effort")
		       ATTR("cpuManagerPolicy", "none") ATTR("memoryManagerPolicy", "None"), TWO_ZONES);
	assert_false(n->cpu_static);
	assert_false(n->memory_static);
	assert_int_equal(n->policy, TM_POLICY_BEST_EFFORT);
	inventory_node_free(n);
}

static void inventory_legacy_topology_policies(void **state)
{
	struct inventory_node *n = NULL;
	struct errmsg msg;

	(void)state;
	n = ok("topologyPolicies: [RestrictedPodLevel]\n", TWO_ZONES);
	assert_int_equal(n->policy, TM_POLICY_RESTRICTED);
	assert_int_equal(n->scope, TM_SCOPE_POD);
	inventory_node_free(n);
	/* Attributes win, field by field. */
	n = ok("topologyPolicies: [RestrictedPodLevel]\nattributes:\n"
	       ATTR("topologyManagerScope", "container"), TWO_ZONES);
	assert_int_equal(n->policy, TM_POLICY_RESTRICTED);
	assert_int_equal(n->scope, TM_SCOPE_CONTAINER);
	inventory_node_free(n);
	n = ok("topologyPolicies: [Junk]\n" SNN, TWO_ZONES);
	assert_int_equal(n->policy, TM_POLICY_SINGLE_NUMA_NODE);
	inventory_node_free(n);
	n = NULL;
	assert_int_equal(build("topologyPolicies: [Junk]\n", TWO_ZONES, &n, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "topologyPolicies[0]: \"Junk\": unknown policy");
}

static void inventory_numa_limits(void **state)
{
	char zones[8192] = "";
	struct inventory_node *n;
	int i;

	(void)state;
	for (i = 0; i < 17; i++) {
		char z[128];

		snprintf(z, sizeof z, "- {name: node-%d, type: Node}\n", i);
		strcat(zones, z);
	}
	n = ok(SNN ATTR("topologyManagerPolicyOptions", "max-allowable-numa-nodes=32"), zones);
	assert_int_equal(n->numa_count, 17);
	assert_non_null(strstr(n->config_error, "not simulated beyond 16"));
	inventory_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inventory_defaults),
		cmocka_unit_test(inventory_resources_and_distances),
		cmocka_unit_test(inventory_sparse_ids_are_dense_in_order),
		cmocka_unit_test(inventory_rejects_bad_zones),
		cmocka_unit_test(inventory_no_numa_zone),
		cmocka_unit_test(inventory_kubelet_config_validation),
		cmocka_unit_test(inventory_options_in_both_spellings),
		cmocka_unit_test(inventory_legacy_topology_policies),
		cmocka_unit_test(inventory_numa_limits),
	};

	return cmocka_run_group_tests_name("inventory", tests, NULL, NULL);
}
