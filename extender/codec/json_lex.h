/* SPDX-License-Identifier: Apache-2.0 */
/* The RFC 8259 lexing that wire.c's scan of a request and doc_text.c's
 * builder of a Pod share: white space, numbers and strings, one definition
 * of each. Text only: nothing here allocates or decodes. */
#ifndef EXTENDER_JSON_LEX_H
#define EXTENDER_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>

/* The first index from i of s[0..n) that is not JSON white space, or n. */
size_t json_ws_end(const char *s, size_t i, size_t n);

/* The length of the longest prefix of s[0..n) that is one RFC 8259 number
 * (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), 0 when none is; *real
 * says whether it has a fraction or an exponent. */
size_t json_number_len(const char *s, size_t n, bool *real);

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

#endif
