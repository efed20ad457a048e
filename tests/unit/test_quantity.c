/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for topology/quantity: the Kubernetes quantity grammar, the exact
 * normal form, round-up-away-from-zero scaling and the error text operators
 * see. Tables carry the cases so a failure names the input that broke. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "topology/quantity.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static enum err parse(const char *s, struct quantity *q, struct errmsg *msg)
{
	return quantity_parse(s, strlen(s), q, msg);
}

static struct quantity must_parse(const char *s)
{
	struct quantity q;
	struct errmsg msg = { "" };

	if (parse(s, &q, &msg) != ERR_OK)
		fail_msg("parse \"%s\": %s", s, msg.text);
	return q;
}

struct parse_case {
	const char *text;
	bool negative;
	uint64_t mantissa;
	int32_t exp10;
	uint8_t exp2;
};

static void check_parse_cases(const struct parse_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct parse_case *c = &cases[i];
		struct quantity q = must_parse(c->text);

		if (q.negative != c->negative || q.mantissa != c->mantissa ||
		    q.exp10 != c->exp10 || q.exp2 != c->exp2)
			fail_msg("\"%s\": got {%d, %llu, %d, %u}, want {%d, %llu, %d, %u}",
				 c->text, q.negative, (unsigned long long)q.mantissa,
				 (int)q.exp10, (unsigned)q.exp2, c->negative,
				 (unsigned long long)c->mantissa, (int)c->exp10,
				 (unsigned)c->exp2);
	}
}

static void quantity_parses_plain_numbers(void **state)
{
	static const struct parse_case cases[] = {
		{ "1", false, 1, 0, 0 },
		{ "42", false, 42, 0, 0 },
		{ "007", false, 7, 0, 0 },
		{ "1000", false, 1, 3, 0 },
		{ "100.00", false, 1, 2, 0 },
		{ "1.5", false, 15, -1, 0 },
		{ "0.001", false, 1, -3, 0 },
		{ "1500m", false, 15, -1, 0 },
		{ "1234567890123456789", false, 1234567890123456789ULL, 0, 0 },
		/* 20 digits, but the trailing zero folds into the exponent. */
		{ "12345678901234567890", false, 1234567890123456789ULL, 1, 0 },
		{ "0.0000000000000000000000001", false, 1, -25, 0 },
		{ "9223372036854775807", false, 9223372036854775807ULL, 0, 0 },
		{ "9999999999999999999", false, 9999999999999999999ULL, 0, 0 },
		{ "9999999999999999999000", false, 9999999999999999999ULL, 3, 0 },
	};

	(void)state;
	check_parse_cases(cases, N_ELEM(cases));
}

static void quantity_parses_signs_and_dots(void **state)
{
	static const struct parse_case cases[] = {
		{ "+1", false, 1, 0, 0 },
		{ "-1", true, 1, 0, 0 },
		{ "1.", false, 1, 0, 0 },
		{ "-1.", true, 1, 0, 0 },
		{ ".5", false, 5, -1, 0 },
		{ "-.5", true, 5, -1, 0 },
		{ "+.5", false, 5, -1, 0 },
		{ "1.G", false, 1, 9, 0 },
		{ "1.Gi", false, 1, 0, 30 },
		{ "1.e3", false, 1, 3, 0 },
		{ ".5e1", false, 5, 0, 0 },
		{ "+.5E", false, 5, 17, 0 },
		{ "-007.500", true, 75, -1, 0 },
	};

	(void)state;
	check_parse_cases(cases, N_ELEM(cases));
}

static void quantity_parses_every_decimal_suffix(void **state)
{
	static const struct parse_case cases[] = {
		{ "1n", false, 1, -9, 0 },  { "1u", false, 1, -6, 0 },
		{ "1m", false, 1, -3, 0 },  { "1", false, 1, 0, 0 },
		{ "1k", false, 1, 3, 0 },   { "1M", false, 1, 6, 0 },
		{ "1G", false, 1, 9, 0 },   { "1T", false, 1, 12, 0 },
		{ "1P", false, 1, 15, 0 },  { "1E", false, 1, 18, 0 },
		{ "2.5k", false, 25, 2, 0 }, { "-3M", true, 3, 6, 0 },
		{ "10n", false, 1, -8, 0 },
	};

	(void)state;
	check_parse_cases(cases, N_ELEM(cases));
}

