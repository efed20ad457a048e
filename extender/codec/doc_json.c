/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> document tree with json-c. json-c validates and builds its own tree,
 * which is converted and dropped at once; json-c never leaves this file.
 *
 * What json-c hides is recovered from a light second scan of the text:
 *  - the exact text of integers: json-c 0.16 keeps the source text of doubles
 *    ("1.5", "1e3") but reformats integers from an int64/uint64 and clamps
 *    those out of range (100000000000000000000 reads back as
 *    18446744073709551615), and quantities must see what was written;
 *  - duplicate keys: json-c keeps the last value silently. Every ':' outside
 *    a string separates one member, so fewer members in the tree than colons
 *    in the text means a key was repeated;
 *  - keys holding \u0000, which json-c cuts at the NUL.
 * Without duplicates json-c's tree walked in order (objects keep insertion
 * order) meets the numbers in text order, so the n-th number node takes the
 * n-th number token; each pairing is still checked against json-c's value.
 *
 * doc_from_json converts a json-c value that someone else parsed (one member
 * of a larger body) without that second scan, and so without its recoveries;
 * doc_from_json_kept converts only the parts a decoder reads (doc_keep).
 * doc_text.c builds the same trees from the text when it safely can. */
#include "extender/codec/doc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xalloc.h"
#include "extender/codec/json_lex.h"

struct span {
	size_t off;
	size_t len;
};

struct scan {
	struct span *numbers;
	size_t nnumbers;
	size_t next;      /* next number token to hand out */
	size_t colons;    /* members in the text */
	size_t members;   /* members in json-c's tree */
	bool out_of_step; /* a number token did not match json-c's value */
	bool nul_key;     /* a key spells \u0000, which json-c cuts short */
	/* doc_from_json: there is no source text, numbers come from json-c's
	 * values. */
	bool no_text;
	/* Containers entered on the way to the current node; only a tree built
	 * by someone else can exceed DOC_MAX_DEPTH, but the recursion must not
	 * trust that. */
	unsigned depth;
	bool too_deep;
};

static bool is_token_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.';
}

/* Runs over text json-c has already accepted, so only the shape matters:
 * strings (with escapes) are skipped, literals true/false/null are not
 * numbers, and every other bare token is (including json-c's NaN and
 * Infinity extensions). Keys are strings followed by ':'; one holding \u0000
 * is flagged because json-c keeps keys as C strings, so "a\u0000b" would
 * silently become "a". */
static void scan_text(const char *buf, size_t len, struct scan *s)
{
	size_t cap = 0, i = 0;

	while (i < len) {
		char c = buf[i];

		if (c == '"') {
			bool nul = false;

			for (i++; i < len && buf[i] != '"'; i++) {
				if (buf[i] != '\\')
					continue;
				i++;
				if (len - i >= 5 && memcmp(buf + i, "u0000", 5) == 0)
					nul = true;
			}
			i++;
			if (nul) {
				size_t j = json_ws_end(buf, i, len);

				if (j < len && buf[j] == ':')
					s->nul_key = true;
			}
		} else if (c == ':') {
			s->colons++;
			i++;
		} else if (is_token_char(c)) {
			size_t start = i;

			while (i < len && is_token_char(buf[i]))
				i++;
			if (c == 't' || c == 'f' || c == 'n')
				continue;
			if (s->nnumbers == cap) {
				cap = cap ? cap * 2 : 16;
				s->numbers = xreallocarray(s->numbers, cap,
							   sizeof *s->numbers);
			}
			s->numbers[s->nnumbers].off = start;
			s->numbers[s->nnumbers].len = i - start;
			s->nnumbers++;
		} else {
			i++;
		}
	}
}

/* Whether text is the number json-c turned into jo. json-c parses integers
 * with strtoll (leading '-') or strtoull, clamping on overflow; doing the same
 * here makes clamped values compare equal too. */
static bool number_matches(struct json_object *jo, const char *text)
{
	if (json_object_is_type(jo, json_type_double))
		return strcmp(json_object_get_string(jo), text) == 0;
	errno = 0;
	if (text[0] == '-')
		return strtoll(text, NULL, 10) == json_object_get_int64(jo);
	return strtoull(text, NULL, 10) == json_object_get_uint64(jo);
}

