/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA inventory from the Kubernetes API, against the fake API server's
 * resource.k8s.io/v1: the source in process (paged lists of the four kinds,
 * a bad object that fails alone, watch events that add, change and delete,
 * versions that move with each change and not with a relist of the same
 * objects), then serve as a process: its /metrics counts the DRA objects
 * and follows a new claim, and without dra.enabled shows none and makes no
 * DRA call. Every wait has a deadline; no verdict depends on timing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/inventory/source_dra.h"
#include "extender/log.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/serve_cluster.h"

#define TOKEN "dra-token"
#define DEADLINE_S 20.0

static const char gpu_slice[] =
	"{\"spec\":{\"driver\":\"gpu.nvidia.com\",\"nodeName\":\"%s\","
	"\"pool\":{\"name\":\"%s\",\"generation\":1,\"resourceSliceCount\":1},"
	"\"devices\":[{\"name\":\"gpu-0\",\"attributes\":{\"type\":{\"string\":\"gpu\"},"
	"\"resource.kubernetes.io/pcieRoot\":{\"string\":\"pci0000:15\"}}},"
	"{\"name\":\"gpu-1\",\"attributes\":{\"type\":{\"string\":\"gpu\"},"
	"\"resource.kubernetes.io/pcieRoot\":{\"string\":\"pci0000:97\"}}}]}}";
static const char gpu_class[] =
	"{\"spec\":{\"selectors\":[{\"cel\":{\"expression\":"
	"\"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'\"}}]}}";
static const char claim_pending[] =
	"{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
	"{\"deviceClassName\":\"gpu.nvidia.com\"}}]}}}";
static const char claim_allocated[] =
	"{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
	"{\"deviceClassName\":\"gpu.nvidia.com\"}}]}},"
	"\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\","
	"\"driver\":\"gpu.nvidia.com\",\"pool\":\"node-a\",\"device\":\"gpu-1\"}]},"
	"\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
	"\"operator\":\"In\",\"values\":[\"node-a\"]}]}]}}}}";
static const char claim_bad[] =
	"{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\"}]}}}";
static const char template_one[] =
	"{\"spec\":{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
	"{\"deviceClassName\":\"gpu.nvidia.com\"}}]}}}}";

static void put_slice(struct fake_apiserver *api, const char *node)
{
	char name[64], json[2048];

	snprintf(name, sizeof name, "%s-gpu.nvidia.com-x", node);
	snprintf(json, sizeof json, gpu_slice, node, node);
	fake_apiserver_dra_put(api, DRA_KIND_SLICE, NULL, name, json);
}

/* The fake with two nodes' slices, a class, three claims (one allocated,
 * one that does not decode) and a template. */
static struct fake_apiserver *start_api(void)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 2 };
	struct fake_apiserver *api = fake_apiserver_start(&o);

	assert_non_null(api);
	put_slice(api, "node-a");
	put_slice(api, "node-b");
	fake_apiserver_dra_put(api, DRA_KIND_CLASS, NULL, "gpu.nvidia.com", gpu_class);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, "ml", "train-0-gpu", claim_allocated);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, "ml", "train-1-gpu", claim_pending);
	fake_apiserver_dra_put(api, DRA_KIND_CLAIM, "ml", "broken", claim_bad);
	fake_apiserver_dra_put(api, DRA_KIND_TEMPLATE, "ml", "single-gpu", template_one);
	return api;
}

typedef bool check_fn(const struct dra_snapshot *snap, void *arg);

/* Waits until check holds on the store's snapshot; false at the deadline. */
static bool wait_for(struct dra_store *s, check_fn *check, void *arg)
{
	double until = serve_cluster_now() + DEADLINE_S;

	for (;;) {
		const struct dra_snapshot *snap = dra_store_acquire(s);
		bool ok = check(snap, arg);

		dra_snapshot_release(snap);
		if (ok)
			return true;
		if (serve_cluster_now() > until)
			return false;
		usleep(10000);
	}
}

static bool listed(const struct dra_snapshot *snap, void *arg)
{
	(void)arg;
	return snap->nslices == 2 && snap->nclasses == 1 && snap->nclaims == 2 && snap->ntemplates == 1;
}

static bool claims_are(const struct dra_snapshot *snap, void *arg)
{
	return snap->nclaims == *(size_t *)arg;
}

