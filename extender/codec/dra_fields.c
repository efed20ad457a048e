/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/dra_fields.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/cel.h"
#include "extender/codec/sched_affinity_decode.h"
#include "topology/names.h"

static const char *const rule_names[] = {
	[DRA_NAME_LABEL] = "a DNS label",
	[DRA_NAME_SUBDOMAIN] = "a DNS subdomain",
	[DRA_NAME_DRIVER] = "a driver name",
	[DRA_NAME_POOL] = "a pool name",
};

/* A label is a subdomain of one part, at most 63 characters. */
static bool is_label(const char *s, size_t len, char *why, size_t size)
{
	if (!name_is_dns_subdomain(s, len, why, size))
		return false;
	if (memchr(s, '.', len) != NULL) {
		snprintf(why, size, "must not contain '.'");
		return false;
	}
	if (len > 63) {
		snprintf(why, size, "must be no more than 63 characters");
		return false;
	}
	return true;
}

/* The CSI driver name rule: a subdomain once lowercased, at most 63. */
static bool is_driver(const char *s, size_t len, char *why, size_t size)
{
	char lower[254];
	size_t i;

	if (len > DRA_MAX_DRIVER) {
		snprintf(why, size, "must be no more than %d characters", DRA_MAX_DRIVER);
		return false;
	}
	for (i = 0; i < len; i++)
		lower[i] = (char)tolower((unsigned char)s[i]);
	return name_is_dns_subdomain(lower, len, why, size);
}

/* One or more subdomains separated by '/', 253 characters in all. */
static bool is_pool(const char *s, size_t len, char *why, size_t size)
{
	size_t start = 0, i;

	if (len > DRA_MAX_POOL) {
		snprintf(why, size, "must be no more than %d characters", DRA_MAX_POOL);
		return false;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '/')
			continue;
		if (!name_is_dns_subdomain(s + start, i - start, why, size))
			return false;
		start = i + 1;
	}
	return true;
}

enum err dra_check_name(struct decode_ctx *c, const char *key, const char *value,
			enum dra_name_rule rule)
{
	char why[160], quoted[DOC_QUOTE_CAP];
	size_t len = strlen(value);
	bool ok;

	switch (rule) {
	case DRA_NAME_LABEL:
		ok = is_label(value, len, why, sizeof why);
		break;
	case DRA_NAME_DRIVER:
		ok = is_driver(value, len, why, sizeof why);
		break;
	case DRA_NAME_POOL:
		ok = is_pool(value, len, why, sizeof why);
		break;
	default:
		ok = name_is_dns_subdomain(value, len, why, sizeof why);
		break;
	}
	if (ok)
		return ERR_OK;
	doc_quote(quoted, sizeof quoted, value, len);
	if (key == NULL)
		return decode_fail(c, ERR_INVALID, "%s: not %s: %s", quoted, rule_names[rule], why);
	return decode_fail_at(c, key, ERR_INVALID, "%s: not %s: %s", quoted, rule_names[rule], why);
}

enum err dra_read_name(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, enum dra_name_rule rule, char **out)
{
	enum err rc = decode_string(c, obj, key, how, out);

	if (rc == ERR_OK && *out != NULL)
		rc = dra_check_name(c, key, *out, rule);
	return rc;
}

static bool is_c_identifier(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

enum err dra_qualified_name(struct decode_ctx *c, const char *text, const char *driver,
			    char **domain, char **id)
{
	const char *slash = strchr(text, '/'), *name = slash ? slash + 1 : text;
	char quoted[DOC_QUOTE_CAP], why[160];
	size_t dlen = slash ? (size_t)(slash - text) : 0;

	doc_quote(quoted, sizeof quoted, text, strlen(text));
	if (slash == NULL && driver == NULL)
		return decode_fail(c, ERR_INVALID, "%s: must be fully qualified (domain/name)", quoted);
	if (slash != NULL) {
		char dom[DRA_MAX_DOMAIN + 1];

		if (dlen > DRA_MAX_DOMAIN)
			return decode_fail(c, ERR_INVALID, "%s: the domain must be no more than %d characters",
					   quoted, DRA_MAX_DOMAIN);
		memcpy(dom, text, dlen);
		dom[dlen] = '\0';
		if (!name_is_dns_subdomain(dom, dlen, why, sizeof why))
			return decode_fail(c, ERR_INVALID, "%s: the domain is not a DNS subdomain: %s",
					   quoted, why);
	}
	if (strlen(name) > DRA_MAX_ID)
		return decode_fail(c, ERR_INVALID, "%s: the name must be no more than %d characters", quoted,
				   DRA_MAX_ID);
	if (!is_c_identifier(name, strlen(name)))
		return decode_fail(c, ERR_INVALID, "%s: the name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)",
				   quoted);
	*domain = slash ? xstrndup(text, dlen) : xstrdup(driver);
	*id = xstrdup(name);
	return ERR_OK;
}

/* "a, b, c or d" of keys[0..n), into buf. */
static void key_list(char *buf, size_t size, const char *const *keys, size_t n)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s",
				       i == 0 ? "" : i + 1 == n ? " or " : ", ", keys[i]);
}

