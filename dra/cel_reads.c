/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/cel_reads.h"

#include <string.h>

#include "base/hash.h"
#include "dra/cel.h"
#include "dra/cel_value.h"

/* Reads of one program: at most this many (more: not fixed). */
#define MAX_READS 32

struct collect {
	struct cel_read v[MAX_READS];
	size_t n;
	bool fixed;
};

static bool is_device(const struct cel_node *n)
{
	return n != NULL && n->op == CEL_IDENT && n->slot == 0;
}

static bool named(const struct cel_node *n, const char *name)
{
	return strlen(name) == n->name_len && memcmp(n->name, name, n->name_len) == 0;
}

static void add(struct collect *c, enum cel_read_kind kind, const char *domain, size_t domain_len,
		const char *name, size_t name_len)
{
	if (c->n == MAX_READS) {
		c->fixed = false;
		return;
	}
	c->v[c->n].kind = kind;
	c->v[c->n].domain = domain;
	c->v[c->n].domain_len = domain_len;
	c->v[c->n].name = name;
	c->v[c->n].name_len = name_len;
	c->n++;
}

/* The map device.attributes or device.capacity: 1 attributes, 2
 * capacity, 0 neither. */
static int outer_map(const struct cel_node *n)
{
	if (n == NULL || n->op != CEL_SELECT || !is_device(n->a))
		return 0;
	return named(n, "attributes") ? 1 : named(n, "capacity") ? 2 : 0;
}

/* n is device.attributes[D] / .D (or capacity): which map, and D. */
static int domain_map(const struct cel_node *n, const char **d, size_t *len)
{
	int m;

	if (n == NULL)
		return 0;
	if (n->op == CEL_INDEX && (m = outer_map(n->a)) != 0 && n->b != NULL && n->b->op == CEL_STRING) {
		*d = n->b->lit.v.s.p;
		*len = n->b->lit.v.s.len;
		return m;
	}
	if (n->op == CEL_SELECT && (m = outer_map(n->a)) != 0) {
		*d = n->name;
		*len = n->name_len;
		return m;
	}
	return 0;
}

/* n is an entry of a domain map (.N, [N] with a constant N, has(.N)):
 * recorded. */
static bool entry(struct collect *c, const struct cel_node *n)
{
	const char *d = NULL, *name;
	size_t dlen = 0, nlen;
	int m;

	if (n->op == CEL_SELECT || n->op == CEL_HAS) {
		name = n->name;
		nlen = n->name_len;
	} else if (n->op == CEL_INDEX && n->b != NULL && n->b->op == CEL_STRING) {
		name = n->b->lit.v.s.p;
		nlen = n->b->lit.v.s.len;
	} else {
		return false;
	}
	m = domain_map(n->a, &d, &dlen);
	if (m == 0)
		return false;
	add(c, m == 1 ? CEL_READ_ATTRIBUTE : CEL_READ_CAPACITY, d, dlen, name, nlen);
	return true;
}

static void walk(struct collect *c, const struct cel_node *n)
{
	size_t i;

	if (n == NULL || !c->fixed)
		return;
	if (is_device(n)) {
		/* The device, or one of its maps, used whole. */
		c->fixed = false;
		return;
	}
	if (n->op == CEL_SELECT && is_device(n->a)) {
		if (named(n, "driver"))
			add(c, CEL_READ_DRIVER, NULL, 0, NULL, 0);
		else if (named(n, "allowMultipleAllocations"))
			add(c, CEL_READ_MULTIPLE, NULL, 0, NULL, 0);
		else
			c->fixed = false;
		return;
	}
	if (entry(c, n))
		return;
	walk(c, n->a);
	walk(c, n->b);
	walk(c, n->c);
	for (i = 0; i < n->nargs; i++)
		walk(c, n->args[i]);
}

