/* SPDX-License-Identifier: Apache-2.0 */
/* The plugin table, the defaults and the configuration's ownership. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/pod_view.h"

/* The default profile (default_plugins.go, the same in 1.32 to 1.35).
 * DynamicResources joins it when its gate is on (1.34 on); for a pod
 * without resource claims it filters nothing and scores 0, so leaving it
 * out changes no placement that this model can compute. */
static const struct sched_plugin_info plugins[SCHED_PLUGIN_COUNT] = {
	[SCHED_NODE_UNSCHEDULABLE] = { "NodeUnschedulable", true, false, true, 0, true },
	[SCHED_NODE_NAME] = { "NodeName", true, false, true, 0, true },
	[SCHED_TAINT_TOLERATION] = { "TaintToleration", true, true, true, 3, true },
	[SCHED_NODE_AFFINITY] = { "NodeAffinity", true, true, true, 2, true },
	[SCHED_NODE_PORTS] = { "NodePorts", true, false, false, 0, true },
	[SCHED_NODE_RESOURCES_FIT] = { "NodeResourcesFit", true, true, true, 1, true },
	[SCHED_VOLUME_RESTRICTIONS] = { "VolumeRestrictions", true, false, false, 0, true },
	[SCHED_NODE_VOLUME_LIMITS] = { "NodeVolumeLimits", true, false, false, 0, true },
	[SCHED_VOLUME_BINDING] = { "VolumeBinding", true, true, false, 1, true },
	[SCHED_VOLUME_ZONE] = { "VolumeZone", true, false, false, 0, true },
	[SCHED_POD_TOPOLOGY_SPREAD] = { "PodTopologySpread", true, true, false, 2, true },
	[SCHED_INTER_POD_AFFINITY] = { "InterPodAffinity", true, true, false, 2, true },
	[SCHED_DYNAMIC_RESOURCES] = { "DynamicResources", true, true, false, 2, false },
	[SCHED_BALANCED_ALLOCATION] = { "NodeResourcesBalancedAllocation", false, true, true, 1, true },
	[SCHED_IMAGE_LOCALITY] = { "ImageLocality", false, true, false, 1, true },
};

static const char *const inert[] = {
	"SchedulingGates", "PrioritySort", "DefaultPreemption", "DefaultBinder",
};

const struct sched_plugin_info *sched_plugin_info(enum sched_plugin p)
{
	return &plugins[p];
}

bool sched_plugin_lookup(const char *name, enum sched_plugin *out)
{
	size_t i;

	for (i = 0; i < SCHED_PLUGIN_COUNT; i++) {
		if (strcmp(plugins[i].name, name) == 0) {
			*out = (enum sched_plugin)i;
			return true;
		}
	}
	return false;
}

bool sched_plugin_is_inert(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof inert / sizeof inert[0]; i++)
		if (strcmp(inert[i], name) == 0)
			return true;
	return false;
}

const char *sched_fit_strategy_name(enum sched_fit_strategy s)
{
	switch (s) {
	case SCHED_LEAST_ALLOCATED: return "LeastAllocated";
	case SCHED_MOST_ALLOCATED: return "MostAllocated";
	case SCHED_REQUESTED_TO_CAPACITY_RATIO: return "RequestedToCapacityRatio";
	}
	return "?";
}

/* cpu and memory, weight 1 each: both scoring defaults (defaultResourceSpec). */
static struct sched_resource_weight *default_resources(size_t *n)
{
	struct sched_resource_weight *r = xcalloc(2, sizeof *r);

	r[0].name = xstrdup("cpu");
	r[0].weight = 1;
	r[1].name = xstrdup("memory");
	r[1].weight = 1;
	*n = 2;
	return r;
}

