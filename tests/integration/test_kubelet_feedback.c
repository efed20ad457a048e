/* SPDX-License-Identifier: Apache-2.0 */
/* The kubelet's verdicts as feedback, end to end: `numa-extender serve` as
 * a process against the fake API server. A pod goes through our filter
 * (passed), is bound, and the kubelet then turns it away: the pod becomes
 * Failed with status.reason TopologyAffinityError, which the pod watch's
 * field selector delivers as a DELETED event carrying the failed pod. The
 * rejection is counted with decided="pass", logged with the inventory
 * version we judged, written to the decision log, and replay lists it. A pod
 * bound without us counts as decided="unknown"; a pod admitted and running
 * counts as a prediction checked. The binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"

#define TOKEN "feedback-token"

struct env {
	struct fake_apiserver *api;
	char kubeconfig[64], config[64], log[80], decisions[96];
	int port;
	pid_t pid;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char NRT[] =
	"{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
	"\"metadata\":{\"name\":\"%s\"},"
	"\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
	"{\"name\":\"topologyManagerScope\",\"value\":\"pod\"}],"
	"\"zones\":["
	"{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"32Gi\",\"allocatable\":\"32Gi\",\"available\":\"32Gi\"},"
	"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"2\",\"allocatable\":\"2\",\"available\":\"2\"}]},"
	"{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"32Gi\",\"allocatable\":\"32Gi\",\"available\":\"32Gi\"}]}]}";

/* A Guaranteed pod; node NULL: pending. */
static void pod_text(const char *name, const char *uid, int prio, int cpus, int gpus, const char *node,
		     char *buf, size_t size)
{
	char gpu[64] = "";

	if (gpus)
		snprintf(gpu, sizeof gpu, ",\"nvidia.com/gpu\":\"%d\"", gpus);
	snprintf(buf, size,
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"pre\",\"uid\":\"%s\"},"
		 "\"spec\":{\"priority\":%d%s%s%s,\"containers\":[{\"name\":\"c\",\"resources\":{"
		 "\"requests\":{\"cpu\":\"%d\",\"memory\":\"1Gi\"%s},\"limits\":{\"cpu\":\"%d\",\"memory\":\"1Gi\"%s}}}]},"
		 "\"status\":{\"phase\":\"%s\",\"qosClass\":\"Guaranteed\"}}",
		 name, uid, prio, node ? ",\"nodeName\":\"" : "", node ? node : "", node ? "\"" : "", cpus, gpu,
		 cpus, gpu, node ? "Running" : "Pending");
}

static long get(struct env *e, const char *path, char **body)
{
	struct http_client *h = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	char url[256];
	long status;

	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", e->port, path);
	http_request(h, "GET", url, NULL, 0, false, &r);
	status = r.curl_error ? -1 : r.status;
	if (body)
		*body = strdup(r.body ? r.body : "");
	http_response_cleanup(&r);
	http_client_free(h);
	return status;
}

static struct json_object *post(struct env *e, const char *verb, const char *body)
{
	struct http_client *h = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	struct json_object *o;
	char url[256];

	snprintf(url, sizeof url, "http://127.0.0.1:%d/numa/%s", e->port, verb);
	http_request(h, "POST", url, body, strlen(body), false, &r);
	if (r.status != 200)
		fail_msg("%s answered %ld: %s", verb, r.status, r.body ? r.body : "");
	o = json_tokener_parse(r.body);
	assert_non_null(o);
	http_response_cleanup(&r);
	http_client_free(h);
	return o;
}

