/* SPDX-License-Identifier: Apache-2.0 */
/* A small format-neutral document tree, so one decoder serves JSON and YAML
 * alike: doc_parse detects the format, doc_json.c (json-c) and doc_yaml.c
 * (libyaml) fill the tree, doc_text.c fills it from JSON text that a caller
 * has already checked, and the helpers here read typed values from it and
 * build "origin: field.path: problem" messages. It knows nothing about
 * Kubernetes; nrt_decode.c and pod_decode.c do.
 *
 * Ownership: a tree owns all its nodes and strings; doc_free releases one.
 * Pointers returned by doc_get and doc_read_* are borrowed from the tree.
 * Nothing here keeps global state, so separate trees may be used from separate
 * threads. Out of memory aborts. */
#ifndef EXTENDER_DOC_H
#define EXTENDER_DOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Deepest nesting of arrays/objects accepted, in both formats. */
#define DOC_MAX_DEPTH 64

enum doc_kind {
	DOC_NULL,
	DOC_BOOL,
	DOC_NUMBER, /* JSON number; text is the exact source text ("1.5", "1e3") */
	DOC_STRING, /* JSON string; YAML quoted, block or !!str scalar */
	DOC_PLAIN,  /* YAML unquoted scalar, untyped: "8", "true", "~", "abc" */
	DOC_ARRAY,
	DOC_OBJECT,
};

struct doc;

/* One element of an array (key NULL) or member of an object, in source order.
 * Object keys are unique: both parsers reject duplicates. */
struct doc_child {
	char *key;
	struct doc *value;
};

struct doc {
	enum doc_kind kind;
	/* Scalars: NUL-terminated copy of the text, len bytes without the NUL
	 * (strings may contain NULs). DOC_NULL is "null", DOC_BOOL "true" or
	 * "false". NULL for arrays and objects. */
	char *text;
	size_t len;
	struct doc_child *children; /* DOC_ARRAY and DOC_OBJECT only */
	size_t nchildren;
	/* 1-based start of the node in the source; 0 when unknown (JSON). */
	unsigned line;
	unsigned column;
	/* The value of an object member: where its key starts, so messages
	 * about the key ("unknown key") point at it. 0 when unknown (JSON) or
	 * not a member. */
	unsigned key_line;
	unsigned key_column;
};

/* Parses buf[0..len). If the first non-whitespace byte is '{' or '[' the text
 * is strict JSON (one value, nothing after it, UTF-8 checked, nesting up to
 * DOC_MAX_DEPTH, duplicate keys and keys holding \u0000 rejected) and yields
 * one document; otherwise it is a YAML stream read with doc_yaml_documents.
 * On success *docs is an array of *ndocs trees (free with doc_free_all; it may
 * be NULL when *ndocs is 0). Errors: ERR_PARSE with msg "origin:line:col:
 * problem" (YAML) or "origin: invalid JSON at byte N: problem";
 * ERR_TOO_LARGE for JSON over INT_MAX bytes. On error *docs is NULL. */
enum err doc_parse(const char *buf, size_t len, const char *origin,
		   struct doc ***docs, size_t *ndocs, struct errmsg *msg);

/* What a YAML read accepts beyond libyaml's grammar. Always refused:
 * anchors and aliases (expanding them lets a few bytes build a huge tree),
 * non-scalar keys, keys holding NULs, and a key repeated in one mapping
 * (readers differ on which value wins), reported at the repeat with the
 * mapping's field path. */
struct doc_yaml_rules {
	unsigned max_depth;     /* collections nested deeper are refused; at most
				 * DOC_MAX_DEPTH */
	bool one_document;      /* a second document: "only one YAML document
				 * is allowed" */
	bool no_tags;           /* any tag, !!str too: "tags are not allowed" */
	/* How the refusals of anchors, aliases and depth read. */
	const char *no_anchors, *no_aliases, *too_deep;
};

/* Kubernetes objects: one document per "---" section (an empty section
 * yields a DOC_PLAIN "" root; an empty stream yields none), tags allowed
 * (!!str makes a DOC_STRING), DOC_MAX_DEPTH deep. */
