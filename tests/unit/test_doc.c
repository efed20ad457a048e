/* SPDX-License-Identifier: Apache-2.0 */
/* The document layer's shared pieces (extender/codec/doc.h): the YAML
 * reader's rules and how its refusals read, where keys are, the one integer
 * grammar, and "origin:LINE:COL: path: problem" messages. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "extender/codec/doc.h"

static const struct doc_yaml_rules strict = {
	.max_depth = 2,
	.one_document = true,
	.no_tags = true,
	.no_anchors = "no anchors here",
	.no_aliases = "no aliases here",
	.too_deep = "too deep here",
};

/* Reads text under rules; returns the error (msg set) or ERR_OK, freeing
 * what it yields. */
static enum err read_yaml(const char *text, const struct doc_yaml_rules *rules,
			  size_t *ndocs, struct errmsg *msg)
{
	struct doc **docs = NULL;
	size_t n = 0;
	enum err rc = doc_parse_yaml_rules(text, strlen(text), "y", rules, &docs, &n, msg);

	if (rc != ERR_OK)
		assert_null(docs);
	if (ndocs != NULL)
		*ndocs = n;
	doc_free_all(docs, n);
	return rc;
}

static void expect_refusal(const char *text, const struct doc_yaml_rules *rules,
			   const char *want)
{
	struct errmsg msg = { { 0 } };

	if (read_yaml(text, rules, NULL, &msg) != ERR_PARSE || strcmp(msg.text, want) != 0)
		fail_msg("%s: got \"%s\", want \"%s\"", text, msg.text, want);
}

/* Each rule refuses at the offending node, in the caller's words. */
static void rules_refuse_in_their_words(void **state)
{
	size_t n = 0;
	struct errmsg msg = { { 0 } };

	(void)state;
	expect_refusal("a: &x 1\n", &strict, "y:1:4: no anchors here");
	expect_refusal("a: 1\nb: *x\n", &strict, "y:2:4: no aliases here");
	expect_refusal("a: !!str 1\n", &strict, "y:1:4: tags are not allowed");
	expect_refusal("a: [[1]]\n", &strict, "y:1:5: too deep here");
	expect_refusal("a: 1\n---\nb: 2\n", &strict, "y:2:1: only one YAML document is allowed");
	/* Two levels are allowed, a bare scalar document too. */
	assert_int_equal(read_yaml("a: [1]\n", &strict, &n, &msg), ERR_OK);
	assert_int_equal(n, 1);
	/* The documents' rules: tags and several documents are fine. */
	assert_int_equal(read_yaml("a: !!str 1\n---\nb: [[[1]]]\n", &doc_yaml_documents, &n, &msg),
			 ERR_OK);
	assert_int_equal(n, 2);
	expect_refusal("a: &x 1\n", &doc_yaml_documents, "y:1:4: anchors are not supported");
	expect_refusal("a: *x\n", &doc_yaml_documents, "y:1:4: aliases are not supported");
}

/* A repeated key is reported where the repeat starts, with the path of its
 * mapping; so is a collection used as a key. */
static void repeated_and_collection_keys_name_their_place(void **state)
{
	(void)state;
	expect_refusal("a: 1\nb: 2\na: 3\n", &doc_yaml_documents, "y:3:1: duplicate key \"a\"");
	expect_refusal("a:\n  b:\n  - {x: 1, y: 2, x: 3}\n", &doc_yaml_documents,
		       "y:3:18: a.b[0]: duplicate key \"x\"");
	expect_refusal("a:\n- 1\n- ? [k]\n  : v\n", &doc_yaml_documents,
		       "y:3:5: a[1]: a mapping key must be a scalar, got a sequence");
	expect_refusal("{x: 1}: 2\n", &doc_yaml_documents,
		       "y:1:1: a mapping key must be a scalar, got a mapping");
}

