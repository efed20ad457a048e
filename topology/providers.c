/* SPDX-License-Identifier: Apache-2.0 */
/* Hint providers as functions of counts (kubelet cpumanager
 * generateCPUTopologyHints, devicemanager generateDeviceTopologyHints,
 * memorymanager calculateHints), read from the simulation state. Under
 * single-numa-node only preferred single-node hints survive the policy's
 * filter, so only those are generated (singleton form); other policies get
 * every NUMA subset (maskset form). */
#include "sim.h"

#include <string.h>

#include "base/checked.h"

static bool singleton_mode(const struct sim *s)
{
	return s->node->policy == TM_POLICY_SINGLE_NUMA_NODE && !s->node->full_enumeration;
}

/* Rule form (any NUMA count): the list is a family defined by counts plus a
 * few explicit masks; the merge searches it (merge_search.c). Maskset form (2^n
 * bitmaps) only for full_enumeration, the tests' reference. */
static bool rule_mode(const struct sim *s)
{
	return s->rule_lists && !singleton_mode(s) && !s->node->full_enumeration;
}

static struct merge_params sim_params(struct sim *s)
{
	struct merge_params p;

	memset(&p, 0, sizeof p);
	p.n = s->n;
	p.policy = s->node->policy;
	p.stats = &s->stats;
	return p;
}

/* The next mask with the same number of bits (Gosper's hack). m must be
 * nonzero: callers start from ((1 << k) - 1) with k >= 1. */
static inline uint64_t next_same_count(uint64_t m)
{
	uint64_t c = m & -m, r = m + c;

	return (((r ^ m) >> 2) / c) | r;
}

static int64_t mask_sum(const int64_t *v, uint64_t m)
{
	int64_t sum = 0;

	for (; m; m &= m - 1)
		sum = i64_add_sat(sum, v[__builtin_ctzll(m)]);
	return sum;
}

/* sum[m] = sum of v[i] over the bits i of m, for every m < 2^n. */
static int64_t *subset_sums(struct sim *s, const int64_t *v)
{
	uint64_t size = (uint64_t)1 << s->n, m;
	int64_t *sum = arena_alloc(s->arena, size * sizeof *sum);

	for (m = 1; m < size; m++)
		sum[m] = i64_add_sat(sum[m & (m - 1)], v[__builtin_ctzll(m)]);
	return sum;
}

static void list_init(struct sim *s, struct hint_list *l, const char *resource, int64_t amount,
		      bool maskset)
{
	hint_list_clear(l);
	l->resource = resource;
	l->amount = amount;
	if (maskset && rule_mode(s)) {
		l->rule = true;
	} else if (maskset) {
		size_t words = maskset_words(s->n);

		l->all = arena_alloc(s->arena, words * sizeof *l->all);
		l->pref = arena_alloc(s->arena, words * sizeof *l->pref);
	}
}

/* When the rule that hints contain every NUMA node holding a reusable unit
 * removed every preferred-size hint that the amounts alone would give (the
 * single NUMA nodes in `blocked`), the list remembers the pin for the
 * rejection's message. */
static void note_pin(const struct sim *s, struct hint_list *l, bitmask_t reuse_nodes,
		     bool any_preferred, bitmask_t blocked)
{
	if (reuse_nodes == 0 || any_preferred || blocked == 0)
		return;
	/* Under single-numa-node only single-node hints count: with a larger
	 * preferred size no NUMA node is big enough, pin or not. */
	if (l->min_affinity != 1 && s->node->policy == TM_POLICY_SINGLE_NUMA_NODE)
		return;
	l->pinned = reuse_nodes;
	l->pin_singles = l->min_affinity == 1 ? blocked : 0;
}

/* The NUMA nodes whose v reaches want. */
static bitmask_t reaching(const int64_t *v, int n, int64_t want)
{
	bitmask_t fit = 0;
	int i;

	for (i = 0; i < n; i++)
		if (v[i] >= want)
			fit |= (bitmask_t)1 << i;
	return fit;
}

/* The CPU and device rule: a subset is a hint when it contains every NUMA node
 * holding a reusable unit and its available plus all reusable units reach the
 * request; preferred when its size is the capacity minimum. */
