/* SPDX-License-Identifier: Apache-2.0 */
/* Pods live in a map by UID and in their node's array; nodes in an
 * array sorted by name. An effective snapshot is the base snapshot with the
 * assumed pods' amounts taken off (inventory_node_take: every summary as
 * inventory_node_new would make it of the NRT with those amounts); its NRT
 * for the decision log is written from it (inventory_node_to_nrt), so replay
 * re-judges the very amounts requests saw.
 *
 * One idea, though longer than most files: the pods the ledger knows and
 * what each takes from its node. Every entry point (the pod watch's list
 * and events, bind, the kubelet's rejections, an NRT arriving through the
 * overlay, the views) reads or edits the same tables under one lock, so
 * they stay together; what stands apart has its own file (filter's
 * verdicts until a pod binds: filter_memo.c; the JSON of /ledger:
 * codec/ledger_json.c). */
#include "extender/inventory/ledger.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/ledger_json.h"
#include "extender/decide/decide.h"
#include "extender/codec/object_json.h"
#include "extender/log.h"
#include "extender/inventory/filter_memo.h"
#include "extender/inventory/uidset.h"
#include "base/arena.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/exclusive.h"
#include "topology/judge.h"
#include "topology/podfingerprint.h"

enum pod_state {
	POD_REFLECTED,  /* the NRT includes it (or it takes nothing) */
	POD_ASSUMED,    /* taken off its node's zones */
	POD_DEPARTED,   /* deleted or terminal, still taken off until a flush */
	/* Bound to a node that had no inventory when the pod was recorded:
	 * judged by the list-time rule when the inventory arrives. Takes
	 * nothing until then (there is nothing to take from). */
	POD_AWAITING,
};

/* An amount a pod takes from one zone, or from every zone listing the
 * resource (numa_id -1). */
struct usage {
	char *resource;
	int numa_id;
	int64_t amount;
};

struct lnode;

struct lpod {
	char *uid;
	struct pod_spec spec;
	struct lnode *node;
	enum pod_state state;
	bool seen;         /* reported by the pod watch (not only by our bind) */
	bool listed;       /* in the list being applied */
	int64_t assumed_ms;
	int64_t scheduled_ms;  /* PodScheduled time (bind: the bind), 0: unknown */
	struct usage *usage;
	size_t nusage;
	int64_t priority;
	/* What we had decided on this node, and what the simulation predicts
	 * the pod holds there for its whole life (known placements only). */
	enum ledger_decided decided;
	char *decided_version;
	bool known;
	bool checked;      /* the kubelet's verdict was seen */
	uint64_t numa_ids;
	struct usage *placed;
	size_t nplaced;
};

struct gone {
	struct ledger_pod_view v;    /* uid NULL: free slot */
	bool checked;
};

struct lnode {
	char *name;
	struct lpod **pods;
	size_t npods, cap;
	struct store_node *base;     /* the source's snapshot, referenced */
	uint64_t flushed_base_id;    /* the base the last flush looked at */
	char nrt_fingerprint[64];
	char nrt_method[32];
	char ledger_fingerprint[PODFINGERPRINT_LEN + 1];
};

struct ledger {
	pthread_mutex_t lock;
	/* Batches of dirty nodes taken but not yet republished: readers of
	 * the ledger's state (ledger_json, /ledger) wait for them, so that
	 * what they are shown is what filter already judges on. */
	int refreshing;
	pthread_cond_t refreshed;
	struct store *store;
	struct ledger_options o;
	struct strmap pods;          /* uid -> struct lpod */
	struct lnode **nodes;        /* sorted by name */
	size_t nnodes, ncap;
	char **dirty;                /* nodes to refresh once unlocked */
	size_t ndirty, dirty_cap;
	uint64_t flushed[LEDGER_FLUSH_COUNT], mismatches;
	bool listed;
	uint64_t builds;             /* effective snapshots made: version suffixes */
	struct filter_memo *memo;    /* the last LEDGER_MEMO_PODS filtered pods */
	/* Pods gone from the API that we had decided, so the kubelet's
	 * rejection (seen by another watch, maybe after the pod watch's
	 * DELETED) still finds our verdict: a ring of LEDGER_MEMO_PODS. */
	struct gone *gone;
	size_t gone_next;
	uint64_t checked;            /* predictions the kubelet's verdict checked */
	/* UIDs whose kubelet rejection has been reported: each is reported
	 * once, whatever updates of the Failed pod follow. */
	struct uidset *reported;
};

const char *const ledger_mode_names[LEDGER_MODE_COUNT + 1] = {
	"predicted", "pessimistic", NULL,
};

const char *ledger_mode_name(enum ledger_mode m)
{
	return (unsigned)m < LEDGER_MODE_COUNT ? ledger_mode_names[m] : "unknown";
}

const char *ledger_decided_name(enum ledger_decided d)
{
	static const char *const names[LEDGER_DECIDED_COUNT] = { "unknown", "pass", "reject" };

	return (unsigned)d < LEDGER_DECIDED_COUNT ? names[d] : "unknown";
}

static const char *const kubelet_rejection_names[KUBELET_REJECTION_COUNT] = {
	"TopologyAffinityError", "UnexpectedAdmissionError", "SMTAlignmentError"
};

