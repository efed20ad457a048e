/* SPDX-License-Identifier: Apache-2.0 */
/* replay's DRA side (replay_dra.h). Objects are kept as their JSON trees
 * and decoded again for each decision that reads them: a store takes over
 * the objects put in it, and a decision's store is its own. */
#include "extender/cmd/replay_dra.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/xalloc.h"
#include "extender/codec/doc.h"
#include "extender/codec/dra_decode.h"

struct kept_object {
	char *key;                  /* "<Kind> <ns>/<name> <version>" */
	char *name_key;             /* "<Kind> <ns>/<name>" */
	enum dra_kind kind;
	char *ns, *name;            /* ns NULL for slices and classes */
	char *version;
	struct json_object *object; /* referenced */
};

struct kept_node {
	char *key;                  /* its id */
	char **slices;              /* keys of kept objects */
	size_t nslices;
	char **allocated;           /* driver, pool, device: 3 per device */
	size_t nallocated;
};

struct replay_dra {
	struct kept_object **objects;
	size_t nobjects;
	struct strmap by_key;
	struct kept_node **nodes;
	size_t nnodes;
	struct strmap node_by_key;
	/* One store for every decision: each publishes the objects it reads
	 * as complete lists, so only those that differ from the previous
	 * decision's are decoded again. current: name_key -> the kept object
	 * the store holds. */
	struct dra_store *store;
	struct strmap current;
};

struct replay_dra *replay_dra_new(void)
{
	return xcalloc(1, sizeof(struct replay_dra));
}

static void node_free(struct kept_node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nslices; i++)
		free(n->slices[i]);
	free(n->slices);
	for (i = 0; i < 3 * n->nallocated; i++)
		free(n->allocated[i]);
	free(n->allocated);
	free(n->key);
	free(n);
}

