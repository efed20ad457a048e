/* SPDX-License-Identifier: Apache-2.0 */
/* Values, equality, order and the device's maps (cel_value.h). Where cel-go
 * has a quirk the scheduler lives with, it is kept and said so. */
#include "dra/cel_value.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "base/textbuf.h"

#define ERROR_TEXT 256

struct cel_val cel_bool(bool b)
{
	struct cel_val v = { .kind = CEL_V_BOOL };

	v.v.b = b;
	return v;
}

struct cel_val cel_int(int64_t i)
{
	struct cel_val v = { .kind = CEL_V_INT };

	v.v.i = i;
	return v;
}

struct cel_val cel_string(const char *p, size_t len)
{
	struct cel_val v = { .kind = CEL_V_STRING };

	v.v.s.p = p;
	v.v.s.len = len;
	return v;
}

char *cel_text(struct cel_ctx *c, size_t len)
{
	char *p = arena_alloc_raw(&c->arena, len + 1);

	p[len] = '\0';
	return p;
}

static struct cel_val error_from(struct cel_ctx *c, struct textbuf *tb)
{
	struct cel_val v = { .kind = CEL_V_ERROR };

	v.v.s.p = textbuf_str(tb);
	v.v.s.len = textbuf_len(tb);
	(void)c;
	return v;
}

struct cel_val cel_error(struct cel_ctx *c, const char *fmt, ...)
{
	struct textbuf tb;
	va_list ap;

	textbuf_init_fixed(&tb, arena_alloc_raw(&c->arena, ERROR_TEXT), ERROR_TEXT);
	va_start(ap, fmt);
	textbuf_vprintf(&tb, fmt, ap);
	va_end(ap);
	return error_from(c, &tb);
}

struct cel_val cel_error_key(struct cel_ctx *c, const struct cel_val *key)
{
	struct textbuf tb;
	bool plain = key->kind == CEL_V_STRING && key->v.s.len <= 100;

	textbuf_init_fixed(&tb, arena_alloc_raw(&c->arena, ERROR_TEXT), ERROR_TEXT);
	textbuf_adds(&tb, "no such key: ");
	for (size_t i = 0; plain && i < key->v.s.len; i++)
		plain = key->v.s.p[i] > ' ' && key->v.s.p[i] < 0x7f;
	if (plain)
		textbuf_add(&tb, key->v.s.p, key->v.s.len);
	else if (key->kind == CEL_V_STRING)
		textbuf_quote(&tb, key->v.s.p, key->v.s.len, 100, 0);
	else if (key->kind == CEL_V_INT)
		textbuf_int(&tb, key->v.i);
	else
		textbuf_printf(&tb, "(a %s)", cel_kind_name(key->kind));
	return error_from(c, &tb);
}

struct cel_val cel_unknown(struct cel_ctx *c, const char *what)
{
	return cel_error(c, DRA_CEL_UNKNOWN_PREFIX ": %s", what);
}

const char *cel_kind_name(enum cel_kind k)
{
	static const char *const names[] = {
		[CEL_V_ERROR] = "error", [CEL_V_NULL] = "null_type", [CEL_V_BOOL] = "bool",
		[CEL_V_INT] = "int", [CEL_V_UINT] = "uint", [CEL_V_DOUBLE] = "double",
		[CEL_V_STRING] = "string", [CEL_V_LIST] = "list", [CEL_V_MAP] = "map",
		[CEL_V_QUANTITY] = "kubernetes.Quantity", [CEL_V_SEMVER] = "kubernetes.Semver",
		[CEL_V_DEVICE] = "kubernetes.DRADevice",
	};

	return names[k];
}

struct cel_val cel_no_overload(struct cel_ctx *c, const char *op, const struct cel_val *a,
			       const struct cel_val *b)
{
	bool fn = (op[0] >= 'a' && op[0] <= 'z') || (op[0] >= 'A' && op[0] <= 'Z');

	if (fn)
		return cel_error(c, "no such overload: %s(%s%s%s)", op, cel_kind_name(a->kind),
				 b ? ", " : "", b ? cel_kind_name(b->kind) : "");
	if (b == NULL)
		return cel_error(c, "no such overload: %s%s", op, cel_kind_name(a->kind));
	return cel_error(c, "no such overload: %s %s %s", cel_kind_name(a->kind), op,
			 cel_kind_name(b->kind));
}

