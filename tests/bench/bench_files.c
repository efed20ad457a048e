/* SPDX-License-Identifier: Apache-2.0 */
/* The file source at rest: 5000 small NRT files in a temporary directory.
 * Measures the first load, then what a rescan costs when nothing changed
 * (wall time, and user-space instructions from the CPU's counter when the
 * kernel allows it), then the source's thread in process, polling (watching
 * off, as before inotify) and watching, at a 500 ms poll interval: its idle
 * CPU (getrusage over BENCH_FILES_IDLE_S, 10 s; 0 skips it) and how long an
 * edit (a rename into place) takes to reach the store, then the idle CPU of
 * `serve` over the same directory (inventory.pollInterval 500 ms, so
 * watching; utime+stime from /proc/<pid>/stat over ~10 s; the target is
 * under 1 % of a core).
 *
 * Instruction counts under callgrind (only the idle rescans are collected):
 *   valgrind --tool=callgrind --collect-atstart=no <build>/bench/bench_files
 * Under valgrind the thread and serve parts are skipped. The serve binary
 * is $BIN, else <build>/bin/numa-extender, else bin/numa-extender; without
 * one that part is skipped. BENCH_FILES_SERVE_S sets its duration (0 skips
 * it). */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#define RUNNING_ON_VALGRIND 0
#endif

#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "tests/support/bench_machine.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/spawn.h"

#define FILES 5000
#define ROUNDS 200
#define TARGET_CORE_PCT 1.0
#define POLL_MS 500
#define EDITS 20

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* node-NNNNN.yaml with `cpu` CPUs on each of its two zones; renamed into
 * place when `atomic`. */
static void write_file(const char *dir, int i, int cpu, int atomic)
{
	char path[256], tmp[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/node-%05d.yaml", dir, i);
	snprintf(tmp, sizeof tmp, "%s/.node-%05d.yaml.tmp", dir, i);
	f = fopen(atomic ? tmp : path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(f, "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		   "metadata: {name: node-%05d}\nattributes:\n"
		   "- {name: topologyManagerPolicy, value: single-numa-node}\n"
		   "- {name: topologyManagerScope, value: pod}\nzones:\n"
		   "- name: node-0\n  type: Node\n  resources:\n"
		   "  - {name: cpu, capacity: \"32\", allocatable: \"%d\", available: \"%d\"}\n"
		   "  - {name: memory, capacity: 128Gi, allocatable: 120Gi, available: 120Gi}\n"
		   "- name: node-1\n  type: Node\n  resources:\n"
		   "  - {name: cpu, capacity: \"32\", allocatable: \"%d\", available: \"%d\"}\n"
		   "  - {name: memory, capacity: 128Gi, allocatable: 120Gi, available: 120Gi}\n",
		i, cpu, cpu, cpu, cpu);
	if (fclose(f) != 0 || (atomic && rename(tmp, path) != 0)) {
		perror(path);
		exit(1);
	}
}

static void write_files(const char *dir)
{
	int i;

	for (i = 0; i < FILES; i++)
		write_file(dir, i, 30, 0);
}

/* User-space instructions retired by this thread, or -1 (no counter). */
static int open_instructions(void)
{
	struct perf_event_attr attr;

	if (RUNNING_ON_VALGRIND)
		return -1;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void bench_rescan(const char *dir)
{
	static uint64_t ns[ROUNDS];
	struct store *store = store_new();
	struct source_files *sf = source_files_new(store, dir);
	struct store_set *set;
	uint64_t t0, total = 0, instr = 0;
	int fd = open_instructions(), rounds = RUNNING_ON_VALGRIND ? 20 : ROUNDS, i;

	t0 = now_ns();
	if (source_files_scan(sf) != 0) {
		fprintf(stderr, "bench_files: the first scan failed\n");
		exit(1);
	}
	set = store_acquire(store);
	printf("first load of %d files: %.1f ms, %zu nodes\n", FILES, (double)(now_ns() - t0) / 1e6,
	       store_size(set));
	if (store_size(set) != FILES) {
		fprintf(stderr, "bench_files: %zu nodes loaded, want %d\n", store_size(set), FILES);
		exit(1);
	}
	store_release(set);
	source_files_scan(sf); /* warm */
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < rounds; i++) {
		t0 = now_ns();
		source_files_scan(sf);
		ns[i] = now_ns() - t0;
		total += ns[i];
	}
	CALLGRIND_TOGGLE_COLLECT;
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &instr, sizeof instr) != (ssize_t)sizeof instr)
			instr = 0;
		close(fd);
	}
	qsort(ns, (size_t)rounds, sizeof ns[0], cmp_u64);
	printf("idle rescan of %d files (%d rounds): median %.3f ms, p90 %.3f ms, mean %.3f ms\n",
	       FILES, rounds, (double)ns[rounds / 2] / 1e6, (double)ns[rounds * 9 / 10] / 1e6,
	       (double)total / rounds / 1e6);
	if (instr > 0)
		printf("idle rescan: %.0f user-space instructions (%.0f per file)\n",
		       (double)instr / rounds, (double)instr / rounds / FILES);
	else
		printf("idle rescan: instruction counter unavailable (run under callgrind, see the header)\n");
	printf("at a 500 ms poll interval: %.2f %% of a core\n",
	       (double)total / rounds / 500e6 * 100.0);
	source_files_free(sf);
	store_free(store);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static uint64_t generation_of(struct store *store)
{
	struct store_set *set = store_acquire(store);
	uint64_t g = store_generation(set);

	store_release(set);
	return g;
}

