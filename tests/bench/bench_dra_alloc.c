/* SPDX-License-Identifier: Apache-2.0 */
/* The allocator's prediction per node: 5,000 nodes, each publishing eight
 * GPUs on two NUMA nodes (one slice) and two CPU devices that place their
 * PCIe roots (dra-driver-cpu), half of the GPUs allocated on every other
 * node; one pod whose claim asks for one GPU, then for two behind one PCIe
 * root (matchAttribute; the nodes with half their GPUs taken have none),
 * then for all of them. Each case predicts every node in turn, as a
 * cold filter would, with the tests' stand-in selector evaluator (the CEL
 * evaluator's own cost comes on top). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/alloc.h"
#include "tests/support/dra_fixture.h"

#define NODES 5000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *cluster(const char *claim)
{
	struct textbuf b;
	int n, g;

	textbuf_init(&b, (size_t)64 << 20);
	textbuf_adds(&b, "class gpu\nsel device.driver == 'gpu.x'\n");
	for (n = 0; n < NODES; n++) {
		textbuf_printf(&b, "slice cpu-%d driver=dra.cpu pool=n%d node=n%d\n", n, n, n);
		textbuf_printf(&b, " dev cpus0 resource.kubernetes.io/numaNode=i:0 "
				   "resource.kubernetes.io/pcieRoot=ss:pci0000:00,pci0000:20\n");
		textbuf_printf(&b, " dev cpus1 resource.kubernetes.io/numaNode=i:1 "
				   "resource.kubernetes.io/pcieRoot=ss:pci0000:40,pci0000:60\n");
		textbuf_printf(&b, "slice gpu-%d driver=gpu.x pool=n%d node=n%d\n", n, n, n);
		for (g = 0; g < 8; g++)
			textbuf_printf(&b, " dev gpu-%d resource.kubernetes.io/pcieRoot=s:pci0000:%02x "
					   "model=s:h100 index=i:%d\n", g, (g / 2) * 0x20, g);
		for (g = 0; n % 2 == 0 && g < 4; g++)
			textbuf_printf(&b, "used gpu.x n%d gpu-%d\n", n, g * 2);
	}
	textbuf_adds(&b, claim);
	if (textbuf_failed(&b)) {
		fprintf(stderr, "bench_dra_alloc: cluster text too large\n");
		exit(1);
	}
	return textbuf_take(&b, NULL);
}

static void run(const char *label, const char *claim)
{
	struct sched_node *nodes = xcalloc(NODES, sizeof *nodes);
	struct dra_alloc_input in;
	struct dra_alloc_result r;
	struct dra_fixture f;
	char *text = cluster(claim);
	uint64_t t0, t, steps = 0;
	size_t ok = 0, n;

	df_load(&f, text);
	free(text);
	for (n = 0; n < NODES; n++) {
		char name[32];

		snprintf(name, sizeof name, "n%zu", n);
		nodes[n].name = xstrdup(name);
	}
	df_input(&f, &in);
	t0 = now_ns();
	for (n = 0; n < NODES; n++) {
		in.node = &nodes[n];
		dra_alloc_predict(&in, &r);
		ok += r.verdict == DRA_ALLOC_OK;
		steps += r.steps;
		dra_alloc_result_free(&r);
	}
	t = now_ns() - t0;
	printf("%-34s %5zu nodes allocated, %7.2f us/node, %4.1f steps/node, %6.1f ms for %d\n",
	       label, ok, (double)t / 1e3 / NODES, (double)steps / NODES, (double)t / 1e6, NODES);
	for (n = 0; n < NODES; n++)
		sched_node_cleanup(&nodes[n]);
	free(nodes);
	df_free(&f);
}

int main(void)
{
	run("one GPU", "claim c\nreq r class=gpu\n");
	run("two GPUs behind one PCIe root", "claim c\nreq r class=gpu count=2\n"
					 "constraint match resource.kubernetes.io/pcieRoot\n");
	run("all GPUs", "claim c\nreq r class=gpu all\n");
	return 0;
}
