/* SPDX-License-Identifier: Apache-2.0 */
/* The CEL tokenizer (cel-spec's lexical grammar): identifiers, numbers,
 * the four kinds of quoted strings with their r/b prefixes, operators and
 * `//` comments. Keywords (true, false, null, in) and reserved words come
 * out as identifiers; the parser tells them apart. */
#ifndef DRA_CEL_LEX_H
#define DRA_CEL_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

enum cel_tok {
	TK_EOF,
	TK_ERROR,     /* lexer->error says what */
	TK_INT,
	TK_UINT,
	TK_DOUBLE,
	TK_STRING,
	TK_BYTES,
	TK_IDENT,
	TK_BACKTICK,  /* `escaped field name` */
	TK_LPAREN,
	TK_RPAREN,
	TK_LBRACKET,
	TK_RBRACKET,
	TK_LBRACE,
	TK_RBRACE,
	TK_DOT,
	TK_COMMA,
	TK_COLON,
	TK_QUESTION,
	TK_NOT,
	TK_MINUS,
	TK_PLUS,
	TK_STAR,
	TK_SLASH,
	TK_PERCENT,
	TK_EQ,
	TK_NE,
	TK_LT,
	TK_LE,
	TK_GT,
	TK_GE,
	TK_AND,
	TK_OR,
};

struct cel_token {
	enum cel_tok kind;
	size_t pos, len; /* the token's bytes in the text */
};

struct cel_lexer {
	const char *text;
	size_t len, pos;
	struct cel_token tok;   /* the current token */
	const char *error;      /* TK_ERROR: a static description */
};

void cel_lex_init(struct cel_lexer *lx, const char *text, size_t len);
/* Moves to the next token (lx->tok). */
void cel_lex_next(struct cel_lexer *lx);
/* A name for the token in messages ("')'", "identifier", "end of input"). */
const char *cel_tok_name(enum cel_tok kind);

/* The value of a TK_STRING token, escapes decoded, in arena memory with a
 * NUL after it (the value itself may hold NULs). NULL and *why set when an
 * escape or the UTF-8 is invalid; *err_pos then is the byte offset. */
const char *cel_lex_string(const struct cel_lexer *lx, const struct cel_token *t, struct arena *a,
			   size_t *out_len, const char **why, size_t *err_pos);

#endif
