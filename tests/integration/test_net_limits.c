/* SPDX-License-Identifier: Apache-2.0 */
/* The network cannot starve `serve` (run as a process, real sockets):
 * requests abandoned half-sent free their slot and in-flight count at once;
 * silent and trickling connections are closed after limits.requestTimeout
 * while kept-alive idle ones stay; limits.maxConnectionsPerClient caps one
 * address; over limits.maxConnections a new connection takes the slot of
 * the one waiting longest for a request (never one whose request is in), so
 * silent connections from many addresses never hold a new client back;
 * limits.maxBufferedBytes bounds the bodies held at once; SIGTERM
 * after a flood of aborted requests exits without waiting for the drain
 * deadline. Deadlines in the configs are short; every wait is generous. The
 * binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
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

/* Long enough for a loaded sanitizer run, short of the 90 s+ that the
 * idle timeout would take to hide a failure. */
#define PATIENCE_MS 20000

static const char *bin(void)
{
	return getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void nap_ms(int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* The server under test, killed by the teardown if a test fails early. */
static pid_t child = -1;
static char config_path[64], log_path[80];

static int kill_child(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	if (config_path[0]) {
		unlink(config_path);
		unlink(log_path);
		config_path[0] = '\0';
	}
	return 0;
}

/* Writes a config (listen on port, the given limits and extra lines) and
 * starts serve with it. */
static void start(int port, const char *limits, const char *extra)
{
	FILE *f;
	int fd;
	pid_t pid;

	strcpy(config_path, "/tmp/numa-net-XXXXXX");
	fd = mkstemp(config_path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(log_path, sizeof log_path, "%s.log", config_path);
	f = fopen(config_path, "w");
	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:%d\"\nurlPrefix: /v1\n"
		   "inventory: {source: files, dir: tests/data/server/nrt, pollInterval: 200ms}\n"
		   "limits: {%s}\nthreads: 2\nlog: {level: info}\n%s",
		port, limits, extra ? extra : "");
	fclose(f);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (freopen(log_path, "w", stderr) == NULL)
			_exit(126);
		execl(bin(), bin(), "serve", "--config", config_path, (char *)NULL);
		_exit(127);
	}
	child = pid;
}

static long get(int port, const char *path, char **body)
{
	return http_local_request(port, "GET", path, NULL, body);
}

static void wait_ready(int port)
{
	int64_t until = now_ms() + PATIENCE_MS;

	while (now_ms() < until) {
		if (get(port, "/readyz", NULL) == 200)
			return;
		nap_ms(25);
	}
	fail_msg("server on port %d never became ready", port);
}

/* The value of a metric without labels, or -1 when /metrics did not answer
 * or does not show it. */
static long long metric(int port, const char *name)
{
	char *body = NULL, *p;
	long long v = -1;
	size_t n = strlen(name);

	if (get(port, "/metrics", &body) == 200)
		for (p = body; (p = strstr(p, name)) != NULL; p += n)
			if ((p == body || p[-1] == '\n') && p[n] == ' ') {
				v = atoll(p + n + 1);
				break;
			}
	free(body);
	return v;
}

static void wait_metric(int port, const char *name, long long want)
{
	int64_t until = now_ms() + PATIENCE_MS;
	long long v = -1;

	while (now_ms() < until) {
		v = metric(port, name);
		if (v == want)
			return;
		nap_ms(50);
	}
	fail_msg("%s stayed %lld, expected %lld", name, v, want);
}

static int dial(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* Sends text; false when the server has already closed the connection. */
static bool say(int fd, const char *text)
{
	size_t off = 0, len = strlen(text);

	while (off < len) {
		ssize_t n = send(fd, text + off, len - off, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		off += (size_t)n;
	}
	return true;
}

/* Whether the server closed fd (EOF or reset) within ms; any reply bytes
 * before the end are read and dropped. */
static bool closed_within(int fd, int ms)
{
	int64_t until = now_ms() + ms;
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = until - now_ms();
		ssize_t n;

		if (left < 0)
			left = 0;
		if (poll(&p, 1, (int)left) <= 0)
			return false;
		n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			return true;
		if (left == 0 && n < 0)
			return false;
	}
}

/* Reads one small reply (headers and a body that arrive together) into buf. */
static size_t read_reply(int fd, char *buf, size_t cap)
{
	int64_t until = now_ms() + PATIENCE_MS;
	size_t len = 0;

	while (len + 1 < cap && now_ms() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL) {
			const char *cl = strstr(buf, "Content-Length: ");
			const char *body = strstr(buf, "\r\n\r\n") + 4;

			if (cl != NULL && (size_t)(buf + len - body) >= (size_t)atol(cl + 16))
				break;
		}
	}
	buf[len] = '\0';
	return len;
}

/* A complete filter on fd, answered 200 on a connection kept alive (a reply
 * queued before the request is complete, such as a 404, closes it). */
static void filter_on(int fd)
{
	char *body = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	char head[160], reply[16384];

	snprintf(head, sizeof head,
		 "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n\r\n", strlen(body));
	assert_true(say(fd, head));
	assert_true(say(fd, body));
	assert_true(read_reply(fd, reply, sizeof reply) > 0);
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	free(body);
}

static int wait_exit(pid_t pid, int64_t ms)
{
	int64_t until = now_ms() + ms;
	int status;

	while (now_ms() < until) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			child = -1;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		nap_ms(20);
	}
	return -1;
}

