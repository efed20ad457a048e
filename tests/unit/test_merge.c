/* SPDX-License-Identifier: Apache-2.0 */
/* The fast merge (topology/merge.c) against the kubelet's cross product
 * (tests/support/ref_merge.c): hand-picked cases for each rule of the
 * kubelet's merge and policies (topologymanager's policy.go and policy_*.go),
 * then 100,000 random hint sets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/ref_merge.h"
#include "topology/merge.h"

#define M(x) ((uint64_t)(x))
#define P(mask) ((struct topo_hint){ M(mask), false, true })
#define NP(mask) ((struct topo_hint){ M(mask), false, false })
#define NILP ((struct topo_hint){ 0, true, true })
#define NILNP ((struct topo_hint){ 0, true, false })

/* Converts flattened reference lists into fast-merge lists and merges. */
static struct topo_hint fast_merge(int n, enum tm_policy policy, bool closest,
				   const int64_t *distance, const struct ref_list *lists,
				   size_t nlists, bool *admit)
{
	struct hint_list fl[64];
	struct merge_params p = { n, policy, closest, distance, 0, NULL, false, false };
	struct arena a;
	struct topo_hint h;
	size_t i, k, words = maskset_words(n);

	arena_init(&a);
	for (i = 0; i < nlists; i++) {
		memset(&fl[i], 0, sizeof fl[i]);
		fl[i].resource = "r";
		fl[i].all = arena_alloc(&a, words * 8);
		fl[i].pref = arena_alloc(&a, words * 8);
		for (k = 0; k < lists[i].nhints; k++) {
			struct topo_hint x = lists[i].hints[k];

			if (x.nil) {
				if (x.preferred)
					fl[i].nil_pref = true;
				else
					fl[i].nil_nonpref = true;
				continue;
			}
			maskset_add(fl[i].all, x.mask);
			if (x.preferred)
				maskset_add(fl[i].pref, x.mask);
		}
	}
	h = policy_merge(&p, fl, nlists, &a, admit);
	arena_cleanup(&a);
	return h;
}

struct expect {
	bool nil;
	uint64_t mask;
	bool preferred;
	bool admit;
};

static void check_both(int n, enum tm_policy policy, bool closest, const int64_t *distance,
		       const struct ref_list *lists, size_t nlists, struct expect e)
{
	bool ra, fa;
	struct topo_hint r = ref_policy_merge(n, policy, closest, distance, lists, nlists, &ra);
	struct topo_hint f = fast_merge(n, policy, closest, distance, lists, nlists, &fa);

	assert_int_equal(r.nil, e.nil);
	if (!e.nil)
		assert_int_equal(r.mask, e.mask);
	assert_int_equal(r.preferred, e.preferred);
	assert_int_equal(ra, e.admit);
	assert_int_equal(f.nil, r.nil);
	if (!r.nil)
		assert_int_equal(f.mask, r.mask);
	assert_int_equal(f.preferred, r.preferred);
	assert_int_equal(fa, ra);
}

static void merge_preferred_requires_identical_masks(void **state)
{
	/* CPU {0} preferred, GPU {0,1} preferred: {0}, not preferred. */
	struct ref_list l[2] = { { { P(1) }, 1 }, { { P(3) }, 1 } };

	(void)state;
	check_both(2, TM_POLICY_BEST_EFFORT, false, NULL, l, 2, (struct expect){ false, 1, false, true });
	check_both(2, TM_POLICY_RESTRICTED, false, NULL, l, 2, (struct expect){ false, 1, false, false });
}

static void merge_integer_tie_break(void **state)
{
	/* {1,2} (6) is narrower than {0,3} (9). */
	struct ref_list l[1] = { { { P(9), P(6) }, 2 } };

	(void)state;
	check_both(4, TM_POLICY_RESTRICTED, false, NULL, l, 1, (struct expect){ false, 6, true, true });
}

static void merge_nonpreferred_aims_at_b(void **state)
{
	/* Resource A needs 2 nodes at least, B fits in one: B = 2, so the
	 * non-preferred winner has exactly two bits, not the narrowest. */
	struct ref_list l[2] = {
		{ { NP(3), NP(12), NP(15) }, 3 },
		{ { NP(1), NP(2), NP(4), NP(8), NP(15) }, 5 },
	};

	(void)state;
	check_both(4, TM_POLICY_BEST_EFFORT, false, NULL, l, 2, (struct expect){ false, 3, false, true });
}

