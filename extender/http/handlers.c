/* SPDX-License-Identifier: Apache-2.0 */
/* filter and prioritize: decode, decide each candidate node, encode. */
#include "extender/http/handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/decide/decide.h"
#include "extender/decide/pool.h"
#include "extender/codec/object_json.h"
#include "extender/codec/score_json.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/decide/verdict_cache.h"
#include "extender/codec/wire.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/judge.h"
#include "topology/score.h"
#include "base/textbuf.h"

void reply_text(struct reply *out, int status, const char *text)
{
	size_t len = strlen(text);

	out->status = status;
	out->content_type = "text/plain; charset=utf-8";
	out->body = xmalloc(len + 2);
	memcpy(out->body, text, len);
	out->body[len] = '\n';
	out->body[len + 1] = '\0';
	out->len = len + 1;
}

static void reply_json(struct reply *out, char *body, size_t len)
{
	out->status = 200;
	out->content_type = "application/json";
	out->body = body;
	out->len = len;
}

/* Reasons are identical for identical causes, so a request needs only a few
 * distinct strings: keep each once. */
struct reasons {
	char **texts;
	size_t n;
};

static const char *intern(struct reasons *r, const char *text)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->texts[i], text) == 0)
			return r->texts[i];
	r->texts = xreallocarray(r->texts, r->n + 1, sizeof *r->texts);
	r->texts[r->n] = xstrdup(text);
	return r->texts[r->n++];
}

static void reasons_free(struct reasons *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->texts[i]);
	free(r->texts);
}

/* Decodes the body and the pod's demand; on failure fills out (as filter or
 * prioritize want) and returns false. */
static bool decode(const char *body, size_t len, bool filter, struct wire_args *args,
		   struct pod_demand **demand, struct reply *out)
{
	struct errmsg msg;
	enum err rc;

	memset(args, 0, sizeof *args);
	rc = wire_decode_args(body, len, args, &msg);
	if (rc == ERR_OK)
		rc = pod_demand_new(&args->pod, demand, &msg);
	if (rc == ERR_OK)
		return true;
	log_warn("bad extender request", "verb=%s error=%s", filter ? "filter" : "prioritize",
		 log_q(msg.text));
	if (rc == ERR_PARSE || !filter) {
		char text[600];

		snprintf(text, sizeof text, "%s: %s", rc == ERR_PARSE ? "invalid JSON" : "invalid request",
			 msg.text);
		reply_text(out, 400, text);
	} else {
		size_t n = 0;
		char *json = wire_encode_filter_error(msg.text, &n);

		reply_json(out, json, n);
	}
	wire_args_cleanup(args);
	return false;
}

/* The candidates' snapshots, looked up once: store node (NULL: none),
 * inventory and snapshot id per name. Alone: a pipelined lookup costs less
 * than what sharing it with a helper adds (its wake-up and the lines passed
 * between cores). */
static void nodes_of(struct store_set *set, const struct wire_args *args,
		     const struct store_node ***sns, const struct inventory_node ***invs,
		     uint64_t **ids)
{
	size_t i;

	*sns = xcalloc(args->nnames + 1, sizeof **sns);
	*invs = xcalloc(args->nnames + 1, sizeof **invs);
	*ids = xcalloc(args->nnames + 1, sizeof **ids);
	store_get_many(set, (const char *const *)args->names, args->nnames, *sns);
	for (i = 0; i < args->nnames; i++) {
		(*invs)[i] = (*sns)[i] ? (*sns)[i]->inventory : NULL;
		(*ids)[i] = (*sns)[i] ? (*sns)[i]->id : 0;
	}
}

/* The verdict cache's id of the pod's demand and, with dra, its claims;
 * *fresh: first seen now. */
static uint64_t demand_id_of(const struct pod_demand *demand, const struct dra_pod *dra, bool *fresh)
{
	char *key = pod_demand_key(demand);
	struct textbuf b;
	uint64_t id;

	if (dra == NULL) {
		id = verdict_cache_intern(key, fresh);
		free(key);
		return id;
	}
	textbuf_init(&b, VERDICT_CACHE_DEMAND_KEY_MAX + 1);
	textbuf_adds(&b, key);
	dra_pod_key(dra, &b);
	/* Cut short, the key could stand for other claims: no cache then. */
	*fresh = false;
	id = textbuf_failed(&b) ? 0 : verdict_cache_intern(textbuf_str(&b), fresh);
	textbuf_free(&b);
	free(key);
	return id;
}

