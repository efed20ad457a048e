/* SPDX-License-Identifier: Apache-2.0 */
/* Replay of a decision log: configs and inventory versions are rebuilt from
 * their records, decisions re-judged and compared field by field (verdict,
 * reason, score) and by winner: the node kube-scheduler would take, from the
 * scheduler model (sim_cluster.h) fed with what the log holds — the nodes
 * of the call (they passed kube-scheduler's filters already: only its
 * scores run), each known from its NRT alone, and numa-extender's answers
 * before and after. */
#include "extender/cmd/replay.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/decide/decide.h"
#include "extender/codec/doc.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog.h"
#include "extender/file_read.h"
#include "extender/cmd/replay_dra.h"
#include "extender/cmd/sim_cluster.h"
#include "base/xalloc.h"
#include "scheduler/cycle.h"
#include "topology/demand.h"


struct logged_config {
	char *digest;
	struct settings *settings;
};

struct logged_inventory {
	char *node, *version;
	struct inventory_node *inv;
};

struct replay {
	struct logged_config *configs;
	size_t nconfigs;
	struct logged_inventory *inventories;
	size_t ninventories;
	struct settings *override;   /* --config, or NULL */
	bool override_no_dra;        /* --config without dra.enabled: serve judges no DRA */
	/* The scheduler of the top node: its configuration, and the pod's
	 * profile with the filters off and every node scored (the logged
	 * nodes are the ones kube-scheduler found feasible). */
	struct sim_setup setup;
	struct sched_profile scoring;
	bool json;
	size_t calls, identical, changed;
	struct json_object *report;  /* array of changed calls (json output) */
	/* kubeletRejection records: pods the kubelet turned away, with what we
	 * had decided for them there. */
	struct json_object *rejections;
	size_t contradicted;         /* of those, decided "pass" */
	/* Records the writer could not write, as its "lost" markers count
	 * them (the file is whole around them). */
	uint64_t lost;
	/* The DRA records read, and those that did not read; the decisions
	 * whose DRA state the log does not hold whole (not replayed). */
	struct replay_dra *dra;
	size_t dra_damaged, dra_skipped;
};

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct settings *settings_from_json(struct json_object *s)
{
	struct config cfg;
	struct json_object *w = NULL;
	struct settings *out;
	size_t i;

	config_init(&cfg);
	if (!str(s, "strategy") || !score_strategy_parse(str(s, "strategy"), &cfg.scoring.strategy)) {
		config_cleanup(&cfg);
		return NULL;
	}
	cfg.missing_inventory = str(s, "missingInventory") && strcmp(str(s, "missingInventory"), "deny") == 0
					? CONFIG_MISSING_DENY : CONFIG_MISSING_ALLOW;
	if (json_object_object_get_ex(s, "weights", &w) && json_object_is_type(w, json_type_array)) {
		cfg.scoring.nweights = json_object_array_length(w);
		cfg.scoring.weights = xcalloc(cfg.scoring.nweights + 1, sizeof *cfg.scoring.weights);
		for (i = 0; i < cfg.scoring.nweights; i++) {
			struct json_object *e = json_object_array_get_idx(w, i), *wt = NULL;

			cfg.scoring.weights[i].name = xstrdup(str(e, "name") ? str(e, "name") : "");
			json_object_object_get_ex(e, "weight", &wt);
			cfg.scoring.weights[i].weight = json_object_get_int64(wt);
		}
	}
	out = settings_new(&cfg);
	config_cleanup(&cfg);
	return out;
}

static const struct inventory_node *find_inventory(struct replay *r, const char *node,
						   const char *version)
{
	size_t i;

	for (i = 0; i < r->ninventories; i++)
		if (strcmp(r->inventories[i].node, node) == 0 &&
		    strcmp(r->inventories[i].version, version) == 0)
			return r->inventories[i].inv;
	return NULL;
}

static struct settings *find_config(struct replay *r, const char *digest)
{
	size_t i;

