/* SPDX-License-Identifier: Apache-2.0 */
/* What a DRA claim costs filter: handle_filter (in process, no HTTP) over
 * the 5,000 nodes of tests/support/bench_cluster.c, for the cluster's pod
 * as it is and for the same pod with one GPU claim (a ResourceClaim by
 * name, one device of a DeviceClass whose selector is CEL), with
 * DRA verdicts on. Each node publishes one ResourceSlice of four
 * GPUs, one per NUMA node 0..3 (resource.kubernetes.io/numaNode); a
 * quarter of the nodes have their NUMA-0 GPU allocated to another claim.
 *
 * Measured, interleaved (one run of each in turn, so that the machine's
 * drift falls on both):
 *   cold: the verdict cache cleared before each request (every node
 *         judged: the kubelet's simulation, and with the claim the
 *         allocator's prediction and the alignment);
 *   warm: the same request again (answered from the verdict cache).
 * Target: cold with the claim within 1.5x cold without it; warm with the
 * claim answered from the cache (one hit per node, checked).
 * Every reply is checked: 200, and the two pods' replies name the nodes
 * the claim makes fail (misaligned) as failed and no other.
 *
 * Both under dra.alignment: prefer (the default: the allocator's
 * prediction and the alignment) and require (with the reason text of
 * each misaligned node and whether any matching device is near the CPUs
 * on the emptied node).
 *
 * Modes: (none) 5,000 nodes, 15 rounds; --quick 200 nodes, 3 rounds (for
 * valgrind); --profile plain|claim [prefer|require [ROUNDS]]: three (or
 * ROUNDS) cold filters of one of the pods over the 5,000 nodes under
 * prefer, then under require (or only the one named), and nothing else
 * (the ratio in instructions, which a busy machine does not blur):
 *   valgrind --tool=callgrind --toggle-collect=handle_filter ./bench_dra_filter --profile claim Exits 1 only when a reply is wrong; a missed target is
 * printed.
 *   valgrind --tool=callgrind --toggle-collect=handle_filter ./bench_dra_filter --quick */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/dra_decode.h"
#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/decide/verdict_cache.h"
#include "extender/http/handlers.h"
#include "extender/inventory/dra_store.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "tests/support/bench_cluster.h"

/* The one-GPU claim and its class (CEL on the driver and a typed
 * attribute, as vendors' classes select). */
static const char dra_objects_text[] =
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"List\",\"items\":["
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu\","
	"\"resourceVersion\":\"1\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":"
	"\"device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'\"}}]}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"bench-gpu\","
	"\"namespace\":\"ml-serving\",\"resourceVersion\":\"2\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":"
	"\"gpu\",\"exactly\":{\"deviceClassName\":\"gpu\",\"allocationMode\":\"ExactCount\",\"count\":1}}]}}}"
	"]}";

