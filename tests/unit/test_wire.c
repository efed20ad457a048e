/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for the extender wire codec (extender/codec/wire_*.c): ExtenderArgs decoding
 * against the shared fixtures and hand-made bodies, the 400-class versus
 * 200+Error split with exact messages, and the filter, error and prioritize
 * replies read back with json-c. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/codec/object_json.h"
#include "tests/support/http_client.h"
#include "extender/codec/wire.h"
#include "extender/codec/wire_internal.h"
#include "topology/quantity.h"

#define SHARED "tests/data/fixtures/wire/"
#define DATA "tests/data/wire/"

/* A pod the pod decoder accepts, for hand-made bodies. */
#define POD "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\"}," \
	    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"          \
	    "{\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]}}"

static char *slurp(const char *path, size_t *len)
{
	struct errmsg msg = { { 0 } };
	char *buf = NULL;

	if (file_read_all(path, 0, &buf, len, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	return buf;
}

static void decode_ok(const char *body, size_t len, struct wire_args *a)
{
	struct errmsg msg = { { 0 } };
	enum err rc = wire_decode_args(body, len, a, &msg);

	if (rc != ERR_OK)
		fail_msg("%s: %s", err_name(rc), msg.text);
}

static void decode_file(const char *path, struct wire_args *a)
{
	size_t len = 0;
	char *body = slurp(path, &len);

	decode_ok(body, len, a);
	free(body);
}

/* body must fail with rc and exactly want as the message. */
static void expect_error(const char *body, size_t len, enum err rc,
			 const char *want)
{
	struct errmsg msg = { { 0 } };
	struct wire_args a;
	enum err got = wire_decode_args(body, len, &a, &msg);

	if (got != rc || strcmp(msg.text, want) != 0)
		fail_msg("body %.80s: got %s \"%s\", want %s \"%s\"", body,
			 err_name(got), msg.text, err_name(rc), want);
	/* Left zeroed, so cleanup after a failure is harmless. */
	assert_null(a.names);
	assert_int_equal(a.nnames, 0);
	assert_null(a.pod.name);
	wire_args_cleanup(&a);
}

#define EXPECT_ERROR(body, rc, want) expect_error(body, sizeof(body) - 1, rc, want)

static struct json_object *parse_json(const char *text, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len)
		fail_msg("not JSON: %s", text);
	json_tokener_free(tok);
	return o;
}

/* The object's keys, in order, are exactly keys[0..n). */
static void expect_keys(struct json_object *o, const char *const *keys, size_t n)
{
	size_t i = 0;

	assert_true(json_object_is_type(o, json_type_object));
	json_object_object_foreach(o, key, val) {
		(void)val;
		assert_true(i < n);
		assert_string_equal(key, keys[i]);
		i++;
	}
	assert_int_equal(i, n);
}

static const char *const result_keys[] = {
	"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error",
};

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member %s", key);
	return v;
}

static const struct pod_quantity *find_quantity(const struct pod_container *c,
						const char *name)
{
	size_t i;

	for (i = 0; i < c->nlimits; i++) {
		if (strcmp(c->limits[i].name, name) == 0)
			return &c->limits[i];
	}
	fail_msg("container %s has no limit %s", c->name, name);
	abort(); /* not reached; tells the compiler so */
}

static void wire_decodes_nodecache_fixture(void **state)
{
	struct wire_args a;
	const struct pod_quantity *q;
	int64_t v = 0;

	(void)state;
	decode_file(SHARED "filter-request-nodecache.json", &a);
	assert_int_equal(a.mode, WIRE_NODE_NAMES);
	assert_int_equal(a.nnames, 4);
	assert_string_equal(a.names[0], "worker-gpu-017");
	assert_string_equal(a.names[3], "worker-gpu-020");
	assert_null(a.names[4]);
	assert_string_equal(a.pod.name, "infer-llm-7c9d5b8f6-x2vkq");
	assert_string_equal(a.pod.namespace_, "ml-serving");
	assert_string_equal(a.pod.uid, "6b1f0c3e-2a7d-4e59-9c1b-8f3d2e7a4c10");
	assert_true(a.pod.has_status_qos);
	assert_int_equal(a.pod.status_qos, QOS_GUARANTEED);
	assert_int_equal(a.pod.ncontainers, 2);
	assert_string_equal(a.pod.containers[0].name, "server");
	q = find_quantity(&a.pod.containers[0], "memory");
	assert_int_equal(quantity_scaled(&q->q, 0, &v), ERR_OK);
	assert_int_equal(v, (int64_t)32 << 30);
	wire_args_cleanup(&a);
	assert_null(a.names);
}

static void wire_decodes_fullnodes_fixture(void **state)
{
	struct wire_args a;

	(void)state;
	decode_file(SHARED "filter-request-fullnodes.json", &a);
	assert_int_equal(a.mode, WIRE_NODE_LIST);
	assert_int_equal(a.nnames, 4);
	assert_string_equal(a.names[0], "worker-gpu-017");
	assert_string_equal(a.names[1], "worker-gpu-018");
	assert_string_equal(a.names[2], "worker-gpu-019");
	assert_string_equal(a.names[3], "worker-gpu-020");
	assert_string_equal(a.pod.name, "infer-llm-7c9d5b8f6-x2vkq");
	wire_args_cleanup(&a);
}

static void wire_decodes_prioritize_fixture(void **state)
{
	struct wire_args a;

	(void)state;
	decode_file(SHARED "prioritize-request.json", &a);
	assert_int_equal(a.mode, WIRE_NODE_NAMES);
	assert_int_equal(a.nnames, 2);
	assert_string_equal(a.names[0], "worker-gpu-017");
	assert_string_equal(a.names[1], "worker-gpu-018");
	assert_int_equal(a.pod.ncontainers, 2);
	wire_args_cleanup(&a);
}

/* Older schedulers and hand-written clients: Go matches field names
 * case-insensitively, with Unicode simple folding. */
