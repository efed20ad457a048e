/* SPDX-License-Identifier: Apache-2.0 */
/* One decision path: the same pods on the same inventories through filter,
 * prioritize, the ledger's bind re-validation, replay, simulate and explain
 * give the same outcome, reason and score for every node. Also: decide's
 * outcome names, the cache answering a repeated demand without judging, and
 * the stale suffix. Inventories: tests/data/decide/nrt (every policy and
 * scope, GPUs and DSA queues); pods: tests/data/decide/pods. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/decide/decide.h"
#include "extender/decide/pool.h"
#include "extender/decisionlog.h"
#include "extender/cmd/explain.h"
#include "extender/http/handlers.h"
#include "extender/inventory/ledger.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/decide/settings.h"
#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "extender/decide/verdict_cache.h"
#include "extender/codec/wire.h"
#include "tests/support/http_client.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"
#include "tests/support/scratch_dir.h"

#define NRT_DIR "tests/data/decide/nrt"
#define POD_DIR "tests/data/decide/pods"
#define MAX_NODES 16
#define ABSENT "no-such-node"

/* What one verb said of one node. */
struct said {
	char name[64];
	enum decision_outcome bucket;
	char reason[DECISION_REASON_MAX];
	int64_t score;
	bool has_inventory;
};

static char logdir[] = "/tmp/numa-decide-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(logdir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(logdir);
}

static size_t list_dir(const char *dir, char names[][256], size_t max)
{
	struct dirent *e;
	size_t n = 0, i, j;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d)) != NULL && n < max)
		if (e->d_name[0] != '.')
			snprintf(names[n++], 256, "%s", e->d_name);
	closedir(d);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char t[256];

			memcpy(t, names[j], 256);
			memcpy(names[j], names[j - 1], 256);
			memcpy(names[j - 1], t, 256);
		}
	return n;
}

/* Fills said[] from a filter reply and a prioritize reply. */
static void read_replies(const char *filter, const char *prioritize, struct said *said, size_t n)
{
	struct json_object *f = json_tokener_parse(filter), *p = json_tokener_parse(prioritize);
	struct json_object *pass = json_object_object_get(f, "NodeNames");
	struct json_object *failed = json_object_object_get(f, "FailedNodes");
	struct json_object *unres = json_object_object_get(f, "FailedAndUnresolvableNodes");
	size_t i, k, found;

	assert_non_null(f);
	assert_non_null(p);
	for (i = 0; i < n; i++) {
		struct json_object *r;

		found = 0;
		for (k = 0; pass && k < json_object_array_length(pass); k++)
			if (strcmp(json_object_get_string(json_object_array_get_idx(pass, k)), said[i].name) == 0) {
				said[i].bucket = DECISION_PASS;
				said[i].reason[0] = '\0';
				found++;
			}
		if ((r = json_object_object_get(failed, said[i].name)) != NULL) {
			said[i].bucket = DECISION_FAILED;
			snprintf(said[i].reason, sizeof said[i].reason, "%s", json_object_get_string(r));
			found++;
		}
		if ((r = json_object_object_get(unres, said[i].name)) != NULL) {
			said[i].bucket = DECISION_UNRESOLVABLE;
			snprintf(said[i].reason, sizeof said[i].reason, "%s", json_object_get_string(r));
			found++;
		}
		assert_int_equal(found, 1);
		for (k = 0; k < json_object_array_length(p); k++) {
			struct json_object *h = json_object_array_get_idx(p, k);

			if (strcmp(json_object_get_string(json_object_object_get(h, "Host")), said[i].name) == 0)
				said[i].score = json_object_get_int64(json_object_object_get(h, "Score"));
		}
	}
	json_object_put(f);
	json_object_put(p);
}

/* simulate with this one pod: kube-scheduler's cycle, with numa-extender's
 * filter and prioritize answering as here. A pod placed lands on a node the
 * filter passed, with the score prioritize gave it there; a pod no node
 * passes is not placed, and says why with kube-scheduler's FitError. */
