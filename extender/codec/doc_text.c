/* SPDX-License-Identifier: Apache-2.0 */
/* JSON text -> document tree without json-c, for the Pod of a request body
 * that the wire's scan (wire_scan.c) has already accepted: parsing it again
 * with json-c, converting json-c's tree and freeing it cost more than the
 * rest of the decode. The Pod's bytes are thus read twice, by the scan,
 * which must check the whole body anyway, and here; building the tree
 * during the scan would save only this pass over a few kilobytes of a body
 * that is mostly node names, and would give the builder the scan's
 * strictness and messages to carry. The tree must be the one
 * doc_from_json_kept makes of json-c 0.16's parse, node for node, so this
 * reads the text the way json-c does:
 *  - strings: escapes decoded as json-c's tokener does (a \u surrogate pair
 *    as one 4-byte UTF-8 sequence); other bytes copied as they are;
 *  - numbers: json-c keeps a double's source text ("1.50", "1e3") but reads
 *    an integer into an int64 or uint64 (clamping) that doc_from_json prints
 *    back, so only integers whose text survives that are taken;
 *  - members in source order (json-c's objects keep insertion order),
 *    except where a keep list orders them.
 * Where json-c would read the text differently, or the reading was not
 * worth copying, it gives up and the caller takes json-c's way: a lone
 * surrogate (json-c writes U+FFFD), a key holding \u0000 (json-c cuts it),
 * a repeated key (json-c merges: first place, last value), "-0" and
 * integers out of range, deep nesting (json-c's depth error), anything
 * outside RFC 8259. */
#include "extender/codec/doc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/json_lex.h"
#include "base/xalloc.h"

struct build {
	const char *s;
	size_t n;
	size_t pos;
	/* Children of the containers being built, innermost last; each
	 * container takes its own off the top when it closes. */
	struct doc_child *stack;
	size_t top;
	size_t cap;
};

/* Below this, duplicate keys are looked for pair by pair; above it, by
 * doc_find_duplicate's sort. */
#define PAIRWISE_KEYS 16

/* The deepest container built (the root is at depth 0). json-c's tokener,
 * made with DOC_MAX_DEPTH, takes one a level deeper only when it is empty,
 * which is not worth telling apart. */
#define DEEPEST (DOC_MAX_DEPTH - 2)

static void push(struct build *b, char *key, struct doc *value)
{
	if (b->top == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->stack = xreallocarray(b->stack, b->cap, sizeof *b->stack);
	}
	b->stack[b->top].key = key;
	b->stack[b->top].value = value;
	b->top++;
}

/* Frees the children above base (after giving up). */
static void drop(struct build *b, size_t base)
{
	while (b->top > base) {
		b->top--;
		free(b->stack[b->top].key);
		doc_free(b->stack[b->top].value);
	}
}

/* A container of the children above base, which leave the stack. Empty
 * slots (a keep list's members that were absent) are skipped. */
static struct doc *take(struct build *b, size_t base, enum doc_kind kind)
{
	struct doc *d = doc_new(kind, 0, 0);
	size_t i, n = 0;

	for (i = base; i < b->top; i++)
		n += b->stack[i].value != NULL;
	d->children = xcalloc(n, sizeof *d->children);
	for (i = base; i < b->top; i++) {
		if (b->stack[i].value != NULL)
			d->children[d->nchildren++] = b->stack[i];
	}
	b->top = base;
	return d;
}

static void skip_ws(struct build *b)
{
	b->pos = json_ws_end(b->s, b->pos, b->n);
}

/* The string at b->pos (its opening quote): *end is just past the closing
 * quote, *escaped tells whether it holds a backslash. false for what RFC
 * 8259 refuses (bad escapes, raw control bytes; json-c would copy those) or
 * an unterminated string. Bytes above 0x7F are taken as json-c takes them. */
static bool string_span(const struct build *b, size_t *end, bool *escaped)
{
	unsigned flags;

	if (json_string_scan((const unsigned char *)b->s, b->pos, b->n, false, end, &flags) !=
	    JSON_STR_OK)
		return false;
	*escaped = (flags & JSON_STR_ESCAPED) != 0;
	return true;
}

/* The contents s[from, to) of a string string_span accepted, decoded into a
 * new NUL-terminated buffer (*text, *len without the NUL), or false for a
 * lone surrogate (json-c writes U+FFFD, but its reading around one is not
 * worth copying: json-c decides). */
static bool unescape(const char *s, size_t from, size_t to, char **text, size_t *len)
{
	char *out = xmalloc(to - from + 1);
	size_t n = json_unescape(s + from, to - from, out, to - from, JSON_LONE_REFUSE);

	if (n == SIZE_MAX) {
		free(out);
		return false;
	}
	*text = out;
	*len = n;
	return true;
}

