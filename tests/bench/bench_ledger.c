/* SPDX-License-Identifier: Apache-2.0 */
/* The assumed-pod ledger's costs, off the request path: what one pod seen
 * bound costs (judge it on the node minus the ledger, rebuild that node's
 * snapshot, republish the store), what one NRT update with a matching
 * fingerprint costs (flush and republish), in a store of 5000 8-NUMA nodes.
 * Requests pay nothing per request: they read the published snapshots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extender/inventory/ledger.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/inventory/store.h"
#include "base/xalloc.h"
#include "topology/inventory.h"
#include "topology/podfingerprint.h"

#define NODES 5000
#define NUMA 8
#define ROUNDS 5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *nrt_text(int id, const char *fingerprint)
{
	char *buf = xmalloc(16384);
	size_t len;
	int z;

	len = (size_t)snprintf(buf, 16384,
			       "{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
			       "\"metadata\":{\"name\":\"node-%05d\",\"resourceVersion\":\"1\"},"
			       "\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
			       "{\"name\":\"topologyManagerScope\",\"value\":\"pod\"},"
			       "{\"name\":\"nodeTopologyPodsFingerprint\",\"value\":\"%s\"}],\"zones\":[",
			       id, fingerprint);
	for (z = 0; z < NUMA; z++)
		len += (size_t)snprintf(buf + len, 16384 - len,
					"%s{\"name\":\"node-%d\",\"type\":\"Node\",\"resources\":["
					"{\"name\":\"cpu\",\"capacity\":\"32\",\"allocatable\":\"30\",\"available\":\"30\"},"
					"{\"name\":\"memory\",\"capacity\":\"128Gi\",\"allocatable\":\"120Gi\",\"available\":\"120Gi\"},"
					"{\"name\":\"hugepages-1Gi\",\"capacity\":\"16Gi\",\"allocatable\":\"16Gi\",\"available\":\"16Gi\"},"
					"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"2\",\"allocatable\":\"2\",\"available\":\"2\"},"
					"{\"name\":\"dsa.intel.com/wq-user-shared\",\"capacity\":\"20\",\"allocatable\":\"20\",\"available\":\"20\"}]}",
					z ? "," : "", z);
	snprintf(buf + len, 16384 - len, "]}");
	return buf;
}

static void put(struct store_batch *b, char *raw)
{
	struct nrt_object *objs = NULL;
	struct inventory_node *inv = NULL;
	struct errmsg msg;
	size_t n = 0;

	if (nrt_decode_buffer(raw, strlen(raw), "bench", &objs, &n, &msg) != ERR_OK ||
	    inventory_node_new(&objs[0], &inv, &msg) != ERR_OK) {
		fprintf(stderr, "bench_ledger: %s\n", msg.text);
		exit(1);
	}
	store_batch_put_raw(b, inv, "kubernetes", "1", raw);
	nrt_objects_free(objs, n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int run(bool keep_raw);

int main(void)
{
	return run(false) || run(true);
}

static int run(bool keep_raw)
{
	static const char pod[] =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"bench\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"1\","
		"\"dsa.intel.com/wq-user-shared\":\"1\"}}}]}}";
	struct ledger_options o = { LEDGER_PREDICTED, 30000, 600000, keep_raw };
	struct store *st = store_new();
	struct ledger *l = ledger_new(st, &o);
	struct store_batch *b = store_batch_new();
	uint64_t assume_ns[ROUNDS], flush_ns[ROUNDS];
	char empty[PODFINGERPRINT_LEN + 1];
	int i, r, per_round = 200;

	podfingerprint(NULL, 0, empty);
	for (i = 0; i < NODES; i++)
		put(b, nrt_text(i, empty));
	store_publish(st, b);
	ledger_list_begin(l);
	ledger_list_end(l, true);
	for (r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();
		struct pod_ref refs[8];
		char names[8][32];

		/* Pods land on nodes r*per_round ... : up to 8 per node. */
		for (i = 0; i < per_round; i++) {
			struct pod_spec spec;
			struct errmsg msg;
			char uid[32], node[32];
			struct ledger_pod_info info;

			snprintf(uid, sizeof uid, "u-%d-%d", r, i);
			snprintf(node, sizeof node, "node-%05d", (r * per_round + i / 8) % NODES);
			if (pod_decode_buffer(pod, strlen(pod), "bench", &spec, &msg) != ERR_OK)
				return 1;
			free(spec.name);
			spec.name = xstrdup(uid);
			info = (struct ledger_pod_info){ uid, node, false, 0, &spec, 0, false };
			ledger_pod_changed(l, &info);
			pod_spec_cleanup(&spec);
		}
		assume_ns[r] = (now_ns() - t0) / (uint64_t)per_round;
		/* The agents catch up: one NRT per node that got pods, with the
		 * fingerprint of its 8 pods (the amounts do not matter here). */
		t0 = now_ns();
		for (i = 0; i < per_round / 8; i++) {
			int k;

			for (k = 0; k < 8; k++) {
				snprintf(names[k], sizeof names[k], "u-%d-%d", r, i * 8 + k);
				refs[k].namespace_ = "bench";
				refs[k].name = names[k];
			}
			podfingerprint(refs, 8, empty);
			b = store_batch_new();
			put(b, nrt_text((r * per_round + i) % NODES, empty));
			store_publish(st, b);
		}
		flush_ns[r] = (now_ns() - t0) / (uint64_t)(per_round / 8);
	}
	{
		struct ledger_stats s;

		ledger_stats(l, &s);
		qsort(assume_ns, ROUNDS, sizeof *assume_ns, cmp_u64);
		qsort(flush_ns, ROUNDS, sizeof *flush_ns, cmp_u64);
		printf("ledger, %d nodes x %d NUMA, predicted mode, NRT JSON for the decision log %s "
		       "(median of %d rounds)\n", NODES, NUMA, o.keep_raw ? "kept" : "not kept", ROUNDS);
		printf("  pod seen bound (judge on node minus ledger, rebuild, republish): %.1f us/pod\n",
		       (double)assume_ns[ROUNDS / 2] / 1000.0);
		printf("  NRT update with matching fingerprint (flush 8 pods, republish):  %.1f us/update\n",
		       (double)flush_ns[ROUNDS / 2] / 1000.0);
		printf("  flushed by fingerprint: %llu, still assumed: %llu\n",
		       (unsigned long long)s.flushed[LEDGER_FLUSH_FINGERPRINT], (unsigned long long)s.assumed);
		if (s.flushed[LEDGER_FLUSH_FINGERPRINT] != (uint64_t)(ROUNDS * per_round) || s.assumed != 0) {
			fprintf(stderr, "bench_ledger: fingerprints did not flush every pod\n");
			return 1;
		}
	}
	ledger_free(l);
	store_free(st);
	return 0;
}
