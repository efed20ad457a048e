/* SPDX-License-Identifier: Apache-2.0 */
/* Scopes and the verdict (kubelet scope_container.go, scope_pod.go,
 * scope_none.go): hints per container or per pod, the policy merge, the
 * providers' Allocate, and one message that says why. */
#include "judge.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/checked.h"
#include "base/hash.h"
#include "merge.h"
#include "sim.h"
#include "base/textbuf.h"

const char *verdict_reason_name(enum verdict_reason r)
{
	static const char *const names[REASON_COUNT] = {
		[REASON_NONE] = "",
		[REASON_TOPOLOGY_AFFINITY] = "TopologyAffinityError",
		[REASON_UNEXPECTED_ADMISSION] = "UnexpectedAdmissionError",
		[REASON_CONFIG] = "TopologyManagerConfigError",
		[REASON_NOT_SIMULATED] = "NotSimulated",
		[REASON_NO_INVENTORY] = "NoInventory",
		[REASON_DRA_ALIGNMENT] = "DRAAlignment",
	};

	return (unsigned)r < REASON_COUNT ? names[r] : "";
}

/* s appended to buf (len bytes so far, len < size), cut at size - 1 bytes
 * as a fixed textbuf cuts: the result is a prefix of the whole text. */
static size_t summary_put(char *buf, size_t size, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n > size - 1 - len)
		n = size - 1 - len;
	memcpy(buf + len, s, n);
	return len + n;
}

void verdict_summary(const struct verdict *v, char *buf, size_t size)
{
	const char *res = v->resources[0] ? v->resources : "resources";
	size_t len = 0;

	/* Pieces, not printf: a cold filter writes one per rejected node. */
	if (size == 0)
		return;
	switch (v->admit ? REASON_NONE : v->reason) {
	case REASON_NONE:
		break;
	case REASON_TOPOLOGY_AFFINITY:
		len = summary_put(buf, size, len, "NUMA: cannot align ");
		len = summary_put(buf, size, len, res);
		if (v->policy == TM_POLICY_SINGLE_NUMA_NODE) {
			len = summary_put(buf, size, len, " on one NUMA node (single-numa-node)");
		} else {
			len = summary_put(buf, size, len, " on a preferred NUMA set (");
			len = summary_put(buf, size, len, tm_policy_name(v->policy));
			len = summary_put(buf, size, len, ")");
		}
		if (v->pinned[0]) {
			len = summary_put(buf, size, len, ": ");
			len = summary_put(buf, size, len, v->pinned);
		}
		break;
	case REASON_UNEXPECTED_ADMISSION:
		len = summary_put(buf, size, len, "NUMA: the kubelet would fail to allocate ");
		len = summary_put(buf, size, len, res);
		len = summary_put(buf, size, len, " (UnexpectedAdmissionError)");
		break;
	case REASON_CONFIG:
		len = summary_put(buf, size, len, "NUMA: the kubelet's Topology Manager configuration on this node is invalid (TopologyManagerConfigError)");
		break;
	case REASON_NOT_SIMULATED:
		len = summary_put(buf, size, len, "NUMA: the Topology Manager merge on this node exceeds the simulation's search budget (not simulated)");
		break;
	case REASON_NO_INVENTORY: /* decide's, never a verdict's */
	case REASON_DRA_ALIGNMENT:
	case REASON_COUNT:
		break;
	}
	buf[len] = '\0';
}

void verdict_cleanup(struct verdict *v)
{
	if (v == NULL)
		return;
	free(v->containers);
	free(v->usage);
	/* Field by field, as an empty verdict: every text is read only up to
	 * its terminator, so zeroing the 800 bytes behind them buys nothing
	 * (every caller in extender/ only frees or drops a cleaned verdict). */
	v->admit = false;
	v->reason = REASON_NONE;
	v->unresolvable = false;
	v->policy = TM_POLICY_NONE;
	v->scope = TM_SCOPE_CONTAINER;
	v->message[0] = '\0';
	v->resources[0] = '\0';
	v->pinned[0] = '\0';
	v->containers = NULL;
	v->ncontainers = 0;
	v->usage = NULL;
	v->usage_numa = 0;
}

static void append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Messages live in fixed arrays of the verdict: what does not fit is cut. */
static void append(char *buf, size_t size, const char *fmt, ...)
{
	struct textbuf t;
	va_list ap;

	textbuf_attach(&t, buf, size);
	va_start(ap, fmt);
	textbuf_vprintf(&t, fmt, ap);
	va_end(ap);
}