static void count_hints(struct sim *s, struct hint_list *l, int r, bitmask_t universe,
			int min_aff, int64_t want)
{
	const int64_t *avail = sim_at(s->avail, s, r);
	const int64_t *reuse = sim_at(s->reuse, s, r);
	int64_t reuse_total = 0;
	bitmask_t reuse_nodes = 0, pin_blocked = 0;
	bool any = false, any_pref = false;
	int i;

	for (i = 0; i < s->n && s->reuse_any; i++) {
		if (reuse[i] > 0) {
			reuse_total = i64_add_sat(reuse_total, reuse[i]);
			reuse_nodes |= (bitmask_t)1 << i;
		}
	}
	/* A preferred size outside 1..n (no NUMA node with any capacity)
	 * would start the k-subset walk at the empty mask, where Gosper's
	 * step divides by zero: no subset of that size exists, so the list
	 * has no preferred hint, and the smallest real size stands in. */
	if (min_aff < 1)
		min_aff = 1;
	if (min_aff > s->n)
		min_aff = s->n;
	l->min_affinity = min_aff;
	if (l->rule) {
		struct merge_params p = sim_params(s);
		struct hint_fam *f = &l->fam;

		f->universe = universe;
		f->required = reuse_nodes;
		f->min_size = 1;
		f->ndims = 1;
		f->w[0] = avail;
		f->need[0] = want > reuse_total ? want - reuse_total : 0;
		l->pref_size = min_aff;
		l->has_fam = merge_fam_member(f, universe);
		if (!l->has_fam) {
			/* An empty provider list means "cannot be satisfied". */
			l->nil_nonpref = true;
		} else {
			any_pref = merge_fam_has_size(&p, f, min_aff);
		}
		if (reuse_nodes && !any_pref) {
			/* Would a preferred-size subset not holding every reusable
			 * unit fit, counting its own reusable units? */
			int64_t *both = arena_alloc(s->arena, (size_t)s->n * sizeof *both);
			struct hint_fam g;

			for (i = 0; i < s->n; i++)
				both[i] = i64_add_sat(avail[i], reuse[i]);
			if (min_aff == 1) {
				for (i = 0; i < s->n; i++)
					if ((universe >> i & 1) && (reuse_nodes & ~((bitmask_t)1 << i)) &&
					    both[i] >= want)
						pin_blocked |= (bitmask_t)1 << i;
			} else {
				memset(&g, 0, sizeof g);
				g.min_size = 1;
				g.ndims = 1;
				g.w[0] = both;
				g.need[0] = want;
				for (i = 0; i < s->n && !pin_blocked; i++) {
					if (!(reuse_nodes >> i & 1))
						continue;
					g.universe = universe & ~((bitmask_t)1 << i);
					if (merge_fam_has_size(&p, &g, min_aff))
						pin_blocked = 1;
				}
			}
		}
		note_pin(s, l, reuse_nodes, any_pref, pin_blocked);
		return;
	}
	if (l->all == NULL) {
		if (min_aff != 1)
			return;
		if (reuse_nodes == 0) {
			/* Nothing reusable: the single NUMA nodes whose free
			 * amount reaches the request (no pin to note). */
			bitmask_t fit = 0;

			for (i = 0; i < s->n; i++)
				if (avail[i] >= want)
					fit |= (bitmask_t)1 << i;
			l->singles |= fit & universe;
			return;
		}
		for (i = 0; i < s->n; i++) {
			bitmask_t one = (bitmask_t)1 << i;

			if (!(universe & one))
				continue;
			if (!(reuse_nodes & ~one)) {
				if (i64_add_sat(avail[i], reuse_total) >= want)
					l->singles |= one;
			} else if (i64_add_sat(avail[i], reuse[i]) >= want) {
				pin_blocked |= one;
			}
		}
		note_pin(s, l, reuse_nodes, l->singles != 0, pin_blocked);
		return;
	} else if (s->preferred_only) {
		uint64_t size = (uint64_t)1 << s->n, m;

		if (min_aff == 1 && reuse_nodes == 0) {
			/* The single NUMA nodes whose free amount reaches the
			 * request (no pin to note). */
			bitmask_t fit = reaching(avail, s->n, want) & universe, b;

			for (b = fit; b; b &= b - 1) {
				maskset_add(l->all, b & -b);
				maskset_add(l->pref, b & -b);
			}
			return;
		}
		/* Phase 1 of the merge needs preferred hints only: the subsets of
		 * exactly min_aff nodes. */
		for (m = ((uint64_t)1 << min_aff) - 1; m < size; m = next_same_count(m)) {
			if (m & ~universe)
				continue;
			if (reuse_nodes & ~m) {
				if (i64_add_sat(mask_sum(avail, m), mask_sum(reuse, m)) >= want)
					pin_blocked |= m;
				continue;
			}
			if (i64_add_sat(mask_sum(avail, m), reuse_total) < want)
				continue;
			maskset_add(l->all, m);
			maskset_add(l->pref, m);
			any = true;
		}
		note_pin(s, l, reuse_nodes, any, pin_blocked);
		/* Without a preferred hint the list blocks every preferred merge,
		 * which is all phase 1 needs to know. */
		return;
	} else {
		uint64_t size = (uint64_t)1 << s->n, m;
		int64_t *sum = subset_sums(s, avail);

		for (m = 1; m < size; m++) {
			if (m & ~universe)
				continue;
			if (reuse_nodes & ~m) {
				if (bitmask_count(m) == min_aff &&
				    i64_add_sat(sum[m], mask_sum(reuse, m)) >= want)
					pin_blocked |= m;
				continue;
			}
			if (i64_add_sat(sum[m], reuse_total) < want)
				continue;
			maskset_add(l->all, m);
			if (bitmask_count(m) == min_aff) {
				maskset_add(l->pref, m);
				any_pref = true;
			}
			any = true;
		}
		note_pin(s, l, reuse_nodes, any_pref, pin_blocked);
	}
	if (!any) {
		/* An empty provider list means "cannot be satisfied". */
		l->nil_nonpref = true;
	}
}

