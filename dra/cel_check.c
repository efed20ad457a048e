/* SPDX-License-Identifier: Apache-2.0 */
/* The checker: after parsing, every name is resolved (the variable
 * `device`, the macros' variables to slots, functions by name, receiver
 * and arity), the static types are worked out as far as the device's
 * declaration says, and constant arguments are prepared once: the
 * patterns of matches() and the texts of quantity() and semver().
 *
 * Invalid, as the API server's compiler would say: an undeclared name, a
 * field `device` does not have, a result that can only be a non-bool.
 * Unsupported: a function, overload or namespace the subset does not have
 * (cel-go may know it: ext.Strings, optional types, IP, URL...), and
 * regular expressions POSIX cannot express. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/cel_ast.h"
#include "dra/cel_quantity.h"
#include "dra/cel_regex.h"
#include "dra/cel_semver.h"
#include "dra/cel_value.h"

struct var {
	const char *name;
	size_t len;
	int slot;
};

struct checker {
	struct dra_cel_program *p;
	struct cel_status cs;
	struct var vars[CEL_MAX_DEPTH];
	size_t nvars;
};

static bool name_is(const struct cel_node *n, const char *word)
{
	return n->name_len == strlen(word) && memcmp(n->name, word, n->name_len) == 0;
}

/* A name for messages: identifiers only hold [A-Za-z0-9_]. */
#define NAME(n) (int)((n)->name_len > 60 ? 60 : (n)->name_len), (n)->name

static const char *type_name(enum cel_type t)
{
	static const char *const names[] = {
		[CEL_T_DYN] = "dyn",
		[CEL_T_NULL] = "null_type",
		[CEL_T_BOOL] = "bool",
		[CEL_T_INT] = "int",
		[CEL_T_UINT] = "uint",
		[CEL_T_DOUBLE] = "double",
		[CEL_T_STRING] = "string",
		[CEL_T_LIST] = "list(dyn)",
		[CEL_T_QUANTITY] = "kubernetes.Quantity",
		[CEL_T_SEMVER] = "kubernetes.Semver",
		[CEL_T_DEVICE] = "kubernetes.DRADevice",
		[CEL_T_ATTRS] = "map(string, map(string, any))",
		[CEL_T_ATTR_DOMAIN] = "map(string, any)",
		[CEL_T_CAPS] = "map(string, map(string, kubernetes.Quantity))",
		[CEL_T_CAP_DOMAIN] = "map(string, kubernetes.Quantity)",
	};

	return names[t];
}

/* --- functions --- */

struct fn_def {
	const char *name;
	enum cel_fn fn;
	bool member;
	unsigned min_args, max_args;
	enum cel_type result;
};

static const struct fn_def functions[] = {
	{ "size", CEL_FN_SIZE, false, 1, 1, CEL_T_INT },
	{ "size", CEL_FN_SIZE, true, 0, 0, CEL_T_INT },
	{ "int", CEL_FN_INT, false, 1, 1, CEL_T_INT },
	{ "uint", CEL_FN_UINT, false, 1, 1, CEL_T_UINT },
	{ "double", CEL_FN_DOUBLE, false, 1, 1, CEL_T_DOUBLE },
	{ "string", CEL_FN_STRING, false, 1, 1, CEL_T_STRING },
	{ "dyn", CEL_FN_DYN, false, 1, 1, CEL_T_DYN },
	{ "contains", CEL_FN_CONTAINS, true, 1, 1, CEL_T_BOOL },
	{ "startsWith", CEL_FN_STARTS_WITH, true, 1, 1, CEL_T_BOOL },
	{ "endsWith", CEL_FN_ENDS_WITH, true, 1, 1, CEL_T_BOOL },
	{ "matches", CEL_FN_MATCHES, true, 1, 1, CEL_T_BOOL },
	{ "matches", CEL_FN_MATCHES, false, 2, 2, CEL_T_BOOL },
	{ "lowerAscii", CEL_FN_LOWER_ASCII, true, 0, 0, CEL_T_STRING },
	{ "upperAscii", CEL_FN_UPPER_ASCII, true, 0, 0, CEL_T_STRING },
	{ "quantity", CEL_FN_QUANTITY, false, 1, 1, CEL_T_QUANTITY },
	{ "isQuantity", CEL_FN_IS_QUANTITY, false, 1, 1, CEL_T_BOOL },
	{ "semver", CEL_FN_SEMVER, false, 1, 2, CEL_T_SEMVER },
	{ "isSemver", CEL_FN_IS_SEMVER, false, 1, 2, CEL_T_BOOL },
	{ "compareTo", CEL_FN_COMPARE_TO, true, 1, 1, CEL_T_INT },
	{ "isLessThan", CEL_FN_IS_LESS_THAN, true, 1, 1, CEL_T_BOOL },
	{ "isGreaterThan", CEL_FN_IS_GREATER_THAN, true, 1, 1, CEL_T_BOOL },
	{ "add", CEL_FN_ADD, true, 1, 1, CEL_T_QUANTITY },
	{ "sub", CEL_FN_SUB, true, 1, 1, CEL_T_QUANTITY },
	{ "asInteger", CEL_FN_AS_INTEGER, true, 0, 0, CEL_T_INT },
	{ "isInteger", CEL_FN_IS_INTEGER, true, 0, 0, CEL_T_BOOL },
	{ "asApproximateFloat", CEL_FN_AS_APPROXIMATE_FLOAT, true, 0, 0, CEL_T_DOUBLE },
	{ "sign", CEL_FN_SIGN, true, 0, 0, CEL_T_INT },
	{ "sign", CEL_FN_SIGN, false, 1, 1, CEL_T_INT },
	{ "major", CEL_FN_MAJOR, true, 0, 0, CEL_T_INT },
	{ "minor", CEL_FN_MINOR, true, 0, 0, CEL_T_INT },
	{ "patch", CEL_FN_PATCH, true, 0, 0, CEL_T_INT },
	{ "includes", CEL_FN_INCLUDES, true, 1, 1, CEL_T_BOOL },
};

