/* SPDX-License-Identifier: Apache-2.0 */
/* The bind verb's DRA re-check. kube-scheduler runs PreBind before it asks
 * the extender to bind, and the DynamicResources plugin's PreBind writes
 * each claim's status.allocation: at bind time the real devices are in
 * the API server (our watch may not have them yet). The claims are read
 * with a GET, published into the DRA inventory at once (the next filters
 * see those devices as taken, as they will once the watch delivers the
 * same versions), and the node is decided again on them: under
 * dra.alignment: require a misaligned pod is not bound. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/decide.h"
#include "extender/http/handlers.h"
#include "extender/inventory/source_dra.h"
#include "extender/log.h"

/* The pod's claims from its API object; nclaims 0 when it has none or they
 * do not decode (the API server validated them: nothing to re-check). */
static void claims_of(struct json_object *pod, struct dra_pod_claims *out)
{
	struct doc *d = NULL;
	struct errmsg msg;

	memset(out, 0, sizeof *out);
	if (doc_from_json_kept(pod, dra_pod_claim_fields, &d, &msg) != ERR_OK ||
	    dra_pod_claims_decode(d, "pod", out, &msg) != ERR_OK)
		memset(out, 0, sizeof *out);
	doc_free(d);
}

/* GETs claim ns/name and publishes it; false (logged) when it cannot. */
static bool fetch_claim(const struct handler_ctx *h, const char *ns, const char *name)
{
	struct kube_answer a = { 0, NULL };
	struct json_object *o = NULL;
	struct errmsg msg;
	bool ok = false;

	msg.text[0] = '\0';
	kube_get_resource_claim(h->binder, ns, name, &a, &msg);
	if (a.status == 200 && (o = json_tokener_parse(a.body)) != NULL &&
	    source_dra_put_json(h->dra, DRA_KIND_CLAIM, o, &msg) == ERR_OK)
		ok = true;
	else
		log_warn("cannot read a pod's ResourceClaim at bind; no DRA re-check", "namespace=%s claim=%s status=%ld error=%s",
			 log_q(ns), log_q(name), a.status, log_q(msg.text));
	json_object_put(o);
	free(a.body);
	return ok;
}

/* The node decided again with the claims as they are now. */
static bool misaligned(const struct handler_ctx *h, const struct settings *st,
		       const struct pod_spec *spec, const struct dra_pod_claims *pc, const char *node,
		       char *why, size_t size)
{
	struct store_set *set = store_acquire(h->store);
	const struct store_node *sn = store_get(set, node);
	const struct dra_snapshot *snap;
	struct pod_demand *demand = NULL;
	struct dra_pod_input pin;
	struct decide_input in;
	struct decision d;
	struct errmsg msg;
	bool bad = false;

	if (sn == NULL || pod_demand_new(spec, &demand, &msg) != ERR_OK) {
		store_release(set);
		return false;
	}
	snap = dra_store_acquire(h->dra);
	memset(&pin, 0, sizeof pin);
	pin.snap = snap;
	pin.claims = pc;
	pin.namespace_ = spec->namespace_;
	pin.pod_name = spec->name;
	pin.order = st->dra_order == CONFIG_DRA_UNSORTED ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED;
	memset(&in, 0, sizeof in);
	in.demand = demand;
	in.settings = st;
	in.dra = dra_pod_new(&pin);
	decide(&in, sn->inventory, 0, &d);
	if (!d.passes && d.kubelet_reason == REASON_DRA_ALIGNMENT) {
		bad = true;
		snprintf(why, size, "%s", d.reason);
	}
	decision_cleanup(&d);
	dra_pod_free((struct dra_pod *)(uintptr_t)in.dra);
	dra_snapshot_release(snap);
	pod_demand_free(demand);
	store_release(set);
	return bad;
}

bool bind_dra_recheck(const struct handler_ctx *h, struct json_object *pod,
		      const struct pod_spec *spec, const char *node, char *why, size_t size)
{
	struct settings *st;
	struct dra_pod_claims pc;
	bool fetched = true, bad = false;
	size_t i;

	if (h->dra == NULL || h->binder == NULL)
		return false;
	st = settings_acquire(h->settings);
	claims_of(pod, &pc);
	for (i = 0; st->dra_alignment != CONFIG_DRA_OFF && i < pc.nclaims; i++)
		if (pc.claims[i].claim_name != NULL)
			fetched &= fetch_claim(h, spec->namespace_, pc.claims[i].claim_name);
	/* A claim that could not be read leaves the prediction standing:
	 * filter judged the node already. */
	if (fetched && pc.nclaims > 0 && st->dra_alignment == CONFIG_DRA_REQUIRE)
		bad = misaligned(h, st, spec, &pc, node, why, size);
	dra_pod_claims_cleanup(&pc);
	settings_unref(st);
	return bad;
}
