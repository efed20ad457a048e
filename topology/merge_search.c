/* SPDX-License-Identifier: Apache-2.0 */
/* The merge of rule lists: best-first search for any NUMA count up to 64.
 *
 * The kubelet's comparison is a total order: preferred first, then (among
 * non-preferred) exactly B bits, fewer than B (more bits first), more than B
 * (fewer bits first), ties by fitness (value, or distance then value). So the
 * answer is the first achievable merged mask in that order. The search visits
 * masks size by size in that order and, within a size, from the most fit
 * (high bits decided first, "excluded" tried first: increasing value), with
 * pruning that never drops an achievable mask, and stops at the first that
 * some choice of one hint per list ANDs to exactly. Every step counts against
 * the budget; past it the merge says so (merge_stats.exhausted) instead of
 * answering. */
#include "merge_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/checked.h"

/* --- the kubelet's order of merged hints ---
 * merge.c ranks masks by it too; it lives here, beside the inner loops of
 * the search that call it most. */

int64_t merge_distance_sum(const struct merge_params *p, bitmask_t mask)
{
	int64_t sum = 0;
	bitmask_t a = mask;

	if (p->distance == NULL)
		return 0;
	while (a) {
		int i = bitmask_lowest(a);
		bitmask_t b = mask;

		while (b) {
			int j = bitmask_lowest(b);

			sum += p->distance[i * p->n + j];
			b &= b - 1;
		}
		a &= a - 1;
	}
	return sum;
}

bool merge_use_closest(const struct merge_params *p)
{
	return p->prefer_closest && p->policy != TM_POLICY_SINGLE_NUMA_NODE;
}

/* kubelet NUMAInfo.Narrowest / Closest: true when a is fitter than b. */
bool merge_fitter(const struct merge_params *p, bitmask_t a, bitmask_t b)
{
	int ca = bitmask_count(a), cb = bitmask_count(b);

	if (ca != cb)
		return ca < cb;
	if (merge_use_closest(p)) {
		int64_t da = merge_distance_sum(p, a), db = merge_distance_sum(p, b);

		if (da != db)
			return da < db;
	}
	return a < b;
}

/* The kubelet's non-preferred ranking as a key: exactly B bits first, then
 * fewer than B (more bits first), then more than B (fewer bits first); ties by
 * fitness. Returns true when a ranks before b. */
bool merge_nonpreferred_before(const struct merge_params *p, int best_count,
			       bitmask_t a, bitmask_t b)
{
	int ca = bitmask_count(a), cb = bitmask_count(b);
	int ka = ca == best_count ? 0 : ca < best_count ? 1 : 2;
	int kb = cb == best_count ? 0 : cb < best_count ? 1 : 2;

	if (ka != kb)
		return ka < kb;
	if (ca != cb)
		return ka == 1 ? ca > cb : ca < cb;
	return merge_fitter(p, a, b);
}

/* --- the search --- */

struct rsearch {
	const struct merge_params *p;
	int n;
	bool closest;
	bool nonneg;          /* every distance >= 0: partial sums bound */
	long steps, budget;
	bool exhausted;
};

static bool rs_step(struct rsearch *rs)
{
	if (++rs->steps > rs->budget)
		rs->exhausted = true;
	return !rs->exhausted;
}

static bool fam_member(const struct hint_fam *f, bitmask_t m)
{
	int d;

	/* The count only matters above one bit (popcount is a dozen
	 * instructions without the CPU's own, and this runs per candidate). */
	if ((m & ~f->universe) || (f->required & ~m) || m == 0 ||
	    (f->min_size > 1 && bitmask_count(m) < f->min_size))
		return false;
	for (d = 0; d < f->ndims; d++) {
		int64_t sum = 0;
		bitmask_t b;

		for (b = m; b && sum < f->need[d]; b &= b - 1)
			sum = i64_add_sat(sum, f->w[d][bitmask_lowest(b)]);
		if (sum < f->need[d])
			return false;
	}
	return true;
}

/* Some member contains m (the largest candidate is the universe). */
static bool fam_has_superset(const struct hint_fam *f, bitmask_t m)
{
	return (m & ~f->universe) == 0 && fam_member(f, f->universe);
}

