/* SPDX-License-Identifier: Apache-2.0 */
/* Node snapshots: NUMA zones, distances, resource kinds, and the kubelet
 * configuration in attributes with the kubelet's start-up validation; taking
 * pods' usage off a snapshot, and writing a snapshot back as an NRT. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/object_json.h"
#include "extender/codec/nrt_decode.h"
#include "tests/support/inventory_equal.h"
#include "topology/inventory.h"
#include "tests/support/tiny_node.h"
#include "topology/judge.h"

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
	/* Dense indices are not the ids: the judge must map its masks. */
	assert_false(n->ids_dense);
	inventory_node_free(n);
}

/* The judge on sparse ids: the pod fits only NUMA 5 (dense index 1), and
 * the verdict names NUMA 5, not 1. */
static void inventory_sparse_ids_reach_the_verdict(void **state)
{
	struct inventory_node *n = ok("attributes:\n- {name: topologyManagerPolicy, value: single-numa-node}\n",
		"- {name: node-5, type: Node, resources: [{name: cpu, capacity: 8, allocatable: 8, available: 6}]}\n"
		"- {name: node-2, type: Node, resources: [{name: cpu, capacity: 8, allocatable: 8, available: 2}]}\n");
	struct pod_spec spec;
	struct errmsg msg;
	struct pod_demand *pod = tiny_pod("containers: [{name: app, resources: {limits: {cpu: 4, memory: 1Gi}}}]",
					  &spec, &msg);
	struct verdict v;

	(void)state;
	if (pod == NULL)
		fail_msg("tiny_pod: %s", msg.text);
	assert_false(n->ids_dense);
	judge_node(n, pod, &v);
	assert_true(v.admit);
	assert_int_equal(v.ncontainers, 1);
	assert_int_equal(v.containers[0].numa_ids, (uint64_t)1 << 5);
	verdict_cleanup(&v);
	pod_demand_free(pod);
	pod_spec_cleanup(&spec);
	inventory_node_free(n);
}

/* One block holds the resources, every array and every name, for the
 * snapshot and its emptied copy; the values are the ones published. */
static void inventory_packs_its_resources(void **state)
{
	struct inventory_node *n = ok("",
		"- {name: node-0, type: Node, resources: [{name: cpu, capacity: 16, allocatable: 14, available: 3},"
		" {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: 1}]}\n"
		"- {name: node-1, type: Node, resources: [{name: cpu, capacity: 16, allocatable: 16, available: 9},"
		" {name: memory, capacity: 64Gi, allocatable: 60Gi, available: 10Gi}]}\n");
	const struct inventory_node *copies[2];
	int k, r;

	(void)state;
	assert_true(n->ids_dense);
	copies[0] = n;
	copies[1] = n->emptied;
	for (k = 0; k < 2; k++) {
		const struct inventory_node *c = copies[k];
		const char *lo = c->packed, *hi = lo + c->packed_size;

		assert_non_null(lo);
		assert_int_equal((uintptr_t)lo % 64, 0);
		assert_int_equal((uintptr_t)c % 64, 0);
		assert_ptr_equal(c->resources, lo);
		for (r = 0; r < c->nresources; r++) {
			const struct inventory_resource *res = &c->resources[r];
			const char *p[5] = { (const char *)res->available, (const char *)res->allocatable,
					     (const char *)res->capacity, (const char *)res->top_capacity,
					     res->name };
			int j;

			for (j = 0; j < 5; j++)
				assert_true(p[j] >= lo && p[j] < hi);
			assert_true(res->name + strlen(res->name) < hi);
		}
	}
	r = n->cpu;
	assert_int_equal(n->resources[r].available[0], 3);
	assert_int_equal(n->resources[r].available[1], 9);
	assert_int_equal(n->resources[r].allocatable[0], 14);
	assert_int_equal(n->resources[r].top_capacity[2], 32);
	assert_int_equal(n->emptied->resources[r].available[0], 14);
	assert_string_equal(n->emptied->resources[r].name, "cpu");
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
	static char zones[8192];
	struct inventory_node *n;
	int i;

	(void)state;
	zones[0] = '\0';
	for (i = 0; i < 64; i++) {
		char z[128];

		snprintf(z, sizeof z, "- {name: node-%d, type: Node}\n", i);
		strcat(zones, z);
		if (i == 16) {
			/* 17 NUMA nodes: simulated when the option allows them,
			 * refused as the kubelet does when it does not. */
			n = ok(SNN ATTR("topologyManagerPolicyOptions", "max-allowable-numa-nodes=32"),
			       zones);
			assert_int_equal(n->numa_count, 17);
			assert_string_equal(n->config_error, "");
			inventory_node_free(n);
			n = ok(SNN, zones);
			assert_non_null(strstr(n->config_error, "more than 8 NUMA Nodes (this one has 17)"));
			inventory_node_free(n);
		}
	}
	/* 64, the kubelet's bitmask: simulated. */
	n = ok(SNN ATTR("topologyManagerPolicyOptions", "max-allowable-numa-nodes=64"), zones);
	assert_int_equal(n->numa_count, 64);
	assert_string_equal(n->config_error, "");
	inventory_node_free(n);
}

