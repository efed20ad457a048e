/* SPDX-License-Identifier: Apache-2.0 */
/* serve with dra.enabled, end to end: the fake API server serves two
 * two-socket nodes (NodeResourceTopology) and their GPUs
 * (resource.k8s.io/v1 ResourceSlices that say each GPU's
 * resource.kubernetes.io/numaNode), serve lists and watches them, and the
 * test calls filter, prioritize and bind with the real HTTP client as
 * kube-scheduler would.
 *
 * Both nodes have 8 free CPUs on NUMA 0 and 2 on NUMA 1, so the pod's 4
 * exclusive CPUs fit on NUMA 0 alone; each has gpu-0 on NUMA 0 and gpu-1 on
 * NUMA 1. On node-a another claim holds gpu-0: the scheduler's allocator
 * would give the pod gpu-1, far from its CPUs. On node-b gpu-0 is free.
 *
 * Cases: each dra.alignment (require rejects node-a with the reason, or
 * both nodes as unresolvable for a claim only far GPUs match; prefer
 * scores node-a below node-b; off ignores DRA); an allocation written to the
 * API server changes the next answer, a repeated request is answered from
 * the verdict cache; a selector outside the CEL subset, in a claim or in a
 * DeviceClass, is unpredictable and rejects nothing; the verdict counters;
 * the bind verb's re-check of the real allocation, which fails the bind
 * and vetoes the node for that pod's next filter, or lets it through. Every wait has a
 * deadline; no verdict depends on timing. */
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
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/serve_cluster.h"

#define TOKEN "serve-dra-token"
#define DEADLINE_S 20.0
#define NS "ml"

/* The reason require gives node-a (and bind gives a pod that got gpu-1). */
#define FAR_GPU "NUMA: DRA devices gpu-1 (gpu.example.com) on NUMA 1, container \"train\" CPUs on NUMA 0"

static const char nrt_text[] =
	"{\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
	"{\"name\":\"topologyManagerScope\",\"value\":\"container\"}],"
	"\"zones\":["
	"{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"}]},"
	"{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"2\"},"
	"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"}]}]}";

static const char slice_text[] =
	"{\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"%s\","
	"\"pool\":{\"name\":\"%s\",\"generation\":1,\"resourceSliceCount\":1},"
	"\"devices\":[{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"X 100\"},"
	"\"resource.kubernetes.io/numaNode\":{\"int\":0}}},"
	"{\"name\":\"gpu-1\",\"attributes\":{\"model\":{\"string\":\"X 100\"},"
	"\"resource.kubernetes.io/numaNode\":{\"int\":1}}}]}}";

static const char class_text[] =
	"{\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.example.com'\"}}]}}";

/* A selector the extender's CEL subset cannot evaluate as the scheduler
 * would (string methods). */
#define ODD_CEL "device.attributes['gpu.example.com'].model.split(' ').size() > 1"

static const char odd_class_text[] =
	"{\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"" ODD_CEL "\"}}]}}";

/* A selector that only the GPUs on NUMA 1 match. */
#define FAR_ONLY "device.attributes['resource.kubernetes.io'].numaNode == 1"

/* A pending claim of one device of class; with a selector when sel. */
static void claim_text(const char *cls, const char *sel, char *buf, size_t size)
{
	char extra[256] = "";

	if (sel != NULL)
		snprintf(extra, sizeof extra, ",\"selectors\":[{\"cel\":{\"expression\":\"%s\"}}]", sel);
	snprintf(buf, size,
		 "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
		 "{\"deviceClassName\":\"%s\"%s}}]}}}",
		 cls, extra);
}

/* A claim of class gpu.example.com allocated on node's device dev. */
static void allocated_text(const char *node, const char *dev, char *buf, size_t size)
{
	snprintf(buf, size,
		 "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
		 "{\"deviceClassName\":\"gpu.example.com\"}}]}},"
		 "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\","
		 "\"driver\":\"gpu.example.com\",\"pool\":\"%s\",\"device\":\"%s\"}]},"
		 "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
		 "\"operator\":\"In\",\"values\":[\"%s\"]}]}]}}}}",
		 node, dev, node);
}