/* 300 requests abandoned half-sent (headers only, part of a body, part of
 * the headers) on a server with 32 connection slots and a request timeout
 * far beyond the test: every slot and in-flight count comes back at once,
 * /healthz answers, and SIGTERM exits well before the 10 s drain deadline. */
static void aborted_requests_free_their_slots(void **state)
{
	static const char *const halves[] = {
		"POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		"Content-Length: 1000\r\n\r\n",
		"POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"Pod\":",
		"POST /v1/filter HTTP/1.1\r\nHost: x\r\n",
		"POST /v1/prioritize HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{",
	};
	int port = free_port(), i, status;
	int64_t t0;
	long long aborted;

	(void)state;
	start(port, "maxConnections: 32, maxConnectionsPerClient: 0, requestTimeout: 5m", NULL);
	wait_ready(port);
	for (i = 0; i < 300; i++) {
		int fd = dial(port);

		say(fd, halves[i % 4]);
		close(fd);
	}
	t0 = now_ms();
	assert_int_equal(get(port, "/healthz", NULL), 200);
	assert_true(now_ms() - t0 < PATIENCE_MS / 2);
	wait_metric(port, "numa_extender_http_requests_in_flight", 0);
	/* The scrape's own connection is the one left. */
	wait_metric(port, "numa_extender_http_connections", 1);
	aborted = metric(port, "numa_extender_http_aborted_requests_total");
	assert_true(aborted > 0);
	/* None was closed by the request deadline: EOF did it. */
	assert_int_equal(metric(port, "numa_extender_http_request_timeouts_total"), 0);

	t0 = now_ms();
	kill(child, SIGTERM);
	status = wait_exit(child, PATIENCE_MS);
	assert_int_equal(status, 0);
	/* The drain deadline is 10 s: nothing was left in flight to wait for. */
	assert_true(now_ms() - t0 < 5000);
}

/* 16 silent connections; 4 more trickle headers a line at a time (which
 * keeps libmicrohttpd's inactivity timer young), one of them on a
 * kept-alive connection after a complete request. The 64 slots hold them
 * all, and all are closed by the 1 s request timeout, not by a
 * connection limit; then a filter gets through. A kept-alive connection
 * idle all along (the idle timeout is 120 s) is not closed. */