/* --- take and the NRT of a snapshot --- */

static void assert_equal_nodes(const struct inventory_node *a, const struct inventory_node *b,
			       const char *what)
{
	char why[512];

	if (!inventory_equal(a, b, why, sizeof why))
		fail_msg("%s: %s", what, why);
}

static void inventory_take_lowers_named_zones_and_clamps(void **state)
{
	/* A zone named with a leading zero: the id is 1, the name stays. */
	struct inventory_node *n = ok(SNN,
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: 16, allocatable: 16, available: 10}\n"
		"  - {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: 2}\n"
		"- name: node-01\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: 16, allocatable: 16, available: 16}\n");
	const struct inventory_usage usage[] = {
		{ "cpu", 1, 4 },               /* zone "node-01" */
		{ "cpu", 0, 12 },              /* more than is free: 0, not -2 */
		{ "nvidia.com/gpu", -1, 1 },   /* every zone listing it: node-0 only */
		{ "example.com/nic", 0, 1 },   /* not on this node: nothing */
		{ "cpu", 7, 1 },               /* no NUMA 7: nothing */
		{ "cpu", 1, -3 },              /* never gives back */
	};
	struct inventory_node *t;
	int gpu;

	(void)state;
	assert_string_equal(n->zone_names[1], "node-01");
	t = inventory_node_take(n, usage, sizeof usage / sizeof usage[0]);
	gpu = inventory_find(t, "nvidia.com/gpu");
	assert_int_equal(t->resources[t->cpu].available[0], 0);
	assert_int_equal(t->resources[t->cpu].available[1], 12);
	assert_int_equal(t->resources[t->cpu].total_available, 12);
	assert_int_equal(t->resources[gpu].available[0], 1);
	assert_int_equal(t->resources[gpu].available[1], 0);
	assert_int_equal(t->resources[gpu].total_available, 1);
	/* The base is untouched; the emptied twin is the base's. */
	assert_int_equal(n->resources[n->cpu].available[0], 10);
	assert_int_equal(n->resources[n->cpu].total_available, 26);
	assert_equal_nodes(t->emptied, n->emptied, "emptied");
	assert_string_equal(t->zone_names[1], "node-01");
	inventory_node_free(t);
	inventory_node_free(n);
}

