/* SPDX-License-Identifier: Apache-2.0 */
/* tests/support/spawn.c: a serve started by a test dies with the test. A
 * helper process stands in for a test binary that aborts while its serve
 * runs; this process is the children's subreaper, so the orphaned serve
 * comes back to it and its end can be seen (and reaped). The binary comes
 * from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/spawn.h"

/* Generous: sanitizer runs on a loaded machine are slow. */
#define DEADLINE_S 60

static pid_t serve_pid = -1, helper_pid = -1;
static char log_path[64];

static int cleanup(void **state)
{
	(void)state;
	if (serve_pid > 0) {
		kill(serve_pid, SIGKILL);
		waitpid(serve_pid, NULL, 0);
		serve_pid = -1;
	}
	if (helper_pid > 0) {
		kill(helper_pid, SIGKILL);
		waitpid(helper_pid, NULL, 0);
		helper_pid = -1;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (log_path[0])
		unlink(log_path);
	return 0;
}

/* The aborting "test": starts serve through the helper, reports its pid
 * once it listens, and aborts. Never returns. */
static void helper_main(int out)
{
	const char *argv[] = { spawn_serve_bin(), "serve", "--listen", "127.0.0.1:0",
			       "--nrt-dir", "tests/data/server/nrt", NULL };
	struct rlimit no_core = { 0, 0 };
	pid_t pid;

	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGABRT, SIG_DFL);
	pid = spawn_process(argv, log_path);
	if (spawn_wait_listening(log_path, DEADLINE_S) == 0)
		_exit(3);
	if (write(out, &pid, sizeof pid) != (ssize_t)sizeof pid)
		_exit(4);
	abort();
}

static void serve_dies_when_its_test_aborts(void **state)
{
	int fds[2], status = 0, i;
	ssize_t n;

	(void)state;
	snprintf(log_path, sizeof log_path, "/tmp/numa-spawn-%ld.log", (long)getpid());
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(fds), 0);
	helper_pid = fork();
	assert_true(helper_pid >= 0);
	if (helper_pid == 0) {
		close(fds[0]);
		helper_main(fds[1]);
	}
	close(fds[1]);
	do
		n = read(fds[0], &serve_pid, sizeof serve_pid);
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	assert_int_equal(waitpid(helper_pid, &status, 0), helper_pid);
	helper_pid = -1;
	if (n != (ssize_t)sizeof serve_pid) {
		serve_pid = -1;
		fail_msg("the helper never saw serve listen (status %d; see %s)", status, log_path);
	}
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	/* The orphan comes back to this process (the subreaper): it must end,
	 * killed by SIGKILL, not linger. */
	for (i = 0; i < DEADLINE_S * 50; i++) {
		pid_t r = waitpid(serve_pid, &status, WNOHANG);

		if (r == serve_pid) {
			serve_pid = -1;
			assert_true(WIFSIGNALED(status));
			assert_int_equal(WTERMSIG(status), SIGKILL);
			return;
		}
		assert_int_equal(r, 0);
		usleep(20 * 1000);
	}
	fail_msg("serve (pid %ld) outlived the test that started it by %d s", (long)serve_pid,
		 DEADLINE_S);
}

/* The plain case: the child is the program asked for, with its log. */
static void spawn_runs_the_program_with_its_log(void **state)
{
	const char *argv[] = { spawn_serve_bin(), "version", NULL };

	(void)state;
	snprintf(log_path, sizeof log_path, "/tmp/numa-spawn-%ld.log", (long)getpid());
	serve_pid = spawn_process(argv, log_path);
	assert_int_equal(spawn_wait_exit(serve_pid, DEADLINE_S), 0);
	serve_pid = -1;
	assert_true(spawn_log_contains(log_path, "numa-extender "));
	/* A program that is not there: 127. */
	{
		const char *missing[] = { "/nonexistent/numa-extender", NULL };

		serve_pid = spawn_process(missing, NULL);
		assert_int_equal(spawn_wait_exit(serve_pid, DEADLINE_S), 127);
		serve_pid = -1;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(serve_dies_when_its_test_aborts, cleanup),
		cmocka_unit_test_teardown(spawn_runs_the_program_with_its_log, cleanup),
	};

	return cmocka_run_group_tests_name("spawn", tests, NULL, NULL);
}
