/* SPDX-License-Identifier: Apache-2.0 */
/* The numa-extender binary itself: `explain` on real files, its output
 * formats and its exit codes. The binary path comes from $BIN (set by
 * tests/run-tests.sh), default bin/numa-extender. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/http_client.h"

struct run {
	int status;
	char out[65536];
	char err[4096];
};

/* Runs "$BIN args", capturing stdout and stderr separately. */
static void run(struct run *r, const char *args)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
	char cmd[2048], errpath[] = "/tmp/numa-cli-XXXXXX";
	size_t n;
	FILE *p, *e;
	int fd = mkstemp(errpath);

	assert_true(fd >= 0);
	snprintf(cmd, sizeof cmd, "%s %s 2>%s", bin, args, errpath);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof r->out - 1, p);
	r->out[n] = '\0';
	r->status = WEXITSTATUS(pclose(p));
	e = fdopen(fd, "r");
	n = fread(r->err, 1, sizeof r->err - 1, e);
	r->err[n] = '\0';
	fclose(e);
	unlink(errpath);
}

static void cli_explain_json_over_a_directory(void **state)
{
	struct run *r = malloc(sizeof *r);
	struct json_object *o, *nodes;
	size_t i;
	bool saw_reject = false;

	(void)state;
	run(r, "explain --pod config/pods/dsa-cpu.yaml --nrt config/examples -o json");
	assert_int_equal(r->status, 0);
	o = json_tokener_parse(r->out);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "pod")),
			    "dataplane/dsa-app");
	nodes = json_object_object_get(o, "nodes");
	assert_true(json_object_array_length(nodes) >= 6);
	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);

		if (strcmp(json_object_get_string(json_object_object_get(n, "node")),
			   "worker-dsa-split") == 0) {
			assert_false(json_object_get_boolean(json_object_object_get(n, "admit")));
			assert_string_equal(
				json_object_get_string(json_object_object_get(n, "reason")),
				"TopologyAffinityError");
			saw_reject = true;
		}
	}
	assert_true(saw_reject);
	json_object_put(o);
	free(r);
}

static void cli_explain_text_table(void **state)
{
	struct run *r = malloc(sizeof *r);

	(void)state;
	run(r, "explain --pod config/pods/dsa-cpu.yaml --nrt config/examples/worker-dsa-split.yaml");
	assert_int_equal(r->status, 0);
	assert_non_null(strstr(r->out, "node worker-dsa-split  (policy single-numa-node, scope container)"));
	assert_non_null(strstr(r->out, "cpu                                2/14            16/16           8"));
	assert_non_null(strstr(r->out, "verdict: reject (TopologyAffinityError): container \"dsa-app\": "
				       "cannot align cpu=8, dsa.intel.com/wq-user-shared=1 on one NUMA node"));
	free(r);
}

static void cli_explain_several_nrt_flags(void **state)
{
	struct run *r = malloc(sizeof *r);
	struct json_object *o;

	(void)state;
	run(r, "explain --pod config/pods/gpu-2.yaml --nrt config/examples/worker-gpu4.yaml "
	       "--nrt config/examples/worker-plain.yaml -o json");
	assert_int_equal(r->status, 0);
	o = json_tokener_parse(r->out);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "nodes")), 2);
	json_object_put(o);
	free(r);
}

static void cli_explain_scores_admitted_nodes(void **state)
{
	struct run *r = malloc(sizeof *r);
	FILE *f;

	(void)state;
	run(r, "explain --pod config/pods/gpu-2.yaml --nrt config/examples/worker-gpu4.yaml");
	assert_int_equal(r->status, 0);
	/* LeastAllocated by default: (75 + 74 + 0) / 3 = 49 -> 5. */
	assert_non_null(strstr(r->out, "verdict: admit, score 5/10 (cpu 75 (weight 1), memory 74 (weight 1), nvidia.com/gpu 0 (weight 1))"));
	f = fopen("/tmp/numa-cli-fewest.yaml", "w");
	fputs("scoring: {strategy: LeastNUMANodes}\n", f);
	fclose(f);
	run(r, "explain --pod config/pods/gpu-2.yaml --nrt config/examples/worker-gpu4.yaml "
	       "--config /tmp/numa-cli-fewest.yaml -o json");
	assert_int_equal(r->status, 0);
	assert_non_null(strstr(r->out, "\"score\": 10"));
	unlink("/tmp/numa-cli-fewest.yaml");
	free(r);
}

/* docs/tools.md shows explain's JSON: the block after the sentence that
 * names this test is the real output of the run it names. */
static void cli_explain_json_is_as_documented(void **state)
{
	struct run *r = malloc(sizeof *r);
	char *doc = read_file_or_die("docs/tools.md", NULL), *at, *end;
	struct json_object *documented, *real;

	(void)state;
	at = strstr(doc, "prints exactly (`test_cli` compares):");
	assert_non_null(at);
	at = strstr(at, "```json\n");
	assert_non_null(at);
	at += 8;
	end = strstr(at, "\n```");
	assert_non_null(end);
	*end = '\0';
	documented = json_tokener_parse(at);
	assert_non_null(documented);
	run(r, "explain --pod config/pods/dsa-cpu.yaml --nrt config/examples/worker-a17.yaml "
	       "--nrt config/examples/worker-dsa-split.yaml -o json");
	assert_int_equal(r->status, 0);
	real = json_tokener_parse(r->out);
	assert_non_null(real);
	if (!json_object_equal(documented, real))
		fail_msg("docs/tools.md shows explain's JSON as\n%s\nbut it prints\n%s", at, r->out);
	json_object_put(documented);
	json_object_put(real);
	free(doc);
	free(r);
}

static void expect_error(const char *args, const char *message)
{
	struct run *r = malloc(sizeof *r);

	run(r, args);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->out, "");
	if (strstr(r->err, message) == NULL)
		fail_msg("stderr \"%s\" lacks \"%s\"", r->err, message);
	free(r);
}

static void cli_explain_rejects_bad_input(void **state)
{
	(void)state;
	expect_error("explain --pod config/pods/gpu-2.yaml --nrt tests/data/decode/bad/w1.yaml",
		     "w1.yaml: zones[1].resources[0].available: \"12x\": not a quantity\n");
	expect_error("explain --pod tests/data/no-such-pod.yaml --nrt config/examples",
		     "tests/data/no-such-pod.yaml: cannot open");
	expect_error("explain --pod config/pods/gpu-2.yaml --nrt tests/data/decode/nodata",
		     "no NodeResourceTopology object found");
	expect_error("explain --pod config/pods/gpu-2.yaml", "--nrt is required\nusage: numa-extender explain");
	expect_error("explain --pod config/pods/gpu-2.yaml --nrt config/examples -o yaml",
		     "-o yaml: expected json or text");
	expect_error("explain --pod", "--pod needs a value");
	expect_error("explain --frobnicate", "unknown argument \"--frobnicate\"");
	expect_error("frobnicate", "unknown command \"frobnicate\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cli_explain_json_over_a_directory),
		cmocka_unit_test(cli_explain_text_table),
		cmocka_unit_test(cli_explain_several_nrt_flags),
		cmocka_unit_test(cli_explain_rejects_bad_input),
		cmocka_unit_test(cli_explain_scores_admitted_nodes),
		cmocka_unit_test(cli_explain_json_is_as_documented),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
