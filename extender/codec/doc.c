/* SPDX-License-Identifier: Apache-2.0 */
/* The format-neutral document tree: format detection, node ownership, typed
 * reads, field paths and error text. The parsers live in doc_json.c and
 * doc_yaml.c. */
#include "extender/codec/doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/textbuf.h"

enum err doc_parse(const char *buf, size_t len, const char *origin,
		   struct doc ***docs, size_t *ndocs, struct errmsg *msg)
{
	struct doc *one = NULL;
	enum err rc;
	size_t i = 0;

	*docs = NULL;
	*ndocs = 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' ||
			   buf[i] == '\n'))
		i++;
	/* A YAML flow mapping could also start with '{', but every JSON text
	 * we are given is an object or array, and json-c's errors are far
	 * clearer for JSON than libyaml's. */
	if (i == len || (buf[i] != '{' && buf[i] != '['))
		return doc_parse_yaml(buf, len, origin, docs, ndocs, msg);
	rc = doc_parse_json(buf, len, origin, &one, msg);
	if (rc != ERR_OK)
		return rc;
	*docs = xmalloc(sizeof **docs);
	(*docs)[0] = one;
	*ndocs = 1;
	return ERR_OK;
}

struct doc *doc_new(enum doc_kind kind, unsigned line, unsigned column)
{
	struct doc *d = xcalloc(1, sizeof *d);

	d->kind = kind;
	d->line = line;
	d->column = column;
	return d;
}

void doc_set_text(struct doc *d, const char *text, size_t len)
{
	free(d->text);
	d->text = xmemdup0(text, len);
	d->len = len;
}

void doc_free(struct doc *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nchildren; i++) {
		free(d->children[i].key);
		doc_free(d->children[i].value);
	}
	free(d->children);
	free(d->text);
	free(d);
}

void doc_free_all(struct doc **docs, size_t n)
{
	size_t i;

	if (docs == NULL)
		return;
	for (i = 0; i < n; i++)
		doc_free(docs[i]);
	free(docs);
}

const struct doc *doc_get(const struct doc *obj, const char *key)
{
	size_t i;

	if (obj == NULL || obj->kind != DOC_OBJECT)
		return NULL;
	for (i = 0; i < obj->nchildren; i++) {
		if (strcmp(obj->children[i].key, key) == 0)
			return obj->children[i].value;
	}
	return NULL;
}

const struct doc *doc_lookup(const struct doc *obj, const char *key)
{
	const struct doc *d = doc_get(obj, key);

	return doc_is_null(d) ? NULL : d;
}

bool doc_is_null(const struct doc *d)
{
	static const char *const spellings[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	if (d == NULL || d->kind == DOC_NULL)
		return true;
	if (d->kind != DOC_PLAIN)
		return false;
	for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		if (strcmp(d->text, spellings[i]) == 0)
			return true;
	}
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The YAML 1.2 core schema's int and float forms (decimal only, plus .inf and
 * .nan), which is how a reader would classify "zones: 5". */
static bool plain_is_number(const char *s)
{
	static const char *const special[] = {
		".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN",
	};
	bool digits = false;
	size_t i;

	if (*s == '+' || *s == '-')
		s++;
	for (i = 0; i < sizeof special / sizeof special[0]; i++) {
		if (strcmp(s, special[i]) == 0)
			return true;
	}
	while (is_digit(*s)) {
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (is_digit(*s)) {
			s++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!is_digit(*s))
			return false;
		while (is_digit(*s))
			s++;
	}
	return *s == '\0';
}

static bool plain_is_bool(const char *s)
{
	static const char *const spellings[] = {
		"true", "True", "TRUE", "false", "False", "FALSE",
	};
	size_t i;

	for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		if (strcmp(s, spellings[i]) == 0)
			return true;
	}
	return false;
}

const char *doc_kind_name(const struct doc *d)
{
	if (doc_is_null(d))
		return "null";
	switch (d->kind) {
	case DOC_NULL: return "null";
	case DOC_BOOL: return "a boolean";
	case DOC_NUMBER: return "a number";
	case DOC_STRING: return "a string";
	case DOC_PLAIN:
		if (plain_is_bool(d->text))
			return "a boolean";
		if (plain_is_number(d->text))
			return "a number";
		return "a string";
	case DOC_ARRAY: return "an array";
	case DOC_OBJECT: return "an object";
	}
	return "?";
}

enum err doc_read_string(const struct doc *d, unsigned flags, const char **out,
			 size_t *len, struct errmsg *msg)
{
	bool ok;

	if (d == NULL) {
		errmsg_set(msg, "missing");
		return ERR_INVALID;
	}
	ok = d->kind == DOC_STRING || d->kind == DOC_PLAIN;
	if ((flags & DOC_STR_SCALAR) != 0 &&
	    (d->kind == DOC_NUMBER || d->kind == DOC_BOOL))
		ok = true;
	if (!ok) {
		errmsg_set(msg, "expected a string, got %s", doc_kind_name(d));
		return ERR_INVALID;
	}
	/* Callers hold C strings; a NUL would silently cut a name short. */
	if (memchr(d->text, '\0', d->len) != NULL) {
		errmsg_set(msg, "string contains a NUL byte");
		return ERR_INVALID;
	}
	*out = d->text;
	if (len != NULL)
		*len = d->len;
	return ERR_OK;
}

enum err doc_int_parse(const char *text, size_t len, unsigned flags, int64_t *out)
{
	bool strict = (flags & DOC_INT_STRICT) != 0, neg = false, over = false;
	uint64_t v = 0, limit;
	size_t i = 0;

