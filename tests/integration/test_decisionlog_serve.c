/* SPDX-License-Identifier: Apache-2.0 */
/* serve's decision log when the disk says no: under a file-size limit
 * (ulimit -f; serve must not die of SIGXFSZ) and on a 64 KiB tmpfs that
 * fills and frees again (root only). Filter calls over HTTP; the file
 * keeps only whole lines, /metrics counts what was lost, the log says so,
 * and `replay` of the file exits 0 and reports the loss. */
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

#include "tests/support/declog_check.h"
#include "tests/support/free_port.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/numa-declog-serve-XXXXXX";
static pid_t child = -1;

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	char mnt[128];

	(void)state;
	snprintf(mnt, sizeof mnt, "%s/mnt", dir);
	umount2(mnt, MNT_DETACH);
	spawn_cleanup(-1, dir, NULL, NULL);
	return 0;
}

static int kill_child(void **state)
{
	(void)state;
	spawn_cleanup(child, NULL, NULL, NULL);
	child = -1;
	return 0;
}

struct srv {
	int port;
	char config[300], log[300];
	const char *decisions;
	char *filter;
	size_t calls;
};

/* Starts serve with its decision log at decisions; fsize > 0: under that
 * file-size limit, with SIGXFSZ at its default (what kills a process that
 * does not ignore it). */
static void srv_start(struct srv *s, const char *name, const char *decisions, rlim_t fsize)
{
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", s->config, NULL };
	struct rlimit saved, limit;
	FILE *f;

	memset(s, 0, sizeof *s);
	s->port = free_port();
	s->decisions = decisions;
	s->filter = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	snprintf(s->config, sizeof s->config, "%s/%s.yaml", dir, name);
	snprintf(s->log, sizeof s->log, "%s/%s.log", dir, name);
	f = fopen(s->config, "w");
	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:%d\"\nurlPrefix: /v1\n"
		   "inventory: {source: files, dir: tests/data/server/nrt, pollInterval: 1h}\n"
		   "log: {level: info}\ndecisionLog: {path: %s, maxFiles: 1}\n",
		s->port, decisions);
	fclose(f);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	if (fsize > 0) {
		limit = saved;
		limit.rlim_cur = fsize;
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
	}
	child = spawn_process(argv, s->log);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	if (!http_local_wait_for(s->port, "/readyz", "", 30))
		fail_msg("serve never became ready; its log is %s", s->log);
}

static uint64_t dropped(const struct srv *s)
{
	static const char name[] = "\nnuma_extender_decision_log_dropped_total ";
	char *metrics = NULL, *p;
	uint64_t v;

	assert_int_equal(http_local_request(s->port, "GET", "/metrics", NULL, &metrics), 200);
	p = strstr(metrics, name);
	assert_non_null(p);
	v = strtoull(p + strlen(name), NULL, 10);
	free(metrics);
	return v;
}

static void filter(struct srv *s)
{
	assert_int_equal(http_local_request(s->port, "POST", "/v1/filter", s->filter, NULL), 200);
	s->calls++;
}

/* Waits (deadline 30 s) until each call is a whole line in the file or
 * counted as dropped. */
static void settle(const struct srv *s)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 3000; i++) {
		if (declog_decisions_now(s->decisions) + dropped(s) == s->calls)
			return;
		nanosleep(&pause, NULL);
	}
	fail_msg("serve's decision log did not account for %zu calls: %zu in the file, %llu dropped", s->calls,
		 declog_decisions_now(s->decisions), (unsigned long long)dropped(s));
}

/* SIGTERM; serve drains and exits 0 (it was never killed by a signal). */
static void srv_stop(struct srv *s)
{
	assert_int_equal(kill(child, SIGTERM), 0);
	assert_int_equal(spawn_wait_exit(child, 30), 0);
	child = -1;
	free(s->filter);
}

/* The file whole, its markers summing to lost, replay of it exit 0 with
 * the loss in its summary. */
static void check_file(const struct srv *s, uint64_t lost)
{
	struct declog_tally t;
	struct json_object *lines;
	char why[512], args[400], want[200], *out = NULL;

	lines = declog_read(s->decisions, why, sizeof why);
	if (lines == NULL)
		fail_msg("%s", why);
	if (!declog_tally(lines, "worker-gpu-017", &t, why, sizeof why))
		fail_msg("%s", why);
	json_object_put(lines);
	assert_int_equal(t.decisions + lost, s->calls);
	assert_int_equal(t.lost, lost);
	assert_int_equal(t.missing, lost);
	assert_true(t.markers >= 1);
	snprintf(args, sizeof args, "--log %s", s->decisions);
	assert_int_equal(declog_replay(spawn_serve_bin(), args, &out), 0);
	snprintf(want, sizeof want, "%zu calls replayed: %zu identical, 0 changed\n%llu record%s lost (decision log writes failed)\n",
		 t.decisions, t.decisions, (unsigned long long)lost, lost == 1 ? "" : "s");
	assert_string_equal(out, want);
	free(out);
}

