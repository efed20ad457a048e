/* SPDX-License-Identifier: Apache-2.0 */
/* The CEL parser: recursive descent over cel-spec's grammar, with CEL's
 * precedence (?: || && relations + - * / % unary member primary). As in
 * cel-go, the macros become nodes of their own here and chains of && and ||
 * become one node each (cel-go balances them; the result is the same, as
 * either operator is commutative in CEL).
 *
 * Syntax outside the subset is refused as unsupported where it is met:
 * optional selection (.? and [?]), map literals, message construction,
 * bytes literals, escaped field names, the map and filter macros and the
 * two-variable comprehensions. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/cel_ast.h"
#include "dra/cel_lex.h"

struct parser {
	struct dra_cel_program *p;
	struct cel_lexer lx;
	struct cel_status cs;
	unsigned depth;
};

/* Records the problem; the parse stops at the NULL. */
#define FAIL(ps, ...) (cel_fail(&(ps)->cs, __VA_ARGS__), (struct cel_node *)NULL)
				
				static bool next(struct parser *ps)
				{
				cel_lex_next(&ps->lx);
	if (ps->lx.tok.kind == TK_ERROR) {
		cel_fail(&ps->cs, DRA_CEL_INVALID, ps->lx.tok.pos, "%s", ps->lx.error);
		return false;
	}
	return true;
}

static enum cel_tok tok(const struct parser *ps)
{
	return ps->lx.tok.kind;
}

static uint32_t tok_pos(const struct parser *ps)
{
	return (uint32_t)ps->lx.tok.pos;
}

static bool tok_is(const struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	return tok(ps) == TK_IDENT && ps->lx.tok.len == n &&
	       memcmp(ps->p->text + ps->lx.tok.pos, word, n) == 0;
}

static struct cel_node *unexpected(struct parser *ps)
{
	if (tok(ps) == TK_IDENT)
		return FAIL(ps, DRA_CEL_INVALID, ps->lx.tok.pos, "syntax error: unexpected '%.*s'",
			    (int)(ps->lx.tok.len > 40 ? 40 : ps->lx.tok.len),
			    ps->p->text + ps->lx.tok.pos);
	return FAIL(ps, DRA_CEL_INVALID, ps->lx.tok.pos, "syntax error: unexpected %s",
		    cel_tok_name(tok(ps)));
}

static bool expect(struct parser *ps, enum cel_tok kind)
{
	if (tok(ps) != kind) {
		cel_fail(&ps->cs, DRA_CEL_INVALID, ps->lx.tok.pos,
			 "syntax error: expected %s, found %s", cel_tok_name(kind),
			 cel_tok_name(tok(ps)));
		return false;
	}
	return next(ps);
}

/* Sets n's height from its operands; refuses a tree taller than the
 * evaluator's recursion may go. */
static struct cel_node *finish(struct parser *ps, struct cel_node *n)
{
	unsigned h = 0;
	const struct cel_node *kids[3] = { n->a, n->b, n->c };

	for (size_t i = 0; i < 3; i++)
		if (kids[i] && kids[i]->height > h)
			h = kids[i]->height;
	for (size_t i = 0; i < n->nargs; i++)
		if (n->args[i]->height > h)
			h = n->args[i]->height;
	n->height = h + 1;
	if (n->height > CEL_MAX_DEPTH)
		return FAIL(ps, DRA_CEL_UNSUPPORTED, n->pos,
			    "expression nests deeper than %d levels", CEL_MAX_DEPTH);
	return n;
}

static struct cel_node *binary(struct parser *ps, enum cel_op op, uint32_t pos,
			       struct cel_node *a, struct cel_node *b)
{
	struct cel_node *n = cel_node_new(ps->p, op, pos);

	n->a = a;
	n->b = b;
	return finish(ps, n);
}

/* A growing list of nodes while they are parsed (into the arena after). */
struct node_list {
	struct cel_node **v;
	size_t n, cap;
};

static void list_push(struct node_list *l, struct cel_node *n)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n++] = n;
}

