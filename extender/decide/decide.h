/* SPDX-License-Identifier: Apache-2.0 */
/* decide: the one step between a request and topology/. Given a node's
 * snapshot (or none), the pod's demand and the settings, it says what the
 * extender concludes about the node: one outcome, one reason, the predicted
 * NUMA nodes and the score. Every verb (filter, prioritize, bind's
 * re-validation in the ledger), replay, simulate and explain call it, so
 * they cannot disagree; nothing else calls the judge. Answers come from the
 * verdict cache when the caller names the snapshot and the demand. */
#ifndef EXTENDER_DECIDE_H
#define EXTENDER_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "extender/decide/dra.h"
#include "extender/decide/outcome.h"
#include "extender/decide/settings.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"

/* The reason given for a node without inventory under missingInventory: deny. */
#define DECISION_NO_INVENTORY_REASON "NUMA: no NodeResourceTopology inventory for this node"
/* Appended to reasons judged on an inventory the source has not confirmed
 * for longer than staleAfter (onStale: failOpen). */
#define DECISION_STALE_SUFFIX " [inventory stale]"
#define DECISION_REASON_MAX 320

enum decide_flags {
	/* The inventory is stale: reasons say so. */
	DECIDE_STALE = 1,
	/* The score's parts (no cached answer has them). */
	DECIDE_PARTS = 2,
	/* The judge's one-line message with amounts (debug logging, explain):
	 * always judged, never cached. */
	DECIDE_DETAIL = 4,
	/* Keep the full verdict (affinities per container, usage) in
	 * decision.verdict for the caller: always judged, never cached. */
	DECIDE_VERDICT = 8,
};

struct decide_input {
	const struct pod_demand *demand;
	const struct settings *settings;
	/* The demand's verdict-cache id (verdict_cache_demand), or 0: no cache. */
	uint64_t demand_id;
	unsigned flags;
	/* verdict_cache_intern gave demand_id to this request: nothing can be
	 * remembered under it but what this request puts, so decide does not
	 * look (each lookup skipped counts as a miss). Last, so that
	 * initialisers of the fields above leave it false. */
	bool demand_fresh;
	/* The pod's DRA claims resolved (dra.h), or NULL: no DRA verdict, and
	 * every answer is what it is without DRA. With it, demand_id must key
	 * the claims too (dra_pod_key) and the snapshot ids the nodes' DRA
	 * state (dra_pod_cache_id). The verdict is folded in by
	 * settings->dra_alignment: require rejects a misaligned node
	 * (FailedAndUnresolvable when no matching device sits on the
	 * affinity's NUMA nodes even with nothing allocated) and, under
	 * dra.unknownNUMA: deny, one with a device of unknown NUMA; prefer
	 * adds the part "dra" to the score (100 aligned, 0 misaligned), weighted
	 * as a resource. */
	const struct dra_pod *dra;
};

struct decision {
	enum decision_outcome outcome;
	/* Whether filter lets the node through: a pass, or no inventory under
	 * missingInventory: allow. */
	bool passes;
	/* Answered from the verdict cache. */
	bool cached;
	/* With DECIDE_VERDICT and an inventory: verdict below is the judge's
	 * (free with decision_cleanup). */
	bool has_verdict;
	/* Why it fails: the judge's reason (its name, verdict_reason_name, is
	 * the kubelet's: "TopologyAffinityError", ...), REASON_NO_INVENTORY,
	 * or REASON_NONE. */
	enum verdict_reason kubelet_reason;
	/* NUMA ids of the predicted placement (a pass), 0 otherwise. */
	uint64_t numa_ids;
	/* 0..10 for a pass; 0 otherwise. */
	int64_t score;
	/* With in->dra and an inventory: the node's DRA verdict (enum
	 * dra_outcome; noClaims when the kubelet rejects the pod anyway). */
	unsigned char dra;
	/* Why not, identical for identical causes ("" when it passes; the
	 * no-inventory reason only under deny). */
	char reason[DECISION_REASON_MAX];
	/* The fields below are set only when the flags ask for them (decide
	 * leaves the rest of ~1.8 KB alone: it runs once per candidate node). */
	/* With DECIDE_PARTS, for a pass. */
	struct score_breakdown parts;
	/* With DECIDE_DETAIL or DECIDE_VERDICT ("" otherwise). */
	char message[480];
	/* With has_verdict. */
	struct verdict verdict;
};

/* Decides for one node. inv NULL: the node has no inventory. snapshot_id is
 * the snapshot's unique id (store_node.id) for the cache, or 0. */
void decide(const struct decide_input *in, const struct inventory_node *inv, uint64_t snapshot_id,
	    struct decision *out);
void decision_cleanup(struct decision *d);

struct decide_pool;

/* What decide_many leaves per node: a decision without score parts or
 * verdict. */
struct decision_brief {
	enum decision_outcome outcome;
	bool passes;
	bool cached;
	enum verdict_reason kubelet_reason;
	char *reason;   /* NULL when empty; may be another brief's of the same request */
	bool owns_reason;
	char *message;  /* with DECIDE_DETAIL, else NULL */
	uint64_t numa_ids;
	int64_t score;
	unsigned char dra;  /* as decision.dra */
};

/* Below this many nodes a request judges alone: waking helpers costs more
 * than it saves. */
#define DECIDE_SHARE_MIN 256
/* A demand the verdict cache knows is decided alone unless more than a
 * quarter of its first DECIDE_PROBE nodes had to be judged: an answer from
 * the cache costs less than what sharing adds (a helper's wake-up, the
 * cache's lines passing between cores), so one thread goes faster. */
#define DECIDE_PROBE 64
_Static_assert(DECIDE_PROBE < DECIDE_SHARE_MIN, "the probe leaves nodes to share");

/* decide() for n nodes (inv[i] NULL: no inventory; snapshot_ids[i] as for
 * decide), shared with the pool's helpers from DECIDE_SHARE_MIN nodes on
 * (for a demand the cache knows, only when DECIDE_PROBE says so);
 * every answer is the one decide() gives. in->flags must not hold
 * DECIDE_PARTS or DECIDE_VERDICT. Free with decision_briefs_free. */
void decide_many(const struct decide_input *in, struct decide_pool *pool, size_t n,
		 const struct inventory_node *const *inv, const uint64_t *snapshot_ids,
		 struct decision_brief *out);
void decision_briefs_free(struct decision_brief *b, size_t n);

#endif