/* A request's DRA side: the snapshot it reads and the pod's claims
 * resolved in it, when the pod has claims and DRA verdicts are on. */
struct request_dra {
	const struct dra_snapshot *snap;
	struct dra_pod *pod;
	struct dra_device_set assumed; /* dra_assume_devices' */
	bool judging;   /* DRA verdicts are made for this request (counted) */
};

static void request_dra_begin(const struct handler_ctx *h, const struct settings *st,
			      const struct wire_args *args, struct request_dra *r)
{
	struct dra_pod_input in;

	memset(r, 0, sizeof *r);
	if (h->dra == NULL || st->dra_alignment == CONFIG_DRA_OFF)
		return;
	r->judging = true;
	if (args->dra.nclaims == 0)
		return;
	r->snap = dra_store_acquire(h->dra);
	memset(&in, 0, sizeof in);
	in.snap = r->snap;
	in.claims = &args->dra;
	in.namespace_ = args->pod.namespace_;
	in.pod_name = args->pod.name;
	in.order = st->dra_order == CONFIG_DRA_UNSORTED ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED;
	/* Devices of pods seen bound whose claims' allocation is not in the
	 * snapshot yet (the pod itself left out). */
	if (h->dra_assumed != NULL &&
	    dra_assume_devices(h->dra_assumed, r->snap, store_now_ms(), args->pod.uid, &r->assumed) > 0)
		in.assumed = &r->assumed;
	/* kube-scheduler sends no labels with NodeNames: a slice that selects
	 * nodes by label makes the nodes it could reach unpredictable. */
	in.node_labels_known = false;
	r->pod = dra_pod_new(&in);
}

/* The nodes' snapshot ids keyed on their DRA state too. */
static void request_dra_ids(const struct request_dra *r, const struct wire_args *args, uint64_t *ids)
{
	size_t i;

	for (i = 0; r->pod != NULL && i < args->nnames; i++)
		ids[i] = dra_pod_cache_id(r->pod, args->names[i], ids[i]);
}

static void request_dra_end(struct request_dra *r)
{
	dra_pod_free(r->pod);
	if (r->snap != NULL)
		dra_snapshot_release(r->snap);
	dra_device_set_free(&r->assumed);
	memset(r, 0, sizeof *r);
}

/* Whether the inventory is too old to judge on; when it is and the config
 * fails closed, out holds the Error reply. */
static bool stale_inventory(const struct handler_ctx *h, const struct wire_args *args, bool *refused,
			    struct reply *out)
{
	int64_t contact, age;
	struct textbuf t;
	char text[300], *json;
	size_t n = 0;

	*refused = false;
	if (h->stale_after_ms <= 0)
		return false;
	contact = store_last_contact_ms(h->store);
	age = contact ? store_now_ms() - contact : -1;
	if (age >= 0 && age <= h->stale_after_ms)
		return false;
	if (h->fail_open)
		return true;
	textbuf_init_fixed(&t, text, sizeof text);
	if (age < 0)
		textbuf_adds(&t, "topology inventory unavailable: no contact with the inventory source yet");
	else
		textbuf_printf(&t, "topology inventory unavailable: last contact with the inventory source "
				   "%llds ago (staleAfter %llds)",
			       (long long)(age / 1000), (long long)(h->stale_after_ms / 1000));
	log_warn("filter refused: inventory stale", "namespace=%s pod=%s age_ms=%lld",
		 log_q(args->pod.namespace_), log_q(args->pod.name), (long long)age);
	json = wire_encode_filter_error(text, &n);
	reply_json(out, json, n);
	*refused = true;
	return true;
}

