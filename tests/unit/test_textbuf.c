/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded text builder: growth, the ceiling (heap: nothing appended,
 * failed sticks; fixed: what fits is kept), printf longer than its small
 * buffer, integers, and JSON strings (escapes, invalid UTF-8 as U+FFFD,
 * strings larger than one chunk, a string cut at the ceiling). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"

static void grows_and_takes(void **state)
{
	struct textbuf b;
	char *s;
	size_t len, i;

	(void)state;
	textbuf_init(&b, 1 << 20);
	assert_string_equal(textbuf_str(&b), "");
	for (i = 0; i < 1000; i++)
		assert_true(textbuf_adds(&b, "abc"));
	assert_int_equal(textbuf_len(&b), 3000);
	assert_false(textbuf_failed(&b));
	s = textbuf_take(&b, &len);
	assert_int_equal(len, 3000);
	assert_int_equal(strlen(s), 3000);
	assert_memory_equal(s + 2997, "abc", 4);
	free(s);
	/* Taken: empty again, same ceiling. */
	assert_int_equal(textbuf_len(&b), 0);
	assert_int_equal(b.max, 1 << 20);
	s = textbuf_take(&b, NULL);
	assert_string_equal(s, "");
	free(s);
}

static void heap_ceiling_appends_nothing_and_sticks(void **state)
{
	struct textbuf b;

	(void)state;
	textbuf_init(&b, 10);
	assert_true(textbuf_adds(&b, "0123456789"));
	assert_false(textbuf_addc(&b, 'x'));
	assert_true(textbuf_failed(&b));
	assert_string_equal(textbuf_str(&b), "0123456789");
	textbuf_reset(&b);
	assert_false(textbuf_failed(&b));
	assert_true(textbuf_adds(&b, "01234"));
	assert_false(textbuf_adds(&b, "567890"));
	assert_string_equal(textbuf_str(&b), "01234");
	/* Once failed, even what would fit is refused. */
	assert_false(textbuf_adds(&b, "5"));
	assert_string_equal(textbuf_str(&b), "01234");
	/* Memory never exceeds the ceiling plus the NUL. */
	assert_true(b.cap <= 11);
	textbuf_free(&b);
}

static void fixed_keeps_what_fits(void **state)
{
	char mem[8];
	struct textbuf b;

	(void)state;
	textbuf_init_fixed(&b, mem, sizeof mem);
	assert_true(textbuf_adds(&b, "abc"));
	assert_false(textbuf_printf(&b, "%d-%s", 12345, "zz"));
	assert_string_equal(mem, "abc1234");
	assert_true(textbuf_failed(&b));
	textbuf_free(&b); /* does not free mem */
	assert_string_equal(mem, "abc1234");
}

static void printf_longer_than_its_small_buffer(void **state)
{
	struct textbuf b;
	char big[1000];

	(void)state;
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	textbuf_init(&b, 4096);
	assert_true(textbuf_printf(&b, "<%s>%d", big, 7));
	assert_int_equal(textbuf_len(&b), 1002);
	assert_int_equal(textbuf_str(&b)[1000], '>');
	/* Longer than the ceiling: refused whole. */
	assert_false(textbuf_printf(&b, "%s%s%s%s%s", big, big, big, big, big));
	assert_int_equal(textbuf_len(&b), 1002);
	textbuf_free(&b);
}

static void integers(void **state)
{
	struct textbuf b;

	(void)state;
	textbuf_init(&b, 100);
	textbuf_int(&b, 0);
	textbuf_addc(&b, ' ');
	textbuf_int(&b, -42);
	textbuf_addc(&b, ' ');
	textbuf_int(&b, INT64_MIN);
	textbuf_addc(&b, ' ');
	textbuf_int(&b, INT64_MAX);
	assert_string_equal(textbuf_str(&b), "0 -42 -9223372036854775808 9223372036854775807");
	textbuf_free(&b);
}

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

static void repeats_its_own_content(void **state)
{
	struct textbuf b;
	size_t i;

	(void)state;
	textbuf_init(&b, 1 << 16);
	textbuf_adds(&b, "abcdef");
	/* Many repeats regrow the buffer under the copied range. */
	for (i = 0; i < 1000; i++)
		assert_true(textbuf_repeat(&b, 2, 3));
	assert_int_equal(textbuf_len(&b), 3006);
	assert_memory_equal(textbuf_str(&b) + 3003, "cde", 4);
	/* A range outside the content fails. */
	assert_false(textbuf_repeat(&b, 3000, 10));
	assert_true(textbuf_failed(&b));
	textbuf_free(&b);
}

