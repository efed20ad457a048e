/* SPDX-License-Identifier: Apache-2.0 */
/* NodeResourceTopology decoding: document tree -> struct nrt_object, plus the
 * stream, list, file and directory entry points. Quantities become exact
 * integers here (Value(), as the scheduler plugin reads them); nothing else is
 * interpreted. */
#include "extender/codec/nrt_decode.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/codec/decode_walk.h"
#include "extender/file_read.h"
#include "base/xalloc.h"
#include "topology/names.h"
#include "topology/quantity.h"

#define KIND_OBJECT "NodeResourceTopology"
#define KIND_LIST "NodeResourceTopologyList"
#define API_V1ALPHA1 "topology.node.k8s.io/v1alpha1"
#define API_V1ALPHA2 "topology.node.k8s.io/v1alpha2"

static bool is_byte_resource(const char *name)
{
	return strcmp(name, "memory") == 0 ||
	       strncmp(name, "hugepages-", strlen("hugepages-")) == 0;
}

/* Memory and hugepages are byte counts where Value() rounds a fraction up, as
 * Kubernetes does. Everything else counts whole things (exclusive CPUs,
 * devices), and exporters do publish fractions there: fake-gpu-operator's
 * "cpu: 3955m", koordlet's NUMA reservation "47750m", nri-plugins' millicore
 * available. Only whole units can be handed out exclusively, so a fraction is
 * rounded down ("3955m" counts 3 CPUs). */
static enum err read_quantity(struct decode_ctx *c, const struct doc *obj,
			      const char *key, const char *resource,
			      int64_t *out)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *d = doc_lookup(obj, key);
	char quoted[DOC_QUOTE_CAP];
	struct quantity q;
	enum err rc;

	if (d == NULL) {
		rc = decode_fail(c, ERR_INVALID, "missing");
		goto out;
	}
	if (d->kind != DOC_STRING && d->kind != DOC_PLAIN &&
	    d->kind != DOC_NUMBER) {
		rc = decode_fail(c, ERR_INVALID, "expected a quantity, got %s",
				 doc_kind_name(d));
		goto out;
	}
	rc = quantity_parse(d->text, d->len, &q, c->msg);
	if (rc != ERR_OK) {
		rc = decode_fail_prefixed(c, rc);
		goto out;
	}
	doc_quote(quoted, sizeof quoted, d->text, d->len);
	if (quantity_sign(&q) < 0) {
		rc = decode_fail(c, ERR_INVALID, "%s: must not be negative", quoted);
		goto out;
	}
	rc = quantity_scaled(&q, 0, out);
	if (rc != ERR_OK) {
		rc = decode_fail(c, rc, "%s: out of range (more than 2^63-1)", quoted);
		goto out;
	}
	/* Value() rounded up; a non-negative fraction's floor is one less. */
	if (!is_byte_resource(resource) && !quantity_is_exact(&q, 0))
		(*out)--;
out:
	doc_path_pop(&c->path, mark);
	return rc;
}

/* A name read into *name checked by rule; the error names the field. */
static enum err check_name(struct decode_ctx *c, const char *key, const char *name,
			   bool (*rule)(const char *, size_t, char *, size_t),
			   const char *what)
{
	char why[160], quoted[DOC_QUOTE_CAP];

	if (rule(name, strlen(name), why, sizeof why))
		return ERR_OK;
	doc_quote(quoted, sizeof quoted, name, strlen(name));
	return decode_fail_at(c, key, ERR_INVALID, "%s: not a valid %s: %s", quoted, what, why);
}

static enum err decode_resource(struct decode_ctx *c, const struct doc *d,
				void *out, void *arg)
{
	struct nrt_resource *r = out;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &r->name);
	if (rc == ERR_OK)
		rc = check_name(c, "name", r->name, name_is_resource, "resource name");
	if (rc == ERR_OK)
		rc = read_quantity(c, d, "capacity", r->name, &r->capacity);
	if (rc == ERR_OK)
		rc = read_quantity(c, d, "allocatable", r->name, &r->allocatable);
	if (rc == ERR_OK)
		rc = read_quantity(c, d, "available", r->name, &r->available);
	return rc;
}