static void wire_top_level_keys_fold_case(void **state)
{
	static const char *const bodies[] = {
		"{\"pod\":" POD ",\"nodes\":null,\"nodenames\":[\"a\",\"b\"]}",
		"{\"POD\":" POD ",\"NODENAMES\":[\"a\",\"b\"]}",
		"{\"pOd\":" POD ",\"nodeNames\":[\"a\",\"b\"],\"NoDeS\":null}",
		/* U+017F LATIN SMALL LETTER LONG S folds to 's' in Go. */
		"{\"Pod\":" POD ",\"NodeName\xc5\xbf\":[\"a\",\"b\"]}",
		/* Escapes in a key are decoded before matching. */
		"{\"P\\u006fd\":" POD ",\"Node\\u004eames\":[\"a\",\"b\"]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		struct wire_args a;

		decode_ok(bodies[i], strlen(bodies[i]), &a);
		assert_int_equal(a.mode, WIRE_NODE_NAMES);
		assert_int_equal(a.nnames, 2);
		assert_string_equal(a.names[1], "b");
		assert_string_equal(a.pod.name, "p");
		wire_args_cleanup(&a);
	}
}

static void wire_lower_case_fixture_and_list_mode(void **state)
{
	struct wire_args a;

	(void)state;
	decode_file(DATA "lowercase-keys.json", &a);
	assert_int_equal(a.mode, WIRE_NODE_NAMES);
	assert_int_equal(a.nnames, 3);
	assert_string_equal(a.names[2], "node-c");
	wire_args_cleanup(&a);

	decode_file(DATA "lowercase-nodelist.json", &a);
	assert_int_equal(a.mode, WIRE_NODE_LIST);
	assert_int_equal(a.nnames, 2);
	assert_string_equal(a.names[0], "n1");
	assert_string_equal(a.names[1], "n2");
	wire_args_cleanup(&a);
}

static void wire_unknown_and_near_miss_keys_ignored(void **state)
{
	static const char body[] =
		"{\"Pod\":" POD ",\"NodeNames\":[\"a\"],\"Extra\":{\"x\":[1,2]},"
		"\"PodX\":null,\"Node\":7,\"NodeNamesX\":[1],\"nodenam\":[2]}";
	struct wire_args a;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	assert_int_equal(a.nnames, 1);
	assert_string_equal(a.names[0], "a");
	wire_args_cleanup(&a);
}

/* Go keeps the last of two identical keys, and so does json-c. */
static void wire_exact_duplicate_key_keeps_last(void **state)
{
	static const char names[] =
		"{\"Pod\":" POD ",\"NodeNames\":[\"a\"],\"NodeNames\":[\"b\",\"c\"]}";
	static const char list[] =
		"{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"x\"}}]},"
		"\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"y\"}}],"
		"\"items\":[{\"metadata\":{\"name\":\"z\"},\"k\":1}]}}";
	static const enum decision_outcome pass[] = { DECISION_PASS };
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(names, sizeof names - 1, &a);
	assert_int_equal(a.nnames, 2);
	assert_string_equal(a.names[0], "b");
	wire_args_cleanup(&a);

	decode_ok(list, sizeof list - 1, &a);
	assert_int_equal(a.nnames, 1);
	assert_string_equal(a.names[0], "z");
	json = wire_encode_filter(&a, pass, NULL, &n);
	assert_non_null(strstr(json, "\"items\":[{\"metadata\":{\"name\":\"z\"},\"k\":1}]"));
	free(json);
	wire_args_cleanup(&a);
}

static void wire_both_or_neither_node_fields(void **state)
{
	(void)state;
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":null,\"NodeNames\":null}",
		     ERR_INVALID, "Nodes and NodeNames are both null");
	EXPECT_ERROR("{\"Pod\":" POD "}", ERR_INVALID,
		     "Nodes and NodeNames are both null");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":null}", ERR_INVALID,
		     "Nodes and NodeNames are both null");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"metadata\":{},\"items\":[]},"
		     "\"NodeNames\":[\"a\"]}",
		     ERR_INVALID, "Nodes and NodeNames are both set");
	/* An empty list is a list, not an absence. */
	EXPECT_ERROR("{\"Pod\":" POD ",\"nodes\":{\"items\":[]},\"nodeNames\":[]}",
		     ERR_INVALID, "Nodes and NodeNames are both set");
}

/* Not JSON: the server answers 400 and logs the offset. */
static void wire_malformed_json_is_parse_error(void **state)
{
	static const char nul[] = "{\"Pod\":{}}\0{}";

	(void)state;
	EXPECT_ERROR("", ERR_PARSE, "invalid JSON at byte 0: unexpected end of input");
	EXPECT_ERROR("  \n", ERR_PARSE, "invalid JSON at byte 3: unexpected end of input");
	EXPECT_ERROR("{\"Pod\":", ERR_PARSE, "invalid JSON at byte 7: unexpected end of input");
	EXPECT_ERROR("{\"Pod\":}", ERR_PARSE, "invalid JSON at byte 7: unexpected character");
	EXPECT_ERROR("nope", ERR_PARSE, "invalid JSON at byte 1: null expected");
	EXPECT_ERROR("{\"Pod\":1,}", ERR_PARSE, "invalid JSON at byte 9: unexpected character");
	/* Trailing garbage, a second value, and a NUL that json-c stops at. */
	EXPECT_ERROR("{} x", ERR_PARSE, "invalid JSON at byte 3: unexpected character");
	EXPECT_ERROR("{}{}", ERR_PARSE, "invalid JSON at byte 2: unexpected character");
	expect_error(nul, sizeof nul - 1, ERR_PARSE,
		     "invalid JSON at byte 10: unexpected data after the value");
}

