/* SPDX-License-Identifier: Apache-2.0 */
/* ExtenderArgs in, ExtenderFilterResult and HostPriorityList out.
 *
 * Decoding first makes one strict pass over the text for what json-c lets
 * through or hides: forms outside RFC 8259 that its strict mode still
 * takes, UTF-8 its validator passes (overlong forms, surrogates), keys
 * holding \u0000 (json-c cuts keys at the NUL), the spelling of each
 * top-level key, and where each NodeList item starts and ends, so passing
 * items go back to the scheduler byte for byte instead of being
 * re-serialised. The common request (a Pod and NodeNames of plain strings)
 * is decoded from that pass: the Pod's tree is built from its text
 * (doc_from_text), by json-c only where that gives up. Any other body is
 * parsed whole by json-c. Only the Pod member becomes a doc tree, for
 * pod_decode_doc; names are copied into one buffer; no json-c tree outlives
 * wire_decode_args.
 *
 * Replies are written with a small string builder, not json-c objects: they
 * are a fixed shape around the caller's strings and the request's bytes. */
#include "extender/codec/wire.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "extender/codec/doc.h"
#include "extender/codec/pod_decode.h"
#include "base/xalloc.h"
#include "extender/codec/json_lex.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"

/* ExtenderArgs' fields. */
enum field { FIELD_POD, FIELD_NODES, FIELD_NODE_NAMES, NFIELDS };

static const char *const field_names[NFIELDS] = { "Pod", "Nodes", "NodeNames" };

/* Room for a decoded key that can still name a field: "NodeNames" with every
 * 's' spelled as the two-byte U+017F is 11 bytes. Longer keys name nothing
 * here and are not decoded. */
#define KEY_MAX 31

/* ---- UTF-8 and JSON text ---------------------------------------------- */

/* White space, numbers, strings, hex digits and UTF-8 are lexed by
 * json_lex.c (shared with the Pod's builder, doc_text.c, and the string
 * writer, json_write.c): one definition for what we read and what we
 * write. */

/* A key that can still name a field, decoded as json-c decodes keys (a lone
 * surrogate becomes U+FFFD); SIZE_MAX when longer. */
static size_t decode_key(const char *s, size_t n, char out[KEY_MAX + 1])
{
	return json_unescape(s, n, out, KEY_MAX, JSON_LONE_REPLACE);
}

/* ---- Field names ------------------------------------------------------- */

static char ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Whether key[0..n) equals name under Go's encoding/json folding (Unicode
 * simple folding): ASCII case, and U+017F LATIN SMALL LETTER LONG S for 's'.
 * The other non-ASCII fold into ASCII, U+212A KELVIN SIGN, is a 'k', which no
 * field name holds. */
static bool fold_equal(const char *key, size_t n, const char *name)
{
	size_t i = 0;

	for (; *name != '\0'; name++) {
		if (i < n && ascii_upper(key[i]) == ascii_upper(*name)) {
			i++;
		} else if ((*name == 's' || *name == 'S') && n - i >= 2 &&
			   (unsigned char)key[i] == 0xC5 &&
			   (unsigned char)key[i + 1] == 0xBF) {
			i += 2;
		} else {
			return false;
		}
	}
	return i == n;
}

/* The field a top-level key sets, or -1. Go looks for an exact match first,
 * then a folded one; with these three names no two fold alike, so any match
 * is the match. */
static int field_of(const char *key, size_t n)
{
	int f;

	for (f = 0; f < NFIELDS; f++) {
		if (fold_equal(key, n, field_names[f]))
			return f;
	}
	return -1;
}

/* ---- The pass over the text -------------------------------------------- */

enum role {
	ROLE_VALUE,     /* nothing to note */
	ROLE_TOP,       /* the ExtenderArgs object: note key spellings */
	ROLE_NODE_LIST, /* the value of Nodes: look for items */
	ROLE_ITEMS,     /* Nodes.items: note where each item is */
};

struct scan {
	const char *b;
	size_t len;
	size_t pos;
	const char *problem; /* the first one found; NULL while none */
	size_t bad;          /* its byte offset */
	bool nul_key;        /* some key spells \u0000 */
	/* How each field was spelled the first time it appeared; a second,
	 * different spelling is a conflict (Go would merge or overwrite). */
	char spelling[NFIELDS][KEY_MAX + 1];
	bool seen[NFIELDS];
	/* Where the last value of each field lies: [vstart, vend). */
	size_t vstart[NFIELDS], vend[NFIELDS];
	int conflict; /* the field spelled two ways, or -1 */
	char conflict_key[KEY_MAX + 1];
	/* Item spans [start, end) of the last items array of the last Nodes
	 * object, the one json-c keeps (it keeps the last of duplicate keys). */
	size_t *items;
	size_t nitems;
	size_t cap;
	bool has_items;
};

static bool scan_fail(struct scan *sc, size_t at, const char *problem)
{
	if (sc->problem == NULL) {
		sc->problem = problem;
		sc->bad = at;
	}
	return false;
}

static void scan_ws(struct scan *sc)
{
	sc->pos = json_ws_end(sc->b, sc->pos, sc->len);
}

/* A double-quoted string at sc->pos (json_lex.c holds the rules). */
static bool scan_string(struct scan *sc, bool key)
{
	size_t at;
	unsigned flags;

	switch (json_string_scan((const unsigned char *)sc->b, sc->pos, sc->len, true, &at, &flags)) {
	case JSON_STR_OK:
		if (key && (flags & JSON_STR_NUL))
			sc->nul_key = true;
		sc->pos = at;
		return true;
	case JSON_STR_UNTERMINATED:
		return scan_fail(sc, at, "unterminated string");
	case JSON_STR_BAD_ESCAPE:
		return scan_fail(sc, at, "bad escape");
	case JSON_STR_CONTROL:
		return scan_fail(sc, at, "unescaped control character in a string");
	case JSON_STR_BAD_UTF8:
		break;
	}
	return scan_fail(sc, at, "invalid UTF-8");
}