/* The string at b->pos as a new buffer, or, with text NULL, only skipped. */
static bool string(struct build *b, char **text, size_t *len)
{
	size_t end;
	bool escaped;

	if (!string_span(b, &end, &escaped))
		return false;
	if (text != NULL) {
		if (escaped) {
			if (!unescape(b->s, b->pos + 1, end - 1, text, len))
				return false;
		} else {
			*len = end - b->pos - 2;
			*text = xmemdup0(b->s + b->pos + 1, *len);
		}
	}
	b->pos = end;
	return true;
}

/* Whether doc_from_json prints json-c's value of the integer literal t[0..n)
 * back as t: json-c reads it with strtoll or strtoull, clamping, so "-0"
 * comes back "0" and out-of-range literals as the nearest bound. RFC 8259
 * has no leading zeros, so in range the text is the canonical one. */
static bool integer_survives(const char *t, size_t n)
{
	if (t[0] == '-') {
		if (n == 2 && t[1] == '0')
			return false;
		return n - 1 < 19 || (n - 1 == 19 && memcmp(t + 1, "9223372036854775808", 19) <= 0);
	}
	return n < 20 || (n == 20 && memcmp(t, "18446744073709551615", 20) <= 0);
}

/* An RFC 8259 number at b->pos (json_lex.c). A fraction or an exponent
 * makes it a double for json-c, whose text it keeps; strtod consumes all of
 * such a number, so json-c takes them all. json-c takes every integer too
 * (clamping), so a skipped one can be any. */
static bool number(struct build *b, struct doc **out)
{
	size_t start = b->pos, len;
	bool real;

	len = json_number_len(b->s + start, b->n - start, &real);
	if (len == 0)
		return false;
	if (out != NULL && !real && !integer_survives(b->s + start, len))
		return false;
	b->pos = start + len;
	if (out != NULL) {
		*out = doc_new(DOC_NUMBER, 0, 0);
		(*out)->text = xmemdup0(b->s + start, len);
		(*out)->len = len;
	}
	return true;
}

static bool literal(struct build *b, const char *word, enum doc_kind kind, struct doc **out)
{
	size_t n = strlen(word);

	if (b->n - b->pos < n || memcmp(b->s + b->pos, word, n) != 0)
		return false;
	b->pos += n;
	if (out != NULL) {
		*out = doc_new(kind, 0, 0);
		(*out)->text = xmemdup0(word, n);
		(*out)->len = n;
	}
	return true;
}

static bool value(struct build *b, unsigned depth, const struct doc_keep *fields,
		  const struct doc_keep *items, struct doc **out);

/* Whether the keys of the children above base repeat (none holds a NUL). */
static bool repeated_keys(const struct build *b, size_t base)
{
	size_t n = b->top - base, i, j, dup;
	const char **keys;
	bool found;

	if (n <= PAIRWISE_KEYS) {
		for (i = base; i < b->top; i++) {
			for (j = base; j < i; j++) {
				if (strcmp(b->stack[i].key, b->stack[j].key) == 0)
					return true;
			}
		}
		return false;
	}
	keys = xcalloc(n, sizeof *keys);
	for (i = 0; i < n; i++)
		keys[i] = b->stack[base + i].key;
	found = doc_find_duplicate(keys, n, &dup);
	free(keys);
	return found;
}

/* The index in fields of the key whose quoted text is s[from, to), -1 for
 * none, -2 to give up (a key holding \u0000, which json-c cuts short and so
 * might read as a kept one, or a lone surrogate). */
static long kept_index(const struct build *b, const struct doc_keep *fields, size_t from,
		       size_t to, bool escaped)
{
	const char *key = b->s + from + 1;
	size_t len = to - from - 2;
	char *text = NULL;
	long found = -1, i;

	if (escaped) {
		if (!unescape(b->s, from + 1, to - 1, &text, &len) ||
		    memchr(text, '\0', len) != NULL) {
			free(text);
			return -2;
		}
		key = text;
	}
	for (i = 0; fields[i].key != NULL; i++) {
		if (strlen(fields[i].key) == len && memcmp(fields[i].key, key, len) == 0) {
			found = i;
			break;
		}
	}
	free(text);
	return found;
}

/* An object at b->pos. With fields, only those members are built, in
 * fields' order, into slots reserved on the stack; the rest are skipped. */
static bool object(struct build *b, unsigned depth, const struct doc_keep *fields,
		   struct doc **out)
{
	size_t base = b->top, nfields = 0, i;