static void check_simulate(const char *pod_path, const struct said *said, size_t n)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
	const struct said *best = NULL;
	struct json_object *o, *pl, *node;
	char cmd[1024], *out;
	size_t i, len;
	FILE *p;

	for (i = 0; i < n; i++)
		if (said[i].has_inventory && said[i].bucket == DECISION_PASS)
			best = &said[i];
	snprintf(cmd, sizeof cmd, "%s simulate --nrt %s --pods %s -o json", bin, NRT_DIR, pod_path);
	p = popen(cmd, "r");
	assert_non_null(p);
	out = calloc(1, 1 << 20);
	len = fread(out, 1, (1 << 20) - 1, p);
	assert_int_equal(WEXITSTATUS(pclose(p)), 0);
	out[len] = '\0';
	o = json_tokener_parse(out);
	assert_non_null(o);
	pl = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(o, 0), "placements"), 0);
	node = json_object_object_get(pl, "node");
	if (node != NULL) {
		const struct said *at = NULL;

		for (i = 0; i < n; i++)
			if (strcmp(said[i].name, json_object_get_string(node)) == 0)
				at = &said[i];
		if (at == NULL)
			fail_msg("simulate placed the pod on a node filter was not asked about");
		else {
			assert_int_equal(at->bucket, DECISION_PASS);
			assert_int_equal(json_object_get_int64(json_object_object_get(pl, "score")), at->score);
		}
	} else {
		assert_non_null(strstr(json_object_get_string(json_object_object_get(pl, "reason")),
				       "nodes are available: "));
	}
	if (best == NULL)
		assert_null(node);
	json_object_put(o);
	free(out);
}

/* explain, on the same objects: admit, unresolvable and score agree. */
static void check_explain(const struct pod_spec *pod, const struct nrt_object *objs, size_t nobjs,
			  const struct settings *settings, const struct said *said, size_t n)
{
	struct json_object *o, *nodes;
	struct errmsg msg;
	char *text = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(explain_write_scored(pod, objs, nobjs, EXPLAIN_JSON, &settings->scoring, f, &msg),
			 ERR_OK);
	fclose(f);
	o = json_tokener_parse(text);
	assert_non_null(o);
	nodes = json_object_object_get(o, "nodes");
	assert_int_equal(json_object_array_length(nodes), nobjs);
	for (k = 0; k < json_object_array_length(nodes); k++) {
		struct json_object *e = json_object_array_get_idx(nodes, k);
		const char *name = json_object_get_string(json_object_object_get(e, "node"));
		bool admit = json_object_get_boolean(json_object_object_get(e, "admit"));
		bool unres = json_object_get_boolean(json_object_object_get(e, "unresolvable"));

		for (i = 0; i < n && strcmp(said[i].name, name) != 0; i++)
			;
		assert_true(i < n);
		assert_int_equal(admit, said[i].bucket == DECISION_PASS);
		assert_int_equal(unres, said[i].bucket == DECISION_UNRESOLVABLE);
		assert_int_equal(json_object_get_int64(json_object_object_get(e, "score")), said[i].score);
	}
	json_object_put(o);
	free(text);
}

/* The ledger's bind re-validation on an empty ledger: refuses exactly where
 * filter rejects, with filter's reason. */
static void check_bind(struct ledger *ledger, const struct pod_spec *pod, const struct said *said,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char why[DECISION_REASON_MAX] = "";
		enum ledger_bind_result r;

		if (!said[i].has_inventory)
			continue;
		r = ledger_bind(ledger, pod, "uid-decide", said[i].name, why, sizeof why);
		if (said[i].bucket == DECISION_PASS) {
			assert_int_equal(r, LEDGER_BIND_ADDED);
			ledger_bind_failed(ledger, "uid-decide");
		} else {
			assert_int_equal(r, LEDGER_BIND_NO_FIT);
			assert_string_equal(why, said[i].reason);
		}
	}
}

