/* SPDX-License-Identifier: Apache-2.0 */
/* RFC 8259 white space, numbers and strings (json_lex.h). */
#include "extender/codec/json_lex.h"

#include <string.h>

#include "base/textbuf.h"

size_t json_ws_end(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t json_number_len(const char *s, size_t n, bool *real)
{
	size_t i = 0, j;

	*real = false;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		while (i < n && is_digit(s[i]))
			i++;
	} else {
		return 0;
	}
	if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
		for (i += 2; i < n && is_digit(s[i]); i++)
			;
		*real = true;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		j = i + 1;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < n && is_digit(s[j])) {
			for (i = j; i < n && is_digit(s[i]); i++)
				;
			*real = true;
		}
	}
	return i;
}

enum json_str_status json_string_scan(const unsigned char *s, size_t i, size_t n, bool check_utf8,
				      size_t *at, unsigned *flags)
{
	size_t open = i, k;

	*flags = 0;
	for (i++;;) {
		/* Every byte of a body that is not structure passes here:
		 * the common ones take one test each. */
		i = json_skip_plain(s, i, n);
		if (i >= n) {
			*at = open;
			return JSON_STR_UNTERMINATED;
		}
		if (s[i] == '"') {
			*at = i + 1;
			return JSON_STR_OK;
		}
		if (s[i] == '\\') {
			*flags |= JSON_STR_ESCAPED;
			if (i + 1 >= n) {
				*at = open;
				return JSON_STR_UNTERMINATED;
			}
			if (s[i + 1] == 'u') {
				for (k = 2; k < 6 && i + k < n && json_hex_digit((char)s[i + k]) >= 0; k++)
					;
				if (k < 6) {
					*at = i;
					return JSON_STR_BAD_ESCAPE;
				}
				if (memcmp(s + i + 2, "0000", 4) == 0)
					*flags |= JSON_STR_NUL;
				i += 6;
			} else if (s[i + 1] != '\0' && strchr("\"\\/bfnrt", s[i + 1]) != NULL) {
				i += 2;
			} else {
				*at = i;
				return JSON_STR_BAD_ESCAPE;
			}
		} else if (s[i] < 0x20) {
			*at = i;
			return JSON_STR_CONTROL;
		} else if (!check_utf8) {
			i++;
		} else if ((k = utf8_seq_len(s + i, n - i)) == 0) {
			*at = i;
			return JSON_STR_BAD_UTF8;
		} else {
			i += k;
		}
	}
}
