/* SPDX-License-Identifier: Apache-2.0 */
/* The evaluator (dra_cel_eval): a walk of the checked tree over one
 * device. Operators follow cel-go: && and || (and the all/exists macros
 * built on them) absorb an error when the other side decides; every other
 * operator and function passes its first erroneous operand on; integer
 * overflow and division by zero are errors; a result that is not a bool is
 * an error. Every node costs a unit of work; past CEL_COST_LIMIT the whole
 * evaluation stops with the scheduler's "actual cost limit exceeded". */
#include "dra/cel.h"

#include <string.h>

#include "base/textbuf.h"
#include "dra/cel_ast.h"
#include "dra/cel_reads.h"
#include "dra/cel_funcs.h"
#include "dra/cel_semver.h"
#include "dra/cel_value.h"

static const char cost_exceeded[] = "operation cancelled: actual cost limit exceeded";

static struct cel_val aborted(void)
{
	struct cel_val v = { .kind = CEL_V_ERROR };

	v.v.s.p = cost_exceeded;
	v.v.s.len = sizeof cost_exceeded - 1;
	return v;
}

static bool is_error(const struct cel_val *v)
{
	return v->kind == CEL_V_ERROR;
}

static struct cel_val eval(struct cel_ctx *c, const struct cel_node *n);

static struct cel_val eval_list(struct cel_ctx *c, const struct cel_node *n)
{
	struct cel_list *l = arena_alloc(&c->arena, sizeof *l);
	struct cel_val *items = n->nargs ? arena_alloc(&c->arena, n->nargs * sizeof *items) : NULL;
	struct cel_val v = { .kind = CEL_V_LIST };

	if (!cel_charge(c, 10 + n->nargs))
		return aborted();
	for (size_t i = 0; i < n->nargs; i++) {
		items[i] = eval(c, n->args[i]);
		if (is_error(&items[i]))
			return items[i];
	}
	l->n = n->nargs;
	l->items = items;
	v.v.list = l;
	return v;
}

static struct cel_val select_field(struct cel_ctx *c, const struct cel_node *n,
				   const struct cel_val *a)
{
	struct cel_val key = cel_string(n->name, n->name_len), out;

	switch (a->kind) {
	case CEL_V_DEVICE:
		if (cel_device_field(c, n->name, n->name_len, &out))
			return out;
		return cel_error_key(c, &key);
	case CEL_V_MAP:
		if (cel_map_find(c, a, &key, &out))
			return out;
		return cel_error_key(c, &key);
	default:
		return cel_error(c, "type '%s' does not support field selection",
				 cel_kind_name(a->kind));
	}
}

static struct cel_val has_field(struct cel_ctx *c, const struct cel_node *n,
				const struct cel_val *a)
{
	struct cel_val key = cel_string(n->name, n->name_len), out;

	switch (a->kind) {
	case CEL_V_DEVICE:
		return cel_bool(cel_device_field(c, n->name, n->name_len, &out));
	case CEL_V_MAP:
		/* The outer maps find every domain: has(device.attributes.x)
		 * is true whatever x is. */
		if (a->v.map.kind == CEL_MAP_ATTRS || a->v.map.kind == CEL_MAP_CAPS)
			return cel_bool(true);
		return cel_bool(cel_map_has(c, a, &key));
	default:
		return cel_error(c, "invalid type for field selection: %s", cel_kind_name(a->kind));
	}
}