/* count_hints for a single-node list (single-numa-node) while nothing is
 * reusable: with fit the NUMA nodes whose free amount reaches the request,
 * the list holds fit when the preferred size is 1, nothing otherwise. */
static void count_singles(const struct sim *s, struct hint_list *l, int min_aff, bitmask_t fit)
{
	if (min_aff < 1)
		min_aff = 1;
	if (min_aff > s->n)
		min_aff = s->n;
	l->min_affinity = min_aff;
	if (min_aff == 1)
		l->singles = fit;
}

static bool cpu_hints(struct sim *s, const struct ask *a, struct hint_list *l)
{
	const struct inventory_node *node = s->node;
	bitmask_t universe = 0;
	int i;

	if (!node->cpu_static || node->cpu < 0 || a->cpus == 0)
		return false;
	if (singleton_mode(s) && !s->reuse_any && a->cpus > 0) {
		/* Only NUMA nodes with CPUs are candidates: free CPUs never
		 * exceed capacity, so a node that reaches a positive request
		 * has some. */
		list_init(s, l, "cpu", a->cpus, false);
		count_singles(s, l,
			      inventory_min_affinity(&node->resources[node->cpu], a->cpus,
						     node->resources[node->cpu].nonzero_numa),
			      reaching(sim_at(s->avail, s, node->cpu), s->n, a->cpus));
		return true;
	}
	for (i = 0; i < s->n; i++)
		if (node->resources[node->cpu].capacity[i] > 0)
			universe |= (bitmask_t)1 << i;
	list_init(s, l, "cpu", a->cpus, !singleton_mode(s));
	/* Only NUMA nodes with CPUs are candidates (and the fallback size). */
	count_hints(s, l, node->cpu, universe,
		    inventory_min_affinity(&node->resources[node->cpu], a->cpus,
					   node->resources[node->cpu].nonzero_numa),
		    a->cpus);
	return true;
}