/* A Guaranteed pod of 4 exclusive CPUs whose container "train" uses the
 * claim claim (spec.resourceClaims[0] "gpu"). */
static void pod_text(const char *name, const char *uid, const char *claim, char *buf, size_t size)
{
	snprintf(buf, size,
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"" NS "\",\"uid\":\"%s\"},"
		 "\"spec\":{\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"%s\"}],"
		 "\"containers\":[{\"name\":\"train\",\"resources\":{"
		 "\"requests\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\"},"
		 "\"claims\":[{\"name\":\"gpu\"}]}}]},"
		 "\"status\":{\"phase\":\"Pending\",\"qosClass\":\"Guaranteed\"}}",
		 name, uid, claim);
}

/* The cluster above; the claims "train-gpu" (pending, for the pods),
 * "held-a" (gpu-0 of node-a), "far-only" (a GPU on NUMA 1) and, for the
 * unsupported selectors, "odd-sel" (a selector in the claim) and
 * "odd-class" (in its class). */
static struct fake_apiserver *start_api(void)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	struct fake_apiserver *api = fake_apiserver_start(&o);
	const char *nodes[] = { "node-a", "node-b" };
	char buf[2048], name[64];
	size_t i;

	assert_non_null(api);
	for (i = 0; i < 2; i++) {
		fake_apiserver_put(api, nodes[i], nrt_text);
		snprintf(buf, sizeof buf, slice_text, nodes[i], nodes[i]);
		snprintf(name, sizeof name, "%s-gpu.example.com", nodes[i]);
		fake_apiserver_dra_put(api, DRA_KIND_SLICE, NULL, name, buf);
	}
	fake_apiserver_dra_put(api, DRA_KIND_CLASS, NULL, "gpu.example.com", class_text);
	fake_apiserver_dra_put(api, DRA_KIND_CLASS, NULL, "odd.example.com", odd_class_text);
	claim_text("gpu.example.com", NULL, buf, sizeof buf);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "train-gpu", buf);
	claim_text("gpu.example.com", ODD_CEL, buf, sizeof buf);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "odd-sel", buf);
	claim_text("odd.example.com", NULL, buf, sizeof buf);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "odd-class", buf);
	claim_text("gpu.example.com", FAR_ONLY, buf, sizeof buf);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, NS, "far-only", buf);
	allocated_text("node-a", "gpu-0", buf, sizeof buf);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, "other", "held-a", buf);
	return api;
}

static bool wait_metric(const struct serve_cluster *c, const char *name, int64_t want)
{
	return serve_cluster_wait_metric(c, name, want, DEADLINE_S);
}

/* The one serve every case talks to: starting and stopping serve take
 * seconds (each of its seven watches notices the stop within a second),
 * so the cases share it, in order. Each but the bind case (last) leaves
 * the cluster and dra.alignment as it found them; all read counters as
 * differences. */
static struct serve_cluster cluster;

/* serve's config, dra.alignment alignment and the bind verb on. */
static void write_config(struct serve_cluster *c, const char *alignment)
{
	FILE *f = fopen(c->config, "w");

	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "ledger: {mode: predicted, assumeTTL: 1h}\nbind: {enabled: true}\n"
		   "dra: {enabled: true, alignment: %s}\nlog: {level: info}\n",
		c->kubeconfig, alignment);
	fclose(f);
}

/* dra.alignment changed by SIGHUP; returns once serve has taken it. */
static void set_alignment(struct serve_cluster *c, const char *alignment)
{
	int64_t ok = serve_cluster_metric(c, "numa_extender_config_reloads_total{result=\"ok\"} ");

	write_config(c, alignment);
	assert_int_equal(kill(c->pid, SIGHUP), 0);
	assert_true(wait_metric(c, "numa_extender_config_reloads_total{result=\"ok\"} ", ok + 1));
}

