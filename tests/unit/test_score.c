/* SPDX-License-Identifier: Apache-2.0 */
/* Node scores on the simulated placement: each strategy's exact value on
 * small nodes (2 and 4 NUMA nodes, sparse NUMA ids), the weights, which
 * resources count (exclusive CPUs only, never host-level resources), and the
 * neutral and rejected cases. Every expected value is worked out by hand in
 * the comment above its assertion. */
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
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"

#define ATTR(name, value) "- {name: " name ", value: \"" value "\"}\n"
#define SNN "attributes:\n" ATTR("topologyManagerPolicy", "single-numa-node")
#define RESTRICTED "attributes:\n" ATTR("topologyManagerPolicy", "restricted")

/* Guaranteed container resources; extra goes into both requests and limits. */
#define G(cpu, mem) "{requests: {cpu: \"" cpu "\", memory: " mem "}, limits: {cpu: \"" cpu "\", memory: " mem "}}"
#define GX(cpu, mem, extra)                                                           \
	"{requests: {cpu: \"" cpu "\", memory: " mem ", " extra "},"                  \
	" limits: {cpu: \"" cpu "\", memory: " mem ", " extra "}}"

static struct inventory_node *node_of(const char *attrs, const char *zones)
{
	char text[16384];
	struct nrt_object *objs = NULL;
	struct inventory_node *node = NULL;
	struct errmsg msg;
	size_t n = 0;

	snprintf(text, sizeof text,
		 "apiVersion: topology.node.k8s.io/v1alpha2\n"
		 "kind: NodeResourceTopology\n"
		 "metadata: {name: w1}\n"
		 "%szones:\n%s",
		 attrs, zones);
	if (nrt_decode_buffer(text, strlen(text), "w1.yaml", &objs, &n, &msg) != ERR_OK)
		fail_msg("decode: %s", msg.text);
	assert_int_equal(n, 1);
	if (inventory_node_new(&objs[0], &node, &msg) != ERR_OK)
		fail_msg("inventory: %s", msg.text);
	nrt_objects_free(objs, n);
	assert_string_equal(node->config_error, "");
	return node;
}

struct pod {
	struct pod_spec spec;
	struct pod_demand *d;
};

static void pod_of(struct pod *p, const char *containers)
{
	char text[8192];
	struct errmsg msg;

	memset(p, 0, sizeof *p);
	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [%s]}\n",
		 containers);
	if (pod_decode_buffer(text, strlen(text), "pod.yaml", &p->spec, &msg) != ERR_OK)
		fail_msg("decode: %s", msg.text);
	if (pod_demand_new(&p->spec, &p->d, &msg) != ERR_OK)
		fail_msg("demand: %s", msg.text);
}

static void pod_free(struct pod *p)
{
	pod_demand_free(p->d);
	pod_spec_cleanup(&p->spec);
}

/* Judges, checks the verdict is as expected, scores with and without a
 * breakdown (they must agree) and returns the score. */
static int64_t judged(const struct score_config *cfg, const struct inventory_node *node,
		      const char *containers, bool admit, struct score_breakdown *out)
{
	struct pod p;
	struct verdict v;
	int64_t s;

	pod_of(&p, containers);
	judge_node(node, p.d, &v);
	if (v.admit != admit)
		fail_msg("verdict %d, want %d: %s", v.admit, admit, v.message);
	s = score_node(cfg, node, &v, out);
	assert_int_equal(score_node(cfg, node, &v, NULL), s);
	assert_int_equal(out->score, s);
	verdict_cleanup(&v);
	pod_free(&p);
	return s;
}

static const struct score_part *find_part(const struct score_breakdown *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nparts; i++)
		if (strcmp(b->parts[i].resource, name) == 0)
			return &b->parts[i];
	return NULL;
}

/* The named part, which must be listed. */
static const struct score_part *part(const struct score_breakdown *b, const char *name)
{
	static const struct score_part none;
	const struct score_part *p = find_part(b, name);

	if (p == NULL) {
		fail_msg("no part \"%s\"", name);
		return &none;
	}
	return p;
}

static struct score_config strategy(enum score_strategy s)
{
	struct score_config c;

	memset(&c, 0, sizeof c);
	c.strategy = s;
	return c;
}

#define GI ((int64_t)1 << 30)

/* Weight names are char * (the config owns them); tests lend these. */
static char CPU[] = "cpu", MEMORY[] = "memory", D16[] = "example.com/d16";

