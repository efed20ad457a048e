/* SPDX-License-Identifier: Apache-2.0 */
/* tests/support/openapi_schema.c, the OpenAPI v3 subset the CRD checks use,
 * as tables of what it accepts and refuses: how values are typed (YAML 1.1
 * plain scalars as sigs.k8s.io/yaml reads them, JSON), validation by type,
 * int-or-string, anyOf, enum, pattern, required and unknown fields, items;
 * structural schemas; field lists; objects against a CRD's versions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "tests/support/openapi_schema.h"
#include "base/err.h"

/* YAML always (doc_parse would take "{..." for JSON); with any, JSON too. */
static struct doc **parse_as(const char *text, size_t *n, bool any)
{
	struct doc **docs = NULL;
	struct errmsg msg;
	enum err rc = any ? doc_parse(text, strlen(text), "t", &docs, n, &msg) :
			    doc_parse_yaml(text, strlen(text), "t", &docs, n, &msg);

	if (rc != ERR_OK)
		fail_msg("%s: %s", text, msg.text);
	assert_int_equal(*n, 1);
	return docs;
}

static struct doc **parse(const char *text, size_t *n)
{
	return parse_as(text, n, false);
}

/* needle NULL: accepted; else refused with a message containing it. */
static void expect(size_t i, bool ok, const struct errmsg *msg, const char *needle)
{
	if (needle == NULL) {
		if (!ok)
			fail_msg("case %zu refused: %s", i, msg->text);
	} else if (ok || strstr(msg->text, needle) == NULL) {
		fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg->text, needle);
	}
}

static void openapi_types_values_as_kubernetes_reads_them(void **state)
{
	static const struct {
		const char *text, *type;
	} cases[] = {
		{ "v: abc", "string" }, { "v: \"true\"", "string" }, { "v: '8'", "string" },
		{ "v: 8", "integer" }, { "v: -8", "integer" }, { "v: +1_000", "integer" }, { "v: 0x1F", "integer" },
		{ "v: 0b101", "integer" }, { "v: 1.5", "number" }, { "v: .5", "number" }, { "v: 1e3", "number" },
		{ "v: -.inf", "number" }, { "v: .NaN", "number" }, { "v: 1.2.3", "string" }, { "v: 1e", "string" },
		{ "v: true", "boolean" }, { "v: off", "boolean" }, { "v: Yes", "boolean" }, { "v: n", "boolean" },
		{ "v: ~", "null" }, { "v: null", "null" }, { "v:", "null" }, { "v: [1]", "array" },
		{ "v: {a: 1}", "object" }, { "v: 12Gi", "string" }, { "v: 500m", "string" },
		{ "{\"v\": 1}", "integer" }, { "{\"v\": 1.0}", "number" }, { "{\"v\": 1e3}", "number" },
		{ "{\"v\": \"1\"}", "string" }, { "{\"v\": false}", "boolean" }, { "{\"v\": null}", "null" },
	};
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct doc **d = parse_as(cases[i].text, &n, true);
		const char *got = openapi_value_type(doc_get(d[0], "v"));

		if (strcmp(got, cases[i].type) != 0)
			fail_msg("case %zu (%s): %s, not %s", i, cases[i].text, got, cases[i].type);
		doc_free_all(d, n);
	}
}

#define QTY "{x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]"

