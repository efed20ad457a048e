/* SPDX-License-Identifier: Apache-2.0 */
/* RFC 8259 white space, numbers, strings and their UTF-8 (json_lex.h). */
#include "extender/codec/json_lex.h"

#include <stdint.h>
#include <string.h>

size_t json_ws_end(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t json_number_len(const char *s, size_t n, bool *real)
{
	size_t i = 0, j;

	*real = false;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		while (i < n && is_digit(s[i]))
			i++;
	} else {
		return 0;
	}
	if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
		for (i += 2; i < n && is_digit(s[i]); i++)
			;
		*real = true;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		j = i + 1;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < n && is_digit(s[j])) {
			for (i = j; i < n && is_digit(s[i]); i++)
				;
			*real = true;
		}
	}
	return i;
}

/* Bytes that stand for themselves inside a JSON string: printable ASCII
 * except the quote and the backslash. */
static bool is_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Whether all 8 bytes of w are plain. Exact: the has-zero-byte and
 * has-byte-below-n tricks (Hacker's Delight 6-1) only err in bytes above a
 * real hit, so the whole-word answer is right. Strings are most of a
 * request and of a reply, so they go a word at a time. */
static bool word_plain(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, highs = ones * 0x80;
	uint64_t q = w ^ (ones * '"'), s = w ^ (ones * '\\');

	return ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) |
		 ((s - ones) & ~s) | w) & highs) == 0;
}

size_t json_skip_plain(const unsigned char *s, size_t i, size_t n)
{
	uint64_t w;

	while (i < n && n - i >= 8) {
		memcpy(&w, s + i, 8);
		if (!word_plain(w))
			break;
		i += 8;
	}
	while (i < n && is_plain(s[i]))
		i++;
	return i;
}

int json_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum json_str_status json_string_scan(const unsigned char *s, size_t i, size_t n, bool check_utf8,
				      size_t *at, unsigned *flags)
{
	size_t open = i, k;

	*flags = 0;
	for (i++;;) {
		/* Every byte of a body that is not structure passes here:
		 * the common ones take one test each. */
		i = json_skip_plain(s, i, n);
		if (i >= n) {
			*at = open;
			return JSON_STR_UNTERMINATED;
		}
		if (s[i] == '"') {
			*at = i + 1;
			return JSON_STR_OK;
		}
		if (s[i] == '\\') {
			*flags |= JSON_STR_ESCAPED;
			if (i + 1 >= n) {
				*at = open;
				return JSON_STR_UNTERMINATED;
			}
			if (s[i + 1] == 'u') {
				for (k = 2; k < 6 && i + k < n && json_hex_digit((char)s[i + k]) >= 0; k++)
					;
				if (k < 6) {
					*at = i;
					return JSON_STR_BAD_ESCAPE;
				}
				if (memcmp(s + i + 2, "0000", 4) == 0)
					*flags |= JSON_STR_NUL;
				i += 6;
			} else if (s[i + 1] != '\0' && strchr("\"\\/bfnrt", s[i + 1]) != NULL) {
				i += 2;
			} else {
				*at = i;
				return JSON_STR_BAD_ESCAPE;
			}
		} else if (s[i] < 0x20) {
			*at = i;
			return JSON_STR_CONTROL;
		} else if (!check_utf8) {
			i++;
		} else if ((k = utf8_seq_len(s + i, n - i)) == 0) {
			*at = i;
			return JSON_STR_BAD_UTF8;
		} else {
			i += k;
		}
	}
}

/* The code unit of the four hex digits at s, or -1. */
static long hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int h = json_hex_digit(s[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

size_t json_unescape(const char *s, size_t n, char *out, size_t cap, enum json_lone lone)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t i = 0, o = 0;

	while (i < n) {
		const char *bs = memchr(s + i, '\\', n - i), *e;
		size_t run = bs != NULL ? (size_t)(bs - s) - i : n - i, k = 1;
		char tmp[4];
		long cp, lo;

		if (run > cap - o)
			return SIZE_MAX;
		memcpy(out + o, s + i, run);
		o += run;
		i += run;
		if (i == n)
			break;
		if (n - i < 2)
			return SIZE_MAX;
		if (s[i + 1] != 'u') {
			e = memchr(esc_in, s[i + 1], sizeof esc_in - 1);
			if (e == NULL)
				return SIZE_MAX;
			tmp[0] = esc_out[e - esc_in];
			i += 2;
		} else {
			if (n - i < 6 || (cp = hex4(s + i + 2)) < 0)
				return SIZE_MAX;
			i += 6;
			if (cp >= 0xD800 && cp <= 0xDBFF && n - i >= 6 && s[i] == '\\' && s[i + 1] == 'u' &&
			    (lo = hex4(s + i + 2)) >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += 6;
			} else if (cp >= 0xD800 && cp <= 0xDFFF) {
				if (lone == JSON_LONE_REFUSE)
					return SIZE_MAX;
				cp = 0xFFFD;
			}
			k = utf8_put(tmp, (unsigned long)cp);
		}
		if (k > cap - o)
			return SIZE_MAX;
		memcpy(out + o, tmp, k);
		o += k;
	}
	out[o] = '\0';
	return o;
}
