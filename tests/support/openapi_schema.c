/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/openapi_schema.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "tests/support/doc_query.h"

static const char *const schema_types[] = {
	"object", "array", "string", "integer", "number", "boolean", NULL,
};

static const char *const schema_keywords[] = {
	"type", "format", "description", "properties", "required", "items", "x-kubernetes-int-or-string",
	"anyOf", "pattern", "enum", NULL,
};

const struct doc *openapi_crd_version(const struct doc *crd, const char *version)
{
	const struct doc *versions = dq_at(crd, "spec.versions");
	size_t i;

	for (i = 0; i < dq_count(versions); i++)
		if (dq_same_str(dq_str(dq_item(versions, i), "name"), version))
			return dq_item(versions, i);
	return NULL;
}

bool openapi_int_or_string(const struct doc *schema)
{
	return dq_is_true(doc_lookup(schema, "x-kubernetes-int-or-string"));
}

/* Every node of a structural schema, using only keywords the validator
 * implements; path is the field path of node, extended in place. */
static bool walk(const struct doc *node, char *path, size_t cap, const struct openapi_field *spec,
		 struct errmsg *msg)
{
	const struct doc *props = doc_lookup(node, "properties"), *items = doc_lookup(node, "items");
	const char *type = dq_str(node, "type");
	size_t i, len = strlen(path);

	for (i = 0; i < dq_count(node); i++)
		if (!dq_in_list(node->children[i].key, schema_keywords))
			return dq_fail(msg, "%s: schema keyword %s is not implemented by this validator",
				     path[0] ? path : "(root)", node->children[i].key);
	if (openapi_int_or_string(node)) {
		const struct doc *any = doc_lookup(node, "anyOf");

		if (type)
			return dq_fail(msg, "%s: x-kubernetes-int-or-string with a type is not structural", path);
		if (any && (dq_count(any) != 2 || !dq_same_str(dq_str(dq_item(any, 0), "type"), "integer") ||
			    !dq_same_str(dq_str(dq_item(any, 1), "type"), "string")))
			return dq_fail(msg, "%s: int-or-string anyOf must be [integer, string]", path);
	} else if (!dq_in_list(type, schema_types)) {
		return dq_fail(msg, "%s: every node of a structural schema needs a type", path[0] ? path : "(root)");
	}
	if (dq_same_str(type, "array") && items == NULL)
		return dq_fail(msg, "%s: an array without items", path);
	if (props && !dq_same_str(type, "object"))
		return dq_fail(msg, "%s: properties on a non-object", path);
	for (i = 0; i < dq_count(doc_lookup(node, "required")); i++) {
		const char *name = dq_text(dq_item(doc_lookup(node, "required"), i));

		if (name == NULL || !doc_get(props, name))
			return dq_fail(msg, "%s: required field %s has no schema", path[0] ? path : "(root)",
				     name ? name : "(not a string)");
	}
	for (i = 0; i < dq_count(props); i++) {
		const struct openapi_field *f;

		snprintf(path + len, cap - len, "%s%s", len ? "." : "", props->children[i].key);
		for (f = spec; f && f->path && strcmp(f->path, path) != 0; f++)
			;
		if (f && f->path == NULL)
			return dq_fail(msg, "%s: not one of the fields of the API", path);
		if (!walk(props->children[i].value, path, cap, spec, msg))
			return false;
		path[len] = '\0';
	}
	if (items) {
		snprintf(path + len, cap - len, "[]");
		if (!walk(items, path, cap, spec, msg))
			return false;
		path[len] = '\0';
	}
	return true;
}

bool openapi_structural(const struct doc *schema, const struct openapi_field *fields, struct errmsg *msg)
{
	char path[512] = "";

	return walk(schema, path, sizeof path, fields, msg);
}

/* Schema node at a spec path ("zones[].costs[].value"), and whether its
 * parent requires it. */