static void openapi_validates_values_against_a_schema(void **state)
{
	static const struct {
		const char *schema, *value, *needle;
	} cases[] = {
		{ "{type: string}", "abc", NULL },
		{ "{type: string}", "8", "t: expected string, got integer" },
		{ "{type: integer}", "8", NULL },
		{ "{type: integer}", "8.5", "expected integer, got number" },
		{ "{type: number}", "8", NULL },
		{ "{type: number}", "8.5", NULL },
		{ "{type: boolean}", "off", NULL },
		{ "{type: boolean}", "\"off\"", "expected boolean, got string" },
		{ "{type: array, items: {type: string}}", "[a, b]", NULL },
		{ "{type: array, items: {type: string}}", "[a, 2]", "t: [1]: expected string, got integer" },
		{ "{type: array, items: {type: string}}", "{a: b}", "expected array, got object" },
		{ QTY "}", "\"1Gi\"", NULL },
		{ QTY "}", "64", NULL },
		{ QTY "}", "[1]", "expected an integer or a string, got array" },
		{ QTY ", pattern: '^[0-9]+(Gi)?$'}", "12Gi", NULL },
		{ QTY ", pattern: '^[0-9]+(Gi)?$'}", "12x", "\"12x\" does not match the pattern" },
		{ "{type: string, pattern: '^a'}", "abc", NULL },
		{ "{type: string, pattern: '^a'}", "bcd", "does not match the pattern ^a" },
		{ "{type: string, pattern: '(('}", "a", "pattern is not a POSIX extended expression" },
		{ "{type: string, enum: [Node, Core]}", "Node", NULL },
		{ "{type: string, enum: [Node, Core]}", "Socket", "\"Socket\" is not one of the allowed values" },
		{ "{anyOf: [{type: integer}, {type: boolean}]}", "true", NULL },
		{ "{anyOf: [{type: integer}, {type: boolean}]}", "abc", "string matches none of anyOf" },
		{ "{type: object, required: [a], properties: {a: {type: string}, b: {type: integer}}}", "{a: x, b: 1}",
		  NULL },
		{ "{type: object, required: [a], properties: {a: {type: string}}}", "{}",
		  "t: a: required field is missing" },
		{ "{type: object, properties: {a: {type: string}}}", "{a: x, c: 1}", "t: c: unknown field" },
		{ "{type: object, properties: {a: {type: string}}}", "{a: null}", NULL },
		{ "{type: object}", "{anything: [1, {b: c}]}", NULL },
		{ "{type: object, properties: {z: {type: array, items: {type: object, required: [n], "
		  "properties: {n: {type: string}, c: {type: array, items: {type: object, "
		  "properties: {v: {type: integer}}}}}}}}}",
		  "{z: [{n: a}, {n: b, c: [{v: 1}, {v: x}]}]}", "t: z[1].c[1].v: expected integer, got string" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t ns, nv;
		struct doc **s = parse(cases[i].schema, &ns), **v = parse(cases[i].value, &nv);
		struct errmsg msg;

		expect(i, openapi_validate(s[0], v[0], "t", &msg), &msg, cases[i].needle);
		doc_free_all(s, ns);
		doc_free_all(v, nv);
	}
}

static const struct openapi_field fields[] = {
	{ "name", "string", 1 },
	{ "size", "quantity", 0 },
	{ "zones", "array", 0 },
	{ "zones[]", "object", -1 },
	{ "zones[].id", "integer", 1 },
	{ NULL, NULL, 0 },
};

#define GOOD "{type: object, required: [name], properties: {name: {type: string}, " \
	     "size: {x-kubernetes-int-or-string: true}, zones: {type: array, items: {type: object, " \
	     "required: [id], properties: {id: {type: integer, description: d, format: int64}}}}}}"

static void openapi_checks_structural_schemas(void **state)
{
	static const struct {
		const char *schema;
		bool listed;       /* against fields, else any property */
		const char *needle;
	} cases[] = {
		{ GOOD, true, NULL },
		{ "{type: object, properties: {other: {type: string}}}", false, NULL },
		{ "{type: object, properties: {other: {type: string}}}", true, "other: not one of the fields of the API" },
		{ "{properties: {name: {type: string}}}", false, "(root): every node of a structural schema needs a type" },
		{ "{type: object, properties: {name: {}}}", false, "name: every node of a structural schema needs a type" },
		{ "{type: thing}", false, "needs a type" },
		{ "{type: array}", false, "an array without items" },
		{ "{type: string, properties: {a: {type: string}}}", false, "properties on a non-object" },
		{ "{type: object, required: [b], properties: {a: {type: string}}}", false,
		  "(root): required field b has no schema" },
		{ "{type: object, required: [[b]], properties: {a: {type: string}}}", false, "(not a string)" },
		{ "{type: object, additionalProperties: true}", false,
		  "schema keyword additionalProperties is not implemented" },
		{ "{type: object, properties: {s: {type: string, x-kubernetes-int-or-string: true}}}", false,
		  "s: x-kubernetes-int-or-string with a type is not structural" },
		{ "{type: object, properties: {s: {x-kubernetes-int-or-string: true, anyOf: [{type: string}, "
		  "{type: integer}]}}}", false, "s: int-or-string anyOf must be [integer, string]" },
		{ "{type: object, properties: {s: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, "
		  "{type: string}]}}}", false, NULL },
		{ "{type: object, properties: {a: {type: array, items: {type: object, properties: {b: {}}}}}}", false,
		  "a[].b: every node" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n;
		struct doc **s = parse(cases[i].schema, &n);
		struct errmsg msg;

		expect(i, openapi_structural(s[0], cases[i].listed ? fields : NULL, &msg), &msg, cases[i].needle);
		doc_free_all(s, n);
	}
}

static void openapi_checks_a_schema_defines_the_fields(void **state)
{
	static const struct {
		const char *schema, *needle;
	} cases[] = {
		{ GOOD, NULL },
		{ "{type: string}", "v9: the root must be an object" },
		{ "{type: object, required: [name], properties: {name: {type: string}}}", "v9: size is missing from the schema" },
		{ "{type: object, required: [name], properties: {name: {type: integer}, size: {type: string}}}",
		  "v9: name must be string" },
		{ "{type: object, required: [name], properties: {name: {type: string}, size: {type: string}}}",
		  "v9: size must be quantity" },
		{ "{type: object, properties: {name: {type: string}, size: {x-kubernetes-int-or-string: true}}}",
		  "v9: name must be required" },
		{ "{type: object, required: [name, size], properties: {name: {type: string}, "
		  "size: {x-kubernetes-int-or-string: true}}}", "v9: size must not be required" },
		{ "{type: object, required: [name], properties: {name: {type: string}, "
		  "size: {x-kubernetes-int-or-string: true}, zones: {type: array, items: {type: object, "
		  "properties: {id: {type: integer}}}}}}", "v9: zones[].id must be required" },
		{ "{type: object, required: [name], properties: {name: {type: string}, "
		  "size: {x-kubernetes-int-or-string: true}, zones: {type: array, items: {type: object, "
		  "required: [id], properties: {id: {type: integer}, extra: {type: string}}}}}}",
		  "v9: zones[].extra: not one of the fields of the API" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n;
		struct doc **s = parse(cases[i].schema, &n);
		struct errmsg msg;

		expect(i, openapi_check_fields(s[0], fields, "v9", &msg), &msg, cases[i].needle);
		doc_free_all(s, n);
	}
}

static void openapi_finds_schema_nodes_by_field_path(void **state)
{
	size_t n;
	struct doc **s = parse(GOOD, &n);
	bool required = true;

	(void)state;
	assert_non_null(openapi_schema_at(s[0], "name", &required));
	assert_true(required);
	assert_true(openapi_int_or_string(openapi_schema_at(s[0], "size", &required)));
	assert_false(required);
	assert_string_equal(doc_get(openapi_schema_at(s[0], "zones[]", &required), "type")->text, "object");
	assert_non_null(openapi_schema_at(s[0], "zones[].id", &required));
	assert_true(required);
	assert_null(openapi_schema_at(s[0], "zones[].nope", &required));
	assert_null(openapi_schema_at(s[0], "nope.deeper", &required));
	assert_false(openapi_int_or_string(s[0]));
	doc_free_all(s, n);
}

static const char crd_text[] =
	"apiVersion: apiextensions.k8s.io/v1\n"
	"kind: CustomResourceDefinition\n"
	"metadata: {name: widgets.example.io}\n"
	"spec:\n"
	"  group: example.io\n"
	"  names: {kind: Widget, plural: widgets}\n"
	"  versions:\n"
	"  - name: v2\n"
	"    served: true\n"
	"    storage: true\n"
	"    schema:\n"
	"      openAPIV3Schema:\n"
	"        type: object\n"
	"        required: [size]\n"
	"        properties:\n"
	"          apiVersion: {type: string}\n"
	"          kind: {type: string}\n"
	"          metadata: {type: object}\n"
	"          size: {type: integer}\n"
	"  - name: v1\n"
	"    served: false\n"
	"    storage: false\n"
	"    schema: {openAPIV3Schema: {type: object}}\n";

static void openapi_validates_objects_against_a_crd(void **state)
{
	static const struct {
		const char *obj, *needle;
	} cases[] = {
		{ "apiVersion: example.io/v2\nkind: Widget\nmetadata: {name: w, labels: {a: b}}\nsize: 3\n", NULL },
		{ "apiVersion: example.io/v2\nkind: Widget\nmetadata: {name: w}\n", "obj: size: required field is missing" },
		{ "apiVersion: example.io/v2\nkind: Widget\nmetadata: {name: w}\nsize: 3\ncolour: red\n",
		  "obj: colour: unknown field" },
		{ "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\n", "obj: version v1 is not served" },
		{ "apiVersion: example.io/v3\nkind: Widget\nmetadata: {name: w}\n", "obj: version v3 is not served" },
		{ "apiVersion: other.io/v2\nkind: Widget\nmetadata: {name: w}\nsize: 3\n",
		  "obj: other.io/v2 Widget is not this CRD's kind" },
		{ "apiVersion: example.io/v2\nkind: Gadget\nmetadata: {name: w}\nsize: 3\n", "is not this CRD's kind" },
		{ "apiVersion: v1\nkind: Widget\nmetadata: {name: w}\n", "obj: apiVersion v1 has no group" },
		{ "kind: Widget\nmetadata: {name: w}\n", "obj: apiVersion (none) has no group" },
	};
	size_t i, nc;
	struct doc **crd = parse(crd_text, &nc);

	(void)state;
	assert_non_null(openapi_crd_version(crd[0], "v1"));
	assert_non_null(openapi_crd_version(crd[0], "v2"));
	assert_null(openapi_crd_version(crd[0], "v3"));
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n;
		struct doc **o = parse(cases[i].obj, &n);
		struct errmsg msg;

		expect(i, openapi_validate_object(crd[0], o[0], "obj", &msg), &msg, cases[i].needle);
		doc_free_all(o, n);
	}
	doc_free_all(crd, nc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(openapi_types_values_as_kubernetes_reads_them),
		cmocka_unit_test(openapi_validates_values_against_a_schema),
		cmocka_unit_test(openapi_checks_structural_schemas),
		cmocka_unit_test(openapi_checks_a_schema_defines_the_fields),
		cmocka_unit_test(openapi_finds_schema_nodes_by_field_path),
		cmocka_unit_test(openapi_validates_objects_against_a_crd),
	};

	return cmocka_run_group_tests_name("openapi_schema", tests, NULL, NULL);
}
