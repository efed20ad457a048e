/* SPDX-License-Identifier: Apache-2.0 */
/* The unsorted order (1.32-1.35, or 1.36 with the stable implementation):
 * pools in Go map order, slices in informer order, so which device a
 * request gets is not known. The sorted search still tells whether the
 * claims fit (the search is exhaustive); a node is predictable when every
 * candidate of each request sits on one NUMA set. */
#include "dra/alloc_internal.h"

/* Under the unsorted order only the set of candidates is known: each
 * ExactCount request is predictable when all its free, matching devices
 * sit on one NUMA set (mode All takes every device whatever the order).
 * Every candidate is looked at, for the errors and features a different
 * order could run into. Returns whether there was an ExactCount request. */
static bool unsorted_check(struct alloc_ctx *x, bool numa_too)
{
	char q1[96], q2[96], n1[192], n2[192];
	bool exact = false;
	size_t c, r, i;

	for (c = 0; c < x->nclaims; c++) {
		struct alloc_claim *ac = &x->claims[c];

		for (r = 0; !ac->preallocated && r < ac->nreqs; r++) {
			struct alloc_req *rq = &ac->reqs[r];
			struct dra_numa first = { false, 0 }, numa;
			bool seen = false;

			if (rq->spec->mode == DRA_ALL)
				continue;
			exact = true;
			for (i = 0; i < x->ndevs; i++) {
				const struct alloc_dev *a = &x->devs[i];
				int m;

				if (!a->dev->allow_multiple_allocations && alloc_dev_in_use(x, i))
					continue;
				m = alloc_selectable(x, ac, rq, i);
				if (m < 0 || (m == 1 && !alloc_candidate_modelled(x, i)))
					return exact;
				if (m == 0 || !numa_too)
					continue;
				numa = alloc_dev_numa(x, i)->numa;
				if (!seen) {
					first = numa;
					seen = true;
				} else if (first.known != numa.known || first.nodes != numa.nodes) {
					alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
						   "the allocator's order is not predictable here and "
						   "claim %s, request %s has candidates on NUMA %s and %s",
						   alloc_q(q1, sizeof q1, ac->claim->name),
						   alloc_q(q2, sizeof q2, rq->name),
						   dra_numa_text(&first, n1, sizeof n1),
						   dra_numa_text(&numa, n2, sizeof n2));
					return exact;
				}
			}
		}
	}
	return exact;
}

/* Under an unknown order, an error the sorted search ran into might not
 * be reached (another solution first), and one it did not reach might. */
static void order_dependent(struct alloc_ctx *x)
{
	struct errmsg was = x->why;

	alloc_stop(x, DRA_ALLOC_CANNOT_PREDICT,
		   "the allocator's order is not predictable here and it may stop on: %s", was.text);
}

void alloc_unsorted_outcome(struct alloc_ctx *x)
{
	enum dra_alloc_verdict before = x->stop;
	bool exact;

	if (x->stop == DRA_ALLOC_FATAL && x->stop_in_search) {
		order_dependent(x);
		return;
	}
	if (x->stop != DRA_ALLOC_OK && x->stop != DRA_ALLOC_UNSATISFIABLE)
		return;
	x->searching = true;
	exact = unsorted_check(x, before == DRA_ALLOC_OK);
	x->searching = false;
	if (x->stop == DRA_ALLOC_FATAL)
		order_dependent(x);
	else if (x->stop == DRA_ALLOC_OK && exact)
		x->stop = DRA_ALLOC_SAME_NUMA;
}
