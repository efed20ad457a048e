/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of the extender's HTTP verbs (not a test; exits 0 whatever the
 * numbers, 1 only when a reply is wrong or the setup fails):
 *  1. client-side latency of POST /filter and /prioritize against the real
 *     server (server_start on 127.0.0.1:0, default settings: LeastAllocated)
 *     over ONE keep-alive libcurl connection, at 500 and 5000 candidate names
 *     (node-names mode) out of 5000 published 8-NUMA inventories;
 *  2. filter+prioritize pairs as kube-scheduler sends them (filter, then
 *     prioritize with the surviving names), sequential on the same connection;
 *  3. the baselines on the same request bytes, in process, interleaved with
 *     the requests of part 1 (each request is followed by one run of each):
 *     json-c alone (parse the body with a fresh depth-64 tokener, build and
 *     serialise the same reply with json-c objects), the handler alone
 *     (handle_filter / handle_prioritize without HTTP), and the handler's
 *     three stages (decode, judge, encode); then judge_node per node by
 *     kubelet policy and outcome.
 * Every reply is checked: HTTP 200, valid JSON, every candidate in exactly one
 * bucket (filter) or scored exactly once (prioritize), and byte-identical to
 * the first reply, to the handler's own output and to the encoder's.
 *
 * Modes: (none) the full run, under a minute; --quick tiny counts on a small
 * cluster (for valgrind or sanitizers); --threads N (1..64, default 2, the
 * config default) server threads; --profile-filter [COUNT] exactly COUNT
 * (default 200) in-process handle_filter calls at 500 names and nothing else:
 *   valgrind --tool=callgrind --toggle-collect=handle_filter ./bench_server --profile-filter
 *   perf record -g ./bench_server --profile-filter 20000
 */
#include <curl/curl.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/http/handlers.h"
#include "extender/log.h"
#include "extender/http/server.h"
#include "extender/decide/settings.h"
#include "extender/inventory/store.h"
#include "extender/codec/wire.h"
#include "tests/support/bench_machine.h"
#include "topology/alloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/nrt.h"
#include "topology/score.h"

/* --- run parameters, clock, random numbers, failures --- */

/* A cell runs at least min_* operations and at least *_ns of wall time
 * (checks included), at most max_ops operations. HTTP cells: [0] at the small
 * request, [1] at every node. */
struct run_cfg {
	size_t nodes;          /* inventories published */
	size_t small;          /* candidates in the small request */
	size_t min_http[2];
	uint64_t http_ns[2];
	size_t min_group;      /* judge_node by policy and outcome */
	uint64_t group_ns;
	size_t max_ops;
	size_t warmup;         /* untimed operations before each cell */
	int threads;           /* server threads */
};

static struct run_cfg cfg = {
	.nodes = 5000,
	.small = 500,
	.min_http = { 200, 60 },
	.http_ns = { 2000000000u, 4500000000u },
	.min_group = 20,
	.group_ns = 100000000u,
	.max_ops = 200000,
	.warmup = 5,
	.threads = 2,
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench_server: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		die("clock_gettime(CLOCK_MONOTONIC) failed");
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so every run sees the same cluster. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

static int64_t rnd_below(int64_t k)
{
	return (int64_t)(rnd() % (uint64_t)k);
}

static volatile uint64_t sink; /* keeps results observable */

static void print_header(const char *argv0)
{
	bench_print_machine(argv0);
	printf("libraries: json-c %s, libmicrohttpd %s, libcurl %s\n", json_c_version(),
	       MHD_get_version(), curl_version_info(CURLVERSION_NOW)->version);
}

/* --- a growable byte buffer --- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/* ======================================================================
 * The cluster: 5000 inventories of 8 NUMA nodes in one store.
 * ====================================================================== */

#define GIB ((int64_t)1 << 30)
#define NUMA 8

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

static void node_name(size_t id, char *buf, size_t size)
{
	snprintf(buf, size, "worker-%05zu", id);
}

/* Node id from "worker-NNNNN", or SIZE_MAX. */
static size_t node_id(const char *name)
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
	return id < cfg.nodes ? id : SIZE_MAX;
}

static const char *policy_of(size_t id)
{
	/* Exactly 70 / 20 / 10 % over every ten consecutive nodes. */
	size_t k = (id * 7) % 10;

	return k < 7 ? "single-numa-node" : k < 9 ? "restricted" : "best-effort";
}

/* Two sockets of four NUMA nodes each; per NUMA node: cpu 16 (0..16 free),
 * memory 64Gi (62Gi allocatable on NUMA 0; 0..48Gi in use), on a third of the
 * nodes hugepages-1Gi 8Gi (0..8Gi free); nvidia.com/gpu 0..2 and
 * dsa.intel.com/wq-user-shared 0..4 per NUMA node (listed only where
 * present), partly in use. */
static struct inventory_node *node_build(size_t id)
{
	struct nrt_object obj;
	struct inventory_node *node = NULL;
	bool hugepages = rnd_below(3) == 0;
	struct errmsg msg;
	char name[32];
	enum err rc;
	int i, j;

	memset(&obj, 0, sizeof obj);
	node_name(id, name, sizeof name);
	obj.name = xstrdup(name);
	obj.api_version = xstrdup("topology.node.k8s.io/v1alpha2");
	snprintf(name, sizeof name, "%zu", 1000000 + id);
	obj.resource_version = xstrdup(name);
	obj.nattributes = 2;
	obj.attributes = xcalloc(obj.nattributes, sizeof *obj.attributes);
	attr_set(&obj.attributes[0], "topologyManagerPolicy", policy_of(id));
	attr_set(&obj.attributes[1], "topologyManagerScope", "container");
	obj.nzones = NUMA;
	obj.zones = xcalloc(obj.nzones, sizeof *obj.zones);
	for (i = 0; i < NUMA; i++) {
		struct nrt_zone *z = &obj.zones[i];
		int64_t gpu = rnd_below(3), dsa = rnd_below(5);
		int64_t mem_alloc = (i == 0 ? 62 : 64) * GIB;
		size_t k = 0;

		snprintf(name, sizeof name, "node-%d", i);
		z->name = xstrdup(name);
		z->type = xstrdup("Node");
		z->resources = xcalloc(5, sizeof *z->resources);
		res_set(&z->resources[k++], "cpu", 16, 16, rnd_below(17));
		res_set(&z->resources[k++], "memory", 64 * GIB, mem_alloc,
			mem_alloc - rnd_below(49) * GIB);
		if (hugepages)
			res_set(&z->resources[k++], "hugepages-1Gi", 8 * GIB, 8 * GIB,
				rnd_below(9) * GIB);
		if (gpu > 0)
			res_set(&z->resources[k++], "nvidia.com/gpu", gpu, gpu,
				gpu - rnd_below(gpu + 1));
		if (dsa > 0)
			res_set(&z->resources[k++], "dsa.intel.com/wq-user-shared", dsa, dsa,
				dsa - rnd_below(dsa + 1));
		z->nresources = k;
		z->ncosts = NUMA;
		z->costs = xcalloc(z->ncosts, sizeof *z->costs);
		for (j = 0; j < NUMA; j++) {
			snprintf(name, sizeof name, "node-%d", j);
			z->costs[j].name = xstrdup(name);
			z->costs[j].value = i == j ? 10 : i / 4 == j / 4 ? 12 : 32;
		}
	}
	rc = inventory_node_new(&obj, &node, &msg);
	nrt_object_cleanup(&obj);
	if (rc != ERR_OK || node == NULL)
		die("inventory_node_new(worker-%05zu): %s: %s", id, err_name(rc), msg.text);
	if (node->config_error[0])
		die("%s: kubelet config error: %s", node->name, node->config_error);
	return node;
}

