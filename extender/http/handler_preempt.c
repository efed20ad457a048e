/* SPDX-License-Identifier: Apache-2.0 */
/* preempt: NUMA-aware preemption. kube-scheduler's dry run chose victims
 * per candidate node by node-level fit only; here each node is decided
 * again, through decide(), on its inventory plus what those victims free on
 * the zones they hold (inventory_node_give of their remembered placements).
 *
 *   admits                          -> kept with its victims, as given
 *   does not, a victim's placement
 *   is unknown                      -> kept as given (we cannot tell where it
 *                                      frees; never dropped on a guess)
 *   does not, lower-priority pods
 *   with known placements on the
 *   node would make it admit        -> kept, the fewest of them added
 *   nothing would                   -> dropped
 *
 * A node without an inventory is kept as given. The reply never names a
 * UID that is neither the scheduler's nor a pod the ledger saw bound to
 * that node, and never keeps a node without victims. NumPDBViolations is
 * passed through: the extender does not see PodDisruptionBudgets. */
#include "extender/http/handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/wire.h"
#include "extender/decide/decide.h"
#include "extender/log.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"

/* Subsets of at most this many extra victims are tried exhaustively (the
 * fewest first); past it, or past the budget, a minimal set is found by
 * dropping extras one at a time. */
#define EXACT_EXTRA_MAX 3
#define EXACT_BUDGET 4096

/* The explanation names the scheduler's victims until it is this long, then
 * says how many more there were: one log line per node, readable, whatever
 * the number of victims. Added victims are always named. */
#define EXPLAIN_GIVEN_BYTES 8192

enum preempt_result {
	PREEMPT_KEPT,
	PREEMPT_KEPT_UNKNOWN,
	PREEMPT_KEPT_NO_INVENTORY,
	PREEMPT_EXTENDED,
	PREEMPT_DROPPED,
};

