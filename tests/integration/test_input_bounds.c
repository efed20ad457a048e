/* SPDX-License-Identifier: Apache-2.0 */
/* Every input has a bound, through the binary itself: replay, explain and
 * simulate refuse a FIFO, a device (/dev/zero) or a directory given as a
 * file at once, with exit 2 and the path in the message, and refuse a file
 * or a decision log line over its documented size; a log without records is
 * an error too. serve, whose --config has become a FIFO, a directory or a
 * device, keeps its configuration on SIGHUP, says why, answers, and still
 * stops on SIGTERM. Every child runs under a deadline: a command that
 * blocks is killed and fails the test. The binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extender/decisionlog.h"
#include "extender/file_read.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"
#include "tests/support/scratch_dir.h"

/* Generous: a sanitizer build on a loaded machine. A command that blocks
 * never ends, so this is only how long a failing run takes. */
#define DEADLINE_S 30
/* config.c's ceiling on a configuration file. */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)

static char dir[] = "/tmp/numa-bounds-XXXXXX";
static pid_t serve_pid = -1;

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	spawn_cleanup(serve_pid, dir, NULL, NULL);
	return 0;
}

/* dir/name in a buffer of the caller's. */
static const char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* A file of `size` bytes: `head`, then a hole (zeros, no "\n") that costs
 * no disk. */
