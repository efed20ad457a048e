/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP benchmarks' shared cluster, pod, requests and client
 * (bench_cluster.h). */
#include "tests/support/bench_cluster.h"

#include <json-c/json.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "tests/support/bench_machine.h"
#include "topology/nrt.h"

static const char *bench_name = "bench";

void bench_init(const char *name)
{
	bench_name = name;
	bench_rnd_seed(BENCH_SEED);
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", bench_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		bench_die("clock_gettime(CLOCK_MONOTONIC) failed");
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_print_header(const char *argv0)
{
	bench_print_machine(argv0);
	printf("libraries: json-c %s, libmicrohttpd %s, libcurl %s\n", json_c_version(),
	       MHD_get_version(), curl_version_info(CURLVERSION_NOW)->version);
}

static uint64_t rng_state = BENCH_SEED;

void bench_rnd_seed(uint64_t seed)
{
	rng_state = seed;
}

uint64_t bench_rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

int64_t bench_rnd_below(int64_t k)
{
	return (int64_t)(bench_rnd() % (uint64_t)k);
}

void bench_buf_put(struct bench_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void bench_buf_str(struct bench_buf *b, const char *s)
{
	bench_buf_put(b, s, strlen(s));
}

/* ======================================================================
 * The cluster.
 * ====================================================================== */

static void attr_set(struct nrt_attribute *a, const char *name, const char *value)
{
	a->name = xstrdup(name);
	a->value = xstrdup(value);
}

static void res_set(struct nrt_resource *r, const char *name, int64_t capacity,
		    int64_t allocatable, int64_t available)
{
	r->name = xstrdup(name);
	r->capacity = capacity;
	r->allocatable = allocatable;
	r->available = available;
}

void bench_node_name(size_t id, char *buf, size_t size)
{
	snprintf(buf, size, "worker-%05zu", id);
}

size_t bench_node_id(const char *name, size_t nodes)
{
	size_t id = 0;
	int i;

	if (strncmp(name, "worker-", 7) != 0 || strlen(name) != 12)
		return SIZE_MAX;
	for (i = 7; i < 12; i++) {
		if (name[i] < '0' || name[i] > '9')
			return SIZE_MAX;
		id = id * 10 + (size_t)(name[i] - '0');
	}
	return id < nodes ? id : SIZE_MAX;
}

const char *bench_policy_of(size_t id)
{
	size_t k = (id * 7) % 10;

	return k < 7 ? "single-numa-node" : k < 9 ? "restricted" : "best-effort";
}

struct inventory_node *bench_node_build(size_t id)
{
	struct nrt_object obj;
	struct inventory_node *node = NULL;
	bool hugepages = bench_rnd_below(3) == 0;
	struct errmsg msg;
	char name[32];
	enum err rc;
	int i, j;

	memset(&obj, 0, sizeof obj);
	bench_node_name(id, name, sizeof name);
	obj.name = xstrdup(name);
	obj.api_version = xstrdup("topology.node.k8s.io/v1alpha2");
	snprintf(name, sizeof name, "%zu", 1000000 + id);
	obj.resource_version = xstrdup(name);
	obj.nattributes = 2;
	obj.attributes = xcalloc(obj.nattributes, sizeof *obj.attributes);
	attr_set(&obj.attributes[0], "topologyManagerPolicy", bench_policy_of(id));
	attr_set(&obj.attributes[1], "topologyManagerScope", "container");
	obj.nzones = BENCH_NUMA;
	obj.zones = xcalloc(obj.nzones, sizeof *obj.zones);
	for (i = 0; i < BENCH_NUMA; i++) {
		struct nrt_zone *z = &obj.zones[i];
		int64_t gpu = bench_rnd_below(3), dsa = bench_rnd_below(5);
		int64_t mem_alloc = (i == 0 ? 62 : 64) * BENCH_GIB;
		size_t k = 0;

		snprintf(name, sizeof name, "node-%d", i);
		z->name = xstrdup(name);
		z->type = xstrdup("Node");
		z->resources = xcalloc(5, sizeof *z->resources);
		res_set(&z->resources[k++], "cpu", 16, 16, bench_rnd_below(17));
		res_set(&z->resources[k++], "memory", 64 * BENCH_GIB, mem_alloc,
			mem_alloc - bench_rnd_below(49) * BENCH_GIB);
		if (hugepages)
			res_set(&z->resources[k++], "hugepages-1Gi", 8 * BENCH_GIB, 8 * BENCH_GIB,
				bench_rnd_below(9) * BENCH_GIB);
		if (gpu > 0)
			res_set(&z->resources[k++], "nvidia.com/gpu", gpu, gpu,
				gpu - bench_rnd_below(gpu + 1));
		if (dsa > 0)
			res_set(&z->resources[k++], "dsa.intel.com/wq-user-shared", dsa, dsa,
				dsa - bench_rnd_below(dsa + 1));
		z->nresources = k;
		z->ncosts = BENCH_NUMA;
		z->costs = xcalloc(z->ncosts, sizeof *z->costs);
		for (j = 0; j < BENCH_NUMA; j++) {
			snprintf(name, sizeof name, "node-%d", j);
			z->costs[j].name = xstrdup(name);
			z->costs[j].value = i == j ? 10 : i / 4 == j / 4 ? 12 : 32;
		}
	}
	rc = inventory_node_new(&obj, &node, &msg);
	nrt_object_cleanup(&obj);
	if (rc != ERR_OK || node == NULL)
		bench_die("inventory_node_new(worker-%05zu): %s: %s", id, err_name(rc), msg.text);
	if (node->config_error[0])
		bench_die("%s: kubelet config error: %s", node->name, node->config_error);
	return node;
}

void bench_cluster_publish(struct store *st, size_t nodes)
{
	struct store_batch *b = store_batch_new();
	uint64_t t0 = bench_now_ns(), t1;
	size_t id;

	for (id = 0; id < nodes; id++) {
		struct inventory_node *node = bench_node_build(id);
		char version[32];

		snprintf(version, sizeof version, "%zu", 1000000 + id);
		store_batch_put(b, node, "bench", version);
	}
	t1 = bench_now_ns();
	store_publish(st, b);
	store_set_ready(st, true);
	printf("cluster: %zu nodes x %d NUMA (70%% single-numa-node, 20%% restricted, 10%% "
	       "best-effort; container scope), built in %.0f ms, published in %.1f ms\n",
	       nodes, BENCH_NUMA, (double)(t1 - t0) / 1e6, (double)(bench_now_ns() - t1) / 1e6);
}

/* ======================================================================
 * Requests.
 * ====================================================================== */

const char bench_pod_json[] =
	"{\"metadata\":{\"name\":\"infer-llm-7c9d5b8f6-x2vkq\",\"generateName\":\"infer-llm-7c9d5b8f6-\","
	"\"namespace\":\"ml-serving\",\"uid\":\"6b1f0c3e-2a7d-4e59-9c1b-8f3d2e7a4c10\","
	"\"resourceVersion\":\"48211937\",\"creationTimestamp\":\"2025-03-14T09:21:07Z\","
	"\"labels\":{\"app.kubernetes.io/name\":\"infer-llm\",\"app.kubernetes.io/component\":\"server\","
	"\"pod-template-hash\":\"7c9d5b8f6\"},\"annotations\":{\"kubectl.kubernetes.io/default-container\":"
	"\"server\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":"
	"\"infer-llm-7c9d5b8f6\",\"uid\":\"0d4b6a52-91c3-4f0e-8a77-3c2e5b1d9f04\",\"controller\":true,"
	"\"blockOwnerDeletion\":true}]},\"spec\":{\"volumes\":[{\"name\":\"model-cache\",\"emptyDir\":"
	"{\"medium\":\"Memory\",\"sizeLimit\":\"4Gi\"}},{\"name\":\"kube-api-access-q7zlm\",\"projected\":"
	"{\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}},"
	"{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},"
	"{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\",\"fieldRef\":{\"apiVersion\":\"v1\","
	"\"fieldPath\":\"metadata.namespace\"}}]}}],\"defaultMode\":420}}],\"containers\":[{\"name\":"
	"\"server\",\"image\":\"registry.example.internal/ml/infer-llm:2.4.1\",\"args\":[\"--port=8080\","
	"\"--dsa-offload=memmove\"],\"ports\":[{\"name\":\"http\",\"containerPort\":8080,\"protocol\":"
	"\"TCP\"}],\"resources\":{\"limits\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"nvidia.com/gpu\":\"1\","
	"\"dsa.intel.com/wq-user-shared\":\"1\"},\"requests\":{\"cpu\":\"8\",\"memory\":\"32Gi\","
	"\"nvidia.com/gpu\":\"1\",\"dsa.intel.com/wq-user-shared\":\"1\"}},\"volumeMounts\":[{\"name\":"
	"\"model-cache\",\"mountPath\":\"/models\"},{\"name\":\"kube-api-access-q7zlm\",\"readOnly\":true,"
	"\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}],\"terminationMessagePath\":"
	"\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":"
	"\"IfNotPresent\"},{\"name\":\"metrics\",\"image\":"
	"\"registry.example.internal/obs/gpu-metrics-sidecar:0.9.3\",\"resources\":{\"limits\":{\"cpu\":"
	"\"1\",\"memory\":\"512Mi\"},\"requests\":{\"cpu\":\"1\",\"memory\":\"512Mi\"}},\"volumeMounts\":"
	"[{\"name\":\"kube-api-access-q7zlm\",\"readOnly\":true,\"mountPath\":"
	"\"/var/run/secrets/kubernetes.io/serviceaccount\"}],\"terminationMessagePath\":"
	"\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":"
	"\"IfNotPresent\"}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,"
	"\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"infer-llm\",\"serviceAccount\":"
	"\"infer-llm\",\"securityContext\":{},\"affinity\":{\"nodeAffinity\":"
	"{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{"
	"\"matchExpressions\":[{\"key\":\"nvidia.com/gpu.present\",\"operator\":\"In\",\"values\":"
	"[\"true\"]}]}]}}},\"schedulerName\":\"default-scheduler\",\"tolerations\":[{\"key\":"
	"\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
	"\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
	"\"effect\":\"NoExecute\",\"tolerationSeconds\":300},{\"key\":\"nvidia.com/gpu\",\"operator\":"
	"\"Exists\",\"effect\":\"NoSchedule\"}],\"priorityClassName\":\"ml-serving-high\",\"priority\":"
	"100000,\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":"
	"{\"phase\":\"Pending\",\"qosClass\":\"Guaranteed\"}}";

const size_t bench_pod_len = sizeof bench_pod_json - 1;

size_t *bench_candidates(size_t nodes, size_t n, bool shuffle_all)
{
	size_t *ids = xcalloc(nodes + 1, sizeof *ids);
	size_t i;

	for (i = 0; i < nodes; i++)
		ids[i] = i;
	/* Fisher-Yates: the first n of a random permutation (all of it when
	 * n == nodes). */
	if (nodes > 0 && (shuffle_all || n < nodes)) {
		for (i = nodes - 1; i > 0; i--) {
			size_t j = (size_t)bench_rnd_below((int64_t)i + 1), t = ids[i];

			ids[i] = ids[j];
			ids[j] = t;
		}
	}
	return ids;
}

void bench_args_body(const char *pod, size_t pod_len, const size_t *ids, size_t n,
		     struct bench_buf *out)
{
	char name[32];
	size_t i;

	out->len = 0;
	bench_buf_str(out, "{\"Pod\":");
	bench_buf_put(out, pod, pod_len);
	bench_buf_str(out, ",\"Nodes\":null,\"NodeNames\":[");
	for (i = 0; i < n; i++) {
		if (i)
			bench_buf_put(out, ",", 1);
		bench_node_name(ids[i], name, sizeof name);
		bench_buf_put(out, "\"", 1);
		bench_buf_str(out, name);
		bench_buf_put(out, "\"", 1);
	}
	bench_buf_str(out, "]}");
}

/* ======================================================================
 * The client.
 * ====================================================================== */

static size_t on_write(char *data, size_t size, size_t n, void *arg)
{
	bench_buf_put(arg, data, size * n);
	return size * n;
}

void bench_client_init(struct bench_client *c, int port)
{
	memset(c, 0, sizeof *c);
	c->curl = curl_easy_init();
	if (c->curl == NULL)
		bench_die("curl_easy_init failed");
	snprintf(c->filter_url, sizeof c->filter_url, "http://127.0.0.1:%d/filter", port);
	snprintf(c->prio_url, sizeof c->prio_url, "http://127.0.0.1:%d/prioritize", port);
	snprintf(c->metrics_url, sizeof c->metrics_url, "http://127.0.0.1:%d/metrics", port);
	/* As kube-scheduler's client: POST, application/json, no Expect. */
	c->headers = curl_slist_append(c->headers, "Content-Type: application/json");
	c->headers = curl_slist_append(c->headers, "Expect:");
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c->curl, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->reply);
	c->reply.cap = 1 << 16;
	c->reply.p = xmalloc(c->reply.cap);
}

void bench_client_cleanup(struct bench_client *c)
{
	curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->reply.p);
	memset(c, 0, sizeof *c);
}

