/* SPDX-License-Identifier: Apache-2.0 */
/* No double-booking, end to end: `numa-extender serve` as a process against
 * the fake API server (NRTs and pods), driven the way kube-scheduler drives
 * it, for a burst of 40 Guaranteed pods of 4 CPUs + 1 GPU on 4 nodes of
 * 2 NUMA x (16 CPUs, 4 GPUs) under single-numa-node: 32 fit.
 *
 * For each pod: filter -> prioritize -> bind, either through our bind verb
 * or by creating the Binding directly (kube-scheduler's own binder) and
 * letting the pod watch tell the ledger. The NRTs stay as they were for the
 * whole burst (the agent is slower than the scheduler). The test plays the
 * kubelet too: every bound pod is admitted against the node's true state by
 * the same Topology Manager simulation; a pod it would reject is the
 * TopologyAffinityError the ledger exists to prevent. Then the fake agent
 * publishes the true state with the pods' fingerprint, the ledger must
 * empty, and pods the burst turned away are retried, as kube-scheduler
 * retries unschedulable pods, until nothing changes. Both ledger modes, both
 * binding paths. The binary comes from $BIN. */
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

#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/serve_cluster.h"
#include "tests/support/spawn.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/podfingerprint.h"

#define TOKEN "burst-token"
#define NODES 4
#define NUMA 2
#define PODS 40
#define FIT 32

/* --- the cluster: true state, as the kubelets hold it --- */

struct pod {
	char name[32], uid[64];
	int node;            /* -1: not placed */
	bool rejected_numa;  /* the last filter turned every node away with a NUMA reason */
};

struct cluster {
	struct serve_cluster s;   /* serve, its files, the fake API server */
	int64_t cpu[NODES][NUMA], gpu[NODES][NUMA], mem[NODES][NUMA];
	struct pod pods[PODS];
	int admission_errors;     /* TopologyAffinityError the kubelet would raise */
};

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

static const char *node_name(int n)
{
	static const char *const names[NODES] = { "gpu-a", "gpu-b", "gpu-c", "gpu-d" };

	return names[n];
}

/* The NRT of node n as its agent would publish it now. */
static void nrt_text(const struct cluster *c, int n, const char *fingerprint, char *buf, size_t size)
{
	size_t len;
	int z;

	len = (size_t)snprintf(buf, size,
			       "{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
			       "\"metadata\":{\"name\":\"%s\"},"
			       "\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
			       "{\"name\":\"topologyManagerScope\",\"value\":\"pod\"},"
			       "{\"name\":\"nodeTopologyPodsFingerprint\",\"value\":\"%s\"},"
			       "{\"name\":\"nodeTopologyPodsFingerprintMethod\",\"value\":\"with-exclusive-resources\"}],"
			       "\"zones\":[",
			       node_name(n), fingerprint);
	for (z = 0; z < NUMA; z++)
		len += (size_t)snprintf(buf + len, size - len,
					"%s{\"name\":\"node-%d\",\"type\":\"Node\",\"costs\":[{\"name\":\"node-0\",\"value\":%d},"
					"{\"name\":\"node-1\",\"value\":%d}],\"resources\":["
					"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"%lld\"},"
					"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"%lld\"},"
					"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"4\",\"allocatable\":\"4\",\"available\":\"%lld\"}]}",
					z ? "," : "", z, z == 0 ? 10 : 21, z == 0 ? 21 : 10, (long long)c->cpu[n][z],
					(long long)c->mem[n][z], (long long)c->gpu[n][z]);
	snprintf(buf + len, size - len, "]}");
}