void handle_filter(const struct handler_ctx *h, const char *body, size_t len, struct reply *out)
{
	struct pod_demand *demand = NULL;
	struct store_set *set;
	struct settings *settings;
	struct reasons reasons = { NULL, 0 };
	enum decision_outcome *outcome;
	const char **why;
	struct wire_args args;
	uint64_t counts[DECISION_NOUTCOMES] = { 0 };
	struct decision_record *record = NULL;
	struct decide_input in;
	struct decision_brief *briefs;
	const struct store_node **sns;
	const struct inventory_node **invs;
	uint64_t *ids;
	uint64_t dra_counts[DRA_OUTCOME_COUNT] = { 0 };
	struct request_dra dra;
	struct dra_veto_list vetoes = { NULL, NULL, 0 };
	struct {
		bool *passes;
		const char **versions;
		uint64_t *numa_ids;
	} memo = { NULL, NULL, NULL };
	size_t i, n = 0;
	bool stale, refused;
	bool debug = log_enabled(LOG_LEVEL_DEBUG);
	char *json;

	if (!decode(body, len, true, &args, &demand, out))
		return;
	stale = stale_inventory(h, &args, &refused, out);
	if (refused) {
		pod_demand_free(demand);
		wire_args_cleanup(&args);
		return;
	}
	set = store_acquire(h->store);
	settings = settings_acquire(h->settings);
	if (h->decisions) {
		char *pod_json = pod_spec_to_json(&args.pod);

		record = decision_record_new("filter", pod_json, settings);
		free(pod_json);
	}
	outcome = xcalloc(args.nnames + 1, sizeof *outcome);
	why = xcalloc(args.nnames + 1, sizeof *why);
	if (h->ledger && args.pod.uid && args.pod.uid[0]) {
		/* The ledger remembers what we said, per node, until the pod
		 * shows up bound (its placement; the kubelet's feedback). */
		memo.passes = xcalloc(args.nnames + 1, sizeof *memo.passes);
		memo.versions = xcalloc(args.nnames + 1, sizeof *memo.versions);
		memo.numa_ids = xcalloc(args.nnames + 1, sizeof *memo.numa_ids);
	}
	request_dra_begin(h, settings, &args, &dra);
	if (h->veto && args.pod.uid && args.pod.uid[0])
		dra_veto_of(h->veto, args.pod.uid, store_now_ms(), &vetoes);
	in.demand = demand;
	in.settings = settings;
	in.dra = dra.pod;
	in.demand_id = demand_id_of(demand, dra.pod, &in.demand_fresh);
	if (record && dra.pod != NULL)
		decision_record_dra(record, dra.snap, dra.pod, &args.dra);
	/* Debug logging wants the judge's long message: always judged. */
	in.flags = (stale ? DECIDE_STALE : 0) | (debug ? DECIDE_DETAIL : 0);
	nodes_of(set, &args, &sns, &invs, &ids);
	request_dra_ids(&dra, &args, ids);
	briefs = xcalloc(args.nnames + 1, sizeof *briefs);
	decide_many(&in, h->pool, args.nnames, invs, ids, briefs);
	for (i = 0; i < args.nnames; i++) {
		const struct store_node *sn = sns[i];
		struct decision_brief *d = &briefs[i];
		const char *vetoed = vetoes.n ? dra_veto_list_find(&vetoes, args.names[i]) : NULL;
		const char *reason = d->reason;

		if (vetoed != NULL && d->passes) {
			/* The bind found the real devices misaligned here. */
			reason = vetoed;
			d->outcome = DECISION_FAILED;
			d->passes = false;
			d->kubelet_reason = REASON_DRA_ALIGNMENT;
			d->numa_ids = 0;
			d->score = 0;
		}
		/* A node let through without a pass (no inventory under
		 * missingInventory: allow) goes in the pass list. */
		outcome[i] = d->passes ? DECISION_PASS : d->outcome;
		why[i] = reason ? intern(&reasons, reason) : NULL;
		counts[d->outcome]++;
		if (dra.judging && d->outcome != DECISION_NO_INVENTORY)
			dra_counts[dra.pod ? d->dra : DRA_OUTCOME_NO_CLAIMS]++;
		if (!d->passes)
			metrics_rejection(d->kubelet_reason);
		if (debug && !d->passes)
			log_debug("node rejected", "namespace=%s pod=%s node=%s reason=%s detail=%s",
				  log_q(args.pod.namespace_), log_q(args.pod.name), log_q(args.names[i]),
				  verdict_reason_name(d->kubelet_reason), log_q(d->message ? d->message : ""));
		if (record)
			decision_record_node(record, args.names[i], sn, decision_outcome_name(d->outcome),
					     why[i], d->numa_ids, d->score, NULL);
		if (memo.passes) {
			memo.passes[i] = d->passes;
			memo.versions[i] = sn ? sn->version : NULL;
			memo.numa_ids[i] = d->numa_ids;
		}
	}
	decision_briefs_free(briefs, args.nnames);
	free(sns);
	free(invs);
	free(ids);
	if (memo.passes)
		ledger_note_filter(h->ledger, args.pod.uid, args.nnames, (const char *const *)args.names,
				   memo.passes, memo.versions, memo.numa_ids);
	json = wire_encode_filter(&args, outcome, why, &n);
	if (record)
		decision_log_submit(h->decisions, record);
	reply_json(out, json, n);
	for (i = 0; i < DECISION_NOUTCOMES; i++)
		if (counts[i])
			metrics_nodes(METRICS_FILTER, (enum decision_outcome)i, counts[i]);
	for (i = 0; i < DRA_OUTCOME_COUNT; i++)
		if (dra_counts[i])
			metrics_dra_verdicts((enum dra_outcome)i, dra_counts[i]);
	log_debug("filter", "namespace=%s pod=%s nodes=%zu pass=%llu failed=%llu unresolvable=%llu no_inventory=%llu",
		  log_q(args.pod.namespace_), log_q(args.pod.name), args.nnames,
		  (unsigned long long)counts[DECISION_PASS], (unsigned long long)counts[DECISION_FAILED],
		  (unsigned long long)counts[DECISION_UNRESOLVABLE],
		  (unsigned long long)counts[DECISION_NO_INVENTORY]);
	free(outcome);
	free(why);
	free(memo.passes);
	free(memo.versions);
	free(memo.numa_ids);
	reasons_free(&reasons);
	dra_veto_list_free(&vetoes);
	request_dra_end(&dra);
	settings_unref(settings);
	store_release(set);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
}

