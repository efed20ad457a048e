/* SPDX-License-Identifier: Apache-2.0 */
/* The node as the search sees it: the devices of its complete pools in scan
 * order (a position in that list is upstream's (pool, slice, device)
 * location), which of them are allocated already, and the per-device
 * checks: selectors and the features the prediction does not model. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/alloc_internal.h"

const char *alloc_q(char *buf, size_t size, const char *s)
{
	struct textbuf b;

	textbuf_init_fixed(&b, buf, size);
	if (s == NULL)
		textbuf_adds(&b, "(none)");
	else
		textbuf_quote(&b, s, strlen(s), 64, TEXTBUF_QUOTE_RAW_HIGH);
	return buf;
}

void alloc_stop(struct alloc_ctx *x, enum dra_alloc_verdict v, const char *fmt, ...)
{
	struct textbuf b;
	va_list ap;

	x->stop = v;
	x->stop_in_search = x->searching;
	textbuf_init_fixed(&b, x->why.text, sizeof x->why.text);
	va_start(ap, fmt);
	textbuf_vprintf(&b, fmt, ap);
	va_end(ap);
}

/* Only the node's own devices say where its PCIe roots are: a device
 * published for several nodes sits on none of them in particular. */
const struct dra_numa_roots *alloc_view_roots(struct alloc_ctx *x)
{
	size_t p, s, d;

	if (x->roots_built)
		return &x->roots;
	x->roots_built = true;
	for (p = 0; p < x->pools.n; p++)
		for (s = 0; s < x->pools.pools[p].nslices; s++) {
			const struct dra_slice *sl = x->pools.pools[p].slices[s];

			for (d = 0; d < sl->ndevices; d++) {
				const struct dra_device *dev = &sl->devices[d];
				bool local = sl->selection == DRA_NODE_NAME ||
					     (sl->selection == DRA_PER_DEVICE &&
					      dev->selection == DRA_NODE_NAME &&
					      dra_selection_matches(DRA_NODE_NAME, dev->node_name,
								    NULL, x->in->node));

				if (local)
					dra_numa_roots_add(&x->roots, dev);
			}
		}
	return &x->roots;
}

void alloc_view_build(struct alloc_ctx *x)
{
	size_t p, s, d, n = 0;

	dra_node_pools_gather_in(&x->pools, x->in->slices, x->in->node, x->arena);
	for (p = 0; p < x->pools.n; p++)
		for (s = 0; s < x->pools.pools[p].nslices; s++)
			n += x->pools.pools[p].slices[s]->ndevices;
	x->devs = arena_alloc(x->arena, (n ? n : 1) * sizeof *x->devs);
	for (p = 0; p < x->pools.n; p++) {
		const struct dra_pool *pool = &x->pools.pools[p];

		if (pool->state != DRA_POOL_COMPLETE)
			continue;
		for (s = 0; s < pool->nslices; s++)
			for (d = 0; d < pool->slices[s]->ndevices; d++) {
				struct alloc_dev *a;

				if (pool->slices[s]->devices[d].name == NULL)
					continue; /* not a device the allocator could name */
				a = &x->devs[x->ndevs++];
				a->slice = pool->slices[s];
				a->dev = &a->slice->devices[d];
				a->pool = pool;
			}
	}
}

const struct alloc_dev *alloc_dev_numa(struct alloc_ctx *x, size_t i)
{
	struct alloc_dev *a = &x->devs[i];

	if (!a->numa_done) {
		/* The node's PCIe roots only for a device that does not say its
		 * NUMA node itself: placing them reads every device. */
		a->numa_source = dra_numa_own(a->dev, &a->numa);
		if (a->numa_source == DRA_NUMA_UNKNOWN)
			a->numa_source = dra_device_numa(a->dev, alloc_view_roots(x), &a->numa);
		a->numa_done = true;
	}
	return a;
}

bool alloc_dev_in_use(struct alloc_ctx *x, size_t i)
{
	struct alloc_dev *a = &x->devs[i];
	const struct dra_device_set *set = x->in->allocated;

	if (a->in_use == 0)
		a->in_use = (set != NULL && dra_device_set_has(set, a->pool->driver, a->pool->name,
								a->dev->name)) ||
					    (x->in->in_use != NULL &&
					     x->in->in_use(x->in->in_use_ctx, a->pool->driver,
							   a->pool->name, a->dev->name))
				    ? 2 : 1;
	return a->in_use == 2;
}

void alloc_view_free(struct alloc_ctx *x)
{
	dra_numa_roots_free(&x->roots);
	x->devs = NULL; /* in x->arena */
	x->ndevs = 0;
	dra_node_pools_free(&x->pools);
}