/* --- the fittest member of size k of every family, containing base --- */

/* The bound tables of one family dimension, built once per kfind: the
 * heaviest weight among universe bits 0..b, and (built on first need) the
 * universe bits heaviest first. Weights are non-negative, so "none" is 0. */
struct dim_tab {
	const int64_t *w;
	int64_t need;
	int64_t pmax[64];
	uint8_t ord[64];
	int nord; /* -1: ord not built yet */
};

/* Tables for up to this many family dimensions live on the stack. */
#define KFIND_STACK_DIMS 12

struct kfind {
	struct rsearch *rs;
	const struct hint_fam *const *fams;
	size_t nf;
	int k;
	bitmask_t base;
	bool found;
	bitmask_t best;
	int64_t best_dist;
	struct dim_tab *tab; /* the dimensions of every family, in order */
	size_t ntab;
};

static void dim_tab_init(struct dim_tab *t, const struct hint_fam *f, int d, int n)
{
	int64_t top = 0;
	int b;

	t->w = f->w[d];
	t->need = f->need[d];
	t->nord = -1;
	for (b = 0; b < n; b++) {
		if (bitmask_is_set(f->universe, b) && t->w[b] > top)
			top = t->w[b];
		t->pmax[b] = top;
	}
}

static void dim_tab_order(struct dim_tab *t, bitmask_t universe)
{
	bitmask_t u;
	int cnt = 0, j;

	/* Insertion by weight, heaviest first; ties keep the lower bit first. */
	for (u = universe; u; u &= u - 1) {
		int b = bitmask_lowest(u);

		for (j = cnt++; j > 0 && t->w[t->ord[j - 1]] < t->w[b]; j--)
			t->ord[j] = t->ord[j - 1];
		t->ord[j] = (uint8_t)b;
	}
	t->nord = cnt;
}

/* Can masks extending chosen with r more universe bits among bits 0..bit
 * reach the dimension's need? (The r heaviest such bits bound the sum.) */
static bool dim_reachable(struct dim_tab *t, bitmask_t universe, bitmask_t chosen, int bit,
			  int r)
{
	int64_t sum = 0;
	bitmask_t b;
	int i, taken = 0;

	for (b = chosen; b && sum < t->need; b &= b - 1)
		sum = i64_add_sat(sum, t->w[bitmask_lowest(b)]);
	if (sum >= t->need)
		return true;
	if (r <= 0 || bit < 0)
		return false;
	if (r == 1)
		return i64_add_sat(sum, t->pmax[bit]) >= t->need;
	if (t->nord < 0)
		dim_tab_order(t, universe);
	for (i = 0; i < t->nord && taken < r; i++) {
		if (t->ord[i] > bit)
			continue;
		sum = i64_add_sat(sum, t->w[t->ord[i]]);
		if (sum >= t->need)
			return true;
		taken++;
	}
	return false;
}

static void kfind_dfs(struct kfind *kf, int bit, bitmask_t chosen, int cnt)
{
	struct rsearch *rs = kf->rs;
	bitmask_t low = bit >= 0 ? bitmask_full(bit + 1) : 0;
	size_t i, t = 0;
	int d;

	if (!rs_step(rs) || (kf->found && !rs->closest))
		return;
	if (rs->closest && kf->found && rs->nonneg &&
	    merge_distance_sum(rs->p, chosen) > kf->best_dist)
		return;
	/* Decided bits: everything above `bit`. */
	if ((kf->base & ~chosen & ~low) != 0)
		return;
	for (i = 0; i < kf->nf; i++) {
		const struct hint_fam *f = kf->fams[i];

		if ((chosen & ~f->universe) || (f->required & ~chosen & ~low))
			return;
		for (d = 0; d < f->ndims; d++, t++)
			if (!dim_reachable(&kf->tab[t], f->universe, chosen, bit, kf->k - cnt))
				return;
	}
	if (cnt == kf->k) {
		for (i = 0; i < kf->nf; i++)
			if (!fam_member(kf->fams[i], chosen))
				return;
		if (kf->base & ~chosen)
			return;
		if (rs->closest) {
			int64_t dist = merge_distance_sum(rs->p, chosen);

			if (kf->found && (dist > kf->best_dist ||
					  (dist == kf->best_dist && chosen > kf->best)))
				return;
			kf->best_dist = dist;
		}
		kf->best = chosen;
		kf->found = true;
		return;
	}
	if (bit < 0 || bit + 1 < kf->k - cnt)
		return;
	/* Without this bit first: smaller values come first. */
	kfind_dfs(kf, bit - 1, chosen, cnt);
	kfind_dfs(kf, bit - 1, chosen | ((bitmask_t)1 << bit), cnt + 1);
}