/* What json-c 0.16 accepts in strict mode and Go does not. */
static void wire_rfc_strictness_beyond_json_c(void **state)
{
	(void)state;
	EXPECT_ERROR("{'Pod':{}}", ERR_PARSE, "invalid JSON at byte 1: single-quoted key");
	EXPECT_ERROR("{\"Pod\":{\"x\":NaN}}", ERR_PARSE,
		     "invalid JSON at byte 12: not a JSON value (NaN, Infinity or a malformed number)");
	EXPECT_ERROR("{\"Pod\":{\"x\":-Infinity}}", ERR_PARSE,
		     "invalid JSON at byte 12: not a JSON value (NaN, Infinity or a malformed number)");
	EXPECT_ERROR("{\"Pod\":{\"x\":1.}}", ERR_PARSE,
		     "invalid JSON at byte 12: not a JSON value (NaN, Infinity or a malformed number)");
	EXPECT_ERROR("{\"Pod\":{\"x\":\"a\tb\"}}", ERR_PARSE,
		     "invalid JSON at byte 14: unescaped control character in a string");
}

static void wire_invalid_utf8_is_parse_error(void **state)
{
	(void)state;
	/* json-c's own check catches a stray continuation byte... */
	EXPECT_ERROR("{\"NodeNames\":[\"\x80\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	/* ...but not overlong forms, surrogates or code points past U+10FFFF. */
	EXPECT_ERROR("{\"NodeNames\":[\"a\xc0\xaf\"]}", ERR_PARSE,
		     "invalid JSON at byte 16: invalid UTF-8");
	EXPECT_ERROR("{\"NodeNames\":[\"\xe0\x80\xaf\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	EXPECT_ERROR("{\"NodeNames\":[\"\xf0\x80\x80\xaf\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	EXPECT_ERROR("{\"NodeNames\":[\"\xed\xa0\x80\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	EXPECT_ERROR("{\"NodeNames\":[\"\xf4\x90\x80\x80\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	EXPECT_ERROR("{\"NodeNames\":[\"\xe2\x82\"]}", ERR_PARSE,
		     "invalid JSON at byte 15: invalid UTF-8");
	/* In a key as well. */
	EXPECT_ERROR("{\"\xff\":1}", ERR_PARSE, "invalid JSON at byte 2: invalid UTF-8");
}

/* Builds n nested arrays as the value of an unknown member. */
static char *nested(size_t n, size_t *len)
{
	static const char head[] = "{\"Pod\":" POD ",\"NodeNames\":[\"a\"],\"deep\":";
	char *b = malloc(sizeof head + 2 * n + 2);
	size_t i, k = sizeof head - 1;

	assert_non_null(b);
	memcpy(b, head, k);
	for (i = 0; i < n; i++)
		b[k++] = '[';
	for (i = 0; i < n; i++)
		b[k++] = ']';
	b[k++] = '}';
	*len = k;
	return b;
}

static void wire_depth_limit_is_64(void **state)
{
	struct errmsg msg = { { 0 } };
	struct wire_args a;
	size_t len = 0;
	char *body;

	(void)state;
	/* The top-level object is level 1: 63 arrays inside it make 64. */
	body = nested(63, &len);
	assert_int_equal(wire_decode_args(body, len, &a, &msg), ERR_OK);
	wire_args_cleanup(&a);
	free(body);

	body = nested(64, &len);
	assert_int_equal(wire_decode_args(body, len, &a, &msg), ERR_PARSE);
	assert_non_null(strstr(msg.text, "nesting too deep"));
	assert_true(strncmp(msg.text, "invalid JSON at byte ", 21) == 0);
	free(body);

	/* A very deep body fails at the limit, not on the stack. */
	body = nested(100000, &len);
	assert_int_equal(wire_decode_args(body, len, &a, &msg), ERR_PARSE);
	assert_non_null(strstr(msg.text, "nesting too deep"));
	free(body);
}

/* Valid JSON that is not usable ExtenderArgs: 200 with Error. */
static void wire_semantic_errors_exact_messages(void **state)
{
	(void)state;
	EXPECT_ERROR("[]", ERR_INVALID, "ExtenderArgs: expected an object, got an array");
	EXPECT_ERROR("null", ERR_INVALID, "ExtenderArgs: expected an object, got null");
	EXPECT_ERROR("{\"NodeNames\":[\"a\"]}", ERR_INVALID, "Pod: missing");
	EXPECT_ERROR("{\"Pod\":null,\"NodeNames\":[\"a\"]}", ERR_INVALID,
		     "Pod: expected an object, got null");
	EXPECT_ERROR("{\"Pod\":\"p\",\"NodeNames\":[\"a\"]}", ERR_INVALID,
		     "Pod: expected an object, got a string");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":\"a\"}", ERR_INVALID,
		     "NodeNames: expected an array, got a string");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"b\",\"c\",7]}", ERR_INVALID,
		     "NodeNames[3]: expected a string");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":[\"a\",null]}", ERR_INVALID,
		     "NodeNames[1]: expected a string");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"\"]}", ERR_INVALID,
		     "NodeNames[1]: must not be empty");
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":[\"a\\u0000b\"]}", ERR_INVALID,
		     "NodeNames[0]: contains a NUL byte");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":[]}", ERR_INVALID,
		     "Nodes: expected an object, got an array");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"metadata\":{}}}", ERR_INVALID,
		     "Nodes.items: missing");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":null}}", ERR_INVALID,
		     "Nodes.items: expected an array, got null");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},7]}}",
		     ERR_INVALID, "Nodes.items[1]: expected an object, got a number");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"spec\":{}}]}}", ERR_INVALID,
		     "Nodes.items[0].metadata: missing");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":[]}]}}", ERR_INVALID,
		     "Nodes.items[0].metadata: expected an object, got an array");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":{\"uid\":\"x\"}}]}}",
		     ERR_INVALID, "Nodes.items[0].metadata.name: missing");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"\"}}]}}",
		     ERR_INVALID, "Nodes.items[0].metadata.name: must not be empty");
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"items\":[{\"metadata\":{\"name\":1}}]}}",
		     ERR_INVALID, "Nodes.items[0].metadata.name: expected a string");
	/* Keys inside Node objects are matched exactly, as Go sends them. */
	EXPECT_ERROR("{\"Pod\":" POD ",\"Nodes\":{\"Items\":[]}}", ERR_INVALID,
		     "Nodes.items: missing");
	/* Two spellings of one field: Go would merge them; refuse instead. */
	EXPECT_ERROR("{\"Pod\":" POD ",\"pod\":" POD ",\"NodeNames\":[\"a\"]}", ERR_INVALID,
		     "Pod given twice, as \"Pod\" and \"pod\"");
	/* json-c cuts keys at a NUL, so "Pod\u0000x" would read as "Pod". */
	EXPECT_ERROR("{\"Pod\":" POD ",\"NodeNames\":[\"a\"],\"Pod\\u0000x\":null}",
		     ERR_INVALID, "an object key holds \\u0000, which cannot be decoded faithfully");
}

