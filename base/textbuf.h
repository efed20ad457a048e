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
/* Writing in place, for writers that transform what they copy (the JSON
 * string writer escapes as it goes): a pointer to *n bytes past the content
 * for the caller to fill, *n cut to what the ceiling leaves (that is not a
 * failure; NULL and 0 once the builder has failed). Nothing is appended
 * until textbuf_commit keeps the first k of them; any other call on the
 * builder may move them. */
char *textbuf_room(struct textbuf *b, size_t *n);
void textbuf_commit(struct textbuf *b, size_t k);
/* Ends an append of several parts that did not fit, as one append past the
 * ceiling ends: the builder fails, a heap builder drops what was appended
 * since its length was from, a fixed one keeps what fitted. */
void textbuf_abandon(struct textbuf *b, size_t from);

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

#endif
