/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log never lies: filter calls go through the real handler
 * into a real file whose writes are made to fail (a file-size limit, a full
 * tmpfs, a rotation that cannot rename). Every record either reaches the
 * file whole or is counted (numa_extender_decision_log_dropped_total, a
 * "lost" marker in the file, a log line); no line is ever cut; a config or
 * inventory record that was lost is written again before the next decision
 * that needs it; and `numa-extender replay` reads the file (exit 0) and
 * says how many records were lost. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog.h"
#include "extender/http/handlers.h"
#include "extender/metrics.h"
#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "tests/support/declog_check.h"
#include "tests/support/http_client.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/numa-declog-XXXXXX";
static struct rlimit fsize_limit;   /* the process's own */

static int setup(void **state)
{
	(void)state;
	/* A file-size limit makes writes fail with EFBIG instead of killing
	 * the process, as serve does. */
	signal(SIGXFSZ, SIG_IGN);
	if (getrlimit(RLIMIT_FSIZE, &fsize_limit) != 0)
		return -1;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	/* A tmpfs left mounted by a failed test (detached even when a file
	 * of it is still open). */
	snprintf(cmd, sizeof cmd, "%s/mnt", dir);
	umount2(cmd, MNT_DETACH);
	return scratch_dir_remove(dir);
}

/* ---- The extender's side: a store, the filter handler, the log. ---- */

struct rig {
	struct store *store;
	struct source_files *sf;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct config cfg;
	char *body_a, *body_ab;  /* filter calls on worker-gpu-017, and on it and worker-gpu-018 */
	size_t calls;            /* decisions submitted */
	uint64_t dropped0;       /* the metric when the log opened */
	const char *path;
};

static uint64_t dropped_metric(void)
{
	static const char name[] = "\nnuma_extender_decision_log_dropped_total ";
	size_t len;
	char *text = metrics_render(&len), *p = strstr(text, name);
	uint64_t v;

	assert_non_null(p);
	v = strtoull(p + strlen(name), NULL, 10);
	free(text);
	return v;
}