static void pod_json(const struct pod *p, const char *node, char *buf, size_t size)
{
	snprintf(buf, size,
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"burst\"%s%s%s},"
		 "\"spec\":{\"schedulerName\":\"numa-scheduler\"%s%s%s,\"containers\":[{\"name\":\"work\",\"resources\":{"
		 "\"requests\":{\"cpu\":\"4\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"},"
		 "\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"}}}]},"
		 "\"status\":{\"phase\":\"Pending\",\"qosClass\":\"Guaranteed\"}}",
		 p->name, p->uid[0] ? ",\"uid\":\"" : "", p->uid, p->uid[0] ? "\"" : "",
		 node ? ",\"nodeName\":\"" : "", node ? node : "", node ? "\"" : "");
}

/* The fake agent: every node's true state, with the fingerprint of the pods
 * bound there. */
static void agent_publish(struct cluster *c)
{
	char buf[8192], fp[PODFINGERPRINT_LEN + 1];
	int n, i;

	for (n = 0; n < NODES; n++) {
		struct pod_ref refs[PODS];
		size_t k = 0;

		for (i = 0; i < PODS; i++) {
			if (c->pods[i].node != n)
				continue;
			refs[k].namespace_ = "burst";
			refs[k].name = c->pods[i].name;
			k++;
		}
		podfingerprint(refs, k, fp);
		nrt_text(c, n, fp, buf, sizeof buf);
		fake_apiserver_put(c->s.api, node_name(n), buf);
	}
}

/* The kubelet of node n admits pod p against the true state, or raises
 * TopologyAffinityError (counted). */
static void kubelet_admit(struct cluster *c, int n, struct pod *p)
{
	char nrt[8192], podtext[2048];
	struct nrt_object *objs = NULL;
	struct inventory_node *inv = NULL;
	struct pod_spec spec;
	struct pod_demand *d = NULL;
	struct verdict v;
	struct errmsg msg;
	size_t nobjs = 0;
	int r, z;

	nrt_text(c, n, "pfp0v0010000000000000000", nrt, sizeof nrt);
	pod_json(p, node_name(n), podtext, sizeof podtext);
	assert_int_equal(nrt_decode_buffer(nrt, strlen(nrt), "kubelet", &objs, &nobjs, &msg), ERR_OK);
	assert_int_equal(inventory_node_new(&objs[0], &inv, &msg), ERR_OK);
	assert_int_equal(pod_decode_buffer(podtext, strlen(podtext), "kubelet", &spec, &msg), ERR_OK);
	assert_int_equal(pod_demand_new(&spec, &d, &msg), ERR_OK);
	judge_node(inv, d, &v);
	if (!v.admit) {
		c->admission_errors++;
		print_message("kubelet on %s rejects %s: %s\n", node_name(n), p->name, v.message);
	} else {
		for (r = 0; r < inv->nresources; r++) {
			for (z = 0; z < inv->numa_count; z++) {
				int64_t used = verdict_usage(&v, r, z);
				const char *name = inv->resources[r].name;

				if (strcmp(name, "cpu") == 0)
					c->cpu[n][inv->numa_ids[z]] -= used;
				else if (strcmp(name, "memory") == 0)
					c->mem[n][inv->numa_ids[z]] -= used;
				else
					c->gpu[n][inv->numa_ids[z]] -= used;
			}
		}
	}
	verdict_cleanup(&v);
	pod_demand_free(d);
	pod_spec_cleanup(&spec);
	inventory_node_free(inv);
	nrt_objects_free(objs, nobjs);
}

/* --- the extender process --- */

static void write_files(struct cluster *c, const char *mode, bool bind)
{
	FILE *f;

	serve_cluster_write_kubeconfig(&c->s, "burst", TOKEN);
	f = serve_cluster_open_config(&c->s, "burst");
	/* Port 0: the extender picks one and logs it. A port chosen here
	 * could be taken by the extender's own API connections, which it
	 * opens before it listens. */
	c->s.port = 0;
	fprintf(f, "decisionLog: {path: %s}\n", c->s.decisions);
	fprintf(f, "listen: \"127.0.0.1:%d\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "ledger: {mode: %s, assumeTTL: 1h}\n"
		   "bind: {enabled: %s}\n"
		   "scoring: {strategy: MostAllocated}\nlog: {level: debug}\n",
		c->s.port, c->s.kubeconfig, mode, bind ? "true" : "false");
	fclose(f);
}

