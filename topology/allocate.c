/* SPDX-License-Identifier: Apache-2.0 */
/* The providers' Allocate step that follows a successful merge, on counts
 * (kubelet devicemanager devicesToAllocate, cpumanager allocateCPUs with
 * takeByTopologyNUMAPacked, memorymanager staticPolicy.Allocate). It decides
 * whether admission fails after the merge, and what later containers of the
 * same pod see. Choices the kubelet leaves to set order are made in ascending
 * NUMA id order. */
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/checked.h"

static void fail(struct sim *s, const char *who, const char *resource, const char *detail)
{
	s->failed_resource = resource;
	snprintf(s->failure, sizeof s->failure, "container \"%s\": %s", who, detail);
}

/* --- devices --- */

static void fail_devices(struct sim *s, const char *who, const struct demand_amount *d,
			 int64_t available)
{
	char detail[200];

	snprintf(detail, sizeof detail,
		 "requested number of devices unavailable for %s. Requested: %lld, Available: %lld",
		 d->name, (long long)d->amount, (long long)available);
	fail(s, who, d->name, detail);
}

/* allocate_device while nothing is reusable (s->reuse_any false): every
 * from_reuse term is 0, and each NUMA node is visited by one pass only, so
 * what it gives is applied at once. The same result, without the two
 * per-NUMA tables. */
static bool allocate_device_fresh(struct sim *s, const struct container_demand *c,
				  const char *who, const struct demand_amount *d,
				  struct topo_hint hint, int64_t *avail, int64_t *reuse,
				  int64_t *used)
{
	int64_t need = d->amount, total = 0;
	int i, pass;

	if (!hint.nil && hint.mask != 0 && (hint.mask & (hint.mask - 1)) == 0 && need > 0 &&
	    avail[bitmask_lowest(hint.mask)] >= need) {
		/* One NUMA node that holds the request: free amounts are never
		 * below 0 (see allocate_cpus), so the total passes, and the
		 * aligned pass takes everything there. */
		i = bitmask_lowest(hint.mask);
		avail[i] -= need;
		used[i] += need;
		if (c->kind == CONTAINER_INIT) {
			reuse[i] += need;
			s->reuse_any = true;
		}
		return true;
	}
	for (i = 0; i < s->n; i++)
		total = i64_add_sat(total, avail[i]);
	if (need > total) {
		fail_devices(s, who, d, total);
		return false;
	}
	if (c->kind == CONTAINER_INIT)
		s->reuse_any = true;
	/* Aligned devices first, then the rest. */
	for (pass = 0; pass < 2 && need > 0; pass++) {
		for (i = 0; i < s->n && need > 0; i++) {
			int64_t t;

			if (hint.nil ? pass == 1 : (pass == 0) != bitmask_is_set(hint.mask, i))
				continue;
			t = avail[i] < need ? avail[i] : need;
			avail[i] -= t;
			used[i] += t;
			if (c->kind == CONTAINER_INIT)
				reuse[i] += t;
			need -= t;
		}
	}
	return true;
}

static bool allocate_device(struct sim *s, const struct container_demand *c, const char *who,
			    const struct demand_amount *d, struct topo_hint hint)
{
	int r = sim_resource(s, d->name);
	int64_t *avail, *reuse, *used;
	int64_t from_reuse[INVENTORY_MAX_NUMA], from_avail[INVENTORY_MAX_NUMA];
	int64_t need = d->amount, total = 0;
	int i, pass;

	if (r < 0 || s->node->resources[r].kind != RESOURCE_DEVICE)
		return true; /* no NUMA information: not tracked */
	avail = sim_at(s->avail, s, r);
	reuse = sim_at(s->reuse, s, r);
	used = sim_at(s->used, s, r);
	if (!s->reuse_any)
		return allocate_device_fresh(s, c, who, d, hint, avail, reuse, used);
	memset(from_reuse, 0, (size_t)s->n * sizeof from_reuse[0]);
	memset(from_avail, 0, (size_t)s->n * sizeof from_avail[0]);
	for (i = 0; i < s->n && need > 0; i++) {
		from_reuse[i] = reuse[i] < need ? reuse[i] : need;
		need -= from_reuse[i];
	}
	for (i = 0; i < s->n; i++)
		total = i64_add_sat(total, avail[i]);
	if (need > total) {
		fail_devices(s, who, d, i64_add_sat(total, d->amount - need));
		return false;
	}
	/* Aligned devices first, then the rest. */
	for (pass = 0; pass < 2 && need > 0; pass++) {
		for (i = 0; i < s->n && need > 0; i++) {
			bool in = !hint.nil && bitmask_is_set(hint.mask, i);
			int64_t t;

			if (!hint.nil && (pass == 0) != in)
				continue;
			if (hint.nil && pass == 1)
				continue;
			t = avail[i] < need ? avail[i] : need;
			from_avail[i] += t;
			need -= t;
		}
	}
	if (c->kind == CONTAINER_INIT)
		s->reuse_any = true;
	for (i = 0; i < s->n; i++) {
		avail[i] -= from_avail[i];
		used[i] += from_avail[i];
		if (c->kind == CONTAINER_INIT)
			reuse[i] += from_avail[i];
		else
			reuse[i] -= from_reuse[i];
	}
	return true;
}

