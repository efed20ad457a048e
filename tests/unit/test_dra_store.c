/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA store (extender/inventory/dra_store.h): snapshots of the
 * tests/data/dra objects, lookups and the derived views (slices by node in
 * the allocator's order, pools complete, incomplete and invalid, allocated
 * devices), versions that move only with a change and, per node, only with
 * a change that node's prediction reads; complete lists, kept objects,
 * deletes; snapshots that outlive later publishes; a reader racing a
 * publisher. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/inventory/dra_store.h"

#define DATA "tests/data/dra/"

/* Every object of path into b, each with version v. */
static void put_file(struct dra_batch *b, const char *path, const char *v)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	if (dra_objects_load(path, &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(o.nbad, 0);
	dra_batch_put_objects(b, &o, v, path);
	dra_objects_cleanup(&o);
}

/* One object of text (a single document) into b with version v. */
static void put_text(struct dra_batch *b, const char *text, const char *v)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	if (dra_objects_decode(text, strlen(text), "t.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(o.nslices + o.nclasses + o.nclaims + o.ntemplates, 1);
	if (o.nslices)
		dra_batch_put_slice(b, &o.slices[0], v, "t.yaml");
	if (o.nclasses)
		dra_batch_put_class(b, &o.classes[0], v, "t.yaml");
	if (o.nclaims)
		dra_batch_put_claim(b, &o.claims[0], v, "t.yaml");
	if (o.ntemplates)
		dra_batch_put_claim(b, &o.templates[0], v, "t.yaml");
	dra_objects_cleanup(&o);
}

static uint64_t node_version(struct dra_store *s, const char *node)
{
	const struct dra_snapshot *snap = dra_store_acquire(s);
	const struct dra_node_slices *n = dra_snapshot_node(snap, node);
	uint64_t v = n ? n->version : UINT64_MAX;

	dra_snapshot_release(snap);
	return v;
}

static struct dra_store *loaded(void)
{
	struct dra_store *s = dra_store_new();
	struct dra_batch *b = dra_batch_new();

	put_file(b, "tests/data/dra", "v1");
	assert_int_equal(dra_store_publish(s, b), 1);
	return s;
}

static void test_empty(void **state)
{
	struct dra_store *s = dra_store_new();
	const struct dra_snapshot *snap = dra_store_acquire(s);
	struct dra_store_stats st;

	(void)state;
	assert_int_equal(snap->version, 0);
	assert_int_equal(snap->nnodes, 0);
	assert_null(dra_snapshot_node(snap, "n"));
	assert_null(dra_snapshot_class(snap, "c"));
	assert_null(dra_snapshot_claim(snap, "ns", "c"));
	assert_false(dra_snapshot_allocated(snap, "d", "p", "x"));
	dra_snapshot_release(snap);
	/* An empty batch changes nothing. */
	assert_int_equal(dra_store_publish(s, dra_batch_new()), 0);
	dra_store_stats(s, &st);
	assert_int_equal(st.publishes, 0);
	assert_false(dra_store_ready(s));
	dra_store_free(s);
}

static void test_views(void **state)
{
	struct dra_store *s = loaded();
	const struct dra_snapshot *snap = dra_store_acquire(s);
	const struct dra_node_slices *a = dra_snapshot_node(snap, "gpu-node-a");
	const struct dra_store_pool *p;
	const struct dra_claim *c;
	struct dra_store_stats st;

	(void)state;
	assert_int_equal(snap->version, 1);
	assert_int_equal(snap->nnodes, 2);
	assert_string_equal(snap->nodes[0].node, "flex-node-b");
	assert_non_null(a);
	assert_int_equal(a->version, 1);
	/* The allocator's order: by driver, then pool, then slice name. */
	assert_int_equal(a->nslices, 2);
	assert_string_equal(a->slices[0]->driver, "dra.cpu");
	assert_string_equal(a->slices[1]->driver, "gpu.nvidia.com");
	assert_string_equal(dra_object_version(a->slices[1]), "v1");
	assert_string_equal(dra_object_origin(a->slices[1]), "tests/data/dra");
	assert_int_equal(snap->nshared, 0);
	assert_int_equal(snap->nslices, 3);
	assert_int_equal(snap->ndevices, 8);
	assert_int_equal(snap->npools, 3);
	p = dra_snapshot_pool(snap, "gpu.nvidia.com", "gpu-node-a");
	assert_non_null(p);
	assert_int_equal(p->state, DRA_POOL_COMPLETE);
	assert_int_equal(p->generation, 1);
	assert_null(dra_snapshot_pool(snap, "gpu.nvidia.com", "flex-node-b"));
	assert_non_null(dra_snapshot_class(snap, "gpu.nvidia.com"));
	c = dra_snapshot_claim(snap, "ml", "one-gpu");
	assert_non_null(c);
	assert_string_equal(c->requests[0].name, "gpu");
	assert_null(dra_snapshot_claim(snap, "default", "one-gpu"));
	assert_non_null(dra_snapshot_template(snap, "ml", "single-gpu"));
	assert_null(dra_snapshot_claim(snap, "ml", "single-gpu"));
	assert_int_equal(snap->nclaims, 5);
	/* Claims by namespace, then name. */
	assert_string_equal(snap->claims[0]->name, "all-gpus");
	assert_int_equal(snap->nallocated, 1);
	assert_true(dra_snapshot_allocated(snap, "gpu.nvidia.com", "gpu-node-a", "gpu-2"));
	assert_false(dra_snapshot_allocated(snap, "gpu.nvidia.com", "gpu-node-a", "gpu-1"));
	dra_snapshot_release(snap);
	dra_store_stats(s, &st);
	assert_int_equal(st.version, 1);
	assert_int_equal(st.objects[DRA_KIND_SLICE], 3);
	assert_int_equal(st.objects[DRA_KIND_CLASS], 1);
	assert_int_equal(st.objects[DRA_KIND_CLAIM], 5);
	assert_int_equal(st.objects[DRA_KIND_TEMPLATE], 1);
	assert_int_equal(st.devices, 8);
	assert_int_equal(st.allocated, 1);
	dra_store_free(s);
}

#define ALLOCATED_V2                                                                   \
	"kind: ResourceClaim\nmetadata: {name: train-gpu-7xk2m, namespace: ml}\n"         \
	"spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}\n"

/* The snapshot version moves with any change; a node's only with what its
 * prediction reads. */
static void test_versions(void **state)
{
	struct dra_store *s = loaded();
	const struct dra_snapshot *old = dra_store_acquire(s);
	struct dra_batch *b;

	(void)state;
	/* The same objects again: no change. */
	b = dra_batch_new();
	put_file(b, "tests/data/dra", "v1");
	assert_int_equal(dra_store_publish(s, b), 1);
	/* The allocated claim is freed: its node moves, the other does not. */
	b = dra_batch_new();
	put_text(b, ALLOCATED_V2, "v2");
	assert_int_equal(dra_store_publish(s, b), 2);
	assert_int_equal(node_version(s, "gpu-node-a"), 2);
	assert_int_equal(node_version(s, "flex-node-b"), 1);
	/* A new template is no node's business. */
	b = dra_batch_new();
	put_text(b, "kind: ResourceClaimTemplate\nmetadata: {name: t2, namespace: ml}\nspec: {spec: {}}\n",
		 "v3");
	assert_int_equal(dra_store_publish(s, b), 3);
	assert_int_equal(node_version(s, "gpu-node-a"), 2);
	assert_int_equal(node_version(s, "flex-node-b"), 1);
	/* A class is every node's. */
	b = dra_batch_new();
	put_text(b, "kind: DeviceClass\nmetadata: {name: gpu.intel.com}\n", "v4");
	assert_int_equal(dra_store_publish(s, b), 4);
	assert_int_equal(node_version(s, "gpu-node-a"), 4);
	assert_int_equal(node_version(s, "flex-node-b"), 4);
	/* A slice of one node moves that node only. */
	b = dra_batch_new();
	put_text(b, "kind: ResourceSlice\nmetadata: {name: flex-node-b-gpu.intel.com-q2w9x}\n"
		    "spec: {driver: gpu.intel.com, nodeName: flex-node-b, "
		    "pool: {name: flex-node-b, generation: 1, resourceSliceCount: 1}}\n",
		 "v5");
	assert_int_equal(dra_store_publish(s, b), 5);
	assert_int_equal(node_version(s, "gpu-node-a"), 4);
	assert_int_equal(node_version(s, "flex-node-b"), 5);
	/* The snapshot taken before every publish still reads as it was. */
	assert_int_equal(old->version, 1);
	assert_true(dra_snapshot_allocated(old, "gpu.nvidia.com", "gpu-node-a", "gpu-2"));
	assert_int_equal(dra_snapshot_node(old, "flex-node-b")->slices[0]->ndevices, 2);
	dra_snapshot_release(old);
	dra_store_free(s);
}

/* A complete list replaces a kind; what it names but could not read keeps
 * its last good version; deletes of what is absent change nothing. */
static void test_lists_and_deletes(void **state)
{
	struct dra_store *s = loaded();
	const struct dra_snapshot *snap;
	struct dra_batch *b;

	(void)state;
	b = dra_batch_new();
	dra_batch_replace(b, DRA_KIND_SLICE);
	put_file(b, DATA "slice-intel-gpu.json", "v1");
	dra_batch_keep(b, DRA_KIND_SLICE, NULL, "gpu-node-a-gpu.nvidia.com-8xk2q");
	assert_int_equal(dra_batch_size(b), 2);
	assert_int_equal(dra_store_publish(s, b), 2);
	snap = dra_store_acquire(s);
	assert_int_equal(snap->nslices, 2);
	assert_int_equal(dra_snapshot_node(snap, "gpu-node-a")->nslices, 1);
	assert_string_equal(dra_snapshot_node(snap, "gpu-node-a")->slices[0]->driver, "gpu.nvidia.com");
	assert_int_equal(snap->nclaims, 5);
	dra_snapshot_release(snap);
	b = dra_batch_new();
	dra_batch_delete(b, DRA_KIND_CLAIM, "ml", "nope");
	dra_batch_delete(b, DRA_KIND_CLASS, NULL, "nope");
	assert_int_equal(dra_store_publish(s, b), 2);
	b = dra_batch_new();
	dra_batch_delete(b, DRA_KIND_CLAIM, "ml", "train-gpu-7xk2m");
	dra_batch_delete(b, DRA_KIND_TEMPLATE, "ml", "single-gpu");
	assert_int_equal(dra_store_publish(s, b), 3);
	snap = dra_store_acquire(s);
	assert_int_equal(snap->nclaims, 4);
	assert_int_equal(snap->ntemplates, 0);
	assert_int_equal(snap->nallocated, 0);
	dra_snapshot_release(snap);
	/* A put then a delete of one name in one batch: the last wins. */
	b = dra_batch_new();
	put_text(b, "kind: DeviceClass\nmetadata: {name: x}\n", "v9");
	dra_batch_delete(b, DRA_KIND_CLASS, NULL, "x");
	assert_int_equal(dra_store_publish(s, b), 3);
	/* An empty list of a kind empties it. */
	b = dra_batch_new();
	dra_batch_replace(b, DRA_KIND_CLAIM);
	assert_int_equal(dra_store_publish(s, b), 4);
	snap = dra_store_acquire(s);
	assert_int_equal(snap->nclaims, 0);
	assert_int_equal(snap->nclasses, 1);
	dra_snapshot_release(snap);
	dra_store_free(s);
}

#define POOL_SLICE(name, gen, count, devices)                                                  \
	"kind: ResourceSlice\nmetadata: {name: " name "}\nspec: {driver: d.io, nodeName: n1, "   \
	"pool: {name: p, generation: " gen ", resourceSliceCount: " count "}, devices: " devices "}\n"

static void test_pools(void **state)
{
	struct dra_store *s = dra_store_new();
	const struct dra_snapshot *snap;
	const struct dra_store_pool *p;
	struct dra_batch *b = dra_batch_new();

	(void)state;
	put_text(b, POOL_SLICE("s1", "1", "2", "[{name: a}]"), "1");
	dra_store_publish(s, b);
	snap = dra_store_acquire(s);
	p = dra_snapshot_pool(snap, "d.io", "p");
	assert_int_equal(p->state, DRA_POOL_INCOMPLETE);
	assert_int_equal(p->nslices, 1);
	assert_int_equal(p->slice_count, 2);
	dra_snapshot_release(snap);
	b = dra_batch_new();
	put_text(b, POOL_SLICE("s2", "1", "2", "[{name: a}]"), "1");
	dra_store_publish(s, b);
	snap = dra_store_acquire(s);
	assert_int_equal(dra_snapshot_pool(snap, "d.io", "p")->state, DRA_POOL_INVALID);
	dra_snapshot_release(snap);
	/* A newer generation: the old slices no longer count. */
	b = dra_batch_new();
	put_text(b, POOL_SLICE("s3", "2", "1", "[{name: b}]"), "1");
	dra_store_publish(s, b);
	snap = dra_store_acquire(s);
	p = dra_snapshot_pool(snap, "d.io", "p");
	assert_int_equal(p->state, DRA_POOL_COMPLETE);
	assert_int_equal(p->generation, 2);
	assert_int_equal(p->nslices, 1);
	assert_int_equal(dra_snapshot_node(snap, "n1")->nslices, 3);
	dra_snapshot_release(snap);
	/* Slices without a node are apart, by name. */
	b = dra_batch_new();
	put_text(b, "kind: ResourceSlice\nmetadata: {name: z-net}\nspec: {driver: net.io, allNodes: true, "
		    "pool: {name: fabric, generation: 0, resourceSliceCount: 1}}\n", "1");
	put_text(b, "kind: ResourceSlice\nmetadata: {name: a-net}\nspec: {driver: net.io, "
		    "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, "
		    "values: [r1]}]}]}, pool: {name: rack1, generation: 0, resourceSliceCount: 1}}\n", "1");
	assert_int_equal(dra_store_publish(s, b), 4);
	snap = dra_store_acquire(s);
	assert_int_equal(snap->nshared, 2);
	assert_string_equal(snap->shared[0]->name, "a-net");
	assert_int_equal(snap->shared[0]->selection, DRA_NODE_SELECTOR);
	assert_int_equal(snap->nnodes, 1);
	/* A change to slices without a node moves every node. */
	assert_int_equal(snap->nodes[0].version, 4);
	dra_snapshot_release(snap);
	/* So does a device allocated in one of their pools, while a claim
	 * without an allocation moves none. */
	b = dra_batch_new();
	put_text(b, "kind: ResourceClaim\nmetadata: {name: net, namespace: x}\n"
		    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: net}}]}}\n"
		    "status: {allocation: {devices: {results: [{request: r, driver: net.io, pool: fabric, "
		    "device: nic-0}]}}}\n", "1");
	assert_int_equal(dra_store_publish(s, b), 5);
	assert_int_equal(node_version(s, "n1"), 5);
	b = dra_batch_new();
	put_text(b, "kind: ResourceClaim\nmetadata: {name: other, namespace: x}\nspec: {}\n", "1");
	assert_int_equal(dra_store_publish(s, b), 6);
	assert_int_equal(node_version(s, "n1"), 5);
	dra_store_free(s);
}