static void start_extender(struct cluster *c)
{
	serve_cluster_launch(&c->s);
	child = c->s.pid;
	assert_true(serve_cluster_wait_ready(&c->s));
}

static void stop_extender(struct cluster *c)
{
	child = -1; /* serve_cluster_terminate reaps it, whatever its status */
	assert_int_equal(serve_cluster_terminate(&c->s), 0);
	unlink(c->s.config);
	unlink(c->s.kubeconfig);
	unlink(c->s.log);
}

/* Replays one decision log file: the calls it held, every one identical. */
static unsigned long replay_file(const char *path)
{
	char cmd[512];
	int status;
	unsigned long calls = 0, same = 0;

	snprintf(cmd, sizeof cmd, "%s replay --log %s > %s.replay 2>&1", spawn_serve_bin(), path, path);
	status = system(cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(cmd, sizeof cmd, "tail -5 %s.replay >&2", path);
		if (system(cmd) != 0)
			print_message("cannot show the replay output\n");
		fail_msg("replay of %s differs (exit %d)", path, WEXITSTATUS(status));
	}
	snprintf(cmd, sizeof cmd, "%s.replay", path);
	{
		char *out = read_file_or_die(cmd, NULL), *at = strstr(out, " calls replayed: ");

		assert_non_null(at);
		while (at > out && at[-1] >= '0' && at[-1] <= '9')
			at--;
		assert_int_equal(sscanf(at, "%lu calls replayed: %lu identical", &calls, &same), 2);
		assert_int_equal(same, calls);
		free(out);
	}
	unlink(cmd);
	unlink(path);
	return calls;
}

/* Every recorded decision replays to the same answer: the log holds the
 * inventories minus the ledger that the decisions were made on. A restart
 * starts a new file (the old one becomes .1, .2, ...): files in all. */
static void replay_is_identical(struct cluster *c, int files)
{
	unsigned long calls = replay_file(c->s.decisions);
	char path[128];
	int i;

	for (i = 1; i < files; i++) {
		snprintf(path, sizeof path, "%s.%d", c->s.decisions, i);
		calls += replay_file(path);
	}
	/* Filter and prioritize of every attempt. */
	assert_true(calls >= 2 * FIT);
}

/* Polls the ledger of node n until it lists uid (the watch delivered it). */
static void wait_ledger_has(struct cluster *c, int n, const char *uid)
{
	char path[64], *body = NULL;
	double t0;

	snprintf(path, sizeof path, "/ledger/%s", node_name(n));
	for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 10; usleep(5 * 1000)) {
		bool seen = serve_cluster_get(&c->s, path, &body) == 200 && strstr(body, uid) != NULL;

		free(body);
		if (seen)
			return;
	}
	fail_msg("the ledger of %s never saw pod %s", node_name(n), uid);
}

/* --- kube-scheduler --- */

