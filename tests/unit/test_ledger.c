/* SPDX-License-Identifier: Apache-2.0 */
/* The assumed-pod ledger through its real interface: NRT snapshots published
 * into a real store (the ledger is its overlay), pods reported as the watch
 * reports them, and what requests would see read back from the store. Also
 * the exclusive-resources rule the fingerprints and the pessimistic mode use. */
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

#include "extender/codec/doc.h"
#include "extender/inventory/ledger.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/inventory/source_pods.h"
#include "extender/inventory/store.h"
#include "base/xalloc.h"
#include "tests/support/inventory_equal.h"
#include "topology/demand.h"
#include "topology/exclusive.h"
#include "topology/inventory.h"
#include "topology/podfingerprint.h"

/* --- fixtures --- */

/* Two NUMA nodes of 16 CPUs and 4 GPUs, everything free; an optional
 * fingerprint attribute (and method). */
static char *nrt_text(const char *name, int rv, const char *fingerprint, const char *method,
		      int cpu0, int gpu0)
{
	char buf[4096], attrs[512] = "";

	if (fingerprint)
		snprintf(attrs, sizeof attrs,
			 ",{\"name\":\"nodeTopologyPodsFingerprint\",\"value\":\"%s\"}%s%s%s", fingerprint,
			 method ? ",{\"name\":\"nodeTopologyPodsFingerprintMethod\",\"value\":\"" : "",
			 method ? method : "", method ? "\"}" : "");
	snprintf(buf, sizeof buf,
		 "{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
		 "\"metadata\":{\"name\":\"%s\",\"resourceVersion\":\"%d\"},"
		 "\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
		 "{\"name\":\"topologyManagerScope\",\"value\":\"pod\"}%s],"
		 "\"zones\":["
		 "{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
		 "{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"%d\"},"
		 "{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"},"
		 "{\"name\":\"nvidia.com/gpu\",\"capacity\":\"4\",\"allocatable\":\"4\",\"available\":\"%d\"}]},"
		 "{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":["
		 "{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"16\"},"
		 "{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"},"
		 "{\"name\":\"nvidia.com/gpu\",\"capacity\":\"4\",\"allocatable\":\"4\",\"available\":\"4\"}]}]}",
		 name, rv, attrs, cpu0, gpu0);
	return xstrdup(buf);
}