static void ids_format(const struct sim *s, bitmask_t dense, char *buf, size_t size)
{
	bitmask_format(bitmask_to_ids(dense, s->node->numa_ids), buf, size);
}

/* What reusable init-container units of l's resource are called. */
static const char *reused_units(const struct sim *s, const struct hint_list *l)
{
	return s->node->cpu >= 0 && strcmp(l->resource, s->node->resources[s->node->cpu].name) == 0
		       ? "CPUs" : "devices";
}

static bool list_unsatisfiable(const struct hint_list *l, int n)
{
	if (l->rule)
		return hint_list_is_empty(l, n) || (l->nil_nonpref && !l->nil_pref &&
						    !l->has_fam && l->nextra == 0);
	return hint_list_is_empty(l, n) || (l->nil_nonpref && !l->nil_pref &&
					    (l->all == NULL || hint_list_is_empty(&(struct hint_list){
						.all = l->all, .pref = l->pref }, n)));
}

/* strcmp(a, b) > 0, deciding on the first byte without the call when it
 * differs (strcmp compares bytes as unsigned char). */
static bool name_after(const char *a, const char *b)
{
	if ((unsigned char)a[0] != (unsigned char)b[0])
		return (unsigned char)a[0] > (unsigned char)b[0];
	return a != b && strcmp(a, b) > 0;
}

/* By resource name, stable (as glibc's qsort, a merge sort, was): a few
 * lists, so an insertion sort without qsort's set-up. */
static void sort_by_resource(const struct hint_list **l, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		const struct hint_list *x = l[i];

		for (j = i; j > 0 && name_after(l[j - 1]->resource, x->resource); j--)
			l[j] = l[j - 1];
		l[j] = x;
	}
}

/* Why the merge rejected: the resources involved (by name, so identical causes
 * read identically) and where each would fit. Under single-numa-node a
 * resource that fits on every NUMA node is not part of the conflict. */
static void explain_rejection(const struct sim *s, const char *who,
			      const struct hint_list *lists, size_t nlists,
			      struct topo_hint best, struct verdict *v)
{
	bool single = s->node->policy == TM_POLICY_SINGLE_NUMA_NODE;
	const struct hint_list *blamed[64];
	char what[200], where[300], ids[96];
	size_t nblamed = 0, i;

	for (i = 0; i < nlists && nblamed < 64; i++) {
		if (single && lists[i].nil_pref)
			continue; /* said "no preference" */
		if (single && lists[i].singles == s->full)
			continue;
		blamed[nblamed++] = &lists[i];
	}
	if (nblamed == 0)
		for (i = 0; i < nlists && nblamed < 64; i++)
			blamed[nblamed++] = &lists[i];
	sort_by_resource(blamed, nblamed);
	v->resources[0] = '\0';
	v->pinned[0] = '\0';
	/* Reuse, not the amounts, decided (reusable init-container CPUs and
	 * devices pin a later container's mask): the reason says so. */
	for (i = 0; i < nblamed; i++) {
		if (blamed[i]->pinned == 0)
			continue;
		ids_format(s, blamed[i]->pinned, ids, sizeof ids);
		append(v->pinned, sizeof v->pinned, "%sreused init-container %s pin %s to NUMA %s",
		       v->pinned[0] ? "; " : "", reused_units(s, blamed[i]), blamed[i]->resource, ids);
	}
	if (!s->detail) {
		size_t used = 0;

		/* Names only: the filter path's short reason. */
		for (i = 0; i < nblamed; i++) {
			size_t len = strlen(blamed[i]->resource);

			if (used + len + 3 >= sizeof v->resources)
				break;
			if (used) {
				memcpy(v->resources + used, ", ", 2);
				used += 2;
			}
			memcpy(v->resources + used, blamed[i]->resource, len);
			used += len;
			v->resources[used] = '\0';
		}
		return;
	}
	what[0] = '\0';
	where[0] = '\0';
	for (i = 0; i < nblamed; i++) {
		const struct hint_list *l = blamed[i];
		char amount[32];

		resource_amount_format(l->resource, l->amount, amount, sizeof amount);
		append(what, sizeof what, "%s%s=%s", what[0] ? ", " : "", l->resource, amount);
		append(v->resources, sizeof v->resources, "%s%s", v->resources[0] ? ", " : "",
		       l->resource);
		if (l->pinned) {
			char at[96];

			ids_format(s, l->pinned, at, sizeof at);
			append(where, sizeof where, "%s%s must include NUMA %s, where it reuses the init containers' %s",
			       where[0] ? "; " : "", l->resource, at, reused_units(s, l));
			if (!single)
				append(where, sizeof where, ": a preferred hint has %d NUMA node%s",
				       l->min_affinity, l->min_affinity == 1 ? "" : "s");
			else if (bitmask_count(l->pinned) == 1)
				append(where, sizeof where, ", and does not fit there");
			else
				append(where, sizeof where, ": more than one NUMA node");
			if (l->pin_singles) {
				ids_format(s, l->pin_singles, ids, sizeof ids);
				append(where, sizeof where, bitmask_count(l->pin_singles) == 1
						      ? " (NUMA %s alone would fit it)"
						      : " (each of NUMA %s alone would fit it)", ids);
			}
		} else if (single) {
			ids_format(s, l->singles, ids, sizeof ids);
			if (l->singles)
				append(where, sizeof where, "%s%s fits NUMA %s", where[0] ? "; " : "",
				       l->resource, ids);
			else
				append(where, sizeof where, "%s%s fits no single NUMA node",
				       where[0] ? "; " : "", l->resource);
		} else if (list_unsatisfiable(l, s->n)) {
			append(where, sizeof where, "%s%s cannot be satisfied", where[0] ? "; " : "",
			       l->resource);
		} else {
			append(where, sizeof where, "%s%s needs %d NUMA node%s", where[0] ? "; " : "",
			       l->resource, l->min_affinity, l->min_affinity == 1 ? "" : "s");
		}
	}
	if (single) {
		v->message[0] = '\0';
		append(v->message, sizeof v->message,
		       "%s: cannot align %s on one NUMA node (single-numa-node): %s", who, what, where);
	} else {
		ids_format(s, best.mask, ids, sizeof ids);
		v->message[0] = '\0';
		append(v->message, sizeof v->message,
		       "%s: no preferred NUMA alignment for %s (%s): best is NUMA %s, not preferred; %s",
		       who, what, tm_policy_name(s->node->policy), ids, where);
	}
}