const char *kubelet_rejection_name(enum kubelet_rejection r)
{
	return (unsigned)r < KUBELET_REJECTION_COUNT ? kubelet_rejection_names[r] : "";
}

enum kubelet_rejection kubelet_rejection_of(const char *reason)
{
	unsigned r;

	for (r = 0; r < KUBELET_REJECTION_COUNT; r++)
		if (strcmp(reason, kubelet_rejection_names[r]) == 0)
			break;
	return (enum kubelet_rejection)r;
}

const char *ledger_flush_name(enum ledger_flush f)
{
	static const char *const names[LEDGER_FLUSH_COUNT] = { "fingerprint", "ttl", "expired" };

	return (unsigned)f < LEDGER_FLUSH_COUNT ? names[f] : "";
}

/* --- tables --- */

static size_t node_index(const struct ledger *l, const char *name, bool *found)
{
	size_t lo = 0, hi = l->nnodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, l->nodes[mid]->name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

static struct lnode *node_find(const struct ledger *l, const char *name)
{
	bool found;
	size_t i = node_index(l, name, &found);

	return found ? l->nodes[i] : NULL;
}

static struct lnode *node_get(struct ledger *l, const char *name)
{
	bool found;
	size_t i = node_index(l, name, &found);
	struct lnode *n;

	if (found)
		return l->nodes[i];
	if (l->nnodes == l->ncap) {
		l->ncap = l->ncap ? l->ncap * 2 : 64;
		l->nodes = xreallocarray(l->nodes, l->ncap, sizeof *l->nodes);
	}
	memmove(&l->nodes[i + 1], &l->nodes[i], (l->nnodes - i) * sizeof *l->nodes);
	n = xcalloc(1, sizeof *n);
	n->name = xstrdup(name);
	l->nodes[i] = n;
	l->nnodes++;
	return n;
}

static void mark_dirty(struct ledger *l, const struct lnode *n)
{
	size_t i;

	for (i = 0; i < l->ndirty; i++)
		if (strcmp(l->dirty[i], n->name) == 0)
			return;
	if (l->ndirty == l->dirty_cap) {
		l->dirty_cap = l->dirty_cap ? l->dirty_cap * 2 : 8;
		l->dirty = xreallocarray(l->dirty, l->dirty_cap, sizeof *l->dirty);
	}
	l->dirty[l->ndirty++] = xstrdup(n->name);
}

/* Unlocks, then republishes the nodes whose assumptions changed. */
static void unlock_and_refresh(struct ledger *l)
{
	char **names = l->dirty;
	size_t n = l->ndirty, i;

	l->dirty = NULL;
	l->ndirty = l->dirty_cap = 0;
	if (n > 0)
		l->refreshing++;
	pthread_mutex_unlock(&l->lock);
	if (n > 0) {
		store_refresh(l->store, (const char *const *)names, n);
		pthread_mutex_lock(&l->lock);
		if (--l->refreshing == 0)
			pthread_cond_broadcast(&l->refreshed);
		pthread_mutex_unlock(&l->lock);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void amounts_free(struct usage **u, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*u)[i].resource);
	free(*u);
	*u = NULL;
	*n = 0;
}

static void amounts_add(struct usage **u, size_t *n, const char *resource, int numa_id,
			int64_t amount)
{
	*u = xreallocarray(*u, *n + 1, sizeof **u);
	(*u)[*n].resource = xstrdup(resource);
	(*u)[*n].numa_id = numa_id;
	(*u)[*n].amount = amount;
	(*n)++;
}

static void usage_free(struct lpod *p)
{
	amounts_free(&p->usage, &p->nusage);
}

static void usage_add(struct lpod *p, const char *resource, int numa_id, int64_t amount)
{
	amounts_add(&p->usage, &p->nusage, resource, numa_id, amount);
}

static bool taken(const struct lpod *p)
{
	return p->state == POD_ASSUMED || p->state == POD_DEPARTED;
}

static void pod_remove(struct ledger *l, struct lpod *p)
{
	struct lnode *n = p->node;
	size_t i;

	strmap_remove(&l->pods, p->uid);
	for (i = 0; i < n->npods; i++) {
		if (n->pods[i] == p) {
			n->pods[i] = n->pods[--n->npods];
			break;
		}
	}
	usage_free(p);
	amounts_free(&p->placed, &p->nplaced);
	free(p->decided_version);
	pod_spec_cleanup(&p->spec);
	free(p->uid);
	free(p);
}

/* --- effective snapshots --- */

/* The node as requests should see it now (the base minus every assumed
 * pod but except), or NULL without a base; with raw, its NRT as JSON. */
static struct inventory_node *effective_inventory(const struct lnode *n, const struct lpod *except,
						  char **raw)
{
	struct inventory_usage *usage;
	struct inventory_node *inv;
	size_t i, k, m = 0, total = 0;

	if (raw)
		*raw = NULL;
	if (n->base == NULL)
		return NULL;
	for (i = 0; i < n->npods; i++)
		if (n->pods[i] != except && taken(n->pods[i]))
			total += n->pods[i]->nusage;
	usage = xcalloc(total + 1, sizeof *usage);
	for (i = 0; i < n->npods; i++) {
		const struct lpod *p = n->pods[i];

		if (p == except || !taken(p))
			continue;
		for (k = 0; k < p->nusage; k++) {
			usage[m].resource = p->usage[k].resource;
			usage[m].numa_id = p->usage[k].numa_id;
			usage[m].amount = p->usage[k].amount;
			m++;
		}
	}
	inv = inventory_node_take(n->base->inventory, usage, m);
	free(usage);
	if (raw) {
		struct nrt_object obj;

		inventory_node_to_nrt(inv, &obj);
		*raw = nrt_object_to_json(&obj);
		nrt_object_cleanup(&obj);
	}
	return inv;
}

/* What the pod will take: where the simulation puts it on the node as it is
 * now (predicted), else (pessimistic, or a pod the simulation would not
 * admit there) its exclusive amounts off every zone that lists them.
 * Returns whether the simulation admits the pod on the node minus the other
 * assumptions (true when there is nothing to judge); a rejection's short
 * reason goes to why. */
static bool compute_usage(struct ledger *l, struct lpod *p, char *why, size_t why_size)
{
	struct pod_demand *d = NULL;
	struct errmsg msg;
	struct demand_amount *amounts = NULL;
	struct inventory_node *inv;
	bool admit = true, inv_judged = false;
	size_t n, i;

	usage_free(p);
	amounts_free(&p->placed, &p->nplaced);
	p->numa_ids = 0;
	p->known = false;
	if (p->spec.ncontainers == 0 || pod_demand_new(&p->spec, &d, &msg) != ERR_OK)
		return true;
	inv = effective_inventory(p->node, p, NULL);
	if (inv) {
		/* The same decide as filter (bind's re-validation gives filter's
		 * reason); scoring plays no part here. */
		static const struct settings judging = { 1, { SCORE_LEAST_ALLOCATED, NULL, 0 },
							 CONFIG_MISSING_ALLOW, LOG_LEVEL_INFO, 0,
							 CONFIG_DRA_OFF, CONFIG_DRA_UNKNOWN_ALLOW,
							 CONFIG_DRA_SORTED };
		struct decide_input in = { d, &judging, 0, DECIDE_VERDICT, false, NULL };
		struct decision dec;
		int r, z;

		decide(&in, inv, 0, &dec);
		admit = dec.passes;
		inv_judged = true;
		if (!admit && why)
			snprintf(why, why_size, "%s", dec.reason);
		if (admit) {
			/* The placement, kept for the pod's life (preemption
			 * reads what evicting it frees, and where). */
			p->numa_ids = dec.numa_ids;
			for (r = 0; r < inv->nresources; r++)
				for (z = 0; z < inv->numa_count; z++)
					if (verdict_usage(&dec.verdict, r, z) > 0)
						amounts_add(&p->placed, &p->nplaced, inv->resources[r].name,
							    inv->numa_ids[z], verdict_usage(&dec.verdict, r, z));
		}
		if (admit && l->o.mode == LEDGER_PREDICTED)
			for (i = 0; i < p->nplaced; i++)
				usage_add(p, p->placed[i].resource, p->placed[i].numa_id, p->placed[i].amount);
		decision_cleanup(&dec);
		inventory_node_free(inv);
	}
	p->known = p->decided != LEDGER_DECIDED_UNKNOWN && inv_judged && admit;
	if (p->nusage == 0) {
		n = pod_exclusive_amounts(d, &amounts);
		for (i = 0; i < n; i++)
			usage_add(p, amounts[i].name, -1, amounts[i].amount);
		free(amounts);
	}
	pod_demand_free(d);
	return admit;
}

/* Takes the pod's amounts off its node (the caller republishes the node). */
static void assume(struct ledger *l, struct lpod *p)
{
	compute_usage(l, p, NULL, 0);
	if (p->nusage == 0) {
		p->state = POD_REFLECTED; /* takes nothing the agents count */
		return;
	}
	p->state = POD_ASSUMED;
	p->assumed_ms = store_now_ms();
	log_debug("pod assumed", "namespace=%s pod=%s node=%s mode=%s resources=%zu",
		  log_q(p->spec.namespace_), log_q(p->spec.name), log_q(p->node->name),
		  ledger_mode_name(l->o.mode), p->nusage);
}

/* The list-time rule: a pod scheduled at least assumeTTL ago is in the NRT
 * already; one scheduled since, or at an unknown time, is not. */
static bool bound_long_ago(const struct ledger *l, const struct lpod *p)
{
	return p->scheduled_ms > 0 && store_now_ms() - p->scheduled_ms >= l->o.assume_ttl_ms;
}

/* A pod the NRT already includes: reflected, and a pod we decided still
 * gets its placement remembered (preemption reads it). */
static void reflect_known(struct ledger *l, struct lpod *p)
{
	p->state = POD_REFLECTED;
	if (p->decided != LEDGER_DECIDED_UNKNOWN) {
		compute_usage(l, p, NULL, 0);
		usage_free(p);
	}
}

/* The node's inventory has arrived: pods recorded before it are settled by
 * the rule a list applies, whatever came first (a restart lists pods
 * before NRTs; a new node's pods may bind before its agent publishes). */
static void settle_awaiting(struct ledger *l, struct lnode *n)
{
	size_t i, assumed = 0;

	for (i = 0; i < n->npods; i++) {
		struct lpod *p = n->pods[i];

		if (p->state != POD_AWAITING)
			continue;
		if (bound_long_ago(l, p)) {
			reflect_known(l, p);
		} else {
			assume(l, p);
			assumed += p->state == POD_ASSUMED;
		}
	}
	if (assumed > 0)
		log_info("pods bound before their node's inventory arrived are assumed", "node=%s pods=%zu",
			 log_q(n->name), assumed);
}

/* --- flushes --- */

/* The fingerprint of the live pods the ledger knows on the node, counted the
 * way the agent says it counts them. */
static void ledger_fingerprint(const struct lnode *n, const char *method, char *out)
{
	bool exclusive_only = method && strcmp(method, "with-exclusive-resources") == 0;
	struct pod_ref *refs = xcalloc(n->npods + 1, sizeof *refs);
	size_t i, k = 0;

	for (i = 0; i < n->npods; i++) {
		const struct lpod *p = n->pods[i];

		if (p->state == POD_DEPARTED)
			continue;
		if (exclusive_only &&
		    !pod_has_exclusive_resources(&p->spec, n->base ? n->base->inventory : NULL))
			continue;
		refs[k].namespace_ = p->spec.namespace_;
		refs[k].name = p->spec.name;
		k++;
	}
	podfingerprint(refs, k, out);
	free(refs);
}

/* Drops one assumption: the NRT is now taken to include the pod. */
static void drop(struct ledger *l, struct lpod *p)
{
	if (p->state == POD_DEPARTED) {
		pod_remove(l, p);
		return;
	}
	p->state = POD_REFLECTED;
	usage_free(p);
}

/* A new NRT for the node arrived: which assumptions does it settle? */
static void flush(struct ledger *l, struct lnode *n, const struct inventory_node *nrt)
{
	const char *fp = inventory_attribute(nrt, "nodeTopologyPodsFingerprint");
	const char *method = inventory_attribute(nrt, "nodeTopologyPodsFingerprintMethod");
	int64_t now = store_now_ms();
	size_t i, ntaken = 0;

	snprintf(n->nrt_fingerprint, sizeof n->nrt_fingerprint, "%s", fp ? fp : "");
	snprintf(n->nrt_method, sizeof n->nrt_method, "%s", method ? method : "");
	ledger_fingerprint(n, method, n->ledger_fingerprint);
	for (i = 0; i < n->npods; i++)
		ntaken += taken(n->pods[i]);
	if (ntaken == 0)
		return;
	if (fp && strcmp(fp, n->ledger_fingerprint) == 0) {
		for (i = n->npods; i-- > 0;) {
			if (taken(n->pods[i])) {
				l->flushed[LEDGER_FLUSH_FINGERPRINT]++;
				drop(l, n->pods[i]);
			}
		}
		log_debug("NRT includes every assumed pod (fingerprints match)", "node=%s pods=%zu",
			  log_q(n->name), ntaken);
		return;
	}
	if (fp)
		l->mismatches++;
	for (i = n->npods; i-- > 0;) {
		struct lpod *p = n->pods[i];
		int64_t age = now - p->assumed_ms;

		if (!taken(p))
			continue;
		if (fp == NULL && age > l->o.assume_ttl_ms) {
			l->flushed[LEDGER_FLUSH_TTL]++;
			drop(l, p);
		} else if (fp && age > l->o.max_assume_age_ms) {
			log_warn("assumed pod expired: the node's NRT fingerprint never matched",
				 "node=%s namespace=%s pod=%s age_ms=%lld nrt=%s ledger=%s", log_q(n->name),
				 log_q(p->spec.namespace_), log_q(p->spec.name), (long long)age, log_q(fp),
				 log_q(n->ledger_fingerprint));
			l->flushed[LEDGER_FLUSH_EXPIRED]++;
			drop(l, p);
		}
	}
}

static struct store_node *overlay(void *arg, const char *name, const struct store_node *base)
{
	struct ledger *l = arg;
	struct store_node *out = NULL;
	struct lnode *n;
	size_t i;
	bool any = false;

	if (base == NULL) {
		/* The NRT is gone: nothing to take from until it returns. */
		pthread_mutex_lock(&l->lock);
		n = node_find(l, name);
		if (n) {
			store_node_unref(n->base);
			n->base = NULL;
			n->flushed_base_id = 0;
		}
		pthread_mutex_unlock(&l->lock);
		return NULL;
	}
	pthread_mutex_lock(&l->lock);
	n = node_get(l, base->inventory->name);
	if (n->base != base) {
		store_node_ref(base);
		store_node_unref(n->base);
		n->base = (struct store_node *)(uintptr_t)base;
	}
	settle_awaiting(l, n);
	if (n->flushed_base_id != base->id) {
		n->flushed_base_id = base->id;
		flush(l, n, base->inventory);
	}
	for (i = 0; i < n->npods && !any; i++)
		any = taken(n->pods[i]);
	if (any) {
		char *raw = NULL;
		struct inventory_node *inv = effective_inventory(n, NULL, l->o.keep_raw ? &raw : NULL);

		if (inv) {
			/* A version of its own: the decision log writes each
			 * (node, version) once, and replay must see these
			 * amounts, not the NRT's. */
			char version[160];

			snprintf(version, sizeof version, "%s+ledger.%llu", base->version,
				 (unsigned long long)++l->builds);
			out = store_node_new(inv, base->origin, version, raw);
		}
	}
	pthread_mutex_unlock(&l->lock);
	return out;
}

/* --- filter's verdicts, until the pod is bound --- */

void ledger_note_filter(struct ledger *l, const char *uid, size_t n, const char *const *names,
			const bool *passes, const char *const *versions, const uint64_t *numa_ids)
{
	struct filter_memo_entry *e;

	(void)numa_ids; /* the placement is judged again when the pod binds */
	if (l == NULL || uid == NULL || uid[0] == '\0')
		return;
	e = filter_memo_entry_new(uid, n, names, passes, versions);
	if (e == NULL)
		return; /* no node with an inventory: nothing to remember */
	pthread_mutex_lock(&l->lock);
	filter_memo_put(l->memo, e);
	pthread_mutex_unlock(&l->lock);
}

/* What filter said for the pod on its node, taken out of the memo. */
static void memo_take(struct ledger *l, struct lpod *p)
{
	char *version;
	bool pass;

	if (!filter_memo_take(l->memo, p->uid, p->node->name, &pass, &version))
		return;
	p->decided = pass ? LEDGER_DECIDED_PASS : LEDGER_DECIDED_REJECT;
	free(p->decided_version);
	p->decided_version = version;
}

/* --- pods --- */

static struct lpod *pod_add(struct ledger *l, const char *uid, struct pod_spec *spec,
			    const char *node)
{
	struct lpod *p = xcalloc(1, sizeof *p);
	struct lnode *n = node_get(l, node);

	p->uid = xstrdup(uid);
	p->spec = *spec;
	memset(spec, 0, sizeof *spec);
	p->node = n;
	p->state = POD_REFLECTED;
	strmap_put(&l->pods, p->uid, p);
	if (n->npods == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 8;
		n->pods = xreallocarray(n->pods, n->cap, sizeof *n->pods);
	}
	n->pods[n->npods++] = p;
	return p;
}

static void view_of(const struct lpod *p, struct ledger_pod_view *v);

/* Remembers what we had decided for a pod leaving the API. */
static void bury(struct ledger *l, const struct lpod *p)
{
	struct gone *g;

	if (p->decided == LEDGER_DECIDED_UNKNOWN)
		return;
	g = &l->gone[l->gone_next];
	l->gone_next = (l->gone_next + 1) % LEDGER_MEMO_PODS;
	ledger_pod_view_cleanup(&g->v);
	view_of(p, &g->v);
	g->checked = p->checked;
}

/* Gone from the API: an assumption stays until a flush settles it. */
static void depart(struct ledger *l, struct lpod *p)
{
	if (p->state != POD_DEPARTED)
		bury(l, p);
	if (p->state == POD_ASSUMED)
		p->state = POD_DEPARTED;
	else if (p->state != POD_DEPARTED)
		pod_remove(l, p);
}

static void upsert(struct ledger *l, struct ledger_pod_info *info, bool from_list)
{
	struct lpod *p = info->uid ? strmap_get(&l->pods, info->uid) : NULL;
	bool bound = info->node && info->node[0];

	if (info->uid == NULL)
		goto out;
	if (p) {
		p->seen = true;
		p->listed = true;
		p->priority = info->priority;
		if (info->running && !p->checked && p->decided != LEDGER_DECIDED_UNKNOWN) {
			p->checked = true; /* the kubelet admitted it */
			l->checked++;
		}
		if (!bound || info->terminal)
			depart(l, p);
		else if (p->state == POD_DEPARTED)
			p->state = POD_ASSUMED; /* a relist missed it; it is still there */
		goto out;
	}
	if (!bound || info->terminal)
		goto out;
	p = pod_add(l, info->uid, info->spec, info->node);
	p->seen = true;
	p->listed = true;
	p->priority = info->priority;
	memo_take(l, p);
	if (info->running && p->decided != LEDGER_DECIDED_UNKNOWN) {
		p->checked = true;
		l->checked++;
	}
	p->scheduled_ms = info->scheduled_ms;
	if (p->node->base == NULL) {
		/* Nothing to take from yet: settled when the node's
		 * inventory arrives (a restart lists pods before NRTs). */
		p->state = POD_AWAITING;
		goto out;
	}
	if (from_list && bound_long_ago(l, p)) {
		reflect_known(l, p);
		goto out;
	}
	assume(l, p);
	mark_dirty(l, p->node);
out:
	pod_spec_cleanup(info->spec);
}

void ledger_list_begin(struct ledger *l)
{
	size_t i, k;

	pthread_mutex_lock(&l->lock);
	for (i = 0; i < l->nnodes; i++)
		for (k = 0; k < l->nodes[i]->npods; k++)
			l->nodes[i]->pods[k]->listed = false;
	pthread_mutex_unlock(&l->lock);
}

void ledger_list_pod(struct ledger *l, struct ledger_pod_info *p)
{
	pthread_mutex_lock(&l->lock);
	upsert(l, p, true);
	unlock_and_refresh(l);
}

void ledger_list_end(struct ledger *l, bool complete)
{
	size_t i, k;

	if (!complete)
		return;
	pthread_mutex_lock(&l->lock);
	for (i = 0; i < l->nnodes; i++) {
		struct lnode *n = l->nodes[i];

		for (k = n->npods; k-- > 0;) {
			struct lpod *p = n->pods[k];

			/* A pod only our bind knows may not have reached
			 * the list yet. */
			if (!p->listed && p->state != POD_DEPARTED && p->seen)
				depart(l, p);
		}
	}
	if (!l->listed) {
		size_t pods = 0, held = 0;

		for (i = 0; i < l->nnodes; i++)
			for (k = 0; k < l->nodes[i]->npods; k++) {
				pods += l->nodes[i]->pods[k]->state != POD_DEPARTED;
				held += taken(l->nodes[i]->pods[k]);
			}
		log_info("pods listed for the assumed-pod ledger", "pods=%zu assumed=%zu", pods, held);
	}
	l->listed = true;
	unlock_and_refresh(l);
}

bool ledger_listed(struct ledger *l)
{
	bool listed;

	pthread_mutex_lock(&l->lock);
	listed = l->listed;
	pthread_mutex_unlock(&l->lock);
	return listed;
}

void ledger_pod_changed(struct ledger *l, struct ledger_pod_info *p)
{
	pthread_mutex_lock(&l->lock);
	upsert(l, p, false);
	unlock_and_refresh(l);
}

void ledger_pod_deleted(struct ledger *l, const char *uid)
{
	struct lpod *p;

	pthread_mutex_lock(&l->lock);
	p = strmap_get(&l->pods, uid);
	if (p)
		depart(l, p);
	unlock_and_refresh(l);
}

enum ledger_bind_result ledger_bind(struct ledger *l, const struct pod_spec *spec, const char *uid,
				    const char *node, char *why, size_t why_size)
{
	enum ledger_bind_result result = LEDGER_BIND_KNOWN;
	struct pod_spec copy;
	struct lpod *p;

	pthread_mutex_lock(&l->lock);
	if (strmap_get(&l->pods, uid) == NULL) {
		pod_spec_copy(spec, &copy);
		p = pod_add(l, uid, &copy, node);
		result = LEDGER_BIND_ADDED;
		memo_take(l, p);
		if (p->decided == LEDGER_DECIDED_UNKNOWN && p->node->base) {
			/* Bound through us without a filter we remember: the
			 * re-validation below is our verdict. */
			p->decided = LEDGER_DECIDED_PASS;
			p->decided_version = xstrdup(p->node->base->version);
		}
		p->scheduled_ms = store_now_ms();
		if (p->node->base == NULL) {
			p->state = POD_AWAITING;
		} else {
			/* kube-scheduler may have filtered this pod before an
			 * earlier pod's bind arrived: check again, under the
			 * lock that orders every assumption. */
			if (!compute_usage(l, p, why, why_size)) {
				pod_remove(l, p);
				result = LEDGER_BIND_NO_FIT;
			} else if (p->nusage > 0) {
				p->state = POD_ASSUMED;
				p->assumed_ms = store_now_ms();
				mark_dirty(l, p->node);
			}
		}
	}
	unlock_and_refresh(l);
	return result;
}

void ledger_bind_failed(struct ledger *l, const char *uid)
{
	struct lpod *p;

	pthread_mutex_lock(&l->lock);
	p = strmap_get(&l->pods, uid);
	if (p && !p->seen) {
		if (taken(p))
			mark_dirty(l, p->node);
		pod_remove(l, p);
	}
	unlock_and_refresh(l);
}

/* --- views for preemption and the kubelet's verdicts --- */

static void view_of(const struct lpod *p, struct ledger_pod_view *v)
{
	size_t k;

	memset(v, 0, sizeof *v);
	v->uid = xstrdup(p->uid);
	v->namespace_ = xstrdup(p->spec.namespace_ ? p->spec.namespace_ : "default");
	v->name = xstrdup(p->spec.name ? p->spec.name : "");
	v->node = xstrdup(p->node->name);
	v->priority = p->priority;
	v->known = p->known;
	v->decided = p->decided;
	v->decided_version = p->decided_version ? xstrdup(p->decided_version) : NULL;
	if (!p->known)
		return;
	v->numa_ids = p->numa_ids;
	v->nplaced = p->nplaced;
	v->placed = xcalloc(p->nplaced + 1, sizeof *v->placed);
	for (k = 0; k < p->nplaced; k++) {
		v->placed[k].resource = xstrdup(p->placed[k].resource);
		v->placed[k].numa_id = p->placed[k].numa_id;
		v->placed[k].amount = p->placed[k].amount;
	}
}

void ledger_pod_view_cleanup(struct ledger_pod_view *v)
{
	size_t k;

	for (k = 0; k < v->nplaced; k++)
		free(v->placed[k].resource);
	free(v->placed);
	free(v->uid);
	free(v->namespace_);
	free(v->name);
	free(v->node);
	free(v->decided_version);
	memset(v, 0, sizeof *v);
}

void ledger_pod_views_free(struct ledger_pod_view *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ledger_pod_view_cleanup(&v[i]);
	free(v);
}

static int view_cmp(const void *a, const void *b)
{
	const struct ledger_pod_view *x = a, *y = b;
	int c = strcmp(x->namespace_, y->namespace_);

	return c ? c : strcmp(x->name, y->name);
}

size_t ledger_node_pods(struct ledger *l, const char *node, struct ledger_pod_view **out)
{
	const struct lnode *n;
	size_t i, k = 0;

	*out = NULL;
	pthread_mutex_lock(&l->lock);
	n = node_find(l, node);
	if (n && n->npods > 0) {
		*out = xcalloc(n->npods, sizeof **out);
		for (i = 0; i < n->npods; i++)
			if (n->pods[i]->state != POD_DEPARTED)
				view_of(n->pods[i], &(*out)[k++]);
	}
	pthread_mutex_unlock(&l->lock);
	if (k == 0) {
		free(*out);
		*out = NULL;
	} else {
		qsort(*out, k, sizeof **out, view_cmp);
	}
	return k;
}

bool ledger_pod(struct ledger *l, const char *uid, struct ledger_pod_view *out)
{
	const struct lpod *p;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&l->lock);
	p = strmap_get(&l->pods, uid);
	if (p)
		view_of(p, out);
	pthread_mutex_unlock(&l->lock);
	return p != NULL;
}