/* Two NUMA nodes. NUMA 0: 2 of 8 CPUs taken, memory free, 2 free GPUs, and
 * host-level ephemeral-storage. NUMA 1 as free. single-numa-node puts a pod
 * that fits on NUMA 0 (the lowest mask). */
#define TWO(cpu_avail0)                                                                   \
	"- name: node-0\n  type: Node\n"                                                  \
	"  costs: [{name: node-0, value: 10}, {name: node-1, value: 21}]\n"              \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 8, allocatable: 8, available: " cpu_avail0 "}\n"      \
	"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 8Gi}\n"          \
	"  - {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: 2}\n"        \
	"  - {name: ephemeral-storage, capacity: 100Gi, allocatable: 100Gi, available: 100Gi}\n" \
	"- name: node-1\n  type: Node\n"                                                  \
	"  costs: [{name: node-0, value: 21}, {name: node-1, value: 10}]\n"              \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 8, allocatable: 8, available: " cpu_avail0 "}\n"      \
	"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 8Gi}\n"          \
	"  - {name: nvidia.com/gpu, capacity: 2, allocatable: 2, available: 2}\n"

#define POD_2CPU "{name: a, resources: " G("2", "2Gi") "}"

static void score_least_allocated(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;
	const struct score_part *cpu, *mem;

	(void)state;
	/* On NUMA 0: cpu used 2 + 2 = 4 of 8 -> (8-4)*100/8 = 50;
	 * memory 0 + 2Gi of 8Gi -> 6/8 = 75. (50+75)/2 = 62 -> (62+5)/10 = 6. */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 6);
	assert_int_equal(b.score100, 62);
	assert_int_equal(b.numa_used, 1);
	assert_null(b.note);
	assert_int_equal(b.nparts, 2);
	cpu = part(&b, "cpu");
	mem = part(&b, "memory");
	assert_int_equal(cpu->score100, 50);
	assert_int_equal(cpu->requested, 2);
	assert_int_equal(cpu->used, 2);
	assert_int_equal(cpu->allocatable, 8);
	assert_int_equal(cpu->weight, 1);
	assert_int_equal(mem->score100, 75);
	assert_int_equal(mem->requested, 2 * GI);
	assert_int_equal(mem->used, 0);
	assert_int_equal(mem->allocatable, 8 * GI);
	/* Parts follow the node's resource order: cpu before memory. */
	assert_string_equal(b.parts[0].resource, "cpu");
	assert_string_equal(b.parts[1].resource, "memory");
	inventory_node_free(n);
}

static void score_most_allocated(void **state)
{
	struct score_config cfg = strategy(SCORE_MOST_ALLOCATED);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* cpu 4/8 -> 50, memory 2/8 -> 25: (50+25)/2 = 37 -> 42/10 = 4. */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 4);
	assert_int_equal(b.score100, 37);
	assert_int_equal(part(&b, "memory")->score100, 25);
	inventory_node_free(n);
}

static void score_least_prefers_emptier_most_prefers_fuller(void **state)
{
	struct score_config least = strategy(SCORE_LEAST_ALLOCATED);
	struct score_config most = strategy(SCORE_MOST_ALLOCATED);
	struct inventory_node *empty = node_of(SNN, TWO("6"));
	struct inventory_node *full = node_of(SNN, TWO("2"));
	struct score_breakdown b;
	int64_t le, lf, me, mf;

	(void)state;
	/* Emptier node: 6 (least), 4 (most), as above. Fuller node: cpu used
	 * 6 + 2 = 8 of 8 -> least 0, most 100; memory least 75, most 25:
	 * least (0+75)/2 = 37 -> 4; most (100+25)/2 = 62 -> 6. */
	le = judged(&least, empty, POD_2CPU, true, &b);
	lf = judged(&least, full, POD_2CPU, true, &b);
	assert_int_equal(b.score100, 37);
	me = judged(&most, empty, POD_2CPU, true, &b);
	mf = judged(&most, full, POD_2CPU, true, &b);
	assert_int_equal(b.score100, 62);
	assert_int_equal(le, 6);
	assert_int_equal(lf, 4);
	assert_int_equal(me, 4);
	assert_int_equal(mf, 6);
	assert_true(le > lf);
	assert_true(mf > me);
	inventory_node_free(empty);
	inventory_node_free(full);
}

