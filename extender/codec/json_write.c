/* SPDX-License-Identifier: Apache-2.0 */
/* JSON strings into the text builder (json_write.h). */
#include "extender/codec/json_write.h"

#include <string.h>

#include "extender/codec/json_lex.h"

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

/* Output is at most 6 bytes per input byte, so each chunk of input takes
 * room for its worst case once (or what the ceiling leaves) and is then
 * written with only a bounds check per run; chunks keep a huge string from
 * reserving six times its size. */
bool textbuf_json_str(struct textbuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = textbuf_len(b), i = 0, room = n + 2;
	char *o;

	/* Most strings (node names, reasons) need no escape: one reservation
	 * and one copy. */
	if (n <= 4096 && json_skip_plain(u, 0, n) == n && (o = textbuf_room(b, &room)) != NULL &&
	    room == n + 2) {
		o[0] = '"';
		memcpy(o + 1, s, n);
		o[n + 1] = '"';
		textbuf_commit(b, n + 2);
		return true;
	}
	if (!textbuf_addc(b, '"'))
		goto fail;
	while (i < n) {
		size_t stop = n - i > 4096 ? i + 4096 : n;
		char *first, *end;
		bool cut = false;

		/* +8: a UTF-8 sequence may run up to 3 bytes past stop. */
		room = 6 * (stop - i) + 8;
		first = o = textbuf_room(b, &room);
		if (first == NULL)
			goto fail;
		end = first + room;
		while (i < stop) {
			size_t run = i, k;

			i = json_skip_plain(u, i, stop);
			if ((size_t)(end - o) < i - run) {
				i = run + (size_t)(end - o);
				cut = true;
			}
			memcpy(o, s + run, i - run);
			o += i - run;
			if (cut || i >= stop)
				break;
			k = escape_one(u, &i, n, o, (size_t)(end - o));
			if (k == 0) {
				cut = true;
				break;
			}
			o += k;
		}
		textbuf_commit(b, (size_t)(o - first));
		if (cut)
			goto fail;
	}
	if (textbuf_addc(b, '"'))
		return true;
fail:
	textbuf_abandon(b, start);
	return false;
}

bool textbuf_json_cstr(struct textbuf *b, const char *s)
{
	if (s == NULL)
		s = "";
	return textbuf_json_str(b, s, strlen(s));
}