static void merge_empty_list_is_impossible(void **state)
{
	/* {nil, not preferred}: best-effort admits with all nodes. */
	struct ref_list l[2] = { { { NILNP }, 1 }, { { P(1) }, 1 } };

	(void)state;
	check_both(2, TM_POLICY_BEST_EFFORT, false, NULL, l, 2, (struct expect){ false, 1, false, true });
	check_both(2, TM_POLICY_SINGLE_NUMA_NODE, false, NULL, l, 2,
		   (struct expect){ true, 0, false, false });
}

static void merge_single_numa_stores_nil_for_all_nodes(void **state)
{
	struct ref_list l[1] = { { { NILP }, 1 } };
	struct ref_list one[1] = { { { P(1) }, 1 } };

	(void)state;
	check_both(2, TM_POLICY_SINGLE_NUMA_NODE, false, NULL, l, 1, (struct expect){ true, 0, true, true });
	/* One NUMA node: {0} equals all nodes. */
	check_both(1, TM_POLICY_SINGLE_NUMA_NODE, false, NULL, one, 1,
		   (struct expect){ true, 0, true, true });
}

static void merge_prefer_closest_in_both_branches(void **state)
{
	/* distances: 0-2 close (12), 0-1 far (21). */
	static const int64_t d[16] = { 10, 21, 12, 30, 21, 10, 30, 12,
				       12, 30, 10, 21, 30, 12, 21, 10 };
	struct ref_list pref[1] = { { { P(3), P(5) }, 2 } };
	struct ref_list nonpref[2] = { { { NP(3), NP(5) }, 2 }, { { NP(15) }, 1 } };

	(void)state;
	check_both(4, TM_POLICY_BEST_EFFORT, true, d, pref, 1, (struct expect){ false, 5, true, true });
	check_both(4, TM_POLICY_BEST_EFFORT, false, d, pref, 1, (struct expect){ false, 3, true, true });
	check_both(4, TM_POLICY_BEST_EFFORT, true, d, nonpref, 2, (struct expect){ false, 5, false, true });
	/* single-numa-node ignores the option. */
	check_both(4, TM_POLICY_SINGLE_NUMA_NODE, true, d, pref, 1,
		   (struct expect){ true, 0, false, false });
}

/* Rule form (extra masks only, as the providers' explicit masks are): the
 * search in topology/merge_search.c instead of the 2^n mask sets. */
/* search_only: no cross-product shortcut; a search that runs out of budget
 * (the judge's NotSimulated, never a wrong answer) sets *exhausted instead of
 * failing the test. */
static struct topo_hint rule_merge_ex(int n, enum tm_policy policy, bool closest,
				      const int64_t *distance, const struct ref_list *lists,
				      size_t nlists, bool search_only, bool *exhausted, bool *admit)
{
	struct hint_list fl[64];
	struct hint_mask extra[64][8];
	struct merge_stats st = { 0, false };
	struct merge_params p = { n, policy, closest, distance, 0, &st, false, search_only };
	struct arena a;
	struct topo_hint h;
	size_t i, k;

	arena_init(&a);
	for (i = 0; i < nlists; i++) {
		memset(&fl[i], 0, sizeof fl[i]);
		fl[i].resource = "r";
		fl[i].rule = true;
		fl[i].extra = extra[i];
		for (k = 0; k < lists[i].nhints; k++) {
			struct topo_hint x = lists[i].hints[k];

			if (x.nil) {
				if (x.preferred)
					fl[i].nil_pref = true;
				else
					fl[i].nil_nonpref = true;
				continue;
			}
			extra[i][fl[i].nextra++] = (struct hint_mask){ x.mask, x.preferred };
		}
	}
	h = policy_merge(&p, fl, nlists, &a, admit);
	arena_cleanup(&a);
	if (st.exhausted && exhausted != NULL)
		*exhausted = true;
	else if (st.exhausted)
		fail_msg("n=%d: the search ran out of budget (%ld steps)", n, st.steps);
	return h;
}

