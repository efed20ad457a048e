/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/spawn.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/scratch_dir.h"

const char *spawn_serve_bin(void)
{
	const char *b = getenv("BIN");

	return b && b[0] ? b : "bin/numa-extender";
}

pid_t spawn_process(const char *const argv[], const char *log)
{
	return spawn_process_split(argv, log, log);
}

/* Opens path for the child's fd (stdout or stderr); async-signal-safe. */
static bool redirect(const char *path, int fd)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (f < 0 || dup2(f, fd) < 0)
		return false;
	close(f);
	return true;
}

pid_t spawn_process_split(const char *const argv[], const char *out, const char *err)
{
	char *args[SPAWN_MAX_ARGS + 1];
	pid_t parent = getpid(), pid;
	size_t n = 0;

	/* execv's argv is not const-qualified; copy the pointers before the
	 * fork (nothing may allocate after it). */
	while (argv[n] != NULL) {
		if (n == SPAWN_MAX_ARGS)
			abort();
		n++;
	}
	memcpy(args, argv, (n + 1) * sizeof *args);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid > 0)
		return pid;
	/* The child: only async-signal-safe calls until exec (the test may
	 * have threads). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		_exit(126);
	/* The parent may have died before the line above: then no signal
	 * will come, so go now. */
	if (getppid() != parent)
		_exit(126);
	{
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (in < 0 || dup2(in, STDIN_FILENO) < 0)
			_exit(126);
		close(in);
	}
	if (out != NULL && !redirect(out, STDOUT_FILENO))
		_exit(126);
	if (err != NULL && out != NULL && strcmp(err, out) == 0) {
		if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
			_exit(126);
	} else if (err != NULL && !redirect(err, STDERR_FILENO)) {
		_exit(126);
	}
	execv(args[0], args);
	_exit(127);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int spawn_wait_exit(pid_t pid, int seconds)
{
	double until = now_s() + seconds;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0)
			return -1;
		usleep(20 * 1000);
	} while (now_s() < until);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* The whole file, NUL-terminated (malloc'd); NULL when unreadable. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			if (buf == NULL)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int spawn_run(const char *const argv[], int seconds, char **out, char **err)
{
	char dir[] = "/tmp/numa-run-XXXXXX", opath[64], epath[64];
	int status;

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(opath, sizeof opath, "%s/stdout", dir);
	snprintf(epath, sizeof epath, "%s/stderr", dir);
	status = spawn_wait_exit(spawn_process_split(argv, opath, epath), seconds);
	*out = slurp(opath);
	*err = slurp(epath);
	if (*out == NULL || *err == NULL)
		abort();
	unlink(opath);
	unlink(epath);
	rmdir(dir);
	return status;
}

int spawn_run_args(const char *args, int seconds, char **out, char **err)
{
	const char *argv[64];
	char *copy = strdup(args), *save = NULL, *word;
	size_t n = 0;
	int status;

	if (copy == NULL)
		abort();
	argv[n++] = spawn_serve_bin();
	for (word = strtok_r(copy, " ", &save); word != NULL; word = strtok_r(NULL, " ", &save)) {
		if (n + 1 >= sizeof argv / sizeof argv[0])
			abort();
		argv[n++] = word;
	}
	argv[n] = NULL;
	status = spawn_run(argv, seconds, out, err);
	free(copy);
	return status;
}

bool spawn_log_contains(const char *path, const char *text)
{
	char *body = slurp(path);
	bool found = body != NULL && strstr(body, text) != NULL;

	free(body);
	return found;
}

bool spawn_wait_log(const char *path, const char *text, int seconds)
{
	double until = now_s() + seconds;

	do {
		if (spawn_log_contains(path, text))
			return true;
		usleep(20 * 1000);
	} while (now_s() < until);
	return spawn_log_contains(path, text);
}

int spawn_wait_listening(const char *path, int seconds)
{
	double until = now_s() + seconds;

	do {
		char *body = slurp(path), *at = body ? strstr(body, "msg=\"listening\"") : NULL;
		int port = 0;

		if (at != NULL && (at = strstr(at, " port=")) != NULL)
			port = atoi(at + 6);
		free(body);
		if (port > 0)
			return port;
		usleep(20 * 1000);
	} while (now_s() < until);
	return 0;
}

void spawn_cleanup(pid_t pid, const char *dir, const char *config, const char *log)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (dir != NULL)
		scratch_dir_remove(dir); /* what is left is said on stderr */
	if (config != NULL)
		unlink(config);
	if (log != NULL)
		unlink(log);
}
