/* SPDX-License-Identifier: Apache-2.0 */
/* The judge on random nodes and pods:
 *  - the shortcuts (only single-node hints under single-numa-node; preferred
 *    hints first under best-effort and restricted) give the same verdicts
 *    as generating every NUMA subset and merging as the kubelet does;
 *  - invariants of every verdict: an admitted pod never takes more than is
 *    available on any NUMA node; single-numa-node affinities name one node;
 *    a rejection always has a reason and a message; an empty node that
 *    admits a pod makes that pod's rejection resolvable;
 *  - reasons that name reusable init-container units pinning a container
 *    (its mask must hold every NUMA node with a reusable CPU or device), the
 *    same from the brief and the detailed judgement. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"

static uint64_t rng = 0x243f6a8885a308d3u;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717u;
}

static int below(int k)
{
	return (int)(rnd() % (uint64_t)k);
}

static const char *const policies[] = { "none", "best-effort", "restricted", "single-numa-node" };
static const char *const devices[] = { "nvidia.com/gpu", "dsa.intel.com/wq-user-shared" };
#define GI ((int64_t)1 << 30)

static void add_resource(struct nrt_zone *z, const char *name, int64_t cap, int64_t alloc,
			 int64_t avail)
{
	struct nrt_resource *r;

	z->resources = xreallocarray(z->resources, z->nresources + 1, sizeof *z->resources);
	r = &z->resources[z->nresources++];
	r->name = xstrdup(name);
	r->capacity = cap;
	r->allocatable = alloc;
	r->available = avail;
}

static void random_nrt(struct nrt_object *o, int n)
{
	int i, j;

	memset(o, 0, sizeof *o);
	o->name = xstrdup("w");
	o->api_version = xstrdup("topology.node.k8s.io/v1alpha2");
	o->nattributes = 2;
	o->attributes = xcalloc(2, sizeof *o->attributes);
	o->attributes[0].name = xstrdup("topologyManagerPolicy");
	o->attributes[0].value = xstrdup(policies[below(4)]);
	o->attributes[1].name = xstrdup("topologyManagerScope");
	o->attributes[1].value = xstrdup(below(2) ? "pod" : "container");
	o->nzones = (size_t)n;
	o->zones = xcalloc((size_t)n, sizeof *o->zones);
	for (i = 0; i < n; i++) {
		struct nrt_zone *z = &o->zones[i];
		char name[32];
		int64_t cap = 2 + below(8), memcap = (4 + below(12)) * GI;

		snprintf(name, sizeof name, "node-%d", i);
		z->name = xstrdup(name);
		z->type = xstrdup("Node");
		z->ncosts = (size_t)n;
		z->costs = xcalloc((size_t)n, sizeof *z->costs);
		for (j = 0; j < n; j++) {
			snprintf(name, sizeof name, "node-%d", j);
			z->costs[j].name = xstrdup(name);
			z->costs[j].value = i == j ? 10 : 11 + below(20);
		}
		add_resource(z, "cpu", cap, cap, below((int)cap + 1));
		if (below(4))
			add_resource(z, "memory", memcap, memcap,
				     below(3) ? memcap : memcap - below(3) * GI);
		add_resource(z, devices[0], i % 2 ? 2 : 1, i % 2 ? 2 : 1, below(i % 2 ? 3 : 2));
		add_resource(z, devices[1], 2, 2, below(3));
	}
	/* All zones list memory or none does. */
	for (i = 1; i < n; i++) {
		bool has0 = false, hasi = false;
		size_t k;

		for (k = 0; k < o->zones[0].nresources; k++)
			has0 |= strcmp(o->zones[0].resources[k].name, "memory") == 0;
		for (k = 0; k < o->zones[i].nresources; k++)
			hasi |= strcmp(o->zones[i].resources[k].name, "memory") == 0;
		if (has0 && !hasi)
			add_resource(&o->zones[i], "memory", 8 * GI, 8 * GI, 8 * GI);
	}
}

