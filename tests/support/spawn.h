/* SPDX-License-Identifier: Apache-2.0 */
/* Child processes for the integration tests. Every child started here dies
 * with the thread that started it (PR_SET_PDEATHSIG, SIGKILL), so a test that
 * aborts or is killed leaves no `serve` behind. Start children from the
 * test's main thread: the signal follows the thread, not the process. */
#ifndef TESTS_SPAWN_H
#define TESTS_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#define SPAWN_MAX_ARGS 32

/* Starts argv[0] (a path) with argv (NULL-terminated, at most
 * SPAWN_MAX_ARGS entries before the NULL); its stdout and stderr go to log (created
 * or truncated), or stay the test's own when log is NULL; stdin is
 * /dev/null. Returns the pid; aborts when fork fails. A child that cannot
 * set itself up exits 126, one that cannot exec exits 127. */
pid_t spawn_process(const char *const argv[], const char *log);

/* The same with stdout in out and stderr in err (either NULL: the test's
 * own; the same path: one file, as spawn_process). */
pid_t spawn_process_split(const char *const argv[], const char *out, const char *err);

/* Runs argv to its end, at most `seconds` (then killed): its exit status as
 * spawn_wait_exit gives it, with *out and *err its whole stdout and stderr
 * (malloc'd, NUL-terminated; free them). For commands that end by
 * themselves: --help, a bad command line, explain. */
int spawn_run(const char *const argv[], int seconds, char **out, char **err);
/* spawn_run of the serve binary with args, a command line split at spaces
 * (no quoting: the tests' paths have none; at most 63 words). */
int spawn_run_args(const char *args, int seconds, char **out, char **err);

/* The serve binary under test: $BIN, else bin/numa-extender. */
const char *spawn_serve_bin(void);

/* Waits up to `seconds` for pid to exit and reaps it: its exit status, or
 * 128 + the signal that ended it. On timeout it is killed (SIGKILL), reaped,
 * and -1 returned. */
int spawn_wait_exit(pid_t pid, int seconds);

/* What a test's teardown leaves behind of serve: SIGKILL to pid, reaped
 * (pid <= 0: none), then its scratch folder dir removed with everything in
 * it and its config and log files unlinked. Any path may be NULL; a folder
 * that cannot be removed is reported on stderr, not failed. */
void spawn_cleanup(pid_t pid, const char *dir, const char *config, const char *log);

/* Whether the file at path (a child's log) holds text; false when it cannot
 * be read yet. */
bool spawn_log_contains(const char *path, const char *text);
/* Waits up to `seconds` until the log holds text; false on timeout. */
bool spawn_wait_log(const char *path, const char *text, int seconds);
/* The port of serve's `msg="listening" ... port=N` line, waited for up to
 * `seconds`; 0 on timeout. */
int spawn_wait_listening(const char *path, int seconds);

#endif