/* Publishes an NRT the way the Kubernetes source does (raw JSON kept). */
static void publish(struct store *s, char *raw)
{
	struct store_batch *b = store_batch_new();
	struct nrt_object *objs = NULL;
	struct inventory_node *inv = NULL;
	struct errmsg msg;
	size_t n = 0;

	if (nrt_decode_buffer(raw, strlen(raw), "test", &objs, &n, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(n, 1);
	if (inventory_node_new(&objs[0], &inv, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	store_batch_put_raw(b, inv, "kubernetes", objs[0].resource_version, raw);
	nrt_objects_free(objs, n);
	store_publish(s, b);
}

/* A Guaranteed pod: cpus CPUs, 1Gi, gpus GPUs. */
static void pod_spec_of(const char *name, int cpus, int gpus, struct pod_spec *spec)
{
	char buf[1024], gpu[64] = "";
	struct errmsg msg;

	if (gpus)
		snprintf(gpu, sizeof gpu, ",\"nvidia.com/gpu\":\"%d\"", gpus);
	snprintf(buf, sizeof buf,
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"burst\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		 "\"resources\":{\"limits\":{\"cpu\":\"%d\",\"memory\":\"1Gi\"%s}}}]}}",
		 name, cpus, gpu);
	if (pod_decode_buffer(buf, strlen(buf), "test", spec, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
}

/* Reports a pod bound to node, as a watch event (or a list item). */
static void bound(struct ledger *l, const char *uid, const char *name, const char *node, int cpus,
		  int gpus, bool list, int64_t scheduled_ms)
{
	struct pod_spec spec;
	struct ledger_pod_info info = { uid, node, false, scheduled_ms, &spec, 0, false };

	pod_spec_of(name, cpus, gpus, &spec);
	if (list)
		ledger_list_pod(l, &info);
	else
		ledger_pod_changed(l, &info);
	pod_spec_cleanup(&spec);
}

static int64_t avail(struct store *s, const char *node, const char *res, int numa)
{
	struct store_set *set = store_acquire(s);
	const struct store_node *n = store_get(set, node);
	int64_t v;
	int r;

	assert_non_null(n);
	r = inventory_find(n->inventory, res);
	assert_true(r >= 0);
	v = n->inventory->resources[r].available[numa];
	store_release(set);
	return v;
}

static void fingerprint_of(const char *const *names, size_t n, char *out)
{
	struct pod_ref refs[64];
	size_t i;

	for (i = 0; i < n; i++) {
		refs[i].namespace_ = "burst";
		refs[i].name = names[i];
	}
	podfingerprint(refs, n, out);
}

struct fix {
	struct store *store;
	struct ledger *ledger;
};

static void fix_start(struct fix *f, enum ledger_mode mode, int64_t ttl, int64_t max_age)
{
	/* Pessimistic runs without the decision log's NRT JSON, to cover both. */
	struct ledger_options o = { mode, ttl, max_age, mode == LEDGER_PREDICTED };

	f->store = store_new();
	f->ledger = ledger_new(f->store, &o);
	ledger_list_begin(f->ledger);
	ledger_list_end(f->ledger, true);
	assert_true(ledger_listed(f->ledger));
}

static void fix_stop(struct fix *f)
{
	ledger_free(f->ledger);
	store_free(f->store);
}

/* --- tests --- */

static void ledger_predicted_takes_the_predicted_zone(void **state)
{
	struct fix f;
	struct ledger_stats st;
	char uid[16], name[16];
	int i;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 16);
	/* Four pods of 4 CPUs + 1 GPU: the kubelet packs NUMA 0 first. */
	for (i = 0; i < 4; i++) {
		snprintf(uid, sizeof uid, "u%d", i);
		snprintf(name, sizeof name, "p%d", i);
		bound(f.ledger, uid, name, "n1", 4, 1, false, 0);
		assert_int_equal(avail(f.store, "n1", "cpu", 0), 12 - 4 * i);
		assert_int_equal(avail(f.store, "n1", "nvidia.com/gpu", 0), 3 - i);
		assert_int_equal(avail(f.store, "n1", "cpu", 1), 16);
	}
	/* NUMA 0 is full now: the fifth goes to NUMA 1. */
	bound(f.ledger, "u4", "p4", "n1", 4, 1, false, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 12);
	assert_int_equal(avail(f.store, "n1", "memory", 1), (int64_t)63 << 30);
	/* A repeated event for a known pod changes nothing. */
	bound(f.ledger, "u4", "p4", "n1", 4, 1, false, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 12);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 5);
	assert_int_equal(st.assumed, 5);
	{
		struct store_set *set = store_acquire(f.store);
		const struct store_node *n = store_get(set, "n1");

		/* The decision log's copy says what was judged: NUMA 1 at 12. */
		assert_non_null(n->raw);
		assert_non_null(strstr(n->raw, "\"available\":12"));
		assert_non_null(strstr(n->version, "+ledger."));
		store_release(set);
	}
	fix_stop(&f);
}

static void ledger_fingerprint_match_flushes(void **state)
{
	static const char *const names[] = { "p0", "p1" };
	struct fix f;
	struct ledger_stats st;
	char fp[PODFINGERPRINT_LEN + 1], *json;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, "pfp0v0010000000000000000", NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	bound(f.ledger, "u1", "p1", "n1", 4, 1, false, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 8);
	/* The agent publishes before it saw p1: fingerprint of p0 only. */
	fingerprint_of(names, 1, fp);
	publish(f.store, nrt_text("n1", 2, fp, "all", 12, 3));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.fingerprint_mismatches, 1);
	assert_int_equal(st.assumed, 2);
	/* Both still taken off the newer NRT: the ledger cannot tell which. */
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 4);
	/* The agent catches up: both pods in, fingerprints match. */
	fingerprint_of(names, 2, fp);
	publish(f.store, nrt_text("n1", 3, fp, "all", 8, 2));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(st.flushed[LEDGER_FLUSH_FINGERPRINT], 2);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 8);
	assert_int_equal(avail(f.store, "n1", "nvidia.com/gpu", 0), 2);
	json = ledger_json(f.ledger, "n1");
	assert_non_null(json);
	assert_non_null(strstr(json, fp));
	assert_non_null(strstr(json, "\"state\":\"reflected\""));
	free(json);
	assert_null(ledger_json(f.ledger, "nowhere"));
	fix_stop(&f);
}

static void ledger_without_fingerprint_waits_assume_ttl(void **state)
{
	struct fix f;
	struct ledger_stats st;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 1000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	/* An update right away may predate the pod's admission: kept. */
	publish(f.store, nrt_text("n1", 2, NULL, NULL, 16, 4));
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	usleep(1200 * 1000);
	ledger_stats(f.ledger, &st);
	assert_true(st.oldest_assumed_ms >= 1200);
	/* The store refreshing the same NRT is not an update: still kept. */
	{
		const char *name = "n1";

		store_refresh(f.store, &name, 1);
	}
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	publish(f.store, nrt_text("n1", 3, NULL, NULL, 12, 3));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.flushed[LEDGER_FLUSH_TTL], 1);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	fix_stop(&f);
}