void replay_dra_free(struct replay_dra *rd)
{
	size_t i;

	if (rd == NULL)
		return;
	strmap_clear(&rd->by_key);
	strmap_clear(&rd->node_by_key);
	strmap_clear(&rd->current);
	dra_store_free(rd->store);
	for (i = 0; i < rd->nobjects; i++) {
		free(rd->objects[i]->key);
		free(rd->objects[i]->name_key);
		free(rd->objects[i]->ns);
		free(rd->objects[i]->name);
		free(rd->objects[i]->version);
		json_object_put(rd->objects[i]->object);
		free(rd->objects[i]);
	}
	free(rd->objects);
	for (i = 0; i < rd->nnodes; i++)
		node_free(rd->nodes[i]);
	free(rd->nodes);
	free(rd);
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool kind_of(const char *name, enum dra_kind *out)
{
	int k;

	for (k = 0; name != NULL && k < DRA_KIND_COUNT; k++)
		if (strcmp(dra_kind_name((enum dra_kind)k), name) == 0) {
			*out = (enum dra_kind)k;
			return true;
		}
	return false;
}

/* The key of a reference {"kind",["namespace",]"name","version"} (new
 * string), or NULL when it lacks one of them. */
static char *ref_key(struct json_object *ref, enum dra_kind *kind)
{
	const char *k = str(ref, "kind"), *ns = str(ref, "namespace"), *name = str(ref, "name");
	const char *version = str(ref, "version");
	size_t len;
	char *key;

	if (!kind_of(k, kind) || name == NULL || version == NULL)
		return NULL;
	if (*kind == DRA_KIND_CLAIM || *kind == DRA_KIND_TEMPLATE) {
		if (ns == NULL)
			return NULL;
	} else {
		ns = "";
	}
	len = strlen(k) + strlen(ns) + strlen(name) + strlen(version) + 4;
	key = xmalloc(len);
	snprintf(key, len, "%s %s/%s %s", k, ns, name, version);
	return key;
}

/* Decodes a kept object into a batch-ready struct; *which: 0 slice,
 * 1 class, 2 claim. */
static enum err decode_object(enum dra_kind kind, struct json_object *obj, struct dra_slice *slice,
			      struct dra_class *cls, struct dra_claim *claim, struct errmsg *msg)
{
	struct doc *d = NULL;
	enum err rc = doc_from_json(obj, &d, msg);

	if (rc == ERR_OK) {
		switch (kind) {
		case DRA_KIND_SLICE:
			rc = dra_slice_decode_doc(d, "draObject", slice, msg);
			break;
		case DRA_KIND_CLASS:
			rc = dra_class_decode_doc(d, "draObject", cls, msg);
			break;
		case DRA_KIND_CLAIM:
			rc = dra_claim_decode_doc(d, "draObject", claim, msg);
			break;
		default:
			rc = dra_template_decode_doc(d, "draObject", claim, msg);
			break;
		}
	}
	doc_free(d);
	return rc;
}

/* The name and namespace a decoded object has, against those its record
 * names: a record whose object is another object is damaged. */
static bool names_match(enum dra_kind kind, const struct dra_slice *s, const struct dra_class *c,
			const struct dra_claim *cl, struct json_object *o)
{
	const char *name = str(o, "name"), *ns = str(o, "namespace");

	switch (kind) {
	case DRA_KIND_SLICE:
		return strcmp(s->name, name) == 0;
	case DRA_KIND_CLASS:
		return strcmp(c->name, name) == 0;
	default:
		return strcmp(cl->name, name) == 0 && ns != NULL && strcmp(cl->namespace_, ns) == 0;
	}
}

static enum err keep_object(struct replay_dra *rd, struct json_object *o, struct errmsg *msg)
{
	struct json_object *obj = NULL;
	struct kept_object *k;
	struct dra_slice slice;
	struct dra_class cls;
	struct dra_claim claim;
	enum dra_kind kind;
	char *key = ref_key(o, &kind);
	enum err rc;
	bool match;

	if (key == NULL || !json_object_object_get_ex(o, "object", &obj)) {
		free(key);
		errmsg_set(msg, "draObject record without kind, name, namespace (claims), version or object");
		return ERR_INVALID;
	}
	memset(&slice, 0, sizeof slice);
	memset(&cls, 0, sizeof cls);
	memset(&claim, 0, sizeof claim);
	rc = decode_object(kind, obj, &slice, &cls, &claim, msg);
	if (rc != ERR_OK) {
		free(key);
		return ERR_INVALID;
	}
	match = names_match(kind, &slice, &cls, &claim, o);
	dra_slice_cleanup(&slice);
	dra_class_cleanup(&cls);
	dra_claim_cleanup(&claim);
	if (!match) {
		free(key);
		errmsg_set(msg, "draObject record whose object is not the one it names");
		return ERR_INVALID;
	}
	if (strmap_get(&rd->by_key, key) != NULL) {
		/* The same version again (a file that repeats it): the first stays. */
		free(key);
		return ERR_OK;
	}
	k = xcalloc(1, sizeof *k);
	k->key = key;
	k->name_key = xstrdup(key);
	*strrchr(k->name_key, ' ') = '\0';
	k->kind = kind;
	k->ns = kind == DRA_KIND_CLAIM || kind == DRA_KIND_TEMPLATE ? xstrdup(str(o, "namespace")) : NULL;
	k->name = xstrdup(str(o, "name"));
	k->version = xstrdup(str(o, "version"));
	k->object = json_object_get(obj);
	rd->objects = xreallocarray(rd->objects, rd->nobjects + 1, sizeof *rd->objects);
	rd->objects[rd->nobjects++] = k;
	strmap_put(&rd->by_key, k->key, k);
	return ERR_OK;
}

static enum err keep_node(struct replay_dra *rd, struct json_object *o, struct errmsg *msg)
{
	const char *id = str(o, "id");
	struct json_object *slices = NULL, *alloc = NULL;
	struct kept_node *n;
	size_t i, len;

	if (id == NULL || id[0] == '\0' || !json_object_object_get_ex(o, "slices", &slices) ||
	    !json_object_is_type(slices, json_type_array) ||
	    !json_object_object_get_ex(o, "allocated", &alloc) || !json_object_is_type(alloc, json_type_array)) {
		errmsg_set(msg, "draNode record without id, slices or allocated");
		return ERR_INVALID;
	}
	n = xcalloc(1, sizeof *n);
	n->key = xstrdup(id);
	n->slices = xcalloc(json_object_array_length(slices) + 1, sizeof *n->slices);
	for (i = 0; i < json_object_array_length(slices); i++) {
		struct json_object *e = json_object_array_get_idx(slices, i);
		const char *name = str(e, "name"), *v = str(e, "version");

		if (name == NULL || v == NULL) {
			node_free(n);
			errmsg_set(msg, "draNode record: slices[%zu] without name or version", i);
			return ERR_INVALID;
		}
		len = strlen(name) + strlen(v) + sizeof "ResourceSlice / ";
		n->slices[i] = xmalloc(len);
		snprintf(n->slices[i], len, "ResourceSlice /%s %s", name, v);
		n->nslices++;
	}
	n->allocated = xcalloc(3 * json_object_array_length(alloc) + 1, sizeof *n->allocated);
	for (i = 0; i < json_object_array_length(alloc); i++) {
		struct json_object *e = json_object_array_get_idx(alloc, i);
		const char *v[3] = { str(e, "driver"), str(e, "pool"), str(e, "device") };

		if (v[0] == NULL || v[1] == NULL || v[2] == NULL) {
			node_free(n);
			errmsg_set(msg, "draNode record: allocated[%zu] without driver, pool or device", i);
			return ERR_INVALID;
		}
		n->allocated[3 * i] = xstrdup(v[0]);
		n->allocated[3 * i + 1] = xstrdup(v[1]);
		n->allocated[3 * i + 2] = xstrdup(v[2]);
		n->nallocated++;
	}
	if (strmap_get(&rd->node_by_key, n->key) != NULL) {
		node_free(n);
		return ERR_OK;
	}
	rd->nodes = xreallocarray(rd->nodes, rd->nnodes + 1, sizeof *rd->nodes);
	rd->nodes[rd->nnodes++] = n;
	strmap_put(&rd->node_by_key, n->key, n);
	return ERR_OK;
}

enum err replay_dra_record(struct replay_dra *rd, const char *type, struct json_object *o,
			   struct errmsg *msg)
{
	return strcmp(type, "draObject") == 0 ? keep_object(rd, o, msg) : keep_node(rd, o, msg);
}

/* ---- one decision -------------------------------------------------------- */

static bool pick(const char *text, const char *const *names, size_t n, int *out)
{
	size_t i;

	for (i = 0; text != NULL && i < n; i++)
		if (strcmp(text, names[i]) == 0) {
			*out = (int)i;
			return true;
		}
	return false;
}

/* Adds kept object key to the decision's list (once). */
static enum err want(const struct replay_dra *rd, const char *key, struct strmap *seen,
		     const struct kept_object ***list, size_t *n, struct errmsg *msg)
{
	const struct kept_object *k = strmap_get(&rd->by_key, key);

	if (k == NULL) {
		errmsg_set(msg, "the log holds no draObject %s", key);
		return ERR_INVALID;
	}
	if (strmap_get(seen, k->key) != NULL)
		return ERR_OK;
	strmap_put(seen, k->key, (void *)(uintptr_t)k);
	*list = xreallocarray(*list, *n + 1, sizeof **list);
	(*list)[(*n)++] = k;
	return ERR_OK;
}

/* The store made to hold exactly list: what it holds already at the same
 * version is kept, the rest decoded and put, anything else removed. */
static enum err publish(struct replay_dra *rd, const struct kept_object *const *list, size_t n,
			struct errmsg *msg)
{
	struct dra_batch *b = dra_batch_new();
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		const struct kept_object *o = list[i];
		struct dra_slice slice;
		struct dra_class cls;
		struct dra_claim claim;

		if (strmap_get(&rd->current, o->name_key) == o) {
			dra_batch_keep(b, o->kind, o->ns, o->name);
			continue;
		}
		memset(&slice, 0, sizeof slice);
		memset(&cls, 0, sizeof cls);
		memset(&claim, 0, sizeof claim);
		if (decode_object(o->kind, o->object, &slice, &cls, &claim, msg) != ERR_OK) {
			dra_batch_free(b);
			return ERR_INVALID;
		}
		if (o->kind == DRA_KIND_SLICE)
			dra_batch_put_slice(b, &slice, o->version, "replay");
		else if (o->kind == DRA_KIND_CLASS)
			dra_batch_put_class(b, &cls, o->version, "replay");
		else
			dra_batch_put_claim(b, &claim, o->version, "replay");
	}
	for (k = 0; k < DRA_KIND_COUNT; k++)
		dra_batch_replace(b, (enum dra_kind)k);
	if (rd->store == NULL)
		rd->store = dra_store_new();
	dra_store_publish(rd->store, b);
	strmap_clear(&rd->current);
	for (i = 0; i < n; i++)
		strmap_put(&rd->current, list[i]->name_key, (void *)(uintptr_t)list[i]);
	return ERR_OK;
}