const struct doc *openapi_schema_at(const struct doc *root, const char *path, bool *required)
{
	const struct doc *node = root, *parent = NULL;
	char seg[64];
	const char *p = path;

	*required = false;
	while (node && *p) {
		size_t n = strcspn(p, ".[");

		if (n > 0) {
			snprintf(seg, sizeof seg, "%.*s", (int)n, p);
			parent = node;
			node = doc_get(doc_lookup(node, "properties"), seg);
			*required = dq_list_has(doc_lookup(parent, "required"), seg);
			p += n;
		}
		if (strncmp(p, "[]", 2) == 0) {
			node = doc_lookup(node, "items");
			p += 2;
		}
		if (*p == '.')
			p++;
	}
	return node;
}

bool openapi_check_fields(const struct doc *schema, const struct openapi_field *spec, const char *version,
			  struct errmsg *msg)
{
	const struct openapi_field *f;

	if (!dq_same_str(dq_str(schema, "type"), "object"))
		return dq_fail(msg, "%s: the root must be an object", version);
	for (f = spec; f->path; f++) {
		bool required;
		const struct doc *node = openapi_schema_at(schema, f->path, &required);

		if (node == NULL)
			return dq_fail(msg, "%s: %s is missing from the schema", version, f->path);
		if (strcmp(f->type, "quantity") == 0 ? !openapi_int_or_string(node) : !dq_same_str(dq_str(node, "type"), f->type))
			return dq_fail(msg, "%s: %s must be %s", version, f->path, f->type);
		if (f->required >= 0 && required != (f->required == 1))
			return dq_fail(msg, "%s: %s must %sbe required", version, f->path, f->required ? "" : "not ");
	}
	if (!openapi_structural(schema, spec, msg)) {
		errmsg_prefix(msg, "%s: ", version);
		return false;
	}
	return true;
}

/* How sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) types a plain scalar. */
static const char *plain_type(const char *t)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const bools[] = {
		"true", "True", "TRUE", "false", "False", "FALSE", "y", "Y", "yes", "Yes", "YES",
		"n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", NULL,
	};

	if (dq_in_list(t, nulls))
		return "null";
	if (dq_in_list(t, bools))
		return "boolean";
	if (dq_matches("^[-+]?([0-9][0-9_]*|0x[0-9a-fA-F_]+|0b[01_]+)$", t))
		return "integer";
	if (dq_matches("^[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?$", t) ||
	    dq_matches("^[-+]?\\.(inf|Inf|INF)$", t) || dq_matches("^\\.(nan|NaN|NAN)$", t))
		return "number";
	return "string";
}

const char *openapi_value_type(const struct doc *d)
{
	switch (d->kind) {
	case DOC_NULL:
		return "null";
	case DOC_BOOL:
		return "boolean";
	case DOC_NUMBER:
		return strpbrk(d->text, ".eE") ? "number" : "integer";
	case DOC_STRING:
		return "string";
	case DOC_PLAIN:
		return plain_type(d->text);
	case DOC_ARRAY:
		return "array";
	case DOC_OBJECT:
		return "object";
	}
	return "string";
}

static bool type_ok(const char *want, const char *got)
{
	return strcmp(want, got) == 0 || (strcmp(want, "number") == 0 && strcmp(got, "integer") == 0);
}

/* type (int-or-string, anyOf of types), enum, pattern, required, properties
 * and items, recursively; p is v's path. */
static bool validate(const struct doc *schema, const struct doc *v, const char *origin, struct doc_path *p,
		     struct errmsg *msg)
{
	const char *got = openapi_value_type(v), *want = dq_str(schema, "type");
	const struct doc *any = doc_lookup(schema, "anyOf"), *en = doc_lookup(schema, "enum");
	const struct doc *props = doc_lookup(schema, "properties"), *items = doc_lookup(schema, "items");
	size_t i;

