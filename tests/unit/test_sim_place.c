/* SPDX-License-Identifier: Apache-2.0 */
/* simulate's cluster and placement loop (extender/cmd/sim_cluster.h,
 * sim_place.h) called in process:
 *  - the built-in scheduler configuration is what manifests/base ships;
 *  - the NRT-only rule: zone sums for memory, hugepages and devices, cpu
 *    unknown, memory unchecked where no zone lists it, 110 pods;
 *  - placements reuse what is known: after the first pod of a shape, a
 *    placement judges at most two nodes (the one the last pod took, and the
 *    one this pod takes, for its usage), and every placement equals the one
 *    made with an empty verdict cache and a fresh placer;
 *  - the landed node loses the pod's predicted usage and gains its requests. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "extender/cmd/sim_cluster.h"
#include "extender/cmd/sim_place.h"
#include "extender/cmd/sim_report.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/sched_config_decode.h"
#include "extender/codec/sched_pod_decode.h"
#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/decide/verdict_cache.h"
#include "scheduler/resources.h"
#include "topology/inventory.h"

static void inputs_from(const char *nrt_path, struct sim_inputs *in)
{
	struct nrt_object *objs = NULL;
	struct inventory_node **invs;
	struct errmsg msg;
	size_t n = 0, i;

	memset(in, 0, sizeof *in);
	assert_int_equal(nrt_load_path(nrt_path, &objs, &n, &msg), ERR_OK);
	invs = calloc(n + 1, sizeof *invs);
	assert_non_null(invs);
	for (i = 0; i < n; i++)
		assert_int_equal(inventory_node_new(&objs[i], &invs[i], &msg), ERR_OK);
	nrt_objects_free(objs, n);
	assert_int_equal(sim_inputs_set_snapshots(in, invs, n, &msg), ERR_OK);
	free(invs);
}

static void builtin_is_the_base_manifest(void **state)
{
	struct sched_config base;
	struct sim_setup s;
	struct errmsg msg;
	const struct sched_extender *a, *b;
	size_t p;

	(void)state;
	assert_int_equal(sim_setup_load(&s, NULL, NULL, SCHED_VERSION_DEFAULT, &msg), ERR_OK);
	assert_int_equal(sched_config_load("manifests/base/configmap-scheduler.yaml", &base, &msg), ERR_OK);
	assert_true(s.builtin);
	assert_true(s.has_numa);
	assert_int_equal(s.numa, 0);
	assert_int_equal(s.config.nextenders, base.nextenders);
	a = &s.config.extenders[0];
	b = &base.extenders[0];
	assert_int_equal(a->weight, b->weight);
	assert_int_equal(a->nmanaged, b->nmanaged);
	assert_int_equal(a->node_cache_capable, b->node_cache_capable);
	assert_int_equal(a->ignorable, b->ignorable);
	assert_string_equal(a->filter_verb, b->filter_verb);
	assert_string_equal(a->prioritize_verb, b->prioritize_verb);
	assert_string_equal(a->url_prefix, b->url_prefix);
	assert_int_equal(s.config.nprofiles, 1);
	assert_int_equal(base.nprofiles, 1);
	assert_int_equal(s.config.profiles[0].has_percentage, base.profiles[0].has_percentage);
	assert_int_equal(s.config.profiles[0].percentage, base.profiles[0].percentage);
	for (p = 0; p < SCHED_PLUGIN_COUNT; p++) {
		assert_int_equal(s.config.profiles[0].filter[p], base.profiles[0].filter[p]);
		assert_int_equal(s.config.profiles[0].score[p], base.profiles[0].score[p]);
		assert_int_equal(s.config.profiles[0].weight[p], base.profiles[0].weight[p]);
	}
	sched_config_cleanup(&base);
	sim_setup_cleanup(&s);
}

static void nrt_only_views(void **state)
{
	struct sim_inputs in;
	struct sim_cluster c;
	struct errmsg msg;
	size_t i, seen = 0;

	(void)state;
	inputs_from("config/examples", &in);
	assert_int_equal(sim_cluster_build(&in, SCHED_VERSION_DEFAULT, &c, &msg), ERR_OK);
	assert_true(c.nrt_only);
	assert_int_equal(c.n, 7);
	for (i = 0; i < c.n; i++) {
		const struct sched_node *v = &c.views[i];

		assert_false(v->cpu_known);
		assert_int_equal(v->allocatable.pods, SIM_NRT_ONLY_PODS);
		assert_int_equal(v->allocatable.milli_cpu, 0);
		if (strcmp(v->name, "worker-a17") == 0) {
			/* The sums of its two zones. */
			assert_int_equal(v->allocatable.memory, INT64_C(538190340096));
			assert_int_equal(sched_resources_get(&v->allocatable, "nvidia.com/gpu", NULL), 8);
			assert_int_equal(sched_resources_get(&v->allocatable, "hugepages-1Gi", NULL),
					 INT64_C(34359738368));
			seen++;
		} else if (strcmp(v->name, "worker-hpc8") == 0) {
			/* Its memory manager is off: no zone lists memory. */
			assert_int_equal(v->allocatable.memory, INT64_MAX);
			seen++;
		} else if (strcmp(v->name, "worker-fat16") == 0) {
			bool present = true;

			assert_int_equal(sched_resources_get(&v->allocatable, "nvidia.com/gpu", &present), 0);
			assert_false(present);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	sim_cluster_cleanup(&c);
	sim_inputs_cleanup(&in);
}

