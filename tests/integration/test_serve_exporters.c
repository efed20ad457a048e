/* SPDX-License-Identifier: Apache-2.0 */
/* Every exporter shape of tests/data/exporters through `serve`: a process
 * serving a copy of those NRT files (fake-gpu-operator millicores, koordlet
 * zones: [] under policy none, RTE without the static CPU manager, NFD
 * omitting a hugepage size, a stream and a List each with one bad object)
 * answers real /filter and /prioritize requests. For every pod and node the
 * verdict (NodeNames, FailedNodes or FailedAndUnresolvableNodes, with the
 * reason) and the score are what `numa-extender explain` says for the same
 * pod and files; the bad objects' nodes have no inventory (they pass with
 * missingInventory: allow and are refused as such with deny) while their
 * good neighbours are judged; /metrics counts the two load errors. A few
 * verdicts are also pinned here, so that a mistake shared by explain and
 * serve still shows. The binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/http_client.h"
#include "tests/support/spawn.h"
#include "tests/support/scratch_dir.h"

/* Generous: sanitizer runs on a loaded machine are slow. */
#define DEADLINE_S 60
#define SRC "tests/data/exporters"
#define NO_INVENTORY "NUMA: no NodeResourceTopology inventory for this node"

/* The nodes of the NRT files in SRC: 8 that decode, 2 that do not. */
static const char *const good_nodes[] = {
	"fake-gpu-node-1", "koord-worker-new", "list-worker-0", "list-worker-2",
	"nfd-worker-2",    "rte-worker-1",     "stream-worker-a", "stream-worker-c",
};
static const char *const bad_nodes[] = { "list-worker-1", "stream-worker-b" };
#define NGOOD (sizeof good_nodes / sizeof good_nodes[0])
#define NBAD (sizeof bad_nodes / sizeof bad_nodes[0])
/* In no file at all. */
#define GHOST "ghost-node"

/* Pods as v1.Pod JSON: the three of SRC (pod-cpu, pod-gpu, pod-hugepages)
 * and variants that push each shape over its edge. */
struct pod_case {
	const char *name;
	const char *containers; /* the JSON array spec.containers */
	const char *qos;
};

#define CTR(name, req, lim)                                                                   \
	"{\"name\":\"" name "\",\"image\":\"registry.example/app:1\",\"resources\":{"         \
	"\"requests\":{" req "},\"limits\":{" lim "}}}"
#define GUARANTEED(name, res) CTR(name, res, res)

static const struct pod_case pods[] = {
	/* pod-cpu.yaml */
	{ "pinned", "[" GUARANTEED("app", "\"cpu\":\"3\",\"memory\":\"1Gi\"") "]", "Guaranteed" },
	/* pod-gpu.yaml */
	{ "trainer",
	  "[" GUARANTEED("train", "\"cpu\":\"3\",\"memory\":\"2Gi\",\"nvidia.com/gpu\":\"1\"") "]",
	  "Guaranteed" },
	/* pod-hugepages.yaml */
	{ "dpdk",
	  "[" GUARANTEED("dpdk", "\"cpu\":\"2\",\"memory\":\"1Gi\",\"hugepages-2Mi\":\"512Mi\"") "]",
	  "Guaranteed" },
	/* 3955m is 3 exclusive CPUs, not 4. */
	{ "trainer-4cpu",
	  "[" GUARANTEED("train", "\"cpu\":\"4\",\"memory\":\"2Gi\",\"nvidia.com/gpu\":\"1\"") "]",
	  "Guaranteed" },
	{ "trainer-3gpu",
	  "[" GUARANTEED("train", "\"cpu\":\"1\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"3\"") "]",
	  "Guaranteed" },
	/* NUMA 1 of nfd-worker-2 has 2Gi of 2Mi pages, NUMA 0 none. */
	{ "dpdk-3gi",
	  "[" GUARANTEED("dpdk", "\"cpu\":\"2\",\"memory\":\"1Gi\",\"hugepages-2Mi\":\"3Gi\"") "]",
	  "Guaranteed" },
	/* Pod scope (nfd-worker-2): two containers, 1Gi of pages in all. */
	{ "dpdk-pair",
	  "[" GUARANTEED("rx", "\"cpu\":\"2\",\"memory\":\"1Gi\",\"hugepages-2Mi\":\"512Mi\"") ","
	      GUARANTEED("tx", "\"cpu\":\"2\",\"memory\":\"1Gi\",\"hugepages-2Mi\":\"512Mi\"") "]",
	  "Guaranteed" },
	/* 47750m is 47 exclusive CPUs. */
	{ "wide-47", "[" GUARANTEED("app", "\"cpu\":\"47\",\"memory\":\"4Gi\"") "]", "Guaranteed" },
	{ "wide-48", "[" GUARANTEED("app", "\"cpu\":\"48\",\"memory\":\"4Gi\"") "]", "Guaranteed" },
	/* No exclusive CPUs: only memory could be NUMA-bound (it is not, for a
	 * Burstable pod). */
	{ "burstable",
	  "[" CTR("app", "\"cpu\":\"500m\",\"memory\":\"1Gi\"", "\"cpu\":\"2\",\"memory\":\"2Gi\"") "]",
	  "Burstable" },
};
#define NPODS (sizeof pods / sizeof pods[0])