/* serve with dra.alignment: require on the cluster, ready, with every DRA
 * object listed. A serve that does not get there is stopped: a failed
 * group setup runs no teardown. */
static int start(void **state)
{
	struct serve_cluster *c = &cluster;
	bool ok;

	(void)state;
	memset(c, 0, sizeof *c);
	c->api = start_api();
	serve_cluster_write_kubeconfig(c, "sdra", TOKEN);
	fclose(serve_cluster_open_config(c, "sdra"));
	write_config(c, "require");
	serve_cluster_launch(c);
	/* /readyz does not wait for the DRA lists. */
	ok = serve_cluster_wait_ready(c) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"resourceclaim\"} ", 5) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"resourceslice\"} ", 2) &&
	     wait_metric(c, "numa_extender_dra_objects{kind=\"deviceclass\"} ", 2) &&
	     wait_metric(c, "numa_extender_dra_allocated_devices ", 1);
	if (ok)
		return 0;
	serve_cluster_stop(c);
	c->pid = 0;
	return -1;
}

/* serve_stops_cleanly stops serve; this is for when it could not run. */
static int stop(void **state)
{
	(void)state;
	if (cluster.pid > 0)
		serve_cluster_stop(&cluster);
	cluster.pid = 0;
	return 0;
}

/* kube-scheduler's filter or prioritize body for the pod on nodes
 * ("a", "b" or "ab"). */
static void args_text(const char *name, const char *uid, const char *claim, const char *nodes, char *buf,
		      size_t size)
{
	char pod[2048];
	size_t len;
	const char *p;

	pod_text(name, uid, claim, pod, sizeof pod);
	len = (size_t)snprintf(buf, size, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", pod);
	for (p = nodes; *p; p++)
		len += (size_t)snprintf(buf + len, size - len, "%s\"node-%c\"", p == nodes ? "" : ",", *p);
	snprintf(buf + len, size - len, "]}");
}

/* A filter answer in one line: "pass=a,b failed=a:<reason> unresolvable=
 * error=" (nodes in reply order), malloc'd. */
static char *filter(const struct serve_cluster *c, const char *name, const char *uid, const char *claim,
		    const char *nodes)
{
	char body[4096], out[4096];
	struct json_object *r, *names = NULL, *failed = NULL, *unres = NULL, *err = NULL;
	size_t i, len;

	args_text(name, uid, claim, nodes, body, sizeof body);
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
	i = 0;
	if (failed != NULL) {
		json_object_object_foreach(failed, k, v) {
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%s:%s", i++ ? "," : "", k,
						json_object_get_string(v));
		}
	}
	len += (size_t)snprintf(out + len, sizeof out - len, " unresolvable=");
	i = 0;
	if (unres != NULL) {
		json_object_object_foreach(unres, k, v) {
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%s:%s", i++ ? "," : "", k,
						json_object_get_string(v));
		}
	}
	snprintf(out + len, sizeof out - len, " error=%s", err ? json_object_get_string(err) : "");
	json_object_put(r);
	return strdup(out);
}

static void assert_filter(const struct serve_cluster *c, const char *name, const char *uid, const char *claim,
			  const char *nodes, const char *want)
{
	char *got = filter(c, name, uid, claim, nodes);

	assert_string_equal(got, want);
	free(got);
}

/* Filters until the answer is want; false (and the last answer on stderr)
 * at the deadline. */