static void every_verb_decides_alike(void **state)
{
	static char pods[32][256], names[MAX_NODES][256];
	struct ledger_options lo = { LEDGER_PREDICTED, 30000, 600000, false };
	struct decision_log *dl = NULL;
	struct settings_holder holder;
	struct nrt_object *objs = NULL;
	struct handler_ctx ctx;
	struct source_files *sf;
	struct store *store = store_new();
	struct said said[MAX_NODES + 1];
	struct ledger *ledger;
	struct config cfg;
	struct errmsg msg;
	char log[300], cmd[600], out[256];
	size_t npods, nnodes, nobjs = 0, i, p;
	FILE *f;

	(void)state;
	config_init(&cfg);
	cfg.missing_inventory = CONFIG_MISSING_DENY;
	/* The ledger overlays the store before the inventory arrives, as in
	 * serve; it stays empty: every bind it admits is taken back. */
	ledger = ledger_new(store, &lo);
	ledger_list_begin(ledger);
	ledger_list_end(ledger, true);
	sf = source_files_new(store, NRT_DIR);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(nrt_load_path(NRT_DIR, &objs, &nobjs, &msg), ERR_OK);
	snprintf(log, sizeof log, "%s/decisions.jsonl", logdir);
	assert_int_equal(decision_log_open(log, (int64_t)64 << 20, 1, 4096, &dl, &msg), ERR_OK);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	ctx.decisions = dl;
	nnodes = list_dir(NRT_DIR, names, MAX_NODES);
	memset(said, 0, sizeof said);
	for (i = 0; i < nobjs; i++) {
		snprintf(said[i].name, sizeof said[i].name, "%s", objs[i].name);
		said[i].has_inventory = true;
	}
	assert_int_equal(nobjs, nnodes);
	snprintf(said[nobjs].name, sizeof said[nobjs].name, ABSENT);
	npods = list_dir(POD_DIR, pods, 32);
	assert_true(npods >= 8);
	for (p = 0; p < npods; p++) {
		char path[600], *podjson;
		struct textbuf body;
		struct reply fr, pr;
		struct pod_spec pod;
		size_t k;

		snprintf(path, sizeof path, POD_DIR "/%s", pods[p]);
		podjson = read_file_or_die(path, NULL);
		assert_int_equal(pod_load_file(path, &pod, &msg), ERR_OK);
		textbuf_init(&body, 1 << 20);
		textbuf_printf(&body, "{\"Pod\":%s,\"NodeNames\":[", podjson);
		for (k = 0; k <= nobjs; k++) {
			textbuf_adds(&body, k ? "," : "");
			textbuf_json_cstr(&body, said[k].name);
		}
		textbuf_adds(&body, "]}");
		handle_filter(&ctx, textbuf_str(&body), textbuf_len(&body), &fr);
		handle_prioritize(&ctx, textbuf_str(&body), textbuf_len(&body), &pr);
		assert_int_equal(fr.status, 200);
		assert_int_equal(pr.status, 200);
		read_replies(fr.body, pr.body, said, nobjs + 1);
		/* The node without inventory: deny makes it unresolvable, with
		 * the one no-inventory reason, and scores 0. */
		assert_int_equal(said[nobjs].bucket, DECISION_UNRESOLVABLE);
		assert_string_equal(said[nobjs].reason, DECISION_NO_INVENTORY_REASON);
		assert_int_equal(said[nobjs].score, 0);
		for (k = 0; k < nobjs; k++)
			if (said[k].bucket != DECISION_PASS)
				assert_int_equal(said[k].score, 0);
		check_explain(&pod, objs, nobjs, holder.current, said, nobjs + 1);
		check_simulate(path, said, nobjs + 1);
		check_bind(ledger, &pod, said, nobjs + 1);
		free(fr.body);
		free(pr.body);
		textbuf_free(&body);
		pod_spec_cleanup(&pod);
		free(podjson);
	}
	decision_log_close(dl);
	/* replay re-decides every recorded call the same way. */
	snprintf(cmd, sizeof cmd, "%s replay --log %s 2>&1",
		 getenv("BIN") ? getenv("BIN") : "bin/numa-extender", log);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(out, sizeof out, f));
	assert_int_equal(WEXITSTATUS(pclose(f)), 0);
	snprintf(cmd, sizeof cmd, "%zu calls replayed: %zu identical, 0 changed\n", 2 * npods, 2 * npods);
	assert_string_equal(out, cmd);
	nrt_objects_free(objs, nobjs);
	settings_holder_cleanup(&holder);
	source_files_free(sf);
	ledger_free(ledger);
	store_free(store);
	config_cleanup(&cfg);
}

