/* SPDX-License-Identifier: Apache-2.0 */
/* Policy merge over mask sets. See merge.h for why this equals the kubelet's
 * cross-product merge; tests/support/ref_merge.c keeps the cross product as the
 * reference and tests/unit/test_merge.c compares the two on random inputs.
 * Rule lists (any NUMA count up to 64) are searched in merge_search.c. */
#include "merge.h"

#include <string.h>

#include "merge_internal.h"

bool hint_list_is_empty(const struct hint_list *l, int n)
{
	size_t w, words;

	if (l->rule)
		return merge_rule_list_empty(l);
	if (l->nil_pref || l->nil_nonpref)
		return false;
	if (l->all == NULL)
		return l->singles == 0;
	words = maskset_words(n);
	for (w = 0; w < words; w++)
		if (l->all[w] | l->pref[w])
			return false;
	return true;
}

static struct topo_hint merge_singletons(const struct merge_params *p,
					 const struct hint_list *lists, size_t nlists)
{
	bitmask_t full = bitmask_full(p->n), inter = full, offered = 0;
	struct topo_hint h = { full, false, false };
	bool all_nil = true;
	size_t i;

	for (i = 0; i < nlists; i++) {
		const struct hint_list *l = &lists[i];

		if (!l->nil_pref && l->singles == 0)
			return h; /* an empty list: no permutation at all */
		inter &= l->singles | (l->nil_pref ? full : 0);
		offered |= l->singles;
		if (!l->nil_pref)
			all_nil = false;
	}
	inter &= offered;
	if (inter) {
		/* All candidates have one bit: the narrowest is the lowest. */
		h.mask = (bitmask_t)1 << bitmask_lowest(inter);
		h.preferred = true;
	} else if (all_nil) {
		h.preferred = true;
	}
	return h;
}

/* Superset sums over 2^n counts, f[m] += sign * f[m | bit] for every bit:
 * the transform with sign 1, its inverse with sign -1 (arithmetic wraps,
 * exact modulo 2^64). Called only with a constant sign, which the compiler
 * folds into the loop: the inner loop stays one add or subtract. */
static inline void superset_sums(uint64_t *f, int n, uint64_t sign)
{
	uint64_t size = (uint64_t)1 << n, base, j;
	int b;

	/* Blocks of masks without bit b, each next to its twin with it:
	 * no branch in the inner loop. */
	for (b = 0; b < n; b++) {
		uint64_t bit = (uint64_t)1 << b;

		for (base = 0; base < size; base += 2 * bit)
			for (j = base; j < base + bit; j++)
				f[j] += sign * f[j + bit];
	}
}

/* Out of line: inlined five times, the transforms would grow merge_best,
 * which every judgement runs, for the one path (no preferred merge) that
 * needs them. */
static __attribute__((noinline)) void zeta(uint64_t *f, int n)
{
	superset_sums(f, n, 1);
}

static __attribute__((noinline)) void moebius(uint64_t *f, int n)
{
	superset_sums(f, n, UINT64_MAX);
}

/* Distinct masks in a list, counting any nil hint once (it ANDs as all nodes). */
static uint64_t list_size(const struct hint_list *l, int n)
{
	size_t words = maskset_words(n), w;
	uint64_t count = (l->nil_pref || l->nil_nonpref) ? 1 : 0;

	for (w = 0; w < words; w++)
		count += (uint64_t)bitmask_count(l->all[w] | l->pref[w]);
	return count ? count : 1;
}

static void list_indicator(const struct hint_list *l, int n, uint64_t *f)
{
	uint64_t size = (uint64_t)1 << n, m;

	for (m = 0; m < size; m++)
		f[m] = maskset_has(l->all, m) || maskset_has(l->pref, m);
	/* A nil hint ANDs like the default affinity: all nodes. */
	if (l->nil_pref || l->nil_nonpref)
		f[size - 1] = 1;
}

static struct topo_hint merge_masksets(const struct merge_params *p,
				       const struct hint_list *lists, size_t nlists,
				       struct arena *scratch)
{
	int n = p->n;
	size_t words = maskset_words(n), w, i;
	uint64_t size = (uint64_t)1 << n, m, full = bitmask_full(n);
	struct topo_hint h = { full, false, false };
	uint64_t *acc, *cur;
	bool found = false;
	bitmask_t best = 0;
	int best_count = 0, tuples_log2 = 0;

	for (i = 0; i < nlists; i++)
		if (hint_list_is_empty(&lists[i], n))
			return h;

	if (merge_preferred(p, lists, nlists, scratch, &h))
		return h;