static void wire_pod_errors_carry_the_field_path(void **state)
{
	size_t len = 0;
	char *body = slurp(DATA "bad-quantity.json", &len);

	(void)state;
	expect_error(body, len, ERR_INVALID,
		     "Pod.spec.containers[0].resources.limits.cpu: \"abc\": not a quantity");
	free(body);
	EXPECT_ERROR("{\"Pod\":{\"metadata\":{},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		     "\"NodeNames\":[\"a\"]}",
		     ERR_INVALID, "Pod.metadata.name: missing");
	EXPECT_ERROR("{\"Pod\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[]}",
		     ERR_INVALID, "Pod.kind: \"Node\": expected Pod");
	EXPECT_ERROR("{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
		     "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}},"
		     "\"NodeNames\":[]}",
		     ERR_INVALID,
		     "Pod.spec.containers[0].resources.requests.cpu: \"-1\": must not be negative");
}

/* Quantities written as JSON numbers still decode; only integers beyond 64
 * bits lose their text (json-c clamps them), doubles keep it. */
static void wire_doc_from_json_number_text(void **state)
{
	static const char text[] = "[1.50,1e3,-7,100000000000000000000,{\"a\":[true,null]}]";
	struct json_object *o = parse_json(text, sizeof text - 1);
	struct errmsg msg = { { 0 } };
	struct doc *d = NULL;

	(void)state;
	assert_int_equal(doc_from_json(o, &d, &msg), ERR_OK);
	assert_int_equal(d->kind, DOC_ARRAY);
	assert_int_equal(d->nchildren, 5);
	assert_string_equal(d->children[0].value->text, "1.50");
	assert_string_equal(d->children[1].value->text, "1e3");
	assert_string_equal(d->children[2].value->text, "-7");
	assert_string_equal(d->children[3].value->text, "18446744073709551615");
	assert_int_equal(d->children[4].value->kind, DOC_OBJECT);
	assert_string_equal(d->children[4].value->children[0].key, "a");
	assert_int_equal(d->children[4].value->children[0].value->children[1].value->kind,
			 DOC_NULL);
	doc_free(d);
	json_object_put(o);
}

/* A tree built in code has no tokener depth limit; the conversion has its
 * own, so its recursion stays bounded. */
static void wire_doc_from_json_depth_limit(void **state)
{
	struct errmsg msg = { { 0 } };
	struct json_object *o = json_object_new_array();
	struct doc *d = NULL;
	int i;

	(void)state;
	for (i = 1; i < 64; i++) {
		struct json_object *outer = json_object_new_array();

		json_object_array_add(outer, o);
		o = outer;
	}
	assert_int_equal(doc_from_json(o, &d, &msg), ERR_OK); /* 64 levels */
	assert_non_null(d);
	doc_free(d);
	{
		struct json_object *outer = json_object_new_object();

		json_object_object_add(outer, "k", o);
		o = outer;
	}
	assert_int_equal(doc_from_json(o, &d, &msg), ERR_INVALID); /* 65 */
	assert_null(d);
	assert_string_equal(msg.text, "nesting deeper than 64 levels");
	json_object_put(o);
}

static void wire_pod_numeric_quantities(void **state)
{
	static const char body[] =
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"cpu\":2,\"memory\":1.5e3}}}]}},\"NodeNames\":[\"a\"]}";
	struct wire_args a;
	int64_t v = 0;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	assert_string_equal(a.pod.namespace_, "default");
	assert_int_equal(quantity_scaled(&find_quantity(&a.pod.containers[0], "cpu")->q, -3, &v),
			 ERR_OK);
	assert_int_equal(v, 2000);
	assert_int_equal(quantity_scaled(&find_quantity(&a.pod.containers[0], "memory")->q, 0, &v),
			 ERR_OK);
	assert_int_equal(v, 1500);
	wire_args_cleanup(&a);
}

/* Every name in exactly one of the three buckets (pass list or map). */
static void check_buckets(struct json_object *res, const struct wire_args *a,
			  const enum decision_outcome *outcome, const char *const *reasons)
{
	struct json_object *failed = member(res, "FailedNodes");
	struct json_object *unres = member(res, "FailedAndUnresolvableNodes");
	struct json_object *pass = member(res, "NodeNames");
	size_t i, j, npass = 0;

	if (a->mode == WIRE_NODE_LIST) {
		assert_null(pass);
		pass = member(member(res, "Nodes"), "items");
	} else {
		assert_null(member(res, "Nodes"));
	}
	for (i = 0; i < a->nnames; i++) {
		struct json_object *r = NULL;
		int in_pass = 0;

		for (j = 0; j < json_object_array_length(pass); j++) {
			struct json_object *e = json_object_array_get_idx(pass, j);

			if (a->mode == WIRE_NODE_LIST)
				e = member(member(e, "metadata"), "name");
			if (strcmp(json_object_get_string(e), a->names[i]) == 0)
				in_pass++;
		}
		assert_int_equal(in_pass + json_object_object_get_ex(failed, a->names[i], NULL) +
					 json_object_object_get_ex(unres, a->names[i], NULL),
				 1);
		if (outcome[i] == DECISION_PASS) {
			assert_int_equal(in_pass, 1);
			npass++;
			continue;
		}
		r = member(outcome[i] == DECISION_FAILED ? failed : unres, a->names[i]);
		assert_string_equal(json_object_get_string(r), reasons[i]);
	}
	assert_int_equal(json_object_array_length(pass), npass);
}