/* Outcome names are one table. */
static void outcome_names(void **state)
{
	(void)state;
	assert_string_equal(decision_outcome_name(DECISION_PASS), "pass");
	assert_string_equal(decision_outcome_name(DECISION_FAILED), "failed");
	assert_string_equal(decision_outcome_name(DECISION_UNRESOLVABLE), "unresolvable");
	assert_string_equal(decision_outcome_name(DECISION_NO_INVENTORY), "noInventory");
	assert_string_equal(decision_outcome_name(DECISION_NOUTCOMES), "unknown");
}

/* A demand decided once on a snapshot is answered from the cache the second
 * time (the same outcome, reason and score, nothing judged); the stale
 * suffix is added to the answer, never stored. */
static void repeated_demand_is_not_judged_again(void **state)
{
	struct nrt_object *objs = NULL;
	struct inventory_node *inv[MAX_NODES];
	struct pod_spec pod;
	struct pod_demand *demand = NULL;
	struct settings *settings;
	struct config cfg;
	struct errmsg msg;
	struct decide_input in;
	size_t nobjs = 0, i;
	bool some_rejected = false;

	(void)state;
	config_init(&cfg);
	settings = settings_new(&cfg);
	assert_int_equal(nrt_load_path(NRT_DIR, &objs, &nobjs, &msg), ERR_OK);
	assert_int_equal(pod_load_file(POD_DIR "/00-fixture.json", &pod, &msg), ERR_OK);
	assert_int_equal(pod_demand_new(&pod, &demand, &msg), ERR_OK);
	in.demand = demand;
	in.settings = settings;
	in.demand_id = verdict_cache_demand("test_decide: repeated demand");
	in.demand_fresh = false;
	in.flags = 0;
	in.dra = NULL;
	for (i = 0; i < nobjs; i++) {
		struct decision first, again, stale;

		assert_int_equal(inventory_node_new(&objs[i], &inv[i], &msg), ERR_OK);
		decide(&in, inv[i], 1000 + i, &first);
		assert_false(first.cached);
		decide(&in, inv[i], 1000 + i, &again);
		assert_true(again.cached);
		assert_int_equal(again.outcome, first.outcome);
		assert_string_equal(again.reason, first.reason);
		assert_int_equal(again.score, first.score);
		assert_int_equal(again.numa_ids, first.numa_ids);
		in.flags = DECIDE_STALE;
		decide(&in, inv[i], 1000 + i, &stale);
		in.flags = 0;
		assert_true(stale.cached);
		if (first.reason[0]) {
			char want[DECISION_REASON_MAX + 32];

			some_rejected = true;
			snprintf(want, sizeof want, "%s%s", first.reason, DECISION_STALE_SUFFIX);
			assert_string_equal(stale.reason, want);
		} else {
			assert_string_equal(stale.reason, "");
		}
		/* Another snapshot of the node is judged afresh. */
		decide(&in, inv[i], 2000 + i, &again);
		assert_false(again.cached);
		inventory_node_free(inv[i]);
	}
	assert_true(some_rejected);
	pod_demand_free(demand);
	pod_spec_cleanup(&pod);
	nrt_objects_free(objs, nobjs);
	settings_unref(settings);
	config_cleanup(&cfg);
}