struct race {
	struct dra_store *s;
	int rounds;
};

static void *publisher(void *arg)
{
	struct race *r = arg;
	int i;

	for (i = 0; i < r->rounds; i++) {
		struct dra_batch *b = dra_batch_new();
		char v[16];

		snprintf(v, sizeof v, "r%d", i);
		put_file(b, DATA "slice-nvidia-gpu.yaml", v);
		dra_store_publish(r->s, b);
	}
	return NULL;
}

/* Readers never see a half-built snapshot, and versions only grow. */
static void test_reader_races_publisher(void **state)
{
	struct race r = { dra_store_new(), 200 };
	uint64_t last = 0;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, publisher, &r), 0);
	while (last < (uint64_t)r.rounds) {
		const struct dra_snapshot *snap = dra_store_acquire(r.s);
		const struct dra_node_slices *n = dra_snapshot_node(snap, "gpu-node-a");

		assert_true(snap->version >= last);
		last = snap->version;
		if (last > 0) {
			assert_non_null(n);
			assert_int_equal(n->slices[0]->ndevices, 4);
			assert_int_equal(n->version, last);
		}
		dra_snapshot_release(snap);
	}
	pthread_join(t, NULL);
	dra_store_free(r.s);
}

static void test_metrics_text(void **state)
{
	struct dra_store *s = loaded();
	struct textbuf b;

	(void)state;
	dra_store_count_error(s);
	textbuf_init(&b, 1 << 20);
	dra_store_metrics(s, &b);
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_objects{kind=\"resourceslice\"} 3\n"));
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_objects{kind=\"resourceclaim\"} 5\n"));
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_devices 8\n"));
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_allocated_devices 1\n"));
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_version 1\n"));
	assert_non_null(strstr(textbuf_str(&b), "numa_extender_dra_load_errors_total 1\n"));
	textbuf_free(&b);
	dra_store_free(s);
}

