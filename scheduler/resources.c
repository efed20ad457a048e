/* SPDX-License-Identifier: Apache-2.0 */
#include "resources.h"

#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/xalloc.h"
#include "topology/names.h"
#include "topology/quantity.h"

#define REQUESTS_PREFIX "requests."

bool sched_name_is_hugepages(const char *name)
{
	return strncmp(name, "hugepages-", strlen("hugepages-")) == 0;
}

/* IsNativeResource: unprefixed, or in the *kubernetes.io/ namespace. */
static bool is_native(const char *name)
{
	return strchr(name, '/') == NULL || strstr(name, "kubernetes.io/") != NULL;
}

bool sched_name_is_extended(const char *name)
{
	char quota[512];
	size_t len = strlen(name);

	if (is_native(name) || strncmp(name, REQUESTS_PREFIX, strlen(REQUESTS_PREFIX)) == 0)
		return false;
	if (len + strlen(REQUESTS_PREFIX) >= sizeof quota)
		return false;
	memcpy(quota, REQUESTS_PREFIX, strlen(REQUESTS_PREFIX));
	memcpy(quota + strlen(REQUESTS_PREFIX), name, len + 1);
	return name_is_resource(quota, strlen(quota), NULL, 0);
}

bool sched_name_is_scalar(const char *name)
{
	return sched_name_is_extended(name) || sched_name_is_hugepages(name) ||
	       strstr(name, "kubernetes.io/") != NULL ||
	       strncmp(name, "attachable-volumes-", strlen("attachable-volumes-")) == 0;
}

void sched_resources_cleanup(struct sched_resources *r)
{
	size_t i;

	for (i = 0; i < r->nscalars; i++)
		free(r->scalars[i].name);
	free(r->scalars);
	memset(r, 0, sizeof *r);
}

void sched_resources_copy(struct sched_resources *dst,
			  const struct sched_resources *src)
{
	size_t i;

	if (dst == src)
		return;
	sched_resources_cleanup(dst);
	*dst = *src;
	dst->scalars = NULL;
	if (src->nscalars > 0) {
		dst->scalars = xcalloc(src->nscalars, sizeof *dst->scalars);
		for (i = 0; i < src->nscalars; i++) {
			dst->scalars[i].name = xstrdup(src->scalars[i].name);
			dst->scalars[i].value = src->scalars[i].value;
		}
	}
}

/* Index of name among the scalars, or where it would go (*found false). */
static size_t scalar_find(const struct sched_resources *r, const char *name,
			  bool *found)
{
	size_t lo = 0, hi = r->nscalars;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->scalars[mid].name, name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

enum fixed { FIXED_NONE, FIXED_CPU, FIXED_MEMORY, FIXED_EPHEMERAL, FIXED_PODS };

static enum fixed fixed_kind(const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return FIXED_CPU;
	if (strcmp(name, "memory") == 0)
		return FIXED_MEMORY;
	if (strcmp(name, "ephemeral-storage") == 0)
		return FIXED_EPHEMERAL;
	if (strcmp(name, "pods") == 0)
		return FIXED_PODS;
	return FIXED_NONE;
}

/* The fixed amount named name, or NULL. */
static int64_t *fixed_slot(struct sched_resources *r, const char *name)
{
	switch (fixed_kind(name)) {
	case FIXED_CPU: return &r->milli_cpu;
	case FIXED_MEMORY: return &r->memory;
	case FIXED_EPHEMERAL: return &r->ephemeral_storage;
	case FIXED_PODS: return &r->pods;
	case FIXED_NONE: break;
	}
	return NULL;
}

int64_t sched_resources_get(const struct sched_resources *r, const char *name,
			    bool *present)
{
	enum fixed k = fixed_kind(name);
	bool found;
	size_t i;

	if (present != NULL)
		*present = true;
	switch (k) {
	case FIXED_CPU: return r->milli_cpu;
	case FIXED_MEMORY: return r->memory;
	case FIXED_EPHEMERAL: return r->ephemeral_storage;
	case FIXED_PODS: return r->pods;
	case FIXED_NONE: break;
	}
	i = scalar_find(r, name, &found);
	if (present != NULL)
		*present = found;
	return found ? r->scalars[i].value : 0;
}

/* The scalar slot for name, inserted (0) when absent; NULL for a name that
 * is not scalar. */
static int64_t *scalar_slot(struct sched_resources *r, const char *name)
{
	bool found;
	size_t i;

	if (!sched_name_is_scalar(name))
		return NULL;
	i = scalar_find(r, name, &found);
	if (!found) {
		r->scalars = xreallocarray(r->scalars, r->nscalars + 1, sizeof *r->scalars);
		memmove(&r->scalars[i + 1], &r->scalars[i],
			(r->nscalars - i) * sizeof *r->scalars);
		r->scalars[i].name = xstrdup(name);
		r->scalars[i].value = 0;
		r->nscalars++;
	}
	return &r->scalars[i].value;
}

static int64_t *slot_for(struct sched_resources *r, const char *name)
{
	int64_t *slot = fixed_slot(r, name);

	return slot != NULL ? slot : scalar_slot(r, name);
}

void sched_resources_add(struct sched_resources *r, const char *name, int64_t v)
{
	int64_t *slot = slot_for(r, name);

	if (slot != NULL)
		*slot = i64_add_sat(*slot, v);
}

void sched_resources_set(struct sched_resources *r, const char *name, int64_t v)
{
	int64_t *slot = slot_for(r, name);

	if (slot != NULL)
		*slot = v;
}

void sched_resources_add_all(struct sched_resources *dst,
			     const struct sched_resources *src)
{
	size_t i;

	dst->milli_cpu = i64_add_sat(dst->milli_cpu, src->milli_cpu);
	dst->memory = i64_add_sat(dst->memory, src->memory);
	dst->ephemeral_storage = i64_add_sat(dst->ephemeral_storage, src->ephemeral_storage);
	dst->pods = i64_add_sat(dst->pods, src->pods);
	for (i = 0; i < src->nscalars; i++)
		sched_resources_add(dst, src->scalars[i].name, src->scalars[i].value);
}

int64_t sched_quantity_value(const char *name, const struct quantity *q)
{
	int64_t v;

	if (quantity_sign(q) <= 0)
		return 0;
	if (quantity_scaled(q, strcmp(name, "cpu") == 0 ? -3 : 0, &v) != ERR_OK)
		return INT64_MAX;
	return v;
}

void sched_resources_from_list(struct sched_resources *r,
			       const struct pod_quantity *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sched_resources_add(r, list[i].name,
				    sched_quantity_value(list[i].name, &list[i].q));
}