void handle_prioritize(const struct handler_ctx *h, const char *body, size_t len,
		       struct reply *out)
{
	struct pod_demand *demand = NULL;
	struct store_set *set;
	struct settings *settings;
	struct wire_args args;
	int64_t *scores;
	uint64_t counts[DECISION_NOUTCOMES] = { 0 };
	struct decision_record *record = NULL;
	struct decide_input in;
	struct request_dra dra;
	struct decision d;
	size_t i, n = 0;
	char *json;

	if (!decode(body, len, false, &args, &demand, out))
		return;
	set = store_acquire(h->store);
	settings = settings_acquire(h->settings);
	scores = xcalloc(args.nnames + 1, sizeof *scores);
	request_dra_begin(h, settings, &args, &dra);
	in.demand = demand;
	in.settings = settings;
	in.dra = dra.pod;
	in.demand_id = demand_id_of(demand, dra.pod, &in.demand_fresh);
	in.flags = 0;
	if (h->decisions) {
		char *pod_json = pod_spec_to_json(&args.pod);

		/* The log wants each score's parts, which only a judgement has. */
		record = decision_record_new("prioritize", pod_json, settings);
		free(pod_json);
		in.flags = DECIDE_PARTS;
	}
	if (record && dra.pod != NULL)
		decision_record_dra(record, dra.snap, dra.pod, &args.dra);
	if (record) {
		/* Serial: each node's score parts (struct decision) go to the log. */
		for (i = 0; i < args.nnames; i++) {
			const struct store_node *sn = store_get(set, args.names[i]);
			uint64_t id = sn ? sn->id : 0;
			char *parts;

			if (dra.pod != NULL)
				id = dra_pod_cache_id(dra.pod, args.names[i], id);
			decide(&in, sn ? sn->inventory : NULL, id, &d);
			scores[i] = d.score;
			counts[d.outcome]++;
			parts = d.outcome == DECISION_PASS ? score_parts_json(&d.parts) : NULL;
			decision_record_node(record, args.names[i], sn, decision_outcome_name(d.outcome),
					     d.reason, d.numa_ids, d.score, parts);
			free(parts);
		}
	} else {
		struct decision_brief *briefs = xcalloc(args.nnames + 1, sizeof *briefs);
		const struct store_node **sns;
		const struct inventory_node **invs;
		uint64_t *ids;

		nodes_of(set, &args, &sns, &invs, &ids);
		request_dra_ids(&dra, &args, ids);
		decide_many(&in, h->pool, args.nnames, invs, ids, briefs);
		for (i = 0; i < args.nnames; i++) {
			scores[i] = briefs[i].score;
			counts[briefs[i].outcome]++;
		}
		decision_briefs_free(briefs, args.nnames);
		free(sns);
		free(invs);
		free(ids);
	}
	json = wire_encode_prioritize(&args, scores, &n);
	reply_json(out, json, n);
	if (record)
		decision_log_submit(h->decisions, record);
	for (i = 0; i < DECISION_NOUTCOMES; i++)
		if (counts[i])
			metrics_nodes(METRICS_PRIORITIZE, (enum decision_outcome)i, counts[i]);
	free(scores);
	request_dra_end(&dra);
	settings_unref(settings);
	store_release(set);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
}