static void slow_and_silent_connections_are_closed(void **state)
{
	enum { SILENT = 16, TRICKLE = 4 };
	int port = free_port(), mport = free_port();
	int silent[SILENT], trickle[TRICKLE], idle, i, open_count;
	char extra[64];
	char *body;
	struct http_client *c;
	struct http_response r;
	char url[128];
	int64_t until;

	(void)state;
	snprintf(extra, sizeof extra, "metricsListen: \"127.0.0.1:%d\"\n", mport);
	start(port, "maxConnections: 64, maxConnectionsPerClient: 0, requestTimeout: 1s", extra);
	wait_ready(mport);

	/* A kept-alive connection with one request done, then idle. */
	idle = dial(port);
	filter_on(idle);

	for (i = 0; i < TRICKLE; i++) {
		trickle[i] = dial(port);
		if (i == 0)
			filter_on(trickle[i]);
		assert_true(say(trickle[i], "POST /v1/filter HTTP/1.1\r\nHost: x\r\n"));
	}
	for (i = 0; i < SILENT; i++)
		silent[i] = dial(port);

	/* Trickle a header line per socket every 200 ms until all are shut. */
	until = now_ms() + PATIENCE_MS;
	do {
		open_count = 0;
		for (i = 0; i < TRICKLE; i++) {
			if (trickle[i] < 0)
				continue;
			if (!say(trickle[i], "X-Slow: 1\r\n") || closed_within(trickle[i], 0)) {
				close(trickle[i]);
				trickle[i] = -1;
			} else {
				open_count++;
			}
		}
		nap_ms(200);
	} while (open_count > 0 && now_ms() < until);
	assert_int_equal(open_count, 0);
	for (i = 0; i < SILENT; i++) {
		assert_true(closed_within(silent[i], PATIENCE_MS));
		close(silent[i]);
	}
	assert_int_equal(metric(mport, "numa_extender_http_request_timeouts_total"), SILENT + TRICKLE);

	/* The slots are free again: a filter is answered. */
	body = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	c = http_client_new(NULL, NULL, NULL);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/filter", port);
	http_request(c, "POST", url, body, strlen(body), false, &r);
	assert_int_equal(r.curl_error, 0);
	assert_int_equal(r.status, 200);
	http_response_cleanup(&r);
	http_client_free(c);
	free(body);

	/* The idle keep-alive connection outlived several request timeouts
	 * (the idle timeout is 120 s) and still serves a request. */
	assert_false(closed_within(idle, 0));
	filter_on(idle);
	close(idle);
}

/* maxConnectionsPerClient: 4 -- a fifth connection from the same address is
 * closed at once while the four stay; when one goes, a new one is served. */
static void one_client_cannot_take_every_slot(void **state)
{
	int port = free_port(), mport = free_port();
	int held[4], extra_fd, fd, i;
	char extra[64], reply[4096];
	int64_t until;
	bool served = false;

	(void)state;
	snprintf(extra, sizeof extra, "metricsListen: \"127.0.0.1:%d\"\n", mport);
	start(port, "maxConnections: 64, maxConnectionsPerClient: 4, requestTimeout: 5m", extra);
	wait_ready(mport);
	for (i = 0; i < 4; i++)
		held[i] = dial(port);
	wait_metric(mport, "numa_extender_http_connections", 5); /* + the scrape */
	extra_fd = dial(port); /* the kernel accepts it; the server drops it */
	assert_true(closed_within(extra_fd, PATIENCE_MS));
	close(extra_fd);
	for (i = 0; i < 4; i++)
		assert_false(closed_within(held[i], 0));

	close(held[0]);
	until = now_ms() + PATIENCE_MS;
	while (!served && now_ms() < until) {
		fd = dial(port);
		if (say(fd, "GET /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n") &&
		    read_reply(fd, reply, sizeof reply) > 0 && strstr(reply, "404") != NULL)
			served = true;
		close(fd);
		if (!served)
			nap_ms(50);
	}
	assert_true(served);
	for (i = 1; i < 4; i++)
		close(held[i]);
}

/* maxBufferedBytes: 100Ki with maxBodyBytes: 64Ki -- while one 60000-byte
 * body is being received, a second (by Content-Length, or chunked) is
 * refused with 503 naming the limit; when the first is abandoned its bytes
 * come back and the next request is served. */
