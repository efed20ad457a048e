/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/numa.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Drivers that publish a NUMA attribute of their own, by its qualified
 * name (an unqualified name is in the driver's domain). */
static const struct {
	const char *domain, *name;
} driver_attrs[] = {
	{ "gpu.nvidia.com", "numa" }, /* k8s-dra-driver-gpu: VFIO devices */
};

static bool numa_of_int(const struct dra_attribute *a, struct dra_numa *out)
{
	int64_t id;

	if ((a->type != DRA_ATTR_INT && a->type != DRA_ATTR_INTS) || a->n == 0 || a->ints == NULL)
		return false;
	id = a->ints[0];
	if (id < 0 || id > 63)
		return false;
	out->known = true;
	out->nodes = (uint64_t)1 << id;
	return true;
}

enum dra_numa_source dra_numa_own(const struct dra_device *d, struct dra_numa *out)
{
	const struct dra_attribute *a;
	size_t i;

	if (d->numa_cached) {
		out->known = d->numa_known;
		out->nodes = d->numa_nodes;
		return (enum dra_numa_source)d->numa_source;
	}
	out->known = false;
	out->nodes = 0;
	a = dra_device_attribute(d, DRA_NUMA_DOMAIN, DRA_NUMA_ATTR);
	if (a != NULL && numa_of_int(a, out))
		return DRA_NUMA_STANDARD;
	for (i = 0; i < sizeof driver_attrs / sizeof driver_attrs[0]; i++) {
		a = dra_device_attribute(d, driver_attrs[i].domain, driver_attrs[i].name);
		if (a != NULL && a->type == DRA_ATTR_INT && numa_of_int(a, out))
			return DRA_NUMA_DRIVER;
	}
	return DRA_NUMA_UNKNOWN;
}

void dra_numa_cache(struct dra_device *d)
{
	struct dra_numa own;

	d->numa_cached = false;
	d->numa_source = (unsigned char)dra_numa_own(d, &own);
	d->numa_known = own.known;
	d->numa_nodes = own.nodes;
	d->numa_cached = true;
}

/* d's PCIe roots: a string or a list of strings (n of them), or NULL. */
static char **pcie_roots(const struct dra_device *d, size_t *n)
{
	const struct dra_attribute *a = dra_device_attribute(d, DRA_NUMA_DOMAIN, DRA_PCIE_ROOT_ATTR);

	*n = 0;
	if (a == NULL || (a->type != DRA_ATTR_STRING && a->type != DRA_ATTR_STRINGS) ||
	    a->strings == NULL)
		return NULL;
	*n = a->type == DRA_ATTR_STRING ? (a->n > 0 ? 1 : 0) : a->n;
	return a->strings;
}

static struct dra_numa_root *root_find(const struct dra_numa_roots *r, const char *root)
{
	size_t i;

	for (i = 0; r != NULL && i < r->n; i++)
		if (strcmp(r->v[i].root, root) == 0)
			return &r->v[i];
	return NULL;
}

void dra_numa_roots_add(struct dra_numa_roots *r, const struct dra_device *d)
{
	struct dra_numa own;
	char **roots;
	size_t i, n;

	if (dra_numa_own(d, &own) == DRA_NUMA_UNKNOWN)
		return;
	roots = pcie_roots(d, &n);
	for (i = 0; i < n; i++) {
		struct dra_numa_root *e = root_find(r, roots[i]);

		if (e == NULL) {
			if (r->n == r->cap) {
				r->cap = r->cap ? 2 * r->cap : 8;
				r->v = xreallocarray(r->v, r->cap, sizeof *r->v);
			}
			e = &r->v[r->n++];
			e->root = roots[i];
			e->nodes = 0;
		}
		e->nodes |= own.nodes;
	}
}

void dra_numa_roots_free(struct dra_numa_roots *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

enum dra_numa_source dra_device_numa(const struct dra_device *d, const struct dra_numa_roots *roots,
				     struct dra_numa *out)
{
	enum dra_numa_source src = dra_numa_own(d, out);
	uint64_t nodes = 0;
	char **list;
	size_t i, n;

	if (src != DRA_NUMA_UNKNOWN)
		return src;
	list = pcie_roots(d, &n);
	/* Every root the device names must be placed; a device behind roots of
	 * several nodes gets them all. */
	for (i = 0; i < n; i++) {
		const struct dra_numa_root *e = root_find(roots, list[i]);

		if (e == NULL)
			return DRA_NUMA_UNKNOWN;
		nodes |= e->nodes;
	}
	if (n == 0)
		return DRA_NUMA_UNKNOWN;
	out->known = true;
	out->nodes = nodes;
	return DRA_NUMA_PCIE_ROOT;
}

const char *dra_numa_source_name(enum dra_numa_source s)
{
	switch (s) {
	case DRA_NUMA_STANDARD: return "numaNode";
	case DRA_NUMA_DRIVER: return "driver";
	case DRA_NUMA_PCIE_ROOT: return "pcieRoot";
	case DRA_NUMA_UNKNOWN: break;
	}
	return "unknown";
}

void dra_numa_ids(struct textbuf *b, uint64_t nodes)
{
	bool first = true;
	int id;

	/* Two digits at most, written without printf: every misaligned node
	 * of a large filter names its NUMA nodes. */
	for (; nodes != 0; nodes &= nodes - 1) {
		char t[4];
		size_t n = 0;

		id = __builtin_ctzll(nodes);
		if (!first)
			t[n++] = ',';
		if (id >= 10)
			t[n++] = (char)('0' + id / 10);
		t[n++] = (char)('0' + id % 10);
		textbuf_add(b, t, n);
		first = false;
	}
}

const char *dra_numa_text(const struct dra_numa *n, char *buf, size_t size)
{
	struct textbuf b;

	textbuf_init_fixed(&b, buf, size);
	if (!n->known || n->nodes == 0)
		textbuf_adds(&b, "unknown");
	else
		dra_numa_ids(&b, n->nodes);
	return buf;
}