static enum err fill(struct replay_dra *rd, struct json_object *m, size_t nnodes,
		     struct replay_dra_decision *out, struct errmsg *msg)
{
	const struct kept_object **list = NULL;
	size_t nlist = 0;
	static const char *const alignments[] = { "require", "prefer", "off" };
	static const char *const unknowns[] = { "allow", "deny" };
	static const char *const orders[] = { "sorted", "unsorted" };
	struct json_object *pod = NULL, *objects = NULL, *nodes = NULL;
	struct strmap seen = { NULL, 0, 0 };
	struct doc *d = NULL;
	int a = 0, u = 0, o = 0;
	enum err rc;
	size_t i, k;

	if (!pick(str(m, "alignment"), alignments, 3, &a) || !pick(str(m, "unknownNUMA"), unknowns, 2, &u) ||
	    !pick(str(m, "allocatorOrder"), orders, 2, &o)) {
		errmsg_set(msg, "dra member without a valid alignment, unknownNUMA or allocatorOrder");
		return ERR_INVALID;
	}
	out->alignment = (enum config_dra_alignment)a;
	out->unknown_numa = (enum config_dra_unknown_numa)u;
	out->order = (enum config_dra_order)o;
	if (!json_object_object_get_ex(m, "pod", &pod) || !json_object_object_get_ex(m, "objects", &objects) ||
	    !json_object_is_type(objects, json_type_array) || !json_object_object_get_ex(m, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array) || json_object_array_length(nodes) != nnodes) {
		errmsg_set(msg, "dra member without pod, objects or one version per node");
		return ERR_INVALID;
	}
	rc = doc_from_json(pod, &d, msg);
	if (rc == ERR_OK)
		rc = dra_pod_claims_decode(d, "dra.pod", &out->claims, msg);
	doc_free(d);
	if (rc != ERR_OK)
		return ERR_INVALID;
	if (out->claims.nclaims == 0) {
		errmsg_set(msg, "dra member: the pod has no claims");
		return ERR_INVALID;
	}
	for (i = 0; rc == ERR_OK && i < json_object_array_length(objects); i++) {
		enum dra_kind kind;
		char *key = ref_key(json_object_array_get_idx(objects, i), &kind);

		if (key == NULL) {
			errmsg_set(msg, "dra member: objects[%zu] without kind, name, namespace or version", i);
			rc = ERR_INVALID;
		} else {
			rc = want(rd, key, &seen, &list, &nlist, msg);
		}
		free(key);
	}
	for (i = 0; rc == ERR_OK && i < nnodes; i++) {
		struct json_object *v = json_object_array_get_idx(nodes, i);
		const struct kept_node *n;
		const char *id;

		if (!json_object_is_type(v, json_type_string)) {
			errmsg_set(msg, "dra member: nodes[%zu] is not a node state's id", i);
			rc = ERR_INVALID;
			break;
		}
		id = json_object_get_string(v);
		if (id[0] == '\0')
			continue; /* no inventory: not judged */
		n = strmap_get(&rd->node_by_key, id);
		if (n == NULL) {
			errmsg_set(msg, "the log holds no draNode %s", id);
			rc = ERR_INVALID;
			break;
		}
		for (k = 0; rc == ERR_OK && k < n->nslices; k++)
			rc = want(rd, n->slices[k], &seen, &list, &nlist, msg);
		for (k = 0; k < n->nallocated; k++)
			dra_device_set_add(&out->allocated, n->allocated[3 * k], n->allocated[3 * k + 1],
					   n->allocated[3 * k + 2]);
	}
	strmap_clear(&seen);
	if (rc == ERR_OK)
		rc = publish(rd, list, nlist, msg);
	free(list);
	return rc;
}

