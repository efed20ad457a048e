/* SPDX-License-Identifier: Apache-2.0 */
/* The bind verb. The ledger learns the pod before the Binding exists, so a
 * filter for the next pod, which kube-scheduler may send while this bind is
 * still in flight, already sees the zones this pod will take. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/http/handlers.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/inventory/source_pods.h"
#include "extender/codec/wire.h"
#include "base/xalloc.h"

static void answer(struct reply *out, int status, const char *error)
{
	out->status = status;
	out->content_type = "application/json";
	out->body = wire_encode_binding_result(error, &out->len);
}

/* The message of a Status body, else the status code. */
static void api_error(const struct kube_answer *a, const struct errmsg *msg, char *buf, size_t size)
{
	struct json_object *o = a->status > 0 ? json_tokener_parse(a->body) : NULL, *m = NULL;

	if (a->status < 0)
		snprintf(buf, size, "API server unreachable: %s", msg->text);
	else if (o && json_object_object_get_ex(o, "message", &m))
		snprintf(buf, size, "API server answered %ld: %s", a->status, json_object_get_string(m));
	else
		snprintf(buf, size, "API server answered %ld", a->status);
	json_object_put(o);
}

static void fail(struct reply *out, const struct wire_binding *b, const char *error)
{

	log_warn("bind failed", "namespace=%s pod=%s node=%s error=%s", log_q(b->pod_namespace),
		 log_q(b->pod_name), log_q(b->node), log_q(error));
	metrics_bind(false);
	answer(out, 200, error);
}

void handle_bind(const struct handler_ctx *h, const char *body, size_t len, struct reply *out)
{
	struct wire_binding b;
	struct kube_answer a = { 0, NULL };
	struct errmsg msg;
	struct json_object *pod = NULL;
	struct ledger_pod_info info;
	struct pod_spec spec;
	char error[700];
	bool added = false;
	enum err rc;

	memset(&spec, 0, sizeof spec);
	rc = wire_decode_binding(body, len, &b, &msg);
	if (rc != ERR_OK) {
		metrics_bind(false);
		answer(out, rc == ERR_PARSE ? 400 : 200, msg.text);
		return;
	}
	kube_get_pod(h->binder, b.pod_namespace, b.pod_name, &a, &msg);
	if (a.status != 200) {
		api_error(&a, &msg, error, sizeof error);
		fail(out, &b, error);
		goto out;
	}
	pod = json_tokener_parse(a.body);
	if (pod == NULL || !pod_info_from_json(pod, &info, &spec)) {
		fail(out, &b, "the API server's pod has no metadata.uid or name");
		goto out;
	}
	if (b.pod_uid[0] && strcmp(info.uid, b.pod_uid) != 0) {
		snprintf(error, sizeof error, "pod %s/%s has UID %s, not %s: it was deleted and created again",
			 b.pod_namespace, b.pod_name, info.uid, b.pod_uid);
		fail(out, &b, error);
		goto out;
	}
	if (info.node && info.node[0]) {
		snprintf(error, sizeof error, "pod %s/%s is already bound to node %s", b.pod_namespace,
			 b.pod_name, info.node);
		fail(out, &b, error);
		goto out;
	}
	{
		char why[DRA_VETO_REASON_MAX] = "";

		if (bind_dra_recheck(h, pod, &spec, b.node, why, sizeof why)) {
			/* kube-scheduler schedules the pod again: its next
			 * filter must not send it back here. */
			if (h->veto)
				dra_veto_add(h->veto, info.uid, b.node, why, store_now_ms());
			snprintf(error, sizeof error,
				 "node %s: the DRA devices allocated to pod %s/%s are not on the NUMA "
				 "nodes of its CPUs: %s",
				 b.node, b.pod_namespace, b.pod_name, why);
			fail(out, &b, error);
			goto out;
		}
	}
	if (h->ledger) {
		char why[320] = "";

		switch (ledger_bind(h->ledger, &spec, info.uid, b.node, why, sizeof why)) {
		case LEDGER_BIND_ADDED:
			added = true;
			break;
		case LEDGER_BIND_KNOWN:
			break;
		case LEDGER_BIND_NO_FIT:
			/* kube-scheduler forgets the pod and schedules it
			 * again, against the ledger as it is now. */
			snprintf(error, sizeof error,
				 "node %s no longer fits pod %s/%s after pods assumed since its filter: %s",
				 b.node, b.pod_namespace, b.pod_name, why);
			fail(out, &b, error);
			goto out;
		}
	}
	free(a.body);
	kube_create_binding(h->binder, b.pod_namespace, b.pod_name, info.uid, b.node, &a, &msg);
	if (a.status != 201 && a.status != 200) {
		if (added)
			ledger_bind_failed(h->ledger, info.uid);
		api_error(&a, &msg, error, sizeof error);
		fail(out, &b, error);
		goto out;
	}
	log_info("bound", "namespace=%s pod=%s uid=%s node=%s", log_q(b.pod_namespace), log_q(b.pod_name),
		 log_q(info.uid), log_q(b.node));
	metrics_bind(true);
	answer(out, 200, "");
out:
	json_object_put(pod);
	pod_spec_cleanup(&spec);
	free(a.body);
	wire_binding_cleanup(&b);
}