bool ledger_kubelet_rejected(struct ledger *l, const char *uid, struct ledger_pod_view *out)
{
	struct lpod *p;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&l->lock);
	if (!uidset_add(l->reported, uid)) {
		pthread_mutex_unlock(&l->lock);
		return false; /* reported already */
	}
	p = strmap_get(&l->pods, uid);
	if (p == NULL) {
		/* Gone already (the pod watch's DELETED came first)? */
		size_t k, i;

		for (k = 0; k < LEDGER_MEMO_PODS; k++) {
			struct gone *g = &l->gone[(l->gone_next + LEDGER_MEMO_PODS - 1 - k) % LEDGER_MEMO_PODS];

			if (g->v.uid == NULL || strcmp(g->v.uid, uid) != 0)
				continue;
			*out = g->v;
			out->uid = xstrdup(g->v.uid);
			out->namespace_ = xstrdup(g->v.namespace_);
			out->name = xstrdup(g->v.name);
			out->node = xstrdup(g->v.node);
			out->decided_version = g->v.decided_version ? xstrdup(g->v.decided_version) : NULL;
			out->placed = xcalloc(g->v.nplaced + 1, sizeof *out->placed);
			for (i = 0; i < g->v.nplaced; i++) {
				out->placed[i] = g->v.placed[i];
				out->placed[i].resource = xstrdup(g->v.placed[i].resource);
			}
			if (!g->checked) {
				g->checked = true;
				l->checked++;
			}
			pthread_mutex_unlock(&l->lock);
			return true;
		}
	}
	if (p) {
		size_t k;

		view_of(p, out);
		if (!p->checked && p->decided != LEDGER_DECIDED_UNKNOWN) {
			p->checked = true;
			l->checked++;
		}
		for (k = 0; k < LEDGER_MEMO_PODS; k++)
			if (l->gone[k].v.uid && strcmp(l->gone[k].v.uid, uid) == 0)
				l->gone[k].checked = true;
		/* The kubelet never admitted it: it holds nothing, whatever
		 * the NRT says next. */
		if (p->state == POD_AWAITING)
			p->state = POD_REFLECTED;
		if (taken(p)) {
			mark_dirty(l, p->node);
			if (p->state == POD_DEPARTED) {
				pod_remove(l, p);
			} else {
				p->state = POD_REFLECTED;
				usage_free(p);
			}
		}
	} else {
		out->uid = xstrdup(uid);
	}
	unlock_and_refresh(l);
	return true;
}

