/* SPDX-License-Identifier: Apache-2.0 */
/* One pod at a time through kube-scheduler's cycle, numa-extender's answers
 * from decide() (sim_place.h). */
#include "extender/cmd/sim_place.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/cmd/sim_dra.h"
#include "extender/cmd/sim_report.h"
#include "extender/config.h"
#include "extender/decide/decide.h"
#include "extender/decide/dra.h"
#include "extender/decide/verdict_cache.h"
#include "scheduler/cycle.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"

/* A cycle's reasons outlive the extender's call only until the cycle copies
 * them; identical causes give identical reasons, so a few texts serve every
 * pod: each is kept once for the placer's life. */
struct reasons {
	char **texts;
	size_t n;
	size_t last;
};

/* numa-extender's last answer on a node for one demand, valid while the
 * node keeps its snapshot. */
#define SIM_MEMO_DEMANDS 8

struct memo {
	uint64_t snap;    /* snapshot id (0: none held) */
	bool passes;
	bool unresolvable;
	int64_t score;
	const char *reason; /* interned, or NULL */
};

struct sim_placer {
	struct sim_cluster *c;
	const struct sim_setup *s;
	const struct settings *settings;
	size_t start;             /* nextStartNodeIndex */
	struct decide_input in;   /* the pod being placed */
	/* Each node's last answer for each of the last SIM_MEMO_DEMANDS
	 * demands, in arrays read in node order: a placement asks about a
	 * demand seen a few pods before, on snapshots all but a few of which
	 * are unchanged since, and these answer without the verdict cache's
	 * lookups (a few cache misses each in a table of megabytes). What they
	 * do not hold, decide() answers: from the verdict cache, or judged. */
	struct {
		uint64_t demand;  /* 0: unused */
		uint64_t used;    /* the placement that last used it */
		struct memo *at;  /* one per node */
	} memos[SIM_MEMO_DEMANDS];
	struct memo *memo;        /* the current pod's (one of memos[]) */
	uint64_t tick;
	/* The nodes to ask decide() about in one call (decide_many fetches
	 * their cache sets and snapshots ahead). */
	size_t *ask;
	const struct inventory_node **ask_inv;
	uint64_t *ask_ids;
	struct decision_brief *briefs;
	struct reasons reasons;
	struct sched_cycle_ctx *cycle; /* the scheduler's index of the views */
	struct sim_stats stats;
	/* --dra: the run's DRA objects, the snapshot the current pod is judged
	 * on, the views by name (decide's dra_node) and the serial of the
	 * allocations published. */
	struct dra_store *dra_store;
	bool labels_known;
	const struct dra_snapshot *dra_snap;
	struct dra_pod *dra_pod;  /* the current pod's, or NULL */
	size_t *by_name;
	uint64_t dra_serial;
};

void sim_placement_cleanup(struct sim_placement *p)
{
	size_t i;

	for (i = 0; i < p->ndevices; i++) {
		free(p->devices[i].claim);
		free(p->devices[i].request);
		free(p->devices[i].driver);
		free(p->devices[i].pool);
		free(p->devices[i].device);
	}
	free(p->devices);
	free(p->dra_why);
	free(p->tied);
	free(p->reason);
	memset(p, 0, sizeof *p);
	p->node = SIM_UNPLACED;
}

static const char *intern(struct reasons *r, const char *text)
{
	size_t i;

	if (r->n > 0 && strcmp(r->texts[r->last], text) == 0)
		return r->texts[r->last];
	for (i = 0; i < r->n; i++)
		if (strcmp(r->texts[i], text) == 0) {
			r->last = i;
			return r->texts[i];
		}
	r->texts = xreallocarray(r->texts, r->n + 1, sizeof *r->texts);
	r->texts[r->n] = xstrdup(text);
	r->last = r->n;
	return r->texts[r->n++];
}

struct sim_placer *sim_placer_new(struct sim_cluster *c, const struct sim_setup *s,
				  const struct settings *settings)
{
	struct sim_placer *p = xcalloc(1, sizeof *p);
	size_t i;

	p->c = c;
	p->s = s;
	p->settings = settings;
	for (i = 0; i < SIM_MEMO_DEMANDS; i++)
		p->memos[i].at = xcalloc(c->n + 1, sizeof *p->memos[i].at);
	p->ask = xcalloc(c->n + 1, sizeof *p->ask);
	p->ask_inv = xcalloc(c->n + 1, sizeof *p->ask_inv);
	p->ask_ids = xcalloc(c->n + 1, sizeof *p->ask_ids);
	p->briefs = xcalloc(c->n + 1, sizeof *p->briefs);
	p->cycle = sched_cycle_ctx_new();
	return p;
}