static void start(struct env *e)
{
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", e->config, NULL };
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	char nrt[4096];
	double t0;
	FILE *f;
	int fd;

	memset(e, 0, sizeof *e);
	e->api = fake_apiserver_start(&o);
	assert_non_null(e->api);
	snprintf(nrt, sizeof nrt, NRT, "w1");
	fake_apiserver_put(e->api, "w1", nrt);
	snprintf(nrt, sizeof nrt, NRT, "w2");
	fake_apiserver_put(e->api, "w2", nrt);
	snprintf(e->kubeconfig, sizeof e->kubeconfig, "/tmp/numa-fb-kc-XXXXXX");
	fd = mkstemp(e->kubeconfig);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:%d\n"
		   "users:\n- name: u\n  user: {token: %s}\n",
		fake_apiserver_port(e->api), TOKEN);
	fclose(f);
	snprintf(e->config, sizeof e->config, "/tmp/numa-fb-cfg-XXXXXX");
	fd = mkstemp(e->config);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	snprintf(e->decisions, sizeof e->decisions, "%s.decisions.jsonl", e->config);
	fprintf(f, "decisionLog: {path: %s}\nlisten: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "ledger: {mode: predicted, assumeTTL: 1h}\nlog: {level: info}\n",
		e->decisions, e->kubeconfig);
	fclose(f);
	snprintf(e->log, sizeof e->log, "%s.log", e->config);
	argv[0] = spawn_serve_bin();
	e->pid = spawn_process(argv, e->log);
	for (t0 = now_s(); e->port == 0 && now_s() - t0 < 20; usleep(10 * 1000)) {
		char *log, *at;

		if (access(e->log, R_OK) != 0)
			continue;
		log = read_file_or_die(e->log, NULL);
		at = strstr(log, "msg=\"listening\"");
		if (at && (at = strstr(at, " port=")) != NULL)
			e->port = atoi(at + 6);
		free(log);
	}
	if (e->port == 0)
		fail_msg("the extender never listened (see %s)", e->log);
	for (t0 = now_s(); now_s() - t0 < 20; usleep(25 * 1000))
		if (get(e, "/readyz", NULL) == 200)
			return;
	fail_msg("the extender never became ready (see %s)", e->log);
}

static void stop(struct env *e)
{
	kill(e->pid, SIGTERM);
	assert_int_equal(spawn_wait_exit(e->pid, 20), 0);
	fake_apiserver_stop(e->api);
	unlink(e->config);
	unlink(e->kubeconfig);
	unlink(e->log);
	unlink(e->decisions);
}

/* Waits until /ledger/<node> shows uid with the placement wanted. */
static void wait_ledger(struct env *e, const char *node, const char *uid, const char *placement)
{
	char path[64], *body = NULL;
	double t0;

	snprintf(path, sizeof path, "/ledger/%s", node);
	for (t0 = now_s(); now_s() - t0 < 15; usleep(10 * 1000)) {
		bool seen = false;

		if (get(e, path, &body) == 200) {
			const char *at = strstr(body, uid);

			seen = at && strstr(at, placement) != NULL;
		}
		free(body);
		if (seen)
			return;
	}
	fail_msg("the ledger of %s never showed %s with %s", node, uid, placement);
}

/* A victim through our filter (so its placement is known), then bound. */
static void place(struct env *e, const char *name, const char *uid, int prio, int cpus, int gpus,
		  const char *node, bool through_us)
{
	char pod[2048], body[4096];

	if (through_us) {
		struct json_object *fr;

		pod_text(name, uid, prio, cpus, gpus, NULL, pod, sizeof pod);
		fake_apiserver_pod_put(e->api, "pre", name, pod);
		snprintf(body, sizeof body, "{\"Pod\":%s,\"NodeNames\":[\"w1\",\"w2\"]}", pod);
		fr = post(e, "filter", body);
		assert_non_null(strstr(json_object_to_json_string(fr), node));
		json_object_put(fr);
	}
	pod_text(name, uid, prio, cpus, gpus, node, pod, sizeof pod);
	fake_apiserver_pod_put(e->api, "pre", name, pod);
	wait_ledger(e, node, uid, through_us ? "\"placement\":\"known\"" : "\"placement\":\"unknown\"");
}

static int64_t metric(struct env *e, const char *name)
{
	char *body = NULL, *at;
	int64_t v = -1;

	assert_int_equal(get(e, "/metrics", &body), 200);
	at = strstr(body, name);
	while (at && at > body && at[-1] != '\n')
		at = strstr(at + 1, name);
	if (at)
		v = (int64_t)strtod(at + strlen(name), NULL);
	free(body);
	return v;
}

static void wait_metric(struct env *e, const char *name, int64_t want)
{
	double t0;

	for (t0 = now_s(); now_s() - t0 < 15; usleep(20 * 1000))
		if (metric(e, name) == want)
			return;
	fail_msg("%s never reached %lld (now %lld)", name, (long long)want, (long long)metric(e, name));
}

