/* SPDX-License-Identifier: Apache-2.0 */
/* decide (decide.h): the judge, the score, the reason and the cache for one
 * node, for every caller. */
#include "extender/decide/decide.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/decide/pool.h"
#include "extender/decide/verdict_cache.h"
#include "base/xalloc.h"
#include "base/textbuf.h"

static const char *const outcome_names[DECISION_NOUTCOMES] = {
	[DECISION_PASS] = "pass",
	[DECISION_FAILED] = "failed",
	[DECISION_UNRESOLVABLE] = "unresolvable",
	[DECISION_NO_INVENTORY] = "noInventory",
};

const char *decision_outcome_name(enum decision_outcome o)
{
	return (unsigned)o < DECISION_NOUTCOMES ? outcome_names[o] : "unknown";
}

/* NUMA ids of the predicted placement: every container's affinity. */
static uint64_t placement_ids(const struct verdict *v)
{
	uint64_t ids = 0;
	size_t i;

	for (i = 0; i < v->ncontainers; i++)
		if (v->containers[i].has_affinity)
			ids |= v->containers[i].numa_ids;
	return ids;
}

static void no_inventory(const struct decide_input *in, struct decision *out)
{
	out->outcome = DECISION_NO_INVENTORY;
	out->kubelet_reason = REASON_NO_INVENTORY;
	out->passes = in->settings->missing_inventory == CONFIG_MISSING_ALLOW;
	/* Preemption cannot publish an inventory: under deny the node is
	 * unresolvable, and says why. */
	if (!out->passes)
		snprintf(out->reason, sizeof out->reason, "%s", DECISION_NO_INVENTORY_REASON);
}

/* Whether the DRA verdict adds a part to the score (dra.alignment:
 * prefer): then fold_dra scores a node that passes, once. */
static bool dra_scores(const struct decide_input *in)
{
	return in->dra != NULL && in->settings->dra_alignment == CONFIG_DRA_PREFER;
}

/* What the judge concluded, in the decision's terms. */
static void from_verdict(const struct decide_input *in, const struct inventory_node *inv,
			 const struct verdict *v, struct decision *out)
{
	if (v->admit) {
		out->outcome = DECISION_PASS;
		out->passes = true;
		out->kubelet_reason = REASON_NONE;
		out->numa_ids = placement_ids(v);
		if (!dra_scores(in))
			out->score = score_node(&in->settings->scoring, inv, v,
						in->flags & DECIDE_PARTS ? &out->parts : NULL);
	} else {
		out->outcome = v->unresolvable ? DECISION_UNRESOLVABLE : DECISION_FAILED;
		out->kubelet_reason = v->reason;
		verdict_summary(v, out->reason, sizeof out->reason);
		/* A rejection scores 0; its breakdown says why (explain shows it). */
		if (in->flags & DECIDE_PARTS)
			score_node(&in->settings->scoring, inv, v, &out->parts);
	}
	if (in->flags & (DECIDE_DETAIL | DECIDE_VERDICT))
		snprintf(out->message, sizeof out->message, "%s", v->message);
}

/* The DRA verdict folded into a decision the kubelet's verdict v made. */
static void fold_dra(const struct decide_input *in, const struct inventory_node *inv,
		     const struct verdict *v, struct decision *out)
{
	const struct settings *st = in->settings;
	struct sched_node node;
	struct dra_node_verdict dv;
	struct score_extra extra = { "dra", 0 };
	bool deny_unknown = st->dra_unknown_numa == CONFIG_DRA_UNKNOWN_DENY;
	bool against;

	/* A node the kubelet rejects anyway has nothing to align with: the
	 * allocator is not predicted there (most of a large filter's nodes,
	 * often). */
	out->dra = DRA_OUTCOME_NO_CLAIMS;
	if (out->outcome != DECISION_PASS)
		return;
	memset(&node, 0, sizeof node);
	node.name = inv->name;
	/* The reason text only where it is shown: require's rejections and
	 * explain's or the debug log's details. */
	dra_judge(in->dra, &node, v,
		  st->dra_alignment == CONFIG_DRA_REQUIRE ? DRA_JUDGE_REACH
		  : in->flags & (DECIDE_DETAIL | DECIDE_VERDICT) ? 0 : DRA_JUDGE_NO_WHY, &dv);
	out->dra = (unsigned char)dv.outcome;
	against = dv.outcome == DRA_OUTCOME_MISALIGNED ||
		  (dv.outcome == DRA_OUTCOME_UNKNOWN_NUMA && deny_unknown);
	if (st->dra_alignment == CONFIG_DRA_REQUIRE && against) {
		out->outcome = dv.unresolvable ? DECISION_UNRESOLVABLE : DECISION_FAILED;
		out->passes = false;
		out->kubelet_reason = REASON_DRA_ALIGNMENT;
		out->numa_ids = 0;
		out->score = 0;
		snprintf(out->reason, sizeof out->reason, "%s", dv.why);
		if (in->flags & (DECIDE_DETAIL | DECIDE_VERDICT))
			snprintf(out->message, sizeof out->message, "%s", dv.why);
		if (in->flags & DECIDE_PARTS) {
			memset(&out->parts, 0, sizeof out->parts);
			out->parts.note = "rejected";
		}
		return;
	}
	if (st->dra_alignment != CONFIG_DRA_PREFER)
		return;
	extra.score100 = dv.outcome == DRA_OUTCOME_ALIGNED ? 100 : 0;
	out->score = score_node_extra(&st->scoring, inv, v,
				      dv.outcome == DRA_OUTCOME_ALIGNED || against ? &extra : NULL,
				      in->flags & DECIDE_PARTS ? &out->parts : NULL);
}