	for (i = 0; i < r->nconfigs; i++)
		if (strcmp(r->configs[i].digest, digest) == 0)
			return r->configs[i].settings;
	return NULL;
}

static int damaged(size_t lineno, const char *what)
{
	fprintf(stderr, "numa-extender replay: line %zu: %s\n", lineno, what);
	return 2;
}

/* numa-extender's answers on a call's nodes, as its filter and prioritize
 * gave them (before) or give them now (after). */
struct answers {
	const bool *pass;
	const bool *unresolvable;
	const char *const *reason;
	const int64_t *score;
};

struct dispatch {
	const struct sim_setup *setup;
	const struct answers *numa;
};

/* numa-extender answers as logged or decided; any other extender keeps
 * every node and scores nothing, as in simulate. */
static enum err dispatch_filter(void *arg, size_t ext, const struct sched_pod *pod,
				const struct sched_node *nodes, const size_t *cand, size_t n,
				struct sched_ext_filter *out, struct errmsg *msg)
{
	const struct dispatch *d = arg;
	size_t i;

	(void)pod;
	(void)nodes;
	(void)msg;
	for (i = 0; i < n; i++) {
		if (!d->setup->has_numa || ext != d->setup->numa) {
			out->pass[i] = true;
			continue;
		}
		out->pass[i] = d->numa->pass[cand[i]];
		out->unresolvable[i] = d->numa->unresolvable[cand[i]];
		out->reason[i] = d->numa->reason[cand[i]];
	}
	return ERR_OK;
}

static enum err dispatch_prioritize(void *arg, size_t ext, const struct sched_pod *pod,
				    const struct sched_node *nodes, const size_t *idx, size_t n,
				    int64_t *score, bool *has, struct errmsg *msg)
{
	const struct dispatch *d = arg;
	size_t i;

	(void)pod;
	(void)nodes;
	(void)msg;
	if (!d->setup->has_numa || ext != d->setup->numa)
		return ERR_OK;
	for (i = 0; i < n; i++) {
		score[i] = d->numa->score[idx[i]];
		has[i] = true;
	}
	return ERR_OK;
}

/* The node the scheduler takes with these answers, or NULL; the whole tied
 * set goes to tied (names, borrowed from views). */
static const char *top(const struct replay *r, const struct sched_pod *pod,
		       const struct sched_node *views, size_t n, const struct answers *a,
		       struct json_object *tied)
{
	struct dispatch d = { &r->setup, a };
	struct sched_extender_ops ops = { &d, dispatch_filter, dispatch_prioritize };
	struct sched_cycle_in in = { &r->setup.config, &r->scoring, r->setup.version, pod,
				     views, n, 0, &ops };
	struct sched_cycle_out out;
	const char *best = NULL;
	size_t i;

	if (sched_schedule_one(&in, &out) == SCHED_SCHEDULED) {
		best = views[out.chosen].name;
		for (i = 0; i < out.ntied; i++)
			json_object_array_add(tied, json_object_new_string(views[out.tied[i]].name));
	}
	sched_cycle_out_cleanup(&out);
	return best;
}

/* The scheduler's view of a logged node: its NRT alone (the NRT-only rule
 * of simulate), or nothing known but its name. */
static void logged_view(const char *name, const struct inventory_node *inv, struct sched_node *v)
{
	if (inv != NULL) {
		sim_view_from_inventory(inv, v);
		return;
	}
	memset(v, 0, sizeof *v);
	v->name = xstrdup(name);
	v->allocatable.pods = SIM_NRT_ONLY_PODS;
	v->allocatable.memory = INT64_MAX;
	v->allocatable.ephemeral_storage = INT64_MAX;
}

/* One call's nodes: what the log says and what is decided now. */
struct call_nodes {
	size_t n;
	struct sched_node *views;
	bool *pass[2], *unres[2];
	const char **reason[2];
	int64_t *score[2];
	char **reason_now; /* owned copies of the decisions' reasons */
};