static void add_quantity(struct pod_quantity **list, size_t *n, const char *name,
			 const char *text)
{
	struct pod_quantity *q;
	struct errmsg msg;

	*list = xreallocarray(*list, *n + 1, sizeof **list);
	q = &(*list)[(*n)++];
	q->name = xstrdup(name);
	if (quantity_parse(text, strlen(text), &q->q, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
}

static void random_pod(struct pod_spec *p)
{
	int nc = 1 + below(3), i;
	bool guaranteed = below(4) != 0;

	memset(p, 0, sizeof *p);
	p->namespace_ = xstrdup("default");
	p->name = xstrdup("p");
	p->ncontainers = (size_t)nc;
	p->containers = xcalloc((size_t)nc, sizeof *p->containers);
	for (i = 0; i < nc; i++) {
		struct pod_container *c = &p->containers[i];
		char name[32], cpu[32], mem[32];

		snprintf(name, sizeof name, "c%d", i);
		c->name = xstrdup(name);
		/* Init containers come first in admission order. */
		c->kind = i < nc - 1 ? (below(3) == 0 ? CONTAINER_SIDECAR
				       : below(2) ? CONTAINER_INIT : CONTAINER_APP)
				     : CONTAINER_APP;
		if (i > 0 && p->containers[i - 1].kind == CONTAINER_APP)
			c->kind = CONTAINER_APP;
		snprintf(cpu, sizeof cpu, below(6) ? "%d" : "%d500m", 1 + below(10));
		snprintf(mem, sizeof mem, "%dGi", 1 + below(20));
		add_quantity(&c->limits, &c->nlimits, "cpu", cpu);
		add_quantity(&c->limits, &c->nlimits, "memory", mem);
		if (!guaranteed)
			add_quantity(&c->requests, &c->nrequests, "cpu", "100m");
		if (below(2))
			add_quantity(&c->limits, &c->nlimits, devices[below(2)], below(3) ? "1" : "2");
	}
}

static void check_invariants(const struct inventory_node *node, const struct verdict *v)
{
	size_t i;
	int r, d;

	if (!v->admit) {
		assert_int_not_equal(v->reason, REASON_NONE);
		assert_true(v->message[0] != '\0');
		return;
	}
	for (i = 0; i < v->ncontainers; i++) {
		if (node->policy == TM_POLICY_SINGLE_NUMA_NODE && v->containers[i].has_affinity)
			assert_int_equal(__builtin_popcountll(v->containers[i].numa_ids), 1);
	}
	for (r = 0; r < node->nresources; r++)
		for (d = 0; d < node->numa_count; d++)
			assert_true(verdict_usage(v, r, d) <= node->resources[r].available[d]);
}

static bool same(const struct verdict *a, const struct verdict *b)
{
	size_t i;

	if (a->admit != b->admit || a->reason != b->reason ||
	    a->unresolvable != b->unresolvable || a->ncontainers != b->ncontainers)
		return false;
	for (i = 0; i < a->ncontainers; i++)
		if (a->containers[i].has_affinity != b->containers[i].has_affinity ||
		    a->containers[i].numa_ids != b->containers[i].numa_ids ||
		    a->containers[i].preferred != b->containers[i].preferred)
			return false;
	return true;
}

static void judge_random_single_numa_shortcut_and_invariants(void **state)
{
	long cases, admitted = 0, rejected = 0, compared = 0, pinned = 0;

	(void)state;
	for (cases = 0; cases < 20000; cases++) {
		struct nrt_object obj;
		struct pod_spec pod;
		struct inventory_node *node = NULL;
		struct pod_demand *demand = NULL;
		struct verdict v, w;
		struct errmsg msg;

		random_nrt(&obj, 1 + below(6));
		random_pod(&pod);
		if (inventory_node_new(&obj, &node, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		if (pod_demand_new(&pod, &demand, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		judge_node(node, demand, &v);
		check_invariants(node, &v);
		{
			/* The brief judgement (filter path) agrees on everything it
			 * computes. */
			struct verdict b;

			judge_node_ex(node, demand, JUDGE_UNRESOLVABLE, &b);
			if (b.admit != v.admit || b.reason != v.reason ||
			    b.unresolvable != v.unresolvable || strcmp(b.resources, v.resources) != 0 ||
			    strcmp(b.pinned, v.pinned) != 0 || (v.admit && !same(&v, &b)))
				fail_msg("case %ld: brief %d/%s/%d [%s] vs detailed %d/%s/%d [%s]", cases,
					 b.admit, verdict_reason_name(b.reason), b.unresolvable, b.resources,
					 v.admit, verdict_reason_name(v.reason), v.unresolvable, v.resources);
			verdict_cleanup(&b);
		}
		if (v.admit)
			admitted++;
		else
			rejected++;
		pinned += v.pinned[0] != '\0';
		if (!v.admit && v.reason != REASON_CONFIG) {
			struct verdict e;

			judge_node(node->emptied, demand, &e);
			if (e.admit)
				assert_false(v.unresolvable);
			verdict_cleanup(&e);
		}
		if (node->policy != TM_POLICY_NONE) {
			node->full_enumeration = true;
			node->emptied->full_enumeration = true;
			judge_node(node, demand, &w);
			if (!same(&v, &w) || strcmp(v.pinned, w.pinned) != 0) {
				size_t c;

				struct verdict x, y;

				node->emptied->full_enumeration = false;
				judge_node(node->emptied, demand, &x);
				node->emptied->full_enumeration = true;
				judge_node(node->emptied, demand, &y);
				fprintf(stderr, "emptied: rule %d %s [%s] / full %d %s [%s]\n", x.admit,
					verdict_reason_name(x.reason), x.message, y.admit,
					verdict_reason_name(y.reason), y.message);
				for (c = 0; c < x.ncontainers && c < y.ncontainers; c++)
					fprintf(stderr, "  %s: %llx/%d vs %llx/%d\n", x.containers[c].name,
						(unsigned long long)x.containers[c].numa_ids, x.containers[c].preferred,
						(unsigned long long)y.containers[c].numa_ids, y.containers[c].preferred);
				fprintf(stderr, "policy %s scope %s n %d\n", tm_policy_name(node->policy),
					tm_scope_name(node->scope), node->numa_count);
				for (c = 0; c < v.ncontainers && c < w.ncontainers; c++)
					fprintf(stderr, "  %s: %llx/%d vs %llx/%d\n", v.containers[c].name,
						(unsigned long long)v.containers[c].numa_ids, v.containers[c].preferred,
						(unsigned long long)w.containers[c].numa_ids, w.containers[c].preferred);
				fail_msg("case %ld: shortcut %d/%s \"%s\" vs full %d/%s \"%s\"", cases,
					 v.admit, verdict_reason_name(v.reason), v.message, w.admit,
					 verdict_reason_name(w.reason), w.message);
			}
			verdict_cleanup(&w);
			compared++;
		}
		verdict_cleanup(&v);
		pod_demand_free(demand);
		inventory_node_free(node);
		pod_spec_cleanup(&pod);
		nrt_object_cleanup(&obj);
	}
	assert_true(compared > 10000);
	assert_true(pinned > 0);
	assert_true(admitted > 2000);
	assert_true(rejected > 2000);
}

/* The unresolvable flag (answered from the demand's memo of emptied-node
 * shapes) equals a full judgement of the emptied node, on random nodes
 * judged many at a time with one demand: several shapes, and per shape
 * several loads (same emptied node, different available amounts). */
/* What the judge reads from a node's summaries: the emptied copy has the
 * node's resources in order (the judge uses the node's indices on it), and
 * memory_short is the NUMA nodes where a memory type's available is below
 * its allocatable (none on the emptied copy). */
static void check_summaries(const struct inventory_node *node)
{
	bitmask_t s = 0;
	int r, d;

	assert_non_null(node->emptied);
	assert_int_equal(node->emptied->nresources, node->nresources);
	for (r = 0; r < node->nresources; r++) {
		const struct inventory_resource *res = &node->resources[r];

		assert_string_equal(node->emptied->resources[r].name, res->name);
		for (d = 0; d < node->numa_count && res->kind == RESOURCE_MEMORY; d++)
			if (res->available[d] < res->allocatable[d])
				s |= (bitmask_t)1 << d;
	}
	assert_true(node->memory_short == s);
	assert_true(node->emptied->memory_short == 0);
}

static void judge_unresolvable_memo_equals_second_judgement(void **state)
{
	long cases = 0, rejected = 0, unresolvable = 0;
	int round;

	(void)state;
	for (round = 0; round < 600; round++) {
		struct pod_spec pod;
		struct pod_demand *demand = NULL;
		struct errmsg msg;
		int shape;

		random_pod(&pod);
		if (pod_demand_new(&pod, &demand, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		for (shape = 0; shape < 3; shape++) {
			struct nrt_object obj;
			struct inventory_node *node = NULL;
			int load;

			random_nrt(&obj, 1 + below(6));
			if (inventory_node_new(&obj, &node, &msg) != ERR_OK)
				fail_msg("%s", msg.text);
			for (load = 0; load < 4; load++) {
				struct inventory_usage use[3];
				struct inventory_node *loaded;
				struct verdict v, e;

				use[0] = (struct inventory_usage){ "cpu", below(node->numa_count), below(4) };
				use[1] = (struct inventory_usage){ devices[below(2)], below(node->numa_count), 1 };
				use[2] = (struct inventory_usage){ "memory", below(node->numa_count),
								   below(3) * GI };
				loaded = inventory_node_take(node, use, (size_t)below(4));
				check_summaries(loaded);
				judge_node_ex(loaded, demand, below(2) ? JUDGE_UNRESOLVABLE
						: JUDGE_UNRESOLVABLE | JUDGE_DETAIL, &v);
				if (!v.admit && v.reason != REASON_CONFIG) {
					judge_node(loaded->emptied, demand, &e);
					if (v.unresolvable != !e.admit)
						fail_msg("round %d: unresolvable %d, emptied admit %d", round,
							 v.unresolvable, e.admit);
					verdict_cleanup(&e);
					rejected++;
					unresolvable += v.unresolvable;
				}
				verdict_cleanup(&v);
				inventory_node_free(loaded);
				cases++;
			}
			inventory_node_free(node);
			nrt_object_cleanup(&obj);
		}
		pod_demand_free(demand);
		pod_spec_cleanup(&pod);
	}
	assert_true(rejected > 1000);
	assert_true(unresolvable > 100);
	assert_true(rejected - unresolvable > 100);
}

/* The shortcut for emptied nodes never claims an admission the judgement
 * would not make, and fires often enough here to be tested: random pods
 * (init, sidecar and app containers, fractional CPUs, devices) on random
 * emptied nodes of 1-8 NUMA nodes, every policy and scope, some with large
 * allocatable so that one NUMA node holds whole pods. */
static void judge_emptied_shortcut_never_overclaims(void **state)
{
	long fired = 0, admitted = 0, round;

	(void)state;
	for (round = 0; round < 4000; round++) {
		struct pod_spec pod;
		struct pod_demand *demand = NULL;
		struct nrt_object obj;
		struct inventory_node *node = NULL;
		struct errmsg msg;
		struct verdict e;
		bool shortcut;
		size_t z, k;

		random_pod(&pod);
		if (pod_demand_new(&pod, &demand, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		random_nrt(&obj, 1 + below(8));
		if (below(2)) {
			/* Grow some zones to hold whole pods. */
			for (z = 0; z < obj.nzones; z++) {
				for (k = 0; k < obj.zones[z].nresources && below(2); k++) {
					struct nrt_resource *r = &obj.zones[z].resources[k];

					r->capacity *= 4;
					r->allocatable = r->capacity - below(2);
				}
			}
		}
		if (inventory_node_new(&obj, &node, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		shortcut = judge_emptied_fits_one_numa(node->emptied, demand);
		/* The judge asks the node itself (its arrays are in the cache):
		 * the same answer as its emptied copy. */
		if (judge_emptied_fits_one_numa(node, demand) != shortcut)
			fail_msg("round %ld: the shortcut answers %d on the node, %d on its emptied "
				 "copy", round, !shortcut, shortcut);
		judge_node(node->emptied, demand, &e);
		if (shortcut && !e.admit)
			fail_msg("round %ld: the shortcut admits, the judgement does not: %s", round,
				 e.message);
		fired += shortcut;
		admitted += e.admit;
		verdict_cleanup(&e);
		inventory_node_free(node);
		nrt_object_cleanup(&obj);
		pod_demand_free(demand);
		pod_spec_cleanup(&pod);
	}
	assert_true(fired > 500);
	assert_true(admitted > fired);
}

/* Two NUMA nodes of 32 CPUs (free: cpu0 and cpu1) and 2 GPUs (free: gpu0 and
 * gpu1) under policy, container scope. */
static struct inventory_node *two_numa(const char *policy, int64_t cpu0, int64_t cpu1,
				       int64_t gpu0, int64_t gpu1)
{
	struct inventory_node *node = NULL;
	struct nrt_object o;
	struct errmsg msg;
	int i;

	memset(&o, 0, sizeof o);
	o.name = xstrdup("w");
	o.nattributes = 2;
	o.attributes = xcalloc(2, sizeof *o.attributes);
	o.attributes[0].name = xstrdup("topologyManagerPolicy");
	o.attributes[0].value = xstrdup(policy);
	o.attributes[1].name = xstrdup("topologyManagerScope");
	o.attributes[1].value = xstrdup("container");
	o.nzones = 2;
	o.zones = xcalloc(2, sizeof *o.zones);
	for (i = 0; i < 2; i++) {
		o.zones[i].name = xstrdup(i ? "node-1" : "node-0");
		o.zones[i].type = xstrdup("Node");
		add_resource(&o.zones[i], "cpu", 32, 32, i ? cpu1 : cpu0);
		add_resource(&o.zones[i], devices[0], 2, 2, i ? gpu1 : gpu0);
	}
	if (inventory_node_new(&o, &node, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	nrt_object_cleanup(&o);
	return node;
}

/* An init container, then an app container; Guaranteed, requests equal to
 * limits as the decoder defaults them. The demand borrows names from the
 * spec: free the demand first. */
static struct pod_demand *init_then_app(struct pod_spec *spec, const char *init_cpu,
					const char *init_gpu, const char *app_cpu,
					const char *app_gpu)
{
	struct pod_demand *d = NULL;
	struct pod_spec p;
	struct errmsg msg;
	int i;

	memset(&p, 0, sizeof p);
	p.namespace_ = xstrdup("default");
	p.name = xstrdup("p");
	p.ncontainers = 2;
	p.containers = xcalloc(2, sizeof *p.containers);
	for (i = 0; i < 2; i++) {
		struct pod_container *c = &p.containers[i];
		const char *gpu = i ? app_gpu : init_gpu;

		c->name = xstrdup(i ? "app" : "init");
		c->kind = i ? CONTAINER_APP : CONTAINER_INIT;
		add_quantity(&c->limits, &c->nlimits, "cpu", i ? app_cpu : init_cpu);
		add_quantity(&c->requests, &c->nrequests, "cpu", i ? app_cpu : init_cpu);
		add_quantity(&c->limits, &c->nlimits, "memory", "1Gi");
		add_quantity(&c->requests, &c->nrequests, "memory", "1Gi");
		if (gpu) {
			add_quantity(&c->limits, &c->nlimits, devices[0], gpu);
			add_quantity(&c->requests, &c->nrequests, devices[0], gpu);
		}
	}
	*spec = p;
	if (pod_demand_new(spec, &d, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	return d;
}

/* The rejection's summary and message, detailed and brief; the summaries
 * must agree. */
static void expect_reason(const struct inventory_node *node, const struct pod_demand *d,
			  const char *summary, const char *message_part)
{
	struct verdict v, b;
	char sv[320], sb[320];

	judge_node(node, d, &v);
	judge_node_ex(node, d, 0, &b);
	assert_false(v.admit);
	assert_int_equal(v.reason, REASON_TOPOLOGY_AFFINITY);
	verdict_summary(&v, sv, sizeof sv);
	verdict_summary(&b, sb, sizeof sb);
	assert_string_equal(sv, summary);
	assert_string_equal(sb, summary);
	if (strstr(v.message, message_part) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", v.message, message_part);
	verdict_cleanup(&v);
	verdict_cleanup(&b);
}

static void judge_reason_names_reused_init_cpus(void **state)
{
	/* NUMA 0's last 8 CPUs go to the init container; 16 for the app must
	 * include them, and NUMA 0 has no more, while NUMA 1 has 32. */
	struct inventory_node *node = two_numa("single-numa-node", 8, 32, 2, 2);
	struct pod_spec spec;
	struct pod_demand *d = init_then_app(&spec, "8", NULL, "16", NULL);

	(void)state;
	expect_reason(node, d,
		      "NUMA: cannot align cpu on one NUMA node (single-numa-node): "
		      "reused init-container CPUs pin cpu to NUMA 0",
		      "cpu must include NUMA 0, where it reuses the init containers' CPUs, "
		      "and does not fit there (NUMA 1 alone would fit it)");
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);

	/* restricted: 40 init CPUs span both nodes, so the 2-CPU app must
	 * take {0,1}, not preferred although one node would do. */
	node = two_numa("restricted", 32, 32, 2, 2);
	d = init_then_app(&spec, "40", NULL, "2", NULL);
	expect_reason(node, d,
		      "NUMA: cannot align cpu on a preferred NUMA set (restricted): "
		      "reused init-container CPUs pin cpu to NUMA 0,1",
		      "cpu must include NUMA 0,1, where it reuses the init containers' CPUs: "
		      "a preferred hint has 1 NUMA node (each of NUMA 0,1 alone would fit it)");
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);
}

static void judge_reason_names_reused_init_devices(void **state)
{
	/* The init container takes NUMA 0's last GPU (and a CPU there); 2 GPUs
	 * for the app must include it, and NUMA 1 has both of its own free.
	 * cpu is named too (it fits NUMA 0 only), but only the GPUs are
	 * pinned where they do not fit. */
	struct inventory_node *node = two_numa("single-numa-node", 32, 32, 1, 2);
	struct pod_spec spec;
	struct pod_demand *d = init_then_app(&spec, "1", "1", "1", "2");

	(void)state;
	expect_reason(node, d,
		      "NUMA: cannot align cpu, nvidia.com/gpu on one NUMA node (single-numa-node): "
		      "reused init-container devices pin nvidia.com/gpu to NUMA 0",
		      "nvidia.com/gpu must include NUMA 0, where it reuses the init containers' devices");
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);
}

static void judge_reason_without_reuse_at_fault(void **state)
{
	/* Reusable CPUs on NUMA 0, but the app's 40 (or 33) CPUs fit no single
	 * 32-CPU node, pin or not: the plain reason stands. */
	struct inventory_node *node = two_numa("single-numa-node", 8, 32, 2, 2);
	struct pod_spec spec;
	struct pod_demand *d = init_then_app(&spec, "8", NULL, "40", NULL);

	(void)state;
	expect_reason(node, d, "NUMA: cannot align cpu on one NUMA node (single-numa-node)",
		      "cpu fits no single NUMA node");
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	d = init_then_app(&spec, "8", NULL, "33", NULL);
	expect_reason(node, d, "NUMA: cannot align cpu on one NUMA node (single-numa-node)",
		      "cpu fits no single NUMA node");
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judge_random_single_numa_shortcut_and_invariants),
		cmocka_unit_test(judge_unresolvable_memo_equals_second_judgement),
		cmocka_unit_test(judge_emptied_shortcut_never_overclaims),
		cmocka_unit_test(judge_reason_names_reused_init_cpus),
		cmocka_unit_test(judge_reason_names_reused_init_devices),
		cmocka_unit_test(judge_reason_without_reuse_at_fault),
	};

	return cmocka_run_group_tests_name("judge", tests, NULL, NULL);
}