bool cel_charge(struct cel_ctx *c, uint64_t units)
{
	c->cost += units;
	if (c->cost > CEL_COST_LIMIT)
		c->aborted = true;
	return !c->aborted;
}

uint64_t cel_string_units(size_t n)
{
	return ((uint64_t)n + 9) / 10;
}

/* --- equality and order --- */

static int cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

/* cel-go's compareIntDouble and compareUintDouble: the integer is
 * converted to double unless the double is outside the integer's range. */
static int cmp_int_double(int64_t i, double d)
{
	if (d < -9223372036854775808.0)
		return 1;
	if (d > 9223372036854775808.0)
		return -1;
	return cmp_double((double)i, d);
}

static int cmp_uint_double(uint64_t u, double d)
{
	if (d < 0)
		return 1;
	if (d > 18446744073709551616.0)
		return -1;
	return cmp_double((double)u, d);
}

static int cmp_int_uint(int64_t i, uint64_t u)
{
	if (i < 0)
		return -1;
	return ((uint64_t)i > u) - ((uint64_t)i < u);
}

static bool is_number(const struct cel_val *v)
{
	return v->kind == CEL_V_INT || v->kind == CEL_V_UINT || v->kind == CEL_V_DOUBLE;
}

/* Numbers of any of the three types, NaN excluded. */
static int cmp_numbers(const struct cel_val *a, const struct cel_val *b)
{
	switch (a->kind) {
	case CEL_V_INT:
		if (b->kind == CEL_V_INT)
			return (a->v.i > b->v.i) - (a->v.i < b->v.i);
		if (b->kind == CEL_V_UINT)
			return cmp_int_uint(a->v.i, b->v.u);
		return cmp_int_double(a->v.i, b->v.d);
	case CEL_V_UINT:
		if (b->kind == CEL_V_UINT)
			return (a->v.u > b->v.u) - (a->v.u < b->v.u);
		if (b->kind == CEL_V_INT)
			return -cmp_int_uint(b->v.i, a->v.u);
		return cmp_uint_double(a->v.u, b->v.d);
	default:
		if (b->kind == CEL_V_DOUBLE)
			return cmp_double(a->v.d, b->v.d);
		if (b->kind == CEL_V_INT)
			return -cmp_int_double(b->v.i, a->v.d);
		return -cmp_uint_double(b->v.u, a->v.d);
	}
}

static bool is_nan(const struct cel_val *v)
{
	return v->kind == CEL_V_DOUBLE && isnan(v->v.d);
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return (c > 0) - (c < 0);
	return (an > bn) - (an < bn);
}

bool cel_compare(struct cel_ctx *c, const struct cel_val *a, const struct cel_val *b, int *cmp,
		 struct cel_val *err)
{
	if (is_number(a) && is_number(b)) {
		if (is_nan(a) || is_nan(b)) {
			*err = cel_unknown(c, "an ordering with NaN");
			return false;
		}
		*cmp = cmp_numbers(a, b);
		return true;
	}
	if (a->kind == CEL_V_STRING && b->kind == CEL_V_STRING) {
		if (!cel_charge(
			    c, cel_string_units(a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len)))
			return *err = cel_error(c, "actual cost limit exceeded"), false;
		*cmp = cmp_bytes(a->v.s.p, a->v.s.len, b->v.s.p, b->v.s.len);
		return true;
	}
	if (a->kind == CEL_V_BOOL && b->kind == CEL_V_BOOL) {
		*cmp = (a->v.b > b->v.b) - (a->v.b < b->v.b);
		return true;
	}
	*err = cel_no_overload(c, "<", a, b);
	return false;
}

static struct cel_val equal_lists(struct cel_ctx *c, const struct cel_list *a,
				  const struct cel_list *b)
{
	if (a->n != b->n)
		return cel_bool(false);
	/* cel-go only stops at an element that is unequal: an element
	 * comparison that errs counts as equal. */
	for (size_t i = 0; i < a->n; i++) {
		struct cel_val e = cel_equal(c, &a->items[i], &b->items[i]);

		if (e.kind == CEL_V_BOOL && !e.v.b)
			return e;
	}
	return cel_bool(true);
}

