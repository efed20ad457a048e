/* SPDX-License-Identifier: Apache-2.0 */
/* ExtenderArgs and ExtenderBindingArgs in (wire.h).
 *
 * A filter or prioritize body is scanned first (wire_scan.c). The common
 * request (a Pod and NodeNames of plain strings) is decoded from that pass:
 * the Pod's tree is built from its text (doc_from_text), by json-c only
 * where that gives up. Any other body is parsed whole by json-c. Only the
 * Pod member becomes a doc tree, for pod_decode_doc; names are copied into
 * one buffer; no json-c tree outlives wire_decode_args. */
#include "extender/codec/wire_internal.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/hash.h"
#include "extender/codec/doc.h"
#include "extender/codec/json_lex.h"
#include "extender/codec/pod_decode.h"
#include "base/xalloc.h"

static const char *kind_name(const struct json_object *jo)
{
	switch (json_object_get_type(jo)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
	case json_type_int:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "an array";
	case json_type_object:
		return "an object";
	}
	return "something else";
}

/* json-c with a depth limit, nothing allowed after the value. UTF-8 is left
 * to the scan, which checks it completely (json-c 0.16's check passes
 * overlong forms and surrogates). */
static enum err parse(const char *body, size_t len, struct json_object **root,
		      struct errmsg *msg)
{
	struct json_tokener *tok = json_tokener_new_ex(DOC_MAX_DEPTH);
	enum json_tokener_error jerr;
	enum err rc = ERR_OK;
	size_t end;

	if (tok == NULL)
		abort(); /* only fails when out of memory */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*root = json_tokener_parse_ex(tok, body, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* A top-level literal or number ("null", "7") waits for a
		 * delimiter; a NUL ends it. Anything else stays incomplete. */
		*root = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		if (jerr == json_tokener_success)
			end = len;
		else
			jerr = json_tokener_continue;
	}
	if (jerr == json_tokener_continue) {
		errmsg_set(msg, "invalid JSON at byte %zu: unexpected end of input", len);
		rc = ERR_PARSE;
	} else if (jerr != json_tokener_success) {
		errmsg_set(msg, "invalid JSON at byte %zu: %s", end,
			   json_tokener_error_desc(jerr));
		rc = ERR_PARSE;
	} else if (end != len) {
		/* json-c stops quietly at a NUL byte. */
		errmsg_set(msg, "invalid JSON at byte %zu: unexpected data after the value",
			   end);
		rc = ERR_PARSE;
	}
	json_tokener_free(tok);
	if (rc != ERR_OK) {
		json_object_put(*root);
		*root = NULL;
	}
	return rc;
}

/* A request body that must be one JSON object, args naming it in the
 * message: *root, which the caller puts (NULL when it does not parse). */
static enum err parse_object(const char *body, size_t len, const char *args,
			     struct json_object **root, struct errmsg *msg)
{
	enum err rc;

	*root = NULL;
	if (len > INT_MAX) {
		errmsg_set(msg, "request body larger than %d bytes", INT_MAX);
		return ERR_TOO_LARGE;
	}
	rc = parse(body, len, root, msg);
	if (rc != ERR_OK)
		return rc;
	if (!json_object_is_type(*root, json_type_object)) {
		errmsg_set(msg, "%s: expected an object, got %s", args, kind_name(*root));
		return ERR_INVALID;
	}
	return ERR_OK;
}

/* Checks one node name; path is printed as list[i]field. */
static enum err check_name(struct json_object *jo, const char *list, size_t i,
			   const char *field, struct errmsg *msg)
{
	size_t n;

	if (!json_object_is_type(jo, json_type_string)) {
		errmsg_set(msg, "%s[%zu]%s: expected a string", list, i, field);
		return ERR_INVALID;
	}
	n = (size_t)json_object_get_string_len(jo);
	if (n == 0) {
		errmsg_set(msg, "%s[%zu]%s: must not be empty", list, i, field);
		return ERR_INVALID;
	}
	/* A C string would silently cut the name short. */
	if (memchr(json_object_get_string(jo), '\0', n) != NULL) {
		errmsg_set(msg, "%s[%zu]%s: contains a NUL byte", list, i, field);
		return ERR_INVALID;
	}
	return ERR_OK;
}

