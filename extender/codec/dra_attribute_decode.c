/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/dra_attribute_decode.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/dra_fields.h"

/* In enum dra_attr_type order. */
static const char *const type_keys[] = {
	"int", "bool", "string", "version", "ints", "bools", "strings", "versions",
};

/* A dot-separated identifier list; numeric identifiers without leading
 * zeros where numeric is required (pre-release), any of [0-9A-Za-z-]. */
static bool identifiers(const char *s, size_t len, bool pre)
{
	size_t start = 0, i;

	for (i = 0; i <= len; i++) {
		size_t n = i - start, k;
		bool digits = true;

		if (i < len && s[i] != '.') {
			if (!isalnum((unsigned char)s[i]) && s[i] != '-')
				return false;
			continue;
		}
		if (n == 0)
			return false;
		for (k = start; k < i; k++)
			digits = digits && isdigit((unsigned char)s[k]);
		if (pre && digits && n > 1 && s[start] == '0')
			return false;
		start = i + 1;
	}
	return true;
}

/* One of MAJOR, MINOR, PATCH: digits, no leading zero; *p moves past it. */
static bool number(const char **p)
{
	const char *s = *p;

	if (!isdigit((unsigned char)*s) || (s[0] == '0' && isdigit((unsigned char)s[1])))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	*p = s;
	return true;
}

bool dra_semver_valid(const char *s)
{
	const char *p = s, *plus;

	if (!number(&p) || *p++ != '.' || !number(&p) || *p++ != '.' || !number(&p))
		return false;
	plus = strchr(p, '+');
	if (*p == '-') {
		size_t n = plus ? (size_t)(plus - p - 1) : strlen(p + 1);

		if (!identifiers(p + 1, n, true))
			return false;
		p += 1 + n;
	}
	if (*p == '+')
		return identifiers(p + 1, strlen(p + 1), false);
	return *p == '\0';
}

static enum err read_bool(struct decode_ctx *c, const struct doc *v, bool *out)
{
	if ((v->kind == DOC_BOOL || v->kind == DOC_PLAIN) &&
	    (strcmp(v->text, "true") == 0 || strcmp(v->text, "false") == 0)) {
		*out = v->text[0] == 't';
		return ERR_OK;
	}
	return decode_fail(c, ERR_INVALID, "expected a boolean, got %s", doc_kind_name(v));
}

static enum err read_text(struct decode_ctx *c, const struct doc *v, bool version, char **out)
{
	char quoted[DOC_QUOTE_CAP];
	const char *t;
	enum err rc = decode_text_of(c, v, 0, &t);

	if (rc != ERR_OK)
		return rc;
	if (strlen(t) > DRA_MAX_VALUE_LENGTH)
		return decode_fail(c, ERR_INVALID, "%zu characters: longer than the API server's %d",
				   strlen(t), DRA_MAX_VALUE_LENGTH);
	doc_quote(quoted, sizeof quoted, t, strlen(t));
	if (version && !dra_semver_valid(t))
		return decode_fail(c, ERR_INVALID, "%s: not a semantic version (MAJOR.MINOR.PATCH)",
				   quoted);
	*out = xstrdup(t);
	return ERR_OK;
}

/* Value i of a (its arrays allocated for a->n values). */
static enum err read_scalar(struct decode_ctx *c, const struct doc *v, struct dra_attribute *a,
			    size_t i)
{
	enum err rc;

	switch (a->type) {
	case DRA_ATTR_INT:
	case DRA_ATTR_INTS:
		rc = doc_read_int64(v, &a->ints[i], c->msg);
		return rc == ERR_OK ? rc : decode_fail_prefixed(c, rc);
	case DRA_ATTR_BOOL:
	case DRA_ATTR_BOOLS:
		return read_bool(c, v, &a->bools[i]);
	default:
		return read_text(c, v, a->type == DRA_ATTR_VERSION || a->type == DRA_ATTR_VERSIONS,
				 &a->strings[i]);
	}
}