static void record(struct verdict *v, const struct sim *s, const char *name, struct topo_hint h)
{
	struct verdict_container *c = &v->containers[v->ncontainers++];

	c->name = name;
	c->preferred = h.preferred;
	c->has_affinity = !h.nil;
	/* Dense indices are the ids on most machines: then the numa_ids
	 * table (a line or four of the snapshot) is not read. */
	c->numa_ids = h.nil ? 0 : s->node->ids_dense ? h.mask : bitmask_to_ids(h.mask, s->node->numa_ids);
}

/* "container \"x\"" or "pod", for messages only (formatted on failure). */
static void who_format(const char *container, char *buf, size_t size)
{
	struct textbuf t;

	textbuf_init_fixed(&t, buf, size);
	if (container) {
		textbuf_adds(&t, "container \"");
		textbuf_adds(&t, container);
		textbuf_adds(&t, "\"");
	} else {
		textbuf_adds(&t, "pod");
	}
}

static void ask_of_container(const struct container_demand *c, struct ask *a)
{
	a->container = c->name;
	a->kind = c->kind;
	a->cpus = c->cpus;
	a->memory = c->memory;
	a->nmemory = c->nmemory;
	a->memory_whole = c->memory_whole;
	a->devices = c->devices;
	a->ndevices = c->ndevices;
}

void sim_init(struct sim *s, const struct inventory_node *node, const struct pod_demand *pod,
	      struct arena *state)
{
	size_t cells = (size_t)node->nresources * (size_t)node->numa_count, i;
	int64_t *tables;
	bitmask_t b;
	int r, d;