enum err dra_one_of(struct decode_ctx *c, const struct doc *obj, const char *const *keys,
		    size_t n, unsigned flags, size_t *which)
{
	char list[256];
	size_t i;

	*which = SIZE_MAX;
	for (i = 0; i < n; i++) {
		const struct doc *v = doc_lookup(obj, keys[i]);

		if (v == NULL)
			continue;
		if ((flags & DRA_ONE_VALUES) == 0 &&
		    ((v->kind == DOC_ARRAY && v->nchildren == 0) ||
		     ((v->kind == DOC_BOOL || v->kind == DOC_PLAIN) && strcmp(v->text, "false") == 0)))
			continue;
		if (*which != SIZE_MAX)
			return decode_fail(c, ERR_INVALID, "only one of %s and %s may be set",
					   keys[*which], keys[i]);
		*which = i;
	}
	if (*which != SIZE_MAX || (flags & DRA_ONE_REQUIRED) == 0)
		return ERR_OK;
	key_list(list, sizeof list, keys, n);
	return decode_fail(c, ERR_INVALID, "exactly one of %s is required", list);
}

static enum err check_type(struct decode_ctx *c, const struct doc *d, const char *want)
{
	char quoted[DOC_QUOTE_CAP];
	const char *v;
	enum err rc = decode_kind(c, d, want, false);

	if (rc == ERR_OK)
		rc = decode_text(c, d, "apiVersion", 0, &v);
	if (rc != ERR_OK || v == NULL || strcmp(v, "resource.k8s.io/v1") == 0)
		return rc;
	doc_quote(quoted, sizeof quoted, v, strlen(v));
	return decode_fail_at(c, "apiVersion", ERR_INVALID,
			      "%s: expected resource.k8s.io/v1 (kubectl get -o yaml prints the served version)",
			      quoted);
}

enum err dra_read_head(struct decode_ctx *c, const struct doc *d, const char *kind, char **ns,
		       char **name, char **uid)
{
	const struct doc *md;
	size_t mark;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = check_type(c, d, kind);
	mark = doc_path_key(&c->path, "metadata");
	if (rc == ERR_OK)
		rc = decode_field(c, d, "metadata", DOC_OBJECT, DECODE_REQUIRED, &md);
	if (rc == ERR_OK)
		rc = dra_read_name(c, md, "name", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_SUBDOMAIN,
				   name);
	if (rc == ERR_OK && ns != NULL)
		rc = dra_read_name(c, md, "namespace", 0, DRA_NAME_LABEL, ns);
	if (rc == ERR_OK && uid != NULL)
		rc = decode_string(c, md, "uid", 0, uid);
	/* An empty namespace means the default one, as in the API server. */
	if (rc == ERR_OK && ns != NULL && *ns == NULL)
		*ns = xstrdup("default");
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_selector(struct decode_ctx *c, const struct doc *d, void *elem,
				void *arg)
{
	char **expr = elem;
	const struct doc *cel;
	size_t mark;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc != ERR_OK)
		return rc;
	mark = doc_path_key(&c->path, "cel");
	rc = decode_field(c, d, "cel", DOC_OBJECT, DECODE_REQUIRED, &cel);
	if (rc == ERR_OK)
		rc = decode_string(c, cel, "expression", DECODE_REQUIRED | DECODE_NONEMPTY, expr);
	if (rc == ERR_OK && strlen(*expr) > DRA_CEL_MAX_LENGTH)
		rc = decode_fail_at(c, "expression", ERR_TOO_LARGE,
				    "%zu bytes: longer than the API server's %d", strlen(*expr),
				    DRA_CEL_MAX_LENGTH);
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err dra_read_selectors(struct decode_ctx *c, const struct doc *obj, char ***out,
			    size_t *n)
{
	void *v = *out;
	enum err rc = dra_check_length(c, obj, "selectors", DRA_MAX_SELECTORS);

	if (rc == ERR_OK)
		rc = decode_array(c, obj, "selectors", 0, sizeof **out, &v, n, decode_selector, NULL);
	*out = v;
	return rc;
}

enum err dra_check_length(struct decode_ctx *c, const struct doc *obj, const char *key,
			  size_t max)
{
	const struct doc *arr = doc_lookup(obj, key);

	if (arr == NULL || arr->kind != DOC_ARRAY || arr->nchildren <= max)
		return ERR_OK;
	return decode_fail_at(c, key, ERR_TOO_LARGE, "%zu entries: more than the API server's %zu",
			      arr->nchildren, max);
}

enum err dra_read_nonempty(struct decode_ctx *c, const struct doc *obj, const char *key,
			   enum doc_kind kind, bool *out)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *v;
	enum err rc = decode_field(c, obj, key, kind, 0, &v);

	*out = rc == ERR_OK && v != NULL && v->nchildren > 0;
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err dra_read_node_selector(struct decode_ctx *c, const struct doc *obj, const char *key,
				struct sched_term *t, bool *present)
{
	size_t mark = doc_path_key(&c->path, key), m;
	const struct doc *sel, *terms = NULL;
	enum err rc;

	*present = false;
	rc = decode_field(c, obj, key, DOC_OBJECT, 0, &sel);
	if (rc != ERR_OK || sel == NULL)
		goto out;
	*present = true;
	m = doc_path_key(&c->path, "nodeSelectorTerms");
	rc = decode_field(c, sel, "nodeSelectorTerms", DOC_ARRAY, DECODE_REQUIRED, &terms);
	if (rc == ERR_OK && terms->nchildren != 1)
		rc = decode_fail(c, ERR_INVALID, "must have exactly one term, got %zu", terms->nchildren);
	if (rc == ERR_OK) {
		size_t i = doc_path_index(&c->path, 0);

		rc = sched_term_decode(c, terms->children[0].value, t);
		doc_path_pop(&c->path, i);
	}
	doc_path_pop(&c->path, m);
out:
	doc_path_pop(&c->path, mark);
	return rc;
}