void ledger_kubelet_rejection_known(struct ledger *l, const char *uid)
{
	pthread_mutex_lock(&l->lock);
	uidset_add(l->reported, uid);
	pthread_mutex_unlock(&l->lock);
}

void ledger_kubelet_rejection_deleted(struct ledger *l, const char *uid)
{
	pthread_mutex_lock(&l->lock);
	uidset_remove(l->reported, uid);
	pthread_mutex_unlock(&l->lock);
}

/* --- lifetime, stats, inspection --- */

struct ledger *ledger_new(struct store *store, const struct ledger_options *o)
{
	struct ledger *l = xcalloc(1, sizeof *l);

	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->refreshed, NULL);
	l->store = store;
	l->o = *o;
	l->memo = filter_memo_new(LEDGER_MEMO_PODS);
	l->gone = xcalloc(LEDGER_MEMO_PODS, sizeof *l->gone);
	l->reported = uidset_new(LEDGER_REJECTIONS_KEPT);
	store_set_overlay(store, overlay, l);
	return l;
}

void ledger_free(struct ledger *l)
{
	size_t i;

	if (l == NULL)
		return;
	store_set_overlay(l->store, NULL, NULL);
	for (i = 0; i < l->nnodes; i++) {
		struct lnode *n = l->nodes[i];

		while (n->npods > 0)
			pod_remove(l, n->pods[n->npods - 1]);
		free(n->pods);
		store_node_unref(n->base);
		free(n->name);
		free(n);
	}
	for (i = 0; i < LEDGER_MEMO_PODS; i++)
		ledger_pod_view_cleanup(&l->gone[i].v);
	filter_memo_free(l->memo);
	free(l->gone);
	uidset_free(l->reported);
	free(l->nodes);
	strmap_clear(&l->pods);
	free(l->dirty);
	pthread_cond_destroy(&l->refreshed);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void ledger_stats(struct ledger *l, struct ledger_stats *out)
{
	int64_t now = store_now_ms();
	size_t i, k;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&l->lock);
	for (i = 0; i < l->nnodes; i++) {
		for (k = 0; k < l->nodes[i]->npods; k++) {
			const struct lpod *p = l->nodes[i]->pods[k];

			out->pods += p->state != POD_DEPARTED;
			if (!taken(p))
				continue;
			out->assumed++;
			if (now - p->assumed_ms > out->oldest_assumed_ms)
				out->oldest_assumed_ms = now - p->assumed_ms;
		}
	}
	memcpy(out->flushed, l->flushed, sizeof out->flushed);
	out->fingerprint_mismatches = l->mismatches;
	out->predictions_checked = l->checked;
	pthread_mutex_unlock(&l->lock);
}

