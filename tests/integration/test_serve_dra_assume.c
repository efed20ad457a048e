/* SPDX-License-Identifier: Apache-2.0 */
/* serve with dra.enabled and the pod watch: a pod the watch reports bound
 * while its claim's allocation has not reached the DRA inventory keeps
 * the device the allocator would give it taken for other pods'
 * predictions, until the allocation arrives, the pod goes, or
 * ledger.assumeTTL has passed since its binding.
 *
 * One two-socket node: 60 free CPUs on NUMA 0 (the ledger keeps those of
 * the pods bound here taken), 2 on NUMA 1, so a pod's 4 exclusive CPUs go
 * to NUMA 0; gpu-0 on NUMA 0, gpu-1 on NUMA 1. Pod B
 * (claim b) is judged under dra.alignment: require: while gpu-0 is free
 * its prediction is gpu-0 and the node passes; while pod A (claim a,
 * bound, unallocated) holds gpu-0, B's prediction is gpu-1 and the node
 * is rejected. Every wait has a deadline and waits for an event; no
 * verdict depends on timing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/serve_cluster.h"

#define TOKEN "serve-dra-assume-token"
#define DEADLINE_S 20.0
#define NS "ml"

#define FAR_GPU "NUMA: DRA devices gpu-1 (gpu.example.com) on NUMA 1, container \"train\" CPUs on NUMA 0"
#define PASS "pass=node-a failed= unresolvable= error="
#define FAIL "pass= failed=node-a:" FAR_GPU " unresolvable= error="
#define ASSUMED "numa_extender_dra_assumed_pods "
#define LEDGER_PODS "numa_extender_ledger_pods "

static const char nrt_text[] =
	"{\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
	"{\"name\":\"topologyManagerScope\",\"value\":\"container\"}],"
	"\"zones\":["
	"{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"64\",\"allocatable\":\"64\",\"available\":\"60\"},"
	"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"}]},"
	"{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"2\"},"
	"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"}]}]}";

static const char slice_text[] =
	"{\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"node-a\","
	"\"pool\":{\"name\":\"node-a\",\"generation\":1,\"resourceSliceCount\":1},"
	"\"devices\":[{\"name\":\"gpu-0\",\"attributes\":{"
	"\"resource.kubernetes.io/numaNode\":{\"int\":0}}},"
	"{\"name\":\"gpu-1\",\"attributes\":{"
	"\"resource.kubernetes.io/numaNode\":{\"int\":1}}}]}}";

static const char class_text[] =
	"{\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.example.com'\"}}]}}";

static const char pending_text[] =
	"{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
	"{\"deviceClassName\":\"gpu.example.com\"}}]}}}";

/* A claim allocated node-a's device dev. */
static void allocated_text(const char *dev, char *buf, size_t size)
{
	snprintf(buf, size,
		 "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
		 "{\"deviceClassName\":\"gpu.example.com\"}}]}},"
		 "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\","
		 "\"driver\":\"gpu.example.com\",\"pool\":\"node-a\",\"device\":\"%s\"}]},"
		 "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
		 "\"operator\":\"In\",\"values\":[\"node-a\"]}]}]}}}}",
		 dev);
}

/* A Guaranteed pod of 4 exclusive CPUs whose container "train" uses the
 * claim claim; bound to node-a (since the time scheduled, or, when NULL,
 * without a PodScheduled condition) when bound. */
static void pod_text(const char *name, const char *uid, const char *claim, bool bound,
		     const char *scheduled, char *buf, size_t size)
{
	char cond[256] = "";

	if (scheduled != NULL)
		snprintf(cond, sizeof cond,
			 ",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\","
			 "\"lastTransitionTime\":\"%s\"}]",
			 scheduled);
	snprintf(buf, size,
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"" NS "\",\"uid\":\"%s\"},"
		 "\"spec\":{%s\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"%s\"}],"
		 "\"containers\":[{\"name\":\"train\",\"resources\":{"
		 "\"requests\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},"
		 "\"claims\":[{\"name\":\"gpu\"}]}}]},"
		 "\"status\":{\"phase\":\"Pending\",\"qosClass\":\"Guaranteed\"%s}}",
		 name, uid, bound ? "\"nodeName\":\"node-a\"," : "", claim, cond);
}

