/* SPDX-License-Identifier: Apache-2.0 */
/* NUMA-aware preemption: the victim search. kube-scheduler's dry run chose
 * victims per candidate node by node-level fit only; here each node is
 * decided again, through decide(), on its inventory plus what those victims
 * free on the zones they hold (inventory_node_give of their remembered
 * placements).
 *
 *   admits                          -> kept with its victims, as given
 *   does not, a victim's placement
 *   is unknown                      -> kept as given (we cannot tell where it
 *                                      frees; never dropped on a guess)
 *   does not, lower-priority pods
 *   with known placements on the
 *   node would make it admit        -> kept, the fewest of them added
 *   nothing would                   -> dropped
 *
 * A node without an inventory is kept as given. The answer never names a
 * UID that is neither the scheduler's nor a pod the ledger saw bound to
 * that node, and never keeps a node without victims. The caller (the
 * preempt verb) decodes the request, looks the node up in the store and the
 * ledger, and logs and encodes what this decides. */
#ifndef EXTENDER_DECIDE_PREEMPT_H
#define EXTENDER_DECIDE_PREEMPT_H

#include <stddef.h>
#include <stdint.h>

#include "extender/decide/decide.h"
#include "extender/inventory/ledger.h"
#include "base/textbuf.h"
#include "topology/pod.h"

enum preempt_result {
	PREEMPT_KEPT,
	PREEMPT_KEPT_UNKNOWN,
	PREEMPT_KEPT_NO_INVENTORY,
	PREEMPT_EXTENDED,
	PREEMPT_DROPPED,
};

/* "kept", "keptUnknownPlacement", "keptNoInventory", "extended", "dropped". */
const char *preempt_result_name(enum preempt_result r);

/* The pod that preempts. */
struct preemptor {
	const struct pod_spec *pod; /* what it asks for; its own UID is never a victim */
	int64_t priority;           /* only lower-priority pods are added */
};

/* One candidate node as the scheduler's dry run left it. */
struct preempt_node {
	const struct inventory_node *inv;   /* the node's snapshot, or NULL: none */
	const struct ledger_pod_view *pods; /* the ledger's live pods on the node */
	size_t npods;
	const char *const *given;           /* the scheduler's victims' UIDs, distinct */
	size_t ngiven;
};

/* Decides one node for the pod (in: its demand and the settings). On
 * PREEMPT_EXTENDED, *added gets the UIDs of the victims to add (lowest
 * priority first; *nadded of them, each and the array malloc'd); otherwise
 * *added is NULL and *nadded 0. why gets what each victim frees: the given
 * ones named until the text is PREEMPT_EXPLAIN_GIVEN_BYTES long (then how
 * many more there were), the added ones always. */
enum preempt_result preempt_decide(const struct decide_input *in, const struct preemptor *who,
				   const struct preempt_node *node, struct textbuf *why,
				   char ***added, size_t *nadded);

/* One log line per node stays readable whatever the number of victims. */
#define PREEMPT_EXPLAIN_GIVEN_BYTES 8192

#endif
