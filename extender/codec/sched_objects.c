/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/file_read.h"

struct objects {
	const struct sched_objects_spec *spec;
	char *v;
	size_t n;
	size_t cap;
};

static void *add(struct objects *o)
{
	void *elem;

	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 8;
		o->v = xreallocarray(o->v, o->cap, o->spec->size);
	}
	elem = o->v + o->n * o->spec->size;
	memset(elem, 0, o->spec->size);
	o->n++;
	return elem;
}

static void free_all(struct objects *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		o->spec->cleanup(o->v + i * o->spec->size);
	free(o->v);
	o->v = NULL;
	o->n = o->cap = 0;
}

/* A readable metadata field of an undecoded item, or NULL. */
static const char *peek(const struct doc *d, const char *key)
{
	const struct doc *v = doc_lookup(doc_lookup(d, "metadata"), key);

	if (v == NULL || (v->kind != DOC_STRING && v->kind != DOC_PLAIN) || v->len == 0 ||
	    v->len > 253 || memchr(v->text, '\0', v->len) != NULL)
		return NULL;
	return v->text;
}

/* "origin (document N, node x)", each part when known. */
static void item_origin(char *buf, size_t size, const struct sched_objects_spec *spec,
			const char *origin, size_t doc, const struct doc *d)
{
	const char *name = peek(d, "name"), *ns = spec->namespaced ? peek(d, "namespace") : NULL;
	char who[600] = "";

	if (name != NULL)
		snprintf(who, sizeof who, "%s %s%s%s", spec->noun, ns ? ns : "",
			 ns ? "/" : "", name);
	if (doc > 0 && name != NULL)
		snprintf(buf, size, "%s (document %zu, %s)", origin, doc, who);
	else if (doc > 0)
		snprintf(buf, size, "%s (document %zu)", origin, doc);
	else if (name != NULL)
		snprintf(buf, size, "%s (%s)", origin, who);
	else
		snprintf(buf, size, "%s", origin);
}

/* Decodes into a new element; with isolate a failure leaves a placeholder
 * and is not an error. */
static enum err one(struct objects *o, struct decode_ctx *c, const struct doc *d,
		    bool in_list, bool isolate)
{
	void *elem = add(o);
	enum err rc = o->spec->decode(c, d, in_list, elem);

	if (rc == ERR_OK)
		return ERR_OK;
	o->spec->cleanup(elem);
	memset(elem, 0, o->spec->size);
	if (!isolate) {
		o->n--;
		return rc;
	}
	o->spec->placeholder(elem, peek(d, "name"),
			     o->spec->namespaced ? peek(d, "namespace") : NULL, c->msg->text);
	return ERR_OK;
}

static bool is_list(const struct sched_objects_spec *spec, const struct doc *d)
{
	const struct doc *k = doc_lookup(d, "kind");

	return k != NULL && (k->kind == DOC_STRING || k->kind == DOC_PLAIN) &&
	       (strcmp(k->text, "List") == 0 || strcmp(k->text, spec->list_kind) == 0);
}

static enum err list(struct objects *o, struct decode_ctx *c, const struct doc *d)
{
	const struct doc *items;
	const char *list_origin = c->origin;
	size_t i, mark = doc_path_key(&c->path, "items");
	enum err rc;

	rc = decode_field(c, d, "items", DOC_ARRAY, 0, &items);
	for (i = 0; rc == ERR_OK && items != NULL && i < items->nchildren; i++) {
		const struct doc *item = items->children[i].value;
		size_t m = doc_path_index(&c->path, i);
		char origin[1024];

		item_origin(origin, sizeof origin, o->spec, list_origin, 0, item);
		c->origin = origin;
		rc = one(o, c, item, true, true);
		c->origin = list_origin;
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err sched_objects_decode(const char *buf, size_t len, const char *origin,
			      const struct sched_objects_spec *spec, void **items,
			      size_t *n, struct errmsg *msg)
{
	struct objects o = { spec, NULL, 0, 0 };
	struct doc **docs = NULL;
	size_t ndocs = 0, nonnull = 0, i;
	bool several;
	enum err rc;

	*items = NULL;
	*n = 0;
	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc != ERR_OK)
		return rc;
	for (i = 0; i < ndocs; i++)
		nonnull += !doc_is_null(docs[i]);
	several = nonnull > 1;
	for (i = 0; i < ndocs && !several; i++)
		several = !doc_is_null(docs[i]) && is_list(spec, docs[i]);
	for (i = 0; i < ndocs && rc == ERR_OK; i++) {
		char numbered[1024];
		struct decode_ctx c;

		if (doc_is_null(docs[i]))
			continue;
		decode_ctx_init(&c, origin, msg);
		if (is_list(spec, docs[i])) {
			if (nonnull > 1) {
				snprintf(numbered, sizeof numbered, "%s (document %zu)", origin, i + 1);
				c.origin = numbered;
			}
			rc = list(&o, &c, docs[i]);
			continue;
		}
		if (several) {
			item_origin(numbered, sizeof numbered, spec, origin,
				    nonnull > 1 ? i + 1 : 0, docs[i]);
			c.origin = numbered;
		}
		rc = one(&o, &c, docs[i], false, several);
	}
	if (rc == ERR_OK) {
		*items = o.v;
		*n = o.n;
	} else {
		free_all(&o);
	}
	doc_free_all(docs, ndocs);
	return rc;
}

struct objects_call {
	const struct sched_objects_spec *spec;
	void **items;
	size_t *n;
};

static enum err objects_text(const char *buf, size_t len, const char *origin, void *arg,
			     struct errmsg *msg)
{
	struct objects_call *call = arg;

	return sched_objects_decode(buf, len, origin, call->spec, call->items, call->n, msg);
}

enum err sched_objects_load(const char *path, const struct sched_objects_spec *spec,
			    void **items, size_t *n, struct errmsg *msg)
{
	struct objects_call call = { spec, items, n };

	*items = NULL;
	*n = 0;
	return file_read_with(path, FILE_READ_DOC_MAX_BYTES, objects_text, &call, msg);
}
