/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate` on a fixture cluster (4 nodes x 2 NUMA x 4 GPUs x
 * 16 CPUs) with a burst of 40 pods of 4 CPUs + 1 GPU: exactly 32 fit, no
 * NUMA zone is over-committed, only pods that fit nowhere at their turn stay
 * unscheduled (the scheduler's own NodeResourcesFit says why), and two
 * configurations are compared side by side. */
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
#include <unistd.h>

#include "tests/support/scratch_dir.h"

static int run(const char *args, char **out)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin/numa-extender";
	char cmd[1024];
	size_t n = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	FILE *p;
	int status;

	snprintf(cmd, sizeof cmd, "%s simulate %s 2>&1", bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(buf, 1, cap - 1, p);
	buf[n] = '\0';
	status = pclose(p);
	*out = buf;
	return WEXITSTATUS(status);
}

#define CLUSTER "--nrt tests/data/simulate/nrt --pods tests/data/simulate/burst-40.yaml"

static void simulate_burst_places_exactly_what_fits(void **state)
{
	struct json_object *root, *o, *placements, *nodes;
	char *out = NULL;
	size_t i, k, first_unscheduled = 40;
	int per_numa[4][2] = { { 0 } };

	(void)state;
	assert_int_equal(run(CLUSTER " -o json", &out), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	o = json_object_array_get_idx(root, 0);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "placed")), 32);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "unschedulable")), 8);
	placements = json_object_object_get(o, "placements");
	for (i = 0; i < json_object_array_length(placements); i++) {
		struct json_object *p = json_object_array_get_idx(placements, i);
		struct json_object *node = json_object_object_get(p, "node");
		struct json_object *ids = json_object_object_get(p, "numaNodes");

		if (node == NULL) {
			if (first_unscheduled == 40)
				first_unscheduled = i;
			/* kube-scheduler's own count says no GPU is left:
			 * NodeResourcesFit rejects every node first. */
			assert_non_null(strstr(json_object_get_string(json_object_object_get(p, "reason")),
					       "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."));
			continue;
		}
		/* Placed pods come before any unscheduled one: capacity only
		 * shrinks, so once nothing fits nothing fits again. */
		assert_int_equal(first_unscheduled, 40);
		assert_int_equal(json_object_array_length(ids), 1);
		per_numa[json_object_get_string(node)[9] - '0'][json_object_get_int(json_object_array_get_idx(ids, 0))]++;
	}
	assert_int_equal(first_unscheduled, 32);
	for (i = 0; i < 4; i++)
		for (k = 0; k < 2; k++)
			assert_int_equal(per_numa[i][k], 4); /* 4 GPUs per NUMA node, never more */
	nodes = json_object_object_get(o, "nodes");
	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *res = json_object_object_get(json_object_array_get_idx(nodes, i),
								 "resources");

		for (k = 0; k < json_object_array_length(res); k++) {
			struct json_object *r = json_object_array_get_idx(res, k);
			struct json_object *per = json_object_object_get(r, "usedPercentPerNUMA");
			size_t z;

			assert_true(json_object_get_int64(json_object_object_get(r, "free")) >= 0);
			for (z = 0; z < json_object_array_length(per); z++)
				assert_in_range(json_object_get_int(json_object_array_get_idx(per, z)), 0, 100);
		}
	}
	json_object_put(root);
	free(out);
}

static void simulate_two_configs_side_by_side(void **state)
{
	char dir[] = "/tmp/numa-sim-XXXXXX", a[128], b[128], args[512], *out = NULL;
	FILE *f;

	(void)state;
	assert_int_equal(scratch_dir_make(dir), 0);
	snprintf(a, sizeof a, "%s/spread.yaml", dir);
	snprintf(b, sizeof b, "%s/pack.yaml", dir);
	f = fopen(a, "w");
	fputs("scoring: {strategy: LeastAllocated}\n", f);
	fclose(f);
	f = fopen(b, "w");
	fputs("scoring: {strategy: MostAllocated}\n", f);
	fclose(f);
	snprintf(args, sizeof args, CLUSTER " --config %s --config %s", a, b);
	assert_int_equal(run(args, &out), 0);
	assert_non_null(strstr(out, "== difference: placed 32 vs 32"));
	/* Spreading sends the second pod to another node; packing keeps it. */
	assert_non_null(strstr(out, "burst-01                                 gpu-node-1 -> gpu-node-0"));
	free(out);
	assert_int_equal(run("--nrt tests/data/simulate/nrt --pods /nonexistent.yaml", &out), 2);
	free(out);
	assert_int_equal(scratch_dir_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(simulate_burst_places_exactly_what_fits),
		cmocka_unit_test(simulate_two_configs_side_by_side),
	};

	return cmocka_run_group_tests_name("simulate", tests, NULL, NULL);
}