static void quantity_parses_every_binary_suffix(void **state)
{
	static const struct parse_case cases[] = {
		{ "1Ki", false, 1, 0, 10 },  { "1Mi", false, 1, 0, 20 },
		{ "1Gi", false, 1, 0, 30 },  { "1Ti", false, 1, 0, 40 },
		{ "1Pi", false, 1, 0, 50 },  { "1Ei", false, 1, 0, 60 },
		{ "0.5Ki", false, 5, -1, 10 }, { "-4Gi", true, 4, 0, 30 },
		{ "100Mi", false, 1, 2, 20 },
	};

	(void)state;
	check_parse_cases(cases, N_ELEM(cases));
}

static void quantity_parses_exponents_in_both_cases(void **state)
{
	static const struct parse_case cases[] = {
		{ "1e3", false, 1, 3, 0 },     { "1E3", false, 1, 3, 0 },
		{ "1e+3", false, 1, 3, 0 },    { "1E+3", false, 1, 3, 0 },
		{ "1e-3", false, 1, -3, 0 },   { "1E-3", false, 1, -3, 0 },
		{ "1.5e-3", false, 15, -4, 0 }, { "2e0", false, 2, 0, 0 },
		{ "1e-0", false, 1, 0, 0 },    { "1e03", false, 1, 3, 0 },
		{ "-12e2", true, 12, 2, 0 },   { "1e1000", false, 1, 1000, 0 },
		{ "1e-1000", false, 1, -1000, 0 },
		/* "E" followed by digits is an exponent, never exa times digits. */
		{ "1E999", false, 1, 999, 0 },
		/* The limit is on the normal form, not on the written exponent. */
		{ "10e999", false, 1, 1000, 0 }, { "0.1e-999", false, 1, -1000, 0 },
		{ "100e-1002", false, 1, -1000, 0 },
		{ "1e0000000000000000000000000000000000000000000000000003", false, 1, 3, 0 },
	};

	(void)state;
	check_parse_cases(cases, N_ELEM(cases));
}

static void quantity_zero_is_never_negative(void **state)
{
	static const char *const zeros[] = {
		"0", "-0", "+0", "00", "0.", ".0", "-.0", "0.000", "-0.0e5",
		"0Ei", "-0Ki", "0n", "-0E", "0e99999", "-0e-99999999999999999999",
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(zeros); i++) {
		struct quantity q = must_parse(zeros[i]);

		if (!quantity_is_zero(&q) || quantity_sign(&q) != 0 || q.negative ||
		    q.mantissa != 0 || q.exp10 != 0 || q.exp2 != 0)
			fail_msg("\"%s\" is not a canonical zero", zeros[i]);
	}
}

static void quantity_rejects_garbage(void **state)
{
	static const char *const garbage[] = {
		"", " ", " 1", "1 ", "\t1", ".", "+", "-", "+-1", "--1", "++1",
		"1.2.3", "12x", "1Ki2", "0x10", "1e", "1e+", "1E-", "1ee3", "1Ee3",
		"1eE3", "1K", "1k3", "1i", "1ki", "1KI", "1mi", "1Mi ", "1e3.5",
		"1e3k", "1.e", ".e3", "e3", "E", "Ki", "m", "1,000", "1_000",
		"inf", "NaN", "1e 3", "1.5.", "1m m", "1mm", "1kk", "1Kii", "1Zi",
		"1Z", "1e+-3", "1e--3", "1e3e3", "+.", "-.", ".-5", "1-", "1+",
		"\xd9\xa1", "1\xc2\xb5", "1.5Ki3", "\xef\xbc\x91",
	};
	struct quantity q;

	(void)state;
	for (size_t i = 0; i < N_ELEM(garbage); i++) {
		enum err e = parse(garbage[i], &q, NULL);

		if (e != ERR_PARSE)
			fail_msg("\"%s\": got %s, want parse error", garbage[i], err_name(e));
	}
}