static void call_nodes_init(struct call_nodes *c, size_t n)
{
	int k;

	memset(c, 0, sizeof *c);
	c->views = xcalloc(n + 1, sizeof *c->views);
	for (k = 0; k < 2; k++) {
		c->pass[k] = xcalloc(n + 1, sizeof *c->pass[k]);
		c->unres[k] = xcalloc(n + 1, sizeof *c->unres[k]);
		c->reason[k] = xcalloc(n + 1, sizeof *c->reason[k]);
		c->score[k] = xcalloc(n + 1, sizeof *c->score[k]);
	}
	c->reason_now = xcalloc(n + 1, sizeof *c->reason_now);
}

static void call_nodes_cleanup(struct call_nodes *c)
{
	size_t i;
	int k;

	sched_nodes_free(c->views, c->n);
	for (k = 0; k < 2; k++) {
		free(c->pass[k]);
		free(c->unres[k]);
		free(c->reason[k]);
		free(c->score[k]);
	}
	for (i = 0; i < c->n; i++)
		free(c->reason_now[i]);
	free(c->reason_now);
}

/* The top node before (k 0) and after (k 1); the tied sets go to the
 * call's JSON when it is reported. */
static const char *call_top(const struct replay *r, const struct sched_pod *pod,
			    const struct call_nodes *c, int k, struct json_object *tied)
{
	struct answers a = { c->pass[k], c->unres[k], c->reason[k], c->score[k] };

	return top(r, pod, c->views, c->n, &a, tied);
}