static void list_to_args(struct parser *ps, struct node_list *l, struct cel_node *n)
{
	n->nargs = l->n;
	n->args = cel_args_new(ps->p, l->n);
	if (l->n)
		memcpy(n->args, l->v, l->n * sizeof *l->v);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static struct cel_node *parse_expr(struct parser *ps);

/* Expressions separated by commas up to the closing token (already past
 * the opening one); list literals may end with a comma. */
static bool parse_list(struct parser *ps, enum cel_tok close, bool trailing_comma,
		       struct node_list *out)
{
	if (tok(ps) == close)
		return next(ps);
	for (;;) {
		struct cel_node *e;

		if (tok(ps) == TK_QUESTION) {
			cel_fail(&ps->cs, DRA_CEL_UNSUPPORTED, tok_pos(ps),
				 "optional list elements ([?x]) are not supported");
			return false;
		}
		e = parse_expr(ps);
		if (e == NULL)
			return false;
		list_push(out, e);
		if (tok(ps) != TK_COMMA)
			break;
		if (!next(ps))
			return false;
		if (trailing_comma && tok(ps) == close)
			break;
	}
	return expect(ps, close);
}

static bool is_simple_ident(const struct cel_node *n)
{
	return n->op == CEL_IDENT && !n->root;
}

static bool name_is(const struct cel_node *n, const char *word)
{
	return n->name_len == strlen(word) && memcmp(n->name, word, n->name_len) == 0;
}

/* A macro's variable: the first argument, a plain name. */
static struct cel_node *macro_var(struct parser *ps, struct cel_node *call, struct cel_node *arg,
				  const char *macro)
{
	if (!is_simple_ident(arg))
		return FAIL(ps, DRA_CEL_INVALID, arg->pos,
			    "%s(): the variable must be a simple name", macro);
	call->name = arg->name;
	call->name_len = arg->name_len;
	return call;
}

/* target.name(args): the comprehension macros and cel.bind, or a call. */
static struct cel_node *member_call(struct parser *ps, struct cel_node *target,
				    struct cel_node *call)
{
	static const struct {
		const char *name;
		enum cel_op op;
	} macros[] = {
		{ "all", CEL_ALL }, { "exists", CEL_EXISTS }, { "exists_one", CEL_EXISTS_ONE },
	};
	char name[16] = "";

	if (call->name_len < sizeof name)
		memcpy(name, call->name, call->name_len);
	for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++) {
		if (strcmp(name, macros[i].name) != 0)
			continue;
		if (call->nargs == 3)
			return FAIL(ps, DRA_CEL_UNSUPPORTED, call->pos,
				    "two-variable comprehensions (%s() with 3 arguments) are not "
				    "supported",
				    name);
		if (call->nargs != 2)
			break;
		call->op = macros[i].op;
		call->a = target;
		call->b = call->args[1];
		call->nargs = 0;
		if (macro_var(ps, call, call->args[0], name) == NULL)
			return NULL;
		call->args = NULL;
		return finish(ps, call);
	}
	if ((strcmp(name, "map") == 0 || strcmp(name, "filter") == 0) &&
	    (call->nargs == 2 || call->nargs == 3))
		return FAIL(ps, DRA_CEL_UNSUPPORTED, call->pos, "the %s() macro is not supported",
			    name);
	if (is_simple_ident(target) && name_is(target, "cel") && strcmp(name, "bind") == 0 &&
	    call->nargs == 3) {
		call->op = CEL_BIND;
		call->a = call->args[1];
		call->b = call->args[2];
		if (macro_var(ps, call, call->args[0], "cel.bind") == NULL)
			return NULL;
		call->args = NULL;
		call->nargs = 0;
		return finish(ps, call);
	}
	call->a = target;
	return finish(ps, call);
}

/* name(args) without a target: has() is a macro, the rest are calls. */
static struct cel_node *global_call(struct parser *ps, struct cel_node *call)
{
	if (name_is(call, "has")) {
		struct cel_node *sel = call->nargs == 1 ? call->args[0] : NULL;

		if (sel == NULL || sel->op != CEL_SELECT)
			return FAIL(
				ps, DRA_CEL_INVALID, call->pos,
				"invalid argument to has() macro: it takes one field selection");
		sel->op = CEL_HAS;
		sel->pos = call->pos;
		return finish(ps, sel);
	}
	return finish(ps, call);
}

static struct cel_node *call_args(struct parser *ps, struct cel_node *call)
{
	struct node_list args = { 0 };

	if (!next(ps) || !parse_list(ps, TK_RPAREN, false, &args)) {
		free(args.v);
		return NULL;
	}
	list_to_args(ps, &args, call);
	return call;
}