static void cluster_publish(struct store *st)
{
	struct store_batch *b = store_batch_new();
	uint64_t t0 = now_ns(), t1;
	size_t id;

	for (id = 0; id < cfg.nodes; id++) {
		struct inventory_node *node = node_build(id);
		char version[32];

		snprintf(version, sizeof version, "%zu", 1000000 + id);
		store_batch_put(b, node, "bench", version);
	}
	t1 = now_ns();
	store_publish(st, b);
	store_set_ready(st, true);
	printf("cluster: %zu nodes x %d NUMA (70%% single-numa-node, 20%% restricted, 10%% "
	       "best-effort; container scope), built in %.0f ms, published in %.1f ms\n",
	       cfg.nodes, NUMA, (double)(t1 - t0) / 1e6, (double)(now_ns() - t1) / 1e6);
}

/* ======================================================================
 * Requests, expected replies and their checks.
 * ====================================================================== */

/* The pod of tests/data/fixtures/wire/filter-request-nodecache.json, compact:
 * Guaranteed; server: cpu 8, memory 32Gi, nvidia.com/gpu 1, dsa 1; metrics:
 * cpu 1, memory 512Mi. */
static const char pod_json[] =
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

/* ExtenderArgs in node-names mode for the given node ids, in that order. */
static void args_body(const size_t *ids, size_t n, struct sbuf *out)
{
	char name[32];
	size_t i;

	out->len = 0;
	sb_str(out, "{\"Pod\":");
	sb_put(out, pod_json, sizeof pod_json - 1);
	sb_str(out, ",\"Nodes\":null,\"NodeNames\":[");
	for (i = 0; i < n; i++) {
		if (i)
			sb_put(out, ",", 1);
		node_name(ids[i], name, sizeof name);
		sb_put(out, "\"", 1);
		sb_str(out, name);
		sb_put(out, "\"", 1);
	}
	sb_str(out, "]}");
}

/* One request body and what the server answers it (the first reply; every
 * later reply, and the handler's own output, must be identical). */
struct body {
	char label[16];
	size_t *ids;                 /* candidates in request order */
	size_t n;
	struct sbuf text;
	char *filter_reply;
	size_t filter_len;
	char *prio_reply;
	size_t prio_len;
	enum wire_outcome *outcome;  /* per candidate */
	const char **reason;         /* per candidate, NULL when passing */
	int64_t *score;              /* per candidate */
	char **reasons;              /* distinct reason texts */
	size_t nreasons;
	size_t npass, nfailed, nunres;
};

/* Candidate scratch space, indexed by node id. */
static unsigned char *want_map, *seen_map;
static size_t *pos_map;

static void body_init(struct body *b, const char *label, size_t n, bool shuffle_all)
{
	size_t i;

	memset(b, 0, sizeof *b);
	snprintf(b->label, sizeof b->label, "%s", label);
	b->n = n;
	b->ids = xcalloc(cfg.nodes, sizeof *b->ids);
	for (i = 0; i < cfg.nodes; i++)
		b->ids[i] = i;
	/* Fisher-Yates: the first n of a random permutation (all of it when
	 * n == nodes), as kube-scheduler's node tree hands them out. */
	if (shuffle_all || n < cfg.nodes) {
		for (i = cfg.nodes - 1; i > 0; i--) {
			size_t j = (size_t)rnd_below((int64_t)i + 1), t = b->ids[i];

			b->ids[i] = b->ids[j];
			b->ids[j] = t;
		}
	}
	args_body(b->ids, n, &b->text);
	b->outcome = xcalloc(n + 1, sizeof *b->outcome);
	b->reason = xcalloc(n + 1, sizeof *b->reason);
	b->score = xcalloc(n + 1, sizeof *b->score);
}

static void body_cleanup(struct body *b)
{
	size_t i;

	for (i = 0; i < b->nreasons; i++)
		free(b->reasons[i]);
	free(b->reasons);
	free(b->ids);
	free(b->text.p);
	free(b->filter_reply);
	free(b->prio_reply);
	free(b->outcome);
	free(b->reason);
	free(b->score);
	memset(b, 0, sizeof *b);
}

static const char *body_intern(struct body *b, const char *text)
{
	size_t i;

	for (i = 0; i < b->nreasons; i++)
		if (strcmp(b->reasons[i], text) == 0)
			return b->reasons[i];
	b->reasons = xreallocarray(b->reasons, b->nreasons + 1, sizeof *b->reasons);
	b->reasons[b->nreasons] = xstrdup(text);
	return b->reasons[b->nreasons++];
}

static struct json_object *parse_exact(const char *text, size_t len, const char *what)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;

	if (tok == NULL)
		die("json_tokener_new_ex failed");
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) != len)
		die("%s: not exactly one JSON value (%s): %.200s", what,
		    json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return o;
}

static struct json_object *member(struct json_object *o, const char *key, enum json_type type,
				  const char *what)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		die("%s: member %s missing or of the wrong type", what, key);
	return v;
}

static void want_set(const size_t *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (want_map[ids[i]])
			die("internal error: candidate worker-%05zu given twice", ids[i]);
		want_map[ids[i]] = 1;
		seen_map[ids[i]] = 0;
		pos_map[ids[i]] = i;
	}
}

static void want_check_clear(const size_t *ids, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (seen_map[ids[i]] != 1)
			die("%s: worker-%05zu accounted for %d times", what, ids[i], seen_map[ids[i]]);
		want_map[ids[i]] = 0;
		seen_map[ids[i]] = 0;
	}
}

/* The position of a node named in a reply; dies unless it was a candidate
 * not seen before in this reply. */
static size_t reply_name(const char *name, const char *what)
{
	size_t id = node_id(name);

	if (id == SIZE_MAX || !want_map[id])
		die("%s: \"%s\" was not a candidate", what, name);
	if (seen_map[id]++)
		die("%s: \"%s\" appears twice", what, name);
	return pos_map[id];
}