static void quantity_rejects_embedded_nul(void **state)
{
	struct quantity q;
	struct errmsg msg = { "" };

	(void)state;
	assert_int_equal(quantity_parse("1\0", 2, &q, &msg), ERR_PARSE);
	assert_string_equal(msg.text, "\"1\\x00\": not a quantity");
	/* len, not NUL, ends the text: "12" cut to one byte is just "1". */
	assert_int_equal(quantity_parse("12", 1, &q, NULL), ERR_OK);
	assert_int_equal(q.mantissa, 1);
}

static void quantity_rejects_out_of_range(void **state)
{
	static const char *const range[] = {
		"12345678901234567891",
		"1.0000000000000000001",
		"-99999999999999999999",
		"0.00000000000000000000123456789012345678901",
		"1e1001",
		"1e-1001",
		"10e1000",
		"0.1e-1000",
		"1000e998",
		"1e99999999999999999999999",
		"-1e-99999999999999999999999",
		/* 65 bytes: too long even though it is a valid zero. */
		"00000000000000000000000000000000000000000000000000000000000000000",
	};
	struct quantity q;

	(void)state;
	for (size_t i = 0; i < N_ELEM(range); i++) {
		enum err e = parse(range[i], &q, NULL);

		if (e != ERR_RANGE)
			fail_msg("\"%s\": got %s, want out of range", range[i], err_name(e));
	}
}

static void quantity_accepts_text_of_exactly_max_length(void **state)
{
	char text[QUANTITY_MAX_TEXT + 1];
	struct quantity q;

	(void)state;
	memset(text, '0', QUANTITY_MAX_TEXT - 1);
	text[QUANTITY_MAX_TEXT - 1] = '7';
	text[QUANTITY_MAX_TEXT] = '\0';
	assert_int_equal(parse(text, &q, NULL), ERR_OK);
	assert_int_equal(q.mantissa, 7);
}

static void quantity_garbage_message_text(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "12x", "\"12x\": not a quantity" },
		{ "", "\"\": not a quantity" },
		{ " 1", "\" 1\": not a quantity" },
		{ "1Ki2", "\"1Ki2\": not a quantity" },
		{ "1\n2", "\"1\\x0a2\": not a quantity" },
		{ "\x7f\xff", "\"\\x7f\\xff\": not a quantity" },
		{ "a\"b\\", "\"a\\\"b\\\\\": not a quantity" },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct quantity q;
		struct errmsg msg = { "unchanged" };

		assert_int_equal(parse(cases[i].text, &q, &msg), ERR_PARSE);
		assert_string_equal(msg.text, cases[i].msg);
	}
}

static void quantity_range_message_text(void **state)
{
	struct quantity q;
	struct errmsg msg = { "" };

	(void)state;
	assert_int_equal(parse("12345678901234567891", &q, &msg), ERR_RANGE);
	assert_string_equal(msg.text, "\"12345678901234567891\": out of range "
				      "(more than 19 significant digits)");
	assert_int_equal(parse("1e1001", &q, &msg), ERR_RANGE);
	assert_string_equal(msg.text, "\"1e1001\": out of range (exponent beyond +-1000)");
}