/* Verdicts pinned by hand (pass, or fail: Failed or Unresolvable), one
 * or more per shape. */
struct pin {
	const char *pod, *node;
	bool pass;
};

static const struct pin pins[] = {
	{ "trainer", "fake-gpu-node-1", true },
	{ "trainer-4cpu", "fake-gpu-node-1", false },
	{ "trainer-3gpu", "fake-gpu-node-1", false },
	{ "pinned", "koord-worker-new", true },
	{ "wide-48", "koord-worker-new", true },
	{ "pinned", "rte-worker-1", true },
	{ "wide-48", "rte-worker-1", true },
	{ "dpdk", "nfd-worker-2", true },
	{ "dpdk-pair", "nfd-worker-2", true },
	{ "dpdk-3gi", "nfd-worker-2", false },
	{ "pinned", "stream-worker-a", true },
	{ "pinned", "stream-worker-c", true },
	{ "wide-47", "stream-worker-c", true },
	{ "wide-48", "stream-worker-c", false },
	{ "pinned", "list-worker-0", true },
	{ "pinned", "list-worker-2", false },
};

struct env {
	char dir[64];
	char config[96];
	char log[96];
	char pods[96]; /* pod files for explain */
	pid_t pid;
	int port;
	bool deny;
};

/* A formatted string, malloc'd (asprintf is not in C11 + POSIX). */
static char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *format, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, format);
	n = vsnprintf(NULL, 0, format, ap);
	va_end(ap);
	assert_true(n >= 0);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	va_start(ap, format);
	vsnprintf(s, (size_t)n + 1, format, ap);
	va_end(ap);
	return s;
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *text = read_file_or_die(from, &len);
	FILE *f = fopen(to, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(text);
}

/* The NRT files of SRC (not its pod files, which are no inventory). */
static size_t copy_exporters(const char *dir)
{
	DIR *d = opendir(SRC);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char from[512], to[512];

		if (de->d_name[0] == '.' || strncmp(de->d_name, "pod-", 4) == 0)
			continue;
		snprintf(from, sizeof from, SRC "/%s", de->d_name);
		snprintf(to, sizeof to, "%s/%s", dir, de->d_name);
		copy_file(from, to);
		n++;
	}
	closedir(d);
	return n;
}

static struct env *env_start(bool deny)
{
	struct env *e = calloc(1, sizeof *e);
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", NULL, NULL };
	FILE *f;

	assert_non_null(e);
	e->pid = -1;
	e->deny = deny;
	snprintf(e->dir, sizeof e->dir, "/tmp/numa-exp-XXXXXX");
	assert_int_equal(scratch_dir_make(e->dir), 0);
	snprintf(e->config, sizeof e->config, "%s.yaml", e->dir);
	snprintf(e->log, sizeof e->log, "%s.log", e->dir);
	snprintf(e->pods, sizeof e->pods, "%s.pods", e->dir);
	assert_int_equal(mkdir(e->pods, 0700), 0);
	/* Six NRT files today; the count only guards the copy. */
	assert_true(copy_exporters(e->dir) >= 6);
	f = fopen(e->config, "w");
	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:0\"\nmissingInventory: %s\n"
		   "inventory: {source: files, dir: %s, pollInterval: 50ms}\n"
		   "log: {level: info}\n",
		deny ? "deny" : "allow", e->dir);
	assert_int_equal(fclose(f), 0);
	argv[3] = e->config;
	e->pid = spawn_process(argv, e->log);
	e->port = spawn_wait_listening(e->log, DEADLINE_S);
	if (e->port == 0)
		fail_msg("serve never listened (see %s)", e->log);
	return e;
}

