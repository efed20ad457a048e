/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender explain --dra PATH`, run as a process ($BIN) on the
 * fixtures of tests/data/dra/explain: three GPU nodes of two NUMA nodes
 * whose CPUs fit NUMA 0 alone, with the free GPU on NUMA 1 (gpu-mis, gpu-0
 * taken by another claim), on NUMA 0 (gpu-ok) or only on NUMA 1 (gpu-far);
 * a pod with one GPU claim, one whose claim's selector is outside the CEL
 * subset, one without claims. Checked: the JSON "dra" key field by field,
 * admit and reason under dra.alignment: require, the table's lines, that
 * without claims or without --dra every byte is as before, and bad --dra
 * input. */
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

#include "tests/support/spawn.h"

#define DEADLINE_S 30
#define D "tests/data/dra/explain/"
#define MAX_ARGS 16

struct run {
	int status;
	char *out, *err;
};

/* Runs "$BIN explain ARGS..." (NULL-terminated) to its end. */
static void explain(struct run *r, ...)
{
	const char *argv[MAX_ARGS + 3];
	size_t n = 0;
	va_list ap;

	argv[n++] = spawn_serve_bin();
	argv[n++] = "explain";
	va_start(ap, r);
	for (const char *a = va_arg(ap, const char *); a != NULL; a = va_arg(ap, const char *)) {
		assert_true(n < MAX_ARGS + 2);
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	r->status = spawn_run(argv, DEADLINE_S, &r->out, &r->err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* The node's entry in explain's JSON. */
static struct json_object *node_of(struct json_object *root, const char *name)
{
	struct json_object *nodes = json_object_object_get(root, "nodes");
	size_t i;

	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);

		if (strcmp(json_object_get_string(json_object_object_get(n, "node")), name) == 0)
			return n;
	}
	fail_msg("no node %s in %s", name, json_object_to_json_string(root));
	return NULL;
}

/* node's member key equals the JSON text want, exactly. */
static void assert_member(struct json_object *node, const char *key, const char *want)
{
	struct json_object *w = json_tokener_parse(want), *got = NULL;

	assert_non_null(w);
	if (!json_object_object_get_ex(node, key, &got))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(node));
	if (!json_object_equal(w, got))
		fail_msg("\"%s\" is\n%s\nexpected\n%s", key, json_object_to_json_string(got), want);
	json_object_put(w);
}

static struct json_object *parse_or_fail(const struct run *r)
{
	struct json_object *o = json_tokener_parse(r->out);

	if (o == NULL)
		fail_msg("not JSON:\n%s\nstderr: %s", r->out, r->err);
	return o;
}

#define MISALIGNED_WHY "NUMA: DRA devices gpu-1 (gpu.nvidia.com) on NUMA 1, container \\\"train\\\" CPUs on NUMA 0"

static void json_says_where_the_devices_are(void **state)
{
	struct json_object *root, *mis, *ok, *parts;
	struct run r;

	(void)state;
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", D "dra", "-o", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	root = parse_or_fail(&r);
	mis = node_of(root, "gpu-mis");
	ok = node_of(root, "gpu-ok");
	assert_member(mis, "dra",
		      "{\"predictable\": true, \"why\": \"" MISALIGNED_WHY "\", \"claims\": [{\"name\": \"gpu\", "
		      "\"devices\": [{\"request\": \"gpu\", \"driver\": \"gpu.nvidia.com\", \"pool\": \"gpu-mis\", "
		      "\"device\": \"gpu-1\", \"numaNodes\": [1]}]}], \"aligned\": false}");
	assert_member(ok, "dra",
		      "{\"predictable\": true, \"why\": \"\", \"claims\": [{\"name\": \"gpu\", "
		      "\"devices\": [{\"request\": \"gpu\", \"driver\": \"gpu.nvidia.com\", \"pool\": \"gpu-ok\", "
		      "\"device\": \"gpu-0\", \"numaNodes\": [0]}]}], \"aligned\": true}");
	/* prefer (the default): both admitted, the DRA part of the score
	 * 0 where misaligned, 100 where aligned. */
	assert_member(mis, "admit", "true");
	assert_member(ok, "admit", "true");
	parts = json_object_object_get(mis, "scoreParts");
	assert_int_equal(json_object_array_length(parts), 3);
	assert_member(json_object_array_get_idx(parts, 2), "resource", "\"dra\"");
	assert_member(json_object_array_get_idx(parts, 2), "score100", "0");
	assert_member(json_object_array_get_idx(json_object_object_get(ok, "scoreParts"), 2), "score100",
		      "100");
	assert_member(mis, "score", "5");
	assert_member(ok, "score", "8");
	json_object_put(root);
	run_free(&r);
}

static void require_rejects_the_misaligned_node(void **state)
{
	struct json_object *root, *mis, *ok, *far;
	struct run r;

	(void)state;
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--nrt", D "nrt-far.yaml", "--dra",
		D "dra", "--config", D "require.yaml", "-o", "json", NULL);
	assert_int_equal(r.status, 0);
	root = parse_or_fail(&r);
	mis = node_of(root, "gpu-mis");
	ok = node_of(root, "gpu-ok");
	far = node_of(root, "gpu-far");
	assert_member(mis, "admit", "false");
	assert_member(mis, "reason", "\"DRAAlignment\"");
	assert_member(mis, "message", "\"" MISALIGNED_WHY "\"");
	/* gpu-0 on NUMA 0 is only taken: preemption could free it. */
	assert_member(mis, "unresolvable", "false");
	assert_member(mis, "score", "0");
	assert_member(mis, "scoreNote", "\"rejected\"");
	assert_member(mis, "containers", "[{\"name\": \"train\", \"numaNodes\": [0], \"preferred\": true}]");
	assert_member(json_object_object_get(mis, "dra"), "aligned", "false");
	assert_member(ok, "admit", "true");
	assert_member(ok, "reason", "\"\"");
	assert_member(json_object_object_get(ok, "dra"), "aligned", "true");
	/* No GPU on NUMA 0 at all: nothing preemption could do. */
	assert_member(far, "admit", "false");
	assert_member(far, "reason", "\"DRAAlignment\"");
	assert_member(far, "unresolvable", "true");
	assert_member(far, "message",
		      "\"NUMA: DRA devices gpu-7 (gpu.nvidia.com) on NUMA 1, container \\\"train\\\" CPUs on NUMA 0\"");
	json_object_put(root);
	run_free(&r);
}

static void a_selector_outside_the_subset_is_unpredictable(void **state)
{
	const char *const nodes[] = { "gpu-mis", "gpu-ok" };
	struct json_object *root;
	struct run r;
	size_t i;

	(void)state;
	explain(&r, "--pod", D "pod-odd.yaml", "--nrt", D "nrt.yaml", "--dra", D "dra", "--config",
		D "require.yaml", "-o", "json", NULL);
	assert_int_equal(r.status, 0);
	root = parse_or_fail(&r);
	for (i = 0; i < 2; i++) {
		struct json_object *n = node_of(root, nodes[i]);

		/* Not predicted is not misaligned: require admits. */
		assert_member(n, "admit", "true");
		assert_member(n, "dra",
			      "{\"predictable\": false, \"why\": \"DRA: cannot predict the allocator: request "
			      "selector \\\"device.attributes['gpu.nvidia.com'].index in [0, 1, 2, 3].filter...\\\" "
			      "is outside the supported CEL subset: 1:59: the filter() macro is not supported\", "
			      "\"claims\": [], \"aligned\": null}");
	}
	json_object_put(root);
	run_free(&r);
}

static void the_table_shows_devices_and_verdict(void **state)
{
	struct run r;

	(void)state;
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", D "dra", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "node gpu-mis  (policy single-numa-node, scope container)\n"
				      "  available/allocatable              NUMA 0          NUMA 1          pod asks\n"
				      "  cpu                                16/16           4/16            8\n"
				      "  memory                             64Gi/64Gi       32Gi/64Gi       8Gi\n"
				      "  container train                    NUMA 0, preferred\n"
				      "  claim gpu                          gpu: gpu-1 (gpu.nvidia.com) on NUMA 1\n"
				      "  dra: misaligned: NUMA: DRA devices gpu-1 (gpu.nvidia.com) on NUMA 1, "
				      "container \"train\" CPUs on NUMA 0\n"
				      "  verdict: admit, score 5/10 (cpu 50 (weight 1), memory 87 (weight 1), "
				      "dra 0 (weight 1))\n"));
	assert_non_null(strstr(r.out, "  claim gpu                          gpu: gpu-0 (gpu.nvidia.com) on NUMA 0\n"
				      "  dra: aligned (gpu-0 on NUMA 0)\n"));
	run_free(&r);
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--nrt", D "nrt-far.yaml", "--dra",
		D "dra", "--config", D "require.yaml", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  verdict: reject (DRAAlignment): NUMA: DRA devices gpu-1 (gpu.nvidia.com) on "
				      "NUMA 1, container \"train\" CPUs on NUMA 0\n"));
	assert_non_null(strstr(r.out, "  dra: misaligned (unresolvable): NUMA: DRA devices gpu-7"));
	assert_non_null(strstr(r.out, "  verdict: reject (DRAAlignment, unresolvable): NUMA: DRA devices gpu-7"));
	run_free(&r);
	explain(&r, "--pod", D "pod-odd.yaml", "--nrt", D "nrt.yaml", "--dra", D "dra", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  container train                    NUMA 0, preferred\n"
				      "  dra: unpredictable: DRA: cannot predict the allocator: request selector"));
	assert_null(strstr(r.out, "  claim "));
	run_free(&r);
}

/* The operator guide's worked example prints explain's very output. */
static void the_guide_example_is_what_explain_prints(void **state)
{
	static const char start[] = "it prints:\n\n```\n";
	FILE *f = fopen("docs/operator-guide.md", "rb");
	char *guide, *block, *end;
	struct run r;
	long len;

	(void)state;
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	guide = malloc((size_t)len + 1);
	assert_non_null(guide);
	assert_int_equal(fread(guide, 1, (size_t)len, f), (size_t)len);
	guide[len] = '\0';
	fclose(f);
	block = strstr(guide, "### A worked example: a GPU on the wrong NUMA node");
	assert_non_null(block);
	block = strstr(block, start);
	assert_non_null(block);
	block += sizeof start - 1;
	end = strstr(block, "```\n");
	assert_non_null(end);
	*end = '\0';
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--nrt", D "nrt-far.yaml", "--dra",
		D "dra", "--config", D "require.yaml", NULL);
	assert_int_equal(r.status, 0);
	/* Each node's lines end in a blank line; the guide's block does not. */
	len = (long)strlen(r.out);
	while (len > 1 && r.out[len - 1] == '\n' && r.out[len - 2] == '\n')
		r.out[--len] = '\0';
	assert_string_equal(r.out, block);
	run_free(&r);
	free(guide);
}