static const struct fn_def *lookup(const struct cel_node *n, bool member, bool *known_name)
{
	*known_name = false;
	for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
		const struct fn_def *f = &functions[i];

		if (!name_is(n, f->name))
			continue;
		*known_name = true;
		if (f->member == member && n->nargs >= f->min_args && n->nargs <= f->max_args)
			return f;
	}
	return NULL;
}

/* --- constants --- */

static enum dra_cel_compiled prepare_regex(struct checker *ck, struct cel_node *call,
					   const struct cel_node *pattern)
{
	struct cel_regex *re = NULL;
	char why[200];
	enum cel_regex_status st;

	if (pattern->op != CEL_STRING)
		return DRA_CEL_COMPILED;
	st = cel_regex_compile(pattern->lit.v.s.p, pattern->lit.v.s.len, &re, why, sizeof why);
	if (st == CEL_REGEX_UNSUPPORTED)
		return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, pattern->pos,
				"matches(): RE2 feature outside what POSIX can express: %s", why);
	if (st == CEL_REGEX_INVALID)
		return cel_fail(&ck->cs, DRA_CEL_INVALID, pattern->pos,
				"matches(): invalid pattern: %s", why);
	ck->p->regexes = xreallocarray(ck->p->regexes, ck->p->nregexes + 1, sizeof *ck->p->regexes);
	ck->p->regexes[ck->p->nregexes++] = re;
	call->re = re;
	return DRA_CEL_COMPILED;
}

/* quantity("...") and semver("..."[, bool]) of literals, parsed once; a
 * text that does not parse is left to fail at run time, as in cel-go. */
static void prepare_constant(struct checker *ck, struct cel_node *call)
{
	const struct cel_node *text = call->args[0];
	struct cel_val *v;

	if (text->op != CEL_STRING)
		return;
	if (call->fn == CEL_FN_QUANTITY) {
		struct cel_qty q;

		if (cel_qty_parse(text->lit.v.s.p, text->lit.v.s.len, &q) != CEL_QTY_OK)
			return;
		v = arena_alloc(&ck->p->arena, sizeof *v);
		v->kind = CEL_V_QUANTITY;
		v->v.q = q;
		call->constant = v;
	} else if (call->fn == CEL_FN_SEMVER) {
		bool normalize = call->nargs == 2;
		char *scratch = arena_alloc(&ck->p->arena, CEL_SEMVER_SCRATCH(text->lit.v.s.len));
		struct cel_semver *sv = arena_alloc(&ck->p->arena, sizeof *sv);
		const char *why;

		if (normalize && (call->args[1]->op != CEL_BOOL || !call->args[1]->lit.v.b))
			return;
		if (normalize ? !cel_semver_parse_normalized(text->lit.v.s.p, text->lit.v.s.len,
							     scratch, sv, &why)
			      : !cel_semver_parse(text->lit.v.s.p, text->lit.v.s.len, sv, &why))
			return;
		v = arena_alloc(&ck->p->arena, sizeof *v);
		v->kind = CEL_V_SEMVER;
		v->v.sv = sv;
		call->constant = v;
	}
}

/* --- the walk --- */

static enum dra_cel_compiled check(struct checker *ck, struct cel_node *n);

static enum dra_cel_compiled check_ident(struct checker *ck, struct cel_node *n)
{
	static const char *const types[] = {
		"int", "uint", "double", "string", "bool", "bytes", "list", "map", "null_type",
		"type", "dyn",
	};

