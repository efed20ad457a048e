/* SPDX-License-Identifier: Apache-2.0 */
/* The serve command as a process: start-up errors, SIGHUP reloading the
 * scoring (and keeping the old settings when the new file is invalid), and
 * SIGTERM draining then exiting 0. The binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/free_port.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"

static const char *bin(void)
{
	return getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
}

static void write_config(const char *path, int port, const char *strategy)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:%d\"\nurlPrefix: /v1\n"
		   "inventory: {source: files, dir: tests/data/server/nrt, pollInterval: 200ms}\n"
		   "scoring: {strategy: %s}\nlog: {level: info}\n",
		port, strategy);
	fclose(f);
}

/* The server under test, killed by the teardown if a test fails early. */
static pid_t child = -1;

static int kill_child(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	return 0;
}

static pid_t start(const char *config, const char *log)
{
	const char *argv[] = { bin(), "serve", "--config", config, NULL };

	child = spawn_process(argv, log);
	return child;
}

static long get_status(int port, const char *path, char **body)
{
	return http_local_request(port, "GET", path, NULL, body);
}

static void wait_ready(int port)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (get_status(port, "/readyz", NULL) == 200)
			return;
		usleep(25 * 1000);
	}
	fail_msg("server on port %d never became ready", port);
}

/* The score of worker-gpu-017 for the wire fixture's pod. */
static int64_t score_017(int port)
{
	char *body = read_file_or_die("tests/data/fixtures/wire/prioritize-request.json", NULL);
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	struct json_object *o;
	char url[128];
	int64_t score = -1;
	size_t i;

	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/prioritize", port);
	http_request(c, "POST", url, body, strlen(body), false, &r);
	assert_int_equal(r.status, 200);
	o = json_tokener_parse(r.body);
	assert_non_null(o);
	for (i = 0; i < json_object_array_length(o); i++) {
		struct json_object *h = json_object_array_get_idx(o, i), *host, *s;

		json_object_object_get_ex(h, "Host", &host);
		json_object_object_get_ex(h, "Score", &s);
		if (strcmp(json_object_get_string(host), "worker-gpu-017") == 0)
			score = json_object_get_int64(s);
	}
	json_object_put(o);
	http_response_cleanup(&r);
	http_client_free(c);
	free(body);
	return score;
}

static int wait_exit(pid_t pid, int seconds)
{
	int status, i;

	for (i = 0; i < seconds * 20; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			child = -1;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		usleep(50 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	child = -1;
	fail_msg("process did not exit within %d s", seconds);
	return -1;
}

/* Waits until /metrics shows `line`: signals are handled asynchronously, and a
 * loaded sanitizer build may take a while. */
static void wait_metric(int port, const char *line)
{
	int i;

	for (i = 0; i < 400; i++) {
		char *metrics = NULL;
		bool seen = get_status(port, "/metrics", &metrics) == 200 && strstr(metrics, line);

		free(metrics);
		if (seen)
			return;
		usleep(25 * 1000);
	}
	fail_msg("metrics never showed %s", line);
}

static bool log_contains(const char *log, const char *text)
{
	char *body = read_file_or_die(log, NULL);
	bool found = strstr(body, text) != NULL;

	free(body);
	return found;
}

static void serve_sighup_reloads_scoring_and_sigterm_drains(void **state)
{
	char config[] = "/tmp/numa-serve-XXXXXX", log[64];
	int port = free_port(), fd;
	int64_t packed, fewest, after_bad;
	char *metrics = NULL;
	pid_t pid;

	(void)state;
	fd = mkstemp(config);
	close(fd);
	snprintf(log, sizeof log, "%s.log", config);
	write_config(config, port, "MostAllocated");
	pid = start(config, log);
	wait_ready(port);
	packed = score_017(port);
	write_config(config, port, "LeastNUMANodes");
	kill(pid, SIGHUP);
	wait_metric(port, "numa_extender_config_reloads_total{result=\"ok\"} 1\n");
	fewest = score_017(port);
	/* MostAllocated: (63 + 25 + 100 + 12) / 4 = 50 -> 5; LeastNUMANodes:
	 * one NUMA node -> 10 (see tests/data/server/nrt/worker-gpu-017.yaml). */
	assert_int_equal(packed, 5);
	assert_int_equal(fewest, 10);
	/* An invalid file keeps the running configuration and says why. */
	{
		FILE *f = fopen(config, "w");

		fprintf(f, "scoring: {strategy: Sideways}\n");
		fclose(f);
	}
	kill(pid, SIGHUP);
	wait_metric(port, "numa_extender_config_reloads_total{result=\"error\"} 1\n");
	after_bad = score_017(port);
	assert_int_equal(after_bad, fewest);
	assert_int_equal(get_status(port, "/metrics", &metrics), 200);
	assert_non_null(strstr(metrics, "numa_extender_config_reloads_total{result=\"ok\"} 1\n"));
	assert_non_null(strstr(metrics, "numa_extender_config_reloads_total{result=\"error\"} 1\n"));
	free(metrics);
	assert_true(log_contains(log, "invalid configuration, keeping the previous one"));
	assert_true(log_contains(log, "Sideways"));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, 15), 0);
	assert_true(log_contains(log, "shutting down"));
	assert_int_equal(get_status(port, "/healthz", NULL), -1); /* nothing listens */
	unlink(config);
	unlink(log);
}

