/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/decode_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/xalloc.h"

void decode_ctx_init(struct decode_ctx *c, const char *origin,
		     struct errmsg *msg)
{
	c->origin = origin;
	c->msg = msg;
	doc_path_init(&c->path);
}

enum err decode_fail(struct decode_ctx *c, enum err rc, const char *fmt, ...)
{
	char problem[sizeof c->msg->text];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	doc_errorf(c->msg, c->origin, &c->path, "%s", problem);
	return rc;
}

enum err decode_fail_prefixed(struct decode_ctx *c, enum err rc)
{
	doc_error_prefix(c->msg, c->origin, &c->path);
	return rc;
}

enum err decode_expect(struct decode_ctx *c, const struct doc *d,
		       enum doc_kind kind)
{
	if (d->kind == kind)
		return ERR_OK;
	return decode_fail(c, ERR_INVALID, "expected %s, got %s",
			   kind == DOC_ARRAY ? "an array" : "an object",
			   doc_kind_name(d));
}

enum err decode_field(struct decode_ctx *c, const struct doc *obj,
		      const char *key, enum doc_kind kind, unsigned how,
		      const struct doc **out)
{
	*out = doc_lookup(obj, key);
	if (*out == NULL)
		return (how & DECODE_REQUIRED) != 0
			       ? decode_fail(c, ERR_INVALID, "missing")
			       : ERR_OK;
	return decode_expect(c, *out, kind);
}

enum err decode_array(struct decode_ctx *c, const struct doc *obj,
		      const char *key, unsigned how, size_t size, void **items,
		      size_t *n, decode_item_fn *fn, void *arg)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *arr;
	size_t i, base = *n;
	enum err rc;

	rc = decode_field(c, obj, key, DOC_ARRAY, how, &arr);
	if (rc != ERR_OK || arr == NULL)
		goto out;
	if (arr->nchildren == 0 && (how & DECODE_NONEMPTY) != 0) {
		rc = decode_fail(c, ERR_INVALID, "must not be empty");
		goto out;
	}
	*items = xreallocarray(*items, base + arr->nchildren, size);
	memset((char *)*items + base * size, 0, arr->nchildren * size);
	*n = base + arr->nchildren;
	for (i = 0; i < arr->nchildren && rc == ERR_OK; i++) {
		size_t m = doc_path_index(&c->path, i);

		rc = fn(c, arr->children[i].value,
			(char *)*items + (base + i) * size, arg);
		doc_path_pop(&c->path, m);
	}
out:
	doc_path_pop(&c->path, mark);
	return rc;
}