static void quantity_long_text_message_is_truncated(void **state)
{
	char text[300];
	char want[400];
	struct quantity q;
	struct errmsg msg = { "" };

	(void)state;
	memset(text, '1', sizeof text);
	assert_int_equal(quantity_parse(text, sizeof text, &q, &msg), ERR_RANGE);
	snprintf(want, sizeof want, "\"%.*s...\": out of range (longer than 64 bytes)",
		 QUANTITY_MAX_TEXT, text);
	assert_string_equal(msg.text, want);

	/* Escaped bytes stay whole and the line stays short. */
	memset(text, '\n', sizeof text);
	assert_int_equal(quantity_parse(text, sizeof text, &q, &msg), ERR_RANGE);
	assert_null(strchr(msg.text, '\n'));
	assert_true(strlen(msg.text) < 4 * QUANTITY_MAX_TEXT + 64);
	assert_non_null(strstr(msg.text, "\\x0a...\": out of range"));
}

static void quantity_parse_tolerates_null_msg_and_text(void **state)
{
	struct quantity q;

	(void)state;
	assert_int_equal(parse("12x", &q, NULL), ERR_PARSE);
	assert_int_equal(parse("1e5000", &q, NULL), ERR_RANGE);
	assert_int_equal(quantity_parse(NULL, 0, &q, NULL), ERR_PARSE);
}

struct scaled_case {
	const char *text;
	int scale;
	enum err err;
	int64_t value;
};

static void check_scaled_cases(const struct scaled_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct scaled_case *c = &cases[i];
		struct quantity q = must_parse(c->text);
		int64_t v = 12345;
		enum err e = quantity_scaled(&q, c->scale, &v);

		if (e != c->err)
			fail_msg("\"%s\" at 10^%d: got %s, want %s", c->text, c->scale,
				 err_name(e), err_name(c->err));
		if (e == ERR_OK && v != c->value)
			fail_msg("\"%s\" at 10^%d: got %lld, want %lld", c->text, c->scale,
				 (long long)v, (long long)c->value);
	}
}

static void quantity_scaled_exact_values(void **state)
{
	static const struct scaled_case cases[] = {
		{ "1", 0, ERR_OK, 1 },
		{ "1", -3, ERR_OK, 1000 },
		{ "1", -9, ERR_OK, 1000000000 },
		{ "1500m", -3, ERR_OK, 1500 },
		{ "1000m", 0, ERR_OK, 1 },
		{ "1Ki", 0, ERR_OK, 1024 },
		{ "1Ki", -3, ERR_OK, 1024000 },
		{ "0.5Ki", 0, ERR_OK, 512 },
		{ "4Gi", 0, ERR_OK, 4294967296 },
		{ "1E", 0, ERR_OK, 1000000000000000000 },
		{ "1e18", 0, ERR_OK, 1000000000000000000 },
		{ "1e1000", 982, ERR_OK, 1000000000000000000 },
		{ "2k", 3, ERR_OK, 2 },
		{ "-2k", 3, ERR_OK, -2 },
		{ "1n", -9, ERR_OK, 1 },
		{ "1n", -12, ERR_OK, 1000 },
		{ "0", 0, ERR_OK, 0 },
		{ "-0", -9, ERR_OK, 0 },
		{ "0e99999", 0, ERR_OK, 0 },
	};

	(void)state;
	check_scaled_cases(cases, N_ELEM(cases));
}

