/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA verdict of a node (extender/decide/dra.h) on the NVIDIA and
 * dra-driver-cpu fixtures of tests/data/dra: a two-socket node whose GPUs
 * say their PCIe root, and whose CPU driver says which NUMA node each root
 * is on. Claims resolved by name, through a template's generated claim or
 * the template's spec; allocations of other claims and assumed devices
 * taken out; the units of the container and pod scopes; every outcome and
 * its text; the cache's keys. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/decide/dra.h"
#include "extender/codec/doc.h"

#define DATA "tests/data/dra/"

/* A new string, formatted. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	assert_true(n >= 0);
	out = malloc((size_t)n + 1);
	assert_non_null(out);
	va_start(ap, f);
	vsnprintf(out, (size_t)n + 1, f, ap);
	va_end(ap);
	return out;
}

static void put_objects(struct dra_batch *b, struct dra_objects *o, const char *v, const char *origin)
{
	assert_int_equal(o->nbad, 0);
	dra_batch_put_objects(b, o, v, origin);
	dra_objects_cleanup(o);
}

static void put_file(struct dra_batch *b, const char *path)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	if (dra_objects_load(path, &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	put_objects(b, &o, "1", path);
}

static void put_text(struct dra_batch *b, const char *text, const char *v)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	if (dra_objects_decode(text, strlen(text), "t.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	put_objects(b, &o, v, "t.yaml");
}

/* A store with the node's GPUs and CPUs, the GPU class, and text's
 * objects (YAML, may be NULL). */
static struct dra_store *store_with(const char *text, bool cpu_slice)
{
	struct dra_store *s = dra_store_new();
	struct dra_batch *b = dra_batch_new();

	put_file(b, DATA "slice-nvidia-gpu.yaml");
	if (cpu_slice)
		put_file(b, DATA "slice-dra-cpu.yaml");
	put_file(b, DATA "class-nvidia-gpu.yaml");
	if (text != NULL)
		put_text(b, text, "1");
	dra_store_publish(s, b);
	return s;
}

