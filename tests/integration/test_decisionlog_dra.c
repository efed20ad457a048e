/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log with DRA: serve (dra.enabled, DRA objects from
 * inventory.dra.dir, NRTs from tests/data/server/nrt) prioritizes a pod
 * with a GPU claim on four nodes: one where the free GPU sits on the NUMA
 * node of the pod's CPUs, one where it does not (the aligned GPU there is
 * held by another claim), two without GPUs; and a pod without claims. The log carries the
 * DRA objects once each, the nodes' DRA state and the decision's "dra"
 * member; `replay` re-decides the same scores under the same config and
 * other ones under alignment off or another weight of the "dra" part; a
 * damaged DRA record is reported, costs its decision alone. A pod without
 * claims logs the same bytes as with DRA off. Run from the repository
 * root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/declog_check.h"
#include "tests/support/free_port.h"
#include "tests/support/http_client.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/spawn.h"

static char dir[64];
static pid_t child = -1;

static int setup(void **state)
{
	(void)state;
	/* A new folder per test: the template is filled in place. */
	snprintf(dir, sizeof dir, "/tmp/numa-declog-dra-XXXXXX");
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	spawn_cleanup(child, dir, NULL, NULL);
	child = -1;
	return 0;
}

/* worker-gpu-017 admits the pod's CPUs on NUMA 0: its GPU there is held
 * by ml/held, the free one is on NUMA 1. worker-gpu-018 admits them on
 * NUMA 1 only, where its GPU is. A slice for every node of another driver
 * reaches both. */
static const char dra_objects[] =
	"apiVersion: resource.k8s.io/v1\n"
	"kind: DeviceClass\n"
	"metadata: {name: gpu.nvidia.com}\n"
	"spec:\n"
	"  selectors:\n"
	"  - cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: worker-gpu-017-gpu}\n"
	"spec:\n"
	"  driver: gpu.nvidia.com\n"
	"  nodeName: worker-gpu-017\n"
	"  pool: {name: worker-gpu-017, generation: 1, resourceSliceCount: 1}\n"
	"  devices:\n"
	"  - name: gpu-0\n"
	"    attributes: {resource.kubernetes.io/numaNode: {int: 0}}\n"
	"  - name: gpu-1\n"
	"    attributes: {resource.kubernetes.io/numaNode: {int: 1}}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: worker-gpu-018-gpu}\n"
	"spec:\n"
	"  driver: gpu.nvidia.com\n"
	"  nodeName: worker-gpu-018\n"
	"  pool: {name: worker-gpu-018, generation: 1, resourceSliceCount: 1}\n"
	"  devices:\n"
	"  - name: gpu-0\n"
	"    attributes: {resource.kubernetes.io/numaNode: {int: 1}}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: fabric}\n"
	"spec:\n"
	"  driver: fabric.example.com\n"
	"  allNodes: true\n"
	"  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"
	"  devices:\n"
	"  - name: link-0\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceClaim\n"
	"metadata: {name: one-gpu, namespace: ml}\n"
	"spec:\n"
	"  devices:\n"
	"    requests:\n"
	"    - name: gpu\n"
	"      exactly: {deviceClassName: gpu.nvidia.com}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceClaim\n"
	"metadata: {name: held, namespace: ml}\n"
	"spec:\n"
	"  devices:\n"
	"    requests:\n"
	"    - name: gpu\n"
	"      exactly: {deviceClassName: gpu.nvidia.com}\n"
	"status:\n"
	"  allocation:\n"
	"    devices:\n"
	"      results:\n"
	"      - {request: gpu, driver: gpu.nvidia.com, pool: worker-gpu-017, device: gpu-0}\n";

static const char gpu_pod[] =
	"{\"Pod\":{\"metadata\":{\"name\":\"train-0\",\"namespace\":\"ml\",\"uid\":\"u-train-0\"},"
	"\"spec\":{\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"one-gpu\"}],"
	"\"containers\":[{\"name\":\"train\",\"resources\":{"
	"\"requests\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},"
	"\"claims\":[{\"name\":\"gpu\"}]}}]}},"
	"\"NodeNames\":[\"worker-gpu-017\",\"worker-gpu-018\",\"worker-gpu-019\",\"worker-gpu-020\"]}";

static const char plain_pod[] =
	"{\"Pod\":{\"metadata\":{\"name\":\"web-0\",\"namespace\":\"ml\",\"uid\":\"u-web-0\"},"
	"\"spec\":{\"containers\":[{\"name\":\"web\",\"resources\":{"
	"\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]}},"
	"\"NodeNames\":[\"worker-gpu-017\",\"worker-gpu-018\"]}";

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A numa-extender config: dra section text (NULL: DRA off) and a weight
 * for the "dra" part (0: none named). */