/* Marks names that repeat an earlier one, given their hashes (base/hash.h,
 * whose low bits pick the slot), with an open-addressing set of name
 * indexes at most two-thirds full: O(n), and 32 KiB at 5000 names, small
 * enough to stay in cache. Indexes fit in 32 bits: every name costs at
 * least 3 bytes of a body below INT_MAX bytes. */
static void find_repeats(struct wire_args *a, const uint32_t *hash)
{
	uint32_t *t; /* index + 1; 0 is empty */
	size_t cap = 16, mask, i;

	if (a->nnames < 2)
		return;
	while (cap < a->nnames + a->nnames / 2)
		cap *= 2;
	mask = cap - 1;
	t = xcalloc(cap, sizeof *t);
	for (i = 0; i < a->nnames; i++) {
		size_t j;

		for (j = hash[i] & mask; t[j] != 0; j = (j + 1) & mask) {
			if (hash[t[j] - 1] == hash[i] &&
			    strcmp(a->names[t[j] - 1], a->names[i]) == 0)
				break;
		}
		if (t[j] == 0) {
			t[j] = (uint32_t)(i + 1);
			continue;
		}
		if (a->_repeat == NULL)
			a->_repeat = xcalloc(a->nnames, 1);
		a->_repeat[i] = 1;
	}
	free(t);
}

/* Copies n checked names (text[i], lens[i] bytes) into a, back to back in
 * one buffer (two allocations, not n), and marks repeats, hashing each name
 * while it is at hand. */
static void take_name_spans(struct wire_args *a, const char *const *text, const size_t *lens,
			    size_t n)
{
	size_t i, total = 0, off = 0;
	uint32_t *hash = xcalloc(n + 1, sizeof *hash);

	for (i = 0; i < n; i++)
		total += lens[i] + 1;
	a->names = xcalloc(n + 1, sizeof *a->names);
	a->_name_text = xmalloc(total ? total : 1);
	for (i = 0; i < n; i++) {
		memcpy(a->_name_text + off, text[i], lens[i]);
		a->_name_text[off + lens[i]] = '\0';
		a->names[i] = a->_name_text + off;
		hash[i] = (uint32_t)hash_bytes(a->names[i], lens[i]);
		off += lens[i] + 1;
	}
	a->nnames = n;
	a->_name_size = total;
	find_repeats(a, hash);
	free(hash);
}

static void take_names(struct wire_args *a, struct json_object *const *objs,
		       size_t n)
{
	const char **text = xcalloc(n + 1, sizeof *text);
	size_t *lens = xcalloc(n + 1, sizeof *lens), i;

	for (i = 0; i < n; i++) {
		text[i] = json_object_get_string(objs[i]);
		lens[i] = (size_t)json_object_get_string_len(objs[i]);
	}
	take_name_spans(a, text, lens, n);
	free(text);
	free(lens);
}

static enum err decode_names(struct json_object *arr, struct wire_args *a,
			     struct errmsg *msg)
{
	struct json_object **objs;
	size_t i, n;
	enum err rc = ERR_OK;

	if (!json_object_is_type(arr, json_type_array)) {
		errmsg_set(msg, "NodeNames: expected an array, got %s", kind_name(arr));
		return ERR_INVALID;
	}
	n = json_object_array_length(arr);
	objs = xcalloc(n + 1, sizeof *objs);
	for (i = 0; i < n && rc == ERR_OK; i++) {
		objs[i] = json_object_array_get_idx(arr, i);
		rc = check_name(objs[i], "NodeNames", i, "", msg);
	}
	if (rc == ERR_OK)
		take_names(a, objs, n);
	free(objs);
	return rc;
}

/* Takes the items' names and their exact source text, found by the scan. */
static enum err decode_node_list(struct json_object *list, const struct wire_scan *sc,
				 struct wire_args *a, struct errmsg *msg)
{
	struct json_object *items, **objs = NULL;
	size_t i, n, total = 0, off = 0;
	enum err rc = ERR_OK;