/* A number's text from json-c's value alone. The tokener keeps a double's
 * source text as the object's userdata (json_object_new_double_s), which
 * reads it without the side effect of json_object_get_string (that one
 * writes a buffer into the object). Integers are formatted from the int64 or
 * uint64 json-c holds, which it clamped if the literal did not fit. */
static void number_from_value(struct json_object *jo, struct doc *d)
{
	char buf[40];
	const char *text = buf;

	if (json_object_is_type(jo, json_type_double)) {
		text = json_object_get_userdata(jo);
		if (text == NULL) /* NaN, Infinity or a double built in code */
			snprintf(buf, sizeof buf, "%.17g", json_object_get_double(jo));
	} else if (json_object_get_int64(jo) < 0) {
		snprintf(buf, sizeof buf, "%" PRId64, json_object_get_int64(jo));
	} else {
		snprintf(buf, sizeof buf, "%" PRIu64, json_object_get_uint64(jo));
	}
	doc_set_text(d, text, strlen(text));
}

static struct doc *convert(struct json_object *jo, const char *buf,
			   struct scan *s)
{
	struct doc *d;
	size_t i, n;

	if (s->depth >= DOC_MAX_DEPTH &&
	    (json_object_is_type(jo, json_type_array) ||
	     json_object_is_type(jo, json_type_object))) {
		s->too_deep = true;
		return doc_new(DOC_NULL, 0, 0);
	}
	switch (json_object_get_type(jo)) {
	case json_type_null:
		d = doc_new(DOC_NULL, 0, 0);
		doc_set_text(d, "null", 4);
		return d;
	case json_type_boolean:
		d = doc_new(DOC_BOOL, 0, 0);
		if (json_object_get_boolean(jo))
			doc_set_text(d, "true", 4);
		else
			doc_set_text(d, "false", 5);
		return d;
	case json_type_double:
	case json_type_int:
		d = doc_new(DOC_NUMBER, 0, 0);
		if (s->no_text) {
			number_from_value(jo, d);
		} else if (s->next < s->nnumbers) {
			const struct span *sp = &s->numbers[s->next++];

			doc_set_text(d, buf + sp->off, sp->len);
			if (!number_matches(jo, d->text))
				s->out_of_step = true;
		} else {
			s->out_of_step = true;
			doc_set_text(d, "0", 1);
		}
		return d;
	case json_type_string:
		d = doc_new(DOC_STRING, 0, 0);
		doc_set_text(d, json_object_get_string(jo),
			     (size_t)json_object_get_string_len(jo));
		return d;
	case json_type_array:
		d = doc_new(DOC_ARRAY, 0, 0);
		n = json_object_array_length(jo);
		d->children = xcalloc(n, sizeof *d->children);
		s->depth++;
		for (i = 0; i < n; i++) {
			d->children[i].value = convert(
				json_object_array_get_idx(jo, i), buf, s);
			d->nchildren++;
		}
		s->depth--;
		return d;
	case json_type_object: {
		d = doc_new(DOC_OBJECT, 0, 0);
		n = (size_t)json_object_object_length(jo);
		d->children = xcalloc(n, sizeof *d->children);
		i = 0;
		s->depth++;
		json_object_object_foreach(jo, key, val) {
			if (i == n)
				break;
			d->children[i].key = xstrdup(key);
			d->children[i].value = convert(val, buf, s);
			d->nchildren = ++i;
		}
		s->depth--;
		s->members += n;
		return d;
	}
	}
	/* Unreachable: json-c has no other types. */
	return doc_new(DOC_NULL, 0, 0);
}

enum err doc_parse_json(const char *buf, size_t len, const char *origin,
			struct doc **out, struct errmsg *msg)
{
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL;
	struct scan s = { 0 };
	enum json_tokener_error jerr;
	enum err rc = ERR_OK;
	size_t end;