/* A literal or number. json-c also takes NaN, Infinity, -Infinity and "1."
 * in strict mode; Go does not, and echoing them would hand the scheduler a
 * reply it cannot read. */
static bool scan_scalar(struct scan *sc)
{
	size_t start = sc->pos, n;
	bool real;
	const char *t = sc->b + start;

	while (sc->pos < sc->len && strchr(" \t\n\r,]}:", sc->b[sc->pos]) == NULL)
		sc->pos++;
	n = sc->pos - start;
	if ((n == 4 && memcmp(t, "true", 4) == 0) ||
	    (n == 5 && memcmp(t, "false", 5) == 0) ||
	    (n == 4 && memcmp(t, "null", 4) == 0) || (n > 0 && json_number_len(t, n, &real) == n))
		return true;
	return scan_fail(sc, start, "not a JSON value (NaN, Infinity or a malformed number)");
}

static bool scan_value(struct scan *sc, unsigned depth, enum role role);

static void note_field(struct scan *sc, int f, const char *key, size_t n)
{
	if (!sc->seen[f]) {
		memcpy(sc->spelling[f], key, n + 1);
		sc->seen[f] = true;
	} else if (strcmp(sc->spelling[f], key) != 0 && sc->conflict < 0) {
		sc->conflict = f;
		memcpy(sc->conflict_key, key, n + 1);
	}
}

static bool scan_object(struct scan *sc, unsigned depth, enum role role)
{
	if (depth > DOC_MAX_DEPTH)
		return scan_fail(sc, sc->pos, "nesting too deep");
	if (role == ROLE_NODE_LIST) {
		sc->nitems = 0;
		sc->has_items = false;
	}
	sc->pos++;
	scan_ws(sc);
	if (sc->pos < sc->len && sc->b[sc->pos] == '}') {
		sc->pos++;
		return true;
	}
	for (;;) {
		enum role child = ROLE_VALUE;
		size_t kstart;
		int field = -1;

		scan_ws(sc);
		if (sc->pos < sc->len && sc->b[sc->pos] == '\'')
			return scan_fail(sc, sc->pos, "single-quoted key");
		if (sc->pos >= sc->len || sc->b[sc->pos] != '"')
			return scan_fail(sc, sc->pos, "expected a key");
		kstart = sc->pos;
		if (!scan_string(sc, true))
			return false;
		if (role == ROLE_TOP || role == ROLE_NODE_LIST) {
			char key[KEY_MAX + 1];
			size_t n = decode_key(sc->b + kstart + 1,
					      sc->pos - kstart - 2, key);
			int f;

			if (n != SIZE_MAX && role == ROLE_TOP &&
			    (f = field_of(key, n)) >= 0) {
				note_field(sc, f, key, n);
				field = f;
				if (f == FIELD_NODES)
					child = ROLE_NODE_LIST;
			} else if (n == 5 && role == ROLE_NODE_LIST &&
				   memcmp(key, "items", 5) == 0) {
				child = ROLE_ITEMS;
			}
		}
		scan_ws(sc);
		if (sc->pos >= sc->len || sc->b[sc->pos] != ':')
			return scan_fail(sc, sc->pos, "expected ':'");
		sc->pos++;
		scan_ws(sc);
		if (field >= 0)
			sc->vstart[field] = sc->pos;
		if (!scan_value(sc, depth, child))
			return false;
		if (field >= 0)
			sc->vend[field] = sc->pos;
		scan_ws(sc);
		if (sc->pos < sc->len && sc->b[sc->pos] == ',') {
			sc->pos++;
		} else if (sc->pos < sc->len && sc->b[sc->pos] == '}') {
			sc->pos++;
			return true;
		} else {
			return scan_fail(sc, sc->pos, "expected ',' or '}'");
		}
	}
}

static bool scan_array(struct scan *sc, unsigned depth, enum role role)
{
	if (depth > DOC_MAX_DEPTH)
		return scan_fail(sc, sc->pos, "nesting too deep");
	if (role == ROLE_ITEMS) {
		sc->nitems = 0;
		sc->has_items = true;
	}
	sc->pos++;
	scan_ws(sc);
	if (sc->pos < sc->len && sc->b[sc->pos] == ']') {
		sc->pos++;
		return true;
	}
	for (;;) {
		size_t start;
		bool ok;

		scan_ws(sc);
		start = sc->pos;
		/* Strings straight away: NodeNames is most of a names-mode
		 * body. */
		if (sc->pos < sc->len && sc->b[sc->pos] == '"')
			ok = scan_string(sc, false);
		else
			ok = scan_value(sc, depth, ROLE_VALUE);
		if (!ok)
			return false;
		if (role == ROLE_ITEMS) {
			if (sc->nitems == sc->cap) {
				sc->cap = sc->cap ? sc->cap * 2 : 64;
				sc->items = xreallocarray(sc->items, sc->cap,
							  2 * sizeof *sc->items);
			}
			sc->items[2 * sc->nitems] = start;
			sc->items[2 * sc->nitems + 1] = sc->pos;
			sc->nitems++;
		}
		scan_ws(sc);
		if (sc->pos < sc->len && sc->b[sc->pos] == ',') {
			sc->pos++;
		} else if (sc->pos < sc->len && sc->b[sc->pos] == ']') {
			sc->pos++;
			return true;
		} else {
			return scan_fail(sc, sc->pos, "expected ',' or ']'");
		}
	}
}

