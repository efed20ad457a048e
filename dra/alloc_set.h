/* SPDX-License-Identifier: Apache-2.0 */
/* The devices the allocator must not hand out again: every result of every
 * allocated ResourceClaim in the cluster, as the scheduler's DynamicResources
 * plugin gathers them (pkg/scheduler/framework/plugins/dynamicresources,
 * allocateddevices.go foreachAllocatedDevice: admin-access results do not
 * count, shared-capacity results (shareID) are tracked as capacity instead),
 * plus whatever the caller adds (our own ledger's assumed pods). A device is
 * named by (driver, pool, device). Not thread-safe while it is filled;
 * lookups only read. */
#ifndef DRA_ALLOC_SET_H
#define DRA_ALLOC_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "dra/types.h"

struct dra_device_set {
	struct strmap map; /* key -> the key itself (values are never NULL) */
	char **keys;       /* owned */
	size_t n, cap;
};

/* A zeroed struct is an empty set too. */
void dra_device_set_init(struct dra_device_set *s);
void dra_device_set_free(struct dra_device_set *s);

void dra_device_set_add(struct dra_device_set *s, const char *driver, const char *pool,
			const char *device);
bool dra_device_set_has(const struct dra_device_set *s, const char *driver, const char *pool,
			const char *device);
/* The results of c's status.allocation that hold their device exclusively
 * (not admin access, no share id); nothing when c is not allocated. */
void dra_device_set_add_claim(struct dra_device_set *s, const struct dra_claim *c);

#endif
