/* SPDX-License-Identifier: Apache-2.0 */
/* The depth-first, first-fit search (allocator_incubating.go allocateOne
 * and allocateDevice): claims in order, requests in order, the devices of
 * one request as combinations, backtracking as far as needed. The first
 * complete solution is the allocator's answer: there is no scoring. */
#include "dra/alloc_internal.h"

static void undo(struct alloc_ctx *x, struct alloc_claim *ac, const struct alloc_req *rq, size_t i)
{
	ac->npicks--;
	x->devs[i].chosen = false;
	alloc_cons_remove(ac, rq);
}

/* Device i taken for request r (constraints already hold), then the rest. */
static enum alloc_step take(struct alloc_ctx *x, size_t c, size_t r, size_t k, size_t i,
			    size_t next_start)
{
	struct alloc_claim *ac = &x->claims[c];
	enum alloc_step step;

	x->devs[i].chosen = true;
	ac->picks[ac->npicks].dev = i;
	ac->picks[ac->npicks].req = r;
	ac->npicks++;
	step = alloc_search(x, c, r, k + 1, next_start);
	if (step != STEP_DONE)
		undo(x, ac, &ac->reqs[r], i);
	return step;
}

static bool budget_left(struct alloc_ctx *x)
{
	if (++x->steps <= x->budget)
		return true;
	alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
		   "the device search passed %llu steps (constraints with many combinations)",
		   (unsigned long long)x->budget);
	return false;
}

/* Mode All: the devices are known; each must be free, and a constraint
 * that rejects one is an error of the claim, not of the node. */
static enum alloc_step all_devices(struct alloc_ctx *x, size_t c, size_t r, size_t k)
{
	struct alloc_claim *ac = &x->claims[c];
	struct alloc_req *rq = &ac->reqs[r];
	char q1[96], q2[96], q3[96];
	size_t i;

	if (rq->count == 0)
		return STEP_FAIL;
	if (k >= rq->count)
		return alloc_search(x, c, r + 1, 0, 0);
	if (!budget_left(x))
		return STEP_STOP;
	i = rq->all[k];
	if (x->devs[i].chosen || alloc_dev_in_use(x, i))
		return STEP_FAIL;
	if (!alloc_candidate_modelled(x, i))
		return STEP_STOP;
	if (!alloc_cons_add(ac, rq, x->devs[i].dev)) {
		alloc_stop(x, DRA_ALLOC_FATAL,
			   "claim %s, request %s: cannot add device %s because a claim constraint "
			   "would not be satisfied",
			   alloc_q(q1, sizeof q1, ac->claim->name), alloc_q(q2, sizeof q2, rq->name),
			   alloc_q(q3, sizeof q3, x->devs[i].dev->name));
		return STEP_STOP;
	}
	return take(x, c, r, k, i, 0);
}

/* Device k of an ExactCount request, scanning from start. */
static enum alloc_step exact_devices(struct alloc_ctx *x, size_t c, size_t r, size_t k,
				     size_t start)
{
	struct alloc_claim *ac = &x->claims[c];
	struct alloc_req *rq = &ac->reqs[r];
	size_t i;

	if (k >= rq->count)
		return alloc_search(x, c, r + 1, 0, 0);
	for (i = start; i < x->ndevs; i++) {
		const struct alloc_dev *a = &x->devs[i];
		enum alloc_step step;
		int m;

		if (a->chosen || (!a->dev->allow_multiple_allocations && alloc_dev_in_use(x, i)))
			continue;
		if (!budget_left(x))
			return STEP_STOP;
		m = alloc_selectable(x, ac, rq, i);
		if (m < 0)
			return STEP_STOP;
		if (m == 0)
			continue;
		if (!alloc_candidate_modelled(x, i))
			return STEP_STOP;
		if (!alloc_cons_add(ac, rq, a->dev))
			continue;
		step = take(x, c, r, k, i, i + 1);
		if (step != STEP_FAIL)
			return step;
	}
	return STEP_FAIL;
}

enum alloc_step alloc_search(struct alloc_ctx *x, size_t c, size_t r, size_t k, size_t start)
{
	struct alloc_claim *ac;
	struct alloc_req *rq;
	enum alloc_step step;
	char q1[96], q2[96];

	if (c == x->nclaims)
		return STEP_DONE;
	ac = &x->claims[c];
	if (ac->preallocated || r == ac->nreqs)
		return alloc_search(x, c + 1, 0, 0, 0);
	rq = &ac->reqs[r];
	if (k > 0)
		return rq->spec->mode == DRA_ALL ? all_devices(x, c, r, k)
						 : exact_devices(x, c, r, k, start);
	/* Only a first alternative that needs more devices than a later one
	 * can pass the claim's limit: the allocator would go on to the next. */
	if (ac->npicks + rq->count > DRA_MAX_RESULTS) {
		alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
			   "claim %s, request %s: the first alternative passes the claim's limit of "
			   "%d devices; the allocator would try the next",
			   alloc_q(q1, sizeof q1, ac->claim->name), alloc_q(q2, sizeof q2, rq->name),
			   DRA_MAX_RESULTS);
		return STEP_STOP;
	}
	step = rq->spec->mode == DRA_ALL ? all_devices(x, c, r, 0) : exact_devices(x, c, r, 0, 0);
	if (step == STEP_FAIL && rq->req->nspecs > 1) {
		alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
			   "claim %s, request %s: the first alternative of the prioritized list "
			   "cannot be satisfied here; later ones are not predicted",
			   alloc_q(q1, sizeof q1, ac->claim->name), alloc_q(q2, sizeof q2, rq->name));
		return STEP_STOP;
	}
	return step;
}