static void inventory_to_nrt_writes_names_and_configuration(void **state)
{
	struct inventory_node *n = ok(
		"topologyPolicies: [SingleNUMANodePodLevel]\n"
		"attributes:\n"
		"- {name: topologyManagerPolicyOptions, value: prefer-closest-numa-nodes=true}\n"
		"- {name: nodeTopologyPodsFingerprint, value: pfp0v001abc}\n",
		"- name: node-01\n  type: Node\n  costs: [{name: node-01, value: 10}, {name: node-3, value: 21}]\n"
		"  resources: [{name: cpu, capacity: 0, allocatable: 8, available: 9}]\n"
		"- {name: socket-0, type: Socket}\n"
		"- name: node-3\n  type: Node\n"
		"  resources: [{name: memory, capacity: 1Gi, allocatable: 1Gi, available: 0}]\n");
	struct inventory_node *back = NULL;
	struct nrt_object obj;
	struct errmsg msg;

	(void)state;
	assert_int_equal(n->policy, TM_POLICY_SINGLE_NUMA_NODE);
	assert_int_equal(n->scope, TM_SCOPE_POD);
	assert_true(n->prefer_closest);
	assert_string_equal(inventory_attribute(n, "nodeTopologyPodsFingerprint"), "pfp0v001abc");
	assert_null(inventory_attribute(n, "topologyManagerScope"));
	inventory_node_to_nrt(n, &obj);
	assert_int_equal(obj.nzones, 2);
	assert_string_equal(obj.zones[0].name, "node-01");
	assert_string_equal(obj.zones[0].costs[1].name, "node-3");
	assert_int_equal(obj.zones[0].costs[1].value, 21);
	assert_int_equal(obj.zones[1].ncosts, 0);
	/* Amounts as read: capacity at least allocatable, available at most. */
	assert_int_equal(obj.zones[0].nresources, 1);
	assert_int_equal(obj.zones[0].resources[0].capacity, 8);
	assert_int_equal(obj.zones[0].resources[0].available, 8);
	assert_string_equal(obj.zones[1].resources[0].name, "memory");
	assert_int_equal(obj.npolicies, 1);
	assert_string_equal(obj.policies[0], "SingleNUMANodePodLevel");
	assert_int_equal(inventory_node_new(&obj, &back, &msg), ERR_OK);
	assert_equal_nodes(back, n, "built again");
	inventory_node_free(back);
	nrt_object_cleanup(&obj);
	inventory_node_free(n);
}

/* A reproducible xorshift stream for the property tests. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int below(uint64_t *s, int n)
{
	return (int)(rnd(s) % (uint64_t)n);
}

static const char *const pool[] = { "cpu", "memory", "hugepages-1Gi", "nvidia.com/gpu",
				     "example.com/nic", "ephemeral-storage" };
#define NPOOL (sizeof pool / sizeof pool[0])

static int64_t unit_of(const char *resource)
{
	return resource_kind_of(resource) == RESOURCE_MEMORY ? (int64_t)1 << 30 : 1;
}

static void attr_add(struct nrt_object *o, const char *name, const char *value)
{
	o->attributes = realloc(o->attributes, (o->nattributes + 1) * sizeof *o->attributes);
	assert_non_null(o->attributes);
	o->attributes[o->nattributes].name = strdup(name);
	o->attributes[o->nattributes].value = strdup(value);
	o->nattributes++;
}

/* A random object: up to 6 NUMA zones with random ids (some names with a
 * leading zero) in random order, a zone of another type, random resource
 * lists, amounts (inconsistent ones too: capacity below allocatable,
 * available above it), costs and kubelet configuration. zone_id[z] is the
 * NUMA id of zones[z], -1 for the other zone. */