/* Both runs' stdout, stderr and status are the same. */
static void assert_same_run(const char *what, const struct run *a, const struct run *b)
{
	assert_int_equal(a->status, b->status);
	if (strcmp(a->out, b->out) != 0)
		fail_msg("%s: stdout differs:\n%s\n---\n%s", what, a->out, b->out);
	assert_string_equal(a->err, b->err);
}

static void without_claims_nothing_changes(void **state)
{
	static const char *const formats[] = { "text", "json" };
	struct run before, after;
	size_t f;

	(void)state;
	for (f = 0; f < 2; f++) {
		/* An existing pod and NRT fixture, and a --dra directory that
		 * holds nothing the pod claims. */
		explain(&before, "--pod", "config/pods/dsa-cpu.yaml", "--nrt", "config/examples/worker-a17.yaml",
			"--nrt", "config/examples/worker-dsa-split.yaml", "-o", formats[f], NULL);
		explain(&after, "--pod", "config/pods/dsa-cpu.yaml", "--nrt", "config/examples/worker-a17.yaml",
			"--nrt", "config/examples/worker-dsa-split.yaml", "-o", formats[f], "--dra", D "dra",
			"--config", D "require.yaml", NULL);
		assert_int_equal(before.status, 0);
		assert_same_run(formats[f], &before, &after);
		run_free(&before);
		run_free(&after);
		/* A pod without claims on the DRA nodes themselves. */
		explain(&before, "--pod", D "pod-plain.yaml", "--nrt", D "nrt.yaml", "-o", formats[f], NULL);
		explain(&after, "--pod", D "pod-plain.yaml", "--nrt", D "nrt.yaml", "-o", formats[f], "--dra",
			D "dra", NULL);
		assert_int_equal(before.status, 0);
		assert_same_run(formats[f], &before, &after);
		run_free(&before);
		run_free(&after);
	}
	/* A pod with claims but no --dra: no DRA key, no DRA line. */
	explain(&before, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "-o", "json", NULL);
	assert_int_equal(before.status, 0);
	assert_null(strstr(before.out, "\"dra\""));
	run_free(&before);
	explain(&before, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", NULL);
	assert_int_equal(before.status, 0);
	assert_null(strstr(before.out, "dra"));
	assert_null(strstr(before.out, "claim"));
	run_free(&before);
}

static void bad_dra_input_is_named(void **state)
{
	struct json_object *root;
	struct run r;

	(void)state;
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", D "no-such-dir", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "numa-extender explain: --dra: " D "no-such-dir: "));
	assert_non_null(strstr(r.err, "No such file or directory"));
	run_free(&r);
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", D "dra", "--dra",
		D "bad/unparsable.yaml", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "numa-extender explain: --dra: " D "bad/unparsable.yaml:4:3: "));
	run_free(&r);
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--dra needs a value"));
	run_free(&r);
	/* One bad object among good ones: a warning each, the rest stands. */
	explain(&r, "--pod", D "pod-train.yaml", "--nrt", D "nrt.yaml", "--dra", D "bad/one-bad-object.yaml",
		"-o", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "warning: --dra " D "bad/one-bad-object.yaml: ResourceClaim ml/broken left out: "));
	assert_non_null(strstr(r.err, "warning: --dra " D "bad/one-bad-object.yaml: ResourceSlice bad-slice left out: "));
	assert_non_null(strstr(r.err, "DeviceClass \"evil\\x1b[31mred\" left out: "));
	assert_null(strchr(r.err, '\x1b'));
	root = parse_or_fail(&r);
	assert_member(json_object_object_get(node_of(root, "gpu-mis"), "dra"), "aligned", "false");
	json_object_put(root);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_says_where_the_devices_are),
		cmocka_unit_test(require_rejects_the_misaligned_node),
		cmocka_unit_test(a_selector_outside_the_subset_is_unpredictable),
		cmocka_unit_test(the_table_shows_devices_and_verdict),
		cmocka_unit_test(the_guide_example_is_what_explain_prints),
		cmocka_unit_test(without_claims_nothing_changes),
		cmocka_unit_test(bad_dra_input_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