static void request_body(const struct pod *p, char *buf, size_t size)
{
	char podtext[2048];
	size_t len;
	int n;

	pod_json(p, NULL, podtext, sizeof podtext);
	len = (size_t)snprintf(buf, size, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", podtext);
	for (n = 0; n < NODES; n++)
		len += (size_t)snprintf(buf + len, size - len, "%s\"%s\"", n ? "," : "", node_name(n));
	snprintf(buf + len, size - len, "]}");
}

/* One scheduling cycle for pod p; true when it was bound. */
static bool schedule(struct cluster *c, struct http_client *h, struct pod *p, bool bind_verb)
{
	char body[4096];
	struct json_object *fr, *names = NULL, *failed = NULL, *pr;
	int best = -1, n;
	int64_t best_score = -1;
	size_t i;

	request_body(p, body, sizeof body);
	fr = serve_cluster_post(&c->s, h, "filter", body);
	assert_non_null(fr);
	json_object_object_get_ex(fr, "NodeNames", &names);
	json_object_object_get_ex(fr, "FailedNodes", &failed);
	assert_string_equal(json_object_get_string(json_object_object_get(fr, "Error")), "");
	if (json_object_array_length(names) == 0) {
		/* Every node turned away, each with a NUMA reason. */
		p->rejected_numa = json_object_object_length(failed) == NODES;
		json_object_object_foreach(failed, key, reason) {
			(void)key;
			if (strncmp(json_object_get_string(reason), "NUMA: ", 6) != 0)
				p->rejected_numa = false;
		}
		json_object_put(fr);
		return false;
	}
	/* Prioritize the nodes that passed. */
	{
		size_t len = 0;
		char podtext[2048], pbody[4096];

		pod_json(p, NULL, podtext, sizeof podtext);
		len = (size_t)snprintf(pbody, sizeof pbody, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", podtext);
		for (i = 0; i < json_object_array_length(names); i++)
			len += (size_t)snprintf(pbody + len, sizeof pbody - len, "%s\"%s\"", i ? "," : "",
						json_object_get_string(json_object_array_get_idx(names, i)));
		snprintf(pbody + len, sizeof pbody - len, "]}");
		pr = serve_cluster_post(&c->s, h, "prioritize", pbody);
		assert_non_null(pr);
	}
	for (i = 0; i < json_object_array_length(pr); i++) {
		struct json_object *e = json_object_array_get_idx(pr, i);
		const char *host = json_object_get_string(json_object_object_get(e, "Host"));
		int64_t score = json_object_get_int64(json_object_object_get(e, "Score"));

		for (n = 0; n < NODES; n++)
			if (strcmp(host, node_name(n)) == 0 && score > best_score) {
				best = n;
				best_score = score;
			}
	}
	json_object_put(pr);
	json_object_put(fr);
	assert_true(best >= 0);
	if (bind_verb) {
		struct json_object *br;

		snprintf(body, sizeof body,
			 "{\"PodName\":\"%s\",\"PodNamespace\":\"burst\",\"PodUID\":\"%s\",\"Node\":\"%s\"}", p->name,
			 p->uid, node_name(best));
		br = serve_cluster_post(&c->s, h, "bind", body);
		assert_non_null(br);
		assert_string_equal(json_object_get_string(json_object_object_get(br, "Error")), "");
		json_object_put(br);
	} else {
		/* kube-scheduler's DefaultBinder, straight to the API server. */
		struct http_client *api = http_client_new(NULL, NULL, NULL);
		struct http_response r;
		char url[256];

		http_client_set_bearer(api, TOKEN);
		snprintf(url, sizeof url, "http://127.0.0.1:%d/api/v1/namespaces/burst/pods/%s/binding",
			 fake_apiserver_port(c->s.api), p->name);
		snprintf(body, sizeof body,
			 "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"burst\"},"
			 "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\"}}",
			 p->name, node_name(best));
		http_request(api, "POST", url, body, strlen(body), false, &r);
		assert_int_equal(r.status, 201);
		http_response_cleanup(&r);
		http_client_free(api);
		wait_ledger_has(c, best, p->uid);
	}
	p->node = best;
	p->rejected_numa = false;
	kubelet_admit(c, best, p);
	return true;
}

/* An empty cluster: the fake API server, every zone free (16 CPUs, 4 GPUs,
 * 64Gi) or, with full, only memory left. */
static void cluster_start(struct cluster *c, bool full)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	int n, z;

	memset(c, 0, sizeof *c);
	c->s.api = fake_apiserver_start(&o);
	assert_non_null(c->s.api);
	for (n = 0; n < NODES; n++)
		for (z = 0; z < NUMA; z++) {
			c->cpu[n][z] = full ? 0 : 16;
			c->gpu[n][z] = full ? 0 : 4;
			c->mem[n][z] = (int64_t)64 << 30;
		}
	for (n = 0; n < PODS; n++)
		c->pods[n].node = -1;
}

/* count pending pods named prefix-NN in the API, their UIDs noted. */
static void create_pods(struct cluster *c, int count, const char *prefix)
{
	int i;

	for (i = 0; i < count; i++) {
		char text[2048], *stored;
		struct json_object *so;

		snprintf(c->pods[i].name, sizeof c->pods[i].name, "%s-%02d", prefix, i);
		pod_json(&c->pods[i], NULL, text, sizeof text);
		fake_apiserver_pod_put(c->s.api, "burst", c->pods[i].name, text);
		stored = fake_apiserver_pod_get(c->s.api, "burst", c->pods[i].name);
		so = json_tokener_parse(stored);
		snprintf(c->pods[i].uid, sizeof c->pods[i].uid, "%s",
			 json_object_get_string(json_object_object_get(json_object_object_get(so, "metadata"), "uid")));
		json_object_put(so);
		free(stored);
	}
}

/* The extender dies (SIGKILL, as a crashed or evicted sidecar) and comes
 * back with nothing but what the API server tells it. */
static void restart_extender(struct cluster *c)
{
	assert_int_equal(kill(c->s.pid, SIGKILL), 0);
	assert_int_equal(waitpid(c->s.pid, NULL, 0), c->s.pid);
	child = -1;
	start_extender(c);
}

/* The burst; with restarts, the extender is killed after the 13th and the
 * 26th pod of the first round and started again. */
static void run_burst(const char *mode, bool bind_verb, bool restarts)
{
	struct cluster c;
	struct http_client *h;
	int i, n, z, placed = 0, first_round = 0, round, restarted = 0;
	char *body = NULL;

	cluster_start(&c, false);
	create_pods(&c, PODS, "burst");
	agent_publish(&c);
	write_files(&c, mode, bind_verb);
	start_extender(&c);
	h = http_client_new(NULL, NULL, NULL);
	/* The burst, then retries after each agent update until nothing moves. */
	for (round = 0; round < 6; round++) {
		int progress = 0;

		for (i = 0; i < PODS; i++) {
			if (c.pods[i].node < 0 && schedule(&c, h, &c.pods[i], bind_verb))
				progress++;
			if (restarts && round == 0 && (i == 12 || i == 25)) {
				restart_extender(&c);
				restarted++;
			}
		}
		placed += progress;
		if (round == 0)
			first_round = progress;
		/* The agent catches up; the ledger must empty. */
		agent_publish(&c);
		{
			double t0;

			for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 10; usleep(10 * 1000))
				if (serve_cluster_metric(&c.s, "numa_extender_ledger_assumed_pods ") == 0)
					break;
			assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_assumed_pods "), 0);
		}
		if (progress == 0)
			break;
	}
	print_message("%s, %s%s: %d placed in the burst, %d in all\n", mode, bind_verb ? "bind verb" : "watch",
		      restarts ? ", two restarts" : "", first_round, placed);
	assert_int_equal(c.admission_errors, 0);
	assert_int_equal(placed, FIT);
	if (strcmp(mode, "predicted") == 0)
		assert_int_equal(first_round, FIT); /* it knows which zone each pod took */
	for (i = 0; i < PODS; i++)
		if (c.pods[i].node < 0)
			assert_true(c.pods[i].rejected_numa);
	for (n = 0; n < NODES; n++)
		for (z = 0; z < NUMA; z++) {
			assert_true(c.cpu[n][z] >= 0);
			assert_true(c.gpu[n][z] >= 0);
		}
	/* Flushed by fingerprint, never by age. */
	assert_true(serve_cluster_metric(&c.s, "numa_extender_ledger_flushes_total{cause=\"fingerprint\"} ") >= FIT);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_flushes_total{cause=\"ttl\"} "), 0);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_pods "), FIT);
	if (bind_verb && !restarts)
		assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_binds_total{result=\"ok\"} "), FIT);
	assert_int_equal(serve_cluster_get(&c.s, "/ledger", &body), 200);
	assert_non_null(strstr(body, "\"assumed\":0"));
	assert_null(strstr(body, "\"assumed\":1"));
	free(body);
	http_client_free(h);
	stop_extender(&c);
	replay_is_identical(&c, 1 + restarted);
	fake_apiserver_stop(c.s.api);
}