static struct fake_apiserver *start_api(void)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	struct fake_apiserver *api = fake_apiserver_start(&o);

	assert_non_null(api);
	fake_apiserver_put(api, "node-a", nrt_text);
	fake_apiserver_dra_put(api, DRA_KIND_SLICE, NULL, "node-a-gpu.example.com", slice_text);
	fake_apiserver_dra_put(api, DRA_KIND_CLASS, NULL, "gpu.example.com", class_text);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "a", pending_text);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "b", pending_text);
	return api;
}

static bool wait_metric(const struct serve_cluster *c, const char *name, int64_t want)
{
	return serve_cluster_wait_metric(c, name, want, DEADLINE_S);
}

static struct serve_cluster cluster;

static int start(void **state)
{
	struct serve_cluster *c = &cluster;
	FILE *f;
	bool ok;

	(void)state;
	memset(c, 0, sizeof *c);
	c->api = start_api();
	serve_cluster_write_kubeconfig(c, "sdra-assume", TOKEN);
	f = serve_cluster_open_config(c, "sdra-assume");
	fprintf(f, "listen: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "ledger: {mode: predicted, assumeTTL: 1h}\n"
		   "dra: {enabled: true, alignment: require}\nlog: {level: info}\n",
		c->kubeconfig);
	fclose(f);
	serve_cluster_launch(c);
	ok = serve_cluster_wait_ready(c) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"resourceclaim\"} ", 2) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"resourceslice\"} ", 1) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"deviceclass\"} ", 1) &&
	     wait_metric(c, LEDGER_PODS, 0);
	if (ok)
		return 0;
	serve_cluster_stop(c);
	c->pid = 0;
	return -1;
}

static int stop(void **state)
{
	(void)state;
	if (cluster.pid > 0)
		serve_cluster_stop(&cluster);
	cluster.pid = 0;
	return 0;
}

/* filter's answer for pod B on node-a in one line (as in PASS, FAIL),
 * malloc'd. */
static char *filter_b(const struct serve_cluster *c)
{
	char pod[2048], body[4096], out[4096];
	struct json_object *r, *names = NULL, *failed = NULL, *unres = NULL, *err = NULL;
	size_t i, len;

	pod_text("b", "uid-b", "b", false, NULL, pod, sizeof pod);
	snprintf(body, sizeof body, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[\"node-a\"]}", pod);
	r = serve_cluster_post(c, NULL, "filter", body);
	assert_non_null(r);
	json_object_object_get_ex(r, "NodeNames", &names);
	json_object_object_get_ex(r, "FailedNodes", &failed);
	json_object_object_get_ex(r, "FailedAndUnresolvableNodes", &unres);
	json_object_object_get_ex(r, "Error", &err);
	len = (size_t)snprintf(out, sizeof out, "pass=");
	for (i = 0; names != NULL && i < json_object_array_length(names); i++)
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? "," : "",
					json_object_get_string(json_object_array_get_idx(names, i)));
	len += (size_t)snprintf(out + len, sizeof out - len, " failed=");
	if (failed != NULL) {
		json_object_object_foreach(failed, k, v) {
			len += (size_t)snprintf(out + len, sizeof out - len, "%s:%s", k, json_object_get_string(v));
		}
	}
	len += (size_t)snprintf(out + len, sizeof out - len, " unresolvable=");
	if (unres != NULL) {
		json_object_object_foreach(unres, k, v) {
			len += (size_t)snprintf(out + len, sizeof out - len, "%s:%s", k, json_object_get_string(v));
		}
	}
	snprintf(out + len, sizeof out - len, " error=%s", err ? json_object_get_string(err) : "");
	json_object_put(r);
	return strdup(out);
}

static void assert_filter_b(const struct serve_cluster *c, const char *want)
{
	char *got = filter_b(c);

	assert_string_equal(got, want);
	free(got);
}

