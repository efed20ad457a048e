/* SPDX-License-Identifier: Apache-2.0 */
/* The victim search of the preempt verb (see preempt.h): which of the
 * scheduler's victims free what, whether the node then admits the pod, and
 * the fewest lower-priority pods to add when it does not. */
#include "extender/decide/preempt.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Subsets of at most this many extra victims are tried exhaustively (the
 * fewest first); past it, or past the budget, a minimal set is found by
 * dropping extras one at a time. */
#define EXACT_EXTRA_MAX 3
#define EXACT_BUDGET 4096

const char *preempt_result_name(enum preempt_result r)
{
	static const char *const names[] = { "kept", "keptUnknownPlacement", "keptNoInventory",
					     "extended", "dropped" };

	return names[r];
}

struct node_work {
	const struct inventory_node *inv;
	const struct decide_input *in;
	const struct ledger_pod_view **set; /* victims with known placements */
	size_t nset;
	size_t evaluations;
};

/* Whether the pod fits the node once every pod in set is gone. */
static bool admits(struct node_work *w)
{
	struct inventory_usage *usage;
	struct inventory_node *freed;
	struct decision d;
	size_t i, k, n = 0, total = 0;
	bool ok;

	for (i = 0; i < w->nset; i++)
		total += w->set[i]->nplaced;
	usage = xcalloc(total + 1, sizeof *usage);
	for (i = 0; i < w->nset; i++)
		for (k = 0; k < w->set[i]->nplaced; k++) {
			usage[n].resource = w->set[i]->placed[k].resource;
			usage[n].numa_id = w->set[i]->placed[k].numa_id;
			usage[n].amount = w->set[i]->placed[k].amount;
			n++;
		}
	freed = inventory_node_give(w->inv, usage, n);
	free(usage);
	decide(w->in, freed, 0, &d);
	ok = d.outcome == DECISION_PASS;
	decision_cleanup(&d);
	inventory_node_free(freed);
	w->evaluations++;
	return ok;
}

/* Whether any container of the pod asks for resource. */
static bool pod_requests(const struct pod_spec *p, const char *resource)
{
	size_t i, k;

	for (i = 0; i < p->ncontainers; i++) {
		const struct pod_container *c = &p->containers[i];

		for (k = 0; k < c->nrequests; k++)
			if (strcmp(c->requests[k].name, resource) == 0)
				return true;
		for (k = 0; k < c->nlimits; k++)
			if (strcmp(c->limits[k].name, resource) == 0)
				return true;
	}
	return false;
}

/* Extra victims could free something the pod needs: lower priority than
 * the preemptor, a known placement holding a resource it asks for. */
static bool candidate(const struct ledger_pod_view *v, const struct preemptor *who)
{
	size_t k;

	if (!v->known || v->priority >= who->priority)
		return false;
	if (who->pod->uid && strcmp(v->uid, who->pod->uid) == 0)
		return false;
	for (k = 0; k < v->nplaced; k++)
		if (pod_requests(who->pod, v->placed[k].resource))
			return true;
	return false;
}

/* Tries every k-subset of cands (in order: lowest priority first) on top of
 * the given victims; true with chosen[] set on the first that admits. */
static bool subsets(struct node_work *w, size_t base, const struct ledger_pod_view *const *cands,
		    size_t nc, size_t k, size_t *idx, bool *chosen)
{
	size_t i;

	for (i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		if (w->evaluations >= EXACT_BUDGET)
			return false;
		for (i = 0; i < k; i++)
			w->set[base + i] = cands[idx[i]];
		w->nset = base + k;
		if (admits(w)) {
			for (i = 0; i < k; i++)
				chosen[idx[i]] = true;
			return true;
		}
		/* Next combination in lexicographic order. */
		for (i = k; i-- > 0;)
			if (idx[i] < nc - k + i)
				break;
		if (i == (size_t)-1)
			return false;
		idx[i]++;
		for (i++; i < k; i++)
			idx[i] = idx[i - 1] + 1;
	}
}

static int by_priority(const void *a, const void *b)
{
	const struct ledger_pod_view *x = *(const struct ledger_pod_view *const *)a;
	const struct ledger_pod_view *y = *(const struct ledger_pod_view *const *)b;
	int c = (x->priority > y->priority) - (x->priority < y->priority);

	if (c == 0)
		c = strcmp(x->namespace_, y->namespace_);
	return c ? c : strcmp(x->name, y->name);
}

/* "ns/name frees cpu 4, memory 1Gi on NUMA 0" or "... placement unknown:
 * frees nothing zone-specific". */
static void explain_victim(struct textbuf *t, const struct ledger_pod_view *v, const char *uid,
			   bool added)
{
	int numa;
	size_t k;

	if (textbuf_len(t))
		textbuf_adds(t, "; ");
	if (added)
		textbuf_adds(t, "added ");
	if (v == NULL) {
		textbuf_printf(t, "uid %s: not in the ledger, frees nothing zone-specific", uid);
		return;
	}
	textbuf_printf(t, "%s/%s", v->namespace_, v->name);
	if (!v->known) {
		textbuf_adds(t, ": placement unknown, frees nothing zone-specific");
		return;
	}
	if (v->nplaced == 0) {
		textbuf_adds(t, " frees nothing NUMA-bound");
		return;
	}
	textbuf_adds(t, " frees");
	for (numa = 0; numa < 64; numa++) {
		bool first = true;

		for (k = 0; k < v->nplaced; k++) {
			char amount[64];

			if (v->placed[k].numa_id != numa)
				continue;
			resource_amount_format(v->placed[k].resource, v->placed[k].amount, amount,
					       sizeof amount);
			textbuf_printf(t, "%s %s %s", first ? "" : ",", v->placed[k].resource, amount);
			first = false;
		}
		if (!first)
			textbuf_printf(t, " on NUMA %d", numa);
	}
}