/* Polls a metric until it reads want; fails after 10 s. */
static void wait_metric(struct cluster *c, const char *name, int64_t want)
{
	double t0;

	for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 10; usleep(10 * 1000))
		if (serve_cluster_metric(&c->s, name) == want)
			return;
	fail_msg("%s stayed %lld, want %lld", name, (long long)serve_cluster_metric(&c->s, name), (long long)want);
}

/* The pod watch as the API server drives it: a pod created bound, one
 * turning terminal (the selector drops it: DELETED), a relist after the
 * watch expired; a departed assumption is held until the NRT shows it. */
static void pods_watch_follows_the_api(void **state)
{
	struct cluster c;
	char text[2048], fp[PODFINGERPRINT_LEN + 1];
	int n;

	(void)state;
	cluster_start(&c, false);
	for (n = 0; n < 2; n++)
		snprintf(c.pods[n].name, sizeof c.pods[n].name, "w-%d", n);
	agent_publish(&c);
	write_files(&c, "predicted", false);
	start_extender(&c);
	/* Created already bound (a DaemonSet pod, say): assumed at once. */
	pod_json(&c.pods[0], node_name(0), text, sizeof text);
	fake_apiserver_pod_put(c.s.api, "burst", "w-0", text);
	wait_metric(&c, "numa_extender_ledger_assumed_pods ", 1);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_pods "), 1);
	/* A pending pod is not the ledger's business. */
	pod_json(&c.pods[1], NULL, text, sizeof text);
	fake_apiserver_pod_put(c.s.api, "burst", "w-1", text);
	/* It finishes: the selector no longer matches, the watch says
	 * DELETED; its resources stay taken until the NRT shows them. */
	pod_json(&c.pods[0], node_name(0), text, sizeof text);
	{
		char *done = strstr(text, "\"Pending\"");

		assert_non_null(done);
		memmove(done + 11, done + 9, strlen(done + 9) + 1);
		memcpy(done, "\"Succeeded\"", 11);
	}
	fake_apiserver_pod_put(c.s.api, "burst", "w-0", text);
	wait_metric(&c, "numa_extender_ledger_pods ", 0);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_assumed_pods "), 1);
	/* The watch expires: relist; the ledger agrees with the API. */
	fake_apiserver_expire_history(c.s.api);
	fake_apiserver_send_error_event_410(c.s.api);
	pod_json(&c.pods[1], node_name(1), text, sizeof text);
	fake_apiserver_pod_put(c.s.api, "burst", "w-1", text);
	wait_metric(&c, "numa_extender_ledger_pods ", 1);
	/* The agent publishes node 0 with no pods: the departed assumption
	 * goes; w-1 on node 1 stays assumed (its NRT has not moved). */
	podfingerprint(NULL, 0, fp);
	nrt_text(&c, 0, fp, text, sizeof text);
	fake_apiserver_put(c.s.api, node_name(0), text);
	wait_metric(&c, "numa_extender_ledger_assumed_pods ", 1);
	assert_true(serve_cluster_metric(&c.s, "numa_extender_ledger_flushes_total{cause=\"fingerprint\"} ") >= 1);
	stop_extender(&c);
	unlink(c.s.decisions);
	fake_apiserver_stop(c.s.api);
}

