/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender serve` against the fake API server: see serve_cluster.h. */
#include "tests/support/serve_cluster.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/spawn.h"

/* A temporary file that cannot be made: nothing to test, as in
 * read_file_or_die. */
static FILE *create_or_die(char *template)
{
	int fd = mkstemp(template);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL) {
		perror(template);
		abort();
	}
	return f;
}

double serve_cluster_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void serve_cluster_write_kubeconfig(struct serve_cluster *c, const char *tag, const char *token)
{
	FILE *f;

	snprintf(c->kubeconfig, sizeof c->kubeconfig, "/tmp/numa-%s-kc-XXXXXX", tag);
	f = create_or_die(c->kubeconfig);
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:%d\n"
		   "users:\n- name: u\n  user: {token: %s}\n",
		fake_apiserver_port(c->api), token);
	fclose(f);
}

FILE *serve_cluster_open_config(struct serve_cluster *c, const char *tag)
{
	FILE *f;

	snprintf(c->config, sizeof c->config, "/tmp/numa-%s-cfg-XXXXXX", tag);
	f = create_or_die(c->config);
	snprintf(c->decisions, sizeof c->decisions, "%s.decisions.jsonl", c->config);
	snprintf(c->log, sizeof c->log, "%s.log", c->config);
	return f;
}

void serve_cluster_launch(struct serve_cluster *c)
{
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", c->config, NULL };

	/* A relaunch must not find the last run's port in its log before the
	 * child has truncated it. */
	unlink(c->log);
	c->pid = spawn_process(argv, c->log);
}

bool serve_cluster_wait_ready(struct serve_cluster *c)
{
	double t0;

	/* Port 0: serve picks one and logs it. A port chosen here could be
	 * taken by serve's own API connections, opened before it listens. */
	c->port = spawn_wait_listening(c->log, 20);
	if (c->port == 0) {
		fprintf(stderr, "the extender never listened (see %s)\n", c->log);
		return false;
	}
	/* Ready only once the NRTs and the pods are listed. */
	for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 20; usleep(25 * 1000))
		if (serve_cluster_get(c, "/readyz", NULL) == 200)
			return true;
	fprintf(stderr, "the extender never became ready (see %s)\n", c->log);
	return false;
}

int serve_cluster_terminate(struct serve_cluster *c)
{
	kill(c->pid, SIGTERM);
	return spawn_wait_exit(c->pid, 20);
}

int serve_cluster_stop(struct serve_cluster *c)
{
	int status = serve_cluster_terminate(c);

	fake_apiserver_stop(c->api);
	unlink(c->config);
	unlink(c->kubeconfig);
	unlink(c->log);
	unlink(c->decisions);
	return status;
}

long serve_cluster_get(const struct serve_cluster *c, const char *path, char **body)
{
	return http_local_request(c->port, "GET", path, NULL, body);
}

struct json_object *serve_cluster_post(const struct serve_cluster *c, struct http_client *h, const char *verb,
				       const char *body)
{
	struct http_client *own = h ? NULL : http_client_new(NULL, NULL, NULL);
	struct http_response r;
	struct json_object *o = NULL;
	char url[256];

	snprintf(url, sizeof url, "http://127.0.0.1:%d/numa/%s", c->port, verb);
	http_request(h ? h : own, "POST", url, body, strlen(body), false, &r);
	if (r.status != 200)
		fprintf(stderr, "%s answered %ld: %s\n", verb, r.status, r.body ? r.body : "");
	else if ((o = json_tokener_parse(r.body)) == NULL)
		fprintf(stderr, "%s answered no JSON: %s\n", verb, r.body ? r.body : "");
	http_response_cleanup(&r);
	if (own)
		http_client_free(own);
	return o;
}

int64_t serve_cluster_metric(const struct serve_cluster *c, const char *name)
{
	char *body = NULL, *at;
	int64_t v = -1;

	if (serve_cluster_get(c, "/metrics", &body) != 200) {
		fprintf(stderr, "GET /metrics failed\n");
		free(body);
		return -1;
	}
	at = strstr(body, name);
	while (at && at > body && at[-1] != '\n')
		at = strstr(at + 1, name);
	if (at)
		v = (int64_t)strtod(at + strlen(name), NULL);
	free(body);
	return v;
}

bool serve_cluster_wait_metric(const struct serve_cluster *c, const char *name, int64_t want,
			       double seconds)
{
	double until = serve_cluster_now() + seconds;

	while (serve_cluster_metric(c, name) != want) {
		if (serve_cluster_now() > until) {
			fprintf(stderr, "%s never became %lld (now %lld)\n", name, (long long)want,
				(long long)serve_cluster_metric(c, name));
			return false;
		}
		usleep(10000);
	}
	return true;
}

bool serve_cluster_wait_ledger(const struct serve_cluster *c, const char *node, const char *uid,
			       const char *placement)
{
	char path[64], *body = NULL;
	double t0;

	snprintf(path, sizeof path, "/ledger/%s", node);
	for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 15; usleep(10 * 1000)) {
		bool seen = false;

		if (serve_cluster_get(c, path, &body) == 200) {
			const char *at = strstr(body, uid);

			seen = at && strstr(at, placement) != NULL;
		}
		free(body);
		if (seen)
			return true;
	}
	fprintf(stderr, "the ledger of %s never showed %s with %s\n", node, uid, placement);
	return false;
}

/* --- the two-node cluster --- */

static const char PAIR_NRT[] =
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

bool serve_cluster_start_pair(struct serve_cluster *c, const char *tag, const char *token)
{
	struct fake_apiserver_options o = { NULL, NULL, token, true, false, 0 };
	char nrt[4096];
	FILE *f;

	memset(c, 0, sizeof *c);
	c->api = fake_apiserver_start(&o);
	if (c->api == NULL)
		return false;
	snprintf(nrt, sizeof nrt, PAIR_NRT, "w1");
	fake_apiserver_put(c->api, "w1", nrt);
	snprintf(nrt, sizeof nrt, PAIR_NRT, "w2");
	fake_apiserver_put(c->api, "w2", nrt);
	serve_cluster_write_kubeconfig(c, tag, token);
	f = serve_cluster_open_config(c, tag);
	fprintf(f, "decisionLog: {path: %s}\nlisten: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "ledger: {mode: predicted, assumeTTL: 1h}\ndra: {enabled: true}\nlog: {level: info}\n",
		c->decisions, c->kubeconfig);
	fclose(f);
	serve_cluster_launch(c);
	return serve_cluster_wait_ready(c);
}

void serve_cluster_pod_text(const char *name, const char *uid, int prio, int cpus, int gpus, const char *node,
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

bool serve_cluster_place(struct serve_cluster *c, const char *name, const char *uid, int prio, int cpus, int gpus,
			 const char *node, bool through_us)
{
	char pod[2048], body[4096];

	if (through_us) {
		struct json_object *fr;
		bool passed;

		serve_cluster_pod_text(name, uid, prio, cpus, gpus, NULL, pod, sizeof pod);
		fake_apiserver_pod_put(c->api, "pre", name, pod);
		snprintf(body, sizeof body, "{\"Pod\":%s,\"NodeNames\":[\"w1\",\"w2\"]}", pod);
		fr = serve_cluster_post(c, NULL, "filter", body);
		if (fr == NULL)
			return false;
		passed = strstr(json_object_to_json_string(fr), node) != NULL;
		if (!passed)
			fprintf(stderr, "filter did not pass %s on %s: %s\n", name, node, json_object_to_json_string(fr));
		json_object_put(fr);
		if (!passed)
			return false;
	}
	serve_cluster_pod_text(name, uid, prio, cpus, gpus, node, pod, sizeof pod);
	fake_apiserver_pod_put(c->api, "pre", name, pod);
	return serve_cluster_wait_ledger(c, node, uid,
					 through_us ? "\"placement\":\"known\"" : "\"placement\":\"unknown\"");
}