/* kube-scheduler sends every replica of a workload with the same 5000
 * candidate nodes: the second filter answers every node from the verdict
 * cache (0 judged: no miss), with the same reply. */
static void repeated_5000_name_filter_judges_nothing(void **state)
{
	enum { NODES = 5000 };
	struct nrt_object *objs = NULL;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct store *store = store_new();
	struct store_batch *batch = store_batch_new();
	struct verdict_cache_stats a, b;
	struct textbuf body;
	struct config cfg;
	struct errmsg msg;
	struct reply r1, r2;
	char *podjson;
	size_t nobjs = 0, i;

	(void)state;
	assert_int_equal(nrt_load_path(NRT_DIR "/worker-gpu4.yaml", &objs, &nobjs, &msg), ERR_OK);
	for (i = 0; i < NODES; i++) {
		struct inventory_node *inv = NULL;
		char name[32];

		snprintf(name, sizeof name, "w-%04zu", i);
		free(objs[0].name);
		objs[0].name = strdup(name);
		assert_int_equal(inventory_node_new(&objs[0], &inv, &msg), ERR_OK);
		store_batch_put(batch, inv, "test", "1");
	}
	store_publish(store, batch); /* frees the batch */
	config_init(&cfg);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	podjson = read_file_or_die(POD_DIR "/00-fixture.json", NULL);
	textbuf_init(&body, 1 << 20);
	textbuf_printf(&body, "{\"Pod\":%s,\"NodeNames\":[", podjson);
	for (i = 0; i < NODES; i++)
		textbuf_printf(&body, "%s\"w-%04zu\"", i ? "," : "", i);
	textbuf_adds(&body, "]}");
	handle_filter(&ctx, textbuf_str(&body), textbuf_len(&body), &r1);
	verdict_cache_stats(&a);
	handle_filter(&ctx, textbuf_str(&body), textbuf_len(&body), &r2);
	verdict_cache_stats(&b);
	assert_int_equal(r1.status, 200);
	assert_string_equal(r1.body, r2.body);
	assert_int_equal(b.misses - a.misses, 0);
	assert_int_equal(b.hits - a.hits, NODES);
	free(r1.body);
	free(r2.body);
	textbuf_free(&body);
	free(podjson);
	settings_holder_cleanup(&holder);
	config_cleanup(&cfg);
	store_free(store);
	nrt_objects_free(objs, nobjs);
}

/* A filter or prioritize over more than DECIDE_SHARE_MIN nodes shares its
 * judging with the pool's helpers: every pod's replies must be byte for byte
 * those of the same request judged alone, each node judged exactly once
 * (one verdict-cache miss each), a repeat answered from the cache, and a
 * known demand with nothing remembered (other settings) shared after its
 * first DECIDE_PROBE nodes, each node again judged once. The
 * cluster: every inventory of NRT_DIR under 160 names each, plus names
 * without inventory, in an interleaved order. */