/* --- CPUs --- */

/* order[0..k) by ascending free count in pool, then index (insertion sort:
 * k <= 64). */
static void sort_by_free(int *order, int k, const int64_t *pool)
{
	int i, j;

	for (i = 1; i < k; i++) {
		int x = order[i];

		for (j = i; j > 0 && (pool[order[j - 1]] > pool[x] ||
				      (pool[order[j - 1]] == pool[x] && order[j - 1] > x)); j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
}

/* takeByTopologyNUMAPacked with one CPU per core and one socket per NUMA
 * node: whole free NUMA nodes the request can use entirely, then NUMA nodes
 * with the fewest free CPUs first (ties: lower id). */
static void take_by_topology(const struct sim *s, int64_t *pool, const int64_t *capacity,
			     int64_t want, int64_t *taken)
{
	int order[INVENTORY_MAX_NUMA], k, i, only = -1;

	if (want <= 0)
		return;
	/* The common case: the pool is one NUMA node (an aligned single-node
	 * hint). Whole-node or not, the CPUs come from it. */
	for (i = 0; i < s->n; i++) {
		if (pool[i] > 0) {
			if (only >= 0) {
				only = -2;
				break;
			}
			only = i;
		}
	}
	if (only >= 0) {
		int64_t t = pool[only] < want ? pool[only] : want;

		taken[only] += t;
		pool[only] -= t;
		return;
	}
	for (k = 0, i = 0; i < s->n; i++)
		order[k++] = i;
	sort_by_free(order, k, pool);
	for (i = 0; i < k && want > 0; i++) {
		int d = order[i];

		if (capacity[d] > 0 && pool[d] == capacity[d] && want >= capacity[d]) {
			taken[d] += pool[d];
			want -= pool[d];
			pool[d] = 0;
		}
	}
	sort_by_free(order, k, pool); /* the whole nodes taken are empty now */
	for (i = 0; i < k && want > 0; i++) {
		int d = order[i];
		int64_t t = pool[d] < want ? pool[d] : want;

		taken[d] += t;
		pool[d] -= t;
		want -= t;
	}
}

static bool allocate_cpus(struct sim *s, const struct container_demand *c, const char *who,
			  struct topo_hint hint)
{
	const struct inventory_node *node = s->node;
	int64_t pool[INVENTORY_MAX_NUMA], aligned[INVENTORY_MAX_NUMA];
	int64_t taken[INVENTORY_MAX_NUMA];
	int64_t *avail, *reuse, *used, total = 0, in_mask = 0, first;
	const int64_t *capacity;
	int i;

	if (c->cpus == 0 || !node->cpu_static || node->cpu < 0)
		return true;
	avail = sim_at(s->avail, s, node->cpu);
	reuse = sim_at(s->reuse, s, node->cpu);
	used = sim_at(s->used, s, node->cpu);
	if (!s->reuse_any && !hint.nil && hint.mask != 0 && (hint.mask & (hint.mask - 1)) == 0 &&
	    c->cpus > 0 && avail[bitmask_lowest(hint.mask)] >= c->cpus) {
		/* The common case, one NUMA node j that holds the request and
		 * nothing reusable: free amounts never go below 0 (the
		 * inventory has none, and every take is at most what is free),
		 * so the total passes, the aligned pool is j alone and gives
		 * everything, and the second take asks for nothing. */
		i = bitmask_lowest(hint.mask);
		avail[i] -= c->cpus;
		used[i] += c->cpus;
		if (c->kind == CONTAINER_INIT) {
			reuse[i] += c->cpus;
			s->reuse_any = true;
		}
		return true;
	}
	capacity = node->resources[node->cpu].capacity;
	memset(taken, 0, (size_t)s->n * sizeof taken[0]);
	for (i = 0; i < s->n; i++) {
		pool[i] = i64_add_sat(avail[i], reuse[i]);
		total = i64_add_sat(total, pool[i]);
		aligned[i] = !hint.nil && bitmask_is_set(hint.mask, i) ? pool[i] : 0;
		in_mask = i64_add_sat(in_mask, aligned[i]);
	}
	if (total < c->cpus) {
		char detail[200];

		snprintf(detail, sizeof detail,
			 "cpu: not enough cpus available to satisfy request: requested=%lld, available=%lld",
			 (long long)c->cpus, (long long)total);
		fail(s, who, "cpu", detail);
		return false;
	}
	first = in_mask < c->cpus ? in_mask : c->cpus;
	take_by_topology(s, aligned, capacity, first, taken);
	for (i = 0; i < s->n; i++)
		pool[i] -= taken[i];
	take_by_topology(s, pool, capacity, c->cpus - first, taken);
	if (c->kind == CONTAINER_INIT)
		s->reuse_any = true;
	for (i = 0; i < s->n; i++) {
		/* Reusable CPUs of a NUMA node are taken before its free ones. */
		int64_t r = reuse[i] < taken[i] ? reuse[i] : taken[i];
		int64_t a = taken[i] - r;

		avail[i] -= a;
		used[i] += a;
		if (c->kind == CONTAINER_INIT)
			reuse[i] += a;
		else
			reuse[i] -= r;
	}
	return true;
}

/* --- memory --- */

/* memorymanager findBestHint: preferred first, then narrowest. */
static bool best_memory_hint(struct sim *s, const struct container_demand *c,
			     bitmask_t within, bool filter, struct topo_hint *out)
{
	size_t words, t;
	uint64_t *all, *pref;
	uint64_t size, m;
	bool found = false;

	if (!s->node->full_enumeration && s->node->numa_count > SIM_BITMAP_NUMA) {
		/* Rule form: a search, for any NUMA count (bitmaps below). */
		struct merge_params p;
		struct hint_list l;
		int res[16];

		for (t = 0; t < c->nmemory && t < 16; t++)
			res[t] = sim_resource(s, c->memory[t].name);
		memset(&p, 0, sizeof p);
		p.n = s->n;
		p.policy = s->node->policy;
		p.stats = &s->stats;
		hint_list_clear(&l);
		if (!providers_memory_rule(s, c->memory, c->nmemory < 16 ? c->nmemory : 16, res, &l))
			return false;
		return merge_rule_best_hint(&p, &l, filter ? within : 0, out);
	}
	words = maskset_words(s->n);
	all = arena_alloc(s->arena, words * sizeof *all);
	pref = arena_alloc(s->arena, words * sizeof *pref);
	size = (uint64_t)1 << s->n;
	if (providers_memory_hints(s, c->memory, c->nmemory, all, pref) == 0)
		return false;
	for (m = 1; m < size; m++) {
		bool p;

		if (!maskset_has(all, m) || (filter && (within & ~m)))
			continue;
		p = maskset_has(pref, m);
		if (!found || (p && !out->preferred) ||
		    (p == out->preferred && bitmask_narrower(m, out->mask))) {
			out->mask = m;
			out->preferred = p;
			out->nil = false;
			found = true;
		}
	}
	return found;
}

/* The memory manager's second look when the hint cur will not do: the
 * default affinity (extend false) or the narrowest mask holding cur's
 * (extend true), into *out. A preferred hint may not give way to a
 * non-preferred one; none or that, and the container fails with the
 * message given. Inline: as a call it costs allocate_container, which
 * every judgement runs, registers on its common path. */
static inline bool replace_memory_hint(struct sim *s, const struct container_demand *c,
				       const char *who, struct topo_hint cur, bool extend,
				       const char *none, const char *not_preferred,
				       struct topo_hint *out)
{
	if (!best_memory_hint(s, c, extend ? cur.mask : 0, extend, out)) {
		snprintf(s->failure, sizeof s->failure, "container \"%s\": memory: %s", who, none);
		return false;
	}
	if (!out->preferred && cur.preferred) {
		snprintf(s->failure, sizeof s->failure, "container \"%s\": memory: %s", who,
			 not_preferred);
		return false;
	}
	return true;
}

static bool allocate_memory(struct sim *s, const struct container_demand *c, const char *who,
			    struct topo_hint hint)
{
	const struct inventory_node *node = s->node;
	struct topo_hint best = hint;
	size_t t, j;
	int res[16];
	bool satisfied = true;
	bitmask_t m;

	if (s->pod->qos != QOS_GUARANTEED || !node->memory_static || !node->memory_listed)
		return true;
	if (!c->memory_whole) {
		s->failed_resource = "memory";
		snprintf(s->failure, sizeof s->failure,
			 "container \"%s\": memory: failed to represent quantity as int64", who);
		return false;
	}
	if (c->nmemory > 16) {
		snprintf(s->failure, sizeof s->failure, "container \"%s\": memory: too many memory types", who);
		return false;
	}
	for (t = 0; t < c->nmemory; t++) {
		res[t] = sim_resource(s, c->memory[t].name);
		/* A zone not listing a type has none of it (exporters leave
		 * out zero blocks); a type no zone lists cannot be served from
		 * any NUMA node. */
		if (res[t] < 0) {
			s->failed_resource = c->memory[t].name;
			snprintf(s->failure, sizeof s->failure,
				 "container \"%s\": %s is not published for any NUMA node: no NUMA node can serve it",
				 who, c->memory[t].name);
			return false;
		}
	}
	s->failed_resource = c->nmemory ? c->memory[0].name : "memory";
	if (hint.nil) {
		struct topo_hint d;

		if (!replace_memory_hint(s, c, who, best, false,
					 "failed to get the default NUMA affinity, no NUMA nodes with enough memory is available",
					 "failed to find the default preferred hint", &d))
			return false;
		best = d;
	}
	for (t = 0; t < c->nmemory; t++) {
		int64_t free_sum = 0;

		for (m = best.mask; m; m &= m - 1)
			free_sum = i64_add_sat(free_sum, sim_at(s->avail, s, res[t])[bitmask_lowest(m)]);
		if (free_sum < c->memory[t].amount)
			satisfied = false;
	}
	if (!satisfied) {
		struct topo_hint e;

		if (!replace_memory_hint(s, c, who, best, true,
					 "failed to find NUMA nodes to extend the current topology hint",
					 "failed to find the extended preferred hint", &e))
			return false;
		best = e;
	}
	if (bitmask_count(best.mask) > 1) {
		for (m = best.mask; m; m &= m - 1) {
			int i = bitmask_lowest(m);

			if (s->assignments[i] > 0 &&
			    (bitmask_count(s->group[i]) == 1 || s->group[i] != best.mask)) {
				snprintf(s->failure, sizeof s->failure,
					 "container \"%s\": memory: preferred hint violates NUMA node allocation", who);
				return false;
			}
		}
	}
	for (t = 0; t < c->nmemory; t++) {
		int64_t need = c->memory[t].amount, reusable = 0;
		struct mem_reuse *entry = NULL;

		for (j = 0; j < s->nmem_reuse; j++)
			if (s->mem_reuse[j].mask == best.mask && s->mem_reuse[j].resource == res[t])
				entry = &s->mem_reuse[j];
		if (entry)
			reusable = entry->amount;
		need = reusable >= need ? 0 : need - reusable;
		for (m = best.mask; m; m &= m - 1) {
			int i = bitmask_lowest(m);
			int64_t *free_i = &sim_at(s->avail, s, res[t])[i];
			int64_t take;

			s->assignments[i]++;
			s->assigned |= (bitmask_t)1 << i;
			s->group[i] = best.mask;
			if (best.mask & (best.mask - 1))
				s->multi_group = true;
			if (need == 0 || *free_i <= 0)
				continue;
			take = *free_i < need ? *free_i : need;
			*free_i -= take;
			sim_at(s->used, s, res[t])[i] += take;
			need -= take;
		}
		/* Init-container memory stays reusable on exactly this mask. */
		if (c->kind == CONTAINER_INIT) {
			if (entry == NULL) {
				/* Sized by the judge: one per init container and type. */
				if (s->nmem_reuse >= s->mem_reuse_cap)
					continue;
				entry = &s->mem_reuse[s->nmem_reuse++];
				entry->mask = best.mask;
				entry->resource = res[t];
				entry->amount = 0;
			}
			if (c->memory[t].amount > entry->amount)
				entry->amount = c->memory[t].amount;
		} else if (entry && entry->amount != 0) {
			entry->amount = c->memory[t].amount >= entry->amount
						? 0 : entry->amount - c->memory[t].amount;
		}
	}
	return true;
}

bool allocate_container(struct sim *s, const struct container_demand *c, struct topo_hint hint)
{
	const char *who = c->name;

	size_t i;

	for (i = 0; i < c->ndevices; i++)
		if (!allocate_device(s, c, who, &c->devices[i], hint))
			return false;
	if (!allocate_cpus(s, c, who, hint))
		return false;
	return allocate_memory(s, c, who, hint);
}
