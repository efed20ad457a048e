/* SPDX-License-Identifier: Apache-2.0 */
/* The part of a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
 * that decides where a pod goes, as plain data with upstream's defaults
 * (pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go):
 * percentageOfNodesToScore, per profile the in-tree plugins enabled at
 * Filter and Score with their weights, NodeResourcesFitArgs and
 * NodeResourcesBalancedAllocationArgs, and the extenders. */
#ifndef SCHEDULER_CONFIG_H
#define SCHEDULER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The default profile's plugins that filter or score, in its MultiPoint
 * order (which is the order filters run in). */
enum sched_plugin {
	SCHED_NODE_UNSCHEDULABLE,
	SCHED_NODE_NAME,
	SCHED_TAINT_TOLERATION,
	SCHED_NODE_AFFINITY,
	SCHED_NODE_PORTS,
	SCHED_NODE_RESOURCES_FIT,
	SCHED_VOLUME_RESTRICTIONS,
	SCHED_NODE_VOLUME_LIMITS,
	SCHED_VOLUME_BINDING,
	SCHED_VOLUME_ZONE,
	SCHED_POD_TOPOLOGY_SPREAD,
	SCHED_INTER_POD_AFFINITY,
	SCHED_DYNAMIC_RESOURCES,
	SCHED_BALANCED_ALLOCATION,
	SCHED_IMAGE_LOCALITY,
	SCHED_PLUGIN_COUNT
};

struct sched_plugin_info {
	const char *name;
	bool filters;          /* has a Filter extension */
	bool scores;           /* has a Score extension */
	bool modelled;         /* this model computes what it does */
	int32_t default_weight; /* in the default profile; 0: not a scorer */
	bool default_on;       /* in the default profile (DynamicResources is not:
				* its gate is a version question, see config.c) */
};

const struct sched_plugin_info *sched_plugin_info(enum sched_plugin p);
/* The plugin of that name; false for names this table does not hold. */
bool sched_plugin_lookup(const char *name, enum sched_plugin *out);
/* In-tree plugins that neither filter nor score (queue sort, binder, ...). */
bool sched_plugin_is_inert(const char *name);

enum sched_fit_strategy {
	SCHED_LEAST_ALLOCATED,
	SCHED_MOST_ALLOCATED,
	SCHED_REQUESTED_TO_CAPACITY_RATIO,
};

const char *sched_fit_strategy_name(enum sched_fit_strategy s);

struct sched_resource_weight {
	char *name;
	int64_t weight; /* 1..100 (BalancedAllocation: 1) */
};

struct sched_shape_point {
	int32_t utilization; /* 0..100, strictly increasing */
	int32_t score;       /* 0..10 */
};

struct sched_profile {
	char *scheduler_name;
	bool has_percentage;  /* percentageOfNodesToScore set on the profile */
	int32_t percentage;
	bool filter[SCHED_PLUGIN_COUNT]; /* enabled at Filter */
	bool score[SCHED_PLUGIN_COUNT];  /* enabled at Score */
	int64_t weight[SCHED_PLUGIN_COUNT];
	/* NodeResourcesFitArgs */
	enum sched_fit_strategy strategy;
	struct sched_resource_weight *fit_resources;
	size_t nfit_resources;
	struct sched_shape_point *shape;
	size_t nshape;
	char **ignored_resources;
	size_t nignored_resources;
	char **ignored_groups;
	size_t nignored_groups;
	/* NodeResourcesBalancedAllocationArgs */
	struct sched_resource_weight *balanced_resources;
	size_t nbalanced_resources;
	/* What the profile turns on that the model cannot compute: out-of-tree
	 * plugins by name, "NodeAffinityArgs.addedAffinity". For warnings. */
	char **unmodelled;
	size_t nunmodelled;
	/* Some enabled Score plugin is not in the table (out of tree): it
	 * counts for "the profile has score plugins". */
	bool other_scorers;
};

struct sched_managed_resource {
	char *name;
	bool ignored_by_scheduler;
};

struct sched_extender {
	char *url_prefix;
	char *filter_verb;     /* NULL or "": the extender does not filter */
	char *prioritize_verb; /* NULL or "": it scores every node 0, weight 0 */
	char *preempt_verb;
	char *bind_verb;
	int64_t weight;
	bool node_cache_capable;
	bool ignorable;
	struct sched_managed_resource *managed;
	size_t nmanaged;
};

struct sched_config {
	bool has_percentage;   /* the global percentageOfNodesToScore was set */
	int32_t percentage;    /* default 0: adaptive */
	struct sched_profile *profiles;
	size_t nprofiles;
	struct sched_extender *extenders; /* in the file's order */
	size_t nextenders;
};

/* One profile as upstream defaults it: the default plugins and weights,
 * LeastAllocated over cpu and memory (weight 1 each), BalancedAllocation
 * over cpu and memory. name NULL means "default-scheduler". */
void sched_profile_default(struct sched_profile *p, const char *name);
void sched_profile_cleanup(struct sched_profile *p);

/* A configuration of one default profile and no extender. */
void sched_config_default(struct sched_config *c);
void sched_config_cleanup(struct sched_config *c);

/* The profile of that schedulerName, or NULL. */
const struct sched_profile *sched_config_profile(const struct sched_config *c,
						 const char *scheduler_name);

/* What kube-scheduler does once the file is read (buildExtenders): when an
 * extender lists managed resources with ignoredByScheduler, their names
 * replace every profile's NodeResourcesFit ignoredResources. */
void sched_config_apply_extenders(struct sched_config *c);

/* Whether the extender takes part for a pod that requests or limits these
 * resource names (IsInterested): always with an empty managedResources,
 * else when one of the names is managed. */
struct sched_pod;
bool sched_extender_interested(const struct sched_extender *e,
			       const struct sched_pod *pod);
bool sched_extender_filters(const struct sched_extender *e);
bool sched_extender_prioritizes(const struct sched_extender *e);

#endif