/* Size 1 (the common case: a pod that fits one NUMA node): the n single
 * nodes in fitness order are few enough to test one by one. */
static bool kfind_single(struct rsearch *rs, const struct hint_fam *const *fams, size_t nf,
			 bitmask_t base, bitmask_t *out)
{
	bitmask_t cand = bitmask_full(rs->n), best = 0;
	int64_t best_dist = 0;
	bool found = false;
	size_t i;

	for (i = 0; i < nf; i++)
		cand &= fams[i]->universe;
	if (base)
		cand &= base;
	for (; cand; cand &= cand - 1) {
		bitmask_t m = cand & -cand;
		int64_t dist;

		if (!rs_step(rs))
			return false;
		for (i = 0; i < nf && fam_member(fams[i], m); i++)
			;
		if (i < nf)
			continue;
		if (!rs->closest) {
			*out = m;
			return true;
		}
		/* Lowest value first, so only a smaller distance replaces. */
		dist = merge_distance_sum(rs->p, m);
		if (!found || dist < best_dist) {
			best = m;
			best_dist = dist;
			found = true;
		}
	}
	if (found)
		*out = best;
	return found;
}

static bool kfind(struct rsearch *rs, const struct hint_fam *const *fams, size_t nf, int k,
		  bitmask_t base, bitmask_t *out)
{
	struct kfind kf = { rs, fams, nf, k, base, false, 0, 0, NULL, 0 };
	struct dim_tab local[KFIND_STACK_DIMS];
	size_t i, t = 0;
	int d;

	if (k < 1 || k > rs->n || bitmask_count(base) > k)
		return false;
	if (k == 1)
		return kfind_single(rs, fams, nf, base, out);
	for (i = 0; i < nf; i++)
		kf.ntab += (size_t)fams[i]->ndims;
	kf.tab = kf.ntab <= KFIND_STACK_DIMS ? local : xcalloc(kf.ntab, sizeof *kf.tab);
	for (i = 0; i < nf; i++)
		for (d = 0; d < fams[i]->ndims; d++)
			dim_tab_init(&kf.tab[t++], fams[i], d, rs->n);
	kfind_dfs(&kf, rs->n - 1, 0, 0);
	if (kf.tab != local)
		free(kf.tab);
	if (kf.found)
		*out = kf.best;
	return kf.found && !rs->exhausted;
}

/* The fewest bits of a member of f (0: none). */
static int fam_min_count(struct rsearch *rs, const struct hint_fam *f)
{
	bitmask_t m;
	int k;

	if (!fam_member(f, f->universe))
		return 0;
	for (k = bitmask_count(f->required) > 0 ? bitmask_count(f->required) : 1;
	     k <= bitmask_count(f->universe); k++) {
		if (kfind(rs, &f, 1, k, 0, &m))
			return k;
		if (rs->exhausted)
			return 0;
	}
	return 0;
}

/* --- membership --- */

static bool rule_has_pref(const struct hint_list *l, bitmask_t m)
{
	size_t i;

	for (i = 0; i < l->nextra; i++)
		if (l->extra[i].mask == m && l->extra[i].preferred)
			return true;
	return l->has_fam && bitmask_count(m) == l->pref_size && fam_member(&l->fam, m);
}

static bool rule_list_empty(const struct hint_list *l)
{
	return !l->nil_pref && !l->nil_nonpref && l->nextra == 0 &&
	       !(l->has_fam && fam_member(&l->fam, l->fam.universe));
}

/* --- the preferred phase --- */

