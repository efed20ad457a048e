/* SPDX-License-Identifier: Apache-2.0 */
/* The assumed-pod ledger: what pods bound since a node's last NRT update will
 * take, until the node agent publishes an NRT that includes them.
 *
 * It knows every assigned, non-terminal pod (from the pod watch, and from
 * our own bind verb at once). A pod that appears on a node with an inventory
 * is *assumed*: its exclusive resources are taken off that node's zones,
 * either where the simulation predicts the kubelet will put them (predicted
 * mode) or off every zone that lists them (pessimistic). The ledger is the
 * store's overlay: every request sees `NRT - assumed pods`, in the same
 * immutable snapshot set, and the verdict cache keys change with it.
 *
 * An NRT update flushes a node: when it carries nodeTopologyPodsFingerprint
 * equal to the fingerprint of the live pods the ledger knows there (method
 * `all` or `with-exclusive-resources`), every assumed pod of the node is
 * reflected in it and dropped. Without a fingerprint, an assumed pod is
 * dropped by the first update that arrives more than assumeTTL after it was
 * assumed; with a fingerprint that does not match, after maxAssumeAge (so a
 * node whose agent counts pods differently cannot stall for ever). A deleted
 * or terminal assumed pod keeps its resources taken until such a flush: the
 * NRT has not shown them freed yet.
 *
 * Pods already bound when the ledger first lists them count as reflected
 * unless they were scheduled less than assumeTTL ago.
 *
 * Placements are remembered for a pod's whole life, not only while it is
 * assumed: a pod that went through our filter (ledger_note_filter) or our
 * bind and landed on a node with an inventory has a *known* placement, the
 * amounts per NUMA zone the simulation predicted when it arrived, and the
 * verdict we gave for that node (pass, with the inventory version judged,
 * or reject). A pod placed before the extender started, or by a scheduler
 * that does not call us, has an unknown placement. The preempt verb reads
 * placements (what evicting a pod frees, and where); the kubelet feedback
 * reads the verdicts. Thread-safe: one mutex; never held while calling into
 * the store. */
#ifndef EXTENDER_LEDGER_H
#define EXTENDER_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "extender/inventory/store.h"
#include "base/err.h"
#include "topology/pod.h"

/* Also the configuration's ledger.mode, read by these names. */
enum ledger_mode {
	LEDGER_PREDICTED,    /* the zones the simulation predicts */
	LEDGER_PESSIMISTIC,  /* every zone that lists the resource */
	LEDGER_MODE_COUNT,
};

/* "predicted", "pessimistic" in enum order, then NULL. */
extern const char *const ledger_mode_names[LEDGER_MODE_COUNT + 1];

struct ledger_options {
	enum ledger_mode mode;
	int64_t assume_ttl_ms;      /* default 30 s */
	int64_t max_assume_age_ms;  /* default 10 min */
	/* Give effective snapshots their NRT as JSON (store_node.raw), which
	 * only the decision log reads: encoding it is most of an assumption's
	 * cost. */
	bool keep_raw;
};

/* A pod as the watch reports it. spec is moved into the ledger (left zeroed). */
struct ledger_pod_info {
	const char *uid;
	const char *node;            /* spec.nodeName; NULL or "": not bound */
	bool terminal;               /* status.phase Succeeded or Failed */
	int64_t scheduled_ms;        /* PodScheduled time, else creation; 0: unknown */
	struct pod_spec *spec;       /* namespace, name, containers */
	int64_t priority;            /* spec.priority (0 when absent) */
	bool running;                /* status.phase Running: the kubelet admitted it */
};

struct ledger;

/* Installs itself as the store's overlay. */
struct ledger *ledger_new(struct store *store, const struct ledger_options *o);
/* Removes the overlay and frees everything. Accepts NULL. */
void ledger_free(struct ledger *l);

/* The pod watch. A list replaces what the ledger knows (pods it does not
 * list are gone); items of a list count as reflected unless scheduled
 * recently; a pod first seen on a watch event is assumed. */
void ledger_list_begin(struct ledger *l);
void ledger_list_pod(struct ledger *l, struct ledger_pod_info *p);
void ledger_list_end(struct ledger *l, bool complete);
void ledger_pod_changed(struct ledger *l, struct ledger_pod_info *p);
void ledger_pod_deleted(struct ledger *l, const char *uid);
/* filter's verdicts for a pod (uid) on the nodes it judged with an
 * inventory: passes[i] for names[i], versions[i] the inventory version
 * judged (NULL for a node without inventory: not remembered). Kept for the
 * most recent LEDGER_MEMO_PODS filtered pods until the pod shows up bound;
 * a later filter of the same pod replaces the earlier one. */
#define LEDGER_MEMO_PODS 1024
void ledger_note_filter(struct ledger *l, const char *uid, size_t n, const char *const *names,
			const bool *passes, const char *const *versions, const uint64_t *numa_ids);
/* Whether a complete pod list has been applied (readiness). */
bool ledger_listed(struct ledger *l);

/* The bind verb, before it creates the Binding: re-validates and assumes
 * the pod on node at once (a copy of spec is kept). kube-scheduler may have
 * filtered the pod before an earlier pod's bind arrived, so the simulation
 * must still admit it on the node minus every assumption: otherwise NO_FIT,
 * the rejection's short reason in why, nothing recorded. KNOWN: the ledger
 * had the pod already (the watch was quicker). A node without an inventory
 * is not checked. */