static bool device_hints(struct sim *s, const struct demand_amount *d, struct hint_list *l)
{
	const struct inventory_node *node = s->node;
	int r = sim_resource(s, d->name);
	const int64_t *avail, *reuse;
	int64_t total = 0;
	int i;

	/* Not listed anywhere: a device without NUMA information, no
	 * preference. Listed with no device at all: no topology either. */
	if (r < 0 || node->resources[r].kind != RESOURCE_DEVICE ||
	    node->resources[r].total_capacity == 0)
		return false;
	list_init(s, l, d->name, d->amount, !singleton_mode(s));
	avail = sim_at(s->avail, s, r);
	reuse = sim_at(s->reuse, s, r);
	if (singleton_mode(s) && !s->reuse_any) {
		bitmask_t fit = 0;

		/* count_hints' single-node list in the same pass as the total. */
		for (i = 0; i < s->n; i++) {
			total = i64_add_sat(total, avail[i]);
			if (avail[i] >= d->amount)
				fit |= (bitmask_t)1 << i;
		}
		if (total < d->amount) {
			l->nil_nonpref = true;
			l->min_affinity = inventory_min_affinity(&node->resources[r], d->amount, s->n);
			return true;
		}
		count_singles(s, l, inventory_min_affinity(&node->resources[r], d->amount, s->n), fit);
		return true;
	}
	for (i = 0; i < s->n; i++)
		total = i64_add_sat(total, s->reuse_any ? i64_add_sat(avail[i], reuse[i]) : avail[i]);
	if (total < d->amount) {
		l->nil_nonpref = true;
		l->min_affinity = inventory_min_affinity(&node->resources[r], d->amount, s->n);
		return true;
	}
	count_hints(s, l, r, s->full, inventory_min_affinity(&node->resources[r], d->amount, s->n),
		    d->amount);
	return true;
}

static int64_t mem_reuse_get(const struct sim *s, bitmask_t mask, int r)
{
	size_t i;

	for (i = 0; i < s->nmem_reuse; i++)
		if (s->mem_reuse[i].mask == mask && s->mem_reuse[i].resource == r)
			return s->mem_reuse[i].amount;
	return 0;
}

size_t providers_memory_hints(struct sim *s, const struct demand_amount *memory,
			      size_t nmemory, uint64_t *all, uint64_t *pref)
{
	const struct inventory_node *node = s->node;
	uint64_t size = (uint64_t)1 << s->n, m;
	int64_t *alloc_sum[16], *free_sum[16];
	int res[16], min_aff = s->n;
	size_t t, count = 0;
	int k = (int)(nmemory < 16 ? nmemory : 16);

	for (t = 0; t < (size_t)k; t++) {
		res[t] = sim_resource(s, memory[t].name);
		alloc_sum[t] = subset_sums(s, node->resources[res[t]].allocatable);
		free_sum[t] = subset_sums(s, sim_at(s->avail, s, res[t]));
	}
	/* minAffinitySize counts every subset whose allocatable suffices. */
	for (m = 1; m < size; m++) {
		bool ok = true;

		for (t = 0; t < (size_t)k && ok; t++)
			ok = alloc_sum[t][m] >= memory[t].amount;
		if (ok && bitmask_count(m) < min_aff)
			min_aff = bitmask_count(m);
	}
	for (m = 1; m < size; m++) {
		bool single = (m & (m - 1)) == 0, ok = true;
		bitmask_t rest;

		for (t = 0; t < (size_t)k && ok; t++)
			ok = alloc_sum[t][m] >= memory[t].amount;
		if (!ok)
			continue;
		if (single && bitmask_count(s->group[bitmask_lowest(m)]) > 1)
			continue;
		for (rest = single ? 0 : m; rest && ok; rest &= rest - 1) {
			int i = bitmask_lowest(rest);

			/* Single versus cross-NUMA: a node used by a single-NUMA
			 * allocation never joins a multi-NUMA one, and
			 * multi-NUMA groups are exclusive. */
			if (s->assignments[i] > 0 &&
			    (bitmask_count(s->group[i]) == 1 || s->group[i] != m))
				ok = false;
		}
		for (t = 0; t < (size_t)k && ok; t++)
			ok = i64_add_sat(free_sum[t][m], mem_reuse_get(s, m, res[t])) >=
			     memory[t].amount;
		if (!ok)
			continue;
		if (all)
			maskset_add(all, m);
		if (pref && bitmask_count(m) == min_aff)
			maskset_add(pref, m);
		count++;
	}
	return count;
}

/* memory_subset_ok(m = {i}, true) for one NUMA node, without the
 * mask walks: the sums over one node are its amounts. */