	if (!json_object_is_type(list, json_type_object)) {
		errmsg_set(msg, "Nodes: expected an object, got %s", kind_name(list));
		return ERR_INVALID;
	}
	if (!json_object_object_get_ex(list, "items", &items)) {
		errmsg_set(msg, "Nodes.items: missing");
		return ERR_INVALID;
	}
	if (!json_object_is_type(items, json_type_array)) {
		errmsg_set(msg, "Nodes.items: expected an array, got %s",
			   kind_name(items));
		return ERR_INVALID;
	}
	n = json_object_array_length(items);
	objs = xcalloc(n + 1, sizeof *objs);
	for (i = 0; i < n && rc == ERR_OK; i++) {
		struct json_object *item = json_object_array_get_idx(items, i);
		struct json_object *md = NULL;

		rc = ERR_INVALID;
		if (!json_object_is_type(item, json_type_object))
			errmsg_set(msg, "Nodes.items[%zu]: expected an object, got %s",
				   i, kind_name(item));
		else if (!json_object_object_get_ex(item, "metadata", &md) || md == NULL)
			errmsg_set(msg, "Nodes.items[%zu].metadata: missing", i);
		else if (!json_object_is_type(md, json_type_object))
			errmsg_set(msg, "Nodes.items[%zu].metadata: expected an object, got %s",
				   i, kind_name(md));
		else if (!json_object_object_get_ex(md, "name", &objs[i]) ||
			 objs[i] == NULL)
			errmsg_set(msg, "Nodes.items[%zu].metadata.name: missing", i);
		else
			rc = check_name(objs[i], "Nodes.items", i, ".metadata.name", msg);
	}
	if (rc != ERR_OK)
		goto out;
	/* Not expected: both read the same accepted text. Refuse rather than
	 * echo the wrong bytes. */
	if (!sc->has_items || sc->nitems != n) {
		errmsg_set(msg, "invalid JSON: Nodes.items out of step with the parser");
		rc = ERR_PARSE;
		goto out;
	}
	take_names(a, objs, n);
	for (i = 0; i < n; i++)
		total += sc->items[2 * i + 1] - sc->items[2 * i];
	a->_items = xmalloc(total ? total : 1);
	a->_item_end = xcalloc(n + 1, sizeof *a->_item_end);
	for (i = 0; i < n; i++) {
		size_t len = sc->items[2 * i + 1] - sc->items[2 * i];

		memcpy(a->_items + off, sc->b + sc->items[2 * i], len);
		off += len;
		a->_item_end[i] = off;
	}
out:
	free(objs);
	return rc;
}

/* pod_decode_doc writes "Pod: spec.containers[0]...: problem"; the path
 * reads better as one, "Pod.spec.containers[0]...". Only a message that
 * starts with a pod field is rewritten. */
static void pod_path(struct errmsg *msg)
{
	static const char *const fields[] = { "metadata", "spec", "status", "kind" };
	char *p;
	size_t i;

	if (msg == NULL || strncmp(msg->text, "Pod: ", 5) != 0)
		return;
	p = msg->text + 5;
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		size_t n = strlen(fields[i]);

		if (strncmp(p, fields[i], n) == 0 && p[n] != '\0' &&
		    strchr(".[:", p[n]) != NULL) {
			msg->text[3] = '.';
			memmove(msg->text + 4, p, strlen(p) + 1);
			return;
		}
	}
}

/* Quantity syntax and range errors become ERR_INVALID too: the JSON was
 * fine, the pod is not usable, and the scheduler should hear why. */
static enum err pod_error(enum err rc, struct errmsg *msg)
{
	if (rc == ERR_OK)
		return rc;
	pod_path(msg);
	return ERR_INVALID;
}

/* The pod of tree d and, with dra, its DRA claims (the tree holds what
 * both decoders read: pod_fields). */