static int decision(struct replay *r, struct json_object *o, size_t lineno)
{
	struct json_object *pod = NULL, *nodes = NULL, *seq = NULL, *changes;
	struct json_object *tied_before = json_object_new_array(), *tied_after = json_object_new_array();
	const char *verb = str(o, "verb"), *digest = str(o, "config");
	const char *top_before = NULL, *top_after = NULL;
	struct pod_demand *demand = NULL;
	struct settings *logged, *use;
	struct call_nodes cn;
	struct sched_pod spod;
	struct pod_spec spec;
	struct doc *d = NULL;
	struct errmsg msg;
	struct decide_input in;
	struct replay_dra_decision dra;
	struct json_object *dra_member = NULL;
	struct settings dra_settings;
	size_t i, n;

	if (!verb || !digest || !json_object_object_get_ex(o, "pod", &pod) ||
	    !json_object_object_get_ex(o, "nodes", &nodes) || !json_object_is_type(nodes, json_type_array)) {
		json_object_put(tied_before);
		json_object_put(tied_after);
		return damaged(lineno, "decision record without verb, config, pod or nodes");
	}
	logged = find_config(r, digest);
	if (logged == NULL) {
		json_object_put(tied_before);
		json_object_put(tied_after);
		return damaged(lineno, "decision refers to a config the log does not hold");
	}
	use = r->override ? r->override : logged;
	memset(&spec, 0, sizeof spec);
	if (doc_from_json(pod, &d, &msg) != ERR_OK || pod_decode_doc(d, "pod", &spec, &msg) != ERR_OK ||
	    pod_demand_new(&spec, &demand, &msg) != ERR_OK) {
		doc_free(d);
		pod_spec_cleanup(&spec);
		json_object_put(tied_before);
		json_object_put(tied_after);
		return damaged(lineno, msg.text);
	}
	doc_free(d);
	n = json_object_array_length(nodes);
	/* Replay judges afresh: the same decide as serve, without its cache. */
	in.demand = demand;
	in.settings = use;
	in.demand_id = 0;
	in.demand_fresh = false;
	in.flags = 0;
	in.dra = NULL;
	memset(&dra, 0, sizeof dra);
	if (json_object_object_get_ex(o, "dra", &dra_member)) {
		/* The pod's devices judged on what this decision read, under
		 * the replay's DRA settings, else the logged ones. */
		enum err e = replay_dra_begin(r->dra, dra_member, n, spec.namespace_, spec.name,
					      r->override ? &r->override->dra_order : NULL, &dra, &msg);

		if (e != ERR_OK) {
			fprintf(stderr, "numa-extender replay: line %zu: %s: decision not replayed\n", lineno,
				msg.text);
			r->dra_skipped++;
			pod_demand_free(demand);
			pod_spec_cleanup(&spec);
			json_object_put(tied_before);
			json_object_put(tied_after);
			return 0;
		}
		if (r->override == NULL) {
			dra_settings = *logged;
			dra_settings.dra_alignment = dra.alignment;
			dra_settings.dra_unknown_numa = dra.unknown_numa;
			dra_settings.dra_order = dra.order;
			use = &dra_settings;
			in.settings = use;
		}
		in.dra = use->dra_alignment != CONFIG_DRA_OFF && !(r->override && r->override_no_dra)
				 ? dra.pod : NULL;
	}
	json_object_object_get_ex(o, "seq", &seq);
	changes = json_object_new_array();
	call_nodes_init(&cn, n);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(nodes, i), *sc = NULL;
		const char *name = str(e, "node"), *version = str(e, "version"), *verdict = str(e, "verdict");
		const char *reason = str(e, "reason");
		const struct inventory_node *inv = NULL;
		struct decision now;
		const char *after;
		int64_t before;

		if (!name || !version || !verdict || !json_object_object_get_ex(e, "score", &sc)) {
			json_object_put(changes);
			json_object_put(tied_before);
			json_object_put(tied_after);
			call_nodes_cleanup(&cn);
			replay_dra_end(&dra);
			pod_demand_free(demand);
			pod_spec_cleanup(&spec);
			return damaged(lineno, "node entry without node, version, verdict or score");
		}
		before = json_object_get_int64(sc);
		if (strcmp(verdict, "noInventory") != 0) {
			inv = find_inventory(r, name, version);
			if (inv == NULL) {
				json_object_put(changes);
				json_object_put(tied_before);
				json_object_put(tied_after);
				call_nodes_cleanup(&cn);
				replay_dra_end(&dra);
				pod_demand_free(demand);
				pod_spec_cleanup(&spec);
				return damaged(lineno, "decision refers to an inventory version the log does not hold");
			}
		}
		decide(&in, inv, 0, &now);
		after = decision_outcome_name(now.outcome);
		logged_view(name, inv, &cn.views[cn.n]);
		cn.n++;
		/* Before: a pass, or no inventory where the logged settings let
		 * such a node through. */
		cn.pass[0][i] = strcmp(verdict, "pass") == 0 ||
				(strcmp(verdict, "noInventory") == 0 &&
				 logged->missing_inventory == CONFIG_MISSING_ALLOW);
		cn.unres[0][i] = !cn.pass[0][i] && strcmp(verdict, "failed") != 0;
		cn.reason[0][i] = reason && reason[0] ? reason : NULL;
		cn.score[0][i] = before;
		cn.pass[1][i] = now.passes;
		cn.unres[1][i] = !now.passes && now.outcome != DECISION_FAILED;
		cn.reason_now[i] = now.reason[0] ? xstrdup(now.reason) : NULL;
		cn.reason[1][i] = cn.reason_now[i];
		cn.score[1][i] = now.score;
		if (strcmp(after, verdict) != 0 || now.score != before ||
		    strcmp(now.reason, reason ? reason : "") != 0) {
			struct json_object *c = json_object_new_object();

			json_object_object_add(c, "node", json_object_new_string(name));
			json_object_object_add(c, "verdictBefore", json_object_new_string(verdict));
			json_object_object_add(c, "verdictAfter", json_object_new_string(after));
			json_object_object_add(c, "scoreBefore", json_object_new_int64(before));
			json_object_object_add(c, "scoreAfter", json_object_new_int64(now.score));
			json_object_object_add(c, "reasonBefore", json_object_new_string(reason ? reason : ""));
			json_object_object_add(c, "reasonAfter", json_object_new_string(now.reason));
			json_object_array_add(changes, c);
		}
	}
	/* The scheduler's view of the pod: its containers as logged; the log
	 * keeps no tolerations or affinities, and the logged nodes passed the
	 * filters that read them. */
	memset(&spod, 0, sizeof spod);
	spod.spec = spec;
	top_before = call_top(r, &spod, &cn, 0, tied_before);
	top_after = call_top(r, &spod, &cn, 1, tied_after);
	r->calls++;
	if (json_object_array_length(changes) == 0 &&
	    (top_before == top_after || (top_before && top_after && strcmp(top_before, top_after) == 0))) {
		r->identical++;
		json_object_put(changes);
		json_object_put(tied_before);
		json_object_put(tied_after);
	} else {
		struct json_object *call = json_object_new_object();
		char podname[512];

		r->changed++;
		snprintf(podname, sizeof podname, "%s/%s", spec.namespace_, spec.name);
		json_object_object_add(call, "seq", json_object_new_int64(seq ? json_object_get_int64(seq) : 0));
		json_object_object_add(call, "verb", json_object_new_string(verb));
		json_object_object_add(call, "pod", json_object_new_string(podname));
		json_object_object_add(call, "topBefore", top_before ? json_object_new_string(top_before) : NULL);
		json_object_object_add(call, "topAfter", top_after ? json_object_new_string(top_after) : NULL);
		json_object_object_add(call, "tiedBefore", tied_before);
		json_object_object_add(call, "tiedAfter", tied_after);
		json_object_object_add(call, "changes", changes);
		json_object_array_add(r->report, call);
	}
	call_nodes_cleanup(&cn);
	replay_dra_end(&dra);
	pod_demand_free(demand);
	pod_spec_cleanup(&spec);
	return 0;
}