/* The source's thread over the directory, watching or polling: idle CPU
 * of this process (the thread is all that runs) and the time from a
 * rename into place to the store's next generation. */
static void bench_thread(const char *dir, int watch)
{
	static uint64_t ms[EDITS];
	const char *env = getenv("BENCH_FILES_IDLE_S");
	int seconds = env ? atoi(env) : 10, i;
	struct store *store;
	struct source_files *sf;
	struct source_files_stats st;
	double c0, c1, pct;
	uint64_t t0, t1;

	if (RUNNING_ON_VALGRIND || seconds <= 0)
		return;
	store = store_new();
	sf = source_files_new(store, dir);
	if (source_files_scan(sf) != 0) {
		fprintf(stderr, "bench_files: the first scan failed\n");
		exit(1);
	}
	source_files_set_watch(sf, watch);
	source_files_start(sf, POLL_MS);
	sleep(1); /* past the first scans */
	c0 = cpu_seconds();
	t0 = now_ns();
	sleep((unsigned)seconds);
	c1 = cpu_seconds();
	t1 = now_ns();
	pct = (c1 - c0) / ((double)(t1 - t0) / 1e9) * 100.0;
	source_files_get_stats(sf, &st);
	printf("%s thread idle over %d files, pollInterval %dms, %.1f s: %.2f %% of a core "
	       "(%llu full scans, %llu named scans so far)\n",
	       watch ? "watching" : "polling", FILES, POLL_MS, (double)(t1 - t0) / 1e9, pct,
	       (unsigned long long)st.full_scans, (unsigned long long)st.named_scans);
	if (watch && !st.watching)
		printf("watching: not in use (see the warning above); the numbers are polling's\n");
	for (i = 0; i < EDITS; i++) {
		uint64_t g = generation_of(store), start;

		usleep(100 * 1000 + (useconds_t)(i * 37 % 400) * 1000); /* not in step with polls */
		start = now_ns();
		write_file(dir, 1000 + i, 20 + i % 2, 1);
		while (generation_of(store) == g) {
			if (now_ns() - start > 30000000000u) {
				fprintf(stderr, "bench_files: an edit was not seen in 30 s\n");
				exit(1);
			}
			usleep(1000);
		}
		ms[i] = (now_ns() - start) / 1000000u;
	}
	qsort(ms, EDITS, sizeof ms[0], cmp_u64);
	printf("%s: an edit reaches the store in median %llu ms, max %llu ms (%d edits)\n",
	       watch ? "watching" : "polling", (unsigned long long)ms[EDITS / 2],
	       (unsigned long long)ms[EDITS - 1], EDITS);
	source_files_free(sf);
	store_free(store);
}