static struct topo_hint rule_merge(int n, enum tm_policy policy, bool closest,
				   const int64_t *distance, const struct ref_list *lists,
				   size_t nlists, bool *admit)
{
	return rule_merge_ex(n, policy, closest, distance, lists, nlists, false, NULL, admit);
}

/* --- randomized equivalence --- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

static int rnd_below(int k)
{
	return (int)(rnd() % (uint64_t)k);
}

static size_t random_case(int n, struct ref_list *flat, size_t cap)
{
	struct ref_provider prov[5];
	int nprov = 1 + rnd_below(5), i, r, h;
	uint64_t full = bitmask_full(n);

	memset(prov, 0, sizeof prov);
	for (i = 0; i < nprov; i++) {
		if (rnd_below(10) == 0) {
			prov[i].nil_map = true;
			continue;
		}
		prov[i].nresources = (size_t)(rnd_below(10) == 0 ? 0 : 1 + rnd_below(2));
		for (r = 0; r < (int)prov[i].nresources; r++) {
			struct ref_resource *res = &prov[i].resources[r];
			int kind = rnd_below(10);

			if (kind == 0) {
				res->kind = REF_LIST_NIL;
			} else if (kind == 1) {
				res->kind = REF_LIST_EMPTY;
			} else {
				res->kind = REF_LIST_HINTS;
				res->nhints = (size_t)(1 + rnd_below(6));
				for (h = 0; h < (int)res->nhints; h++) {
					uint64_t m = 0;

					/* Mostly small masks, like real providers. */
					while (m == 0)
						m = rnd() & full & (rnd_below(3) ? rnd() | rnd() : full);
					res->hints[h].nil = rnd_below(12) == 0;
					res->hints[h].mask = res->hints[h].nil ? 0 : m;
					res->hints[h].preferred = rnd_below(2) == 0;
				}
			}
		}
	}
	return ref_flatten(prov, (size_t)nprov, flat, cap);
}

static void merge_random_equivalence(void **state)
{
	static const enum tm_policy policies[3] = { TM_POLICY_BEST_EFFORT, TM_POLICY_RESTRICTED,
						    TM_POLICY_SINGLE_NUMA_NODE };
	struct ref_list flat[16];
	int64_t d[64];
	long cases = 0, preferred = 0, nonpreferred = 0;

	(void)state;
	while (cases < 100000) {
		int n = 1 + rnd_below(8), i, j;
		size_t nl = random_case(n, flat, 16), k;
		enum tm_policy policy = policies[rnd_below(3)];
		bool closest = rnd_below(2) == 0, ra, fa;
		double perms = 1;
		struct topo_hint r, f;

		for (k = 0; k < nl; k++)
			perms *= (double)flat[k].nhints;
		if (perms > 4096)
			continue;
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				d[i * n + j] = i == j ? 10 : 11 + rnd_below(rnd_below(2) ? 3 : 30);
		if (rnd_below(2)) /* symmetric half the time */
			for (i = 0; i < n; i++)
				for (j = 0; j < i; j++)
					d[i * n + j] = d[j * n + i];
		r = ref_policy_merge(n, policy, closest, d, flat, nl, &ra);
		f = fast_merge(n, policy, closest, d, flat, nl, &fa);
		if (cases % 2 == 0)
			f = rule_merge(n, policy, closest, d, flat, nl, &fa);
		if (r.nil != f.nil || (!r.nil && r.mask != f.mask) || r.preferred != f.preferred ||
		    ra != fa) {
			fprintf(stderr, "case %ld: n=%d policy=%s closest=%d lists=%zu\n", cases, n,
				tm_policy_name(policy), closest, nl);
			for (k = 0; k < nl; k++) {
				size_t h;

				fprintf(stderr, "  list %zu:", k);
				for (h = 0; h < flat[k].nhints; h++)
					fprintf(stderr, " %s%llx%s", flat[k].hints[h].nil ? "nil" : "",
						(unsigned long long)flat[k].hints[h].mask,
						flat[k].hints[h].preferred ? "P" : "");
				fprintf(stderr, "\n");
			}
			fprintf(stderr, "  ref: nil=%d mask=%llx pref=%d admit=%d\n", r.nil,
				(unsigned long long)r.mask, r.preferred, ra);
			fprintf(stderr, "  fast: nil=%d mask=%llx pref=%d admit=%d\n", f.nil,
				(unsigned long long)f.mask, f.preferred, fa);
			fail();
		}
		if (r.preferred)
			preferred++;
		else
			nonpreferred++;
		cases++;
	}
	/* Both branches of the merge must have been exercised a lot. */
	assert_true(preferred > 10000);
	assert_true(nonpreferred > 10000);
}