static const char *result_name(enum preempt_result r)
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
static bool candidate(const struct ledger_pod_view *v, const struct wire_preemption *req)
{
	size_t k;

	if (!v->known || v->priority >= req->priority)
		return false;
	if (req->pod.uid && strcmp(v->uid, req->pod.uid) == 0)
		return false;
	for (k = 0; k < v->nplaced; k++)
		if (pod_requests(&req->pod, v->placed[k].resource))
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

/* Decides one candidate node; out gets the victims to return (uids point
 * into the request or into pods). The scheduler's victims are distinct
 * (the decoder merges repeats) and each is looked up once, by binary search
 * over the node's pods sorted by UID: the work is linear in the victims
 * given, whatever their number. */
static enum preempt_result preempt_node(const struct handler_ctx *h, const struct store_set *set,
					const struct decide_input *in, const struct wire_preemption *req,
					const struct wire_victims *given, struct wire_victims *out,
					struct textbuf *why, const char **version)
{
	const struct store_node *sn = store_get(set, given->node);
	struct ledger_pod_view *pods = NULL;
	const struct ledger_pod_view **cands = NULL, **byuid;
	struct node_work w;
	enum preempt_result result;
	size_t npods = 0, nc = 0, i, k, base, unlisted = 0;
	size_t idx[EXACT_EXTRA_MAX];
	bool unknown = false, *chosen = NULL, *victim, found = false;

	memset(&w, 0, sizeof w);
	*version = sn ? sn->version : "";
	out->node = given->node;
	out->num_pdb_violations = given->num_pdb_violations;
	out->uids = xcalloc(given->nuids + 1, sizeof *out->uids);
	for (i = 0; i < given->nuids; i++)
		out->uids[out->nuids++] = given->uids[i];
	if (h->ledger)
		npods = ledger_node_pods(h->ledger, given->node, &pods);
	byuid = xcalloc(npods + 1, sizeof *byuid);
	victim = xcalloc(npods + 1, sizeof *victim);
	for (i = 0; i < npods; i++)
		byuid[i] = &pods[i];
	qsort(byuid, npods, sizeof *byuid, by_uid);
	w.set = xcalloc(npods + 1, sizeof *w.set);
	for (i = 0; i < given->nuids; i++) {
		const struct ledger_pod_view *v = find(byuid, npods, given->uids[i]);

		if (textbuf_len(why) < EXPLAIN_GIVEN_BYTES)
			explain_victim(why, v, given->uids[i], false);
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
	if (sn == NULL) {
		result = PREEMPT_KEPT_NO_INVENTORY;
		goto out;
	}
	w.inv = sn->inventory;
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
		if (!victim[i] && candidate(&pods[i], req))
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
	out->uids = xreallocarray(out->uids, given->nuids + nc + 1, sizeof *out->uids);
	for (i = 0; i < nc; i++) {
		if (!chosen[i])
			continue;
		out->uids[out->nuids++] = cands[i]->uid;
		explain_victim(why, cands[i], cands[i]->uid, true);
	}
	result = PREEMPT_EXTENDED;
out:
	if (result == PREEMPT_EXTENDED) {
		/* uids of added victims point into pods: copy them. */
		for (i = given->nuids; i < out->nuids; i++)
			out->uids[i] = xstrdup(out->uids[i]);
	}
	if (out->nuids == 0)
		result = PREEMPT_DROPPED; /* a kept node needs a victim */
	free(chosen);
	free(cands);
	free(w.set);
	free(victim);
	free(byuid);
	ledger_pod_views_free(pods, npods);
	return result;
}

static void reply_json(struct reply *out, char *body, size_t len)
{
	out->status = 200;
	out->content_type = "application/json";
	out->body = body;
	out->len = len;
}

void handle_preempt(const struct handler_ctx *h, const char *body, size_t len, struct reply *out)
{
	struct wire_preemption req;
	struct wire_victims *kept;
	size_t *ngiven;
	struct pod_demand *demand = NULL;
	struct store_set *set;
	struct settings *settings;
	struct decide_input in;
	struct textbuf rec;
	struct errmsg msg;
	size_t i, k, nkept = 0, n = 0;
	enum err rc;
	char *json;

	rc = wire_decode_preemption(body, len, &req, &msg);
	if (rc == ERR_OK)
		rc = pod_demand_new(&req.pod, &demand, &msg);
	if (rc != ERR_OK) {
		char text[600];

		/* The preemption result has no error field: a non-200 is the
		 * only way to say the call failed. Too many victims reads as
		 * the server's own size limit does, 413. */
		log_warn("bad extender request", "verb=preempt error=%s", log_q(msg.text));
		snprintf(text, sizeof text, "%s: %s",
			 rc == ERR_PARSE ? "invalid JSON" : rc == ERR_TOO_LARGE ? "request too large" : "invalid request",
			 msg.text);
		reply_text(out, rc == ERR_TOO_LARGE ? 413 : 400, text);
		wire_preemption_cleanup(&req);
		return;
	}
	set = store_acquire(h->store);
	settings = settings_acquire(h->settings);
	in.demand = demand;
	in.settings = settings;
	in.demand_id = 0;
	in.demand_fresh = false;
	in.flags = 0;
	kept = xcalloc(req.nnodes + 1, sizeof *kept);
	ngiven = xcalloc(req.nnodes + 1, sizeof *ngiven);
	textbuf_init(&rec, (size_t)64 << 20);
	textbuf_adds(&rec, "{\"pod\":");
	{
		char podname[600];

		snprintf(podname, sizeof podname, "%s/%s", req.pod.namespace_, req.pod.name);
		textbuf_json_cstr(&rec, podname);
	}
	textbuf_adds(&rec, ",\"uid\":");
	textbuf_json_cstr(&rec, req.pod.uid ? req.pod.uid : "");
	textbuf_printf(&rec, ",\"priority\":%lld,\"nodes\":[", (long long)req.priority);
	for (i = 0; i < req.nnodes; i++) {
		struct wire_victims *o = &kept[nkept];
		struct textbuf why;
		const char *version = "";
		enum preempt_result r;

		textbuf_init(&why, (size_t)1 << 20);
		r = preempt_node(h, set, &in, &req, &req.nodes[i], o, &why, &version);
		log_info("preemption", "namespace=%s pod=%s node=%s result=%s victims=%zu given=%zu frees=%s",
			 log_q(req.pod.namespace_), log_q(req.pod.name), log_q(req.nodes[i].node),
			 result_name(r), r == PREEMPT_DROPPED ? (size_t)0 : o->nuids, req.nodes[i].nuids,
			 log_q(textbuf_str(&why)));
		textbuf_adds(&rec, i ? ",{\"node\":" : "{\"node\":");
		textbuf_json_cstr(&rec, req.nodes[i].node);
		textbuf_adds(&rec, ",\"version\":");
		textbuf_json_cstr(&rec, version);
		textbuf_adds(&rec, ",\"result\":");
		textbuf_json_cstr(&rec, result_name(r));
		textbuf_adds(&rec, ",\"victims\":[");
		for (k = 0; r != PREEMPT_DROPPED && k < o->nuids; k++) {
			if (k)
				textbuf_addc(&rec, ',');
			textbuf_json_cstr(&rec, o->uids[k]);
		}
		textbuf_adds(&rec, "],\"explain\":");
		textbuf_json_cstr(&rec, textbuf_str(&why));
		textbuf_addc(&rec, '}');
		textbuf_free(&why);
		if (r == PREEMPT_DROPPED) {
			for (k = req.nodes[i].nuids; k < o->nuids; k++)
				free(o->uids[k]);
			free(o->uids);
			memset(o, 0, sizeof *o);
		} else {
			ngiven[nkept++] = req.nodes[i].nuids;
		}
	}
	textbuf_adds(&rec, "]}");
	json = wire_encode_preemption(kept, nkept, &n);
	reply_json(out, json, n);
	if (h->decisions && !textbuf_failed(&rec))
		decision_log_event(h->decisions, "preemption", textbuf_str(&rec));
	textbuf_free(&rec);
	for (i = 0; i < nkept; i++) {
		/* The given victims come first and belong to the request; the
		 * added ones are copies. */
		for (k = ngiven[i]; k < kept[i].nuids; k++)
			free(kept[i].uids[k]);
		free(kept[i].uids);
	}
	free(ngiven);
	free(kept);
	settings_unref(settings);
	store_release(set);
	pod_demand_free(demand);
	wire_preemption_cleanup(&req);
}
