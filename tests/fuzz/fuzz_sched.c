/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the kube-scheduler model's decoders and one cycle:
 * the same bytes are read as nodes, as pods and as a KubeSchedulerConfiguration;
 * each must decode or fail with a message, never crash, leak or hang. What
 * decodes is then scheduled — every valid pod onto the decoded nodes, with the
 * running pods counted and an extender that keeps every other node and
 * scores by name length — and a placement must name a feasible node. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/sched_config_decode.h"
#include "extender/codec/sched_node_decode.h"
#include "extender/codec/sched_pod_decode.h"
#include "scheduler/cycle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum err keep_half(void *arg, size_t ext, const struct sched_pod *pod,
			  const struct sched_node *nodes, const size_t *cand, size_t n,
			  struct sched_ext_filter *out, struct errmsg *msg)
{
	size_t i;

	(void)arg;
	(void)ext;
	(void)pod;
	(void)nodes;
	(void)msg;
	for (i = 0; i < n; i++) {
		out->pass[i] = cand[i] % 2 == 0;
		if (!out->pass[i])
			out->reason[i] = "odd";
	}
	return ERR_OK;
}

static enum err by_name(void *arg, size_t ext, const struct sched_pod *pod,
			const struct sched_node *nodes, const size_t *idx, size_t n,
			int64_t *score, bool *has, struct errmsg *msg)
{
	size_t i;

	(void)arg;
	(void)ext;
	(void)pod;
	(void)msg;
	for (i = 0; i < n; i++) {
		score[i] = (int64_t)(strlen(nodes[idx[i]].name) % 11);
		has[i] = true;
	}
	return ERR_OK;
}

static void schedule_all(const struct sched_config *c, struct sched_node *nodes, size_t n,
			 const struct sched_pod *pods, size_t np)
{
	static const struct sched_extender_ops ops = { NULL, keep_half, by_name };
	size_t i;

	sched_nodes_add_pods(nodes, n, pods, np, SCHED_V1_33);
	for (i = 0; i < np && i < 8; i++) {
		const struct sched_profile *p = sched_config_profile(c, sched_pod_scheduler(&pods[i]));
		struct sched_cycle_in in = { c, p, SCHED_V1_34, &pods[i], nodes, n, i, &ops };
		struct sched_cycle_out out;

		if (pods[i].invalid != NULL || p == NULL)
			continue;
		switch (sched_schedule_one(&in, &out)) {
		case SCHED_SCHEDULED:
			if (out.chosen >= n || out.stage[out.chosen] != SCHED_FEASIBLE || out.ntied == 0)
				__builtin_trap();
			break;
		case SCHED_NO_FIT:
		case SCHED_ERROR:
			if (out.message == NULL || out.message[0] == '\0')
				__builtin_trap();
			break;
		}
		sched_cycle_out_cleanup(&out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct sched_node *nodes = NULL;
	struct sched_pod *pods = NULL;
	struct sched_config c;
	size_t n = 0, np = 0;
	bool nodes_ok, pods_ok, config_ok;

	nodes_ok = sched_nodes_decode((const char *)data, size, "fuzz", &nodes, &n, &msg) == ERR_OK;
	if (!nodes_ok && msg.text[0] == '\0')
		__builtin_trap();
	msg.text[0] = '\0';
	pods_ok = sched_pods_decode((const char *)data, size, "fuzz", &pods, &np, &msg) == ERR_OK;
	if (!pods_ok && msg.text[0] == '\0')
		__builtin_trap();
	msg.text[0] = '\0';
	config_ok = sched_config_decode((const char *)data, size, "fuzz", &c, &msg) == ERR_OK;
	if (!config_ok) {
		if (msg.text[0] == '\0')
			__builtin_trap();
		sched_config_cleanup(&c);
		sched_config_default(&c);
	}
	if (nodes_ok && pods_ok)
		schedule_all(&c, nodes, n, pods, np);
	sched_config_cleanup(&c);
	sched_pods_free(pods, np);
	sched_nodes_free(nodes, n);
	return 0;
}