static void bucket_walk(struct json_object *map, enum wire_outcome outcome, struct body *fill,
			size_t *count, const char *what)
{
	struct json_object_iterator it = json_object_iter_begin(map);
	struct json_object_iterator end = json_object_iter_end(map);

	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		struct json_object *v = json_object_iter_peek_value(&it);
		size_t pos = reply_name(json_object_iter_peek_name(&it), what);

		if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0)
			die("%s: reason of %s is not a non-empty string", what,
			    json_object_iter_peek_name(&it));
		if (fill) {
			fill->outcome[pos] = outcome;
			fill->reason[pos] = body_intern(fill, json_object_get_string(v));
		}
		(*count)++;
	}
}

/* A filter reply for the candidates ids[0..n): every candidate in exactly
 * one of NodeNames / FailedNodes / FailedAndUnresolvableNodes, Error "".
 * fill: record the outcome and reason of each candidate. Returns the number
 * passing. */
static size_t check_filter(const char *text, size_t len, const size_t *ids, size_t n,
			   struct body *fill)
{
	static const char what[] = "filter reply";
	struct json_object *o = parse_exact(text, len, what), *pass, *v = NULL;
	size_t i, npass = 0, nfailed = 0, nunres = 0;

	if (!json_object_is_type(o, json_type_object) || json_object_object_length(o) != 5)
		die("%s: not an object of 5 members: %.200s", what, text);
	if (!json_object_object_get_ex(o, "Nodes", &v) || v != NULL)
		die("%s: Nodes is not null", what);
	if (strcmp(json_object_get_string(member(o, "Error", json_type_string, what)), "") != 0)
		die("%s: Error: %s", what, json_object_get_string(member(o, "Error", json_type_string, what)));
	want_set(ids, n);
	pass = member(o, "NodeNames", json_type_array, what);
	for (i = 0; i < json_object_array_length(pass); i++) {
		struct json_object *s = json_object_array_get_idx(pass, i);
		size_t pos;

		if (!json_object_is_type(s, json_type_string))
			die("%s: NodeNames[%zu] is not a string", what, i);
		pos = reply_name(json_object_get_string(s), what);
		if (fill) {
			fill->outcome[pos] = WIRE_PASS;
			fill->reason[pos] = NULL;
		}
		npass++;
	}
	bucket_walk(member(o, "FailedNodes", json_type_object, what), WIRE_FAILED, fill, &nfailed,
		    what);
	bucket_walk(member(o, "FailedAndUnresolvableNodes", json_type_object, what),
		    WIRE_UNRESOLVABLE, fill, &nunres, what);
	want_check_clear(ids, n, what);
	if (fill) {
		fill->npass = npass;
		fill->nfailed = nfailed;
		fill->nunres = nunres;
	}
	json_object_put(o);
	return npass;
}

/* A HostPriorityList for ids[0..n): each candidate once, Score 0..10.
 * scores: record each candidate's score. */
static void check_prioritize(const char *text, size_t len, const size_t *ids, size_t n,
			     int64_t *scores)
{
	static const char what[] = "prioritize reply";
	struct json_object *o = parse_exact(text, len, what);
	size_t i;

	if (!json_object_is_type(o, json_type_array) || json_object_array_length(o) != n)
		die("%s: not an array of %zu entries: %.200s", what, n, text);
	want_set(ids, n);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(o, i), *score;
		size_t pos;
		int64_t s;

		if (!json_object_is_type(e, json_type_object) || json_object_object_length(e) != 2)
			die("%s: [%zu] is not an object of 2 members", what, i);
		pos = reply_name(json_object_get_string(member(e, "Host", json_type_string, what)), what);
		score = member(e, "Score", json_type_int, what);
		s = json_object_get_int64(score);
		if (s < 0 || s > 10)
			die("%s: score %lld out of 0..10", what, (long long)s);
		if (scores)
			scores[pos] = s;
	}
	want_check_clear(ids, n, what);
	json_object_put(o);
}

/* ======================================================================
 * Cells: timed operations and their statistics.
 * ====================================================================== */

/* One operation; returns the nanoseconds of its timed part (checks done
 * outside it are free). */
typedef uint64_t (*op_fn)(void *ctx);

struct stats {
	size_t n;
	double p50, p99, mean, min, max; /* microseconds */
};

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank. */
static double pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)((double)n * p + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted[rank - 1] / 1e3;
}

/* Runs cfg.warmup untimed operations, then mark(ctx) when given, then at
 * least min_ops operations and until budget_ns of wall time has passed (at
 * most cfg.max_ops). */
static void run_cell(op_fn fn, void *ctx, void (*mark)(void *ctx), size_t min_ops,
		     uint64_t budget_ns, struct stats *st)
{
	size_t cap = 1024, n = 0, i;
	uint64_t *samples = xcalloc(cap, sizeof *samples), t0, sum = 0;

	for (i = 0; i < cfg.warmup; i++)
		sink += fn(ctx);
	if (mark)
		mark(ctx);
	t0 = now_ns();
	while (n < cfg.max_ops && (n < min_ops || now_ns() - t0 < budget_ns)) {
		if (n == cap) {
			cap *= 2;
			samples = xreallocarray(samples, cap, sizeof *samples);
		}
		samples[n] = fn(ctx);
		sum += samples[n];
		n++;
	}
	qsort(samples, n, sizeof *samples, by_u64);
	st->n = n;
	st->p50 = pct(samples, n, 0.50);
	st->p99 = pct(samples, n, 0.99);
	st->mean = (double)sum / (double)n / 1e3;
	st->min = (double)samples[0] / 1e3;
	st->max = (double)samples[n - 1] / 1e3;
	free(samples);
}

/* ======================================================================
 * The HTTP client: one libcurl easy handle, one keep-alive connection.
 * ====================================================================== */

struct client {
	CURL *curl;
	struct curl_slist *headers;
	struct sbuf reply;
	char filter_url[64], prio_url[64], metrics_url[64];
	long connects;               /* connections libcurl opened */
	long requests;
};

static size_t on_write(char *data, size_t size, size_t n, void *arg)
{
	sb_put(arg, data, size * n);
	return size * n;
}

static void client_init(struct client *c, int port)
{
	memset(c, 0, sizeof *c);
	c->curl = curl_easy_init();
	if (c->curl == NULL)
		die("curl_easy_init failed");
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

static void client_cleanup(struct client *c)
{
	curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->reply.p);
	memset(c, 0, sizeof *c);
}

/* POSTs body; the reply lands in c->reply. Returns the client-side latency
 * (curl_easy_perform, from the first byte sent to the last byte read). */
static uint64_t client_post(struct client *c, bool filter, const char *body, size_t len)
{
	long status = 0, connects = 0;
	uint64_t t0, t1;
	CURLcode rc;

	c->reply.len = 0;
	c->reply.p[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, filter ? c->filter_url : c->prio_url);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	t0 = now_ns();
	rc = curl_easy_perform(c->curl);
	t1 = now_ns();
	if (rc != CURLE_OK)
		die("POST %s: %s", filter ? "/filter" : "/prioritize", curl_easy_strerror(rc));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
	if (status != 200)
		die("POST %s: HTTP %ld: %.200s", filter ? "/filter" : "/prioritize", status,
		    c->reply.p);
	c->connects += connects;
	c->requests++;
	return t1 - t0;
}