static struct cel_val index_value(struct cel_ctx *c, const struct cel_val *a,
				  const struct cel_val *b)
{
	struct cel_val out;
	int64_t i;

	if (a->kind == CEL_V_MAP) {
		if (cel_map_find(c, a, b, &out))
			return out;
		return cel_error_key(c, b);
	}
	if (a->kind != CEL_V_LIST)
		return cel_no_overload(c, "[]", a, b);
	if (b->kind == CEL_V_INT) {
		i = b->v.i;
	} else if (b->kind == CEL_V_UINT && b->v.u <= (uint64_t)INT64_MAX) {
		i = (int64_t)b->v.u;
	} else if (b->kind == CEL_V_DOUBLE && b->v.d > -9223372036854775808.0 &&
		   b->v.d < 9223372036854775808.0 && (double)(int64_t)b->v.d == b->v.d) {
		i = (int64_t)b->v.d;
	} else {
		return cel_error(c, "unsupported index type %s in list", cel_kind_name(b->kind));
	}
	if (i < 0 || (uint64_t)i >= a->v.list->n)
		return cel_error(c, "index '%lld' out of range in list size '%zu'", (long long)i,
				 a->v.list->n);
	return a->v.list->items[i];
}

static struct cel_val int_arith(struct cel_ctx *c, enum cel_op op, int64_t x, int64_t y)
{
	int64_t r = 0;
	bool over = false;

	switch (op) {
	case CEL_ADD: over = __builtin_add_overflow(x, y, &r); break;
	case CEL_SUB: over = __builtin_sub_overflow(x, y, &r); break;
	case CEL_MUL: over = __builtin_mul_overflow(x, y, &r); break;
	case CEL_DIV:
	case CEL_MOD:
		if (y == 0)
			return cel_error(c, op == CEL_DIV ? "division by zero" : "modulus by zero");
		if (x == INT64_MIN && y == -1)
			return cel_error(c, "integer overflow");
		r = op == CEL_DIV ? x / y : x % y;
		break;
	default:
		break;
	}
	if (over)
		return cel_error(c, "integer overflow");
	return cel_int(r);
}

static struct cel_val uint_arith(struct cel_ctx *c, enum cel_op op, uint64_t x, uint64_t y)
{
	struct cel_val v = { .kind = CEL_V_UINT };
	bool over = false;

	switch (op) {
	case CEL_ADD: over = __builtin_add_overflow(x, y, &v.v.u); break;
	case CEL_SUB: over = __builtin_sub_overflow(x, y, &v.v.u); break;
	case CEL_MUL: over = __builtin_mul_overflow(x, y, &v.v.u); break;
	default:
		if (y == 0)
			return cel_error(c, op == CEL_DIV ? "division by zero" : "modulus by zero");
		v.v.u = op == CEL_DIV ? x / y : x % y;
		break;
	}
	if (over)
		return cel_error(c, "unsigned integer overflow");
	return v;
}

static struct cel_val concat(struct cel_ctx *c, const struct cel_val *a, const struct cel_val *b)
{
	if (a->kind == CEL_V_STRING) {
		size_t n = a->v.s.len + b->v.s.len;
		char *out;

		if (!cel_charge(c, cel_string_units(n)))
			return aborted();
		out = cel_text(c, n);
		memcpy(out, a->v.s.p, a->v.s.len);
		memcpy(out + a->v.s.len, b->v.s.p, b->v.s.len);
		return cel_string(out, n);
	} else {
		size_t n = a->v.list->n + b->v.list->n;
		struct cel_list *l = arena_alloc(&c->arena, sizeof *l);
		struct cel_val *items, v = { .kind = CEL_V_LIST };

		if (!cel_charge(c, n))
			return aborted();
		items = n ? arena_alloc(&c->arena, n * sizeof *items) : NULL;
		if (a->v.list->n)
			memcpy(items, a->v.list->items, a->v.list->n * sizeof *items);
		if (b->v.list->n)
			memcpy(items + a->v.list->n, b->v.list->items,
			       b->v.list->n * sizeof *items);
		l->n = n;
		l->items = items;
		v.v.list = l;
		return v;
	}
}

