/* SPDX-License-Identifier: Apache-2.0 */
/* NUMA-aware preemption end to end: `numa-extender serve` as a process
 * against the fake API server (NRTs and pods, with the ledger), driven as
 * kube-scheduler drives it. Victim pods go through our filter and are bound
 * through the API server, so the ledger knows where the kubelet put them;
 * one pod is bound without us (placement unknown). Then /preempt is asked
 * with victims that free the wrong zone, the right zone, or only pods of
 * unknown placement.
 *
 * Both nodes: single-numa-node, pod scope; NUMA 0 has 8 CPUs and 2 GPUs,
 * NUMA 1 8 CPUs and no GPU. On w1, "a" (8 CPUs) fills NUMA 0's CPUs and "b"
 * (4 CPUs) sits on NUMA 1; the preemptor asks 4 CPUs + 1 GPU, which only
 * NUMA 0 can serve. The binary comes from $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/serve_cluster.h"
#include "tests/support/spawn.h"

#define TOKEN "preempt-token"

/* POST /preempt for the preemptor with the given victims on one node. */
static struct json_object *preempt(struct serve_cluster *e, int prio, const char *node, const char *victims_json)
{
	char pod[2048], body[4096];
	struct json_object *r;

	serve_cluster_pod_text("hi", "u-hi", prio, 4, 1, NULL, pod, sizeof pod);
	snprintf(body, sizeof body,
		 "{\"Pod\":%s,\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{\"%s\":{\"Pods\":%s,"
		 "\"NumPDBViolations\":2}}}",
		 pod, node, victims_json);
	r = serve_cluster_post(e, NULL, "preempt", body);
	assert_non_null(r);
	return r;
}

/* The victims' UIDs kept for node, comma-joined in order, or NULL when the
 * node was dropped. */
static char *kept(struct json_object *r, const char *node, int64_t *pdb)
{
	struct json_object *m = NULL, *n = NULL, *pods = NULL;
	char out[1024] = "";
	size_t i;

	assert_true(json_object_object_get_ex(r, "NodeNameToMetaVictims", &m));
	if (!json_object_object_get_ex(m, node, &n))
		return NULL;
	assert_true(json_object_object_get_ex(n, "Pods", &pods));
	for (i = 0; i < json_object_array_length(pods); i++) {
		struct json_object *u = json_object_object_get(json_object_array_get_idx(pods, i), "UID");

		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "," : "",
			 json_object_get_string(u));
	}
	*pdb = json_object_get_int64(json_object_object_get(n, "NumPDBViolations"));
	return strdup(out);
}

static void preemption_frees_the_zone_the_pod_needs(void **state)
{
	struct serve_cluster e;
	struct json_object *r;
	char *v, *log;
	int64_t pdb = -1;

	(void)state;
	assert_true(serve_cluster_start_pair(&e, "pre", TOKEN));
	assert_true(serve_cluster_place(&e, "a", "u-a", 0, 8, 0, "w1", true));
	assert_true(serve_cluster_place(&e, "b", "u-b", 0, 4, 0, "w1", true));
	/* The ledger predicted where they went: a on NUMA 0, b on NUMA 1. */
	{
		char *body = NULL, *at;

		assert_int_equal(serve_cluster_get(&e, "/ledger/w1", &body), 200);
		at = strstr(body, "\"uid\":\"u-a\"");
		assert_non_null(at);
		assert_non_null(strstr(at, "\"numaNodes\":[0]"));
		at = strstr(body, "\"uid\":\"u-b\"");
		assert_non_null(at);
		assert_non_null(strstr(at, "\"numaNodes\":[1]"));
		assert_non_null(strstr(body, "\"priority\":0"));
		free(body);
	}

	/* The scheduler's victim frees NUMA 1, which has no GPU: a is added
	 * (priority 0 < 100), which frees NUMA 0. */
	r = preempt(&e, 100, "w1", "[{\"UID\":\"u-b\"}]");
	v = kept(r, "w1", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-b,u-a");
	assert_int_equal(pdb, 2);
	free(v);
	json_object_put(r);

	/* The same victim for a preemptor no higher than a: nothing may be
	 * added, nothing would help: dropped. */
	r = preempt(&e, 0, "w1", "[{\"UID\":\"u-b\"}]");
	assert_null(kept(r, "w1", &pdb));
	assert_string_equal(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN),
			    "{\"NodeNameToMetaVictims\":{}}");
	json_object_put(r);

	/* The right zone: kept exactly as given. */
	r = preempt(&e, 100, "w1", "[{\"UID\":\"u-a\"}]");
	v = kept(r, "w1", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-a");
	free(v);
	json_object_put(r);

	/* The log says which victim frees which zone. */
	assert_true(spawn_wait_log(e.log, "result=extended", 10));
	log = read_file_or_die(e.log, NULL);
	assert_non_null(strstr(log, "pre/b frees cpu 4, memory 1Gi on NUMA 1; added pre/a frees cpu 8, memory 1Gi on NUMA 0"));
	assert_non_null(strstr(log, "result=dropped"));
	assert_non_null(strstr(log, "result=kept "));
	free(log);
	/* And so does the decision log. */
	{
		double t0;
		bool seen = false;

		for (t0 = serve_cluster_now(); !seen && serve_cluster_now() - t0 < 10; usleep(20 * 1000)) {
			if (access(e.decisions, R_OK) != 0)
				continue;
			log = read_file_or_die(e.decisions, NULL);
			seen = strstr(log, "\"type\":\"preemption\"") && strstr(log, "\"result\":\"extended\",\"victims\":[\"u-b\",\"u-a\"]") &&
			       strstr(log, "\"result\":\"dropped\"");
			free(log);
		}
		assert_true(seen);
	}
	assert_int_equal(serve_cluster_stop(&e), 0);
}

static void unknown_placements_keep_the_node_as_given(void **state)
{
	struct serve_cluster e;
	struct json_object *r;
	char *v;
	int64_t pdb = -1;

	(void)state;
	assert_true(serve_cluster_start_pair(&e, "pre", TOKEN));
	/* x was placed before us (no filter of ours): where it sits is
	 * unknown. k is known, priority 0, on NUMA 1. */
	assert_true(serve_cluster_place(&e, "x", "u-x", 0, 8, 0, "w2", false));
	assert_true(serve_cluster_place(&e, "k", "u-k", 0, 4, 0, "w2", true));
	r = preempt(&e, 100, "w2", "[{\"UID\":\"u-x\"}]");
	v = kept(r, "w2", &pdb);
	assert_non_null(v);
	assert_string_equal(v, "u-x"); /* unchanged: nothing added, not dropped */
	assert_int_equal(pdb, 2);
	free(v);
	json_object_put(r);
	assert_true(spawn_wait_log(e.log, "result=keptUnknownPlacement", 10));
	assert_true(spawn_wait_log(e.log, "pre/x: placement unknown, frees nothing zone-specific", 10));
	/* A request that does not decode is a 400 (no error field). */
	{
		struct http_client *h = http_client_new(NULL, NULL, NULL);
		struct http_response hr;
		char url[128];

		snprintf(url, sizeof url, "http://127.0.0.1:%d/numa/preempt", e.port);
		http_request(h, "POST", url, "{\"Pod\":7}", 9, false, &hr);
		assert_int_equal(hr.status, 400);
		http_response_cleanup(&hr);
		http_client_free(h);
	}
	assert_int_equal(serve_cluster_stop(&e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preemption_frees_the_zone_the_pod_needs),
		cmocka_unit_test(unknown_placements_keep_the_node_as_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
