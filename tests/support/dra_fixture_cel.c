/* SPDX-License-Identifier: Apache-2.0 */
/* The fixture's stand-in for the CEL evaluator (dra_fixture.h lists what
 * it understands): enough to drive the allocator's prediction through
 * selectors that match, do not, fail at run time or are not supported. */
#include "dra_fixture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

size_t df_compiles;

enum prog_kind { P_TRUE, P_FALSE, P_ERROR, P_DRIVER, P_ATTR };

struct dra_cel_program {
	enum prog_kind kind;
	char domain[128], id[128], value[128];
};

static enum dra_cel_compiled test_compile(const char *expr, size_t len, struct dra_cel_program **out,
					  struct errmsg *msg)
{
	struct dra_cel_program p;
	char text[512];

	df_compiles++;
	*out = NULL;
	memset(&p, 0, sizeof p);
	if (len >= sizeof text) {
		errmsg_set(msg, "too long for the test evaluator");
		return DRA_CEL_UNSUPPORTED;
	}
	memcpy(text, expr, len);
	text[len] = '\0';
	if (strncmp(text, "invalid", 7) == 0) {
		errmsg_set(msg, "syntax error at 1");
		return DRA_CEL_INVALID;
	}
	if (strcmp(text, "true") == 0)
		p.kind = P_TRUE;
	else if (strcmp(text, "false") == 0)
		p.kind = P_FALSE;
	else if (strcmp(text, "error") == 0)
		p.kind = P_ERROR;
	else if (sscanf(text, "device.driver == '%127[^']'", p.value) == 1)
		p.kind = P_DRIVER;
	else if (sscanf(text, "device.attributes['%127[^']'].%127[A-Za-z0-9_] == %127[^\n]",
			p.domain, p.id, p.value) == 3)
		p.kind = P_ATTR;
	else {
		errmsg_set(msg, "the test evaluator does not know it");
		return DRA_CEL_UNSUPPORTED;
	}
	*out = xmalloc(sizeof **out);
	**out = p;
	return DRA_CEL_COMPILED;
}

static bool attr_equals(const struct dra_attribute *a, const char *v)
{
	char buf[160];

	switch (a->type) {
	case DRA_ATTR_INT:
		snprintf(buf, sizeof buf, "%" PRId64, a->ints[0]);
		return strcmp(buf, v) == 0;
	case DRA_ATTR_BOOL:
		return strcmp(a->bools[0] ? "true" : "false", v) == 0;
	case DRA_ATTR_STRING:
	case DRA_ATTR_VERSION:
		snprintf(buf, sizeof buf, "'%s'", a->strings[0]);
		return strcmp(buf, v) == 0;
	default:
		return false;
	}
}

static enum dra_cel_value test_eval(const struct dra_cel_program *p, const struct dra_device *d,
				    const char *driver, char *err, size_t err_size)
{
	const struct dra_attribute *a;

	switch (p->kind) {
	case P_TRUE: return DRA_CEL_TRUE;
	case P_FALSE: return DRA_CEL_FALSE;
	case P_ERROR:
		snprintf(err, err_size, "boom");
		return DRA_CEL_ERROR;
	case P_DRIVER: return strcmp(driver, p->value) == 0 ? DRA_CEL_TRUE : DRA_CEL_FALSE;
	case P_ATTR:
		a = dra_device_attribute(d, p->domain, p->id);
		if (a == NULL) {
			snprintf(err, err_size, "no such key: %s", p->id);
			return DRA_CEL_ERROR;
		}
		return attr_equals(a, p->value) ? DRA_CEL_TRUE : DRA_CEL_FALSE;
	}
	return DRA_CEL_ERROR;
}

static void test_free(struct dra_cel_program *p)
{
	free(p);
}

const struct dra_selector_ops df_test_ops = { test_compile, test_eval, test_free, NULL };
