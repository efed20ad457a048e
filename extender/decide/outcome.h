/* SPDX-License-Identifier: Apache-2.0 */
/* What decide concludes about a node: one enum, one table of names
 * (decision_outcome_name) for the wire, the log, the metrics and the
 * decision log. Its own header so that codec's wire can take the enum
 * without the rest of decide. */
#ifndef EXTENDER_DECIDE_OUTCOME_H
#define EXTENDER_DECIDE_OUTCOME_H

enum decision_outcome {
	DECISION_PASS,          /* the kubelet would admit the pod */
	DECISION_FAILED,        /* it would not; preemption may help */
	DECISION_UNRESOLVABLE,  /* it would not even on an empty node */
	DECISION_NO_INVENTORY,  /* no NodeResourceTopology for the node */
	DECISION_NOUTCOMES
};

/* "pass", "failed", "unresolvable", "noInventory". */
const char *decision_outcome_name(enum decision_outcome o);

#endif
