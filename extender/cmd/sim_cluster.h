/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster `simulate` (and `replay`'s top node) hands to the kube-scheduler
 * model (scheduler/): per node the scheduler's view (allocatable, labels,
 * taints, what running pods request) beside numa-extender's snapshot of the
 * same node (its NodeResourceTopology inventory, as a store node so that
 * each snapshot has an id of its own for the verdict cache), and the
 * KubeSchedulerConfiguration with numa-extender's place in it.
 *
 * Rules, also in README's simulate section:
 *  - With Node objects (--nodes) the scheduler's view is theirs; an NRT whose
 *    node is not listed is left out (the scheduler does not know the node),
 *    a listed node without an NRT has no inventory (missingInventory).
 *  - Without, each NRT makes a node whose allocatable memory, hugepages and
 *    extended resources are the sums over its NUMA zones, whose cpu is
 *    unknown (NodeResourcesFit leaves it out, results are marked
 *    approximate), which holds SIM_NRT_ONLY_PODS pods (the kubelet's default
 *    maxPods) and whose memory and ephemeral-storage are not checked when
 *    no zone lists them (INT64_MAX: a memory manager that is off publishes
 *    no memory).
 *  - Without --scheduler-config: SIM_BUILTIN_CONFIG, manifests/base's
 *    numa-scheduler (default plugins, percentageOfNodesToScore 100,
 *    numa-extender with weight 5 and no managedResources), used for every
 *    pod whatever its schedulerName.
 *  - numa-extender is the extender whose urlPrefix ends with the path it
 *    serves under (its urlPrefix setting, "/numa" when empty), else the only
 *    extender; other extenders keep every node and score nothing. */
#ifndef EXTENDER_SIM_CLUSTER_H
#define EXTENDER_SIM_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "extender/inventory/store.h"
#include "scheduler/config.h"
#include "scheduler/node_view.h"
#include "scheduler/pod_view.h"
#include "scheduler/version.h"

#define SIM_NRT_ONLY_PODS 110
#define SIM_DEFAULT_URL_PATH "/numa"

/* The configuration without --scheduler-config, as manifests/base ships it
 * (tests/unit/test_sim_cluster.c holds the two equal). */
#define SIM_BUILTIN_CONFIG                                                  \
	"apiVersion: kubescheduler.config.k8s.io/v1\n"                       \
	"kind: KubeSchedulerConfiguration\n"                                 \
	"profiles:\n"                                                        \
	"- schedulerName: numa-scheduler\n"                                  \
	"  percentageOfNodesToScore: 100\n"                                  \
	"extenders:\n"                                                       \
	"- urlPrefix: http://127.0.0.1:8888/numa\n"                          \
	"  filterVerb: filter\n"                                             \
	"  prioritizeVerb: prioritize\n"                                     \
	"  preemptVerb: preempt\n"                                           \
	"  weight: 5\n"                                                      \
	"  nodeCacheCapable: true\n"                                         \
	"  ignorable: false\n"

/* The one line saying what the built-in configuration is. */
#define SIM_BUILTIN_TEXT                                                     \
	"built in, as manifests/base ships it: default plugins, "            \
	"percentageOfNodesToScore 100, numa-extender weight 5 without "      \
	"managedResources (every pod), one profile for every schedulerName"

/* The one line of the NRT-only rule. */
#define SIM_NRT_ONLY_TEXT                                                    \
	"no Node objects (--nodes): memory, hugepages and devices allocatable " \
	"are the NUMA zones' sums, cpu is unknown (not checked, nor memory "  \
	"where no zone lists it), 110 pods a node"

/* What the input files said, read once and shared by every run. */
struct sim_inputs {
	/* numa-extender's snapshots, by node name (refs owned). */
	struct store_node **snaps;
	size_t nsnaps;
	/* Node objects as decoded, in file order (placeholders included). */
	bool has_nodes;
	struct sched_node *nodes;
	size_t nnodes;
	/* Pods already bound (--running). */
	struct sched_pod *running;
	size_t nrunning;
};

/* Takes ownership of invs[0..n) (snapshots, any order): ERR_INVALID when
 * two share a name. The array itself stays the caller's. */
enum err sim_inputs_set_snapshots(struct sim_inputs *in, struct inventory_node **invs,
				  size_t n, struct errmsg *msg);
void sim_inputs_cleanup(struct sim_inputs *in);

/* numa-extender's side of one node. */
struct sim_node {
	const struct store_node *first; /* before any placement; NULL: no inventory */
	const struct store_node *now;   /* after the placements so far */
};

struct sim_cluster {
	struct sched_node *views; /* the scheduler's order (its node tree) */
	struct sim_node *numa;    /* views[i]'s inventory */
	size_t n;
	bool nrt_only;            /* views built by the NRT-only rule */
	size_t nrt_unlisted;      /* NRTs of nodes --nodes does not list: left out */
	size_t no_inventory;      /* listed nodes without an NRT */
	size_t invalid_nodes;     /* Node items that did not decode: left out */
	size_t running;           /* running pods counted on a node */
	size_t running_elsewhere; /* bound to a node the cluster does not have */
};

/* A fresh cluster from the inputs (snapshots referenced, views copied). */
enum err sim_cluster_build(const struct sim_inputs *in, enum sched_version v,
			   struct sim_cluster *out, struct errmsg *msg);
void sim_cluster_cleanup(struct sim_cluster *c);
/* Replaces node i's current snapshot (takes the reference). */
void sim_cluster_replace(struct sim_cluster *c, size_t i, struct store_node *snap);

/* The scheduler's view of a node known from its NRT alone (the rule above).
 * view is overwritten; free with sched_node_cleanup. */
void sim_view_from_inventory(const struct inventory_node *inv, struct sched_node *view);

/* The KubeSchedulerConfiguration side of a run. */
struct sim_setup {
	struct sched_config config;
	bool builtin;         /* SIM_BUILTIN_CONFIG: profiles[0] for every pod */
	char *source;         /* the file, or NULL when built in */
	enum sched_version version;
	bool has_numa;        /* numa-extender is extenders[numa] */
	size_t numa;
	size_t other_extenders;
};

/* Reads path (NULL: the built-in text) and finds numa-extender in it by
 * url_prefix (its urlPrefix setting; NULL or "" means "/numa"). A
 * configuration with several extenders none of which ends so is an error
 * naming them; one without extenders runs the scheduler alone. */
enum err sim_setup_load(struct sim_setup *s, const char *path, const char *url_prefix,
			enum sched_version v, struct errmsg *msg);
void sim_setup_cleanup(struct sim_setup *s);

/* The profile that schedules pod: the one its schedulerName names; the
 * built-in or only profile otherwise (*fallback set); NULL when several
 * profiles exist and none is named (kube-scheduler leaves the pod alone). */
const struct sched_profile *sim_profile_for(const struct sim_setup *s,
					    const struct sched_pod *pod, bool *fallback);

#endif