/* GET /metrics on the same connection: the server's own duration sum (s) and
 * count for verb ("filter", "prioritize"), measured from the request's
 * first callback to its reply being queued. */
static void server_time(struct client *c, const char *verb, double *sum_s, double *count)
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
		die("GET /metrics: %s", curl_easy_strerror(rc));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
	if (status != 200)
		die("GET /metrics: HTTP %ld", status);
	c->connects += connects;
	c->requests++;
	snprintf(key, sizeof key, "numa_extender_request_duration_seconds_sum{verb=\"%s\"} ", verb);
	p = strstr(c->reply.p, key);
	if (p == NULL)
		die("GET /metrics: no %s", key);
	*sum_s = strtod(p + strlen(key), NULL);
	snprintf(key, sizeof key, "numa_extender_request_duration_seconds_count{verb=\"%s\"} ",
		 verb);
	p = strstr(c->reply.p, key);
	if (p == NULL)
		die("GET /metrics: no %s", key);
	*count = strtod(p + strlen(key), NULL);
}

/* ======================================================================
 * The operations.
 * ====================================================================== */

struct env {
	struct store *store;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct config config;
	struct server *server;
	struct client client;
};

/* What one iteration of a Part 1 cell measures besides the request itself,
 * in this order, on the same bytes: */
enum side {
	SIDE_JSONC,    /* json-c alone */
	SIDE_HANDLER,  /* handle_filter / handle_prioritize */
	SIDE_DECODE,   /* wire_decode_args + pod_demand_new */
	SIDE_JUDGE,    /* the judge loop */
	SIDE_ENCODE,   /* wire_encode_* */
	NSIDES
};

struct op {
	struct env *env;
	struct body *body;
	bool filter;
	double srv_sum, srv_count;   /* /metrics after the warm-up */
	/* Side samples, one per iteration after the warm-up (pairs: [0] the
	 * filter request, [1] the prioritize request). */
	uint64_t *side[NSIDES];
	size_t nside, side_cap;
	/* pairs */
	struct sbuf prio_body;
	size_t *survivors;
	size_t nsurvivors;
	/* decoded once, for the judge and encode stages */
	struct wire_args args;
	struct pod_demand *demand;
};

static void side_push(struct op *op, const uint64_t *v, size_t n)
{
	size_t i;

	if (op->nside == op->side_cap) {
		op->side_cap = op->side_cap ? 2 * op->side_cap : 1024;
		for (i = 0; i < NSIDES; i++)
			op->side[i] = xreallocarray(op->side[i], op->side_cap, sizeof(uint64_t));
	}
	for (i = 0; i < n; i++)
		op->side[i][op->nside] = v[i];
	op->nside++;
}

static void side_free(struct op *op)
{
	size_t i;

	for (i = 0; i < NSIDES; i++)
		free(op->side[i]);
}

static uint64_t op_http_filter(void *arg)
{
	struct op *op = arg;
	struct client *c = &op->env->client;
	struct body *b = op->body;
	uint64_t ns = client_post(c, true, b->text.p, b->text.len);

	check_filter(c->reply.p, c->reply.len, b->ids, b->n, NULL);
	if (c->reply.len != b->filter_len || memcmp(c->reply.p, b->filter_reply, b->filter_len) != 0)
		die("filter reply at %s names differs from the first one", b->label);
	return ns;
}

static uint64_t op_http_prioritize(void *arg)
{
	struct op *op = arg;
	struct client *c = &op->env->client;
	struct body *b = op->body;
	uint64_t ns = client_post(c, false, b->text.p, b->text.len);

	check_prioritize(c->reply.p, c->reply.len, b->ids, b->n, NULL);
	if (c->reply.len != b->prio_len || memcmp(c->reply.p, b->prio_reply, b->prio_len) != 0)
		die("prioritize reply at %s names differs from the first one", b->label);
	return ns;
}

/* After the warm-up: forget its side samples; note the server's totals. */
static void op_mark(void *arg)
{
	struct op *op = arg;

	op->nside = 0;
	server_time(&op->env->client, op->filter ? "filter" : "prioritize", &op->srv_sum,
		    &op->srv_count);
}

/* Mean server-side time (us) since op_mark. */
static double op_server_mean(struct op *op)
{
	double sum, count;

	server_time(&op->env->client, op->filter ? "filter" : "prioritize", &sum, &count);
	if (count <= op->srv_count)
		return 0;
	return (sum - op->srv_sum) / (count - op->srv_count) * 1e6;
}

/* kube-scheduler's sequence for one pod: filter, read the survivors, build
 * the prioritize body from them, prioritize. All of it is timed. */
static uint64_t op_pair(void *arg)
{
	struct op *op = arg;
	struct client *c = &op->env->client;
	struct body *b = op->body;
	struct json_object *o, *pass;
	uint64_t t0 = now_ns(), t1, tf, tp;
	size_t i, n;

	tf = client_post(c, true, b->text.p, b->text.len);
	o = parse_exact(c->reply.p, c->reply.len, "filter reply");
	pass = member(o, "NodeNames", json_type_array, "filter reply");
	n = json_object_array_length(pass);
	op->prio_body.len = 0;
	sb_str(&op->prio_body, "{\"Pod\":");
	sb_put(&op->prio_body, pod_json, sizeof pod_json - 1);
	sb_str(&op->prio_body, ",\"Nodes\":null,\"NodeNames\":[");
	for (i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(pass, i);

		if (i)
			sb_put(&op->prio_body, ",", 1);
		sb_put(&op->prio_body, "\"", 1);
		sb_put(&op->prio_body, json_object_get_string(s), (size_t)json_object_get_string_len(s));
		sb_put(&op->prio_body, "\"", 1);
		op->survivors[i] = node_id(json_object_get_string(s));
	}
	sb_str(&op->prio_body, "]}");
	json_object_put(o);
	/* The full check of this reply is the one of the first reply: same bytes. */
	if (c->reply.len != b->filter_len || memcmp(c->reply.p, b->filter_reply, b->filter_len) != 0)
		die("filter reply at %s names differs from the first one", b->label);
	tp = client_post(c, false, op->prio_body.p, op->prio_body.len);
	t1 = now_ns();
	/* Untimed: the checks. */
	check_prioritize(c->reply.p, c->reply.len, op->survivors, n, NULL);
	op->nsurvivors = n;
	{
		uint64_t v[2] = { tf, tp };

		side_push(op, v, 2);
	}
	return t1 - t0;
}

