/* SPDX-License-Identifier: Apache-2.0 */
/* The prediction's entry point: the claims read back or prepared as the
 * allocator's prologue does (allocator_incubating.go Allocate: classes,
 * the devices of mode All, the per-claim limit), the search, and the
 * result with each device's NUMA node. */
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/alloc_internal.h"

/* Allocated claims go first, as in the plugin's Filter: one allocated for
 * another node rules this node out before anything is allocated. */
static bool read_back(struct alloc_ctx *x)
{
	char q1[96], q2[96];
	size_t c;

	for (c = 0; c < x->nclaims; c++) {
		const struct dra_claim *cl = x->in->claims[c];

		x->claims[c].claim = cl;
		if (cl == NULL) {
			alloc_stop(x, DRA_ALLOC_FATAL, "the pod's claim #%zu does not exist", c);
			return false;
		}
		x->claims[c].preallocated = cl->allocated;
		if (cl->allocated && cl->allocated_node != NULL &&
		    strcmp(cl->allocated_node, x->in->node->name) != 0) {
			alloc_stop(x, DRA_ALLOC_UNSATISFIABLE, "claim %s is allocated for node %s",
				   alloc_q(q1, sizeof q1, cl->name),
				   alloc_q(q2, sizeof q2, cl->allocated_node));
			return false;
		}
	}
	return true;
}

static const char *pool_trouble(const struct dra_pool *p)
{
	if (p->state == DRA_POOL_INCOMPLETE)
		return "is currently being updated";
	if (p->state == DRA_POOL_INVALID)
		return "is currently invalid (a device name occurs twice)";
	if (p->counters)
		return "has shared counters (partitionable devices are not predicted)";
	return NULL;
}

/* Mode All: every device of the node that matches, over all its pools. */
static bool enumerate_all(struct alloc_ctx *x, const struct alloc_claim *ac, struct alloc_req *rq)
{
	char q1[96], q2[96], q3[96];
	size_t p, i = 0;

	rq->all = arena_alloc(x->arena, (x->ndevs ? x->ndevs : 1) * sizeof *rq->all);
	rq->count = 0;
	for (p = 0; p < x->pools.n; p++) {
		const struct dra_pool *pool = &x->pools.pools[p];
		const char *trouble = pool_trouble(pool);

		if (trouble != NULL) {
			alloc_stop(x, pool->state == DRA_POOL_COMPLETE ? DRA_ALLOC_CANNOT_PREDICT
								       : DRA_ALLOC_FATAL,
				   "claim %s, request %s: asks for all devices, but resource pool %s %s",
				   alloc_q(q1, sizeof q1, ac->claim->name),
				   alloc_q(q2, sizeof q2, rq->name), alloc_q(q3, sizeof q3, pool->name),
				   trouble);
			return false;
		}
		for (; i < x->ndevs && x->devs[i].pool == pool; i++) {
			int m = alloc_selectable(x, ac, rq, i);

			if (m < 0)
				return false;
			if (m == 0)
				continue;
			if ((x->devs[i].dev->binding_conditions ||
			     x->devs[i].dev->allow_multiple_allocations) &&
			    !alloc_candidate_modelled(x, i))
				return false;
			rq->all[rq->count++] = i;
		}
	}
	return true;
}

/* How many devices alternative k of request r needs; false when stopped. */
static bool spec_devices(struct alloc_ctx *x, struct alloc_claim *ac, struct alloc_req *rq,
			 size_t *n)
{
	char q1[96], q2[96], q3[96];

	rq->cls = dra_class_find(x->in->classes, x->in->nclasses, rq->spec->class_name);
	if (rq->cls == NULL) {
		alloc_stop(x, DRA_ALLOC_FATAL, "claim %s, request %s: device class %s does not exist",
			   alloc_q(q1, sizeof q1, ac->claim->name), alloc_q(q2, sizeof q2, rq->name),
			   alloc_q(q3, sizeof q3, rq->spec->class_name));
		return false;
	}
	if (rq->spec->mode == DRA_ALL) {
		if (!enumerate_all(x, ac, rq))
			return false;
		*n = rq->count;
		return true;
	}
	if (rq->spec->count <= 0)
		*n = 0;
	else if ((uint64_t)rq->spec->count > DRA_MAX_RESULTS)
		*n = DRA_MAX_RESULTS + 1; /* over the limit whatever it is */
	else
		*n = (size_t)rq->spec->count;
	rq->count = *n;
	return true;
}

