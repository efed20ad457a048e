/* SPDX-License-Identifier: Apache-2.0 */
/* The RFC 8259 lexing that the wire's scan of a request, its reader of
 * preemption arguments and doc_text.c's builder of a Pod share, and the
 * JSON string writer (json_write.h) too: white space, numbers, strings,
 * their escapes and the UTF-8 inside them, one definition of each for what
 * is read and what is written. Nothing here allocates. */
#ifndef EXTENDER_JSON_LEX_H
#define EXTENDER_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/utf8.h" /* utf8_seq_len, utf8_put */

/* The first index from i of s[0..n) that is not JSON white space, or n. */
size_t json_ws_end(const char *s, size_t i, size_t n);

/* The length of the longest prefix of s[0..n) that is one RFC 8259 number
 * (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), 0 when none is; *real
 * says whether it has a fraction or an exponent. */
size_t json_number_len(const char *s, size_t n, bool *real);

/* Index of the first byte of s[i..n) that is not printable ASCII other than
 * '"' and '\\' (a byte a JSON string can carry as it is), or n. */
size_t json_skip_plain(const unsigned char *s, size_t i, size_t n);
/* The value of one hexadecimal digit (a \uXXXX escape's), or -1. */
int json_hex_digit(char c);

enum json_str_status {
	JSON_STR_OK,
	JSON_STR_UNTERMINATED,
	JSON_STR_BAD_ESCAPE,
	JSON_STR_CONTROL,   /* a raw byte below 0x20 */
	JSON_STR_BAD_UTF8,
};

#define JSON_STR_ESCAPED 1u /* holds a backslash */
#define JSON_STR_NUL 2u     /* holds the escape \u0000 */

/* The string whose opening quote is s[i], s[0..n). JSON_STR_OK: *at is just
 * past the closing quote and *flags says what it holds; otherwise *at is
 * where the problem is (the opening quote for an unterminated string).
 * check_utf8: bytes above 0x7F must form well-formed UTF-8 (utf8_seq_len);
 * without it they are taken as they are, as json-c takes them. */
enum json_str_status json_string_scan(const unsigned char *s, size_t i, size_t n, bool check_utf8,
				      size_t *at, unsigned *flags);

/* What json_unescape makes of a \u escape of a lone surrogate (one not in
 * a high-low pair). */
enum json_lone {
	JSON_LONE_REPLACE, /* U+FFFD, as json-c decodes it */
	JSON_LONE_REFUSE,  /* nothing: json_unescape fails */
};

/* Decodes s[0..n), the text between the quotes of a string
 * json_string_scan accepted, into out, NUL-terminated: the escapes RFC 8259
 * defines, a surrogate pair as one 4-byte UTF-8 sequence, a lone surrogate
 * as lone says, other bytes as they are. Returns the length, or SIZE_MAX
 * when it would pass cap bytes (out holds cap + 1), a lone surrogate is
 * refused, or s is not such a text. Never longer than n: every escape is
 * longer than what it stands for, so cap n always suffices. */
size_t json_unescape(const char *s, size_t n, char *out, size_t cap, enum json_lone lone);

#endif
