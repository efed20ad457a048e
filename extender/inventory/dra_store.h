/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA inventory: the current ResourceSlices, DeviceClasses,
 * ResourceClaims and ResourceClaimTemplates as one immutable, refcounted
 * snapshot, with the views the allocator's prediction reads (slices by
 * node, slices without a node, pools, the allocated devices). Sources
 * (source_dra.h: the API server, a directory) publish changes in batches;
 * each publish that changes something builds a new snapshot sharing the
 * unchanged objects and swaps it in. A request acquires the current
 * snapshot once and reads it without locks; the swap holds a mutex for a
 * pointer copy only. Thread-safe.
 *
 * Versions: a snapshot's version grows by one with every publish that
 * changes anything (a relist of the same objects changes nothing); each
 * node's version is the snapshot version at which something that node's
 * prediction reads last changed (its slices, their pools, the devices
 * allocated in them, the classes, the slices without a node), so a
 * verdict cache keyed on it stays warm across changes elsewhere. */
#ifndef EXTENDER_DRA_STORE_H
#define EXTENDER_DRA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/textbuf.h"
#include "dra/pools.h"
#include "dra/types.h"
#include "extender/codec/dra_decode.h"

/* The slices published for one node (spec.nodeName), sorted as the
 * allocator walks them: by driver, pool, then slice name. */
struct dra_node_slices {
	const char *node;
	const struct dra_slice *const *slices;
	size_t nslices;
	uint64_t version;
};

/* A pool as the allocator sees it: only its slices of the highest
 * generation count; complete when they are resourceSliceCount many, invalid
 * when two of them publish the same device name (the states of
 * dra/pools.h, which gathers one node's pools the same way). */
struct dra_store_pool {
	const char *driver, *pool;
	int64_t generation;      /* the highest of its slices */
	int64_t slice_count;     /* resourceSliceCount of the first slice at it */
	size_t nslices;          /* slices at that generation */
	enum dra_pool_state state;
};

/* A device of status.allocation, of any claim in the cluster. */
struct dra_device_ref {
	const char *driver, *pool, *device;
};

struct dra_snapshot {
	uint64_t version;
	const struct dra_node_slices *nodes;      /* by node name */
	size_t nnodes;
	const struct dra_slice *const *shared;    /* nodeSelector, allNodes, per-device: by name */
	size_t nshared;
	const struct dra_class *const *classes;   /* by name */
	size_t nclasses;
	const struct dra_claim *const *claims;    /* by namespace, then name */
	size_t nclaims;
	const struct dra_claim *const *templates; /* by namespace, then name */
	size_t ntemplates;
	const struct dra_store_pool *pools;       /* by driver, then pool */
	size_t npools;
	/* Devices no other claim can get: every allocation's results but those
	 * with admin access (which do not count as allocated) and shared ones
	 * (consumable capacity); by driver, pool, device, each once. */
	const struct dra_device_ref *allocated;
	size_t nallocated;
	size_t nslices;                           /* all slices */
	size_t ndevices;                          /* devices of all slices */
	/* Every slice indexed for dra_node_pools_gather (the allocator's
	 * prediction); never NULL. */
	const struct dra_slice_index *index;
};

struct dra_store;

struct dra_store *dra_store_new(void);
/* Frees the store and its current snapshot (callers released theirs). */
void dra_store_free(struct dra_store *s);

/* The current snapshot, referenced; never NULL (an empty one at first). */
const struct dra_snapshot *dra_store_acquire(struct dra_store *s);
void dra_snapshot_release(const struct dra_snapshot *snap);
/* One more reference to a snapshot the caller holds (a record that
 * outlives the request); release it as any other. */
const struct dra_snapshot *dra_snapshot_ref(const struct dra_snapshot *snap);

/* Lookups, borrowed while the snapshot is held; NULL when absent. */
const struct dra_node_slices *dra_snapshot_node(const struct dra_snapshot *snap, const char *node);
const struct dra_class *dra_snapshot_class(const struct dra_snapshot *snap, const char *name);
const struct dra_claim *dra_snapshot_claim(const struct dra_snapshot *snap, const char *ns,
					   const char *name);
const struct dra_claim *dra_snapshot_template(const struct dra_snapshot *snap, const char *ns,
					      const char *name);
const struct dra_store_pool *dra_snapshot_pool(const struct dra_snapshot *snap, const char *driver,
					 const char *pool);
bool dra_snapshot_allocated(const struct dra_snapshot *snap, const char *driver, const char *pool,
			    const char *device);

/* Where an object of a snapshot (a slice, class, claim or template
 * pointer it handed out) came from: its resourceVersion, or for files a
 * hash of the file and the object's place in it; and "kubernetes" or the
 * file's path. */
const char *dra_object_version(const void *object);
const char *dra_object_origin(const void *object);

/* A batch of changes, applied together by dra_store_publish. The put
 * functions take over what *obj owns and zero it. */
struct dra_batch;

struct dra_batch *dra_batch_new(void);
void dra_batch_put_slice(struct dra_batch *b, struct dra_slice *obj, const char *version,
			 const char *origin);
void dra_batch_put_class(struct dra_batch *b, struct dra_class *obj, const char *version,
			 const char *origin);
/* A claim, or a template's (obj->from_template). */
void dra_batch_put_claim(struct dra_batch *b, struct dra_claim *obj, const char *version,
			 const char *origin);
/* Every object of o (slices, classes, claims, templates, each in o's
 * order) with one version and origin; o keeps nothing but its bad objects
 * (clean it up as usual). */
void dra_batch_put_objects(struct dra_batch *b, struct dra_objects *o, const char *version,
			   const char *origin);
/* ns is NULL for slices and classes. Deleting what is absent is no change. */
void dra_batch_delete(struct dra_batch *b, enum dra_kind kind, const char *ns, const char *name);
/* The batch holds every object of kind (a complete list): the store's other
 * objects of that kind go, except those dra_batch_keep names (listed, but
 * they did not decode: they keep their last good version). */
void dra_batch_replace(struct dra_batch *b, enum dra_kind kind);
void dra_batch_keep(struct dra_batch *b, enum dra_kind kind, const char *ns, const char *name);
/* Puts, deletes and replaced kinds in the batch. */
size_t dra_batch_size(const struct dra_batch *b);
void dra_batch_free(struct dra_batch *b);

/* Applies and frees the batch; returns the snapshot version now current
 * (the one before when nothing changed). A put whose version and origin are
 * those of the object it replaces is no change. */
uint64_t dra_store_publish(struct dra_store *s, struct dra_batch *b);

/* A bad object a source logged and skipped. */
void dra_store_count_error(struct dra_store *s);

/* Readiness: set by a source once its first complete load is in. */
void dra_store_set_ready(struct dra_store *s, bool ready);
bool dra_store_ready(struct dra_store *s);

struct dra_store_stats {
	uint64_t version;
	uint64_t publishes;     /* publishes that changed something */
	uint64_t errors;        /* dra_store_count_error calls */
	size_t objects[DRA_KIND_COUNT];
	size_t nodes, devices, allocated;
};
void dra_store_stats(struct dra_store *s, struct dra_store_stats *out);

/* The store's counts in the Prometheus text format (numa_extender_dra_*),
 * for /metrics. */
void dra_store_metrics(struct dra_store *s, struct textbuf *b);

#endif
