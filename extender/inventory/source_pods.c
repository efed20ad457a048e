/* SPDX-License-Identifier: Apache-2.0 */
/* strptime and timegm */
#define _GNU_SOURCE
#include "extender/inventory/source_pods.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extender/codec/doc.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/dra_assume.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog.h"
#include "extender/inventory/dra_store.h"
#include "extender/inventory/store.h"
#include "extender/metrics.h"
#include "extender/kube/from_config.h"
#include "extender/kube/reflector.h"
#include "extender/log.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"
#include "extender/codec/pod_decode.h"
#include "base/xalloc.h"

struct source_pods {
	struct ledger *ledger;
	struct kube_reflector *reflector;
	/* Failed pods: a pod the kubelet turns away leaves the main watch's
	 * selector, which then sends the pod's *previous* state as DELETED
	 * (as kube-apiserver's watch cache does); this watch sees it enter
	 * phase Failed, with status.reason. */
	struct kube_reflector *failed;
	/* A complete list of Failed pods has been applied: rejections listed
	 * after it (a relist) are news, those of the first list are not. */
	bool failed_listed;
	struct decision_log *_Atomic decisions;
	/* source_pods_set_dra: assumed is stored last and read first, so
	 * whoever sees it sees the other two. */
	struct dra_assume *_Atomic dra_assumed;
	struct dra_store *_Atomic dra;
	struct settings_holder *_Atomic dra_settings;
};

void source_pods_set_dra(struct source_pods *s, struct dra_assume *assumed, struct dra_store *dra,
			 struct settings_holder *settings)
{
	if (s == NULL)
		return;
	s->dra = dra;
	s->dra_settings = settings;
	s->dra_assumed = assumed;
}

void source_pods_set_decision_log(struct source_pods *s, struct decision_log *log)
{
	if (s)
		s->decisions = log;
}

static const char *pods_path(void *arg, int fallback)
{
	(void)arg;
	return fallback == 0 ? "/api/v1/pods" : NULL;
}

static const char *str_at(struct json_object *o, const char *a, const char *b)
{
	struct json_object *x = NULL, *y = NULL;

	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (b == NULL)
		return json_object_is_type(x, json_type_string) ? json_object_get_string(x) : NULL;
	if (!json_object_object_get_ex(x, b, &y) || !json_object_is_type(y, json_type_string))
		return NULL;
	return json_object_get_string(y);
}

int64_t rfc3339_ms(const char *text)
{
	struct tm tm;
	const char *rest;
	int64_t ms = 0, offset = 0;

	if (text == NULL)
		return 0;
	memset(&tm, 0, sizeof tm);
	rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (rest == NULL)
		return 0;
	if (*rest == '.') {
		int digits = 0;

		for (rest++; *rest >= '0' && *rest <= '9'; rest++, digits++)
			if (digits < 3)
				ms = ms * 10 + (*rest - '0');
		for (; digits < 3; digits++)
			ms *= 10;
	}
	if (*rest == '+' || *rest == '-') {
		int h = 0, m = 0;

		if (sscanf(rest + 1, "%2d:%2d", &h, &m) != 2)
			return 0;
		offset = (int64_t)(h * 60 + m) * 60000 * (*rest == '+' ? 1 : -1);
	} else if (*rest != 'Z' && *rest != 'z') {
		return 0;
	}
	return (int64_t)timegm(&tm) * 1000 + ms - offset;
}

/* When the pod was bound: the PodScheduled condition, else its creation. */
static int64_t scheduled_ms(struct json_object *o)
{
	struct json_object *status = NULL, *conds = NULL;
	size_t i;

	if (json_object_object_get_ex(o, "status", &status) &&
	    json_object_object_get_ex(status, "conditions", &conds) &&
	    json_object_is_type(conds, json_type_array)) {
		for (i = 0; i < json_object_array_length(conds); i++) {
			struct json_object *c = json_object_array_get_idx(conds, i);
			const char *type = str_at(c, "type", NULL), *status_ = str_at(c, "status", NULL);

			if (type && strcmp(type, "PodScheduled") == 0 && status_ &&
			    strcmp(status_, "True") == 0)
				return rfc3339_ms(str_at(c, "lastTransitionTime", NULL));
		}
	}
	return rfc3339_ms(str_at(o, "metadata", "creationTimestamp"));
}