static void wire_encode_filter_names_mode(void **state)
{
	static const enum decision_outcome outcome[] = { DECISION_PASS, DECISION_FAILED,
						     DECISION_UNRESOLVABLE, DECISION_PASS };
	static const char *const reasons[] = { NULL, "numa: no zone fits", "zone too small", NULL };
	static const char want[] =
		"{\"Nodes\":null,\"NodeNames\":[\"worker-gpu-017\",\"worker-gpu-020\"],"
		"\"FailedNodes\":{\"worker-gpu-018\":\"numa: no zone fits\"},"
		"\"FailedAndUnresolvableNodes\":{\"worker-gpu-019\":\"zone too small\"},\"Error\":\"\"}";
	struct json_object *res;
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_file(SHARED "filter-request-nodecache.json", &a);
	json = wire_encode_filter(&a, outcome, reasons, &n);
	assert_string_equal(json, want);
	assert_int_equal(n, strlen(want));
	res = parse_json(json, n);
	expect_keys(res, result_keys, 5);
	check_buckets(res, &a, outcome, reasons);
	json_object_put(res);
	free(json);
	wire_args_cleanup(&a);
}

static void wire_encode_filter_empty_buckets(void **state)
{
	static const enum decision_outcome fail[] = { DECISION_FAILED, DECISION_FAILED };
	static const char body[] = "{\"Pod\":" POD ",\"NodeNames\":[]}";
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	assert_int_equal(a.nnames, 0);
	assert_non_null(a.names);
	json = wire_encode_filter(&a, fail, NULL, &n);
	assert_string_equal(json, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},"
				  "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
	free(json);
	json = wire_encode_prioritize(&a, NULL, &n);
	assert_string_equal(json, "[]");
	assert_int_equal(n, 2);
	free(json);
	wire_args_cleanup(&a);

	/* All failed, no reasons given: an empty pass list and "" reasons. */
	decode_ok("{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"b\"]}",
		  sizeof("{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"b\"]}") - 1, &a);
	json = wire_encode_filter(&a, fail, NULL, &n);
	assert_string_equal(json, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":"
				  "{\"a\":\"\",\"b\":\"\"},\"FailedAndUnresolvableNodes\":{},"
				  "\"Error\":\"\"}");
	free(json);
	wire_args_cleanup(&a);
}

/* The NodeList comes back as it came: each passing item equals the request's
 * item, in order, and the reply parses with the exact keys. */
static void wire_encode_filter_list_mode_round_trip(void **state)
{
	static const enum decision_outcome outcome[] = { DECISION_FAILED, DECISION_PASS, DECISION_PASS,
						     DECISION_UNRESOLVABLE };
	static const char *const reasons[] = { "cpu", NULL, NULL, "gpu \"H100\" on zone 1" };
	static const char *const list_keys[] = { "metadata", "items" };
	struct json_object *req, *res, *in_items, *out_items, *nodes;
	struct wire_args a;
	size_t len = 0, n = 0;
	char *body = slurp(SHARED "filter-request-fullnodes.json", &len);
	char *json;

	(void)state;
	decode_ok(body, len, &a);
	json = wire_encode_filter(&a, outcome, reasons, &n);
	assert_int_equal(strlen(json), n);
	res = parse_json(json, n);
	expect_keys(res, result_keys, 5);
	nodes = member(res, "Nodes");
	expect_keys(nodes, list_keys, 2);
	assert_int_equal(json_object_object_length(member(nodes, "metadata")), 0);
	check_buckets(res, &a, outcome, reasons);

	req = parse_json(body, len);
	in_items = member(member(req, "Nodes"), "items");
	out_items = member(nodes, "items");
	assert_int_equal(json_object_array_length(out_items), 2);
	assert_true(json_object_equal(json_object_array_get_idx(out_items, 0),
				      json_object_array_get_idx(in_items, 1)));
	assert_true(json_object_equal(json_object_array_get_idx(out_items, 1),
				      json_object_array_get_idx(in_items, 2)));
	assert_false(json_object_equal(json_object_array_get_idx(out_items, 0),
				       json_object_array_get_idx(in_items, 0)));

	/* Everything passes: the whole list echoes equal. */
	{
		static const enum decision_outcome all[] = { DECISION_PASS, DECISION_PASS, DECISION_PASS,
							 DECISION_PASS };
		struct json_object *res2;
		char *json2 = wire_encode_filter(&a, all, NULL, &n);

		res2 = parse_json(json2, n);
		assert_true(json_object_equal(member(member(res2, "Nodes"), "items"), in_items));
		json_object_put(res2);
		free(json2);
	}
	json_object_put(req);
	json_object_put(res);
	free(json);
	free(body);
	wire_args_cleanup(&a);
}

/* Items are echoed byte for byte, Go's escapes and all, and the body can be
 * freed before encoding. */