static void quantity_scaled_rounds_up_away_from_zero(void **state)
{
	static const struct scaled_case cases[] = {
		/* scale 0: Value() */
		{ "1500m", 0, ERR_OK, 2 },
		{ "1001m", 0, ERR_OK, 2 },
		{ "1499m", 0, ERR_OK, 2 },
		{ "-1500m", 0, ERR_OK, -2 },
		{ "-1001m", 0, ERR_OK, -2 },
		{ "1.5", 0, ERR_OK, 2 },
		{ "2.5", 0, ERR_OK, 3 },
		{ "-2.5", 0, ERR_OK, -3 },
		{ "0.1Ki", 0, ERR_OK, 103 },
		{ "1n", 0, ERR_OK, 1 },
		{ "-1n", 0, ERR_OK, -1 },
		{ "1e-1000", 0, ERR_OK, 1 },
		{ "-1e-1000", 0, ERR_OK, -1 },
		/* scale -3: MilliValue() */
		{ "0.1m", -3, ERR_OK, 1 },
		{ "-0.1m", -3, ERR_OK, -1 },
		{ "1.0001", -3, ERR_OK, 1001 },
		{ "-1.0001", -3, ERR_OK, -1001 },
		{ "0.1Ki", -3, ERR_OK, 102400 },
		{ "0.0001Ki", -3, ERR_OK, 103 },
		{ "1u", -3, ERR_OK, 1 },
		/* scale -9: nano units */
		{ "0.1n", -9, ERR_OK, 1 },
		{ "-0.1n", -9, ERR_OK, -1 },
		{ "1e-20", -9, ERR_OK, 1 },
		{ "1.0000000001", -9, ERR_OK, 1000000001 },
		{ "0.1m", -9, ERR_OK, 100000 },
		/* positive scales: kilo units */
		{ "1", 3, ERR_OK, 1 },
		{ "1500", 3, ERR_OK, 2 },
		{ "-1500", 3, ERR_OK, -2 },
		{ "1e1000", 1001, ERR_OK, 1 },
		{ "9223372036854775807Ei", 30, ERR_OK, 10633824 },
	};

	(void)state;
	check_scaled_cases(cases, N_ELEM(cases));
}

static void quantity_scaled_overflow_boundaries(void **state)
{
	static const struct scaled_case cases[] = {
		{ "7Ei", 0, ERR_OK, 8070450532247928832 },
		{ "8Ei", 0, ERR_RANGE, 0 },
		{ "-8Ei", 0, ERR_OK, INT64_MIN },
		{ "-9Ei", 0, ERR_RANGE, 0 },
		{ "8Ei", 3, ERR_OK, 9223372036854776 },
		{ "9223372036854775807", 0, ERR_OK, INT64_MAX },
		{ "9223372036854775808", 0, ERR_RANGE, 0 },
		{ "-9223372036854775808", 0, ERR_OK, INT64_MIN },
		{ "-9223372036854775809", 0, ERR_RANGE, 0 },
		{ "9223372036854775807", -3, ERR_RANGE, 0 },
		{ "9223372036854775807m", -3, ERR_OK, INT64_MAX },
		{ "9223372036854775807m", 0, ERR_OK, 9223372036854776 },
		{ "9223372036854775.807", -3, ERR_OK, INT64_MAX },
		{ "9223372036854775.808", -3, ERR_RANGE, 0 },
		/* 2^63 - 1.15...: rounding up lands exactly on the limit. (With 19
		 * digits no value lies strictly between INT64_MAX and 2^63.) */
		{ "7.999999999999999999Ei", 0, ERR_OK, INT64_MAX },
		{ "-7.999999999999999999Ei", 0, ERR_OK, -INT64_MAX },
		{ "8.000000000000000001Ei", 0, ERR_RANGE, 0 },
		{ "-8.000000000000000001Ei", 0, ERR_RANGE, 0 },
		{ "9E", 0, ERR_OK, 9000000000000000000 },
		{ "10E", 0, ERR_RANGE, 0 },
		{ "9.223372036854775807E", 0, ERR_OK, INT64_MAX },
		{ "9.223372036854775808E", 0, ERR_RANGE, 0 },
		{ "1e19", 0, ERR_RANGE, 0 },
		{ "1e1000", 0, ERR_RANGE, 0 },
		{ "1e1000", 981, ERR_RANGE, 0 },
		{ "8Gi", -9, ERR_OK, 8589934592000000000 },
		{ "9Gi", -9, ERR_RANGE, 0 },
		{ "1Ei", -9, ERR_RANGE, 0 },
		{ "9223372036854775807Ei", 0, ERR_RANGE, 0 },
	};

	(void)state;
	check_scaled_cases(cases, N_ELEM(cases));
}

