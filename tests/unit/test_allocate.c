/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation after the merge (topology/allocate.c) as a table, through
 * judge_node on tiny nodes: which NUMA nodes a pod's CPUs, devices, memory and
 * hugepages are taken from (verdict_usage), the stored affinities, and the
 * UnexpectedAdmissionError cases where an admitted merge fails in Allocate.
 * Rules: the Allocate of the kubelet's device, CPU and memory managers, run
 * in that order with the stored hint. CPUs are packed as the kubelet's
 * takeByTopology does: whole free NUMA nodes first, then fewest free first,
 * then lower id. Devices, where the kubelet's order is arbitrary: reusable
 * first, then the hint's nodes in ascending id, then the others.
 *
 * Usage is written per NUMA node in id order, "4 2 0" (memory and hugepages
 * in GiB); NULL means nothing taken of that resource. Affinities are
 * "container=ids" in admission order, "nil" for a nil affinity. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/pod_decode.h"
#include "tests/support/tiny_node.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"

#define GI TINY_GI
#define Z TINY_ZERO
#define GPU TINY_GPU

struct row {
	const char *name;      /* the rule the row checks */
	const char *policy;    /* NULL: best-effort */
	bool pod_scope;
	int n;
	struct tiny_zone z[4];
	const char *pod;       /* the inside of spec: {...} */
	const char *affinity;  /* admitted: "a=0 b=1"; NULL when rejected */
	const char *cpu, *mem, *hp, *gpu;
	const char *failure;   /* UnexpectedAdmissionError: part of the message */
	const char *failed;    /* and the resource it names */
};

/* A Guaranteed container: limits only, requests default to them. */
#define C(name, res) "{name: " name ", resources: {limits: {" res "}}}"
#define SIDECAR(name, res) "{name: " name ", restartPolicy: Always, resources: {limits: {" res "}}}"