static char *filter_body(struct json_object *pod, int nodes)
{
	struct json_object *o = json_object_new_object(), *names = json_object_new_array();
	char *s;

	json_object_object_add(o, "Pod", json_object_get(pod));
	json_object_array_add(names, json_object_new_string("worker-gpu-017"));
	if (nodes > 1)
		json_object_array_add(names, json_object_new_string("worker-gpu-018"));
	json_object_object_add(o, "NodeNames", names);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static void rig_open(struct rig *g, const char *path, int64_t max_bytes, int64_t max_files)
{
	struct json_object *fixture = json_object_from_file("tests/data/fixtures/wire/filter-request-nodecache.json");
	struct json_object *pod = NULL;
	struct errmsg msg;

	memset(g, 0, sizeof *g);
	assert_non_null(fixture);
	assert_true(json_object_object_get_ex(fixture, "Pod", &pod));
	g->body_a = filter_body(pod, 1);
	g->body_ab = filter_body(pod, 2);
	json_object_put(fixture);
	g->path = path;
	g->store = store_new();
	config_init(&g->cfg);
	g->sf = source_files_new(g->store, "tests/data/server/nrt");
	assert_int_equal(source_files_scan(g->sf), 0);
	settings_holder_init(&g->holder, settings_new(&g->cfg));
	g->ctx.store = g->store;
	g->ctx.settings = &g->holder;
	g->dropped0 = dropped_metric();
	assert_int_equal(decision_log_open(path, max_bytes, max_files, 4096, &g->ctx.decisions, &msg), ERR_OK);
}

/* One filter call (one decision record). both: it names worker-gpu-018 too. */
static void call(struct rig *g, bool both)
{
	const char *body = both ? g->body_ab : g->body_a;
	struct reply r;

	handle_filter(&g->ctx, body, strlen(body), &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	g->calls++;
}

static uint64_t dropped(const struct rig *g)
{
	return dropped_metric() - g->dropped0;
}

static void rig_close(struct rig *g)
{
	decision_log_close(g->ctx.decisions);
	settings_holder_cleanup(&g->holder);
	source_files_free(g->sf);
	store_free(g->store);
	config_cleanup(&g->cfg);
	free(g->body_a);
	free(g->body_ab);
}

/* Waits (deadline 30 s) until the writer has dealt with every call: each
 * is a whole line in the file or counted as dropped. A batch being cut back
 * never makes the sum whole early: its last line is the partial one, and
 * the records are counted only after the cut. */
static void settle(const struct rig *g)
{
	struct timespec pause = { 0, 5 * 1000 * 1000 };
	int i;

	for (i = 0; i < 6000; i++) {
		if (declog_decisions_now(g->path) + dropped(g) == g->calls)
			return;
		nanosleep(&pause, NULL);
	}
	fail_msg("the decision log writer did not account for %zu calls: %zu in the file, %llu dropped", g->calls,
		 declog_decisions_now(g->path), (unsigned long long)dropped(g));
}

/* ---- The file's side. ---- */

/* Every line of the file, each a whole JSON object (asserted). */
static struct json_object *read_log(const char *path)
{
	char why[512];
	struct json_object *lines = declog_read(path, why, sizeof why);

	if (lines == NULL)
		fail_msg("%s", why);
	return lines;
}

/* Every decision after its config and inventories (asserted), and the
 * count of the rest; inventories: worker-gpu-018's. */
static struct declog_tally check_log(struct json_object *lines)
{
	struct declog_tally t;
	char why[512];

	if (!declog_tally(lines, "worker-gpu-018", &t, why, sizeof why))
		fail_msg("%s", why);
	return t;
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

static bool is(struct json_object *o, const char *type)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, "type", &v) && strcmp(json_object_get_string(v), type) == 0;
}

static int replay(const char *args, char **out)
{
	return declog_replay(getenv("BIN") ? getenv("BIN") : "bin/numa-extender", args, out);
}

/* replay of path: exit 0 (the same configuration decides the same), the
 * calls it holds and the lost records in its summary, text and JSON. */
static void replays(const char *path, size_t decisions, uint64_t lost)
{
	char args[512], want[256], *out = NULL;
	struct json_object *o;

	snprintf(args, sizeof args, "--log %s", path);
	assert_int_equal(replay(args, &out), 0);
	snprintf(want, sizeof want, "%zu calls replayed: %zu identical, 0 changed\n%llu record%s lost (decision log writes failed)\n",
		 decisions, decisions, (unsigned long long)lost, lost == 1 ? "" : "s");
	assert_string_equal(out, want);
	free(out);
	snprintf(args, sizeof args, "--log %s -o json", path);
	assert_int_equal(replay(args, &out), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_int_equal(get_int(o, "lost"), (int64_t)lost);
	assert_int_equal(get_int(o, "calls"), (int64_t)decisions);
	json_object_put(o);
	free(out);
}

/* The process's stderr (where log lines go) into a file for a while. */
static int saved_stderr = -1;
static char captured[256];

static void capture_stderr(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
	snprintf(captured, sizeof captured, "%s", path);
}

static char *release_stderr(const char *path)
{
	char *text;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	text = read_file_or_die(path, NULL);
	fputs(text, stderr);
	return text;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	const char *p;

	for (p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* what occurs in the line that begins at l. */
static bool in_line(const char *l, const char *what)
{
	const char *p = strstr(l, what), *nl = strchr(l, '\n');

	return p != NULL && (nl == NULL || p < nl);
}

static const char *line_with(const char *text, const char *what)
{
	const char *p = strstr(text, what);

	if (p == NULL)
		fail_msg("no log line with %s in:\n%s", what, text);
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* The lines of a loss that began once and ended once (within a minute:
 * later lines "still failing" are allowed, one a minute). */
static void check_lines(const char *text, const char *path, const char *error, uint64_t lost, time_t seconds)
{
	char want[512];
	const char *l;

	assert_int_equal(count(text, "msg=\"cannot write the decision log: records dropped\""), 1);
	assert_true(count(text, "msg=\"decision log writes still failing") <= 1 + (size_t)seconds / 60);
	l = line_with(text, "msg=\"cannot write the decision log: records dropped\"");
	assert_true(strncmp(l, "time=", 5) == 0 && in_line(l, " level=error "));
	snprintf(want, sizeof want, " path=\"%s\" error=\"%s\" ", path, error);
	assert_true(in_line(l, want));
	l = line_with(text, "msg=\"decision log writable again\"");
	snprintf(want, sizeof want, " lost=%llu\n", (unsigned long long)lost);
	assert_true(in_line(l, " level=info ") && in_line(l, want));
	assert_int_equal(count(text, "msg=\"decision log closed with records lost\""), 0);
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* After each test: a test that failed while capturing shows what it
 * logged, and cmocka's message, on stderr again; one that failed with a
 * file-size limit set leaves none to the next. */
static int restore(void **state)
{
	(void)state;
	if (saved_stderr >= 0)
		free(release_stderr(captured));
	return setrlimit(RLIMIT_FSIZE, &fsize_limit);
}

/* ---- Tests. ---- */

/* A file-size limit (works without root): every write past it fails with
 * EFBIG after a short write; the file is cut back to its last whole record
 * each time, and worker-gpu-018's inventory, first needed while writes
 * fail, is written after the limit is lifted, before the decisions. */
static void fsize_limit_loses_whole_records_then_replays(void **state)
{
	char path[256], errpath[256], *log_text;
	struct rlimit limit;
	struct json_object *lines;
	struct declog_tally t;
	struct rig g;
	time_t t0 = time(NULL);
	off_t size0;
	int i;

	(void)state;
	snprintf(path, sizeof path, "%s/fsize.jsonl", dir);
	snprintf(errpath, sizeof errpath, "%s/fsize.stderr", dir);
	capture_stderr(errpath);
	rig_open(&g, path, (int64_t)64 << 20, 3);
	for (i = 0; i < 3; i++)
		call(&g, false);
	settle(&g);
	size0 = file_size(path);
	assert_int_equal(dropped(&g), 0);
	/* Room for 100 more bytes: less than any record. */
	limit = fsize_limit;
	limit.rlim_cur = (rlim_t)size0 + 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
	for (i = 0; i < 4; i++)
		call(&g, true);
	settle(&g);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &fsize_limit), 0);
	assert_int_equal(dropped(&g), 4);
	assert_int_equal(file_size(path), size0);
	lines = read_log(path);
	assert_int_equal(check_log(lines).decisions, 3);
	json_object_put(lines);
	for (i = 0; i < 3; i++)
		call(&g, true);
	rig_close(&g);
	log_text = release_stderr(errpath);

	lines = read_log(path);
	t = check_log(lines);
	json_object_put(lines);
	assert_int_equal(t.decisions, 6);
	assert_int_equal(t.markers, 1);
	assert_int_equal(t.lost, 4);
	assert_int_equal(t.missing, 4);
	assert_int_equal(dropped(&g), 4);
	assert_int_equal(t.inventories, 1);
	assert_true(t.first_inventory > t.first_marker);
	check_lines(log_text, path, "write: File too large", 4, time(NULL) - t0);
	free(log_text);
	replays(path, 6, 4);
}

/* When writes fail until the log closes, and work by then, the marker is
 * written alone at close: the file says what it lacks. */
static void close_writes_the_marker(void **state)
{
	char path[256], errpath[256], *log_text;
	struct rlimit limit;
	struct json_object *lines;
	struct declog_tally t;
	struct rig g;

	(void)state;
	snprintf(path, sizeof path, "%s/close.jsonl", dir);
	snprintf(errpath, sizeof errpath, "%s/close.stderr", dir);
	capture_stderr(errpath);
	rig_open(&g, path, (int64_t)64 << 20, 3);
	call(&g, false);
	settle(&g);
	limit = fsize_limit;
	limit.rlim_cur = (rlim_t)file_size(path);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
	call(&g, false);
	call(&g, true);
	settle(&g);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &fsize_limit), 0);
	rig_close(&g);
	log_text = release_stderr(errpath);
	lines = read_log(path);
	t = check_log(lines);
	assert_true(is(json_object_array_get_idx(lines, json_object_array_length(lines) - 1), "lost"));
	json_object_put(lines);
	assert_int_equal(t.decisions, 1);
	assert_int_equal(t.lost, 2);
	assert_int_equal(dropped(&g), 2);
	assert_int_equal(t.inventories, 0);
	assert_non_null(strstr(log_text, "msg=\"decision log writable again\""));
	free(log_text);
	replays(path, 1, 2);
}

static void mount_tmpfs(const char *mnt)
{
	if (geteuid() != 0) {
		print_message("skipped: mounting a 64 KiB tmpfs needs root (the file-size limit tests run anyway)\n");
		skip();
	}
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
		print_message("skipped: cannot mount a tmpfs at %s: %s\n", mnt, strerror(errno));
		rmdir(mnt);
		skip();
	}
}

/* The disk of the report: a 64 KiB tmpfs fills (ENOSPC), and frees again
 * when a filler file is deleted. */
static void full_tmpfs_loses_whole_records_then_replays(void **state)
{
	char mnt[256], path[300], filler[300], errpath[256], block[4096], *log_text;
	struct json_object *lines;
	struct declog_tally t;
	struct rig g;
	time_t t0 = time(NULL);
	uint64_t lost;
	int i, fd;

	(void)state;
	snprintf(mnt, sizeof mnt, "%s/mnt", dir);
	mount_tmpfs(mnt);
	snprintf(path, sizeof path, "%s/decisions.jsonl", mnt);
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	snprintf(errpath, sizeof errpath, "%s/tmpfs.stderr", dir);
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	memset(block, 'x', sizeof block);
	for (i = 0; i < 10; i++)
		assert_int_equal(write(fd, block, sizeof block), (ssize_t)sizeof block);
	close(fd);
	capture_stderr(errpath);
	rig_open(&g, path, (int64_t)64 << 20, 3);
	/* One call at a time until the disk is full. */
	for (i = 0; i < 500 && dropped(&g) == 0; i++) {
		call(&g, false);
		settle(&g);
	}
	assert_int_equal(dropped(&g), 1);
	for (i = 0; i < 3; i++)
		call(&g, true);
	settle(&g);
	lines = read_log(path);
	json_object_put(lines);
	lost = dropped(&g);
	assert_true(lost >= 1);
	assert_int_equal(unlink(filler), 0);
	for (i = 0; i < 3; i++)
		call(&g, true);
	rig_close(&g);
	log_text = release_stderr(errpath);

	lines = read_log(path);
	t = check_log(lines);
	json_object_put(lines);
	assert_int_equal(t.decisions, g.calls - lost);
	assert_int_equal(dropped(&g), lost);
	assert_int_equal(t.lost, lost);
	assert_int_equal(t.missing, lost);
	assert_int_equal(t.markers, 1);
	assert_int_equal(t.inventories, 1);
	assert_true(t.first_inventory > t.first_marker);
	check_lines(log_text, path, "write: No space left on device", lost, time(NULL) - t0);
	free(log_text);
	replays(path, t.decisions, lost);
	assert_int_equal(umount(mnt), 0);
}

/* Rotation whose rename fails (path.1 is a directory): no crash; the
 * records are counted and logged while it fails, and once it works the new
 * file begins with the marker and replays; the old one stays whole. */
static void failed_rotation_counts_and_recovers(void **state)
{
	char path[256], rotated[300], keep[320], errpath[256], *log_text;
	struct json_object *lines;
	struct declog_tally t;
	struct rig g;
	uint64_t lost;
	size_t before;
	int i;

	(void)state;
	snprintf(path, sizeof path, "%s/rotate.jsonl", dir);
	snprintf(rotated, sizeof rotated, "%s.1", path);
	snprintf(keep, sizeof keep, "%s/keep", rotated);
	snprintf(errpath, sizeof errpath, "%s/rotate.stderr", dir);
	assert_int_equal(mkdir(rotated, 0700), 0);
	assert_int_equal(close(open(keep, O_WRONLY | O_CREAT, 0600)), 0);
	capture_stderr(errpath);
	rig_open(&g, path, 64 * 1024, 1);
	for (i = 0; i < 1000 && dropped(&g) == 0; i++) {
		call(&g, false);
		settle(&g);
	}
	assert_int_equal(dropped(&g), 1);
	call(&g, true);
	settle(&g);
	lost = dropped(&g);
	assert_int_equal(lost, 2);
	before = g.calls - (size_t)lost;
	assert_int_equal(unlink(keep), 0);
	assert_int_equal(rmdir(rotated), 0);
	call(&g, true);
	call(&g, false);
	rig_close(&g);
	log_text = release_stderr(errpath);

	lines = read_log(rotated);
	t = check_log(lines);
	json_object_put(lines);
	assert_true(file_size(rotated) >= 64 * 1024);
	assert_int_equal(t.decisions, before);
	assert_int_equal(t.markers, 0);
	lines = read_log(path);
	t = check_log(lines);
	assert_true(is(json_object_array_get_idx(lines, 0), "lost"));
	json_object_put(lines);
	assert_int_equal(t.decisions, 2);
	assert_int_equal(t.lost, 2);
	assert_int_equal(t.inventories, 1);
	assert_int_equal(dropped(&g), 2);
	assert_non_null(strstr(log_text, "error=\"rename: Is a directory\""));
	assert_non_null(strstr(log_text, "msg=\"decision log writable again\""));
	free(log_text);
	replays(path, 2, 2);
}

/* The log's folder deleted under it when the file is full: the rotation
 * finds no file to move and cannot open a new one; records are counted and
 * logged until the folder is back, and the new file begins with the
 * marker. */
static void failed_open_counts_and_recovers(void **state)
{
	struct timespec pause = { 0, 5 * 1000 * 1000 };
	char sub[256], path[300], errpath[256], *log_text;
	struct json_object *lines;
	struct declog_tally t;
	struct rig g;
	int i;

	(void)state;
	snprintf(sub, sizeof sub, "%s/gone", dir);
	snprintf(path, sizeof path, "%s/decisions.jsonl", sub);
	snprintf(errpath, sizeof errpath, "%s/open.stderr", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	capture_stderr(errpath);
	rig_open(&g, path, 64 * 1024, 1);
	for (i = 0; i < 1000 && file_size(path) < 64 * 1024; i++) {
		call(&g, false);
		settle(&g);
	}
	assert_int_equal(dropped(&g), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(sub), 0);
	call(&g, false);
	call(&g, true);
	/* Nothing in a file to count: the two are dropped, by the deadline. */
	for (i = 0; i < 6000 && dropped(&g) < 2; i++)
		nanosleep(&pause, NULL);
	assert_int_equal(dropped(&g), 2);
	assert_int_equal(mkdir(sub, 0700), 0);
	call(&g, true);
	rig_close(&g);
	log_text = release_stderr(errpath);
	lines = read_log(path);
	t = check_log(lines);
	assert_true(is(json_object_array_get_idx(lines, 0), "lost"));
	json_object_put(lines);
	assert_int_equal(t.decisions, 1);
	assert_int_equal(t.lost, 2);
	assert_int_equal(t.inventories, 1);
	assert_int_equal(dropped(&g), 2);
	assert_non_null(strstr(log_text, "error=\"open: No such file or directory\""));
	assert_non_null(strstr(log_text, "msg=\"decision log writable again\""));
	free(log_text);
	replays(path, 1, 2);
}

/* A lost marker is read, summed and checked like any record. */
static void replay_reads_lost_markers(void **state)
{
	char path[256], args[300], *out = NULL;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/markers.jsonl", dir);
	snprintf(args, sizeof args, "--log %s", path);
	f = fopen(path, "w");
	fputs("{\"type\":\"lost\",\"seq\":2,\"time\":\"2026-01-01T00:00:01.000Z\",\"records\":1,"
	      "\"since\":\"2026-01-01T00:00:00.000Z\",\"error\":\"write: No space left on device\"}\n"
	      "{\"type\":\"lost\",\"seq\":9,\"time\":\"2026-01-01T00:01:01.000Z\",\"records\":5,"
	      "\"since\":\"2026-01-01T00:01:00.000Z\",\"error\":\"write: File too large\"}\n",
	      f);
	fclose(f);
	assert_int_equal(replay(args, &out), 0);
	assert_string_equal(out, "0 calls replayed: 0 identical, 0 changed\n6 records lost (decision log writes failed)\n");
	free(out);
	f = fopen(path, "w");
	fputs("{\"type\":\"lost\",\"seq\":2,\"time\":\"t\",\"records\":1}\n"
	      "{\"type\":\"lost\",\"seq\":3,\"time\":\"t\",\"records\":-1}\n",
	      f);
	fclose(f);
	assert_int_equal(replay(args, &out), 2);
	assert_string_equal(out, "numa-extender replay: line 2: lost record without a count of records\n");
	free(out);
	f = fopen(path, "w");
	fputs("{\"type\":\"lost\",\"seq\":2,\"time\":\"t\",\"records\":\"many\"}\n", f);
	fclose(f);
	assert_int_equal(replay(args, &out), 2);
	assert_string_equal(out, "numa-extender replay: line 1: lost record without a count of records\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fsize_limit_loses_whole_records_then_replays, restore),
		cmocka_unit_test_teardown(close_writes_the_marker, restore),
		cmocka_unit_test_teardown(full_tmpfs_loses_whole_records_then_replays, restore),
		cmocka_unit_test_teardown(failed_rotation_counts_and_recovers, restore),
		cmocka_unit_test_teardown(failed_open_counts_and_recovers, restore),
		cmocka_unit_test(replay_reads_lost_markers),
	};

	return cmocka_run_group_tests_name("decisionlog", tests, setup, teardown);
}