static bool parse_magnitude(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d =
			s[i] <= '9' ? (unsigned)(s[i] - '0') : (unsigned)((s[i] | 0x20) - 'a' + 10);

		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static struct cel_node *number(struct parser *ps, bool negative)
{
	const char *s = ps->p->text + ps->lx.tok.pos;
	size_t n = ps->lx.tok.len;
	struct cel_node *lit;
	uint64_t mag;

	switch (tok(ps)) {
	case TK_INT:
		lit = cel_node_new(ps->p, CEL_INT, tok_pos(ps));
		if (!parse_magnitude(s, n, &mag) ||
		    mag > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
			return FAIL(ps, DRA_CEL_INVALID, lit->pos, "invalid int literal");
		lit->lit.kind = CEL_V_INT;
		lit->lit.v.i =
			negative ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag)
				 : (int64_t)mag;
		break;
	case TK_UINT:
		lit = cel_node_new(ps->p, CEL_UINT, tok_pos(ps));
		if (!parse_magnitude(s, n - 1, &mag))
			return FAIL(ps, DRA_CEL_INVALID, lit->pos, "invalid uint literal");
		lit->lit.kind = CEL_V_UINT;
		lit->lit.v.u = mag;
		break;
	default: {
		char buf[512];

		lit = cel_node_new(ps->p, CEL_DOUBLE, tok_pos(ps));
		if (n >= sizeof buf)
			return FAIL(ps, DRA_CEL_UNSUPPORTED, lit->pos, "double literal too long");
		memcpy(buf, s, n);
		buf[n] = '\0';
		lit->lit.kind = CEL_V_DOUBLE;
		lit->lit.v.d = strtod(buf, NULL);
		if (lit->lit.v.d > 1.7976931348623157e308)
			return FAIL(ps, DRA_CEL_INVALID, lit->pos, "invalid double literal");
		if (negative)
			lit->lit.v.d = -lit->lit.v.d;
		break;
	}
	}
	if (!next(ps))
		return NULL;
	return finish(ps, lit);
}

static struct cel_node *string_literal(struct parser *ps)
{
	struct cel_node *lit = cel_node_new(ps->p, CEL_STRING, tok_pos(ps));
	const char *why = NULL;
	size_t at = 0;

	lit->lit.kind = CEL_V_STRING;
	lit->lit.v.s.p = cel_lex_string(&ps->lx, &ps->lx.tok, &ps->p->arena, &lit->lit.v.s.len,
					&why, &at);
	if (lit->lit.v.s.p == NULL)
		return FAIL(ps, DRA_CEL_INVALID, at, "%s", why);
	if (!next(ps))
		return NULL;
	return finish(ps, lit);
}

static bool is_reserved(const char *s, size_t n)
{
	static const char *const words[] = {
		"as", "break", "const", "continue", "else", "for", "function", "if", "import",
		"let", "loop", "package", "namespace", "return", "var", "void", "while",
	};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return true;
	return false;
}

static struct cel_node *identifier(struct parser *ps, bool root)
{
	const char *s = ps->p->text + ps->lx.tok.pos;
	size_t n = ps->lx.tok.len;
	struct cel_node *id;

	if (tok(ps) != TK_IDENT)
		return unexpected(ps);
	if (!root) {
		if (tok_is(ps, "true") || tok_is(ps, "false")) {
			id = cel_node_new(ps->p, CEL_BOOL, tok_pos(ps));
			id->lit.kind = CEL_V_BOOL;
			id->lit.v.b = tok_is(ps, "true");
			return next(ps) ? finish(ps, id) : NULL;
		}
		if (tok_is(ps, "null")) {
			id = cel_node_new(ps->p, CEL_NULL, tok_pos(ps));
			id->lit.kind = CEL_V_NULL;
			return next(ps) ? finish(ps, id) : NULL;
		}
	}
	if (tok_is(ps, "in") || tok_is(ps, "true") || tok_is(ps, "false") || tok_is(ps, "null"))
		return unexpected(ps);
	if (is_reserved(s, n))
		return FAIL(ps, DRA_CEL_INVALID, tok_pos(ps), "reserved identifier: %.*s", (int)n,
			    s);
	id = cel_node_new(ps->p, CEL_IDENT, tok_pos(ps));
	id->name = s;
	id->name_len = n;
	id->root = root;
	if (!next(ps))
		return NULL;
	if (tok(ps) == TK_LPAREN) {
		id->op = CEL_CALL;
		return call_args(ps, id) ? global_call(ps, id) : NULL;
	}
	if (tok(ps) == TK_LBRACE)
		return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
			    "message construction (Name{...}) is not supported");
	return finish(ps, id);
}

static struct cel_node *parse_primary(struct parser *ps, bool negative)
{
	struct cel_node *e;
	struct node_list elems = { 0 };