static void pod_claims(const char *text, struct dra_pod_claims *out)
{
	struct doc **docs = NULL;
	size_t ndocs = 0;
	struct errmsg msg = { { 0 } };

	if (doc_parse(text, strlen(text), "pod.yaml", &docs, &ndocs, &msg) != ERR_OK ||
	    dra_pod_claims_decode(docs[0], "pod.yaml", out, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	doc_free_all(docs, ndocs);
}

#define POD_HEAD "apiVersion: v1\nkind: Pod\nmetadata: {name: train-0, namespace: ml}\nspec:\n"

/* One GPU through a claim by name, used by container "train". */
static const char pod_one_gpu[] = POD_HEAD
	"  resourceClaims:\n  - {name: gpu, resourceClaimName: one-gpu}\n"
	"  containers:\n  - name: train\n    resources:\n      claims: [{name: gpu}]\n"
	"  - name: metrics\n";

static const char claim_one_gpu[] =
	"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	"metadata: {name: one-gpu, namespace: ml}\n"
	"spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com}\n";

/* A claim of namespace ns, allocated on gpu-node-a's device dev. */
static char *allocated_claim(const char *ns, const char *name, const char *dev)
{
	return fmt("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
			     "metadata: {name: %s, namespace: %s}\n"
			     "spec:\n  devices:\n    requests:\n    - name: gpu\n"
			     "      exactly: {deviceClassName: gpu.nvidia.com}\n"
			     "status:\n  allocation:\n    devices:\n      results:\n"
			     "      - {request: gpu, driver: gpu.nvidia.com, pool: gpu-node-a, device: %s}\n",
			     name, ns, dev);
}

/* The kubelet's verdict: admitted, container scope, "train" on the NUMA
 * nodes ids (0: no affinity), "metrics" without one. */
struct kubelet {
	struct verdict v;
	struct verdict_container c[2];
};

static const struct verdict *kubelet(struct kubelet *k, uint64_t ids, enum tm_scope scope)
{
	memset(k, 0, sizeof *k);
	k->v.admit = true;
	k->v.scope = scope;
	k->v.containers = k->c;
	k->v.ncontainers = 2;
	k->c[0].name = "train";
	k->c[0].has_affinity = ids != 0;
	k->c[0].numa_ids = ids;
	k->c[1].name = "metrics";
	k->c[1].has_affinity = scope == TM_SCOPE_POD && ids != 0;
	k->c[1].numa_ids = scope == TM_SCOPE_POD ? ids : 0;
	return &k->v;
}

/* The pod's verdict on gpu-node-a: "outcome: why" in a static buffer. */
static const char *judge(struct dra_store *s, const char *pod_text, uint64_t ids, enum tm_scope scope,
			 const struct dra_device_set *assumed, unsigned flags, bool *unresolvable)
{
	static char out[600];
	const struct dra_snapshot *snap = dra_store_acquire(s);
	struct dra_pod_claims pc = { 0 };
	struct sched_node node = { 0 };
	struct dra_node_verdict v;
	struct dra_pod_input in;
	struct dra_pod *p;
	struct kubelet k;

	pod_claims(pod_text, &pc);
	memset(&in, 0, sizeof in);
	in.snap = snap;
	in.claims = &pc;
	in.namespace_ = "ml";
	in.pod_name = "train-0";
	in.order = DRA_ORDER_SORTED;
	in.assumed = assumed;
	p = dra_pod_new(&in);
	assert_non_null(p);
	node.name = (char *)(uintptr_t)"gpu-node-a";
	dra_judge(p, &node, kubelet(&k, ids, scope), flags, &v);
	snprintf(out, sizeof out, "%s: %s", dra_outcome_name(v.outcome), v.why);
	if (unresolvable)
		*unresolvable = v.unresolvable;
	if (flags & DRA_JUDGE_KEEP) {
		assert_true(v.kept);
		assert_int_equal(v.alloc.nclaims, pc.nclaims);
	}
	dra_node_verdict_cleanup(&v);
	dra_pod_free(p);
	dra_pod_claims_cleanup(&pc);
	dra_snapshot_release(snap);
	return out;
}

static void first_fit_gpu_on_the_cpus_numa_node_is_aligned(void **state)
{
	struct dra_store *s = store_with(claim_one_gpu, true);

	(void)state;
	/* gpu-0 sits under pci0000:15, which dra-driver-cpu puts on NUMA 0. */
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, 0, NULL), "aligned: ");
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, DRA_JUDGE_KEEP, NULL),
			    "aligned: ");
	assert_string_equal(judge(s, pod_one_gpu, 0x2, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "misaligned: NUMA: DRA devices gpu-0 (gpu.nvidia.com) on NUMA 0, container "
			    "\"train\" CPUs on NUMA 1");
	dra_store_free(s);
}

static void other_allocations_push_the_gpu_to_the_far_socket(void **state)
{
	char *a0 = allocated_claim("other", "a0", "gpu-0"), *a1 = allocated_claim("other", "a1", "gpu-1");
	char *text = NULL;
	struct dra_store *s;
	bool unresolvable = true;

	(void)state;
	text = fmt("%s---\n%s---\n%s", claim_one_gpu, a0, a1);
	s = store_with(text, true);
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, DRA_JUDGE_REACH,
				  &unresolvable),
			    "misaligned: NUMA: DRA devices gpu-2 (gpu.nvidia.com) on NUMA 1, container "
			    "\"train\" CPUs on NUMA 0");
	/* NUMA 0 has GPUs that match: the emptied node would do. */
	assert_false(unresolvable);
	/* The CPUs on both NUMA nodes: gpu-2 is inside. */
	assert_string_equal(judge(s, pod_one_gpu, 0x3, TM_SCOPE_CONTAINER, NULL, 0, NULL), "aligned: ");
	dra_store_free(s);
	free(text);
	free(a0);
	free(a1);
}