/* kube-scheduler filters the next pod before the previous pod's bind
 * arrives: two pods pass filter on the same room for one; the second bind is
 * refused with the reason (the scheduler then retries it), not bound. */
static void bind_refuses_a_pod_that_no_longer_fits(void **state)
{
	struct http_client *h;
	struct cluster c;
	struct json_object *r;
	char body[4096], *stored;
	int i;

	(void)state;
	cluster_start(&c, true);
	c.cpu[0][0] = 4;
	c.gpu[0][0] = 1;
	create_pods(&c, 2, "late");
	agent_publish(&c);
	write_files(&c, "predicted", true);
	start_extender(&c);
	h = http_client_new(NULL, NULL, NULL);
	/* Both filters before either bind: both see node gpu-a's last room. */
	for (i = 0; i < 2; i++) {
		struct json_object *names = NULL;

		request_body(&c.pods[i], body, sizeof body);
		r = serve_cluster_post(&c.s, h, "filter", body);
		assert_non_null(r);
		json_object_object_get_ex(r, "NodeNames", &names);
		assert_int_equal(json_object_array_length(names), 1);
		assert_string_equal(json_object_get_string(json_object_array_get_idx(names, 0)), "gpu-a");
		json_object_put(r);
	}
	for (i = 0; i < 2; i++) {
		snprintf(body, sizeof body,
			 "{\"PodName\":\"%s\",\"PodNamespace\":\"burst\",\"PodUID\":\"%s\",\"Node\":\"gpu-a\"}",
			 c.pods[i].name, c.pods[i].uid);
		r = serve_cluster_post(&c.s, h, "bind", body);
		assert_non_null(r);
		if (i == 0)
			assert_string_equal(json_object_get_string(json_object_object_get(r, "Error")), "");
		else
			assert_non_null(strstr(json_object_get_string(json_object_object_get(r, "Error")),
					       "no longer fits pod burst/late-01 after pods assumed since its filter: NUMA: "));
		json_object_put(r);
	}
	stored = fake_apiserver_pod_get(c.s.api, "burst", "late-01");
	assert_null(strstr(stored, "nodeName"));
	free(stored);
	stored = fake_apiserver_pod_get(c.s.api, "burst", "late-00");
	assert_non_null(strstr(stored, "\"nodeName\":\"gpu-a\""));
	free(stored);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_binds_total{result=\"error\"} "), 1);
	assert_int_equal(serve_cluster_metric(&c.s, "numa_extender_ledger_assumed_pods "), 1);
	http_client_free(h);
	stop_extender(&c);
	unlink(c.s.decisions);
	fake_apiserver_stop(c.s.api);
}

