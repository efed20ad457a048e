/* SPDX-License-Identifier: Apache-2.0 */
/* R(pod). The helpers upstream sum resource.Quantity values exactly and round
 * only at the end (MilliValue, Value); so does this file, in a fixed-point
 * amount of whole units and nanounits: the API server rounds every quantity
 * up to a whole nanounit when it parses it, so that is exact. The one
 * exception is an amount of 2^63 nanounits (9.2e9 units) or more that is not
 * a whole number of units: it is rounded up to whole units first.
 *
 * Each resource name is aggregated on its own, so the entries of all
 * containers are sorted by (name, container) once and each name's run is
 * folded in container order: no quadratic name lookups, whatever a pod
 * lists. */
#include "requests.h"

#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/xalloc.h"
#include "topology/quantity.h"

#define NANO 1000000000

struct amount {
	int64_t whole;
	int64_t nano; /* 0..NANO-1 */
};

struct entry {
	const char *name;
	size_t container;
	bool sidecar;
	bool init;
	struct amount a;
};

static struct amount amount_of(const struct quantity *q)
{
	struct amount a = { 0, 0 };
	int64_t n;

	if (quantity_sign(q) <= 0)
		return a;
	if (quantity_scaled(q, -9, &n) == ERR_OK) {
		a.whole = n / NANO;
		a.nano = n % NANO;
		return a;
	}
	if (quantity_scaled(q, 0, &a.whole) != ERR_OK)
		a.whole = INT64_MAX;
	return a;
}

static struct amount amount_add(struct amount x, struct amount y)
{
	struct amount s;

	s.whole = i64_add_sat(x.whole, y.whole);
	s.nano = x.nano + y.nano;
	if (s.nano >= NANO) {
		s.nano -= NANO;
		s.whole = i64_add_sat(s.whole, 1);
	}
	if (s.whole == INT64_MAX)
		s.nano = 0;
	return s;
}

static bool amount_less(struct amount x, struct amount y)
{
	return x.whole < y.whole || (x.whole == y.whole && x.nano < y.nano);
}

/* MilliValue() for cpu, Value() for everything else: rounded up. */
static int64_t amount_value(const char *name, struct amount a)
{
	if (strcmp(name, "cpu") == 0) {
		int64_t milli = i64_mul_sat(a.whole, 1000);

		return i64_add_sat(milli, (a.nano + NANO / 1000 - 1) / (NANO / 1000));
	}
	return i64_add_sat(a.whole, a.nano > 0 ? 1 : 0);
}

static const struct pod_quantity *find_quantity(const struct pod_quantity *list,
						size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return &list[i];
	return NULL;
}

struct entries {
	struct entry *v;
	size_t n;
	size_t cap;
};

static void entries_push(struct entries *e, const char *name, size_t container,
			 const struct pod_container *c, struct amount a)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->v = xreallocarray(e->v, e->cap, sizeof *e->v);
	}
	e->v[e->n].name = name;
	e->v[e->n].container = container;
	e->v[e->n].init = c->kind != CONTAINER_APP;
	e->v[e->n].sidecar = c->kind == CONTAINER_SIDECAR;
	e->v[e->n].a = a;
	e->n++;
}

/* One container's effective requests: requests, then the limits whose key
 * requests lack, then the defaults asked for where both lack the key. */
static void push_container(struct entries *e, size_t ci,
			   const struct pod_container *c, unsigned defaults)
{
	struct amount dcpu = { 0, SCHED_DEFAULT_MILLI_CPU * (NANO / 1000) };
	struct amount dmem = { SCHED_DEFAULT_MEMORY_BYTES, 0 };
	size_t i;

	for (i = 0; i < c->nrequests; i++)
		entries_push(e, c->requests[i].name, ci, c, amount_of(&c->requests[i].q));
	for (i = 0; i < c->nlimits; i++)
		if (find_quantity(c->requests, c->nrequests, c->limits[i].name) == NULL)
			entries_push(e, c->limits[i].name, ci, c, amount_of(&c->limits[i].q));
	if ((defaults & SCHED_DEFAULT_CPU) != 0 &&
	    find_quantity(c->requests, c->nrequests, "cpu") == NULL &&
	    find_quantity(c->limits, c->nlimits, "cpu") == NULL)
		entries_push(e, "cpu", ci, c, dcpu);
	if ((defaults & SCHED_DEFAULT_MEMORY) != 0 &&
	    find_quantity(c->requests, c->nrequests, "memory") == NULL &&
	    find_quantity(c->limits, c->nlimits, "memory") == NULL)
		entries_push(e, "memory", ci, c, dmem);
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c != 0)
		return c;
	return (a->container > b->container) - (a->container < b->container);
}

/* AggregateContainerRequests for the run e[0..n) of one name, sorted by
 * container (init containers come first in a pod_spec). */
static struct amount fold_run(const struct entry *e, size_t n)
{
	struct amount reqs = { 0, 0 }, side = { 0, 0 }, init_max = { 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		struct amount use;

