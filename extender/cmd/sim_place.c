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
#include "extender/decide/decide.h"
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
};

void sim_placement_cleanup(struct sim_placement *p)
{
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

/* decide() on node i's current snapshot, counted. */
static void decide_node(struct sim_placer *p, size_t i, const struct decide_input *in,
			struct decision *d)
{
	const struct store_node *sn = p->c->numa[i].now;

	decide(in, sn ? sn->inventory : NULL, sn ? sn->id : 0, d);
	p->stats.decided++;
	p->stats.judged += sn != NULL && !d->cached;
}

static bool known(const struct sim_placer *p, size_t i)
{
	const struct store_node *sn = p->c->numa[i].now;
	const struct memo *m = &p->memo[i];

	return sn != NULL && m->snap == sn->id;
}

static void remember(struct sim_placer *p, size_t i, enum decision_outcome outcome, bool passes,
		     int64_t score, const char *reason)
{
	const struct store_node *sn = p->c->numa[i].now;
	struct memo *m = &p->memo[i];

	m->snap = sn ? sn->id : 0;
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
		p->ask_ids[k] = sn ? sn->id : 0;
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
		if (p->memos[i].demand == p->in.demand_id)
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
		sched_node_add_pod(&p->c->views[i], pod, p->s->version);
	}
	decision_cleanup(&d);
	return ok;
}

void sim_place_one(struct sim_placer *p, const struct sched_pod *pod, struct sim_placement *out)
{
	struct sched_extender_ops ops = { p, ext_filter, ext_prioritize };
	const struct sim_setup *s = p->s;
	struct pod_demand *demand = NULL;
	struct sched_cycle_out co;
	struct errmsg msg;
	bool fallback;
	const struct sched_profile *profile = sim_profile_for(s, pod, &fallback);
	char *key;

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
	key = pod_demand_key(demand);
	p->in.demand = demand;
	p->in.settings = p->settings;
	p->in.demand_id = verdict_cache_intern(key, &p->in.demand_fresh);
	p->in.flags = 0;
	free(key);
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
	pod_demand_free(demand);
	p->in.demand = NULL;
}

void sim_run_all(struct sim_run *run, const struct settings *settings,
		 const struct sched_pod *pods, size_t n)
{
	struct sim_placer *p = sim_placer_new(&run->cluster, &run->setup, settings);
	size_t i;

	run->placed = xcalloc(n + 1, sizeof *run->placed);
	run->npods = n;
	for (i = 0; i < n; i++) {
		sim_place_one(p, &pods[i], &run->placed[i]);
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
	sim_cluster_cleanup(&run->cluster);
	sim_setup_cleanup(&run->setup);
	memset(run, 0, sizeof *run);
}