extern const struct doc_yaml_rules doc_yaml_documents;

/* The two back ends of doc_parse, for callers that know the format. */
enum err doc_parse_json(const char *buf, size_t len, const char *origin,
			struct doc **out, struct errmsg *msg);
enum err doc_parse_yaml(const char *buf, size_t len, const char *origin,
			struct doc ***docs, size_t *ndocs, struct errmsg *msg);
/* doc_parse_yaml under other rules (libyaml is used nowhere else). */
enum err doc_parse_yaml_rules(const char *buf, size_t len, const char *origin,
			      const struct doc_yaml_rules *rules, struct doc ***docs,
			      size_t *ndocs, struct errmsg *msg);

struct json_object;

/* Converts a json-c value that the caller parsed (for instance the Pod member
 * of a larger body), so the caller need not convert or re-parse the rest.
 * Unlike doc_parse_json it cannot see the source text, hence:
 *  - integer text is formatted from json-c's int64/uint64, so a literal out
 *    of that range reads back clamped (100000000000000000000 as
 *    "18446744073709551615") and "-0" as "0"; doubles keep their source text
 *    ("1.50", "1e3"). Kubernetes sends quantities as strings, so this only
 *    matters for hand-written input;
 *  - duplicate keys were already merged by json-c (the last value wins, as in
 *    Go) and keys holding \u0000 were cut at the NUL: callers that must refuse
 *    those check the text themselves.
 * o is only read (json-c's accessors are not const-correct); NULL stands for
 * JSON null, as in json-c. ERR_INVALID ("nesting deeper than 64 levels", no
 * origin or path) for a tree deeper than DOC_MAX_DEPTH. On error *out is NULL. */
enum err doc_from_json(struct json_object *o, struct doc **out,
		       struct errmsg *msg);

/* Which members of an object a tree keeps, for decoders that read a few
 * fields of a large object: a list ending with a NULL key. Kept members come
 * in the list's order, not the source's. A kept member whose value is an
 * object keeps only its fields (all of it when fields is NULL); one whose
 * value is an array keeps, of each object element, only items (all of the
 * elements when items is NULL). Any other value is kept whole. */
struct doc_keep {
	const char *key;
	const struct doc_keep *fields;
	const struct doc_keep *items;
};

/* doc_from_json of only the kept parts of o (when o is an object; keep NULL
 * keeps everything). Errors as doc_from_json's. */
enum err doc_from_json_kept(struct json_object *o, const struct doc_keep *keep,
			    struct doc **out, struct errmsg *msg);

/* The same tree as doc_from_json_kept over json-c's strict parse of
 * text[0..len) (json_tokener_new_ex(DOC_MAX_DEPTH), JSON_TOKENER_STRICT),
 * built from the text without json-c. It handles the plain subset and gives
 * up (false, *out NULL) wherever its tree might differ: a text that is not
 * an RFC 8259 object or array, a raw control byte in a string, a lone \u
 * surrogate, a key holding \u0000, a repeated key, an integer whose text
 * json-c would not print back ("-0", beyond int64/uint64), a container
 * nested DOC_MAX_DEPTH - 1 deep. Members that keep drops are only checked
 * for syntax and depth. The bytes of strings are not checked as UTF-8, as
 * json-c does not; callers run their own check first. The caller then
 * parses with json-c. */
bool doc_from_text(const char *text, size_t len, const struct doc_keep *keep,
		   struct doc **out);

/* Frees a tree; accepts NULL. */
void doc_free(struct doc *d);
/* Frees n trees and the array holding them; accepts NULL. */
void doc_free_all(struct doc **docs, size_t n);

/* The value of member key of an object, or NULL when obj is NULL, not an
 * object, or has no such key. Exact, case-sensitive match. */
const struct doc *doc_get(const struct doc *obj, const char *key);
/* Like doc_get, but an explicit null ("key: null", "key: ~", "key:") counts
 * as absent, as it does for Kubernetes' omitempty fields. */
const struct doc *doc_lookup(const struct doc *obj, const char *key);

/* True for NULL, DOC_NULL and the YAML null spellings "", "~", "null",
 * "Null", "NULL" of a plain scalar. */