void sim_placer_free(struct sim_placer *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->reasons.n; i++)
		free(p->reasons.texts[i]);
	free(p->reasons.texts);
	free(p->by_name);
	for (i = 0; i < SIM_MEMO_DEMANDS; i++)
		free(p->memos[i].at);
	free(p->ask);
	free(p->ask_inv);
	free(p->ask_ids);
	free(p->briefs);
	sched_cycle_ctx_free(p->cycle);
	free(p);
}

void sim_placer_stats(const struct sim_placer *p, struct sim_stats *out)
{
	*out = p->stats;
}

void sim_placer_set_dra(struct sim_placer *p, struct dra_store *store, bool labels_known)
{
	p->dra_store = store;
	p->labels_known = labels_known;
	free(p->by_name);
	p->by_name = store != NULL ? sim_nodes_by_name(p->c) : NULL;
}

/* The view of the node named name (dra_pod_input.node_of), or NULL. */
static const struct sched_node *view_named(const void *ctx, const char *name)
{
	const struct sim_placer *p = ctx;
	size_t lo = 0, hi = p->c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sched_node *v = &p->c->views[p->by_name[mid]];
		int c = strcmp(v->name, name);

		if (c == 0)
			return v;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The verdict cache's id of node i's state for the current pod: its
 * snapshot's, mixed with its DRA state for a pod with claims; 0 without
 * inventory. */
static uint64_t node_id(const struct sim_placer *p, size_t i)
{
	const struct store_node *sn = p->c->numa[i].now;

	if (sn == NULL)
		return 0;
	return p->in.dra != NULL ? dra_pod_cache_id(p->in.dra, p->c->views[i].name, sn->id) : sn->id;
}

/* decide() on node i's current snapshot, counted. */
static void decide_node(struct sim_placer *p, size_t i, const struct decide_input *in,
			struct decision *d)
{
	const struct store_node *sn = p->c->numa[i].now;

	decide(in, sn ? sn->inventory : NULL, node_id(p, i), d);
	p->stats.decided++;
	p->stats.judged += sn != NULL && !d->cached;
}

static bool known(const struct sim_placer *p, size_t i)
{
	uint64_t id = node_id(p, i);

	return id != 0 && p->memo[i].snap == id;
}

static void remember(struct sim_placer *p, size_t i, enum decision_outcome outcome, bool passes,
		     int64_t score, const char *reason)
{
	struct memo *m = &p->memo[i];

	m->snap = node_id(p, i);
	m->passes = passes;
	/* Where serve's filter puts a rejection: FailedNodes for a failure
	 * preemption may cure, else FailedAndUnresolvableNodes. */
	m->unresolvable = !passes && outcome != DECISION_FAILED;
	m->score = score;
	m->reason = reason && reason[0] ? intern(&p->reasons, reason) : NULL;
}

/* Makes memo[idx[0..n)] hold this pod's answers: what it lacks is asked of
 * decide_many in one call. */
static void answer(struct sim_placer *p, const size_t *idx, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct store_node *sn = p->c->numa[idx[i]].now;

		if (known(p, idx[i]))
			continue;
		p->ask[k] = idx[i];
		p->ask_inv[k] = sn ? sn->inventory : NULL;
		p->ask_ids[k] = node_id(p, idx[i]);
		k++;
	}
	if (k == 0)
		return;
	decide_many(&p->in, NULL, k, p->ask_inv, p->ask_ids, p->briefs);
	for (i = 0; i < k; i++) {
		const struct decision_brief *b = &p->briefs[i];

		remember(p, p->ask[i], b->outcome, b->passes, b->score, b->reason);
		p->stats.judged += p->ask_inv[i] != NULL && !b->cached;
	}
	p->stats.decided += k;
	/* decision_briefs_free frees the array too: free what they own only. */
	for (i = 0; i < k; i++)
		if (p->briefs[i].owns_reason)
			free(p->briefs[i].reason);
	/* A node without inventory is answered by missingInventory alone and
	 * has no snapshot id to remember it under: it is asked each time. */
}

/* Points memo at the current demand's answers: its own array when one is
 * kept, else the least recently used one, emptied. */