static void wire_echo_keeps_source_bytes(void **state)
{
	static const char item[] =
		"{ \"metadata\" : {\"name\":\"n1\",\"annotations\":{\"a\":\"\\u003cb\\u003e \\/\"}},"
		"\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},"
		"\"x\":1.50E+2,\"s\":\"\xe2\x80\xa8\"} }";
	static const enum decision_outcome pass[] = { DECISION_PASS, DECISION_PASS };
	struct wire_args a;
	size_t len, n = 0;
	char *body, *json;

	(void)state;
	len = strlen("{\"Pod\":" POD ",\"Nodes\":{\"metadata\":{},\"items\":[ ") + 2 * strlen(item) +
	      strlen(" ,\n") + strlen("]}}");
	body = malloc(len + 1);
	assert_non_null(body);
	snprintf(body, len + 1, "{\"Pod\":" POD ",\"Nodes\":{\"metadata\":{},\"items\":[ %s ,\n%s]}}",
		 item, item);
	/* The same name twice: the second is a repeat and is left out. */
	decode_ok(body, len, &a);
	memset(body, 'x', len);
	free(body);
	assert_int_equal(a.nnames, 2);
	json = wire_encode_filter(&a, pass, NULL, &n);
	assert_non_null(strstr(json, item));
	assert_string_equal(json + n - strlen("]},\"NodeNames\":null,\"FailedNodes\":{},"
					      "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}"),
			    "]},\"NodeNames\":null,\"FailedNodes\":{},"
			    "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
	assert_int_equal(strlen("{\"Nodes\":{\"metadata\":{},\"items\":[") + strlen(item) +
				 strlen("]},\"NodeNames\":null,\"FailedNodes\":{},"
					"\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}"),
			 n);
	free(json);
	wire_args_cleanup(&a);
}

/* Names hold whatever the request held; the reply escapes them correctly
 * and they read back equal. */
static void wire_escapes_odd_names(void **state)
{
	static const char want_pass[] =
		"\"NodeNames\":[\"q\\\"uote\",\"back\\\\slash\",\"ctl\\u0001\\u001f\\u000a\","
		"\"sl/ash\",\"\xc3\xa9t\xc3\xa9\",\"\xe2\x80\xa8\",\"\xf0\x9f\x98\x80\"]";
	static const enum decision_outcome outcome[] = { DECISION_PASS, DECISION_PASS, DECISION_PASS, DECISION_PASS,
						     DECISION_PASS, DECISION_PASS, DECISION_PASS, DECISION_FAILED };
	static const char *const reasons[] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL,
					       "tab\there \"q\" \\ /" };
	struct json_object *res, *pass;
	struct wire_args a;
	size_t len = 0, n = 0, i;
	char *body = slurp(DATA "odd-names.json", &len);
	char *json;

	(void)state;
	decode_ok(body, len, &a);
	free(body);
	assert_int_equal(a.nnames, 8);
	assert_string_equal(a.names[0], "q\"uote");
	assert_string_equal(a.names[2], "ctl\x01\x1f\n");
	assert_string_equal(a.names[6], "\xf0\x9f\x98\x80"); /* from a surrogate pair */
	json = wire_encode_filter(&a, outcome, reasons, &n);
	assert_non_null(strstr(json, want_pass));
	assert_non_null(strstr(json, "\"FailedNodes\":{\"<b>&amp;\":\"tab\\u0009here \\\"q\\\" \\\\ /\"}"));
	res = parse_json(json, n);
	pass = member(res, "NodeNames");
	for (i = 0; i < 7; i++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(pass, i)),
				    a.names[i]);
	check_buckets(res, &a, outcome, reasons);
	json_object_put(res);
	free(json);
	wire_args_cleanup(&a);
}

/* A reason is the caller's text: bad UTF-8 in it must not make the reply
 * unreadable. */
static void wire_invalid_utf8_in_reason_becomes_replacement(void **state)
{
	static const char body[] = "{\"Pod\":" POD ",\"NodeNames\":[\"a\"]}";
	static const enum decision_outcome outcome[] = { DECISION_UNRESOLVABLE };
	static const char *const reasons[] = { "bad \xff\xc3 end \xed\xa0\x80" };
	struct json_object *res;
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	json = wire_encode_filter(&a, outcome, reasons, &n);
	assert_non_null(strstr(json, "{\"a\":\"bad \\ufffd\\ufffd end \\ufffd\\ufffd\\ufffd\"}"));
	res = parse_json(json, n);
	json_object_put(res);
	free(json);
	wire_args_cleanup(&a);
}

/* Outcomes other than a pass or a failure, and any outside the enum, go to
 * FailedAndUnresolvableNodes (fail closed). */
static void wire_unknown_outcome_is_unresolvable(void **state)
{
	static const char body[] = "{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"b\",\"c\"]}";
	enum decision_outcome outcome[3] = { DECISION_PASS, DECISION_NO_INVENTORY, (enum decision_outcome)7 };
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	json = wire_encode_filter(&a, outcome, NULL, &n);
	assert_string_equal(json, "{\"Nodes\":null,\"NodeNames\":[\"a\"],\"FailedNodes\":{},"
				  "\"FailedAndUnresolvableNodes\":{\"b\":\"\",\"c\":\"\"},\"Error\":\"\"}");
	free(json);
	wire_args_cleanup(&a);
}

/* A repeated name: its first occurrence decides, later ones are left out
 * everywhere, so maps never hold a key twice. */
static void wire_repeated_names_first_wins(void **state)
{
	static const char body[] = "{\"Pod\":" POD ",\"NodeNames\":[\"a\",\"b\",\"a\",\"c\",\"b\"]}";
	static const enum decision_outcome outcome[] = { DECISION_FAILED, DECISION_PASS, DECISION_PASS,
						     DECISION_UNRESOLVABLE, DECISION_FAILED };
	static const char *const reasons[] = { "r0", NULL, NULL, "r3", "r4" };
	static const int64_t scores[] = { 1, 2, 3, 4, 5 };
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	assert_int_equal(a.nnames, 5);
	assert_string_equal(a.names[2], "a");
	json = wire_encode_filter(&a, outcome, reasons, &n);
	assert_string_equal(json, "{\"Nodes\":null,\"NodeNames\":[\"b\"],\"FailedNodes\":{\"a\":\"r0\"},"
				  "\"FailedAndUnresolvableNodes\":{\"c\":\"r3\"},\"Error\":\"\"}");
	free(json);
	json = wire_encode_prioritize(&a, scores, &n);
	assert_string_equal(json, "[{\"Host\":\"a\",\"Score\":1},{\"Host\":\"b\",\"Score\":2},"
				  "{\"Host\":\"c\",\"Score\":4}]");
	free(json);
	wire_args_cleanup(&a);
}