/* json-c alone: parse the request as a fresh depth-64 tokener would, walk the
 * candidate names, build the ExtenderFilterResult the server sent (same
 * buckets and reasons) with json-c objects and serialise it. */
static struct json_object *baseline_names(struct json_object **req, const struct body *b)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *names = NULL;

	*req = json_tokener_parse_ex(tok, b->text.p, (int)b->text.len);
	if (*req == NULL || !json_object_object_get_ex(*req, "NodeNames", &names) ||
	    json_object_array_length(names) != b->n)
		die("json-c baseline: cannot parse the request");
	json_tokener_free(tok);
	return names;
}

static size_t baseline_filter_once(const struct body *b, char *copy, size_t size)
{
	struct json_object *req, *names = baseline_names(&req, b);
	struct json_object *reply = json_object_new_object(), *pass = json_object_new_array();
	struct json_object *failed = json_object_new_object(), *unres = json_object_new_object();
	const char *text;
	size_t i, len;

	for (i = 0; i < b->n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, i));

		switch (b->outcome[i]) {
		case WIRE_PASS:
			json_object_array_add(pass, json_object_get(json_object_array_get_idx(names, i)));
			break;
		case WIRE_FAILED:
			json_object_object_add(failed, name, json_object_new_string(b->reason[i]));
			break;
		case WIRE_UNRESOLVABLE:
		default:
			json_object_object_add(unres, name, json_object_new_string(b->reason[i]));
			break;
		}
	}
	json_object_object_add(reply, "Nodes", NULL);
	json_object_object_add(reply, "NodeNames", pass);
	json_object_object_add(reply, "FailedNodes", failed);
	json_object_object_add(reply, "FailedAndUnresolvableNodes", unres);
	json_object_object_add(reply, "Error", json_object_new_string(""));
	text = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (copy)
		snprintf(copy, size, "%s", text);
	json_object_put(reply);
	json_object_put(req);
	return len;
}

static size_t baseline_prioritize_once(const struct body *b, char *copy, size_t size)
{
	struct json_object *req, *names = baseline_names(&req, b);
	struct json_object *list = json_object_new_array();
	const char *text;
	size_t i, len;

	for (i = 0; i < b->n; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "Host", json_object_get(json_object_array_get_idx(names, i)));
		json_object_object_add(e, "Score", json_object_new_int64(b->score[i]));
		json_object_array_add(list, e);
	}
	text = json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (copy)
		snprintf(copy, size, "%s", text);
	json_object_put(list);
	json_object_put(req);
	return len;
}

static uint64_t op_baseline_filter(void *arg)
{
	struct op *op = arg;
	uint64_t t0 = now_ns();

	sink += baseline_filter_once(op->body, NULL, 0);
	return now_ns() - t0;
}

static uint64_t op_baseline_prioritize(void *arg)
{
	struct op *op = arg;
	uint64_t t0 = now_ns();

	sink += baseline_prioritize_once(op->body, NULL, 0);
	return now_ns() - t0;
}

static uint64_t op_handler_filter(void *arg)
{
	struct op *op = arg;
	struct body *b = op->body;
	struct reply r;
	uint64_t t0 = now_ns(), t1;

	handle_filter(&op->env->ctx, b->text.p, b->text.len, &r);
	t1 = now_ns();
	if (r.status != 200 || r.len != b->filter_len || memcmp(r.body, b->filter_reply, r.len) != 0)
		die("handle_filter at %s names: status %d, reply differs from the HTTP one",
		    b->label, r.status);
	free(r.body);
	return t1 - t0;
}

static uint64_t op_handler_prioritize(void *arg)
{
	struct op *op = arg;
	struct body *b = op->body;
	struct reply r;
	uint64_t t0 = now_ns(), t1;

	handle_prioritize(&op->env->ctx, b->text.p, b->text.len, &r);
	t1 = now_ns();
	if (r.status != 200 || r.len != b->prio_len || memcmp(r.body, b->prio_reply, r.len) != 0)
		die("handle_prioritize at %s names: status %d, reply differs from the HTTP one",
		    b->label, r.status);
	free(r.body);
	return t1 - t0;
}

/* The handler's three stages, timed apart (the same calls handlers.c makes). */
static uint64_t op_decode(void *arg)
{
	struct op *op = arg;
	struct wire_args args;
	struct pod_demand *demand = NULL;
	struct errmsg msg;
	uint64_t t0 = now_ns(), t1;

	if (wire_decode_args(op->body->text.p, op->body->text.len, &args, &msg) != ERR_OK ||
	    pod_demand_new(&args.pod, &demand, &msg) != ERR_OK)
		die("decode: %s", msg.text);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
	t1 = now_ns();
	return t1 - t0;
}

static uint64_t judge_all(struct op *op, bool filter)
{
	struct store_set *set = store_acquire(op->env->store);
	struct settings *settings = settings_acquire(op->env->ctx.settings);
	uint64_t t0 = now_ns(), t1, acc = 0;
	size_t i;

	for (i = 0; i < op->args.nnames; i++) {
		const struct store_node *sn = store_get(set, op->args.names[i]);
		struct verdict v;
		char summary[300];

		if (sn == NULL)
			die("judge: %s is not in the store", op->args.names[i]);
		judge_node(sn->inventory, op->demand, &v);
		if (filter) {
			if (!v.admit) {
				verdict_summary(&v, summary, sizeof summary);
				acc += (unsigned char)summary[0];
			}
		} else {
			acc += (uint64_t)score_node(&settings->scoring, sn->inventory, &v, NULL);
		}
		verdict_cleanup(&v);
	}
	t1 = now_ns();
	sink += acc;
	settings_unref(settings);
	store_release(set);
	return t1 - t0;
}

static uint64_t op_judge_filter(void *arg)
{
	return judge_all(arg, true);
}

static uint64_t op_judge_prioritize(void *arg)
{
	return judge_all(arg, false);
}

static uint64_t op_encode_filter(void *arg)
{
	struct op *op = arg;
	size_t len = 0;
	uint64_t t0 = now_ns(), t1;
	char *json = wire_encode_filter(&op->args, op->body->outcome, op->body->reason, &len);

	t1 = now_ns();
	if (len != op->body->filter_len || memcmp(json, op->body->filter_reply, len) != 0)
		die("wire_encode_filter at %s names differs from the server's reply", op->body->label);
	free(json);
	return t1 - t0;
}

static uint64_t op_encode_prioritize(void *arg)
{
	struct op *op = arg;
	size_t len = 0;
	uint64_t t0 = now_ns(), t1;
	char *json = wire_encode_prioritize(&op->args, op->body->score, &len);

	t1 = now_ns();
	if (len != op->body->prio_len || memcmp(json, op->body->prio_reply, len) != 0)
		die("wire_encode_prioritize at %s names differs from the server's reply",
		    op->body->label);
	free(json);
	return t1 - t0;
}

