/* SPDX-License-Identifier: Apache-2.0 */
/* Objects shaped like real exporters' output (tests/data/exporters) read as
 * they mean them: millicore CPUs (fake-gpu-operator, koordlet), zones: []
 * under policy none (koordlet), allocatable-0 CPUs without the static CPU
 * manager (RTE, NFD), hugepage sizes some zones omit (NFD), and streams and
 * lists where one bad item stands alone. Each goes through decode + judge
 * (explain_write, as test_scenarios does) and through `numa-extender
 * explain` as a process ($BIN, default bin/numa-extender). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "extender/cmd/explain.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"

#define DIR "tests/data/exporters/"

/* One expected node: admitted on numa (-1: no affinity: policy none, or
 * single-numa-node on a one-NUMA machine, where the kubelet stores nil for a
 * mask that covers every node), rejected with reason, or invalid with error
 * containing text. */
struct want {
	const char *node;
	const char *outcome; /* "admit", "reject" or "invalid" */
	int numa;
	const char *text;    /* reason, or part of the error */
};

struct exporter_case {
	const char *nrt;
	const char *pod;
	struct want nodes[4];
	size_t nnodes;
	int status;          /* explain's exit status */
};

static const struct exporter_case cases[] = {
	{ "fake-gpu-operator.yaml", "pod-gpu.yaml",
	  { { "fake-gpu-node-1", "admit", -1, NULL } }, 1, 0 },
	{ "koordlet-empty-zones.yaml", "pod-cpu.yaml",
	  { { "koord-worker-new", "admit", -1, NULL } }, 1, 0 },
	{ "rte-no-static-cpu.yaml", "pod-cpu.yaml",
	  { { "rte-worker-1", "admit", 0, NULL } }, 1, 0 },
	{ "nfd-omitted-hugepages.yaml", "pod-hugepages.yaml",
	  { { "nfd-worker-2", "admit", 1, NULL } }, 1, 0 },
	{ "multi-doc.yaml", "pod-cpu.yaml",
	  { { "stream-worker-a", "admit", 0, NULL },
	    { "stream-worker-b", "invalid", 0,
	      DIR "multi-doc.yaml (document 2, node stream-worker-b): zones[0].resources[0]"
		  ".allocatable: \"eight\": not a quantity" },
	    { "stream-worker-c", "admit", 0, NULL } }, 3, 1 },
	{ "list-one-bad.yaml", "pod-cpu.yaml",
	  { { "list-worker-0", "admit", -1, NULL },
	    { "list-worker-1", "invalid", 0,
	      DIR "list-one-bad.yaml (node list-worker-1): items[1].zones[0].resources[0].name: "
		  "\"example.com/gpu_\": not a valid resource name" },
	    { "list-worker-2", "reject", 0, "TopologyAffinityError" } }, 3, 1 },
};

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("missing \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static void check_report(const struct exporter_case *c, const char *json)
{
	struct json_object *root = json_tokener_parse(json), *nodes;
	size_t i;

	if (root == NULL)
		fail_msg("%s: not JSON: %s", c->nrt, json);
	nodes = member(root, "nodes");
	assert_int_equal(json_object_array_length(nodes), c->nnodes);
	for (i = 0; i < c->nnodes; i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);
		const struct want *w = &c->nodes[i];

		assert_string_equal(json_object_get_string(member(n, "node")), w->node);
		if (strcmp(w->outcome, "invalid") == 0) {
			const char *err = json_object_get_string(member(n, "error"));

			if (strstr(err, w->text) == NULL)
				fail_msg("%s: error \"%s\" lacks \"%s\"", w->node, err, w->text);
			continue;
		}
		if (json_object_get_boolean(member(n, "admit")) != (strcmp(w->outcome, "admit") == 0))
			fail_msg("%s: %s", w->node, json_object_to_json_string(n));
		if (strcmp(w->outcome, "reject") == 0) {
			assert_string_equal(json_object_get_string(member(n, "reason")), w->text);
		} else {
			struct json_object *ctr = json_object_array_get_idx(member(n, "containers"), 0);
			struct json_object *ids = member(ctr, "numaNodes");

			if (w->numa < 0) {
				assert_int_equal(json_object_array_length(ids), 0);
			} else {
				assert_int_equal(json_object_array_length(ids), 1);
				assert_int_equal(json_object_get_int(json_object_array_get_idx(ids, 0)),
						 w->numa);
			}
		}
	}
	json_object_put(root);
}

/* decode + judge in process. */
static void exporters_through_explain_write(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const struct exporter_case *c = &cases[k];
		struct nrt_object *objs = NULL;
		struct pod_spec pod;
		struct errmsg msg;
		char path[256], *out = NULL;
		size_t nobjs = 0, len = 0;
		enum err rc;
		FILE *f;

		snprintf(path, sizeof path, DIR "%s", c->nrt);
		if (nrt_load_path(path, &objs, &nobjs, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		assert_int_equal(nobjs, c->nnodes);
		snprintf(path, sizeof path, DIR "%s", c->pod);
		if (pod_load_file(path, &pod, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		f = open_memstream(&out, &len);
		assert_non_null(f);
		rc = explain_write(&pod, objs, nobjs, EXPLAIN_JSON, f, &msg);
		fclose(f);
		assert_int_equal(rc, c->status == 0 ? ERR_OK : ERR_INVALID);
		check_report(c, out);
		free(out);
		nrt_objects_free(objs, nobjs);
		pod_spec_cleanup(&pod);
	}
}

/* The same through the binary: stdout is the whole report; a file with a bad
 * item exits 1 and names it on stderr. */
static void exporters_through_the_cli(void **state)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
	size_t k;

	(void)state;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const struct exporter_case *c = &cases[k];
		char cmd[1024], *out = malloc(65536);
		size_t n;
		FILE *p;
		int status;

		assert_non_null(out);
		snprintf(cmd, sizeof cmd,
			 "%s explain --pod " DIR "%s --nrt " DIR "%s -o json 2>/dev/null", bin, c->pod,
			 c->nrt);
		p = popen(cmd, "r");
		assert_non_null(p);
		n = fread(out, 1, 65535, p);
		out[n] = '\0';
		status = WEXITSTATUS(pclose(p));
		assert_int_equal(status, c->status);
		check_report(c, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exporters_through_explain_write),
		cmocka_unit_test(exporters_through_the_cli),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