static enum err decode_value(struct decode_ctx *c, const struct doc *v, struct dra_attribute *a,
			     size_t *list_values)
{
	const struct doc *x;
	size_t which, mark, i;
	enum err rc = decode_expect(c, v, DOC_OBJECT);

	if (rc == ERR_OK)
		rc = dra_one_of(c, v, type_keys, 8, DRA_ONE_REQUIRED | DRA_ONE_VALUES, &which);
	if (rc != ERR_OK)
		return rc;
	a->type = (enum dra_attr_type)which;
	x = doc_lookup(v, type_keys[which]);
	mark = doc_path_key(&c->path, type_keys[which]);
	if (a->type >= DRA_ATTR_INTS) {
		rc = decode_expect(c, x, DOC_ARRAY);
		if (rc == ERR_OK && x->nchildren == 0)
			rc = decode_fail(c, ERR_INVALID, "must not be empty");
		*list_values += rc == ERR_OK ? x->nchildren : 0;
		if (rc == ERR_OK && *list_values > DRA_MAX_LIST_VALUES)
			rc = decode_fail(c, ERR_TOO_LARGE,
					 "the device's list attributes hold more than the API server's %d values",
					 DRA_MAX_LIST_VALUES);
	}
	a->n = a->type >= DRA_ATTR_INTS && rc == ERR_OK ? x->nchildren : 1;
	if (rc == ERR_OK && (a->type == DRA_ATTR_INT || a->type == DRA_ATTR_INTS))
		a->ints = xcalloc(a->n, sizeof *a->ints);
	else if (rc == ERR_OK && (a->type == DRA_ATTR_BOOL || a->type == DRA_ATTR_BOOLS))
		a->bools = xcalloc(a->n, sizeof *a->bools);
	else if (rc == ERR_OK)
		a->strings = xcalloc(a->n, sizeof *a->strings);
	if (rc == ERR_OK && a->type < DRA_ATTR_INTS)
		rc = read_scalar(c, x, a, 0);
	for (i = 0; rc == ERR_OK && a->type >= DRA_ATTR_INTS && i < a->n; i++) {
		size_t m = doc_path_index(&c->path, i);

		rc = read_scalar(c, x->children[i].value, a, i);
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_capacity(struct decode_ctx *c, const struct doc *v, struct dra_capacity *cap)
{
	char quoted[DOC_QUOTE_CAP];
	const struct doc *q;
	enum err rc = decode_expect(c, v, DOC_OBJECT);
	size_t mark = doc_path_key(&c->path, "requestPolicy");

	/* The policy matters to consumable capacity only, which the
	 * prediction does not follow (allowMultipleAllocations says when). */
	if (rc == ERR_OK)
		rc = decode_field(c, v, "requestPolicy", DOC_OBJECT, 0, &q);
	doc_path_pop(&c->path, mark);
	mark = doc_path_key(&c->path, "value");
	q = doc_lookup(v, "value");
	if (rc == ERR_OK && q == NULL)
		rc = decode_fail(c, ERR_INVALID, "missing");
	else if (rc == ERR_OK && q->kind != DOC_STRING && q->kind != DOC_PLAIN && q->kind != DOC_NUMBER)
		rc = decode_fail(c, ERR_INVALID, "expected a quantity, got %s", doc_kind_name(q));
	if (rc == ERR_OK && (rc = quantity_parse(q->text, q->len, &cap->value, c->msg)) != ERR_OK)
		rc = decode_fail_prefixed(c, rc);
	if (rc == ERR_OK && quantity_sign(&cap->value) < 0) {
		doc_quote(quoted, sizeof quoted, q->text, q->len);
		rc = decode_fail(c, ERR_INVALID, "%s: must not be negative", quoted);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

/* "domain/name" of each entry, to find two names of one attribute. */
static enum err check_unique(struct decode_ctx *c, const char *key, char **full, size_t n,
			     const struct doc *map)
{
	char quoted[DOC_QUOTE_CAP];
	size_t dup;

	if (!doc_find_duplicate((const char *const *)full, n, &dup))
		return ERR_OK;
	doc_quote(quoted, sizeof quoted, full[dup], strlen(full[dup]));
	{
		size_t m = doc_path_key(&c->path, key);
		enum err rc = decode_fail_at(c, map->children[dup].key, ERR_INVALID,
					     "names the same %s as an earlier entry (%s)",
					     strcmp(key, "capacity") == 0 ? "capacity" : "attribute", quoted);

		doc_path_pop(&c->path, m);
		return rc;
	}
}

/* The members of dev.key, each split and decoded into elem i of an array
 * of size bytes whose domain and name pointers sit at the start. */
static enum err decode_map(struct decode_ctx *c, const struct doc *map, const char *key,
			   const char *driver, struct dra_device *out, size_t *list_values)
{
	bool attrs = strcmp(key, "attributes") == 0;
	size_t mark = doc_path_key(&c->path, key), i, n = map ? map->nchildren : 0;
	char **full = xcalloc(n + 1, sizeof *full);
	enum err rc = ERR_OK;

	if (attrs) {
		out->attributes = xcalloc(n + 1, sizeof *out->attributes);
	} else {
		out->capacity = xcalloc(n + 1, sizeof *out->capacity);
	}
	for (i = 0; i < n && rc == ERR_OK; i++) {
		const struct doc_child *ch = &map->children[i];
		size_t m = doc_path_key(&c->path, ch->key);
		char **domain = attrs ? &out->attributes[i].domain : &out->capacity[i].domain;
		char **name = attrs ? &out->attributes[i].name : &out->capacity[i].name;

		if (attrs)
			out->nattributes++;
		else
			out->ncapacity++;
		rc = dra_qualified_name(c, ch->key, driver, domain, name);
		if (rc == ERR_OK && attrs)
			rc = decode_value(c, ch->value, &out->attributes[i], list_values);
		else if (rc == ERR_OK)
			rc = decode_capacity(c, ch->value, &out->capacity[i]);
		if (rc == ERR_OK) {
			full[i] = xmalloc(strlen(*domain) + strlen(*name) + 2);
			strcpy(full[i], *domain);
			strcat(full[i], "/");
			strcat(full[i], *name);
		}
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK)
		rc = check_unique(c, key, full, n, map);
	for (i = 0; i < n; i++)
		free(full[i]);
	free(full);
	return rc;
}

enum err dra_attributes_decode(struct decode_ctx *c, const struct doc *dev, const char *driver,
			       struct dra_device *out)
{
	const struct doc *attrs = NULL, *caps = NULL;
	size_t mark, list_values = 0, total;
	enum err rc;

	mark = doc_path_key(&c->path, "attributes");
	rc = decode_field(c, dev, "attributes", DOC_OBJECT, 0, &attrs);
	doc_path_pop(&c->path, mark);
	mark = doc_path_key(&c->path, "capacity");
	if (rc == ERR_OK)
		rc = decode_field(c, dev, "capacity", DOC_OBJECT, 0, &caps);
	doc_path_pop(&c->path, mark);
	if (rc != ERR_OK)
		return rc;
	total = (attrs ? attrs->nchildren : 0) + (caps ? caps->nchildren : 0);
	if (total > DRA_MAX_ATTRIBUTES)
		return decode_fail(c, ERR_TOO_LARGE,
				   "%zu attributes and capacities: more than the API server's %d", total,
				   DRA_MAX_ATTRIBUTES);
	rc = decode_map(c, attrs, "attributes", driver, out, &list_values);
	if (rc == ERR_OK)
		rc = decode_map(c, caps, "capacity", driver, out, &list_values);
	return rc;
}
