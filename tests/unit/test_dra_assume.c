/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA devices of pods seen bound before their claims' allocation
 * arrived (extender/decide/dra_assume.h), on one node with three GPUs:
 * a pod is held with the device the allocator would give it, the next
 * pod's prediction skips it, and it lets go when its claim's allocation
 * is in the snapshot, when the TTL has passed, when it is forgotten, or
 * when newer pods push it out. Time is passed in: no test waits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/decide/dra_assume.h"

#define T0 ((int64_t)1700000000000)
#define TTL ((int64_t)30000)
#define DRV "gpu.x"

static const char cluster_text[] =
	"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n1-gpu}\n"
	"spec:\n  driver: gpu.x\n  nodeName: n1\n"
	"  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
	"  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.x}\n"
	"spec:\n  selectors: [{cel: {expression: \"device.driver == 'gpu.x'\"}}]\n";

/* A pending claim name of one GPU, or (dev not NULL) allocated dev of n1. */
static void put_claim(struct dra_store *s, const char *name, const char *dev, const char *version)
{
	char text[1024];
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };
	struct dra_batch *b = dra_batch_new();
	int n;

	n = snprintf(text, sizeof text,
		     "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
		     "metadata: {name: %s, namespace: ml}\n"
		     "spec:\n  devices:\n    requests:\n    - name: gpu\n"
		     "      exactly: {deviceClassName: gpu.x}\n",
		     name);
	if (dev != NULL)
		snprintf(text + n, sizeof text - (size_t)n,
			 "status:\n  allocation:\n    devices:\n      results:\n"
			 "      - {request: gpu, driver: gpu.x, pool: n1, device: %s}\n",
			 dev);
	if (dra_objects_decode(text, strlen(text), "claim.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	dra_batch_put_objects(b, &o, version, "claim.yaml");
	dra_objects_cleanup(&o);
	dra_store_publish(s, b);
}

/* The cluster with the pending claims a, b, c, d. */
static struct dra_store *cluster(void)
{
	struct dra_store *s = dra_store_new();
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };
	struct dra_batch *b = dra_batch_new();

	if (dra_objects_decode(cluster_text, strlen(cluster_text), "cluster.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(o.nbad, 0);
	dra_batch_put_objects(b, &o, "1", "cluster.yaml");
	dra_objects_cleanup(&o);
	dra_store_publish(s, b);
	put_claim(s, "a", NULL, "1");
	put_claim(s, "b", NULL, "1");
	put_claim(s, "c", NULL, "1");
	put_claim(s, "d", NULL, "1");
	return s;
}

/* A pod of namespace ml whose container uses the claim claim. */
static void pod_claims(const char *claim, struct dra_pod_claims *out)
{
	char text[512];
	struct doc **docs = NULL;
	size_t ndocs = 0;
	struct errmsg msg = { { 0 } };

	snprintf(text, sizeof text,
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: p-%s, namespace: ml}\nspec:\n"
		 "  resourceClaims: [{name: gpu, resourceClaimName: %s}]\n"
		 "  containers:\n  - name: c\n    resources: {claims: [{name: gpu}]}\n",
		 claim, claim);
	if (doc_parse(text, strlen(text), "pod.yaml", &docs, &ndocs, &msg) != ERR_OK ||
	    dra_pod_claims_decode(docs[0], "pod.yaml", out, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	doc_free_all(docs, ndocs);
}

/* dra_assume_pod for the pod "uid-<claim>" of claim claim, bound to n1. */
static size_t assume(struct dra_assume *a, struct dra_store *s, const char *claim, int64_t when)
{
	const struct dra_snapshot *snap = dra_store_acquire(s);
	struct dra_pod_claims pc;
	char uid[64], name[64];
	size_t n;

	pod_claims(claim, &pc);
	snprintf(uid, sizeof uid, "uid-%s", claim);
	snprintf(name, sizeof name, "p-%s", claim);
	n = dra_assume_pod(a, snap, uid, "ml", name, "n1", &pc, when, DRA_ORDER_SORTED);
	dra_pod_claims_cleanup(&pc);
	dra_snapshot_release(snap);
	return n;
}

/* The devices held at now as "gpu-0,gpu-2" (n1's GPUs in order) and the
 * number of pods, in a static buffer. */
static const char *held(struct dra_assume *a, struct dra_store *s, int64_t now, const char *except)
{
	static char out[128];
	const struct dra_snapshot *snap = dra_store_acquire(s);
	struct dra_device_set set;
	size_t pods, i, len = 0;

	dra_device_set_init(&set);
	pods = dra_assume_devices(a, snap, now, except, &set);
	for (i = 0; i < 3; i++) {
		char dev[16];

		snprintf(dev, sizeof dev, "gpu-%zu", i);
		if (dra_device_set_has(&set, DRV, "n1", dev))
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", len ? "," : "", dev);
	}
	snprintf(out + len, sizeof out - len, " pods=%zu n=%zu", pods, set.n);
	dra_device_set_free(&set);
	dra_snapshot_release(snap);
	return out;
}

static size_t count(struct dra_assume *a, struct dra_store *s, int64_t now)
{
	const struct dra_snapshot *snap = dra_store_acquire(s);
	size_t n = dra_assume_count(a, snap, now);

	dra_snapshot_release(snap);
	return n;
}

static void a_bound_pod_holds_the_predicted_device(void **state)
{
	struct dra_store *s = cluster();
	struct dra_assume *a = dra_assume_new(TTL, 0);

	(void)state;
	assert_string_equal(held(a, s, T0, NULL), " pods=0 n=0");
	assert_int_equal(assume(a, s, "a", T0), 1);
	assert_string_equal(held(a, s, T0 + 1, NULL), "gpu-0 pods=1 n=1");
	/* The next pod's prediction skips gpu-0. */
	assert_int_equal(assume(a, s, "b", T0 + 2), 1);
	assert_string_equal(held(a, s, T0 + 3, NULL), "gpu-0,gpu-1 pods=2 n=2");
	/* A pod's own devices are left out for it. */
	assert_string_equal(held(a, s, T0 + 3, "uid-a"), "gpu-1 pods=1 n=1");
	/* Seen bound again (another event): the first prediction stands. */
	assert_int_equal(assume(a, s, "a", T0 + 4), 1);
	assert_string_equal(held(a, s, T0 + 5, NULL), "gpu-0,gpu-1 pods=2 n=2");
	assert_int_equal(count(a, s, T0 + 5), 2);
	dra_assume_free(a);
	dra_store_free(s);
}

static void the_ttl_lets_go(void **state)
{
	struct dra_store *s = cluster();
	struct dra_assume *a = dra_assume_new(TTL, 0);

	(void)state;
	assert_int_equal(assume(a, s, "a", T0), 1);
	assert_int_equal(assume(a, s, "b", T0 + 1000), 1);
	assert_string_equal(held(a, s, T0 + TTL - 1, NULL), "gpu-0,gpu-1 pods=2 n=2");
	assert_string_equal(held(a, s, T0 + TTL, NULL), "gpu-1 pods=1 n=1");
	assert_string_equal(held(a, s, T0 + 1000 + TTL, NULL), " pods=0 n=0");
	/* A pod bound longer ago than the TTL is not held at all. */
	assume(a, s, "c", T0);
	assert_string_equal(held(a, s, T0 + 2000 + TTL, NULL), " pods=0 n=0");
	dra_assume_free(a);
	dra_store_free(s);
}

static void the_allocation_lets_go(void **state)
{
	struct dra_store *s = cluster();
	struct dra_assume *a = dra_assume_new(TTL, 0);

	(void)state;
	assert_int_equal(assume(a, s, "a", T0), 1);
	assert_int_equal(assume(a, s, "b", T0), 1);
	/* The scheduler gave a gpu-2: once that is in the snapshot, its
	 * allocation says what is taken, and a is dropped. */
	put_claim(s, "a", "gpu-2", "2");
	assert_string_equal(held(a, s, T0 + 1, NULL), "gpu-1 pods=1 n=1");
	/* A pod whose claims are allocated already is not held. */
	assert_int_equal(assume(a, s, "a", T0 + 2), 0);
	assert_string_equal(held(a, s, T0 + 3, NULL), "gpu-1 pods=1 n=1");
	/* Nor one whose claim is not known (nothing to predict). */
	assert_int_equal(assume(a, s, "nope", T0 + 4), 0);
	assert_int_equal(count(a, s, T0 + 5), 1);
	dra_assume_free(a);
	dra_store_free(s);
}

static void a_deleted_pod_is_forgotten(void **state)
{
	struct dra_store *s = cluster();
	struct dra_assume *a = dra_assume_new(TTL, 0);

	(void)state;
	assert_int_equal(assume(a, s, "a", T0), 1);
	assert_int_equal(assume(a, s, "b", T0), 1);
	dra_assume_forget(a, "uid-a");
	dra_assume_forget(a, "uid-unknown");
	assert_string_equal(held(a, s, T0 + 1, NULL), "gpu-1 pods=1 n=1");
	/* Its device is free for the next one. */
	assert_int_equal(assume(a, s, "c", T0 + 2), 1);
	assert_string_equal(held(a, s, T0 + 3, NULL), "gpu-0,gpu-1 pods=2 n=2");
	dra_assume_free(a);
	dra_store_free(s);
}

static void the_oldest_pod_goes_first(void **state)
{
	struct dra_store *s = cluster();
	struct dra_assume *a = dra_assume_new(TTL, 2);

	(void)state;
	assert_int_equal(assume(a, s, "a", T0), 1);
	assert_int_equal(assume(a, s, "b", T0 + 1), 1);
	/* c's prediction skips a's and b's GPUs, then pushes a out. */
	assert_int_equal(assume(a, s, "c", T0 + 2), 1);
	assert_string_equal(held(a, s, T0 + 3, NULL), "gpu-1,gpu-2 pods=2 n=2");
	/* d gets gpu-0, the one a held, and pushes b out. */
	assert_int_equal(assume(a, s, "d", T0 + 4), 1);
	assert_string_equal(held(a, s, T0 + 5, NULL), "gpu-0,gpu-2 pods=2 n=2");
	dra_assume_free(a);
	dra_store_free(s);
	dra_assume_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_bound_pod_holds_the_predicted_device),
		cmocka_unit_test(the_ttl_lets_go),
		cmocka_unit_test(the_allocation_lets_go),
		cmocka_unit_test(a_deleted_pod_is_forgotten),
		cmocka_unit_test(the_oldest_pod_goes_first),
	};

	return cmocka_run_group_tests_name("dra_assume", tests, NULL, NULL);
}