static void buffered_bytes_are_bounded(void **state)
{
	int port = free_port(), mport = free_port();
	int holder, second;
	char extra[64], reply[4096], url[128];
	char *big, *body;
	struct http_client *c;
	struct http_response r;

	(void)state;
	snprintf(extra, sizeof extra, "metricsListen: \"127.0.0.1:%d\"\n", mport);
	start(port, "maxBodyBytes: 64Ki, maxBufferedBytes: 100Ki, requestTimeout: 5m", extra);
	wait_ready(mport);

	holder = dial(port);
	assert_true(say(holder, "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n{"));
	wait_metric(mport, "numa_extender_http_buffered_bytes", 60001);

	second = dial(port);
	assert_true(say(second, "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n"));
	assert_true(read_reply(second, reply, sizeof reply) > 0);
	assert_non_null(strstr(reply, "HTTP/1.1 503"));
	assert_non_null(strstr(reply, "maxBufferedBytes"));
	close(second);

	big = malloc(70000);
	assert_non_null(big);
	memset(big, ' ', 70000);
	c = http_client_new(NULL, NULL, NULL);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/filter", port);
	http_request(c, "POST", url, big, 60000, true, &r);
	assert_int_equal(r.curl_error, 0);
	assert_int_equal(r.status, 503);
	assert_non_null(strstr(r.body, "maxBufferedBytes"));
	http_response_cleanup(&r);
	assert_int_equal(metric(mport, "numa_extender_http_busy_refusals_total"), 2);
	assert_int_equal(metric(mport, "numa_extender_http_buffered_bytes"), 60001);

	close(holder);
	wait_metric(mport, "numa_extender_http_buffered_bytes", 0);
	body = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	http_request(c, "POST", url, body, strlen(body), false, &r);
	assert_int_equal(r.curl_error, 0);
	assert_int_equal(r.status, 200);
	http_response_cleanup(&r);
	/* A body over maxBodyBytes is still a 413. */
	http_request(c, "POST", url, big, 70000, false, &r);
	assert_int_equal(r.curl_error, 0);
	assert_int_equal(r.status, 413);
	http_response_cleanup(&r);
	http_client_free(c);
	free(body);
	free(big);
	wait_metric(mport, "numa_extender_http_buffered_bytes", 0);
}

/* A connection to 127.0.0.1:port from the loopback address `from`, so that
 * each address counts as a client of its own. */
static int dial_from(const char *from, int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, from, &a.sin_addr), 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	a.sin_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &a.sin_addr), 1);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* How many of fds[0..n) the server has closed, waiting until `want` have
 * been (or PATIENCE_MS); closed ones are set to -1. */
static int count_closed(int *fds, int n, int want)
{
	int64_t until = now_ms() + PATIENCE_MS;
	int closed, i;

	for (;;) {
		closed = 0;
		for (i = 0; i < n; i++) {
			if (fds[i] >= 0 && closed_within(fds[i], 0)) {
				close(fds[i]);
				fds[i] = -1;
			}
			closed += fds[i] < 0;
		}
		if (closed >= want || now_ms() >= until)
			return closed;
		nap_ms(20);
	}
}

/* 40 silent connections from 10 addresses (4 each, the per-client cap)
 * against 16 slots and a request timeout of 5 minutes: before the server
 * kept its limit itself, the filter after them waited in the listen backlog
 * until the timeout freed slots. Now each connection over the limit closes
 * a silent one: the filter is answered, exactly 41 - 16 = 25 were evicted
 * and the 15 others are still open. The per-client cap still closes a fifth
 * connection from one address at once, without evicting anyone. (Which
 * ones go, oldest first, is pinned step by step in
 * requests_in_progress_are_never_evicted: here two threads accept at once.) */