static void slice_text(struct bench_buf *b, const char *node)
{
	char line[512];
	int g;

	b->len = 0;
	snprintf(line, sizeof line,
		 "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":"
		 "\"%s-gpu\",\"resourceVersion\":\"3\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":"
		 "\"%s\",\"pool\":{\"name\":\"%s\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":[",
		 node, node, node);
	bench_buf_str(b, line);
	for (g = 0; g < 4; g++) {
		snprintf(line, sizeof line,
			 "%s{\"name\":\"gpu-%d\",\"attributes\":{\"type\":{\"string\":\"gpu\"},"
			 "\"resource.kubernetes.io/numaNode\":{\"int\":%d}}}",
			 g ? "," : "", g, g);
		bench_buf_str(b, line);
	}
	bench_buf_str(b, "]}}");
}

/* A claim that holds gpu-0 of node. */
static void taken_text(struct bench_buf *b, const char *node, size_t i)
{
	char line[768];

	b->len = 0;
	snprintf(line, sizeof line,
		 "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":"
		 "\"other-%zu\",\"namespace\":\"ml-serving\",\"resourceVersion\":\"4\"},\"spec\":{\"devices\":"
		 "{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":"
		 "{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\",\"driver\":\"gpu.example.com\","
		 "\"pool\":\"%s\",\"device\":\"gpu-0\"}]}}}}",
		 i, node);
	bench_buf_str(b, line);
}

static void put_objects(struct dra_batch *batch, const char *text, size_t len)
{
	struct dra_objects o;
	struct errmsg msg;

	memset(&o, 0, sizeof o);
	if (dra_objects_decode(text, len, "bench", &o, &msg) != ERR_OK || o.nbad)
		bench_die("DRA objects: %s", o.nbad ? o.bad[0].message : msg.text);
	dra_batch_put_objects(batch, &o, "1", "bench");
	dra_objects_cleanup(&o);
}

static void publish_dra(struct dra_store *dra, size_t nodes)
{
	struct dra_batch *batch = dra_batch_new();
	struct bench_buf b = { NULL, 0, 0 };
	char node[32];
	size_t i;

	put_objects(batch, dra_objects_text, sizeof dra_objects_text - 1);
	for (i = 0; i < nodes; i++) {
		bench_node_name(i, node, sizeof node);
		slice_text(&b, node);
		put_objects(batch, b.p, b.len);
		if (i % 4 == 0) {
			taken_text(&b, node, i);
			put_objects(batch, b.p, b.len);
		}
	}
	dra_store_publish(dra, batch);
	dra_store_set_ready(dra, true);
	free(b.p);
}

/* The cluster's pod with spec.resourceClaims and the server container's
 * resources.claims. */
static char *pod_with_claim(void)
{
	static const char spec[] = "\"spec\":{", res[] = "\"resources\":{";
	static const char claims[] = "\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"bench-gpu\"}],";
	static const char refs[] = "\"claims\":[{\"name\":\"gpu\"}],";
	const char *s = strstr(bench_pod_json, spec), *r = strstr(bench_pod_json, res);
	struct bench_buf b = { NULL, 0, 0 };

	if (s == NULL || r == NULL || r < s)
		bench_die("the cluster's pod has no spec or resources");
	s += sizeof spec - 1;
	r += sizeof res - 1;
	bench_buf_put(&b, bench_pod_json, (size_t)(s - bench_pod_json));
	bench_buf_str(&b, claims);
	bench_buf_put(&b, s, (size_t)(r - s));
	bench_buf_str(&b, refs);
	bench_buf_str(&b, r);
	return b.p;
}

/* Nodes in FailedNodes of a filter reply (counting "worker-" keys after
 * the FailedNodes key). */
static size_t failed_count(const char *reply)
{
	const char *p = strstr(reply, "\"FailedNodes\"");
	const char *end;
	size_t n = 0;

	if (p == NULL)
		return 0;
	end = strchr(p, '}');
	for (p = strstr(p, "\"worker-"); p && (end == NULL || p < end); p = strstr(p + 1, "\"worker-"))
		n++;
	return n;
}

static uint64_t filter_once(const struct handler_ctx *ctx, const struct bench_buf *body, bool cold,
			    size_t *failed, uint64_t *hits)
{
	struct verdict_cache_stats before, after;
	struct reply out;
	uint64_t t0, t;

	memset(&out, 0, sizeof out);
	if (cold)
		verdict_cache_clear();
	verdict_cache_stats(&before);
	t0 = bench_now_ns();
	handle_filter(ctx, body->p, body->len, &out);
	t = bench_now_ns() - t0;
	verdict_cache_stats(&after);
	if (out.status != 200 || out.body == NULL || strstr(out.body, "\"Error\":\"\"") == NULL)
		bench_die("filter: status %d: %.200s", out.status, out.body ? out.body : "");
	*failed = failed_count(out.body);
	*hits = after.hits - before.hits;
	free(out.body);
	return t;
}

static double median_ms(uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof *ns, bench_cmp_u64);
	return (double)ns[n / 2] / 1e6;
}

/* Both pods, interleaved, under one dra.alignment; returns the cold
 * ratio (with the claim / without). */
static double run(struct store *store, struct dra_store *dra, enum config_dra_alignment alignment,
		  const char *name, size_t nodes, size_t rounds, const struct bench_buf *plain,
		  const struct bench_buf *claimed)
{
	struct config config;
	struct settings_holder holder;
	struct handler_ctx ctx;
	size_t failed_plain = 0, failed_claim = 0, f, r;
	uint64_t *t[4], hits;
	double ratio;

	config_init(&config);
	config.dra_alignment = alignment;
	settings_holder_init(&holder, settings_new(&config));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	ctx.dra = dra;
	for (r = 0; r < 4; r++)
		t[r] = xcalloc(rounds, sizeof *t[r]);
	for (r = 0; r < rounds; r++) {
		/* Each cold run clears the cache: its warm run comes next. */
		t[0][r] = filter_once(&ctx, plain, true, &failed_plain, &hits);
		t[2][r] = filter_once(&ctx, plain, false, &f, &hits);
		if (f != failed_plain || hits != nodes)
			bench_die("%s: warm filter without the claim: %zu failed (%zu cold), %llu hits", name, f,
				  failed_plain, (unsigned long long)hits);
		t[1][r] = filter_once(&ctx, claimed, true, &failed_claim, &hits);
		t[3][r] = filter_once(&ctx, claimed, false, &f, &hits);
		if (f != failed_claim || hits != nodes)
			bench_die("%s: warm filter with the claim: %zu failed (%zu cold), %llu hits of %zu", name, f,
				  failed_claim, (unsigned long long)hits, nodes);
	}
	/* Under require the claim can only take nodes away (GPUs on NUMA 1..3
	 * are far from CPUs that fit NUMA 0, and the NUMA-0 GPU is taken on a
	 * quarter of the nodes); prefer never rejects. */
	if (alignment == CONFIG_DRA_REQUIRE ? failed_claim <= failed_plain : failed_claim != failed_plain)
		bench_die("%s: %zu nodes failed with the claim, %zu without", name, failed_claim, failed_plain);
	{
		double cold_plain = median_ms(t[0], rounds), cold_claim = median_ms(t[1], rounds);
		double warm_plain = median_ms(t[2], rounds), warm_claim = median_ms(t[3], rounds);

		printf("%-8s failed: %zu without the claim, %zu with it\n", name, failed_plain, failed_claim);
		printf("         filter, median ms  cold: %.2f without the claim, %.2f with it\n", cold_plain,
		       cold_claim);
		printf("                            warm: %.2f without the claim, %.2f with it (every node a cache hit)\n",
		       warm_plain, warm_claim);
		ratio = cold_plain > 0 ? cold_claim / cold_plain : 0;
	}
	for (r = 0; r < 4; r++)
		free(t[r]);
	settings_holder_cleanup(&holder);
	config_cleanup(&config);
	return ratio;
}