static enum err pod_of_doc(const struct doc *d, struct pod_spec *pod, struct dra_pod_claims *dra,
			   struct errmsg *msg)
{
	enum err rc = pod_error(pod_decode_doc(d, "Pod", pod, msg), msg);

	if (rc != ERR_OK || dra == NULL)
		return rc;
	rc = dra_pod_claims_decode(d, "Pod", dra, msg);
	if (rc != ERR_OK) {
		pod_spec_cleanup(pod);
		memset(pod, 0, sizeof *pod);
	}
	return pod_error(rc, msg);
}

static enum err decode_pod(struct json_object *jo, struct pod_spec *pod, struct dra_pod_claims *dra,
			   struct errmsg *msg)
{
	struct doc *d = NULL;
	enum err rc;

	if (doc_from_json_kept(jo, pod_fields, &d, msg) != ERR_OK) {
		memset(pod, 0, sizeof *pod);
		errmsg_prefix(msg, "Pod: ");
		return pod_error(ERR_INVALID, msg);
	}
	rc = pod_of_doc(d, pod, dra, msg);
	doc_free(d);
	return rc;
}

/* The Pod [ps, pe) of a scanned body, its tree built from the text
 * (doc_from_text) or, where that gives up, by json-c: the same tree either
 * way. 0: the Pod did not parse on its own, take the general path. */
int wire_decode_pod_text(const char *body, size_t ps, size_t pe, struct pod_spec *pod,
			 struct dra_pod_claims *dra, enum err *rc, struct errmsg *msg)
{
	struct json_tokener *tok;
	struct json_object *jo;
	struct doc *d;

	if (doc_from_text(body + ps, pe - ps, pod_fields, &d)) {
		*rc = pod_of_doc(d, pod, dra, msg);
		doc_free(d);
		return 1;
	}
	tok = json_tokener_new_ex(DOC_MAX_DEPTH);
	if (tok == NULL)
		abort(); /* only fails when out of memory */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	jo = json_tokener_parse_ex(tok, body + ps, (int)(pe - ps));
	if (jo == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != pe - ps) {
		json_object_put(jo);
		json_tokener_free(tok);
		return 0;
	}
	json_tokener_free(tok);
	*rc = decode_pod(jo, pod, dra, msg);
	json_object_put(jo);
	return 1;
}

/* The names of a NodeNames array [start, end) of body when every element is
 * a non-empty string without escapes (what kube-scheduler sends); false
 * otherwise, for the general path and its exact messages. The scan already
 * checked the syntax and the UTF-8, and raw control bytes (NUL among them)
 * cannot appear in a string it accepted. */
static bool plain_names(const char *body, size_t start, size_t end, const char ***text,
			size_t **lens, size_t *n)
{
	size_t i = start + 1, cap = 0;

	*text = NULL;
	*lens = NULL;
	*n = 0;
	for (;;) {
		const char *q;

		i = json_ws_end(body, i, end);
		if (i < end && body[i] == ']' && *n == 0)
			return true;
		if (i >= end || body[i] != '"')
			return false;
		q = memchr(body + i + 1, '"', end - i - 1);
		if (q == NULL || q == body + i + 1 || memchr(body + i + 1, '\\', (size_t)(q - body) - i - 1))
			return false;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*text = xreallocarray(*text, cap, sizeof **text);
			*lens = xreallocarray(*lens, cap, sizeof **lens);
		}
		(*text)[*n] = body + i + 1;
		(*lens)[*n] = (size_t)(q - body) - i - 1;
		(*n)++;
		i = json_ws_end(body, (size_t)(q - body) + 1, end);
		if (i < end && body[i] == ',') {
			i++;
			continue;
		}
		return i < end && body[i] == ']';
	}
}

/* The common request without json-c's tree of every name: a scanned body
 * with Pod an object, Nodes absent or null and NodeNames plain strings. Only
 * the Pod becomes a tree, mostly without json-c. 1: decoded (or 0 > rc: the
 * pod's own error, the same the general path gives); 0: not that request,
 * take the general path. */