static void use_memo(struct sim_placer *p)
{
	size_t i, lru = 0;

	p->tick++;
	for (i = 0; i < SIM_MEMO_DEMANDS; i++) {
		/* 0 (no cache id: a DRA key cut short) is every pod's own. */
		if (p->memos[i].demand == p->in.demand_id && p->in.demand_id != 0)
			break;
		if (p->memos[i].used < p->memos[lru].used)
			lru = i;
	}
	if (i == SIM_MEMO_DEMANDS) {
		i = lru;
		p->memos[i].demand = p->in.demand_id;
		memset(p->memos[i].at, 0, p->c->n * sizeof *p->memos[i].at);
	}
	p->memos[i].used = p->tick;
	p->memo = p->memos[i].at;
}

static bool is_numa(const struct sim_placer *p, size_t ext)
{
	return p->s->has_numa && ext == p->s->numa;
}

static enum err ext_filter(void *arg, size_t ext, const struct sched_pod *pod,
			   const struct sched_node *nodes, const size_t *cand, size_t n,
			   struct sched_ext_filter *out, struct errmsg *msg)
{
	struct sim_placer *p = arg;
	size_t i;

	(void)pod;
	(void)nodes;
	(void)msg;
	if (!is_numa(p, ext)) {
		/* Another extender: not modelled, it keeps every node. */
		memset(out->pass, 1, n * sizeof *out->pass);
		return ERR_OK;
	}
	answer(p, cand, n);
	for (i = 0; i < n; i++) {
		const struct memo *m = &p->memo[cand[i]];

		out->pass[i] = m->passes;
		out->unresolvable[i] = m->unresolvable;
		out->reason[i] = m->passes ? NULL : m->reason;
	}
	return ERR_OK;
}

static enum err ext_prioritize(void *arg, size_t ext, const struct sched_pod *pod,
			       const struct sched_node *nodes, const size_t *idx, size_t n,
			       int64_t *score, bool *has, struct errmsg *msg)
{
	struct sim_placer *p = arg;
	size_t i;

	(void)pod;
	(void)nodes;
	(void)msg;
	if (!is_numa(p, ext))
		return ERR_OK; /* another extender scores nothing */
	answer(p, idx, n);
	for (i = 0; i < n; i++) {
		score[i] = p->memo[idx[i]].score;
		has[i] = true;
	}
	return ERR_OK;
}

/* The pod's predicted usage off node i's snapshot: a new snapshot, with a
 * new id, unless the pod takes nothing NUMA-bound (the old one stays valid,
 * and so do its cached verdicts). */
static void take(struct sim_placer *p, size_t i, const struct verdict *v)
{
	const struct inventory_node *inv = p->c->numa[i].now->inventory;
	struct inventory_usage *usage;
	struct inventory_node *fresh;
	size_t m = 0;
	int r, d;

	usage = xcalloc((size_t)inv->nresources * (size_t)inv->numa_count + 1, sizeof *usage);
	for (r = 0; r < inv->nresources; r++)
		for (d = 0; d < inv->numa_count; d++) {
			int64_t used = verdict_usage(v, r, d);

			if (used <= 0)
				continue;
			usage[m].resource = inv->resources[r].name;
			usage[m].numa_id = inv->numa_ids[d];
			usage[m].amount = used;
			m++;
		}
	if (m > 0) {
		fresh = inventory_node_take(inv, usage, m);
		sim_cluster_replace(p->c, i, store_node_new(fresh, "simulate", inv->version, NULL));
	}
	free(usage);
}

static char *text_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *text_of(const char *fmt, ...)
{
	struct textbuf t;
	va_list ap;

	textbuf_init(&t, 4096);
	va_start(ap, fmt);
	textbuf_vprintf(&t, fmt, ap);
	va_end(ap);
	return textbuf_take(&t, NULL);
}

/* The devices of a kept prediction, for the report. */
static void devices_of(const struct dra_pod *dp, const struct dra_alloc_result *alloc,
		       struct sim_placement *out)
{
	const struct dra_pod_claim *pcs;
	const struct dra_claim *const *claims;
	size_t n = dra_pod_claims_resolved(dp, &pcs, &claims), i, k, total = 0;

	if (alloc->verdict != DRA_ALLOC_OK && alloc->verdict != DRA_ALLOC_SAME_NUMA)
		return;
	if (alloc->nclaims < n)
		n = alloc->nclaims;
	for (i = 0; i < n; i++)
		total += alloc->claims[i].n;
	out->devices = xcalloc(total + 1, sizeof *out->devices);
	for (i = 0; i < n; i++)
		for (k = 0; k < alloc->claims[i].n; k++) {
			const struct dra_pick *pk = &alloc->claims[i].picks[k];
			struct sim_dra_device *d = &out->devices[out->ndevices++];

			d->claim = xstrdup(pcs[i].name ? pcs[i].name : "");
			d->request = xstrdup(pk->request ? pk->request : "");
			d->driver = xstrdup(pk->driver ? pk->driver : "");
			d->pool = xstrdup(pk->pool ? pk->pool : "");
			d->device = xstrdup(pk->device ? pk->device : "");
			d->numa = pk->numa;
		}
}