/* What the kubelet leaves behind when its admission refuses the pod. */
static void kubelet_rejects(struct env *e, const char *name, const char *uid, int cpus, int gpus,
			    const char *node)
{
	char pod[2048], *at;

	pod_text(name, uid, 0, cpus, gpus, node, pod, sizeof pod);
	at = strstr(pod, "\"phase\":\"Running\"");
	assert_non_null(at);
	memmove(at + strlen("\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
			    "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\""),
		at + strlen("\"phase\":\"Running\""), strlen(at + strlen("\"phase\":\"Running\"")) + 1);
	memcpy(at, "\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
		   "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\"",
	       strlen("\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
		      "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\""));
	fake_apiserver_pod_put(e->api, "pre", name, pod);
}

static void kubelet_rejection_after_our_pass_is_reported(void **state)
{
	struct env e;
	char cmd[512], out[160], *text;
	int status;

	(void)state;
	start(&e);
	/* Admitted and running after our pass: one prediction checked. */
	place(&e, "ok", "u-ok", 0, 2, 0, "w1", true);
	wait_metric(&e, "numa_extender_kubelet_predictions_checked", 1);
	/* We passed p on w1 (inventory version of the fake's NRT); the
	 * kubelet disagrees. */
	place(&e, "p", "u-p", 0, 4, 1, "w1", true);
	kubelet_rejects(&e, "p", "u-p", 4, 1, "w1");
	wait_metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"pass\"}", 1);
	assert_int_equal(metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}"), 0);
	assert_int_equal(metric(&e, "numa_extender_kubelet_predictions_checked"), 2);
	assert_true(spawn_wait_log(e.log, "msg=\"the kubelet rejected a pod we passed\" namespace=\"pre\" pod=\"p\" node=\"w1\" "
				   "reason=TopologyAffinityError decided=pass version=", 10));
	/* A pod placed without us: decided unknown. */
	place(&e, "x", "u-x", 0, 2, 0, "w2", false);
	kubelet_rejects(&e, "x", "u-x", 2, 0, "w2");
	wait_metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}", 1);
	assert_true(spawn_wait_log(e.log, "decided=unknown (not through us)", 10));
	/* The kubelet never admitted p: the ledger lets go of it at once,
	 * without waiting for an NRT update. */
	{
		double t0;
		bool gone = false;

		for (t0 = now_s(); !gone && now_s() - t0 < 10; usleep(20 * 1000)) {
			text = NULL;
			assert_int_equal(get(&e, "/ledger/w1", &text), 200);
			gone = strstr(text, "u-p") == NULL && strstr(text, "u-ok") != NULL;
			free(text);
		}
		assert_true(gone);
	}
	/* The decision log has the record; replay lists the contradiction. */
	{
		double t0;
		bool seen = false;

		for (t0 = now_s(); !seen && now_s() - t0 < 10; usleep(20 * 1000)) {
			if (access(e.decisions, R_OK) != 0)
				continue;
			text = read_file_or_die(e.decisions, NULL);
			seen = strstr(text, "\"type\":\"kubeletRejection\"") && strstr(text, "\"uid\":\"u-x\"");
			if (seen)
				assert_non_null(strstr(text, "\"pod\":\"pre/p\",\"uid\":\"u-p\",\"node\":\"w1\","
							     "\"reason\":\"TopologyAffinityError\",\"decided\":\"pass\""));
			free(text);
		}
		assert_true(seen);
	}
	snprintf(out, sizeof out, "%s.replay", e.decisions);
	snprintf(cmd, sizeof cmd, "%s replay --log %s > %s 2>&1", spawn_serve_bin(), e.decisions, out);
	status = system(cmd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* every filter replays the same */
	text = read_file_or_die(out, NULL);
	assert_non_null(strstr(text, "2 kubelet rejections, 1 of pods we passed:"));
	assert_non_null(strstr(text, "kubelet TopologyAffinityError pre/p on w1: we decided pass (inventory "));
	assert_non_null(strstr(text, "kubelet TopologyAffinityError pre/x on w2: we decided unknown"));
	free(text);
	unlink(out);
	stop(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kubelet_rejection_after_our_pass_is_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
