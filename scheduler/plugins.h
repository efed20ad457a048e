/* SPDX-License-Identifier: Apache-2.0 */
/* A profile's `plugins:` section applied to the default plugins, as
 * kube-scheduler merges them (mergePluginSet in
 * pkg/scheduler/apis/config/v1/default_plugins.go, then the framework's
 * MultiPoint expansion and getScoreWeights in
 * pkg/scheduler/framework/runtime/framework.go):
 *  - multiPoint.disabled removes default plugins ("*": all of them); a
 *    multiPoint.enabled entry naming a default plugin replaces it, weight
 *    included (no weight: 1), others are appended;
 *  - filter/score.enabled add plugins at that point; filter/score.disabled
 *    remove MultiPoint plugins there ("*": every MultiPoint plugin);
 *  - a plugin's score weight is the first one given, score.enabled before
 *    multiPoint; an unset or 0 weight is 1.
 * The order in which filters run stays the default one (a reordering only
 * changes which reason a node that fails several filters reports). */
#ifndef SCHEDULER_PLUGINS_H
#define SCHEDULER_PLUGINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/config.h"

struct sched_plugin_ref {
	char *name;
	bool has_weight;
	int32_t weight;
};

struct sched_plugin_set {
	struct sched_plugin_ref *enabled;
	size_t nenabled;
	char **disabled;
	size_t ndisabled;
};

/* The extension points that decide filtering and scoring. */
struct sched_plugins_spec {
	struct sched_plugin_set multi_point;
	struct sched_plugin_set filter;
	struct sched_plugin_set score;
};

void sched_plugins_spec_cleanup(struct sched_plugins_spec *s);

/* Rewrites p's filter, score and weight tables from the default profile and
 * s. Enabled names the table does not know (out-of-tree plugins) are added
 * to p->unmodelled, once each; p->other_scorers notes them at Score. */
void sched_profile_apply_plugins(struct sched_profile *p,
				 const struct sched_plugins_spec *s);

#endif
