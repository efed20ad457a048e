/* SPDX-License-Identifier: Apache-2.0 */
#include "cycle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/pod_cycle.h"
#include "scheduler/scalar_index.h"
#include "scheduler/select.h"

#define NO_NODES "no nodes available to schedule pods"
#define AFFINITY_CONFLICT "pod affinity terms conflict"
#define PREFILTER_REJECT "node(s) didn't satisfy plugin(s) [NodeAffinity]"

struct sched_cycle_ctx {
	struct sched_scalar_index *index;
	/* Working arrays of at least cap entries (the node count + 1); what
	 * a cycle reads of them it writes first. */
	size_t cap;
	size_t *cand;
	size_t *feasible;
	bool *pass, *unresolvable, *has;
	const char **reason;
	int64_t *score;
};

/* The working state of one cycle. */
struct run {
	const struct sched_cycle_in *in;
	struct sched_cycle_out *out;
	struct sched_cycle_ctx *ctx;
	struct sched_pod_cycle pc;
	struct sched_filter_run fr;
	size_t *cand;      /* nodes the filters may look at */
	size_t ncand;
	size_t nall;       /* valid nodes */
	size_t *feasible;  /* after filters, then after extenders */
	size_t nfeasible;
};

struct sched_cycle_ctx *sched_cycle_ctx_new(void)
{
	struct sched_cycle_ctx *ctx = xcalloc(1, sizeof *ctx);

	ctx->index = sched_scalar_index_new();
	return ctx;
}

void sched_cycle_ctx_free(struct sched_cycle_ctx *ctx)
{
	if (ctx == NULL)
		return;
	sched_scalar_index_free(ctx->index);
	free(ctx->cand);
	free(ctx->feasible);
	free(ctx->pass);
	free(ctx->unresolvable);
	free(ctx->has);
	free(ctx->reason);
	free(ctx->score);
	free(ctx);
}

static void ctx_reserve(struct sched_cycle_ctx *ctx, size_t n)
{
	if (n < ctx->cap)
		return;
	ctx->cap = n + 1;
	ctx->cand = xreallocarray(ctx->cand, ctx->cap, sizeof *ctx->cand);
	ctx->feasible = xreallocarray(ctx->feasible, ctx->cap, sizeof *ctx->feasible);
	ctx->pass = xreallocarray(ctx->pass, ctx->cap, sizeof *ctx->pass);
	ctx->unresolvable = xreallocarray(ctx->unresolvable, ctx->cap, sizeof *ctx->unresolvable);
	ctx->has = xreallocarray(ctx->has, ctx->cap, sizeof *ctx->has);
	ctx->reason = xreallocarray(ctx->reason, ctx->cap, sizeof *ctx->reason);
	ctx->score = xreallocarray(ctx->score, ctx->cap, sizeof *ctx->score);
}

/* An extender's reason texts stay put until its call ends: remembered by
 * address, a text many nodes share is interned once, not hashed per node. */
#define TEXT_MEMO 16

struct text_memo {
	const char *from[TEXT_MEMO];
	const char *to[TEXT_MEMO];
};

static const char *intern_memo(struct text_memo *m, struct sched_reasons *r, const char *text)
{
	size_t k = (size_t)(((uint64_t)(uintptr_t)text * UINT64_C(0x9E3779B97F4A7C15)) >> 60);

	if (m->from[k] != text) {
		m->from[k] = text;
		m->to[k] = sched_reasons_intern(r, text);
	}
	return m->to[k];
}

/* Node at is rejected for text (static or interned in out->reasons). */
static void reject(struct run *r, size_t at, enum sched_code code, const char *plugin,
		   const char *text)
{
	sched_status_add(r->out->reasons, &r->out->status[at], code, plugin, &text, 1, false);
}

static void fail(struct run *r, enum sched_outcome o, const char *msg)
{
	r->out->outcome = o;
	free(r->out->message);
	r->out->message = xstrdup(msg);
}

