/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded text builder (textbuf.h). */
#include "base/textbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void textbuf_init(struct textbuf *b, size_t max)
{
	memset(b, 0, sizeof *b);
	b->max = max;
}

void textbuf_init_fixed(struct textbuf *b, char *mem, size_t size)
{
	memset(b, 0, sizeof *b);
	b->buf = mem;
	b->cap = size;
	b->max = size - 1;
	b->fixed = true;
	mem[0] = '\0';
}

void textbuf_attach(struct textbuf *b, char *mem, size_t size)
{
	memset(b, 0, sizeof *b);
	b->buf = mem;
	b->cap = size;
	b->max = size - 1;
	b->fixed = true;
	b->len = strnlen(mem, size - 1);
	mem[b->len] = '\0';
}

void textbuf_free(struct textbuf *b)
{
	if (!b->fixed)
		free(b->buf);
	memset(b, 0, sizeof *b);
}

void textbuf_reset(struct textbuf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->buf != NULL)
		b->buf[0] = '\0';
}

/* Room for more bytes of content plus the NUL, within the ceiling. A fixed
 * builder that cannot hold them all takes what fits (*n shrinks) and fails. */
static bool reserve(struct textbuf *b, size_t *n)
{
	size_t need, cap;

	if (b->failed)
		return false;
	if (*n > b->max - b->len) {
		b->failed = true;
		if (!b->fixed)
			return false;
		*n = b->max - b->len;
		return *n > 0;
	}
	need = b->len + *n + 1;
	if (need <= b->cap)
		return true;
	/* Heap only: a fixed builder's cap is max + 1, so need fitted above. */
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (b->max < SIZE_MAX && cap > b->max + 1)
		cap = b->max + 1;
	b->buf = xrealloc(b->buf, cap);
	b->cap = cap;
	return true;
}

bool textbuf_reserve(struct textbuf *b, size_t n)
{
	if (b->failed || b->fixed || n > b->max - b->len)
		return false;
	return reserve(b, &n);
}

bool textbuf_repeat(struct textbuf *b, size_t at, size_t n)
{
	size_t take = n;

	if (at > b->len || n > b->len - at) {
		b->failed = true;
		return false;
	}
	/* reserve may move the buffer: copy by offset after it. */
	if (!reserve(b, &take))
		return false;
	memmove(b->buf + b->len, b->buf + at, take);
	b->len += take;
	b->buf[b->len] = '\0';
	return take == n;
}

bool textbuf_add(struct textbuf *b, const void *s, size_t n)
{
	size_t take = n;

	if (!reserve(b, &take))
		return false;
	memcpy(b->buf + b->len, s, take);
	b->len += take;
	b->buf[b->len] = '\0';
	return take == n;
}

bool textbuf_adds(struct textbuf *b, const char *s)
{
	return textbuf_add(b, s, strlen(s));
}

bool textbuf_addc(struct textbuf *b, char c)
{
	return textbuf_add(b, &c, 1);
}

bool textbuf_vprintf(struct textbuf *b, const char *fmt, va_list ap)
{
	char small[256], *big;
	va_list again;
	int n;
	bool ok;

	/* Format once into a small buffer; only longer output is formatted a
	 * second time, into memory of its exact size. */
	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0 || ((size_t)n >= sizeof small && (size_t)n > b->max - b->len && !b->fixed)) {
		va_end(again);
		b->failed = true;
		return false;
	}
	if ((size_t)n < sizeof small) {
		va_end(again);
		return textbuf_add(b, small, (size_t)n);
	}
	big = xmalloc((size_t)n + 1);
	vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	ok = textbuf_add(b, big, (size_t)n);
	free(big);
	return ok;
}

bool textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = textbuf_vprintf(b, fmt, ap);
	va_end(ap);
	return ok;
}

bool textbuf_int(struct textbuf *b, int64_t v)
{
	char tmp[24];
	size_t i = sizeof tmp;
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[--i] = (char)('0' + m % 10);
		m /= 10;
	} while (m != 0);
	if (v < 0)
		tmp[--i] = '-';
	return textbuf_add(b, tmp + i, sizeof tmp - i);
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

