/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded text builder: growth, the ceiling (heap: nothing appended,
 * failed sticks; fixed: what fits is kept), printf longer than its small
 * buffer, integers, and writing in place (room cut at the ceiling, an
 * abandoned append ending as one append past the ceiling ends). */
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

static void writes_in_place(void **state)
{
	struct textbuf b;
	char mem[8], *o;
	size_t n = 4;

	(void)state;
	textbuf_init(&b, 10);
	textbuf_adds(&b, "ab");
	o = textbuf_room(&b, &n);
	assert_non_null(o);
	assert_int_equal(n, 4);
	memcpy(o, "cdef", 4);
	/* Nothing is appended before the commit, and only what it keeps. */
	assert_int_equal(textbuf_len(&b), 2);
	textbuf_commit(&b, 3);
	assert_string_equal(textbuf_str(&b), "abcde");
	/* Room is cut to the ceiling without failing the builder. */
	n = 100;
	assert_non_null(textbuf_room(&b, &n));
	assert_int_equal(n, 5);
	assert_false(textbuf_failed(&b));
	/* An abandoned heap append drops what it added since its start. */
	textbuf_adds(&b, "xyz");
	textbuf_abandon(&b, 5);
	assert_true(textbuf_failed(&b));
	assert_string_equal(textbuf_str(&b), "abcde");
	n = 1;
	assert_null(textbuf_room(&b, &n));
	assert_int_equal(n, 0);
	textbuf_free(&b);
	/* A fixed builder keeps what fitted. */
	textbuf_init_fixed(&b, mem, sizeof mem);
	textbuf_adds(&b, "ab");
	n = 100;
	o = textbuf_room(&b, &n);
	assert_int_equal(n, 5);
	memcpy(o, "cd", 2);
	textbuf_commit(&b, 2);
	textbuf_abandon(&b, 2);
	assert_true(textbuf_failed(&b));
	assert_string_equal(mem, "abcd");
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

/* textbuf_quote as it was written first, a byte at a time: the fast path
 * for runs of plain bytes must give the same text and verdict. */
static bool quote_bytewise(struct textbuf *b, const char *text, size_t len, size_t max_shown,
			   unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t shown = len > max_shown ? max_shown : len, i;
	bool whole = true;

	if (b->failed || b->max - b->len < 2) {
		b->failed = true;
		return false;
	}
	textbuf_addc(b, '"');
	for (i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)text[i];
		char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 0x0f] };
		size_t n = 4;

		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			n = 2;
		} else if (c >= 0x20 && c != 0x7f && (c < 0x80 || (flags & TEXTBUF_QUOTE_RAW_HIGH) != 0)) {
			esc[0] = (char)c;
			n = 1;
		}
		if (b->max - b->len < n + 1) {
			whole = false;
			break;
		}
		textbuf_add(b, esc, n);
	}
	if (whole && shown < len) {
		if (b->max - b->len < 4)
			whole = false;
		else
			textbuf_adds(b, "...");
	}
	textbuf_addc(b, '"');
	if (!whole)
		b->failed = true;
	return whole;
}

static void quotes_as_byte_by_byte(void **state)
{
	static const char alphabet[] = "ab-.\"\\\n\x7f\xc3\xa9\x01 z";
	uint64_t r = 0x9e3779b97f4a7c15u;
	int round;

	(void)state;
	for (round = 0; round < 20000; round++) {
		char text[40], fast[64], slow[64];
		struct textbuf f, s;
		size_t len, size, shown, i;
		unsigned flags;
		bool a, b;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		len = (size_t)(r % sizeof text);
		size = 2 + (size_t)((r >> 8) % (sizeof fast - 2));
		shown = (size_t)((r >> 16) % 48);
		flags = (r >> 24) & 1 ? TEXTBUF_QUOTE_RAW_HIGH : 0;
		for (i = 0; i < len; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			text[i] = alphabet[r % (sizeof alphabet - 1)];
		}
		textbuf_init_fixed(&f, fast, size);
		textbuf_init_fixed(&s, slow, size);
		a = textbuf_quote(&f, text, len, shown, flags);
		b = quote_bytewise(&s, text, len, shown, flags);
		assert_int_equal(a, b);
		assert_string_equal(fast, slow);
		assert_int_equal(textbuf_failed(&f), textbuf_failed(&s));
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
		cmocka_unit_test(writes_in_place),
		cmocka_unit_test(repeats_its_own_content),
		cmocka_unit_test(quotes_for_messages),
		cmocka_unit_test(quotes_cut_to_fit),
		cmocka_unit_test(quotes_as_byte_by_byte),
	};

	return cmocka_run_group_tests_name("textbuf", tests, NULL, NULL);
}
