/* SPDX-License-Identifier: Apache-2.0 */
/* filter and prioritize: the one judge over the candidate nodes. */
#include "extender/handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/encode.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/score_cache.h"
#include "extender/verdict_cache.h"
#include "extender/wire.h"
#include "extender/xalloc.h"
#include "topology/demand.h"
#include "topology/judge.h"
#include "topology/score.h"
#include "topology/textbuf.h"

#define NO_INVENTORY_REASON "NUMA: no NodeResourceTopology inventory for this node"

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

/* NUMA ids of the predicted placement: every container's affinity. */
static uint64_t placement_ids(const struct verdict *v)
{
	uint64_t ids = 0;
	size_t i;

	for (i = 0; i < v->ncontainers; i++)
		if (v->containers[i].has_affinity)
			ids |= v->containers[i].numa_ids;
	return ids;
}

/* A score's parts as the decision log records them. Resource names come
 * from the node's inventory: escaped, and never larger than the builder's
 * ceiling (a part is at most a few hundred bytes; SCORE_MAX_PARTS bounds
 * their number). */
static char *parts_json(const struct score_breakdown *b)
{
	struct textbuf t;
	size_t i;

	textbuf_init(&t, (size_t)1 << 20);
	textbuf_addc(&t, '[');
	for (i = 0; i < b->nparts; i++) {
		textbuf_adds(&t, i ? ",{\"resource\":" : "{\"resource\":");
		textbuf_json_cstr(&t, b->parts[i].resource);
		textbuf_printf(&t, ",\"weight\":%lld,\"score100\":%lld}", (long long)b->parts[i].weight,
			       (long long)b->parts[i].score100);
	}
	textbuf_addc(&t, ']');
	if (textbuf_failed(&t)) {
		textbuf_reset(&t);
		textbuf_adds(&t, "[]");
	}
	return textbuf_take(&t, NULL);
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

void handle_filter(const struct handler_ctx *h, const char *body, size_t len, struct reply *out)
{
	struct pod_demand *demand = NULL;
	struct store_set *set;
	struct settings *settings;
	struct reasons reasons = { NULL, 0 };
	enum wire_outcome *outcome;
	const char **why;
	struct wire_args args;
	uint64_t counts[METRICS_NOUTCOMES] = { 0 };
	int64_t *scores;
	struct decision_record *record = NULL;
	struct verdict_entry cached;
	uint64_t demand_id;
	size_t i, n = 0;
	bool stale = false;
	char *json;

	if (!decode(body, len, true, &args, &demand, out))
		return;
	if (h->stale_after_ms > 0) {
		int64_t contact = store_last_contact_ms(h->store);
		int64_t age = contact ? store_now_ms() - contact : -1;

		if (age < 0 || age > h->stale_after_ms) {
			char text[300];

			if (age < 0)
				snprintf(text, sizeof text, "topology inventory unavailable: no contact with the inventory source yet");
			else
				snprintf(text, sizeof text,
					 "topology inventory unavailable: last contact with the inventory source %llds ago (staleAfter %llds)",
					 (long long)(age / 1000), (long long)(h->stale_after_ms / 1000));
			if (!h->fail_open) {
				json = wire_encode_filter_error(text, &n);
				log_warn("filter refused: inventory stale", "namespace=%s pod=%s age_ms=%lld",
					 log_q(args.pod.namespace_), log_q(args.pod.name), (long long)age);
				reply_json(out, json, n);
				pod_demand_free(demand);
				wire_args_cleanup(&args);
				return;
			}
			stale = true;
		}
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
	scores = xcalloc(args.nnames + 1, sizeof *scores);
	{
		char *key = pod_demand_key(demand);

		demand_id = verdict_cache_demand(key);
		free(key);
	}
	for (i = 0; i < args.nnames; i++) {
		const struct store_node *sn = store_get(set, args.names[i]);
		struct verdict v;
		char summary[300];

		if (sn == NULL) {
			counts[METRICS_NO_INVENTORY]++;
			if (settings->missing_inventory == CONFIG_MISSING_ALLOW) {
				outcome[i] = WIRE_PASS;
			} else {
				/* Preemption cannot publish an inventory. */
				outcome[i] = WIRE_UNRESOLVABLE;
				why[i] = NO_INVENTORY_REASON;
				metrics_rejection("NoInventory");
			}
			if (record)
				decision_record_node(record, args.names[i], NULL, "noInventory",
						     why[i], 0, 0, NULL);
			continue;
		}
		/* Pods of one workload share a demand: a known answer for this
		 * snapshot, settings and demand is the judge's answer. Debug logging
		 * wants the long message, so it always judges. */
		if (!log_enabled(CONFIG_LOG_DEBUG) &&
		    verdict_cache_get(sn->id, settings->id, demand_id, &cached)) {
			metrics_verdict_cache_hit();
			outcome[i] = (enum wire_outcome)cached.outcome;
			scores[i] = cached.score;
			if (outcome[i] == WIRE_PASS) {
				counts[METRICS_PASS]++;
			} else {
				counts[outcome[i] == WIRE_UNRESOLVABLE ? METRICS_UNRESOLVABLE
								       : METRICS_FAILED]++;
				if (stale) {
					snprintf(summary, sizeof summary, "%s [inventory stale]", cached.reason);
					why[i] = intern(&reasons, summary);
				} else {
					why[i] = intern(&reasons, cached.reason);
				}
				metrics_rejection(cached.kubelet_reason);
			}
			if (record)
				decision_record_node(record, args.names[i], sn,
						     outcome[i] == WIRE_PASS ? "pass"
						     : outcome[i] == WIRE_FAILED ? "failed" : "unresolvable",
						     why[i], cached.numa_ids, scores[i], NULL);
			continue;
		}
		judge_node_ex(sn->inventory, demand,
			      JUDGE_UNRESOLVABLE | (log_enabled(CONFIG_LOG_DEBUG) ? JUDGE_DETAIL : 0), &v);
		memset(&cached, 0, sizeof cached);
		if (v.admit) {
			outcome[i] = WIRE_PASS;
			counts[METRICS_PASS]++;
			/* kube-scheduler asks prioritize next, for the same pod. */
			scores[i] = score_node(&settings->scoring, sn->inventory, &v, NULL);
		} else {
			outcome[i] = v.unresolvable ? WIRE_UNRESOLVABLE : WIRE_FAILED;
			counts[v.unresolvable ? METRICS_UNRESOLVABLE : METRICS_FAILED]++;
			verdict_summary(&v, summary, sizeof summary);
			cached.reason = summary;
			cached.kubelet_reason = verdict_reason_name(v.reason);
			if (stale) {
				struct textbuf t;

				textbuf_attach(&t, summary, sizeof summary);
				textbuf_adds(&t, " [inventory stale]");
			}
			why[i] = intern(&reasons, summary);
			metrics_rejection(verdict_reason_name(v.reason));
			if (log_enabled(CONFIG_LOG_DEBUG))
				log_debug("node rejected", "namespace=%s pod=%s node=%s reason=%s detail=%s",
					  log_q(args.pod.namespace_), log_q(args.pod.name), log_q(args.names[i]),
					  verdict_reason_name(v.reason), log_q(v.message));
		}
		if (record)
			decision_record_node(record, args.names[i], sn,
					     outcome[i] == WIRE_PASS ? "pass"
					     : outcome[i] == WIRE_FAILED ? "failed" : "unresolvable",
					     why[i], v.admit ? placement_ids(&v) : 0, scores[i], NULL);
		cached.outcome = (unsigned char)outcome[i];
		cached.score = scores[i];
		cached.numa_ids = v.admit ? placement_ids(&v) : 0;
		if (v.admit) {
			cached.reason = "";
			cached.kubelet_reason = "";
		}
		if (!stale)
			verdict_cache_put(sn->id, settings->id, demand_id, &cached);
		verdict_cleanup(&v);
	}
	json = wire_encode_filter(&args, outcome, why, &n);
	if (record)
		decision_log_submit(h->decisions, record);
	reply_json(out, json, n);
	if (!stale) {
		char *key = pod_demand_key(demand);

		score_cache_put(key, store_generation(set), settings, args.names, scores, args.nnames);
		free(key);
	}
	for (i = 0; i < METRICS_NOUTCOMES; i++)
		if (counts[i])
			metrics_nodes(METRICS_FILTER, (enum metrics_outcome)i, counts[i]);
	log_debug("filter", "namespace=%s pod=%s nodes=%zu pass=%llu failed=%llu unresolvable=%llu no_inventory=%llu",
		  log_q(args.pod.namespace_), log_q(args.pod.name), args.nnames,
		  (unsigned long long)counts[METRICS_PASS], (unsigned long long)counts[METRICS_FAILED],
		  (unsigned long long)counts[METRICS_UNRESOLVABLE],
		  (unsigned long long)counts[METRICS_NO_INVENTORY]);
	free(outcome);
	free(why);
	free(scores);
	reasons_free(&reasons);
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
	unsigned char *found;
	struct decision_record *record = NULL;
	uint64_t demand_id = 0;
	size_t i, n = 0;
	char *json, *key;

	if (!decode(body, len, false, &args, &demand, out))
		return;
	set = store_acquire(h->store);
	settings = settings_acquire(h->settings);
	scores = xcalloc(args.nnames + 1, sizeof *scores);
	found = xcalloc(args.nnames + 1, 1);
	if (h->decisions) {
		char *pod_json = pod_spec_to_json(&args.pod);

		/* The log wants each score's parts: judge every node, no cache. */
		record = decision_record_new("prioritize", pod_json, settings);
		free(pod_json);
	} else {
		key = pod_demand_key(demand);
		metrics_score_cache_hits(score_cache_get(key, store_generation(set), settings,
							 args.names, args.nnames, scores, found));
		demand_id = verdict_cache_demand(key);
		free(key);
	}
	for (i = 0; i < args.nnames; i++) {
		const struct store_node *sn;
		struct verdict_entry cached;
		struct verdict v;

		if (found[i])
			continue;
		sn = store_get(set, args.names[i]);
		/* Another pod's assumption or an NRT update since this pod's
		 * filter changed some nodes (and the generation): the verdicts
		 * of the nodes it left alone still hold, scores included. */
		if (sn && demand_id && verdict_cache_get(sn->id, settings->id, demand_id, &cached)) {
			scores[i] = cached.score;
			metrics_verdict_cache_hit();
			metrics_nodes(METRICS_PRIORITIZE, cached.outcome == WIRE_PASS ? METRICS_PASS
							  : cached.outcome == WIRE_FAILED ? METRICS_FAILED
											   : METRICS_UNRESOLVABLE, 1);
			continue;
		}
		if (sn == NULL) {
			metrics_nodes(METRICS_PRIORITIZE, METRICS_NO_INVENTORY, 1);
			if (record)
				decision_record_node(record, args.names[i], NULL, "noInventory", "", 0, 0,
						     NULL);
			continue; /* no inventory: 0 */
		}
		/* Scores need the placement of admitted pods only. */
		judge_node_ex(sn->inventory, demand, 0, &v);
		if (record) {
			struct score_breakdown b;
			char *parts;

			scores[i] = score_node(&settings->scoring, sn->inventory, &v, &b);
			parts = parts_json(&b);
			decision_record_node(record, args.names[i], sn, v.admit ? "pass" : "failed", "",
					     v.admit ? placement_ids(&v) : 0, scores[i], parts);
			free(parts);
		} else {
			scores[i] = score_node(&settings->scoring, sn->inventory, &v, NULL);
		}
		metrics_nodes(METRICS_PRIORITIZE, v.admit ? METRICS_PASS
							  : v.unresolvable ? METRICS_UNRESOLVABLE
									   : METRICS_FAILED, 1);
		verdict_cleanup(&v);
	}
	json = wire_encode_prioritize(&args, scores, &n);
	reply_json(out, json, n);
	if (record)
		decision_log_submit(h->decisions, record);
	free(found);
	free(scores);
	settings_unref(settings);
	store_release(set);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
}