/* The search against the kubelet's cross product beyond 8 NUMA nodes (9 to
 * 64), where the mask sets cannot go: lists of explicit hints keep the cross
 * product small. */
static void merge_rule_random_equivalence_large(void **state)
{
	static const enum tm_policy policies[3] = { TM_POLICY_BEST_EFFORT, TM_POLICY_RESTRICTED,
						    TM_POLICY_SINGLE_NUMA_NODE };
	static int64_t d[64 * 64];
	struct ref_list flat[16];
	long cases = 0, nonpreferred = 0, searched = 0, exhausted_cases = 0;

	(void)state;
	while (cases < 20000) {
		int n = 9 + rnd_below(56), i, j;
		size_t nl = random_case(n, flat, 16), k;
		enum tm_policy policy = policies[rnd_below(3)];
		bool closest = rnd_below(2) == 0, ra, fa, exhausted = false;
		double perms = 1;
		struct topo_hint r, f;

		for (k = 0; k < nl; k++)
			perms *= (double)flat[k].nhints;
		if (perms > 4096)
			continue;
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				d[i * n + j] = i == j ? 10 : 11 + rnd_below(rnd_below(2) ? 3 : 30);
		r = ref_policy_merge(n, policy, closest, d, flat, nl, &ra);
		/* Every other case with the search alone (no cross-product
		 * shortcut), so that the search itself meets the kubelet. */
		f = rule_merge_ex(n, policy, closest, d, flat, nl, cases % 2 == 1, &exhausted, &fa);
		searched += cases % 2 == 1;
		if (exhausted) {
			exhausted_cases++;
			cases++;
			continue;
		}
		if (r.nil != f.nil || (!r.nil && r.mask != f.mask) || r.preferred != f.preferred ||
		    ra != fa)
			fail_msg("case %ld: n=%d policy=%s closest=%d: ref %llx/%d fast %llx/%d", cases, n,
				 tm_policy_name(policy), closest, (unsigned long long)r.mask, r.preferred,
				 (unsigned long long)f.mask, f.preferred);
		nonpreferred += !r.preferred;
		cases++;
	}
	assert_true(nonpreferred > 2000);
	/* The search alone answered most of its cases exactly; the rest it
	 * declined (budget), never answered wrong. */
	print_message("search alone: %ld cases, %ld out of budget\n", searched, exhausted_cases);
	assert_true(exhausted_cases * 10 < searched);
}

/* --- families: the search against an independent slow reference --- */

#define SLOW_MAX 200000

