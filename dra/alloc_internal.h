/* SPDX-License-Identifier: Apache-2.0 */
/* The allocator prediction's working state, shared by its files: the
 * node's view (alloc_view.c), the search (alloc_search.c), the claim
 * constraints (alloc_constraint.c), the unsorted order (alloc_unsorted.c)
 * and the entry point (alloc.c). */
#ifndef DRA_ALLOC_INTERNAL_H
#define DRA_ALLOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "dra/alloc.h"

/* One device of a complete pool, in the allocator's scan order. */
struct alloc_dev {
	const struct dra_device *dev;
	const struct dra_slice *slice;
	const struct dra_pool *pool;
	uint8_t in_use; /* in the allocated set: 0 not looked up yet, 1 no, 2 yes */
	bool chosen;    /* taken earlier in this call, for any claim */
	bool numa_done; /* numa and numa_source are set (alloc_dev_numa) */
	enum dra_numa_source numa_source;
	struct dra_numa numa;
};

/* One request of a claim to allocate; its first alternative is searched. */
struct alloc_req {
	const struct dra_request *req;
	const struct dra_request_spec *spec;
	const struct dra_class *cls;
	size_t index;          /* in the claim */
	char *name;            /* the results' name: "<req>" or "<req>/<sub>" */
	const char *sub;       /* the alternative's name, or NULL */
	size_t count;          /* devices wanted (All: how many match) */
	size_t *all;           /* All: the matching devices, flat indices */
	uint8_t *memo;         /* per flat device: 0 not yet, 1 no, 2 yes */
};

/* A constraint's running state (constraint.go: the first value and a
 * count; distinctAttribute keeps one value per request name). */
struct alloc_cons {
	const struct dra_constraint *c;
	const struct dra_attribute *first;
	size_t n;
	const struct dra_attribute **last; /* distinct: per request of the claim */
};

struct alloc_pick {
	size_t dev;
	size_t req;
};

struct alloc_claim {
	const struct dra_claim *claim;
	bool preallocated;
	struct alloc_req *reqs;
	size_t nreqs;
	struct alloc_cons *cons;
	size_t ncons;
	struct alloc_pick *picks;
	size_t npicks;
};

struct alloc_ctx {
	const struct dra_alloc_input *in;
	/* The tables of one prediction (the view's devices, the requests'
	 * memos and candidates): freed at once when it ends, for a large
	 * filter makes one prediction per node. */
	struct arena *arena;
	struct dra_node_pools pools;
	struct dra_numa_roots roots; /* the node's PCIe roots (once roots_built) */
	bool roots_built;
	struct alloc_dev *devs;
	size_t ndevs;
	struct alloc_claim *claims;
	size_t nclaims;
	uint64_t steps, budget;
	/* Set by whatever stops the search. */
	enum dra_alloc_verdict stop;
	struct errmsg why;
	bool searching;        /* in alloc_search (not the prologue) */
	bool stop_in_search;   /* the stop came from the search: it depends on the scan order */
	const char *pending;   /* a request feature that is not modelled */
	const struct alloc_claim *pending_claim;
	const struct alloc_req *pending_req;
};

enum alloc_step {
	STEP_DONE,
	STEP_FAIL,
	STEP_STOP,
};

/* alloc_view.c: the view of x->in's node (pools, devices, PCIe roots). */
void alloc_view_build(struct alloc_ctx *x);
void alloc_view_free(struct alloc_ctx *x);
/* The device (driver, pool, name) among every pool the node sees, or NULL. */
const struct dra_device *alloc_view_find(const struct alloc_ctx *x, const char *driver,
					 const char *pool, const char *device);
/* Device i's NUMA set, worked out on first use. */
const struct alloc_dev *alloc_dev_numa(struct alloc_ctx *x, size_t i);
/* Whether device i is in the allocated set (looked up on first use: a
 * search usually stops after a few devices). */
bool alloc_dev_in_use(struct alloc_ctx *x, size_t i);
/* The node's PCIe roots, placed on first use. */
const struct dra_numa_roots *alloc_view_roots(struct alloc_ctx *x);

/* Stops the search with verdict v and a reason. */
void alloc_stop(struct alloc_ctx *x, enum dra_alloc_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* s as a quoted literal, cut at 64 bytes, in buf. */
const char *alloc_q(char *buf, size_t size, const char *s);

/* Whether device i matches rq's selectors (class, then request) and, with
 * perDeviceNodeSelection, the node: 1 yes, 0 no, -1 stopped. */
int alloc_selectable(struct alloc_ctx *x, const struct alloc_claim *ac, struct alloc_req *rq,
		     size_t i);
/* false (and stopped as CANNOT_PREDICT) when a selectable device uses a
 * feature the prediction does not model. */
bool alloc_candidate_modelled(struct alloc_ctx *x, size_t i);

/* alloc_search.c */
enum alloc_step alloc_search(struct alloc_ctx *x, size_t c, size_t r, size_t k, size_t start);

/* alloc_unsorted.c: turns the sorted search's outcome into the unsorted
 * order's (sameNUMA, or cannot predict where the order matters). */
void alloc_unsorted_outcome(struct alloc_ctx *x);

/* alloc_constraint.c */
void alloc_cons_init(struct alloc_claim *ac);
void alloc_cons_free(struct alloc_claim *ac);
/* Adds device d for rq to every constraint of the claim; false (nothing
 * added) when one rejects it. */
bool alloc_cons_add(struct alloc_claim *ac, const struct alloc_req *rq, const struct dra_device *d);
void alloc_cons_remove(struct alloc_claim *ac, const struct alloc_req *rq);

#endif
