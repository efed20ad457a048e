/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8, one definition for every reader and writer of text: the JSON
 * lexer and writer (extender/codec) and the selector language's strings
 * (dra/cel_lex). */
#ifndef BASE_UTF8_H
#define BASE_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0: RFC
 * 3629's rules (no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_seq_len(const unsigned char *p, size_t avail);
/* Code point cp (at most U+10FFFF) written as UTF-8 at out (room for 4
 * bytes); returns how many bytes. Surrogates are the caller's to refuse. */
size_t utf8_put(char *out, unsigned long cp);

#endif
