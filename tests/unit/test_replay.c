/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log and `numa-extender replay`: a recorded log replays
 * identically under the same config; a scoring change yields exactly the
 * expected changed decisions and exit 1; a damaged line is reported with its
 * number and exit 2; each rotated file replays on its own. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/decisionlog.h"
#include "extender/http/handlers.h"
#include "extender/decide/settings.h"
#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "tests/support/http_client.h"
#include "base/xalloc.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/numa-replay-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

/* Records `rounds` filter + prioritize calls for the wire fixtures. */
static void record(const char *log, int64_t max_bytes, int rounds)
{
	struct decision_log *dl = NULL;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct source_files *sf;
	struct store *store = store_new();
	struct config cfg;
	struct errmsg msg;
	char *filter = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	char *prio = read_file_or_die("tests/data/fixtures/wire/prioritize-request.json", NULL);
	int i;

	config_init(&cfg);
	sf = source_files_new(store, "tests/data/server/nrt");
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(decision_log_open(log, max_bytes, 3, 4096, &dl, &msg), ERR_OK);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	ctx.decisions = dl;
	for (i = 0; i < rounds; i++) {
		struct reply r;

		handle_filter(&ctx, filter, strlen(filter), &r);
		assert_int_equal(r.status, 200);
		free(r.body);
		handle_prioritize(&ctx, prio, strlen(prio), &r);
		assert_int_equal(r.status, 200);
		free(r.body);
	}
	decision_log_close(dl);
	settings_holder_cleanup(&holder);
	source_files_free(sf);
	store_free(store);
	config_cleanup(&cfg);
	free(filter);
	free(prio);
}

static int run(const char *args, char **out)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
	char cmd[1024], buf[65536];
	size_t n;
	FILE *p;
	int status;

	snprintf(cmd, sizeof cmd, "%s replay %s 2>&1", bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	status = pclose(p);
	*out = strdup(buf);
	return WEXITSTATUS(status);
}

static void replay_same_config_is_identical(void **state)
{
	char log[256], args[512], *out = NULL;

	(void)state;
	snprintf(log, sizeof log, "%s/same.jsonl", dir);
	record(log, (int64_t)64 << 20, 3);
	snprintf(args, sizeof args, "--log %s", log);
	assert_int_equal(run(args, &out), 0);
	assert_string_equal(out, "6 calls replayed: 6 identical, 0 changed\n");
	free(out);
}

static void replay_weight_change_is_reported(void **state)
{
	char log[256], cfgpath[256], args[768], *out = NULL;
	struct json_object *o, *changed;
	size_t i, k, nodes = 0;
	FILE *f;

	(void)state;
	snprintf(log, sizeof log, "%s/change.jsonl", dir);
	record(log, (int64_t)64 << 20, 1);
	snprintf(cfgpath, sizeof cfgpath, "%s/fewest.yaml", dir);
	f = fopen(cfgpath, "w");
	fputs("scoring: {strategy: LeastNUMANodes}\n", f);
	fclose(f);
	snprintf(args, sizeof args, "--log %s --config %s -o json", log, cfgpath);
	assert_int_equal(run(args, &out), 1);
	o = json_tokener_parse(out);
	assert_non_null(o);
	changed = json_object_object_get(o, "changed");
	/* Both calls change, and only the two admitted nodes, both to 10
	 * (single-NUMA placements); the rejected nodes keep 0. */
	assert_int_equal(json_object_array_length(changed), 2);
	for (i = 0; i < 2; i++) {
		struct json_object *c = json_object_array_get_idx(changed, i);
		struct json_object *ch = json_object_object_get(c, "changes");
		struct json_object *tied = json_object_object_get(c, "tiedAfter");
		const char *top = json_object_get_string(json_object_object_get(c, "topAfter"));

		/* The node kube-scheduler would take is one the extender passes,
		 * and the first of the nodes tied at the top. */
		assert_non_null(top);
		assert_true(strcmp(top, "worker-gpu-017") == 0 || strcmp(top, "worker-gpu-018") == 0);
		assert_true(json_object_is_type(tied, json_type_array) && json_object_array_length(tied) >= 1);
		assert_string_equal(json_object_get_string(json_object_array_get_idx(tied, 0)), top);

		for (k = 0; k < json_object_array_length(ch); k++) {
			struct json_object *e = json_object_array_get_idx(ch, k);
			const char *node = json_object_get_string(json_object_object_get(e, "node"));

			assert_true(strcmp(node, "worker-gpu-017") == 0 || strcmp(node, "worker-gpu-018") == 0);
			assert_int_equal(json_object_get_int64(json_object_object_get(e, "scoreAfter")), 10);
			assert_string_equal(json_object_get_string(json_object_object_get(e, "verdictAfter")),
					    "pass");
			nodes++;
		}
	}
	assert_int_equal(nodes, 4);
	json_object_put(o);
	free(out);
}

static void replay_damaged_line_exits_2(void **state)
{
	char log[256], args[512], *out = NULL, *text;
	size_t len;
	FILE *f;

	(void)state;
	snprintf(log, sizeof log, "%s/damaged.jsonl", dir);
	record(log, (int64_t)64 << 20, 1);
	text = read_file_or_die(log, &len);
	f = fopen(log, "w");
	/* Keep the first line, damage the second. */
	fwrite(text, 1, (size_t)(strchr(text, '\n') - text + 1), f);
	fputs("{\"type\":\"inventory\",\"node\":\n", f);
	fclose(f);
	free(text);
	snprintf(args, sizeof args, "--log %s", log);
	assert_int_equal(run(args, &out), 2);
	assert_non_null(strstr(out, "line 2: not a JSON object"));
	free(out);
	assert_int_equal(run("--log /nonexistent/log.jsonl", &out), 2);
	free(out);
}