void sched_profile_default(struct sched_profile *p, const char *name)
{
	size_t i;

	memset(p, 0, sizeof *p);
	p->scheduler_name = xstrdup(name != NULL ? name : "default-scheduler");
	for (i = 0; i < SCHED_PLUGIN_COUNT; i++) {
		p->filter[i] = plugins[i].default_on && plugins[i].filters;
		p->score[i] = plugins[i].default_on && plugins[i].scores;
		p->weight[i] = plugins[i].default_weight > 0 ? plugins[i].default_weight : 1;
	}
	p->strategy = SCHED_LEAST_ALLOCATED;
	p->fit_resources = default_resources(&p->nfit_resources);
	p->balanced_resources = default_resources(&p->nbalanced_resources);
}

static void weights_free(struct sched_resource_weight *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i].name);
	free(w);
}

static void strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sched_profile_cleanup(struct sched_profile *p)
{
	free(p->scheduler_name);
	weights_free(p->fit_resources, p->nfit_resources);
	free(p->shape);
	strings_free(p->ignored_resources, p->nignored_resources);
	strings_free(p->ignored_groups, p->nignored_groups);
	weights_free(p->balanced_resources, p->nbalanced_resources);
	strings_free(p->unmodelled, p->nunmodelled);
	memset(p, 0, sizeof *p);
}

void sched_config_default(struct sched_config *c)
{
	memset(c, 0, sizeof *c);
	c->profiles = xcalloc(1, sizeof *c->profiles);
	c->nprofiles = 1;
	sched_profile_default(&c->profiles[0], NULL);
}

void sched_config_cleanup(struct sched_config *c)
{
	size_t i, j;

	for (i = 0; i < c->nprofiles; i++)
		sched_profile_cleanup(&c->profiles[i]);
	free(c->profiles);
	for (i = 0; i < c->nextenders; i++) {
		struct sched_extender *e = &c->extenders[i];

		free(e->url_prefix);
		free(e->filter_verb);
		free(e->prioritize_verb);
		free(e->preempt_verb);
		free(e->bind_verb);
		for (j = 0; j < e->nmanaged; j++)
			free(e->managed[j].name);
		free(e->managed);
	}
	free(c->extenders);
	memset(c, 0, sizeof *c);
}

const struct sched_profile *sched_config_profile(const struct sched_config *c,
						 const char *scheduler_name)
{
	size_t i;

	for (i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].scheduler_name, scheduler_name) == 0)
			return &c->profiles[i];
	return NULL;
}

void sched_config_apply_extenders(struct sched_config *c)
{
	char **names = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < c->nextenders; i++)
		for (j = 0; j < c->extenders[i].nmanaged; j++)
			if (c->extenders[i].managed[j].ignored_by_scheduler) {
				names = xreallocarray(names, n + 1, sizeof *names);
				names[n++] = c->extenders[i].managed[j].name;
			}
	if (n == 0)
		return;
	for (i = 0; i < c->nprofiles; i++) {
		struct sched_profile *p = &c->profiles[i];

		strings_free(p->ignored_resources, p->nignored_resources);
		p->ignored_resources = xcalloc(n, sizeof *p->ignored_resources);
		for (j = 0; j < n; j++)
			p->ignored_resources[j] = xstrdup(names[j]);
		p->nignored_resources = n;
	}
	free(names);
}

static bool names_managed(const struct sched_extender *e,
			  const struct pod_quantity *list, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < e->nmanaged; j++)
			if (strcmp(list[i].name, e->managed[j].name) == 0)
				return true;
	return false;
}

bool sched_extender_interested(const struct sched_extender *e,
			       const struct sched_pod *pod)
{
	size_t i;

	if (e->nmanaged == 0)
		return true;
	/* Containers and init containers, requests and limits; not the pod
	 * level, not the overhead. */
	for (i = 0; i < pod->spec.ncontainers; i++) {
		const struct pod_container *c = &pod->spec.containers[i];

		if (names_managed(e, c->requests, c->nrequests) ||
		    names_managed(e, c->limits, c->nlimits))
			return true;
	}
	return false;
}

bool sched_extender_filters(const struct sched_extender *e)
{
	return e->filter_verb != NULL && e->filter_verb[0] != '\0';
}

bool sched_extender_prioritizes(const struct sched_extender *e)
{
	return e->prioritize_verb != NULL && e->prioritize_verb[0] != '\0';
}