/* Filters B until the answer is want; false at the deadline. */
static bool wait_filter_b(const struct serve_cluster *c, const char *want)
{
	double until = serve_cluster_now() + DEADLINE_S;

	for (;;) {
		char *got = filter_b(c);
		bool ok = strcmp(got, want) == 0;

		if (!ok && serve_cluster_now() > until)
			fprintf(stderr, "filter never answered\n  %s\nlast:\n  %s\n", want, got);
		free(got);
		if (ok)
			return true;
		if (serve_cluster_now() > until)
			return false;
		usleep(10000);
	}
}

static void put_pod(const struct serve_cluster *c, const char *name, const char *claim, bool bound,
		    const char *scheduled)
{
	char pod[2048], uid[64];

	snprintf(uid, sizeof uid, "uid-%s", name);
	pod_text(name, uid, claim, bound, scheduled, pod, sizeof pod);
	fake_apiserver_pod_put(c->api, NS, name, pod);
}

/* --- the cases, in order --- */

static void a_bound_pod_holds_its_predicted_gpu(void **state)
{
	struct serve_cluster *c = &cluster;

	(void)state;
	/* gpu-0 is free: B's prediction is gpu-0, near its CPUs. */
	assert_filter_b(c, PASS);
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 0);
	/* A is created (pending: nothing held), then bound while claim a
	 * stays unallocated. */
	put_pod(c, "a", "a", false, NULL);
	assert_filter_b(c, PASS);
	put_pod(c, "a", "a", true, NULL);
	assert_true(wait_filter_b(c, FAIL));
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 1);
	/* Asked again: the same answer. */
	assert_filter_b(c, FAIL);
}

static void the_allocation_takes_over(void **state)
{
	struct serve_cluster *c = &cluster;
	char buf[2048];

	(void)state;
	/* The allocation PreBind wrote arrives: gpu-0, as predicted. */
	allocated_text("gpu-0", buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, NS, "a", buf);
	assert_true(wait_metric(c, "numa_extender_dra_allocated_devices ", 1));
	assert_filter_b(c, FAIL);
	/* A is no longer held: its allocation says what it has. */
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 0);
	/* A goes, its claim is freed: gpu-0 is B's again. */
	fake_apiserver_pod_delete(c->api, NS, "a");
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, NS, "a", pending_text);
	assert_true(wait_metric(c, "numa_extender_dra_allocated_devices ", 0));
	assert_true(wait_filter_b(c, PASS));
	assert_true(wait_metric(c, LEDGER_PODS, 0));
}

static void a_deleted_pod_lets_go(void **state)
{
	struct serve_cluster *c = &cluster;

	(void)state;
	put_pod(c, "a2", "a", true, NULL);
	assert_true(wait_filter_b(c, FAIL));
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 1);
	/* Deleted before its claim's allocation arrived: nothing holds
	 * gpu-0 any more (assumeTTL is an hour). */
	fake_apiserver_pod_delete(c->api, NS, "a2");
	assert_true(wait_filter_b(c, PASS));
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 0);
	assert_true(wait_metric(c, LEDGER_PODS, 0));
}

static void a_pod_bound_longer_than_assume_ttl_ago_holds_nothing(void **state)
{
	struct serve_cluster *c = &cluster;

	(void)state;
	/* Scheduled years ago: its claim's allocation is long overdue. */
	put_pod(c, "old", "a", true, "2020-01-01T00:00:00Z");
	/* The pod watch handles a pod's devices before the ledger counts it. */
	assert_true(wait_metric(c, LEDGER_PODS, 1));
	assert_filter_b(c, PASS);
	assert_int_equal(serve_cluster_metric(c, ASSUMED), 0);
	fake_apiserver_pod_delete(c->api, NS, "old");
	assert_true(wait_metric(c, LEDGER_PODS, 0));
}

static void serve_stops_cleanly(void **state)
{
	int status;

	(void)state;
	status = serve_cluster_stop(&cluster);
	cluster.pid = 0;
	assert_int_equal(status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_bound_pod_holds_its_predicted_gpu),
		cmocka_unit_test(the_allocation_takes_over),
		cmocka_unit_test(a_deleted_pod_lets_go),
		cmocka_unit_test(a_pod_bound_longer_than_assume_ttl_ago_holds_nothing),
		cmocka_unit_test(serve_stops_cleanly),
	};

	return cmocka_run_group_tests_name("serve_dra_assume", tests, start, stop);
}