static void silent_connections_never_hold_a_new_client_back(void **state)
{
	enum { ADDRS = 10, PER = 4, SILENT = ADDRS * PER, MAX = 16, EVICTED = SILENT + 1 - MAX };
	int port = free_port(), mport = free_port();
	int silent[SILENT], more[PER + 1], fd, i, open_count = 0;
	char extra[64], from[32];

	(void)state;
	snprintf(extra, sizeof extra, "metricsListen: \"127.0.0.1:%d\"\n", mport);
	start(port, "maxConnections: 16, maxConnectionsPerClient: 4, requestTimeout: 5m", extra);
	wait_ready(mport);
	for (i = 0; i < SILENT; i++) {
		snprintf(from, sizeof from, "127.0.0.%d", 2 + i / PER);
		silent[i] = dial_from(from, port);
	}
	fd = dial(port);
	filter_on(fd); /* fails when no reply came within PATIENCE_MS */
	wait_metric(mport, "numa_extender_http_connections_evicted_total", EVICTED);
	assert_int_equal(count_closed(silent, SILENT, EVICTED), EVICTED);
	/* The others are open (every eviction has been made: the counter is
	 * read with the shutdowns done). */
	for (i = 0; i < SILENT; i++)
		if (silent[i] >= 0) {
			assert_false(closed_within(silent[i], 0));
			open_count++;
		}
	assert_int_equal(open_count, MAX - 1);

	/* Four from a new address take four silent ones' slots; a fifth is
	 * closed by the per-client cap before it could take anyone's. */
	snprintf(from, sizeof from, "127.0.0.%d", 2 + ADDRS);
	for (i = 0; i < PER; i++)
		more[i] = dial_from(from, port);
	wait_metric(mport, "numa_extender_http_connections_evicted_total", EVICTED + PER);
	more[PER] = dial_from(from, port);
	assert_true(closed_within(more[PER], PATIENCE_MS));
	for (i = 0; i < PER; i++)
		assert_false(closed_within(more[i], 0));
	assert_int_equal(metric(mport, "numa_extender_http_connections_evicted_total"),
			 EVICTED + PER);
	assert_int_equal(metric(mport, "numa_extender_http_connections_refused_total"), 0);
	assert_int_equal(metric(mport, "numa_extender_http_request_timeouts_total"), 0);
	filter_on(fd); /* the filter's kept-alive connection was left alone */
	close(fd);
	for (i = 0; i <= PER; i++)
		close(more[i]);
	for (i = 0; i < SILENT; i++)
		if (silent[i] >= 0)
			close(silent[i]);
}

/* The same on a TLS listener: silent TCP connections that never start the
 * handshake are evicted like the others and an HTTPS filter is answered. */
static void silent_connections_never_hold_back_a_tls_client(void **state)
{
	enum { ADDRS = 3, PER = 3, SILENT = ADDRS * PER, MAX = 4 };
	int port = free_port(), mport = free_port();
	int silent[SILENT], i;
	char extra[256], from[32], url[128];
	char *body;
	struct http_client *c;
	struct http_response r;

	(void)state;
	snprintf(extra, sizeof extra,
		 "metricsListen: \"127.0.0.1:%d\"\n"
		 "tls: {certFile: tests/data/tls/server.crt, keyFile: tests/data/tls/server.key}\n",
		 mport);
	start(port, "maxConnections: 4, maxConnectionsPerClient: 3, requestTimeout: 5m", extra);
	wait_ready(mport);
	for (i = 0; i < SILENT; i++) {
		snprintf(from, sizeof from, "127.0.0.%d", 2 + i / PER);
		silent[i] = dial_from(from, port);
	}
	body = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	c = http_client_new("tests/data/tls/ca.crt", NULL, NULL);
	snprintf(url, sizeof url, "https://127.0.0.1:%d/v1/filter", port);
	http_request(c, "POST", url, body, strlen(body), false, &r);
	assert_int_equal(r.curl_error, 0);
	assert_int_equal(r.status, 200);
	http_response_cleanup(&r);
	http_client_free(c);
	free(body);
	wait_metric(mport, "numa_extender_http_connections_evicted_total", SILENT + 1 - MAX);
	assert_int_equal(count_closed(silent, SILENT, SILENT + 1 - MAX), SILENT + 1 - MAX);
	for (i = 0; i < SILENT; i++)
		if (silent[i] >= 0)
			close(silent[i]);
}