static struct cel_val equal_maps(struct cel_ctx *c, const struct cel_val *a,
				 const struct cel_val *b)
{
	size_t n = cel_map_size(c, a);

	if (n != cel_map_size(c, b))
		return cel_bool(false);
	if (!cel_charge(c, n * n))
		return cel_error(c, "actual cost limit exceeded");
	for (size_t i = 0; i < n; i++) {
		struct cel_val key = cel_map_key(c, a, i), av, bv, e;

		if (!cel_map_find(c, a, &key, &av) || !cel_map_find(c, b, &key, &bv))
			return cel_bool(false);
		e = cel_equal(c, &av, &bv);
		if (e.kind == CEL_V_BOOL && !e.v.b)
			return e;
	}
	return cel_bool(true);
}

struct cel_val cel_equal(struct cel_ctx *c, const struct cel_val *a, const struct cel_val *b)
{
	if (!cel_charge(c, 1))
		return cel_error(c, "actual cost limit exceeded");
	if (a->kind == CEL_V_NULL || b->kind == CEL_V_NULL)
		return cel_bool(a->kind == b->kind);
	switch (a->kind) {
	case CEL_V_BOOL:
		return cel_bool(b->kind == CEL_V_BOOL && a->v.b == b->v.b);
	case CEL_V_INT:
	case CEL_V_UINT:
	case CEL_V_DOUBLE:
		return cel_bool(is_number(b) && !is_nan(a) && !is_nan(b) && cmp_numbers(a, b) == 0);
	case CEL_V_STRING:
		if (b->kind != CEL_V_STRING)
			return cel_bool(false);
		if (!cel_charge(c, cel_string_units(a->v.s.len)))
			return cel_error(c, "actual cost limit exceeded");
		return cel_bool(a->v.s.len == b->v.s.len &&
				memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
	case CEL_V_LIST:
		if (b->kind != CEL_V_LIST)
			return cel_bool(false);
		if (!cel_charge(c, a->v.list->n))
			return cel_error(c, "actual cost limit exceeded");
		return equal_lists(c, a->v.list, b->v.list);
	case CEL_V_MAP:
		return b->kind == CEL_V_MAP ? equal_maps(c, a, b) : cel_bool(false);
	case CEL_V_QUANTITY:
		/* Quantity.Equal: anything but a Quantity is "no such overload". */
		if (b->kind != CEL_V_QUANTITY)
			return cel_no_overload(c, "==", a, b);
		return cel_bool(cel_qty_cmp(&a->v.q, &b->v.q) == 0);
	case CEL_V_SEMVER:
		if (b->kind != CEL_V_SEMVER)
			return cel_no_overload(c, "==", a, b);
		return cel_bool(cel_semver_cmp(a->v.sv, b->v.sv) == 0);
	case CEL_V_DEVICE:
		return cel_bool(b->kind == CEL_V_DEVICE);
	default:
		return *a;
	}
}

/* --- the device's maps --- */

static bool same(const char *s, const char *p, size_t len)
{
	return strlen(s) == len && memcmp(s, p, len) == 0;
}

static const char *attr_domain(const struct cel_ctx *c, size_t i)
{
	return c->dev->attributes[i].domain ? c->dev->attributes[i].domain : "";
}

static const char *cap_domain(const struct cel_ctx *c, size_t i)
{
	return c->dev->capacity[i].domain ? c->dev->capacity[i].domain : "";
}

/* The first entries of the distinct domains, in the device's order. */
static void domains(struct cel_ctx *c, bool caps)
{
	size_t n = caps ? c->dev->ncapacity : c->dev->nattributes;

	if (c->firsts_ready[caps])
		return;
	c->firsts[caps] = arena_alloc_raw(&c->arena, n ? n : 1);
	c->nfirsts[caps] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *d = caps ? cap_domain(c, i) : attr_domain(c, i);
		bool first = true;

		for (size_t k = 0; k < c->nfirsts[caps] && first; k++) {
			size_t at = c->firsts[caps][k];

			first = strcmp(d, caps ? cap_domain(c, at) : attr_domain(c, at)) != 0;
		}
		if (first)
			c->firsts[caps][c->nfirsts[caps]++] = (uint8_t)i;
	}
	c->firsts_ready[caps] = true;
}