static int decode_common(const struct wire_scan *sc, const char *body, struct wire_args *out,
			 enum err *rc, struct errmsg *msg)
{
	const size_t *start = sc->vstart, *end = sc->vend;
	const char **text;
	size_t *lens, n;

	if (sc->nul_key || sc->conflict >= 0 || body[0] != '{' || !sc->seen[WIRE_FIELD_POD] ||
	    !sc->seen[WIRE_FIELD_NODE_NAMES] || body[start[WIRE_FIELD_POD]] != '{' ||
	    body[start[WIRE_FIELD_NODE_NAMES]] != '[' ||
	    (sc->seen[WIRE_FIELD_NODES] &&
	     (end[WIRE_FIELD_NODES] - start[WIRE_FIELD_NODES] != 4 ||
	      memcmp(body + start[WIRE_FIELD_NODES], "null", 4) != 0)))
		return 0;
	if (!plain_names(body, start[WIRE_FIELD_NODE_NAMES], end[WIRE_FIELD_NODE_NAMES], &text, &lens, &n))
		goto general;
	if (!wire_decode_pod_text(body, start[WIRE_FIELD_POD], end[WIRE_FIELD_POD], &out->pod, &out->dra,
				  rc, msg))
		goto general;
	if (*rc == ERR_OK) {
		out->mode = WIRE_NODE_NAMES;
		take_name_spans(out, text, lens, n);
	}
	free(text);
	free(lens);
	return 1;
general:
	free(text);
	free(lens);
	return 0;
}

enum err wire_decode_args(const char *body, size_t len, struct wire_args *out,
			  struct errmsg *msg)
{
	return wire_decode_args_via(body, len, out, msg, true);
}

enum err wire_decode_args_via(const char *body, size_t len, struct wire_args *out,
			      struct errmsg *msg, bool common)
{
	struct json_object *root = NULL, *val[WIRE_NFIELDS] = { NULL };
	struct wire_scan sc;
	bool scanned;
	enum err rc;
	int f;

	memset(out, 0, sizeof *out);
	if (len > INT_MAX) {
		errmsg_set(msg, "request body larger than %d bytes", INT_MAX);
		return ERR_TOO_LARGE;
	}
	/* The scan first, once: a body it accepts in the common shape needs
	 * no json-c tree of its names. Anything else goes the general way,
	 * json-c's verdict first, so that every message stays what it was. */
	scanned = wire_scan(&sc, body, len, true);
	if (scanned && common && decode_common(&sc, body, out, &rc, msg)) {
		wire_scan_free(&sc);
		if (rc != ERR_OK)
			wire_args_cleanup(out);
		return rc;
	}
	rc = parse(body, len, &root, msg);
	if (rc != ERR_OK)
		goto out;
	if (!scanned) {
		errmsg_set(msg, "invalid JSON at byte %zu: %s", sc.bad, sc.problem);
		rc = ERR_PARSE;
		goto out;
	}
	rc = ERR_INVALID;
	if (sc.nul_key) {
		errmsg_set(msg, "an object key holds \\u0000, which cannot be decoded faithfully");
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		errmsg_set(msg, "ExtenderArgs: expected an object, got %s", kind_name(root));
		goto out;
	}
	if (sc.conflict >= 0) {
		char a[DOC_QUOTE_CAP], b[DOC_QUOTE_CAP];

		doc_quote(a, sizeof a, sc.spelling[sc.conflict],
			  strlen(sc.spelling[sc.conflict]));
		doc_quote(b, sizeof b, sc.conflict_key, strlen(sc.conflict_key));
		errmsg_set(msg, "%s given twice, as %s and %s",
			   wire_field_names[sc.conflict], a, b);
		goto out;
	}
	for (f = 0; f < WIRE_NFIELDS; f++) {
		/* The scan saw the key, so json-c holds it under the same
		 * decoded spelling (keys with a NUL were refused above). */
		if (sc.seen[f] && !json_object_object_get_ex(root, sc.spelling[f], &val[f])) {
			errmsg_set(msg, "invalid JSON: %s out of step with the parser",
				   wire_field_names[f]);
			rc = ERR_PARSE;
			goto out;
		}
	}
	if (!sc.seen[WIRE_FIELD_POD]) {
		errmsg_set(msg, "Pod: missing");
		goto out;
	}
	if (!json_object_is_type(val[WIRE_FIELD_POD], json_type_object)) {
		errmsg_set(msg, "Pod: expected an object, got %s",
			   kind_name(val[WIRE_FIELD_POD]));
		goto out;
	}
	/* json-c holds null as a NULL pointer; absent reads the same, as Go
	 * leaves the pointer nil. */
	if (val[WIRE_FIELD_NODES] == NULL && val[WIRE_FIELD_NODE_NAMES] == NULL) {
		errmsg_set(msg, "Nodes and NodeNames are both null");
		goto out;
	}
	if (val[WIRE_FIELD_NODES] != NULL && val[WIRE_FIELD_NODE_NAMES] != NULL) {
		errmsg_set(msg, "Nodes and NodeNames are both set");
		goto out;
	}
	rc = decode_pod(val[WIRE_FIELD_POD], &out->pod, &out->dra, msg);
	if (rc != ERR_OK)
		goto out;
	if (val[WIRE_FIELD_NODE_NAMES] != NULL) {
		out->mode = WIRE_NODE_NAMES;
		rc = decode_names(val[WIRE_FIELD_NODE_NAMES], out, msg);
	} else {
		out->mode = WIRE_NODE_LIST;
		rc = decode_node_list(val[WIRE_FIELD_NODES], &sc, out, msg);
	}
out:
	json_object_put(root);
	wire_scan_free(&sc);
	if (rc != ERR_OK)
		wire_args_cleanup(out);
	return rc;
}

