/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA objects from the API server: one kube_reflector per kind, each
 * with its own batch. A list replaces its kind (objects it names but that
 * do not decode keep their last good version), each chunk of watch events
 * is one publish. The four threads publish to the one store, which orders
 * them. */
#include "extender/inventory/source_dra.h"

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/doc.h"
#include "extender/kube/from_config.h"
#include "extender/kube/reflector.h"
#include "extender/log.h"

static const char *const paths[DRA_KIND_COUNT] = {
	"/apis/resource.k8s.io/v1/resourceslices",
	"/apis/resource.k8s.io/v1/deviceclasses",
	"/apis/resource.k8s.io/v1/resourceclaims",
	"/apis/resource.k8s.io/v1/resourceclaimtemplates",
};

struct source_dra;

/* One kind's watch. */
struct dra_watch {
	struct source_dra *src;
	enum dra_kind kind;
	struct kube_reflector *reflector;
	struct dra_batch *batch;     /* the list or the chunk being received */
	bool listed;
};

struct source_dra {
	struct dra_store *store;
	struct dra_watch w[DRA_KIND_COUNT];
	_Atomic int listed;          /* kinds with a complete list applied */
};

static const char *dra_path(void *arg, int fallback)
{
	const struct dra_watch *w = arg;

	return fallback == 0 ? paths[w->kind] : NULL;
}