static int env_free(void **state)
{
	struct env *e = *state;

	if (e == NULL)
		return 0;
	spawn_cleanup(e->pid, e->dir, e->config, e->log);
	spawn_cleanup(-1, e->pods, NULL, NULL);
	free(e);
	*state = NULL;
	return 0;
}

static long request(struct env *e, const char *method, const char *path, const char *body,
		    char **reply)
{
	return http_local_request(e->port, method, path, body, reply);
}

static bool wait_metric(struct env *e, const char *line)
{
	return http_local_wait_for(e->port, "/metrics", line, DEADLINE_S);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("missing \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

/* The pod as v1.Pod JSON (what explain reads) and as ExtenderArgs. */
static char *pod_json(const struct pod_case *p)
{
	return fmt("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
			     "\"namespace\":\"exporters\",\"uid\":\"uid-%s\"},\"spec\":{\"containers\":%s},"
			     "\"status\":{\"phase\":\"Pending\",\"qosClass\":\"%s\"}}",
			     p->name, p->name, p->containers, p->qos);
}

static char *node_names_json(void)
{
	char *s = strdup("["), *t;
	size_t i;

	for (i = 0; i < NGOOD + NBAD + 1; i++) {
		const char *n = i < NGOOD ? good_nodes[i] : i < NGOOD + NBAD ? bad_nodes[i - NGOOD] : GHOST;

		t = fmt("%s%s\"%s\"", s, i ? "," : "", n);
		free(s);
		s = t;
	}
	t = fmt("%s]", s);
	free(s);
	return t;
}

/* `explain --pod <file> --nrt <dir> --config <serve's config> -o json`; exit
 * status 1, since two nodes are invalid. */
static struct json_object *explain(struct env *e, const struct pod_case *p, const char *json)
{
	char path[256], cmd[1024];
	struct json_object *root;
	size_t n = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *f;
	int status;

	assert_non_null(out);
	snprintf(path, sizeof path, "%s/%s.json", e->pods, p->name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "'%s' explain --pod '%s' --nrt '%s' --config '%s' -o json 2>/dev/null",
		 spawn_serve_bin(), path, e->dir, e->config);
	f = popen(cmd, "r");
	assert_non_null(f);
	for (;;) {
		size_t got = fread(out + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0)
			break;
		if (n + 1 == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
	}
	out[n] = '\0';
	status = pclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
		fail_msg("explain for %s: status %d: %s", p->name, status, out);
	root = json_tokener_parse(out);
	if (root == NULL)
		fail_msg("explain for %s: not JSON: %s", p->name, out);
	free(out);
	return root;
}

/* The node's entry in explain's report (NULL: not there). */
static struct json_object *explained(struct json_object *report, const char *node)
{
	struct json_object *nodes = member(report, "nodes");
	size_t i;

	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);

		if (strcmp(json_object_get_string(member(n, "node")), node) == 0)
			return n;
	}
	return NULL;
}

/* The resource names of explain's "cannot align cpu=3, nvidia.com/gpu=1 on"
 * (or "... for cpu=3 (policy)"), as filter's short reason lists them. */
static void aligned_names(const char *message, char *out, size_t size)
{
	const char *p = strstr(message, "cannot align ");
	size_t used = 0;

	if (p)
		p += strlen("cannot align ");
	else if ((p = strstr(message, "alignment for ")) != NULL)
		p += strlen("alignment for ");
	out[0] = '\0';
	if (p == NULL) {
		fail_msg("no resources in explain's message: %s", message);
		return;
	}
	while (*p && *p != ' ') {
		const char *eq = strchr(p, '=');
		const char *end;

		assert_non_null(eq);
		assert_true(used + (size_t)(eq - p) + 3 < size);
		if (used) {
			memcpy(out + used, ", ", 2);
			used += 2;
		}
		memcpy(out + used, p, (size_t)(eq - p));
		used += (size_t)(eq - p);
		out[used] = '\0';
		/* Past the amount: ", next=" or the end of the list. */
		end = strchr(eq, ' ');
		if (end == NULL)
			break;
		p = end[-1] == ',' ? end + 1 : end;
	}
}

/* What filter says for a node explain rejects: its short reason. */
static void expected_reason(struct json_object *n, char *out, size_t size)
{
	const char *reason = json_object_get_string(member(n, "reason"));
	const char *message = json_object_get_string(member(n, "message"));
	const char *policy = json_object_get_string(member(n, "policy"));
	char names[256];

	if (strcmp(reason, "TopologyAffinityError") == 0) {
		aligned_names(message, names, sizeof names);
		if (strcmp(policy, "single-numa-node") == 0)
			snprintf(out, size, "NUMA: cannot align %s on one NUMA node (single-numa-node)",
				 names);
		else
			snprintf(out, size, "NUMA: cannot align %s on a preferred NUMA set (%s)", names,
				 policy);
	} else if (strcmp(reason, "TopologyManagerConfigError") == 0) {
		snprintf(out, size, "NUMA: the kubelet's Topology Manager configuration on this "
				    "node is invalid (TopologyManagerConfigError)");
	} else if (strcmp(reason, "UnexpectedAdmissionError") == 0) {
		/* The resource is the one explain's message names; checked by
		 * the caller. */
		snprintf(out, size, "NUMA: the kubelet would fail to allocate ");
	} else {
		fail_msg("unknown reason %s", reason);
	}
}

/* Which of filter's three answers holds node (exactly one must), and its
 * reason. */
static const char *placed(struct json_object *reply, const char *node, const char **why)
{
	struct json_object *names = member(reply, "NodeNames"), *v;
	const char *where = NULL;
	int count = 0;
	size_t i;

	*why = NULL;
	for (i = 0; names && i < json_object_array_length(names); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(names, i)), node) == 0) {
			where = "NodeNames";
			count++;
		}
	if (json_object_object_get_ex(member(reply, "FailedNodes"), node, &v)) {
		where = "FailedNodes";
		*why = json_object_get_string(v);
		count++;
	}
	if (json_object_object_get_ex(member(reply, "FailedAndUnresolvableNodes"), node, &v)) {
		where = "FailedAndUnresolvableNodes";
		*why = json_object_get_string(v);
		count++;
	}
	if (count != 1)
		fail_msg("%s is in %d of filter's answers: %s", node, count,
			 json_object_to_json_string(reply));
	return where;
}