	*out = NULL;
	if (len > INT_MAX) {
		errmsg_set(msg, "%s: JSON text larger than %d bytes", origin, INT_MAX);
		return ERR_TOO_LARGE;
	}
	tok = json_tokener_new_ex(DOC_MAX_DEPTH);
	if (tok == NULL)
		abort(); /* only fails when out of memory */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		errmsg_set(msg, "%s: invalid JSON at byte %zu: unexpected end of input",
			   origin, len);
		rc = ERR_PARSE;
		goto out;
	}
	if (jerr != json_tokener_success) {
		errmsg_set(msg, "%s: invalid JSON at byte %zu: %s", origin, end,
			   json_tokener_error_desc(jerr));
		rc = ERR_PARSE;
		goto out;
	}
	/* json-c stops quietly at a NUL byte. */
	if (end != len) {
		errmsg_set(msg, "%s: invalid JSON at byte %zu: unexpected data after the value",
			   origin, end);
		rc = ERR_PARSE;
		goto out;
	}
	scan_text(buf, len, &s);
	*out = convert(root, buf, &s);
	if (s.nul_key) {
		errmsg_set(msg, "%s: invalid JSON: an object key contains a NUL byte",
			   origin);
		rc = ERR_PARSE;
	} else if (s.members != s.colons) {
		errmsg_set(msg, "%s: invalid JSON: duplicate key in an object", origin);
		rc = ERR_PARSE;
	} else if (s.out_of_step || s.next != s.nnumbers) {
		/* Not expected to happen; refuse rather than hand out a wrong
		 * number. */
		errmsg_set(msg, "%s: invalid JSON: number text out of step with the parser",
			   origin);
		rc = ERR_PARSE;
	}
	if (rc != ERR_OK) {
		doc_free(*out);
		*out = NULL;
	}
out:
	free(s.numbers);
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

enum err doc_from_json(struct json_object *o, struct doc **out,
		       struct errmsg *msg)
{
	struct scan s = { 0 };

	s.no_text = true;
	*out = convert(o, NULL, &s);
	if (s.too_deep) {
		doc_free(*out);
		*out = NULL;
		errmsg_set(msg, "nesting deeper than %d levels", DOC_MAX_DEPTH);
		return ERR_INVALID;
	}
	return ERR_OK;
}

static struct json_object *kept(struct json_object *v, const struct doc_keep *fields,
				const struct doc_keep *items);

/* A new object holding the members of o that fields names, in that order
 * (values shared, referenced). */
static struct json_object *kept_members(struct json_object *o, const struct doc_keep *fields)
{
	struct json_object *out = json_object_new_object(), *v;

	if (out == NULL)
		abort(); /* only fails when out of memory */
	for (; fields->key != NULL; fields++) {
		if (json_object_object_get_ex(o, fields->key, &v))
			json_object_object_add(out, fields->key, kept(v, fields->fields, fields->items));
	}
	return out;
}

/* v with struct doc_keep's rules applied, as a new reference. */
static struct json_object *kept(struct json_object *v, const struct doc_keep *fields,
				const struct doc_keep *items)
{
	struct json_object *out;
	size_t i, n;

	if (fields != NULL && json_object_is_type(v, json_type_object))
		return kept_members(v, fields);
	if (items == NULL || !json_object_is_type(v, json_type_array))
		return json_object_get(v);
	n = json_object_array_length(v);
	/* One more slot than needed: json-c allocates the array with malloc,
	 * which may answer NULL for 0 bytes. */
	out = json_object_new_array_ext((int)n + 1);
	if (out == NULL)
		abort(); /* only fails when out of memory */
	for (i = 0; i < n; i++)
		json_object_array_add(out, kept(json_object_array_get_idx(v, i), items, NULL));
	return out;
}

enum err doc_from_json_kept(struct json_object *o, const struct doc_keep *keep,
			    struct doc **out, struct errmsg *msg)
{
	struct json_object *part;
	enum err rc;

	if (keep == NULL)
		return doc_from_json(o, out, msg);
	part = kept(o, keep, NULL);
	rc = doc_from_json(part, out, msg);
	json_object_put(part);
	return rc;
}