enum err replay_dra_begin(struct replay_dra *rd, struct json_object *member, size_t nnodes,
			  const char *ns, const char *name, const enum config_dra_order *order_override,
			  struct replay_dra_decision *out, struct errmsg *msg)
{
	struct dra_pod_input in;
	enum err rc;

	memset(out, 0, sizeof *out);
	dra_device_set_init(&out->allocated);
	if (!json_object_is_type(member, json_type_object)) {
		errmsg_set(msg, "dra member is not an object");
		replay_dra_end(out);
		return ERR_INVALID;
	}
	rc = fill(rd, member, nnodes, out, msg);
	if (rc != ERR_OK) {
		replay_dra_end(out);
		return rc;
	}
	out->snap = dra_store_acquire(rd->store);
	memset(&in, 0, sizeof in);
	in.snap = out->snap;
	in.claims = &out->claims;
	in.namespace_ = ns;
	in.pod_name = name;
	in.order = (order_override ? *order_override : out->order) == CONFIG_DRA_UNSORTED
			   ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED;
	/* The nodes' allocated devices as the log holds them: the store knows
	 * only the claims the pod reads. */
	in.assumed = &out->allocated;
	/* As serve: kube-scheduler sends no node labels. */
	in.node_labels_known = false;
	out->pod = dra_pod_new(&in);
	return ERR_OK;
}

void replay_dra_end(struct replay_dra_decision *d)
{
	dra_pod_free(d->pod);
	if (d->snap != NULL)
		dra_snapshot_release(d->snap);
	dra_pod_claims_cleanup(&d->claims);
	dra_device_set_free(&d->allocated);
	memset(d, 0, sizeof *d);
}
