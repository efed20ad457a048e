/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/decode_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

enum err decode_fail_at(struct decode_ctx *c, const char *key, enum err rc, const char *fmt, ...)
{
	char problem[sizeof c->msg->text];
	size_t mark = doc_path_key(&c->path, key);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	doc_errorf(c->msg, c->origin, &c->path, "%s", problem);
	doc_path_pop(&c->path, mark);
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

enum err decode_text_of(struct decode_ctx *c, const struct doc *d, unsigned how,
			const char **out)
{
	size_t len = 0;
	enum err rc;

	rc = doc_read_string(d, (how & DECODE_SCALAR) != 0 ? DOC_STR_SCALAR : 0, out, &len, c->msg);
	if (rc != ERR_OK)
		return decode_fail_prefixed(c, rc);
	if (len == 0 && (how & DECODE_NONEMPTY) != 0)
		return decode_fail(c, ERR_INVALID, "must not be empty");
	return ERR_OK;
}

enum err decode_text(struct decode_ctx *c, const struct doc *obj, const char *key,
		     unsigned how, const char **out)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *d = doc_lookup(obj, key);
	enum err rc = ERR_OK;

	*out = NULL;
	if (d == NULL && (how & DECODE_REQUIRED) != 0)
		rc = decode_fail(c, ERR_INVALID, "missing");
	else if (d != NULL)
		rc = decode_text_of(c, d, how, out);
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err decode_string(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, char **out)
{
	const char *text;
	enum err rc = decode_text(c, obj, key, how, &text);

	if (rc == ERR_OK && text != NULL) {
		free(*out);
		*out = xstrdup(text);
	}
	return rc;
}

enum err decode_named(struct decode_ctx *c, const struct doc *d, char **name)
{
	enum err rc = decode_expect(c, d, DOC_OBJECT);

	if (rc == ERR_OK)
		rc = decode_string(c, d, "name", DECODE_REQUIRED | DECODE_NONEMPTY, name);
	return rc;
}

enum err decode_choice(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, const char *const *choices, size_t n, size_t *index)
{
	char quoted[DOC_QUOTE_CAP], list[256] = "";
	const char *text;
	size_t i;
	enum err rc = decode_text(c, obj, key, how & DECODE_REQUIRED, &text);

	if (rc != ERR_OK || text == NULL)
		return rc;
	for (i = 0; i < n; i++) {
		if (strcmp(text, choices[i]) == 0) {
			*index = i;
			return ERR_OK;
		}
	}
	for (i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		const char *shown = choices[i][0] == '\0' ? "\"\"" : choices[i];

		if (strlen(list) + strlen(sep) + strlen(shown) + 1 < sizeof list) {
			strcat(list, sep);
			strcat(list, shown);
		}
	}
	doc_quote(quoted, sizeof quoted, text, strlen(text));
	return decode_fail_at(c, key, ERR_INVALID, "%s: expected %s", quoted, list);
}

enum err decode_kind(struct decode_ctx *c, const struct doc *obj, const char *want,
		     bool required)
{
	char quoted[DOC_QUOTE_CAP];
	const char *kind;
	enum err rc = decode_text(c, obj, "kind", required ? DECODE_REQUIRED : 0, &kind);

	if (rc != ERR_OK || kind == NULL || strcmp(kind, want) == 0)
		return rc;
	doc_quote(quoted, sizeof quoted, kind, strlen(kind));
	return decode_fail_at(c, "kind", ERR_INVALID, "%s: expected %s", quoted, want);
}