	/* Field by field: the per-NUMA arrays and the failure text (1.3 KB
	 * together) are read only below n and after being written. */
	s->node = node;
	s->pod = pod;
	s->n = node->numa_count;
	s->full = bitmask_full(s->n);
	s->arena = NULL;
	s->rule_lists = false;
	s->preferred_only = false;
	s->detail = false;
	memset(s->group, 0, (size_t)s->n * sizeof s->group[0]);
	memset(s->assignments, 0, (size_t)s->n * sizeof s->assignments[0]);
	s->assigned = 0;
	s->multi_group = false;
	s->nmem_reuse = 0;
	s->mem_reuse_cap = 0;
	s->own_names.n = 0;
	s->names = &s->own_names;
	s->stats.steps = 0;
	s->stats.exhausted = false;
	s->failure[0] = '\0';
	s->failed_resource = NULL;
	/* One table: avail (copied below), then reuse and used (zero). */
	tables = arena_alloc_raw(state, 3 * cells * sizeof(int64_t));
	s->avail = tables;
	s->reuse = tables + cells;
	s->used = tables + 2 * cells;
	memset(s->reuse, 0, cells * sizeof(int64_t));
	memset(s->used, 0, cells * sizeof(int64_t));
	s->reuse_any = false;
	for (r = 0; r < node->nresources; r++)
		memcpy(sim_at(s->avail, s, r), node->resources[r].available,
		       (size_t)s->n * sizeof(int64_t));
	/* Count view of memory groups: a node whose free memory is below its
	 * allocatable holds single-NUMA allocations (summarized with the
	 * node's amounts). */
	for (b = node->memory_short; b; b &= b - 1) {
		d = bitmask_lowest(b);
		s->assignments[d] = 1;
		s->group[d] = (bitmask_t)1 << d;
	}
	s->assigned = node->memory_short;
	for (i = 0; i < pod->ncontainers; i++)
		s->mem_reuse_cap += pod->containers[i].nmemory;
	/* Entries are written as they are added (below nmem_reuse). */
	s->mem_reuse = arena_alloc_raw(state, (s->mem_reuse_cap + 1) * sizeof *s->mem_reuse);
}

static void fail_allocation(struct verdict *v, const struct sim *s)
{
	v->admit = false;
	v->reason = REASON_UNEXPECTED_ADMISSION;
	snprintf(v->message, sizeof v->message, "%s", s->failure);
	snprintf(v->resources, sizeof v->resources, "%s",
		 s->failed_resource ? s->failed_resource : "");
}

static void fail_missing_type(struct verdict *v, const char *who, const char *type)
{
	v->admit = false;
	v->reason = REASON_UNEXPECTED_ADMISSION;
	snprintf(v->message, sizeof v->message,
		 "%s: %s is not published for any NUMA node: no NUMA node can serve it",
		 who, type);
	snprintf(v->resources, sizeof v->resources, "%s", type);
}

static void judge_none(struct sim *s, struct verdict *v)
{
	struct topo_hint nil = { 0, true, false };
	size_t i;

	for (i = 0; i < s->pod->ncontainers; i++) {
		const struct container_demand *c = &s->pod->containers[i];

		record(v, s, c->name, nil);
		if (!allocate_container(s, c, nil)) {
			fail_allocation(v, s);
			return;
		}
	}
}

static struct merge_params params_of(const struct sim *s)
{
	struct merge_params p;

	memset(&p, 0, sizeof p);
	p.n = s->n;
	p.policy = s->node->policy;
	p.prefer_closest = s->node->prefer_closest;
	p.distance = s->node->distance;
	p.stats = (struct merge_stats *)(uintptr_t)&s->stats;
	return p;
}

/* Hints and merge for one ask. Under best-effort and restricted, phase 1
 * generates only each provider's preferred hints (the subsets of its minimum
 * size): when they merge to a preferred hint that is the answer, since a
 * preferred hint beats every other. Only otherwise does phase 2 generate
 * every subset for the full merge. */
static struct topo_hint hints_and_merge(struct sim *s, const struct ask *a,
					struct arena *scratch, struct hint_list **lists_out,
					size_t *nlists, struct provider_notes *notes, bool *admit)
{
	struct merge_params p = params_of(s);
	/* Raw: providers_hints clears each list it fills, and only those are read. */
	struct hint_list *lists =
		arena_alloc_raw(scratch, (a->ndevices + 2 + a->nmemory) * sizeof *lists);
	struct topo_hint best = { 0, true, false };

	*lists_out = lists;
	if (s->node->policy != TM_POLICY_SINGLE_NUMA_NODE && !s->node->full_enumeration &&
	    s->node->numa_count <= SIM_BITMAP_NUMA) {
		/* Up to SIM_BITMAP_NUMA nodes the preferred masks fit a few
		 * words of bitmap: when they merge to a preferred hint that is
		 * the answer (a preferred hint beats every other), found faster
		 * than by the search below. */
		s->preferred_only = true;
		*nlists = providers_hints(s, a, lists, notes);
		s->preferred_only = false;
		if (notes->memory_missing_type) {
			*admit = false;
			return best;
		}
		if (merge_preferred(&p, lists, *nlists, scratch, &best)) {
			*admit = true;
			return best;
		}
		/* restricted admits only a preferred merge, and there is none
		 * (unless memory may still say "no preference"): the rejection
		 * is certain; only the message would need the best hint. */
		if (!s->detail && s->node->policy == TM_POLICY_RESTRICTED &&
		    !notes->memory_unsure) {
			*admit = false;
			return best;
		}
	}
	if (s->node->policy != TM_POLICY_SINGLE_NUMA_NODE && !s->node->full_enumeration) {
		/* Rule lists: built in O(n) per provider; the merge searches
		 * the preferred masks first and, for restricted without a
		 * message to write, stops there. */
		s->rule_lists = true;
		*nlists = providers_hints(s, a, lists, notes);
		s->rule_lists = false;
		if (notes->memory_missing_type) {
			*admit = false;
			return best;
		}
		p.preferred_only = !s->detail && s->node->policy == TM_POLICY_RESTRICTED;
		return policy_merge(&p, lists, *nlists, scratch, admit);
	}
	*nlists = providers_hints(s, a, lists, notes);
	if (notes->memory_missing_type) {
		*admit = false;
		return best;
	}
	return policy_merge(&p, lists, *nlists, scratch, admit);
}

