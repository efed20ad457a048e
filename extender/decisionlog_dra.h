/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA state of a logged decision: what replay needs to re-decide a pod
 * whose claims were judged (dra.alignment not off), and no more. Record
 * types, each written once per file before the first decision that uses
 * it, as NRT inventories are:
 *   {"type":"draObject","kind":K,["namespace":NS,]"name":N,"version":V,"object":{...}}
 *     one ResourceSlice, DeviceClass, ResourceClaim or ResourceClaimTemplate
 *     per version (dra_encode.h);
 *   {"type":"draNode","id":ID,"slices":[{"name","version"}],
 *    "allocated":[{"driver","pool","device"}]}
 *     what the allocator's prediction reads on a node (dra_store.h): the
 *     node's own slices, the slices without a node that reach it, every
 *     slice of their pools elsewhere when the node does not see the whole
 *     pool, and the devices allocated in those pools. ID is "<node>/<its
 *     DRA version>" for a node with slices of its own, "shared/<hash of
 *     the state>" for one without (such nodes share records).
 * The decision gets a "dra" member:
 *   {"alignment","unknownNUMA","allocatorOrder","pod":{the pod's claims},
 *    "objects":[{"kind",["namespace",]"name","version"}],"nodes":[V per node]}
 *     the DRA settings that decided, the pod's spec.resourceClaims and
 *     containers' claims (dra_pod_claims_to_json), the claims and templates
 *     as resolved, the classes they name and a slice that selects nodes by
 *     label; per candidate node its state's id ("" without inventory). */
#ifndef EXTENDER_DECISIONLOG_DRA_H
#define EXTENDER_DECISIONLOG_DRA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/textbuf.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/dra.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog_file.h"
#include "extender/inventory/dra_store.h"

struct decision_dra;

/* Taken by a request thread while it holds snap and pod: references snap,
 * copies what it needs of pod and claims. */
struct decision_dra *decision_dra_new(const struct dra_snapshot *snap, const struct dra_pod *pod,
				      const struct dra_pod_claims *claims, const struct settings *st);
void decision_dra_free(struct decision_dra *d);

/* Scratch buffers of the writer thread. */
struct decision_dra_bufs {
	struct textbuf line, key, state;
};

/* Adds to the file the draObject and draNode records the decision needs
 * that it does not hold, then appends ,"dra":{...} to member. nodes[i]
 * names candidate i, has_inventory[i] whether it was judged. False: a
 * record passed the ceiling (said and counted): drop the decision. */
bool decision_dra_put(struct decision_file *f, const struct decision_dra *d,
		      const char *const *nodes, const bool *has_inventory, size_t n,
		      struct decision_dra_bufs *bufs, struct textbuf *member);

#endif
