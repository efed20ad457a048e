/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of simulate's placement loop (not a test; exits 0 whatever the
 * numbers, 1 when the setup fails or a placement is wrong).
 *
 * The cluster is bench_server's (5000 8-NUMA inventories from
 * tests/support/bench_cluster.c, same seed), each node also given a Node
 * view: allocatable as the NRT-only rule makes it plus a known cpu (the
 * zones' sum) and the label nvidia.com/gpu.present=true where a zone lists a
 * GPU, so that the bench pod's required node affinity and every in-tree
 * filter and score have something to do. The scheduler configuration is the
 * built-in one (percentageOfNodesToScore 100: every node filtered and
 * scored, the most work a cycle can do).
 *
 * Part 1, in one run: the same pod (bench_pod_json: cpu 8 + 32Gi + one GPU +
 * one DSA queue, and a sidecar) placed again and again on the cluster, each
 * placement one kube-scheduler cycle over 5000 nodes with numa-extender's
 * filter and prioritize from decide() (one cold placement first, untimed);
 * against one warm 5000-name filter of the same pod through HTTP to the real
 * server in this process (server_start on 127.0.0.1:0 over the same
 * cluster, one keep-alive libcurl connection; one untimed filter first).
 * The two alternate, sample by sample. Target: median placement / median
 * filter <= 1. Each placement must judge at most two nodes (the one the
 * previous pod took, judged for this pod, and the one this pod takes,
 * judged for its usage): only the node a pod lands on changes.
 *
 * Part 2: 10,000 pods of four shapes, in turn, on a fresh 5000-node
 * cluster: the whole run's wall time and placements per second.
 *
 * --quick: 200 nodes and small counts (sanitizers, valgrind).
 * --profile-place N: part 1's placements alone (no server), N of them;
 * --profile-run N: part 2 alone with N pods. For a sampling profile:
 *   perf record -g ./build/bench/bench_simulate --profile-place 2000 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/cmd/sim_cluster.h"
#include "extender/cmd/sim_place.h"
#include "extender/codec/sched_pod_decode.h"
#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/http/handlers.h"
#include "extender/http/heap.h"
#include "extender/http/server.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "tests/support/bench_cluster.h"

struct run_cfg {
	size_t nodes;
	size_t samples;   /* part 1: placements and filters, alternating */
	size_t pods;      /* part 2 */
};

static struct run_cfg cfg = { 5000, 300, 10000 };

/* The cluster of bench_cluster.c as simulate's inputs: NRTs and Node views. */
static void inputs_build(struct sim_inputs *in, size_t nodes)
{
	struct inventory_node **invs = xcalloc(nodes + 1, sizeof *invs);
	struct errmsg msg;
	size_t i;

	memset(in, 0, sizeof *in);
	bench_rnd_seed(BENCH_SEED);
	for (i = 0; i < nodes; i++)
		invs[i] = bench_node_build(i);
	if (sim_inputs_set_snapshots(in, invs, nodes, &msg) != ERR_OK)
		bench_die("snapshots: %s", msg.text);
	free(invs);
	in->has_nodes = true;
	in->nodes = xcalloc(nodes + 1, sizeof *in->nodes);
	in->nnodes = nodes;
	for (i = 0; i < nodes; i++) {
		const struct inventory_node *inv = in->snaps[i]->inventory;
		struct sched_node *v = &in->nodes[i];
		int cpu = inventory_find(inv, "cpu");

		sim_view_from_inventory(inv, v);
		v->cpu_known = true;
		v->allocatable.milli_cpu = cpu >= 0 ? inv->resources[cpu].total_allocatable * 1000 : 0;
		if (inventory_find(inv, "nvidia.com/gpu") >= 0) {
			v->labels = xcalloc(1, sizeof *v->labels);
			v->labels[0].key = xstrdup("nvidia.com/gpu.present");
			v->labels[0].value = xstrdup("true");
			v->nlabels = 1;
		}
	}
}

static void pod_of(const char *json, size_t len, struct sched_pod **pods, size_t *n)
{
	struct errmsg msg;

	if (sched_pods_decode(json, len, "bench pod", pods, n, &msg) != ERR_OK || *n != 1 ||
	    (*pods)[0].invalid != NULL)
		bench_die("bench pod: %s", *n == 1 && (*pods)[0].invalid ? (*pods)[0].invalid : msg.text);
}

/* The bench pod with its server container's memory changed to mem: another
 * shape (another demand). */
static void pod_variant(const char *mem, struct bench_buf *out)
{
	const char *at = strstr(bench_pod_json, "\"memory\":\"32Gi\"");
	size_t head;

	if (at == NULL)
		bench_die("bench pod: no server memory");
	out->len = 0;
	/* Both the limit and the request say 32Gi: replace both. */
	head = (size_t)(at - bench_pod_json);
	bench_buf_put(out, bench_pod_json, head);
	bench_buf_str(out, "\"memory\":\"");
	bench_buf_str(out, mem);
	bench_buf_str(out, "\"");
	at += strlen("\"memory\":\"32Gi\"");
	{
		const char *again = strstr(at, "\"memory\":\"32Gi\"");

		if (again == NULL)
			bench_die("bench pod: no server memory request");
		bench_buf_put(out, at, (size_t)(again - at));
		bench_buf_str(out, "\"memory\":\"");
		bench_buf_str(out, mem);
		bench_buf_str(out, "\"");
		bench_buf_str(out, again + strlen("\"memory\":\"32Gi\""));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double median_us(uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof *ns, cmp_u64);
	return n ? (double)ns[n / 2] / 1e3 : 0.0;
}

static double mean_us(const uint64_t *ns, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (double)ns[i];
	return n ? s / (double)n / 1e3 : 0.0;
}

struct server_env {
	struct config config;
	struct store *store;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct server *server;
	struct bench_client client;
	struct bench_buf body;
};

static void server_up(struct server_env *e, size_t nodes)
{
	size_t *ids = bench_candidates(nodes, nodes, true);
	struct errmsg msg;

	memset(e, 0, sizeof *e);
	config_init(&e->config);
	free(e->config.listen);
	e->config.listen = xstrdup("127.0.0.1:0");
	e->store = store_new();
	bench_rnd_seed(BENCH_SEED);
	bench_cluster_publish(e->store, nodes);
	settings_holder_init(&e->holder, settings_new(&e->config));
	e->ctx.store = e->store;
	e->ctx.settings = &e->holder;
	if (server_start(&e->config, &e->ctx, &e->server, &msg) != ERR_OK)
		bench_die("server_start: %s", msg.text);
	bench_client_init(&e->client, server_port(e->server));
	bench_args_body(bench_pod_json, bench_pod_len, ids, nodes, &e->body);
	free(ids);
}

static void server_down(struct server_env *e)
{
	bench_client_cleanup(&e->client);
	server_drain_and_stop(e->server, 1000);
	settings_holder_cleanup(&e->holder);
	store_free(e->store);
	config_cleanup(&e->config);
	free(e->body.p);
}

/* A run of the built-in configuration on a fresh cluster from in, the bench
 * pod decoded, and a placer. */
static struct sim_placer *run_start(const struct sim_inputs *in, const struct settings *settings,
				    struct sim_run *run, struct sched_pod **pods, size_t *npods)
{
	struct errmsg msg;

	memset(run, 0, sizeof *run);
	if (sim_setup_load(&run->setup, NULL, NULL, SCHED_VERSION_DEFAULT, &msg) != ERR_OK ||
	    sim_cluster_build(in, SCHED_VERSION_DEFAULT, &run->cluster, &msg) != ERR_OK)
		bench_die("setup: %s", msg.text);
	pod_of(bench_pod_json, bench_pod_len, pods, npods);
	return sim_placer_new(&run->cluster, &run->setup, settings);
}

static void placement_check(const struct sim_placement *pl, const struct sim_stats *before,
			    const struct sim_stats *after, size_t k)
{
	if (after->judged - before->judged > 2)
		bench_die("placement %zu judged %llu nodes; at most 2 expected", k,
			  (unsigned long long)(after->judged - before->judged));
	(void)pl;
}

/* Part 1: one placement against one warm filter, alternating. */
static double part1(const struct sim_inputs *in, const struct settings *settings)
{
	struct sim_run run;
	struct sim_placer *placer;
	struct sched_pod *pods = NULL;
	struct server_env e;
	struct sim_placement pl;
	struct sim_stats s0, s1;
	uint64_t *sim_ns = xcalloc(cfg.samples + 1, sizeof *sim_ns);
	uint64_t *http_ns = xcalloc(cfg.samples + 1, sizeof *http_ns);
	size_t npods = 0, i, placed = 0;
	double sim_med, http_med, sim_mean, ratio;

	placer = run_start(in, settings, &run, &pods, &npods);
	server_up(&e, cfg.nodes);
	/* Untimed: the demand's first sight on each side. */
	sim_place_one(placer, &pods[0], &pl);
	sim_placement_cleanup(&pl);
	bench_client_post(&e.client, true, e.body.p, e.body.len);
	for (i = 0; i < cfg.samples; i++) {
		uint64_t t0;

		sim_placer_stats(placer, &s0);
		t0 = bench_now_ns();
		sim_place_one(placer, &pods[0], &pl);
		sim_ns[i] = bench_now_ns() - t0;
		sim_placer_stats(placer, &s1);
		placement_check(&pl, &s0, &s1, i);
		placed += pl.node != SIM_UNPLACED;
		sim_placement_cleanup(&pl);
		http_ns[i] = bench_client_post(&e.client, true, e.body.p, e.body.len);
	}
	if (placed == 0)
		bench_die("no placement succeeded");
	sim_mean = mean_us(sim_ns, cfg.samples);
	sim_med = median_us(sim_ns, cfg.samples);
	http_med = median_us(http_ns, cfg.samples);
	ratio = http_med > 0 ? sim_med / http_med : 0;
	printf("part 1: %zu nodes, %zu samples, alternating (%zu of the pods placed)\n", cfg.nodes,
	       cfg.samples, placed);
	printf("  one placed pod (kube-scheduler cycle + numa-extender)   median %8.1f us  mean %8.1f us\n",
	       sim_med, sim_mean);
	printf("  one warm %zu-name filter through HTTP                  median %8.1f us\n", cfg.nodes,
	       http_med);
	printf("  placement / filter: %.2f (target <= 1)%s\n", ratio, ratio <= 1.0 ? "" : "  MISSED");
	server_down(&e);
	sim_placer_free(placer);
	sim_run_cleanup(&run);
	sched_pods_free(pods, npods);
	free(sim_ns);
	free(http_ns);
	return ratio;
}

/* N placements of the bench pod, untimed but for the mean: a profile's
 * subject. */
static void place_only(const struct sim_inputs *in, const struct settings *settings, size_t n)
{
	struct sched_pod *pods = NULL;
	struct sim_placement pl;
	struct sim_placer *placer;
	struct sim_run run;
	size_t npods = 0, i;
	uint64_t t0;

	placer = run_start(in, settings, &run, &pods, &npods);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		sim_place_one(placer, &pods[0], &pl);
		sim_placement_cleanup(&pl);
	}
	printf("profile-place: %zu placements on %zu nodes, mean %.1f us\n", n, cfg.nodes,
	       (double)(bench_now_ns() - t0) / 1e3 / (double)n);
	sim_placer_free(placer);
	sim_run_cleanup(&run);
	sched_pods_free(pods, npods);
}

/* Part 2: cfg.pods pods of four shapes in turn on a fresh cluster. */
static void part2(const struct sim_inputs *in, const struct settings *settings)
{
	static const char *const mems[4] = { "32Gi", "16Gi", "48Gi", "8Gi" };
	struct sched_pod *shapes[4], *pods = xcalloc(cfg.pods + 1, sizeof *pods);
	size_t nshape[4], i;
	struct bench_buf b = { NULL, 0, 0 };
	struct sim_placer *placer;
	struct sim_run run;
	struct errmsg msg;
	uint64_t t0, ns, ns_by[2] = { 0, 0 };

	for (i = 0; i < 4; i++) {
		pod_variant(mems[i], &b);
		pod_of(b.p, b.len, &shapes[i], &nshape[i]);
	}
	/* Shallow copies: the shapes own the contents. */
	for (i = 0; i < cfg.pods; i++)
		pods[i] = shapes[i % 4][0];
	memset(&run, 0, sizeof run);
	if (sim_setup_load(&run.setup, NULL, NULL, SCHED_VERSION_DEFAULT, &msg) != ERR_OK ||
	    sim_cluster_build(in, SCHED_VERSION_DEFAULT, &run.cluster, &msg) != ERR_OK)
		bench_die("setup: %s", msg.text);
	/* sim_run_all's loop, with each pod timed by its outcome. */
	placer = sim_placer_new(&run.cluster, &run.setup, settings);
	run.placed = xcalloc(cfg.pods + 1, sizeof *run.placed);
	run.npods = cfg.pods;
	t0 = bench_now_ns();
	for (i = 0; i < cfg.pods; i++) {
		uint64_t t = bench_now_ns();
		bool placed;

		sim_place_one(placer, &pods[i], &run.placed[i]);
		placed = run.placed[i].node != SIM_UNPLACED;
		run.nplaced += placed;
		ns_by[placed] += bench_now_ns() - t;
	}
	ns = bench_now_ns() - t0;
	sim_placer_stats(placer, &run.stats);
	sim_placer_free(placer);
	printf("part 2: %zu pods of 4 shapes in turn on %zu nodes: %.2f s (%.0f pods/s); %zu placed, "
	       "%.2f ms each; %zu unschedulable, %.2f ms each;\n"
	       "  %llu nodes judged of %llu decide() calls (%.2f judged per pod)\n",
	       cfg.pods, cfg.nodes, (double)ns / 1e9, (double)cfg.pods / ((double)ns / 1e9), run.nplaced,
	       run.nplaced ? (double)ns_by[1] / 1e6 / (double)run.nplaced : 0.0, cfg.pods - run.nplaced,
	       cfg.pods > run.nplaced ? (double)ns_by[0] / 1e6 / (double)(cfg.pods - run.nplaced) : 0.0,
	       (unsigned long long)run.stats.judged, (unsigned long long)run.stats.decided,
	       (double)run.stats.judged / (double)cfg.pods);
	sim_run_cleanup(&run);
	free(pods);
	for (i = 0; i < 4; i++)
		sched_pods_free(shapes[i], nshape[i]);
	free(b.p);
}

int main(int argc, char **argv)
{
	struct sim_inputs in;
	struct config config;
	struct settings *settings;
	int i;

	bool only_part2 = false;
	size_t profile_place = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			cfg.nodes = 200;
			cfg.samples = 20;
			cfg.pods = 300;
		} else if (strcmp(argv[i], "--profile-run") == 0 && i + 1 < argc) {
			cfg.pods = (size_t)strtoul(argv[++i], NULL, 10);
			only_part2 = true;
		} else if (strcmp(argv[i], "--profile-place") == 0 && i + 1 < argc) {
			profile_place = (size_t)strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: bench_simulate [--quick | --profile-place N | --profile-run N]\n");
			return 2;
		}
	}
	bench_init("bench_simulate");
	heap_keep_for_requests(); /* as simulate_main (and server_start) set it */
	log_set_level(LOG_LEVEL_WARN);
	bench_print_header(argv[0]);
	inputs_build(&in, cfg.nodes);
	config_init(&config);
	settings = settings_new(&config);
	if (profile_place > 0)
		place_only(&in, settings, profile_place);
	else if (!only_part2)
		part1(&in, settings);
	if (profile_place == 0)
		part2(&in, settings);
	settings_unref(settings);
	config_cleanup(&config);
	sim_inputs_cleanup(&in);
	return 0;
}
