/* SPDX-License-Identifier: Apache-2.0 */
/* matches() with RE2's syntax, run by the C library's POSIX extended
 * regular expressions. A pattern is translated into an equivalent ERE or
 * refused; refused are the RE2 features an ERE cannot say:
 *  - \b and \B (word boundaries), \pN and \p{Name} (Unicode classes),
 *    \Q...\E, octal escapes and [[:^class:]] negated POSIX classes;
 *  - flags, (?i) (?s) (?m) (?U) and (?i:...): case folding in RE2 is
 *    Unicode's, and (?s) and (?m) change what . ^ and $ mean;
 *  - non-ASCII characters and NULs in the pattern (an ERE works on bytes
 *    in the C locale, RE2 on UTF-8 characters), and a repetition of an
 *    anchor (^*), which POSIX leaves undefined;
 *  - patterns whose repetitions would expand beyond CEL_REGEX_MAX_SIZE.
 * Translated exactly: literals and escaped punctuation, \a \f \t \n \r \v
 * and \x escapes, . (as [^\n]: RE2's dot does not match a newline), \d \w
 * \s and their negations (ASCII classes in RE2 too), brackets with ranges
 * and [:class:] names, ^ $ \A \z, groups, (?:...) and named groups (a
 * match is only true or false, so capturing does not matter), alternation,
 * * + ? {n} {n,} {n,m}, and the non-greedy forms *? +? ?? {n,m}? (greed
 * changes which text matches, never whether some does).
 * Lookaround, backreferences and anything else RE2 itself rejects are
 * invalid patterns.
 *
 * One gap stays at run time: where the pattern could match a non-ASCII
 * character (., negated classes), RE2 counts UTF-8 characters and an ERE
 * bytes, so a text with bytes >= 0x80 (or a NUL) cannot be decided. */
#ifndef DRA_CEL_REGEX_H
#define DRA_CEL_REGEX_H

#include <stdbool.h>
#include <stddef.h>

/* Expanded size (atoms times the repetitions around them) at most. */
#define CEL_REGEX_MAX_SIZE 20000

struct cel_regex;

enum cel_regex_status {
	CEL_REGEX_OK,
	CEL_REGEX_UNSUPPORTED, /* valid RE2, but not translatable: why says what */
	CEL_REGEX_INVALID,     /* not RE2 syntax */
};

enum cel_regex_status cel_regex_compile(const char *pattern, size_t len, struct cel_regex **out,
					char *why, size_t why_size);
void cel_regex_free(struct cel_regex *re);

/* 1 when text[0..len) (NUL-terminated at len) has a match, 0 when not, -1
 * when this engine cannot tell (see above). */
int cel_regex_match(const struct cel_regex *re, const char *text, size_t len);

/* The pattern's expanded size (atoms times their repetitions), the work
 * one position of a text may cost. */
size_t cel_regex_size(const struct cel_regex *re);

/* The ERE the pattern became (for tests and messages). */
const char *cel_regex_posix(const struct cel_regex *re);

#endif
