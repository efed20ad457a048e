/* SPDX-License-Identifier: Apache-2.0 */
/* The walk every object decoder shares (nrt_decode.c, pod_decode.c and the
 * scheduler model's sched_*_decode.c): where in the document the decoder
 * stands (origin and field path), "origin: path: problem" errors, kind
 * checks, string fields, and the decoding of an array field element by
 * element. */
#ifndef EXTENDER_DECODE_WALK_H
#define EXTENDER_DECODE_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/doc.h"
#include "base/err.h"

struct decode_ctx {
	const char *origin;
	struct errmsg *msg;
	struct doc_path path;
};

void decode_ctx_init(struct decode_ctx *c, const char *origin,
		     struct errmsg *msg);

/* Sets c->msg to "origin: path: problem" and returns rc. */
enum err decode_fail(struct decode_ctx *c, enum err rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* decode_fail with key pushed onto the path for the message: a problem
 * with obj.key found while at obj. */
enum err decode_fail_at(struct decode_ctx *c, const char *key, enum err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* For problems a callee (doc_read_*, quantity_parse) already wrote: prefixes
 * them with "origin: path: " and returns rc. */
enum err decode_fail_prefixed(struct decode_ctx *c, enum err rc);
/* "expected an array, got ..." ("an object" for DOC_OBJECT) unless d is of
 * that kind. */
enum err decode_expect(struct decode_ctx *c, const struct doc *d,
		       enum doc_kind kind);

/* Flags for decode_field, decode_array and the string readers. */
enum {
	DECODE_REQUIRED = 0x1, /* absent (or null) is "missing" */
	DECODE_NONEMPTY = 0x2, /* an empty array or "" is "must not be empty" */
	DECODE_SCALAR = 0x4,   /* strings: a number or boolean reads as its text */
};

/* Looks up obj.key, which must be of the given kind (DOC_ARRAY or
 * DOC_OBJECT) when present; *out is NULL when absent. The caller has pushed
 * key onto the path. */
enum err decode_field(struct decode_ctx *c, const struct doc *obj,
		      const char *key, enum doc_kind kind, unsigned how,
		      const struct doc **out);

/* Borrows the text of the value d (DECODE_NONEMPTY, DECODE_SCALAR); the
 * caller has pushed d's place onto the path. */
enum err decode_text_of(struct decode_ctx *c, const struct doc *d, unsigned how,
			const char **out);
/* Borrows the text of the string field obj.key (DECODE_REQUIRED,
 * DECODE_NONEMPTY, DECODE_SCALAR); *out is NULL when it is absent. Pushes
 * key onto the path for its messages. */
enum err decode_text(struct decode_ctx *c, const struct doc *obj, const char *key,
		     unsigned how, const char **out);
/* A copy of the string field obj.key, as decode_text reads it, replacing
 * *out (freed); *out is left alone when the field is absent. */
enum err decode_string(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, char **out);
/* d must be an object with a non-empty string "name": the element of most
 * lists the decoders read. A copy of the name replaces *name. */
enum err decode_named(struct decode_ctx *c, const struct doc *d, char **name);
/* The string field obj.key (DECODE_REQUIRED), which must be one of
 * choices[0..n) when present ("X: expected A, B or C"); *index gets its
 * position (unchanged when absent). */
enum err decode_choice(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, const char *const *choices, size_t n, size_t *index);
/* obj.kind, when present (or always, with required), must be want
 * ("X: expected want"). */
enum err decode_kind(struct decode_ctx *c, const struct doc *obj, const char *want,
		     bool required);

/* Decodes one element d into out; arg is the caller's. */
typedef enum err decode_item_fn(struct decode_ctx *c, const struct doc *d,
				void *out, void *arg);

/* Decodes the array obj.key onto the end of *items, an array of *n elements
 * of size bytes: grows it by the array's length, zeroes the new elements and
 * decodes each with fn, "key[i]" on the path, stopping at the first error.
 * The new elements count in *n before they are decoded, so that the
 * caller's cleanup frees a half-decoded one. An absent field adds nothing. */
enum err decode_array(struct decode_ctx *c, const struct doc *obj,
		      const char *key, unsigned how, size_t size, void **items,
		      size_t *n, decode_item_fn *fn, void *arg);

#endif