void wire_args_cleanup(struct wire_args *a)
{
	if (a == NULL)
		return;
	pod_spec_cleanup(&a->pod);
	dra_pod_claims_cleanup(&a->dra);
	free(a->names);
	free(a->_name_text);
	free(a->_repeat);
	free(a->_items);
	free(a->_item_end);
	memset(a, 0, sizeof *a);
}

enum err wire_decode_binding(const char *body, size_t len, struct wire_binding *out,
			     struct errmsg *msg)
{
	static const char *const names[4] = { "PodName", "PodNamespace", "PodUID", "Node" };
	struct json_object *root = NULL;
	char **slots[4];
	enum err rc;
	int f;

	memset(out, 0, sizeof *out);
	slots[0] = &out->pod_name;
	slots[1] = &out->pod_namespace;
	slots[2] = &out->pod_uid;
	slots[3] = &out->node;
	rc = parse_object(body, len, "ExtenderBindingArgs", &root, msg);
	if (rc != ERR_OK)
		goto out;
	rc = ERR_INVALID;
	json_object_object_foreach(root, key, val) {
		for (f = 0; f < 4; f++) {
			if (!wire_fold_equal(key, strlen(key), names[f]))
				continue;
			if (!json_object_is_type(val, json_type_string)) {
				errmsg_set(msg, "%s: expected a string, got %s", names[f], kind_name(val));
				goto out;
			}
			free(*slots[f]);
			*slots[f] = xstrdup(json_object_get_string(val));
		}
	}
	if (out->pod_name == NULL || *out->pod_name == '\0') {
		errmsg_set(msg, "PodName: missing");
		goto out;
	}
	if (out->node == NULL || *out->node == '\0') {
		errmsg_set(msg, "Node: missing");
		goto out;
	}
	if (out->pod_namespace == NULL || *out->pod_namespace == '\0') {
		free(out->pod_namespace);
		out->pod_namespace = xstrdup("default");
	}
	if (out->pod_uid == NULL)
		out->pod_uid = xstrdup("");
	rc = ERR_OK;
out:
	json_object_put(root);
	if (rc != ERR_OK)
		wire_binding_cleanup(out);
	return rc;
}

void wire_binding_cleanup(struct wire_binding *b)
{
	free(b->pod_name);
	free(b->pod_namespace);
	free(b->pod_uid);
	free(b->node);
	memset(b, 0, sizeof *b);
}