struct sim {
	struct sim_inputs in;
	struct sim_run run;
	struct config cfg;
	struct settings *settings;
	struct sched_pod *pods;
	size_t npods;
};

static void sim_start(struct sim *s)
{
	struct errmsg msg;

	memset(s, 0, sizeof *s);
	inputs_from("tests/data/simulate/nrt", &s->in);
	assert_int_equal(sim_setup_load(&s->run.setup, NULL, NULL, SCHED_VERSION_DEFAULT, &msg), ERR_OK);
	assert_int_equal(sim_cluster_build(&s->in, SCHED_VERSION_DEFAULT, &s->run.cluster, &msg), ERR_OK);
	config_init(&s->cfg);
	s->settings = settings_new(&s->cfg);
	assert_int_equal(sched_pods_load("tests/data/simulate/burst-40.yaml", &s->pods, &s->npods, &msg),
			 ERR_OK);
	assert_int_equal(s->npods, 40);
}

static void sim_stop(struct sim *s)
{
	sim_run_cleanup(&s->run);
	sim_inputs_cleanup(&s->in);
	settings_unref(s->settings);
	config_cleanup(&s->cfg);
	sched_pods_free(s->pods, s->npods);
}

static void placements_judge_only_what_changed(void **state)
{
	struct sim a, b;
	struct sim_placement *ref;
	struct sim_placer *p = NULL;
	struct sim_stats s0, s1;
	size_t i;

	(void)state;
	sim_start(&a);
	sim_start(&b);
	/* The reference: each pod placed from nothing remembered (an empty
	 * verdict cache, which also forgets the demand ids, and a new
	 * placer). */
	ref = calloc(b.npods, sizeof *ref);
	assert_non_null(ref);
	for (i = 0; i < b.npods; i++) {
		struct sim_placer *fresh;

		verdict_cache_clear();
		fresh = sim_placer_new(&b.run.cluster, &b.run.setup, b.settings);
		sim_place_one(fresh, &b.pods[i], &ref[i]);
		sim_placer_free(fresh);
	}
	verdict_cache_clear();
	p = sim_placer_new(&a.run.cluster, &a.run.setup, a.settings);
	for (i = 0; i < a.npods; i++) {
		struct sim_placement x;

		sim_placer_stats(p, &s0);
		sim_place_one(p, &a.pods[i], &x);
		sim_placer_stats(p, &s1);
		if (i == 0)
			/* The shape's first sight: every node judged, and the
			 * node it lands on once more for its usage. */
			assert_int_equal(s1.judged - s0.judged, 4 + 1);
		else if (s1.judged - s0.judged > 2)
			fail_msg("pod %zu: %llu nodes judged, at most 2 expected", i,
				 (unsigned long long)(s1.judged - s0.judged));
		assert_int_equal(x.node, ref[i].node);
		assert_int_equal(x.numa_ids, ref[i].numa_ids);
		assert_int_equal(x.ext_score, ref[i].ext_score);
		assert_int_equal(x.score.total, ref[i].score.total);
		assert_int_equal(x.ntied, ref[i].ntied);
		if (x.node == SIM_UNPLACED)
			assert_string_equal(x.reason, ref[i].reason);
		sim_placement_cleanup(&x);
		sim_placement_cleanup(&ref[i]);
	}
	assert_int_equal(a.npods, 40);
	sim_placer_stats(p, &s1);
	/* 4 nodes for the first pod, then at most 2 a pod. */
	assert_true(s1.judged <= 5 + 2 * 39);
	free(ref);
	sim_placer_free(p);
	sim_stop(&a);
	sim_stop(&b);
}

static void landed_node_loses_usage_and_gains_requests(void **state)
{
	struct sim s;
	struct sim_placer *p;
	struct sim_placement pl;
	const struct store_node *before;
	struct sim_free f0, f1;
	int64_t gpu0;
	size_t k;

	(void)state;
	sim_start(&s);
	p = sim_placer_new(&s.run.cluster, &s.run.setup, s.settings);
	sim_place_one(p, &s.pods[0], &pl);
	assert_int_not_equal(pl.node, SIM_UNPLACED);
	k = pl.node;
	/* The first pod saw four equal, empty nodes: all tied, the first by
	 * name taken. */
	assert_int_equal(pl.ntied, 4);
	assert_string_equal(s.run.cluster.views[k].name, "gpu-node-0");
	before = s.run.cluster.numa[k].first;
	assert_ptr_not_equal(s.run.cluster.numa[k].now, before);
	assert_int_not_equal(s.run.cluster.numa[k].now->id, before->id);
	sim_free_of(before->inventory, "nvidia.com/gpu", &f0);
	sim_free_of(s.run.cluster.numa[k].now->inventory, "nvidia.com/gpu", &f1);
	assert_int_equal(f1.free, f0.free - 1);
	gpu0 = sched_resources_get(&s.run.cluster.views[k].requested, "nvidia.com/gpu", NULL);
	assert_int_equal(gpu0, 1);
	assert_int_equal(s.run.cluster.views[k].requested.milli_cpu, 4000);
	assert_int_equal(s.run.cluster.views[k].npods, 1);
	sim_placement_cleanup(&pl);
	sim_placer_free(p);
	sim_stop(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_is_the_base_manifest),
		cmocka_unit_test(nrt_only_views),
		cmocka_unit_test(placements_judge_only_what_changed),
		cmocka_unit_test(landed_node_loses_usage_and_gains_requests),
	};

	return cmocka_run_group_tests_name("sim_place", tests, NULL, NULL);
}