/* Field k of /proc/sys/net/ipv4/<name> (min, default, max), 0 if unknown. */
static unsigned long long tcp_mem(const char *name, int k)
{
	unsigned long long v[3] = { 0, 0, 0 };
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
		v[k] = 0;
	fclose(f);
	return v[k];
}

/* A filter body naming enough unknown nodes that its reply (they pass:
 * missingInventory allow) cannot fit in the kernel's socket buffers: the
 * server's largest send buffer plus the client's receive buffer, which
 * does not grow while the client reads nothing. */
static char *big_filter(size_t *len)
{
	char *pod_doc = read_file_or_die("tests/data/fixtures/wire/filter-request-nodecache.json", NULL);
	char *pod = strstr(pod_doc, "\"Pod\"");
	char *nodes = strstr(pod_doc, "\"Nodes\"");
	size_t want = 9u << 20, cap, off, pod_len;
	unsigned long long wmem = tcp_mem("tcp_wmem", 2), rmem = tcp_mem("tcp_rmem", 1);
	char *body;
	int i;

	/* Twice the buffers, and then some. */
	if ((wmem + rmem) * 2 + (1u << 20) > want)
		want = (size_t)((wmem + rmem) * 2 + (1u << 20));
	if (want > (40u << 20))
		skip(); /* a kernel tuned for huge buffers: the reply would not stall */
	assert_non_null(pod);
	assert_non_null(nodes);
	assert_true(nodes > pod);
	pod_len = (size_t)(nodes - pod);
	cap = want + pod_len + 64;
	body = malloc(cap);
	assert_non_null(body);
	off = (size_t)snprintf(body, cap, "{%.*s\"NodeNames\": [", (int)pod_len, pod);
	for (i = 0; off < want; i++)
		off += (size_t)snprintf(body + off, cap - off, "%s\"node-%08d-padding-padding\"",
					i ? "," : "", i);
	off += (size_t)snprintf(body + off, cap - off, "]}");
	free(pod_doc);
	*len = off;
	return body;
}

/* Sends a whole filter on a connection that then reads nothing until told:
 * its reply stalls, the request stays in progress. */
static int stalled_filter(int port, const char *body, size_t len)
{
	int fd = dial(port);
	char head[160];
	size_t off = 0;

	snprintf(head, sizeof head,
		 "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n\r\n", len);
	assert_true(say(fd, head));
	while (off < len) {
		ssize_t n = send(fd, body + off, len - off, MSG_NOSIGNAL);

		assert_true(n > 0);
		off += (size_t)n;
	}
	return fd;
}

/* Reads a reply to its end; true when it was a 200 with its whole body. */
static bool whole_reply_ok(int fd)
{
	char buf[65536];
	size_t got = 0, head_len = 0, want = 0;
	bool ok = false, have_head = false;
	int64_t until = now_ms() + PATIENCE_MS;

	while (now_ms() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (have_head)
			n = recv(fd, buf, sizeof buf, 0); /* body bytes, counted */
		else
			n = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (n <= 0)
			return false;
		got += (size_t)n;
		if (!have_head) {
			const char *end, *cl;

			buf[got] = '\0';
			end = strstr(buf, "\r\n\r\n");
			if (end == NULL) {
				if (got + 1 >= sizeof buf)
					return false;
				continue;
			}
			have_head = true;
			head_len = (size_t)(end + 4 - buf);
			cl = strstr(buf, "Content-Length: ");
			if (cl == NULL || cl > end)
				return false;
			want = (size_t)atoll(cl + 16);
			ok = strncmp(buf, "HTTP/1.1 200", 12) == 0;
		}
		if (got - head_len >= want)
			return ok && got - head_len == want;
	}
	return false;
}

static void wait_filters_answered(int mport, long long n)
{
	wait_metric(mport, "numa_extender_requests_total{verb=\"filter\",code=\"200\"}", n);
}

/* A connection that has sent the headers of a filter and none of its body
 * (waiting for its request), seen in requests_in_flight once registered. */
static int headers_only(int port)
{
	int fd = dial(port);

	assert_true(say(fd, "POST /v1/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"));
	return fd;
}