	for (size_t i = ck->nvars; i-- > 0 && !n->root;) {
		if (ck->vars[i].len == n->name_len &&
		    memcmp(ck->vars[i].name, n->name, n->name_len) == 0) {
			n->slot = ck->vars[i].slot;
			return DRA_CEL_COMPILED;
		}
	}
	if (name_is(n, "device")) {
		n->slot = 0;
		n->type = CEL_T_DEVICE;
		return DRA_CEL_COMPILED;
	}
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (name_is(n, types[i]))
			return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos,
					"type values (%.*s) are not supported", NAME(n));
	return cel_fail(&ck->cs, DRA_CEL_INVALID, n->pos, "undeclared reference to '%.*s'",
			NAME(n));
}

/* The type of a field or entry of a value of type t named by n. */
static enum dra_cel_compiled member_type(struct checker *ck, struct cel_node *n, enum cel_type t)
{
	static const struct {
		const char *name;
		enum cel_type type;
	} fields[] = {
		{ "driver", CEL_T_STRING }, { "attributes", CEL_T_ATTRS },
		{ "capacity", CEL_T_CAPS }, { "allowMultipleAllocations", CEL_T_BOOL },
	};

	switch (t) {
	case CEL_T_DEVICE:
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			if (name_is(n, fields[i].name)) {
				n->type = n->op == CEL_HAS ? CEL_T_BOOL : fields[i].type;
				return DRA_CEL_COMPILED;
			}
		}
		return cel_fail(&ck->cs, DRA_CEL_INVALID, n->pos, "undefined field '%.*s'",
				NAME(n));
	case CEL_T_ATTRS: n->type = CEL_T_ATTR_DOMAIN; break;
	case CEL_T_CAPS: n->type = CEL_T_CAP_DOMAIN; break;
	case CEL_T_CAP_DOMAIN: n->type = CEL_T_QUANTITY; break;
	case CEL_T_DYN:
	case CEL_T_ATTR_DOMAIN:
		break;
	default:
		return cel_fail(&ck->cs, DRA_CEL_INVALID, n->pos,
				"type '%s' does not support field selection", type_name(t));
	}
	if (n->op == CEL_HAS)
		n->type = CEL_T_BOOL;
	return DRA_CEL_COMPILED;
}

static enum dra_cel_compiled check_index(struct checker *ck, struct cel_node *n)
{
	switch (n->a->type) {
	case CEL_T_ATTRS: n->type = CEL_T_ATTR_DOMAIN; break;
	case CEL_T_CAPS: n->type = CEL_T_CAP_DOMAIN; break;
	case CEL_T_CAP_DOMAIN: n->type = CEL_T_QUANTITY; break;
	case CEL_T_DEVICE:
		return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos,
				"indexing device ([...]) is not supported");
	default:
		break;
	}
	return DRA_CEL_COMPILED;
}

static enum dra_cel_compiled check_call(struct checker *ck, struct cel_node *n)
{
	const struct fn_def *f;
	bool known;

	if (n->a != NULL && n->a->op == CEL_IDENT && !n->a->root) {
		/* ns.f(): a namespaced function (strings.quote, optional.of,
		 * math.greatest...) unless ns is a variable. */
		bool var = name_is(n->a, "device");

		for (size_t i = 0; i < ck->nvars && !var; i++)
			var = ck->vars[i].len == n->a->name_len &&
			      memcmp(ck->vars[i].name, n->a->name, n->a->name_len) == 0;
		if (!var)
			return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos,
					"function %.*s.%.*s() is not supported", NAME(n->a),
					NAME(n));
	}
	if (n->a != NULL && check(ck, n->a) != DRA_CEL_COMPILED)
		return ck->cs.st;
	for (size_t i = 0; i < n->nargs; i++)
		if (check(ck, n->args[i]) != DRA_CEL_COMPILED)
			return ck->cs.st;
	f = lookup(n, n->a != NULL, &known);
	if (f == NULL && !known)
		return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos,
				"function %.*s() is not supported", NAME(n));
	if (f == NULL)
		return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos,
				"%.*s() %s with %zu argument%s is not supported", NAME(n),
				n->a ? "as a method" : "as a function", n->nargs,
				n->nargs == 1 ? "" : "s");
	n->fn = f->fn;
	n->type = f->result;
	if (f->fn == CEL_FN_MATCHES)
		return prepare_regex(ck, n, n->args[n->nargs - 1]);
	if (f->fn == CEL_FN_QUANTITY || f->fn == CEL_FN_SEMVER)
		prepare_constant(ck, n);
	return DRA_CEL_COMPILED;
}