/* spec.priority (an int32 the admission plugin sets); 0 when absent. */
static int64_t priority_of(struct json_object *o)
{
	struct json_object *spec = NULL, *v = NULL;
	int64_t p;

	if (!json_object_object_get_ex(o, "spec", &spec) ||
	    !json_object_object_get_ex(spec, "priority", &v) || !json_object_is_type(v, json_type_int))
		return 0;
	p = json_object_get_int64(v);
	return p < INT32_MIN ? INT32_MIN : p > INT32_MAX ? INT32_MAX : p;
}

bool pod_info_from_json(struct json_object *o, struct ledger_pod_info *info, struct pod_spec *spec)
{
	const char *phase = str_at(o, "status", "phase");
	struct errmsg msg;

	memset(info, 0, sizeof *info);
	memset(spec, 0, sizeof *spec);
	info->uid = str_at(o, "metadata", "uid");
	if (info->uid == NULL || str_at(o, "metadata", "name") == NULL)
		return false;
	info->node = str_at(o, "spec", "nodeName");
	info->terminal = phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0);
	info->running = phase && strcmp(phase, "Running") == 0;
	info->priority = priority_of(o);
	info->scheduled_ms = scheduled_ms(o);
	info->spec = spec;
	if (pod_decode_json(o, "pod watch", spec, &msg) != ERR_OK) {
		const char *ns = str_at(o, "metadata", "namespace");


		log_warn("pod resources do not decode; it counts in fingerprints only",
			 "namespace=%s pod=%s error=%s", log_q(ns ? ns : "default"),
			 log_q(str_at(o, "metadata", "name")), log_q(msg.text));
		pod_spec_cleanup(spec);
		memset(spec, 0, sizeof *spec);
		spec->namespace_ = xstrdup(ns ? ns : "default");
		spec->name = xstrdup(str_at(o, "metadata", "name"));
	}
	return true;
}

/* Whether spec.resourceClaims has entries: most pods have none, and are
 * not decoded again for it. */
static bool has_claims(struct json_object *o)
{
	struct json_object *spec = NULL, *rc = NULL;

	return json_object_object_get_ex(o, "spec", &spec) &&
	       json_object_object_get_ex(spec, "resourceClaims", &rc) &&
	       json_object_is_type(rc, json_type_array) && json_object_array_length(rc) > 0;
}

/* A bound pod's DRA devices held until its claims' allocation arrives
 * (source_pods_set_dra). */
static void dra_bound(struct source_pods *s, struct json_object *o,
		      const struct ledger_pod_info *info)
{
	struct dra_assume *assumed = s->dra_assumed;
	struct settings *st;
	struct dra_pod_claims pc;
	struct doc *d = NULL;
	struct errmsg msg;
	int64_t now, at;

	if (assumed == NULL)
		return;
	if (info->terminal) {
		dra_assume_forget(assumed, info->uid);
		return;
	}
	if (info->node == NULL || info->node[0] == '\0' || info->spec == NULL || !has_claims(o))
		return;
	st = settings_acquire(s->dra_settings);
	memset(&pc, 0, sizeof pc);
	if (st->dra_alignment != CONFIG_DRA_OFF &&
	    doc_from_json_kept(o, dra_pod_claim_fields, &d, &msg) == ERR_OK &&
	    dra_pod_claims_decode(d, "pod watch", &pc, &msg) == ERR_OK && pc.nclaims > 0) {
		const struct dra_snapshot *snap = dra_store_acquire(s->dra);

		/* Held from the binding on: a pod bound longer than assumeTTL
		 * ago is not held (its claims' allocation is overdue). */
		now = store_now_ms();
		at = info->scheduled_ms > 0 && info->scheduled_ms <= now ? info->scheduled_ms : now;
		dra_assume_pod(assumed, snap, info->uid, info->spec->namespace_, info->spec->name,
			       info->node, &pc, at,
			       st->dra_order == CONFIG_DRA_UNSORTED ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED);
		dra_snapshot_release(snap);
	}
	dra_pod_claims_cleanup(&pc);
	doc_free(d);
	settings_unref(st);
}

static void dra_gone(struct source_pods *s, const char *uid)
{
	struct dra_assume *assumed = s->dra_assumed;

	if (assumed != NULL)
		dra_assume_forget(assumed, uid);
}

static void list_begin(void *arg)
{
	struct source_pods *s = arg;

	ledger_list_begin(s->ledger);
}