static enum err decode_cost(struct decode_ctx *c, const struct doc *d,
			    void *out, void *arg)
{
	struct nrt_cost *cost = out;
	const struct doc *value;
	size_t mark;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &cost->name);
	if (rc != ERR_OK)
		return rc;
	mark = doc_path_key(&c->path, "value");
	value = doc_lookup(d, "value");
	if (value == NULL) {
		rc = decode_fail(c, ERR_INVALID, "missing");
	} else {
		rc = doc_read_int64(value, &cost->value, c->msg);
		if (rc != ERR_OK)
			rc = decode_fail_prefixed(c, rc);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

/* zone.resources, whose names must be unique. */
static enum err decode_resources(struct decode_ctx *c, const struct doc *zone,
				 struct nrt_zone *z)
{
	void *v = z->resources;
	const char **names;
	size_t i, dup, mark;
	enum err rc;

	rc = decode_array(c, zone, "resources", 0, sizeof *z->resources, &v,
			  &z->nresources, decode_resource, NULL);
	z->resources = v;
	if (rc != ERR_OK || z->nresources == 0)
		return rc;
	names = xcalloc(z->nresources, sizeof *names);
	for (i = 0; i < z->nresources; i++)
		names[i] = z->resources[i].name;
	if (doc_find_duplicate(names, z->nresources, &dup)) {
		char quoted[DOC_QUOTE_CAP];

		mark = doc_path_key(&c->path, "resources");
		doc_path_index(&c->path, dup);
		doc_path_key(&c->path, "name");
		doc_quote(quoted, sizeof quoted, names[dup], strlen(names[dup]));
		rc = decode_fail(c, ERR_INVALID, "duplicate resource %s", quoted);
		doc_path_pop(&c->path, mark);
	}
	free(names);
	return rc;
}

static enum err decode_zone(struct decode_ctx *c, const struct doc *d,
			    void *out, void *arg)
{
	struct nrt_zone *z = out;
	void *costs;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &z->name);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "type", DECODE_REQUIRED, &z->type);
	if (rc == ERR_OK)
		rc = decode_resources(c, d, z);
	if (rc != ERR_OK)
		return rc;
	costs = z->costs;
	rc = decode_array(c, d, "costs", 0, sizeof *z->costs, &costs,
			  &z->ncosts, decode_cost, NULL);
	z->costs = costs;
	return rc;
}

static enum err decode_attribute(struct decode_ctx *c, const struct doc *d,
				 void *out, void *arg)
{
	struct nrt_attribute *attr = out;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &attr->name);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "value", DECODE_REQUIRED | DECODE_SCALAR,
				 &attr->value);
	return rc;
}

static enum err decode_policy(struct decode_ctx *c, const struct doc *d,
			      void *out, void *arg)
{
	char **policy = out;
	const char *text;
	size_t len;
	enum err rc;

	(void)arg;
	rc = doc_read_string(d, 0, &text, &len, c->msg);
	if (rc != ERR_OK)
		return decode_fail_prefixed(c, rc);
	*policy = xmemdup0(text, len);
	return ERR_OK;
}

static enum err decode_metadata(struct decode_ctx *c, const struct doc *obj,
				struct nrt_object *out)
{
	size_t mark = doc_path_key(&c->path, "metadata");
	const struct doc *md;
	enum err rc;