uint64_t bench_client_post(struct bench_client *c, bool filter, const char *body, size_t len)
{
	long status = 0, connects = 0;
	uint64_t t0, t1;
	CURLcode rc;

	c->reply.len = 0;
	c->reply.p[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, filter ? c->filter_url : c->prio_url);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	t0 = bench_now_ns();
	rc = curl_easy_perform(c->curl);
	t1 = bench_now_ns();
	if (rc != CURLE_OK)
		bench_die("POST %s: %s", filter ? "/filter" : "/prioritize", curl_easy_strerror(rc));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
	if (status != 200)
		bench_die("POST %s: HTTP %ld: %.200s", filter ? "/filter" : "/prioritize", status,
			  c->reply.p);
	c->connects += connects;
	c->requests++;
	return t1 - t0;
}

void bench_server_time(struct bench_client *c, const char *verb, double *sum_s, double *count)
{
	char key[128];
	const char *p;
	long status = 0, connects = 0;
	CURLcode rc;

	c->reply.len = 0;
	c->reply.p[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c->curl, CURLOPT_URL, c->metrics_url);
	rc = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	if (rc != CURLE_OK)
		bench_die("GET /metrics: %s", curl_easy_strerror(rc));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
	if (status != 200)
		bench_die("GET /metrics: HTTP %ld", status);
	c->connects += connects;
	c->requests++;
	snprintf(key, sizeof key, "numa_extender_request_duration_seconds_sum{verb=\"%s\"} ", verb);
	p = strstr(c->reply.p, key);
	if (p == NULL)
		bench_die("GET /metrics: no %s", key);
	*sum_s = strtod(p + strlen(key), NULL);
	snprintf(key, sizeof key, "numa_extender_request_duration_seconds_count{verb=\"%s\"} ",
		 verb);
	p = strstr(c->reply.p, key);
	if (p == NULL)
		bench_die("GET /metrics: no %s", key);
	*count = strtod(p + strlen(key), NULL);
}

int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double bench_pct_us(const uint64_t *sorted_ns, size_t n, double p)
{
	size_t rank = (size_t)((double)n * p + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted_ns[rank - 1] / 1e3;
}

bool bench_target_set(struct bench_target *t, const char *what, bool lower_is_better,
		      double limit, double got, const char *unit)
{
	t->ok = lower_is_better ? got <= limit : got >= limit;
	snprintf(t->what, sizeof t->what, "%s", what);
	snprintf(t->goal, sizeof t->goal, "%s %g%s", lower_is_better ? "<=" : ">=", limit, unit);
	if (t->ok)
		snprintf(t->got, sizeof t->got, "%.3g%s", got, unit);
	else if (lower_is_better)
		snprintf(t->got, sizeof t->got, "%.3g%s (%.1fx over)", got, unit, got / limit);
	else
		snprintf(t->got, sizeof t->got, "%.3g%s (%.0f%% short)", got, unit,
			 100.0 * (limit - got) / limit);
	return t->ok;
}
