/* SPDX-License-Identifier: Apache-2.0 */
/* The hint providers (topology/providers.c) as a table: tiny nodes (1-4 NUMA
 * nodes with per-NUMA cpu, memory, hugepages-1Gi and a GPU), one container or
 * pod, and the hint list each provider must give, as the kubelet's providers
 * (cpumanager and memorymanager policy_static.go, devicemanager
 * topology_hints.go) would from the NRT counts, with the conventions of
 * docs/simulation.md for what an NRT leaves out. The providers are called as judge.c calls
 * them: a simulation state over the node, earlier containers of the pod
 * allocated first (allocate_container) with the hints the row gives them, then
 * providers_hints for the last container (or, in pod scope, for the pod).
 *
 * Expected lists are written as the kubelet's hints, NUMA ids in braces and
 * "*" for preferred, in order of size then value: "{1}* {0,1}". "[]" is an
 * empty list (the resource cannot be satisfied: it flattens to {nil, not
 * preferred}); a NULL field means the provider gives no list for that
 * resource (nil map or nil list: no preference). */
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
#include "base/arena.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/sim.h"

#define GI TINY_GI
#define Z TINY_ZERO
#define GPU TINY_GPU

struct row {
	const char *name;     /* the rule the row checks */
	const char *policy;   /* NULL: best-effort */
	const char *attr;     /* one more NRT attribute, "name=value" */
	bool pod_scope;
	int n;
	struct tiny_zone z[4];
	const char *pod;      /* the inside of spec: {...} */
	/* The hints earlier containers (admission order) were allocated with,
	 * dense NUMA masks; the last container is the one asked. */
	bitmask_t pre[4];
	const char *cpu, *mem, *hp, *gpu;
	const char *missing;  /* a memory type no zone lists (provider notes) */
};

/* A Guaranteed container: limits only, requests default to them. */
#define C(name, res) "{name: " name ", resources: {limits: {" res "}}}"
#define SIDECAR(name, res) "{name: " name ", restartPolicy: Always, resources: {limits: {" res "}}}"

