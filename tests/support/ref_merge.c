/* SPDX-License-Identifier: Apache-2.0 */
/* Reference cross-product merge; see ref_merge.h. Case labels follow the
 * kubelet's HintMerger.compare comments (1, 2, 3a, 3b, 3ca, 3cb, 3cc). */
#include "tests/support/ref_merge.h"

#include <string.h>

size_t ref_flatten(const struct ref_provider *providers, size_t nproviders,
		   struct ref_list *out, size_t cap)
{
	size_t n = 0, p, r;

	for (p = 0; p < nproviders && n < cap; p++) {
		const struct ref_provider *pr = &providers[p];

		if (pr->nil_map || pr->nresources == 0) {
			out[n].nhints = 1;
			out[n].hints[0] = (struct topo_hint){ 0, true, true };
			n++;
			continue;
		}
		for (r = 0; r < pr->nresources && n < cap; r++) {
			const struct ref_resource *res = &pr->resources[r];

			if (res->kind == REF_LIST_NIL) {
				out[n].nhints = 1;
				out[n].hints[0] = (struct topo_hint){ 0, true, true };
			} else if (res->kind == REF_LIST_EMPTY) {
				out[n].nhints = 1;
				out[n].hints[0] = (struct topo_hint){ 0, true, false };
			} else {
				out[n].nhints = res->nhints;
				memcpy(out[n].hints, res->hints, res->nhints * sizeof res->hints[0]);
			}
			n++;
		}
	}
	return n;
}

struct ref_ctx {
	int n;
	bool closest;
	const int64_t *distance;
	int best_nonpreferred;
	struct topo_hint best;
	bool have_best;
};

static double avg_distance(const struct ref_ctx *c, uint64_t m)
{
	double sum = 0, count = 0;
	int i, j;

	for (i = 0; i < c->n; i++) {
		if (!((m >> i) & 1))
			continue;
		for (j = 0; j < c->n; j++) {
			if (!((m >> j) & 1))
				continue;
			sum += c->distance ? (double)c->distance[i * c->n + j] : 0.0;
			count++;
		}
	}
	return count > 0 ? sum / count : 0.0;
}

static bool narrower(uint64_t a, uint64_t b)
{
	int ca = __builtin_popcountll(a), cb = __builtin_popcountll(b);

	return ca == cb ? a < b : ca < cb;
}

/* compareNumaAffinityMasks: returns the better of current and candidate. */
static uint64_t pick(const struct ref_ctx *c, uint64_t current, uint64_t candidate)
{
	uint64_t best;

	if (current == candidate)
		return current;
	if (c->closest) {
		if (__builtin_popcountll(current) != __builtin_popcountll(candidate)) {
			best = narrower(candidate, current) ? candidate : current;
		} else {
			double d1 = avg_distance(c, current), d2 = avg_distance(c, candidate);

			if (d1 == d2)
				best = current < candidate ? current : candidate;
			else
				best = d1 < d2 ? current : candidate;
		}
	} else {
		best = narrower(candidate, current) ? candidate : current;
	}
	return best;
}

static void compare(struct ref_ctx *c, struct topo_hint cand)
{
	struct topo_hint *cur = &c->best;
	int cc, bc, B = c->best_nonpreferred;

	if (cand.mask == 0)
		return;
	if (!c->have_best) {
		c->best = cand;
		c->have_best = true;
		return;
	}
	if (!cur->preferred && cand.preferred) {
		*cur = cand;
		return;
	}
	if (cur->preferred && !cand.preferred)
		return;
	if (cur->preferred && cand.preferred) {
		if (pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	bc = __builtin_popcountll(cur->mask);
	cc = __builtin_popcountll(cand.mask);
	if (bc > B) { /* 1 */
		if (pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	if (bc == B) { /* 2 */
		if (cc != B)
			return;
		if (pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	if (cc > B) /* 3a */
		return;
	if (cc == B) { /* 3b */
		*cur = cand;
		return;
	}
	if (cc > bc) { /* 3ca */
		*cur = cand;
		return;
	}
	if (cc < bc) /* 3cb */
		return;
	if (pick(c, cur->mask, cand.mask) != cur->mask) /* 3cc */
		*cur = cand;
}

static void iterate(struct ref_ctx *c, const struct ref_list *lists, size_t nlists, size_t i,
		    struct topo_hint *perm)
{
	size_t k;

	if (i == nlists) {
		uint64_t full = c->n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << c->n) - 1);
		struct topo_hint merged = { full, false, true };
		bool have_first = false;
		uint64_t first = 0;

		for (k = 0; k < nlists; k++) {
			if (!perm[k].nil) {
				if (!have_first) {
					first = perm[k].mask;
					have_first = true;
				} else if (perm[k].mask != first) {
					merged.preferred = false;
				}
				merged.mask &= perm[k].mask;
			}
			if (!perm[k].preferred)
				merged.preferred = false;
		}
		compare(c, merged);
		return;
	}
	for (k = 0; k < lists[i].nhints; k++) {
		perm[i] = lists[i].hints[k];
		iterate(c, lists, nlists, i + 1, perm);
	}
}

struct topo_hint ref_policy_merge(int n, enum tm_policy policy, bool prefer_closest,
				  const int64_t *distance, const struct ref_list *lists_in,
				  size_t nlists, bool *admit)
{
	struct ref_list lists[64];
	struct topo_hint perm[64];
	struct ref_ctx c;
	uint64_t full = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
	size_t i, k;

	memcpy(lists, lists_in, nlists * sizeof lists[0]);
	if (policy == TM_POLICY_SINGLE_NUMA_NODE) {
		for (i = 0; i < nlists; i++) {
			size_t kept = 0;

			for (k = 0; k < lists[i].nhints; k++) {
				struct topo_hint h = lists[i].hints[k];

				if ((h.nil && h.preferred) ||
				    (!h.nil && __builtin_popcountll(h.mask) == 1 && h.preferred))
					lists[i].hints[kept++] = h;
			}
			lists[i].nhints = kept;
		}
	}
	memset(&c, 0, sizeof c);
	c.n = n;
	c.closest = prefer_closest && policy != TM_POLICY_SINGLE_NUMA_NODE;
	c.distance = distance;
	for (i = 0; i < nlists; i++) {
		bool have = false;
		uint64_t narrowest = 0;

		for (k = 0; k < lists[i].nhints; k++) {
			if (lists[i].hints[k].nil)
				continue;
			if (!have || narrower(lists[i].hints[k].mask, narrowest))
				narrowest = lists[i].hints[k].mask;
			have = true;
		}
		if (have && __builtin_popcountll(narrowest) > c.best_nonpreferred)
			c.best_nonpreferred = __builtin_popcountll(narrowest);
	}
	iterate(&c, lists, nlists, 0, perm);
	if (!c.have_best)
		c.best = (struct topo_hint){ full, false, false };
	if (policy == TM_POLICY_SINGLE_NUMA_NODE && c.best.mask == full) {
		c.best.nil = true;
		c.best.mask = 0;
	}
	*admit = policy == TM_POLICY_BEST_EFFORT || c.best.preferred;
	return c.best;
}