static const struct row rows[] = {
	/* --- CPUs --- */
	{ .name = "cpu: a whole free NUMA node first (6 >= its 4 CPUs), then fewest free: "
		  "NUMA 0 whole, 2 from NUMA 1 (3 free) rather than NUMA 2 (4 free)",
	  .policy = "none",
	  .n = 3, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 3 } }, { .cpu = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 6, memory: 1Gi") "]",
	  .affinity = "a=nil", .cpu = "4 2 0" },
	{ .name = "cpu on 4 NUMA nodes: whole free NUMA 0 and 2 (ascending free, then id), "
		  "then the last CPU from NUMA 1 (1 free) before NUMA 3 (2 free)",
	  .policy = "none",
	  .n = 4, .z = { { .cpu = { 2, 2 } }, { .cpu = { 2, 1 } }, { .cpu = { 2, 2 } },
			 { .cpu = { 2, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 5, memory: 1Gi") "]",
	  .affinity = "a=nil", .cpu = "2 1 2 0" },
	{ .name = "cpu: smaller than a NUMA node: from the node with the fewest free CPUs",
	  .policy = "none",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi") "]",
	  .affinity = "a=nil", .cpu = "0 2" },
	{ .name = "cpu: inside a multi-NUMA hint, fewest free first (NUMA 1: 2 free), "
		  "not lowest id first",
	  .n = 2, .z = { { .cpu = { 4, 3 } }, { .cpu = { 4, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 4, memory: 1Gi") "]",
	  .affinity = "a=0,1", .cpu = "2 2" },
	{ .name = "cpu: equal free counts: the lower id first",
	  .n = 2, .z = { { .cpu = { 4, 3 } }, { .cpu = { 4, 3 } } },
	  .pod = "containers: [" C("a", "cpu: 4, memory: 1Gi") "]",
	  .affinity = "a=0,1", .cpu = "3 1" },
	{ .name = "cpu: the merge picks {0} (the GPU's node) where only 2 "
		  "CPUs are free: 2 inside the mask, the other 2 from NUMA 1",
	  .n = 2, .z = { { .cpu = { 4, 2 }, .gpu = { 1, 1 } }, { .cpu = { 4, 4 }, .gpu = { Z, Z } } },
	  .pod = "containers: [" C("a", "cpu: 4, memory: 1Gi, " GPU ": 1") "]",
	  .affinity = "a=0", .cpu = "2 2", .gpu = "1 0" },
	{ .name = "cpu: policy none, fewer free CPUs than asked: UnexpectedAdmissionError",
	  .policy = "none",
	  .n = 2, .z = { { .cpu = { 4, 2 } }, { .cpu = { 4, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 4, memory: 1Gi") "]",
	  .failure = "not enough cpus available to satisfy request", .failed = "cpu" },

	/* --- devices --- */
	{ .name = "devices: the hint's node first, then the other nodes in ascending id "
		  "(memory fits NUMA 0..2 alone and pins the merge to {0}; 2 GPUs need two nodes)",
	  .n = 3, .z = { { .mem = { 4, 4 }, .gpu = { 1, 1 } }, { .mem = { 4, 3 }, .gpu = { 1, 1 } },
			 { .mem = { 4, 3 }, .gpu = { 1, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, " GPU ": 2") "]",
	  .affinity = "a=0", .mem = "1 0 0", .gpu = "1 1 0" },
	{ .name = "devices: policy none (nil hint): ascending NUMA id",
	  .policy = "none",
	  .n = 3, .z = { { .gpu = { 1, 0 } }, { .gpu = { 1, 1 } }, { .gpu = { 1, 1 } } },
	  .pod = "containers: [{name: a, resources: {limits: {" GPU ": 1}}}]",
	  .affinity = "a=nil", .gpu = "0 1 0" },
	{ .name = "devices: a reusable init device is taken first: the app takes no new one",
	  .n = 2, .z = { { .gpu = { 1, 1 } }, { .gpu = { 1, 1 } } },
	  .pod = "initContainers: [{name: i, resources: {limits: {" GPU ": 1}}}],"
		 " containers: [{name: a, resources: {limits: {" GPU ": 1}}}]",
	  .affinity = "i=0 a=0", .gpu = "1 0" },
	{ .name = "devices: 2 GPUs asked, 1 free: best-effort admits the empty "
		  "list at the merge, Allocate fails (UnexpectedAdmissionError)",
	  .n = 2, .z = { { .gpu = { 2, 1 } }, { .gpu = { 2, 0 } } },
	  .pod = "containers: [{name: a, resources: {limits: {" GPU ": 2}}}]",
	  .failure = "requested number of devices unavailable for " GPU, .failed = GPU },

	/* --- memory and hugepages --- */
	{ .name = "memory: a multi-NUMA hint is filled in ascending id order",
	  .n = 3, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 6Gi") "]",
	  .affinity = "a=0,1", .mem = "4 2 0" },
	{ .name = "memory, policy none (nil hint): the best recomputed hint ({0,2}: NUMA 1 holds "
		  "single-NUMA allocations)",
	  .policy = "none",
	  .n = 3, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 3 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 6Gi") "]",
	  .affinity = "a=nil", .mem = "4 0 2" },
	{ .name = "memory: the merged mask {0} (CPUs exist on NUMA 0 only) lacks "
		  "free memory: widened to {0,1}",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 1, memory: 6Gi") "]",
	  .affinity = "a=0", .cpu = "1 0", .mem = "4 2" },
	{ .name = "memory fits no subset: no preference, single-numa-node admits {0}, "
		  "Allocate cannot extend the hint (UnexpectedAdmissionError)",
	  .policy = "single-numa-node",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .mem = { 4, 4 } }, { .cpu = { 4, 4 }, .mem = { 4, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 1, memory: 6Gi") "]",
	  .failure = "failed to find NUMA nodes to extend the current topology hint",
	  .failed = "memory" },
	{ .name = "memory said no preference, the CPUs' preferred {0,1} "
		  "wins, but NUMA 0 holds container a's single-NUMA memory (UnexpectedAdmissionError)",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .mem = { 4, 4 } }, { .cpu = { 4, 4 }, .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 1, memory: 3Gi") ", " C("b", "cpu: 6, memory: 5Gi") "]",
	  .failure = "container \"b\": memory: preferred hint violates NUMA node allocation",
	  .failed = "memory" },
	{ .name = "1-NUMA single-numa-node: nil affinity stored; memory from the "
		  "recomputed default hint",
	  .policy = "single-numa-node",
	  .n = 1, .z = { { .cpu = { 4, 4 }, .mem = { 8, 8 }, .hp = { 2, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 2Gi, hugepages-1Gi: 1Gi") "]",
	  .affinity = "a=nil", .cpu = "2", .mem = "2", .hp = "1" },
	{ .name = "1-NUMA single-numa-node, memory larger than the node: "
		  "no default hint (UnexpectedAdmissionError)",
	  .policy = "single-numa-node",
	  .n = 1, .z = { { .cpu = { 4, 4 }, .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 6Gi") "]",
	  .failure = "failed to get the default NUMA affinity", .failed = "memory" },
	{ .name = "hugepages listed on NUMA 1 only: taken there, memory with them",
	  .policy = "single-numa-node",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 }, .hp = { 2, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, hugepages-1Gi: 2Gi") "]",
	  .affinity = "a=1", .mem = "0 1", .hp = "0 2" },
	{ .name = "a hugepage size no zone lists: UnexpectedAdmissionError",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, hugepages-1Gi: 1Gi") "]",
	  .failure = "hugepages-1Gi is not published for any NUMA node", .failed = "hugepages-1Gi" },

	/* --- scopes and reuse --- */
	{ .name = "container scope: the first container consumes NUMA 0, the second goes to 1",
	  .policy = "single-numa-node",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 3, memory: 1Gi") ", " C("b", "cpu: 3, memory: 1Gi") "]",
	  .affinity = "a=0 b=1", .cpu = "3 3" },
	{ .name = "pod scope: every container allocates with the pod's hint",
	  .policy = "single-numa-node", .pod_scope = true,
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi") ", " C("b", "cpu: 2, memory: 1Gi") "]",
	  .affinity = "a=0 b=0", .cpu = "4 0" },
	{ .name = "reusable init CPUs are taken before free ones: the app adds nothing",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 2, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 2, memory: 1Gi") "]",
	  .affinity = "i=0 a=0", .cpu = "2 0" },
	{ .name = "sidecar CPUs are not reusable: the app takes 2 more",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" SIDECAR("s", "cpu: 2, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 2, memory: 1Gi") "]",
	  .affinity = "s=0 a=0", .cpu = "4 0" },
	{ .name = "init memory on the app's exact mask is drawn down, not taken again",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 500m, memory: 3Gi") "],"
		 " containers: [" C("a", "cpu: 500m, memory: 3Gi") "]",
	  .affinity = "i=0 a=0", .mem = "3 0" },
};