static bool name_in(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* The valid nodes, cut by NodeAffinity's PreFilter. False when the PreFilter
 * rejects the pod outright. */
static bool prefilter(struct run *r)
{
	const struct sched_cycle_in *in = r->in;
	const char **names = NULL;
	size_t nnames = 0, i;
	bool restricted = in->profile->filter[SCHED_NODE_AFFINITY] &&
			  sched_affinity_node_names(in->pod, &names, &nnames);

	if (restricted && nnames == 0) {
		free(names);
		for (i = 0; i < in->nnodes; i++)
			reject(r, i, SCHED_UNSCHEDULABLE_UNRESOLVABLE, "NodeAffinity",
			       AFFINITY_CONFLICT);
		return false;
	}
	for (i = 0; i < in->nnodes; i++) {
		if (in->nodes[i].invalid != NULL)
			continue;
		if (restricted && !name_in(names, nnames, in->nodes[i].name)) {
			r->out->stage[i] = SCHED_PREFILTERED;
			reject(r, i, SCHED_UNSCHEDULABLE_UNRESOLVABLE, "NodeAffinity",
			       PREFILTER_REJECT);
			continue;
		}
		r->cand[r->ncand++] = i;
	}
	free(names);
	return true;
}

static bool has_score_plugins(const struct sched_profile *p)
{
	size_t i;

	for (i = 0; i < SCHED_PLUGIN_COUNT; i++)
		if (p->score[i])
			return true;
	return p->other_scorers;
}

/* The extenders in the order kube-scheduler calls them: the ignorable ones
 * moved to the tail. None when the caller gives no answers. */
static size_t extender_order(const struct sched_cycle_in *in, size_t *order)
{
	size_t i, k = 0, pass;

	if (in->ops == NULL || in->config == NULL)
		return 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < in->config->nextenders; i++)
			if (in->config->extenders[i].ignorable == (pass == 1))
				order[k++] = i;
	return k;
}

static int64_t nodes_to_find(struct run *r, const size_t *ext, size_t next)
{
	bool ext_filters = false, scoring = has_score_plugins(r->in->profile);
	size_t i;

	for (i = 0; i < next; i++) {
		const struct sched_extender *e = &r->in->config->extenders[ext[i]];

		ext_filters = ext_filters || sched_extender_filters(e);
		scoring = scoring || sched_extender_prioritizes(e);
	}
	if (!ext_filters && !scoring)
		return 1;
	return sched_num_feasible(sched_percentage(r->in->config, r->in->profile),
				  (int64_t)r->ncand);
}

/* findNodesThatPassFilters, one node at a time from start. */
static void run_filters(struct run *r, int64_t k)
{
	const struct sched_cycle_in *in = r->in;
	size_t i, processed = 0, next = r->ncand > 0 ? in->start % r->ncand : 0;

	for (i = 0; i < r->ncand && (int64_t)r->nfeasible < k; i++) {
		/* cand[(start + i) % ncand], without a division a node. */
		size_t at = r->cand[next];
		struct sched_status *st = &r->out->status[at];

		next = next + 1 == r->ncand ? 0 : next + 1;
		processed++;
		if (!in->nodes[at].cpu_known)
			r->out->approximate = true;
		sched_filter_run_node(&r->fr, in->nodes, at, st);
		if (st->code == SCHED_SUCCESS) {
			r->out->stage[at] = SCHED_FEASIBLE;
			r->feasible[r->nfeasible++] = at;
		} else {
			r->out->stage[at] = SCHED_FILTERED;
		}
	}
	r->out->nfeasible = r->nfeasible;
	r->out->next_start = r->nall == 0 ? 0 : (in->start + processed) % r->nall;
}

/* One extender's filter over the feasible nodes. False on a failure that
 * ends the cycle. */