static const char *state_name(enum pod_state s)
{
	static const char *const names[] = { "reflected", "assumed", "departed", "awaitingInventory" };

	return names[s];
}

/* A copy of s for a view: views are filled under the lock and written
 * after it. */
static const char *view_str(struct arena *a, const char *s)
{
	size_t n;

	if (s == NULL)
		s = "";
	n = strlen(s) + 1;
	return memcpy(arena_alloc_raw(a, n), s, n);
}

static const struct ledger_json_amount *view_amounts(struct arena *a, const struct usage *u,
						     size_t n)
{
	struct ledger_json_amount *out = arena_alloc(a, (n ? n : 1) * sizeof *out);
	size_t k;

	for (k = 0; k < n; k++) {
		out[k].resource = view_str(a, u[k].resource);
		out[k].numa_id = u[k].numa_id;
		out[k].amount = u[k].amount;
	}
	return out;
}

static void node_view(const struct ledger *l, const struct lnode *n, int64_t now, struct arena *a,
		      struct ledger_json_node *v)
{
	struct ledger_json_pod *pods = arena_alloc(a, (n->npods ? n->npods : 1) * sizeof *pods);
	const char *method = n->nrt_method[0] ? n->nrt_method : NULL;
	char fp[PODFINGERPRINT_LEN + 1];
	size_t i;

