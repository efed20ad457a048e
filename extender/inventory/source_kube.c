/* SPDX-License-Identifier: Apache-2.0 */
/* The NodeResourceTopology owner of a reflector: objects become snapshots in
 * the store, a list replaces the whole set, each chunk of watch events is one
 * publish. */
#include "extender/inventory/source_kube.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/codec/object_json.h"
#include "extender/kube/from_config.h"
#include "extender/kube/reflector.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/codec/nrt_decode.h"
#include "base/xalloc.h"

struct source_kube {
	struct store *store;
	struct kube_reflector *reflector;
	char version[16];
	struct store_batch *batch;  /* the list or the chunk being received */
	char **names;               /* names a list has shown */
	size_t nnames;
};

static const char *const versions[] = { "v1alpha2", "v1alpha1" };

static const char *nrt_path(void *arg, int fallback)
{
	static const char *const paths[] = {
		"/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies",
		"/apis/topology.node.k8s.io/v1alpha1/noderesourcetopologies",
	};

	(void)arg;
	return fallback >= 0 && fallback < 2 ? paths[fallback] : NULL;
}

/* Decodes one object (json-c) into a snapshot. */
static struct inventory_node *decode_object(struct source_kube *k, struct json_object *o,
					    char *version, size_t vsize, char **raw)
{
	struct json_object *meta = NULL, *rv = NULL, *name = NULL;
	struct nrt_object obj;
	struct inventory_node *node = NULL;
	struct doc *d = NULL;
	struct errmsg msg;
	char apiversion[64];

	/* List items may leave out kind and apiVersion. */
	if (!json_object_object_get_ex(o, "kind", NULL))
		json_object_object_add(o, "kind", json_object_new_string("NodeResourceTopology"));
	if (!json_object_object_get_ex(o, "apiVersion", NULL)) {
		snprintf(apiversion, sizeof apiversion, "topology.node.k8s.io/%s", k->version);
		json_object_object_add(o, "apiVersion", json_object_new_string(apiversion));
	}
	json_object_object_get_ex(o, "metadata", &meta);
	json_object_object_get_ex(meta, "resourceVersion", &rv);
	json_object_object_get_ex(meta, "name", &name);
	snprintf(version, vsize, "%s", rv ? json_object_get_string(rv) : "");
	memset(&obj, 0, sizeof obj);
	if (doc_from_json(o, &d, &msg) != ERR_OK ||
	    nrt_decode_doc(d, "kubernetes", &obj, &msg) != ERR_OK ||
	    inventory_node_new(&obj, &node, &msg) != ERR_OK) {
		log_error("invalid NodeResourceTopology; the node keeps its last good inventory",
			  "node=%s error=%s", log_q(name ? json_object_get_string(name) : "?"),
			  log_q(msg.text));
		metrics_inventory_error();
		node = NULL;
	}
	*raw = node ? nrt_object_to_json(&obj) : NULL;
	nrt_object_cleanup(&obj);
	doc_free(d);
	return node;
}

static void publish(struct source_kube *k)
{
	uint64_t generation;
	struct store_set *set;
	struct store_batch *b = k->batch;

	k->batch = NULL;
	if (b == NULL)
		return;
	if (store_batch_size(b) == 0) {
		store_batch_free(b);
		return;
	}
	generation = store_publish(k->store, b);
	set = store_acquire(k->store);
	metrics_inventory(store_size(set), generation);
	metrics_inventory_reload();
	store_release(set);
}

static void put(struct source_kube *k, struct json_object *item)
{
	char version[64], *raw = NULL;
	struct inventory_node *node;

	/* The version the list settled on names the objects' apiVersion. */
	snprintf(k->version, sizeof k->version, "%s", versions[kube_reflector_fallback(k->reflector)]);
	node = decode_object(k, item, version, sizeof version, &raw);
	if (node) {
		if (k->batch == NULL)
			k->batch = store_batch_new();
		store_batch_put_raw(k->batch, node, "kubernetes", version, raw);
	}
}

static void list_begin(void *arg)
{
	struct source_kube *k = arg;

	store_batch_free(k->batch);
	k->batch = store_batch_new();
}