static void list_item(void *arg, struct json_object *item)
{
	struct source_pods *s = arg;
	struct ledger_pod_info info;
	struct pod_spec spec;

	/* DRA first: once the ledger counts the pod, its devices are held. */
	if (pod_info_from_json(item, &info, &spec)) {
		dra_bound(s, item, &info);
		ledger_list_pod(s->ledger, &info);
	}
	pod_spec_cleanup(&spec);
}

static void list_end(void *arg, bool complete)
{
	struct source_pods *s = arg;

	ledger_list_end(s->ledger, complete);
}

/* Why the kubelet's admission turned the pod away (a Failed pod's
 * status.reason); KUBELET_REJECTION_COUNT when it did not. */
static enum kubelet_rejection admission_rejection(struct json_object *o)
{
	const char *phase = str_at(o, "status", "phase"), *reason = str_at(o, "status", "reason");

	if (phase == NULL || strcmp(phase, "Failed") != 0 || reason == NULL)
		return KUBELET_REJECTION_COUNT;
	return kubelet_rejection_of(reason);
}

static void kubelet_rejected(struct source_pods *s, const struct ledger_pod_info *info,
			     enum kubelet_rejection why)
{
	const char *reason = kubelet_rejection_name(why);
	struct ledger_pod_view v;
	const char *node = info->node && info->node[0] ? info->node : "";
	const char *decided;
	struct decision_log *log;
	char numa[200] = "";
	struct textbuf t;
	size_t at = 0;
	int b;

	if (!ledger_kubelet_rejected(s->ledger, info->uid, &v))
		return; /* reported already */
	if (node[0] == '\0' && v.node)
		node = v.node;
	decided = ledger_decided_name(v.decided);
	for (b = 0; b < 64 && at < sizeof numa - 8; b++)
		if ((v.numa_ids >> b) & 1)
			at += (size_t)snprintf(numa + at, sizeof numa - at, "%s%d", at ? "," : "", b);
	metrics_kubelet_rejection(why, v.decided);
	if (v.decided == LEDGER_DECIDED_PASS)
		log_warn("the kubelet rejected a pod we passed", "namespace=%s pod=%s node=%s reason=%s decided=pass version=%s predicted_numa=%s",
			 log_q(info->spec->namespace_), log_q(info->spec->name), log_q(node), reason,
			 log_q(v.decided_version ? v.decided_version : ""), log_q(numa));
	else
		log_info("the kubelet rejected a pod", "namespace=%s pod=%s node=%s reason=%s decided=%s%s",
			 log_q(info->spec->namespace_), log_q(info->spec->name), log_q(node), reason, decided,
			 v.decided == LEDGER_DECIDED_UNKNOWN ? " (not through us)" : "");
	log = s->decisions;
	if (log) {
		char podname[600];

		snprintf(podname, sizeof podname, "%s/%s", info->spec->namespace_ ? info->spec->namespace_ : "default",
			 info->spec->name ? info->spec->name : "");
		textbuf_init(&t, (size_t)1 << 20);
		textbuf_adds(&t, "{\"pod\":");
		textbuf_json_cstr(&t, podname);
		textbuf_adds(&t, ",\"uid\":");
		textbuf_json_cstr(&t, info->uid);
		textbuf_adds(&t, ",\"node\":");
		textbuf_json_cstr(&t, node);
		textbuf_adds(&t, ",\"reason\":");
		textbuf_json_cstr(&t, reason);
		textbuf_adds(&t, ",\"decided\":");
		textbuf_json_cstr(&t, decided);
		textbuf_adds(&t, ",\"version\":");
		textbuf_json_cstr(&t, v.decided_version ? v.decided_version : "");
		textbuf_printf(&t, ",\"numaNodes\":[%s]}", numa);
		if (!textbuf_failed(&t))
			decision_log_event(log, "kubeletRejection", textbuf_str(&t));
		textbuf_free(&t);
	}
	ledger_pod_view_cleanup(&v);
}

static void event(void *arg, const char *type, struct json_object *obj)
{
	struct source_pods *s = arg;
	struct ledger_pod_info info;
	struct pod_spec spec;
	enum kubelet_rejection rejected;

	if (!pod_info_from_json(obj, &info, &spec)) {
		pod_spec_cleanup(&spec);
		return;
	}
	rejected = admission_rejection(obj);
	if (rejected != KUBELET_REJECTION_COUNT)
		kubelet_rejected(s, &info, rejected);
	if (strcmp(type, "DELETED") == 0) {
		dra_gone(s, info.uid);
		ledger_pod_deleted(s->ledger, info.uid);
	} else {
		dra_bound(s, obj, &info);
		ledger_pod_changed(s->ledger, &info);
	}
	pod_spec_cleanup(&spec);
}

