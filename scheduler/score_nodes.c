/* SPDX-License-Identifier: Apache-2.0 */
/* PreScore, Score, NormalizeScore and the weighted sum over the nodes that
 * passed the filters (RunPreScorePlugins, RunScorePlugins in
 * pkg/scheduler/framework/runtime/framework.go). Plugins this model cannot
 * compute (PodTopologySpread, InterPodAffinity, ImageLocality, VolumeBinding,
 * DynamicResources) add nothing: see "The kube-scheduler model" in
 * docs/architecture.md. */
#include "score.h"

#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/xalloc.h"
#include "scheduler/match.h"

void sched_default_normalize(int64_t *scores, size_t n, bool reverse)
{
	int64_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (scores[i] > max)
			max = scores[i];
	if (max == 0) {
		if (reverse)
			for (i = 0; i < n; i++)
				scores[i] = SCHED_MAX_NODE_SCORE;
		return;
	}
	for (i = 0; i < n; i++) {
		/* Raw scores here are counts and weight sums far below
		 * INT64_MAX / 100; saturate all the same. */
		int64_t s = i64_mul_sat(SCHED_MAX_NODE_SCORE, scores[i]) / max;

		scores[i] = reverse ? SCHED_MAX_NODE_SCORE - s : s;
	}
}

/* Whether PreScore leaves the plugin in for this pod. */
static bool runs(const struct sched_pod_cycle *c, enum sched_plugin p)
{
	if (!c->profile->score[p] || !sched_plugin_info(p)->modelled)
		return false;
	switch (p) {
	case SCHED_NODE_AFFINITY:
		/* Skip without preferred terms (no addedAffinity modelled). */
		return c->pod->npreferred > 0;
	case SCHED_BALANCED_ALLOCATION:
		return !c->balanced_skip;
	default:
		return true;
	}
}

static int64_t raw_score(const struct sched_pod_cycle *c, enum sched_plugin p,
			 const struct sched_node *node, bool fresh)
{
	switch (p) {
	case SCHED_TAINT_TOLERATION: return sched_intolerable_prefer_count(node, c->pod);
	case SCHED_NODE_AFFINITY: return sched_preferred_affinity_score(c->pod, node);
	case SCHED_NODE_RESOURCES_FIT: return sched_fit_score(c, node, fresh);
	case SCHED_BALANCED_ALLOCATION: return sched_balanced_score(c, node, fresh);
	default: return 0;
	}
}

void sched_score_nodes(const struct sched_pod_cycle *c,
		       const struct sched_node *nodes, const size_t *idx,
		       size_t n, bool fresh, struct sched_node_score *out)
{
	int64_t *column = xcalloc(n > 0 ? n : 1, sizeof *column);
	size_t i, p;

	memset(out, 0, n * sizeof *out);
	for (i = 0; i < n; i++)
		out[i].node = idx[i];
	for (p = 0; p < SCHED_PLUGIN_COUNT; p++) {
		enum sched_plugin pl = (enum sched_plugin)p;

		if (!runs(c, pl))
			continue;
		for (i = 0; i < n; i++) {
			out[i].ran[p] = true;
			out[i].raw[p] = raw_score(c, pl, &nodes[idx[i]], fresh);
			column[i] = out[i].raw[p];
		}
		if (pl == SCHED_TAINT_TOLERATION || pl == SCHED_NODE_AFFINITY)
			sched_default_normalize(column, n, pl == SCHED_TAINT_TOLERATION);
		for (i = 0; i < n; i++) {
			out[i].weighted[p] = i64_mul_sat(column[i], c->profile->weight[p]);
			out[i].total = i64_add_sat(out[i].total, out[i].weighted[p]);
		}
	}
	free(column);
}

void sched_add_extender_score(struct sched_node_score *s, int64_t score,
			      int64_t weight)
{
	int64_t term = i64_mul_sat(i64_mul_sat(score, weight),
				   SCHED_MAX_NODE_SCORE / SCHED_MAX_EXTENDER_PRIORITY);

	s->extender = i64_add_sat(s->extender, term);
	s->total = i64_add_sat(s->total, term);
	s->has_extender = true;
}