static void write_config(const char *path, int port, const char *decisions, const char *dra,
			 int dra_weight)
{
	FILE *f = fopen(path, "w");
	char dradir[300];

	assert_non_null(f);
	snprintf(dradir, sizeof dradir, "%s/dra", dir);
	fprintf(f, "listen: \"127.0.0.1:%d\"\nurlPrefix: /v1\nlog: {level: info}\n", port);
	fprintf(f, "inventory: {source: files, dir: tests/data/server/nrt, pollInterval: 1h%s%s%s}\n",
		dra ? ", dra: {dir: " : "", dra ? dradir : "", dra ? "}" : "");
	if (dra)
		fprintf(f, "dra: %s\n", dra);
	if (dra_weight)
		fprintf(f, "scoring: {resources: [{name: dra, weight: %d}]}\n", dra_weight);
	if (decisions)
		fprintf(f, "decisionLog: {path: %s}\n", decisions);
	assert_int_equal(fclose(f), 0);
}

/* Runs serve on config, sends each body to prioritize, stops it (the log
 * drained). replies[i]: the reply to bodies[i] (caller frees). */
static void serve_prioritize(const char *name, const char *dra, const char *const *bodies, size_t n,
			     char **replies)
{
	char config[300], log[300], decisions[300];
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", config, NULL };
	int port = free_port();
	size_t i;

	snprintf(config, sizeof config, "%s/%s.yaml", dir, name);
	snprintf(log, sizeof log, "%s/%s.log", dir, name);
	snprintf(decisions, sizeof decisions, "%s/%s.jsonl", dir, name);
	write_config(config, port, decisions, dra, 0);
	child = spawn_process(argv, log);
	if (!http_local_wait_for(port, "/readyz", "", 30))
		fail_msg("serve never became ready; its log is %s", log);
	for (i = 0; i < n; i++)
		assert_int_equal(http_local_request(port, "POST", "/v1/prioritize", bodies[i], &replies[i]),
				 200);
	assert_int_equal(kill(child, SIGTERM), 0);
	assert_int_equal(spawn_wait_exit(child, 30), 0);
	child = -1;
}

static int64_t score_of(const char *reply, const char *host)
{
	struct json_object *a = json_tokener_parse(reply);
	int64_t v = -1;
	size_t i;

	assert_non_null(a);
	for (i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *h = NULL, *s = NULL;

		if (json_object_object_get_ex(e, "Host", &h) && strcmp(json_object_get_string(h), host) == 0 &&
		    json_object_object_get_ex(e, "Score", &s))
			v = json_object_get_int64(s);
	}
	json_object_put(a);
	assert_true(v >= 0);
	return v;
}

static size_t count_type(struct json_object *lines, const char *type)
{
	size_t i, n = 0;

	for (i = 0; i < json_object_array_length(lines); i++) {
		struct json_object *t = NULL;

		if (json_object_object_get_ex(json_object_array_get_idx(lines, i), "type", &t) &&
		    strcmp(json_object_get_string(t), type) == 0)
			n++;
	}
	return n;
}

/* The decision line of pod name in the file (a new string; its time cut). */
static char *decision_line(const char *path, const char *pod)
{
	char *text = read_file_or_die(path, NULL), *line, *save = NULL, *out = NULL;
	char want[100];

	snprintf(want, sizeof want, "\"name\":\"%s\"", pod);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *t;

		if (strncmp(line, "{\"type\":\"decision\"", 18) != 0 || strstr(line, want) == NULL)
			continue;
		/* "time":"2026-...Z": the same length every time. */
		t = strstr(line, "\"time\":\"");
		assert_non_null(t);
		memset(t + 8, 'T', 24);
		out = strdup(line);
		break;
	}
	free(text);
	assert_non_null(out);
	return out;
}

static int replay(const char *log, const char *config, char **out)
{
	char args[700];

	snprintf(args, sizeof args, "--log %s%s%s -o json", log, config ? " --config " : "",
		 config ? config : "");
	return declog_replay(spawn_serve_bin(), args, out);
}