static void score_balanced_allocation(void **state)
{
	struct score_config cfg = strategy(SCORE_BALANCED_ALLOCATION);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* f = cpu 4/8 = 0.5, memory 2/8 = 0.25: std = |0.5-0.25|/2 = 0.125;
	 * (1-0.125)*100 = 87.5 -> 87 -> 92/10 = 9. Parts report f*100. */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 9);
	assert_int_equal(b.score100, 87);
	assert_int_equal(part(&b, "cpu")->score100, 50);
	assert_int_equal(part(&b, "memory")->score100, 25);
	/* Three resources: plus one GPU of 2 -> f = 0.5. mean = 1.25/3;
	 * deviations 1/12, -1/6, 1/12; Σ² = 1/144 + 4/144 + 1/144 = 1/24;
	 * std = sqrt(1/72) = 0.11785; (1-0.11785)*100 = 88.2 -> 88 -> 9. */
	assert_int_equal(judged(&cfg, n,
				"{name: a, resources: " GX("2", "2Gi", "nvidia.com/gpu: 1") "}",
				true, &b), 9);
	assert_int_equal(b.score100, 88);
	assert_int_equal(b.nparts, 3);
	/* One resource (1500m CPU is shared, only memory is NUMA-bound):
	 * nothing to balance -> 100 -> 10. */
	assert_int_equal(judged(&cfg, n, "{name: a, resources: " G("1500m", "2Gi") "}", true, &b),
			 10);
	assert_int_equal(b.score100, 100);
	/* Weights are ignored (only 0 excludes): memory weight 50 changes
	 * nothing. */
	{
		struct score_weight w[] = { { MEMORY, 50 } };

		cfg.weights = w;
		cfg.nweights = 1;
		assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 9);
		assert_int_equal(b.score100, 87);
		/* memory excluded: cpu alone -> 100. */
		w[0].weight = 0;
		assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 10);
		assert_int_equal(b.nparts, 1);
	}
	inventory_node_free(n);
}

static void score_weights_change_the_result(void **state)
{
	struct score_weight w[] = { { CPU, 1 }, { MEMORY, 9 } };
	struct score_config cfg = { SCORE_LEAST_ALLOCATED, w, 2 };
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* cpu 50 weight 1, memory 75 weight 9: (50 + 675)/10 = 72 -> 77/10 = 7
	 * (6 with equal weights). */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 7);
	assert_int_equal(b.score100, 72);
	assert_int_equal(part(&b, "memory")->weight, 9);
	/* cpu 9, memory 1: (450 + 75)/10 = 52 -> 57/10 = 5. */
	w[0].weight = 9;
	w[1].weight = 1;
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 5);
	assert_int_equal(b.score100, 52);
	inventory_node_free(n);
}

static void score_weight_zero_excludes_resource(void **state)
{
	struct score_weight w[] = { { MEMORY, 0 } };
	struct score_config cfg = { SCORE_LEAST_ALLOCATED, w, 1 };
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* cpu alone: 50 -> 55/10 = 5; memory not listed. */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 5);
	assert_int_equal(b.score100, 50);
	assert_int_equal(b.nparts, 1);
	assert_string_equal(b.parts[0].resource, "cpu");
	assert_null(find_part(&b, "memory"));
	inventory_node_free(n);
}

static void score_all_weights_zero_is_neutral(void **state)
{
	struct score_weight w[] = { { CPU, 0 }, { MEMORY, 0 } };
	struct score_config cfg = { SCORE_MOST_ALLOCATED, w, 2 };
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 0);
	assert_int_equal(b.score100, 0);
	assert_int_equal(b.nparts, 0);
	assert_non_null(b.note);
	assert_string_equal(b.note, "all weights are 0");
	/* A resource the list does not name still counts with weight 1: a GPU
	 * (1 of 2 -> most 50) keeps the score alive. */
	assert_int_equal(judged(&cfg, n,
				"{name: a, resources: " GX("2", "2Gi", "nvidia.com/gpu: 1") "}",
				true, &b), 5);
	assert_int_equal(b.score100, 50);
	assert_null(b.note);
	inventory_node_free(n);
}

/* The DRA alignment's part, weighted like a resource. */
static int64_t judged_extra(const struct score_config *cfg, const struct inventory_node *node,
			    const char *containers, const struct score_extra *extra,
			    struct score_breakdown *out)
{
	struct pod p;
	struct verdict v;
	int64_t s;

