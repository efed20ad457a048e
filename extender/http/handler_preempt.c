/* SPDX-License-Identifier: Apache-2.0 */
/* preempt: NUMA-aware preemption. The verb decodes ExtenderPreemptionArgs,
 * has each candidate node decided by the victim search (decide/preempt.h:
 * kept, kept with victims added, or dropped), logs one line per node,
 * records the answer in the decision log and encodes the result.
 * NumPDBViolations is passed through: the extender does not see
 * PodDisruptionBudgets. */
#include "extender/http/handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/wire.h"
#include "extender/decide/decide.h"
#include "extender/decide/preempt.h"
#include "extender/log.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"

/* Decides one candidate node (decide/preempt.c) on its snapshot and the
 * ledger's pods there; out gets the victims to return: the given ones
 * (pointing into the request), then the added ones (malloc'd). */
static enum preempt_result preempt_node(const struct handler_ctx *h, const struct store_set *set,
					const struct decide_input *in, const struct preemptor *who,
					const struct wire_victims *given, struct wire_victims *out,
					struct textbuf *why, const char **version)
{
	const struct store_node *sn = store_get(set, given->node);
	struct ledger_pod_view *pods = NULL;
	struct preempt_node node;
	enum preempt_result result;
	char **added;
	size_t nadded, i;

	memset(&node, 0, sizeof node);
	*version = sn ? sn->version : "";
	out->node = given->node;
	out->num_pdb_violations = given->num_pdb_violations;
	out->uids = xcalloc(given->nuids + 1, sizeof *out->uids);
	for (i = 0; i < given->nuids; i++)
		out->uids[out->nuids++] = given->uids[i];
	if (h->ledger)
		node.npods = ledger_node_pods(h->ledger, given->node, &pods);
	node.pods = pods;
	node.inv = sn ? sn->inventory : NULL;
	node.given = (const char *const *)given->uids;
	node.ngiven = given->nuids;
	result = preempt_decide(in, who, &node, why, &added, &nadded);
	if (nadded) {
		out->uids = xreallocarray(out->uids, given->nuids + nadded + 1, sizeof *out->uids);
		for (i = 0; i < nadded; i++)
			out->uids[out->nuids++] = added[i];
	}
	free(added);
	ledger_pod_views_free(pods, node.npods);
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
	struct preemptor who;
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
	in.dra = NULL;
	who.pod = &req.pod;
	who.priority = req.priority;
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
		r = preempt_node(h, set, &in, &who, &req.nodes[i], o, &why, &version);
		log_info("preemption", "namespace=%s pod=%s node=%s result=%s victims=%zu given=%zu frees=%s",
			 log_q(req.pod.namespace_), log_q(req.pod.name), log_q(req.nodes[i].node),
			 preempt_result_name(r), r == PREEMPT_DROPPED ? (size_t)0 : o->nuids, req.nodes[i].nuids,
			 log_q(textbuf_str(&why)));
		textbuf_adds(&rec, i ? ",{\"node\":" : "{\"node\":");
		textbuf_json_cstr(&rec, req.nodes[i].node);
		textbuf_adds(&rec, ",\"version\":");
		textbuf_json_cstr(&rec, version);
		textbuf_adds(&rec, ",\"result\":");
		textbuf_json_cstr(&rec, preempt_result_name(r));
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