	ledger_fingerprint(n, method, fp);
	v->node = view_str(a, n->name);
	v->inventory = n->base != NULL;
	v->mode = ledger_mode_name(l->o.mode);
	v->nrt_fingerprint = view_str(a, n->nrt_fingerprint);
	v->nrt_method = view_str(a, method ? method : "all");
	v->ledger_fingerprint = view_str(a, fp);
	v->pods = pods;
	v->npods = n->npods;
	for (i = 0; i < n->npods; i++) {
		const struct lpod *p = n->pods[i];
		struct ledger_json_pod *o = &pods[i];

		o->namespace_ = view_str(a, p->spec.namespace_);
		o->name = view_str(a, p->spec.name);
		o->uid = view_str(a, p->uid);
		o->state = state_name(p->state);
		o->priority = p->priority;
		o->decided = ledger_decided_name(p->decided);
		o->decided_version = p->decided_version ? view_str(a, p->decided_version) : NULL;
		o->known = p->known;
		if (p->known) {
			o->numa_ids = p->numa_ids;
			o->holds = view_amounts(a, p->placed, p->nplaced);
			o->nholds = p->nplaced;
		}
		o->taken = taken(p);
		if (o->taken) {
			o->assumed_ms_ago = now - p->assumed_ms;
			o->takes = view_amounts(a, p->usage, p->nusage);
			o->ntakes = p->nusage;
		}
	}
}