/* Configs are named by an XXH3 digest of their settings; logs written
 * before that name them "fnv1a:<16 hex>". Replay matches a decision to its
 * config by the digest's text, so an old log (here: the new one with every
 * digest renamed) replays the same. */
static void replay_reads_old_fnv1a_digests(void **state)
{
	char log[256], args[512], *out = NULL, *text, *at;
	size_t len, renamed = 0;
	FILE *f;

	(void)state;
	snprintf(log, sizeof log, "%s/old-digest.jsonl", dir);
	record(log, (int64_t)64 << 20, 2);
	text = read_file_or_die(log, &len);
	assert_non_null(strstr(text, "{\"type\":\"config\",\"digest\":\"xxh3:"));
	f = fopen(log, "w");
	assert_non_null(f);
	for (at = text; *at; at++) {
		if (strncmp(at, "\"xxh3:", 6) == 0) {
			fputs("\"fnv1a:", f);
			at += 5;
			renamed++;
		} else {
			fputc(*at, f);
		}
	}
	fclose(f);
	free(text);
	assert_true(renamed >= 5); /* the config record and 4 decisions */
	snprintf(args, sizeof args, "--log %s", log);
	assert_int_equal(run(args, &out), 0);
	assert_string_equal(out, "4 calls replayed: 4 identical, 0 changed\n");
	free(out);
}

static void replay_rotated_files_stand_alone(void **state)
{
	char log[256], rotated[300], args[512], *out = NULL;

	(void)state;
	snprintf(log, sizeof log, "%s/rotate.jsonl", dir);
	/* 64 KiB files: a few dozen calls rotate several times. */
	record(log, 64 * 1024, 60);
	snprintf(rotated, sizeof rotated, "%s.1", log);
	assert_int_equal(access(rotated, R_OK), 0);
	snprintf(args, sizeof args, "--log %s", rotated);
	assert_int_equal(run(args, &out), 0);
	assert_non_null(strstr(out, "identical, 0 changed"));
	free(out);
	snprintf(rotated, sizeof rotated, "%s.4", log);
	assert_int_not_equal(access(rotated, R_OK), 0); /* maxFiles 3 */
}

/* A DNS-subdomain prefix of 240 characters is a valid resource name. With
 * the decision log on, prioritize records each score's parts: this pod's one
 * part once overflowed a buffer sized by guess (64 + 160 per part). The
 * record must carry the name whole. */
static void prioritize_long_resource_name_in_decision_log(void **state)
{
	char nrtdir[256], path[300], log[256], name[320], body[2048], *text;
	struct decision_log *dl = NULL;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct source_files *sf;
	struct store *store = store_new();
	struct config cfg;
	struct errmsg msg;
	struct reply r;
	size_t i, len;
	FILE *f;

	(void)state;
	/* "aaaa…a.example.com/wq": labels of 60, 240 characters of prefix. */
	for (i = 0; i < 4; i++) {
		memset(name + i * 61, 'a', 60);
		name[i * 61 + 60] = '.';
	}
	memcpy(name + 244 - 8, "example.com/wq", 15);
	assert_true(strchr(name, '/') - name <= 253);
	snprintf(nrtdir, sizeof nrtdir, "%s/longname", dir);
	assert_int_equal(mkdir(nrtdir, 0700), 0);
	snprintf(path, sizeof path, "%s/w1.yaml", nrtdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "apiVersion: topology.node.k8s.io/v1alpha2\n"
		   "kind: NodeResourceTopology\n"
		   "metadata: {name: w1}\n"
		   "attributes: [{name: topologyManagerPolicy, value: single-numa-node}]\n"
		   "zones:\n"
		   "- name: node-0\n  type: Node\n  resources:\n"
		   "  - {name: cpu, capacity: \"8\", allocatable: \"8\", available: \"8\"}\n"
		   "  - {name: %s, capacity: \"4\", allocatable: \"4\", available: \"4\"}\n",
		name);
	fclose(f);
	snprintf(body, sizeof body,
		 "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{\"containers\":"
		 "[{\"name\":\"c\",\"resources\":{\"limits\":{\"%s\":\"1\"},\"requests\":{\"%s\":\"1\"}}}]}},"
		 "\"NodeNames\":[\"w1\"]}",
		 name, name);
	snprintf(log, sizeof log, "%s/longname.jsonl", dir);
	config_init(&cfg);
	sf = source_files_new(store, nrtdir);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(decision_log_open(log, (int64_t)1 << 20, 1, 4096, &dl, &msg), ERR_OK);
	settings_holder_init(&holder, settings_new(&cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = store;
	ctx.settings = &holder;
	ctx.decisions = dl;
	handle_prioritize(&ctx, body, strlen(body), &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "[{\"Host\":\"w1\",\"Score\":"));
	free(r.body);
	decision_log_close(dl);
	text = read_file_or_die(log, &len);
	/* The part names the resource whole, inside valid JSON. */
	snprintf(body, sizeof body, "{\"resource\":\"%s\",\"weight\":1,", name);
	assert_non_null(strstr(text, body));
	free(text);
	settings_holder_cleanup(&holder);
	source_files_free(sf);
	store_free(store);
	config_cleanup(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replay_same_config_is_identical),
		cmocka_unit_test(replay_weight_change_is_reported),
		cmocka_unit_test(replay_damaged_line_exits_2),
		cmocka_unit_test(replay_reads_old_fnv1a_digests),
		cmocka_unit_test(replay_rotated_files_stand_alone),
		cmocka_unit_test(prioritize_long_resource_name_in_decision_log),
	};

	return cmocka_run_group_tests_name("replay", tests, setup, teardown);
}