/* One iteration of a Part 1 cell: the request over HTTP (returned), then the
 * in-process measurements of the same bytes (side samples), interleaved so
 * that a slow phase of a shared machine hits all of them alike. */
static uint64_t op_verb(void *arg)
{
	struct op *op = arg;
	uint64_t http, v[NSIDES];

	if (op->filter) {
		http = op_http_filter(op);
		v[SIDE_JSONC] = op_baseline_filter(op);
		v[SIDE_HANDLER] = op_handler_filter(op);
		v[SIDE_DECODE] = op_decode(op);
		v[SIDE_JUDGE] = op_judge_filter(op);
		v[SIDE_ENCODE] = op_encode_filter(op);
	} else {
		http = op_http_prioritize(op);
		v[SIDE_JSONC] = op_baseline_prioritize(op);
		v[SIDE_HANDLER] = op_handler_prioritize(op);
		v[SIDE_DECODE] = op_decode(op);
		v[SIDE_JUDGE] = op_judge_prioritize(op);
		v[SIDE_ENCODE] = op_encode_prioritize(op);
	}
	side_push(op, v, NSIDES);
	return http;
}

/* ======================================================================
 * Setup and the report.
 * ====================================================================== */

static void env_start(struct env *e, bool http)
{
	struct errmsg msg;

	memset(e, 0, sizeof *e);
	log_set_level(CONFIG_LOG_WARN);
	config_init(&e->config);
	free(e->config.listen);
	e->config.listen = xstrdup("127.0.0.1:0");
	e->config.threads = cfg.threads;
	e->store = store_new();
	cluster_publish(e->store);
	settings_holder_init(&e->holder, settings_new(&e->config));
	e->ctx.store = e->store;
	e->ctx.settings = &e->holder;
	if (!http)
		return;
	if (server_start(&e->config, &e->ctx, &e->server, &msg) != ERR_OK)
		die("server_start: %s", msg.text);
	client_init(&e->client, server_port(e->server));
	printf("server: libmicrohttpd on 127.0.0.1:%d, threads %d, scoring %s, missing inventory "
	       "%s; client: libcurl, one keep-alive connection\n",
	       server_port(e->server), cfg.threads, score_strategy_name(e->config.scoring.strategy),
	       e->config.missing_inventory == CONFIG_MISSING_ALLOW ? "allow" : "deny");
}

static void env_stop(struct env *e)
{
	if (e->server) {
		client_cleanup(&e->client);
		server_drain_and_stop(e->server, 1000);
	}
	settings_holder_cleanup(&e->holder);
	store_free(e->store);
	config_cleanup(&e->config);
}

/* First replies: checked in full; they are the reference for every later
 * reply, and the json-c baseline rebuilds them. */
static void body_learn(struct env *e, struct body *b)
{
	struct client *c = &e->client;
	size_t len, cap;
	char *copy;

	client_post(c, true, b->text.p, b->text.len);
	check_filter(c->reply.p, c->reply.len, b->ids, b->n, b);
	b->filter_reply = xstrndup(c->reply.p, c->reply.len);
	b->filter_len = c->reply.len;
	client_post(c, false, b->text.p, b->text.len);
	check_prioritize(c->reply.p, c->reply.len, b->ids, b->n, b->score);
	b->prio_reply = xstrndup(c->reply.p, c->reply.len);
	b->prio_len = c->reply.len;

	/* Does json-c, asked for the same reply, write the same bytes? */
	cap = (b->filter_len > b->prio_len ? b->filter_len : b->prio_len) + 64;
	copy = xmalloc(cap);
	len = baseline_filter_once(b, copy, cap);
	printf("%6zu names: request %zu B; filter reply %zu B (pass %zu, failed %zu, "
	       "unresolvable %zu; %zu distinct reasons), json-c's %s; prioritize reply %zu B, ",
	       b->n, b->text.len, b->filter_len, b->npass, b->nfailed, b->nunres, b->nreasons,
	       len == b->filter_len && memcmp(copy, b->filter_reply, len) == 0 ? "byte-identical"
										: "differs",
	       b->prio_len);
	len = baseline_prioritize_once(b, copy, cap);
	printf("json-c's %s\n", len == b->prio_len && memcmp(copy, b->prio_reply, len) == 0
					? "byte-identical" : "differs");
	free(copy);
}

static const char *verdict_str(bool ok)
{
	return ok ? "ok" : "MISSED";
}

struct target {
	char what[96];
	char goal[24];
	char got[40];
	bool ok;
};

static struct target targets[16];
static size_t ntargets;

static bool target_add(const char *what, bool lower_is_better, double limit, double got,
		       const char *unit)
{
	struct target *t = &targets[ntargets++];
	bool ok = lower_is_better ? got <= limit : got >= limit;

	snprintf(t->what, sizeof t->what, "%s", what);
	snprintf(t->goal, sizeof t->goal, "%s %g%s", lower_is_better ? "<=" : ">=", limit, unit);
	if (ok)
		snprintf(t->got, sizeof t->got, "%.3g%s", got, unit);
	else if (lower_is_better)
		snprintf(t->got, sizeof t->got, "%.3g%s (%.1fx over)", got, unit, got / limit);
	else
		snprintf(t->got, sizeof t->got, "%.3g%s (%.0f%% short)", got, unit,
			 100.0 * (limit - got) / limit);
	t->ok = ok;
	return ok;
}

static void stats_from(uint64_t *samples, size_t n, struct stats *st)
{
	uint64_t sum = 0;
	size_t i;

	qsort(samples, n, sizeof *samples, by_u64);
	for (i = 0; i < n; i++)
		sum += samples[i];
	st->n = n;
	st->p50 = pct(samples, n, 0.50);
	st->p99 = pct(samples, n, 0.99);
	st->mean = (double)sum / (double)n / 1e3;
	st->min = (double)samples[0] / 1e3;
	st->max = (double)samples[n - 1] / 1e3;
}

/* judge_node over a group of nodes (one policy, one outcome), as the handler
 * calls it; or over their emptied copies (the second judgement a rejection
 * costs). */
struct group_op {
	const struct inventory_node **nodes;
	size_t n;
	const struct pod_demand *demand;
	bool emptied;
};

static uint64_t op_judge_group(void *arg)
{
	struct group_op *g = arg;
	uint64_t t0 = now_ns(), acc = 0;
	size_t i;

	for (i = 0; i < g->n; i++) {
		struct verdict v;

		judge_node(g->emptied ? g->nodes[i]->emptied : g->nodes[i], g->demand, &v);
		acc += v.admit;
		verdict_cleanup(&v);
	}
	sink += acc;
	return now_ns() - t0;
}