static int64_t priority(struct json_object *list, const char *node)
{
	size_t i;

	for (i = 0; i < json_object_array_length(list); i++) {
		struct json_object *h = json_object_array_get_idx(list, i);

		if (strcmp(json_object_get_string(member(h, "Host")), node) == 0)
			return json_object_get_int64(member(h, "Score"));
	}
	fail_msg("%s missing from prioritize: %s", node, json_object_to_json_string(list));
	return -1;
}

/* One pod: filter and prioritize over every node, against explain. */
static void one_pod(struct env *e, const struct pod_case *p)
{
	char *pod = pod_json(p), *names = node_names_json(), *body = NULL, *text = NULL;
	struct json_object *report = explain(e, p, pod), *reply, *list;
	size_t i;

	body = fmt("{\"Pod\":%s,\"NodeNames\":%s}", pod, names);
	assert_int_equal(request(e, "POST", "/filter", body, &text), 200);
	reply = json_tokener_parse(text);
	if (reply == NULL)
		fail_msg("filter for %s: not JSON: %s", p->name, text);
	assert_string_equal(json_object_get_string(member(reply, "Error")), "");
	free(text);
	assert_int_equal(request(e, "POST", "/prioritize", body, &text), 200);
	list = json_tokener_parse(text);
	if (list == NULL || !json_object_is_type(list, json_type_array))
		fail_msg("prioritize for %s: %s", p->name, text);
	free(text);
	assert_int_equal(json_object_array_length(list), NGOOD + NBAD + 1);
	assert_int_equal(json_object_array_length(member(report, "nodes")), NGOOD + NBAD);

	for (i = 0; i < NGOOD; i++) {
		const char *node = good_nodes[i], *why, *where = placed(reply, node, &why);
		struct json_object *n = explained(report, node);
		int64_t score = priority(list, node);

		if (n == NULL || json_object_object_get_ex(n, "error", NULL))
			fail_msg("explain has no verdict for %s/%s", p->name, node);
		if (json_object_get_boolean(member(n, "admit"))) {
			if (strcmp(where, "NodeNames") != 0)
				fail_msg("%s on %s: explain admits, filter says %s: %s", p->name, node,
					 where, why);
			if (score != json_object_get_int64(member(n, "score")))
				fail_msg("%s on %s: prioritize %lld, explain %lld", p->name, node,
					 (long long)score,
					 (long long)json_object_get_int64(member(n, "score")));
		} else {
			const char *want_where = json_object_get_boolean(member(n, "unresolvable"))
							 ? "FailedAndUnresolvableNodes"
							 : "FailedNodes";
			char want[512];

			if (strcmp(where, want_where) != 0)
				fail_msg("%s on %s: explain says %s, filter %s (%s)", p->name, node,
					 json_object_to_json_string(n), where, why ? why : "");
			expected_reason(n, want, sizeof want);
			if (strcmp(json_object_get_string(member(n, "reason")),
				   "UnexpectedAdmissionError") == 0) {
				const char *res = why + strlen(want);
				char name[128];

				if (strncmp(why, want, strlen(want)) != 0 ||
				    sscanf(res, "%127s", name) != 1 ||
				    strstr(json_object_get_string(member(n, "message")), name) == NULL ||
				    strstr(why, " (UnexpectedAdmissionError)") == NULL)
					fail_msg("%s on %s: filter says \"%s\", explain %s", p->name, node,
						 why, json_object_to_json_string(n));
			} else if (strcmp(why, want) != 0) {
				fail_msg("%s on %s: filter says \"%s\", explain's verdict reads \"%s\" "
					 "(%s)",
					 p->name, node, why, want, json_object_get_string(member(n, "message")));
			}
			/* Rejected nodes score 0 in both. */
			assert_int_equal(score, 0);
			assert_int_equal(json_object_get_int64(member(n, "score")), 0);
		}
	}
	/* The bad objects: explain names their error; serve holds no
	 * inventory for them, exactly as for a node in no file at all. */
	for (i = 0; i < NBAD + 1; i++) {
		const char *node = i < NBAD ? bad_nodes[i] : GHOST, *why;
		const char *where = placed(reply, node, &why);
		struct json_object *n = explained(report, node);

		if (i < NBAD) {
			if (n == NULL || !json_object_object_get_ex(n, "error", NULL))
				fail_msg("explain does not call %s invalid", node);
		} else {
			assert_null(n);
		}
		if (e->deny) {
			assert_string_equal(where, "FailedAndUnresolvableNodes");
			assert_string_equal(why, NO_INVENTORY);
		} else {
			assert_string_equal(where, "NodeNames");
		}
		assert_int_equal(priority(list, node), 0);
	}
	for (i = 0; i < sizeof pins / sizeof pins[0]; i++) {
		const char *why;

		if (strcmp(pins[i].pod, p->name) != 0)
			continue;
		if ((strcmp(placed(reply, pins[i].node, &why), "NodeNames") == 0) != pins[i].pass)
			fail_msg("%s on %s: want %s, filter says %s", p->name, pins[i].node,
				 pins[i].pass ? "pass" : "fail", why ? why : "pass");
	}
	json_object_put(reply);
	json_object_put(list);
	json_object_put(report);
	free(body);
	free(names);
	free(pod);
}