static void shared_judging_answers_as_alone(void **state)
{
	enum { COPIES = 160 };
	static char pods[32][256];
	struct nrt_object *objs = NULL;
	struct settings_holder holder, holder2;
	struct handler_ctx alone, shared, resettled;
	struct store *store = store_new();
	struct store_batch *batch = store_batch_new();
	struct decide_pool *pool = decide_pool_new(3);
	struct textbuf names;
	struct config cfg;
	struct errmsg msg;
	size_t nobjs = 0, nnames = 0, npods, i, c, p;

	(void)state;
	assert_int_equal(decide_pool_helpers(pool), 3);
	assert_int_equal(nrt_load_path(NRT_DIR, &objs, &nobjs, &msg), ERR_OK);
	textbuf_init(&names, 1 << 20);
	for (c = 0; c < COPIES; c++) {
		for (i = 0; i < nobjs; i++) {
			struct inventory_node *inv = NULL;
			char *base = strdup(objs[i].name), name[300];

			snprintf(name, sizeof name, "%s-%03zu", base, c);
			free(objs[i].name);
			objs[i].name = strdup(name);
			assert_int_equal(inventory_node_new(&objs[i], &inv, &msg), ERR_OK);
			free(objs[i].name);
			objs[i].name = base;
			store_batch_put(batch, inv, "test", "1");
			textbuf_printf(&names, "%s\"%s\"", nnames++ ? "," : "", name);
		}
		textbuf_printf(&names, ",\"absent-%03zu\"", c);
		nnames++;
	}
	assert_true(nnames > 4 * DECIDE_SHARE_MIN);
	store_publish(store, batch);
	config_init(&cfg);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&alone, 0, sizeof alone);
	alone.store = store;
	alone.settings = &holder;
	shared = alone;
	shared.pool = pool;
	settings_holder_init(&holder2, settings_new(&cfg));
	resettled = shared;
	resettled.settings = &holder2;
	npods = list_dir(POD_DIR, pods, 32);
	assert_true(npods >= 8);
	for (p = 0; p < npods; p++) {
		char path[600], *podjson;
		struct verdict_cache_stats a, b;
		struct textbuf body;
		struct reply r1, r2, r3, r4, q1, q2;

		snprintf(path, sizeof path, POD_DIR "/%s", pods[p]);
		podjson = read_file_or_die(path, NULL);
		textbuf_init(&body, 1 << 20);
		textbuf_printf(&body, "{\"Pod\":%s,\"NodeNames\":[%s]}", podjson, textbuf_str(&names));
		verdict_cache_clear();
		handle_filter(&alone, textbuf_str(&body), textbuf_len(&body), &r1);
		handle_prioritize(&alone, textbuf_str(&body), textbuf_len(&body), &q1);
		verdict_cache_clear();
		verdict_cache_stats(&a);
		handle_filter(&shared, textbuf_str(&body), textbuf_len(&body), &r2);
		verdict_cache_stats(&b);
		/* Every node with an inventory judged once, none twice. */
		assert_int_equal(b.misses - a.misses, nnames - COPIES);
		assert_int_equal(b.hits - a.hits, 0);
		handle_prioritize(&shared, textbuf_str(&body), textbuf_len(&body), &q2);
		handle_filter(&shared, textbuf_str(&body), textbuf_len(&body), &r3);
		verdict_cache_stats(&a);
		assert_int_equal(a.misses, b.misses);
		/* The same demand under other settings: known to the cache,
		 * but nothing remembered under them, so the first nodes are
		 * all judged and the rest shared; again each node once. */
		handle_filter(&resettled, textbuf_str(&body), textbuf_len(&body), &r4);
		verdict_cache_stats(&b);
		assert_int_equal(b.misses - a.misses, nnames - COPIES);
		assert_string_equal(r1.body, r4.body);
		free(r4.body);
		assert_int_equal(r1.status, 200);
		assert_int_equal(q1.status, 200);
		assert_string_equal(r1.body, r2.body);
		assert_string_equal(r1.body, r3.body);
		assert_string_equal(q1.body, q2.body);
		free(r1.body);
		free(r2.body);
		free(r3.body);
		free(q1.body);
		free(q2.body);
		textbuf_free(&body);
		free(podjson);
	}
	textbuf_free(&names);
	settings_holder_cleanup(&holder);
	settings_holder_cleanup(&holder2);
	config_cleanup(&cfg);
	store_free(store);
	decide_pool_free(pool);
	nrt_objects_free(objs, nobjs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(outcome_names),
		cmocka_unit_test(repeated_demand_is_not_judged_again),
		cmocka_unit_test(every_verb_decides_alike),
		cmocka_unit_test(repeated_5000_name_filter_judges_nothing),
		cmocka_unit_test(shared_judging_answers_as_alone),
	};

	return cmocka_run_group_tests_name("decide", tests, setup, teardown);
}
