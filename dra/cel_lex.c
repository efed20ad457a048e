/* SPDX-License-Identifier: Apache-2.0 */
/* The CEL tokenizer (cel_lex.h). */
#include "dra/cel_lex.h"

#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_ident_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident(char c)
{
	return is_ident_start(c) || is_digit(c);
}

void cel_lex_init(struct cel_lexer *lx, const char *text, size_t len)
{
	memset(lx, 0, sizeof *lx);
	lx->text = text;
	lx->len = len;
}

static char peek(const struct cel_lexer *lx, size_t ahead)
{
	return lx->pos + ahead < lx->len ? lx->text[lx->pos + ahead] : '\0';
}

static void skip_space(struct cel_lexer *lx)
{
	while (lx->pos < lx->len) {
		char c = lx->text[lx->pos];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			lx->pos++;
		} else if (c == '/' && peek(lx, 1) == '/') {
			while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
				lx->pos++;
		} else {
			break;
		}
	}
}

static enum cel_tok lex_error(struct cel_lexer *lx, const char *why)
{
	lx->error = why;
	return TK_ERROR;
}

/* Digits, a fraction and an exponent: 12, 0x1F, 3u, 1.5, .5, 1e3, 2.5E-3. */
static enum cel_tok lex_number(struct cel_lexer *lx)
{
	bool is_double = false;

	if (peek(lx, 0) == '0' && (peek(lx, 1) == 'x' || peek(lx, 1) == 'X')) {
		lx->pos += 2;
		if (!is_hex(peek(lx, 0)))
			return lex_error(lx, "invalid hexadecimal literal");
		while (is_hex(peek(lx, 0)))
			lx->pos++;
	} else {
		while (is_digit(peek(lx, 0)))
			lx->pos++;
		if (peek(lx, 0) == '.' && is_digit(peek(lx, 1))) {
			is_double = true;
			lx->pos++;
			while (is_digit(peek(lx, 0)))
				lx->pos++;
		}
		if (peek(lx, 0) == 'e' || peek(lx, 0) == 'E') {
			size_t sign = peek(lx, 1) == '+' || peek(lx, 1) == '-';

			if (is_digit(peek(lx, 1 + sign))) {
				is_double = true;
				lx->pos += 1 + sign;
				while (is_digit(peek(lx, 0)))
					lx->pos++;
			}
		}
	}
	if (!is_double && (peek(lx, 0) == 'u' || peek(lx, 0) == 'U')) {
		lx->pos++;
		return TK_UINT;
	}
	return is_double ? TK_DOUBLE : TK_INT;
}

/* A quoted string after its prefix: '...', "...", '''...''', """...""". */
static enum cel_tok lex_quoted(struct cel_lexer *lx, bool raw)
{
	char q = peek(lx, 0);
	bool triple = peek(lx, 1) == q && peek(lx, 2) == q;

	lx->pos += triple ? 3 : 1;
	for (;;) {
		char c;

		if (lx->pos >= lx->len)
			return lex_error(lx, "unterminated string literal");
		c = lx->text[lx->pos];
		if (c == q && (!triple || (peek(lx, 1) == q && peek(lx, 2) == q))) {
			lx->pos += triple ? 3 : 1;
			return TK_STRING;
		}
		if (!triple && (c == '\n' || c == '\r'))
			return lex_error(lx, "newline in a string literal");
		if (c == '\\' && !raw && lx->pos + 1 < lx->len)
			lx->pos++;
		lx->pos++;
	}
}

static enum cel_tok lex_string_or_ident(struct cel_lexer *lx)
{
	size_t n = 0;
	bool raw = false, bytes = false;

	/* Prefixes: r, b, rb, br in either case, right before a quote. */
	while (n < 2) {
		char c = peek(lx, n);

		if ((c == 'r' || c == 'R') && !raw)
			raw = true;
		else if ((c == 'b' || c == 'B') && !bytes)
			bytes = true;
		else
			break;
		n++;
	}
	if (n > 0 && (peek(lx, n) == '"' || peek(lx, n) == '\'')) {
		enum cel_tok t;

		lx->pos += n;
		t = lex_quoted(lx, raw);
		return t == TK_STRING && bytes ? TK_BYTES : t;
	}
	while (is_ident(peek(lx, 0)))
		lx->pos++;
	return TK_IDENT;
}

static enum cel_tok lex_operator(struct cel_lexer *lx)
{
	static const struct {
		const char *text;
		enum cel_tok kind;
	} ops[] = {
		{ "==", TK_EQ }, { "!=", TK_NE }, { "<=", TK_LE }, { ">=", TK_GE },
		{ "&&", TK_AND }, { "||", TK_OR }, { "(", TK_LPAREN }, { ")", TK_RPAREN },
		{ "[", TK_LBRACKET }, { "]", TK_RBRACKET }, { "{", TK_LBRACE }, { "}", TK_RBRACE },
		{ ".", TK_DOT }, { ",", TK_COMMA }, { ":", TK_COLON }, { "?", TK_QUESTION },
		{ "!", TK_NOT }, { "-", TK_MINUS }, { "+", TK_PLUS }, { "*", TK_STAR },
		{ "/", TK_SLASH }, { "%", TK_PERCENT }, { "<", TK_LT }, { ">", TK_GT },
	};

	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);

		if (lx->pos + n <= lx->len && memcmp(lx->text + lx->pos, ops[i].text, n) == 0) {
			lx->pos += n;
			return ops[i].kind;
		}
	}
	if (peek(lx, 0) == '`') {
		lx->pos++;
		while (lx->pos < lx->len && lx->text[lx->pos] != '`')
			lx->pos++;
		if (lx->pos >= lx->len)
			return lex_error(lx, "unterminated escaped identifier");
		lx->pos++;
		return TK_BACKTICK;
	}
	lx->pos++;
	return lex_error(lx, "unexpected character");
}

