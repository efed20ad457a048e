/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_fields.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "topology/names.h"
#include "topology/quantity.h"

enum err sf_bool(struct decode_ctx *c, const struct doc *obj, const char *key,
		 bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE" };
	static const char *const no[] = { "false", "False", "FALSE" };
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *d = doc_lookup(obj, key);
	enum err rc = ERR_OK;
	size_t i;
	bool found = d == NULL;

	for (i = 0; !found && (d->kind == DOC_BOOL || d->kind == DOC_PLAIN) && i < 3; i++) {
		if (strcmp(d->text, yes[i]) == 0 || strcmp(d->text, no[i]) == 0) {
			*out = strcmp(d->text, yes[i]) == 0;
			found = true;
		}
	}
	if (!found)
		rc = decode_fail(c, ERR_INVALID, "expected a boolean, got %s", doc_kind_name(d));
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err sf_int(struct decode_ctx *c, const struct doc *obj, const char *key,
		int64_t min, int64_t max, int64_t *out, bool *present)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *d = doc_lookup(obj, key);
	enum err rc = ERR_OK;
	int64_t v;

	if (present != NULL)
		*present = d != NULL;
	if (d != NULL) {
		rc = doc_read_int64(d, &v, c->msg);
		if (rc != ERR_OK)
			rc = decode_fail_prefixed(c, rc);
		else if (v < min || v > max)
			rc = decode_fail(c, ERR_RANGE, "%lld: not in [%lld, %lld]", (long long)v,
					 (long long)min, (long long)max);
		else
			*out = v;
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err sf_strings(struct decode_ctx *c, const struct doc *obj, const char *key,
		    char ***out, size_t *n)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *arr;
	enum err rc;
	size_t i;

	rc = decode_field(c, obj, key, DOC_ARRAY, 0, &arr);
	if (rc == ERR_OK && arr != NULL) {
		*out = xcalloc(arr->nchildren + 1, sizeof **out);
		for (i = 0; i < arr->nchildren && rc == ERR_OK; i++) {
			size_t m = doc_path_index(&c->path, i);
			const char *text;

			rc = decode_text_of(c, arr->children[i].value, 0, &text);
			if (rc == ERR_OK)
				(*out)[(*n)++] = xstrdup(text);
			doc_path_pop(&c->path, m);
		}
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

/* Calls fn for each member of the object obj.key, the member's key pushed
 * onto the path, until one fails; *n members are room for in *out, an array
 * of size bytes per member (NULL when the field is absent). */
typedef enum err member_fn(struct decode_ctx *c, const char *key,
			   const struct doc *value, void *elem);

static enum err each_member(struct decode_ctx *c, const struct doc *obj, const char *key,
			    size_t size, void **out, size_t *n, member_fn *fn)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *map;
	enum err rc;
	size_t i;

	rc = decode_field(c, obj, key, DOC_OBJECT, 0, &map);
	if (rc == ERR_OK && map != NULL) {
		*out = xcalloc(map->nchildren + 1, size);
		for (i = 0; i < map->nchildren && rc == ERR_OK; i++) {
			size_t m = doc_path_key(&c->path, map->children[i].key);

			rc = fn(c, map->children[i].key, map->children[i].value,
				(char *)*out + *n * size);
			if (rc == ERR_OK)
				(*n)++;
			doc_path_pop(&c->path, m);
		}
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err label_member(struct decode_ctx *c, const char *key, const struct doc *value,
			     void *elem)
{
	struct sched_label *l = elem;
	const char *text = "";
	enum err rc = ERR_OK;

	/* "key:" with nothing after it is an empty label value. */
	if (!doc_is_null(value))
		rc = decode_text_of(c, value, DECODE_SCALAR, &text);
	if (rc == ERR_OK) {
		l->key = xstrdup(key);
		l->value = xstrdup(text);
	}
	return rc;
}

enum err sf_string_map(struct decode_ctx *c, const struct doc *obj,
		       const char *key, struct sched_label **out, size_t *n)
{
	void *v = NULL;
	enum err rc = each_member(c, obj, key, sizeof **out, &v, n, label_member);

	*out = v;
	return rc;
}

/* One quantity of a resource map, checked as the API server would and so
 * that the scheduler's integer view of it exists. */
static enum err quantity_here(struct decode_ctx *c, const char *name,
			      const struct doc *d, struct quantity *q)
{
	char quoted[DOC_QUOTE_CAP], why[160];
	int64_t v;
	enum err rc;

	if (!name_is_resource(name, strlen(name), why, sizeof why)) {
		doc_quote(quoted, sizeof quoted, name, strlen(name));
		return decode_fail(c, ERR_INVALID, "%s: not a valid resource name: %s", quoted, why);
	}
	if (d->kind != DOC_STRING && d->kind != DOC_PLAIN && d->kind != DOC_NUMBER)
		return decode_fail(c, ERR_INVALID, "expected a quantity, got %s", doc_kind_name(d));
	rc = quantity_parse(d->text, d->len, q, c->msg);
	if (rc != ERR_OK)
		return decode_fail_prefixed(c, rc);
	doc_quote(quoted, sizeof quoted, d->text, d->len);
	if (quantity_sign(q) < 0)
		return decode_fail(c, ERR_INVALID, "%s: must not be negative", quoted);
	if (quantity_scaled(q, strcmp(name, "cpu") == 0 ? -3 : 0, &v) != ERR_OK)
		return decode_fail(c, ERR_RANGE, "%s: out of range", quoted);
	return ERR_OK;
}

static enum err quantity_member(struct decode_ctx *c, const char *key,
				const struct doc *value, void *elem)
{
	struct pod_quantity *pq = elem;
	enum err rc = quantity_here(c, key, value, &pq->q);

	if (rc == ERR_OK)
		pq->name = xstrdup(key);
	return rc;
}

enum err sf_quantities(struct decode_ctx *c, const struct doc *obj,
		       const char *key, struct pod_quantity **out, size_t *n)
{
	void *v = NULL;
	enum err rc = each_member(c, obj, key, sizeof **out, &v, n, quantity_member);

	*out = v;
	return rc;
}
