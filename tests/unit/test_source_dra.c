/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA sources without an API server: the directory source through
 * synchronous scans (objects added, changed, removed; a bad object among
 * good ones; a file that stops parsing; an object two files define) and
 * through its watching thread (a new file, an edit, a removal, each waited
 * for with a deadline); the API source fed watch streams by hand (added,
 * modified, deleted, a bad object that keeps its last good version). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extender/file_read.h"
#include "extender/inventory/source_dra.h"
#include "extender/log.h"
#include "tests/support/scratch_dir.h"

#define DEADLINE_MS 30000

static char dir[] = "/tmp/numa-dra-XXXXXX";

/* dir/name holding text, written aside and renamed into place. */
static void write_file(const char *name, const char *text)
{
	char tmp[256], path[256];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static void remove_file(const char *name)
{
	char path[256];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

static void copy_fixture(const char *name)
{
	char path[256], *text = NULL;
	struct errmsg msg;
	size_t len = 0;

	snprintf(path, sizeof path, "tests/data/dra/%s", name);
	if (file_read_all(path, 0, &text, &len, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	write_file(name, text);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_ERROR);
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

#define CLASS(name, expr)                                                     \
	"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n" \
	"spec: {selectors: [{cel: {expression: \"" expr "\"}}]}\n"

static const char *class_selector(struct dra_store *s, const char *name)
{
	static char buf[256];
	const struct dra_snapshot *snap = dra_store_acquire(s);
	const struct dra_class *c = dra_snapshot_class(snap, name);

	snprintf(buf, sizeof buf, "%s", c == NULL ? "(none)" : c->nselectors ? c->selectors[0] : "");
	dra_snapshot_release(snap);
	return buf;
}

static size_t count(struct dra_store *s, enum dra_kind k)
{
	struct dra_store_stats st;

	dra_store_stats(s, &st);
	return st.objects[k];
}

static uint64_t version(struct dra_store *s)
{
	struct dra_store_stats st;

	dra_store_stats(s, &st);
	return st.version;
}

static uint64_t errors(struct dra_store *s)
{
	struct dra_store_stats st;

	dra_store_stats(s, &st);
	return st.errors;
}

static void files_scans(void **state)
{
	struct dra_store *s = dra_store_new();
	struct source_dra_files *sf = source_dra_files_new(s, dir);
	uint64_t v;

	(void)state;
	copy_fixture("slice-nvidia-gpu.yaml");
	copy_fixture("claims.yaml");
	write_file("notes.txt", "not read");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_true(dra_store_ready(s));
	assert_int_equal(count(s, DRA_KIND_SLICE), 1);
	assert_int_equal(count(s, DRA_KIND_CLAIM), 5);
	v = version(s);
	assert_int_equal(v, 1);
	/* Nothing changed: nothing published. */
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_int_equal(version(s), v);
	/* A new file; an object changed in another. */
	write_file("classes.yaml", CLASS("gpu.nvidia.com", "device.driver == 'gpu.nvidia.com'") "---\n"
				   CLASS("dra.cpu", "device.driver == 'dra.cpu'"));
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_int_equal(count(s, DRA_KIND_CLASS), 2);
	assert_int_equal(version(s), v + 1);
	/* One bad object among good ones: it keeps its last good version,
	 * the others change. */
	write_file("classes.yaml", CLASS("gpu.nvidia.com", "device.driver == 'x'") "---\n"
				   "kind: DeviceClass\nmetadata: {name: dra.cpu}\nspec: {selectors: [{}]}\n");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_string_equal(class_selector(s, "gpu.nvidia.com"), "device.driver == 'x'");
	assert_string_equal(class_selector(s, "dra.cpu"), "device.driver == 'dra.cpu'");
	assert_int_equal(errors(s), 1);
	/* A file that does not parse keeps everything it gave. */
	write_file("classes.yaml", "kind: [\n");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 1);
	assert_int_equal(count(s, DRA_KIND_CLASS), 2);
	assert_int_equal(errors(s), 2);
	/* So does an empty one (a writer that truncates, then writes). */
	write_file("claims.yaml", "");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 1);
	assert_int_equal(count(s, DRA_KIND_CLAIM), 5);
	/* Objects a file drops go. */
	write_file("claims.yaml", "kind: ResourceClaim\nmetadata: {name: only, namespace: ml}\nspec: {}\n");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_int_equal(count(s, DRA_KIND_CLAIM), 1);
	/* A file that is gone gives up what it gave. */
	remove_file("classes.yaml");
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_int_equal(count(s, DRA_KIND_CLASS), 0);
	assert_int_equal(count(s, DRA_KIND_SLICE), 1);
	source_dra_files_free(sf);
	dra_store_free(s);
	remove_file("slice-nvidia-gpu.yaml");
	remove_file("claims.yaml");
	remove_file("notes.txt");
}

/* An object two files define is the first's, in name order; when the first
 * drops it, the second's takes over. */
static void files_first_wins(void **state)
{
	struct dra_store *s = dra_store_new();
	struct source_dra_files *sf = source_dra_files_new(s, dir);

	(void)state;
	write_file("a.yaml", CLASS("c", "device.driver == 'a'"));
	write_file("b.yaml", CLASS("c", "device.driver == 'b'") "---\n" CLASS("d", "true"));
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_string_equal(class_selector(s, "c"), "device.driver == 'a'");
	assert_string_equal(class_selector(s, "d"), "true");
	write_file("a.yaml", CLASS("e", "false"));
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_string_equal(class_selector(s, "c"), "device.driver == 'b'");
	assert_string_equal(class_selector(s, "e"), "false");
	source_dra_files_free(sf);
	dra_store_free(s);
	remove_file("a.yaml");
	remove_file("b.yaml");
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until the store holds n objects of kind k; false at the deadline. */
static bool wait_count(struct dra_store *s, enum dra_kind k, size_t n)
{
	int64_t until = now_ms() + DEADLINE_MS;

	while (count(s, k) != n) {
		if (now_ms() > until)
			return false;
		usleep(10000);
	}
	return true;
}

static void files_thread_sees_changes(void **state)
{
	struct dra_store *s = dra_store_new();
	struct source_dra_files *sf = source_dra_files_new(s, dir);

	(void)state;
	dir_watch_set_event_delay_ms(source_dra_files_watcher(sf), 10);
	assert_int_equal(dir_watch_scan(source_dra_files_watcher(sf)), 0);
	assert_true(dra_store_ready(s));
	dir_watch_start(source_dra_files_watcher(sf), 100);
	copy_fixture("slice-dra-cpu.yaml");
	assert_true(wait_count(s, DRA_KIND_SLICE, 1));
	copy_fixture("template.yaml");
	assert_true(wait_count(s, DRA_KIND_TEMPLATE, 1));
	remove_file("slice-dra-cpu.yaml");
	assert_true(wait_count(s, DRA_KIND_SLICE, 0));
	remove_file("template.yaml");
	assert_true(wait_count(s, DRA_KIND_TEMPLATE, 0));
	source_dra_files_free(sf);
	dra_store_free(s);
}

static bool feed(struct source_dra *src, enum dra_kind k, const char *type, const char *obj)
{
	char line[4096];

	snprintf(line, sizeof line, "{\"type\":\"%s\",\"object\":%s}\n", type, obj);
	return source_dra_feed(src, k, line, strlen(line), 7);
}

#define JCLASS(name, rv, expr)                                                                  \
	"{\"kind\":\"DeviceClass\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"" \
	name "\",\"resourceVersion\":\"" rv "\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"" \
	expr "\"}}]}}"

static void kube_stream(void **state)
{
	struct dra_store *s = dra_store_new();
	struct source_dra *src = source_dra_detached(s);
	const struct dra_snapshot *snap;

	(void)state;
	assert_true(feed(src, DRA_KIND_CLASS, "ADDED", JCLASS("c", "10", "true")));
	assert_int_equal(count(s, DRA_KIND_CLASS), 1);
	assert_int_equal(version(s), 1);
	assert_true(feed(src, DRA_KIND_CLASS, "MODIFIED", JCLASS("c", "11", "false")));
	assert_string_equal(class_selector(s, "c"), "false");
	snap = dra_store_acquire(s);
	assert_string_equal(dra_object_version(dra_snapshot_class(snap, "c")), "11");
	assert_string_equal(dra_object_origin(dra_snapshot_class(snap, "c")), "kubernetes");
	dra_snapshot_release(snap);
	/* A version that does not decode: logged, counted, the last good
	 * one stays. */
	assert_true(feed(src, DRA_KIND_CLASS, "MODIFIED",
			 "{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"12\"},\"spec\":{\"selectors\":[{}]}}"));
	assert_string_equal(class_selector(s, "c"), "false");
	assert_int_equal(errors(s), 1);
	assert_int_equal(version(s), 2);
	/* A claim in its namespace, then deleted. */
	assert_true(feed(src, DRA_KIND_CLAIM, "ADDED",
			 "{\"metadata\":{\"name\":\"g\",\"namespace\":\"ml\",\"resourceVersion\":\"13\"},"
			 "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
			 "{\"deviceClassName\":\"c\"}}]}}}"));
	assert_int_equal(count(s, DRA_KIND_CLAIM), 1);
	assert_true(feed(src, DRA_KIND_CLAIM, "DELETED",
			 "{\"metadata\":{\"name\":\"g\",\"namespace\":\"ml\",\"resourceVersion\":\"14\"}}"));
	assert_int_equal(count(s, DRA_KIND_CLAIM), 0);
	assert_true(feed(src, DRA_KIND_CLASS, "DELETED", JCLASS("c", "15", "false")));
	assert_int_equal(count(s, DRA_KIND_CLASS), 0);
	/* A corrupt stream ends the watch. */
	assert_false(source_dra_feed(src, DRA_KIND_SLICE, "{nope\n", 6, 6));
	source_dra_stop(src);
	dra_store_free(s);
}

#define JCLAIM(rv, cls)                                                                      \
	"{\"metadata\":{\"name\":\"g\",\"namespace\":\"ml\",\"resourceVersion\":\"" rv "\"},"          \
	"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"" cls \
	"\"}}]}}}"

static const char *claim_version(struct dra_store *s)
{
	static char v[32];
	const struct dra_snapshot *snap = dra_store_acquire(s);
	const struct dra_claim *c = dra_snapshot_claim(snap, "ml", "g");

	snprintf(v, sizeof v, "%s", c ? dra_object_version(c) : "none");
	dra_snapshot_release(snap);
	return v;
}

/* The bind verb publishes a claim as PreBind wrote it; a watch that lags
 * behind must not put an earlier version back. */
static void a_lagging_claim_version_is_ignored(void **state)
{
	struct dra_store *s = dra_store_new();
	struct source_dra *src = source_dra_detached(s);
	struct json_object *o = json_tokener_parse(JCLAIM("120", "bound"));
	struct errmsg msg;

	(void)state;
	assert_true(feed(src, DRA_KIND_CLAIM, "ADDED", JCLAIM("100", "c")));
	assert_string_equal(claim_version(s), "100");
	assert_non_null(o);
	assert_int_equal(source_dra_put_json(s, DRA_KIND_CLAIM, o, &msg), ERR_OK);
	json_object_put(o);
	assert_string_equal(claim_version(s), "120");
	/* The watch delivers 110 late: ignored, and no error counted. */
	assert_true(feed(src, DRA_KIND_CLAIM, "MODIFIED", JCLAIM("110", "c")));
	assert_string_equal(claim_version(s), "120");
	assert_int_equal(errors(s), 0);
	/* The same version (the watch catching up), then a later one. */
	assert_true(feed(src, DRA_KIND_CLAIM, "MODIFIED", JCLAIM("120", "bound")));
	assert_string_equal(claim_version(s), "120");
	assert_true(feed(src, DRA_KIND_CLAIM, "MODIFIED", JCLAIM("130", "later")));
	assert_string_equal(claim_version(s), "130");
	/* Versions that are not numbers are taken as they come. */
	assert_true(feed(src, DRA_KIND_CLAIM, "MODIFIED", JCLAIM("x9", "odd")));
	assert_string_equal(claim_version(s), "x9");
	source_dra_stop(src);
	dra_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files_scans),
		cmocka_unit_test(files_first_wins),
		cmocka_unit_test(files_thread_sees_changes),
		cmocka_unit_test(kube_stream),
		cmocka_unit_test(a_lagging_claim_version_is_ignored),
	};

	return cmocka_run_group_tests_name("source_dra", tests, setup, teardown);
}