static void judge_groups(struct env *e, const struct body *b)
{
	static const enum tm_policy policies[3] = { TM_POLICY_SINGLE_NUMA_NODE, TM_POLICY_RESTRICTED,
						    TM_POLICY_BEST_EFFORT };
	struct store_set *set = store_acquire(e->store);
	const struct inventory_node **nodes = xcalloc(b->n + 1, sizeof *nodes);
	struct wire_args args;
	struct pod_demand *demand = NULL;
	struct errmsg msg;
	size_t p, k, i;
	double total = 0;

	if (wire_decode_args(b->text.p, b->text.len, &args, &msg) != ERR_OK ||
	    pod_demand_new(&args.pod, &demand, &msg) != ERR_OK)
		die("decode: %s", msg.text);
	printf("\njudge_node per node of the %zu-name request, by policy and filter outcome "
	       "(judge_node + verdict_cleanup; us/node, median)\n",
	       b->n);
	printf("%-17s %-8s %6s %10s %18s %12s\n", "policy", "outcome", "nodes", "us/node",
	       "of which emptied", "us/request");
	for (p = 0; p < 3; p++) {
		for (k = 0; k < 2; k++) {
			struct group_op g = { nodes, 0, demand, false };
			struct stats st, em;
			char emp[32] = "";
			double per;

			for (i = 0; i < b->n; i++) {
				const struct store_node *sn = store_get(set, args.names[i]);

				if (sn == NULL)
					die("%s is not in the store", args.names[i]);
				if (sn->inventory->policy == policies[p] &&
				    (b->outcome[i] == WIRE_PASS) == (k == 0))
					nodes[g.n++] = sn->inventory;
			}
			if (g.n == 0)
				continue;
			run_cell(op_judge_group, &g, NULL, cfg.min_group, cfg.group_ns, &st);
			per = st.p50 / (double)g.n;
			if (k == 1 && nodes[0]->emptied != NULL) {
				g.emptied = true;
				run_cell(op_judge_group, &g, NULL, cfg.min_group, cfg.group_ns, &em);
				snprintf(emp, sizeof emp, "%.2f", em.p50 / (double)g.n);
			}
			total += st.p50;
			printf("%-17s %-8s %6zu %10.2f %18s %12.1f\n", tm_policy_name(policies[p]),
			       k == 0 ? "pass" : "reject", g.n, per, emp, st.p50);
		}
	}
	printf("(sum %.1f us per request; each group timed alone, back to back, so caches are "
	       "warmer than in Part 3's judge\n"
	       " column, which also has store_get and verdict_summary. reject: the judgement, its "
	       "rejection message, and a second\n"
	       " judgement on the emptied node to tell FailedNodes from "
	       "FailedAndUnresolvableNodes; \"of which emptied\" times\n"
	       " that second judgement alone.)\n",
	       total);
	free(nodes);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
	store_release(set);
}

static const char *const verb_names[2] = { "filter", "prioritize" };