	if (openapi_int_or_string(schema) && strcmp(got, "integer") != 0 && strcmp(got, "string") != 0) {
		doc_errorf(msg, origin, p, "expected an integer or a string, got %s", got);
		return false;
	}
	if (want && !type_ok(want, got)) {
		doc_errorf(msg, origin, p, "expected %s, got %s", want, got);
		return false;
	}
	if (any && !openapi_int_or_string(schema)) {
		bool ok = false;

		for (i = 0; i < dq_count(any) && !ok; i++)
			ok = !dq_str(dq_item(any, i), "type") || type_ok(dq_str(dq_item(any, i), "type"), got);
		if (!ok) {
			doc_errorf(msg, origin, p, "%s matches none of anyOf", got);
			return false;
		}
	}
	if (en && !dq_list_has(en, v->text ? v->text : "")) {
		doc_errorf(msg, origin, p, "\"%s\" is not one of the allowed values", v->text ? v->text : "");
		return false;
	}
	if (dq_str(schema, "pattern") && strcmp(got, "string") == 0) {
		regex_t re;
		int rc;

		if (regcomp(&re, dq_str(schema, "pattern"), REG_EXTENDED | REG_NOSUB) != 0) {
			doc_errorf(msg, origin, p, "pattern is not a POSIX extended expression");
			return false;
		}
		rc = regexec(&re, v->text, 0, NULL, 0);
		regfree(&re);
		if (rc != 0) {
			char q[DOC_QUOTE_CAP];

			doc_quote(q, sizeof q, v->text, v->len);
			doc_errorf(msg, origin, p, "%s does not match the pattern %s", q, dq_str(schema, "pattern"));
			return false;
		}
	}
	if (v->kind == DOC_OBJECT) {
		for (i = 0; i < dq_count(doc_lookup(schema, "required")); i++) {
			const char *name = dq_text(dq_item(doc_lookup(schema, "required"), i));

			if (name && doc_lookup(v, name) == NULL) {
				size_t mark = doc_path_key(p, name);

				doc_errorf(msg, origin, p, "required field is missing");
				doc_path_pop(p, mark);
				return false;
			}
		}
		for (i = 0; i < v->nchildren; i++) {
			const struct doc *sub = props ? doc_get(props, v->children[i].key) : NULL;
			size_t mark = doc_path_key(p, v->children[i].key);

			if (props && sub == NULL) {
				doc_errorf(msg, origin, p, "unknown field");
				return false;
			}
			if (sub && !doc_is_null(v->children[i].value) &&
			    !validate(sub, v->children[i].value, origin, p, msg))
				return false;
			doc_path_pop(p, mark);
		}
	}
	if (v->kind == DOC_ARRAY && items) {
		for (i = 0; i < v->nchildren; i++) {
			size_t mark = doc_path_index(p, i);

			if (!validate(items, dq_item(v, i), origin, p, msg))
				return false;
			doc_path_pop(p, mark);
		}
	}
	return true;
}

/* Validates an object against the CRD version its apiVersion names. */
bool openapi_validate_object(const struct doc *crd, const struct doc *obj, const char *origin,
			     struct errmsg *msg)
{
	const char *api = dq_str(obj, "apiVersion"), *slash = api ? strchr(api, '/') : NULL;
	const struct doc *version;
	struct doc_path p;
	char group[128];

	if (slash == NULL)
		return dq_fail(msg, "%s: apiVersion %s has no group", origin, api ? api : "(none)");
	snprintf(group, sizeof group, "%.*s", (int)(slash - api), api);
	if (!dq_same_str(group, dq_str(crd, "spec.group")) ||
	    !dq_same_str(dq_str(obj, "kind"), dq_str(crd, "spec.names.kind")))
		return dq_fail(msg, "%s: %s %s is not this CRD's kind", origin, api, dq_str(obj, "kind"));
	version = openapi_crd_version(crd, slash + 1);
	if (version == NULL || !dq_is_true(doc_lookup(version, "served")))
		return dq_fail(msg, "%s: version %s is not served", origin, slash + 1);
	doc_path_init(&p);
	return validate(dq_at(version, "schema.openAPIV3Schema"), obj, origin, &p, msg);
}

bool openapi_validate(const struct doc *schema, const struct doc *v, const char *origin, struct errmsg *msg)
{
	struct doc_path p;

	doc_path_init(&p);
	return validate(schema, v, origin, &p, msg);
}