static void assumed_devices_count_as_allocated(void **state)
{
	struct dra_store *s = store_with(claim_one_gpu, true);
	struct dra_device_set assumed;

	(void)state;
	dra_device_set_init(&assumed);
	dra_device_set_add(&assumed, "gpu.nvidia.com", "gpu-node-a", "gpu-0");
	dra_device_set_add(&assumed, "gpu.nvidia.com", "gpu-node-a", "gpu-1");
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, &assumed, 0, NULL),
			    "misaligned: NUMA: DRA devices gpu-2 (gpu.nvidia.com) on NUMA 1, container "
			    "\"train\" CPUs on NUMA 0");
	dra_device_set_free(&assumed);
	dra_store_free(s);
}

static void no_matching_device_near_the_cpus_is_unresolvable(void **state)
{
	static const char claim[] =
		"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
		"metadata: {name: one-gpu, namespace: ml}\n"
		"spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
		"        deviceClassName: gpu.nvidia.com\n"
		"        selectors:\n        - cel: {expression: \"device.attributes['gpu.nvidia.com'].index >= 2\"}\n";
	struct dra_store *s = store_with(claim, true);
	bool unresolvable = false;

	(void)state;
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, DRA_JUDGE_REACH,
				  &unresolvable),
			    "misaligned: NUMA: DRA devices gpu-2 (gpu.nvidia.com) on NUMA 1, container "
			    "\"train\" CPUs on NUMA 0");
	assert_true(unresolvable);
	/* Without the flag nobody asked. */
	judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, 0, &unresolvable);
	assert_false(unresolvable);
	dra_store_free(s);
}

static void the_pod_scope_aligns_the_pod(void **state)
{
	struct dra_store *s = store_with(claim_one_gpu, true);

	(void)state;
	assert_string_equal(judge(s, pod_one_gpu, 0x2, TM_SCOPE_POD, NULL, 0, NULL),
			    "misaligned: NUMA: DRA devices gpu-0 (gpu.nvidia.com) on NUMA 0, pod "
			    "\"train-0\" CPUs on NUMA 1");
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_POD, NULL, 0, NULL), "aligned: ");
	dra_store_free(s);
}

static void nothing_to_align_with(void **state)
{
	static const char unused[] = POD_HEAD
		"  resourceClaims:\n  - {name: gpu, resourceClaimName: one-gpu}\n"
		"  containers:\n  - name: train\n";
	struct dra_store *s = store_with(claim_one_gpu, true);
	struct dra_pod_claims none = { 0 };
	struct dra_pod_input in = { 0 };
	const struct dra_snapshot *snap;

	(void)state;
	/* No Topology-Manager resources in the container that uses the GPU. */
	assert_string_equal(judge(s, pod_one_gpu, 0, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "noClaims: no container that uses DRA devices has a NUMA affinity");
	/* Kept: the prediction is made all the same. */
	assert_string_equal(judge(s, pod_one_gpu, 0, TM_SCOPE_CONTAINER, NULL, DRA_JUDGE_KEEP, NULL),
			    "noClaims: no container that uses DRA devices has a NUMA affinity");
	assert_string_equal(judge(s, unused, 0x1, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "noClaims: no container uses the pod's claims");
	/* A pod without claims has no DRA pod at all. */
	snap = dra_store_acquire(s);
	in.snap = snap;
	in.claims = &none;
	assert_null(dra_pod_new(&in));
	dra_snapshot_release(snap);
	dra_store_free(s);
}

static void the_kubelet_rejecting_the_pod_leaves_nothing_to_align(void **state)
{
	struct dra_store *s = store_with(claim_one_gpu, true);
	const struct dra_snapshot *snap = dra_store_acquire(s);
	struct dra_pod_claims pc = { 0 };
	struct sched_node node = { 0 };
	struct dra_node_verdict v;
	struct dra_pod_input in = { 0 };
	struct dra_pod *p;
	struct kubelet k;

	(void)state;
	pod_claims(pod_one_gpu, &pc);
	in.snap = snap;
	in.claims = &pc;
	in.namespace_ = "ml";
	p = dra_pod_new(&in);
	node.name = (char *)(uintptr_t)"gpu-node-a";
	kubelet(&k, 0x2, TM_SCOPE_CONTAINER);
	k.v.admit = false;
	dra_judge(p, &node, &k.v, 0, &v);
	assert_int_equal(v.outcome, DRA_OUTCOME_NO_CLAIMS);
	assert_string_equal(v.why, "the kubelet would not admit the pod: nothing to align with");
	dra_pod_free(p);
	dra_pod_claims_cleanup(&pc);
	dra_snapshot_release(snap);
	dra_store_free(s);
}

static void gpus_without_a_numa_source_are_unknown(void **state)
{
	/* Without dra-driver-cpu's slice nothing says where pci0000:15 is. */
	struct dra_store *s = store_with(claim_one_gpu, false);

	(void)state;
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "unknownNUMA: NUMA: DRA device gpu-0 (gpu.nvidia.com) has no known NUMA node, "
			    "container \"train\" CPUs on NUMA 0");
	dra_store_free(s);
}

static void selectors_outside_the_subset_are_unpredictable(void **state)
{
	static const char claim[] =
		"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
		"metadata: {name: one-gpu, namespace: ml}\n"
		"spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
		"        deviceClassName: gpu.nvidia.com\n"
		"        selectors:\n        - cel: {expression: \"device.attributes['gpu.nvidia.com']"
		".productName.split(' ').size() > 1\"}\n";
	struct dra_store *s = store_with(claim, true);
	const char *got;

	(void)state;
	got = judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, DRA_JUDGE_REACH, NULL);
	assert_non_null(strstr(got, "unpredictable: DRA: cannot predict the allocator: "));
	assert_non_null(strstr(got, "split"));
	dra_store_free(s);
}

