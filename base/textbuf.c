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

void textbuf_init_fixed(struct textbuf *b, char *mem, size_t size)
{
	mem[0] = '\0';
	textbuf_attach(b, mem, size);
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

char *textbuf_room(struct textbuf *b, size_t *n)
{
	if (b->failed) {
		*n = 0;
		return NULL;
	}
	if (*n > b->max - b->len)
		*n = b->max - b->len;
	/* Within the ceiling, reserve does not fail (a heap builder grows, a
	 * fixed one's cap is max + 1). */
	reserve(b, n);
	return b->buf + b->len;
}

void textbuf_commit(struct textbuf *b, size_t k)
{
	b->len += k;
	b->buf[b->len] = '\0';
}

void textbuf_abandon(struct textbuf *b, size_t from)
{
	b->failed = true;
	if (!b->fixed && b->buf != NULL && from < b->len) {
		b->len = from;
		b->buf[from] = '\0';
	}
}

/* A byte textbuf_quote shows as it is. */
static bool quote_plain(unsigned char c, unsigned flags)
{
	return c != '"' && c != '\\' && c >= 0x20 && c != 0x7f &&
	       (c < 0x80 || (flags & TEXTBUF_QUOTE_RAW_HIGH) != 0);
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
		size_t n = 4, run = i;

		/* A run of bytes shown as they are goes in at once (names are
		 * mostly that), as many as fit with the closing quote. */
		while (run < shown && quote_plain((unsigned char)text[run], flags))
			run++;
		if (run > i) {
			size_t room = b->max - b->len, take = run - i;

			if (room < take + 1) {
				textbuf_add(b, text + i, room > 0 ? room - 1 : 0);
				whole = false;
				break;
			}
			textbuf_add(b, text + i, take);
			i = run - 1;
			continue;
		}
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			n = 2;
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