/* Members carry where their key starts; other nodes carry 0. */
static void members_know_their_key(void **state)
{
	static const char text[] = "top:\n  inner:   [1, 2]\n  \"q\": x\n";
	struct errmsg msg = { { 0 } };
	struct doc **docs = NULL;
	const struct doc *top, *inner, *q;
	size_t n = 0;

	(void)state;
	assert_int_equal(doc_parse_yaml(text, strlen(text), "y", &docs, &n, &msg), ERR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(docs[0]->key_line, 0);
	top = doc_get(docs[0], "top");
	assert_int_equal(top->key_line, 1);
	assert_int_equal(top->key_column, 1);
	inner = doc_get(top, "inner");
	assert_int_equal(inner->key_line, 2);
	assert_int_equal(inner->key_column, 3);
	assert_int_equal(inner->line, 2);
	assert_int_equal(inner->column, 12);
	assert_int_equal(inner->children[0].value->key_line, 0);
	q = doc_get(top, "q");
	assert_int_equal(q->key_line, 3);
	assert_int_equal(q->key_column, 3);
	doc_free_all(docs, n);
}

/* The one integer grammar, lenient and strict. */
static void integer_grammar(void **state)
{
	static const struct {
		const char *text;
		enum err lenient, strict;
		int64_t value;
	} cases[] = {
		{ "0", ERR_OK, ERR_OK, 0 },
		{ "-0", ERR_OK, ERR_OK, 0 },
		{ "42", ERR_OK, ERR_OK, 42 },
		{ "-42", ERR_OK, ERR_OK, -42 },
		{ "+42", ERR_OK, ERR_INVALID, 42 },
		{ "042", ERR_OK, ERR_INVALID, 42 },
		{ "00", ERR_OK, ERR_INVALID, 0 },
		{ "9223372036854775807", ERR_OK, ERR_OK, INT64_MAX },
		{ "-9223372036854775808", ERR_OK, ERR_OK, INT64_MIN },
		{ "9223372036854775808", ERR_RANGE, ERR_RANGE, 0 },
		{ "-9223372036854775809", ERR_RANGE, ERR_RANGE, 0 },
		{ "99999999999999999999999", ERR_RANGE, ERR_RANGE, 0 },
		/* Too long and not digits: not an integer at all. */
		{ "99999999999999999999999x", ERR_INVALID, ERR_INVALID, 0 },
		{ "", ERR_INVALID, ERR_INVALID, 0 },
		{ "-", ERR_INVALID, ERR_INVALID, 0 },
		{ "+", ERR_INVALID, ERR_INVALID, 0 },
		{ "1.0", ERR_INVALID, ERR_INVALID, 0 },
		{ "1e3", ERR_INVALID, ERR_INVALID, 0 },
		{ " 1", ERR_INVALID, ERR_INVALID, 0 },
		{ "0x10", ERR_INVALID, ERR_INVALID, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i].text;
		int64_t a = -7, b = -7;
		enum err ra = doc_int_parse(t, strlen(t), 0, &a);
		enum err rb = doc_int_parse(t, strlen(t), DOC_INT_STRICT, &b);

		if (ra != cases[i].lenient || rb != cases[i].strict)
			fail_msg("\"%s\": got %s/%s", t, err_name(ra), err_name(rb));
		if (ra == ERR_OK)
			assert_true(a == cases[i].value);
		else
			assert_true(a == -7);
		if (rb == ERR_OK)
			assert_true(b == cases[i].value);
	}
	/* Length-bounded: what follows is not read. */
	assert_int_equal(doc_int_parse("12x", 2, DOC_INT_STRICT, &(int64_t){ 0 }), ERR_OK);
}

static void messages_at_a_place(void **state)
{
	struct errmsg msg = { { 0 } };
	struct doc_path p;

	(void)state;
	doc_path_init(&p);
	doc_error_at(&msg, "f.yaml", 3, 7, &p, "bad %d", 1);
	assert_string_equal(msg.text, "f.yaml:3:7: bad 1");
	doc_error_at(&msg, "f.yaml", 3, 7, NULL, "bad");
	assert_string_equal(msg.text, "f.yaml:3:7: bad");
	doc_path_key(&p, "limits");
	doc_path_index(&p, 2);
	doc_error_at(&msg, "f.yaml", 1, 1, &p, "bad");
	assert_string_equal(msg.text, "f.yaml:1:1: limits[2]: bad");
	doc_error_at(NULL, "f.yaml", 1, 1, &p, "ignored");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules_refuse_in_their_words),
		cmocka_unit_test(repeated_and_collection_keys_name_their_place),
		cmocka_unit_test(members_know_their_key),
		cmocka_unit_test(integer_grammar),
		cmocka_unit_test(messages_at_a_place),
	};

	return cmocka_run_group_tests_name("doc", tests, NULL, NULL);
}
