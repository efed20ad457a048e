/* SPDX-License-Identifier: Apache-2.0 */
/* Texts of DRA objects of any of the four kinds, mixed, as `kubectl get
 * resourceslices,deviceclasses,resourceclaims -A -o yaml` prints them or an
 * operator writes them: each object goes to its kind's array, or, in a text
 * of several, to `bad` with its message when it does not decode. */
#include "extender/codec/dra_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/align.h"
#include "extender/file_read.h"

static const char *const kind_names[DRA_KIND_COUNT] = {
	"ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate",
};
static const char *const list_names[DRA_KIND_COUNT] = {
	"ResourceSliceList", "DeviceClassList", "ResourceClaimList", "ResourceClaimTemplateList",
};
static const bool namespaced[DRA_KIND_COUNT] = { false, false, true, true };

const char *dra_kind_name(enum dra_kind k)
{
	return (unsigned)k < DRA_KIND_COUNT ? kind_names[k] : "?";
}

/* Room for one more element of an array of *n elements of size bytes,
 * grown by doubling; returns the new (zeroed) element, counted in *n. */
static void *append(void **v, size_t *n, size_t size)
{
	char *elem;

	if ((*n & (*n - 1)) == 0)
		*v = xreallocarray(*v, *n ? *n * 2 : 1, size);
	elem = (char *)*v + *n * size;
	memset(elem, 0, size);
	(*n)++;
	return elem;
}

void dra_objects_cleanup(struct dra_objects *o)
{
	size_t i;

	for (i = 0; i < o->nslices; i++)
		dra_slice_cleanup(&o->slices[i]);
	for (i = 0; i < o->nclasses; i++)
		dra_class_cleanup(&o->classes[i]);
	for (i = 0; i < o->nclaims; i++)
		dra_claim_cleanup(&o->claims[i]);
	for (i = 0; i < o->ntemplates; i++)
		dra_claim_cleanup(&o->templates[i]);
	for (i = 0; i < o->nbad; i++) {
		free(o->bad[i].kind);
		free(o->bad[i].namespace_);
		free(o->bad[i].name);
		free(o->bad[i].message);
	}
	free(o->slices);
	free(o->classes);
	free(o->claims);
	free(o->templates);
	free(o->bad);
	memset(o, 0, sizeof *o);
}

/* A readable string member (of metadata when meta), or NULL. */
static const char *peek(const struct doc *d, bool meta, const char *key)
{
	const struct doc *v = doc_lookup(meta ? doc_lookup(d, "metadata") : d, key);

	if (v == NULL || (v->kind != DOC_STRING && v->kind != DOC_PLAIN) || v->len == 0 ||
	    v->len > 253 || memchr(v->text, '\0', v->len) != NULL)
		return NULL;
	return v->text;
}

/* The kind of d: its own, else the typed list's it sits in (hint). */
static int kind_of(const struct doc *d, int hint)
{
	const char *k = peek(d, false, "kind");
	int i;

	if (k == NULL)
		return hint;
	for (i = 0; i < DRA_KIND_COUNT; i++)
		if (strcmp(k, kind_names[i]) == 0)
			return i;
	return -1;
}

/* The list kind of d: -2 for kubectl's List, the typed list's kind, or -1
 * when d is no list. */
static int list_of(const struct doc *d)
{
	const char *k = peek(d, false, "kind");
	int i;

	if (k != NULL && strcmp(k, "List") == 0)
		return -2;
	for (i = 0; k != NULL && i < DRA_KIND_COUNT; i++)
		if (strcmp(k, list_names[i]) == 0)
			return i;
	return -1;
}

/* Decodes d as kind k onto the end of its array in o. */
static enum err decode_one(struct dra_objects *o, int k, const struct doc *d, const char *origin,
			   struct errmsg *msg)
{
	enum err rc;

