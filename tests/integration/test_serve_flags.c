/* SPDX-License-Identifier: Apache-2.0 */
/* serve as a process: the rules between keys hold for the final
 * configuration (file plus --listen, --nrt-dir, --kubeconfig, and again on a
 * SIGHUP reload), loopback means an address in 127.0.0.0/8 or ::1 (not a
 * name that starts with "127."), and --kubeconfig takes the inventory from
 * the API server. The API side is tests/support/fake_apiserver.c. The binary
 * comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"

#define TOKEN "flags-token"
/* Generous: sanitizer runs on a loaded machine are slow. */
#define DEADLINE_S 60

static const char NRT[] =
	"{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
	"\"metadata\":{\"name\":\"worker-flags\"},"
	"\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
	"{\"name\":\"topologyManagerScope\",\"value\":\"pod\"}],"
	"\"zones\":[{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"8Gi\",\"allocatable\":\"8Gi\",\"available\":\"8Gi\"}]}]}";

struct env {
	struct fake_apiserver *api;
	char kubeconfig[64];
	char config[64];
	char log[80];
	pid_t pid;
};

/* Writes text with every "@KC@" replaced by the kubeconfig's path. */
static void write_config(FILE *f, const char *text, const char *kubeconfig)
{
	const char *at;

	while ((at = strstr(text, "@KC@")) != NULL) {
		fwrite(text, 1, (size_t)(at - text), f);
		fputs(kubeconfig, f);
		text = at + 4;
	}
	fputs(text, f);
}

static struct env *env_new(const char *config_text)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	struct env *e = calloc(1, sizeof *e);
	FILE *f;
	int fd;

	assert_non_null(e);
	e->pid = -1;
	e->api = fake_apiserver_start(&o);
	assert_non_null(e->api);
	fake_apiserver_put(e->api, "worker-flags", NRT);
	snprintf(e->kubeconfig, sizeof e->kubeconfig, "/tmp/numa-flags-kc-XXXXXX");
	fd = mkstemp(e->kubeconfig);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:%d\n"
		   "users:\n- name: u\n  user: {token: " TOKEN "}\n",
		fake_apiserver_port(e->api));
	fclose(f);
	snprintf(e->config, sizeof e->config, "/tmp/numa-flags-cfg-XXXXXX");
	fd = mkstemp(e->config);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	write_config(f, config_text, e->kubeconfig);
	fclose(f);
	snprintf(e->log, sizeof e->log, "%s.log", e->config);
	return e;
}

static void env_rewrite(struct env *e, const char *config_text)
{
	FILE *f = fopen(e->config, "w");

	assert_non_null(f);
	write_config(f, config_text, e->kubeconfig);
	fclose(f);
}

/* The teardown's: the state is the env. */
static int env_free(void **state)
{
	struct env *e = *state;

	if (e == NULL)
		return 0;
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
	}
	fake_apiserver_stop(e->api);
	unlink(e->kubeconfig);
	unlink(e->config);
	unlink(e->log);
	free(e);
	*state = NULL;
	return 0;
}

/* Starts serve with the env's config and extra arguments (NULL-ended). */
static void serve(struct env *e, ...)
{
	const char *argv[SPAWN_MAX_ARGS + 1];
	const char *a;
	size_t n = 0;
	va_list ap;

	argv[n++] = spawn_serve_bin();
	argv[n++] = "serve";
	argv[n++] = "--config";
	argv[n++] = e->config;
	va_start(ap, e);
	while ((a = va_arg(ap, const char *)) != NULL && n < SPAWN_MAX_ARGS)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	/* Not the last run's lines: the child truncates the log only once it
	 * runs. */
	unlink(e->log);
	e->pid = spawn_process(argv, e->log);
}

static int exit_status(struct env *e)
{
	int status = spawn_wait_exit(e->pid, DEADLINE_S);

	e->pid = -1;
	return status;
}

static void expect_log(struct env *e, const char *text)
{
	if (!spawn_log_contains(e->log, text)) {
		char *body = read_file_or_die(e->log, NULL);

		print_message("log:\n%s\n", body);
		free(body);
		fail_msg("the log does not say: %s", text);
	}
}

static long get(const char *host, int port, const char *path, char **body)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	char url[160];
	long status;

	snprintf(url, sizeof url, "http://%s:%d%s", host, port, path);
	http_request(c, "GET", url, NULL, 0, false, &r);
	status = r.curl_error ? -1 : r.status;
	if (body)
		*body = strdup(r.body ? r.body : "");
	http_response_cleanup(&r);
	http_client_free(c);
	return status;
}