static void ledger_mismatch_expires_after_max_age(void **state)
{
	struct fix f;
	struct ledger_stats st;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 100, 2000);
	publish(f.store, nrt_text("n1", 1, "pfp0v001ffffffffffffffff", NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	usleep(300 * 1000);
	/* Past the TTL but a fingerprint is there and does not match. */
	publish(f.store, nrt_text("n1", 2, "pfp0v001ffffffffffffffff", NULL, 16, 4));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 1);
	usleep(2000 * 1000);
	publish(f.store, nrt_text("n1", 3, "pfp0v001ffffffffffffffff", NULL, 16, 4));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(st.flushed[LEDGER_FLUSH_EXPIRED], 1);
	assert_int_equal(st.fingerprint_mismatches, 2);
	fix_stop(&f);
}

static void ledger_deleted_pod_holds_until_flush(void **state)
{
	static const char *const none[] = { "" };
	struct fix f;
	struct ledger_stats st;
	char fp[PODFINGERPRINT_LEN + 1];

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, "pfp0v0010000000000000000", NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	ledger_pod_deleted(f.ledger, "u0");
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 0);
	assert_int_equal(st.assumed, 1);
	/* Not given back before the NRT shows it. */
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	fingerprint_of(none, 0, fp);
	publish(f.store, nrt_text("n1", 2, fp, NULL, 16, 4));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 16);
	fix_stop(&f);
}

static void ledger_pessimistic_takes_every_zone(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f, LEDGER_PESSIMISTIC, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 12);
	assert_int_equal(avail(f.store, "n1", "nvidia.com/gpu", 0), 3);
	assert_int_equal(avail(f.store, "n1", "nvidia.com/gpu", 1), 3);
	assert_int_equal(avail(f.store, "n1", "memory", 1), (int64_t)63 << 30);
	{
		struct store_set *set = store_acquire(f.store);
		const struct store_node *n = store_get(set, "n1");

		/* No decision log: the effective snapshot carries no JSON, its
		 * base does. */
		assert_null(n->raw);
		assert_non_null(n->base);
		assert_non_null(n->base->raw);
		store_release(set);
	}
	fix_stop(&f);
}

static void ledger_list_counts_old_pods_as_reflected(void **state)
{
	struct fix f;
	struct ledger_stats st;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	ledger_list_begin(f.ledger);
	bound(f.ledger, "old", "old", "n1", 4, 1, true, store_now_ms() - 3600 * 1000);
	bound(f.ledger, "new", "new", "n1", 4, 1, true, store_now_ms() - 1000);
	/* A pod on a node without inventory is known, not assumed. */
	bound(f.ledger, "far", "far", "n9", 4, 1, true, store_now_ms());
	ledger_list_end(f.ledger, true);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 3);
	assert_int_equal(st.assumed, 1);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	/* A relist without "new" and "far": the assumed one departs (held
	 * until a flush), the reflected one is gone. */
	ledger_list_begin(f.ledger);
	bound(f.ledger, "old", "old", "n1", 4, 1, true, store_now_ms() - 3600 * 1000);
	ledger_list_end(f.ledger, true);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 1);
	assert_int_equal(st.assumed, 1);
	/* "new" shows up again after all: live and assumed once more. */
	bound(f.ledger, "new", "new", "n1", 4, 1, false, 0);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 2);
	assert_int_equal(st.assumed, 1);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	fix_stop(&f);
}

/* Pods recorded before their node's inventory (a restart lists pods before
 * NRTs; a new node's pods may bind before its agent publishes) are settled
 * when it arrives, by the list's rule: scheduled within assumeTTL (or at an
 * unknown time) is assumed, earlier is in the NRT already. Listed, watched
 * and bound through us alike. */
