/* SPDX-License-Identifier: Apache-2.0 */
/* The pod watch that feeds the assumed-pod ledger: every assigned,
 * non-terminal pod in every namespace (the field selector kube-scheduler's
 * own informer uses), listed and watched through a kube_reflector. A pod the
 * selector stops matching (terminal) arrives as DELETED. */
#ifndef EXTENDER_SOURCE_PODS_H
#define EXTENDER_SOURCE_PODS_H

#include <json-c/json.h>
#include <stdint.h>

#include "extender/config.h"
#include "extender/inventory/ledger.h"
#include "base/err.h"

struct source_pods;

/* The kubelet's verdicts as feedback: a pod that turns Failed with an
 * admission reason (TopologyAffinityError, UnexpectedAdmissionError,
 * SMTAlignmentError; the field selector makes it a DELETED event carrying
 * the failed pod) is logged with its node, the reason and what we had
 * decided for it there, counted in numa_extender_kubelet_rejections_total
 * {reason,decided} and written to the decision log (when set) as a
 * "kubeletRejection" record, which replay lists. */
struct decision_log;
void source_pods_set_decision_log(struct source_pods *s, struct decision_log *log);

/* DRA: a pod seen bound (spec.nodeName) with claims that the DRA
 * inventory dra does not show allocated yet has the devices the
 * allocator would give it there held in assumed (dra_assume_pod, at its
 * PodScheduled time; dra.allocatorOrder and dra.alignment read from
 * settings: nothing is held while alignment is off), and forgotten when
 * the pod goes. Set once, before or while the watch runs; a pod listed
 * before that is held from its next event on. */
struct dra_assume;
struct dra_store;
struct settings_holder;
void source_pods_set_dra(struct source_pods *s, struct dra_assume *assumed, struct dra_store *dra,
			 struct settings_holder *settings);

enum err source_pods_start(struct ledger *ledger, const struct config *cfg,
			   struct source_pods **out, struct errmsg *msg);
void source_pods_stop(struct source_pods *s);

/* A pod source with no API server, fed by hand with the bytes of a watch
 * stream (fuzzing and tests); stopped with source_pods_stop. */
struct source_pods *source_pods_detached(struct ledger *ledger);
bool source_pods_feed(struct source_pods *s, const char *data, size_t len, size_t chunk);
/* The same for the watch of failed pods (the kubelet's rejections). */
bool source_pods_feed_failed(struct source_pods *s, const char *data, size_t len, size_t chunk);

/* The parts of a v1.Pod the ledger needs (spec decoded into *spec, which the
 * caller owns). A pod whose resources do not decode keeps its identity (it
 * still counts in fingerprints) and no containers. Returns false when the
 * object has no metadata.uid or name. Strings point into o. */
bool pod_info_from_json(struct json_object *o, struct ledger_pod_info *info, struct pod_spec *spec);

/* RFC 3339 time ("2026-11-29T17:35:45Z", fractions and offsets allowed) as
 * milliseconds since the epoch; 0 when it does not parse. */
int64_t rfc3339_ms(const char *text);

#endif