static void burst_predicted_bind_verb(void **state)
{
	(void)state;
	run_burst("predicted", true, false);
}

static void burst_predicted_watch(void **state)
{
	(void)state;
	run_burst("predicted", false, false);
}

static void burst_pessimistic_bind_verb(void **state)
{
	(void)state;
	run_burst("pessimistic", true, false);
}

static void burst_pessimistic_watch(void **state)
{
	(void)state;
	run_burst("pessimistic", false, false);
}

/* A restart at any point of a burst over-commits nothing: the pods bound
 * seconds before it are listed before their nodes' NRTs arrive and are
 * assumed when they do (the NRTs still predate them). */
static void burst_survives_restarts_bind_verb(void **state)
{
	(void)state;
	run_burst("predicted", true, true);
}

static void burst_survives_restarts_watch(void **state)
{
	(void)state;
	run_burst("predicted", false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(burst_predicted_bind_verb, kill_child),
		cmocka_unit_test_teardown(burst_predicted_watch, kill_child),
		cmocka_unit_test_teardown(burst_pessimistic_bind_verb, kill_child),
		cmocka_unit_test_teardown(burst_pessimistic_watch, kill_child),
		cmocka_unit_test_teardown(burst_survives_restarts_bind_verb, kill_child),
		cmocka_unit_test_teardown(burst_survives_restarts_watch, kill_child),
		cmocka_unit_test_teardown(pods_watch_follows_the_api, kill_child),
		cmocka_unit_test_teardown(bind_refuses_a_pod_that_no_longer_fits, kill_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