static const char *serve_bin(const char *argv0)
{
	static char path[1024];
	const char *env = getenv("BIN");
	char *slash;

	if (env != NULL && env[0] != '\0')
		return env;
	if (argv0 != NULL && strlen(argv0) + 32 < sizeof path) {
		snprintf(path, sizeof path, "%s", argv0);
		slash = strrchr(path, '/');
		if (slash != NULL) {
			*slash = '\0';
			slash = strrchr(path, '/');
			if (slash != NULL) {
				strcpy(slash, "/bin/numa-extender");
				if (access(path, X_OK) == 0)
					return path;
			}
		}
	}
	return access("bin/numa-extender", X_OK) == 0 ? "bin/numa-extender" : NULL;
}

/* utime + stime of pid, in clock ticks (and stime alone in *sys). */
static long long cpu_ticks(pid_t pid, long long *sys)
{
	char path[64], buf[2048], *p;
	unsigned long long utime, stime;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command may hold spaces */
	if (p == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return -1;
	*sys = (long long)stime;
	return (long long)(utime + stime);
}

static int bench_serve(const char *argv0, const char *dir)
{
	const char *bin = serve_bin(argv0);
	const char *env = getenv("BENCH_FILES_SERVE_S");
	int seconds = env ? atoi(env) : 10, rc = 0;
	char config[256], logpath[256], ready[64];
	long long before, after, sys0 = 0, sys1 = 0;
	double pct, hz = (double)sysconf(_SC_CLK_TCK);
	uint64_t t0, t1;
	pid_t pid;
	FILE *f;

	if (RUNNING_ON_VALGRIND || seconds <= 0)
		return 0;
	if (bin == NULL) {
		printf("serve idle CPU: skipped (no serve binary; set BIN or build it)\n");
		return 0;
	}
	snprintf(config, sizeof config, "%s.yaml", dir);
	snprintf(logpath, sizeof logpath, "%s.log", dir);
	f = fopen(config, "w");
	if (f == NULL) {
		perror(config);
		exit(1);
	}
	fprintf(f, "listen: \"127.0.0.1:0\"\ninventory: {source: files, dir: %s, pollInterval: 500ms}\n"
		   "log: {level: info}\n",
		dir);
	fclose(f);
	{
		const char *argv[] = { bin, "serve", "--config", config, NULL };

		pid = spawn_process(argv, logpath);
	}
	snprintf(ready, sizeof ready, "nodes=%d generation=1", FILES);
	if (spawn_wait_listening(logpath, 120) == 0 || !spawn_wait_log(logpath, ready, 120)) {
		fprintf(stderr, "bench_files: serve never loaded the inventory (see %s)\n", logpath);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		exit(1);
	}
	sleep(1); /* past the first load's cost */
	before = cpu_ticks(pid, &sys0);
	t0 = now_ns();
	sleep((unsigned)seconds);
	after = cpu_ticks(pid, &sys1);
	t1 = now_ns();
	kill(pid, SIGTERM);
	if (spawn_wait_exit(pid, 30) != 0)
		fprintf(stderr, "bench_files: serve did not exit cleanly (see %s)\n", logpath);
	if (before < 0 || after < 0) {
		fprintf(stderr, "bench_files: cannot read /proc/%d/stat\n", (int)pid);
		exit(1);
	}
	pct = (double)(after - before) / hz / ((double)(t1 - t0) / 1e9) * 100.0;
	printf("serve idle over %d files, pollInterval 500ms (watching), %.1f s: %lld ticks (%lld system; %.0f Hz), "
	       "%.2f %% of a core (target < %.0f %%)%s\n",
	       FILES, (double)(t1 - t0) / 1e9, after - before, sys1 - sys0, hz, pct, TARGET_CORE_PCT,
	       pct < TARGET_CORE_PCT ? "" : "  ** OVER TARGET **");
	unlink(config);
	unlink(logpath);
	return rc;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/numa-bench-files-XXXXXX";
	int rc;

	(void)argc;
	bench_print_machine(argv[0]);
	log_set_level(LOG_LEVEL_WARN);
	if (scratch_dir_make(dir) != 0) {
		perror("mkdtemp");
		return 1;
	}
	write_files(dir);
	bench_rescan(dir);
	bench_thread(dir, 0);
	bench_thread(dir, 1);
	rc = bench_serve(argv[0], dir);
	scratch_dir_remove(dir); /* what is left is said on stderr */
	return rc;
}