static bool memory_single_ok(const struct sim *s, const struct demand_amount *memory, size_t k,
			     const int *res, int i)
{
	const struct inventory_node *node = s->node;
	size_t t;

	for (t = 0; t < k; t++)
		if (node->resources[res[t]].allocatable[i] < memory[t].amount)
			return false;
	if (s->group[i] & (s->group[i] - 1)) /* more than one node */
		return false;
	for (t = 0; t < k; t++) {
		int64_t free_i = s->avail[(size_t)res[t] * (size_t)s->n + (size_t)i];

		if (s->nmem_reuse)
			free_i = i64_add_sat(free_i, mem_reuse_get(s, (bitmask_t)1 << i, res[t]));
		if (free_i < memory[t].amount)
			return false;
	}
	return true;
}

/* memory_single_ok for every NUMA node at once: *fits gets the nodes whose
 * allocatable covers every type; the result, those that also pass the
 * group and free-memory checks. */
static bitmask_t memory_singles(const struct sim *s, const struct demand_amount *memory,
				size_t k, const int *res, bitmask_t *fits)
{
	const struct inventory_node *node = s->node;
	bitmask_t ok = s->full, b, singles;
	size_t t;
	int i;

	for (t = 0; t < k; t++) {
		const int64_t *al = node->resources[res[t]].allocatable;

		for (i = 0; i < s->n; i++)
			if (al[i] < memory[t].amount)
				ok &= ~((bitmask_t)1 << i);
	}
	*fits = ok;
	/* At most one NUMA node in the node's memory group (every group has
	 * at most one until some allocation spans several). */
	singles = ok;
	for (b = s->multi_group ? ok : 0; b; b &= b - 1) {
		bitmask_t g = s->group[bitmask_lowest(b)];

		if (g & (g - 1))
			singles &= ~(b & -b);
	}
	/* Free memory (and init-container memory reusable on exactly {i}):
	 * without reusable memory, the free amounts alone. */
	for (t = 0; t < k && singles && s->nmem_reuse == 0; t++) {
		const int64_t *av = &s->avail[(size_t)res[t] * (size_t)s->n];
		int64_t want = memory[t].amount;

		for (b = singles; b; b &= b - 1)
			if (av[bitmask_lowest(b)] < want)
				singles &= ~(b & -b);
	}
	for (t = 0; t < k && singles && s->nmem_reuse != 0; t++) {
		const int64_t *av = &s->avail[(size_t)res[t] * (size_t)s->n];
		int64_t want = memory[t].amount;

		for (b = singles; b; b &= b - 1) {
			int64_t free_i;

			i = bitmask_lowest(b);
			free_i = av[i];
			if (s->nmem_reuse)
				free_i = i64_add_sat(free_i,
						     mem_reuse_get(s, (bitmask_t)1 << i, res[t]));
			if (free_i < want)
				singles &= ~(b & -b);
		}
	}
	return singles;
}

static bool memory_subset_ok(struct sim *s, const struct demand_amount *memory, size_t k,
			     const int *res, uint64_t m, bool check_free)
{
	const struct inventory_node *node = s->node;
	bool single = (m & (m - 1)) == 0;
	bitmask_t rest;
	size_t t;

	if (single && check_free && m != 0)
		return memory_single_ok(s, memory, k, res, bitmask_lowest(m));
	for (t = 0; t < k; t++)
		if (mask_sum(node->resources[res[t]].allocatable, m) < memory[t].amount)
			return false;
	if (!check_free)
		return true;
	if (single && bitmask_count(s->group[bitmask_lowest(m)]) > 1)
		return false;
	for (rest = single ? 0 : m; rest; rest &= rest - 1) {
		int i = bitmask_lowest(rest);

		if (s->assignments[i] > 0 &&
		    (bitmask_count(s->group[i]) == 1 || s->group[i] != m))
			return false;
	}
	for (t = 0; t < k; t++)
		if (i64_add_sat(mask_sum(sim_at(s->avail, s, res[t]), m),
				mem_reuse_get(s, m, res[t])) < memory[t].amount)
			return false;
	return true;
}

/* calculateHints in rule form: multi-NUMA subsets of NUMA nodes without
 * assignments whose allocatable and free amounts cover every type (a family),
 * plus the masks checked one by one: single NUMA nodes, existing multi-NUMA
 * groups and masks holding reusable init-container memory. Preferred: the
 * fewest NUMA nodes whose allocatable covers every type. Returns false when
 * there is no hint at all. */
