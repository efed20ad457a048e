/* SPDX-License-Identifier: Apache-2.0 */
/* The fast merge (topology/merge.c) against the kubelet's cross product
 * (tests/support/ref_merge.c): hand-picked cases for each rule of
 * kubelet-topology-manager.md §3-4 and §6, then 100,000 random hint sets. */
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
	struct merge_params p = { n, policy, closest, distance };
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
	uint64_t full = ((uint64_t)1 << n) - 1;

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
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
