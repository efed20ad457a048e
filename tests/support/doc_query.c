/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/doc_query.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

bool dq_fail(struct errmsg *msg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg->text, sizeof msg->text, fmt, ap);
	va_end(ap);
	return false;
}

bool dq_in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

bool dq_same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

bool dq_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool dq_matches(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0) {
		fprintf(stderr, "dq_matches: bad regular expression %s\n", re);
		abort();
	}
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

const char *dq_text(const struct doc *d)
{
	if (d == NULL || (d->kind != DOC_STRING && d->kind != DOC_PLAIN) || doc_is_null(d))
		return NULL;
	return d->text;
}

const struct doc *dq_at(const struct doc *d, const char *dotted)
{
	char key[128];

	while (d != NULL && *dotted) {
		size_t n = strcspn(dotted, ".");

		if (n >= sizeof key)
			return NULL;
		memcpy(key, dotted, n);
		key[n] = '\0';
		d = doc_lookup(d, key);
		dotted += n;
		if (*dotted == '.')
			dotted++;
	}
	return d;
}

const char *dq_str(const struct doc *d, const char *dotted)
{
	return dq_text(dq_at(d, dotted));
}

static bool is_bool(const struct doc *d, const char *value)
{
	return d != NULL && (d->kind == DOC_BOOL || d->kind == DOC_PLAIN) && strcmp(d->text, value) == 0;
}

bool dq_is_true(const struct doc *d)
{
	return is_bool(d, "true");
}

bool dq_is_false(const struct doc *d)
{
	return is_bool(d, "false");
}

size_t dq_count(const struct doc *d)
{
	return d != NULL && (d->kind == DOC_ARRAY || d->kind == DOC_OBJECT) ? d->nchildren : 0;
}

const struct doc *dq_item(const struct doc *d, size_t i)
{
	return d->children[i].value;
}

bool dq_list_has(const struct doc *list, const char *s)
{
	size_t i;

	for (i = 0; i < dq_count(list); i++)
		if (dq_text(dq_item(list, i)) && strcmp(dq_text(dq_item(list, i)), s) == 0)
			return true;
	return false;
}

bool dq_kind_is(const struct doc *d, const char *kind)
{
	return dq_str(d, "kind") && strcmp(dq_str(d, "kind"), kind) == 0;
}

struct doc *dq_clone(const struct doc *d)
{
	struct doc *c = doc_new(d->kind, d->line, d->column);
	size_t i;

	if (d->text)
		doc_set_text(c, d->text, d->len);
	if (d->nchildren) {
		c->children = xcalloc(d->nchildren, sizeof *c->children);
		for (i = 0; i < d->nchildren; i++) {
			c->children[i].key = d->children[i].key ? xstrdup(d->children[i].key) : NULL;
			c->children[i].value = dq_clone(d->children[i].value);
		}
		c->nchildren = d->nchildren;
	}
	return c;
}
