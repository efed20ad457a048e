/* SPDX-License-Identifier: Apache-2.0 */
/* DRA devices assumed taken by pods seen bound before their claims'
 * allocation reached the DRA inventory. The scheduler writes a claim's
 * status.allocation (PreBind) before it binds the pod, but the claims
 * watch may deliver it after the pods watch delivers the binding; until
 * it does, the devices that pod got look free, and the next pod's
 * prediction could take them. So when the pods watch reports a pod bound
 * to a node with claims the DRA snapshot shows unallocated, the
 * allocator is predicted for it on that node and the devices it would
 * give are held here, for other pods' predictions to skip, until the
 * claims' allocations arrive or assumeTTL passes, whichever comes first.
 *
 * Bounded: at most DRA_ASSUME_MAX pods by default (the oldest goes first). Times are
 * passed in (milliseconds). Thread-safe: one mutex; dra_assume_devices,
 * which every filter with claims calls, scans the pods held (few: each
 * lives only until its claims' allocation arrives). */
#ifndef EXTENDER_DECIDE_DRA_ASSUME_H
#define EXTENDER_DECIDE_DRA_ASSUME_H

#include <stddef.h>
#include <stdint.h>

#include "dra/alloc.h"
#include "dra/alloc_set.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/inventory/dra_store.h"

#define DRA_ASSUME_MAX 4096

struct dra_assume;

/* ttl_ms: how long a pod's devices are held at most (ledger.assumeTTL);
 * max: how many pods at most (0: DRA_ASSUME_MAX; tests use fewer). */
struct dra_assume *dra_assume_new(int64_t ttl_ms, size_t max);
/* Accepts NULL. */
void dra_assume_free(struct dra_assume *a);

/* The pod uid (namespace_/pod_name; namespace_ NULL reads "default") was
 * bound to node at bound_ms. When some of its claims are not allocated in
 * snap, the allocator's prediction for the pod on that node (order; the
 * devices of the other pods held here count as taken) is held from
 * bound_ms on. A pod held already on the same node keeps its first
 * prediction. Returns the number of devices held for the pod (0: none,
 * as when every claim is allocated or the prediction fails). */
size_t dra_assume_pod(struct dra_assume *a, const struct dra_snapshot *snap, const char *uid,
		      const char *namespace_, const char *pod_name, const char *node,
		      const struct dra_pod_claims *claims, int64_t bound_ms,
		      enum dra_alloc_order order);

/* The pod is gone (deleted, or terminal). */
void dra_assume_forget(struct dra_assume *a, const char *uid);

/* Adds to out every device held for a pod (but except_uid's, when not
 * NULL) held for less than the TTL at now_ms whose claims snap does not
 * all show allocated; pods held longer, or whose claims are all allocated
 * in snap, are dropped. Returns the number of pods whose devices were
 * added. */
size_t dra_assume_devices(struct dra_assume *a, const struct dra_snapshot *snap, int64_t now_ms,
			  const char *except_uid, struct dra_device_set *out);

/* Pods held at now_ms, after dropping as dra_assume_devices does (metrics,
 * tests). */
size_t dra_assume_count(struct dra_assume *a, const struct dra_snapshot *snap, int64_t now_ms);

#endif
