/* SPDX-License-Identifier: Apache-2.0 */
/* One element of a KubeSchedulerConfiguration's profiles: schedulerName,
 * percentageOfNodesToScore, plugins (multiPoint, filter, score) and the
 * pluginConfig args the model uses (NodeResourcesFitArgs,
 * NodeResourcesBalancedAllocationArgs), with upstream's defaults and
 * validation. Part of sched_config_decode.c. */
#ifndef EXTENDER_SCHED_PROFILE_DECODE_H
#define EXTENDER_SCHED_PROFILE_DECODE_H

#include "extender/codec/decode_walk.h"
#include "scheduler/config.h"

/* p is overwritten: the default profile, then what d says. On error p still
 * needs sched_profile_cleanup. */
enum err sched_profile_decode(struct decode_ctx *c, const struct doc *d,
			      struct sched_profile *p);

#endif
