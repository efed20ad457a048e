/* SPDX-License-Identifier: Apache-2.0 */
/* Field-by-field comparison of node snapshots (see inventory_equal.h). */
#include "tests/support/inventory_equal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

#define DIFF(...)                                  \
	do {                                       \
		snprintf(why, size, __VA_ARGS__);  \
		return false;                      \
	} while (0)

static bool i64s_equal(const char *what, const char *res, const int64_t *a, const int64_t *b,
		       size_t n, char *why, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			DIFF("resource \"%s\" %s[%zu]: %lld != %lld", res, what, i, (long long)a[i],
			     (long long)b[i]);
	return true;
}

static bool resource_equal(const struct inventory_resource *a, const struct inventory_resource *b,
			   size_t n, char *why, size_t size)
{
	if (strcmp(a->name, b->name) != 0)
		DIFF("resource name: \"%s\" != \"%s\"", a->name, b->name);
	if (a->kind != b->kind)
		DIFF("resource \"%s\" kind: %d != %d", a->name, (int)a->kind, (int)b->kind);
	if (a->listed_everywhere != b->listed_everywhere)
		DIFF("resource \"%s\" listed_everywhere: %d != %d", a->name, a->listed_everywhere,
		     b->listed_everywhere);
	if (a->listed != b->listed)
		DIFF("resource \"%s\" listed: %#llx != %#llx", a->name, (unsigned long long)a->listed,
		     (unsigned long long)b->listed);
	if (!i64s_equal("capacity", a->name, a->capacity, b->capacity, n, why, size) ||
	    !i64s_equal("allocatable", a->name, a->allocatable, b->allocatable, n, why, size) ||
	    !i64s_equal("available", a->name, a->available, b->available, n, why, size) ||
	    !i64s_equal("top_capacity", a->name, a->top_capacity, b->top_capacity, n + 1, why, size) ||
	    !i64s_equal("total_capacity", a->name, &a->total_capacity, &b->total_capacity, 1, why, size) ||
	    !i64s_equal("total_allocatable", a->name, &a->total_allocatable, &b->total_allocatable, 1,
			why, size) ||
	    !i64s_equal("total_available", a->name, &a->total_available, &b->total_available, 1, why,
			size))
		return false;
	if (a->nonzero_numa != b->nonzero_numa)
		DIFF("resource \"%s\" nonzero_numa: %d != %d", a->name, a->nonzero_numa, b->nonzero_numa);
	return true;
}

bool inventory_equal(const struct inventory_node *a, const struct inventory_node *b, char *why,
		     size_t size)
{
	size_t n, i;
	int r;

	if (a == NULL || b == NULL) {
		if (a == b)
			return true;
		DIFF("one snapshot is NULL (%p, %p)", (const void *)a, (const void *)b);
	}
	if (!str_eq(a->name, b->name))
		DIFF("name: \"%s\" != \"%s\"", a->name, b->name);
	if (!str_eq(a->version, b->version))
		DIFF("version: \"%s\" != \"%s\"", a->version ? a->version : "(null)",
		     b->version ? b->version : "(null)");
	if (a->policy != b->policy)
		DIFF("policy: %s != %s", tm_policy_name(a->policy), tm_policy_name(b->policy));
	if (a->scope != b->scope)
		DIFF("scope: %s != %s", tm_scope_name(a->scope), tm_scope_name(b->scope));
	if (a->prefer_closest != b->prefer_closest)
		DIFF("prefer_closest: %d != %d", a->prefer_closest, b->prefer_closest);
	if (a->max_allowable != b->max_allowable)
		DIFF("max_allowable: %d != %d", a->max_allowable, b->max_allowable);
	if (a->cpu_static != b->cpu_static)
		DIFF("cpu_static: %d != %d", a->cpu_static, b->cpu_static);
	if (a->memory_static != b->memory_static)
		DIFF("memory_static: %d != %d", a->memory_static, b->memory_static);
	if (strcmp(a->config_error, b->config_error) != 0)
		DIFF("config_error: \"%s\" != \"%s\"", a->config_error, b->config_error);
	if (a->numa_count != b->numa_count)
		DIFF("numa_count: %d != %d", a->numa_count, b->numa_count);
	n = (size_t)a->numa_count;
	for (i = 0; i < n; i++) {
		if (a->numa_ids[i] != b->numa_ids[i])
			DIFF("numa_ids[%zu]: %d != %d", i, a->numa_ids[i], b->numa_ids[i]);
		if (!str_eq(a->zone_names[i], b->zone_names[i]))
			DIFF("zone_names[%zu]: \"%s\" != \"%s\"", i, a->zone_names[i], b->zone_names[i]);
	}
	for (i = 0; i < n * n; i++)
		if (a->distance[i] != b->distance[i])
			DIFF("distance[%zu][%zu]: %lld != %lld", i / n, i % n, (long long)a->distance[i],
			     (long long)b->distance[i]);
	if (a->nattributes != b->nattributes)
		DIFF("nattributes: %zu != %zu", a->nattributes, b->nattributes);
	for (i = 0; i < a->nattributes; i++)
		if (!str_eq(a->attributes[i].name, b->attributes[i].name) ||
		    !str_eq(a->attributes[i].value, b->attributes[i].value))
			DIFF("attributes[%zu]: %s=%s != %s=%s", i, a->attributes[i].name,
			     a->attributes[i].value, b->attributes[i].name, b->attributes[i].value);
	if (a->npolicies != b->npolicies)
		DIFF("npolicies: %zu != %zu", a->npolicies, b->npolicies);
	for (i = 0; i < a->npolicies; i++)
		if (!str_eq(a->policies[i], b->policies[i]))
			DIFF("policies[%zu]: \"%s\" != \"%s\"", i, a->policies[i], b->policies[i]);
	if (a->nresources != b->nresources)
		DIFF("nresources: %d != %d", a->nresources, b->nresources);
	for (r = 0; r < a->nresources; r++)
		if (!resource_equal(&a->resources[r], &b->resources[r], n, why, size))
			return false;
	if (a->cpu != b->cpu)
		DIFF("cpu: %d != %d", a->cpu, b->cpu);
	if (a->memory_listed != b->memory_listed)
		DIFF("memory_listed: %d != %d", a->memory_listed, b->memory_listed);
	if (a->full_enumeration != b->full_enumeration)
		DIFF("full_enumeration: %d != %d", a->full_enumeration, b->full_enumeration);
	if ((a->emptied == NULL) != (b->emptied == NULL))
		DIFF("emptied: one is NULL");
	if (a->emptied && !inventory_equal(a->emptied, b->emptied, why, size)) {
		char inner[512];

		snprintf(inner, sizeof inner, "%s", why);
		DIFF("emptied: %s", inner);
	}
	return true;
}