	pod_of(&p, containers);
	judge_node(node, p.d, &v);
	assert_true(v.admit);
	s = score_node_extra(cfg, node, &v, extra, out);
	assert_int_equal(score_node_extra(cfg, node, &v, extra, NULL), s);
	verdict_cleanup(&v);
	pod_free(&p);
	return s;
}

static char DRA[] = "dra";

static void score_extra_part_weighs_like_a_resource(void **state)
{
	struct score_extra aligned = { "dra", 100 }, misaligned = { "dra", 0 };
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* cpu 50, memory 75, dra 100: (50 + 75 + 100)/3 = 75 -> 8. */
	assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &aligned, &b), 8);
	assert_int_equal(b.score100, 75);
	assert_int_equal(b.nparts, 3);
	assert_int_equal(part(&b, "dra")->score100, 100);
	assert_int_equal(part(&b, "dra")->weight, 1);
	/* dra 0: 125/3 = 41 -> 4 (6 without the part). */
	assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &misaligned, &b), 4);
	assert_int_equal(b.score100, 41);
	/* No extra: score_node's answer. */
	assert_int_equal(judged_extra(&cfg, n, POD_2CPU, NULL, &b), 6);
	assert_null(find_part(&b, "dra"));
	{
		struct score_weight w[] = { { DRA, 8 } };

		cfg.weights = w;
		cfg.nweights = 1;
		/* dra weight 8: (50 + 75 + 800)/10 = 92 -> 9, and 125/10 = 12 -> 1. */
		assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &aligned, &b), 9);
		assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &misaligned, &b), 1);
		/* Weight 0 leaves the part out. */
		w[0].weight = 0;
		assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &misaligned, &b), 6);
		assert_null(find_part(&b, "dra"));
	}
	/* BalancedAllocation: its node score 87 (weight 2: cpu and memory)
	 * with dra 0 at weight 1: 174/3 = 58 -> 6. */
	cfg = strategy(SCORE_BALANCED_ALLOCATION);
	assert_int_equal(judged_extra(&cfg, n, POD_2CPU, &misaligned, &b), 6);
	assert_int_equal(b.score100, 58);
	inventory_node_free(n);
}

static void score_fractional_cpu_has_no_cpu_part(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* 1500m: shared pool, not exclusive (scheduler-plugins would count
	 * 2). Only memory: 75 -> 80/10 = 8. */
	assert_int_equal(judged(&cfg, n, "{name: a, resources: " G("1500m", "2Gi") "}", true, &b), 8);
	assert_int_equal(b.nparts, 1);
	assert_null(find_part(&b, "cpu"));
	assert_int_equal(part(&b, "memory")->score100, 75);
	/* 2 CPUs are exclusive: a cpu part appears. */
	assert_int_equal(judged(&cfg, n, POD_2CPU, true, &b), 6);
	assert_int_equal(b.nparts, 2);
	assert_non_null(find_part(&b, "cpu"));
	assert_int_equal(part(&b, "cpu")->requested, 2);
	inventory_node_free(n);
}

static void score_ephemeral_storage_is_ignored(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct score_config lnn = strategy(SCORE_LEAST_NUMA_NODES);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;
	const char *pod = "{name: a, resources: " GX("2", "2Gi", "ephemeral-storage: 10Gi") "}";

	(void)state;
	/* The same 6 as without ephemeral-storage, which is no part. */
	assert_int_equal(judged(&cfg, n, pod, true, &b), 6);
	assert_int_equal(b.score100, 62);
	assert_int_equal(b.nparts, 2);
	assert_null(find_part(&b, "ephemeral-storage"));
	/* scheduler-plugins' LeastNUMANodes scores this pod 0 (no zone set
	 * lists ephemeral-storage); here one NUMA node -> 10. */
	assert_int_equal(judged(&lnn, n, pod, true, &b), 10);
	assert_null(find_part(&b, "ephemeral-storage"));
	/* Even a verdict that charged ephemeral-storage to NUMA 1 (the judge
	 * does not) keeps it out: no part, no second NUMA node. */
	{
		struct pod p;
		struct verdict v;
		int eph = inventory_find(n, "ephemeral-storage");

		assert_true(eph >= 0);
		pod_of(&p, pod);
		judge_node(n, p.d, &v);
		assert_true(v.admit);
		v.usage[(size_t)eph * (size_t)v.usage_numa + 1] = 10 * GI;
		assert_int_equal(score_node(&lnn, n, &v, &b), 10);
		assert_int_equal(b.numa_used, 1);
		assert_int_equal(score_node(&cfg, n, &v, &b), 6);
		assert_int_equal(b.nparts, 2);
		assert_null(find_part(&b, "ephemeral-storage"));
		verdict_cleanup(&v);
		pod_free(&p);
	}
	inventory_node_free(n);
}

