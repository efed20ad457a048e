/* SPDX-License-Identifier: Apache-2.0 */
/* The extender verbs, decode -> judge -> encode, independent of HTTP:
 * each takes a request body and produces a status, a content type and a body.
 * Per request: one store set and one settings value, taken once, so every
 * node of a request is judged against the same inventory and config. */
#ifndef EXTENDER_HANDLERS_H
#define EXTENDER_HANDLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extender/decide/dra_assume.h"
#include "extender/decide/dra_veto.h"
#include "extender/decisionlog.h"
#include "extender/kube/binder.h"
#include "extender/inventory/dra_store.h"
#include "extender/inventory/ledger.h"
#include "extender/decide/settings.h"
#include "extender/inventory/store.h"

struct handler_ctx {
	struct store *store;
	struct settings_holder *settings;
	/* > 0: the inventory is stale when the source has not heard from its
	 * origin for this long; then filter answers Error (fail closed) or, with
	 * fail_open, judges on the last data and says so in the reasons. */
	int64_t stale_after_ms;
	bool fail_open;
	/* Where decisions are recorded, or NULL. */
	struct decision_log *decisions;
	/* The assumed-pod ledger, or NULL (file inventory, or turned off). */
	struct ledger *ledger;
	/* Without a ledger: why, for the 404 of GET /ledger (NULL: a
	 * generic reason). */
	const char *ledger_off;
	/* The bind verb's API client; NULL: bind is off (404). */
	struct kube_binder *binder;
	/* Helpers that share a large request's judging, or NULL (alone).
	 * server_start makes one from `threads` when the caller gives none. */
	struct decide_pool *pool;
	/* The DRA inventory (dra.enabled), or NULL: no DRA verdicts, and
	 * every answer is what it is without DRA. */
	struct dra_store *dra;
	/* The bind verb's DRA vetoes, which filter applies; NULL: none. */
	struct dra_veto *veto;
	/* DRA devices of pods the pods watch saw bound before their claims'
	 * allocation arrived, taken for filter's and prioritize's
	 * predictions; NULL: none. */
	struct dra_assume *dra_assumed;
};

struct reply {
	int status;
	const char *content_type;
	char *body;                 /* malloc'd; the server frees it */
	size_t len;
};

/* POST filter: ExtenderArgs -> ExtenderFilterResult. Malformed JSON: 400;
 * anything else wrong: 200 with Error (kube-scheduler ignores non-200 bodies
 * and would only report the code). */
void handle_filter(const struct handler_ctx *h, const char *body, size_t len, struct reply *out);
/* POST prioritize: ExtenderArgs -> HostPriorityList (scores 0..10). Any
 * error is a 400 (the list has no error field; kube-scheduler ignores
 * prioritize failures). */
void handle_prioritize(const struct handler_ctx *h, const char *body, size_t len,
		       struct reply *out);

/* POST bind: ExtenderBindingArgs -> ExtenderBindingResult. Reads the pod,
 * checks its UID, records it in the ledger, creates the Binding (UID as
 * precondition); a failed Binding takes the ledger entry back. Malformed
 * JSON: 400; every other failure: 200 with Error, which makes kube-scheduler
 * forget the pod and retry it. (extender/http/handler_bind.c) */
void handle_bind(const struct handler_ctx *h, const char *body, size_t len, struct reply *out);

/* bind's DRA re-check (extender/http/handler_bind_dra.c), with the DRA
 * inventory and dra.alignment not off: reads the pod's claims (pod is its
 * API object) from the API server, as PreBind wrote their allocation,
 * publishes them into the DRA inventory and, under require, decides node
 * again on them. true: misaligned, why says how (the bind must fail). */
struct json_object;
bool bind_dra_recheck(const struct handler_ctx *h, struct json_object *pod,
		      const struct pod_spec *spec, const char *node, char *why, size_t size);

/* POST preempt: ExtenderPreemptionArgs -> ExtenderPreemptionResult
 * (NodeNameToMetaVictims). Each candidate node is decided on its inventory
 * plus what the given victims free on the zones they hold: kept as given,
 * kept with the fewest lower-priority victims added, or dropped (the
 * victim search: extender/decide/preempt.h). A body that does not decode:
 * 400 (the result has no error field). (extender/http/handler_preempt.c) */
void handle_preempt(const struct handler_ctx *h, const char *body, size_t len, struct reply *out);

/* A plain-text reply (status, "text/plain; charset=utf-8", text + "\n"). */
void reply_text(struct reply *out, int status, const char *text);

#endif
