/* SPDX-License-Identifier: Apache-2.0 */
#include "pod_cycle.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/requests.h"

static int64_t *vector(const struct sched_resources *r,
		       const struct sched_resource_weight *w, size_t n)
{
	int64_t *v = xcalloc(n > 0 ? n : 1, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = sched_resources_get(r, w[i].name, NULL);
	return v;
}

static enum sched_resource_kind kind_of(const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return SCHED_KIND_CPU;
	if (strcmp(name, "memory") == 0)
		return SCHED_KIND_MEMORY;
	if (strcmp(name, "ephemeral-storage") == 0)
		return SCHED_KIND_EPHEMERAL;
	return sched_name_is_scalar(name) ? SCHED_KIND_SCALAR : SCHED_KIND_OTHER;
}

static unsigned char *kinds(const struct sched_resource_weight *w, size_t n)
{
	unsigned char *k = xcalloc(n > 0 ? n : 1, sizeof *k);
	size_t i;

	for (i = 0; i < n; i++)
		k[i] = (unsigned char)kind_of(w[i].name);
	return k;
}

void sched_pod_cycle_init(struct sched_pod_cycle *c,
			  const struct sched_profile *profile,
			  enum sched_version v, const struct sched_pod *pod)
{
	struct sched_resources non0 = { 0 };
	size_t i;

	memset(c, 0, sizeof *c);
	c->profile = profile;
	c->version = v;
	c->pod = pod;
	sched_pod_requests(pod, v, 0, &c->request, NULL);
	sched_pod_requests(pod, v, SCHED_DEFAULT_CPU | SCHED_DEFAULT_MEMORY, &non0, NULL);
	c->fit_request = vector(&non0, profile->fit_resources, profile->nfit_resources);
	c->balanced_request = vector(&c->request, profile->balanced_resources,
				     profile->nbalanced_resources);
	c->fit_kind = kinds(profile->fit_resources, profile->nfit_resources);
	c->balanced_kind = kinds(profile->balanced_resources, profile->nbalanced_resources);
	sched_resources_cleanup(&non0);
	c->balanced_skip = sched_balanced_skips_best_effort(v);
	for (i = 0; i < profile->nbalanced_resources; i++)
		if (c->balanced_request[i] != 0)
			c->balanced_skip = false;
}

void sched_pod_cycle_cleanup(struct sched_pod_cycle *c)
{
	sched_resources_cleanup(&c->request);
	free(c->fit_request);
	free(c->balanced_request);
	free(c->fit_kind);
	free(c->balanced_kind);
	memset(c, 0, sizeof *c);
}