static void req_name(struct alloc_req *rq)
{
	const char *base = rq->req->name != NULL ? rq->req->name : "";
	struct textbuf b;

	textbuf_init(&b, strlen(base) + (rq->sub ? strlen(rq->sub) : 0) + 2);
	textbuf_adds(&b, base);
	if (rq->sub != NULL)
		textbuf_printf(&b, "/%s", rq->sub);
	rq->name = textbuf_take(&b, NULL);
}

/* Request features that change which device is chosen but not the
 * prologue: noted, and answered once the prologue found no error. */
static void note_pending(struct alloc_ctx *x, const struct alloc_claim *ac,
			 const struct alloc_req *rq)
{
	if (x->pending != NULL)
		return;
	if (rq->req->specs[0].admin_access)
		x->pending = "asks for admin access";
	else if (rq->req->specs[0].tolerations)
		x->pending = "tolerates device taints";
	x->pending_claim = ac;
	x->pending_req = rq;
}

/* One request: every alternative is checked as upstream does; the first
 * is kept for the search. */
static bool prepare_request(struct alloc_ctx *x, struct alloc_claim *ac, size_t r, size_t *min)
{
	const struct dra_request *req = &ac->claim->requests[r];
	struct alloc_req *rq = &ac->reqs[r];
	char q1[96], q2[96];
	size_t k, n;

	rq->req = req;
	rq->index = r;
	rq->sub = req->subnames != NULL && req->nspecs > 0 ? req->subnames[0] : NULL;
	req_name(rq);
	rq->memo = arena_alloc(x->arena, x->ndevs ? x->ndevs : 1);
	if (req->nspecs == 0) {
		alloc_stop(x, DRA_ALLOC_FATAL, "claim %s, request %s: no device request",
			   alloc_q(q1, sizeof q1, ac->claim->name), alloc_q(q2, sizeof q2, rq->name));
		return false;
	}
	for (k = 0; k < req->nspecs; k++)
		if (req->specs[k].capacity_requests) {
			alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
				   "claim %s, request %s: capacity requests (consumable capacity) "
				   "are not predicted",
				   alloc_q(q1, sizeof q1, ac->claim->name),
				   alloc_q(q2, sizeof q2, rq->name));
			return false;
		}
	note_pending(x, ac, rq);
	*min = SIZE_MAX;
	for (k = 0; k < req->nspecs; k++) {
		/* A later alternative only needs its class and, in mode All,
		 * its devices checked: a scratch request holds them. */
		struct alloc_req tmp = *rq;
		bool ok;

		tmp.spec = &req->specs[k];
		if (k > 0) {
			tmp.sub = req->subnames != NULL ? req->subnames[k] : NULL;
			req_name(&tmp);
			tmp.all = NULL;
			tmp.memo = arena_alloc(x->arena, x->ndevs ? x->ndevs : 1);
		}
		ok = spec_devices(x, ac, &tmp, &n);
		if (k > 0) {
			free(tmp.name);
		} else {
			*rq = tmp;
		}
		if (!ok)
			return false;
		if (n < *min)
			*min = n;
	}
	return true;
}

static bool prologue(struct alloc_ctx *x)
{
	char q1[96];
	size_t c, r;

	for (c = 0; c < x->nclaims; c++) {
		struct alloc_claim *ac = &x->claims[c];
		size_t total = 0, min;

		if (ac->preallocated)
			continue;
		ac->nreqs = ac->claim->nrequests;
		ac->reqs = arena_alloc(x->arena, (ac->nreqs ? ac->nreqs : 1) * sizeof *ac->reqs);
		ac->picks = arena_alloc(x->arena, DRA_MAX_RESULTS * sizeof *ac->picks);
		alloc_cons_init(ac);
		for (r = 0; r < ac->nreqs; r++) {
			if (!prepare_request(x, ac, r, &min))
				return false;
			total = total + min < total ? SIZE_MAX : total + min;
		}
		if (total > DRA_MAX_RESULTS) {
			alloc_stop(x, DRA_ALLOC_FATAL,
				   "claim %s: number of requested devices exceeds the claim limit of %d",
				   alloc_q(q1, sizeof q1, ac->claim->name), DRA_MAX_RESULTS);
			return false;
		}
	}
	return true;
}

static void fill_claim(struct alloc_ctx *x, const struct alloc_claim *ac,
		       struct dra_claim_picks *out)
{
	size_t i, n = ac->preallocated ? ac->claim->nresults : ac->npicks;