/* The first entry of a domain, by name. */
static bool find_domain(const struct cel_ctx *c, bool caps, const char *p, size_t len,
			size_t *at)
{
	size_t n = caps ? c->dev->ncapacity : c->dev->nattributes;

	for (size_t i = 0; i < n; i++) {
		if (same(caps ? cap_domain(c, i) : attr_domain(c, i), p, len)) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* The entries of one domain: the nth, or how many (nth = SIZE_MAX). */
static size_t domain_entry(const struct cel_ctx *c, bool caps, const char *domain, size_t nth,
			   size_t *at)
{
	size_t n = caps ? c->dev->ncapacity : c->dev->nattributes, count = 0;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(caps ? cap_domain(c, i) : attr_domain(c, i), domain) != 0)
			continue;
		if (count++ == nth) {
			*at = i;
			return count;
		}
	}
	return count;
}

size_t cel_map_size(struct cel_ctx *c, const struct cel_val *m)
{
	size_t at = 0;
	bool caps = m->v.map.kind == CEL_MAP_CAPS;

	switch (m->v.map.kind) {
	case CEL_MAP_ATTRS:
	case CEL_MAP_CAPS:
		domains(c, caps);
		return c->nfirsts[caps];
	case CEL_MAP_ATTR_DOMAIN:
	case CEL_MAP_CAP_DOMAIN:
		return domain_entry(c, m->v.map.kind == CEL_MAP_CAP_DOMAIN, m->v.map.domain,
				    SIZE_MAX, &at);
	default:
		return 0;
	}
}

static struct cel_val c_string(const char *s)
{
	return cel_string(s ? s : "", s ? strlen(s) : 0);
}

struct cel_val cel_map_key(struct cel_ctx *c, const struct cel_val *m, size_t i)
{
	size_t at = 0;
	bool caps = m->v.map.kind == CEL_MAP_CAPS || m->v.map.kind == CEL_MAP_CAP_DOMAIN;

	switch (m->v.map.kind) {
	case CEL_MAP_ATTRS:
	case CEL_MAP_CAPS:
		domains(c, caps);
		at = i < c->nfirsts[caps] ? c->firsts[caps][i] : 0;
		return c_string(caps ? cap_domain(c, at) : attr_domain(c, at));
	case CEL_MAP_ATTR_DOMAIN:
	case CEL_MAP_CAP_DOMAIN:
		domain_entry(c, caps, m->v.map.domain, i, &at);
		return c_string(caps ? c->dev->capacity[at].name : c->dev->attributes[at].name);
	default:
		return c_string("");
	}
}

static struct cel_val map_of(enum cel_map_kind kind, const char *domain)
{
	struct cel_val v = { .kind = CEL_V_MAP };

	v.v.map.kind = kind;
	v.v.map.domain = domain;
	return v;
}

/* The entry of a domain map named key, by index. */
static bool find_entry(const struct cel_ctx *c, const struct cel_val *m, const struct cel_val *key,
		       size_t *at)
{
	bool caps = m->v.map.kind == CEL_MAP_CAP_DOMAIN;
	size_t n = caps ? c->dev->ncapacity : c->dev->nattributes;

	if (key->kind != CEL_V_STRING)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *name = caps ? c->dev->capacity[i].name : c->dev->attributes[i].name;

		if (strcmp(caps ? cap_domain(c, i) : attr_domain(c, i), m->v.map.domain) == 0 &&
		    same(name ? name : "", key->v.s.p, key->v.s.len)) {
			*at = i;
			return true;
		}
	}
	return false;
}

bool cel_map_has(const struct cel_ctx *c, const struct cel_val *m, const struct cel_val *key)
{
	size_t at;

	switch (m->v.map.kind) {
	case CEL_MAP_ATTRS:
	case CEL_MAP_CAPS:
		return key->kind == CEL_V_STRING &&
		       find_domain(c, m->v.map.kind == CEL_MAP_CAPS, key->v.s.p, key->v.s.len, &at);
	case CEL_MAP_ATTR_DOMAIN:
	case CEL_MAP_CAP_DOMAIN:
		return find_entry(c, m, key, &at);
	default:
		return false;
	}
}

bool cel_map_find(struct cel_ctx *c, const struct cel_val *m, const struct cel_val *key,
		  struct cel_val *out)
{
	bool caps = m->v.map.kind == CEL_MAP_CAPS || m->v.map.kind == CEL_MAP_CAP_DOMAIN;
	size_t at;