	switch (tok(ps)) {
	case TK_INT:
	case TK_UINT:
	case TK_DOUBLE:
		return number(ps, negative);
	case TK_STRING:
		return string_literal(ps);
	case TK_BYTES:
		return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
			    "bytes literals are not supported");
	case TK_IDENT:
		return identifier(ps, false);
	case TK_DOT:
		return next(ps) ? identifier(ps, true) : NULL;
	case TK_LPAREN:
		if (!next(ps) || (e = parse_expr(ps)) == NULL || !expect(ps, TK_RPAREN))
			return NULL;
		return e;
	case TK_LBRACKET:
		e = cel_node_new(ps->p, CEL_LIST, tok_pos(ps));
		if (!next(ps) || !parse_list(ps, TK_RBRACKET, true, &elems)) {
			free(elems.v);
			return NULL;
		}
		list_to_args(ps, &elems, e);
		return finish(ps, e);
	case TK_LBRACE:
		return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps), "map literals are not supported");
	case TK_BACKTICK:
		return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
			    "escaped identifiers (`name`) are not supported");
	default:
		return unexpected(ps);
	}
}

static struct cel_node *parse_member(struct parser *ps, bool negative)
{
	struct cel_node *e = parse_primary(ps, negative);

	while (e != NULL) {
		uint32_t pos = tok_pos(ps);

		if (tok(ps) == TK_DOT) {
			struct cel_node *n;

			if (!next(ps))
				return NULL;
			if (tok(ps) == TK_QUESTION)
				return FAIL(ps, DRA_CEL_UNSUPPORTED, pos,
					    "optional field selection (.?) is not supported");
			if (tok(ps) == TK_BACKTICK)
				return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
					    "escaped field names (`name`) are not supported");
			if (tok(ps) != TK_IDENT || tok_is(ps, "in") || tok_is(ps, "true") ||
			    tok_is(ps, "false") || tok_is(ps, "null"))
				return unexpected(ps);
			n = cel_node_new(ps->p, CEL_SELECT, tok_pos(ps));
			n->name = ps->p->text + ps->lx.tok.pos;
			n->name_len = ps->lx.tok.len;
			if (!next(ps))
				return NULL;
			if (tok(ps) == TK_LPAREN) {
				n->op = CEL_CALL;
				e = call_args(ps, n) ? member_call(ps, e, n) : NULL;
			} else {
				n->a = e;
				e = finish(ps, n);
			}
		} else if (tok(ps) == TK_LBRACKET) {
			struct cel_node *index;

			if (!next(ps))
				return NULL;
			if (tok(ps) == TK_QUESTION)
				return FAIL(ps, DRA_CEL_UNSUPPORTED, pos,
					    "optional index ([?]) is not supported");
			index = parse_expr(ps);
			if (index == NULL || !expect(ps, TK_RBRACKET))
				return NULL;
			e = binary(ps, CEL_INDEX, pos, e, index);
		} else if (tok(ps) == TK_LBRACE) {
			return FAIL(ps, DRA_CEL_UNSUPPORTED, pos,
				    "message construction (Name{...}) is not supported");
		} else {
			break;
		}
	}
	return e;
}

/* Prefix operators (! and -), any number of them; a '-' right before a
 * number belongs to the literal, as in CEL's grammar (so that
 * -9223372036854775808 is an int). */
static struct cel_node *parse_unary(struct parser *ps)
{
	bool is_not[CEL_MAX_DEPTH + 1];
	uint32_t pos[CEL_MAX_DEPTH + 1];
	size_t nops = 0;
	bool negative = false;
	struct cel_node *e;

	while (tok(ps) == TK_NOT || tok(ps) == TK_MINUS) {
		if (nops == CEL_MAX_DEPTH)
			return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
				    "expression nests deeper than %d levels", CEL_MAX_DEPTH);
		pos[nops] = tok_pos(ps);
		is_not[nops++] = tok(ps) == TK_NOT;
		if (!next(ps))
			return NULL;
	}
	if (nops > 0 && !is_not[nops - 1] && (tok(ps) == TK_INT || tok(ps) == TK_DOUBLE)) {
		negative = true;
		nops--;
	}
	e = parse_member(ps, negative);
	while (e != NULL && nops-- > 0)
		e = binary(ps, is_not[nops] ? CEL_NOT : CEL_NEG, pos[nops], e, NULL);
	return e;
}

static struct cel_node *parse_multiplication(struct parser *ps)
{
	struct cel_node *e = parse_unary(ps);

