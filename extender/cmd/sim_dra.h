/* SPDX-License-Identifier: Apache-2.0 */
/* simulate's DRA side (--dra): the claims of the pods to place, read from
 * the pods file, and, once a pod lands, the devices the allocator's
 * prediction gave its claims there published into the run's DRA store as
 * those claims' status.allocation, as the scheduler's bind writes it: the
 * next pod's prediction sees them allocated. */
#ifndef EXTENDER_CMD_SIM_DRA_H
#define EXTENDER_CMD_SIM_DRA_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "dra/alloc.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/dra.h"
#include "extender/inventory/dra_store.h"

/* Each pod's claims of the pods file at path, in the order sched_pods_load
 * reads the pods (*n of them; free with sim_pod_claims_free). A pod whose
 * claims do not decode fails the load, msg naming it. */
enum err sim_pod_claims_load(const char *path, struct dra_pod_claims **out, size_t *n,
			     struct errmsg *msg);
void sim_pod_claims_free(struct dra_pod_claims *c, size_t n);

/* Publishes into store, as one batch, the claims of pod ns/pod_name (p
 * resolved them) that alloc (dra_judge's kept prediction on node, OK or
 * SAME_NUMA) allocates rather than reads back: each a copy of the claim
 * with status.allocation set to its picks and node-local to node. A
 * template's claim gets the name the resourceclaim controller's would
 * start with, "<pod>-<claim>", made unique in the store. *serial numbers
 * the published objects' versions. Returns the claims published. */
size_t sim_dra_allocate(struct dra_store *store, const struct dra_pod *p, const char *ns,
			const char *pod_name, const char *node, const struct dra_alloc_result *alloc,
			uint64_t *serial);

#endif
