/* SPDX-License-Identifier: Apache-2.0 */
/* NUMA-aware preemption end to end: `numa-extender serve` as a process
 * against the fake API server (NRTs and pods, with the ledger), driven as
 * kube-scheduler drives it. Victim pods go through our filter and are bound
 * through the API server, so the ledger knows where the kubelet put them;
 * one pod is bound without us (placement unknown). Then /preempt is asked
 * with victims that free the wrong zone, the right zone, or only pods of
 * unknown placement.
 *
 * Both nodes: single-numa-node, pod scope; NUMA 0 has 8 CPUs and 2 GPUs,
 * NUMA 1 8 CPUs and no GPU. On w1, "a" (8 CPUs) fills NUMA 0's CPUs and "b"
 * (4 CPUs) sits on NUMA 1; the preemptor asks 4 CPUs + 1 GPU, which only
 * NUMA 0 can serve. The binary comes from $BIN. */
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

#define TOKEN "preempt-token"

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
	snprintf(e->kubeconfig, sizeof e->kubeconfig, "/tmp/numa-pre-kc-XXXXXX");
	fd = mkstemp(e->kubeconfig);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:%d\n"
		   "users:\n- name: u\n  user: {token: %s}\n",
		fake_apiserver_port(e->api), TOKEN);
	fclose(f);
	snprintf(e->config, sizeof e->config, "/tmp/numa-pre-cfg-XXXXXX");
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

/* POST /preempt for the preemptor with the given victims on one node. */
static struct json_object *preempt(struct env *e, int prio, const char *node, const char *victims_json)
{
	char pod[2048], body[4096];

	pod_text("hi", "u-hi", prio, 4, 1, NULL, pod, sizeof pod);
	snprintf(body, sizeof body,
		 "{\"Pod\":%s,\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{\"%s\":{\"Pods\":%s,"
		 "\"NumPDBViolations\":2}}}",
		 pod, node, victims_json);
	return post(e, "preempt", body);
}

/* The victims' UIDs kept for node, comma-joined in order, or NULL when the
 * node was dropped. */
static char *kept(struct json_object *r, const char *node, int64_t *pdb)
{
	struct json_object *m = NULL, *n = NULL, *pods = NULL;
	char out[1024] = "";
	size_t i;

	assert_true(json_object_object_get_ex(r, "NodeNameToMetaVictims", &m));
	if (!json_object_object_get_ex(m, node, &n))
		return NULL;
	assert_true(json_object_object_get_ex(n, "Pods", &pods));
	for (i = 0; i < json_object_array_length(pods); i++) {
		struct json_object *u = json_object_object_get(json_object_array_get_idx(pods, i), "UID");

		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "," : "",
			 json_object_get_string(u));
	}
	*pdb = json_object_get_int64(json_object_object_get(n, "NumPDBViolations"));
	return strdup(out);
}

static void preemption_frees_the_zone_the_pod_needs(void **state)
{
	struct env e;
	struct json_object *r;
	char *v, *log;
	int64_t pdb = -1;

	(void)state;
	start(&e);
	place(&e, "a", "u-a", 0, 8, 0, "w1", true);
	place(&e, "b", "u-b", 0, 4, 0, "w1", true);
	/* The ledger predicted where they went: a on NUMA 0, b on NUMA 1. */
	{
		char *body = NULL, *at;

		assert_int_equal(get(&e, "/ledger/w1", &body), 200);
		at = strstr(body, "\"uid\":\"u-a\"");
		assert_non_null(at);
		assert_non_null(strstr(at, "\"numaNodes\":[0]"));
		at = strstr(body, "\"uid\":\"u-b\"");
		assert_non_null(at);
		assert_non_null(strstr(at, "\"numaNodes\":[1]"));
		assert_non_null(strstr(body, "\"priority\":0"));
		free(body);
	}

	/* The scheduler's victim frees NUMA 1, which has no GPU: a is added
	 * (priority 0 < 100), which frees NUMA 0. */
	r = preempt(&e, 100, "w1", "[{\"UID\":\"u-b\"}]");
	v = kept(r, "w1", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-b,u-a");
	assert_int_equal(pdb, 2);
	free(v);
	json_object_put(r);

	/* The same victim for a preemptor no higher than a: nothing may be
	 * added, nothing would help: dropped. */
	r = preempt(&e, 0, "w1", "[{\"UID\":\"u-b\"}]");
	assert_null(kept(r, "w1", &pdb));
	assert_string_equal(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN),
			    "{\"NodeNameToMetaVictims\":{}}");
	json_object_put(r);

	/* The right zone: kept exactly as given. */
	r = preempt(&e, 100, "w1", "[{\"UID\":\"u-a\"}]");
	v = kept(r, "w1", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-a");
	free(v);
	json_object_put(r);

	/* The log says which victim frees which zone. */
	assert_true(spawn_wait_log(e.log, "result=extended", 10));
	log = read_file_or_die(e.log, NULL);
	assert_non_null(strstr(log, "pre/b frees cpu 4, memory 1Gi on NUMA 1; added pre/a frees cpu 8, memory 1Gi on NUMA 0"));
	assert_non_null(strstr(log, "result=dropped"));
	assert_non_null(strstr(log, "result=kept "));
	free(log);
	/* And so does the decision log. */
	{
		double t0;
		bool seen = false;

		for (t0 = now_s(); !seen && now_s() - t0 < 10; usleep(20 * 1000)) {
			if (access(e.decisions, R_OK) != 0)
				continue;
			log = read_file_or_die(e.decisions, NULL);
			seen = strstr(log, "\"type\":\"preemption\"") && strstr(log, "\"result\":\"extended\",\"victims\":[\"u-b\",\"u-a\"]") &&
			       strstr(log, "\"result\":\"dropped\"");
			free(log);
		}
		assert_true(seen);
	}
	stop(&e);
}

static void unknown_placements_keep_the_node_as_given(void **state)
{
	struct env e;
	struct json_object *r;
	char *v;
	int64_t pdb = -1;

	(void)state;
	start(&e);
	/* x was placed before us (no filter of ours): where it sits is
	 * unknown. k is known, priority 0, on NUMA 1. */
	place(&e, "x", "u-x", 0, 8, 0, "w2", false);
	place(&e, "k", "u-k", 0, 4, 0, "w2", true);
	r = preempt(&e, 100, "w2", "[{\"UID\":\"u-x\"}]");
	v = kept(r, "w2", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-x"); /* unchanged: nothing added, not dropped */
	assert_int_equal(pdb, 2);
	free(v);
	json_object_put(r);
	assert_true(spawn_wait_log(e.log, "result=keptUnknownPlacement", 10));
	assert_true(spawn_wait_log(e.log, "pre/x: placement unknown, frees nothing zone-specific", 10));
	/* A request that does not decode is a 400 (no error field). */
	{
		struct http_client *h = http_client_new(NULL, NULL, NULL);
		struct http_response hr;
		char url[128];

		snprintf(url, sizeof url, "http://127.0.0.1:%d/numa/preempt", e.port);
		http_request(h, "POST", url, "{\"Pod\":7}", 9, false, &hr);
		assert_int_equal(hr.status, 400);
		http_response_cleanup(&hr);
		http_client_free(h);
	}
	stop(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preemption_frees_the_zone_the_pod_needs),
		cmocka_unit_test(unknown_placements_keep_the_node_as_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