static void ledger_pods_before_their_inventory_are_assumed_on_arrival(void **state)
{
	struct fix f;
	struct pod_spec spec;
	struct ledger_stats st;
	char why[320], *json;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	ledger_list_begin(f.ledger);
	bound(f.ledger, "recent", "recent", "n1", 4, 1, true, store_now_ms() - 1000);
	bound(f.ledger, "old", "old", "n1", 4, 1, true, store_now_ms() - 3600 * 1000);
	bound(f.ledger, "when", "when", "n1", 4, 1, true, 0);
	ledger_list_end(f.ledger, true);
	bound(f.ledger, "watched", "watched", "n1", 4, 1, false, store_now_ms());
	pod_spec_of("ours", 4, 1, &spec);
	assert_int_equal(ledger_bind(f.ledger, &spec, "ours", "n1", why, sizeof why), LEDGER_BIND_ADDED);
	pod_spec_cleanup(&spec);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 5);
	assert_int_equal(st.assumed, 0); /* nothing to take from yet */
	json = ledger_json(f.ledger, "n1");
	assert_non_null(strstr(json, "\"state\":\"awaitingInventory\""));
	free(json);
	/* The inventory arrives (no fingerprint: it says nothing of pods). */
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 5);
	assert_int_equal(st.assumed, 4);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 0);
	assert_int_equal(avail(f.store, "n1", "nvidia.com/gpu", 0), 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 16);
	/* The next update of the same NRT settles nothing more: still held
	 * until assumeTTL or a fingerprint says so. */
	publish(f.store, nrt_text("n1", 2, NULL, NULL, 16, 4));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 4);
	/* A pod that left before the inventory came takes nothing. */
	ledger_pod_deleted(f.ledger, "old");
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 4);
	fix_stop(&f);
}

/* The NRT that arrives may already include them: a matching fingerprint
 * settles the pods it was counted with at once. */
static void ledger_first_inventory_with_their_fingerprint_holds_nothing(void **state)
{
	static const char *const names[] = { "a", "b" };
	struct fix f;
	struct ledger_stats st;
	char fp[PODFINGERPRINT_LEN + 1];

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	bound(f.ledger, "a", "a", "n1", 4, 1, false, store_now_ms());
	bound(f.ledger, "b", "b", "n1", 4, 1, false, store_now_ms());
	fingerprint_of(names, 2, fp);
	publish(f.store, nrt_text("n1", 1, fp, NULL, 8, 2));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 2);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 8);
	assert_int_equal(st.flushed[LEDGER_FLUSH_FINGERPRINT], 2);
	fix_stop(&f);
}

/* A kubelet rejection is reported once per UID, however many pods we had
 * decided leave the API before the Failed pod's next update (the departed
 * ring keeps only the last LEDGER_MEMO_PODS). */
static void ledger_reports_each_rejection_once(void **state)
{
	struct fix f;
	struct pod_spec spec;
	struct ledger_pod_view v;
	char why[320], uid[32];
	int i;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	pod_spec_of("r", 1, 0, &spec);
	assert_int_equal(ledger_bind(f.ledger, &spec, "u-r", "n1", why, sizeof why), LEDGER_BIND_ADDED);
	assert_true(ledger_kubelet_rejected(f.ledger, "u-r", &v));
	assert_int_equal(v.decided, LEDGER_DECIDED_PASS);
	ledger_pod_view_cleanup(&v);
	assert_false(ledger_kubelet_rejected(f.ledger, "u-r", &v));
	assert_null(v.uid);
	ledger_pod_deleted(f.ledger, "u-r");
	pod_spec_cleanup(&spec);
	pod_spec_of("d", 0, 0, &spec); /* holds nothing: room for every one */
	for (i = 0; i < LEDGER_MEMO_PODS + 100; i++) {
		snprintf(uid, sizeof uid, "u-%d", i);
		assert_int_equal(ledger_bind(f.ledger, &spec, uid, "n1", why, sizeof why), LEDGER_BIND_ADDED);
		ledger_pod_deleted(f.ledger, uid);
	}
	assert_false(ledger_kubelet_rejected(f.ledger, "u-r", &v));
	/* One never seen: reported once, as not ours. */
	assert_true(ledger_kubelet_rejected(f.ledger, "u-stranger", &v));
	assert_int_equal(v.decided, LEDGER_DECIDED_UNKNOWN);
	ledger_pod_view_cleanup(&v);
	assert_false(ledger_kubelet_rejected(f.ledger, "u-stranger", &v));
	/* Known before we looked (the first list): never reported. */
	ledger_kubelet_rejection_known(f.ledger, "u-before");
	assert_false(ledger_kubelet_rejected(f.ledger, "u-before", &v));
	/* Deleted: forgotten (its UID never comes back). */
	ledger_kubelet_rejection_deleted(f.ledger, "u-before");
	assert_true(ledger_kubelet_rejected(f.ledger, "u-before", &v));
	ledger_pod_view_cleanup(&v);
	pod_spec_cleanup(&spec);
	fix_stop(&f);
}