/* Many names, random outcomes: the buckets partition the request. */
static void wire_encode_filter_partitions_many_names(void **state)
{
	enum { N = 3000 };
	static enum decision_outcome outcome[N];
	static const char *reasons[N];
	static char names[N][16];
	struct json_object *res;
	struct wire_args a;
	size_t cap = 64 + N * 20, k, i, n = 0;
	char *body = malloc(cap), *json;
	unsigned seed = 12345;

	(void)state;
	assert_non_null(body);
	k = (size_t)snprintf(body, cap, "{\"NodeNames\":[");
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "node-%04zu", i);
		k += (size_t)snprintf(body + k, cap - k, "%s\"%s\"", i ? "," : "", names[i]);
		seed = seed * 1103515245u + 12345u;
		outcome[i] = (enum decision_outcome)((seed >> 16) % 3);
		reasons[i] = outcome[i] == DECISION_PASS ? NULL : names[i];
	}
	k += (size_t)snprintf(body + k, cap - k, "],\"Pod\":" POD "}");
	decode_ok(body, k, &a);
	assert_int_equal(a.nnames, N);
	json = wire_encode_filter(&a, outcome, reasons, &n);
	res = parse_json(json, n);
	check_buckets(res, &a, outcome, reasons);
	json_object_put(res);
	free(json);
	free(body);
	wire_args_cleanup(&a);
}

static void wire_encode_prioritize_scores(void **state)
{
	static const int64_t scores[] = { 7, 0, -3, INT64_MIN, INT64_MAX, 10 };
	static const char body[] =
		"{\"Pod\":" POD ",\"Nodes\":null,\"NodeNames\":[\"n1\",\"n2\",\"n3\",\"n4\",\"n5\",\"n\\\"6\"]}";
	struct json_object *res, *e;
	struct wire_args a;
	size_t n = 0;
	char *json;

	(void)state;
	decode_ok(body, sizeof body - 1, &a);
	json = wire_encode_prioritize(&a, scores, &n);
	assert_string_equal(json,
			    "[{\"Host\":\"n1\",\"Score\":7},{\"Host\":\"n2\",\"Score\":0},"
			    "{\"Host\":\"n3\",\"Score\":-3},"
			    "{\"Host\":\"n4\",\"Score\":-9223372036854775808},"
			    "{\"Host\":\"n5\",\"Score\":9223372036854775807},"
			    "{\"Host\":\"n\\\"6\",\"Score\":10}]");
	assert_int_equal(n, strlen(json));
	res = parse_json(json, n);
	assert_int_equal(json_object_array_length(res), 6);
	e = json_object_array_get_idx(res, 3);
	assert_int_equal(json_object_get_int64(member(e, "Score")), INT64_MIN);
	json_object_put(res);
	free(json);
	wire_args_cleanup(&a);

	/* The shared example reply, from its request. */
	decode_file(SHARED "prioritize-request.json", &a);
	{
		static const int64_t two[] = { 9, 4 };
		size_t len = 0;
		char *want = slurp(SHARED "prioritize-result.json", &len);
		struct json_object *w = parse_json(want, len);

		json = wire_encode_prioritize(&a, two, &n);
		res = parse_json(json, n);
		assert_true(json_object_equal(res, w));
		json_object_put(w);
		json_object_put(res);
		free(want);
		free(json);
	}
	wire_args_cleanup(&a);
}

static void wire_encode_filter_error_shape(void **state)
{
	struct json_object *want, *res;
	size_t len = 0, n = 0;
	char *text = slurp(SHARED "filter-result-error.json", &len);
	char *json;

	(void)state;
	want = parse_json(text, len);
	expect_keys(want, result_keys, 5); /* the fixture has the shape we expect */
	json = wire_encode_filter_error("Pod.spec: \"x\"\n/y", &n);
	assert_string_equal(json, "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"
				  "\"FailedAndUnresolvableNodes\":{},"
				  "\"Error\":\"Pod.spec: \\\"x\\\"\\u000a/y\"}");
	assert_int_equal(n, strlen(json));
	res = parse_json(json, n);
	expect_keys(res, result_keys, 5);
	assert_string_equal(json_object_get_string(member(res, "Error")), "Pod.spec: \"x\"\n/y");
	json_object_put(res);
	free(json);

	json = wire_encode_filter_error(NULL, &n);
	assert_non_null(strstr(json, "\"Error\":\"\"}"));
	free(json);
	json_object_put(want);
	free(text);
}

static void wire_cleanup_accepts_zeroed_and_twice(void **state)
{
	struct wire_args a;

	(void)state;
	memset(&a, 0, sizeof a);
	wire_args_cleanup(&a);
	wire_args_cleanup(NULL);
	decode_file(SHARED "filter-request-fullnodes.json", &a);
	wire_args_cleanup(&a);
	assert_null(a._items);
	assert_null(a.pod.containers);
	wire_args_cleanup(&a);
}