static struct cel_val arith(struct cel_ctx *c, const struct cel_node *n, const struct cel_val *a,
			    const struct cel_val *b)
{
	static const char *const ops[] = {
		[CEL_MUL] = "*", [CEL_DIV] = "/", [CEL_MOD] = "%", [CEL_ADD] = "+", [CEL_SUB] = "-",
	};

	if (a->kind == CEL_V_INT && b->kind == CEL_V_INT)
		return int_arith(c, n->op, a->v.i, b->v.i);
	if (a->kind == CEL_V_UINT && b->kind == CEL_V_UINT)
		return uint_arith(c, n->op, a->v.u, b->v.u);
	if (a->kind == CEL_V_DOUBLE && b->kind == CEL_V_DOUBLE && n->op != CEL_MOD) {
		struct cel_val v = { .kind = CEL_V_DOUBLE };

		v.v.d = n->op == CEL_ADD ? a->v.d + b->v.d
			: n->op == CEL_SUB ? a->v.d - b->v.d
			: n->op == CEL_MUL ? a->v.d * b->v.d
					   : a->v.d / b->v.d;
		return v;
	}
	if (n->op == CEL_ADD && a->kind == b->kind &&
	    (a->kind == CEL_V_STRING || a->kind == CEL_V_LIST))
		return concat(c, a, b);
	return cel_no_overload(c, ops[n->op], a, b);
}

static struct cel_val negate(struct cel_ctx *c, const struct cel_val *a)
{
	struct cel_val v = *a;

	if (a->kind == CEL_V_INT) {
		if (a->v.i == INT64_MIN)
			return cel_error(c, "integer overflow");
		v.v.i = -a->v.i;
		return v;
	}
	if (a->kind == CEL_V_DOUBLE) {
		v.v.d = -a->v.d;
		return v;
	}
	return cel_no_overload(c, "-", a, NULL);
}

static struct cel_val relation(struct cel_ctx *c, const struct cel_node *n,
			       const struct cel_val *a, const struct cel_val *b)
{
	struct cel_val err, eq;
	int cmp;

	switch (n->op) {
	case CEL_EQ:
	case CEL_NE:
		eq = cel_equal(c, a, b);
		if (eq.kind == CEL_V_BOOL && n->op == CEL_NE)
			eq.v.b = !eq.v.b;
		return eq;
	case CEL_IN:
		if (b->kind == CEL_V_MAP)
			return cel_bool(cel_map_has(c, b, a));
		if (b->kind != CEL_V_LIST)
			return cel_no_overload(c, "in", a, b);
		/* List.Contains: true at the first element equal to a; an
		 * element comparison that errs is passed over. */
		for (size_t i = 0; i < b->v.list->n; i++) {
			eq = cel_equal(c, a, &b->v.list->items[i]);
			if (c->aborted)
				return aborted();
			if (eq.kind == CEL_V_BOOL && eq.v.b)
				return eq;
		}
		return cel_bool(false);
	default:
		if (!cel_compare(c, a, b, &cmp, &err))
			return c->aborted ? aborted() : err;
		switch (n->op) {
		case CEL_LT: return cel_bool(cmp < 0);
		case CEL_LE: return cel_bool(cmp <= 0);
		case CEL_GT: return cel_bool(cmp > 0);
		default: return cel_bool(cmp >= 0);
		}
	}
}

/* One more operand of && (decisive false) or || (decisive true): *acc
 * keeps the result so far, *err the first error to report if nothing
 * decides. */
static bool logic_step(struct cel_ctx *c, bool decisive, const struct cel_val *v,
		       struct cel_val *err, bool *have_err)
{
	if (v->kind == CEL_V_BOOL)
		return v->v.b == decisive;
	if (!*have_err) {
		*err = is_error(v) ? *v : cel_no_overload(c, decisive ? "||" : "&&", v, NULL);
		*have_err = true;
	}
	return false;
}

static struct cel_val eval_logic(struct cel_ctx *c, const struct cel_node *n)
{
	bool decisive = n->op == CEL_OR, have_err = false;
	struct cel_val err = { .kind = CEL_V_ERROR };

	for (size_t i = 0; i < n->nargs; i++) {
		struct cel_val v = eval(c, n->args[i]);

		if (c->aborted)
			return aborted();
		if (logic_step(c, decisive, &v, &err, &have_err))
			return cel_bool(decisive);
	}
	return have_err ? err : cel_bool(!decisive);
}

