/* SPDX-License-Identifier: Apache-2.0 */
/* Replay of a decision log: configs and inventory versions are rebuilt from
 * their records, decisions re-judged and compared field by field (verdict,
 * reason, score) and by winner (the top-scoring node). */
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
#include "base/xalloc.h"
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

/* The best node by score among passing ones; ties by name. */
static void top(const char *name, const char *verdict, int64_t score, const char **best,
		int64_t *best_score)
{
	if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "noInventory") != 0)
		return;
	if (*best == NULL || score > *best_score || (score == *best_score && strcmp(name, *best) < 0)) {
		*best = name;
		*best_score = score;
	}
}

static int decision(struct replay *r, struct json_object *o, size_t lineno)
{
	struct json_object *pod = NULL, *nodes = NULL, *seq = NULL, *changes;
	const char *verb = str(o, "verb"), *digest = str(o, "config");
	const char *top_before = NULL, *top_after = NULL;
	int64_t tb = 0, ta = 0;
	struct pod_demand *demand = NULL;
	struct settings *logged, *use;
	struct pod_spec spec;
	struct doc *d = NULL;
	struct errmsg msg;
	struct decide_input in;
	size_t i;

	if (!verb || !digest || !json_object_object_get_ex(o, "pod", &pod) ||
	    !json_object_object_get_ex(o, "nodes", &nodes) || !json_object_is_type(nodes, json_type_array))
		return damaged(lineno, "decision record without verb, config, pod or nodes");
	logged = find_config(r, digest);
	if (logged == NULL)
		return damaged(lineno, "decision refers to a config the log does not hold");
	use = r->override ? r->override : logged;
	memset(&spec, 0, sizeof spec);
	if (doc_from_json(pod, &d, &msg) != ERR_OK || pod_decode_doc(d, "pod", &spec, &msg) != ERR_OK ||
	    pod_demand_new(&spec, &demand, &msg) != ERR_OK) {
		doc_free(d);
		pod_spec_cleanup(&spec);
		return damaged(lineno, msg.text);
	}
	doc_free(d);
	/* Replay judges afresh: the same decide as serve, without its cache. */
	in.demand = demand;
	in.settings = use;
	in.demand_id = 0;
	in.demand_fresh = false;
	in.flags = 0;
	json_object_object_get_ex(o, "seq", &seq);
	changes = json_object_new_array();
	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i), *sc = NULL;
		const char *name = str(n, "node"), *version = str(n, "version"), *verdict = str(n, "verdict");
		const char *reason = str(n, "reason");
		const struct inventory_node *inv = NULL;
		struct decision now;
		const char *after;
		int64_t before;

		if (!name || !version || !verdict || !json_object_object_get_ex(n, "score", &sc)) {
			json_object_put(changes);
			pod_demand_free(demand);
			pod_spec_cleanup(&spec);
			return damaged(lineno, "node entry without node, version, verdict or score");
		}
		before = json_object_get_int64(sc);
		if (strcmp(verdict, "noInventory") != 0) {
			inv = find_inventory(r, name, version);
			if (inv == NULL) {
				json_object_put(changes);
				pod_demand_free(demand);
				pod_spec_cleanup(&spec);
				return damaged(lineno, "decision refers to an inventory version the log does not hold");
			}
		}
		decide(&in, inv, 0, &now);
		after = decision_outcome_name(now.outcome);
		top(name, verdict, before, &top_before, &tb);
		top(name, after, now.score, &top_after, &ta);
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
	r->calls++;
	if (json_object_array_length(changes) == 0 &&
	    (top_before == top_after || (top_before && top_after && strcmp(top_before, top_after) == 0))) {
		r->identical++;
		json_object_put(changes);
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
		json_object_object_add(call, "changes", changes);
		json_object_array_add(r->report, call);
	}
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
	json_object_put(r->report);
	json_object_put(r->rejections);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: numa-extender replay --log FILE [--config NEW.yaml] [-o text|json]\n"
		"  FILE: one decision log file (a rotated one replays on its own); a directory,\n"
		"        a FIFO, a device or a file without records is an error (exit 2), and\n"
		"        so is a line longer than 256 MiB, the longest serve writes\n");
	return 2;
}

int replay_main(int argc, char **argv)
{
	const char *log_path = NULL, *config_path = NULL;
	struct replay r;
	struct file_lines *f = NULL;
	size_t len, lineno = 0, records = 0;
	struct errmsg why;
	char *line;
	int a, rc = 0;

	memset(&r, 0, sizeof r);
	for (a = 0; a < argc; a++) {
		if (strcmp(argv[a], "--log") == 0 && a + 1 < argc)
			log_path = argv[++a];
		else if (strcmp(argv[a], "--config") == 0 && a + 1 < argc)
			config_path = argv[++a];
		else if (strcmp(argv[a], "-o") == 0 && a + 1 < argc &&
			 (strcmp(argv[a + 1], "json") == 0 || strcmp(argv[a + 1], "text") == 0))
			r.json = strcmp(argv[++a], "json") == 0;
		else
			return usage();
	}
	if (log_path == NULL)
		return usage();
	if (config_path) {
		struct config cfg;
		struct errmsg msg;

		config_init(&cfg);
		if (config_load_file(config_path, &cfg, &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender replay: %s\n", msg.text);
			config_cleanup(&cfg);
			return 2;
		}
		r.override = settings_new(&cfg);
		config_cleanup(&cfg);
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