static void wire_binding_args_and_result(void **state)
{
	struct wire_binding b;
	struct errmsg msg;
	size_t len;
	char *out;
	static const char ok[] = "{\"podname\":\"p\",\"PODNAMESPACE\":\"ns\",\"PodUID\":\"u-1\","
				 "\"Node\":\"n1\",\"Other\":7}";

	(void)state;
	assert_int_equal(wire_decode_binding(ok, strlen(ok), &b, &msg), ERR_OK);
	assert_string_equal(b.pod_name, "p");
	assert_string_equal(b.pod_namespace, "ns");
	assert_string_equal(b.pod_uid, "u-1");
	assert_string_equal(b.node, "n1");
	wire_binding_cleanup(&b);
	/* Namespace defaults, UID may be absent. */
	assert_int_equal(wire_decode_binding("{\"PodName\":\"p\",\"Node\":\"n\"}", strlen("{\"PodName\":\"p\",\"Node\":\"n\"}"), &b, &msg), ERR_OK);
	assert_string_equal(b.pod_namespace, "default");
	assert_string_equal(b.pod_uid, "");
	wire_binding_cleanup(&b);
	assert_int_equal(wire_decode_binding("{\"PodName\":\"p\"}", strlen("{\"PodName\":\"p\"}"), &b, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "Node: missing");
	assert_int_equal(wire_decode_binding("{\"Node\":\"n\"}", strlen("{\"Node\":\"n\"}"), &b, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "PodName: missing");
	assert_int_equal(wire_decode_binding("{\"PodName\":1,\"Node\":\"n\"}", strlen("{\"PodName\":1,\"Node\":\"n\"}"), &b, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "PodName: expected a string, got a number");
	assert_int_equal(wire_decode_binding("[]", strlen("[]"), &b, &msg), ERR_INVALID);
	assert_int_equal(wire_decode_binding("{\"PodName\":", strlen("{\"PodName\":"), &b, &msg), ERR_PARSE);
	assert_null(b.pod_name);
	out = wire_encode_binding_result("pod \"x\" gone", &len);
	assert_string_equal(out, "{\"Error\":\"pod \\\"x\\\" gone\"}");
	assert_int_equal(len, strlen(out));
	free(out);
	out = wire_encode_binding_result(NULL, &len);
	assert_string_equal(out, "{\"Error\":\"\"}");
	free(out);
}

/* Both decoding paths (the common request without json-c's tree of names,
 * and the general one) give the same answer, messages included. */
static void wire_common_and_general_paths_agree(void **state)
{
	static const char *const bodies[] = {
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"Nodes\":null,\"NodeNames\":[\"a\",\"b\",\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[]}",
		" {\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"n\\u0061me\", \"x\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\", 7]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]}},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{},\"Pod\":{\"metadata\":{\"name\":\"q\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"x\\d\":1,\"NodeNames\":[\"a\"]}",
		"{\"pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"Pod\":{},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\"],\"Nodes\":{\"items\":[]}}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
		"{\"limits\":{\"cpu\":\"x\"}}}]}},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\"]} x",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
		"\"NodeNames\":[\"a\\",
		/* Pods whose tree is built from the text, and pods it gives up
		 * on for json-c (a kept key twice, a lone surrogate, "-0"). */
		"{\"Pod\":{\"metadata\":{\"name\":\"p\\u003c\\ud83d\\ude00\",\"x\":1,\"x\":-0},\"spec\":"
		"{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":2,\"memory\":1e3}}}]}},"
		"\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"metadata\":{\"name\":\"q\"},\"spec\":"
		"{\"containers\":[{\"name\":\"c\"}]}},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\\ud800\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"requests\":{\"cpu\":-0}}}]}},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
		"\"status\":{\"qosClass\":\"Guaranteed\",\"qosClass\":\"Bogus\"}},\"NodeNames\":[\"a\"]}",
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"cpu\":18446744073709551616}}}]}},\"NodeNames\":[\"a\"]}",
	};
	static const char *const fixtures[] = { "filter-request-nodecache.json", "filter-request-fullnodes.json",
						"prioritize-request.json" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bodies / sizeof bodies[0] + sizeof fixtures / sizeof fixtures[0]; i++) {
		struct wire_args a1, a2;
		struct errmsg m1 = { { 0 } }, m2 = { { 0 } };
		enum err r1, r2;
		char *text = NULL, path[256];
		size_t len, k;

		if (i < sizeof bodies / sizeof bodies[0]) {
			text = strdup(bodies[i]);
			len = strlen(text);
		} else {
			snprintf(path, sizeof path, SHARED "%s", fixtures[i - sizeof bodies / sizeof bodies[0]]);
			text = read_file_or_die(path, &len);
		}
		r1 = wire_decode_args(text, len, &a1, &m1);
		r2 = wire_decode_args_via(text, len, &a2, &m2, false);
		if (r1 != r2 || (r1 != ERR_OK && strcmp(m1.text, m2.text) != 0))
			fail_msg("body %zu: %d \"%s\" vs %d \"%s\"", i, r1, m1.text, r2, m2.text);
		if (r1 == ERR_OK) {
			char *p1 = pod_spec_to_json(&a1.pod), *p2 = pod_spec_to_json(&a2.pod);

			assert_string_equal(p1, p2);
			free(p1);
			free(p2);
			assert_int_equal(a1.mode, a2.mode);
			assert_int_equal(a1.nnames, a2.nnames);
			for (k = 0; k < a1.nnames; k++)
				assert_string_equal(a1.names[k], a2.names[k]);
		}
		wire_args_cleanup(&a1);
		wire_args_cleanup(&a2);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wire_decodes_nodecache_fixture),
		cmocka_unit_test(wire_decodes_fullnodes_fixture),
		cmocka_unit_test(wire_decodes_prioritize_fixture),
		cmocka_unit_test(wire_top_level_keys_fold_case),
		cmocka_unit_test(wire_lower_case_fixture_and_list_mode),
		cmocka_unit_test(wire_unknown_and_near_miss_keys_ignored),
		cmocka_unit_test(wire_exact_duplicate_key_keeps_last),
		cmocka_unit_test(wire_both_or_neither_node_fields),
		cmocka_unit_test(wire_malformed_json_is_parse_error),
		cmocka_unit_test(wire_rfc_strictness_beyond_json_c),
		cmocka_unit_test(wire_invalid_utf8_is_parse_error),
		cmocka_unit_test(wire_depth_limit_is_64),
		cmocka_unit_test(wire_semantic_errors_exact_messages),
		cmocka_unit_test(wire_pod_errors_carry_the_field_path),
		cmocka_unit_test(wire_doc_from_json_number_text),
		cmocka_unit_test(wire_doc_from_json_depth_limit),
		cmocka_unit_test(wire_pod_numeric_quantities),
		cmocka_unit_test(wire_encode_filter_names_mode),
		cmocka_unit_test(wire_encode_filter_empty_buckets),
		cmocka_unit_test(wire_encode_filter_list_mode_round_trip),
		cmocka_unit_test(wire_echo_keeps_source_bytes),
		cmocka_unit_test(wire_escapes_odd_names),
		cmocka_unit_test(wire_invalid_utf8_in_reason_becomes_replacement),
		cmocka_unit_test(wire_unknown_outcome_is_unresolvable),
		cmocka_unit_test(wire_repeated_names_first_wins),
		cmocka_unit_test(wire_encode_filter_partitions_many_names),
		cmocka_unit_test(wire_encode_prioritize_scores),
		cmocka_unit_test(wire_encode_filter_error_shape),
		cmocka_unit_test(wire_cleanup_accepts_zeroed_and_twice),
		cmocka_unit_test(wire_binding_args_and_result),
		cmocka_unit_test(wire_common_and_general_paths_agree),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