static void batch_end(void *arg)
{
	(void)arg; /* every event is applied as it comes */
}

static const struct kube_reflector_ops pod_ops = {
	.kind = "Pod",
	.resource = "pods",
	/* spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed */
	.field_selector = "spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
	.path = pods_path,
	.list_begin = list_begin,
	.list_item = list_item,
	.list_end = list_end,
	.event = event,
	.batch_end = batch_end,
	.contact = NULL,
};

static void failed_list_begin(void *arg)
{
	(void)arg;
}

/* Pods that failed before we first looked are not news: remembered so that
 * their later updates are not reported either. A relist (the watch expired)
 * may hold rejections that happened meanwhile: those are reported, once. */
static void failed_list_item(void *arg, struct json_object *item)
{
	struct source_pods *s = arg;
	struct ledger_pod_info info;
	struct pod_spec spec;
	enum kubelet_rejection rejected = admission_rejection(item);

	const char *uid = str_at(item, "metadata", "uid");

	if (rejected == KUBELET_REJECTION_COUNT || uid == NULL)
		return;
	if (!s->failed_listed) {
		ledger_kubelet_rejection_known(s->ledger, uid);
		return;
	}
	if (pod_info_from_json(item, &info, &spec))
		kubelet_rejected(s, &info, rejected);
	pod_spec_cleanup(&spec);
}

static void failed_list_end(void *arg, bool complete)
{
	struct source_pods *s = arg;

	if (complete)
		s->failed_listed = true;
}

static void failed_event(void *arg, const char *type, struct json_object *obj)
{
	struct source_pods *s = arg;
	struct ledger_pod_info info;
	struct pod_spec spec;
	enum kubelet_rejection rejected = admission_rejection(obj);
	const char *uid = str_at(obj, "metadata", "uid");

	if (uid && strcmp(type, "DELETED") == 0) {
		ledger_kubelet_rejection_deleted(s->ledger, uid);
		return;
	}
	if (rejected != KUBELET_REJECTION_COUNT && pod_info_from_json(obj, &info, &spec)) {
		kubelet_rejected(s, &info, rejected);
		pod_spec_cleanup(&spec);
	}
}

static const struct kube_reflector_ops failed_ops = {
	.kind = "Pod",
	.resource = "pods",
	/* status.phase=Failed */
	.field_selector = "status.phase%3DFailed",
	.path = pods_path,
	.list_begin = failed_list_begin,
	.list_item = failed_list_item,
	.list_end = failed_list_end,
	.event = failed_event,
	.batch_end = batch_end,
	.contact = NULL,
};

enum err source_pods_start(struct ledger *ledger, const struct config *cfg,
			   struct source_pods **out, struct errmsg *msg)
{
	struct source_pods *s = xcalloc(1, sizeof *s);
	enum err rc;

	*out = NULL;
	s->ledger = ledger;
	rc = kube_reflector_start_for(cfg, &pod_ops, s, &s->reflector, msg);
	if (rc != ERR_OK) {
		free(s);
		return rc;
	}
	rc = kube_reflector_start_for(cfg, &failed_ops, s, &s->failed, msg);
	if (rc != ERR_OK) {
		kube_reflector_stop(s->reflector);
		free(s);
		return rc;
	}
	*out = s;
	return ERR_OK;
}

struct source_pods *source_pods_detached(struct ledger *ledger)
{
	struct source_pods *s = xcalloc(1, sizeof *s);

	s->ledger = ledger;
	return s;
}

bool source_pods_feed(struct source_pods *s, const char *data, size_t len, size_t chunk)
{
	return kube_reflector_feed(&pod_ops, s, 1 << 20, data, len, chunk);
}

bool source_pods_feed_failed(struct source_pods *s, const char *data, size_t len, size_t chunk)
{
	return kube_reflector_feed(&failed_ops, s, 1 << 20, data, len, chunk);
}

void source_pods_stop(struct source_pods *s)
{
	if (s == NULL)
		return;
	kube_reflector_stop(s->failed);
	kube_reflector_stop(s->reflector);
	free(s);
}