/* A macro's body with its variable in scope. */
static enum dra_cel_compiled check_scoped(struct checker *ck, struct cel_node *n,
					  struct cel_node *body)
{
	enum dra_cel_compiled st;

	if (ck->nvars == CEL_MAX_DEPTH)
		return cel_fail(&ck->cs, DRA_CEL_UNSUPPORTED, n->pos, "too many nested variables");
	n->slot = (int)ck->nvars + 1;
	if ((size_t)n->slot + 1 > ck->p->nslots)
		ck->p->nslots = (size_t)n->slot + 1;
	ck->vars[ck->nvars++] = (struct var){ n->name, n->name_len, n->slot };
	st = check(ck, body);
	ck->nvars--;
	return st;
}

static enum cel_type arith_type(const struct cel_node *n)
{
	enum cel_type a = n->a->type, b = n->b->type;

	if (a != b)
		return CEL_T_DYN;
	if (a == CEL_T_INT || a == CEL_T_UINT || a == CEL_T_DOUBLE)
		return a;
	if (n->op == CEL_ADD && (a == CEL_T_STRING || a == CEL_T_LIST))
		return a;
	return CEL_T_DYN;
}

static enum dra_cel_compiled check(struct checker *ck, struct cel_node *n)
{
	static const enum cel_type literal[] = {
		[CEL_NULL] = CEL_T_NULL, [CEL_BOOL] = CEL_T_BOOL, [CEL_INT] = CEL_T_INT,
		[CEL_UINT] = CEL_T_UINT, [CEL_DOUBLE] = CEL_T_DOUBLE, [CEL_STRING] = CEL_T_STRING,
		[CEL_LIST] = CEL_T_LIST,
	};

	switch (n->op) {
	case CEL_IDENT:
		return check_ident(ck, n);
	case CEL_SELECT:
	case CEL_HAS:
		if (check(ck, n->a) != DRA_CEL_COMPILED)
			return ck->cs.st;
		return member_type(ck, n, n->a->type);
	case CEL_CALL:
		return check_call(ck, n);
	case CEL_ALL:
	case CEL_EXISTS:
	case CEL_EXISTS_ONE:
		n->type = CEL_T_BOOL;
		if (check(ck, n->a) != DRA_CEL_COMPILED)
			return ck->cs.st;
		return check_scoped(ck, n, n->b);
	case CEL_BIND:
		if (check(ck, n->a) != DRA_CEL_COMPILED ||
		    check_scoped(ck, n, n->b) != DRA_CEL_COMPILED)
			return ck->cs.st;
		n->type = n->b->type;
		return DRA_CEL_COMPILED;
	default:
		break;
	}
	if ((n->a && check(ck, n->a) != DRA_CEL_COMPILED) ||
	    (n->b && check(ck, n->b) != DRA_CEL_COMPILED) ||
	    (n->c && check(ck, n->c) != DRA_CEL_COMPILED))
		return ck->cs.st;
	for (size_t i = 0; i < n->nargs; i++)
		if (check(ck, n->args[i]) != DRA_CEL_COMPILED)
			return ck->cs.st;
	switch (n->op) {
	case CEL_NULL:
	case CEL_BOOL:
	case CEL_INT:
	case CEL_UINT:
	case CEL_DOUBLE:
	case CEL_STRING:
	case CEL_LIST:
		n->type = literal[n->op];
		break;
	case CEL_INDEX:
		return check_index(ck, n);
	case CEL_NEG:
		n->type = n->a->type == CEL_T_INT || n->a->type == CEL_T_DOUBLE ? n->a->type
										: CEL_T_DYN;
		break;
	case CEL_MUL:
	case CEL_DIV:
	case CEL_MOD:
	case CEL_ADD:
	case CEL_SUB:
		n->type = arith_type(n);
		break;
	case CEL_COND:
		n->type = n->b->type == n->c->type ? n->b->type : CEL_T_DYN;
		break;
	default: /* ! == != < <= > >= in && || */
		n->type = CEL_T_BOOL;
		break;
	}
	return DRA_CEL_COMPILED;
}

enum dra_cel_compiled cel_check(struct dra_cel_program *p, struct errmsg *msg)
{
	struct checker *ck = xcalloc(1, sizeof *ck);
	enum dra_cel_compiled st;

	ck->p = p;
	ck->cs.p = p;
	ck->cs.msg = msg;
	ck->cs.st = DRA_CEL_COMPILED;
	p->nslots = 1;
	st = check(ck, p->root);
	if (st == DRA_CEL_COMPILED && p->root->type != CEL_T_BOOL && p->root->type != CEL_T_DYN)
		st = cel_fail(&ck->cs, DRA_CEL_INVALID, p->root->pos,
			      "must evaluate to bool or the unknown type, not %s",
			      type_name(p->root->type));
	free(ck);
	return st;
}