	rc = decode_field(c, obj, "metadata", DOC_OBJECT, DECODE_REQUIRED, &md);
	if (rc == ERR_OK)
		rc = decode_string(c, md, "name", DECODE_REQUIRED | DECODE_NONEMPTY, &out->name);
	if (rc == ERR_OK)
		rc = check_name(c, "name", out->name, name_is_dns_subdomain,
				"node name");
	if (rc == ERR_OK)
		rc = decode_string(c, md, "resourceVersion", 0,
				 &out->resource_version);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* Agents that predate the attribute (and RTE still) put the pods
 * fingerprint in the annotation topology.node.k8s.io/fingerprint;
 * scheduler-plugins falls back to it, and so do we: it becomes the
 * nodeTopologyPodsFingerprint attribute when that is absent. */
static void legacy_fingerprint(const struct doc *obj, struct nrt_object *out)
{
	const struct doc *ann = doc_lookup(doc_lookup(obj, "metadata"), "annotations");
	const struct doc *fp = ann && ann->kind == DOC_OBJECT
				       ? doc_lookup(ann, "topology.node.k8s.io/fingerprint") : NULL;
	size_t i;

	if (fp == NULL || (fp->kind != DOC_STRING && fp->kind != DOC_PLAIN) || fp->len == 0 ||
	    memchr(fp->text, '\0', fp->len))
		return;
	for (i = 0; i < out->nattributes; i++)
		if (out->attributes[i].name && strcmp(out->attributes[i].name, "nodeTopologyPodsFingerprint") == 0)
			return;
	out->attributes = xreallocarray(out->attributes, out->nattributes + 1, sizeof *out->attributes);
	out->attributes[out->nattributes].name = xstrdup("nodeTopologyPodsFingerprint");
	out->attributes[out->nattributes].value = xstrdup(fp->text);
	out->nattributes++;
}

/* obj.apiVersion, one of the versions this decoder reads; fallback (a
 * list's version) stands in when it is absent, and without one it is
 * required. */
static enum err read_api_version(struct decode_ctx *c, const struct doc *obj,
				 const char *fallback, const char **out)
{
	char quoted[DOC_QUOTE_CAP];
	enum err rc;

	rc = decode_text(c, obj, "apiVersion", fallback != NULL ? 0 : DECODE_REQUIRED, out);
	if (rc != ERR_OK)
		return rc;
	if (*out == NULL)
		*out = fallback;
	if (strcmp(*out, API_V1ALPHA1) == 0 || strcmp(*out, API_V1ALPHA2) == 0)
		return ERR_OK;
	doc_quote(quoted, sizeof quoted, *out, strlen(*out));
	return decode_fail_at(c, "apiVersion", ERR_INVALID, "%s: expected %s or %s", quoted,
			      API_V1ALPHA1, API_V1ALPHA2);
}

/* The arrays of an object: topologyPolicies, attributes (then the legacy
 * fingerprint) and zones, in that order. */
static enum err decode_arrays(struct decode_ctx *c, const struct doc *obj,
			      struct nrt_object *out)
{
	void *policies = out->policies, *attributes = out->attributes;
	void *zones = out->zones;
	enum err rc;