static void missing_claims_and_label_selected_slices_are_unpredictable(void **state)
{
	static const char by_label[] =
		"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
		"metadata: {name: fabric-nics}\n"
		"spec:\n  driver: nic.example.com\n  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"
		"  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
		"      - {key: fabric, operator: In, values: [a]}\n"
		"  devices:\n  - name: nic-0\n";
	struct dra_store *s = store_with(NULL, true);
	char *text = NULL;

	(void)state;
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "unpredictable: DRA: the pod's claim gpu: ResourceClaim one-gpu is not known");
	dra_store_free(s);
	text = fmt("%s---\n%s", claim_one_gpu, by_label);
	s = store_with(text, true);
	assert_string_equal(judge(s, pod_one_gpu, 0x1, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "unpredictable: DRA: cannot predict the allocator: ResourceSlice fabric-nics "
			    "selects nodes by label, and the extender does not know the node's labels");
	dra_store_free(s);
	free(text);
}

static void a_template_stands_for_its_claim_until_it_exists(void **state)
{
	static const char pod[] = POD_HEAD
		"  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: single-gpu}\n"
		"  containers:\n  - name: train\n    resources:\n      claims: [{name: gpu}]\n"
		"status:\n  resourceClaimStatuses:\n  - {name: gpu, resourceClaimName: train-0-gpu-x}\n";
	char *gen = allocated_claim("ml", "train-0-gpu-x", "gpu-3");
	struct dra_store *s;

	(void)state;
	/* Only the template: its spec, first fit, gpu-0 on NUMA 0. */
	s = store_with(NULL, true);
	{
		struct dra_batch *b = dra_batch_new();

		put_file(b, DATA "template.yaml");
		dra_store_publish(s, b);
	}
	assert_string_equal(judge(s, pod, 0x2, TM_SCOPE_CONTAINER, NULL, 0, NULL),
			    "misaligned: NUMA: DRA devices gpu-0 (gpu.nvidia.com) on NUMA 0, container "
			    "\"train\" CPUs on NUMA 1");
	dra_store_free(s);
	/* The generated claim (in the pod's namespace), allocated on gpu-3:
	 * read back, never searched again. */
	s = store_with(gen, true);
	assert_string_equal(judge(s, pod, 0x2, TM_SCOPE_CONTAINER, NULL, 0, NULL), "aligned: ");
	dra_store_free(s);
	free(gen);
}