static void quantity_scaled_handles_extreme_scales(void **state)
{
	struct quantity one = must_parse("1");
	struct quantity minus = must_parse("-1");
	struct quantity zero = must_parse("0");
	/* Outside what parse produces, but still exact: the largest shift. */
	struct quantity wide = { false, UINT64_MAX, 0, 63 };
	struct quantity too_wide = { false, 1, 0, 64 };
	int64_t v = 0;

	(void)state;
	assert_int_equal(quantity_scaled(&one, INT_MAX, &v), ERR_OK);
	assert_int_equal(v, 1);
	assert_int_equal(quantity_scaled(&minus, INT_MAX, &v), ERR_OK);
	assert_int_equal(v, -1);
	assert_int_equal(quantity_scaled(&one, INT_MIN, &v), ERR_RANGE);
	assert_int_equal(quantity_scaled(&zero, INT_MIN, &v), ERR_OK);
	assert_int_equal(v, 0);
	/* (2^64-1) * 2^63 is just above 10^38. */
	assert_int_equal(quantity_scaled(&wide, 38, &v), ERR_OK);
	assert_int_equal(v, 2);
	assert_int_equal(quantity_scaled(&wide, 39, &v), ERR_OK);
	assert_int_equal(v, 1);
	assert_int_equal(quantity_scaled(&wide, 0, &v), ERR_RANGE);
	assert_int_equal(quantity_scaled(&too_wide, 30, &v), ERR_RANGE);
}

static void quantity_is_exact_cases(void **state)
{
	static const struct {
		const char *text;
		int scale;
		bool exact;
	} cases[] = {
		{ "1500m", -3, true },   { "1500m", 0, false },
		{ "-1500m", 0, false },  { "1500m", -1, true },
		{ "1Ki", 0, true },      { "1Ki", 1, false },
		{ "5Ki", 1, true },      { "0.5Ki", 0, true },
		{ "0.25Ki", 0, true },   { "0.3Ki", 0, false },
		{ "0.1Ki", 0, false },   { "0.1Ki", -1, true },
		{ "0.001Ki", -3, true }, { "0.001Ki", -2, false },
		{ "1.5", 0, false },     { "1.5", -1, true },
		{ "1k", 3, true },       { "1k", 4, false },
		{ "1E", 18, true },      { "1E", 19, false },
		{ "1", -9, true },       { "0.1n", -9, false },
		{ "0", 0, true },        { "0", 1000, true },
		{ "1e-1000", -1000, true }, { "1e-1000", -999, false },
		{ "125m", -3, true },    { "125m", -2, false },
		{ "1Ei", 0, true },      { "1Ei", -1000, true },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct quantity q = must_parse(cases[i].text);

		if (quantity_is_exact(&q, cases[i].scale) != cases[i].exact)
			fail_msg("\"%s\" exact at 10^%d: want %s", cases[i].text,
				 cases[i].scale, cases[i].exact ? "true" : "false");
	}
}

static void quantity_is_exact_agrees_with_scaled(void **state)
{
	/* Exact at a scale means scaling there loses nothing, so scaling one
	 * step finer gives exactly ten times as much. */
	static const char *const texts[] = {
		"1500m", "-1500m", "1Ki", "0.1Ki", "1.5", "7", "-3n", "2.5k",
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(texts); i++) {
		struct quantity q = must_parse(texts[i]);

		for (int scale = -9; scale <= 3; scale++) {
			int64_t coarse, fine;

			assert_int_equal(quantity_scaled(&q, scale, &coarse), ERR_OK);
			assert_int_equal(quantity_scaled(&q, scale - 1, &fine), ERR_OK);
			if (quantity_is_exact(&q, scale) != (fine == coarse * 10))
				fail_msg("\"%s\" at 10^%d: exact disagrees with %lld vs %lld",
					 texts[i], scale, (long long)coarse, (long long)fine);
		}
	}
}