/* The pod's DRA verdict on node i where it lands (kubelet: the kubelet's
 * verdict; NULL without inventory), for the report, and its predicted
 * devices taken: published as its claims' allocations. */
static void land_dra(struct sim_placer *p, const struct sched_pod *pod, size_t i,
		     const struct verdict *kubelet, struct sim_placement *out)
{
	struct dra_node_verdict dv;
	struct verdict none;
	bool no_inventory = kubelet == NULL;

	if (p->in.dra == NULL)
		return;
	if (no_inventory) {
		/* Nothing to align with, but the scheduler allocates all the same. */
		memset(&none, 0, sizeof none);
		kubelet = &none;
	}
	dra_judge(p->in.dra, &p->c->views[i], kubelet, DRA_JUDGE_KEEP, &dv);
	out->has_dra = true;
	out->dra = (unsigned char)dv.outcome;
	if (no_inventory && dv.outcome == DRA_OUTCOME_NO_CLAIMS)
		out->dra_why = xstrdup("no NodeResourceTopology inventory: nothing to align with");
	else
		out->dra_why = dv.why[0] ? xstrdup(dv.why) : NULL;
	if (dv.kept) {
		devices_of(p->in.dra, &dv.alloc, out);
		sim_dra_allocate(p->dra_store, p->in.dra, pod->spec.namespace_, pod->spec.name,
				 p->c->views[i].name, &dv.alloc, &p->dra_serial);
	}
	dra_node_verdict_cleanup(&dv);
}

/* numa-extender's verdict on the chosen node, with the usage to take off;
 * false (and out->reason) when the kubelet would turn the pod away, which
 * only happens where the scheduler placed it without asking numa-extender. */
static bool land(struct sim_placer *p, const struct sched_pod *pod, size_t i,
		 struct sim_placement *out)
{
	struct decide_input in = p->in;
	struct decision d;
	bool ok = true;

	if (p->c->numa[i].now == NULL) {
		/* No inventory: nothing to take, nothing known. */
		land_dra(p, pod, i, NULL, out);
		sched_node_add_pod(&p->c->views[i], pod, p->s->version);
		return true;
	}
	in.flags = DECIDE_VERDICT;
	in.demand_fresh = false;
	decide_node(p, i, &in, &d);
	if (!d.passes) {
		out->reason = text_of("the scheduler alone put it on %s, whose kubelet would turn it "
				      "away: %s",
				      p->c->views[i].name, d.reason);
		ok = false;
	} else {
		out->ext_score = d.score;
		out->numa_ids = d.numa_ids;
		take(p, i, &d.verdict);
		land_dra(p, pod, i, &d.verdict, out);
		sched_node_add_pod(&p->c->views[i], pod, p->s->version);
	}
	decision_cleanup(&d);
	return ok;
}

/* The verdict cache's id of the pod's demand and, with DRA, its claims
 * (0: a key cut short, no cache). */
static uint64_t demand_id_of(struct sim_placer *p, const struct pod_demand *demand)
{
	char *key = pod_demand_key(demand);
	struct textbuf b;
	uint64_t id;

	if (p->in.dra == NULL) {
		id = verdict_cache_intern(key, &p->in.demand_fresh);
		free(key);
		return id;
	}
	textbuf_init(&b, VERDICT_CACHE_DEMAND_KEY_MAX + 1);
	textbuf_adds(&b, key);
	dra_pod_key(p->in.dra, &b);
	p->in.demand_fresh = false;
	id = textbuf_failed(&b) ? 0 : verdict_cache_intern(textbuf_str(&b), &p->in.demand_fresh);
	textbuf_free(&b);
	free(key);
	return id;
}

/* The pod's claims resolved in the DRA store's current snapshot, when it
 * has claims and DRA verdicts are on. */
static void dra_begin(struct sim_placer *p, const struct sched_pod *pod,
		      const struct dra_pod_claims *claims)
{
	struct dra_pod_input in;

	if (p->dra_store == NULL || claims == NULL || claims->nclaims == 0 ||
	    p->settings->dra_alignment == CONFIG_DRA_OFF)
		return;
	p->dra_snap = dra_store_acquire(p->dra_store);
	memset(&in, 0, sizeof in);
	in.snap = p->dra_snap;
	in.claims = claims;
	in.namespace_ = pod->spec.namespace_;
	in.pod_name = pod->spec.name;
	in.order = p->settings->dra_order == CONFIG_DRA_UNSORTED ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED;
	in.node_labels_known = p->labels_known;
	in.node_of = view_named;
	in.node_ctx = p;
	p->dra_pod = dra_pod_new(&in);
	p->in.dra = p->dra_pod;
}