/* ulimit -f 256 KiB: the decision log passes it, serve lives on (SIGXFSZ
 * ignored), counts and logs the records past it. At exit the marker alone
 * is written when the room left under the limit holds it; else the log says
 * what the file lacks. */
static void serve_survives_a_file_size_limit(void **state)
{
	char decisions[300];
	struct declog_tally t;
	struct json_object *lines;
	struct srv s;
	char why[512];
	int i;

	(void)state;
	snprintf(decisions, sizeof decisions, "%s/fsize.jsonl", dir);
	srv_start(&s, "fsize", decisions, 256 * 1024);
	for (i = 0; i < 2000 && dropped(&s) == 0; i++) {
		filter(&s);
		settle(&s);
	}
	assert_int_equal(dropped(&s), 1);
	filter(&s);
	settle(&s);
	assert_int_equal(dropped(&s), 2);
	assert_true(spawn_wait_log(s.log, "msg=\"cannot write the decision log: records dropped\"", 10));
	assert_true(spawn_log_contains(s.log, "error=\"write: File too large\""));
	srv_stop(&s);
	lines = declog_read(decisions, why, sizeof why);
	if (lines == NULL)
		fail_msg("%s", why);
	if (!declog_tally(lines, "worker-gpu-017", &t, why, sizeof why))
		fail_msg("%s", why);
	assert_int_equal(t.decisions, s.calls - 2);
	if (t.markers == 0) {
		assert_true(spawn_log_contains(s.log, "msg=\"decision log closed with records lost\""));
		assert_true(spawn_log_contains(s.log, " lost=2 "));
	} else {
		assert_int_equal(t.markers, 1);
		assert_int_equal(t.lost, 2);
		assert_int_equal(t.first_marker, json_object_array_length(lines) - 1);
		assert_true(spawn_log_contains(s.log, "msg=\"decision log writable again\""));
	}
	json_object_put(lines);
}

/* The report's disk: a 64 KiB tmpfs, mostly taken by a filler file. */
static void serve_on_a_full_tmpfs_loses_whole_records(void **state)
{
	char mnt[200], decisions[300], filler[300], block[4096];
	uint64_t lost;
	struct srv s;
	int i, fd;

	(void)state;
	snprintf(mnt, sizeof mnt, "%s/mnt", dir);
	if (geteuid() != 0) {
		print_message("skipped: mounting a 64 KiB tmpfs needs root\n");
		skip();
	}
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
		print_message("skipped: cannot mount a tmpfs at %s: %s\n", mnt, strerror(errno));
		skip();
	}
	snprintf(decisions, sizeof decisions, "%s/decisions.jsonl", mnt);
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	memset(block, 'x', sizeof block);
	for (i = 0; i < 10; i++)
		assert_int_equal(write(fd, block, sizeof block), (ssize_t)sizeof block);
	assert_int_equal(close(fd), 0);
	srv_start(&s, "tmpfs", decisions, 0);
	for (i = 0; i < 500 && dropped(&s) == 0; i++) {
		filter(&s);
		settle(&s);
	}
	assert_int_equal(dropped(&s), 1);
	for (i = 0; i < 3; i++)
		filter(&s);
	settle(&s);
	lost = dropped(&s);
	assert_true(spawn_wait_log(s.log, "error=\"write: No space left on device\"", 10));
	assert_int_equal(unlink(filler), 0);
	for (i = 0; i < 3; i++)
		filter(&s);
	settle(&s);
	assert_int_equal(dropped(&s), lost);
	assert_true(spawn_wait_log(s.log, "msg=\"decision log writable again\"", 10));
	srv_stop(&s);
	check_file(&s, lost);
	assert_int_equal(umount(mnt), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(serve_survives_a_file_size_limit, kill_child),
		cmocka_unit_test_teardown(serve_on_a_full_tmpfs_loses_whole_records, kill_child),
	};

	return cmocka_run_group_tests_name("decisionlog_serve", tests, setup, teardown);
}