/* Four NUMA nodes, one CPU-less GPU per node; 0-1 and 2-3 are close (11), the
 * other pairs far (21). gpu_avail1 empties NUMA 1's GPU. */
#define FOUR_ZONE(id, d0, d1, d2, d3, gpu)                                                 \
	"- name: node-" id "\n  type: Node\n"                                                 \
	"  costs: [{name: node-0, value: " d0 "}, {name: node-1, value: " d1 "},"             \
	" {name: node-2, value: " d2 "}, {name: node-3, value: " d3 "}]\n"                    \
	"  resources:\n"                                                                      \
	"  - {name: cpu, capacity: 4, allocatable: 4, available: 4}\n"                        \
	"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 8Gi}\n"              \
	"  - {name: nvidia.com/gpu, capacity: 1, allocatable: 1, available: " gpu "}\n"
#define FOUR(gpu_avail1)                                                                   \
	FOUR_ZONE("0", "10", "11", "21", "21", "1")                                           \
	FOUR_ZONE("1", "11", "10", "21", "21", gpu_avail1)                                    \
	FOUR_ZONE("2", "21", "21", "10", "11", "1")                                           \
	FOUR_ZONE("3", "21", "21", "11", "10", "1")

/* Burstable: only the devices are NUMA-bound. */
#define GPUS(k) "{name: a, resources: {requests: {cpu: 100m}, limits: {nvidia.com/gpu: " k "}}}"

static void score_least_numa_nodes_single(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_NUMA_NODES);
	struct inventory_node *n = node_of(RESTRICTED, FOUR("1"));
	struct score_breakdown b;

	(void)state;
	/* k = 1: 100 - 0 = 100 -> 10. */
	assert_int_equal(judged(&cfg, n, GPUS("1"), true, &b), 10);
	assert_int_equal(b.score100, 100);
	assert_int_equal(b.numa_used, 1);
	/* A Guaranteed pod on one NUMA node: parts repeat the node score and
	 * carry the amounts. */
	assert_int_equal(judged(&cfg, n, "{name: a, resources: " G("2", "1Gi") "}", true, &b), 10);
	assert_int_equal(b.nparts, 2);
	assert_int_equal(part(&b, "cpu")->score100, 100);
	assert_int_equal(part(&b, "cpu")->requested, 2);
	assert_int_equal(part(&b, "cpu")->allocatable, 4);
	assert_int_equal(part(&b, "memory")->score100, 100);
	inventory_node_free(n);
}

static void score_least_numa_nodes_two_close(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_NUMA_NODES);
	struct inventory_node *n = node_of(RESTRICTED, FOUR("1"));
	struct score_breakdown b;
	const struct score_part *gpu;

	(void)state;
	/* Two GPUs, one per NUMA node: {0,1}, the lowest 2-mask. step =
	 * 100/4 = 25; 100 - 25 = 75; distance sum 10+10+11+11 = 42 is the
	 * minimum over pairs: no penalty. 80/10 = 8. */
	assert_int_equal(judged(&cfg, n, GPUS("2"), true, &b), 8);
	assert_int_equal(b.score100, 75);
	assert_int_equal(b.numa_used, 2);
	gpu = part(&b, "nvidia.com/gpu");
	assert_int_equal(gpu->requested, 2);
	assert_int_equal(gpu->allocatable, 2);
	assert_int_equal(gpu->score100, 75);
	inventory_node_free(n);
}