static int run(void)
{
	struct env e;
	struct body bodies[2];
	struct stats http[2][2], local[2][2][NSIDES], pair[2], pf[2], pp[2];
	double srv[2][2], pairs_per_s[2];
	size_t survivors[2];
	size_t k, v, i, failed = 0;
	char what[96];

	want_map = xcalloc(cfg.nodes, 1);
	seen_map = xcalloc(cfg.nodes, 1);
	pos_map = xcalloc(cfg.nodes, sizeof *pos_map);
	env_start(&e, true);
	{
		char small[16], large[16];

		snprintf(small, sizeof small, "%zu", cfg.small);
		snprintf(large, sizeof large, "%zu", cfg.nodes);
		body_init(&bodies[0], small, cfg.small, true);
		body_init(&bodies[1], large, cfg.nodes, true);
	}
	printf("pod: Guaranteed, server (cpu 8, memory 32Gi, nvidia.com/gpu 1, dsa 1) + metrics "
	       "(cpu 1, memory 512Mi); node-names mode;\n"
	       "candidates: a random %zu of the %zu nodes, and all %zu in random order\n",
	       cfg.small, cfg.nodes, cfg.nodes);
	for (k = 0; k < 2; k++)
		body_learn(&e, &bodies[k]);

	/* Part 1: the verbs over HTTP. */
	printf("\n== Part 1: HTTP round trip on one keep-alive connection, client-side latency "
	       "(us); per row >= %zu requests and >= %.1f s\n"
	       "   (wall, Part 3's in-process runs included) at %zu names, >= %zu and >= %.1f s at "
	       "%zu names\n",
	       cfg.min_http[0], (double)cfg.http_ns[0] / 1e9, bodies[0].n, cfg.min_http[1],
	       (double)cfg.http_ns[1] / 1e9, bodies[1].n);
	printf("%-11s %6s %7s %9s %9s %9s %9s %9s %10s %10s\n", "verb", "names", "reqs", "p50",
	       "p99", "mean", "min", "max", "srv mean", "rest mean");
	for (v = 0; v < 2; v++) {
		for (k = 0; k < 2; k++) {
			struct op op = { .env = &e, .body = &bodies[k], .filter = v == 0 };
			const struct stats *s = &http[v][k];
			struct errmsg msg;
			size_t j;

			if (wire_decode_args(bodies[k].text.p, bodies[k].text.len, &op.args, &msg) !=
				    ERR_OK ||
			    pod_demand_new(&op.args.pod, &op.demand, &msg) != ERR_OK)
				die("decode: %s", msg.text);
			run_cell(op_verb, &op, op_mark, cfg.min_http[k], cfg.http_ns[k], &http[v][k]);
			srv[v][k] = op_server_mean(&op);
			for (j = 0; j < NSIDES; j++)
				stats_from(op.side[j], op.nside, &local[v][k][j]);
			side_free(&op);
			pod_demand_free(op.demand);
			wire_args_cleanup(&op.args);
			printf("%-11s %6zu %7zu %9.1f %9.1f %9.1f %9.1f %9.1f %10.1f %10.1f\n",
			       verb_names[v], bodies[k].n, s->n, s->p50, s->p99, s->mean, s->min,
			       s->max, srv[v][k], s->mean - srv[v][k]);
		}
	}
	printf("(curl_easy_perform around one POST, reply read in full. srv mean: the server's "
	       "own duration histogram (/metrics,\n"
	       " first request callback to reply queued); rest = client mean - srv mean: "
	       "request/reply transfer, libcurl, MHD parsing.\n"
	       " Every reply: HTTP 200, parsed, each candidate in exactly one bucket / scored "
	       "once, byte-identical to the first.\n"
	       " prioritize is sent every candidate here, not only filter's survivors.)\n");

	/* Part 2: filter + prioritize pairs. */
	printf("\n== Part 2: filter + prioritize pairs as kube-scheduler sends them, sequential on "
	       "the same connection (us)\n");
	printf("%6s %9s %7s %11s %11s %9s %9s %9s %10s\n", "names", "survivors", "pairs",
	       "filter p50", "prio. p50", "pair p50", "pair p99", "pair mean", "pairs/s");
	for (k = 0; k < 2; k++) {
		struct op op = { .env = &e, .body = &bodies[k] };

		op.survivors = xcalloc(bodies[k].n + 1, sizeof *op.survivors);
		run_cell(op_pair, &op, op_mark, cfg.min_http[k], cfg.http_ns[k], &pair[k]);
		stats_from(op.side[0], op.nside, &pf[k]);
		stats_from(op.side[1], op.nside, &pp[k]);
		survivors[k] = op.nsurvivors;
		pairs_per_s[k] = 1e6 / pair[k].mean;
		printf("%6zu %9zu %7zu %11.1f %11.1f %9.1f %9.1f %9.1f %10.0f\n", bodies[k].n,
		       survivors[k], pair[k].n, pf[k].p50, pp[k].p50, pair[k].p50, pair[k].p99,
		       pair[k].mean, pairs_per_s[k]);
		free(op.survivors);
		free(op.prio_body.p);
		side_free(&op);
	}
	printf("(a pair: POST filter, parse its reply with json-c, build the prioritize body from "
	       "NodeNames, POST prioritize;\n"
	       " pairs/s = 1 / mean pair time, client work included, checks excluded)\n");
	if (e.client.connects != 1)
		die("%ld connections were opened for %ld requests; expected one", e.client.connects,
		    e.client.requests);

	/* Part 3: the same bytes in process, from Part 1's iterations. */
	printf("\n== Part 3: the same request bytes in process, measured in Part 1's iterations "
	       "(each request followed by\n"
	       "   json-c alone, the handler, and its three stages, in that order), us\n");
	printf("%-11s %6s %9s %9s %9s %9s %9s %9s %9s %9s %10s\n", "verb", "names", "json-c",
	       "handler", "h. p99", "decode", "judge", "encode", "server", "http ovh", "srv/json-c");
	for (v = 0; v < 2; v++) {
		for (k = 0; k < 2; k++) {
			const struct stats *l = local[v][k];

			printf("%-11s %6zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.2fx\n",
			       verb_names[v], bodies[k].n, l[SIDE_JSONC].p50, l[SIDE_HANDLER].p50,
			       l[SIDE_HANDLER].p99, l[SIDE_DECODE].p50, l[SIDE_JUDGE].p50,
			       l[SIDE_ENCODE].p50, http[v][k].p50,
			       http[v][k].p50 - l[SIDE_HANDLER].p50,
			       http[v][k].p50 / l[SIDE_JSONC].p50);
		}
	}
	printf("(medians. json-c: fresh depth-64 tokener parse of the request, walk of NodeNames, "
	       "the same reply built from json-c\n"
	       " objects and serialised (PLAIN, no slash escape). handler: handle_filter / "
	       "handle_prioritize called directly.\n"
	       " decode: wire_decode_args + pod_demand_new; judge: store_get + judge_node per name "
	       "(+ verdict_summary on rejects,\n"
	       " + score_node for prioritize); encode: wire_encode_*. server: Part 1 p50; "
	       "http ovh = server - handler; srv/json-c\n"
	       " = server / json-c, the ratio the targets below hold to 2x.)\n");
	judge_groups(&e, &bodies[0]);

	/* Targets. */
	printf("\n== Targets (extender-protocol.md section 4.4; ratios are Part 1 p50 over json-c "
	       "p50)\n");
	for (v = 0; v < 2; v++)
		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof what, "%s, %zu names: server / json-c alone", verb_names[v],
				 bodies[k].n);
			target_add(what, true, 2, http[v][k].p50 / local[v][k][SIDE_JSONC].p50, "x");
		}
	snprintf(what, sizeof what, "filter+prioritize pairs/s at %zu names", bodies[0].n);
	target_add(what, false, 1000, pairs_per_s[0], "/s");
	snprintf(what, sizeof what, "filter p50 at %zu names", bodies[0].n);
	target_add(what, true, 0.5, http[0][0].p50 / 1e3, " ms");
	snprintf(what, sizeof what, "filter p99 at %zu names", bodies[0].n);
	target_add(what, true, 2, http[0][0].p99 / 1e3, " ms");
	snprintf(what, sizeof what, "filter p99 at %zu names", bodies[1].n);
	target_add(what, true, 5, http[0][1].p99 / 1e3, " ms");
	snprintf(what, sizeof what, "prioritize p99 at %zu names", bodies[1].n);
	target_add(what, true, 5, http[1][1].p99 / 1e3, " ms");
	printf("%-46s %-10s %-26s %s\n", "target", "goal", "measured", "ok");
	for (i = 0; i < ntargets; i++) {
		printf("%-46s %-10s %-26s %s\n", targets[i].what, targets[i].goal, targets[i].got,
		       verdict_str(targets[i].ok));
		failed += !targets[i].ok;
	}
	printf("(%zu of %zu targets missed; a miss does not change the exit status. %ld requests "
	       "on %ld connection(s).)\n",
	       failed, ntargets, e.client.requests, e.client.connects);

	for (k = 0; k < 2; k++)
		body_cleanup(&bodies[k]);
	env_stop(&e);
	free(want_map);
	free(seen_map);
	free(pos_map);
	return 0;
}

/* Exactly count in-process handle_filter calls at cfg.small names (for
 * callgrind or perf); no server. */
static int profile_filter(long count)
{
	struct env e;
	struct body b;
	long i;
	int pass = 0;

	env_start(&e, false);
	body_init(&b, "profile", cfg.small, true);
	for (i = 0; i < count; i++) {
		struct reply r;

		handle_filter(&e.ctx, b.text.p, b.text.len, &r);
		pass += r.status == 200;
		free(r.body);
	}
	printf("profile-filter: %ld handle_filter calls at %zu names, %d answered 200\n", count,
	       b.n, pass);
	body_cleanup(&b);
	env_stop(&e);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_server [--quick] [--threads N] | --profile-filter [COUNT]\n");
}

int main(int argc, char **argv)
{
	uint64_t t0 = now_ns();
	long profile = 0;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			cfg.nodes = 1000;
			cfg.small = 100;
			cfg.min_http[0] = cfg.min_http[1] = 3;
			cfg.min_group = 3;
			cfg.http_ns[0] = cfg.http_ns[1] = 0;
			cfg.group_ns = 0;
			cfg.max_ops = 3;
			cfg.warmup = 1;
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			cfg.threads = atoi(argv[++i]);
			if (cfg.threads < 1 || cfg.threads > 64) {
				usage();
				return 1;
			}
		} else if (strcmp(argv[i], "--profile-filter") == 0) {
			profile = 200;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				profile = atol(argv[++i]);
			if (profile < 1) {
				usage();
				return 1;
			}
		} else {
			usage();
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (profile)
		return profile_filter(profile);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		die("curl_global_init failed");
	print_header(argc > 0 ? argv[0] : NULL);
	rc = run();
	curl_global_cleanup();
	printf("\ntotal %.1f s\n", (double)(now_ns() - t0) / 1e9);
	return rc;
}
