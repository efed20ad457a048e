/* SPDX-License-Identifier: Apache-2.0 */
/* The one text builder: a malloc'd buffer that grows geometrically up to a
 * ceiling set at init (in the spirit of curl's dynbuf). Every place that
 * builds text of a size not known in advance builds it here, so no caller
 * does "cap - len" arithmetic of its own.
 *
 * Appending past the ceiling appends nothing, marks the builder failed and
 * returns false; every later append is refused too, so a caller may append
 * a whole document and check once at the end (textbuf_failed). The content is
 * always NUL-terminated. A builder initialised over caller memory
 * (textbuf_init_fixed) never allocates: its ceiling is that memory less the
 * NUL, and on failure it keeps what fitted (a truncated message is still
 * a message). */
#ifndef BASE_TEXTBUF_H
#define BASE_TEXTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct textbuf {
	char *buf;    /* NULL until the first append (heap builders) */
	size_t len;   /* bytes of content, without the NUL */
	size_t cap;   /* bytes allocated (or given), NUL included */
	size_t max;   /* ceiling on len */
	bool fixed;   /* buf is the caller's: never grown nor freed */
	bool failed;  /* an append hit the ceiling */
};

/* A heap builder holding at most max bytes of content. */
void textbuf_init(struct textbuf *b, size_t max);
/* A builder over mem[0..size) (size >= 1): at most size - 1 bytes. */
void textbuf_init_fixed(struct textbuf *b, char *mem, size_t size);
/* A fixed builder that goes on from the NUL-terminated text already in
 * mem[0..size) (cut to size - 1 bytes if it is not terminated there). */
void textbuf_attach(struct textbuf *b, char *mem, size_t size);
/* Frees a heap builder's memory; the builder may be initialised again. */
void textbuf_free(struct textbuf *b);
/* Empties the content and clears failed; keeps memory. */
void textbuf_reset(struct textbuf *b);

/* Makes room for n more bytes without appending (a hint that saves regrowth;
 * false when they would pass the ceiling, which is not a failure). */
bool textbuf_reserve(struct textbuf *b, size_t n);
bool textbuf_add(struct textbuf *b, const void *s, size_t n);
/* Appends a copy of the builder's own content [at, at + n). */
bool textbuf_repeat(struct textbuf *b, size_t at, size_t n);
bool textbuf_adds(struct textbuf *b, const char *s);
bool textbuf_addc(struct textbuf *b, char c);
bool textbuf_printf(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool textbuf_vprintf(struct textbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
bool textbuf_int(struct textbuf *b, int64_t v);
/* s[0..n) as a JSON string with its quotes: '"' and '\\' escaped, control
 * bytes as \u00XX, '/' left alone, valid UTF-8 passed through and each byte
 * of an invalid sequence as \ufffd (what Go's encoder does). */
bool textbuf_json_str(struct textbuf *b, const char *s, size_t n);
/* A NUL-terminated string (NULL reads as ""), as textbuf_json_str. */
bool textbuf_json_cstr(struct textbuf *b, const char *s);

/* text[0..len) as a double-quoted, single-line literal, the one quoting of
 * outside text for messages and logs: '"' and '\\' escaped, control bytes
 * and DEL as \xNN (a NUL or newline cannot cut, split or forge a line),
 * bytes 0x80-0xff as \xNN too unless flags has TEXTBUF_QUOTE_RAW_HIGH (logs
 * keep UTF-8 names readable). Past max_shown bytes the text is cut with
 * "..."; where the builder's room ends it is cut before the first escape
 * that does not fit, so the literal is always closed (false then). */
#define TEXTBUF_QUOTE_RAW_HIGH 0x1u
bool textbuf_quote(struct textbuf *b, const char *text, size_t len, size_t max_shown,
		   unsigned flags);

/* The content (never NULL; "" when empty). */
const char *textbuf_str(const struct textbuf *b);
size_t textbuf_len(const struct textbuf *b);
bool textbuf_failed(const struct textbuf *b);
/* Hands a heap builder's content to the caller (free() it; never NULL) and
 * leaves the builder empty; *len gets its length when len is not NULL. */
char *textbuf_take(struct textbuf *b, size_t *len);

/* Length of the well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0: RFC
 * 3629's rules (no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_seq_len(const unsigned char *p, size_t avail);
/* Index of the first byte of s[i..n) that is not printable ASCII other than
 * '"' and '\\' (a byte a JSON string can carry as it is), or n. */
size_t json_skip_plain(const unsigned char *s, size_t i, size_t n);
/* The value of one hexadecimal digit (a \uXXXX escape's), or -1. */
int json_hex_digit(char c);
/* Code point cp (at most U+10FFFF) written as UTF-8 at out (room for 4
 * bytes); returns how many bytes. Surrogates are the caller's to refuse. */
size_t utf8_put(char *out, unsigned long cp);

#endif
