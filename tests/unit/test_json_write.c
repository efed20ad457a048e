/* SPDX-License-Identifier: Apache-2.0 */
/* extender/codec/json_write: JSON strings into the text builder (escapes,
 * invalid UTF-8 as U+FFFD, strings larger than one chunk, a string cut at
 * the ceiling: none of it in a heap builder, a character boundary in a
 * fixed one). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "extender/codec/json_write.h"

static void json_strings(void **state)
{
	/* quote, backslash, newline, a control byte, é, an overlong '/', a lone
	 * continuation byte, a surrogate, a 4-byte sequence cut short. */
	static const char in[] = "a\"b\\c\nd\x01"
				 "\xc3\xa9"
				 "\xc0\xaf"
				 "\x80"
				 "\xed\xa0\x80"
				 "\xf0\x9f\x98";
	struct textbuf b;

	(void)state;
	textbuf_init(&b, 4096);
	assert_true(textbuf_json_str(&b, in, sizeof in - 1));
	assert_string_equal(textbuf_str(&b),
			    "\"a\\\"b\\\\c\\u000ad\\u0001\xc3\xa9\\ufffd\\ufffd\\ufffd"
			    "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	textbuf_reset(&b);
	assert_true(textbuf_json_cstr(&b, NULL));
	assert_string_equal(textbuf_str(&b), "\"\"");
	textbuf_free(&b);
}

static void json_string_larger_than_a_chunk(void **state)
{
	size_t n = 10000, i;
	char *in = malloc(n);
	struct textbuf b;

	(void)state;
	for (i = 0; i < n; i++)
		in[i] = i % 100 == 99 ? '\n' : 'x';
	textbuf_init(&b, 1 << 20);
	assert_true(textbuf_json_str(&b, in, n));
	/* 100 newlines become 6 bytes each, plus the quotes. */
	assert_int_equal(textbuf_len(&b), n + 100 * 5 + 2);
	textbuf_free(&b);
	/* A ceiling between the plain size and its worst case still fits it:
	 * the reservation is the worst case only where memory allows. */
	textbuf_init(&b, n + 100 * 5 + 2);
	assert_true(textbuf_json_str(&b, in, n));
	textbuf_free(&b);
	/* One byte less: the heap builder keeps nothing of the string. */
	textbuf_init(&b, n + 100 * 5 + 1);
	assert_true(textbuf_adds(&b, "{"));
	assert_false(textbuf_json_str(&b, in, n));
	assert_string_equal(textbuf_str(&b), "{");
	assert_true(textbuf_failed(&b));
	textbuf_free(&b);
	free(in);
}

static void json_string_cut_in_fixed_memory(void **state)
{
	char mem[12];
	struct textbuf b;

	(void)state;
	textbuf_init_fixed(&b, mem, sizeof mem);
	assert_false(textbuf_json_cstr(&b, "abc\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"));
	/* Cut at a character boundary, never inside é. */
	assert_string_equal(mem, "\"abc\xc3\xa9\xc3\xa9\xc3\xa9");
	textbuf_init_fixed(&b, mem, sizeof mem);
	assert_false(textbuf_json_cstr(&b, "abcdef\n"));
	assert_string_equal(mem, "\"abcdef");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_strings),
		cmocka_unit_test(json_string_larger_than_a_chunk),
		cmocka_unit_test(json_string_cut_in_fixed_memory),
	};

	return cmocka_run_group_tests_name("json_write", tests, NULL, NULL);
}