const struct dra_device *alloc_view_find(const struct alloc_ctx *x, const char *driver,
					 const char *pool, const char *device)
{
	size_t p, s, d;

	for (p = 0; p < x->pools.n; p++) {
		const struct dra_pool *pl = &x->pools.pools[p];

		if (strcmp(pl->driver, driver) != 0 || strcmp(pl->name, pool) != 0)
			continue;
		for (s = 0; s < pl->nslices; s++)
			for (d = 0; d < pl->slices[s]->ndevices; d++)
				if (pl->slices[s]->devices[d].name != NULL &&
				    strcmp(pl->slices[s]->devices[d].name, device) == 0)
					return &pl->slices[s]->devices[d];
	}
	return NULL;
}

/* One selector list on device i: 1 all true, 0 one false, -1 stopped. */
static int selectors_match(struct alloc_ctx *x, const struct alloc_claim *ac, char *const *exprs,
			   size_t n, const char *owner, const struct alloc_dev *a)
{
	char err[256], q1[96], q2[96], q3[96];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct dra_selector *s;
		enum dra_cel_value v;

		if (exprs[i] == NULL) {
			alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT, "%s selector #%zu has no expression",
				   owner, i);
			return -1;
		}
		s = dra_selectors_get(x->in->selectors, exprs[i]);
		if (s->status != DRA_CEL_COMPILED) {
			alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT, "%s selector %s %s: %s", owner,
				   alloc_q(q1, sizeof q1, exprs[i]),
				   s->status == DRA_CEL_UNSUPPORTED ? "is outside the supported CEL subset"
								    : "does not compile",
				   s->msg.text);
			return -1;
		}
		err[0] = '\0';
		v = dra_selectors_eval(x->in->selectors, s, a->dev, a->slice->driver, err, sizeof err);
		if (v == DRA_CEL_FALSE)
			return 0;
		if (v == DRA_CEL_TRUE)
			continue;
		/* Without the binding-conditions gates the allocator never looks
		 * at such a device, so its error may not happen; what the
		 * evaluator cannot work out is no error of the scheduler's. */
		alloc_stop(x, a->dev->binding_conditions || v == DRA_CEL_UNKNOWN ? DRA_ALLOC_CANNOT_PREDICT
										 : DRA_ALLOC_FATAL,
			   "claim %s: %s selector %s on device %s: CEL runtime error: %s",
			   alloc_q(q2, sizeof q2, ac->claim->name), owner,
			   alloc_q(q1, sizeof q1, exprs[i]), alloc_q(q3, sizeof q3, a->dev->name), err);
		return -1;
	}
	return 1;
}

int alloc_selectable(struct alloc_ctx *x, const struct alloc_claim *ac, struct alloc_req *rq,
		     size_t i)
{
	const struct alloc_dev *a = &x->devs[i];
	int m;

	if (rq->memo[i] != 0)
		return rq->memo[i] == 2;
	m = selectors_match(x, ac, rq->cls->selectors, rq->cls->nselectors, "class", a);
	if (m == 1)
		m = selectors_match(x, ac, rq->spec->selectors, rq->spec->nselectors, "request", a);
	if (m < 0)
		return -1;
	if (m == 1 && a->slice->selection == DRA_PER_DEVICE)
		m = dra_selection_matches(a->dev->selection, a->dev->node_name,
					  &a->dev->node_selector, x->in->node);
	rq->memo[i] = m == 1 ? 2 : 1;
	return m;
}

static const char *untolerable_taint(const struct dra_device *d)
{
	size_t i;

	for (i = 0; i < d->ntaints; i++)
		if (d->taints[i].effect != NULL && (strcmp(d->taints[i].effect, "NoSchedule") == 0 ||
						    strcmp(d->taints[i].effect, "NoExecute") == 0))
			return d->taints[i].effect;
	return NULL;
}

bool alloc_candidate_modelled(struct alloc_ctx *x, size_t i)
{
	const struct alloc_dev *a = &x->devs[i];
	const char *what = NULL, *taint = untolerable_taint(a->dev);
	char q1[96], q2[96];

	if (a->dev->binding_conditions)
		what = "has binding conditions";
	else if (a->dev->allow_multiple_allocations)
		what = "allows multiple allocations (consumable capacity)";
	else if (a->pool->counters)
		what = "is in a pool with shared counters (partitionable devices)";
	else if (taint != NULL)
		what = strcmp(taint, "NoSchedule") == 0 ? "has a NoSchedule taint"
							: "has a NoExecute taint";
	if (what == NULL)
		return true;
	alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT, "device %s of pool %s %s",
		   alloc_q(q1, sizeof q1, a->dev->name), alloc_q(q2, sizeof q2, a->pool->name), what);
	return false;
}