void cel_reads_collect(struct dra_cel_program *p)
{
	struct collect c;

	c.n = 0;
	c.fixed = true;
	walk(&c, p->root);
	p->reads_fixed = c.fixed;
	p->nreads = c.fixed ? c.n : 0;
	p->reads = NULL;
	if (p->nreads) {
		p->reads = arena_alloc(&p->arena, p->nreads * sizeof *p->reads);
		memcpy(p->reads, c.v, p->nreads * sizeof *p->reads);
	}
}

static bool same(const char *s, const char *p, size_t len)
{
	s = s ? s : "";
	return strlen(s) == len && memcmp(s, p, len) == 0;
}

/* The bytes a key is the hash of; a device whose read entries do not fit
 * gets no key (evaluated every time). */
struct keybuf {
	unsigned char b[1024];
	size_t n;
	bool over;
};

static void feed(struct keybuf *st, const void *p, size_t n)
{
	if (st->over || n > sizeof st->b - st->n) {
		st->over = true;
		return;
	}
	memcpy(st->b + st->n, p, n);
	st->n += n;
}

static void feed_u64(struct keybuf *st, uint64_t v)
{
	feed(st, &v, sizeof v);
}

static void feed_str(struct keybuf *st, const char *s)
{
	size_t len = s ? strlen(s) : SIZE_MAX;

	feed_u64(st, len);
	if (s)
		feed(st, s, len);
}

static void feed_attribute(struct keybuf *st, const struct dra_attribute *a)
{
	size_t k;

	feed_u64(st, (uint64_t)a->type);
	feed_u64(st, a->n);
	for (k = 0; k < a->n; k++) {
		if (a->ints)
			feed_u64(st, (uint64_t)a->ints[k]);
		if (a->bools)
			feed_u64(st, a->bools[k]);
		if (a->strings)
			feed_str(st, a->strings[k]);
	}
}

static void feed_read(struct keybuf *st, const struct cel_read *r, const struct dra_device *d)
{
	size_t i;

	feed_u64(st, (uint64_t)r->kind);
	if (r->kind == CEL_READ_MULTIPLE) {
		feed_u64(st, d->allow_multiple_allocations);
		return;
	}
	/* The evaluator's lookup: the first entry of that domain and name. */
	if (r->kind == CEL_READ_ATTRIBUTE) {
		for (i = 0; i < d->nattributes; i++)
			if (same(d->attributes[i].domain, r->domain, r->domain_len) &&
			    same(d->attributes[i].name, r->name, r->name_len)) {
				feed_u64(st, 1);
				feed_attribute(st, &d->attributes[i]);
				return;
			}
	} else if (r->kind == CEL_READ_CAPACITY) {
		for (i = 0; i < d->ncapacity; i++)
			if (same(d->capacity[i].domain, r->domain, r->domain_len) &&
			    same(d->capacity[i].name, r->name, r->name_len)) {
				const struct quantity *q = &d->capacity[i].value;

				feed_u64(st, 1);
				feed_u64(st, q->negative);
				feed_u64(st, q->mantissa);
				feed_u64(st, (uint64_t)(int64_t)q->exp10);
				feed_u64(st, q->exp2);
				return;
			}
	}
	feed_u64(st, 0);
}

bool dra_cel_device_key(const struct dra_cel_program *p, const struct dra_device *d,
			const char *driver, uint64_t *key)
{
	struct keybuf st;
	size_t i;

	if (p == NULL || d == NULL || !p->reads_fixed)
		return false;
	st.n = 0;
	st.over = false;
	/* The program, then what fails a device whatever it reads. */
	feed_u64(&st, (uint64_t)(uintptr_t)p);
	feed_u64(&st, d->nattributes > CEL_MAX_DEVICE_ENTRIES || d->ncapacity > CEL_MAX_DEVICE_ENTRIES);
	feed_u64(&st, cel_device_versions_parse(d));
	feed_str(&st, driver ? driver : "");
	for (i = 0; i < p->nreads; i++)
		feed_read(&st, &p->reads[i], d);
	if (st.over)
		return false;
	*key = hash_key_bytes(st.b, st.n);
	return true;
}