/* all, exists, exists_one over a list's elements or a map's keys, as
 * cel-go expands them: all folds with &&, stopping at false; exists with
 * ||, stopping at true; exists_one counts trues and errs with any error. */
static struct cel_val eval_comprehension(struct cel_ctx *c, const struct cel_node *n)
{
	struct cel_val range = eval(c, n->a), accu, err = { .kind = CEL_V_ERROR };
	bool decisive = n->op == CEL_EXISTS, have_err = false;
	int64_t count = 0;
	size_t size;

	if (is_error(&range))
		return range;
	if (range.kind == CEL_V_LIST)
		size = range.v.list->n;
	else if (range.kind == CEL_V_MAP)
		size = cel_map_size(c, &range);
	else
		return cel_error(c, "got '%s', expected iterable type", cel_kind_name(range.kind));
	for (size_t i = 0; i < size; i++) {
		struct cel_val p;

		if (!cel_charge(c, 1))
			return aborted();
		c->slots[n->slot] = range.kind == CEL_V_LIST ? range.v.list->items[i]
							     : cel_map_key(c, &range, i);
		p = eval(c, n->b);
		if (c->aborted)
			return aborted();
		if (n->op != CEL_EXISTS_ONE) {
			if (logic_step(c, decisive, &p, &err, &have_err))
				return cel_bool(decisive);
		} else if (!have_err) {
			if (p.kind == CEL_V_BOOL)
				count += p.v.b;
			else
				logic_step(c, false, &p, &err, &have_err);
		}
	}
	if (have_err)
		return err;
	if (n->op == CEL_EXISTS_ONE)
		return cel_bool(count == 1);
	accu = cel_bool(!decisive);
	return accu;
}

static struct cel_val eval_call(struct cel_ctx *c, const struct cel_node *n)
{
	struct cel_val target = { .kind = CEL_V_NULL }, args[2];

	memset(args, 0, sizeof args);
	if (n->a != NULL) {
		target = eval(c, n->a);
		if (is_error(&target))
			return target;
	}
	for (size_t i = 0; i < n->nargs && i < 2; i++) {
		args[i] = eval(c, n->args[i]);
		if (is_error(&args[i]))
			return args[i];
	}
	return cel_call(c, n, n->a ? &target : NULL, args);
}

static struct cel_val eval(struct cel_ctx *c, const struct cel_node *n)
{
	struct cel_val a, b;

	if (n->op <= CEL_STRING)
		return n->lit;
	if (!cel_charge(c, 1))
		return aborted();
	switch (n->op) {
	case CEL_LIST:
		return eval_list(c, n);
	case CEL_IDENT:
		return c->slots[n->slot];
	case CEL_AND:
	case CEL_OR:
		return eval_logic(c, n);
	case CEL_ALL:
	case CEL_EXISTS:
	case CEL_EXISTS_ONE:
		return eval_comprehension(c, n);
	case CEL_CALL:
		return eval_call(c, n);
	case CEL_BIND:
		a = eval(c, n->a);
		if (c->aborted)
			return aborted();
		c->slots[n->slot] = a;
		return eval(c, n->b);
	case CEL_COND:
		a = eval(c, n->a);
		if (is_error(&a))
			return a;
		if (a.kind != CEL_V_BOOL)
			return cel_no_overload(c, "?:", &a, NULL);
		return eval(c, a.v.b ? n->b : n->c);
	default:
		break;
	}
	a = eval(c, n->a);
	if (is_error(&a))
		return a;
	switch (n->op) {
	case CEL_SELECT:
		return select_field(c, n, &a);
	case CEL_HAS:
		return has_field(c, n, &a);
	case CEL_NOT:
		if (a.kind != CEL_V_BOOL)
			return cel_no_overload(c, "!", &a, NULL);
		return cel_bool(!a.v.b);
	case CEL_NEG:
		return negate(c, &a);
	default:
		break;
	}
	b = eval(c, n->b);
	if (is_error(&b))
		return b;
	switch (n->op) {
	case CEL_INDEX:
		return index_value(c, &a, &b);
	case CEL_MUL:
	case CEL_DIV:
	case CEL_MOD:
	case CEL_ADD:
	case CEL_SUB:
		return arith(c, n, &a, &b);
	default:
		return relation(c, n, &a, &b);
	}
}