bool providers_memory_rule(struct sim *s, const struct demand_amount *memory, size_t k,
			   const int *res, struct hint_list *l)
{
	const struct inventory_node *node = s->node;
	struct merge_params p = sim_params(s);
	/* Raw: only the first nextra entries are written and read. */
	struct hint_mask *extra = arena_alloc_raw(s->arena, ((size_t)s->n * 2 + s->nmem_reuse + 1) *
								sizeof *extra);
	struct hint_fam alloc;
	bitmask_t singles, fits;
	size_t t, nextra = 0, j;
	int i, min_aff;

	memset(&alloc, 0, sizeof alloc);
	alloc.universe = s->full;
	alloc.min_size = 1;
	alloc.ndims = (int)k;
	for (t = 0; t < k; t++) {
		alloc.w[t] = node->resources[res[t]].allocatable;
		alloc.need[t] = memory[t].amount;
	}
	min_aff = merge_fam_min_count(&p, &alloc);
	if (min_aff == 0)
		min_aff = s->n;
	l->rule = true;
	l->pref_size = min_aff;
	l->fam.min_size = 2;
	l->fam.ndims = (int)(2 * k);
	l->fam.universe = s->full & ~s->assigned;
	for (t = 0; t < k; t++) {
		l->fam.w[2 * t] = node->resources[res[t]].allocatable;
		l->fam.need[2 * t] = memory[t].amount;
		l->fam.w[2 * t + 1] = sim_at(s->avail, s, res[t]);
		l->fam.need[2 * t + 1] = memory[t].amount;
	}
	l->has_fam = merge_fam_member(&l->fam, l->fam.universe);
	singles = memory_singles(s, memory, k, res, &fits);
	if (!s->multi_group) {
		/* Only the single NUMA nodes, in order. */
		for (; singles; singles &= singles - 1)
			extra[nextra++] = (struct hint_mask){ singles & -singles, min_aff == 1 };
	}
	for (i = 0; i < s->n && s->multi_group; i++) {
		bitmask_t one = (bitmask_t)1 << i, g = s->group[i];

		if (singles & one)
			extra[nextra++] = (struct hint_mask){ one, min_aff == 1 };
		/* An existing multi-NUMA group, once (at its lowest node). */
		if ((g & (g - 1)) != 0 && bitmask_lowest(g) == i &&
		    memory_subset_ok(s, memory, k, res, g, true))
			extra[nextra++] = (struct hint_mask){ g, bitmask_count(g) == min_aff };
	}
	for (j = 0; j < s->nmem_reuse; j++) {
		bitmask_t m = s->mem_reuse[j].mask;

		if (bitmask_count(m) > 1 && memory_subset_ok(s, memory, k, res, m, true))
			extra[nextra++] = (struct hint_mask){ m, bitmask_count(m) == min_aff };
	}
	l->extra = extra;
	l->nextra = nextra;
	return l->has_fam || nextra > 0;
}

/* calculateHints restricted to its preferred hints: the smallest subset size
 * whose allocatable covers every type, then the subsets of that size that
 * pass the group and free-memory checks. Returns that size. */
static int preferred_memory_hints(struct sim *s, const struct demand_amount *memory, size_t k,
				  const int *res, uint64_t *pref)
{
	uint64_t size = (uint64_t)1 << s->n, m;
	int c, min_aff = s->n;
	bool found = false;
	bitmask_t fits, singles = memory_singles(s, memory, k, res, &fits);

	if (fits != 0) {
		/* Some single NUMA node's allocatable suffices: the preferred
		 * size is 1, and the preferred hints are the singles. */
		for (; singles; singles &= singles - 1)
			maskset_add(pref, (uint64_t)1 << bitmask_lowest(singles));
		return 1;
	}
	for (c = 1; c <= s->n && !found; c++) {
		for (m = ((uint64_t)1 << c) - 1; m < size; m = next_same_count(m)) {
			if (memory_subset_ok(s, memory, k, res, m, false)) {
				min_aff = c;
				found = true;
				break;
			}
		}
	}
	for (m = ((uint64_t)1 << min_aff) - 1; m < size; m = next_same_count(m))
		if (memory_subset_ok(s, memory, k, res, m, true))
			maskset_add(pref, m);
	return min_aff;
}

/* Memory provider: one identical list per requested type, or nothing at all
 * ("no preference") when the pod is not Guaranteed, the memory manager is off,
 * or no NUMA subset fits (calculateHints returns an empty map). */