	if (depth > DEEPEST)
		return false;
	if (out != NULL && fields != NULL) {
		while (fields[nfields].key != NULL)
			nfields++;
		for (i = 0; i < nfields; i++)
			push(b, NULL, NULL);
	}
	b->pos++;
	skip_ws(b);
	if (b->pos < b->n && b->s[b->pos] == '}') {
		b->pos++;
		goto done;
	}
	for (;;) {
		size_t kstart = b->pos, kend = 0, klen;
		struct doc *v = NULL;
		char *key = NULL;
		bool escaped = false;
		long slot;

		if (b->pos >= b->n || b->s[b->pos] != '"')
			goto fail;
		if (out == NULL || fields != NULL) {
			if (!string_span(b, &kend, &escaped))
				goto fail;
			b->pos = kend;
		} else if (!string(b, &key, &klen)) {
			goto fail;
		} else if (memchr(key, '\0', klen) != NULL) {
			free(key);
			goto fail;
		}
		skip_ws(b);
		if (b->pos >= b->n || b->s[b->pos] != ':') {
			free(key);
			goto fail;
		}
		b->pos++;
		if (out == NULL) {
			if (!value(b, depth + 1, NULL, NULL, NULL))
				goto fail;
		} else if (fields == NULL) {
			if (!value(b, depth + 1, NULL, NULL, &v)) {
				free(key);
				goto fail;
			}
			push(b, key, v);
		} else if ((slot = kept_index(b, fields, kstart, kend, escaped)) == -2 ||
			   (slot >= 0 && b->stack[base + (size_t)slot].value != NULL)) {
			goto fail; /* a kept key given twice: json-c keeps the last */
		} else if (slot < 0) {
			if (!value(b, depth + 1, NULL, NULL, NULL))
				goto fail;
		} else {
			if (!value(b, depth + 1, fields[slot].fields, fields[slot].items, &v))
				goto fail;
			b->stack[base + (size_t)slot].key = xstrdup(fields[slot].key);
			b->stack[base + (size_t)slot].value = v;
		}
		skip_ws(b);
		if (b->pos < b->n && b->s[b->pos] == ',') {
			b->pos++;
			skip_ws(b);
		} else if (b->pos < b->n && b->s[b->pos] == '}') {
			b->pos++;
			break;
		} else {
			goto fail;
		}
	}
done:
	if (out != NULL) {
		if (fields == NULL && repeated_keys(b, base))
			goto fail;
		*out = take(b, base, DOC_OBJECT);
	}
	return true;
fail:
	drop(b, base);
	return false;
}

/* An array at b->pos; items, when given, keep the members of each object
 * element. */
static bool array(struct build *b, unsigned depth, const struct doc_keep *items,
		  struct doc **out)
{
	size_t base = b->top;

	if (depth > DEEPEST)
		return false;
	b->pos++;
	skip_ws(b);
	if (b->pos < b->n && b->s[b->pos] == ']') {
		b->pos++;
		goto done;
	}
	for (;;) {
		struct doc *v = NULL;

		if (!value(b, depth + 1, items, NULL, out != NULL ? &v : NULL))
			goto fail;
		if (out != NULL)
			push(b, NULL, v);
		skip_ws(b);
		if (b->pos < b->n && b->s[b->pos] == ',') {
			b->pos++;
		} else if (b->pos < b->n && b->s[b->pos] == ']') {
			b->pos++;
			break;
		} else {
			goto fail;
		}
	}
done:
	if (out != NULL)
		*out = take(b, base, DOC_ARRAY);
	return true;
fail:
	drop(b, base);
	return false;
}

/* One value at b->pos (after white space), built into *out, or with out
 * NULL only checked and skipped. fields apply if it is an object, items if
 * it is an array. On false nothing is left allocated. */
static bool value(struct build *b, unsigned depth, const struct doc_keep *fields,
		  const struct doc_keep *items, struct doc **out)
{
	skip_ws(b);
	if (b->pos >= b->n)
		return false;
	switch (b->s[b->pos]) {
	case '{':
		return object(b, depth, fields, out);
	case '[':
		return array(b, depth, items, out);
	case '"': {
		char *text;
		size_t len;

		if (!string(b, out != NULL ? &text : NULL, &len))
			return false;
		if (out != NULL) {
			*out = doc_new(DOC_STRING, 0, 0);
			(*out)->text = text;
			(*out)->len = len;
		}
		return true;
	}
	case 't':
		return literal(b, "true", DOC_BOOL, out);
	case 'f':
		return literal(b, "false", DOC_BOOL, out);
	case 'n':
		return literal(b, "null", DOC_NULL, out);
	default:
		return number(b, out);
	}
}

bool doc_from_text(const char *text, size_t len, const struct doc_keep *keep,
		   struct doc **out)
{
	struct build b = { text, len, 0, NULL, 0, 0 };
	bool ok;

	*out = NULL;
	/* json-c waits for more after a top-level number: only containers. */
	skip_ws(&b);
	if (b.pos == len || (text[b.pos] != '{' && text[b.pos] != '['))
		return false;
	ok = value(&b, 0, keep, NULL, out);
	if (ok) {
		skip_ws(&b);
		if (b.pos != len) {
			doc_free(*out);
			*out = NULL;
			ok = false;
		}
	}
	free(b.stack);
	return ok;
}