static void quantity_is_zero_and_sign(void **state)
{
	static const struct {
		const char *text;
		bool zero;
		int sign;
	} cases[] = {
		{ "0", true, 0 },     { "-0", true, 0 },   { "0Ki", true, 0 },
		{ "1", false, 1 },    { "-1", false, -1 }, { "1n", false, 1 },
		{ "-1e-1000", false, -1 }, { "+.5E", false, 1 },
		{ "-8Ei", false, -1 },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEM(cases); i++) {
		struct quantity q = must_parse(cases[i].text);

		if (quantity_is_zero(&q) != cases[i].zero ||
		    quantity_sign(&q) != cases[i].sign)
			fail_msg("\"%s\": zero %d sign %d", cases[i].text,
				 quantity_is_zero(&q), quantity_sign(&q));
	}
	/* A hand-built negative zero still reads as zero. */
	struct quantity negzero = { true, 0, 5, 10 };
	int64_t v = 99;
	assert_true(quantity_is_zero(&negzero));
	assert_int_equal(quantity_sign(&negzero), 0);
	assert_int_equal(quantity_scaled(&negzero, 0, &v), ERR_OK);
	assert_int_equal(v, 0);
}

/* quantity_format is exact: reparsing gives the same value at every scale. */
static void quantity_format_round_trips(void **state)
{
	static const char *const cases[] = { "0", "1", "1500m", "1.5Gi", "4Gi", "7Ei", "-2.5k", "1e3",
					     "0.000000001", "123456789012345678Mi", "12.34e-5", "100n" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct quantity q, r;
		char text[QUANTITY_FORMAT_MAX];
		int scale;

		assert_int_equal(quantity_parse(cases[i], strlen(cases[i]), &q, NULL), ERR_OK);
		quantity_format(&q, text);
		if (quantity_parse(text, strlen(text), &r, NULL) != ERR_OK)
			fail_msg("%s -> \"%s\" does not parse", cases[i], text);
		for (scale = -9; scale <= 3; scale += 3) {
			int64_t a = 0, b = 0;
			enum err ea = quantity_scaled(&q, scale, &a), eb = quantity_scaled(&r, scale, &b);

			assert_int_equal(ea, eb);
			if (ea == ERR_OK)
				assert_int_equal(a, b);
			assert_int_equal(quantity_is_exact(&q, scale), quantity_is_exact(&r, scale));
		}
	}
	{
		struct quantity q;
		char text[QUANTITY_FORMAT_MAX];

		assert_int_equal(quantity_parse("1.5Gi", 5, &q, NULL), ERR_OK);
		quantity_format(&q, text);
		assert_string_equal(text, "16106127360e-1");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantity_parses_plain_numbers),
		cmocka_unit_test(quantity_parses_signs_and_dots),
		cmocka_unit_test(quantity_parses_every_decimal_suffix),
		cmocka_unit_test(quantity_parses_every_binary_suffix),
		cmocka_unit_test(quantity_parses_exponents_in_both_cases),
		cmocka_unit_test(quantity_zero_is_never_negative),
		cmocka_unit_test(quantity_rejects_garbage),
		cmocka_unit_test(quantity_rejects_embedded_nul),
		cmocka_unit_test(quantity_rejects_out_of_range),
		cmocka_unit_test(quantity_accepts_text_of_exactly_max_length),
		cmocka_unit_test(quantity_garbage_message_text),
		cmocka_unit_test(quantity_range_message_text),
		cmocka_unit_test(quantity_long_text_message_is_truncated),
		cmocka_unit_test(quantity_parse_tolerates_null_msg_and_text),
		cmocka_unit_test(quantity_scaled_exact_values),
		cmocka_unit_test(quantity_scaled_rounds_up_away_from_zero),
		cmocka_unit_test(quantity_scaled_overflow_boundaries),
		cmocka_unit_test(quantity_scaled_handles_extreme_scales),
		cmocka_unit_test(quantity_is_exact_cases),
		cmocka_unit_test(quantity_is_exact_agrees_with_scaled),
		cmocka_unit_test(quantity_is_zero_and_sign),
		cmocka_unit_test(quantity_format_round_trips),
	};

	return cmocka_run_group_tests_name("quantity", tests, NULL, NULL);
}
