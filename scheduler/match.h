/* SPDX-License-Identifier: Apache-2.0 */
/* The matching rules the filters and scores share: tolerations against
 * taints (k8s.io/api/core/v1 toleration.go ToleratesTaint), label
 * requirements (k8s.io/apimachinery labels Requirement.Matches) and node
 * selector terms (component-helpers scheduling/corev1/nodeaffinity). */
#ifndef SCHEDULER_MATCH_H
#define SCHEDULER_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/node_view.h"
#include "scheduler/pod_view.h"

/* An empty toleration effect matches every effect and an empty key every key
 * (with Exists); Equal (or no operator) compares values; Exists ignores them;
 * Lt and Gt never match (their gate is off by default). */
bool sched_toleration_tolerates(const struct sched_toleration *t,
				const struct sched_taint *taint);
bool sched_pod_tolerates(const struct sched_pod *pod,
			 const struct sched_taint *taint);

/* The first taint of effect NoSchedule or NoExecute the pod does not
 * tolerate (in the node's order), or NULL. */
const struct sched_taint *sched_untolerated_taint(const struct sched_node *node,
						  const struct sched_pod *pod);
/* How many PreferNoSchedule taints of the node the pod does not tolerate. */
int64_t sched_intolerable_prefer_count(const struct sched_node *node,
				       const struct sched_pod *pod);

/* strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, in range. */
bool sched_parse_go_int64(const char *s, int64_t *out);

/* A matchExpressions element against the node's labels. In needs the label
 * with one of the values; NotIn and DoesNotExist hold when it is absent; Gt
 * and Lt compare the label and the one value as integers and fail when
 * either does not parse. */
bool sched_expression_matches(const struct sched_requirement *r,
			      const struct sched_node *node);
/* A matchFields element: metadata.name is the node's name, any other field
 * reads as "". */
bool sched_field_matches(const struct sched_requirement *r,
			 const struct sched_node *node);
/* Every expression and field holds; a term with none matches nothing. */
bool sched_term_matches(const struct sched_term *t, const struct sched_node *node);

/* GetRequiredNodeAffinity(pod).Match(node): every nodeSelector label equal,
 * and, when the pod has required node affinity, one of its terms matches. */
bool sched_required_affinity_matches(const struct sched_pod *pod,
				     const struct sched_node *node);
/* The sum of the weights of the preferred terms the node matches. */
int64_t sched_preferred_affinity_score(const struct sched_pod *pod,
				       const struct sched_node *node);

#endif