static int record(struct replay *r, const char *line, size_t len, size_t lineno)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o = json_tokener_parse_ex(tok, line, (int)len), *obj = NULL, *s = NULL;
	const char *type;
	int rc = 0;

	if (o == NULL || json_tokener_get_parse_end(tok) != len || !json_object_is_type(o, json_type_object)) {
		json_tokener_free(tok);
		json_object_put(o);
		return damaged(lineno, "not a JSON object");
	}
	json_tokener_free(tok);
	type = str(o, "type");
	if (type == NULL) {
		rc = damaged(lineno, "record without a type");
	} else if (strcmp(type, "config") == 0) {
		struct settings *st;

		if (!str(o, "digest") || !json_object_object_get_ex(o, "settings", &s) ||
		    (st = settings_from_json(s)) == NULL) {
			rc = damaged(lineno, "config record without a valid digest and settings");
		} else {
			r->configs = xreallocarray(r->configs, r->nconfigs + 1, sizeof *r->configs);
			r->configs[r->nconfigs].digest = xstrdup(str(o, "digest"));
			r->configs[r->nconfigs++].settings = st;
		}
	} else if (strcmp(type, "inventory") == 0) {
		struct nrt_object nrt;
		struct inventory_node *inv = NULL;
		struct doc *d = NULL;
		struct errmsg msg;

		memset(&nrt, 0, sizeof nrt);
		if (!str(o, "node") || !str(o, "version") || !json_object_object_get_ex(o, "object", &obj)) {
			rc = damaged(lineno, "inventory record without node, version or object");
		} else if (doc_from_json(obj, &d, &msg) != ERR_OK ||
			   nrt_decode_doc(d, "object", &nrt, &msg) != ERR_OK ||
			   inventory_node_new(&nrt, &inv, &msg) != ERR_OK) {
			rc = damaged(lineno, msg.text);
		} else {
			r->inventories = xreallocarray(r->inventories, r->ninventories + 1,
						       sizeof *r->inventories);
			r->inventories[r->ninventories].node = xstrdup(str(o, "node"));
			r->inventories[r->ninventories].version = xstrdup(str(o, "version"));
			r->inventories[r->ninventories++].inv = inv;
		}
		doc_free(d);
		nrt_object_cleanup(&nrt);
	} else if (strcmp(type, "draObject") == 0 || strcmp(type, "draNode") == 0) {
		struct errmsg msg;

		/* A damaged DRA record costs the decisions that read it, which
		 * say so; the rest replays. */
		if (replay_dra_record(r->dra, type, o, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender replay: line %zu: %s\n", lineno, msg.text);
			r->dra_damaged++;
		}
	} else if (strcmp(type, "decision") == 0) {
		rc = decision(r, o, lineno);
	} else if (strcmp(type, "kubeletRejection") == 0) {
		if (!str(o, "pod") || !str(o, "node") || !str(o, "reason") || !str(o, "decided")) {
			rc = damaged(lineno, "kubeletRejection record without pod, node, reason or decided");
		} else {
			r->contradicted += strcmp(str(o, "decided"), "pass") == 0;
			json_object_array_add(r->rejections, json_object_get(o));
		}
	} else if (strcmp(type, "lost") == 0) {
		struct json_object *n = NULL;

		if (!json_object_object_get_ex(o, "records", &n) || !json_object_is_type(n, json_type_int) ||
		    json_object_get_int64(n) < 0)
			rc = damaged(lineno, "lost record without a count of records");
		else if ((uint64_t)json_object_get_int64(n) > UINT64_MAX - r->lost)
			rc = damaged(lineno, "lost records past 2^64");
		else
			r->lost += (uint64_t)json_object_get_int64(n);
	} else if (strcmp(type, "preemption") == 0) {
		/* Preemption answers are logged for people; nothing to re-judge. */
	} else {
		rc = damaged(lineno, "unknown record type");
	}
	json_object_put(o);
	return rc;
}