	if (len > 0 && (text[0] == '-' || (text[0] == '+' && !strict))) {
		neg = text[0] == '-';
		i = 1;
	}
	if (i == len)
		return ERR_INVALID;
	if (strict && text[i] == '0' && len - i > 1)
		return ERR_INVALID;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		unsigned d = (unsigned char)text[i] - (unsigned)'0';

		if (d > 9)
			return ERR_INVALID;
		/* Past the limit the rest is still read: "99...9x" is not an
		 * integer at all, rather than one too large. */
		if (over || v > (limit - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (over)
		return ERR_RANGE;
	*out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
	return ERR_OK;
}

enum err doc_read_int64(const struct doc *d, int64_t *out, struct errmsg *msg)
{
	char quoted[DOC_QUOTE_CAP];
	enum err rc;

	if (d == NULL) {
		errmsg_set(msg, "missing");
		return ERR_INVALID;
	}
	if (d->kind != DOC_NUMBER && d->kind != DOC_PLAIN) {
		errmsg_set(msg, "expected an integer, got %s", doc_kind_name(d));
		return ERR_INVALID;
	}
	rc = doc_int_parse(d->text, d->len, 0, out);
	if (rc != ERR_OK) {
		doc_quote(quoted, sizeof quoted, d->text, d->len);
		errmsg_set(msg, "%s: %s", quoted,
			   rc == ERR_RANGE ? "out of range" : "not an integer");
	}
	return rc;
}

void doc_path_init(struct doc_path *p)
{
	p->text[0] = '\0';
	p->len = 0;
}

static size_t path_append(struct doc_path *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static size_t path_append(struct doc_path *p, const char *fmt, ...)
{
	size_t mark = p->len;
	size_t room = sizeof p->text - p->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->text + p->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		p->text[p->len] = '\0';
	else if ((size_t)n >= room)
		p->len = sizeof p->text - 1;
	else
		p->len += (size_t)n;
	return mark;
}

size_t doc_path_key(struct doc_path *p, const char *key)
{
	return path_append(p, p->len == 0 ? "%s" : ".%s", key);
}

size_t doc_path_index(struct doc_path *p, size_t i)
{
	return path_append(p, "[%zu]", i);
}

void doc_path_pop(struct doc_path *p, size_t mark)
{
	if (mark < p->len) {
		p->len = mark;
		p->text[mark] = '\0';
	}
}

/* "where: path: problem", or "where: problem" for an empty path. */
static void vmessage(struct errmsg *msg, const char *where, const struct doc_path *path,
		     const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void vmessage(struct errmsg *msg, const char *where, const struct doc_path *path,
		     const char *fmt, va_list ap)
{
	char problem[sizeof msg->text];

	vsnprintf(problem, sizeof problem, fmt, ap);
	if (path == NULL || path->len == 0)
		errmsg_set(msg, "%s: %s", where, problem);
	else
		errmsg_set(msg, "%s: %s: %s", where, path->text, problem);
}

void doc_errorf(struct errmsg *msg, const char *origin,
		const struct doc_path *path, const char *fmt, ...)
{
	va_list ap;

	if (msg == NULL)
		return;
	va_start(ap, fmt);
	vmessage(msg, origin, path, fmt, ap);
	va_end(ap);
}

void doc_error_prefix(struct errmsg *msg, const char *origin,
		      const struct doc_path *path)
{
	if (path == NULL || path->len == 0)
		errmsg_prefix(msg, "%s: ", origin);
	else
		errmsg_prefix(msg, "%s: %s: ", origin, path->text);
}

void doc_verror_at(struct errmsg *msg, const char *origin, unsigned line,
		   unsigned column, const struct doc_path *path, const char *fmt, va_list ap)
{
	char where[sizeof msg->text];

	if (msg == NULL)
		return;
	snprintf(where, sizeof where, "%s:%u:%u", origin, line, column);
	vmessage(msg, where, path, fmt, ap);
}

void doc_error_at(struct errmsg *msg, const char *origin, unsigned line,
		  unsigned column, const struct doc_path *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	doc_verror_at(msg, origin, line, column, path, fmt, ap);
	va_end(ap);
}

void doc_quote(char *buf, size_t cap, const char *text, size_t len)
{
	struct textbuf t;

	textbuf_init_fixed(&t, buf, cap);
	textbuf_quote(&t, text, len, 64, 0);
}

struct name_at {
	const char *name;
	size_t index;
};

static int name_at_cmp(const void *a, const void *b)
{
	const struct name_at *x = a;
	const struct name_at *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

bool doc_find_duplicate(const char *const *names, size_t n, size_t *dup)
{
	struct name_at *sorted;
	bool found = false;
	size_t i;

	if (n < 2)
		return false;
	sorted = xcalloc(n, sizeof *sorted);
	for (i = 0; i < n; i++) {
		sorted[i].name = names[i];
		sorted[i].index = i;
	}
	qsort(sorted, n, sizeof *sorted, name_at_cmp);
	/* Equal names sort by index, so the first repeat of each group is its
	 * second element; report the earliest such repeat in source order. */
	for (i = 1; i < n; i++) {
		if (strcmp(sorted[i - 1].name, sorted[i].name) != 0)
			continue;
		if (!found || sorted[i].index < *dup)
			*dup = sorted[i].index;
		found = true;
		while (i + 1 < n && strcmp(sorted[i].name, sorted[i + 1].name) == 0)
			i++;
	}
	free(sorted);
	return found;
}