static const char *str_at(struct json_object *o, const char *key)
{
	struct json_object *meta = NULL, *v = NULL;

	json_object_object_get_ex(o, "metadata", &meta);
	if (!json_object_object_get_ex(meta, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct dra_batch *batch_of(struct dra_watch *w)
{
	if (w->batch == NULL)
		w->batch = dra_batch_new();
	return w->batch;
}

/* Decodes object o of kind into b as the API server's (its
 * resourceVersion, origin "kubernetes"). */
static enum err decode_into(struct dra_batch *b, enum dra_kind kind, struct json_object *o,
			    struct errmsg *msg)
{
	const char *rv = str_at(o, "resourceVersion");
	char origin[128];
	struct doc *d = NULL;
	enum err rc;

	snprintf(origin, sizeof origin, "kubernetes (%s)", dra_kind_name(kind));
	rc = doc_from_json(o, &d, msg);
	if (rc == ERR_OK && kind == DRA_KIND_SLICE) {
		struct dra_slice s;

		if ((rc = dra_slice_decode_doc(d, origin, &s, msg)) == ERR_OK)
			dra_batch_put_slice(b, &s, rv, "kubernetes");
	} else if (rc == ERR_OK && kind == DRA_KIND_CLASS) {
		struct dra_class c;

		if ((rc = dra_class_decode_doc(d, origin, &c, msg)) == ERR_OK)
			dra_batch_put_class(b, &c, rv, "kubernetes");
	} else if (rc == ERR_OK) {
		struct dra_claim c;

		rc = kind == DRA_KIND_CLAIM ? dra_claim_decode_doc(d, origin, &c, msg)
					    : dra_template_decode_doc(d, origin, &c, msg);
		if (rc == ERR_OK)
			dra_batch_put_claim(b, &c, rv, "kubernetes");
	}
	doc_free(d);
	return rc;
}

/* text as a resourceVersion: digits only, no overflow. */
static bool version_number(const char *text, uint64_t *out)
{
	uint64_t v = 0;

	if (text == NULL || *text == '\0')
		return false;
	for (; *text; text++) {
		if (*text < '0' || *text > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*text - '0');
	}
	*out = v;
	return true;
}

/* Whether claim ns/name at resourceVersion rv is older than the one the
 * store holds: the bind verb publishes a claim as PreBind wrote it, and a
 * watch that lags may deliver an earlier version after that. Like
 * kube-scheduler's assume cache, a version older than the one held is
 * ignored (versions compared as numbers, where both are). */
static bool older_than_held(struct dra_store *store, const char *ns, const char *name, const char *rv)
{
	const struct dra_snapshot *snap;
	const struct dra_claim *held;
	uint64_t have, got;
	bool older = false;

	if (ns == NULL || name == NULL || !version_number(rv, &got))
		return false;
	snap = dra_store_acquire(store);
	held = dra_snapshot_claim(snap, ns, name);
	if (held != NULL && strcmp(dra_object_origin(held), "kubernetes") == 0 &&
	    version_number(dra_object_version(held), &have) && got < have)
		older = true;
	dra_snapshot_release(snap);
	return older;
}

/* Decodes one object into the batch; false when it does not decode
 * (logged, counted) or is a claim older than the one held (logged at
 * debug): either way the store keeps what it has. */
static bool put(struct dra_watch *w, struct json_object *o)
{
	const char *name = str_at(o, "name"), *ns = str_at(o, "namespace");
	struct errmsg msg;

	if (w->kind == DRA_KIND_CLAIM && older_than_held(w->src->store, ns, name, str_at(o, "resourceVersion"))) {
		log_debug("DRA claim older than the one held; ignored", "namespace=%s name=%s resource_version=%s",
			  log_q(ns), log_q(name), log_q(str_at(o, "resourceVersion")));
		return false;
	}
	if (decode_into(batch_of(w), w->kind, o, &msg) == ERR_OK)
		return true;
	log_error("invalid DRA object; it keeps its last good version", "kind=%s namespace=%s name=%s error=%s",
		  dra_kind_name(w->kind), log_q(ns ? ns : ""), log_q(name ? name : "?"), log_q(msg.text));
	dra_store_count_error(w->src->store);
	return false;
}

enum err source_dra_put_json(struct dra_store *store, enum dra_kind kind, struct json_object *o,
			     struct errmsg *msg)
{
	struct dra_batch *b = dra_batch_new();
	enum err rc = decode_into(b, kind, o, msg);

	if (rc == ERR_OK)
		dra_store_publish(store, b);
	else
		dra_batch_free(b);
	return rc;
}

static void publish(struct dra_watch *w)
{
	struct dra_batch *b = w->batch;

	w->batch = NULL;
	if (b == NULL)
		return;
	if (dra_batch_size(b) == 0) {
		dra_batch_free(b);
		return;
	}
	dra_store_publish(w->src->store, b);
}

static void list_begin(void *arg)
{
	struct dra_watch *w = arg;

	dra_batch_free(w->batch);
	w->batch = dra_batch_new();
	dra_batch_replace(w->batch, w->kind);
}

static void list_item(void *arg, struct json_object *item)
{
	struct dra_watch *w = arg;
	const char *name = str_at(item, "name");

	if (!put(w, item) && name != NULL)
		dra_batch_keep(w->batch, w->kind, str_at(item, "namespace"), name);
}

static void list_end(void *arg, bool complete)
{
	struct dra_watch *w = arg;
	struct dra_store_stats st;

	if (!complete) {
		dra_batch_free(w->batch);
		w->batch = NULL;
		return;
	}
	publish(w);
	if (w->listed)
		return;
	w->listed = true;
	dra_store_stats(w->src->store, &st);
	log_info("DRA objects listed from the Kubernetes API", "kind=%s objects=%zu",
		 dra_kind_name(w->kind), st.objects[w->kind]);
	if (atomic_fetch_add(&w->src->listed, 1) + 1 == DRA_KIND_COUNT)
		dra_store_set_ready(w->src->store, true);
}

static void event(void *arg, const char *type, struct json_object *obj)
{
	struct dra_watch *w = arg;
	const char *name = str_at(obj, "name");

	if (strcmp(type, "DELETED") != 0) {
		put(w, obj);
		return;
	}
	if (name != NULL)
		dra_batch_delete(batch_of(w), w->kind, str_at(obj, "namespace"), name);
}

static void batch_end(void *arg)
{
	publish(arg);
}

static const struct kube_reflector_ops ops[DRA_KIND_COUNT] = {
#define OPS(k, kind_name, resource_name)                                                       \
	[k] = { .kind = kind_name, .resource = resource_name "." DRA_GROUP, .field_selector = NULL, \
		.path = dra_path,                                                                 \
		.list_begin = list_begin, .list_item = list_item, .list_end = list_end,           \
		.event = event, .batch_end = batch_end, .contact = NULL }
	OPS(DRA_KIND_SLICE, "ResourceSlice", "resourceslices"),
	OPS(DRA_KIND_CLASS, "DeviceClass", "deviceclasses"),
	OPS(DRA_KIND_CLAIM, "ResourceClaim", "resourceclaims"),
	OPS(DRA_KIND_TEMPLATE, "ResourceClaimTemplate", "resourceclaimtemplates"),
#undef OPS
};

static struct source_dra *source_new(struct dra_store *store)
{
	struct source_dra *s = xcalloc(1, sizeof *s);
	int k;

	s->store = store;
	atomic_init(&s->listed, 0);
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		s->w[k].src = s;
		s->w[k].kind = (enum dra_kind)k;
	}
	return s;
}

enum err source_dra_start(struct dra_store *store, const struct config *cfg,
			  struct source_dra **out, struct errmsg *msg)
{
	struct source_dra *s = source_new(store);
	int k;

	*out = NULL;
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		enum err rc = kube_reflector_start_for(cfg, &ops[k], &s->w[k], &s->w[k].reflector, msg);

		if (rc != ERR_OK) {
			source_dra_stop(s);
			return rc;
		}
	}
	log_info("watching DRA objects", "server=%s group=" DRA_GROUP "/v1",
		 log_q(kube_reflector_server(s->w[0].reflector)));
	*out = s;
	return ERR_OK;
}

struct source_dra *source_dra_detached(struct dra_store *store)
{
	return source_new(store);
}

bool source_dra_feed(struct source_dra *s, enum dra_kind kind, const char *data, size_t len,
		     size_t chunk)
{
	return kube_reflector_feed(&ops[kind], &s->w[kind], 1 << 20, data, len, chunk);
}

void source_dra_stop(struct source_dra *s)
{
	int k;

	if (s == NULL)
		return;
	/* All four at once: each takes up to a second to notice. */
	for (k = 0; k < DRA_KIND_COUNT; k++)
		kube_reflector_signal_stop(s->w[k].reflector);
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		kube_reflector_stop(s->w[k].reflector);
		dra_batch_free(s->w[k].batch);
	}
	free(s);
}
