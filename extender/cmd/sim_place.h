/* SPDX-License-Identifier: Apache-2.0 */
/* Placing pods one after another on a simulated cluster (sim_cluster.h):
 * each pod goes through kube-scheduler's cycle (scheduler/cycle.h) with
 * numa-extender as its extender, answering as serve does — filter keeps a
 * node when decide() passes it (reason: decide's; failedAndUnresolvable for
 * what serve puts there), prioritize gives decide's score. Then the node it
 * lands on loses the pod's predicted NUMA usage (inventory_node_take, as
 * the assumed-pod ledger takes it) and becomes a new snapshot with a new id,
 * and the scheduler's view of the node gains the pod's requests.
 *
 * Every decide() names the node's snapshot id and the pod's demand, so the
 * verdict cache answers whatever did not change: for the next pod of the same
 * shape only the node the last one landed on is judged again, plus the node
 * it lands on, judged once more for the usage the cache does not keep. */
#ifndef EXTENDER_SIM_PLACE_H
#define EXTENDER_SIM_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dra/numa.h"
#include "extender/cmd/sim_cluster.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/settings.h"
#include "extender/inventory/dra_store.h"
#include "scheduler/score.h"

#define SIM_UNPLACED SIZE_MAX

/* A device the allocator's prediction gave a placed pod's claim. */
struct sim_dra_device {
	char *claim;            /* the claim's name in the pod */
	char *request;          /* "<req>" or "<req>/<sub>" */
	char *driver, *pool, *device;
	struct dra_numa numa;
};

struct sim_placement {
	size_t node;            /* index into the cluster's views, or SIM_UNPLACED */
	uint64_t numa_ids;      /* predicted NUMA nodes on it */
	bool asked;             /* numa-extender took part (interested in the pod) */
	int64_t ext_score;      /* its score 0..10 on the node (decide's) */
	bool scored;            /* the scheduler scored (two feasible nodes or more) */
	struct sched_node_score score; /* the node's, when scored */
	size_t *tied;           /* node indices at the top total, by name */
	size_t ntied;
	size_t nfeasible;       /* after the in-tree filters */
	bool approximate;       /* a node without known cpu took part */
	bool profile_fallback;  /* no profile of its schedulerName: the only one */
	/* Not placed: the scheduler's message (FitError, an error), or why the
	 * kubelet would turn the pod away where the scheduler alone put it. */
	char *reason;
	/* With a DRA store (--dra), a placed pod with claims: the node's DRA
	 * verdict (enum dra_outcome), why when there is something to say
	 * (heap, or NULL), and the devices predicted for its claims. */
	bool has_dra;
	unsigned char dra;
	char *dra_why;
	struct sim_dra_device *devices;
	size_t ndevices;
};

void sim_placement_cleanup(struct sim_placement *p);

struct sim_stats {
	uint64_t cycles;
	uint64_t decided;  /* decide() calls */
	uint64_t judged;   /* of those, judged (not from the verdict cache) */
};

struct sim_placer;

/* Borrows all three for its life. */
struct sim_placer *sim_placer_new(struct sim_cluster *c, const struct sim_setup *s,
				  const struct settings *settings);
void sim_placer_free(struct sim_placer *p);

/* Judges pods with claims against store's DRA objects (borrowed for the
 * placer's life; dra.alignment off: not at all): each placement's
 * predicted devices are published into it as its claims' allocations
 * (sim_dra.h). labels_known: the cluster's views carry the nodes' labels
 * (Node objects). */
void sim_placer_set_dra(struct sim_placer *p, struct dra_store *store, bool labels_known);

/* Schedules one pod and applies the placement to the cluster. */
void sim_place_one(struct sim_placer *p, const struct sched_pod *pod,
		   struct sim_placement *out);
/* The same for a pod with DRA claims (NULL: none), read when the placer has
 * a DRA store. */
void sim_place_one_dra(struct sim_placer *p, const struct sched_pod *pod,
		       const struct dra_pod_claims *claims, struct sim_placement *out);
void sim_placer_stats(const struct sim_placer *p, struct sim_stats *out);

/* One whole simulation: a configuration, its cluster, every pod's outcome. */
struct sim_run {
	const char *label;            /* the --config file, or "defaults" */
	struct sim_setup setup;
	struct sim_cluster cluster;
	struct sim_placement *placed; /* one per pod, in the pods' order */
	size_t npods;
	size_t nplaced;
	struct sim_stats stats;
	/* --dra: the run's DRA objects (owned; placements allocate in them)
	 * and each pod's claims (claims[i] for pods[i], borrowed); NULL
	 * without. */
	struct dra_store *dra;
	const struct dra_pod_claims *claims;
};

/* Places pods[0..n) in order on run's cluster (built by the caller). */
void sim_run_all(struct sim_run *run, const struct settings *settings,
		 const struct sched_pod *pods, size_t n);
void sim_run_cleanup(struct sim_run *run);

#endif
