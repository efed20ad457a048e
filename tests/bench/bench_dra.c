/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA inventory at 5000 nodes: each node publishes the NVIDIA slice of
 * tests/data/dra (four GPUs) and the dra-driver-cpu one (two NUMA devices),
 * and 20000 claims hold one GPU each on the first 5000 GPUs. Measured:
 * decoding a slice, the first publish of everything, a publish of one
 * claim's change (what a pod's binding costs the store; one node's version
 * moves), a publish of one node's slice, and the lookups of every node's
 * slices in one snapshot. Run from the repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "extender/file_read.h"
#include "extender/inventory/dra_store.h"

#define NODES 5000
#define CLAIMS 20000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* text with every "gpu-node-a" replaced by node. */
static char *for_node(const char *text, const char *node)
{
	size_t n = 0, len = strlen(text), nl = strlen(node), out = 0;
	const char *p;
	char *buf;

	for (p = strstr(text, "gpu-node-a"); p; p = strstr(p + 1, "gpu-node-a"))
		n++;
	buf = xmalloc(len + n * nl + 1);
	for (p = text; *p;) {
		if (strncmp(p, "gpu-node-a", 10) == 0) {
			memcpy(buf + out, node, nl);
			out += nl;
			p += 10;
		} else {
			buf[out++] = *p++;
		}
	}
	buf[out] = '\0';
	return buf;
}

static void put_text(struct dra_batch *b, const char *text, const char *version)
{
	struct dra_objects o = { 0 };
	struct errmsg msg;

	if (dra_objects_decode(text, strlen(text), "bench", &o, &msg) != ERR_OK) {
		fprintf(stderr, "%s\n", msg.text);
		exit(1);
	}
	dra_batch_put_objects(b, &o, version, "bench");
	dra_objects_cleanup(&o);
}

/* Claim i: one GPU; allocated, GPU i % 4 of node i / 4. */
static void claim_text(char *buf, size_t size, int i, bool allocated)
{
	char status[256] = "";

	if (allocated)
		snprintf(status, sizeof status,
			 ",\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\","
			 "\"driver\":\"gpu.nvidia.com\",\"pool\":\"n%d\",\"device\":\"gpu-%d\"}]}}}",
			 (i / 4) % NODES, i % 4);
	snprintf(buf, size,
		 "{\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c%d\",\"namespace\":\"ml\"},"
		 "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
		 "{\"deviceClassName\":\"gpu.nvidia.com\"}}]}}%s}",
		 i, status);
}

int main(void)
{
	char *gpu = NULL, *cpu = NULL, node[32], text[1024];
	struct dra_store *s = dra_store_new();
	struct dra_batch *b = dra_batch_new();
	const struct dra_snapshot *snap;
	struct errmsg msg;
	size_t len, found = 0, moved = 0;
	double t0, t1;
	uint64_t before;
	int i;

	if (file_read_all("tests/data/dra/slice-nvidia-gpu.yaml", 0, &gpu, &len, &msg) != ERR_OK ||
	    file_read_all("tests/data/dra/slice-dra-cpu.yaml", 0, &cpu, &len, &msg) != ERR_OK) {
		fprintf(stderr, "%s (run from the repository root)\n", msg.text);
		return 1;
	}
	t0 = now_s();
	for (i = 0; i < NODES; i++) {
		char *g, *c;

		snprintf(node, sizeof node, "n%d", i);
		g = for_node(gpu, node);
		c = for_node(cpu, node);
		put_text(b, g, "1");
		put_text(b, c, "1");
		free(g);
		free(c);
	}
	t1 = now_s();
	printf("decode: %d slices (%d devices) in %.3f s, %.1f us a slice\n", 2 * NODES, 6 * NODES,
	       t1 - t0, (t1 - t0) * 1e6 / (2 * NODES));
	t0 = now_s();
	for (i = 0; i < CLAIMS; i++) {
		claim_text(text, sizeof text, i, i < NODES);
		put_text(b, text, "1");
	}
	t1 = now_s();
	printf("decode: %d claims in %.3f s\n", CLAIMS, t1 - t0);
	t0 = now_s();
	dra_store_publish(s, b);
	t1 = now_s();
	printf("publish: everything (%d slices, %d claims) in %.1f ms\n", 2 * NODES, CLAIMS,
	       (t1 - t0) * 1e3);
	/* One claim freed: one node's version moves. */
	snap = dra_store_acquire(s);
	before = snap->version;
	b = dra_batch_new();
	claim_text(text, sizeof text, 0, false);
	put_text(b, text, "2");
	t0 = now_s();
	dra_store_publish(s, b);
	t1 = now_s();
	{
		const struct dra_snapshot *now = dra_store_acquire(s);

		for (i = 0; (size_t)i < now->nnodes; i++)
			moved += now->nodes[i].version > before;
		dra_snapshot_release(now);
	}
	printf("publish: one claim's change in %.2f ms (%zu node version%s moved)\n", (t1 - t0) * 1e3,
	       moved, moved == 1 ? "" : "s");
	dra_snapshot_release(snap);
	/* One node's slice. */
	b = dra_batch_new();
	{
		char *g = for_node(gpu, "n42");

		put_text(b, g, "3");
		free(g);
	}
	t0 = now_s();
	dra_store_publish(s, b);
	t1 = now_s();
	printf("publish: one node's slice in %.2f ms\n", (t1 - t0) * 1e3);
	/* Every node's slices, as a filter over 5000 nodes asks them. */
	snap = dra_store_acquire(s);
	t0 = now_s();
	for (i = 0; i < NODES; i++) {
		snprintf(node, sizeof node, "n%d", i);
		found += dra_snapshot_node(snap, node) != NULL;
	}
	t1 = now_s();
	printf("lookup: %zu of %d nodes in %.2f ms\n", found, NODES, (t1 - t0) * 1e3);
	dra_snapshot_release(snap);
	free(gpu);
	free(cpu);
	dra_store_free(s);
	return found == NODES && moved == 1 ? 0 : 1;
}