	/* No preferred permutation: rank every achievable merged mask. B is the
	 * largest, over lists, of the narrowest non-nil mask's size. */
	for (i = 0; i < nlists; i++) {
		int narrowest = -1;

		for (w = 0; w < words; w++) {
			uint64_t bits = lists[i].all[w] | lists[i].pref[w];

			while (bits) {
				m = w * 64 + (uint64_t)__builtin_ctzll(bits);
				if (m < size && (narrowest < 0 || bitmask_count(m) < narrowest))
					narrowest = bitmask_count(m);
				bits &= bits - 1;
			}
		}
		if (narrowest > best_count)
			best_count = narrowest;
		/* log2 of the number of tuples, to know whether exact counts
		 * of the whole product fit in 64 bits. */
		tuples_log2 += 64 - __builtin_clzll(list_size(&lists[i], n));
	}
	acc = arena_alloc(scratch, size * sizeof *acc);
	cur = arena_alloc(scratch, size * sizeof *cur);
	list_indicator(&lists[0], n, acc);
	if (tuples_log2 < 63) {
		/* One transform per list, one inverse: every count is below
		 * 2^63, so the wrapping arithmetic is exact. */
		zeta(acc, n);
		for (i = 1; i < nlists; i++) {
			list_indicator(&lists[i], n, cur);
			zeta(cur, n);
			for (m = 0; m < size; m++)
				acc[m] *= cur[m];
		}
		moebius(acc, n);
	} else {
		for (i = 1; i < nlists; i++) {
			list_indicator(&lists[i], n, cur);
			zeta(acc, n);
			zeta(cur, n);
			for (m = 0; m < size; m++)
				acc[m] *= cur[m];
			moebius(acc, n);
			/* Counts are exact (below 2^(2n)); keep only the support
			 * so the next product stays small. */
			for (m = 0; m < size; m++)
				acc[m] = acc[m] != 0;
		}
	}
	for (m = 1; m < size; m++) {
		if (!acc[m])
			continue;
		if (!found || merge_nonpreferred_before(p, best_count, m, best)) {
			best = m;
			found = true;
		}
	}
	if (found)
		h.mask = best;
	return h;
}

bool merge_preferred(const struct merge_params *p, const struct hint_list *lists, size_t nlists,
		     struct arena *scratch, struct topo_hint *out)
{
	int n = p->n;
	size_t words = maskset_words(n), w, i;
	uint64_t size = (uint64_t)1 << n, m, full = bitmask_full(n);
	uint64_t *cand, *offered;
	bool all_nil = true, found = false;
	bitmask_t best = 0;

	cand = arena_alloc(scratch, words * sizeof *cand);
	offered = arena_alloc(scratch, words * sizeof *offered);
	memset(cand, 0xff, words * sizeof *cand);
	for (i = 0; i < nlists; i++) {
		const struct hint_list *l = &lists[i];

		for (w = 0; w < words; w++) {
			if (!l->nil_pref)
				cand[w] &= l->pref[w];
			offered[w] |= l->pref[w];
		}
		if (!l->nil_pref)
			all_nil = false;
	}
	for (w = 0; w < words; w++) {
		uint64_t bits = cand[w] & offered[w];

		if (w == 0)
			bits &= ~(uint64_t)1; /* the empty mask is discarded */
		while (bits) {
			m = w * 64 + (uint64_t)__builtin_ctzll(bits);
			if (m < size && (!found || merge_fitter(p, m, best))) {
				best = m;
				found = true;
			}
			bits &= bits - 1;
		}
	}
	if (all_nil && (!found || merge_fitter(p, full, best))) {
		best = full;
		found = true;
	}
	if (found) {
		out->mask = best;
		out->nil = false;
		out->preferred = true;
	}
	return found;
}

struct topo_hint merge_best(const struct merge_params *p, const struct hint_list *lists,
			    size_t nlists, struct arena *scratch)
{
	size_t i;

	for (i = 0; i < nlists; i++)
		if (lists[i].rule)
			return merge_rules(p, lists, nlists);
	for (i = 0; i < nlists; i++)
		if (lists[i].all != NULL)
			return merge_masksets(p, lists, nlists, scratch);
	return merge_singletons(p, lists, nlists);
}

/* kubelet filterSingleNumaHints: keep nil-preferred and preferred single-node
 * hints only. */
static void filter_single_numa(struct hint_list *l, int n)
{
	int i;

	l->nil_nonpref = false;
	if (l->rule) {
		l->singles = 0;
		for (i = 0; i < n; i++)
			if (merge_rule_has_pref(l, (bitmask_t)1 << i))
				l->singles |= (bitmask_t)1 << i;
		l->rule = false;
		l->has_fam = false;
		l->nextra = 0;
		return;
	}
	if (l->all == NULL)
		return;
	l->singles = 0;
	for (i = 0; i < n; i++)
		if (maskset_has(l->pref, (uint64_t)1 << i))
			l->singles |= (bitmask_t)1 << i;
	l->all = NULL;
	l->pref = NULL;
}

struct topo_hint policy_merge(const struct merge_params *p, struct hint_list *lists,
			      size_t nlists, struct arena *scratch, bool *admit)
{
	struct topo_hint best;
	size_t i;

	if (p->policy == TM_POLICY_SINGLE_NUMA_NODE)
		for (i = 0; i < nlists; i++)
			filter_single_numa(&lists[i], p->n);
	best = merge_best(p, lists, nlists, scratch);
	if (p->policy == TM_POLICY_SINGLE_NUMA_NODE && best.mask == bitmask_full(p->n)) {
		best.nil = true;
		best.mask = 0;
	}
	*admit = p->policy == TM_POLICY_BEST_EFFORT || best.preferred;
	return best;
}