	switch (k) {
	case DRA_KIND_SLICE:
		rc = dra_slice_decode_doc(d, origin, append((void **)&o->slices, &o->nslices,
							    sizeof *o->slices), msg);
		o->nslices -= rc != ERR_OK;
		return rc;
	case DRA_KIND_CLASS:
		rc = dra_class_decode_doc(d, origin, append((void **)&o->classes, &o->nclasses,
							    sizeof *o->classes), msg);
		o->nclasses -= rc != ERR_OK;
		return rc;
	case DRA_KIND_CLAIM:
		rc = dra_claim_decode_doc(d, origin, append((void **)&o->claims, &o->nclaims,
							    sizeof *o->claims), msg);
		o->nclaims -= rc != ERR_OK;
		return rc;
	default:
		rc = dra_template_decode_doc(d, origin, append((void **)&o->templates, &o->ntemplates,
							       sizeof *o->templates), msg);
		o->ntemplates -= rc != ERR_OK;
		return rc;
	}
}

/* s as it is when it is a plain name, else quoted (it is the text's, and
 * goes into messages and logs). */
static const char *plain_or_quoted(const char *s, char *buf, size_t cap)
{
	struct textbuf t;

	textbuf_init_fixed(&t, buf, cap);
	dra_align_add_name(&t, s);
	return buf;
}

/* "origin (document N, items[i], Kind ns/name)", each part when known. */
static void item_origin(char *buf, size_t size, const char *origin, size_t doc, long item,
			int k, const struct doc *d)
{
	const char *name = peek(d, true, "name"), *ns = NULL;
	char docpart[48] = "", itempart[48] = "", who[600] = "";
	char qname[DOC_QUOTE_CAP], qns[DOC_QUOTE_CAP];

	if (k >= 0 && namespaced[k])
		ns = peek(d, true, "namespace");
	if (name != NULL)
		name = plain_or_quoted(name, qname, sizeof qname);
	if (ns != NULL)
		ns = plain_or_quoted(ns, qns, sizeof qns);
	if (doc > 0)
		snprintf(docpart, sizeof docpart, "document %zu", doc);
	if (item >= 0)
		snprintf(itempart, sizeof itempart, "%sitems[%ld]", doc > 0 ? ", " : "", item);
	if (name != NULL)
		snprintf(who, sizeof who, "%s%s %s%s%s", doc > 0 || item >= 0 ? ", " : "",
			 k >= 0 ? kind_names[k] : "object", ns ? ns : "", ns ? "/" : "", name);
	if (docpart[0] || itempart[0] || who[0])
		snprintf(buf, size, "%s (%s%s%s)", origin, docpart, itempart, who);
	else
		snprintf(buf, size, "%s", origin);
}

/* One object; with isolate a failure goes to o->bad and is not an error. */
static enum err one(struct dra_objects *o, const struct doc *d, int hint, const char *origin,
		    size_t doc, long item, bool isolate, struct errmsg *msg)
{
	int k = kind_of(d, hint);
	char where[1024], quoted[DOC_QUOTE_CAP];
	struct dra_bad_object *bad;
	const char *kind = peek(d, false, "kind");
	enum err rc;

	item_origin(where, sizeof where, origin, isolate ? doc : 0, item, k, d);
	if (d->kind != DOC_OBJECT) {
		errmsg_set(msg, "%s: expected an object, got %s", where, doc_kind_name(d));
		rc = ERR_INVALID;
	} else if (k < 0 && kind == NULL) {
		errmsg_set(msg, "%s: kind: missing", where);
		rc = ERR_INVALID;
	} else if (k < 0) {
		doc_quote(quoted, sizeof quoted, kind, strlen(kind));
		errmsg_set(msg, "%s: kind: %s: expected ResourceSlice, DeviceClass, ResourceClaim or "
			   "ResourceClaimTemplate", where, quoted);
		rc = ERR_INVALID;
	} else {
		rc = decode_one(o, k, d, where, msg);
	}
	if (rc == ERR_OK || !isolate)
		return rc;
	bad = append((void **)&o->bad, &o->nbad, sizeof *o->bad);
	bad->kind = xstrdup(k >= 0 ? kind_names[k] : kind ? kind : "");
	bad->name = xstrdup(peek(d, true, "name") ? peek(d, true, "name") : "");
	if (k >= 0 && namespaced[k] && peek(d, true, "namespace"))
		bad->namespace_ = xstrdup(peek(d, true, "namespace"));
	bad->message = xstrdup(msg->text);
	return ERR_OK;
}