/* compile.go turns every attribute into a CEL value before evaluating:
 * a version that is not semver fails the device whatever the expression
 * looks at. */
static bool versions_parse(const struct dra_device *d, struct textbuf *msg)
{
	for (size_t i = 0; i < d->nattributes; i++) {
		const struct dra_attribute *a = &d->attributes[i];
		struct cel_semver sv;
		const char *why = "";

		if (a->type != DRA_ATTR_VERSION && a->type != DRA_ATTR_VERSIONS)
			continue;
		for (size_t k = 0; k < a->n && a->strings; k++) {
			const char *s = a->strings[k] ? a->strings[k] : "";

			if (!cel_semver_parse(s, strlen(s), &sv, &why)) {
				textbuf_printf(msg, "attribute %s/%s: parse semantic version: %s",
					       a->domain ? a->domain : "", a->name ? a->name : "",
					       why);
				return false;
			}
		}
	}
	return true;
}

bool cel_device_versions_parse(const struct dra_device *d)
{
	char scratch[1];
	struct textbuf msg;

	textbuf_init_fixed(&msg, scratch, sizeof scratch);
	return versions_parse(d, &msg);
}

enum dra_cel_value dra_cel_eval(const struct dra_cel_program *p, const struct dra_device *d,
				const char *driver, char *err, size_t err_size)
{
	char scratch[1];
	struct textbuf msg;
	struct cel_ctx c;
	struct cel_val v;
	enum dra_cel_value result = DRA_CEL_ERROR;

	if (err != NULL && err_size > 0)
		textbuf_init_fixed(&msg, err, err_size);
	else
		textbuf_init_fixed(&msg, scratch, sizeof scratch);
	if (p == NULL || d == NULL) {
		textbuf_adds(&msg, "no program or no device");
		return DRA_CEL_ERROR;
	}
	if (d->nattributes > CEL_MAX_DEVICE_ENTRIES || d->ncapacity > CEL_MAX_DEVICE_ENTRIES) {
		textbuf_printf(&msg, DRA_CEL_UNKNOWN_PREFIX ": a device with more than %d "
				     "attributes or capacities",
			       CEL_MAX_DEVICE_ENTRIES);
		return DRA_CEL_UNKNOWN;
	}
	if (!versions_parse(d, &msg))
		return DRA_CEL_ERROR;
	/* Not memset: the arena's inline block is 8 KiB and needs no zeros. */
	c.dev = d;
	c.driver = driver ? driver : "";
	c.cost = 0;
	c.aborted = false;
	c.firsts_ready[0] = c.firsts_ready[1] = false;
	arena_init(&c.arena);
	c.slots = arena_alloc(&c.arena, p->nslots * sizeof *c.slots);
	c.slots[0].kind = CEL_V_DEVICE;
	v = eval(&c, p->root);
	if (c.aborted)
		textbuf_adds(&msg, cost_exceeded);
	else if (v.kind == CEL_V_BOOL)
		result = v.v.b ? DRA_CEL_TRUE : DRA_CEL_FALSE;
	else if (is_error(&v)) {
		textbuf_add(&msg, v.v.s.p, v.v.s.len);
		if (v.v.s.len >= sizeof DRA_CEL_UNKNOWN_PREFIX - 1 &&
		    memcmp(v.v.s.p, DRA_CEL_UNKNOWN_PREFIX, sizeof DRA_CEL_UNKNOWN_PREFIX - 1) == 0)
			result = DRA_CEL_UNKNOWN;
	}
	else
		textbuf_printf(&msg, "CEL result of type %s could not be converted to bool",
			       cel_kind_name(v.kind));
	arena_cleanup(&c.arena);
	return result;
}
