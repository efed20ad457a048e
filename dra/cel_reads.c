/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/cel_reads.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"
#include "dra/cel.h"
#include "dra/cel_value.h"

/* Reads of one program: at most this many (more: not fixed). */
#define MAX_READS 32

struct collect {
	struct cel_read v[MAX_READS];
	size_t n;
	bool fixed;
};

/* The hash of an entry's domain and name (the domain's length first, so
 * that "a" "bc" and "ab" "c" differ). */
static uint64_t entry_name_hash(const char *domain, size_t dlen, const char *name, size_t nlen)
{
	unsigned char buf[2 * 256 + 8];
	uint64_t d = dlen;

	if (dlen > 256 || nlen > 256)
		return hash_key_bytes(name, nlen) ^ hash_key_bytes(domain, dlen) ^ d;
	memcpy(buf, &d, sizeof d);
	memcpy(buf + sizeof d, domain, dlen);
	memcpy(buf + sizeof d + dlen, name, nlen);
	return hash_key_bytes(buf, sizeof d + dlen + nlen);
}

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
	c->v[c->n].name_hash = kind == CEL_READ_ATTRIBUTE || kind == CEL_READ_CAPACITY
				       ? entry_name_hash(domain, domain_len, name, name_len)
				       : 0;
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

/* The bytes a value hash is taken of; a value that does not fit is
 * hashed in pieces. */
struct keybuf {
	unsigned char b[512];
	size_t n;
	uint64_t folded;
};

static void flush(struct keybuf *st)
{
	st->folded = hash_key_bytes(st->b, st->n) ^ (st->folded * 0x9e3779b97f4a7c15u);
	st->n = 0;
}

static void feed(struct keybuf *st, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n > 0) {
		size_t take = sizeof st->b - st->n < n ? sizeof st->b - st->n : n;

		memcpy(st->b + st->n, c, take);
		st->n += take;
		c += take;
		n -= take;
		if (st->n == sizeof st->b)
			flush(st);
	}
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

static uint64_t digest(struct keybuf *st)
{
	flush(st);
	return st->folded;
}

static uint64_t attribute_hash(const struct dra_attribute *a)
{
	struct keybuf st = { .n = 0, .folded = 0 };
	size_t k;

	feed_u64(&st, (uint64_t)a->type);
	feed_u64(&st, a->n);
	for (k = 0; k < a->n; k++) {
		if (a->ints)
			feed_u64(&st, (uint64_t)a->ints[k]);
		if (a->bools)
			feed_u64(&st, a->bools[k]);
		if (a->strings)
			feed_str(&st, a->strings[k]);
	}
	return digest(&st);
}

static uint64_t capacity_hash(const struct quantity *q)
{
	uint64_t v[4] = { q->negative, q->mantissa, (uint64_t)(int64_t)q->exp10, q->exp2 };

	return hash_key_bytes(v, sizeof v);
}

static uint64_t name_hash_of(const char *domain, const char *name)
{
	domain = domain ? domain : "";
	name = name ? name : "";
	return entry_name_hash(domain, strlen(domain), name, strlen(name));
}

/* Entry i's name and value hashes: attributes first, then capacities. */
static void entry_hashes(const struct dra_device *d, size_t i, uint64_t *name, uint64_t *value)
{
	if (i < d->nattributes) {
		*name = name_hash_of(d->attributes[i].domain, d->attributes[i].name);
		*value = attribute_hash(&d->attributes[i]);
	} else {
		const struct dra_capacity *c = &d->capacity[i - d->nattributes];

		*name = name_hash_of(c->domain, c->name);
		*value = capacity_hash(&c->value);
	}
}

void dra_cel_device_prepare(struct dra_device *d, const char *driver)
{
	size_t n = d->nattributes + d->ncapacity, i;

	free(d->entry_hashes);
	d->entries_hashed = false;
	d->entry_hashes = xcalloc(2 * n + 1, sizeof *d->entry_hashes);
	for (i = 0; i < n; i++)
		entry_hashes(d, i, &d->entry_hashes[2 * i], &d->entry_hashes[2 * i + 1]);
	d->versions_ok = cel_device_versions_parse(d);
	d->hashed_driver = driver;
	d->driver_hash = hash_key_bytes(driver ? driver : "", driver ? strlen(driver) : 0);
	d->entries_hashed = true;
}

/* The value hash of the first entry of d named as r reads (in the range
 * of attributes or of capacities), or 0 with *found false. */
static uint64_t read_value(const struct cel_read *r, const struct dra_device *d, bool *found)
{
	size_t from = r->kind == CEL_READ_ATTRIBUTE ? 0 : d->nattributes;
	size_t to = r->kind == CEL_READ_ATTRIBUTE ? d->nattributes : d->nattributes + d->ncapacity;
	size_t i;

	*found = false;
	for (i = from; i < to; i++) {
		uint64_t name, value;

		if (d->entries_hashed) {
			name = d->entry_hashes[2 * i];
			value = d->entry_hashes[2 * i + 1];
		} else {
			entry_hashes(d, i, &name, &value);
		}
		if (name == r->name_hash) {
			*found = true;
			return value;
		}
	}
	return 0;
}

bool dra_cel_device_key(const struct dra_cel_program *p, const struct dra_device *d,
			const char *driver, uint64_t *key)
{
	uint64_t v[4 + 2 * 32];
	size_t n = 0, i;

	if (p == NULL || d == NULL || !p->reads_fixed || p->nreads > 32)
		return false;
	/* The program, then what fails a device whatever it reads. */
	v[n++] = (uint64_t)(uintptr_t)p;
	v[n++] = d->nattributes > CEL_MAX_DEVICE_ENTRIES || d->ncapacity > CEL_MAX_DEVICE_ENTRIES;
	v[n++] = d->entries_hashed ? d->versions_ok : cel_device_versions_parse(d);
	v[n++] = d->entries_hashed && d->hashed_driver == driver
			 ? d->driver_hash
			 : hash_key_bytes(driver ? driver : "", driver ? strlen(driver) : 0);
	for (i = 0; i < p->nreads; i++) {
		const struct cel_read *r = &p->reads[i];
		bool found = false;

		if (r->kind == CEL_READ_MULTIPLE) {
			v[n++] = (uint64_t)r->kind << 1 | d->allow_multiple_allocations;
			v[n++] = 0;
		} else if (r->kind == CEL_READ_DRIVER) {
			v[n++] = (uint64_t)r->kind << 1;
			v[n++] = 0;
		} else {
			uint64_t value = read_value(r, d, &found);

			v[n++] = (uint64_t)r->kind << 1 | found;
			v[n++] = value;
		}
	}
	*key = hash_key_bytes(v, n * sizeof *v);
	return true;
}