/* Allocated devices over several drivers and pools (one of them with a
 * name as long as the API allows): every (driver, pool, device) asked
 * answers as the allocations say. */
static void allocated_devices_across_pools(void **state)
{
	static const char *const drivers[] = { "a.example.com", "b.example.com" };
	char pools[3][256], claim[2048], name[32];
	struct dra_store *s = dra_store_new();
	struct dra_batch *b = dra_batch_new();
	const struct dra_snapshot *snap;
	size_t d, p, k, n = 0;

	(void)state;
	snprintf(pools[0], sizeof pools[0], "node-1");
	snprintf(pools[1], sizeof pools[1], "node-2");
	memset(pools[2], 'x', 253);
	pools[2][253] = '\0';
	/* Device k of pool p of driver d is allocated when (d + p + k) % 3 == 0. */
	for (d = 0; d < 2; d++)
		for (p = 0; p < 3; p++)
			for (k = 0; k < 5; k++) {
				if ((d + p + k) % 3 != 0)
					continue;
				snprintf(name, sizeof name, "c%zu", n++);
				snprintf(claim, sizeof claim,
					 "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
					 "\"metadata\":{\"name\":\"%s\",\"namespace\":\"ml\"},\"spec\":{\"devices\":"
					 "{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"c\"}}]}},"
					 "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\","
					 "\"driver\":\"%s\",\"pool\":\"%s\",\"device\":\"dev-%zu\"}]}}}}",
					 name, drivers[d], pools[p], k);
				put_text(b, claim, "1");
			}
	dra_store_publish(s, b);
	snap = dra_store_acquire(s);
	assert_int_equal(snap->nallocated, n);
	for (d = 0; d < 2; d++)
		for (p = 0; p < 3; p++)
			for (k = 0; k < 6; k++) {
				char dev[16];

				snprintf(dev, sizeof dev, "dev-%zu", k);
				if (dra_snapshot_allocated(snap, drivers[d], pools[p], dev) !=
				    (k < 5 && (d + p + k) % 3 == 0))
					fail_msg("%s / pool %zu / %s answers wrong", drivers[d], p, dev);
			}
	assert_false(dra_snapshot_allocated(snap, "c.example.com", "node-1", "dev-0"));
	assert_false(dra_snapshot_allocated(snap, drivers[0], "node-3", "dev-0"));
	dra_snapshot_release(snap);
	dra_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allocated_devices_across_pools),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_lists_and_deletes),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_reader_races_publisher),
		cmocka_unit_test(test_metrics_text),
	};

	return cmocka_run_group_tests_name("dra_store", tests, NULL, NULL);
}
