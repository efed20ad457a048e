/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate` as kube-scheduler with numa-extender, driven
 * through the binary:
 *  - on config/examples, the 40 one-GPU pods of issue 20 never land on a
 *    node without a GPU (worker-fat16, worker-dsa-split), with Node objects
 *    and without; every placed pod's node lists GPUs in its NRT; 22 are
 *    placed, the GPUs the inventories hold free;
 *  - a weight change of numa-extender that flips the winner, and one that
 *    does not (tests/data/simulate/weights/);
 *  - the NRT-only rule and the built-in configuration are said in the
 *    output, and -o json keeps today's fields;
 *  - `simulate --help` and `replay --help` print every flag, one a line, to
 *    stdout and exit 0; a missing argument is named. */
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

static char dir[] = "/tmp/numa-simmodel-XXXXXX";

/* Runs `numa-extender ARGS` to its end (60 s at most); stdout and stderr
 * into *out and *err (heap). Returns the exit status. */
static int run(const char *args, char **out, char **err)
{
	int status = spawn_run_args(args, 60, out, err);

	assert_in_range(status, 0, 127);
	return status;
}

static int setup(void **state)
{
	char path[256];
	FILE *f;
	int i;

	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	/* The burst: 40 pods of one GPU each, Guaranteed. */
	snprintf(path, sizeof path, "%s/gpu40.yaml", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	for (i = 0; i < 40; i++)
		fprintf(f, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: gpu-%02d, namespace: ml}\n"
			   "spec:\n  containers:\n  - name: w\n    resources:\n"
			   "      limits: {cpu: \"2\", memory: 8Gi, nvidia.com/gpu: \"1\"}\n",
			i);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	spawn_cleanup(0, dir, NULL, NULL);
	return 0;
}

static struct json_object *field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

/* Nodes of config/examples whose NRT lists nvidia.com/gpu, from the run's
 * own node report. */
static bool node_has_gpu(struct json_object *run, const char *node)
{
	struct json_object *nodes = field(run, "nodes");
	size_t i, k;

	for (i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i), *res;

		if (strcmp(json_object_get_string(field(n, "node")), node) != 0)
			continue;
		res = field(n, "resources");
		for (k = 0; k < json_object_array_length(res); k++) {
			struct json_object *r = json_object_array_get_idx(res, k);

			if (strcmp(json_object_get_string(field(r, "resource")), "nvidia.com/gpu") == 0 &&
			    json_object_get_int64(field(r, "allocatable")) > 0)
				return true;
		}
	}
	return false;
}

static void gpu_pods_on_gpu_nodes(const char *extra)
{
	struct json_object *root, *run0, *pl;
	char args[1024], *out, *err;
	size_t i, placed = 0;

	snprintf(args, sizeof args, "simulate --nrt config/examples --pods %s/gpu40.yaml %s -o json", dir,
		 extra);
	assert_int_equal(run(args, &out, &err), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	run0 = json_object_array_get_idx(root, 0);
	pl = field(run0, "placements");
	assert_int_equal(json_object_array_length(pl), 40);
	for (i = 0; i < 40; i++) {
		struct json_object *p = json_object_array_get_idx(pl, i), *node = field(p, "node");
		const char *name;

		/* Today's fields stay. */
		assert_non_null(strstr(json_object_get_string(field(p, "pod")), "ml/gpu-"));
		field(p, "numaNodes");
		field(p, "score");
		field(p, "reason");
		if (node == NULL)
			continue;
		name = json_object_get_string(node);
		assert_string_not_equal(name, "worker-fat16");
		assert_string_not_equal(name, "worker-dsa-split");
		assert_true(node_has_gpu(run0, name));
		placed++;
	}
	/* 22 GPUs are free in the inventories, and nothing else runs. */
	assert_int_equal(placed, 22);
	assert_int_equal(json_object_get_int(field(run0, "placed")), 22);
	json_object_put(root);
	free(out);
	free(err);
}

static void gpu_pods_avoid_gpuless_nodes_nrt_only(void **state)
{
	(void)state;
	gpu_pods_on_gpu_nodes("");
}

static void gpu_pods_avoid_gpuless_nodes_with_nodes(void **state)
{
	(void)state;
	gpu_pods_on_gpu_nodes("--nodes config/simulate/nodes.yaml");
}

/* What the text says about the model it ran. */
static void text_states_the_model(void **state)
{
	char args[1024], *out, *err;

	(void)state;
	snprintf(args, sizeof args, "simulate --nrt config/examples --pods %s/gpu40.yaml", dir);
	assert_int_equal(run(args, &out, &err), 0);
	assert_non_null(strstr(out, "scheduler: built in, as manifests/base ships it"));
	assert_non_null(strstr(out, "weight 5"));
	/* The NRT-only rule, in one line. */
	assert_non_null(strstr(out, "nodes: 7 from NodeResourceTopology; no Node objects (--nodes): "
				    "memory, hugepages and devices allocatable are the NUMA zones' sums, "
				    "cpu is unknown (not checked"));
	assert_non_null(strstr(out, "unschedulable: 0/7 nodes are available:"));
	free(out);
	free(err);
	snprintf(args, sizeof args,
		 "simulate --nrt config/examples --pods config/simulate/pods.yaml --nodes "
		 "config/simulate/nodes.yaml --running config/simulate/running.yaml --scheduler-config "
		 "manifests/overlays/default-scheduler-mtls/configmap-kube-scheduler-config.yaml --version v1.33");
	assert_int_equal(run(args, &out, &err), 0);
	assert_non_null(strstr(out, "kube-scheduler 1.33"));
	assert_non_null(strstr(out, "nodes: 7 from --nodes"));
	/* 16 pods run (9 with exclusive resources, 7 DaemonSet pods); the
	 * Succeeded one does not count. */
	assert_non_null(strstr(out, "running: 16 pod(s) counted on their nodes"));
	assert_non_null(strstr(out, "asked about pods that request nvidia.com/gpu, "));
	/* Its pods ask numa-scheduler: the file's only profile takes them. */
	assert_non_null(strstr(out, "30 pod(s) name no profile of the configuration"));
	free(out);
	free(err);
}

/* The winner under numa-extender weights 1 and 10. */
static char *winner(const char *nrt, int weight)
{
	struct json_object *root, *p;
	char args[1024], *out, *err, *node;

	snprintf(args, sizeof args,
		 "simulate --nrt tests/data/simulate/weights/%s --nodes tests/data/simulate/weights/nodes.yaml "
		 "--pods tests/data/simulate/weights/pod.yaml --scheduler-config "
		 "tests/data/simulate/weights/sched-weight-%d.yaml -o json",
		 nrt, weight);
	assert_int_equal(run(args, &out, &err), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	p = json_object_array_get_idx(field(json_object_array_get_idx(root, 0), "placements"), 0);
	/* Two nodes fit: the scheduler scored, and one node is on top. */
	assert_true(json_object_get_boolean(field(p, "scored")));
	assert_int_equal(json_object_array_length(field(p, "tied")), 1);
	node = strdup(json_object_get_string(field(p, "node")));
	json_object_put(root);
	free(out);
	free(err);
	return node;
}

static void weight_change_flips_the_winner(void **state)
{
	char *w1 = winner("nrt-flip", 1), *w10 = winner("nrt-flip", 10);

	(void)state;
	/* Weight 1: numa-extender's one point (10) is less than what
	 * big-busy's size is worth to the in-tree scores; weight 10: 100 is
	 * more. The extender alone would have picked small-free both times. */
	assert_string_equal(w1, "big-busy");
	assert_string_equal(w10, "small-free");
	free(w1);
	free(w10);
}

static void weight_change_keeps_the_winner(void **state)
{
	char *w1 = winner("nrt-same", 1), *w10 = winner("nrt-same", 10);

	(void)state;
	/* numa-extender scores both nodes alike: no weight moves the pod. */
	assert_string_equal(w1, "big-busy");
	assert_string_equal(w10, "big-busy");
	free(w1);
	free(w10);
}

/* Each flag of the usage starts one line of --help's stdout. */
static void help_lists(const char *cmd, const char *const *flags)
{
	char args[256], *out, *err, line[64];
	size_t i;

	snprintf(args, sizeof args, "%s --help", cmd);
	assert_int_equal(run(args, &out, &err), 0);
	assert_string_equal(err, "");
	for (i = 0; flags[i] != NULL; i++) {
		snprintf(line, sizeof line, "\n  %s ", flags[i]);
		if (strstr(out, line) == NULL)
			fail_msg("%s --help lacks a line for %s:\n%s", cmd, flags[i], out);
	}
	free(out);
	free(err);
}

static void help_goes_to_stdout(void **state)
{
	static const char *const simulate_flags[] = {
		"--nrt", "--pods", "--nodes", "--running", "--scheduler-config", "--version",
		"--config", "-o", "--html", "--dra", "-h,", NULL,
	};
	static const char *const replay_flags[] = {
		"--log", "--config", "--scheduler-config", "--version", "-o", "-h,", NULL,
	};

	(void)state;
	help_lists("simulate", simulate_flags);
	help_lists("replay", replay_flags);
}

static void missing_arguments_are_named(void **state)
{
	char *out, *err;

	(void)state;
	assert_int_equal(run("simulate --nrt config/examples", &out, &err), 2);
	assert_non_null(strstr(err, "numa-extender simulate: --pods is required\n"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(run("simulate --pods config/simulate/pods.yaml", &out, &err), 2);
	assert_non_null(strstr(err, "--nrt is required"));
	free(out);
	free(err);
	assert_int_equal(run("simulate --nrt config/examples --pods", &out, &err), 2);
	assert_non_null(strstr(err, "--pods needs a value"));
	free(out);
	free(err);
	assert_int_equal(run("simulate --nrt config/examples --pods config/simulate/pods.yaml --version 1.29",
			     &out, &err), 2);
	assert_non_null(strstr(err, "--version: \"1.29\": expected v1.32, v1.33, v1.34 or v1.35"));
	free(out);
	free(err);
	assert_int_equal(run("simulate --nrt config/examples --pods config/simulate/pods.yaml --bogus x",
			     &out, &err), 2);
	assert_non_null(strstr(err, "unknown argument \"--bogus\""));
	free(out);
	free(err);
	assert_int_equal(run("replay", &out, &err), 2);
	assert_non_null(strstr(err, "numa-extender replay: --log is required\n"));
	free(out);
	free(err);
	/* A scheduler configuration whose extenders do not name numa-extender. */
	{
		char args[1024], path[256];
		FILE *f;

		snprintf(path, sizeof path, "%s/two-extenders.yaml", dir);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
		      "extenders:\n- urlPrefix: http://a:1/x\n  filterVerb: filter\n"
		      "- urlPrefix: http://b:1/y\n  filterVerb: filter\n",
		      f);
		fclose(f);
		snprintf(args, sizeof args,
			 "simulate --nrt config/examples --pods config/simulate/pods.yaml --scheduler-config %s",
			 path);
		assert_int_equal(run(args, &out, &err), 2);
		assert_non_null(strstr(err, "no extender's urlPrefix ends with \"/numa\""));
		free(out);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gpu_pods_avoid_gpuless_nodes_nrt_only),
		cmocka_unit_test(gpu_pods_avoid_gpuless_nodes_with_nodes),
		cmocka_unit_test(text_states_the_model),
		cmocka_unit_test(weight_change_flips_the_winner),
		cmocka_unit_test(weight_change_keeps_the_winner),
		cmocka_unit_test(help_goes_to_stdout),
		cmocka_unit_test(missing_arguments_are_named),
	};

	return cmocka_run_group_tests_name("simulate_model", tests, setup, teardown);
}
