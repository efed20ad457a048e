/* SPDX-License-Identifier: Apache-2.0 */
/* The kubelet's verdicts as feedback, end to end: `numa-extender serve` as
 * a process against the fake API server. A pod goes through our filter
 * (passed), is bound, and the kubelet then turns it away: the pod becomes
 * Failed with status.reason TopologyAffinityError, which the pod watch's
 * field selector delivers as a DELETED event carrying the failed pod. The
 * rejection is counted with decided="pass", logged with the inventory
 * version we judged, written to the decision log, and replay lists it. A pod
 * bound without us counts as decided="unknown"; a pod admitted and running
 * counts as a prediction checked. The binary comes from $BIN. */
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

#define TOKEN "feedback-token"

static void wait_metric(struct serve_cluster *e, const char *name, int64_t want)
{
	double t0;

	for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 15; usleep(20 * 1000))
		if (serve_cluster_metric(e, name) == want)
			return;
	fail_msg("%s never reached %lld (now %lld)", name, (long long)want, (long long)serve_cluster_metric(e, name));
}

/* What the kubelet leaves behind when its admission refuses the pod. */
static void kubelet_rejects(struct serve_cluster *e, const char *name, const char *uid, int cpus, int gpus,
			    const char *node)
{
	char pod[2048], *at;

	serve_cluster_pod_text(name, uid, 0, cpus, gpus, node, pod, sizeof pod);
	at = strstr(pod, "\"phase\":\"Running\"");
	assert_non_null(at);
	memmove(at + strlen("\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
			    "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\""),
		at + strlen("\"phase\":\"Running\""), strlen(at + strlen("\"phase\":\"Running\"")) + 1);
	memcpy(at, "\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
		   "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\"",
	       strlen("\"phase\":\"Failed\",\"reason\":\"TopologyAffinityError\","
		      "\"message\":\"Pod was rejected: Resources cannot be allocated with Topology locality\""));
	fake_apiserver_pod_put(e->api, "pre", name, pod);
}

static void kubelet_rejection_after_our_pass_is_reported(void **state)
{
	struct serve_cluster e;
	char cmd[512], out[160], *text;
	int status;

	(void)state;
	assert_true(serve_cluster_start_pair(&e, "fb", TOKEN));
	/* Admitted and running after our pass: one prediction checked. */
	assert_true(serve_cluster_place(&e, "ok", "u-ok", 0, 2, 0, "w1", true));
	wait_metric(&e, "numa_extender_kubelet_predictions_checked", 1);
	/* We passed p on w1 (inventory version of the fake's NRT); the
	 * kubelet disagrees. */
	assert_true(serve_cluster_place(&e, "p", "u-p", 0, 4, 1, "w1", true));
	kubelet_rejects(&e, "p", "u-p", 4, 1, "w1");
	wait_metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"pass\"}", 1);
	assert_int_equal(serve_cluster_metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}"), 0);
	assert_int_equal(serve_cluster_metric(&e, "numa_extender_kubelet_predictions_checked"), 2);
	assert_true(spawn_wait_log(e.log, "msg=\"the kubelet rejected a pod we passed\" namespace=\"pre\" pod=\"p\" node=\"w1\" "
				   "reason=TopologyAffinityError decided=pass version=", 10));
	/* A pod placed without us: decided unknown. */
	assert_true(serve_cluster_place(&e, "x", "u-x", 0, 2, 0, "w2", false));
	kubelet_rejects(&e, "x", "u-x", 2, 0, "w2");
	wait_metric(&e, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}", 1);
	assert_true(spawn_wait_log(e.log, "decided=unknown (not through us)", 10));
	/* The kubelet never admitted p: the ledger lets go of it at once,
	 * without waiting for an NRT update. */
	{
		double t0;
		bool gone = false;

		for (t0 = serve_cluster_now(); !gone && serve_cluster_now() - t0 < 10; usleep(20 * 1000)) {
			text = NULL;
			assert_int_equal(serve_cluster_get(&e, "/ledger/w1", &text), 200);
			gone = strstr(text, "u-p") == NULL && strstr(text, "u-ok") != NULL;
			free(text);
		}
		assert_true(gone);
	}
	/* The decision log has the record; replay lists the contradiction. */
	{
		double t0;
		bool seen = false;

		for (t0 = serve_cluster_now(); !seen && serve_cluster_now() - t0 < 10; usleep(20 * 1000)) {
			if (access(e.decisions, R_OK) != 0)
				continue;
			text = read_file_or_die(e.decisions, NULL);
			seen = strstr(text, "\"type\":\"kubeletRejection\"") && strstr(text, "\"uid\":\"u-x\"");
			if (seen)
				assert_non_null(strstr(text, "\"pod\":\"pre/p\",\"uid\":\"u-p\",\"node\":\"w1\","
							     "\"reason\":\"TopologyAffinityError\",\"decided\":\"pass\""));
			free(text);
		}
		assert_true(seen);
	}
	snprintf(out, sizeof out, "%s.replay", e.decisions);
	snprintf(cmd, sizeof cmd, "%s replay --log %s > %s 2>&1", spawn_serve_bin(), e.decisions, out);
	status = system(cmd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* every filter replays the same */
	text = read_file_or_die(out, NULL);
	assert_non_null(strstr(text, "2 kubelet rejections, 1 of pods we passed:"));
	assert_non_null(strstr(text, "kubelet TopologyAffinityError pre/p on w1: we decided pass (inventory "));
	assert_non_null(strstr(text, "kubelet TopologyAffinityError pre/x on w2: we decided unknown"));
	free(text);
	unlink(out);
	assert_int_equal(serve_cluster_stop(&e), 0);
}