static bool extender_filter(struct run *r, size_t ext)
{
	const struct sched_extender *e = &r->in->config->extenders[ext];
	struct sched_ext_filter f;
	struct errmsg msg = { { 0 } };
	size_t n = r->nfeasible, i, kept = 0;
	struct text_memo memo;
	bool ok;

	f.pass = r->ctx->pass;
	f.reason = r->ctx->reason;
	f.unresolvable = r->ctx->unresolvable;
	memset(f.pass, 0, n * sizeof *f.pass);
	memset(f.reason, 0, n * sizeof *f.reason);
	memset(f.unresolvable, 0, n * sizeof *f.unresolvable);
	f.echoed = false;
	memset(&memo, 0, sizeof memo);
	ok = r->in->ops->filter == NULL ||
	     r->in->ops->filter(r->in->ops->arg, ext, r->in->pod, r->in->nodes, r->feasible,
				n, &f, &msg) == ERR_OK;
	if (r->in->ops->filter == NULL)
		memset(f.pass, 1, n * sizeof *f.pass);
	if (!ok && !e->ignorable) {
		fail(r, SCHED_ERROR, msg.text);
	} else if (ok) {
		for (i = 0; i < n; i++) {
			size_t at = r->feasible[i];

			if (f.pass[i]) {
				r->feasible[kept++] = at;
				continue;
			}
			r->out->stage[at] = SCHED_EXTENDER_FILTERED;
			if (f.reason[i] == NULL) {
				r->out->status[at].code = SCHED_UNSCHEDULABLE;
				continue;
			}
			reject(r, at, f.unresolvable[i] ? SCHED_UNSCHEDULABLE_UNRESOLVABLE
							: SCHED_UNSCHEDULABLE,
			       "Extender", intern_memo(&memo, r->out->reasons, f.reason[i]));
		}
		r->nfeasible = kept;
		r->out->fresh = r->out->fresh || f.echoed;
	}
	return ok || e->ignorable;
}

static bool run_extender_filters(struct run *r, const size_t *ext, size_t next)
{
	size_t i;

	for (i = 0; i < next && r->nfeasible > 0; i++) {
		const struct sched_extender *e = &r->in->config->extenders[ext[i]];

		if (!sched_extender_interested(e, r->in->pod) || !sched_extender_filters(e))
			continue;
		if (!extender_filter(r, ext[i]))
			return false;
	}
	return true;
}

/* Every interested extender's prioritize (prioritizeNodes). */
static void run_extender_scores(struct run *r, const size_t *ext, size_t next)
{
	size_t n = r->nfeasible, i, j;
	int64_t *score = r->ctx->score;
	bool *has = r->ctx->has;

	for (i = 0; i < next; i++) {
		const struct sched_extender *e = &r->in->config->extenders[ext[i]];
		struct errmsg msg = { { 0 } };
		int64_t weight = e->weight;

		if (!sched_extender_interested(e, r->in->pod))
			continue;
		memset(score, 0, n * sizeof *score);
		/* Without a prioritize verb: score 0, weight 0, every node. */
		memset(has, !sched_extender_prioritizes(e), n * sizeof *has);
		if (sched_extender_prioritizes(e)) {
			if (r->in->ops->prioritize == NULL ||
			    r->in->ops->prioritize(r->in->ops->arg, ext[i], r->in->pod, r->in->nodes,
						   r->feasible, n, score, has, &msg) != ERR_OK)
				continue;
		} else {
			weight = 0;
		}
		for (j = 0; j < n; j++)
			if (has[j])
				sched_add_extender_score(&r->out->scores[j], score[j], weight);
	}
}

static void run_scores(struct run *r, const size_t *ext, size_t next)
{
	struct sched_cycle_out *out = r->out;
	size_t i;

	out->scored = true;
	out->nscores = r->nfeasible;
	out->scores = xcalloc(r->nfeasible, sizeof *out->scores);
	if (next == 0 && !has_score_plugins(r->in->profile)) {
		/* No score plugin and no extender: every node scores 1. */
		for (i = 0; i < r->nfeasible; i++) {
			out->scores[i].node = r->feasible[i];
			out->scores[i].total = 1;
		}
	} else {
		sched_score_nodes(&r->pc, r->in->nodes, r->feasible, r->nfeasible,
				  out->fresh && sched_score_sees_extender_nodes(r->in->version),
				  out->scores);
		run_extender_scores(r, ext, next);
	}
	out->tied = xcalloc(r->nfeasible, sizeof *out->tied);
	out->ntied = sched_top_nodes(out->scores, out->nscores, r->in->nodes, out->tied);
	for (i = 0; i < out->ntied; i++)
		out->tied[i] = out->scores[out->tied[i]].node;
	out->chosen = out->tied[0];
	out->outcome = SCHED_SCHEDULED;
}