static bool wait_filter(const struct serve_cluster *c, const char *name, const char *uid, const char *claim,
			const char *nodes, const char *want)
{
	double until = serve_cluster_now() + DEADLINE_S;

	for (;;) {
		char *got = filter(c, name, uid, claim, nodes);
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

/* Prioritize's scores of node-a and node-b. */
static void prioritize(const struct serve_cluster *c, int64_t *a, int64_t *b)
{
	char body[4096];
	struct json_object *r;
	size_t i;

	*a = *b = -1;
	args_text("train-0", "uid-train-0", "train-gpu", "ab", body, sizeof body);
	r = serve_cluster_post(c, NULL, "prioritize", body);
	assert_non_null(r);
	assert_int_equal(json_object_array_length(r), 2);
	for (i = 0; i < 2; i++) {
		struct json_object *e = json_object_array_get_idx(r, i);
		const char *host = json_object_get_string(json_object_object_get(e, "Host"));
		int64_t score = json_object_get_int64(json_object_object_get(e, "Score"));

		*(strcmp(host, "node-a") == 0 ? a : b) = score;
	}
	json_object_put(r);
}

static int64_t verdicts(const struct serve_cluster *c, const char *result)
{
	char name[96];

	snprintf(name, sizeof name, "numa_extender_dra_verdicts_total{result=\"%s\"} ", result);
	return serve_cluster_metric(c, name);
}

/* --- the cases --- */

static void require_rejects_the_node_whose_free_gpu_is_far(void **state)
{
	struct serve_cluster *c = &cluster;
	int64_t mis = verdicts(c, "misaligned"), al = verdicts(c, "aligned");
	int64_t rej = serve_cluster_metric(c, "numa_extender_rejections_total{reason=\"DRAAlignment\"} ");
	int64_t hits;

	(void)state;
	/* Some GPU of node-a that matches is on NUMA 0 (only taken): not
	 * unresolvable, a preemption or a freed GPU could do. */
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-b failed=node-a:" FAR_GPU " unresolvable= error=");
	assert_int_equal(verdicts(c, "misaligned"), mis + 1);
	assert_int_equal(verdicts(c, "aligned"), al + 1);
	assert_int_equal(serve_cluster_metric(c, "numa_extender_rejections_total{reason=\"DRAAlignment\"} "),
			 rej + 1);
	/* The same request again: the same answer, from the verdict cache. */
	hits = serve_cluster_metric(c, "numa_extender_verdict_cache_hits_total ");
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-b failed=node-a:" FAR_GPU " unresolvable= error=");
	assert_int_equal(serve_cluster_metric(c, "numa_extender_verdict_cache_hits_total "), hits + 2);
	/* Each node judged counts, remembered or not. */
	assert_int_equal(verdicts(c, "misaligned"), mis + 2);
	assert_int_equal(verdicts(c, "aligned"), al + 2);
	/* node-a alone, then node-b alone. */
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "a",
		      "pass= failed=node-a:" FAR_GPU " unresolvable= error=");
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "b", "pass=node-b failed= unresolvable= error=");
	assert_int_equal(verdicts(c, "misaligned"), mis + 3);
	assert_int_equal(verdicts(c, "aligned"), al + 3);
	/* A claim only far GPUs match: no node can ever align it. */
	assert_filter(c, "train-0", "uid-train-0", "far-only", "ab",
		      "pass= failed= unresolvable=node-a:" FAR_GPU ",node-b:" FAR_GPU " error=");
	assert_int_equal(verdicts(c, "misaligned"), mis + 5);
}

static void prefer_scores_the_far_gpu_lower(void **state)
{
	struct serve_cluster *c = &cluster;
	int64_t mis = verdicts(c, "misaligned"), al = verdicts(c, "aligned");
	int64_t a, b;

	(void)state;
	set_alignment(c, "prefer");
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-a,node-b failed= unresolvable= error=");
	assert_int_equal(verdicts(c, "misaligned"), mis + 1);
	assert_int_equal(verdicts(c, "aligned"), al + 1);
	prioritize(c, &a, &b);
	print_message("prefer: node-a (far GPU) %lld, node-b (near GPU) %lld\n", (long long)a, (long long)b);
	assert_true(a >= 0);
	assert_true(b > a);
	set_alignment(c, "require");
}