static void list_item(void *arg, struct json_object *item)
{
	struct source_kube *k = arg;
	struct json_object *m = NULL, *n = NULL;

	json_object_object_get_ex(item, "metadata", &m);
	if (!json_object_object_get_ex(m, "name", &n))
		return;
	k->names = xreallocarray(k->names, k->nnames + 1, sizeof *k->names);
	k->names[k->nnames++] = xstrdup(json_object_get_string(n));
	put(k, item);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void forget_names(struct source_kube *k)
{
	size_t i;

	for (i = 0; i < k->nnames; i++)
		free(k->names[i]);
	free(k->names);
	k->names = NULL;
	k->nnames = 0;
}

static void list_end(void *arg, bool complete)
{
	struct source_kube *k = arg;
	size_t i, listed = k->nnames;

	if (!complete) {
		store_batch_free(k->batch);
		k->batch = NULL;
		forget_names(k);
		return;
	}
	/* Nodes the API no longer lists go away. */
	if (k->nnames > 0)
		qsort(k->names, k->nnames, sizeof *k->names, by_name);
	{
		struct store_set *set = store_acquire(k->store);

		if (k->batch == NULL)
			k->batch = store_batch_new();
		for (i = 0; i < store_size(set); i++) {
			const char *have = store_at(set, i)->inventory->name;

			if (k->nnames == 0 ||
			    bsearch(&have, k->names, k->nnames, sizeof *k->names, by_name) == NULL)
				store_batch_delete(k->batch, have);
		}
		store_release(set);
	}
	publish(k);
	forget_names(k);
	snprintf(k->version, sizeof k->version, "%s", versions[kube_reflector_fallback(k->reflector)]);
	if (!store_ready(k->store))
		log_info("inventory listed from the Kubernetes API", "version=%s nodes=%zu", log_q(k->version),
			 listed);
	store_set_ready(k->store, true);
}

static void event(void *arg, const char *type, struct json_object *obj)
{
	struct source_kube *k = arg;

	if (strcmp(type, "DELETED") == 0) {
		struct json_object *meta = NULL, *name = NULL;

		json_object_object_get_ex(obj, "metadata", &meta);
		if (!json_object_object_get_ex(meta, "name", &name))
			return;
		if (k->batch == NULL)
			k->batch = store_batch_new();
		store_batch_delete(k->batch, json_object_get_string(name));
		return;
	}
	put(k, obj);
}

static void batch_end(void *arg)
{
	publish(arg);
}

static void contact(void *arg)
{
	struct source_kube *k = arg;

	store_touch(k->store);
}

static const struct kube_reflector_ops nrt_ops = {
	.kind = "NodeResourceTopology",
	.resource = NRT_RESOURCE,
	.field_selector = NULL,
	.path = nrt_path,
	.list_begin = list_begin,
	.list_item = list_item,
	.list_end = list_end,
	.event = event,
	.batch_end = batch_end,
	.contact = contact,
};

enum err source_kube_start(struct store *store, const struct config *cfg,
			   struct source_kube **out, struct errmsg *msg)
{
	struct source_kube *k = xcalloc(1, sizeof *k);
	enum err rc;

	*out = NULL;
	k->store = store;
	rc = kube_reflector_start_for(cfg, &nrt_ops, k, &k->reflector, msg);
	if (rc != ERR_OK) {
		free(k);
		return rc;
	}
	log_info("watching NodeResourceTopology objects", "server=%s",
		 log_q(kube_reflector_server(k->reflector)));
	*out = k;
	return ERR_OK;
}

struct source_kube *source_kube_detached(struct store *store)
{
	struct source_kube *k = xcalloc(1, sizeof *k);

	k->store = store;
	return k;
}

bool source_kube_feed(struct source_kube *k, const char *data, size_t len, size_t chunk)
{
	return kube_reflector_feed(&nrt_ops, k, 1 << 20, data, len, chunk);
}

void source_kube_stop(struct source_kube *k)
{
	if (k == NULL)
		return;
	kube_reflector_stop(k->reflector);
	store_batch_free(k->batch);
	forget_names(k);
	free(k);
}

const char *source_kube_version(struct source_kube *k)
{
	return k->reflector && kube_reflector_listed(k->reflector) ? versions[kube_reflector_fallback(k->reflector)]
						   : NULL;
}