static void every_shape(void **state, bool deny)
{
	struct env *e = *state = env_start(deny);
	char line[160];
	size_t i;

	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 8\n"));
	/* One bad document in the stream, one bad item in the List. */
	assert_true(wait_metric(e, "\nnuma_extender_inventory_load_errors_total 2\n"));
	/* Each logged with its place in the file. */
	assert_true(spawn_log_contains(e->log, "multi-doc.yaml (document 2, node stream-worker-b): "
					       "zones[0].resources[0].allocatable"));
	assert_true(spawn_log_contains(e->log, "list-one-bad.yaml (node list-worker-1): "
					       "items[1].zones[0].resources[0].name"));
	for (i = 0; i < NPODS; i++)
		one_pod(e, &pods[i]);
	/* Every pod met the two bad nodes and the ghost without an inventory. */
	snprintf(line, sizeof line, "\nnuma_extender_nodes_total{verb=\"filter\",outcome=\"noInventory\"} %zu\n",
		 (NBAD + 1) * NPODS);
	assert_true(wait_metric(e, line));
	/* Loading and judging left the error count alone. */
	assert_true(wait_metric(e, "\nnuma_extender_inventory_load_errors_total 2\n"));
	kill(e->pid, SIGTERM);
	assert_int_equal(spawn_wait_exit(e->pid, DEADLINE_S), 0);
	e->pid = -1;
}

static void every_shape_missing_allowed(void **state)
{
	every_shape(state, false);
}

static void every_shape_missing_denied(void **state)
{
	every_shape(state, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_shape_missing_allowed, env_free),
		cmocka_unit_test_teardown(every_shape_missing_denied, env_free),
	};

	return cmocka_run_group_tests_name("serve_exporters", tests, NULL, NULL);
}