static void print_text(struct replay *r)
{
	size_t i, k;

	printf("%zu calls replayed: %zu identical, %zu changed\n", r->calls, r->identical, r->changed);
	if (r->lost)
		printf("%llu record%s lost (decision log writes failed)\n", (unsigned long long)r->lost,
		       r->lost == 1 ? "" : "s");
	if (r->dra_damaged || r->dra_skipped)
		printf("%zu damaged DRA record%s; %zu decision%s not replayed (their DRA state is not whole)\n",
		       r->dra_damaged, r->dra_damaged == 1 ? "" : "s", r->dra_skipped,
		       r->dra_skipped == 1 ? "" : "s");
	for (i = 0; i < json_object_array_length(r->report); i++) {
		struct json_object *c = json_object_array_get_idx(r->report, i), *ch = NULL, *v = NULL;
		const char *tb = str(c, "topBefore"), *ta = str(c, "topAfter");

		json_object_object_get_ex(c, "seq", &v);
		printf("#%lld %s %s: top node %s -> %s\n", (long long)json_object_get_int64(v),
		       str(c, "verb"), str(c, "pod"), tb ? tb : "(none)", ta ? ta : "(none)");
		json_object_object_get_ex(c, "changes", &ch);
		for (k = 0; k < json_object_array_length(ch); k++) {
			struct json_object *e = json_object_array_get_idx(ch, k), *sb = NULL, *sa = NULL;

			json_object_object_get_ex(e, "scoreBefore", &sb);
			json_object_object_get_ex(e, "scoreAfter", &sa);
			printf("  %s: %s -> %s, score %lld -> %lld%s%s\n", str(e, "node"),
			       str(e, "verdictBefore"), str(e, "verdictAfter"),
			       (long long)json_object_get_int64(sb), (long long)json_object_get_int64(sa),
			       strcmp(str(e, "reasonBefore"), str(e, "reasonAfter")) ? "; reason: " : "",
			       strcmp(str(e, "reasonBefore"), str(e, "reasonAfter")) ? str(e, "reasonAfter") : "");
		}
	}
}