static void random_nrt(uint64_t *s, int case_no, struct nrt_object *o, int *zone_id)
{
	static const char *const policies[] = { "none", "best-effort", "restricted",
						"single-numa-node", "bogus" };
	static const char *const legacy[] = { "SingleNUMANodePodLevel", "RestrictedContainerLevel",
					      "BestEffort", "None" };
	bool used[64] = { false };
	int nz = below(s, 7), z, k;
	char text[64];

	memset(o, 0, sizeof *o);
	snprintf(text, sizeof text, "w%d", case_no);
	o->name = strdup(text);
	o->api_version = strdup("topology.node.k8s.io/v1alpha2");
	if (below(s, 2))
		o->resource_version = strdup("42");
	if (below(s, 4) == 0) {
		o->npolicies = 1;
		o->policies = calloc(1, sizeof *o->policies);
		assert_non_null(o->policies);
		o->policies[0] = strdup(legacy[below(s, 4)]);
	}
	if (below(s, 4))
		attr_add(o, "topologyManagerPolicy", policies[below(s, 5) < 4 ? below(s, 4) : 4]);
	if (below(s, 2))
		attr_add(o, "topologyManagerScope", below(s, 2) ? "pod" : "container");
	if (below(s, 3) == 0)
		attr_add(o, "cpuManagerPolicy", below(s, 2) ? "static" : "none");
	if (below(s, 3) == 0)
		attr_add(o, "memoryManagerPolicy", below(s, 2) ? "Static" : "None");
	if (below(s, 3) == 0)
		attr_add(o, "topologyManagerPolicyOptions", "prefer-closest-numa-nodes=true");
	if (below(s, 4) == 0)
		attr_add(o, "topologyManagerOptionMaxAllowableNUMANodes", below(s, 2) ? "12" : "4");
	if (below(s, 2))
		attr_add(o, "nodeTopologyPodsFingerprint", "pfp0v0011234567890abcdef");

	o->nzones = (size_t)nz + 1;
	o->zones = calloc(o->nzones, sizeof *o->zones);
	assert_non_null(o->zones);
	for (z = 0; z < nz; z++) {
		int id;

		do
			id = below(s, 64);
		while (used[id]);
		used[id] = true;
		zone_id[z] = id;
		snprintf(text, sizeof text, below(s, 5) == 0 ? "node-0%d" : "node-%d", id);
		o->zones[z].name = strdup(text);
		o->zones[z].type = strdup("Node");
	}
	/* The other zone, somewhere in the list. */
	k = below(s, nz + 1);
	for (z = nz; z > k; z--) {
		o->zones[z] = o->zones[z - 1];
		zone_id[z] = zone_id[z - 1];
	}
	memset(&o->zones[k], 0, sizeof o->zones[k]);
	o->zones[k].name = strdup("socket-0");
	o->zones[k].type = strdup("Socket");
	zone_id[k] = -1;

	for (z = 0; z < (int)o->nzones; z++) {
		struct nrt_zone *zone = &o->zones[z];
		size_t order[NPOOL], i;

		for (i = 0; i < NPOOL; i++)
			order[i] = i;
		for (i = NPOOL; i > 1; i--) {
			size_t j = (size_t)below(s, (int)i), t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		zone->resources = calloc(NPOOL, sizeof *zone->resources);
		assert_non_null(zone->resources);
		for (i = 0; i < NPOOL; i++) {
			const char *name = pool[order[i]];
			int64_t u = unit_of(name);
			struct nrt_resource *r;

			if (below(s, 3) == 0)
				continue;
			r = &zone->resources[zone->nresources++];
			r->name = strdup(name);
			r->allocatable = below(s, 33) * u;
			r->capacity = below(s, 5) == 0 ? below(s, 8) * u : r->allocatable + below(s, 3) * u;
			r->available = below(s, 5) == 0 ? r->allocatable + below(s, 4) * u
							 : (r->allocatable ? below(s, (int)(r->allocatable / u) + 1) * u : 0);
		}
		zone->costs = calloc(o->nzones, sizeof *zone->costs);
		assert_non_null(zone->costs);
		for (k = 0; k < (int)o->nzones; k++) {
			if (below(s, 5) == 0)
				continue;
			zone->costs[zone->ncosts].name = strdup(o->zones[k].name);
			zone->costs[zone->ncosts].value = k == z ? 10 : 11 + below(s, 30);
			zone->ncosts++;
		}
	}
}

/* The reference: the object edited as the ledger once edited it, zone by
 * zone and resource by resource, on the amounts as the snapshot reads them
 * (available at most allocatable). */
static void edit_nrt(struct nrt_object *o, const int *zone_id, const struct inventory_usage *u,
		     size_t nu)
{
	size_t z, k, i;

	for (z = 0; z < o->nzones; z++) {
		if (zone_id[z] < 0)
			continue;
		for (k = 0; k < o->zones[z].nresources; k++) {
			struct nrt_resource *r = &o->zones[z].resources[k];
			int64_t a = r->available < r->allocatable ? r->available : r->allocatable;

			for (i = 0; i < nu; i++) {
				if (strcmp(u[i].resource, r->name) != 0 || u[i].amount <= 0 ||
				    (u[i].numa_id >= 0 && u[i].numa_id != zone_id[z]))
					continue;
				a = a > u[i].amount ? a - u[i].amount : 0;
			}
			r->available = a;
		}
	}
}

/* node -> NRT -> JSON -> decoded -> snapshot: equal to node. */
static void assert_json_round_trip(const struct inventory_node *node)
{
	struct inventory_node *back = NULL;
	struct nrt_object obj, *objs = NULL;
	struct errmsg msg;
	size_t n = 0;
	char *json;

	inventory_node_to_nrt(node, &obj);
	json = nrt_object_to_json(&obj);
	nrt_object_cleanup(&obj);
	if (nrt_decode_buffer(json, strlen(json), "round-trip", &objs, &n, &msg) != ERR_OK)
		fail_msg("decode: %s\n%s", msg.text, json);
	assert_int_equal(n, 1);
	if (inventory_node_new(&objs[0], &back, &msg) != ERR_OK)
		fail_msg("build: %s\n%s", msg.text, json);
	assert_equal_nodes(back, node, "JSON round trip");
	inventory_node_free(back);
	nrt_objects_free(objs, n);
	free(json);
}

static void inventory_take_equals_building_the_edited_nrt(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	int c, built = 0, taken_somewhere = 0;

	(void)state;
	for (c = 0; c < 3000; c++) {
		struct inventory_node *node = NULL, *taken = NULL, *expect = NULL;
		struct inventory_usage usage[8];
		struct nrt_object obj;
		struct errmsg msg;
		int zone_id[8], nu = below(&seed, 9), i;

		random_nrt(&seed, c, &obj, zone_id);
		if (inventory_node_new(&obj, &node, &msg) != ERR_OK) {
			/* No NUMA zone under a policy other than none. */
			assert_int_equal(node == NULL, true);
			nrt_object_cleanup(&obj);
			continue;
		}
		built++;
		for (i = 0; i < nu; i++) {
			int pick = below(&seed, (int)NPOOL + 1);

			usage[i].resource = pick < (int)NPOOL ? pool[pick] : "unknown.io/thing";
			switch (below(&seed, 4)) {
			case 0: usage[i].numa_id = -1; break;
			case 1: usage[i].numa_id = below(&seed, 64); break;
			default:
				usage[i].numa_id = node->numa_count
							   ? node->numa_ids[below(&seed, node->numa_count)] : -1;
			}
			usage[i].amount = (below(&seed, 20) - 2) * unit_of(usage[i].resource);
		}
		taken = inventory_node_take(node, usage, (size_t)nu);
		edit_nrt(&obj, zone_id, usage, (size_t)nu);
		if (inventory_node_new(&obj, &expect, &msg) != ERR_OK)
			fail_msg("case %d: the edited object does not build: %s", c, msg.text);
		assert_equal_nodes(taken, expect, "take vs edited NRT");
		for (i = 0; i < taken->nresources; i++)
			if (taken->resources[i].total_available != node->resources[i].total_available)
				taken_somewhere++;
		assert_json_round_trip(node);
		assert_json_round_trip(taken);
		inventory_node_free(expect);
		inventory_node_free(taken);
		inventory_node_free(node);
		nrt_object_cleanup(&obj);
	}
	/* The generator exercises what it should. */
	assert_true(built > 2000);
	assert_true(taken_somewhere > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inventory_defaults),
		cmocka_unit_test(inventory_resources_and_distances),
		cmocka_unit_test(inventory_sparse_ids_are_dense_in_order),
		cmocka_unit_test(inventory_sparse_ids_reach_the_verdict),
		cmocka_unit_test(inventory_packs_its_resources),
		cmocka_unit_test(inventory_rejects_bad_zones),
		cmocka_unit_test(inventory_no_numa_zone),
		cmocka_unit_test(inventory_kubelet_config_validation),
		cmocka_unit_test(inventory_options_in_both_spellings),
		cmocka_unit_test(inventory_legacy_topology_policies),
		cmocka_unit_test(inventory_numa_limits),
		cmocka_unit_test(inventory_take_lowers_named_zones_and_clamps),
		cmocka_unit_test(inventory_to_nrt_writes_names_and_configuration),
		cmocka_unit_test(inventory_take_equals_building_the_edited_nrt),
	};

	return cmocka_run_group_tests_name("inventory", tests, NULL, NULL);
}
