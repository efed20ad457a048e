/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate --dra` driven through the binary, on
 * tests/data/dra/simulate/ (one node, two NUMA nodes of 8 CPUs, pods of 6
 * exclusive CPUs and one GPU each):
 *  - with one GPU per NUMA node, the first pod gets the GPU on its CPUs'
 *    NUMA node and the second, whose CPUs go to the other NUMA node, sees
 *    that GPU taken and gets the other: both aligned, different devices;
 *  - with the only GPU on NUMA 1, dra.alignment: require leaves the pod
 *    unplaced with the misalignment as its reason (prefer places it,
 *    misaligned);
 *  - a slice that selects nodes by label is predicted with Node objects
 *    (their labels), by the filter too, and unpredictable without;
 *  - pods without claims, and any run without --dra, print what simulate
 *    printed before --dra existed, byte for byte (text, JSON, HTML);
 *  - a --dra path that does not hold DRA objects is named, exit 2. */
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

#include "tests/support/spawn.h"

#define D "tests/data/dra/simulate/"
#define ONE_NODE "simulate --nrt " D "nrt.yaml --nodes " D "nodes.yaml "

static char dir[] = "/tmp/numa-simdra-XXXXXX";

/* Runs `numa-extender ARGS` to its end (60 s at most); stdout and stderr
 * into *out and *err (heap). Returns the exit status. */
static int run(const char *args, char **out, char **err)
{
	int status = spawn_run_args(args, 60, out, err);

	assert_in_range(status, 0, 127);
	return status;
}

/* The whole of a file (heap). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = (size_t)8 << 20, n;
	char *buf;

	assert_non_null(f);
	buf = malloc(cap);
	assert_non_null(buf);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* placements[i] of the first run of a -o json output. */
static struct json_object *placement(struct json_object *root, size_t i)
{
	struct json_object *run = json_object_array_get_idx(root, 0), *pl;

	assert_non_null(run);
	assert_true(json_object_object_get_ex(run, "placements", &pl));
	assert_non_null(json_object_array_get_idx(pl, i));
	return json_object_array_get_idx(pl, i);
}

static const char *str_at(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_string(v);
}

/* placement's DRA object, NULL when it has none. */
static struct json_object *dra_of(struct json_object *pl)
{
	struct json_object *v;

	return json_object_object_get_ex(pl, "dra", &v) ? v : NULL;
}

/* The one device of a placement's DRA object; its NUMA node in *numa. */
static const char *only_device(struct json_object *dra, int *numa)
{
	struct json_object *devs, *dev, *ids;

	assert_true(json_object_object_get_ex(dra, "devices", &devs));
	assert_int_equal(json_object_array_length(devs), 1);
	dev = json_object_array_get_idx(devs, 0);
	assert_true(json_object_object_get_ex(dev, "numaNodes", &ids));
	assert_int_equal(json_object_array_length(ids), 1);
	*numa = json_object_get_int(json_object_array_get_idx(ids, 0));
	return str_at(dev, "device");
}

/* The placement's single predicted NUMA node. */
static int pod_numa(struct json_object *pl)
{
	struct json_object *ids;

	assert_true(json_object_object_get_ex(pl, "numaNodes", &ids));
	assert_int_equal(json_object_array_length(ids), 1);
	return json_object_get_int(json_object_array_get_idx(ids, 0));
}

static void second_pod_sees_the_first_gpu_taken(void **state)
{
	struct json_object *root, *a, *b;
	const char *dev_a, *dev_b;
	char *out, *err;
	int numa_a, numa_b;

	(void)state;
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "two-gpus -o json", &out, &err), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	a = placement(root, 0);
	b = placement(root, 1);
	assert_string_equal(str_at(a, "node"), "gpu-node");
	assert_string_equal(str_at(b, "node"), "gpu-node");
	assert_non_null(dra_of(a));
	assert_non_null(dra_of(b));
	assert_string_equal(str_at(dra_of(a), "verdict"), "aligned");
	assert_string_equal(str_at(dra_of(b), "verdict"), "aligned");
	dev_a = only_device(dra_of(a), &numa_a);
	dev_b = only_device(dra_of(b), &numa_b);
	/* The first pod takes the GPU on its CPUs' NUMA node... */
	assert_int_equal(pod_numa(a), 0);
	assert_string_equal(dev_a, "gpu-0");
	assert_int_equal(numa_a, 0);
	/* ...and the second one's prediction sees it allocated. */
	assert_string_not_equal(dev_a, dev_b);
	assert_int_equal(pod_numa(b), 1);
	assert_int_equal(numa_b, 1);
	json_object_put(root);
	free(out);
	free(err);

	/* The text says the same, one DRA line under each pod. */
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "two-gpus", &out, &err), 0);
	assert_non_null(strstr(out, "    DRA aligned: gpu/gpu gpu-0 (gpu.example.com, NUMA 0)\n"));
	assert_non_null(strstr(out, "    DRA aligned: gpu/gpu gpu-1 (gpu.example.com, NUMA 1)\n"));
	free(out);
	free(err);
}

static void require_leaves_a_misaligned_pod_unplaced(void **state)
{
	struct json_object *root, *a, *node;
	char *out, *err;
	int numa;

	(void)state;
	/* prefer (the default): placed, and said to be misaligned. */
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "numa1-gpu -o json", &out, &err), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	a = placement(root, 0);
	assert_string_equal(str_at(a, "node"), "gpu-node");
	assert_int_equal(pod_numa(a), 0);
	assert_string_equal(str_at(dra_of(a), "verdict"), "misaligned");
	assert_string_equal(only_device(dra_of(a), &numa), "gpu-1");
	assert_int_equal(numa, 1);
	json_object_put(root);
	free(out);
	free(err);

	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "numa1-gpu --config " D
				      "require.yaml -o json",
			     &out, &err),
			 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	a = placement(root, 0);
	assert_true(json_object_object_get_ex(a, "node", &node));
	assert_null(node);
	assert_null(dra_of(a));
	assert_non_null(strstr(str_at(a, "reason"), "NUMA: DRA devices gpu-1 (gpu.example.com) on NUMA 1, "
						    "container \"train\" CPUs on NUMA 0"));
	json_object_put(root);
	free(out);
	free(err);
}

static void label_slices_need_node_objects(void **state)
{
	char *out, *err;

	(void)state;
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "by-label", &out, &err), 0);
	assert_non_null(strstr(out, "DRA aligned: gpu/gpu gpu-0 (gpu.example.com, NUMA 0)"));
	assert_non_null(strstr(out, "DRA aligned: gpu/gpu gpu-1 (gpu.example.com, NUMA 1)"));
	free(out);
	free(err);
	assert_int_equal(run("simulate --nrt " D "nrt.yaml --pods " D "pods.yaml --dra " D "by-label", &out,
			     &err),
			 0);
	assert_null(strstr(out, "DRA aligned"));
	assert_non_null(strstr(out, "DRA unpredictable; DRA: cannot predict the allocator: ResourceSlice "
				    "rack-gpus selects nodes by label"));
	free(out);
	free(err);

	/* The filter's verdict reads the labels too: under require the one
	 * GPU off the pod's NUMA node rejects the node with Node objects, and
	 * without them nothing is known against it. */
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "by-label-numa1 --config " D
				      "require.yaml",
			     &out, &err),
			 0);
	assert_non_null(strstr(out, "0 placed, 2 unschedulable"));
	assert_non_null(strstr(out, "NUMA: DRA devices gpu-1 (gpu.example.com) on NUMA 1"));
	free(out);
	free(err);
	assert_int_equal(run("simulate --nrt " D "nrt.yaml --pods " D "pods.yaml --dra " D
			     "by-label-numa1 --config " D "require.yaml",
			     &out, &err),
			 0);
	assert_non_null(strstr(out, "2 placed, 0 unschedulable"));
	free(out);
	free(err);
}

/* Text, JSON and the HTML page of `ARGS` and of `ARGS EXTRA` are equal. */
static void same_outputs(const char *args, const char *extra)
{
	const char *formats[] = { "", "-o json" };
	char cmd[2048], page[2][512];
	size_t f;
	int k;

	for (f = 0; f < 2; f++) {
		char *out[2], *err[2];

		for (k = 0; k < 2; k++) {
			snprintf(page[k], sizeof page[k], "%s/page-%d.html", dir, k);
			snprintf(cmd, sizeof cmd, "%s %s --html %s %s", args, k ? extra : "", page[k],
				 formats[f]);
			assert_int_equal(run(cmd, &out[k], &err[k]), 0);
		}
		assert_true(strlen(out[0]) > 100);
		assert_string_equal(out[0], out[1]);
		assert_null(strstr(out[0], "DRA"));
		assert_null(strstr(out[0], "\"dra\""));
		for (k = 0; k < 2; k++) {
			free(out[k]);
			free(err[k]);
		}
		out[0] = slurp(page[0]);
		out[1] = slurp(page[1]);
		assert_string_equal(out[0], out[1]);
		assert_null(strstr(out[0], "class=\"dra\""));
		free(out[0]);
		free(out[1]);
	}
}

static void outputs_without_claims_are_unchanged(void **state)
{
	char path[300], args[1024];
	FILE *f;

	(void)state;
	/* Pods without claims: --dra adds nothing. */
	same_outputs(ONE_NODE "--pods " D "plain-pods.yaml", "--dra " D "two-gpus");
	/* A DRA store the pods do not use, under require. */
	same_outputs(ONE_NODE "--pods " D "plain-pods.yaml --config " D "require.yaml",
		     "--dra " D "numa1-gpu");
	/* dra.alignment: off turns the verdicts off, claims or not: the pods
	 * with claims are placed as without --dra. */
	snprintf(path, sizeof path, "%s/off.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("dra:\n  alignment: off\n", f);
	fclose(f);
	snprintf(args, sizeof args, ONE_NODE "--pods " D "pods.yaml --config %s", path);
	same_outputs(args, "--dra " D "two-gpus");
}

static void bad_dra_path_is_named(void **state)
{
	char *out, *err;

	(void)state;
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "nodes.yaml", &out, &err), 2);
	assert_non_null(strstr(err, "--dra: " D "nodes.yaml"));
	assert_non_null(strstr(err, "expected ResourceSlice, DeviceClass, ResourceClaim or "
				    "ResourceClaimTemplate"));
	free(out);
	free(err);
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra " D "no-such-dir", &out, &err), 2);
	assert_non_null(strstr(err, "no-such-dir"));
	free(out);
	free(err);
	assert_int_equal(run(ONE_NODE "--pods " D "pods.yaml --dra", &out, &err), 2);
	assert_non_null(strstr(err, "--dra needs a value"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(second_pod_sees_the_first_gpu_taken),
		cmocka_unit_test(require_leaves_a_misaligned_pod_unplaced),
		cmocka_unit_test(label_slices_need_node_objects),
		cmocka_unit_test(outputs_without_claims_are_unchanged),
		cmocka_unit_test(bad_dra_path_is_named),
	};

	return cmocka_run_group_tests_name("simulate_dra", tests, setup, teardown);
}