static void ledger_bind_records_at_once_and_undoes(void **state)
{
	struct fix f;
	struct pod_spec spec;
	struct ledger_stats st;
	char why[320];

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	pod_spec_of("b0", 4, 1, &spec);
	assert_int_equal(ledger_bind(f.ledger, &spec, "ub0", "n1", why, sizeof why), LEDGER_BIND_ADDED);
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	assert_int_equal(ledger_bind(f.ledger, &spec, "ub0", "n1", why, sizeof why), LEDGER_BIND_KNOWN);
	ledger_bind_failed(f.ledger, "ub0");
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 16);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 0);
	/* Once the watch has seen it bound, a late failure report keeps it. */
	assert_int_equal(ledger_bind(f.ledger, &spec, "ub1", "n1", why, sizeof why), LEDGER_BIND_ADDED);
	bound(f.ledger, "ub1", "b0", "n1", 4, 1, false, 0);
	ledger_bind_failed(f.ledger, "ub1");
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	pod_spec_cleanup(&spec);
	fix_stop(&f);
}

/* Two pods filtered on the same state, bound to a node with room for one:
 * the second bind is refused with the reason, and nothing of it recorded. */
static void ledger_bind_revalidates(void **state)
{
	struct fix f;
	struct pod_spec big;
	struct ledger_stats st;
	char why[320] = "";

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	/* NUMA 0: 16 CPUs free; NUMA 1 is published busy below. */
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	bound(f.ledger, "fill", "fill", "n1", 16, 4, false, 0); /* NUMA 0 now full */
	pod_spec_of("big", 12, 1, &big);
	assert_int_equal(ledger_bind(f.ledger, &big, "ubig1", "n1", why, sizeof why), LEDGER_BIND_ADDED);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 4);
	assert_int_equal(ledger_bind(f.ledger, &big, "ubig2", "n1", why, sizeof why), LEDGER_BIND_NO_FIT);
	assert_string_equal(why, "NUMA: cannot align cpu, nvidia.com/gpu on one NUMA node (single-numa-node)");
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.pods, 2);
	assert_int_equal(avail(f.store, "n1", "cpu", 1), 4);
	pod_spec_cleanup(&big);
	fix_stop(&f);
}

static void ledger_exclusive_method_counts_exclusive_pods_only(void **state)
{
	static const char *const names[] = { "gpu" };
	struct fix f;
	struct pod_spec spec;
	struct ledger_pod_info info = { "ube", "n1", false, 0, &spec, 0, false };
	struct ledger_stats st;
	struct errmsg msg;
	char fp[PODFINGERPRINT_LEN + 1];
	static const char besteffort[] =
		"{\"metadata\":{\"name\":\"be\",\"namespace\":\"burst\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, "pfp0v0010000000000000000", NULL, 16, 4));
	bound(f.ledger, "ugpu", "gpu", "n1", 4, 1, false, 0);
	if (pod_decode_buffer(besteffort, strlen(besteffort), "t", &spec, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	ledger_pod_changed(f.ledger, &info);
	pod_spec_cleanup(&spec);
	fingerprint_of(names, 1, fp);
	/* "all" would count the best-effort pod too: no match. */
	publish(f.store, nrt_text("n1", 2, fp, "all", 12, 3));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 1);
	publish(f.store, nrt_text("n1", 3, fp, "with-exclusive-resources", 12, 3));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 0);
	assert_int_equal(st.pods, 2);
	fix_stop(&f);
}

/* An NRT deleted and published again: the ledger lets go of the old one and
 * its assumptions apply to the new one. */
static void ledger_follows_a_deleted_nrt(void **state)
{
	struct fix f;
	struct store_batch *b;
	char *json;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, NULL, NULL, 16, 4));
	bound(f.ledger, "u0", "p0", "n1", 4, 1, false, 0);
	b = store_batch_new();
	store_batch_delete(b, "n1");
	store_publish(f.store, b);
	json = ledger_json(f.ledger, "n1");
	assert_non_null(strstr(json, "\"inventory\":false"));
	assert_non_null(strstr(json, "\"state\":\"assumed\""));
	free(json);
	publish(f.store, nrt_text("n1", 2, NULL, NULL, 16, 4));
	assert_int_equal(avail(f.store, "n1", "cpu", 0), 12);
	fix_stop(&f);
}

