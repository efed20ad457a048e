/* SPDX-License-Identifier: Apache-2.0 */
/* A subset of OpenAPI v3 as the Kubernetes API server applies it to custom
 * resources: structural schemas built from type, properties, required,
 * items, x-kubernetes-int-or-string (optionally with anyOf [integer,
 * string]), pattern (POSIX extended here), enum, format and description;
 * values typed as sigs.k8s.io/yaml (YAML 1.1) types them; unknown fields
 * are errors (kubectl's default strict field validation), and an object
 * schema without properties (metadata) takes anything. */
#ifndef TESTS_OPENAPI_SCHEMA_H
#define TESTS_OPENAPI_SCHEMA_H

#include <stdbool.h>

#include "extender/codec/doc.h"
#include "base/err.h"

/* A field an API defines, by schema path ("zones[].costs[].value"; "[]"
 * is items). */
struct openapi_field {
	const char *path;  /* NULL ends a list */
	const char *type;  /* "object", "array", "string", "integer", ...; "quantity": int-or-string */
	int required;      /* 1 required, 0 optional, -1 an items entry */
};

/* The type a value has: "null", "boolean", "integer", "number", "string",
 * "array" or "object"; plain scalars as YAML 1.1 reads them ("off" is a
 * boolean, "0x10" an integer). */
const char *openapi_value_type(const struct doc *d);

/* x-kubernetes-int-or-string: true. */
bool openapi_int_or_string(const struct doc *schema);

/* Every node of schema is structural (a type, or int-or-string without one;
 * arrays with items; properties only on objects; required names have a
 * schema) and uses only the keywords this validator implements; with fields
 * (NULL: any), every property and items node is one of them. */
bool openapi_structural(const struct doc *schema, const struct openapi_field *fields, struct errmsg *msg);

/* The schema node at a field path, and whether its parent requires it;
 * NULL when absent. */
const struct doc *openapi_schema_at(const struct doc *root, const char *path, bool *required);

/* schema (an object) defines exactly fields, each with its type and
 * requiredness, and is structural; messages start with "label: ". */
bool openapi_check_fields(const struct doc *schema, const struct openapi_field *fields, const char *label,
			  struct errmsg *msg);

/* Validates v against schema. Null members count as absent. Messages:
 * "origin: zones[0].type: required field is missing". */
bool openapi_validate(const struct doc *schema, const struct doc *v, const char *origin, struct errmsg *msg);

/* A CustomResourceDefinition's entry of spec.versions by name; NULL when
 * absent. */
const struct doc *openapi_crd_version(const struct doc *crd, const char *version);

/* Validates an object against the served version of crd its apiVersion
 * names (group and kind must be the CRD's). */
bool openapi_validate_object(const struct doc *crd, const struct doc *obj, const char *origin,
			     struct errmsg *msg);

#endif
