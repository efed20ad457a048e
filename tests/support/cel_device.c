/* SPDX-License-Identifier: Apache-2.0 */
/* Test devices and expectations for dra/cel (cel_device.h). */
#include "tests/support/cel_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "topology/quantity.h"

void cel_dev_init(struct dra_device *d, const char *name)
{
	memset(d, 0, sizeof *d);
	d->name = xstrdup(name);
}

static struct dra_attribute *add(struct dra_device *d, const char *domain, const char *name,
				 enum dra_attr_type type, size_t n)
{
	struct dra_attribute *a;

	d->attributes = xreallocarray(d->attributes, d->nattributes + 1, sizeof *d->attributes);
	a = &d->attributes[d->nattributes++];
	memset(a, 0, sizeof *a);
	a->domain = xstrdup(domain);
	a->name = xstrdup(name);
	a->type = type;
	a->n = n;
	return a;
}

void cel_dev_int(struct dra_device *d, const char *domain, const char *name, int64_t v)
{
	cel_dev_ints(d, domain, name, &v, 1);
	d->attributes[d->nattributes - 1].type = DRA_ATTR_INT;
}

void cel_dev_ints(struct dra_device *d, const char *domain, const char *name, const int64_t *v,
		  size_t n)
{
	struct dra_attribute *a = add(d, domain, name, DRA_ATTR_INTS, n);

	a->ints = xcalloc(n, sizeof *a->ints);
	memcpy(a->ints, v, n * sizeof *v);
}

void cel_dev_bool(struct dra_device *d, const char *domain, const char *name, bool v)
{
	struct dra_attribute *a = add(d, domain, name, DRA_ATTR_BOOL, 1);

	a->bools = xcalloc(1, sizeof *a->bools);
	a->bools[0] = v;
}

static void strings(struct dra_device *d, const char *domain, const char *name,
		    enum dra_attr_type type, const char *const *v, size_t n)
{
	struct dra_attribute *a = add(d, domain, name, type, n);

	a->strings = xcalloc(n, sizeof *a->strings);
	for (size_t i = 0; i < n; i++)
		a->strings[i] = xstrdup(v[i]);
}

void cel_dev_string(struct dra_device *d, const char *domain, const char *name, const char *v)
{
	strings(d, domain, name, DRA_ATTR_STRING, &v, 1);
}

void cel_dev_version(struct dra_device *d, const char *domain, const char *name, const char *v)
{
	strings(d, domain, name, DRA_ATTR_VERSION, &v, 1);
}

void cel_dev_strings(struct dra_device *d, const char *domain, const char *name,
		     const char *const *v, size_t n)
{
	strings(d, domain, name, DRA_ATTR_STRINGS, v, n);
}

void cel_dev_versions(struct dra_device *d, const char *domain, const char *name,
		      const char *const *v, size_t n)
{
	strings(d, domain, name, DRA_ATTR_VERSIONS, v, n);
}

void cel_dev_capacity(struct dra_device *d, const char *domain, const char *name,
		      const char *quantity)
{
	struct dra_capacity *c;
	struct errmsg msg;

	d->capacity = xreallocarray(d->capacity, d->ncapacity + 1, sizeof *d->capacity);
	c = &d->capacity[d->ncapacity++];
	memset(c, 0, sizeof *c);
	c->domain = xstrdup(domain);
	c->name = xstrdup(name);
	if (quantity_parse(quantity, strlen(quantity), &c->value, &msg) != ERR_OK) {
		fprintf(stderr, "cel_dev_capacity: %s\n", msg.text);
		abort();
	}
}

static const char *const value_names[] = { "false", "true", "error", "unknown" };
static const char *const compiled_names[] = { "compiled", "unsupported", "invalid" };
static char mismatch[2048];

const char *cel_dev_mismatch(const char *expr, const struct dra_device *d, const char *driver,
			     enum dra_cel_value want, const char *err_part)
{
	struct dra_cel_program *p = NULL;
	struct errmsg msg = { "" };
	enum dra_cel_compiled st = dra_cel_compile(expr, strlen(expr), &p, &msg);
	enum dra_cel_value got;
	char err[512] = "";

	if (st != DRA_CEL_COMPILED) {
		snprintf(mismatch, sizeof mismatch, "%s: %s, not compiled: %s", expr,
			 compiled_names[st], msg.text);
		return mismatch;
	}
	got = dra_cel_eval(p, d, driver, err, sizeof err);
	dra_cel_free(p);
	if (got != want || ((want == DRA_CEL_ERROR || want == DRA_CEL_UNKNOWN) && err_part && !strstr(err, err_part))) {
		snprintf(mismatch, sizeof mismatch, "%s on %s: got %s (%s), want %s%s%s", expr,
			 d->name, value_names[got], err, value_names[want],
			 err_part ? " with " : "", err_part ? err_part : "");
		return mismatch;
	}
	return NULL;
}

const char *cel_compile_mismatch(const char *expr, enum dra_cel_compiled want,
				 const char *msg_part)
{
	struct dra_cel_program *p = NULL;
	struct errmsg msg = { "" };
	enum dra_cel_compiled st = dra_cel_compile(expr, strlen(expr), &p, &msg);

	dra_cel_free(p);
	if (st != want || (msg_part && !strstr(msg.text, msg_part))) {
		snprintf(mismatch, sizeof mismatch, "%.200s: %s (%s), want %s with \"%s\"", expr,
			 compiled_names[st], msg.text, compiled_names[want],
			 msg_part ? msg_part : "");
		return mismatch;
	}
	return NULL;
}