static enum err list(struct dra_objects *o, const struct doc *d, int typed, const char *origin,
		     size_t doc, struct errmsg *msg)
{
	const struct doc *items = doc_lookup(d, "items");
	char where[1024];
	size_t i;
	enum err rc = ERR_OK;

	if (items != NULL && items->kind != DOC_ARRAY) {
		item_origin(where, sizeof where, origin, doc, -1, -1, d);
		errmsg_set(msg, "%s: items: expected an array, got %s", where, doc_kind_name(items));
		return ERR_INVALID;
	}
	for (i = 0; items != NULL && i < items->nchildren && rc == ERR_OK; i++)
		rc = one(o, items->children[i].value, typed, origin, doc, (long)i, true, msg);
	return rc;
}

/* Moves every object of from onto the end of to; from is left empty. */
static void move_all(struct dra_objects *to, struct dra_objects *from)
{
	size_t i;

	for (i = 0; i < from->nslices; i++)
		*(struct dra_slice *)append((void **)&to->slices, &to->nslices, sizeof *to->slices) =
			from->slices[i];
	for (i = 0; i < from->nclasses; i++)
		*(struct dra_class *)append((void **)&to->classes, &to->nclasses, sizeof *to->classes) =
			from->classes[i];
	for (i = 0; i < from->nclaims; i++)
		*(struct dra_claim *)append((void **)&to->claims, &to->nclaims, sizeof *to->claims) =
			from->claims[i];
	for (i = 0; i < from->ntemplates; i++)
		*(struct dra_claim *)append((void **)&to->templates, &to->ntemplates,
					    sizeof *to->templates) = from->templates[i];
	for (i = 0; i < from->nbad; i++)
		*(struct dra_bad_object *)append((void **)&to->bad, &to->nbad, sizeof *to->bad) =
			from->bad[i];
	free(from->slices);
	free(from->classes);
	free(from->claims);
	free(from->templates);
	free(from->bad);
	memset(from, 0, sizeof *from);
}

enum err dra_objects_decode(const char *buf, size_t len, const char *origin,
			    struct dra_objects *out, struct errmsg *msg)
{
	struct dra_objects got;
	struct doc **docs = NULL;
	size_t ndocs = 0, nonnull = 0, i;
	bool several;
	enum err rc;

	memset(&got, 0, sizeof got);
	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc != ERR_OK)
		return rc;
	for (i = 0; i < ndocs; i++)
		nonnull += !doc_is_null(docs[i]);
	several = nonnull > 1;
	for (i = 0; i < ndocs && !several; i++)
		several = !doc_is_null(docs[i]) && list_of(docs[i]) != -1;
	for (i = 0; i < ndocs && rc == ERR_OK; i++) {
		size_t doc = nonnull > 1 ? i + 1 : 0;
		int typed;

		if (doc_is_null(docs[i]))
			continue;
		typed = list_of(docs[i]);
		if (typed != -1)
			rc = list(&got, docs[i], typed, origin, doc, msg);
		else
			rc = one(&got, docs[i], -1, origin, doc, -1, several, msg);
	}
	if (rc == ERR_OK)
		move_all(out, &got);
	dra_objects_cleanup(&got);
	doc_free_all(docs, ndocs);
	return rc;
}

static enum err objects_text(const char *buf, size_t len, const char *origin, void *arg,
			     struct errmsg *msg)
{
	return dra_objects_decode(buf, len, origin, arg, msg);
}

enum err dra_objects_load(const char *path, struct dra_objects *out, struct errmsg *msg)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return file_read_dir(path, FILE_READ_DOC_MAX_BYTES, objects_text, out, msg);
	return file_read_with(path, FILE_READ_DOC_MAX_BYTES, objects_text, out, msg);
}