static bool one_bit(bitmask_t m)
{
	return m != 0 && (m & (m - 1)) == 0;
}

/* The single NUMA nodes {i} for which rule_has_pref(l, {i}) holds. */
static bitmask_t pref_singles(const struct hint_list *l, int n)
{
	bitmask_t out = 0;
	size_t j;

	for (j = 0; j < l->nextra; j++)
		if (l->extra[j].preferred && one_bit(l->extra[j].mask))
			out |= l->extra[j].mask;
	if (l->has_fam && l->pref_size == 1 && l->fam.min_size <= 1) {
		const struct hint_fam *f = &l->fam;
		bitmask_t cand = f->universe & bitmask_full(n) & ~out;

		/* {i} is a member when it holds what is required and each
		 * dimension's weight at i reaches the need. */
		if (f->required)
			cand &= one_bit(f->required) ? f->required : 0;
		for (; cand; cand &= cand - 1) {
			int b = bitmask_lowest(cand), d;

			for (d = 0; d < f->ndims && f->w[d][b] >= f->need[d]; d++)
				;
			if (d == f->ndims)
				out |= (bitmask_t)1 << b;
		}
	}
	return out;
}

static void consider(const struct merge_params *p, bitmask_t m, bool *found, bitmask_t *best)
{
	if (m != 0 && (!*found || merge_fitter(p, m, *best))) {
		*best = m;
		*found = true;
	}
}

static bool rule_preferred(struct rsearch *rs, const struct hint_list *lists, size_t nlists,
			   bitmask_t *out)
{
	const struct merge_params *p = rs->p;
	const struct hint_fam *fams[64];
	bitmask_t best = 0, m, singles = 0;
	bool found = false, all_nil = true, fam_ok = true, singles_known = false;
	size_t i, j, k, nf = 0;
	int size = -1;

	for (i = 0; i < nlists; i++) {
		if (lists[i].nil_pref)
			continue;
		all_nil = false;
		if (!lists[i].has_fam || (size >= 0 && lists[i].pref_size != size) || nf >= 64)
			fam_ok = false;
		else {
			size = lists[i].pref_size;
			fams[nf++] = &lists[i].fam;
		}
	}
	/* Candidates a list offers explicitly. Most are single NUMA nodes
	 * (memory's, devices' without a family): which single nodes every
	 * list prefers is one intersection of per-list masks, instead of a
	 * scan of every other list's explicit hints per candidate (quadratic
	 * in the NUMA count). */
	for (i = 0; i < nlists; i++) {
		for (j = 0; j < lists[i].nextra; j++) {
			bool ok = lists[i].extra[j].preferred;

			m = lists[i].extra[j].mask;
			if (ok && one_bit(m)) {
				if (!singles_known) {
					singles = bitmask_full(rs->n);
					for (k = 0; k < nlists; k++)
						if (!lists[k].nil_pref)
							singles &= pref_singles(&lists[k], rs->n);
					singles_known = true;
				}
				ok = (singles & m) != 0;
			} else {
				for (k = 0; k < nlists && ok; k++)
					ok = lists[k].nil_pref || rule_has_pref(&lists[k], m);
			}
			if (ok)
				consider(p, m, &found, &best);
		}
	}
	/* Candidates every constraining list's family offers. */
	if (!all_nil && fam_ok && kfind(rs, fams, nf, size, 0, &m))
		consider(p, m, &found, &best);
	if (all_nil) {
		/* Nobody constrains: anything some list prefers, or all nodes. */
		for (i = 0; i < nlists; i++) {
			const struct hint_fam *f = &lists[i].fam;

			if (lists[i].has_fam && kfind(rs, &f, 1, lists[i].pref_size, 0, &m))
				consider(p, m, &found, &best);
		}
		consider(p, bitmask_full(p->n), &found, &best);
	}
	if (found)
		*out = best;
	return found;
}

/* --- achievability: does some choice of one hint per list AND to m? --- */

struct achieve {
	struct rsearch *rs;
	const struct hint_list *lists;
	size_t nlists;
	bitmask_t m;
	bool fam_ok[64];        /* the family has a member containing m */
	bitmask_t assigned[64]; /* nodes this list's hint must leave out */
	int order[64];
	int nodes;
};

