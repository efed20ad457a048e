/* SPDX-License-Identifier: Apache-2.0 */
/* The unresolvable decision of the alignment: whether devices that match a
 * request exist on the affinity's NUMA nodes at all, on the node emptied of
 * every allocation. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/align.h"
#include "dra/alloc_internal.h"

/* One alternative of a request over every device of the node. */
static enum dra_reach spec_reach(struct alloc_ctx *x, const struct alloc_claim *ac,
				 struct alloc_req *rq, uint64_t affinity)
{
	size_t i, inside = 0, outside = 0;

	rq->cls = dra_class_find(x->in->classes, x->in->nclasses, rq->spec->class_name);
	if (rq->cls == NULL)
		return DRA_REACH_UNKNOWN;
	memset(rq->memo, 0, x->ndevs ? x->ndevs : 1);
	for (i = 0; i < x->ndevs; i++) {
		const struct alloc_dev *a = alloc_dev_numa(x, i);
		bool out = a->numa.known && (a->numa.nodes & ~affinity) != 0;
		int m;

		/* ExactCount only counts the devices near the CPUs: the
		 * selectors of the others need not run, and enough near ones
		 * settle it. */
		if (out && rq->spec->mode != DRA_ALL)
			continue;
		m = alloc_selectable(x, ac, rq, i);
		if (m < 0)
			return DRA_REACH_UNKNOWN;
		if (m == 0)
			continue;
		if (out)
			outside++;
		else
			inside++;
		if (rq->spec->mode != DRA_ALL && rq->spec->count > 0 && (uint64_t)inside >= (uint64_t)rq->spec->count)
			break;
	}
	if (rq->spec->mode == DRA_ALL)
		return outside == 0 && inside > 0 ? DRA_REACH_YES : DRA_REACH_NO;
	if (rq->spec->count <= 0 || (uint64_t)inside >= (uint64_t)rq->spec->count)
		return DRA_REACH_YES;
	return DRA_REACH_NO;
}

/* Request r of claim c: YES when one alternative can be served. */
static enum dra_reach request_reach(struct alloc_ctx *x, const struct dra_claim *claim, size_t r,
				    uint64_t affinity)
{
	struct alloc_claim ac;
	struct alloc_req rq;
	enum dra_reach best = DRA_REACH_NO;
	size_t k;

	memset(&ac, 0, sizeof ac);
	memset(&rq, 0, sizeof rq);
	ac.claim = claim;
	rq.req = &claim->requests[r];
	rq.name = claim->requests[r].name;
	rq.memo = arena_alloc(x->arena, x->ndevs ? x->ndevs : 1);
	for (k = 0; k < rq.req->nspecs && best != DRA_REACH_YES; k++) {
		enum dra_reach one;

		rq.spec = &rq.req->specs[k];
		one = spec_reach(x, &ac, &rq, affinity);
		if (one == DRA_REACH_YES || best == DRA_REACH_NO)
			best = one;
	}
	return best;
}

static const struct dra_claim *claim_named(const struct dra_alloc_input *in,
					   const struct dra_pod_claim *pod_claims, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < in->nclaims; i++)
		if (pod_claims[i].name != NULL && strcmp(pod_claims[i].name, name) == 0)
			return in->claims[i];
	return NULL;
}

enum dra_reach dra_align_reach(const struct dra_alloc_input *in,
			       const struct dra_pod_claim *pod_claims,
			       const struct dra_align_unit *unit)
{
	enum dra_reach all = DRA_REACH_YES;
	struct alloc_ctx x;
	struct arena arena;
	size_t i, r;

	memset(&x, 0, sizeof x);
	arena_init(&arena);
	x.arena = &arena;
	x.in = in;
	dra_selectors_prepare(in->selectors, in->claims, in->nclaims, in->classes, in->nclasses);
	alloc_view_build(&x);
	for (i = 0; i < unit->nrefs && all != DRA_REACH_NO; i++) {
		const struct dra_claim *claim = claim_named(in, pod_claims, unit->refs[i].claim);

		for (r = 0; claim != NULL && r < claim->nrequests && all != DRA_REACH_NO; r++) {
			enum dra_reach one;

			if (unit->refs[i].request != NULL &&
			    (claim->requests[r].name == NULL ||
			     strcmp(unit->refs[i].request, claim->requests[r].name) != 0))
				continue;
			one = request_reach(&x, claim, r, unit->affinity);
			if (one != DRA_REACH_YES)
				all = one;
		}
	}
	alloc_view_free(&x);
	arena_cleanup(&arena);
	return all;
}
