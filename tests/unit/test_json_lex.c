/* SPDX-License-Identifier: Apache-2.0 */
/* extender/codec/json_lex: the RFC 8259 lexing shared by the request scan
 * (wire_scan.c) and the Pod's builder (doc_text.c): numbers by their longest
 * valid prefix, strings with every problem at its byte, white space, hex
 * digits and UTF-8. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "extender/codec/json_lex.h"

static void numbers(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		bool real;
	} cases[] = {
		{ "", 0, false },        { "-", 0, false },       { "0", 1, false },
		{ "-0", 2, false },      { "01", 1, false },      { "120", 3, false },
		{ "1.", 1, false },      { "1.5", 3, true },      { "-0.25e+3", 8, true },
		{ "1e", 1, false },      { "1e-", 1, false },     { "1E7", 3, true },
		{ "2.5e", 3, true },     { "+1", 0, false },      { ".5", 0, false },
		{ "NaN", 0, false },     { "12,", 2, false },     { "9e9}", 3, true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool real = !cases[i].real;
		size_t got = json_number_len(cases[i].text, strlen(cases[i].text), &real);

		if (got != cases[i].len || (got > 0 && real != cases[i].real))
			fail_msg("\"%s\": length %zu real %d, expected %zu real %d", cases[i].text, got,
				 real, cases[i].len, cases[i].real);
	}
}

static void strings(void **state)
{
	static const struct {
		const char *text;
		bool utf8;
		enum json_str_status status;
		size_t at;
		unsigned flags;
	} cases[] = {
		{ "\"abc\" ", true, JSON_STR_OK, 5, 0 },
		{ "\"a\\nb\"", true, JSON_STR_OK, 6, JSON_STR_ESCAPED },
		{ "\"\\u0000\"", true, JSON_STR_OK, 8, JSON_STR_ESCAPED | JSON_STR_NUL },
		{ "\"\\u00e9\"", true, JSON_STR_OK, 8, JSON_STR_ESCAPED },
		{ "\"abc", true, JSON_STR_UNTERMINATED, 0, 0 },
		{ "\"ab\\", true, JSON_STR_UNTERMINATED, 0, 0 },
		{ "\"a\\x\"", true, JSON_STR_BAD_ESCAPE, 2, 0 },
		{ "\"a\\u12\"", true, JSON_STR_BAD_ESCAPE, 2, 0 },
		{ "\"a\\u12g4\"", true, JSON_STR_BAD_ESCAPE, 2, 0 },
		{ "\"a\tb\"", true, JSON_STR_CONTROL, 2, 0 },
		{ "\"a\xc0\xaf\"", true, JSON_STR_BAD_UTF8, 2, 0 },
		{ "\"a\xc0\xaf\"", false, JSON_STR_OK, 5, 0 },
		{ "\"\xc3\xa9\"", true, JSON_STR_OK, 4, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i].text;
		size_t at = 99;
		unsigned flags = 99;
		enum json_str_status st =
			json_string_scan((const unsigned char *)t, 0, strlen(t), cases[i].utf8, &at, &flags);

		if (st != cases[i].status || at != cases[i].at ||
		    (st == JSON_STR_OK && flags != cases[i].flags))
			fail_msg("case %zu: status %d at %zu flags %u, expected %d at %zu flags %u", i,
				 st, at, flags, cases[i].status, cases[i].at, cases[i].flags);
	}
}

static void white_space(void **state)
{
	(void)state;
	assert_int_equal(json_ws_end(" \t\r\n x", 0, 6), 5);
	assert_int_equal(json_ws_end("  ", 0, 2), 2);
	assert_int_equal(json_ws_end("a ", 0, 2), 0);
	assert_int_equal(json_ws_end("\v", 0, 1), 0);
}

/* Hex digits, and code points written as UTF-8 at every length boundary,
 * each read back as one well-formed sequence of that length. */
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

/* One unescaper for the scan's keys and the Pod's strings: the escapes, a
 * surrogate pair as one sequence, a lone surrogate as the caller says, the
 * cap, and text no scan accepted. */
static void unescapes(void **state)
{
	static const struct {
		const char *text;
		enum json_lone lone;
		size_t cap;
		const char *out; /* NULL: SIZE_MAX */
	} cases[] = {
		{ "plain", JSON_LONE_REFUSE, 5, "plain" },
		{ "a\\\"\\/\\b\\f\\n\\r\\t\\\\z", JSON_LONE_REFUSE, 64, "a\"/\b\f\n\r\t\\z" },
		{ "\\u00e9\\u20AC", JSON_LONE_REFUSE, 64, "\xc3\xa9\xe2\x82\xac" },
		{ "\\ud83d\\ude00!", JSON_LONE_REFUSE, 64, "\xf0\x9f\x98\x80!" },
		{ "x\\ud800y", JSON_LONE_REPLACE, 64, "x\xef\xbf\xbdy" },
		{ "x\\ud800y", JSON_LONE_REFUSE, 64, NULL },
		{ "\\ude00", JSON_LONE_REPLACE, 64, "\xef\xbf\xbd" },
		{ "\\ude00", JSON_LONE_REFUSE, 64, NULL },
		/* A high surrogate before an escape that is not a low one: both
		 * read on their own. */
		{ "\\ud800\\u0041", JSON_LONE_REPLACE, 64, "\xef\xbf\xbd" "A" },
		{ "abcdef", JSON_LONE_REFUSE, 5, NULL },
		{ "abcd\\u00e9", JSON_LONE_REFUSE, 5, NULL },
		{ "abc\\u00e9", JSON_LONE_REFUSE, 5, "abc\xc3\xa9" },
		{ "a\\x", JSON_LONE_REPLACE, 64, NULL },
		{ "a\\u12", JSON_LONE_REPLACE, 64, NULL },
		{ "a\\", JSON_LONE_REPLACE, 64, NULL },
	};
	char out[65];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t got = json_unescape(cases[i].text, strlen(cases[i].text), out, cases[i].cap,
					   cases[i].lone);

		if (cases[i].out == NULL) {
			if (got != SIZE_MAX)
				fail_msg("case %zu: length %zu, expected a refusal", i, got);
			continue;
		}
		if (got != strlen(cases[i].out) || memcmp(out, cases[i].out, got) != 0 || out[got] != '\0')
			fail_msg("case %zu: got %zu bytes \"%.*s\"", i, got, (int)(got == SIZE_MAX ? 0 : got), out);
	}
	/* \u0000 is one NUL byte (callers that need C strings refuse it). */
	assert_int_equal(json_unescape("a\\u0000b", 8, out, 64, JSON_LONE_REFUSE), 3);
	assert_memory_equal(out, "a\0b", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(strings),
		cmocka_unit_test(white_space),
		cmocka_unit_test(hex_digits_and_utf8),
		cmocka_unit_test(unescapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