static void dra_end(struct sim_placer *p)
{
	dra_pod_free(p->dra_pod);
	p->dra_pod = NULL;
	if (p->dra_snap != NULL)
		dra_snapshot_release(p->dra_snap);
	p->dra_snap = NULL;
	p->in.dra = NULL;
}

void sim_place_one(struct sim_placer *p, const struct sched_pod *pod, struct sim_placement *out)
{
	sim_place_one_dra(p, pod, NULL, out);
}

void sim_place_one_dra(struct sim_placer *p, const struct sched_pod *pod,
		       const struct dra_pod_claims *claims, struct sim_placement *out)
{
	struct sched_extender_ops ops = { p, ext_filter, ext_prioritize };
	const struct sim_setup *s = p->s;
	struct pod_demand *demand = NULL;
	struct sched_cycle_out co;
	struct errmsg msg;
	bool fallback;
	const struct sched_profile *profile = sim_profile_for(s, pod, &fallback);

	memset(out, 0, sizeof *out);
	out->node = SIM_UNPLACED;
	out->profile_fallback = fallback;
	if (profile == NULL) {
		out->reason = text_of("no profile for schedulerName \"%s\" in %s: kube-scheduler "
				      "leaves the pod to another scheduler",
				      sched_pod_scheduler(pod), s->source ? s->source : "the configuration");
		return;
	}
	if (pod_demand_new(&pod->spec, &demand, &msg) != ERR_OK) {
		out->reason = text_of("%s", msg.text);
		return;
	}
	p->in.demand = demand;
	p->in.settings = p->settings;
	dra_begin(p, pod, claims);
	p->in.demand_id = demand_id_of(p, demand);
	p->in.flags = 0;
	use_memo(p);
	{
		struct sched_cycle_in cin = {
			&s->config, profile, s->version, pod, p->c->views, p->c->n, p->start, &ops,
		};

		sched_schedule_one_ctx(&cin, p->cycle, &co);
	}
	p->stats.cycles++;
	p->start = co.next_start;
	out->asked = s->has_numa && sched_extender_interested(&s->config.extenders[s->numa], pod);
	out->nfeasible = co.nfeasible;
	out->approximate = co.approximate;
	if (co.outcome != SCHED_SCHEDULED) {
		out->reason = xstrdup(co.message ? co.message : "not scheduled");
	} else {
		out->tied = xcalloc(co.ntied + 1, sizeof *out->tied);
		memcpy(out->tied, co.tied, co.ntied * sizeof *out->tied);
		out->ntied = co.ntied;
		out->scored = co.scored;
		if (co.scored && sched_cycle_score(&co, co.chosen) != NULL)
			out->score = *sched_cycle_score(&co, co.chosen);
		if (land(p, pod, co.chosen, out))
			out->node = co.chosen;
	}
	sched_cycle_out_cleanup(&co);
	dra_end(p);
	pod_demand_free(demand);
	p->in.demand = NULL;
}

void sim_run_all(struct sim_run *run, const struct settings *settings,
		 const struct sched_pod *pods, size_t n)
{
	struct sim_placer *p = sim_placer_new(&run->cluster, &run->setup, settings);
	size_t i;

	if (run->dra != NULL)
		sim_placer_set_dra(p, run->dra, !run->cluster.nrt_only);
	run->placed = xcalloc(n + 1, sizeof *run->placed);
	run->npods = n;
	for (i = 0; i < n; i++) {
		sim_place_one_dra(p, &pods[i], run->claims ? &run->claims[i] : NULL, &run->placed[i]);
		run->nplaced += run->placed[i].node != SIM_UNPLACED;
	}
	sim_placer_stats(p, &run->stats);
	sim_placer_free(p);
}

void sim_run_cleanup(struct sim_run *run)
{
	size_t i;

	for (i = 0; run->placed != NULL && i < run->npods; i++)
		sim_placement_cleanup(&run->placed[i]);
	free(run->placed);
	if (run->dra != NULL)
		dra_store_free(run->dra);
	sim_cluster_cleanup(&run->cluster);
	sim_setup_cleanup(&run->setup);
	memset(run, 0, sizeof *run);
}