static void remember(const struct decide_input *in, uint64_t snapshot_id, const struct decision *d)
{
	struct verdict_entry e;
	size_t len = strnlen(d->reason, sizeof e.reason - 1);

	/* Field by field and a plain copy (the cache reads the reason up to
	 * its NUL): this runs for every node judged. */
	e.outcome = (unsigned char)d->outcome;
	memcpy(e.reason, d->reason, len);
	e.reason[len] = '\0';
	e.kubelet_reason = d->kubelet_reason;
	e.score = d->score;
	e.numa_ids = d->numa_ids;
	e.dra = d->dra;
	verdict_cache_put(snapshot_id, in->settings->id, in->demand_id, &e);
}

static bool recall(const struct decide_input *in, uint64_t snapshot_id, struct decision *out)
{
	struct verdict_entry e;

	if (!verdict_cache_get(snapshot_id, in->settings->id, in->demand_id, &e))
		return false;
	out->outcome = (enum decision_outcome)e.outcome;
	out->passes = out->outcome == DECISION_PASS;
	/* The cache's reasons are at most VERDICT_REASON_MAX - 1 bytes, and
	 * terminated: a plain copy (this runs for every node of a repeat). */
	memcpy(out->reason, e.reason, strnlen(e.reason, sizeof out->reason - 1) + 1);
	out->reason[sizeof out->reason - 1] = '\0';
	out->kubelet_reason = e.kubelet_reason;
	out->score = e.score;
	out->numa_ids = e.numa_ids;
	out->dra = e.dra;
	out->cached = true;
	return true;
}

/* decide, with the lookups a fresh demand skipped added to *skipped. */
static void decide_at(const struct decide_input *in, const struct inventory_node *inv,
		      uint64_t snapshot_id, struct decision *out, uint64_t *skipped)
{
	/* Only these need more than the cache remembers. */
	const unsigned fresh = DECIDE_PARTS | DECIDE_DETAIL | DECIDE_VERDICT;
	bool cacheable = snapshot_id != 0 && in->demand_id != 0;
	bool look = cacheable && !(in->flags & fresh);
	struct verdict v;

	memset(out, 0, offsetof(struct decision, reason) + 1);
	out->message[0] = '\0';
	if (in->flags & DECIDE_PARTS)
		memset(&out->parts, 0, sizeof out->parts);
	if (inv == NULL) {
		no_inventory(in, out);
		return;
	}
	if (look && in->demand_fresh) {
		look = false;
		(*skipped)++;
	}
	if (!(look && recall(in, snapshot_id, out))) {
		/* Filter and prioritize alike ask whether an empty node would
		 * admit, so that every verb gives the same outcome. */
		judge_node_ex(inv, in->demand,
			      JUDGE_UNRESOLVABLE | (in->flags & (DECIDE_DETAIL | DECIDE_VERDICT) ? JUDGE_DETAIL : 0),
			      &v);
		from_verdict(in, inv, &v, out);
		if (in->dra != NULL && in->settings->dra_alignment != CONFIG_DRA_OFF)
			fold_dra(in, inv, &v, out);
		if (cacheable)
			remember(in, snapshot_id, out);
		if (in->flags & DECIDE_VERDICT) {
			out->verdict = v;
			out->has_verdict = true;
		} else {
			verdict_cleanup(&v);
		}
	}
	if ((in->flags & DECIDE_STALE) && out->reason[0]) {
		struct textbuf t;

		textbuf_attach(&t, out->reason, sizeof out->reason);
		textbuf_adds(&t, DECISION_STALE_SUFFIX);
	}
}

void decide(const struct decide_input *in, const struct inventory_node *inv, uint64_t snapshot_id,
	    struct decision *out)
{
	uint64_t skipped = 0;

	decide_at(in, inv, snapshot_id, out, &skipped);
	if (skipped)
		verdict_cache_count_misses(skipped);
}