/* Every node with live pods or assumptions. */
static size_t summary_view(const struct ledger *l, struct arena *a, struct ledger_json_row **out)
{
	struct ledger_json_row *rows = arena_alloc(a, (l->nnodes ? l->nnodes : 1) * sizeof *rows);
	size_t i, k, m = 0;

	for (i = 0; i < l->nnodes; i++) {
		const struct lnode *n = l->nodes[i];
		size_t live = 0, held = 0;

		for (k = 0; k < n->npods; k++) {
			live += n->pods[k]->state != POD_DEPARTED;
			held += taken(n->pods[k]);
		}
		if (live == 0 && held == 0)
			continue;
		rows[m].node = view_str(a, n->name);
		rows[m].pods = live;
		rows[m].assumed = held;
		m++;
	}
	*out = rows;
	return m;
}

char *ledger_json(struct ledger *l, const char *node)
{
	int64_t now = store_now_ms();
	struct ledger_json_node v;
	struct ledger_json_row *rows;
	char *out = NULL;
	struct arena a;
	size_t n;

	arena_init(&a);
	pthread_mutex_lock(&l->lock);
	/* Every change shown here is already in the store's snapshots. */
	while (l->refreshing > 0)
		pthread_cond_wait(&l->refreshed, &l->lock);
	if (node) {
		const struct lnode *ln = node_find(l, node);

		if (ln != NULL)
			node_view(l, ln, now, &a, &v);
		pthread_mutex_unlock(&l->lock);
		if (ln != NULL)
			out = ledger_json_node(&v);
	} else {
		n = summary_view(l, &a, &rows);
		pthread_mutex_unlock(&l->lock);
		out = ledger_json_summary(ledger_mode_name(l->o.mode), rows, n);
	}
	arena_cleanup(&a);
	return out;
}