static bool wait_metric(const char *host, int port, const char *line)
{
	int i;

	for (i = 0; i < DEADLINE_S * 20; i++) {
		char *m = NULL;
		bool seen = get(host, port, "/metrics", &m) == 200 && strstr(m, line) != NULL;

		free(m);
		if (seen)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/* Stops a running serve with SIGTERM and expects a clean exit. */
static void stop(struct env *e)
{
	kill(e->pid, SIGTERM);
	assert_int_equal(exit_status(e), 0);
}

#define BIND_ON_KUBE "inventory: {source: kubernetes, kubeconfig: @KC@}\nbind: {enabled: true}\n"

/* The file alone keeps bind on loopback; --listen must not open it to the
 * network. */
static void listen_flag_cannot_expose_unauthenticated_bind(void **state)
{
	struct env *e = *state = env_new(BIND_ON_KUBE);

	serve(e, "--listen", "0.0.0.0:0", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "numa-extender serve: with the command-line flags --listen: bind: enabled needs "
		      "mTLS (tls.clientCAFile) or listeners on loopback only; anyone who can reach an "
		      "unauthenticated /bind can place pods (listen \"0.0.0.0:0\" is not a loopback address)");
	assert_false(spawn_log_contains(e->log, "msg=\"listening\""));
}

/* A host name that starts with "127." is not a loopback address. */
static void name_starting_with_127_is_not_loopback(void **state)
{
	struct env *e = *state = env_new("listen: \"127.evil.example:0\"\n" BIND_ON_KUBE);

	serve(e, NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, ":3:8: bind: enabled needs mTLS (tls.clientCAFile) or listeners on loopback only");
	/* The same through the flag. */
	env_rewrite(e, BIND_ON_KUBE);
	serve(e, "--listen", "127.evil.example:0", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "(listen \"127.evil.example:0\" is not a loopback address)");
	assert_false(spawn_log_contains(e->log, "msg=\"listening\""));
}

/* Addresses in 127.0.0.0/8 and ::1 are loopback: serve starts with bind on
 * and answers there. */
static void loopback_addresses_start_with_bind(void **state)
{
	static const char *const addrs[][2] = {
		{ "127.0.0.2:0", "127.0.0.2" },
		{ "[::1]:0", "[::1]" },
	};
	struct env *e = *state = env_new(BIND_ON_KUBE);
	size_t i;

	for (i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
		int port;

		serve(e, "--listen", addrs[i][0], NULL);
		port = spawn_wait_listening(e->log, DEADLINE_S);
		if (port == 0) {
			expect_log(e, "msg=\"listening\"");
			fail_msg("serve --listen %s never listened", addrs[i][0]);
		}
		assert_int_equal(get(addrs[i][1], port, "/healthz", NULL), 200);
		stop(e);
	}
}

/* A SIGHUP reload is checked with the flags applied too: a file that turns
 * bind on while --listen opens the port is refused, and the running
 * configuration stays. */
static void reload_checks_the_rules_with_the_flags(void **state)
{
	struct env *e = *state = env_new("inventory: {source: kubernetes, kubeconfig: @KC@}\n");
	int port;

	serve(e, "--listen", "0.0.0.0:0", NULL);
	port = spawn_wait_listening(e->log, DEADLINE_S);
	assert_true(port > 0);
	env_rewrite(e, BIND_ON_KUBE);
	kill(e->pid, SIGHUP);
	assert_true(wait_metric("127.0.0.1", port,
				"numa_extender_config_reloads_total{result=\"error\"} 1\n"));
	expect_log(e, "SIGHUP: invalid configuration, keeping the previous one");
	expect_log(e, "with the command-line flags --listen: bind: enabled needs mTLS");
	stop(e);
}

/* --nrt-dir replaces the inventory section: a bind that needs the API is
 * refused, not silently kept. */
static void nrt_dir_flag_is_checked_against_bind(void **state)
{
	struct env *e = *state = env_new(BIND_ON_KUBE);

	serve(e, "--nrt-dir", "tests/data/server/nrt", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "with the command-line flags --nrt-dir: bind: enabled needs inventory.source: kubernetes");
}

/* --kubeconfig implies inventory.source: kubernetes. */
static void kubeconfig_flag_reads_the_api(void **state)
{
	struct env *e = *state = env_new("log: {level: info}\n");
	int port;

	serve(e, "--listen", "127.0.0.1:0", "--kubeconfig", e->kubeconfig, NULL);
	port = spawn_wait_listening(e->log, DEADLINE_S);
	assert_true(port > 0);
	/* The one NRT the fake API server holds. */
	assert_true(wait_metric("127.0.0.1", port, "\nnuma_extender_inventory_nodes 1\n"));
	{
		struct fake_apiserver_stats st;

		fake_apiserver_stats(e->api, &st);
		assert_true(st.lists >= 1);
	}
	stop(e);
}

static void kubeconfig_flag_errors(void **state)
{
	struct env *e = *state = env_new("log: {level: info}\n");

	serve(e, "--kubeconfig", "/nonexistent/numa-flags-kubeconfig", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "numa-extender serve: --kubeconfig: /nonexistent/numa-flags-kubeconfig: cannot open: "
		      "No such file or directory");
	serve(e, "--kubeconfig", e->kubeconfig, "--nrt-dir", "tests/data/server/nrt", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "--nrt-dir and --kubeconfig are two inventory sources; give one");
	serve(e, "--kubeconfig", NULL);
	assert_int_equal(exit_status(e), 2);
	expect_log(e, "--kubeconfig needs a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(listen_flag_cannot_expose_unauthenticated_bind, env_free),
		cmocka_unit_test_teardown(name_starting_with_127_is_not_loopback, env_free),
		cmocka_unit_test_teardown(loopback_addresses_start_with_bind, env_free),
		cmocka_unit_test_teardown(reload_checks_the_rules_with_the_flags, env_free),
		cmocka_unit_test_teardown(nrt_dir_flag_is_checked_against_bind, env_free),
		cmocka_unit_test_teardown(kubeconfig_flag_reads_the_api, env_free),
		cmocka_unit_test_teardown(kubeconfig_flag_errors, env_free),
	};

	return cmocka_run_group_tests_name("serve_flags", tests, NULL, NULL);
}