	switch (m->v.map.kind) {
	case CEL_MAP_ATTRS:
	case CEL_MAP_CAPS:
		/* The mapper of compile.go: an unknown domain (or a key that is
		 * not even a string) is an empty map, never an error. */
		if (key->kind == CEL_V_STRING &&
		    find_domain(c, caps, key->v.s.p, key->v.s.len, &at))
			*out = map_of(caps ? CEL_MAP_CAP_DOMAIN : CEL_MAP_ATTR_DOMAIN,
				      caps ? cap_domain(c, at) : attr_domain(c, at));
		else
			*out = map_of(CEL_MAP_EMPTY, NULL);
		return true;
	case CEL_MAP_ATTR_DOMAIN:
	case CEL_MAP_CAP_DOMAIN:
		if (!find_entry(c, m, key, &at))
			return false;
		if (caps) {
			out->kind = CEL_V_QUANTITY;
			cel_qty_from_capacity(&c->dev->capacity[at].value, &out->v.q);
		} else {
			*out = cel_attribute_value(c, &c->dev->attributes[at]);
		}
		return true;
	default:
		return false;
	}
}

bool cel_device_field(const struct cel_ctx *c, const char *name, size_t len, struct cel_val *out)
{
	if (same("driver", name, len))
		*out = c_string(c->driver);
	else if (same("attributes", name, len))
		*out = map_of(CEL_MAP_ATTRS, NULL);
	else if (same("capacity", name, len))
		*out = map_of(CEL_MAP_CAPS, NULL);
	else if (same("allowMultipleAllocations", name, len))
		*out = cel_bool(c->dev->allow_multiple_allocations);
	else
		return false;
	return true;
}

/* --- attribute values --- */

static struct cel_val version_value(struct cel_ctx *c, const struct dra_attribute *a,
				    const char *text)
{
	struct cel_semver *sv = arena_alloc(&c->arena, sizeof *sv);
	const char *why = "";
	struct cel_val v = { .kind = CEL_V_SEMVER };

	if (text == NULL || !cel_semver_parse(text, strlen(text), sv, &why))
		return cel_error(c, "attribute %s/%s: parse semantic version: %s",
				 a->domain ? a->domain : "", a->name ? a->name : "", why);
	v.v.sv = sv;
	return v;
}

static struct cel_val scalar(struct cel_ctx *c, const struct dra_attribute *a, size_t i)
{
	switch (a->type) {
	case DRA_ATTR_INT:
	case DRA_ATTR_INTS:
		return cel_int(a->ints[i]);
	case DRA_ATTR_BOOL:
	case DRA_ATTR_BOOLS:
		return cel_bool(a->bools[i]);
	case DRA_ATTR_STRING:
	case DRA_ATTR_STRINGS:
		return c_string(a->strings[i]);
	default:
		return version_value(c, a, a->strings[i]);
	}
}

static bool has_values(const struct dra_attribute *a)
{
	switch (a->type) {
	case DRA_ATTR_INT:
	case DRA_ATTR_INTS:
		return a->ints != NULL;
	case DRA_ATTR_BOOL:
	case DRA_ATTR_BOOLS:
		return a->bools != NULL;
	default:
		return a->strings != NULL;
	}
}

struct cel_val cel_attribute_value(struct cel_ctx *c, const struct dra_attribute *a)
{
	bool list = a->type == DRA_ATTR_INTS || a->type == DRA_ATTR_BOOLS ||
		    a->type == DRA_ATTR_STRINGS || a->type == DRA_ATTR_VERSIONS;
	struct cel_list *l;
	struct cel_val *items, v = { .kind = CEL_V_LIST };

	if (a->n == 0 || !has_values(a))
		return cel_error(c, "attribute %s/%s: unsupported attribute value",
				 a->domain ? a->domain : "", a->name ? a->name : "");
	if (!list)
		return scalar(c, a, 0);
	l = arena_alloc(&c->arena, sizeof *l);
	items = arena_alloc(&c->arena, a->n * sizeof *items);
	for (size_t i = 0; i < a->n; i++) {
		items[i] = scalar(c, a, i);
		if (items[i].kind == CEL_V_ERROR)
			return items[i];
	}
	l->n = a->n;
	l->items = items;
	v.v.list = l;
	return v;
}