static void score_least_numa_nodes_far_pair_scores_less(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_NUMA_NODES);
	struct inventory_node *close = node_of(RESTRICTED, FOUR("1"));
	struct inventory_node *far = node_of(RESTRICTED, FOUR("0"));
	struct score_breakdown b;
	int64_t single, near_pair, far_pair;

	(void)state;
	single = judged(&cfg, close, GPUS("1"), true, &b);
	near_pair = judged(&cfg, close, GPUS("2"), true, &b);
	/* NUMA 1 has no free GPU: {0,2}, distance 10+10+21+21 = 62 > 42, so
	 * 75 - 25/2 = 63 -> 68/10 = 6. */
	far_pair = judged(&cfg, far, GPUS("2"), true, &b);
	assert_int_equal(b.score100, 63);
	assert_int_equal(b.numa_used, 2);
	assert_int_equal(single, 10);
	assert_int_equal(near_pair, 8);
	assert_int_equal(far_pair, 6);
	assert_true(single > near_pair && near_pair > far_pair);
	inventory_node_free(close);
	inventory_node_free(far);
}

static void score_rejected_is_zero(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;

	(void)state;
	/* 7 CPUs fit no single NUMA node (6 free each). */
	assert_int_equal(judged(&cfg, n, "{name: a, resources: " G("7", "1Gi") "}", false, &b), 0);
	assert_int_equal(b.score100, 0);
	assert_int_equal(b.nparts, 0);
	assert_int_equal(b.numa_used, 0);
	assert_non_null(b.note);
	assert_string_equal(b.note, "rejected");
	inventory_node_free(n);
}

static void score_neutral_pod_scores_zero_with_note(void **state)
{
	static const enum score_strategy all[] = {
		SCORE_LEAST_ALLOCATED, SCORE_MOST_ALLOCATED,
		SCORE_BALANCED_ALLOCATION, SCORE_LEAST_NUMA_NODES,
	};
	struct inventory_node *n = node_of(SNN, TWO("6"));
	struct score_breakdown b;
	size_t i;

	(void)state;
	/* Burstable, no devices: nothing NUMA-bound, every node alike. */
	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		struct score_config cfg = strategy(all[i]);

		assert_int_equal(judged(&cfg, n,
					"{name: a, resources: {requests: {cpu: 2, memory: 1Gi}}}",
					true, &b), 0);
		assert_int_equal(b.score100, 0);
		assert_int_equal(b.numa_used, 0);
		assert_int_equal(b.nparts, 0);
		assert_non_null(b.note);
		assert_string_equal(b.note, "no NUMA-bound request");
	}
	inventory_node_free(n);
}

/* NUMA ids 0 and 3 (dense 0 and 1). node-0 has no free CPU. */
#define SPARSE                                                                            \
	"- name: node-0\n  type: Node\n"                                                  \
	"  costs: [{name: node-0, value: 10}, {name: node-3, value: 32}]\n"              \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 4, allocatable: 4, available: 0}\n"                    \
	"  - {name: memory, capacity: 4Gi, allocatable: 4Gi, available: 4Gi}\n"          \
	"- name: node-3\n  type: Node\n"                                                  \
	"  costs: [{name: node-0, value: 32}, {name: node-3, value: 10}]\n"              \
	"  resources:\n"                                                                  \
	"  - {name: cpu, capacity: 8, allocatable: 8, available: 8}\n"                    \
	"  - {name: memory, capacity: 8Gi, allocatable: 8Gi, available: 8Gi}\n"

static void score_sparse_numa_ids(void **state)
{
	struct score_config cfg = strategy(SCORE_LEAST_ALLOCATED);
	struct score_config lnn = strategy(SCORE_LEAST_NUMA_NODES);
	struct inventory_node *n = node_of(SNN, SPARSE);
	struct score_breakdown b;
	struct pod p;
	struct verdict v;

	(void)state;
	assert_int_equal(n->numa_count, 2);
	assert_int_equal(n->numa_ids[1], 3);
	/* The pod lands on NUMA id 3 = dense index 1. */
	pod_of(&p, POD_2CPU);
	judge_node(n, p.d, &v);
	assert_true(v.admit);
	assert_true(v.containers[0].has_affinity);
	assert_int_equal(v.containers[0].numa_ids, (bitmask_t)1 << 3);
	/* node-3 only: cpu 2 of 8 -> 75; memory 2Gi of 8Gi -> 75; 75 -> 8.
	 * Counting node-0 (used 4 of 12 CPUs) would give cpu 50. */
	assert_int_equal(score_node(&cfg, n, &v, &b), 8);
	assert_int_equal(b.score100, 75);
	assert_int_equal(part(&b, "cpu")->allocatable, 8);
	assert_int_equal(part(&b, "cpu")->used, 0);
	assert_int_equal(part(&b, "memory")->allocatable, 8 * GI);
	assert_int_equal(b.numa_used, 1);
	assert_int_equal(score_node(&lnn, n, &v, &b), 10);
	verdict_cleanup(&v);
	pod_free(&p);
	inventory_node_free(n);
}