/* The scoreAfter of node in replay's JSON out, or -1 when unchanged. */
static int64_t replayed_score(const char *out, const char *node)
{
	const char *p = strchr(out, '{');
	struct json_object *o = json_tokener_parse(p), *changed = NULL;
	int64_t v = -1;
	size_t i, k;

	if (o == NULL)
		fail_msg("replay printed no JSON: %s", out);
	assert_true(json_object_object_get_ex(o, "changed", &changed));
	for (i = 0; i < json_object_array_length(changed); i++) {
		struct json_object *ch = NULL;

		json_object_object_get_ex(json_object_array_get_idx(changed, i), "changes", &ch);
		for (k = 0; k < json_object_array_length(ch); k++) {
			struct json_object *e = json_object_array_get_idx(ch, k), *n = NULL, *s = NULL;

			json_object_object_get_ex(e, "node", &n);
			json_object_object_get_ex(e, "scoreAfter", &s);
			if (strcmp(json_object_get_string(n), node) == 0)
				v = json_object_get_int64(s);
		}
	}
	json_object_put(o);
	return v;
}

static void replay_redecides_dra(void **state)
{
	const char *bodies[] = { gpu_pod, plain_pod };
	char *replies[2] = { NULL, NULL }, *out = NULL, why[300], path[300], log[300], cfg[300];
	struct json_object *lines;
	int64_t s17, s18;
	char *line;

	(void)state;
	snprintf(path, sizeof path, "%s/dra", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/dra/objects.yaml", dir);
	write_text(path, dra_objects);
	serve_prioritize("prefer", "{enabled: true, alignment: prefer}", bodies, 2, replies);
	/* Aligned scores above misaligned. */
	s17 = score_of(replies[0], "worker-gpu-017");
	s18 = score_of(replies[0], "worker-gpu-018");
	assert_true(s18 > s17);
	snprintf(log, sizeof log, "%s/prefer.jsonl", dir);
	lines = declog_read(log, why, sizeof why);
	if (lines == NULL)
		fail_msg("%s", why);
	/* The class, the pod's claim (not the one holding a GPU), the two GPU
	 * slices and the shared one: each once. A state per node with slices
	 * of its own; worker-gpu-019 and -020, which only the shared slice
	 * reaches, share one. */
	assert_int_equal(count_type(lines, "decision"), 2);
	assert_int_equal(count_type(lines, "draObject"), 5);
	assert_int_equal(count_type(lines, "draNode"), 3);
	json_object_put(lines);
	line = decision_line(log, "train-0");
	assert_non_null(strstr(line, ",\"dra\":{\"alignment\":\"prefer\""));
	assert_non_null(strstr(line, "{\"kind\":\"ResourceClaim\",\"namespace\":\"ml\",\"name\":\"one-gpu\""));
	free(line);
	/* The held GPU's allocation goes with worker-gpu-017's state. */
	line = read_file_or_die(log, NULL);
	assert_non_null(strstr(line, "\"allocated\":[{\"driver\":\"gpu.nvidia.com\",\"pool\":\"worker-gpu-017\",\"device\":\"gpu-0\"}]"));
	assert_null(strstr(line, "\"name\":\"held\""));
	free(line);
	/* The logged config: nothing changes. */
	assert_int_equal(replay(log, NULL, &out), 0);
	assert_non_null(strstr(out, "\"calls\":2"));
	assert_non_null(strstr(out, "\"identical\":2"));
	free(out);
	/* The same config given: nothing changes. */
	snprintf(cfg, sizeof cfg, "%s/same.yaml", dir);
	write_config(cfg, 1, NULL, "{enabled: true, alignment: prefer}", 0);
	assert_int_equal(replay(log, cfg, &out), 0);
	assert_non_null(strstr(out, "\"identical\":2"));
	free(out);
	/* Alignment off: the "dra" part goes, worker-gpu-017's score rises. */
	snprintf(cfg, sizeof cfg, "%s/off.yaml", dir);
	write_config(cfg, 1, NULL, "{enabled: true, alignment: off}", 0);
	assert_int_equal(replay(log, cfg, &out), 1);
	assert_true(replayed_score(out, "worker-gpu-017") > s17);
	assert_non_null(strstr(out, "\"identical\":1"));
	free(out);
	/* DRA not enabled: as alignment off. */
	snprintf(cfg, sizeof cfg, "%s/nodra.yaml", dir);
	write_config(cfg, 1, NULL, NULL, 0);
	assert_int_equal(replay(log, cfg, &out), 1);
	assert_true(replayed_score(out, "worker-gpu-017") > s17);
	free(out);
	/* A heavier "dra" part: worker-gpu-017 scores lower still. */
	snprintf(cfg, sizeof cfg, "%s/heavy.yaml", dir);
	write_config(cfg, 1, NULL, "{enabled: true, alignment: prefer}", 8);
	assert_int_equal(replay(log, cfg, &out), 1);
	assert_true(replayed_score(out, "worker-gpu-017") < s17);
	free(out);
	free(replies[0]);
	free(replies[1]);
}

/* Require rejects the misaligned node; replayed with prefer it passes. */
static void replay_require_to_prefer(void **state)
{
	const char *bodies[] = { gpu_pod };
	char *replies[1] = { NULL }, *out = NULL, path[300], log[300], cfg[300];

	(void)state;
	snprintf(path, sizeof path, "%s/dra", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/dra/objects.yaml", dir);
	write_text(path, dra_objects);
	serve_prioritize("require", "{enabled: true, alignment: require}", bodies, 1, replies);
	assert_int_equal(score_of(replies[0], "worker-gpu-017"), 0);
	free(replies[0]);
	snprintf(log, sizeof log, "%s/require.jsonl", dir);
	assert_int_equal(replay(log, NULL, &out), 0);
	free(out);
	snprintf(cfg, sizeof cfg, "%s/prefer.yaml", dir);
	write_config(cfg, 1, NULL, "{enabled: true, alignment: prefer}", 0);
	assert_int_equal(replay(log, cfg, &out), 1);
	assert_non_null(strstr(out, "\"verdictBefore\":\"failed\""));
	assert_non_null(strstr(out, "\"verdictAfter\":\"pass\""));
	free(out);
}

/* A damaged draObject record: reported, its decision not replayed, the
 * other decision replays. */
static void replay_reports_damaged_dra(void **state)
{
	const char *bodies[] = { gpu_pod, plain_pod };
	char *replies[2] = { NULL, NULL }, *out = NULL, *text, *p, path[300], log[300];
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/dra", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/dra/objects.yaml", dir);
	write_text(path, dra_objects);
	serve_prioritize("damaged", "{enabled: true, alignment: prefer}", bodies, 2, replies);
	free(replies[0]);
	free(replies[1]);
	snprintf(log, sizeof log, "%s/damaged.jsonl", dir);
	text = read_file_or_die(log, NULL);
	/* The 018 slice's pool count: a slice the decoder refuses. */
	p = strstr(text, "\"name\":\"worker-gpu-018\",\"generation\":1,\"resourceSliceCount\":1");
	assert_non_null(p);
	p = strstr(p, "\"resourceSliceCount\":1") + strlen("\"resourceSliceCount\":");
	*p = '0';
	f = fopen(log, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(text);
	assert_int_equal(replay(log, NULL, &out), 0);
	assert_non_null(strstr(out, "resourceSliceCount"));
	assert_non_null(strstr(out, "the log holds no draObject ResourceSlice /worker-gpu-018-gpu"));
	assert_non_null(strstr(out, "decision not replayed"));
	assert_non_null(strstr(out, "\"calls\":1"));
	assert_non_null(strstr(out, "\"draDamaged\":1"));
	assert_non_null(strstr(out, "\"notReplayed\":1"));
	free(out);
}

/* A pod without claims, and a pod with claims under alignment off, log the
 * bytes they log with DRA off. */
static void records_without_dra_unchanged(void **state)
{
	const char *bodies[] = { plain_pod, gpu_pod };
	char *replies[2], path[300], a[300], b[300], *la, *lb;
	size_t i;

	(void)state;
	snprintf(path, sizeof path, "%s/dra", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/dra/objects.yaml", dir);
	write_text(path, dra_objects);
	serve_prioritize("on", "{enabled: true, alignment: off}", bodies, 2, replies);
	free(replies[0]);
	free(replies[1]);
	serve_prioritize("nodra", NULL, bodies, 2, replies);
	free(replies[0]);
	free(replies[1]);
	snprintf(a, sizeof a, "%s/on.jsonl", dir);
	snprintf(b, sizeof b, "%s/nodra.jsonl", dir);
	for (i = 0; i < 2; i++) {
		la = decision_line(a, i == 0 ? "web-0" : "train-0");
		lb = decision_line(b, i == 0 ? "web-0" : "train-0");
		assert_string_equal(la, lb);
		assert_null(strstr(la, "\"dra\""));
		free(la);
		free(lb);
	}
	la = read_file_or_die(a, NULL);
	assert_null(strstr(la, "draObject"));
	assert_null(strstr(la, "draNode"));
	free(la);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(replay_redecides_dra, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_require_to_prefer, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_reports_damaged_dra, setup, teardown),
		cmocka_unit_test_setup_teardown(records_without_dra_unchanged, setup, teardown),
	};

	return cmocka_run_group_tests_name("decisionlog_dra", tests, NULL, NULL);
}