static void judge_container_scope(struct sim *s, struct verdict *v, struct arena *scratch)
{
	size_t i;

	for (i = 0; i < s->pod->ncontainers; i++) {
		const struct container_demand *c = &s->pod->containers[i];
		struct hint_list *lists;
		struct provider_notes notes;
		struct topo_hint best;
		struct ask a;
		char who[96];
		size_t nlists;
		bool admit;

		arena_reset(scratch);
		s->arena = scratch;
		ask_of_container(c, &a);
		best = hints_and_merge(s, &a, scratch, &lists, &nlists, &notes, &admit);
		if (notes.memory_missing_type) {
			record(v, s, c->name, (struct topo_hint){ 0, true, false });
			who_format(c->name, who, sizeof who);
			fail_missing_type(v, who, notes.missing);
			return;
		}
		record(v, s, c->name, best);
		if (!admit) {
			v->admit = false;
			v->reason = REASON_TOPOLOGY_AFFINITY;
			/* Only the detailed message names the container. */
			who[0] = '\0';
			if (s->detail)
				who_format(c->name, who, sizeof who);
			explain_rejection(s, who, lists, nlists, best, v);
			return;
		}
		if (!allocate_container(s, c, best)) {
			fail_allocation(v, s);
			return;
		}
	}
}

static void judge_pod_scope(struct sim *s, struct verdict *v, struct arena *scratch)
{
	const struct pod_demand *pod = s->pod;
	struct hint_list *lists;
	struct provider_notes notes;
	struct topo_hint best;
	struct ask a;
	size_t nlists, i;
	bool admit;

	s->arena = scratch;
	a.container = NULL;
	a.kind = CONTAINER_APP;
	a.cpus = pod->pod_cpus;
	a.memory = pod->pod_memory;
	a.nmemory = pod->npod_memory;
	a.memory_whole = pod->pod_memory_whole;
	a.devices = pod->pod_devices;
	a.ndevices = pod->npod_devices;
	best = hints_and_merge(s, &a, scratch, &lists, &nlists, &notes, &admit);
	if (notes.memory_missing_type) {
		fail_missing_type(v, "pod", notes.missing);
		return;
	}
	for (i = 0; i < pod->ncontainers; i++)
		record(v, s, pod->containers[i].name, best);
	if (!admit) {
		v->admit = false;
		v->reason = REASON_TOPOLOGY_AFFINITY;
		explain_rejection(s, "pod", lists, nlists, best, v);
		return;
	}
	for (i = 0; i < pod->ncontainers; i++) {
		arena_reset(scratch);
		if (!allocate_container(s, &pod->containers[i], best)) {
			fail_allocation(v, s);
			return;
		}
	}
}