static bool nothing_allocated(const struct dra_snapshot *snap, void *arg)
{
	(void)arg;
	return snap->nallocated == 0 && snap->nclaims == 2;
}

static bool node_b_gone(const struct dra_snapshot *snap, void *arg)
{
	(void)arg;
	return dra_snapshot_node(snap, "node-b") == NULL;
}

static bool errors_reach(struct dra_store *s, uint64_t n)
{
	double until = serve_cluster_now() + DEADLINE_S;
	struct dra_store_stats st;

	for (dra_store_stats(s, &st); st.errors < n; dra_store_stats(s, &st)) {
		if (serve_cluster_now() > until)
			return false;
		usleep(10000);
	}
	return true;
}

static uint64_t node_version(struct dra_store *s, const char *node)
{
	const struct dra_snapshot *snap = dra_store_acquire(s);
	uint64_t v = dra_snapshot_node(snap, node)->version;

	dra_snapshot_release(snap);
	return v;
}

static void source_lists_and_watches(void **state)
{
	struct serve_cluster c = { 0 };
	struct dra_store *store = dra_store_new();
	struct source_dra *src = NULL;
	struct fake_apiserver_stats fs;
	struct errmsg msg;
	struct config cfg;
	uint64_t v, a, b;
	size_t three = 3;

	(void)state;
	log_set_level(LOG_LEVEL_ERROR);
	c.api = start_api();
	serve_cluster_write_kubeconfig(&c, "dra", TOKEN);
	config_init(&cfg);
	cfg.inventory_source = CONFIG_SOURCE_KUBERNETES;
	cfg.kubeconfig = strdup(c.kubeconfig);
	cfg.watch_idle_timeout_ms = 5000;
	if (source_dra_start(store, &cfg, &src, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	/* Paged lists of every kind; the bad claim fails alone. */
	assert_true(wait_for(store, listed, NULL));
	assert_true(errors_reach(store, 1));
	{
		double until = serve_cluster_now() + DEADLINE_S;

		while (!dra_store_ready(store) && serve_cluster_now() < until)
			usleep(10000);
		assert_true(dra_store_ready(store));
	}
	fake_apiserver_stats(c.api, &fs);
	assert_true(fs.list_pages > fs.lists); /* page limit 2: the claims took two pages */
	{
		const struct dra_snapshot *snap = dra_store_acquire(store);

		assert_true(dra_snapshot_allocated(snap, "gpu.nvidia.com", "node-a", "gpu-1"));
		assert_null(dra_snapshot_claim(snap, "ml", "broken"));
		assert_string_equal(dra_snapshot_node(snap, "node-a")->slices[0]->devices[1].name, "gpu-1");
		v = snap->version;
		dra_snapshot_release(snap);
	}
	assert_true(fake_apiserver_wait_watches(c.api, 4, 20000));
	/* Watch: a new claim. */
	a = node_version(store, "node-a");
	b = node_version(store, "node-b");
	fake_apiserver_dra_put(c.api, DRA_KIND_CLAIM, "ml", "train-2-gpu", claim_pending);
	assert_true(wait_for(store, claims_are, &three));
	/* The allocated claim is deleted: node-a's version moves, node-b's not. */
	fake_apiserver_dra_delete(c.api, DRA_KIND_CLAIM, "ml", "train-0-gpu");
	assert_true(wait_for(store, nothing_allocated, NULL));
	assert_true(node_version(store, "node-a") > a);
	assert_int_equal(node_version(store, "node-b"), b);
	/* A bad version of the class: counted, the last good one stays. */
	fake_apiserver_dra_put(c.api, DRA_KIND_CLASS, NULL, "gpu.nvidia.com",
			       "{\"spec\":{\"selectors\":[{\"cel\":{}}]}}");
	assert_true(errors_reach(store, 2));
	{
		const struct dra_snapshot *snap = dra_store_acquire(store);

		assert_int_equal(dra_snapshot_class(snap, "gpu.nvidia.com")->nselectors, 1);
		assert_true(snap->version > v);
		v = snap->version;
		dra_snapshot_release(snap);
	}
	/* A slice deleted. */
	fake_apiserver_dra_delete(c.api, DRA_KIND_SLICE, NULL, "node-b-gpu.nvidia.com-x");
	assert_true(wait_for(store, node_b_gone, NULL));
	/* Every watch told to relist: the same objects again change nothing. */
	{
		struct dra_store_stats st;

		dra_store_stats(store, &st);
		v = st.version;
		fake_apiserver_stats(c.api, &fs);
		fake_apiserver_expire_history(c.api);
		fake_apiserver_send_error_event_410(c.api);
		{
			struct fake_apiserver_stats now;
			double until = serve_cluster_now() + DEADLINE_S;

			do {
				usleep(10000);
				fake_apiserver_stats(c.api, &now);
			} while (now.lists < fs.lists + 4 && serve_cluster_now() < until);
			assert_true(now.lists >= fs.lists + 4);
		}
		assert_true(fake_apiserver_wait_watches(c.api, 4, 20000));
		dra_store_stats(store, &st);
		assert_int_equal(st.version, v);
		assert_int_equal(st.objects[DRA_KIND_CLAIM], 2);
	}
	source_dra_stop(src);
	dra_store_free(store);
	config_cleanup(&cfg);
	fake_apiserver_stop(c.api);
	unlink(c.kubeconfig);
}

static void write_config(struct serve_cluster *c, bool dra)
{
	FILE *f;

	serve_cluster_write_kubeconfig(c, "dra", TOKEN);
	f = serve_cluster_open_config(c, "dra");
	fprintf(f, "listen: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s, watchIdleTimeout: 5s}\n"
		   "dra: {enabled: %s}\nlog: {level: debug}\n",
		c->kubeconfig, dra ? "true" : "false");
	fclose(f);
}

static bool wait_metric(const struct serve_cluster *c, const char *name, int64_t want)
{
	return serve_cluster_wait_metric(c, name, want, DEADLINE_S);
}

static void serve_counts_dra_objects(void **state)
{
	struct serve_cluster c = { 0 };

	(void)state;
	c.api = start_api();
	write_config(&c, true);
	serve_cluster_launch(&c);
	assert_true(serve_cluster_wait_ready(&c));
	/* The four DRA watches beside the NRT and pod ones. */
	assert_true(fake_apiserver_wait_watches(c.api, 7, 20000));
	assert_true(wait_metric(&c, "numa_extender_dra_objects{kind=\"resourceslice\"}", 2));
	assert_true(wait_metric(&c, "numa_extender_dra_objects{kind=\"resourceclaim\"}", 2));
	assert_true(wait_metric(&c, "numa_extender_dra_objects{kind=\"resourceclaimtemplate\"}", 1));
	assert_true(wait_metric(&c, "numa_extender_dra_allocated_devices", 1));
	assert_true(wait_metric(&c, "numa_extender_dra_load_errors_total", 1));
	fake_apiserver_dra_put(c.api, DRA_KIND_CLAIM, "ml", "train-2-gpu", claim_pending);
	assert_true(wait_metric(&c, "numa_extender_dra_objects{kind=\"resourceclaim\"}", 3));
	assert_int_equal(serve_cluster_stop(&c), 0);
}

/* Without dra.enabled serve is what it was: no DRA metric, no DRA call. */
static void serve_without_dra_is_unchanged(void **state)
{
	struct serve_cluster c = { 0 };
	struct fake_apiserver_stats before;
	char *body = NULL;

	(void)state;
	c.api = start_api();
	write_config(&c, false);
	serve_cluster_launch(&c);
	assert_true(serve_cluster_wait_ready(&c));
	assert_int_equal(serve_cluster_get(&c, "/metrics", &body), 200);
	assert_null(strstr(body, "numa_extender_dra_"));
	free(body);
	/* The NRT watch and the ledger's two pod watches (assigned pods,
	 * failed pods), each after its list; nothing else. */
	assert_true(fake_apiserver_wait_watches(c.api, 3, 20000));
	fake_apiserver_stats(c.api, &before);
	assert_int_equal(before.lists, 3);
	assert_int_equal(before.watches, 3);
	assert_int_equal(serve_cluster_stop(&c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(source_lists_and_watches),
		cmocka_unit_test(serve_counts_dra_objects),
		cmocka_unit_test(serve_without_dra_is_unchanged),
	};

	return cmocka_run_group_tests_name("dra_kube", tests, NULL, NULL);
}