bool doc_is_null(const struct doc *d);

/* "an object", "an array", "a string", "a number", "a boolean" or "null", for
 * "expected X, got Y" messages. Plain YAML scalars are named by what YAML 1.2
 * would type them as. */
const char *doc_kind_name(const struct doc *d);

/* Flags for doc_read_string. */
#define DOC_STR_SCALAR 0x1u /* also accept a number's or boolean's text */

/* Borrows the text of a string (DOC_STRING or DOC_PLAIN; with DOC_STR_SCALAR
 * also DOC_NUMBER and DOC_BOOL). ERR_INVALID with msg "expected a string, got
 * an array" or "string contains a NUL byte"; msg carries no origin or path. */
enum err doc_read_string(const struct doc *d, unsigned flags, const char **out,
			 size_t *len, struct errmsg *msg);

/* Reads a decimal integer from a DOC_NUMBER or DOC_PLAIN node (a quoted
 * string is not an integer, as in Kubernetes). ERR_INVALID for another kind or
 * for text such as "1.5" ("\"1.5\": not an integer"), ERR_RANGE outside
 * int64. msg carries no origin or path. */
enum err doc_read_int64(const struct doc *d, int64_t *out, struct errmsg *msg);

/* The one decimal integer grammar, on text[0..len): an optional sign, then
 * digits. DOC_INT_STRICT also refuses a '+' and leading zeros ("010", which
 * YAML 1.1 readers take as octal), for hand-written files where a guess
 * would be wrong. ERR_OK; ERR_INVALID when the text is not of the grammar;
 * ERR_RANGE when it is but does not fit in int64. *out is set on ERR_OK. */
#define DOC_INT_STRICT 0x1u
enum err doc_int_parse(const char *text, size_t len, unsigned flags, int64_t *out);

/* A field path such as "items[2].zones[1].resources[0].available", built while
 * walking a tree. Paths longer than the buffer are cut, never overrun. */
struct doc_path {
	char text[256];
	size_t len;
};

void doc_path_init(struct doc_path *p);
/* Append ".key" ("key" at the start) or "[i]"; both return a mark for
 * doc_path_pop, which restores the path to what it was before. */
size_t doc_path_key(struct doc_path *p, const char *key);
size_t doc_path_index(struct doc_path *p, size_t i);
void doc_path_pop(struct doc_path *p, size_t mark);

/* Sets msg to "origin: path: problem" ("origin: problem" for an empty path). */
void doc_errorf(struct errmsg *msg, const char *origin,
		const struct doc_path *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prefixes msg's current text (a problem) with "origin: path: ". */
void doc_error_prefix(struct errmsg *msg, const char *origin,
		      const struct doc_path *path);
/* Sets msg to "origin:LINE:COLUMN: path: problem" (no "path: " for an empty
 * or NULL path), the shape of every message about a place in a YAML text. */
void doc_error_at(struct errmsg *msg, const char *origin, unsigned line,
		  unsigned column, const struct doc_path *path, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void doc_verror_at(struct errmsg *msg, const char *origin, unsigned line,
		   unsigned column, const struct doc_path *path, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

/* Room doc_quote needs for any input. */
#define DOC_QUOTE_CAP (64 * 4 + 16)
/* Writes text as a double-quoted single-line literal for messages, the same
 * way quantity errors quote: non-printable bytes become \xNN, and text beyond
 * 64 bytes is cut with "...". cap must be at least DOC_QUOTE_CAP. */
void doc_quote(char *buf, size_t cap, const char *text, size_t len);

/* Finds the first name that repeats an earlier one: on true, *dup is the
 * smallest index j with names[i] equal to names[j] for some i < j.
 * O(n log n), so hostile inputs with many names stay cheap. */
bool doc_find_duplicate(const char *const *names, size_t n, size_t *dup);

/* Building blocks for the two parsers. */
struct doc *doc_new(enum doc_kind kind, unsigned line, unsigned column);
/* Gives a scalar node a copy of text[0..len). */
void doc_set_text(struct doc *d, const char *text, size_t len);

#endif