		if (!e[i].init) {
			reqs = amount_add(reqs, e[i].a);
			continue;
		}
		if (e[i].sidecar) {
			reqs = amount_add(reqs, e[i].a);
			side = amount_add(side, e[i].a);
			use = side;
		} else {
			use = amount_add(e[i].a, side);
		}
		if (amount_less(init_max, use))
			init_max = use;
	}
	return amount_less(reqs, init_max) ? init_max : reqs;
}

/* Whether the sorted entries name name. */
static bool has_entry(const struct entries *e, const char *name)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(e->v[mid].name, name);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool pod_level_name(const char *name)
{
	return strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0 ||
	       sched_name_is_hugepages(name);
}

/* IsPodLevelRequestsSet, when the version has the gate on. */
static bool pod_level_in_force(const struct sched_pod *pod, enum sched_version v)
{
	size_t i;

	if (!sched_pod_level_resources(v))
		return false;
	for (i = 0; i < pod->npod_requests; i++)
		if (pod_level_name(pod->pod_requests[i].name))
			return true;
	return false;
}

static unsigned presence_bit(const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return SCHED_DEFAULT_CPU;
	if (strcmp(name, "memory") == 0)
		return SCHED_DEFAULT_MEMORY;
	return 0;
}

void sched_pod_requests(const struct sched_pod *pod, enum sched_version v,
			unsigned defaults, struct sched_resources *out,
			unsigned *present)
{
	struct entries e = { NULL, 0, 0 };
	bool level = pod_level_in_force(pod, v);
	unsigned seen = 0;
	size_t i, j;

	sched_resources_cleanup(out);
	for (i = 0; i < pod->spec.ncontainers; i++)
		push_container(&e, i, &pod->spec.containers[i], defaults);
	if (e.n > 0)
		qsort(e.v, e.n, sizeof *e.v, entry_cmp);
	for (i = 0; i < e.n; i = j) {
		const struct pod_quantity *lvl = NULL;
		struct amount a;

		for (j = i + 1; j < e.n && strcmp(e.v[j].name, e.v[i].name) == 0; j++)
			;
		if (level && pod_level_name(e.v[i].name))
			lvl = find_quantity(pod->pod_requests, pod->npod_requests, e.v[i].name);
		a = lvl != NULL ? amount_of(&lvl->q) : fold_run(&e.v[i], j - i);
		lvl = find_quantity(pod->overhead, pod->noverhead, e.v[i].name);
		if (lvl != NULL)
			a = amount_add(a, amount_of(&lvl->q));
		sched_resources_add(out, e.v[i].name, amount_value(e.v[i].name, a));
		seen |= presence_bit(e.v[i].name);
	}
	/* Names that only the pod level or the overhead give. */
	for (i = 0; level && i < pod->npod_requests; i++) {
		const struct pod_quantity *pq = &pod->pod_requests[i];
		const struct pod_quantity *oh;
		struct amount a;

		if (!pod_level_name(pq->name) || has_entry(&e, pq->name))
			continue;
		a = amount_of(&pq->q);
		oh = find_quantity(pod->overhead, pod->noverhead, pq->name);
		if (oh != NULL)
			a = amount_add(a, amount_of(&oh->q));
		sched_resources_add(out, pq->name, amount_value(pq->name, a));
		seen |= presence_bit(pq->name);
	}
	for (i = 0; i < pod->noverhead; i++) {
		const struct pod_quantity *oh = &pod->overhead[i];

		if (has_entry(&e, oh->name) ||
		    (level && pod_level_name(oh->name) &&
		     find_quantity(pod->pod_requests, pod->npod_requests, oh->name) != NULL))
			continue;
		sched_resources_add(out, oh->name, amount_value(oh->name, amount_of(&oh->q)));
		seen |= presence_bit(oh->name);
	}
	free(e.v);
	if (present != NULL)
		*present = seen;
}

void sched_pod_node_usage(const struct sched_pod *pod, enum sched_version v,
			  struct sched_resources *req, int64_t *nonzero_milli_cpu,
			  int64_t *nonzero_memory)
{
	struct sched_resources non0 = { 0 };
	unsigned present = 0, defaults = SCHED_DEFAULT_CPU | SCHED_DEFAULT_MEMORY;

	sched_pod_requests(pod, v, 0, req, &present);
	/* getNonMissingContainerRequests: with pod-level requests in force a
	 * default fills only a resource the whole list lacks. */
	if (pod_level_in_force(pod, v))
		defaults &= ~present;
	if (defaults == 0) {
		*nonzero_milli_cpu = req->milli_cpu;
		*nonzero_memory = req->memory;
		return;
	}
	sched_pod_requests(pod, v, defaults, &non0, NULL);
	*nonzero_milli_cpu = non0.milli_cpu;
	*nonzero_memory = non0.memory;
	sched_resources_cleanup(&non0);
}