/* The eviction rule, step by step, with 3 slots; each step waits until
 * the server has registered the connection before the next arrives. A
 * connection whose request is in (here: its reply stalled by a client that
 * reads nothing) is never closed to make room; one waiting for its request
 * goes first, even mid-body; a kept-alive idle one goes only when nobody is
 * waiting; with every slot holding a request, a new connection is closed
 * at once (refused). The stalled replies are then read whole. */
static void requests_in_progress_are_never_evicted(void **state)
{
	int port = free_port(), mport = free_port();
	int idle, w1, w2, w3, w4, stalled[3], i;
	char extra[64];
	char *big;
	size_t big_len;

	(void)state;
	big = big_filter(&big_len);
	snprintf(extra, sizeof extra, "metricsListen: \"127.0.0.1:%d\"\n", mport);
	start(port, "maxConnections: 3, maxBodyBytes: 64Mi, maxBufferedBytes: 256Mi, "
		    "requestTimeout: 5m", extra);
	wait_ready(mport);

	idle = dial(port);
	filter_on(idle); /* kept alive, idle from now on */
	stalled[0] = stalled_filter(port, big, big_len);
	wait_filters_answered(mport, 2);
	w1 = headers_only(port); /* the three slots are taken */
	wait_metric(mport, "numa_extender_http_requests_in_flight", 2);

	w2 = headers_only(port); /* takes w1's slot: waiting goes before idle */
	wait_metric(mport, "numa_extender_http_connections_evicted_total", 1);
	assert_true(closed_within(w1, PATIENCE_MS));
	wait_metric(mport, "numa_extender_http_aborted_requests_total", 1); /* w1's */
	wait_metric(mport, "numa_extender_http_requests_in_flight", 2);
	assert_false(closed_within(idle, 0));

	stalled[1] = stalled_filter(port, big, big_len); /* takes w2's */
	wait_filters_answered(mport, 3);
	assert_int_equal(metric(mport, "numa_extender_http_connections_evicted_total"), 2);
	assert_true(closed_within(w2, PATIENCE_MS));
	assert_false(closed_within(idle, 0));

	w3 = headers_only(port); /* nobody waits: takes the idle one's */
	wait_metric(mport, "numa_extender_http_connections_evicted_total", 3);
	assert_true(closed_within(idle, PATIENCE_MS));
	wait_metric(mport, "numa_extender_http_aborted_requests_total", 2); /* w2's */
	wait_metric(mport, "numa_extender_http_requests_in_flight", 3);

	stalled[2] = stalled_filter(port, big, big_len); /* takes w3's */
	wait_filters_answered(mport, 4);
	assert_true(closed_within(w3, PATIENCE_MS));

	/* Every slot holds a request: the next connection is refused. */
	w4 = dial(port);
	assert_true(closed_within(w4, PATIENCE_MS));
	wait_metric(mport, "numa_extender_http_connections_refused_total", 1);
	assert_int_equal(metric(mport, "numa_extender_http_connections_evicted_total"), 4);
	assert_int_equal(metric(mport, "numa_extender_http_request_timeouts_total"), 0);
	for (i = 0; i < 3; i++) {
		assert_true(whole_reply_ok(stalled[i])); /* never cut */
		close(stalled[i]);
	}
	close(w1);
	close(w2);
	close(w3);
	close(w4);
	close(idle);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(aborted_requests_free_their_slots, kill_child),
		cmocka_unit_test_teardown(slow_and_silent_connections_are_closed, kill_child),
		cmocka_unit_test_teardown(one_client_cannot_take_every_slot, kill_child),
		cmocka_unit_test_teardown(buffered_bytes_are_bounded, kill_child),
		cmocka_unit_test_teardown(silent_connections_never_hold_a_new_client_back, kill_child),
		cmocka_unit_test_teardown(silent_connections_never_hold_back_a_tls_client, kill_child),
		cmocka_unit_test_teardown(requests_in_progress_are_never_evicted, kill_child),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("net_limits", tests, NULL, NULL);
}