	while (e != NULL && (tok(ps) == TK_STAR || tok(ps) == TK_SLASH || tok(ps) == TK_PERCENT)) {
		enum cel_op op = tok(ps) == TK_STAR    ? CEL_MUL
				 : tok(ps) == TK_SLASH ? CEL_DIV
						       : CEL_MOD;
		uint32_t pos = tok_pos(ps);
		struct cel_node *r;

		if (!next(ps) || (r = parse_unary(ps)) == NULL)
			return NULL;
		e = binary(ps, op, pos, e, r);
	}
	return e;
}

static struct cel_node *parse_addition(struct parser *ps)
{
	struct cel_node *e = parse_multiplication(ps);

	while (e != NULL && (tok(ps) == TK_PLUS || tok(ps) == TK_MINUS)) {
		enum cel_op op = tok(ps) == TK_PLUS ? CEL_ADD : CEL_SUB;
		uint32_t pos = tok_pos(ps);
		struct cel_node *r;

		if (!next(ps) || (r = parse_multiplication(ps)) == NULL)
			return NULL;
		e = binary(ps, op, pos, e, r);
	}
	return e;
}

static bool relation_op(const struct parser *ps, enum cel_op *op)
{
	switch (tok(ps)) {
	case TK_EQ: *op = CEL_EQ; return true;
	case TK_NE: *op = CEL_NE; return true;
	case TK_LT: *op = CEL_LT; return true;
	case TK_LE: *op = CEL_LE; return true;
	case TK_GT: *op = CEL_GT; return true;
	case TK_GE: *op = CEL_GE; return true;
	default:
		*op = CEL_IN;
		return tok_is(ps, "in");
	}
}

static struct cel_node *parse_relation(struct parser *ps)
{
	struct cel_node *e = parse_addition(ps);
	enum cel_op op;

	while (e != NULL && relation_op(ps, &op)) {
		uint32_t pos = tok_pos(ps);
		struct cel_node *r;

		if (!next(ps) || (r = parse_addition(ps)) == NULL)
			return NULL;
		e = binary(ps, op, pos, e, r);
	}
	return e;
}

/* A chain of one logical operator: one node over all its operands. */
static struct cel_node *parse_logic(struct parser *ps, enum cel_tok sep, enum cel_op op,
				    struct cel_node *(*operand)(struct parser *))
{
	struct cel_node *e = operand(ps), *n;
	struct node_list terms = { 0 };
	uint32_t pos;

	if (e == NULL || tok(ps) != sep)
		return e;
	pos = tok_pos(ps);
	list_push(&terms, e);
	while (tok(ps) == sep) {
		if (!next(ps) || (e = operand(ps)) == NULL) {
			free(terms.v);
			return NULL;
		}
		list_push(&terms, e);
	}
	n = cel_node_new(ps->p, op, pos);
	list_to_args(ps, &terms, n);
	return finish(ps, n);
}

static struct cel_node *parse_and(struct parser *ps)
{
	return parse_logic(ps, TK_AND, CEL_AND, parse_relation);
}

static struct cel_node *parse_or(struct parser *ps)
{
	return parse_logic(ps, TK_OR, CEL_OR, parse_and);
}

static struct cel_node *parse_expr(struct parser *ps)
{
	struct cel_node *e;

	if (++ps->depth > CEL_MAX_DEPTH)
		return FAIL(ps, DRA_CEL_UNSUPPORTED, tok_pos(ps),
			    "expression nests deeper than %d levels", CEL_MAX_DEPTH);
	e = parse_or(ps);
	if (e != NULL && tok(ps) == TK_QUESTION) {
		struct cel_node *n = cel_node_new(ps->p, CEL_COND, tok_pos(ps));

		n->a = e;
		if (!next(ps) || (n->b = parse_or(ps)) == NULL || !expect(ps, TK_COLON) ||
		    (n->c = parse_expr(ps)) == NULL)
			return NULL;
		e = finish(ps, n);
	}
	ps->depth--;
	return e;
}

enum dra_cel_compiled cel_parse(struct dra_cel_program *p, struct errmsg *msg)
{
	struct parser ps;

	memset(&ps, 0, sizeof ps);
	ps.p = p;
	ps.cs.p = p;
	ps.cs.msg = msg;
	ps.cs.st = DRA_CEL_COMPILED;
	cel_lex_init(&ps.lx, p->text, p->len);
	if (!next(&ps))
		return ps.cs.st;
	p->root = parse_expr(&ps);
	if (p->root != NULL && tok(&ps) != TK_EOF)
		unexpected(&ps);
	return ps.cs.st;
}
