/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: arbitrary NRT text through decode, snapshot and the judge,
 * with fixed pods; an admitted pod must never take more than is available. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const pod_texts[] = {
	"metadata: {name: a}\nspec: {containers: [{name: c, resources: {limits: {cpu: 4, memory: 4Gi, nvidia.com/gpu: 1}}}]}\n",
	"metadata: {name: b}\nspec: {initContainers: [{name: i, resources: {limits: {cpu: 6, memory: 1Gi, hugepages-1Gi: 1Gi}}},"
	" {name: s, restartPolicy: Always, resources: {limits: {cpu: 1, memory: 1Gi}}}],"
	" containers: [{name: c, resources: {limits: {cpu: 2, memory: 40Gi, dsa.intel.com/wq-user-shared: 2}}}]}\n",
	"metadata: {name: c}\nspec: {containers: [{name: c, resources: {requests: {cpu: 500m}, limits: {nvidia.com/gpu: 2}}}]}\n",
};
#define NPODS (sizeof pod_texts / sizeof pod_texts[0])

static struct pod_spec pods[NPODS];
static struct pod_demand *demands[NPODS];

static void setup(void)
{
	static int done;
	struct errmsg msg;
	size_t i;

	if (done)
		return;
	done = 1;
	for (i = 0; i < NPODS; i++) {
		if (pod_decode_buffer(pod_texts[i], strlen(pod_texts[i]), "pod", &pods[i], &msg) != ERR_OK ||
		    pod_demand_new(&pods[i], &demands[i], &msg) != ERR_OK)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nrt_object *objs = NULL;
	size_t n = 0, i, p;
	struct errmsg msg;

	setup();
	if (nrt_decode_buffer((const char *)data, size, "fuzz", &objs, &n, &msg) != ERR_OK)
		return 0;
	for (i = 0; i < n; i++) {
		struct inventory_node *node = NULL;

		if (inventory_node_new(&objs[i], &node, &msg) != ERR_OK)
			continue;
		for (p = 0; p < NPODS; p++) {
			struct verdict v;
			int r, d;

			judge_node(node, demands[p], &v);
			if (v.admit)
				for (r = 0; r < node->nresources; r++)
					for (d = 0; d < node->numa_count; d++)
						if (verdict_usage(&v, r, d) > node->resources[r].available[d])
							abort();
			if (!v.admit && v.message[0] == '\0')
				abort();
			verdict_cleanup(&v);
		}
		inventory_node_free(node);
	}
	nrt_objects_free(objs, n);
	return 0;
}