/* scheduler-plugins resourcerequests.AreExclusiveForPod, case by case. */
static bool exclusive(const char *containers, const struct inventory_node *node)
{
	char buf[2048];
	struct pod_spec spec;
	struct errmsg msg;
	bool yes;

	snprintf(buf, sizeof buf, "{\"metadata\":{\"name\":\"p\"},\"spec\":{%s}}", containers);
	if (pod_decode_buffer(buf, strlen(buf), "t", &spec, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	yes = pod_has_exclusive_resources(&spec, node);
	pod_spec_cleanup(&spec);
	return yes;
}

static void exclusive_resources_rule(void **state)
{
	struct nrt_object *objs = NULL;
	struct inventory_node *node = NULL;
	struct errmsg msg;
	char *raw = nrt_text("n1", 1, NULL, NULL, 16, 4);
	size_t n = 0;

	(void)state;
	assert_int_equal(nrt_decode_buffer(raw, strlen(raw), "t", &objs, &n, &msg), ERR_OK);
	assert_int_equal(inventory_node_new(&objs[0], &node, &msg), ERR_OK);
	/* Guaranteed, integral CPU. */
	assert_true(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]", node));
	/* Guaranteed, fractional CPU: memory > 0 still counts. */
	assert_true(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1500m\",\"memory\":\"1Gi\"}}}]", node));
	/* Burstable with CPU and memory: nothing exclusive. */
	assert_false(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]", node));
	/* A device the NRT lists, in a burstable pod. */
	assert_true(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]", node));
	/* A device the NRT does not list. */
	assert_false(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"example.com/fpga\":\"1\"}}}]", node));
	assert_false(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]", NULL));
	/* Only a regular init container holds the device: not in the steady state. */
	assert_false(exclusive("\"initContainers\":[{\"name\":\"i\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}],"
			       "\"containers\":[{\"name\":\"c\"}]", node));
	/* A sidecar (restartPolicy Always) holds it for the pod's life. */
	assert_true(exclusive("\"initContainers\":[{\"name\":\"i\",\"restartPolicy\":\"Always\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}],"
			      "\"containers\":[{\"name\":\"c\"}]", node));
	/* A native resource with a kubernetes.io/ prefix is not a device. */
	assert_false(exclusive("\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"kubernetes.io/batch-cpu\":\"1\"}}}]", node));
	inventory_node_free(node);
	nrt_objects_free(objs, n);
	free(raw);
}

static void pod_info_reads_the_watch_object(void **state)
{
	static const char text[] =
		"{\"metadata\":{\"name\":\"w\",\"namespace\":\"ns\",\"uid\":\"abc\","
		"\"creationTimestamp\":\"2026-11-29T10:00:00Z\"},"
		"\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"x\"}}}]},"
		"\"status\":{\"phase\":\"Failed\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\","
		"\"lastTransitionTime\":\"2026-11-29T10:00:05.250+01:00\"}]}}";
	struct json_object *o = json_tokener_parse(text);
	struct ledger_pod_info info;
	struct pod_spec spec;

	(void)state;
	assert_true(pod_info_from_json(o, &info, &spec));
	assert_string_equal(info.uid, "abc");
	assert_string_equal(info.node, "n1");
	assert_true(info.terminal);
	assert_int_equal(info.scheduled_ms, rfc3339_ms("2026-11-29T09:00:05.250Z"));
	/* The bad quantity keeps the identity, drops the containers. */
	assert_string_equal(spec.namespace_, "ns");
	assert_string_equal(spec.name, "w");
	assert_int_equal(spec.ncontainers, 0);
	pod_spec_cleanup(&spec);
	json_object_put(o);
	assert_int_equal(rfc3339_ms("1970-01-01T00:00:01Z"), 1000);
	assert_int_equal(rfc3339_ms("yesterday"), 0);
}

/* Zones named with leading zeros, costs, legacy policies and options: the
 * pods land on the named zones (ids are never turned back into names), and
 * the effective NRT the decision log records builds the very snapshot
 * requests see. */