static void decide(struct run *r, const size_t *ext, size_t next)
{
	struct sched_cycle_out *out = r->out;

	if (r->nfeasible == 0) {
		out->outcome = SCHED_NO_FIT;
		out->message = sched_fit_error(out->status, out->nnodes, r->nall, NULL);
	} else if (r->nfeasible == 1) {
		out->outcome = SCHED_SCHEDULED;
		out->chosen = r->feasible[0];
		out->tied = xcalloc(1, sizeof *out->tied);
		out->tied[0] = out->chosen;
		out->ntied = 1;
	} else {
		run_scores(r, ext, next);
	}
}

enum sched_outcome sched_schedule_one(const struct sched_cycle_in *in,
				      struct sched_cycle_out *out)
{
	struct sched_cycle_ctx *ctx = sched_cycle_ctx_new();
	enum sched_outcome o = sched_schedule_one_ctx(in, ctx, out);

	sched_cycle_ctx_free(ctx);
	return o;
}

enum sched_outcome sched_schedule_one_ctx(const struct sched_cycle_in *in,
					  struct sched_cycle_ctx *ctx,
					  struct sched_cycle_out *out)
{
	struct run r;
	size_t *ext, next, i;

	memset(out, 0, sizeof *out);
	memset(&r, 0, sizeof r);
	r.in = in;
	r.out = out;
	r.ctx = ctx;
	out->nnodes = in->nnodes;
	out->stage = xcalloc(in->nnodes + 1, sizeof *out->stage);
	out->status = xcalloc(in->nnodes + 1, sizeof *out->status);
	out->reasons = sched_reasons_new();
	for (i = 0; i < in->nnodes; i++)
		r.nall += in->nodes[i].invalid == NULL;
	if (r.nall == 0) {
		fail(&r, SCHED_ERROR, NO_NODES);
		return out->outcome;
	}
	ctx_reserve(ctx, in->nnodes);
	sched_scalar_index_sync(ctx->index, in->nodes, in->nnodes);
	r.cand = ctx->cand;
	r.feasible = ctx->feasible;
	ext = xcalloc((in->config != NULL ? in->config->nextenders : 0) + 1, sizeof *ext);
	next = extender_order(in, ext);
	sched_pod_cycle_init(&r.pc, in->profile, in->version, in->pod);
	sched_filter_run_init(&r.fr, &r.pc, out->reasons, ctx->index, false);
	if (!prefilter(&r)) {
		out->outcome = SCHED_NO_FIT;
		out->message = sched_fit_error(out->status, out->nnodes, r.nall, AFFINITY_CONFLICT);
	} else {
		out->num_to_find = nodes_to_find(&r, ext, next);
		run_filters(&r, out->num_to_find);
		if (run_extender_filters(&r, ext, next))
			decide(&r, ext, next);
	}
	sched_filter_run_cleanup(&r.fr);
	sched_pod_cycle_cleanup(&r.pc);
	free(ext);
	return out->outcome;
}

void sched_cycle_out_cleanup(struct sched_cycle_out *out)
{
	size_t i;

	/* A cycle's statuses borrow from out->reasons: none owns anything. */
	for (i = 0; out->status != NULL && i < out->nnodes; i++)
		if (out->status[i].owned)
			sched_status_cleanup(&out->status[i]);
	free(out->status);
	sched_reasons_free(out->reasons);
	free(out->stage);
	free(out->scores);
	free(out->tied);
	free(out->message);
	memset(out, 0, sizeof *out);
}

const struct sched_node_score *sched_cycle_score(const struct sched_cycle_out *out,
						 size_t node)
{
	size_t i;

	for (i = 0; i < out->nscores; i++)
		if (out->scores[i].node == node)
			return &out->scores[i];
	return NULL;
}
