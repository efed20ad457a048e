/* SPDX-License-Identifier: Apache-2.0 */
/* JSON strings written into the text builder (base/textbuf.h): the one
 * escaper every JSON text the extender writes by hand goes through (replies,
 * the decision log's records, the pod source's events). The names
 * keep the builder's prefix: they append to a textbuf as its own appenders
 * do, and their callers read as before. */
#ifndef EXTENDER_JSON_WRITE_H
#define EXTENDER_JSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/textbuf.h"

/* s[0..n) as a JSON string with its quotes: '"' and '\\' escaped, control
 * bytes as \u00XX, '/' left alone, valid UTF-8 passed through and each byte
 * of an invalid sequence as \ufffd (what Go's encoder does). Past the
 * ceiling it fails as one append does: a heap builder keeps none of the
 * string, a fixed one what fitted, cut at a character boundary and without
 * its closing quote. */
bool textbuf_json_str(struct textbuf *b, const char *s, size_t n);
/* A NUL-terminated string (NULL reads as ""), as textbuf_json_str. */
bool textbuf_json_cstr(struct textbuf *b, const char *s);

#endif