/* Can list i's hint contain m and leave out every node of x? */
static bool can_exclude(const struct achieve *a, size_t i, bitmask_t x)
{
	const struct hint_list *l = &a->lists[i];
	size_t j;

	for (j = 0; j < l->nextra; j++)
		if ((l->extra[j].mask & a->m) == a->m && (l->extra[j].mask & x) == 0)
			return true;
	if (a->fam_ok[i] && (x & l->fam.required) == 0 &&
	    fam_member(&l->fam, l->fam.universe & ~x))
		return true;
	return false;
}

static bool achieve_dfs(struct achieve *a, int k)
{
	size_t i;

	if (k == a->nodes)
		return true;
	if (!rs_step(a->rs))
		return false;
	for (i = 0; i < a->nlists; i++) {
		bitmask_t x = a->assigned[i] | ((bitmask_t)1 << a->order[k]);

		if (!can_exclude(a, i, x))
			continue;
		a->assigned[i] = x;
		if (achieve_dfs(a, k + 1))
			return true;
		a->assigned[i] &= ~((bitmask_t)1 << a->order[k]);
		if (a->rs->exhausted)
			return false;
	}
	return false;
}

static bool achievable(struct rsearch *rs, const struct hint_list *lists, size_t nlists,
		       bitmask_t m)
{
	struct achieve a;
	bitmask_t rest = bitmask_full(rs->n) & ~m, need = 0;
	size_t i, j;

	memset(&a, 0, sizeof a);
	a.rs = rs;
	a.lists = lists;
	a.nlists = nlists;
	a.m = m;
	for (i = 0; i < nlists; i++) {
		const struct hint_list *l = &lists[i];
		bitmask_t covers = 0; /* nodes some hint (containing m) of l has */
		bool any = false;

		if (l->nil_pref || l->nil_nonpref) {
			any = true;
			covers = bitmask_full(rs->n);
		}
		for (j = 0; j < l->nextra; j++) {
			if ((l->extra[j].mask & m) == m) {
				any = true;
				covers |= l->extra[j].mask;
			}
		}
		a.fam_ok[i] = l->has_fam && (m & ~l->fam.universe) == 0 &&
			      fam_member(&l->fam, l->fam.universe);
		if (a.fam_ok[i]) {
			any = true;
			covers |= l->fam.universe;
		}
		if (!any)
			return false;
		/* A node no hint of l has is left out whatever l picks. */
		rest &= covers;
	}
	/* Every other node must be left out by some list's hint. */
	for (need = rest; need; need &= need - 1)
		a.order[a.nodes++] = bitmask_lowest(need);
	return achieve_dfs(&a, 0);
}

/* --- the non-preferred phase --- */

struct nfind {
	struct rsearch *rs;
	const struct hint_list *lists;
	size_t nlists;
	int c;
	bool found;
	bitmask_t best;
	int64_t best_dist;
};

/* Some hint of every list contains chosen. */
static bool supersets_exist(const struct hint_list *lists, size_t nlists, bitmask_t chosen)
{
	size_t i, j;

	for (i = 0; i < nlists; i++) {
		const struct hint_list *l = &lists[i];
		bool ok = l->nil_pref || l->nil_nonpref ||
			  (l->has_fam && fam_has_superset(&l->fam, chosen));

		for (j = 0; j < l->nextra && !ok; j++)
			ok = (l->extra[j].mask & chosen) == chosen;
		if (!ok)
			return false;
	}
	return true;
}

static bool can_leave_out(const struct hint_list *lists, size_t nlists, bitmask_t chosen, int bit)
{
	bitmask_t one = (bitmask_t)1 << bit;
	size_t i, j;

	for (i = 0; i < nlists; i++) {
		const struct hint_list *l = &lists[i];

		for (j = 0; j < l->nextra; j++)
			if ((l->extra[j].mask & chosen) == chosen && !(l->extra[j].mask & one))
				return true;
		if (l->has_fam && (chosen & ~l->fam.universe) == 0 && !(l->fam.required & one) &&
		    fam_member(&l->fam, l->fam.universe & ~one))
			return true;
	}
	return false;
}