void decision_cleanup(struct decision *d)
{
	if (d->has_verdict)
		verdict_cleanup(&d->verdict);
	d->has_verdict = false;
}

struct many {
	const struct decide_input *in;
	const struct inventory_node *const *inv;
	const uint64_t *ids;
	struct decision_brief *out;
};

/* Cold, the nodes' inventories and cache sets are scattered over many
 * megabytes: asked for ahead (inventory_node_prefetch), they arrive while
 * the node before is judged or read back. Inventories only when the nodes
 * will be judged: a known demand mostly reads the cache. */
static void ahead(const struct many *m, size_t i, size_t end, bool judging)
{
	if (i + 2 < end) {
		if (judging)
			inventory_node_prefetch(m->inv[i + 2], 0);
		if (m->inv[i + 2] != NULL && m->ids[i + 2] != 0 && m->in->demand_id != 0)
			verdict_cache_prefetch(m->ids[i + 2], m->in->settings->id, m->in->demand_id);
	}
	if (judging && i + 1 < end)
		inventory_node_prefetch(m->inv[i + 1], 1);
}

static void many_chunk(void *arg, size_t begin, size_t end)
{
	const struct many *m = arg;
	const char *last = NULL; /* this chunk's previous reason */
	bool judging = m->in->demand_id == 0 || m->in->demand_fresh;
	uint64_t skipped = 0;
	struct decision d;
	size_t i;

	/* The chunk's first nodes, as if the loop had run before them. */
	if (judging && begin < end) {
		inventory_node_prefetch(m->inv[begin], 0);
		if (begin + 1 < end)
			inventory_node_prefetch(m->inv[begin + 1], 0);
		inventory_node_prefetch(m->inv[begin], 1);
	}
	for (i = begin; i < end; i++) {
		struct decision_brief *b = &m->out[i];

		ahead(m, i, end, judging);
		decide_at(m->in, m->inv[i], m->ids[i], &d, &skipped);
		b->outcome = d.outcome;
		b->passes = d.passes;
		b->cached = d.cached;
		b->kubelet_reason = d.kubelet_reason;
		/* Identical causes give identical reasons, so neighbours often
		 * share one: the first owns the copy, the others point to it. */
		b->reason = NULL;
		b->owns_reason = false;
		if (d.reason[0] && last && strcmp(last, d.reason) == 0) {
			b->reason = (char *)(uintptr_t)last;
		} else if (d.reason[0]) {
			b->reason = xstrdup(d.reason);
			b->owns_reason = true;
			last = b->reason;
		}
		b->message = (m->in->flags & DECIDE_DETAIL) ? xstrdup(d.message) : NULL;
		b->numa_ids = d.numa_ids;
		b->score = d.score;
		b->dra = d.dra;
		decision_cleanup(&d); /* frees a verdict, were one asked for */
	}
	if (skipped)
		verdict_cache_count_misses(skipped);
}

void decide_many(const struct decide_input *in, struct decide_pool *pool, size_t n,
		 const struct inventory_node *const *inv, const uint64_t *snapshot_ids,
		 struct decision_brief *out)
{
	struct many m = { in, inv, snapshot_ids, out };
	size_t i, from = 0, judged = 0;

	/* The first two nodes' cache sets (many_chunk asks two ahead). */
	for (i = 0; i < 2 && i < n; i++)
		if (inv[i] != NULL && snapshot_ids[i] != 0 && in->demand_id != 0)
			verdict_cache_prefetch(snapshot_ids[i], in->settings->id, in->demand_id);
	if (n < DECIDE_SHARE_MIN) {
		many_chunk(&m, 0, n);
		return;
	}
	if (in->demand_id != 0 && !in->demand_fresh) {
		/* A demand the cache knows is mostly answered from it, a tenth of
		 * a microsecond a node: sharing that costs more than it saves
		 * (a helper's wake-up, cache lines passed between cores). The
		 * first nodes tell: only when many of them had to be judged
		 * (the inventory moved since) is the rest shared. */
		from = DECIDE_PROBE;
		many_chunk(&m, 0, from);
		for (i = 0; i < from; i++)
			judged += inv[i] != NULL && !out[i].cached;
		if (judged * 4 < from) {
			many_chunk(&m, from, n);
			return;
		}
	}
	/* Chunks small enough to balance a mix of cheap cache hits and
	 * judgements, large enough that claiming one costs nothing. */
	m.inv += from;
	m.ids += from;
	m.out += from;
	decide_pool_run(pool, n - from, 32, many_chunk, &m);
}

void decision_briefs_free(struct decision_brief *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && b; i++) {
		if (b[i].owns_reason)
			free(b[i].reason);
		free(b[i].message);
	}
	free(b);
}