static int by_uid(const void *a, const void *b)
{
	return strcmp((*(const struct ledger_pod_view *const *)a)->uid,
		      (*(const struct ledger_pod_view *const *)b)->uid);
}

/* The pod of byuid (sorted by UID; the ledger holds one pod per UID) whose
 * UID is uid, or NULL. */
static const struct ledger_pod_view *find(const struct ledger_pod_view *const *byuid, size_t n, const char *uid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(uid, byuid[mid]->uid);

		if (c == 0)
			return byuid[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The scheduler's victims are distinct (the decoder merges repeats) and
 * each is looked up once, by binary search over the node's pods sorted by
 * UID: the work is linear in the victims given, whatever their number. */
enum preempt_result preempt_decide(const struct decide_input *in, const struct preemptor *who,
				   const struct preempt_node *node, struct textbuf *why,
				   char ***added, size_t *nadded)
{
	const struct ledger_pod_view *pods = node->pods;
	const struct ledger_pod_view **cands = NULL, **byuid;
	struct node_work w;
	enum preempt_result result;
	size_t npods = node->npods, nc = 0, i, k, base, unlisted = 0;
	size_t idx[EXACT_EXTRA_MAX];
	bool unknown = false, *chosen = NULL, *victim, found = false;

	memset(&w, 0, sizeof w);
	*added = NULL;
	*nadded = 0;
	byuid = xcalloc(npods + 1, sizeof *byuid);
	victim = xcalloc(npods + 1, sizeof *victim);
	for (i = 0; i < npods; i++)
		byuid[i] = &pods[i];
	qsort(byuid, npods, sizeof *byuid, by_uid);
	w.set = xcalloc(npods + 1, sizeof *w.set);
	for (i = 0; i < node->ngiven; i++) {
		const struct ledger_pod_view *v = find(byuid, npods, node->given[i]);

		if (textbuf_len(why) < PREEMPT_EXPLAIN_GIVEN_BYTES)
			explain_victim(why, v, node->given[i], false);
		else
			unlisted++;
		if (v && v->known && !victim[v - pods])
			w.set[w.nset++] = v; /* each pod once: it frees its zones once */
		else if (v == NULL || !v->known)
			unknown = true;
		if (v)
			victim[v - pods] = true;
	}
	if (unlisted)
		textbuf_printf(why, "; %zu more not listed", unlisted);
	if (node->inv == NULL) {
		result = PREEMPT_KEPT_NO_INVENTORY;
		goto out;
	}
	w.inv = node->inv;
	w.in = in;
	if (admits(&w)) {
		result = PREEMPT_KEPT;
		goto out;
	}
	if (unknown) {
		result = PREEMPT_KEPT_UNKNOWN;
		goto out;
	}
	base = w.nset;
	cands = xcalloc(npods + 1, sizeof *cands);
	for (i = 0; i < npods; i++)
		if (!victim[i] && candidate(&pods[i], who))
			cands[nc++] = &pods[i];
	qsort(cands, nc, sizeof *cands, by_priority);
	chosen = xcalloc(nc + 1, sizeof *chosen);
	/* Would all of them do? Otherwise nothing would. */
	for (i = 0; i < nc; i++)
		w.set[base + i] = cands[i];
	w.nset = base + nc;
	if (nc == 0 || !admits(&w)) {
		result = PREEMPT_DROPPED;
		goto out;
	}
	for (k = 1; k <= nc && k <= EXACT_EXTRA_MAX && !found; k++)
		found = subsets(&w, base, cands, nc, k, idx, chosen);
	if (!found) {
		/* A minimal set: drop extras, highest priority first, while
		 * the rest still admits. */
		for (i = 0; i < nc; i++)
			chosen[i] = true;
		for (i = nc; i-- > 0;) {
			size_t m = base;

			chosen[i] = false;
			for (k = 0; k < nc; k++)
				if (chosen[k])
					w.set[m++] = cands[k];
			w.nset = m;
			if (!admits(&w))
				chosen[i] = true;
		}
	}
	*added = xcalloc(nc + 1, sizeof **added);
	for (i = 0; i < nc; i++) {
		if (!chosen[i])
			continue;
		(*added)[(*nadded)++] = xstrdup(cands[i]->uid);
		explain_victim(why, cands[i], cands[i]->uid, true);
	}
	result = PREEMPT_EXTENDED;
out:
	if (node->ngiven + *nadded == 0)
		result = PREEMPT_DROPPED; /* a kept node needs a victim */
	free(chosen);
	free(cands);
	free(w.set);
	free(victim);
	free(byuid);
	return result;
}