enum ledger_bind_result {
	LEDGER_BIND_ADDED,
	LEDGER_BIND_KNOWN,
	LEDGER_BIND_NO_FIT,
};
enum ledger_bind_result ledger_bind(struct ledger *l, const struct pod_spec *spec, const char *uid,
				    const char *node, char *why, size_t why_size);
/* The Binding failed after ADDED: forgets the pod unless the watch has seen
 * it bound. */
void ledger_bind_failed(struct ledger *l, const char *uid);

/* What we had decided for a pod on its node. */
enum ledger_decided {
	LEDGER_DECIDED_UNKNOWN,  /* not through us (or no inventory) */
	LEDGER_DECIDED_PASS,
	LEDGER_DECIDED_REJECT,
	LEDGER_DECIDED_COUNT,
};
const char *ledger_decided_name(enum ledger_decided d); /* "unknown", "pass", "reject" */

/* Why the kubelet's admission turned a pod away (its status.reason). */
enum kubelet_rejection {
	KUBELET_TOPOLOGY_AFFINITY,    /* TopologyAffinityError */
	KUBELET_UNEXPECTED_ADMISSION, /* UnexpectedAdmissionError */
	KUBELET_SMT_ALIGNMENT,        /* SMTAlignmentError */
	KUBELET_REJECTION_COUNT,
};
const char *kubelet_rejection_name(enum kubelet_rejection r);
/* The rejection a status.reason names; KUBELET_REJECTION_COUNT for any
 * other reason (not an admission rejection). */
enum kubelet_rejection kubelet_rejection_of(const char *reason);

/* One amount a pod's placement holds on a NUMA zone. */
struct ledger_amount {
	char *resource;
	int numa_id;
	int64_t amount;
};

/* A live pod on a node, copied out of the ledger. */
struct ledger_pod_view {
	char *uid, *namespace_, *name;
	int64_t priority;
	bool known;                  /* the placement is known (went through us) */
	uint64_t numa_ids;           /* NUMA ids of the placement (known only) */
	struct ledger_amount *placed; /* known only: what it holds, per zone */
	size_t nplaced;
	enum ledger_decided decided;
	char *decided_version;       /* the inventory version judged, or NULL */
	char *node;
};
/* Every live (not departed) pod the ledger knows on node, in name order
 * (namespace, name); *out is NULL when there is none. */
size_t ledger_node_pods(struct ledger *l, const char *node, struct ledger_pod_view **out);
/* One pod by UID (false when unknown); out filled as ledger_node_pods does. */
bool ledger_pod(struct ledger *l, const char *uid, struct ledger_pod_view *out);
void ledger_pod_view_cleanup(struct ledger_pod_view *v);
void ledger_pod_views_free(struct ledger_pod_view *v, size_t n);

/* The kubelet turned pod uid away (phase Failed with an admission reason):
 * out gets what the ledger knows of the pod (decided UNKNOWN and only the
 * uid when it knows nothing), and a pod we had decided counts as a
 * prediction checked, and an assumption for it is dropped at once (the
 * kubelet never admitted it, so it holds nothing). A pod the pod watch
 * already reported gone is found among the last LEDGER_MEMO_PODS departed
 * pods we had decided. Returns false when this UID's rejection was reported
 * already (out is then left zeroed): each is reported once, however often
 * the Failed pod is updated afterwards, for the last LEDGER_REJECTIONS_KEPT
 * rejections (uidset.h: 24 bytes each, 384 KiB; kube-controller-manager
 * deletes terminated pods past 12,500 by default, so a pod that still
 * exists is among them). */
#define LEDGER_REJECTIONS_KEPT 16384
bool ledger_kubelet_rejected(struct ledger *l, const char *uid, struct ledger_pod_view *out);
/* A rejection that happened before we looked (the first list of Failed
 * pods): not news, never reported, but later updates of it are not either. */
void ledger_kubelet_rejection_known(struct ledger *l, const char *uid);
/* The Failed pod was deleted: its UID never comes back. */
void ledger_kubelet_rejection_deleted(struct ledger *l, const char *uid);

/* Why an assumed pod was dropped. */
enum ledger_flush {
	LEDGER_FLUSH_FINGERPRINT,    /* the NRT's pod fingerprint matched */
	LEDGER_FLUSH_TTL,            /* no fingerprint: an update after assumeTTL */
	LEDGER_FLUSH_EXPIRED,        /* the fingerprint never matched: maxAssumeAge */
	LEDGER_FLUSH_COUNT,
};
const char *ledger_flush_name(enum ledger_flush f); /* "fingerprint", "ttl", "expired" */

struct ledger_stats {
	uint64_t pods;               /* live pods known */
	uint64_t assumed;            /* assumed or departed, still taken off */
	int64_t oldest_assumed_ms;   /* age of the oldest, 0 when none */
	uint64_t flushed[LEDGER_FLUSH_COUNT];
	uint64_t fingerprint_mismatches;
	/* Pods we had decided whose kubelet verdict (admitted: Running, or
	 * rejected) has been seen. */
	uint64_t predictions_checked;
};
void ledger_stats(struct ledger *l, struct ledger_stats *out);

/* One node's ledger as JSON (new string): the NRT's fingerprint and method,
 * the ledger's fingerprint of the same pod set, and every pod with its state,
 * age and what it takes; NULL when the ledger knows nothing of the node.
 * With node NULL: a summary of every node with pods or assumptions. */
char *ledger_json(struct ledger *l, const char *node);

const char *ledger_mode_name(enum ledger_mode m);

#endif