static const char *sparse_file(char *path, size_t path_size, const char *name,
			       const char *head, size_t size)
{
	int fd = open(in_dir(path, path_size, name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(close(fd), 0);
	return path;
}

/* Runs the binary with the NULL-terminated arguments; expects exit 2 within
 * the deadline and `text` in what it printed. */
static void expect_refused(const char *text, ...)
{
	const char *argv[SPAWN_MAX_ARGS + 1] = { spawn_serve_bin() };
	char log[256];
	size_t n = 1;
	va_list ap;
	char *out;
	int status;

	va_start(ap, text);
	while ((argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	in_dir(log, sizeof log, "command.log");
	status = spawn_wait_exit(spawn_process(argv, log), DEADLINE_S);
	out = read_file_or_die(log, NULL);
	if (status != 2 || strstr(out, text) == NULL)
		fail_msg("%s %s %s ...: exit %d (-1: killed at the deadline), output \"%s\", "
			 "wanted exit 2 and \"%s\"", argv[1], argv[2], argv[3], status, out, text);
	free(out);
}

/* Each file argument of each command, given `bad`, is refused with `why`. */
static void every_file_argument(const char *bad, const char *why)
{
	const char *pod = "config/pods/gpu-2.yaml", *nrt = "config/examples";
	char text[512], none[256];

	in_dir(none, sizeof none, "none.jsonl");
	snprintf(text, sizeof text, "%s: %s", bad, why);
	expect_refused(text, "replay", "--log", bad, NULL);
	expect_refused(text, "replay", "--log", none, "--config", bad, NULL);
	expect_refused(text, "explain", "--pod", bad, "--nrt", nrt, NULL);
	expect_refused(text, "explain", "--pod", pod, "--nrt", bad, NULL);
	expect_refused(text, "explain", "--pod", pod, "--nrt", nrt, "--config", bad, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", bad, NULL);
	expect_refused(text, "simulate", "--nrt", bad, "--pods", pod, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", pod, "--config", bad, NULL);
}

static void commands_refuse_a_fifo_at_once(void **state)
{
	char fifo[256];

	(void)state;
	assert_int_equal(mkfifo(in_dir(fifo, sizeof fifo, "fifo"), 0600), 0);
	every_file_argument(fifo, "not a regular file (a FIFO)");
}

static void commands_refuse_a_device_at_once(void **state)
{
	(void)state;
	every_file_argument("/dev/zero", "not a regular file (a character device)");
}

/* A directory where one file is expected (--nrt takes a directory). */
static void commands_refuse_a_directory_for_a_file(void **state)
{
	const char *pod = "config/pods/gpu-2.yaml", *nrt = "config/examples";
	char text[512], none[256];

	(void)state;
	in_dir(none, sizeof none, "none.jsonl");
	snprintf(text, sizeof text, "%s: is a directory", dir);
	expect_refused(text, "replay", "--log", dir, NULL);
	expect_refused(text, "replay", "--log", none, "--config", dir, NULL);
	expect_refused(text, "explain", "--pod", dir, "--nrt", nrt, NULL);
	expect_refused(text, "explain", "--pod", pod, "--nrt", nrt, "--config", dir, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", dir, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", pod, "--config", dir, NULL);
}

/* An empty log, or one of blank lines, is no proof that nothing changed. */
static void replay_refuses_a_log_without_records(void **state)
{
	char text[512], buf[256];
	const char *path;

	(void)state;
	path = sparse_file(buf, sizeof buf, "empty.jsonl", "", 0);
	snprintf(text, sizeof text, "%s: holds no records", path);
	expect_refused(text, "replay", "--log", path, NULL);
	path = sparse_file(buf, sizeof buf, "blank.jsonl", "\n\r\n\n", 4);
	snprintf(text, sizeof text, "%s: holds no records", path);
	expect_refused(text, "replay", "--log", path, NULL);
}

/* One byte over the longest line serve writes: refused by number, after at
 * most that much read (the file is a hole: zeros, no "\n"). */
static void replay_refuses_a_line_over_the_bound(void **state)
{
	const char *good = "{\"type\":\"preemption\",\"seq\":1}\n";
	char text[512], buf[256];
	const char *path;

	(void)state;
	path = sparse_file(buf, sizeof buf, "long1.jsonl", "", DECISION_LOG_MAX_LINE_BYTES + 1);
	snprintf(text, sizeof text, "%s: line 1 longer than %zu bytes (the longest line serve writes)",
		 path, DECISION_LOG_MAX_LINE_BYTES);
	expect_refused(text, "replay", "--log", path, NULL);
	/* After a good record, the second line. */
	path = sparse_file(buf, sizeof buf, "long2.jsonl", good, strlen(good) + DECISION_LOG_MAX_LINE_BYTES + 1);
	snprintf(text, sizeof text, "%s: line 2 longer than %zu bytes", path,
		 DECISION_LOG_MAX_LINE_BYTES);
	expect_refused(text, "replay", "--log", path, NULL);
}

static void commands_refuse_files_over_their_bound(void **state)
{
	const char *pod = "config/pods/gpu-2.yaml", *nrt = "config/examples";
	char text[512], none[256], bigbuf[256], configbuf[256];
	const char *big = sparse_file(bigbuf, sizeof bigbuf, "big.yaml", "", FILE_READ_DOC_MAX_BYTES + 1);
	const char *config = sparse_file(configbuf, sizeof configbuf, "big-config.yaml", "",
					 CONFIG_MAX_BYTES + 1);

	(void)state;
	in_dir(none, sizeof none, "none.jsonl");
	snprintf(text, sizeof text, "%s: larger than %zu bytes", big, FILE_READ_DOC_MAX_BYTES);
	expect_refused(text, "explain", "--pod", big, "--nrt", nrt, NULL);
	expect_refused(text, "explain", "--pod", pod, "--nrt", big, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", big, NULL);
	expect_refused(text, "simulate", "--nrt", big, "--pods", pod, NULL);
	snprintf(text, sizeof text, "%s: larger than %zu bytes", config, CONFIG_MAX_BYTES);
	expect_refused(text, "explain", "--pod", pod, "--nrt", nrt, "--config", config, NULL);
	expect_refused(text, "simulate", "--nrt", nrt, "--pods", pod, "--config", config, NULL);
	expect_refused(text, "replay", "--log", none, "--config", config, NULL);
}

/* serve answers prioritize with the wire fixture. */
static void expect_answers(int port)
{
	char *body = read_file_or_die("tests/data/fixtures/wire/prioritize-request.json", NULL);
	char *reply = NULL;

	assert_int_equal(http_local_request(port, "POST", "/v1/prioritize", body, &reply), 200);
	assert_non_null(strstr(reply, "worker-gpu-017"));
	free(reply);
	free(body);
}

/* Sends SIGHUP and waits for the refusal of what now stands at the
 * configuration's path: logged with `why`, counted as the `errors`th, the
 * old configuration still serving. */
static void reload_refused(int port, const char *log, const char *why, int errors)
{
	char metric[128];

	kill(serve_pid, SIGHUP);
	snprintf(metric, sizeof metric, "numa_extender_config_reloads_total{result=\"error\"} %d\n",
		 errors);
	if (!http_local_wait_for(port, "/metrics", metric, DEADLINE_S))
		fail_msg("serve never counted reload error %d (see %s)", errors, log);
	if (!spawn_wait_log(log, why, DEADLINE_S))
		fail_msg("serve never logged \"%s\" (see %s)", why, log);
	assert_true(spawn_log_contains(log, "SIGHUP: invalid configuration, keeping the previous one"));
	expect_answers(port);
}

static void serve_keeps_its_config_when_the_file_is_not_regular(void **state)
{
	char config[256], log[256];
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", config, NULL };
	FILE *f = fopen(in_dir(config, sizeof config, "serve.yaml"), "w");
	int port, status;

	(void)state;
	in_dir(log, sizeof log, "serve.log");
	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:0\"\nurlPrefix: /v1\n"
		   "inventory: {source: files, dir: tests/data/server/nrt}\nlog: {level: info}\n");
	assert_int_equal(fclose(f), 0);
	serve_pid = spawn_process(argv, log);
	port = spawn_wait_listening(log, DEADLINE_S);
	if (port == 0)
		fail_msg("serve never listened (see %s)", log);
	if (!http_local_wait_for(port, "/readyz", "", DEADLINE_S))
		fail_msg("serve never became ready (see %s)", log);
	expect_answers(port);
	/* A FIFO without a writer: opening it for reading would wait. */
	assert_int_equal(unlink(config), 0);
	assert_int_equal(mkfifo(config, 0600), 0);
	reload_refused(port, log, "not a regular file (a FIFO)", 1);
	assert_int_equal(unlink(config), 0);
	assert_int_equal(mkdir(config, 0700), 0);
	reload_refused(port, log, "is a directory", 2);
	assert_int_equal(rmdir(config), 0);
	assert_int_equal(symlink("/dev/zero", config), 0);
	reload_refused(port, log, "not a regular file (a character device)", 3);
	kill(serve_pid, SIGTERM);
	status = spawn_wait_exit(serve_pid, DEADLINE_S);
	serve_pid = -1;
	if (status != 0)
		fail_msg("serve after SIGTERM: exit %d (-1: still running at the deadline)", status);
	assert_true(spawn_log_contains(log, "shutting down"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commands_refuse_a_fifo_at_once),
		cmocka_unit_test(commands_refuse_a_device_at_once),
		cmocka_unit_test(commands_refuse_a_directory_for_a_file),
		cmocka_unit_test(replay_refuses_a_log_without_records),
		cmocka_unit_test(replay_refuses_a_line_over_the_bound),
		cmocka_unit_test(commands_refuse_files_over_their_bound),
		cmocka_unit_test(serve_keeps_its_config_when_the_file_is_not_regular),
	};

	return cmocka_run_group_tests_name("input_bounds", tests, setup, teardown);
}