/* `count` device types on one NUMA node: example.com/d00.. with 2 each, the
 * last with 1; a pod container taking one of each. */
static void many_devices(size_t count, char *zones, size_t zsize, char *pod, size_t psize)
{
	size_t zl, pl, i;

	zl = (size_t)snprintf(zones, zsize, "- name: node-0\n  type: Node\n  resources:\n");
	pl = (size_t)snprintf(pod, psize, "{name: a, resources: {requests: {cpu: 100m}, limits: {");
	for (i = 0; i < count; i++) {
		int last = i + 1 == count;

		zl += (size_t)snprintf(zones + zl, zsize - zl,
				       "  - {name: example.com/d%02zu, capacity: 2, allocatable: %d,"
				       " available: %d}\n", i, last ? 1 : 2, last ? 1 : 2);
		pl += (size_t)snprintf(pod + pl, psize - pl, "%sexample.com/d%02zu: 1", i ? ", " : "", i);
		assert_true(zl < zsize && pl < psize);
	}
	pl += (size_t)snprintf(pod + pl, psize - pl, "}}}");
	assert_true(pl < psize);
}

static void score_parts_capped_but_all_counted(void **state)
{
	char zones[16384], pod[4096];
	struct score_weight w[] = { { D16, 16 } };
	struct score_config cfg = { SCORE_MOST_ALLOCATED, w, 1 };
	struct inventory_node *n;
	struct score_breakdown b;

	(void)state;
	/* 17 device types on one NUMA node: d00..d15 with 2 each, d16 with 1.
	 * The pod takes one of each. */
	many_devices(17, zones, sizeof zones, pod, sizeof pod);
	n = node_of(SNN, zones);
	/* Most: d00..d15 -> 1/2 = 50 each, weight 1; d16 -> 1/1 = 100,
	 * weight 16. (16*50 + 16*100)/32 = 75 -> 8 (50 -> 5 were d16 left
	 * out). Only 16 parts are listed. */
	assert_int_equal(judged(&cfg, n, pod, true, &b), 8);
	assert_int_equal(b.score100, 75);
	assert_int_equal(b.nparts, SCORE_MAX_PARTS);
	assert_string_equal(b.parts[SCORE_MAX_PARTS - 1].resource, "example.com/d15");
	assert_null(find_part(&b, "example.com/d16"));
	inventory_node_free(n);
}

/* score.c reads the usage of the first 64 resources in one pass and of any
 * further one on its own: a resource past 64 counts as any other. */
static void score_resources_past_64_counted(void **state)
{
	static char d69[] = "example.com/d69";
	char zones[16384], pod[4096];
	struct score_weight w[] = { { d69, 70 } };
	struct score_config cfg = { SCORE_MOST_ALLOCATED, w, 1 };
	struct inventory_node *n;
	struct score_breakdown b;

	(void)state;
	/* 70 device types on one NUMA node: d00..d68 with 2 each, d69 with
	 * 1. The pod takes one of each. */
	many_devices(70, zones, sizeof zones, pod, sizeof pod);
	n = node_of(SNN, zones);
	assert_int_equal(n->nresources, 70);
	assert_string_equal(n->resources[69].name, d69);
	/* Most: d00..d68 -> 1/2 = 50 each, weight 1; d69 -> 1/1 = 100,
	 * weight 70. (69*50 + 70*100)/139 = 75 -> 8 (without d69: 50 -> 5). */
	assert_int_equal(judged(&cfg, n, pod, true, &b), 8);
	assert_int_equal(b.score100, 75);
	inventory_node_free(n);
}