/* One pass of the simulation on one node state. */
static void judge_once(const struct inventory_node *node, const struct pod_demand *pod,
		       bool detail, struct sim_names *names, struct verdict *v)
{
	struct arena state, scratch;
	struct sim s;

	v->admit = true;
	v->reason = REASON_NONE;
	v->policy = node->policy;
	v->scope = node->scope;
	v->message[0] = '\0';
	v->resources[0] = '\0';
	v->ncontainers = 0;
	if (node->config_error[0]) {
		v->admit = false;
		v->reason = REASON_CONFIG;
		snprintf(v->message, sizeof v->message, "the kubelet would not start: %s",
			 node->config_error);
		return;
	}
	arena_init(&state);
	arena_init(&scratch);
	sim_init(&s, node, pod, &state);
	s.arena = &scratch;
	s.detail = detail;
	if (names)
		s.names = names;
	if (node->policy == TM_POLICY_NONE)
		judge_none(&s, v);
	else if (node->scope == TM_SCOPE_POD)
		judge_pod_scope(&s, v, &scratch);
	else
		judge_container_scope(&s, v, &scratch);
	if (s.stats.exhausted) {
		/* Some search ran out of budget: no answer rather than a
		 * wrong one. */
		v->admit = false;
		v->reason = REASON_NOT_SIMULATED;
		snprintf(v->message, sizeof v->message,
			 "%d NUMA nodes: the merge search exceeded its budget of %ld steps; admission is not simulated",
			 s.n, (long)MERGE_DEFAULT_BUDGET);
		v->resources[0] = '\0';
		v->pinned[0] = '\0';
	}
	if (v->admit) {
		size_t cells = (size_t)node->nresources * (size_t)s.n;

		v->usage_numa = s.n;
		v->usage = xmalloc((cells ? cells : 1) * sizeof *v->usage);
		memcpy(v->usage, s.used, cells * sizeof *v->usage);
		memcpy(v->message, "admitted", sizeof "admitted");
	}
	arena_cleanup(&scratch);
	arena_cleanup(&state);
}

void judge_node(const struct inventory_node *node, const struct pod_demand *pod,
		struct verdict *out)
{
	judge_node_ex(node, pod, JUDGE_DETAIL | JUDGE_UNRESOLVABLE, out);
}

/* --- Unresolvable: would the node with no pods admit the pod? ---
 *
 * The answer is judge_once on node->emptied, a pure function of the emptied
 * node's shape (configuration, distances when they are read, and each
 * resource's name, kind, capacity, allocatable and available) and the demand.
 * A filter judges one demand on many nodes, and clusters are built from few
 * machine shapes: the demand keeps a small memo from the exact shape (stored
 * and compared byte for byte, so a hash collision cannot change an answer) to
 * the emptied node's admit. Entries are immutable once published with a
 * compare-and-swap; a full memo just stops remembering. Its hash is the
 * unseeded one (hash_bytes): the simulation stays the same from run to run,
 * and with MEMO_SLOTS slots no choice of shapes costs more than that many
 * comparisons. */

#define MEMO_SLOTS 64
#define MEMO_MAX_SHAPE 65536

struct memo_entry {
	uint64_t hash;
	size_t len;
	bool admit;
	unsigned char shape[];
};

struct judge_memo {
	struct memo_entry *_Atomic slots[MEMO_SLOTS];
};

void judge_memo_free(struct judge_memo *memo)
{
	size_t i;

	if (memo == NULL)
		return;
	for (i = 0; i < MEMO_SLOTS; i++)
		free(atomic_load(&memo->slots[i]));
	free(memo);
}

struct shape {
	unsigned char *buf;
	size_t len, cap;
	bool overflow;
};

/* With buf NULL, only measures. */
static void shape_put(struct shape *sh, const void *p, size_t n)
{
	if (sh->buf == NULL) {
		sh->len += n;
		return;
	}
	if (sh->overflow || n > sh->cap - sh->len) {
		sh->overflow = true;
		return;
	}
	memcpy(sh->buf + sh->len, p, n);
	sh->len += n;
}

/* Everything judge_once reads from a node to decide admission. NUMA ids and
 * zone names only label the answer; distances are read only by
 * prefer-closest outside single-numa-node. */
static void shape_of(const struct inventory_node *node, struct shape *sh)
{
	int flags[9], r;
	size_t cells = (size_t)node->numa_count;

	flags[0] = (int)node->policy;
	flags[1] = (int)node->scope;
	flags[2] = node->prefer_closest;
	flags[3] = node->cpu_static;
	flags[4] = node->memory_static;
	flags[5] = node->memory_listed;
	flags[6] = node->numa_count;
	flags[7] = node->nresources;
	flags[8] = node->full_enumeration | (node->config_error[0] != '\0') << 1;
	shape_put(sh, flags, sizeof flags);
	if (node->prefer_closest && node->policy != TM_POLICY_SINGLE_NUMA_NODE && node->distance)
		shape_put(sh, node->distance, cells * cells * sizeof *node->distance);
	for (r = 0; r < node->nresources; r++) {
		const struct inventory_resource *res = &node->resources[r];
		int kind[2] = { (int)res->kind, res->listed_everywhere };

		shape_put(sh, res->name, strlen(res->name) + 1);
		shape_put(sh, kind, sizeof kind);
		shape_put(sh, &res->listed, sizeof res->listed);
		shape_put(sh, res->capacity, cells * sizeof *res->capacity);
		shape_put(sh, res->allocatable, cells * sizeof *res->allocatable);
		shape_put(sh, res->available, cells * sizeof *res->available);
	}
}