/* One value; role applies only when the value has the expected kind. The
 * recursion is bounded by json-c's depth limit, and checked again here. */
static bool scan_value(struct scan *sc, unsigned depth, enum role role)
{
	scan_ws(sc);
	if (sc->pos >= sc->len)
		return scan_fail(sc, sc->pos, "unexpected end of input");
	switch (sc->b[sc->pos]) {
	case '{':
		return scan_object(sc, depth + 1,
				   role == ROLE_TOP || role == ROLE_NODE_LIST ? role
									     : ROLE_VALUE);
	case '[':
		return scan_array(sc, depth + 1,
				  role == ROLE_ITEMS ? role : ROLE_VALUE);
	case '"':
		return scan_string(sc, false);
	default:
		return scan_scalar(sc);
	}
}

/* ---- Decoding ---------------------------------------------------------- */

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

/* A hash of a name, a word at a time: FNV-1a byte by byte, and strlen plus
 * a variable-length memcpy for the tail, each cost more than the table. */
static uint32_t name_hash(const char *s, size_t n)
{
	const uint64_t k = 0x9E3779B97F4A7C15u;
	uint64_t h = n * k, w = 0;
	size_t i;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	w = 0;
	for (i = 0; i < n; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	h = (h ^ w) * k;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* Marks names that repeat an earlier one, given their hashes, with an
 * open-addressing set of name indexes at most two-thirds full: O(n), and
 * 32 KiB at 5000 names, small enough to stay in cache. Indexes fit in 32
 * bits: every name costs at least 3 bytes of a body below INT_MAX bytes. */
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

/* Copies n checked name strings into one buffer (two allocations, not n)
 * and marks repeats, hashing each name while it is at hand. */
/* Copies n names (text[i], lens[i] bytes) into a, back to back. */
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
		hash[i] = name_hash(a->names[i], lens[i]);
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
static enum err decode_node_list(struct json_object *list, const struct scan *sc,
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

static enum err decode_pod(struct json_object *jo, struct pod_spec *pod,
			   struct errmsg *msg)
{
	return pod_error(pod_decode_json(jo, "Pod", pod, msg), msg);
}

/* The Pod [ps, pe) of a scanned body, its tree built from the text
 * (doc_from_text) or, where that gives up, by json-c: the same tree either
 * way. 0: the Pod did not parse on its own, take the general path. */
static int decode_pod_text(const char *body, size_t ps, size_t pe, struct pod_spec *pod,
			   enum err *rc, struct errmsg *msg)
{
	struct json_tokener *tok;
	struct json_object *jo;
	struct doc *d;

	if (doc_from_text(body + ps, pe - ps, pod_fields, &d)) {
		*rc = pod_error(pod_decode_doc(d, "Pod", pod, msg), msg);
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
	*rc = decode_pod(jo, pod, msg);
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
static int decode_common(const struct scan *sc, const char *body, struct wire_args *out,
			 enum err *rc, struct errmsg *msg)
{
	const char **text;
	size_t *lens, n;

	if (sc->nul_key || sc->conflict >= 0 || body[0] != '{' || !sc->seen[FIELD_POD] ||
	    !sc->seen[FIELD_NODE_NAMES] || body[sc->vstart[FIELD_POD]] != '{' ||
	    body[sc->vstart[FIELD_NODE_NAMES]] != '[' ||
	    (sc->seen[FIELD_NODES] && (sc->vend[FIELD_NODES] - sc->vstart[FIELD_NODES] != 4 ||
				       memcmp(body + sc->vstart[FIELD_NODES], "null", 4) != 0)))
		return 0;
	if (!plain_names(body, sc->vstart[FIELD_NODE_NAMES], sc->vend[FIELD_NODE_NAMES], &text, &lens, &n))
		goto general;
	if (!decode_pod_text(body, sc->vstart[FIELD_POD], sc->vend[FIELD_POD], &out->pod, rc, msg))
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

/* Tests compare the two paths: false sends every request the general way. */
bool wire_common_path = true;

enum err wire_decode_args(const char *body, size_t len, struct wire_args *out,
			  struct errmsg *msg)
{
	struct json_object *root = NULL, *val[NFIELDS] = { NULL };
	struct scan sc;
	bool scanned;
	enum err rc;
	int f;

	memset(out, 0, sizeof *out);
	memset(&sc, 0, sizeof sc);
	sc.b = body;
	sc.len = len;
	sc.conflict = -1;
	if (len > INT_MAX) {
		errmsg_set(msg, "request body larger than %d bytes", INT_MAX);
		return ERR_TOO_LARGE;
	}
	/* The scan first, once: a body it accepts in the common shape needs
	 * no json-c tree of its names. Anything else goes the general way,
	 * json-c's verdict first, so that every message stays what it was. */
	scanned = scan_value(&sc, 0, ROLE_TOP) && (scan_ws(&sc), sc.pos == len);
	if (!scanned)
		scan_fail(&sc, sc.pos, "unexpected data after the value");
	else if (wire_common_path && decode_common(&sc, body, out, &rc, msg)) {
		free(sc.items);
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
			   field_names[sc.conflict], a, b);
		goto out;
	}
	for (f = 0; f < NFIELDS; f++) {
		/* The scan saw the key, so json-c holds it under the same
		 * decoded spelling (keys with a NUL were refused above). */
		if (sc.seen[f] && !json_object_object_get_ex(root, sc.spelling[f], &val[f])) {
			errmsg_set(msg, "invalid JSON: %s out of step with the parser",
				   field_names[f]);
			rc = ERR_PARSE;
			goto out;
		}
	}
	if (!sc.seen[FIELD_POD]) {
		errmsg_set(msg, "Pod: missing");
		goto out;
	}
	if (!json_object_is_type(val[FIELD_POD], json_type_object)) {
		errmsg_set(msg, "Pod: expected an object, got %s",
			   kind_name(val[FIELD_POD]));
		goto out;
	}
	/* json-c holds null as a NULL pointer; absent reads the same, as Go
	 * leaves the pointer nil. */
	if (val[FIELD_NODES] == NULL && val[FIELD_NODE_NAMES] == NULL) {
		errmsg_set(msg, "Nodes and NodeNames are both null");
		goto out;
	}
	if (val[FIELD_NODES] != NULL && val[FIELD_NODE_NAMES] != NULL) {
		errmsg_set(msg, "Nodes and NodeNames are both set");
		goto out;
	}
	rc = decode_pod(val[FIELD_POD], &out->pod, msg);
	if (rc != ERR_OK)
		goto out;
	if (val[FIELD_NODE_NAMES] != NULL) {
		out->mode = WIRE_NODE_NAMES;
		rc = decode_names(val[FIELD_NODE_NAMES], out, msg);
	} else {
		out->mode = WIRE_NODE_LIST;
		rc = decode_node_list(val[FIELD_NODES], &sc, out, msg);
	}
out:
	json_object_put(root);
	free(sc.items);
	if (rc != ERR_OK)
		wire_args_cleanup(out);
	return rc;
}

void wire_args_cleanup(struct wire_args *a)
{
	if (a == NULL)
		return;
	pod_spec_cleanup(&a->pod);
	free(a->names);
	free(a->_name_text);
	free(a->_repeat);
	free(a->_items);
	free(a->_item_end);
	memset(a, 0, sizeof *a);
}

/* ---- Encoding ---------------------------------------------------------- */

/* Replies are built in the bounded text builder. Their size follows the
 * request's (names are echoed, at most 6 bytes per byte escaped; reasons are
 * a few hundred bytes per node), so the ceiling only stops the absurd; a
 * reply that would pass it is replaced by an error reply. */
#define REPLY_MAX ((size_t)512 << 20)
#define TB_LIT(b, s) textbuf_add((b), (s), sizeof(s) - 1)
#define REPLY_TOO_LARGE_FILTER                                                         \
	"{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"                       \
	"\"FailedAndUnresolvableNodes\":{},\"Error\":\"the reply would exceed 512 MiB\"}"

/* Names sit back to back in one buffer, so their lengths come free. */
static void tb_name(struct textbuf *b, const struct wire_args *a, size_t i)
{
	const char *end = i + 1 < a->nnames ? a->names[i + 1]
					    : a->_name_text + a->_name_size;

	textbuf_json_str(b, a->names[i], (size_t)(end - a->names[i]) - 1);
}

/* The builder's text handed over, or, past the ceiling, the fallback. */
static char *tb_finish(struct textbuf *b, const char *fallback, size_t *len)
{
	if (textbuf_failed(b)) {
		textbuf_free(b);
		textbuf_init(b, REPLY_MAX);
		textbuf_adds(b, fallback);
	}
	return textbuf_take(b, len);
}

static bool repeated(const struct wire_args *a, size_t i)
{
	return a->_repeat != NULL && a->_repeat[i] != 0;
}

static enum wire_outcome bucket(enum wire_outcome o)
{
	return o == WIRE_PASS || o == WIRE_FAILED ? o : WIRE_UNRESOLVABLE;
}

/* The members of FailedNodes or FailedAndUnresolvableNodes. */
static void put_map(struct textbuf *b, const struct wire_args *a,
		    const enum wire_outcome *outcome, const char *const *reasons,
		    enum wire_outcome which)
{
	/* Callers pass one pointer per distinct reason (handlers intern them):
	 * the escaped text of the last few is copied, not escaped again. */
	struct {
		const char *reason;
		size_t at, len;
	} seen[8];
	size_t nseen = 0, i, k;
	bool first = true;

	for (i = 0; i < a->nnames; i++) {
		const char *reason = reasons != NULL ? reasons[i] : NULL;

		if (repeated(a, i) || bucket(outcome[i]) != which)
			continue;
		if (!first)
			textbuf_addc(b, ',');
		first = false;
		tb_name(b, a, i);
		textbuf_addc(b, ':');
		for (k = 0; k < nseen && seen[k].reason != reason; k++)
			;
		if (reason != NULL && k < nseen) {
			textbuf_repeat(b, seen[k].at, seen[k].len);
			continue;
		}
		k = b->len;
		textbuf_json_cstr(b, reason);
		if (reason != NULL && nseen < sizeof seen / sizeof seen[0]) {
			seen[nseen].reason = reason;
			seen[nseen].at = k;
			seen[nseen].len = b->len - k;
			nseen++;
		}
	}
}

char *wire_encode_filter(const struct wire_args *a,
			 const enum wire_outcome *outcome,
			 const char *const *reasons, size_t *len)
{
	struct textbuf b;
	bool first = true;
	size_t i;

	textbuf_init(&b, REPLY_MAX);
	/* A guess that avoids most regrowth: names plus quotes and commas,
	 * and room for the reasons of some failed nodes. */
	textbuf_reserve(&b, 128 + a->nnames * 40 +
				    (a->mode == WIRE_NODE_LIST && a->nnames > 0
					     ? a->_item_end[a->nnames - 1]
					     : 0));
	if (a->mode == WIRE_NODE_LIST) {
		TB_LIT(&b, "{\"Nodes\":{\"metadata\":{},\"items\":[");
		for (i = 0; i < a->nnames; i++) {
			size_t start = i > 0 ? a->_item_end[i - 1] : 0;

			if (repeated(a, i) || bucket(outcome[i]) != WIRE_PASS)
				continue;
			if (!first)
				textbuf_addc(&b, ',');
			first = false;
			textbuf_add(&b, a->_items + start, a->_item_end[i] - start);
		}
		TB_LIT(&b, "]},\"NodeNames\":null,\"FailedNodes\":{");
	} else {
		TB_LIT(&b, "{\"Nodes\":null,\"NodeNames\":[");
		for (i = 0; i < a->nnames; i++) {
			if (repeated(a, i) || bucket(outcome[i]) != WIRE_PASS)
				continue;
			if (!first)
				textbuf_addc(&b, ',');
			first = false;
			tb_name(&b, a, i);
		}
		TB_LIT(&b, "],\"FailedNodes\":{");
	}
	put_map(&b, a, outcome, reasons, WIRE_FAILED);
	TB_LIT(&b, "},\"FailedAndUnresolvableNodes\":{");
	put_map(&b, a, outcome, reasons, WIRE_UNRESOLVABLE);
	TB_LIT(&b, "},\"Error\":\"\"}");
	return tb_finish(&b, REPLY_TOO_LARGE_FILTER, len);
}

char *wire_encode_filter_error(const char *error, size_t *len)
{
	struct textbuf b;

	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"
		   "\"FailedAndUnresolvableNodes\":{},\"Error\":");
	textbuf_json_cstr(&b, error);
	textbuf_addc(&b, '}');
	return tb_finish(&b, REPLY_TOO_LARGE_FILTER, len);
}

char *wire_encode_prioritize(const struct wire_args *a, const int64_t *scores,
			     size_t *len)
{
	struct textbuf b;
	bool first = true;
	size_t i;

	textbuf_init(&b, REPLY_MAX);
	textbuf_reserve(&b, 16 + a->nnames * 48);
	textbuf_addc(&b, '[');
	for (i = 0; i < a->nnames; i++) {
		if (repeated(a, i))
			continue;
		if (!first)
			textbuf_addc(&b, ',');
		first = false;
		TB_LIT(&b, "{\"Host\":");
		tb_name(&b, a, i);
		TB_LIT(&b, ",\"Score\":");
		textbuf_int(&b, scores[i]);
		textbuf_addc(&b, '}');
	}
	textbuf_addc(&b, ']');
	/* No list: kube-scheduler counts every node's score as 0. */
	return tb_finish(&b, "[]", len);
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
			if (!fold_equal(key, strlen(key), names[f]))
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

char *wire_encode_binding_result(const char *error, size_t *len)
{
	struct textbuf b;

	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"Error\":");
	textbuf_json_cstr(&b, error);
	textbuf_addc(&b, '}');
	return tb_finish(&b, "{\"Error\":\"reply too large\"}", len);
}

/* ---- Preemption -------------------------------------------------------- */

/* ExtenderPreemptionArgs is read straight from the text once the scan has
 * accepted it (RFC 8259, UTF-8, depth), not through json-c's tree: a victim
 * is {"UID":U}, a dozen bytes of body, on which json-c spends several
 * hundred, so a body naming hundreds of thousands of victims would become a
 * tree fifty times its size, in small blocks glibc keeps once they are
 * freed. Only the Pod becomes a tree (decode_pod_text, as for the common
 * filter request). Node names and UIDs are copied into one buffer, the
 * pointers into one array. */

/* A reader over text the scan accepted: the helpers below assume valid JSON
 * and never check the syntax again. */
struct rd {
	const char *b;
	size_t len;
};

static size_t rd_ws(const struct rd *r, size_t i)
{
	return json_ws_end(r->b, i, r->len);
}

/* Just past the string whose opening quote is at i; *flags as
 * json_string_scan's. */
static size_t rd_string_end(const struct rd *r, size_t i, unsigned *flags)
{
	size_t at = r->len;

	*flags = 0;
	(void)json_string_scan((const unsigned char *)r->b, i, r->len, false, &at, flags);
	return at;
}

/* Just past the value that starts at i. */
static size_t rd_skip(const struct rd *r, size_t i)
{
	size_t depth = 0;
	unsigned flags;

	do {
		switch (r->b[i]) {
		case '"':
			i = rd_string_end(r, i, &flags);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			if (depth == 0) { /* a literal or a number */
				while (i < r->len && strchr(" \t\n\r,]}:", r->b[i]) == NULL)
					i++;
				return i;
			}
		}
		i++;
	} while (depth > 0);
	return i;
}

static const char *rd_kind(const struct rd *r, size_t i)
{
	switch (r->b[i]) {
	case '{':
		return "an object";
	case '[':
		return "an array";
	case '"':
		return "a string";
	case 'n':
		return "null";
	case 't':
	case 'f':
		return "a boolean";
	default:
		return "a number";
	}
}

/* One member of an object: its key's raw text (inside the quotes) and its
 * value [val, val_end). */
struct rd_member {
	size_t key, key_len, val, val_end;
};

/* Iterating an object or an array: *i starts just past its opening bracket
 * (rd_ws(r, open + 1)); each call takes one member or element and moves *i
 * to the next; false at the closing bracket. */
static bool rd_next(const struct rd *r, size_t *i, bool object, struct rd_member *m)
{
	size_t k = *i;
	unsigned flags;

	if (r->b[k] == '}' || r->b[k] == ']')
		return false;
	if (object) {
		size_t e = rd_string_end(r, k, &flags);

		m->key = k + 1;
		m->key_len = e - k - 2;
		k = rd_ws(r, rd_ws(r, e) + 1); /* past ':' */
	}
	m->val = k;
	m->val_end = rd_skip(r, k);
	k = rd_ws(r, m->val_end);
	if (r->b[k] == ',')
		k = rd_ws(r, k + 1);
	*i = k;
	return true;
}

/* Whether m's key is name: folded as Go matches the extender types' fields,
 * or exactly (the API objects' keys). */
static bool rd_key_is(const struct rd *r, const struct rd_member *m, const char *name, bool fold)
{
	char key[KEY_MAX + 1];
	size_t n = decode_key(r->b + m->key, m->key_len, key);

	if (n == SIZE_MAX)
		return false;
	return fold ? fold_equal(key, n, name) : n == strlen(name) && memcmp(key, name, n) == 0;
}

/* The value of the last member of the object at i whose key is name (Go
 * and json-c alike keep the last), or SIZE_MAX when there is none. */
static size_t rd_member_of(const struct rd *r, size_t i, const char *name, bool fold)
{
	struct rd_member m;
	size_t at = rd_ws(r, i + 1), found = SIZE_MAX;

	while (rd_next(r, &at, true, &m))
		if (rd_key_is(r, &m, name, fold))
			found = m.val;
	return found;
}

enum rd_int { RD_INT_OK, RD_INT_NOT, RD_INT_RANGE };

/* The JSON integer at i as an int64_t, as Go reads it: no fraction, no
 * exponent, in range. */
static enum rd_int rd_int64(const struct rd *r, size_t i, int64_t *out)
{
	size_t e = rd_skip(r, i), k;
	bool real, neg = r->b[i] == '-';
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	if (!neg && (r->b[i] < '0' || r->b[i] > '9'))
		return RD_INT_NOT;
	if (json_number_len(r->b + i, e - i, &real) != e - i || real)
		return RD_INT_NOT;
	for (k = i + neg; k < e; k++) {
		unsigned d = (unsigned)(r->b[k] - '0');

		if (v > (lim - d) / 10)
			return RD_INT_RANGE;
		v = v * 10 + d;
	}
	*out = !neg ? (int64_t)v : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	return RD_INT_OK;
}

/* A node of the victims map while it is read: offsets into the text and
 * the UID list, since both still grow. */
struct pre_node {
	size_t name;            /* offset of the name in text */
	size_t first, n;        /* its UIDs: uid[first .. first + n) */
	int64_t pdb;
};

struct pre {
	struct rd r;
	bool meta;
	const char *map;        /* "NodeNameToMetaVictims" or "NodeNameToVictims" */
	struct textbuf text;    /* names and UIDs, each NUL-terminated */
	size_t *uid, nuid, uid_cap;
	struct pre_node *node;
	size_t nnode, node_cap;
	char where[DOC_QUOTE_CAP];
};

/* The name of the node being read, quoted for a message. */
static const char *pre_where(struct pre *p)
{
	const char *name = textbuf_str(&p->text) + p->node[p->nnode - 1].name;

	doc_quote(p->where, sizeof p->where, name, strlen(name));
	return p->where;
}

/* Appends the string whose quote is at i, decoded and NUL-terminated, to the
 * text: its offset, or SIZE_MAX when it is empty or holds \u0000 (a C string
 * would cut it). */
static size_t take_text(struct pre *p, size_t i)
{
	unsigned flags;
	size_t e = rd_string_end(&p->r, i, &flags), n = e - i - 2, off = textbuf_len(&p->text);

	if (n == 0 || (flags & JSON_STR_NUL))
		return SIZE_MAX;
	if (flags & JSON_STR_ESCAPED) {
		char *tmp = xmalloc(n + 1);

		n = json_unescape(p->r.b + i + 1, n, tmp, n, JSON_LONE_REPLACE);
		textbuf_add(&p->text, tmp, n);
		free(tmp);
	} else {
		textbuf_add(&p->text, p->r.b + i + 1, n);
	}
	textbuf_addc(&p->text, '\0');
	return off;
}

/* One victim: {"UID":U} (meta) or a Pod whose metadata.uid is U. */
static enum err take_victim(struct pre *p, size_t v, size_t i, struct errmsg *msg)
{
	const struct rd *r = &p->r;
	size_t uid = SIZE_MAX, off = SIZE_MAX;

	if (r->b[v] != '{') {
		errmsg_set(msg, "%s[%s].Pods[%zu]: expected an object, got %s", p->map, pre_where(p), i,
			   rd_kind(r, v));
		return ERR_INVALID;
	}
	if (p->meta) {
		uid = rd_member_of(r, v, "UID", true);
	} else {
		size_t md = rd_member_of(r, v, "metadata", false);

		if (md != SIZE_MAX && r->b[md] == '{')
			uid = rd_member_of(r, md, "uid", false);
	}
	if (uid != SIZE_MAX && r->b[uid] == '"')
		off = take_text(p, uid);
	if (off == SIZE_MAX) {
		errmsg_set(msg, "%s[%s].Pods[%zu]%s: expected a non-empty string without \\u0000", p->map,
			   pre_where(p), i, p->meta ? ".UID" : ".metadata.uid");
		return ERR_INVALID;
	}
	if (p->nuid == WIRE_PREEMPT_VICTIMS_MAX) {
		errmsg_set(msg, "%s[%s].Pods[%zu]: more than %d victims in one request", p->map, pre_where(p), i,
			   WIRE_PREEMPT_VICTIMS_MAX);
		return ERR_TOO_LARGE;
	}
	if (p->nuid == p->uid_cap) {
		p->uid_cap = p->uid_cap ? p->uid_cap * 2 : 64;
		p->uid = xreallocarray(p->uid, p->uid_cap, sizeof *p->uid);
	}
	p->uid[p->nuid++] = off;
	return ERR_OK;
}

/* One entry of the map: the node's name (key) and its Victims (value). */
static enum err take_node(struct pre *p, const struct rd_member *m, struct errmsg *msg)
{
	const struct rd *r = &p->r;
	struct pre_node *w;
	size_t pods, pdb, at, i = 0;
	struct rd_member e;

	if (p->nnode == p->node_cap) {
		p->node_cap = p->node_cap ? p->node_cap * 2 : 16;
		p->node = xreallocarray(p->node, p->node_cap, sizeof *p->node);
	}
	w = &p->node[p->nnode];
	memset(w, 0, sizeof *w);
	w->name = take_text(p, m->key - 1);
	if (w->name == SIZE_MAX) {
		errmsg_set(msg, "%s: a node name is empty or holds \\u0000", p->map);
		return ERR_INVALID;
	}
	p->nnode++;
	w->first = p->nuid;
	if (r->b[m->val] == 'n')
		return ERR_OK; /* a nil *Victims: no victims */
	if (r->b[m->val] != '{') {
		errmsg_set(msg, "%s[%s]: expected an object, got %s", p->map, pre_where(p), rd_kind(r, m->val));
		return ERR_INVALID;
	}
	pdb = rd_member_of(r, m->val, "NumPDBViolations", true);
	if (pdb != SIZE_MAX && r->b[pdb] != 'n') {
		enum rd_int ri = rd_int64(r, pdb, &w->pdb);

		if (ri != RD_INT_OK) {
			errmsg_set(msg, "%s[%s].NumPDBViolations: %s%s", p->map, pre_where(p),
				   ri == RD_INT_RANGE ? "out of range" : "expected an integer, got ",
				   ri == RD_INT_RANGE ? "" : rd_kind(r, pdb));
			return ERR_INVALID;
		}
	}
	pods = rd_member_of(r, m->val, "Pods", true);
	if (pods == SIZE_MAX || r->b[pods] == 'n')
		return ERR_OK;
	if (r->b[pods] != '[') {
		errmsg_set(msg, "%s[%s].Pods: expected an array, got %s", p->map, pre_where(p), rd_kind(r, pods));
		return ERR_INVALID;
	}
	at = rd_ws(r, pods + 1);
	for (; rd_next(r, &at, false, &e); i++) {
		enum err rc = take_victim(p, e.val, i, msg);

		if (rc != ERR_OK)
			return rc;
		w->n++;
	}
	return ERR_OK;
}

/* A UID with its place in its node's list, for finding repeats. */
struct uid_at {
	const char *uid;
	size_t at;
};

static int uid_at_cmp(const void *a, const void *b)
{
	const struct uid_at *x = a, *y = b;
	int c = strcmp(x->uid, y->uid);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Drops every UID of w that repeats an earlier one, keeping the order: a pod
 * named twice is still one pod to evict, and counting it twice would free
 * its resources twice. Sorting finds the repeats in O(n log n) comparisons
 * whatever the UIDs are; a table hashed by a fixed, public function can be
 * flooded by UIDs chosen to collide, and these come from the client. */
static void drop_repeats(struct wire_victims *w)
{
	struct uid_at *s;
	unsigned char *repeat;
	size_t i, k = 0;

	if (w->nuids < 2)
		return;
	s = xcalloc(w->nuids, sizeof *s);
	repeat = xcalloc(w->nuids, 1);
	for (i = 0; i < w->nuids; i++) {
		s[i].uid = w->uids[i];
		s[i].at = i;
	}
	qsort(s, w->nuids, sizeof *s, uid_at_cmp);
	for (i = 1; i < w->nuids; i++)
		if (strcmp(s[i].uid, s[i - 1].uid) == 0)
			repeat[s[i].at] = 1;
	for (i = 0; i < w->nuids; i++)
		if (!repeat[i])
			w->uids[k++] = w->uids[i];
	w->nuids = k;
	free(repeat);
	free(s);
}

/* By name; the names lie in the text in map order, so ties keep it. */
static int victims_cmp(const void *a, const void *b)
{
	const struct wire_victims *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Moves what p read into out: nodes sorted by name, a name given twice
 * reading as its last entry (Go decodes a map key given twice into one
 * entry, the last value), each node's repeated UIDs dropped. */
static void pre_finish(struct pre *p, struct wire_preemption *out)
{
	size_t i, k = 0;

	out->_text = textbuf_take(&p->text, NULL);
	out->_uids = xcalloc(p->nuid + 1, sizeof *out->_uids);
	for (i = 0; i < p->nuid; i++)
		out->_uids[i] = out->_text + p->uid[i];
	out->nodes = xcalloc(p->nnode + 1, sizeof *out->nodes);
	for (i = 0; i < p->nnode; i++) {
		out->nodes[i].node = out->_text + p->node[i].name;
		out->nodes[i].uids = out->_uids + p->node[i].first;
		out->nodes[i].nuids = p->node[i].n;
		out->nodes[i].num_pdb_violations = p->node[i].pdb;
	}
	qsort(out->nodes, p->nnode, sizeof *out->nodes, victims_cmp);
	for (i = 0; i < p->nnode; i++) {
		if (i + 1 < p->nnode && strcmp(out->nodes[i].node, out->nodes[i + 1].node) == 0)
			continue;
		out->nodes[k] = out->nodes[i];
		drop_repeats(&out->nodes[k]);
		k++;
	}
	out->nnodes = k;
}

enum err wire_decode_preemption(const char *body, size_t len, struct wire_preemption *out,
				struct errmsg *msg)
{
	struct scan sc;
	struct pre p;
	struct rd_member m;
	size_t at, pod = SIZE_MAX, mv = SIZE_MAX, v = SIZE_MAX, map;
	enum err rc = ERR_OK;

	memset(out, 0, sizeof *out);
	if (len > INT_MAX) {
		errmsg_set(msg, "request body larger than %d bytes", INT_MAX);
		return ERR_TOO_LARGE;
	}
	memset(&sc, 0, sizeof sc);
	sc.b = body;
	sc.len = len;
	sc.conflict = -1;
	if (!scan_value(&sc, 0, ROLE_VALUE) || (scan_ws(&sc), sc.pos != len)) {
		scan_fail(&sc, sc.pos, "unexpected data after the value");
		errmsg_set(msg, "invalid JSON at byte %zu: %s", sc.bad, sc.problem);
		free(sc.items);
		return ERR_PARSE;
	}
	free(sc.items);
	memset(&p, 0, sizeof p);
	p.r.b = body;
	p.r.len = len;
	at = rd_ws(&p.r, 0);
	if (body[at] != '{') {
		errmsg_set(msg, "ExtenderPreemptionArgs: expected an object, got %s", rd_kind(&p.r, at));
		return ERR_INVALID;
	}
	for (at = rd_ws(&p.r, at + 1); rd_next(&p.r, &at, true, &m);) {
		if (rd_key_is(&p.r, &m, "Pod", true))
			pod = m.val;
		else if (rd_key_is(&p.r, &m, "NodeNameToMetaVictims", true))
			mv = m.val;
		else if (rd_key_is(&p.r, &m, "NodeNameToVictims", true))
			v = m.val;
	}
	if (pod == SIZE_MAX || body[pod] != '{') {
		errmsg_set(msg, "Pod: expected an object, got %s", pod == SIZE_MAX ? "nothing" : rd_kind(&p.r, pod));
		return ERR_INVALID;
	}
	if (!decode_pod_text(body, pod, rd_skip(&p.r, pod), &out->pod, &rc, msg)) {
		errmsg_set(msg, "invalid JSON: Pod out of step with the parser");
		rc = ERR_PARSE;
	}
	if (rc == ERR_OK) {
		size_t spec = rd_member_of(&p.r, pod, "spec", false), prio = SIZE_MAX;
		enum rd_int ri = RD_INT_OK;

		if (spec != SIZE_MAX && body[spec] == '{')
			prio = rd_member_of(&p.r, spec, "priority", false);
		if (prio != SIZE_MAX && body[prio] != 'n')
			ri = rd_int64(&p.r, prio, &out->priority);
		if (ri != RD_INT_OK) {
			errmsg_set(msg, "Pod.spec.priority: %s%s", ri == RD_INT_RANGE ? "out of range" : "expected an integer, got ",
				   ri == RD_INT_RANGE ? "" : rd_kind(&p.r, prio));
			rc = ERR_INVALID;
		}
	}
	if (rc != ERR_OK) {
		wire_preemption_cleanup(out);
		return rc;
	}
	/* Both maps non-null: the meta one, as kube-scheduler fills only one. */
	out->meta = p.meta = mv != SIZE_MAX && body[mv] != 'n';
	map = p.meta ? mv : v;
	if (map == SIZE_MAX || body[map] == 'n')
		return ERR_OK; /* no candidate: nothing to keep */
	p.map = p.meta ? "NodeNameToMetaVictims" : "NodeNameToVictims";
	if (body[map] != '{') {
		errmsg_set(msg, "%s: expected an object, got %s", p.map, rd_kind(&p.r, map));
		rc = ERR_INVALID;
	}
	textbuf_init(&p.text, len + 1);
	for (at = rd_ws(&p.r, map + 1); rc == ERR_OK && rd_next(&p.r, &at, true, &m);)
		rc = take_node(&p, &m, msg);
	if (rc == ERR_OK)
		pre_finish(&p, out);
	else
		wire_preemption_cleanup(out);
	textbuf_free(&p.text);
	free(p.uid);
	free(p.node);
	return rc;
}

void wire_preemption_cleanup(struct wire_preemption *p)
{
	pod_spec_cleanup(&p->pod);
	free(p->nodes);
	free(p->_uids);
	free(p->_text);
	memset(p, 0, sizeof *p);
}

char *wire_encode_preemption(const struct wire_victims *nodes, size_t n, size_t *len)
{
	const struct wire_victims **sorted = xcalloc(n + 1, sizeof *sorted);
	struct textbuf b;
	size_t i, k, j;

	/* Go writes map keys sorted; the caller's order may be any. */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && strcmp(sorted[j - 1]->node, nodes[i].node) > 0; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = &nodes[i];
	}
	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"NodeNameToMetaVictims\":{");
	for (i = 0; i < n; i++) {
		if (i)
			textbuf_addc(&b, ',');
		textbuf_json_cstr(&b, sorted[i]->node);
		TB_LIT(&b, ":{\"Pods\":[");
		for (k = 0; k < sorted[i]->nuids; k++) {
			textbuf_adds(&b, k ? ",{\"UID\":" : "{\"UID\":");
			textbuf_json_cstr(&b, sorted[i]->uids[k]);
			textbuf_addc(&b, '}');
		}
		textbuf_printf(&b, "],\"NumPDBViolations\":%lld}", (long long)sorted[i]->num_pdb_violations);
	}
	TB_LIT(&b, "}}");
	free(sorted);
	return tb_finish(&b, "{\"NodeNameToMetaVictims\":{}}", len);
}