static void off_ignores_the_devices(void **state)
{
	struct serve_cluster *c = &cluster;
	int64_t mis = verdicts(c, "misaligned"), al = verdicts(c, "aligned"), none = verdicts(c, "noClaims");
	int64_t a, b;

	(void)state;
	set_alignment(c, "off");
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-a,node-b failed= unresolvable= error=");
	/* Both nodes are the same to the kubelet: the same score. */
	prioritize(c, &a, &b);
	assert_true(a >= 0);
	assert_int_equal(a, b);
	/* No DRA verdict is made. */
	assert_int_equal(verdicts(c, "misaligned"), mis);
	assert_int_equal(verdicts(c, "aligned"), al);
	assert_int_equal(verdicts(c, "noClaims"), none);
	set_alignment(c, "require");
}

static void selectors_outside_cel_subset_reject_nothing(void **state)
{
	static const char *const claims[] = { "odd-sel", "odd-class" };
	struct serve_cluster *c = &cluster;
	int64_t mis = verdicts(c, "misaligned");
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		int64_t before = verdicts(c, "unpredictable");

		/* Even node-a, whose only free GPU is far, passes. */
		assert_filter(c, "odd-0", "uid-odd-0", claims[i], "ab",
			      "pass=node-a,node-b failed= unresolvable= error=");
		assert_int_equal(verdicts(c, "unpredictable"), before + 2);
	}
	assert_int_equal(verdicts(c, "misaligned"), mis);
	/* serve is alive and well. */
	assert_int_equal(kill(c->pid, 0), 0);
	assert_int_equal(serve_cluster_get(c, "/healthz", NULL), 200);
}

/* Leaves train-2 bound to node-b with gpu-0 there: last but one. */
static void bind_refuses_a_far_allocation_and_vetoes_the_node(void **state)
{
	struct serve_cluster *c = &cluster;
	int64_t errors = serve_cluster_metric(c, "numa_extender_binds_total{result=\"error\"} ");
	struct fake_apiserver_stats st;
	struct json_object *r;
	char pod[2048], buf[2048], *stored;

	(void)state;
	pod_text("train-1", "uid-train-1", "train-gpu", pod, sizeof pod);
	fake_apiserver_pod_put(c->api, NS, "train-1", pod);
	/* The prediction on node-b: gpu-0, aligned. */
	assert_filter(c, "train-1", "uid-train-1", "train-gpu", "b", "pass=node-b failed= unresolvable= error=");
	/* The scheduler's allocator gave it gpu-1 all the same (PreBind wrote
	 * it), then asks us to bind. */
	allocated_text("node-b", "gpu-1", buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, NS, "train-gpu", buf);
	r = serve_cluster_post(c, NULL, "bind",
			       "{\"PodName\":\"train-1\",\"PodNamespace\":\"" NS "\",\"PodUID\":\"uid-train-1\","
			       "\"Node\":\"node-b\"}");
	assert_non_null(r);
	assert_string_equal(json_object_get_string(json_object_object_get(r, "Error")),
			    "node node-b: the DRA devices allocated to pod ml/train-1 are not on the NUMA nodes "
			    "of its CPUs: " FAR_GPU);
	json_object_put(r);
	assert_int_equal(serve_cluster_metric(c, "numa_extender_binds_total{result=\"error\"} "), errors + 1);
	/* No Binding: the pod is still pending. */
	fake_apiserver_stats(c->api, &st);
	assert_int_equal(st.bindings, 0);
	stored = fake_apiserver_pod_get(c->api, NS, "train-1");
	assert_non_null(stored);
	assert_null(strstr(stored, "nodeName"));
	free(stored);
	/* The scheduler takes the allocation back (Unreserve); once serve has
	 * seen that, the prediction on node-b is gpu-0 and aligned again. */
	claim_text("gpu.example.com", NULL, buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, NS, "train-gpu", buf);
	assert_true(wait_metric(c, "numa_extender_dra_allocated_devices ", 1));
	/* Another pod with the same spec passes node-b... */
	assert_filter(c, "train-1", "uid-train-1-new", "train-gpu", "b",
		      "pass=node-b failed= unresolvable= error=");
	/* ...this one does not: the bind's veto, with the bind's reason. */
	assert_filter(c, "train-1", "uid-train-1", "train-gpu", "b",
		      "pass= failed=node-b:" FAR_GPU " unresolvable= error=");
	fake_apiserver_pod_delete(c->api, NS, "train-1");

	/* A pod the allocator gave the near GPU is bound. */
	pod_text("train-2", "uid-train-2", "train-gpu", pod, sizeof pod);
	fake_apiserver_pod_put(c->api, NS, "train-2", pod);
	allocated_text("node-b", "gpu-0", buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, NS, "train-gpu", buf);
	r = serve_cluster_post(c, NULL, "bind",
			       "{\"PodName\":\"train-2\",\"PodNamespace\":\"" NS "\",\"PodUID\":\"uid-train-2\","
			       "\"Node\":\"node-b\"}");
	assert_non_null(r);
	assert_string_equal(json_object_get_string(json_object_object_get(r, "Error")), "");
	json_object_put(r);
	fake_apiserver_stats(c->api, &st);
	assert_int_equal(st.bindings, 1);
	stored = fake_apiserver_pod_get(c->api, NS, "train-2");
	assert_non_null(strstr(stored, "\"nodeName\":\"node-b\""));
	free(stored);
	/* The bind published the claim at once: gpu-0 of node-b is taken. */
	assert_int_equal(serve_cluster_metric(c, "numa_extender_dra_allocated_devices "), 2);
}