struct slow_list {
	bool nil_pref, nil_nonpref;
	uint64_t *masks; /* every hint, materialized */
	bool *pref;
	size_t count;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t dedup(uint64_t *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof *v, cmp_u64);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int64_t dist_sum(int n, const int64_t *d, uint64_t m)
{
	int64_t sum = 0;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if ((m >> i & 1) && (m >> j & 1))
				sum += d[i * n + j];
	return sum;
}

static bool slow_fitter(int n, bool closest, const int64_t *d, uint64_t a, uint64_t b)
{
	int ca = __builtin_popcountll(a), cb = __builtin_popcountll(b);

	if (ca != cb)
		return ca < cb;
	if (closest && dist_sum(n, d, a) != dist_sum(n, d, b))
		return dist_sum(n, d, a) < dist_sum(n, d, b);
	return a < b;
}

/* Every AND of one hint per list, by pairwise closure; the best by the
 * kubelet's order. Best-effort and restricted. */
static struct topo_hint slow_merge(int n, bool closest, const int64_t *d,
				   const struct slow_list *l, size_t nl)
{
	uint64_t full = bitmask_full(n), *cur = malloc(SLOW_MAX * 8), *next = malloc(SLOW_MAX * 8);
	struct topo_hint h = { full, false, false };
	size_t ncur = 1, i, j, k, nnext;
	bool all_nil = true, found = false;
	int b = 0;
	uint64_t best = 0;

	for (i = 0; i < nl; i++)
		if (!l[i].nil_pref && !l[i].nil_nonpref && l[i].count == 0)
			goto out;
	/* Preferred: a mask every list prefers (or answers with a preferred nil). */
	for (i = 0; i < nl; i++) {
		if (!l[i].nil_pref)
			all_nil = false;
		for (j = 0; j < l[i].count; j++) {
			bool ok = l[i].pref[j];

			for (k = 0; k < nl && ok; k++) {
				size_t x;
				bool has = l[k].nil_pref;

				for (x = 0; x < l[k].count && !has; x++)
					has = l[k].pref[x] && l[k].masks[x] == l[i].masks[j];
				ok = has;
			}
			if (ok && l[i].masks[j] &&
			    (!found || slow_fitter(n, closest, d, l[i].masks[j], best))) {
				best = l[i].masks[j];
				found = true;
			}
		}
	}
	if (all_nil && (!found || slow_fitter(n, closest, d, full, best))) {
		best = full;
		found = true;
	}
	if (found) {
		h.mask = best;
		h.preferred = true;
		goto out;
	}
	cur[0] = full;
	for (i = 0; i < nl; i++) {
		int narrow = 0;

		nnext = 0;
		for (j = 0; j < ncur; j++) {
			if (l[i].nil_pref || l[i].nil_nonpref)
				next[nnext++] = cur[j];
			for (k = 0; k < l[i].count; k++)
				next[nnext++] = cur[j] & l[i].masks[k];
			if (nnext > SLOW_MAX / 2)
				nnext = dedup(next, nnext);
			assert_true(nnext < SLOW_MAX / 2 + 1000);
		}
		ncur = dedup(next, nnext);
		memcpy(cur, next, ncur * 8);
		for (k = 0; k < l[i].count; k++)
			if (narrow == 0 || __builtin_popcountll(l[i].masks[k]) < narrow)
				narrow = __builtin_popcountll(l[i].masks[k]);
		if (narrow > b)
			b = narrow;
	}
	for (j = 0; j < ncur; j++) {
		uint64_t m = cur[j];
		int cm, cb, km, kb;

		if (m == 0)
			continue;
		if (!found) {
			best = m;
			found = true;
			continue;
		}
		cm = __builtin_popcountll(m);
		cb = __builtin_popcountll(best);
		km = cm == b ? 0 : cm < b ? 1 : 2;
		kb = cb == b ? 0 : cb < b ? 1 : 2;
		if (km != kb ? km < kb
		    : cm != cb ? (km == 1 ? cm > cb : cm < cb)
		    : slow_fitter(n, closest, d, m, best))
			best = m;
	}
	if (found)
		h.mask = best;
out:
	free(cur);
	free(next);
	return h;
}

static void merge_families_against_slow_reference(void **state)
{
	static const int sizes[] = { 4, 8, 12, 16, 32, 64 };
	static int64_t d[64 * 64];
	static int64_t w[8][3][64];
	long cases = 0, nonpreferred = 0, preferred = 0;

	(void)state;
	while (cases < 3000) {
		int n = sizes[rnd_below(6)], i, j, dim;
		size_t nl = (size_t)(1 + rnd_below(4)), li;
		bool closest = rnd_below(2) == 0, fa;
		enum tm_policy policy = rnd_below(2) ? TM_POLICY_BEST_EFFORT : TM_POLICY_RESTRICTED;
		struct hint_list fl[8];
		struct hint_mask extra[8][4];
		struct slow_list sl[8];
		struct merge_params p = { n, policy, closest, d, 0, NULL, false, false };
		struct merge_stats st = { 0, false };
		struct arena a;
		struct topo_hint r, f;

		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				d[i * n + j] = i == j ? 10 : 11 + rnd_below(20);
		p.stats = &st;
		for (li = 0; li < nl; li++) {
			struct hint_list *l = &fl[li];
			int ubits = 1 + rnd_below(n < 10 ? n : 10), cnt = 0;
			uint64_t sub;

			memset(l, 0, sizeof *l);
			l->resource = "r";
			l->rule = true;
			l->extra = extra[li];
			l->has_fam = rnd_below(6) != 0;
			l->nil_nonpref = rnd_below(10) == 0;
			l->nil_pref = !l->nil_nonpref && rnd_below(12) == 0;
			while (bitmask_count(l->fam.universe) < ubits)
				l->fam.universe |= (uint64_t)1 << rnd_below(n);
			if (rnd_below(4) == 0)
				l->fam.required = (uint64_t)1 << bitmask_lowest(l->fam.universe);
			l->fam.min_size = 1 + rnd_below(2);
			l->fam.ndims = 1 + rnd_below(3);
			for (dim = 0; dim < l->fam.ndims; dim++) {
				int64_t total = 0;

				for (i = 0; i < n; i++) {
					w[li][dim][i] = rnd_below(6);
					if (l->fam.universe >> i & 1)
						total += w[li][dim][i];
				}
				l->fam.w[dim] = w[li][dim];
				l->fam.need[dim] = total ? rnd_below((int)total + 2) : 0;
			}
			l->pref_size = 1 + rnd_below(3);
			l->nextra = (size_t)rnd_below(4);
			for (j = 0; j < (int)l->nextra; j++) {
				uint64_t m = 0;

				while (m == 0)
					m = rnd() & bitmask_full(n) & (rnd_below(2) ? rnd() | rnd() : rnd() & rnd() & rnd());
				extra[li][j] = (struct hint_mask){ m, rnd_below(2) == 0 };
			}
			/* Materialize for the slow reference: every subset of the
			 * universe, checked with plain loops. */
			sl[li].nil_pref = l->nil_pref;
			sl[li].nil_nonpref = l->nil_nonpref;
			sl[li].masks = malloc((1024 + 4) * 8);
			sl[li].pref = malloc(1024 + 4);
			sl[li].count = 0;
			for (j = 0; j < (int)l->nextra; j++) {
				sl[li].masks[sl[li].count] = extra[li][j].mask;
				sl[li].pref[sl[li].count++] = extra[li][j].preferred;
			}
			sub = 0;
			do {
				bool ok = l->has_fam && (l->fam.required & ~sub) == 0 &&
					  __builtin_popcountll(sub) >= l->fam.min_size;

				for (dim = 0; dim < l->fam.ndims && ok; dim++) {
					int64_t sum = 0;

					for (i = 0; i < n; i++)
						if (sub >> i & 1)
							sum += w[li][dim][i];
					ok = sum >= l->fam.need[dim];
				}
				if (ok) {
					sl[li].masks[sl[li].count] = sub;
					sl[li].pref[sl[li].count++] =
						__builtin_popcountll(sub) == l->pref_size;
				}
				cnt++;
				sub = (sub - l->fam.universe) & l->fam.universe;
			} while (sub != 0);
		}
		arena_init(&a);
		f = policy_merge(&p, fl, nl, &a, &fa);
		arena_cleanup(&a);
		r = slow_merge(n, closest, d, sl, nl);
		for (li = 0; li < nl; li++) {
			free(sl[li].masks);
			free(sl[li].pref);
		}
		assert_false(st.exhausted);
		if (r.mask != f.mask || r.preferred != f.preferred ||
		    fa != (policy == TM_POLICY_BEST_EFFORT || r.preferred))
			fail_msg("case %ld: n=%d %s closest=%d lists=%zu: slow %llx/%d search %llx/%d",
				 cases, n, tm_policy_name(policy), closest, nl,
				 (unsigned long long)r.mask, r.preferred, (unsigned long long)f.mask,
				 f.preferred);
		if (r.preferred)
			preferred++;
		else
			nonpreferred++;
		cases++;
	}
	assert_true(preferred > 300);
	assert_true(nonpreferred > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_preferred_requires_identical_masks),
		cmocka_unit_test(merge_integer_tie_break),
		cmocka_unit_test(merge_nonpreferred_aims_at_b),
		cmocka_unit_test(merge_empty_list_is_impossible),
		cmocka_unit_test(merge_single_numa_stores_nil_for_all_nodes),
		cmocka_unit_test(merge_prefer_closest_in_both_branches),
		cmocka_unit_test(merge_random_equivalence),
		cmocka_unit_test(merge_rule_random_equivalence_large),
		cmocka_unit_test(merge_families_against_slow_reference),
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
