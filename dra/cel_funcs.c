/* SPDX-License-Identifier: Apache-2.0 */
/* The functions of the subset (cel_funcs.h): CEL's string functions and
 * size(), ext.Strings' lowerAscii and upperAscii, Kubernetes' Quantity and
 * Semver libraries and DRA's includes. Each charges its work to the cost
 * counter before doing it. */
#include "dra/cel_funcs.h"

#include <string.h>

#include "base/utf8.h"
#include "dra/cel_regex.h"

/* includes() looks at this many list elements at most (compile.go). */
#define INCLUDES_MAX 48

static struct cel_val aborted(struct cel_ctx *c)
{
	return cel_error(c, "operation cancelled: actual cost limit exceeded");
}

/* Characters, as Go's utf8.RuneCountInString: an invalid byte is one. */
static int64_t rune_count(const char *s, size_t n)
{
	int64_t count = 0;

	for (size_t i = 0; i < n; count++) {
		size_t k = (unsigned char)s[i] < 0x80
				   ? 1
				   : utf8_seq_len((const unsigned char *)s + i, n - i);

		i += k ? k : 1;
	}
	return count;
}

static struct cel_val size_of(struct cel_ctx *c, const struct cel_val *v)
{
	switch (v->kind) {
	case CEL_V_STRING:
		if (!cel_charge(c, cel_string_units(v->v.s.len)))
			return aborted(c);
		return cel_int(rune_count(v->v.s.p, v->v.s.len));
	case CEL_V_LIST:
		return cel_int((int64_t)v->v.list->n);
	case CEL_V_MAP:
		return cel_int((int64_t)cel_map_size(c, v));
	default:
		return cel_no_overload(c, "size", v, NULL);
	}
}

static bool has_substring(const char *s, size_t n, const char *sub, size_t m)
{
	if (m == 0)
		return true;
	for (size_t i = 0; i + m <= n; i++)
		if (s[i] == sub[0] && memcmp(s + i, sub, m) == 0)
			return true;
	return false;
}

static struct cel_val string_test(struct cel_ctx *c, const struct cel_node *n,
				  const struct cel_val *s, const struct cel_val *arg)
{
	const char *p;
	size_t len, m;

	if (s->kind != CEL_V_STRING || arg->kind != CEL_V_STRING)
		return cel_no_overload(c, n->fn == CEL_FN_CONTAINS	    ? "contains"
					  : n->fn == CEL_FN_STARTS_WITH ? "startsWith"
									: "endsWith",
				       s, arg);
	p = s->v.s.p;
	len = s->v.s.len;
	m = arg->v.s.len;
	/* contains() compares at every position: the product of the lengths. */
	if (!cel_charge(c, n->fn == CEL_FN_CONTAINS ? cel_string_units(len) * (1 + m / 10)
						    : cel_string_units(m)))
		return aborted(c);
	if (n->fn == CEL_FN_CONTAINS)
		return cel_bool(has_substring(p, len, arg->v.s.p, m));
	if (m > len)
		return cel_bool(false);
	if (n->fn == CEL_FN_STARTS_WITH)
		return cel_bool(memcmp(p, arg->v.s.p, m) == 0);
	return cel_bool(memcmp(p + len - m, arg->v.s.p, m) == 0);
}

static struct cel_val matches(struct cel_ctx *c, const struct cel_node *n,
			      const struct cel_val *s, const struct cel_val *pattern)
{
	struct cel_regex *own = NULL;
	const struct cel_regex *re = n->re;
	char why[160];
	int r;

	if (s->kind != CEL_V_STRING || pattern->kind != CEL_V_STRING)
		return cel_no_overload(c, "matches", s, pattern);
	if (re == NULL) {
		if (!cel_charge(c, cel_string_units(pattern->v.s.len)))
			return aborted(c);
		switch (cel_regex_compile(pattern->v.s.p, pattern->v.s.len, &own, why,
					  sizeof why)) {
		case CEL_REGEX_OK:
			re = own;
			break;
		case CEL_REGEX_UNSUPPORTED:
			return cel_unknown(c, "matches() with a pattern POSIX cannot express");
		default:
			return cel_error(c, "invalid regular expression: %s", why);
		}
	}
	/* The C library's matcher walks the text once per state of the
	 * expanded pattern, at worst. */
	if (!cel_charge(c, cel_string_units(s->v.s.len) * (1 + cel_regex_size(re) / 4))) {
		cel_regex_free(own);
		return aborted(c);
	}
	r = cel_regex_match(re, s->v.s.p, s->v.s.len);
	cel_regex_free(own);
	if (r < 0)
		return cel_unknown(c, "matches() of non-ASCII text with a pattern that could "
				      "match a non-ASCII character");
	return cel_bool(r == 1);
}