/* How many times needle occurs in the file at path. */
static int count_in_file(const char *path, const char *needle)
{
	char *text = read_file_or_die(path, NULL), *at = text;
	int n = 0;

	while ((at = strstr(at, needle)) != NULL) {
		n++;
		at += strlen(needle);
	}
	free(text);
	return n;
}

/* A Failed pod's later updates (a controller adding an annotation, a
 * relist after the watch expired, a restart of the extender) are not new
 * verdicts: one rejection counted, logged and recorded per pod UID. Each
 * wait ends on a later pod's rejection, which the same watch delivers after
 * the updates before it, never on time passing. */
static void a_failed_pod_is_counted_once(void **state)
{
	static const char *const pass_metric =
		"numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"pass\"}";
	static const char *const unknown_metric =
		"numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}";
	struct serve_cluster e;
	char *stored, *at;
	int i;

	(void)state;
	assert_true(serve_cluster_start_pair(&e, "fb1", TOKEN));
	assert_true(serve_cluster_place(&e, "p", "u-p", 0, 4, 1, "w1", true));
	kubelet_rejects(&e, "p", "u-p", 4, 1, "w1");
	wait_metric(&e, pass_metric, 1);
	/* Three updates of the Failed pod. */
	for (i = 0; i < 3; i++) {
		char annotated[4096];

		stored = fake_apiserver_pod_get(e.api, "pre", "p");
		assert_non_null(stored);
		at = strstr(stored, "\"metadata\":{");
		assert_non_null(at);
		at += strlen("\"metadata\":{");
		snprintf(annotated, sizeof annotated, "%.*s\"annotations\":{\"touch\":\"%d\"},%s", (int)(at - stored),
			 stored, i, at);
		fake_apiserver_pod_put(e.api, "pre", "p", annotated);
		free(stored);
	}
	assert_true(serve_cluster_place(&e, "x", "u-x", 0, 2, 0, "w2", false));
	kubelet_rejects(&e, "x", "u-x", 2, 0, "w2");
	wait_metric(&e, unknown_metric, 1);
	assert_int_equal(serve_cluster_metric(&e, pass_metric), 1);
	assert_int_equal(count_in_file(e.log, "msg=\"the kubelet rejected a pod we passed\""), 1);
	/* The watches expire: every pod is listed again. */
	fake_apiserver_expire_history(e.api);
	fake_apiserver_send_error_event_410(e.api);
	assert_true(serve_cluster_place(&e, "y", "u-y", 0, 2, 0, "w2", false));
	kubelet_rejects(&e, "y", "u-y", 2, 0, "w2");
	wait_metric(&e, unknown_metric, 2);
	assert_int_equal(serve_cluster_metric(&e, pass_metric), 1);
	/* The decision log holds one record per rejection. */
	{
		double t0;

		for (t0 = serve_cluster_now(); serve_cluster_now() - t0 < 10; usleep(20 * 1000))
			if (access(e.decisions, R_OK) == 0 && count_in_file(e.decisions, "\"uid\":\"u-y\"") == 1)
				break;
		assert_int_equal(count_in_file(e.decisions, "\"uid\":\"u-y\""), 1);
		assert_int_equal(count_in_file(e.decisions, "\"type\":\"kubeletRejection\""), 3);
	}
	/* A restart: the Failed pods are there before it looks, not news;
	 * their updates are not either. */
	assert_int_equal(serve_cluster_terminate(&e), 0);
	serve_cluster_launch(&e);
	assert_true(serve_cluster_wait_ready(&e));
	stored = fake_apiserver_pod_get(e.api, "pre", "x");
	assert_non_null(stored);
	fake_apiserver_pod_put(e.api, "pre", "x", stored);
	free(stored);
	assert_true(serve_cluster_place(&e, "z", "u-z", 0, 2, 0, "w2", false));
	kubelet_rejects(&e, "z", "u-z", 2, 0, "w2");
	wait_metric(&e, unknown_metric, 1);
	assert_int_equal(serve_cluster_metric(&e, pass_metric), 0);
	assert_int_equal(count_in_file(e.log, "msg=\"the kubelet rejected a pod\""), 1);
	assert_int_equal(serve_cluster_stop(&e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kubelet_rejection_after_our_pass_is_reported),
		cmocka_unit_test(a_failed_pod_is_counted_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