static void keys_follow_the_claims_and_the_node(void **state)
{
	struct dra_store *s = store_with(claim_one_gpu, true);
	const struct dra_snapshot *snap;
	struct dra_pod_claims pc = { 0 };
	struct dra_pod_input in = { 0 };
	struct dra_batch *b;
	struct dra_pod *p;
	struct textbuf k1, k2;
	uint64_t id1, id2, other1, other2;

	(void)state;
	pod_claims(pod_one_gpu, &pc);
	in.snap = snap = dra_store_acquire(s);
	in.claims = &pc;
	in.namespace_ = "ml";
	in.pod_name = "train-0";
	p = dra_pod_new(&in);
	textbuf_init(&k1, 4096);
	dra_pod_key(p, &k1);
	assert_non_null(strstr(textbuf_str(&k1), "claim[0]=c:one-gpu@1@t.yaml;gpu"));
	assert_non_null(strstr(textbuf_str(&k1), "refs=train,gpu/*"));
	id1 = dra_pod_cache_id(p, "gpu-node-a", 42);
	other1 = dra_pod_cache_id(p, "no-slices", 42);
	assert_int_equal(dra_pod_cache_id(p, "gpu-node-a", 0), 0);
	assert_int_not_equal(id1, 0);
	assert_int_not_equal(id1, dra_pod_cache_id(p, "gpu-node-a", 43));
	dra_pod_free(p);
	dra_snapshot_release(snap);

	/* The claim changes (a new version): the key does; the node's DRA
	 * state did not change, its id stays, a node without slices of its
	 * own follows the snapshot's version. */
	b = dra_batch_new();
	put_text(b, claim_one_gpu, "2");
	dra_store_publish(s, b);
	in.snap = snap = dra_store_acquire(s);
	p = dra_pod_new(&in);
	textbuf_init(&k2, 4096);
	dra_pod_key(p, &k2);
	assert_string_not_equal(textbuf_str(&k1), textbuf_str(&k2));
	id2 = dra_pod_cache_id(p, "gpu-node-a", 42);
	other2 = dra_pod_cache_id(p, "no-slices", 42);
	assert_int_equal(id1, id2);
	assert_int_not_equal(other1, other2);
	dra_pod_free(p);
	dra_snapshot_release(snap);

	/* A device of the node allocated to someone else: the node's id moves. */
	b = dra_batch_new();
	{
		char *a = allocated_claim("other", "a0", "gpu-3");

		put_text(b, a, "1");
		free(a);
	}
	dra_store_publish(s, b);
	in.snap = snap = dra_store_acquire(s);
	p = dra_pod_new(&in);
	assert_int_not_equal(dra_pod_cache_id(p, "gpu-node-a", 42), id1);
	dra_pod_free(p);
	dra_snapshot_release(snap);

	textbuf_free(&k1);
	textbuf_free(&k2);
	dra_pod_claims_cleanup(&pc);
	dra_store_free(s);
}

static void outcome_names(void **state)
{
	(void)state;
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_NO_CLAIMS), "noClaims");
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_ALIGNED), "aligned");
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_MISALIGNED), "misaligned");
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_UNPREDICTABLE), "unpredictable");
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_UNKNOWN_NUMA), "unknownNUMA");
	assert_string_equal(dra_outcome_name(DRA_OUTCOME_COUNT), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_fit_gpu_on_the_cpus_numa_node_is_aligned),
		cmocka_unit_test(other_allocations_push_the_gpu_to_the_far_socket),
		cmocka_unit_test(assumed_devices_count_as_allocated),
		cmocka_unit_test(no_matching_device_near_the_cpus_is_unresolvable),
		cmocka_unit_test(the_pod_scope_aligns_the_pod),
		cmocka_unit_test(nothing_to_align_with),
		cmocka_unit_test(the_kubelet_rejecting_the_pod_leaves_nothing_to_align),
		cmocka_unit_test(gpus_without_a_numa_source_are_unknown),
		cmocka_unit_test(selectors_outside_the_subset_are_unpredictable),
		cmocka_unit_test(missing_claims_and_label_selected_slices_are_unpredictable),
		cmocka_unit_test(a_template_stands_for_its_claim_until_it_exists),
		cmocka_unit_test(keys_follow_the_claims_and_the_node),
		cmocka_unit_test(outcome_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