static void an_allocation_changes_the_next_answer(void **state)
{
	struct serve_cluster *c = &cluster;
	char buf[2048];

	(void)state;
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-b failed=node-a:" FAR_GPU " unresolvable= error=");
	/* held-a lets go of node-a's gpu-0: node-a is aligned too. */
	claim_text("gpu.example.com", NULL, buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, "other", "held-a", buf);
	assert_true(wait_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
				"pass=node-a,node-b failed= unresolvable= error="));
	assert_int_equal(serve_cluster_metric(c, "numa_extender_dra_allocated_devices "), 0);
	/* A new claim takes node-b's gpu-0: node-b is the far one now. */
	allocated_text("node-b", "gpu-0", buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, "other", "held-b", buf);
	assert_true(wait_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
				"pass=node-a failed=node-b:" FAR_GPU " unresolvable= error="));
	/* Repeated, the answer stands. */
	assert_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
		      "pass=node-a failed=node-b:" FAR_GPU " unresolvable= error=");
	/* As it was. */
	fake_apiserver_dra_delete(c->api, DRA_KIND_CLAIM, "other", "held-b");
	allocated_text("node-a", "gpu-0", buf, sizeof buf);
	fake_apiserver_dra_put(c->api, DRA_KIND_CLAIM, "other", "held-a", buf);
	assert_true(wait_filter(c, "train-0", "uid-train-0", "train-gpu", "ab",
				"pass=node-b failed=node-a:" FAR_GPU " unresolvable= error="));
}

/* Last: serve ends cleanly after all of it. */
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
		cmocka_unit_test(require_rejects_the_node_whose_free_gpu_is_far),
		cmocka_unit_test(prefer_scores_the_far_gpu_lower),
		cmocka_unit_test(off_ignores_the_devices),
		cmocka_unit_test(selectors_outside_cel_subset_reject_nothing),
		cmocka_unit_test(an_allocation_changes_the_next_answer),
		cmocka_unit_test(bind_refuses_a_far_allocation_and_vetoes_the_node),
		cmocka_unit_test(serve_stops_cleanly),
	};

	return cmocka_run_group_tests_name("serve_dra", tests, start, stop);
}