static const struct row rows[] = {
	/* --- CPU (static policy) --- */
	{ .name = "cpu: capacity sizes preferred (4 >= 2 on one node), "
		  "availability decides existence (NUMA 0 has 1 free)",
	  .n = 2, .z = { { .cpu = { 4, 1 }, .mem = { 8, 8 } }, { .cpu = { 4, 4 }, .mem = { 8, 8 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi") "]",
	  .cpu = "{1}* {0,1}", .mem = "{0}* {1}* {0,1}" },
	{ .name = "cpu on 4 NUMA nodes: 5 CPUs need 3 nodes by capacity; only the triples "
		  "with 5 free exist",
	  .n = 4, .z = { { .cpu = { 2, 2 } }, { .cpu = { 2, 2 } }, { .cpu = { 2, Z } },
			 { .cpu = { 2, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 5, memory: 1Gi") "]",
	  .cpu = "{0,1,3}* {0,1,2,3}" },
	{ .name = "cpu: fewer free CPUs than asked in every subset: empty list (impossible)",
	  .n = 2, .z = { { .cpu = { 4, 2 } }, { .cpu = { 4, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 6, memory: 1Gi") "]",
	  .cpu = "[]" },
	{ .name = "cpu: only NUMA nodes with CPUs are candidates; devices range over "
		  "every NUMA node",
	  .n = 3, .z = { { .cpu = { 4, 4 }, .gpu = { 1, 1 } }, { .cpu = { 4, 4 } }, { .gpu = { Z, Z } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi, " GPU ": 1") "]",
	  .cpu = "{0}* {1}* {0,1}", .gpu = "{0}* {0,1} {0,2} {0,1,2}" },
	{ .name = "cpu: fractional CPU in a Guaranteed pod: no CPU hint (shared pool); "
		  "memory still aligned",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .mem = { 8, 8 } }, { .cpu = { 4, 4 }, .mem = { 8, 8 } } },
	  .pod = "containers: [" C("a", "cpu: 1500m, memory: 1Gi") "]",
	  .mem = "{0}* {1}* {0,1}" },
	{ .name = "Burstable pod: no CPU or memory hint; devices ignore QoS",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .mem = { 8, 8 }, .gpu = { 1, 1 } },
			 { .cpu = { 4, 4 }, .mem = { 8, 8 }, .gpu = { 1, 1 } } },
	  .pod = "containers: [{name: a, resources: {requests: {cpu: 1, memory: 1Gi},"
		 " limits: {" GPU ": 1}}}]",
	  .gpu = "{0}* {1}* {0,1}" },
	{ .name = "cpuManagerPolicy none: no CPU hint",
	  .attr = "cpuManagerPolicy=none",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi") "]" },
	{ .name = "single-numa-node: only preferred single-node hints are generated; a GPU "
		  "pair needing both nodes' free devices leaves the list empty",
	  .policy = "single-numa-node",
	  .n = 2, .z = { { .cpu = { 4, 1 }, .gpu = { 2, 1 } }, { .cpu = { 4, 4 }, .gpu = { 2, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi, " GPU ": 2") "]",
	  .cpu = "{1}*", .gpu = "[]" },

	/* --- devices --- */
	{ .name = "devices: 2 GPUs per node, 1 free on each: {0,1} exists, not preferred",
	  .n = 2, .z = { { .gpu = { 2, 1 } }, { .gpu = { 2, 1 } } },
	  .pod = "containers: [{name: a, resources: {limits: {" GPU ": 2}}}]",
	  .gpu = "{0,1}" },
	{ .name = "devices: fewer available than requested: empty list (impossible)",
	  .n = 2, .z = { { .gpu = { 2, 1 } }, { .gpu = { 2, 0 } } },
	  .pod = "containers: [{name: a, resources: {limits: {" GPU ": 2}}}]",
	  .gpu = "[]" },
	{ .name = "devices: a resource no zone lists has no NUMA information: no list",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .gpu = { 1, 1 } }, { .cpu = { 4, 4 }, .gpu = { 1, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 1, memory: 1Gi, example.com/fpga: 1") "]",
	  .cpu = "{0}* {1}* {0,1}" },
	{ .name = "devices: listed but no device on any NUMA node: no topology, no list",
	  .n = 2, .z = { { .gpu = { Z, Z } }, { .gpu = { Z, Z } } },
	  .pod = "containers: [{name: a, resources: {limits: {" GPU ": 1}}}]" },

	/* --- memory and hugepages (Static memory manager) --- */
	{ .name = "memory: allocatable sizes preferred; NUMA 1 holds single-NUMA allocations "
		  "(available < allocatable) and joins no multi-NUMA hint",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 3Gi") "]",
	  .mem = "{0}*" },
	{ .name = "memory: needs two NUMA nodes: every pair preferred, the triple not",
	  .n = 3, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 6Gi") "]",
	  .mem = "{0,1}* {0,2}* {1,2}* {0,1,2}" },
	{ .name = "memory: no subset survives: no list at all (no preference), "
		  "not an empty one",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 2 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 6Gi") "]" },
	{ .name = "memory under single-numa-node: only a multi-node subset survives: "
		  "empty list (rejected), unlike no subset at all",
	  .policy = "single-numa-node",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 6Gi") "]",
	  .mem = "[]" },
	{ .name = "memory hints are off when no zone lists memory",
	  .n = 2, .z = { { .cpu = { 4, 4 }, .hp = { 4, 4 } }, { .cpu = { 4, 4 }, .hp = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 1Gi, hugepages-1Gi: 1Gi") "]",
	  .cpu = "{0}* {1}* {0,1}" },
	{ .name = "memoryManagerPolicy None: no memory hint",
	  .attr = "memoryManagerPolicy=None",
	  .n = 2, .z = { { .mem = { 8, 8 } }, { .mem = { 8, 8 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi") "]" },
	{ .name = "memory and hugepages: one list per type, identical; the most demanding "
		  "type sizes preferred (2 pages need both nodes)",
	  .n = 2, .z = { { .mem = { 4, 4 }, .hp = { 1, 1 } }, { .mem = { 4, 4 }, .hp = { 1, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, hugepages-1Gi: 2Gi") "]",
	  .mem = "{0,1}*", .hp = "{0,1}*" },
	{ .name = "a hugepage size listed by some zones only: 0 pages where it is not listed",
	  .n = 2, .z = { { .mem = { 4, 4 }, .hp = { 2, 2 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, hugepages-1Gi: 1Gi") "]",
	  .mem = "{0}* {0,1}", .hp = "{0}* {0,1}" },
	{ .name = "a hugepage size no zone lists: no NUMA node can serve it",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "containers: [" C("a", "cpu: 500m, memory: 1Gi, hugepages-1Gi: 1Gi") "]",
	  .missing = "hugepages-1Gi" },

	/* --- reuse of init-container units (container scope) and pod scope --- */
	{ .name = "init CPUs spread over both nodes pin the 2-CPU app to {0,1}, not preferred",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 6, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 2, memory: 1Gi") "]",
	  .pre = { 0x3 }, .cpu = "{0,1}" },
	{ .name = "reusable init CPUs count for the node that holds them (2 free + 2 reused)",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 2, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 4, memory: 1Gi") "]",
	  .pre = { 0x1 }, .cpu = "{0}* {0,1}" },
	{ .name = "sidecar CPUs are never reusable",
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" SIDECAR("s", "cpu: 2, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 4, memory: 1Gi") "]",
	  .pre = { 0x1 }, .cpu = "{1}* {0,1}" },
	{ .name = "a reusable init device pins the app's device hints to its node",
	  .n = 2, .z = { { .gpu = { 1, 1 } }, { .gpu = { 1, 1 } } },
	  .pod = "initContainers: [{name: i, resources: {limits: {" GPU ": 1}}}],"
		 " containers: [{name: a, resources: {limits: {" GPU ": 1}}}]",
	  .pre = { 0x2 }, .gpu = "{1}* {0,1}" },
	{ .name = "init memory is reusable on its exact mask only ({0}: 1 free + 3 reused); "
		  "NUMA 0 now holds a single-NUMA allocation, so no {0,1}",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 500m, memory: 3Gi") "],"
		 " containers: [" C("a", "cpu: 500m, memory: 3Gi") "]",
	  .pre = { 0x1 }, .mem = "{0}* {1}*" },
	{ .name = "memory: nodes of an init container's multi-NUMA group serve no "
		  "single-NUMA hint; the group itself stays a hint",
	  .n = 2, .z = { { .mem = { 4, 4 } }, { .mem = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 500m, memory: 6Gi") "],"
		 " containers: [" C("a", "cpu: 500m, memory: 1Gi") "]",
	  .pre = { 0x3 }, .mem = "{0,1}" },
	{ .name = "pod scope: the larger of the init maximum (6) and the app sum (4)",
	  .pod_scope = true,
	  .n = 2, .z = { { .cpu = { 4, 4 } }, { .cpu = { 4, 4 } } },
	  .pod = "initContainers: [" C("i", "cpu: 6, memory: 1Gi") "],"
		 " containers: [" C("a", "cpu: 2, memory: 1Gi") ", " C("b", "cpu: 2, memory: 1Gi") "]",
	  .cpu = "{0,1}*" },
	{ .name = "1-NUMA node: the single node is the only hint, preferred",
	  .n = 1, .z = { { .cpu = { 4, 4 }, .mem = { 8, 8 }, .gpu = { 1, 1 } } },
	  .pod = "containers: [" C("a", "cpu: 2, memory: 2Gi, " GPU ": 1") "]",
	  .cpu = "{0}*", .mem = "{0}*", .gpu = "{0}*" },
};

static struct inventory_node *build_node(const struct row *r)
{
	struct errmsg msg;
	struct inventory_node *node = tiny_node(r->policy, r->pod_scope, r->attr, r->n, r->z, &msg);

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

/* judge.c's own set-up, with the scratch arena the providers write to. */
static void sim_setup(struct sim *s, const struct inventory_node *node,
		      const struct pod_demand *pod, struct arena *state, struct arena *scratch)
{
	sim_init(s, node, pod, state);
	s->arena = scratch;
}

/* "{0}* {0,1}", "[]" for an empty list. */
static void format_list(const struct hint_list *l, int n, char *buf, size_t size)
{
	size_t used = 0;
	uint64_t m;
	int c, i;

	buf[0] = '\0';
#define PUT(...) (used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__))
	if (l->nil_pref)
		PUT("nil* ");
	if (l->all == NULL) {
		for (i = 0; i < n; i++)
			if (bitmask_is_set(l->singles, i))
				PUT("{%d}* ", i);
	} else {
		for (c = 1; c <= n; c++) {
			for (m = 1; m < ((uint64_t)1 << n); m++) {
				const char *sep = "{";

				if (bitmask_count(m) != c || !maskset_has(l->all, m))
					continue;
				for (i = 0; i < n; i++) {
					if (bitmask_is_set(m, i)) {
						PUT("%s%d", sep, i);
						sep = ",";
					}
				}
				PUT("}%s ", maskset_has(l->pref, m) ? "*" : "");
				/* A preferred mask is always in `all`. */
			}
		}
	}
	if (used == 0)
		PUT("[]");
	else if (l->nil_nonpref)
		PUT("+ {nil} ");
	if (used > 0 && buf[used - 1] == ' ')
		buf[--used] = '\0';
#undef PUT
}

static bool check_row(const struct row *r)
{
	struct inventory_node *node = build_node(r);
	struct pod_spec spec;
	struct pod_demand *pod = build_pod(r, &spec);
	struct arena state, scratch;
	struct hint_list lists[16];
	struct provider_notes notes;
	const char *want[4] = { r->cpu, r->mem, r->hp, r->gpu };
	static const char *const names[4] = { "cpu", "memory", "hugepages-1Gi", GPU };
	char got[4][160];
	struct ask a;
	struct sim s;
	size_t nlists, i, k;
	bool ok = true;

	arena_init(&state);
	arena_init(&scratch);
	sim_setup(&s, node, pod, &state, &scratch);
	memset(&a, 0, sizeof a);
	if (r->pod_scope) {
		a.kind = CONTAINER_APP;
		a.cpus = pod->pod_cpus;
		a.memory = pod->pod_memory;
		a.nmemory = pod->npod_memory;
		a.memory_whole = pod->pod_memory_whole;
		a.devices = pod->pod_devices;
		a.ndevices = pod->npod_devices;
	} else {
		const struct container_demand *last = &pod->containers[pod->ncontainers - 1];

		for (i = 0; i + 1 < pod->ncontainers; i++) {
			struct topo_hint h = { r->pre[i], r->pre[i] == 0, true };

			if (!allocate_container(&s, &pod->containers[i], h))
				fail_msg("%s: allocating %s: %s", r->name, pod->containers[i].name,
					 s.failure);
		}
		a.container = last->name;
		a.kind = last->kind;
		a.cpus = last->cpus;
		a.memory = last->memory;
		a.nmemory = last->nmemory;
		a.memory_whole = last->memory_whole;
		a.devices = last->devices;
		a.ndevices = last->ndevices;
	}
	assert_true(a.ndevices + 1 + a.nmemory <= 16);
	nlists = providers_hints(&s, &a, lists, &notes);
	for (k = 0; k < 4; k++)
		snprintf(got[k], sizeof got[k], "-");
	for (i = 0; i < nlists; i++) {
		for (k = 0; k < 4 && strcmp(lists[i].resource, names[k]) != 0; k++)
			;
		if (k == 4) {
			print_error("%s\n  unexpected list for %s\n", r->name, lists[i].resource);
			ok = false;
			continue;
		}
		format_list(&lists[i], s.n, got[k], sizeof got[k]);
	}
	for (k = 0; k < 4; k++) {
		const char *w = want[k] ? want[k] : "-";

		if (strcmp(got[k], w) != 0) {
			print_error("%s\n  %s: got \"%s\", want \"%s\"\n", r->name, names[k], got[k], w);
			ok = false;
		}
	}
	if (notes.memory_missing_type != (r->missing != NULL) ||
	    (r->missing && strcmp(notes.missing, r->missing) != 0)) {
		print_error("%s\n  missing memory type: got \"%s\", want \"%s\"\n", r->name,
			    notes.memory_missing_type ? notes.missing : "",
			    r->missing ? r->missing : "");
		ok = false;
	}
	arena_cleanup(&scratch);
	arena_cleanup(&state);
	pod_demand_free(pod);
	pod_spec_cleanup(&spec);
	inventory_node_free(node);
	return ok;
}

static void providers_table(void **state)
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
		cmocka_unit_test(providers_table),
	};

	return cmocka_run_group_tests_name("providers", tests, NULL, NULL);
}
