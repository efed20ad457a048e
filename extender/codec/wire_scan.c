/* SPDX-License-Identifier: Apache-2.0 */
/* The wire's one strict pass over a request body (wire_internal.h), for
 * what json-c lets through or hides: forms outside RFC 8259 that its strict
 * mode still takes, UTF-8 its validator passes (overlong forms,
 * surrogates), keys holding \u0000 (json-c cuts keys at the NUL), the
 * spelling of each top-level key of ExtenderArgs and where its value lies,
 * and where each NodeList item starts and ends, so passing items go back to
 * the scheduler byte for byte instead of being re-serialised. White space,
 * numbers, strings, hex digits and UTF-8 are json_lex.c's, shared with the
 * Pod's builder (doc_text.c) and the string writer (json_write.c): one
 * definition for what is read and what is written. */
#include "extender/codec/wire_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/codec/json_lex.h"
#include "base/xalloc.h"

const char *const wire_field_names[WIRE_NFIELDS] = { "Pod", "Nodes", "NodeNames" };

size_t wire_decode_key(const char *s, size_t n, char out[WIRE_KEY_MAX + 1])
{
	return json_unescape(s, n, out, WIRE_KEY_MAX, JSON_LONE_REPLACE);
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
bool wire_fold_equal(const char *key, size_t n, const char *name)
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

	for (f = 0; f < WIRE_NFIELDS; f++) {
		if (wire_fold_equal(key, n, wire_field_names[f]))
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

static bool scan_fail(struct wire_scan *sc, size_t at, const char *problem)
{
	if (sc->problem == NULL) {
		sc->problem = problem;
		sc->bad = at;
	}
	return false;
}

static void scan_ws(struct wire_scan *sc)
{
	sc->pos = json_ws_end(sc->b, sc->pos, sc->len);
}

/* A double-quoted string at sc->pos (json_lex.c holds the rules). */
static bool scan_string(struct wire_scan *sc, bool key)
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
static bool scan_scalar(struct wire_scan *sc)
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

static bool scan_value(struct wire_scan *sc, unsigned depth, enum role role);

static void note_field(struct wire_scan *sc, int f, const char *key, size_t n)
{
	if (!sc->seen[f]) {
		memcpy(sc->spelling[f], key, n + 1);
		sc->seen[f] = true;
	} else if (strcmp(sc->spelling[f], key) != 0 && sc->conflict < 0) {
		sc->conflict = f;
		memcpy(sc->conflict_key, key, n + 1);
	}
}

static bool scan_object(struct wire_scan *sc, unsigned depth, enum role role)
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
			char key[WIRE_KEY_MAX + 1];
			size_t n = wire_decode_key(sc->b + kstart + 1,
					      sc->pos - kstart - 2, key);
			int f;

			if (n != SIZE_MAX && role == ROLE_TOP &&
			    (f = field_of(key, n)) >= 0) {
				note_field(sc, f, key, n);
				field = f;
				if (f == WIRE_FIELD_NODES)
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

static bool scan_array(struct wire_scan *sc, unsigned depth, enum role role)
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
static bool scan_value(struct wire_scan *sc, unsigned depth, enum role role)
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

bool wire_scan(struct wire_scan *sc, const char *body, size_t len, bool args)
{
	memset(sc, 0, sizeof *sc);
	sc->b = body;
	sc->len = len;
	sc->conflict = -1;
	if (scan_value(sc, 0, args ? ROLE_TOP : ROLE_VALUE) && (scan_ws(sc), sc->pos == len))
		return true;
	scan_fail(sc, sc->pos, "unexpected data after the value");
	return false;
}

void wire_scan_free(struct wire_scan *sc)
{
	free(sc->items);
	sc->items = NULL;
}