static void score_huge_amounts_do_not_overflow(void **state)
{
	struct score_weight w[] = { { CPU, 0 } };
	struct score_config cfg = { SCORE_MOST_ALLOCATED, w, 1 };
	struct inventory_node *n = node_of(SNN,
		"- name: node-0\n  type: Node\n  resources:\n"
		"  - {name: cpu, capacity: 8, allocatable: 8, available: 8}\n"
		"  - {name: memory, capacity: 1Ei, allocatable: 1Ei, available: 512Pi}\n");
	struct score_breakdown b;
	const char *pod = "{name: a, resources: " G("2", "1Gi") "}";

	(void)state;
	/* memory only: after = 2^59 + 2^30 of 2^60, and after * 100 does not
	 * fit in int64. Most: 50 + 100 * 2^30 / 2^60 = 50.0000001 -> 50 -> 5
	 * (55/10). Least: 100 * (2^59 - 2^30) / 2^60 = 49.9999999 -> 49 -> 5. */
	assert_int_equal(judged(&cfg, n, pod, true, &b), 5);
	assert_int_equal(b.score100, 50);
	assert_int_equal(part(&b, "memory")->used, (int64_t)1 << 59);
	assert_int_equal(part(&b, "memory")->allocatable, (int64_t)1 << 60);
	cfg.strategy = SCORE_LEAST_ALLOCATED;
	assert_int_equal(judged(&cfg, n, pod, true, &b), 5);
	assert_int_equal(b.score100, 49);
	inventory_node_free(n);
}

static void score_strategy_names_round_trip(void **state)
{
	static const enum score_strategy all[] = {
		SCORE_LEAST_ALLOCATED, SCORE_MOST_ALLOCATED,
		SCORE_BALANCED_ALLOCATION, SCORE_LEAST_NUMA_NODES,
	};
	enum score_strategy s = SCORE_MOST_ALLOCATED;
	size_t i;

	(void)state;
	assert_string_equal(score_strategy_name(SCORE_LEAST_ALLOCATED), "LeastAllocated");
	assert_string_equal(score_strategy_name(SCORE_MOST_ALLOCATED), "MostAllocated");
	assert_string_equal(score_strategy_name(SCORE_BALANCED_ALLOCATION), "BalancedAllocation");
	assert_string_equal(score_strategy_name(SCORE_LEAST_NUMA_NODES), "LeastNUMANodes");
	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		assert_true(score_strategy_parse(score_strategy_name(all[i]), &s));
		assert_int_equal(s, all[i]);
	}
	/* Case-sensitive; unknown names leave out alone. */
	s = SCORE_MOST_ALLOCATED;
	assert_false(score_strategy_parse("leastallocated", &s));
	assert_false(score_strategy_parse("LeastNUMANode", &s));
	assert_false(score_strategy_parse("", &s));
	assert_int_equal(s, SCORE_MOST_ALLOCATED);
}

static void score_config_cleanup_frees_and_zeroes(void **state)
{
	struct score_config cfg;

	(void)state;
	cfg.strategy = SCORE_LEAST_NUMA_NODES;
	cfg.nweights = 2;
	cfg.weights = xcalloc(2, sizeof *cfg.weights);
	cfg.weights[0].name = xstrdup("cpu");
	cfg.weights[0].weight = 3;
	cfg.weights[1].name = xstrdup("memory");
	score_config_cleanup(&cfg);
	assert_null(cfg.weights);
	assert_int_equal(cfg.nweights, 0);
	assert_int_equal(cfg.strategy, 0);
	score_config_cleanup(&cfg); /* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(score_least_allocated),
		cmocka_unit_test(score_most_allocated),
		cmocka_unit_test(score_least_prefers_emptier_most_prefers_fuller),
		cmocka_unit_test(score_balanced_allocation),
		cmocka_unit_test(score_weights_change_the_result),
		cmocka_unit_test(score_weight_zero_excludes_resource),
		cmocka_unit_test(score_all_weights_zero_is_neutral),
		cmocka_unit_test(score_extra_part_weighs_like_a_resource),
		cmocka_unit_test(score_fractional_cpu_has_no_cpu_part),
		cmocka_unit_test(score_ephemeral_storage_is_ignored),
		cmocka_unit_test(score_least_numa_nodes_single),
		cmocka_unit_test(score_least_numa_nodes_two_close),
		cmocka_unit_test(score_least_numa_nodes_far_pair_scores_less),
		cmocka_unit_test(score_rejected_is_zero),
		cmocka_unit_test(score_neutral_pod_scores_zero_with_note),
		cmocka_unit_test(score_sparse_numa_ids),
		cmocka_unit_test(score_parts_capped_but_all_counted),
		cmocka_unit_test(score_resources_past_64_counted),
		cmocka_unit_test(score_huge_amounts_do_not_overflow),
		cmocka_unit_test(score_strategy_names_round_trip),
		cmocka_unit_test(score_config_cleanup_frees_and_zeroes),
	};

	return cmocka_run_group_tests_name("score", tests, NULL, NULL);
}