/* The emptied node's shape, built once per snapshot (every filter with a
 * new demand asks for it again) and kept on the node. */
struct node_shape {
	uint64_t hash;
	size_t len;
	bool overflow; /* larger than MEMO_MAX_SHAPE: never remembered */
	unsigned char bytes[];
};

static const struct node_shape *node_shape_of(const struct inventory_node *emptied)
{
	void **slot = (void **)(uintptr_t)&emptied->judge_shape;
	struct node_shape *ns = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	struct shape sh = { NULL, 0, 0, false };
	void *expect = NULL;

	if (ns != NULL)
		return ns;
	shape_of(emptied, &sh); /* measures */
	if (sh.len > MEMO_MAX_SHAPE) {
		ns = xcalloc(1, sizeof *ns);
		ns->overflow = true;
	} else {
		ns = xmalloc(sizeof *ns + sh.len);
		sh = (struct shape){ ns->bytes, 0, sh.len, false };
		shape_of(emptied, &sh);
		ns->len = sh.len;
		ns->overflow = sh.overflow;
		ns->hash = hash_bytes(ns->bytes, ns->len);
	}
	if (!__atomic_compare_exchange_n(slot, &expect, ns, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(ns);
		ns = expect;
	}
	return ns;
}

/* The node index of a demand's resource name on node, the judged node or
 * its emptied copy: names, when given, is the judged node's map, and the copy
 * has the node's resources in the node's order (inventory.h), so an index
 * there (or -1, not listed) holds on the copy too. Else looked up. */
static int emptied_find(const struct inventory_node *node, struct sim_names *names,
			const char *name)
{
	int i;

	for (i = 0; names && i < names->n; i++)
		if (names->name[i] == name)
			return names->index[i];
	return inventory_find(node, name);
}

/* One NUMA node of the emptied node holds the whole pod: then it admits,
 * without a judgement. Why, under any policy but none: each provider's
 * preferred size is 1 for every container (capacity of N >= the pod's
 * total), so {N} is a preferred hint of every provider for the first
 * container, the merge finds a preferred single-NUMA hint n1 (N or a
 * fitter one) and admits, and the container is allocated on n1. If n1 is
 * N, N still holds the rest of the pod; if not, N is untouched: either way
 * the next container finds N again, and so on (pod scope: one merge over
 * the totals, allocated on the chosen node). The argument needs app
 * containers only (init and sidecar containers lend their units to
 * later ones), whole-byte memory, and every requested resource listed by
 * N within both its capacity and its allocatable; anything else is judged.
 *
 * node is the judged node or its emptied copy: the copy keeps the node's
 * configuration, resources (in the same order), capacities and allocatables,
 * and its available is its allocatable, which never exceeds the capacity
 * (inventory.h). So capacity and allocatable alone decide, and they are read
 * from the judged node, whose arrays the judgement has just brought into the
 * cache, rather than from the copy's, a dozen cache misses away. */
static bool fits_one_numa(const struct inventory_node *node, const struct pod_demand *pod,
			  struct sim_names *names)
{
	int64_t need[64];
	int needed[64], nneeded = 0;
	bitmask_t fits;
	size_t i, j;
	int r;

	if (node->config_error[0] || node->policy == TM_POLICY_NONE ||
	    node->nresources > 64)
		return false;
	memset(need, 0, (size_t)node->nresources * sizeof need[0]);
	for (i = 0; i < pod->ncontainers; i++) {
		const struct container_demand *c = &pod->containers[i];

		if (c->kind != CONTAINER_APP || !c->memory_whole)
			return false;
		if (c->cpus > 0) {
			if (node->cpu < 0)
				return false;
			need[node->cpu] = i64_add_sat(need[node->cpu], c->cpus);
		}
		for (j = 0; j < c->nmemory + c->ndevices; j++) {
			const struct demand_amount *d = j < c->nmemory ? &c->memory[j]
							: &c->devices[j - c->nmemory];

			if (d->amount <= 0)
				continue;
			r = emptied_find(node, names, d->name);
			if (r < 0)
				return false;
			need[r] = i64_add_sat(need[r], d->amount);
		}
	}
	/* Some NUMA node listing every needed resource holds each: tried
	 * node by node, so the first that does ends the search. */
	fits = bitmask_full(node->numa_count);
	for (r = 0; r < node->nresources; r++) {
		if (need[r] > 0) {
			fits &= node->resources[r].listed;
			needed[nneeded++] = r;
		}
	}
	for (; fits; fits &= fits - 1) {
		int d = bitmask_lowest(fits), k;

		for (k = 0; k < nneeded; k++) {
			const struct inventory_resource *res = &node->resources[needed[k]];
			int64_t want = need[needed[k]];

			if (res->capacity[d] < want || res->allocatable[d] < want)
				break;
		}
		if (k == nneeded)
			return true;
	}
	return false;
}

bool judge_emptied_fits_one_numa(const struct inventory_node *emptied,
				 const struct pod_demand *pod)
{
	return fits_one_numa(emptied, pod, NULL);
}

static bool emptied_admits(const struct inventory_node *node, const struct pod_demand *pod,
			   struct sim_names *names)
{
	const struct inventory_node *emptied = node->emptied;
	struct pod_demand *mut = (struct pod_demand *)(uintptr_t)pod;
	struct judge_memo *memo = atomic_load(&mut->memo);
	const struct node_shape *ns;
	struct memo_entry *e;
	struct verdict empty;
	size_t i, start = 0;
	bool admit;

	if (fits_one_numa(node, pod, names))
		return true;
	ns = node_shape_of(emptied);
	if (!ns->overflow) {
		if (memo == NULL) {
			struct judge_memo *fresh = xcalloc(1, sizeof *fresh), *expect = NULL;

			if (atomic_compare_exchange_strong(&mut->memo, &expect, fresh))
				memo = fresh;
			else {
				free(fresh);
				memo = expect;
			}
		}
		start = (size_t)(ns->hash % MEMO_SLOTS);
		for (i = 0; i < MEMO_SLOTS; i++) {
			e = atomic_load(&memo->slots[(start + i) % MEMO_SLOTS]);
			if (e == NULL)
				break;
			if (e->hash == ns->hash && e->len == ns->len &&
			    memcmp(e->shape, ns->bytes, ns->len) == 0)
				return e->admit;
		}
	}
	memset(&empty, 0, sizeof empty);
	empty.containers = xcalloc(pod->ncontainers ? pod->ncontainers : 1,
				   sizeof *empty.containers);
	judge_once(emptied, pod, false, NULL, &empty);
	admit = empty.admit;
	verdict_cleanup(&empty);
	if (!ns->overflow) {
		e = xmalloc(sizeof *e + ns->len);
		e->hash = ns->hash;
		e->len = ns->len;
		e->admit = admit;
		memcpy(e->shape, ns->bytes, ns->len);
		for (i = 0; i < MEMO_SLOTS; i++) {
			struct memo_entry *expect = NULL;

			if (atomic_compare_exchange_strong(&memo->slots[(start + i) % MEMO_SLOTS],
							   &expect, e)) {
				e = NULL;
				break;
			}
		}
		free(e);
	}
	return admit;
}

void judge_node_ex(const struct inventory_node *node, const struct pod_demand *pod,
		   unsigned flags, struct verdict *out)
{
	/* One name map for the judgement and the emptied-node check. */
	struct sim_names names;

	names.n = 0;
	/* Field by field: judge_once writes the texts it sets, and each is
	 * read only up to its terminator. */
	out->admit = false;
	out->reason = REASON_NONE;
	out->unresolvable = false;
	out->policy = node->policy;
	out->scope = node->scope;
	out->message[0] = '\0';
	out->resources[0] = '\0';
	out->pinned[0] = '\0';
	out->usage = NULL;
	out->usage_numa = 0;
	out->ncontainers = 0;
	/* Not zeroed: record() writes every field of the entries below
	 * ncontainers, and no caller reads past ncontainers. */
	out->containers = xmalloc((pod->ncontainers ? pod->ncontainers : 1) *
				  sizeof *out->containers);
	judge_once(node, pod, (flags & JUDGE_DETAIL) != 0, &names, out);
	if (out->admit || !(flags & JUDGE_UNRESOLVABLE))
		return;
	if (out->reason == REASON_CONFIG || out->reason == REASON_NOT_SIMULATED ||
	    node->emptied == NULL)
		out->unresolvable = true;
	else /* Could preemption help? Only if the node with no pods admits. */
		out->unresolvable = !emptied_admits(node, pod, &names);
}
