/* SPDX-License-Identifier: Apache-2.0 */
/* A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) into the
 * model's configuration (scheduler/config.h): percentageOfNodesToScore, the
 * profiles (sched_profile_decode.h) and the extenders, with upstream's
 * defaults (no profile: one "default-scheduler"; one unnamed profile:
 * "default-scheduler") and the checks kube-scheduler makes on what the model
 * reads (a prioritizing extender needs a positive weight, one binder at
 * most, managed resources are unique extended resource names, profile names
 * unique). Keys the model does not use (leaderElection, clientConnection,
 * tlsConfig, ...) are left unread. The text may also be a ConfigMap whose
 * one data value holding a KubeSchedulerConfiguration is read, as the
 * manifests ship it. ignoredByScheduler resources end up in every profile's
 * ignored resources (sched_config_apply_extenders). */
#ifndef EXTENDER_SCHED_CONFIG_DECODE_H
#define EXTENDER_SCHED_CONFIG_DECODE_H

#include <stddef.h>

#include "base/err.h"
#include "scheduler/config.h"

/* out is overwritten; on error it is left empty (cleanup is harmless). */
enum err sched_config_decode(const char *buf, size_t len, const char *origin,
			     struct sched_config *out, struct errmsg *msg);
enum err sched_config_load(const char *path, struct sched_config *out,
			   struct errmsg *msg);

#endif