void cel_lex_next(struct cel_lexer *lx)
{
	char c;

	skip_space(lx);
	lx->tok.pos = lx->pos;
	if (lx->pos >= lx->len) {
		lx->tok.kind = TK_EOF;
		lx->tok.len = 0;
		return;
	}
	c = lx->text[lx->pos];
	if (is_digit(c) || (c == '.' && is_digit(peek(lx, 1))))
		lx->tok.kind = lex_number(lx);
	else if (c == '"' || c == '\'')
		lx->tok.kind = lex_quoted(lx, false);
	else if (is_ident_start(c))
		lx->tok.kind = lex_string_or_ident(lx);
	else
		lx->tok.kind = lex_operator(lx);
	lx->tok.len = lx->pos - lx->tok.pos;
}

const char *cel_tok_name(enum cel_tok kind)
{
	static const char *const names[] = {
		[TK_EOF] = "end of input", [TK_ERROR] = "invalid token",
		[TK_INT] = "integer", [TK_UINT] = "unsigned integer", [TK_DOUBLE] = "number",
		[TK_STRING] = "string", [TK_BYTES] = "bytes", [TK_IDENT] = "identifier",
		[TK_BACKTICK] = "escaped identifier", [TK_LPAREN] = "'('", [TK_RPAREN] = "')'",
		[TK_LBRACKET] = "'['", [TK_RBRACKET] = "']'", [TK_LBRACE] = "'{'",
		[TK_RBRACE] = "'}'", [TK_DOT] = "'.'", [TK_COMMA] = "','", [TK_COLON] = "':'",
		[TK_QUESTION] = "'?'", [TK_NOT] = "'!'", [TK_MINUS] = "'-'", [TK_PLUS] = "'+'",
		[TK_STAR] = "'*'", [TK_SLASH] = "'/'", [TK_PERCENT] = "'%'", [TK_EQ] = "'=='",
		[TK_NE] = "'!='", [TK_LT] = "'<'", [TK_LE] = "'<='", [TK_GT] = "'>'",
		[TK_GE] = "'>='", [TK_AND] = "'&&'", [TK_OR] = "'||'",
	};

	return (size_t)kind < sizeof names / sizeof names[0] && names[kind] ? names[kind] : "token";
}

/* --- string values --- */

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

/* One escape after the backslash at s[*i]: its code point, or -1. */
static long escape(const char *s, size_t end, size_t *i)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\''\"\"``??";
	char c = s[*i];
	size_t digits = 0, k;
	long cp = 0;

	for (k = 0; simple[k]; k += 2) {
		if (simple[k] == c) {
			(*i)++;
			return (unsigned char)simple[k + 1];
		}
	}
	if (c == 'x' || c == 'X')
		digits = 2;
	else if (c == 'u')
		digits = 4;
	else if (c == 'U')
		digits = 8;
	if (digits > 0) {
		if (*i + digits >= end)
			return -1;
		for (k = 1; k <= digits; k++) {
			if (!is_hex(s[*i + k]))
				return -1;
			cp = cp * 16 + hex_value(s[*i + k]);
		}
		*i += digits + 1;
	} else if (c >= '0' && c <= '3') {
		if (*i + 2 >= end)
			return -1;
		for (k = 0; k < 3; k++) {
			if (s[*i + k] < '0' || s[*i + k] > '7')
				return -1;
			cp = cp * 8 + (s[*i + k] - '0');
		}
		*i += 3;
	} else {
		return -1;
	}
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	return cp;
}

const char *cel_lex_string(const struct cel_lexer *lx, const struct cel_token *t, struct arena *a,
			   size_t *out_len, const char **why, size_t *err_pos)
{
	const char *s = lx->text;
	size_t i = t->pos, end = t->pos + t->len, n = 0, quote;
	bool raw = false;
	char *out;

	while (s[i] != '"' && s[i] != '\'') {
		if (s[i] == 'r' || s[i] == 'R')
			raw = true;
		i++;
	}
	quote = (i + 2 < end && s[i + 1] == s[i] && s[i + 2] == s[i] && end - i >= 6) ? 3 : 1;
	i += quote;
	end -= quote;
	/* Decoding never grows the text: escapes are at least as long as their bytes. */
	out = arena_alloc_raw(a, end - i + 1);
	while (i < end) {
		size_t ok;

		if (s[i] == '\\' && !raw) {
			size_t at = i++;
			long cp = escape(s, end, &i);

			if (cp < 0) {
				*why = "invalid escape sequence";
				*err_pos = at;
				return NULL;
			}
			n += utf8_put(out + n, (unsigned long)cp);
			continue;
		}
		ok = (unsigned char)s[i] < 0x80
			     ? 1
			     : utf8_seq_len((const unsigned char *)s + i, end - i);
		if (ok == 0) {
			*why = "invalid UTF-8 in a string literal";
			*err_pos = i;
			return NULL;
		}
		memcpy(out + n, s + i, ok);
		n += ok;
		i += ok;
	}
	out[n] = '\0';
	*out_len = n;
	return out;
}