static void nfind_dfs(struct nfind *nf, int bit, bitmask_t chosen, int cnt)
{
	struct rsearch *rs = nf->rs;

	if (!rs_step(rs) || (nf->found && !rs->closest))
		return;
	if (rs->closest && nf->found && rs->nonneg &&
	    merge_distance_sum(rs->p, chosen) > nf->best_dist)
		return;
	if (!supersets_exist(nf->lists, nf->nlists, chosen))
		return;
	if (cnt == nf->c) {
		int64_t dist = rs->closest ? merge_distance_sum(rs->p, chosen) : 0;

		if (rs->closest && nf->found &&
		    (dist > nf->best_dist || (dist == nf->best_dist && chosen > nf->best)))
			return;
		if (!achievable(rs, nf->lists, nf->nlists, chosen))
			return;
		nf->best = chosen;
		nf->best_dist = dist;
		nf->found = true;
		return;
	}
	if (bit < 0 || bit + 1 < nf->c - cnt)
		return;
	/* Leaving this node out needs a list with a hint that contains
	 * chosen and not the node. */
	if (can_leave_out(nf->lists, nf->nlists, chosen, bit))
		nfind_dfs(nf, bit - 1, chosen, cnt);
	nfind_dfs(nf, bit - 1, chosen | ((bitmask_t)1 << bit), cnt + 1);
}

static int rule_narrowest(struct rsearch *rs, const struct hint_list *l)
{
	int best = 0, c;
	size_t j;

	for (j = 0; j < l->nextra; j++) {
		c = bitmask_count(l->extra[j].mask);
		if (best == 0 || c < best)
			best = c;
	}
	if (l->has_fam) {
		c = fam_min_count(rs, &l->fam);
		if (c && (best == 0 || c < best))
			best = c;
	}
	return best;
}

/* Tuples of the cross product when no list has a family; above any limit
 * otherwise. */
static double explicit_product(const struct hint_list *lists, size_t nlists)
{
	double product = 1;
	size_t i;

	for (i = 0; i < nlists; i++) {
		if (lists[i].has_fam)
			return 1e300;
		product *= (double)(lists[i].nextra + (lists[i].nil_pref || lists[i].nil_nonpref));
	}
	return product;
}

static void cross_product(struct rsearch *rs, const struct hint_list *lists, size_t nlists,
			  size_t i, bitmask_t acc, int b, bool *found, bitmask_t *best)
{
	const struct hint_list *l = &lists[i];
	size_t j;

	if (i == nlists) {
		if (acc && (!*found || merge_nonpreferred_before(rs->p, b, acc, *best))) {
			*best = acc;
			*found = true;
		}
		return;
	}
	if (l->nil_pref || l->nil_nonpref)
		cross_product(rs, lists, nlists, i + 1, acc, b, found, best);
	for (j = 0; j < l->nextra; j++)
		cross_product(rs, lists, nlists, i + 1, acc & l->extra[j].mask, b, found, best);
}