/* The decisions the kubelet contradicted (we passed, it rejected), then the
 * other rejections it reported. */
static void print_rejections(struct replay *r)
{
	size_t i, n = json_object_array_length(r->rejections);

	if (n == 0)
		return;
	printf("%zu kubelet rejections, %zu of pods we passed:\n", n, r->contradicted);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(r->rejections, i), *seq = NULL;
		const char *version = str(e, "version");

		json_object_object_get_ex(e, "seq", &seq);
		printf("#%lld kubelet %s %s on %s: we decided %s%s%s%s\n",
		       (long long)json_object_get_int64(seq), str(e, "reason"), str(e, "pod"), str(e, "node"),
		       str(e, "decided"), version && version[0] ? " (inventory " : "",
		       version && version[0] ? version : "", version && version[0] ? ")" : "");
	}
}

static void replay_cleanup(struct replay *r)
{
	size_t i;

	for (i = 0; i < r->nconfigs; i++) {
		free(r->configs[i].digest);
		settings_unref(r->configs[i].settings);
	}
	free(r->configs);
	for (i = 0; i < r->ninventories; i++) {
		free(r->inventories[i].node);
		free(r->inventories[i].version);
		inventory_node_free(r->inventories[i].inv);
	}
	free(r->inventories);
	settings_unref(r->override);
	replay_dra_free(r->dra);
	sim_setup_cleanup(&r->setup);
	json_object_put(r->report);
	json_object_put(r->rejections);
}

static const char usage_text[] =
	"usage: numa-extender replay --log FILE [options]\n"
	"Re-decides every logged filter and prioritize call and reports what changed,\n"
	"node by node and in the node kube-scheduler would take.\n"
	"  --log FILE               one decision log file (required; a rotated one replays on its own)\n"
	"  --config FILE            numa-extender configuration to decide with (default: the logged one)\n"
	"  --scheduler-config FILE  KubeSchedulerConfiguration for the top node (default: built in)\n"
	"  --version V              kube-scheduler version modelled, v1.32 to v1.35 (default v1.35)\n"
	"  -o text|json             output format (default text)\n"
	"  -h, --help               this help\n"
	"A directory, a FIFO, a device or a file without records is an error, and so is a\n"
	"line longer than 256 MiB, the longest serve writes.\n"
	"Exit 0: nothing changed; 1: something did; 2: bad input.\n";

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "numa-extender replay: %s%s%s%s\n%s", what, arg ? " \"" : "", arg ? arg : "",
		arg ? "\"" : "", usage_text);
	return 2;
}