static void ledger_effective_nrt_is_the_effective_snapshot(void **state)
{
	static const char text[] =
		"{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
		"\"metadata\":{\"name\":\"n2\",\"resourceVersion\":\"7\"},"
		"\"topologyPolicies\":[\"SingleNUMANodePodLevel\"],"
		"\"attributes\":[{\"name\":\"topologyManagerPolicyOptions\",\"value\":\"prefer-closest-numa-nodes=true\"},"
		"{\"name\":\"memoryManagerPolicy\",\"value\":\"Static\"}],"
		"\"zones\":["
		"{\"name\":\"node-00\",\"type\":\"Node\",\"costs\":[{\"name\":\"node-00\",\"value\":10},{\"name\":\"node-01\",\"value\":20}],"
		"\"resources\":["
		"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"4\"},"
		"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"},"
		"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"4\",\"allocatable\":\"4\",\"available\":\"4\"}]},"
		"{\"name\":\"socket-0\",\"type\":\"Socket\"},"
		"{\"name\":\"node-01\",\"type\":\"Node\",\"costs\":[{\"name\":\"node-00\",\"value\":20},{\"name\":\"node-01\",\"value\":10}],"
		"\"resources\":["
		"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"16\"},"
		"{\"name\":\"memory\",\"capacity\":\"64Gi\",\"allocatable\":\"64Gi\",\"available\":\"64Gi\"}]}]}";
	struct nrt_object *objs = NULL;
	struct inventory_node *back = NULL;
	struct store_set *set;
	const struct store_node *n;
	struct errmsg msg;
	char why[512];
	size_t count = 0;
	struct fix f;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, xstrdup(text));
	/* 8 CPUs fit NUMA 1 only (zone "node-01"). */
	bound(f.ledger, "u0", "p0", "n2", 8, 0, false, 0);
	assert_int_equal(avail(f.store, "n2", "cpu", 1), 8);
	assert_int_equal(avail(f.store, "n2", "memory", 1), (int64_t)63 << 30);
	assert_int_equal(avail(f.store, "n2", "cpu", 0), 4);
	/* 2 CPUs and a GPU: NUMA 0, the only one with GPUs. */
	bound(f.ledger, "u1", "p1", "n2", 2, 1, false, 0);
	assert_int_equal(avail(f.store, "n2", "cpu", 0), 2);
	assert_int_equal(avail(f.store, "n2", "nvidia.com/gpu", 0), 3);
	set = store_acquire(f.store);
	n = store_get(set, "n2");
	assert_non_null(n->raw);
	assert_non_null(strstr(n->raw, "\"node-01\""));
	assert_int_equal(nrt_decode_buffer(n->raw, strlen(n->raw), "log", &objs, &count, &msg), ERR_OK);
	assert_int_equal(count, 1);
	assert_int_equal(inventory_node_new(&objs[0], &back, &msg), ERR_OK);
	if (!inventory_equal(back, n->inventory, why, sizeof why))
		fail_msg("the logged NRT builds another snapshot: %s\n%s", why, n->raw);
	assert_int_equal(back->policy, TM_POLICY_SINGLE_NUMA_NODE);
	assert_int_equal(back->scope, TM_SCOPE_POD);
	assert_true(back->prefer_closest);
	assert_int_equal(back->distance[1], 20);
	inventory_node_free(back);
	nrt_objects_free(objs, count);
	store_release(set);
	fix_stop(&f);
}

/* A source that keeps no JSON: the ledger still takes the pods off (it
 * works on the snapshot), and writes the JSON itself when asked. */
static void ledger_needs_no_source_json(void **state)
{
	char *raw = nrt_text("n3", 1, NULL, NULL, 16, 4);
	struct store_batch *b = store_batch_new();
	struct nrt_object *objs = NULL;
	struct inventory_node *inv = NULL;
	struct store_set *set;
	struct errmsg msg;
	size_t count = 0;
	struct fix f;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	assert_int_equal(nrt_decode_buffer(raw, strlen(raw), "t", &objs, &count, &msg), ERR_OK);
	assert_int_equal(inventory_node_new(&objs[0], &inv, &msg), ERR_OK);
	store_batch_put(b, inv, "files", "1");
	store_publish(f.store, b);
	bound(f.ledger, "u0", "p0", "n3", 4, 1, false, 0);
	assert_int_equal(avail(f.store, "n3", "cpu", 0), 12);
	set = store_acquire(f.store);
	assert_non_null(store_get(set, "n3")->raw);
	assert_null(store_get(set, "n3")->base->raw);
	store_release(set);
	nrt_objects_free(objs, count);
	free(raw);
	fix_stop(&f);
}

/* A pod that went through our filter keeps its predicted placement, our
 * verdict and its priority for its whole life (not only while assumed); a
 * pod no filter of ours saw, or one bound before we looked, is unknown. */