struct topo_hint merge_rules(const struct merge_params *p, const struct hint_list *lists,
			     size_t nlists)
{
	bitmask_t full = bitmask_full(p->n), best;
	struct topo_hint h = { full, false, false };
	struct rsearch rs;
	int b = 0, c, order[64], norder = 0, i;
	size_t k;

	memset(&rs, 0, sizeof rs);
	rs.p = p;
	rs.n = p->n;
	rs.closest = merge_use_closest(p) && p->distance != NULL;
	rs.budget = p->budget > 0 ? p->budget : MERGE_DEFAULT_BUDGET;
	rs.nonneg = true;
	for (i = 0; rs.closest && i < p->n * p->n; i++)
		if (p->distance[i] < 0)
			rs.nonneg = false;
	for (k = 0; k < nlists; k++)
		if (rule_list_empty(&lists[k]))
			goto out;
	if (rule_preferred(&rs, lists, nlists, &best)) {
		h.mask = best;
		h.preferred = true;
		goto out;
	}
	if (rs.exhausted || p->preferred_only)
		goto out;
	for (k = 0; k < nlists; k++) {
		c = rule_narrowest(&rs, &lists[k]);
		if (c > b)
			b = c;
	}
	if (!p->search_only && explicit_product(lists, nlists) <= 65536) {
		/* Explicit hints only, few tuples: the kubelet's own cross
		 * product is cheaper than a search. */
		bool found = false;

		best = 0;
		cross_product(&rs, lists, nlists, 0, bitmask_full(p->n), b, &found, &best);
		if (found)
			h.mask = best;
		goto out;
	}
	if (b > 0)
		order[norder++] = b;
	for (c = b - 1; c >= 1; c--)
		order[norder++] = c;
	for (c = b + 1; c <= p->n; c++)
		order[norder++] = c;
	for (i = 0; i < norder && !rs.exhausted; i++) {
		struct nfind nf = { &rs, lists, nlists, order[i], false, 0, 0 };

		nfind_dfs(&nf, p->n - 1, 0, 0);
		if (nf.found && !rs.exhausted) {
			h.mask = nf.best;
			break;
		}
	}
out:
	if (p->stats) {
		p->stats->steps += rs.steps;
		p->stats->exhausted |= rs.exhausted;
	}
	return h;
}

/* --- for the providers and Allocate --- */

static void rs_init(struct rsearch *rs, const struct merge_params *p)
{
	memset(rs, 0, sizeof *rs);
	rs->p = p;
	rs->n = p->n;
	rs->budget = p->budget > 0 ? p->budget : MERGE_DEFAULT_BUDGET;
	rs->nonneg = true;
}

static void rs_done(const struct rsearch *rs, const struct merge_params *p)
{
	if (p->stats) {
		p->stats->steps += rs->steps;
		p->stats->exhausted |= rs->exhausted;
	}
}

bool merge_fam_member(const struct hint_fam *f, bitmask_t m)
{
	return fam_member(f, m);
}

bool merge_rule_list_empty(const struct hint_list *l)
{
	return rule_list_empty(l);
}

bool merge_rule_has_pref(const struct hint_list *l, bitmask_t m)
{
	return rule_has_pref(l, m);
}

int merge_fam_min_count(const struct merge_params *p, const struct hint_fam *f)
{
	struct rsearch rs;
	int k;

	rs_init(&rs, p);
	k = fam_min_count(&rs, f);
	rs_done(&rs, p);
	return k;
}

bool merge_fam_has_size(const struct merge_params *p, const struct hint_fam *f, int k)
{
	struct rsearch rs;
	bitmask_t m;
	bool found;

	rs_init(&rs, p);
	found = kfind(&rs, &f, 1, k, 0, &m);
	rs_done(&rs, p);
	return found;
}

bool merge_rule_best_hint(const struct merge_params *p, const struct hint_list *l,
			  bitmask_t within, struct topo_hint *out)
{
	const struct hint_fam *f = &l->fam;
	struct rsearch rs;
	bool found = false;
	int pass, k;
	size_t j;

	rs_init(&rs, p);
	for (pass = 0; pass < 2 && !found; pass++) {
		bool pref = pass == 0;

		/* Explicit masks. */
		for (j = 0; j < l->nextra; j++) {
			bitmask_t m = l->extra[j].mask;

			if ((within & ~m) || l->extra[j].preferred != pref)
				continue;
			if (!found || bitmask_narrower(m, out->mask)) {
				out->mask = m;
				found = true;
			}
		}
		/* Family members: preferred ones have pref_size bits. */
		for (k = bitmask_count(within) > 0 ? bitmask_count(within) : 1;
		     l->has_fam && k <= p->n; k++) {
			bitmask_t m;

			if ((k == l->pref_size) != pref)
				continue;
			if (found && k > bitmask_count(out->mask))
				break;
			if (kfind(&rs, &f, 1, k, within, &m)) {
				if (!found || bitmask_narrower(m, out->mask)) {
					out->mask = m;
					found = true;
				}
				break;
			}
			if (rs.exhausted)
				break;
		}
		if (found) {
			out->nil = false;
			out->preferred = pref;
		}
	}
	rs_done(&rs, p);
	return found && !rs.exhausted;
}