/* A request whose body is still arriving when SIGTERM comes is finished and
 * answered; then the process exits 0. */
static void serve_sigterm_finishes_requests_in_flight(void **state)
{
	char config[] = "/tmp/numa-serve-XXXXXX", log[64], head[256], reply[65536];
	char *body = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	size_t len = strlen(body), half = len / 2, got = 0;
	int port = free_port(), fd, sock;
	struct sockaddr_in a;
	ssize_t n;
	pid_t pid;

	(void)state;
	fd = mkstemp(config);
	close(fd);
	snprintf(log, sizeof log, "%s.log", config);
	write_config(config, port, "LeastAllocated");
	pid = start(config, log);
	wait_ready(port);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(sock, (struct sockaddr *)&a, sizeof a), 0);
	snprintf(head, sizeof head,
		 "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n\r\n", len);
	assert_true(write(sock, head, strlen(head)) == (ssize_t)strlen(head));
	assert_true(write(sock, body, half) == (ssize_t)half);
	usleep(200 * 1000);
	kill(pid, SIGTERM);
	usleep(300 * 1000);
	assert_true(write(sock, body + half, len - half) == (ssize_t)(len - half));
	while (got < sizeof reply - 1 && (n = read(sock, reply + got, sizeof reply - 1 - got)) > 0) {
		got += (size_t)n;
		reply[got] = '\0';
		if (strstr(reply, "\"Error\"") && strstr(reply, "}") > strstr(reply, "\"Error\""))
			break;
	}
	reply[got] = '\0';
	close(sock);
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	assert_non_null(strstr(reply, "\"NodeNames\":[\"worker-gpu-017\",\"worker-gpu-018\"]"));
	assert_int_equal(wait_exit(pid, 15), 0);
	free(body);
	unlink(config);
	unlink(log);
}

static void serve_rejects_bad_configuration(void **state)
{
	char config[] = "/tmp/numa-serve-XXXXXX", log[64];
	int fd = mkstemp(config);
	pid_t pid;

	(void)state;
	snprintf(log, sizeof log, "%s.log", config);
	assert_true(write(fd, "threds: 2\n", 10) == 10);
	close(fd);
	pid = start(config, log);
	assert_int_equal(wait_exit(pid, 10), 2);
	assert_true(log_contains(log, ":1:1: unknown key \"threds\""));
	unlink(config);
	unlink(log);
}

/* Whoever can reach an unauthenticated /bind can place pods: serve will not
 * start that way. */
static void serve_refuses_unauthenticated_bind_off_loopback(void **state)
{
	static const char text[] = "listen: \"0.0.0.0:0\"\ninventory: {source: kubernetes}\n"
				   "bind: {enabled: true}\n";
	char config[] = "/tmp/numa-serve-XXXXXX", log[64];
	int fd = mkstemp(config);
	pid_t pid;

	(void)state;
	snprintf(log, sizeof log, "%s.log", config);
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	pid = start(config, log);
	assert_int_equal(wait_exit(pid, 10), 2);
	assert_true(log_contains(log, ":3:8: bind: enabled needs mTLS (tls.clientCAFile) or listeners on loopback only"));
	unlink(config);
	unlink(log);
}

/* With the inventory from files there is no ledger: /ledger says so and
 * why, instead of a bare 404. */
static void serve_ledger_off_with_files_says_why(void **state)
{
	static const char *const paths[] = { "/ledger", "/ledger/worker-gpu-017" };
	char config[] = "/tmp/numa-serve-XXXXXX", log[64];
	int port = free_port(), fd = mkstemp(config);
	size_t i;
	pid_t pid;

	(void)state;
	close(fd);
	snprintf(log, sizeof log, "%s.log", config);
	write_config(config, port, "LeastAllocated");
	pid = start(config, log);
	wait_ready(port);
	for (i = 0; i < 2; i++) {
		char *body = NULL;

		assert_int_equal(get_status(port, paths[i], &body), 404);
		assert_string_equal(body, "the assumed-pod ledger is off: the inventory comes from files "
					  "(inventory.source: files); the ledger watches pods and runs only "
					  "with inventory.source: kubernetes\n");
		free(body);
	}
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, 20), 0);
	unlink(config);
	unlink(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(serve_sighup_reloads_scoring_and_sigterm_drains, kill_child),
		cmocka_unit_test_teardown(serve_sigterm_finishes_requests_in_flight, kill_child),
		cmocka_unit_test_teardown(serve_rejects_bad_configuration, kill_child),
		cmocka_unit_test_teardown(serve_refuses_unauthenticated_bind_off_loopback, kill_child),
		cmocka_unit_test_teardown(serve_ledger_off_with_files_says_why, kill_child),
	};

	return cmocka_run_group_tests_name("serve", tests, NULL, NULL);
}