	rc = decode_array(c, obj, "topologyPolicies", 0, sizeof *out->policies,
			  &policies, &out->npolicies, decode_policy, NULL);
	out->policies = policies;
	if (rc != ERR_OK)
		return rc;
	rc = decode_array(c, obj, "attributes", 0, sizeof *out->attributes,
			  &attributes, &out->nattributes, decode_attribute, NULL);
	out->attributes = attributes;
	if (rc != ERR_OK)
		return rc;
	legacy_fingerprint(obj, out);
	rc = decode_array(c, obj, "zones", DECODE_REQUIRED, sizeof *out->zones,
			  &zones, &out->nzones, decode_zone, NULL);
	out->zones = zones;
	return rc;
}

/* One object. Items of a list may leave out kind, and apiVersion when the
 * list gives one (default_api). */
static enum err decode_object(struct decode_ctx *c, const struct doc *d, bool in_list,
			      const char *default_api, struct nrt_object *out)
{
	const char *version;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_kind(c, d, KIND_OBJECT, !in_list);
	if (rc == ERR_OK)
		rc = read_api_version(c, d, default_api, &version);
	if (rc != ERR_OK)
		return rc;
	out->api_version = xstrdup(version);
	rc = decode_metadata(c, d, out);
	if (rc == ERR_OK)
		rc = decode_arrays(c, d, out);
	return rc;
}

enum err nrt_decode_doc(const struct doc *d, const char *origin,
			struct nrt_object *out, struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = decode_object(&c, d, false, NULL, out);
	if (rc != ERR_OK)
		nrt_object_cleanup(out);
	return rc;
}

void nrt_objects_free(struct nrt_object *objs, size_t n)
{
	size_t i;

	if (objs == NULL)
		return;
	for (i = 0; i < n; i++)
		nrt_object_cleanup(&objs[i]);
	free(objs);
}

/* A growing array of decoded objects. */
struct objlist {
	struct nrt_object *v;
	size_t n;
	size_t cap;
};

static struct nrt_object *objlist_add(struct objlist *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	memset(&l->v[l->n], 0, sizeof l->v[l->n]);
	return &l->v[l->n++];
}

/* metadata.name of an undecoded item when it is a valid node name, else
 * NULL: used to name the item in its error and keep its node known. */
static const char *peek_name(const struct doc *d)
{
	const struct doc *n = doc_lookup(doc_lookup(d, "metadata"), "name");

	if (n == NULL || (n->kind != DOC_STRING && n->kind != DOC_PLAIN) ||
	    !name_is_dns_subdomain(n->text, n->len, NULL, 0))
		return NULL;
	return n->text;
}

/* Decodes into a new last element. On error, with isolate (a file of
 * several objects) the element stays as a placeholder that carries the
 * message (nrt_object.invalid) and the item's node name when readable, and
 * the call succeeds; without, it is dropped and the error returned. */
static enum err objlist_decode(struct objlist *l, struct decode_ctx *c,
			       const struct doc *d, bool in_list,
			       const char *default_api, bool isolate)
{
	struct nrt_object *obj = objlist_add(l);
	enum err rc = decode_object(c, d, in_list, default_api, obj);
	const char *name;

	if (rc == ERR_OK)
		return ERR_OK;
	nrt_object_cleanup(obj);
	if (!isolate) {
		l->n--;
		return rc;
	}
	name = peek_name(d);
	obj->name = xstrdup(name ? name : "");
	obj->invalid = xstrdup(c->msg->text);
	return ERR_OK;
}

/* The origin of one item of a file of several objects: its document number
 * (in a stream) and its node name (when readable), so that every message
 * names which item of the file it is about. */
static void item_origin(char *buf, size_t size, const char *origin, size_t doc,
			bool numbered, const struct doc *d)
{
	const char *name = peek_name(d);

	if (numbered && name)
		snprintf(buf, size, "%s (document %zu, node %s)", origin, doc + 1, name);
	else if (numbered)
		snprintf(buf, size, "%s (document %zu)", origin, doc + 1);
	else if (name)
		snprintf(buf, size, "%s (node %s)", origin, name);
	else
		snprintf(buf, size, "%s", origin);
}

static enum err decode_list(struct objlist *l, struct decode_ctx *c,
			    const struct doc *d, const char *kind)
{
	const char *default_api = NULL;
	const struct doc *items;
	size_t i, mark;
	enum err rc = ERR_OK;

	/* kubectl's "kind: List" is apiVersion v1 and its items say what they
	 * are; a NodeResourceTopologyList's version applies to its items. */
	if (strcmp(kind, KIND_LIST) == 0) {
		rc = read_api_version(c, d, NULL, &default_api);
		if (rc != ERR_OK)
			return rc;
	}
	mark = doc_path_key(&c->path, "items");
	rc = decode_field(c, d, "items", DOC_ARRAY, DECODE_REQUIRED, &items);
	for (i = 0; rc == ERR_OK && i < items->nchildren; i++) {
		const struct doc *item = items->children[i].value;
		size_t m = doc_path_index(&c->path, i);
		const char *list_origin = c->origin;
		char origin[512];

		/* Each item stands or falls alone. */
		item_origin(origin, sizeof origin, list_origin, 0, false, item);
		c->origin = origin;
		rc = objlist_decode(l, c, item, true, default_api, true);
		c->origin = list_origin;
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

/* The kind of a top-level document when it names a list, else NULL. */
static const char *list_kind(const struct doc *d)
{
	const struct doc *k = doc_lookup(d, "kind");

	if (k == NULL || (k->kind != DOC_STRING && k->kind != DOC_PLAIN))
		return NULL;
	if (strcmp(k->text, KIND_LIST) == 0 || strcmp(k->text, "List") == 0)
		return k->text;
	return NULL;
}

enum err nrt_decode_buffer(const char *buf, size_t len, const char *origin,
			   struct nrt_object **objs, size_t *nobjs,
			   struct errmsg *msg)
{
	struct objlist l = { 0 };
	struct doc **docs = NULL;
	size_t ndocs = 0, nonnull = 0, i;
	bool several = false;
	enum err rc;

	*objs = NULL;
	*nobjs = 0;
	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc != ERR_OK)
		return rc;
	/* A file of several objects (a stream of several documents, or a
	 * list): each object stands or falls alone. A file of one object is
	 * that object, and its error is the file's. */
	for (i = 0; i < ndocs; i++) {
		if (doc_is_null(docs[i]))
			continue;
		nonnull++;
		if (list_kind(docs[i]) != NULL)
			several = true;
	}
	if (nonnull > 1)
		several = true;
	for (i = 0; i < ndocs; i++) {
		char numbered[512];
		struct decode_ctx c;
		const char *kind;

		if (doc_is_null(docs[i]))
			continue;
		decode_ctx_init(&c, origin, msg);
		kind = list_kind(docs[i]);
		if (kind != NULL) {
			if (nonnull > 1) {
				snprintf(numbered, sizeof numbered, "%s (document %zu)",
					 origin, i + 1);
				c.origin = numbered;
			}
			rc = decode_list(&l, &c, docs[i], kind);
		} else {
			if (several)
				item_origin(numbered, sizeof numbered, origin, i, true, docs[i]);
			else if (i > 0)
				snprintf(numbered, sizeof numbered, "%s (document %zu)",
					 origin, i + 1);
			if (several || i > 0)
				c.origin = numbered;
			rc = objlist_decode(&l, &c, docs[i], false, NULL, several);
		}
		if (rc != ERR_OK)
			goto out;
	}
	*objs = l.v;
	*nobjs = l.n;
	l.v = NULL;
	l.n = 0;
out:
	nrt_objects_free(l.v, l.n);
	doc_free_all(docs, ndocs);
	return rc;
}

/* Appends the objects of one file's text to the list arg. */
static enum err file_text(const char *buf, size_t len, const char *origin, void *arg,
			  struct errmsg *msg)
{
	struct nrt_object *objs = NULL;
	size_t nobjs = 0, i;
	enum err rc;

	rc = nrt_decode_buffer(buf, len, origin, &objs, &nobjs, msg);
	if (rc != ERR_OK)
		return rc;
	for (i = 0; i < nobjs; i++)
		*objlist_add(arg) = objs[i];
	/* The elements moved into the list; only the array itself is left. */
	free(objs);
	return ERR_OK;
}

static enum err load_file(const char *path, struct objlist *l,
			  struct errmsg *msg)
{
	return file_read_with(path, FILE_READ_DOC_MAX_BYTES, file_text, l, msg);
}

static enum err load_dir(const char *path, struct objlist *l,
			 struct errmsg *msg)
{
	return file_read_dir(path, FILE_READ_DOC_MAX_BYTES, file_text, l, msg);
}

enum err nrt_load_path(const char *path, struct nrt_object **objs,
		       size_t *nobjs, struct errmsg *msg)
{
	struct objlist l = { 0 };
	struct stat st;
	enum err rc;

	*objs = NULL;
	*nobjs = 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		rc = load_dir(path, &l, msg);
	else
		rc = load_file(path, &l, msg);
	if (rc != ERR_OK) {
		nrt_objects_free(l.v, l.n);
		return rc;
	}
	*objs = l.v;
	*nobjs = l.n;
	return ERR_OK;
}