static struct inventory_node *build_node(const struct row *r)
{
	struct errmsg msg;
	struct inventory_node *node = tiny_node(r->policy, r->pod_scope, NULL, r->n, r->z, &msg);

	if (node == NULL)
		fail_msg("%s: %s", r->name, msg.text);
	return node;
}

static struct pod_demand *build_pod(const struct row *r, struct pod_spec *spec)
{
	struct errmsg msg;
	struct pod_demand *d = tiny_pod(r->pod, spec, &msg);

	if (d == NULL)
		fail_msg("%s: pod: %s", r->name, msg.text);
	return d;
}

/* "4 2 0" (GiB for memory types), "-" when nothing of it is taken. */
static void format_usage(const struct inventory_node *node, const struct verdict *v,
			 const char *resource, char *buf, size_t size)
{
	int r = inventory_find(node, resource), i;
	int64_t unit = resource_kind_of(resource) == RESOURCE_MEMORY ? GI : 1;
	size_t used = 0;
	bool any = false;

	snprintf(buf, size, "-");
	if (r < 0 || v->usage == NULL)
		return;
	for (i = 0; i < node->numa_count; i++)
		any |= verdict_usage(v, r, i) != 0;
	if (!any)
		return;
	for (i = 0; i < node->numa_count; i++) {
		int64_t x = verdict_usage(v, r, i);

		if (x % unit)
			used += (size_t)snprintf(buf + used, size - used, "%s%lldB", i ? " " : "",
						 (long long)x);
		else
			used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? " " : "",
						 (long long)(x / unit));
	}
}

static void format_affinity(const struct inventory_node *node, const struct verdict *v,
			    char *buf, size_t size)
{
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; i < v->ncontainers; i++) {
		const struct verdict_container *c = &v->containers[i];
		char ids[64];

		if (c->has_affinity)
			bitmask_format(c->numa_ids, ids, sizeof ids);
		else
			snprintf(ids, sizeof ids, "nil");
		used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", i ? " " : "", c->name,
					 ids);
	}
	(void)node;
}

static bool check_row(const struct row *r)
{
	struct inventory_node *node = build_node(r);
	struct pod_spec spec;
	struct pod_demand *pod = build_pod(r, &spec);
	static const char *const names[4] = { "cpu", "memory", "hugepages-1Gi", GPU };
	const char *want[4] = { r->cpu, r->mem, r->hp, r->gpu };
	char got[160];
	struct verdict v;
	bool ok = true;
	size_t k;

	judge_node(node, pod, &v);
	if (r->failure) {
		if (v.admit || v.reason != REASON_UNEXPECTED_ADMISSION ||
		    strstr(v.message, r->failure) == NULL ||
		    (r->failed && strcmp(v.resources, r->failed) != 0)) {
			print_error("%s\n  got %s %s [%s] \"%s\", want UnexpectedAdmissionError [%s] "
				    "\"...%s...\"\n", r->name, v.admit ? "admitted" : "rejected",
				    verdict_reason_name(v.reason), v.resources, v.message,
				    r->failed ? r->failed : "", r->failure);
			ok = false;
		}
		goto out;
	}
	if (!v.admit) {
		print_error("%s\n  rejected: %s \"%s\"\n", r->name, verdict_reason_name(v.reason),
			    v.message);
		ok = false;
		goto out;
	}
	format_affinity(node, &v, got, sizeof got);
	if (r->affinity && strcmp(got, r->affinity) != 0) {
		print_error("%s\n  affinity: got \"%s\", want \"%s\"\n", r->name, got, r->affinity);
		ok = false;
	}
	for (k = 0; k < 4; k++) {
		const char *w = want[k] ? want[k] : "-";

		format_usage(node, &v, names[k], got, sizeof got);
		if (strcmp(got, w) != 0) {
			print_error("%s\n  %s usage: got \"%s\", want \"%s\"\n", r->name, names[k], got,
				    w);
			ok = false;
		}
	}
out:
	verdict_cleanup(&v);
	pod_demand_free(pod);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);
	return ok;
}

static void allocate_table(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (!check_row(&rows[i]))
			failed++;
	if (failed)
		fail_msg("%zu of %zu rows failed", failed, sizeof rows / sizeof rows[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allocate_table),
	};

	return cmocka_run_group_tests_name("allocate", tests, NULL, NULL);
}