/* --profile: only cold filters of one pod, for callgrind's counts. */
static void profile(struct store *store, struct dra_store *dra, const struct bench_buf *body,
		    size_t rounds, const char *alignment)
{
	struct config config;
	struct settings_holder holder;
	struct handler_ctx ctx;
	size_t r, failed;
	uint64_t hits;
	int a;

	for (a = 0; a < 2; a++) {
		if (alignment != NULL && strcmp(alignment, a ? "require" : "prefer") != 0)
			continue;
		config_init(&config);
		config.dra_alignment = a ? CONFIG_DRA_REQUIRE : CONFIG_DRA_PREFER;
		settings_holder_init(&holder, settings_new(&config));
		memset(&ctx, 0, sizeof ctx);
		ctx.store = store;
		ctx.settings = &holder;
		ctx.dra = dra;
		for (r = 0; r < rounds; r++)
			filter_once(&ctx, body, true, &failed, &hits);
		settings_holder_cleanup(&holder);
		config_cleanup(&config);
	}
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	const char *only = argc > 2 && strcmp(argv[1], "--profile") == 0 ? argv[2] : NULL;
	size_t nodes = quick ? 200 : 5000, rounds = quick ? 3 : 15, r;
	struct store *store;
	struct dra_store *dra;
	struct bench_buf plain = { NULL, 0, 0 }, claimed = { NULL, 0, 0 };
	struct bench_target targets[2];
	size_t *ids;
	char *pod;

	bench_init("bench_dra_filter");
	bench_print_header(argv[0]);
	log_set_level(LOG_LEVEL_WARN);
	store = store_new();
	bench_rnd_seed(BENCH_SEED);
	bench_cluster_publish(store, nodes);
	dra = dra_store_new();
	publish_dra(dra, nodes);
	ids = bench_candidates(nodes, nodes, false);
	bench_args_body(bench_pod_json, bench_pod_len, ids, nodes, &plain);
	pod = pod_with_claim();
	bench_args_body(pod, strlen(pod), ids, nodes, &claimed);
	if (only != NULL) {
		profile(store, dra, strcmp(only, "claim") == 0 ? &claimed : &plain,
			argc > 4 && atoi(argv[4]) > 0 ? (size_t)atoi(argv[4]) : 3, argc > 3 ? argv[3] : NULL);
		goto out;
	}
	printf("nodes: %zu, rounds: %zu\n", nodes, rounds);
	bench_target_set(&targets[0], "cold filter, one claim / none, wall clock (prefer)", true, 1.5,
			 run(store, dra, CONFIG_DRA_PREFER, "prefer", nodes, rounds, &plain, &claimed), "x");
	bench_target_set(&targets[1], "cold filter, one claim / none, wall clock (require)", true, 1.5,
			 run(store, dra, CONFIG_DRA_REQUIRE, "require", nodes, rounds, &plain, &claimed), "x");
	for (r = 0; r < 2; r++)
		printf("target  %-52s %-8s %-24s %s\n", targets[r].what, targets[r].goal, targets[r].got,
		       targets[r].ok ? "ok" : "MISSED");
	/* A busy machine moves these ratios more than the target's margin. */
	printf("        (instructions, which load does not blur: --profile under callgrind)\n");
out:
	free(ids);
	free(pod);
	free(plain.p);
	free(claimed.p);
	dra_store_free(dra);
	store_free(store);
	return 0;
}
