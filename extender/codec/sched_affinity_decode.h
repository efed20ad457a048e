/* SPDX-License-Identifier: Apache-2.0 */
/* spec.nodeSelector and spec.affinity.nodeAffinity of a pod into its
 * scheduling view, checked as the API server checks them: operators In,
 * NotIn (one value at least), Exists, DoesNotExist (no value), Gt, Lt (one
 * integer); matchFields only on metadata.name with In or NotIn and one
 * value; preferred weights 1..100. */
#ifndef EXTENDER_SCHED_AFFINITY_DECODE_H
#define EXTENDER_SCHED_AFFINITY_DECODE_H

#include "extender/codec/decode_walk.h"
#include "scheduler/pod_view.h"

/* One NodeSelectorTerm d (matchExpressions, matchFields), checked the same
 * way; the caller has pushed d's place onto the path. The DRA decoders read
 * ResourceSlice and allocation node selectors with it. */
enum err sched_term_decode(struct decode_ctx *c, const struct doc *d, struct sched_term *t);

/* Reads spec's nodeSelector and affinity.nodeAffinity into pod. */
enum err sched_affinity_decode(struct decode_ctx *c, const struct doc *spec,
			       struct sched_pod *pod);

#endif