size_t utf8_put(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, k;

	if (p[0] >= 0xC2 && p[0] <= 0xDF) {
		n = 2;
	} else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		n = 3;
		if (p[0] == 0xE0)
			lo = 0xA0; /* overlong below U+0800 */
		else if (p[0] == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		n = 4;
		if (p[0] == 0xF0)
			lo = 0x90; /* overlong below U+10000 */
		else if (p[0] == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < n; k++) {
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	}
	return n;
}

/* One escaped character of s at *i into o (room bytes free); returns the
 * bytes written, or 0 when they do not fit. */
static size_t escape_one(const unsigned char *u, size_t *i, size_t n, char *o, size_t room)
{
	static const char hex[] = "0123456789abcdef";
	size_t k;

	if (u[*i] == '"' || u[*i] == '\\') {
		if (room < 2)
			return 0;
		o[0] = '\\';
		o[1] = (char)u[(*i)++];
		return 2;
	}
	if (u[*i] < 0x20) {
		if (room < 6)
			return 0;
		memcpy(o, "\\u00", 4);
		o[4] = hex[u[*i] >> 4];
		o[5] = hex[u[*i] & 0xF];
		(*i)++;
		return 6;
	}
	if ((k = utf8_seq_len(u + *i, n - *i)) != 0) {
		if (room < k)
			return 0;
		memcpy(o, u + *i, k);
		*i += k;
		return k;
	}
	if (room < 6)
		return 0;
	memcpy(o, "\\ufffd", 6);
	(*i)++;
	return 6;
}

/* Output is at most 6 bytes per input byte, so each chunk of input reserves
 * its worst case once (or what the ceiling leaves) and is then written with
 * only a bounds check per run; chunks keep a huge string from reserving six
 * times its size. A heap builder that cannot hold the whole string keeps
 * none of it; a fixed one keeps what fitted, cut at a character boundary and
 * without its closing quote. */
bool textbuf_json_str(struct textbuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = b->len, i = 0, whole = n + 2;

	/* Most strings (node names, reasons) need no escape: one reservation
	 * and one copy. */
	if (n <= 4096 && json_skip_plain(u, 0, n) == n && whole <= b->max - b->len &&
	    reserve(b, &whole)) {
		char *o = b->buf + b->len;

		o[0] = '"';
		memcpy(o + 1, s, n);
		o[n + 1] = '"';
		b->len += n + 2;
		b->buf[b->len] = '\0';
		return true;
	}
	if (!textbuf_addc(b, '"'))
		goto fail;
	while (i < n) {
		size_t stop = n - i > 4096 ? i + 4096 : n;
		/* +8: a UTF-8 sequence may run up to 3 bytes past stop. */
		size_t room = 6 * (stop - i) + 8;
		char *o, *end;

		if (room > b->max - b->len)
			room = b->max - b->len;
		if (!reserve(b, &room))
			goto fail;
		o = b->buf + b->len;
		end = o + room;
		while (i < stop) {
			size_t run = i, k;

			i = json_skip_plain(u, i, stop);
			if ((size_t)(end - o) < i - run) {
				i = run + (size_t)(end - o);
				b->failed = true;
			}
			memcpy(o, s + run, i - run);
			o += i - run;
			if (b->failed || i >= stop)
				break;
			k = escape_one(u, &i, n, o, (size_t)(end - o));
			if (k == 0) {
				b->failed = true;
				break;
			}
			o += k;
		}
		b->len = (size_t)(o - b->buf);
		b->buf[b->len] = '\0';
		if (b->failed)
			goto fail;
	}
	if (textbuf_addc(b, '"'))
		return true;
fail:
	b->failed = true;
	if (!b->fixed && b->buf != NULL) {
		b->len = start;
		b->buf[start] = '\0';
	}
	return false;
}

bool textbuf_json_cstr(struct textbuf *b, const char *s)
{
	if (s == NULL)
		s = "";
	return textbuf_json_str(b, s, strlen(s));
}

bool textbuf_quote(struct textbuf *b, const char *text, size_t len, size_t max_shown,
		   unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t shown = len > max_shown ? max_shown : len, i;
	bool whole = true;

	/* Room for both quotes, or nothing at all. */
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
		} else if (c >= 0x20 && c != 0x7f &&
			   (c < 0x80 || (flags & TEXTBUF_QUOTE_RAW_HIGH) != 0)) {
			esc[0] = (char)c;
			n = 1;
		}
		/* Whole escapes only, and one byte kept for the closing quote. */
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

const char *textbuf_str(const struct textbuf *b)
{
	return b->buf != NULL ? b->buf : "";
}

size_t textbuf_len(const struct textbuf *b)
{
	return b->len;
}

bool textbuf_failed(const struct textbuf *b)
{
	return b->failed;
}

char *textbuf_take(struct textbuf *b, size_t *len)
{
	char *s = b->buf != NULL ? b->buf : xstrndup("", 0);
	size_t max = b->max;

	if (len != NULL)
		*len = b->len;
	memset(b, 0, sizeof *b);
	b->max = max;
	return s;
}