	out->preallocated = ac->preallocated;
	out->picks = xcalloc(n ? n : 1, sizeof *out->picks);
	for (i = 0; i < n; i++) {
		struct dra_pick *p = &out->picks[out->n];

		if (ac->preallocated) {
			const struct dra_result *res = &ac->claim->results[i];

			if (res->driver == NULL || res->pool == NULL || res->device == NULL)
				continue;
			p->request = xstrdup(res->request != NULL ? res->request : "");
			p->driver = res->driver;
			p->pool = res->pool;
			p->device = res->device;
			p->dev = alloc_view_find(x, res->driver, res->pool, res->device);
			if (p->dev != NULL)
				p->numa_source = dra_device_numa(p->dev, alloc_view_roots(x),
								 &p->numa);
		} else {
			const struct alloc_dev *a = alloc_dev_numa(x, ac->picks[i].dev);

			p->request = xstrdup(ac->reqs[ac->picks[i].req].name);
			p->driver = a->pool->driver;
			p->pool = a->pool->name;
			p->device = a->dev->name;
			p->dev = a->dev;
			p->numa = a->numa;
			p->numa_source = a->numa_source;
		}
		out->n++;
	}
}

static void ctx_free(struct alloc_ctx *x)
{
	size_t c, r;

	for (c = 0; c < x->nclaims; c++) {
		struct alloc_claim *ac = &x->claims[c];

		for (r = 0; ac->reqs != NULL && r < ac->nreqs; r++)
			free(ac->reqs[r].name);
		alloc_cons_free(ac);
	}
	alloc_view_free(x);
	arena_cleanup(x->arena);
}

void dra_alloc_predict(const struct dra_alloc_input *in, struct dra_alloc_result *out)
{
	struct alloc_ctx x;
	struct arena arena;
	size_t c;

	memset(out, 0, sizeof *out);
	memset(&x, 0, sizeof x);
	arena_init(&arena);
	x.arena = &arena;
	x.in = in;
	x.budget = in->budget ? in->budget : DRA_SEARCH_BUDGET;
	x.stop = DRA_ALLOC_OK;
	x.nclaims = in->nclaims;
	x.claims = arena_alloc(&arena, (in->nclaims ? in->nclaims : 1) * sizeof *x.claims);
	dra_selectors_prepare(in->selectors, in->claims, in->nclaims, in->classes, in->nclasses);
	alloc_view_build(&x);
	if (read_back(&x) && prologue(&x)) {
		if (x.pending != NULL) {
			char q1[96], q2[96];

			alloc_stop(&x, DRA_ALLOC_CANNOT_PREDICT, "claim %s, request %s %s",
				   alloc_q(q1, sizeof q1, x.pending_claim->claim->name),
				   alloc_q(q2, sizeof q2, x.pending_req->name), x.pending);
		} else {
			x.searching = true;
			if (alloc_search(&x, 0, 0, 0, 0) == STEP_FAIL)
				alloc_stop(&x, DRA_ALLOC_UNSATISFIABLE, "cannot allocate all claims");
			x.searching = false;
		}
	}
	if (in->order == DRA_ORDER_UNSORTED)
		alloc_unsorted_outcome(&x);
	out->verdict = x.stop;
	out->why = x.why;
	out->steps = x.steps;
	if (x.stop == DRA_ALLOC_OK || x.stop == DRA_ALLOC_SAME_NUMA) {
		out->why.text[0] = '\0';
		out->nclaims = x.nclaims;
		out->claims = xcalloc(x.nclaims ? x.nclaims : 1, sizeof *out->claims);
		for (c = 0; c < x.nclaims; c++)
			fill_claim(&x, &x.claims[c], &out->claims[c]);
	}
	ctx_free(&x);
}

void dra_alloc_result_free(struct dra_alloc_result *r)
{
	size_t c, i;

	for (c = 0; c < r->nclaims; c++) {
		for (i = 0; i < r->claims[c].n; i++)
			free(r->claims[c].picks[i].request);
		free(r->claims[c].picks);
	}
	free(r->claims);
	memset(r, 0, sizeof *r);
}

const char *dra_alloc_verdict_name(enum dra_alloc_verdict v)
{
	switch (v) {
	case DRA_ALLOC_OK: return "allocated";
	case DRA_ALLOC_SAME_NUMA: return "sameNUMA";
	case DRA_ALLOC_UNSATISFIABLE: return "unsatisfiable";
	case DRA_ALLOC_CANNOT_PREDICT: return "cannotPredict";
	case DRA_ALLOC_FATAL: return "fatal";
	}
	return "unknown";
}
