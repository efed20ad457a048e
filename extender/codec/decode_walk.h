/* SPDX-License-Identifier: Apache-2.0 */
/* The walk nrt_decode.c and pod_decode.c share: where in the document the
 * decoder stands (origin and field path), "origin: path: problem" errors,
 * kind checks, and the decoding of an array field element by element. */
#ifndef EXTENDER_DECODE_WALK_H
#define EXTENDER_DECODE_WALK_H

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
/* For problems a callee (doc_read_*, quantity_parse) already wrote: prefixes
 * them with "origin: path: " and returns rc. */
enum err decode_fail_prefixed(struct decode_ctx *c, enum err rc);
/* "expected an array, got ..." ("an object" for DOC_OBJECT) unless d is of
 * that kind. */
enum err decode_expect(struct decode_ctx *c, const struct doc *d,
		       enum doc_kind kind);

/* Flags for decode_field and decode_array. */
enum {
	DECODE_REQUIRED = 0x1, /* absent (or null) is "missing" */
	DECODE_NONEMPTY = 0x2, /* an empty array is "must not be empty" */
};

/* Looks up obj.key, which must be of the given kind (DOC_ARRAY or
 * DOC_OBJECT) when present; *out is NULL when absent. The caller has pushed
 * key onto the path. */
enum err decode_field(struct decode_ctx *c, const struct doc *obj,
		      const char *key, enum doc_kind kind, unsigned how,
		      const struct doc **out);

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