static struct cel_val change_case(struct cel_ctx *c, const struct cel_val *s, bool upper)
{
	char *out;

	if (s->kind != CEL_V_STRING)
		return cel_no_overload(c, upper ? "upperAscii" : "lowerAscii", s, NULL);
	if (!cel_charge(c, cel_string_units(s->v.s.len)))
		return aborted(c);
	out = cel_text(c, s->v.s.len);
	for (size_t i = 0; i < s->v.s.len; i++) {
		char ch = s->v.s.p[i];

		if (upper && ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		else if (!upper && ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		out[i] = ch;
	}
	return cel_string(out, s->v.s.len);
}

static struct cel_val quantity_of(struct cel_ctx *c, const struct cel_node *n,
				  const struct cel_val *text, bool test)
{
	struct cel_val v = { .kind = CEL_V_QUANTITY };

	if (n->constant != NULL)
		return *(const struct cel_val *)n->constant;
	if (text->kind != CEL_V_STRING)
		return cel_no_overload(c, test ? "isQuantity" : "quantity", text, NULL);
	if (!cel_charge(c, cel_string_units(text->v.s.len)))
		return aborted(c);
	switch (cel_qty_parse(text->v.s.p, text->v.s.len, &v.v.q)) {
	case CEL_QTY_OK:
		return test ? cel_bool(true) : v;
	case CEL_QTY_BAD:
		return test ? cel_bool(false)
			    : cel_error(c, "quantities must match the regular expression "
					   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
	default:
		return test ? cel_bool(true) : cel_unknown(c, "a quantity beyond 19 digits");
	}
}

static struct cel_val semver_of(struct cel_ctx *c, const struct cel_node *n,
				const struct cel_val *args, bool test)
{
	struct cel_semver *sv;
	struct cel_val v = { .kind = CEL_V_SEMVER };
	const char *why = "";
	bool normalize = false, ok;

	if (n->constant != NULL)
		return *(const struct cel_val *)n->constant;
	if (args[0].kind != CEL_V_STRING || (n->nargs == 2 && args[1].kind != CEL_V_BOOL))
		return cel_no_overload(c, test ? "isSemver" : "semver", &args[0],
				       n->nargs == 2 ? &args[1] : NULL);
	if (!cel_charge(c, cel_string_units(args[0].v.s.len)))
		return aborted(c);
	normalize = n->nargs == 2 && args[1].v.b;
	sv = arena_alloc(&c->arena, sizeof *sv);
	if (normalize)
		ok = cel_semver_parse_normalized(
			args[0].v.s.p, args[0].v.s.len,
			arena_alloc_raw(&c->arena, CEL_SEMVER_SCRATCH(args[0].v.s.len)), sv, &why);
	else
		ok = cel_semver_parse(args[0].v.s.p, args[0].v.s.len, sv, &why);
	if (test)
		return cel_bool(ok);
	if (!ok)
		return cel_error(c, "semver: %s", why);
	v.v.sv = sv;
	return v;
}

/* compareTo, isLessThan, isGreaterThan: Quantity with Quantity, Semver
 * with Semver. */
static struct cel_val ordering(struct cel_ctx *c, const struct cel_node *n,
			       const struct cel_val *a, const struct cel_val *b)
{
	int cmp;

	if (a->kind == CEL_V_QUANTITY && b->kind == CEL_V_QUANTITY)
		cmp = cel_qty_cmp(&a->v.q, &b->v.q);
	else if (a->kind == CEL_V_SEMVER && b->kind == CEL_V_SEMVER)
		cmp = cel_semver_cmp(a->v.sv, b->v.sv);
	else
		return cel_no_overload(c, n->fn == CEL_FN_COMPARE_TO   ? "compareTo"
					  : n->fn == CEL_FN_IS_LESS_THAN ? "isLessThan"
									 : "isGreaterThan",
				       a, b);
	if (n->fn == CEL_FN_COMPARE_TO)
		return cel_int(cmp);
	return cel_bool(cmp == (n->fn == CEL_FN_IS_LESS_THAN ? -1 : 1));
}

static struct cel_val arithmetic(struct cel_ctx *c, const struct cel_node *n,
				 const struct cel_val *a, const struct cel_val *b)
{
	struct cel_val r = { .kind = CEL_V_QUANTITY };
	struct cel_qty other;

	if (a->kind != CEL_V_QUANTITY || (b->kind != CEL_V_QUANTITY && b->kind != CEL_V_INT))
		return cel_no_overload(c, n->fn == CEL_FN_ADD ? "add" : "sub", a, b);
	if (b->kind == CEL_V_INT)
		cel_qty_from_int(b->v.i, &other);
	else
		other = b->v.q;
	if (!cel_qty_add(&a->v.q, &other, n->fn == CEL_FN_SUB, &r.v.q))
		return cel_unknown(c, "a quantity sum beyond 19 digits");
	return r;
}

static struct cel_val quantity_method(struct cel_ctx *c, const struct cel_node *n,
				      const struct cel_val *q)
{
	struct cel_val r;
	int64_t v;

	if (q->kind != CEL_V_QUANTITY)
		return cel_no_overload(c, n->fn == CEL_FN_SIGN ? "sign" : "asInteger", q, NULL);
	switch (n->fn) {
	case CEL_FN_AS_INTEGER:
		if (!cel_qty_as_int64(&q->v.q, &v))
			return cel_error(c, "cannot convert value to integer");
		return cel_int(v);
	case CEL_FN_IS_INTEGER:
		return cel_bool(cel_qty_as_int64(&q->v.q, &v));
	case CEL_FN_AS_APPROXIMATE_FLOAT:
		r.kind = CEL_V_DOUBLE;
		r.v.d = cel_qty_approx(&q->v.q);
		return r;
	default:
		return cel_int(quantity_sign(&q->v.q.q));
	}
}

static struct cel_val version_part(struct cel_ctx *c, const struct cel_node *n,
				   const struct cel_val *v)
{
	uint64_t part;

	if (v->kind != CEL_V_SEMVER)
		return cel_no_overload(c, "major", v, NULL);
	part = n->fn == CEL_FN_MAJOR ? v->v.sv->major
	       : n->fn == CEL_FN_MINOR ? v->v.sv->minor
				       : v->v.sv->patch;
	/* Go's types.Int(v.Major): a uint64 above 2^63 wraps. */
	return cel_int((int64_t)part);
}

/* x.includes(v): a list includes its (first 48) elements, a scalar itself. */
static struct cel_val includes(struct cel_ctx *c, const struct cel_val *x, const struct cel_val *v)
{
	if (x->kind == CEL_V_LIST) {
		for (size_t i = 0; i < x->v.list->n && i < INCLUDES_MAX; i++) {
			struct cel_val e = cel_equal(c, &x->v.list->items[i], v);

			if (c->aborted)
				return aborted(c);
			if (e.kind == CEL_V_BOOL && e.v.b)
				return e;
		}
		return cel_bool(false);
	}
	{
		struct cel_val e = cel_equal(c, x, v);

		return cel_bool(e.kind == CEL_V_BOOL && e.v.b);
	}
}

struct cel_val cel_call(struct cel_ctx *c, const struct cel_node *n, const struct cel_val *target,
			const struct cel_val *args)
{
	/* The subject: the receiver of a method, or the first argument. */
	const struct cel_val *x = target ? target : &args[0];
	const struct cel_val *arg = target ? &args[0] : &args[1];

	switch (n->fn) {
	case CEL_FN_SIZE:
		return size_of(c, x);
	case CEL_FN_INT:
		return cel_to_int(c, x);
	case CEL_FN_UINT:
		return cel_to_uint(c, x);
	case CEL_FN_DOUBLE:
		return cel_to_double(c, x);
	case CEL_FN_STRING:
		return cel_to_string(c, x);
	case CEL_FN_DYN:
		return *x;
	case CEL_FN_CONTAINS:
	case CEL_FN_STARTS_WITH:
	case CEL_FN_ENDS_WITH:
		return string_test(c, n, x, arg);
	case CEL_FN_MATCHES:
		return matches(c, n, x, arg);
	case CEL_FN_LOWER_ASCII:
	case CEL_FN_UPPER_ASCII:
		return change_case(c, x, n->fn == CEL_FN_UPPER_ASCII);
	case CEL_FN_QUANTITY:
	case CEL_FN_IS_QUANTITY:
		return quantity_of(c, n, x, n->fn == CEL_FN_IS_QUANTITY);
	case CEL_FN_SEMVER:
	case CEL_FN_IS_SEMVER:
		return semver_of(c, n, args, n->fn == CEL_FN_IS_SEMVER);
	case CEL_FN_COMPARE_TO:
	case CEL_FN_IS_LESS_THAN:
	case CEL_FN_IS_GREATER_THAN:
		return ordering(c, n, x, arg);
	case CEL_FN_ADD:
	case CEL_FN_SUB:
		return arithmetic(c, n, x, arg);
	case CEL_FN_AS_INTEGER:
	case CEL_FN_IS_INTEGER:
	case CEL_FN_AS_APPROXIMATE_FLOAT:
	case CEL_FN_SIGN:
		return quantity_method(c, n, x);
	case CEL_FN_MAJOR:
	case CEL_FN_MINOR:
	case CEL_FN_PATCH:
		return version_part(c, n, x);
	case CEL_FN_INCLUDES:
		return includes(c, x, arg);
	default:
		return cel_error(c, "unknown function");
	}
}