static size_t memory_hints(struct sim *s, const struct ask *a, struct hint_list *out,
			   struct provider_notes *notes)
{
	const struct inventory_node *node = s->node;
	size_t words = maskset_words(s->n), t, count;
	uint64_t *all, *pref;
	bitmask_t singles = 0;
	int res[16], min_aff = 0;

	if (s->pod->qos != QOS_GUARANTEED || !node->memory_static || !node->memory_listed ||
	    !a->memory_whole || a->nmemory == 0 || a->nmemory > 16)
		return 0;
	for (t = 0; t < a->nmemory; t++) {
		res[t] = sim_resource(s, a->memory[t].name);
		/* A zone that does not list a memory type has none of it
		 * (exporters leave out blocks whose allocatable is 0):
		 * the inventory reads zeros there. A type no zone lists cannot
		 * be served from any NUMA node. */
		if (res[t] < 0) {
			notes->memory_missing_type = true;
			strncpy(notes->missing, a->memory[t].name, sizeof notes->missing - 1);
			return 0;
		}
	}
	if (singleton_mode(s)) {
		/* Preferred singles exist only when one node's allocatable
		 * suffices; the full scan is needed only to tell "no hint at all"
		 * (no preference) from "only multi-NUMA hints" (rejected). */
		bitmask_t fits;

		singles = memory_singles(s, a->memory, a->nmemory, res, &fits);
		min_aff = fits ? 1 : 0;
		if (singles == 0) {
			struct hint_list probe;

			/* No single-NUMA hint: is there any hint at all? */
			hint_list_clear(&probe);
			if (!providers_memory_rule(s, a->memory, a->nmemory, res, &probe))
				return 0;
		}
		for (t = 0; t < a->nmemory; t++) {
			hint_list_clear(&out[t]);
			out[t].resource = a->memory[t].name;
			out[t].amount = a->memory[t].amount;
			out[t].singles = singles;
			out[t].min_affinity = min_aff ? min_aff : 2;
		}
		return a->nmemory;
	}
	if (rule_mode(s)) {
		struct hint_list l;

		hint_list_clear(&l);
		if (!providers_memory_rule(s, a->memory, a->nmemory, res, &l))
			return 0;
		for (t = 0; t < a->nmemory; t++) {
			out[t] = l;
			out[t].resource = a->memory[t].name;
			out[t].amount = a->memory[t].amount;
			out[t].min_affinity = l.pref_size;
		}
		return a->nmemory;
	}
	all = arena_alloc(s->arena, words * sizeof *all);
	pref = arena_alloc(s->arena, words * sizeof *pref);
	if (s->preferred_only) {
		/* Phase 1: only the preferred hints. With none, the provider
		 * might still have non-preferred hints or none at all ("no
		 * preference"); an empty list blocks phase 1 and phase 2 will
		 * tell the two apart. */
		min_aff = preferred_memory_hints(s, a->memory, a->nmemory, res, pref);
		memcpy(all, pref, words * sizeof *all);
		count = 1;
		notes->memory_unsure = true;
		for (t = 0; t < words; t++)
			if (pref[t])
				notes->memory_unsure = false;
	} else {
		count = providers_memory_hints(s, a->memory, a->nmemory, all, pref);
	}
	if (count == 0)
		return 0;
	for (t = 0; t < words && !min_aff; t++) {
		/* For messages: the preferred size. */
		if (pref[t])
			min_aff = bitmask_count(t * 64 + (uint64_t)__builtin_ctzll(pref[t]));
	}
	for (t = 0; t < a->nmemory; t++) {
		hint_list_clear(&out[t]);
		out[t].resource = a->memory[t].name;
		out[t].amount = a->memory[t].amount;
		out[t].all = all;
		out[t].pref = pref;
		out[t].min_affinity = min_aff;
	}
	return a->nmemory;
}

size_t providers_hints(struct sim *s, const struct ask *a, struct hint_list *out,
		       struct provider_notes *notes)
{
	size_t n = 0, i;

	memset(notes, 0, sizeof *notes);
	for (i = 0; i < a->ndevices; i++)
		if (device_hints(s, &a->devices[i], &out[n]))
			n++;
	if (cpu_hints(s, a, &out[n]))
		n++;
	n += memory_hints(s, a, &out[n], notes);
	return n;
}