static void quotes_for_messages(void **state)
{
	struct textbuf b;

	(void)state;
	textbuf_init(&b, 256);
	assert_true(textbuf_quote(&b, "a\"b\\c\n\x00\xff", 8, 64, 0));
	assert_string_equal(textbuf_str(&b), "\"a\\\"b\\\\c\\x0a\\x00\\xff\"");
	textbuf_reset(&b);
	assert_true(textbuf_quote(&b, "abcdef", 6, 3, 0));
	assert_string_equal(textbuf_str(&b), "\"abc...\"");
	/* Logs keep UTF-8 as it is; DEL and control bytes are still escaped. */
	textbuf_reset(&b);
	assert_true(textbuf_quote(&b, "\xc3\xa9\x7f", 3, 64, TEXTBUF_QUOTE_RAW_HIGH));
	assert_string_equal(textbuf_str(&b), "\"\xc3\xa9\\x7f\"");
	textbuf_free(&b);
}

/* Where a fixed builder's room ends, the literal is cut before an escape
 * that would not fit, and still closed. */
static void quotes_cut_to_fit(void **state)
{
	char small[8];
	struct textbuf f;

	(void)state;
	textbuf_init_fixed(&f, small, sizeof small);
	assert_false(textbuf_quote(&f, "ab\ncd", 5, 64, 0));
	assert_string_equal(small, "\"ab\"");
	assert_true(textbuf_failed(&f));
	textbuf_init_fixed(&f, small, sizeof small);
	assert_false(textbuf_quote(&f, "abcdefgh", 8, 4, 0));
	assert_string_equal(small, "\"abcd\"");
	textbuf_init_fixed(&f, small, 2);
	assert_false(textbuf_quote(&f, "a", 1, 64, 0));
	assert_string_equal(small, "");
}

/* The decoders' shared pieces: hex digits, and code points written as
 * UTF-8 at every length boundary, each read back as one well-formed
 * sequence of that length. */
static void hex_digits_and_utf8(void **state)
{
	static const struct {
		unsigned long cp;
		size_t len;
		const char *bytes;
	} cases[] = {
		{ 0x24, 1, "\x24" },         { 0x7F, 1, "\x7F" },
		{ 0x80, 2, "\xC2\x80" },     { 0x7FF, 2, "\xDF\xBF" },
		{ 0x800, 3, "\xE0\xA0\x80" }, { 0x20AC, 3, "\xE2\x82\xAC" },
		{ 0xFFFF, 3, "\xEF\xBF\xBF" }, { 0x10000, 4, "\xF0\x90\x80\x80" },
		{ 0x1F600, 4, "\xF0\x9F\x98\x80" }, { 0x10FFFF, 4, "\xF4\x8F\xBF\xBF" },
	};
	size_t i;
	char out[4];

	(void)state;
	assert_int_equal(json_hex_digit('0'), 0);
	assert_int_equal(json_hex_digit('9'), 9);
	assert_int_equal(json_hex_digit('a'), 10);
	assert_int_equal(json_hex_digit('F'), 15);
	assert_int_equal(json_hex_digit('g'), -1);
	assert_int_equal(json_hex_digit('/'), -1);
	assert_int_equal(json_hex_digit(':'), -1);
	assert_int_equal(json_hex_digit('\0'), -1);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = utf8_put(out, cases[i].cp);

		assert_int_equal(n, cases[i].len);
		assert_memory_equal(out, cases[i].bytes, n);
		if (n > 1)
			assert_int_equal(utf8_seq_len((const unsigned char *)out, n), n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grows_and_takes),
		cmocka_unit_test(heap_ceiling_appends_nothing_and_sticks),
		cmocka_unit_test(fixed_keeps_what_fits),
		cmocka_unit_test(printf_longer_than_its_small_buffer),
		cmocka_unit_test(integers),
		cmocka_unit_test(json_strings),
		cmocka_unit_test(json_string_larger_than_a_chunk),
		cmocka_unit_test(json_string_cut_in_fixed_memory),
		cmocka_unit_test(repeats_its_own_content),
		cmocka_unit_test(quotes_for_messages),
		cmocka_unit_test(quotes_cut_to_fit),
		cmocka_unit_test(hex_digits_and_utf8),
	};

	return cmocka_run_group_tests_name("textbuf", tests, NULL, NULL);
}