int replay_main(int argc, char **argv)
{
	const char *log_path = NULL, *config_path = NULL, *sched_path = NULL;
	enum sched_version version = SCHED_VERSION_DEFAULT;
	struct replay r;
	struct file_lines *f = NULL;
	size_t len, lineno = 0, records = 0;
	struct errmsg why;
	char *line;
	int a, rc = 0;

	memset(&r, 0, sizeof r);
	for (a = 0; a < argc; a++) {
		const char *flag = argv[a];

		if (strcmp(flag, "-h") == 0 || strcmp(flag, "--help") == 0) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (strcmp(flag, "--log") != 0 && strcmp(flag, "--config") != 0 && strcmp(flag, "-o") != 0 &&
		    strcmp(flag, "--scheduler-config") != 0 && strcmp(flag, "--version") != 0)
			return usage_error("unknown argument", flag);
		if (a + 1 >= argc)
			return usage_error(strcmp(flag, "--log") == 0 ? "--log needs a value"
				: strcmp(flag, "--config") == 0 ? "--config needs a value"
				: strcmp(flag, "-o") == 0 ? "-o needs a value"
				: strcmp(flag, "--version") == 0 ? "--version needs a value"
				: "--scheduler-config needs a value", NULL);
		if (strcmp(flag, "--log") == 0)
			log_path = argv[++a];
		else if (strcmp(flag, "--config") == 0)
			config_path = argv[++a];
		else if (strcmp(flag, "--scheduler-config") == 0)
			sched_path = argv[++a];
		else if (strcmp(flag, "--version") == 0 && !sched_version_parse(argv[++a], &version))
			return usage_error("--version: expected v1.32, v1.33, v1.34 or v1.35, not", argv[a]);
		else if (strcmp(flag, "-o") == 0) {
			if (strcmp(argv[a + 1], "json") != 0 && strcmp(argv[a + 1], "text") != 0)
				return usage_error("-o takes text or json, not", argv[a + 1]);
			r.json = strcmp(argv[++a], "json") == 0;
		}
	}
	if (log_path == NULL)
		return usage_error("--log is required", NULL);
	{
		struct config cfg;
		struct errmsg msg;

		config_init(&cfg);
		if (config_path && config_load_file(config_path, &cfg, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender replay: %s\n", msg.text);
			config_cleanup(&cfg);
			return 2;
		}
		if (config_path) {
			r.override = settings_new(&cfg);
			r.override_no_dra = !cfg.dra_enabled;
		}
		if (sim_setup_load(&r.setup, sched_path, cfg.url_prefix, version, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender replay: %s\n", msg.text);
			config_cleanup(&cfg);
			replay_cleanup(&r);
			return 2;
		}
		config_cleanup(&cfg);
		/* The logged nodes already passed kube-scheduler's filters and
		 * its sample of feasible nodes: only the scores run here. */
		r.scoring = r.setup.config.profiles[0];
		memset(r.scoring.filter, 0, sizeof r.scoring.filter);
		r.scoring.has_percentage = true;
		r.scoring.percentage = 100;
	}
	/* A regular file only: a directory, a FIFO or a device is refused at
	 * once, and no line is held past the longest serve writes. */
	if (file_lines_open(log_path, DECISION_LOG_MAX_LINE_BYTES, &f, &why) != ERR_OK) {
		fprintf(stderr, "numa-extender replay: %s\n", why.text);
		replay_cleanup(&r);
		return 2;
	}
	r.report = json_object_new_array();
	r.rejections = json_object_new_array();
	r.dra = replay_dra_new();
	for (;;) {
		enum err e = file_lines_next(f, &line, &len, &lineno, &why);

		if (e != ERR_OK) {
			fprintf(stderr, "numa-extender replay: %s%s\n", why.text,
				e == ERR_TOO_LARGE ? " (the longest line serve writes)" : "");
			rc = 2;
			break;
		}
		if (line == NULL)
			break;
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0)
			continue;
		records++;
		rc = record(&r, line, len, lineno);
		if (rc != 0)
			break;
	}
	file_lines_close(f);
	if (rc == 0 && records == 0) {
		/* An empty file is no evidence that nothing changed. */
		fprintf(stderr, "numa-extender replay: %s: holds no records\n", log_path);
		rc = 2;
	}
	if (rc == 0) {
		if (r.json) {
			struct json_object *out = json_object_new_object();

			json_object_object_add(out, "calls", json_object_new_int64((int64_t)r.calls));
			json_object_object_add(out, "identical", json_object_new_int64((int64_t)r.identical));
			json_object_object_add(out, "lost", json_object_new_uint64(r.lost));
			if (r.dra_damaged || r.dra_skipped) {
				json_object_object_add(out, "draDamaged", json_object_new_int64((int64_t)r.dra_damaged));
				json_object_object_add(out, "notReplayed", json_object_new_int64((int64_t)r.dra_skipped));
			}
			json_object_object_add(out, "changed", json_object_get(r.report));
			json_object_object_add(out, "kubeletRejections", json_object_get(r.rejections));
			printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
										   JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(out);
		} else {
			print_text(&r);
			print_rejections(&r);
		}
		rc = r.changed ? 1 : 0;
	}
	replay_cleanup(&r);
	return rc;
}