static void ledger_remembers_placements_for_life(void **state)
{
	static const char *const names[] = { "p0", "x1" };
	static const char *const filtered[] = { "n1", "n2" };
	static const bool passes[] = { true, false };
	static const char *const versions[] = { "1", "7" };
	static const uint64_t numa[] = { 1, 0 };
	struct fix f;
	struct ledger_stats st;
	struct ledger_pod_view *v = NULL, one;
	struct pod_spec spec;
	struct ledger_pod_info info = { "k0", "n1", false, 0, &spec, 5, false };
	char fp[PODFINGERPRINT_LEN + 1], *json;
	size_t n;

	(void)state;
	fix_start(&f, LEDGER_PREDICTED, 30000, 600000);
	publish(f.store, nrt_text("n1", 1, "pfp0v0010000000000000000", NULL, 16, 4));
	ledger_note_filter(f.ledger, "k0", 2, filtered, passes, versions, numa);
	pod_spec_of("p0", 4, 1, &spec);
	ledger_pod_changed(f.ledger, &info);
	pod_spec_cleanup(&spec);
	bound(f.ledger, "x1", "x1", "n1", 2, 0, false, 0);
	n = ledger_node_pods(f.ledger, "n1", &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].uid, "k0");
	assert_true(v[0].known);
	assert_int_equal(v[0].decided, LEDGER_DECIDED_PASS);
	assert_string_equal(v[0].decided_version, "1");
	assert_int_equal(v[0].priority, 5);
	assert_int_equal(v[0].numa_ids, 1);
	assert_true(v[0].nplaced >= 3); /* cpu, memory, gpu on NUMA 0 */
	assert_string_equal(v[1].uid, "x1");
	assert_false(v[1].known);
	assert_int_equal(v[1].decided, LEDGER_DECIDED_UNKNOWN);
	ledger_pod_views_free(v, n);
	/* The agent includes both: the assumptions go, the placement stays. */
	fingerprint_of(names, 2, fp);
	publish(f.store, nrt_text("n1", 2, fp, "all", 10, 3));
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.assumed, 0);
	assert_true(ledger_pod(f.ledger, "k0", &one));
	assert_true(one.known);
	assert_int_equal(one.placed[0].numa_id, 0);
	ledger_pod_view_cleanup(&one);
	json = ledger_json(f.ledger, "n1");
	assert_non_null(strstr(json, "\"placement\":\"known\""));
	assert_non_null(strstr(json, "\"decided\":\"pass\",\"decidedVersion\":\"1\""));
	assert_non_null(strstr(json, "\"placement\":\"unknown\""));
	assert_non_null(strstr(json, "\"priority\":5"));
	free(json);
	/* The kubelet's rejection is reported once, with our verdict. */
	assert_true(ledger_kubelet_rejected(f.ledger, "k0", &one));
	assert_int_equal(one.decided, LEDGER_DECIDED_PASS);
	assert_string_equal(one.node, "n1");
	ledger_pod_view_cleanup(&one);
	assert_false(ledger_kubelet_rejected(f.ledger, "k0", &one));
	assert_true(ledger_kubelet_rejected(f.ledger, "never-seen", &one));
	assert_int_equal(one.decided, LEDGER_DECIDED_UNKNOWN);
	ledger_pod_view_cleanup(&one);
	ledger_stats(f.ledger, &st);
	assert_int_equal(st.predictions_checked, 1);
	/* Listed long after binding, never filtered by us: unknown. */
	ledger_list_begin(f.ledger);
	bound(f.ledger, "k0", "p0", "n1", 4, 1, true, 1);
	bound(f.ledger, "x1", "x1", "n1", 2, 0, true, 1);
	bound(f.ledger, "old", "old", "n1", 4, 0, true, 1);
	ledger_list_end(f.ledger, true);
	assert_true(ledger_pod(f.ledger, "old", &one));
	assert_false(one.known);
	ledger_pod_view_cleanup(&one);
	assert_true(ledger_pod(f.ledger, "k0", &one));
	assert_true(one.known);
	ledger_pod_view_cleanup(&one);
	fix_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ledger_predicted_takes_the_predicted_zone),
		cmocka_unit_test(ledger_fingerprint_match_flushes),
		cmocka_unit_test(ledger_without_fingerprint_waits_assume_ttl),
		cmocka_unit_test(ledger_mismatch_expires_after_max_age),
		cmocka_unit_test(ledger_deleted_pod_holds_until_flush),
		cmocka_unit_test(ledger_pessimistic_takes_every_zone),
		cmocka_unit_test(ledger_effective_nrt_is_the_effective_snapshot),
		cmocka_unit_test(ledger_needs_no_source_json),
		cmocka_unit_test(ledger_list_counts_old_pods_as_reflected),
		cmocka_unit_test(ledger_pods_before_their_inventory_are_assumed_on_arrival),
		cmocka_unit_test(ledger_first_inventory_with_their_fingerprint_holds_nothing),
		cmocka_unit_test(ledger_bind_records_at_once_and_undoes),
		cmocka_unit_test(ledger_bind_revalidates),
		cmocka_unit_test(ledger_reports_each_rejection_once),
		cmocka_unit_test(ledger_exclusive_method_counts_exclusive_pods_only),
		cmocka_unit_test(ledger_follows_a_deleted_nrt),
		cmocka_unit_test(exclusive_resources_rule),
		cmocka_unit_test(pod_info_reads_the_watch_object),
		cmocka_unit_test(ledger_remembers_placements_for_life),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
