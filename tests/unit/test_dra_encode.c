/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA encoders (extender/codec/dra_encode.h) against the decoders:
 * every object of tests/data/dra, objects of the shapes the fixtures lack
 * (per-device selection, node selectors, taints, counters, binding
 * conditions, an allocation with admin access and a share id, a driver
 * name the decoder would not take as an attribute domain) and a pod's
 * claims, each encoded, decoded again and compared field by field with
 * the original, then encoded again to the same text. Run from the
 * repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/dra_decode.h"
#include "extender/codec/dra_encode.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/file_read.h"
#include "topology/quantity.h"

#define DATA "tests/data/dra/"

static void same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void same_term(const struct sched_term *a, const struct sched_term *b)
{
	size_t i, k, pass;

	assert_int_equal(a->nexprs, b->nexprs);
	assert_int_equal(a->nfields, b->nfields);
	for (pass = 0; pass < 2; pass++) {
		const struct sched_requirement *x = pass ? a->fields : a->exprs;
		const struct sched_requirement *y = pass ? b->fields : b->exprs;
		size_t n = pass ? a->nfields : a->nexprs;

		for (i = 0; i < n; i++) {
			same_str(x[i].key, y[i].key);
			assert_int_equal(x[i].op, y[i].op);
			assert_int_equal(x[i].nvalues, y[i].nvalues);
			for (k = 0; k < x[i].nvalues; k++)
				same_str(x[i].values[k], y[i].values[k]);
		}
	}
}

static void same_device(const struct dra_device *a, const struct dra_device *b)
{
	char qa[QUANTITY_FORMAT_MAX], qb[QUANTITY_FORMAT_MAX];
	size_t i, k;

	same_str(a->name, b->name);
	assert_int_equal(a->nattributes, b->nattributes);
	for (i = 0; i < a->nattributes; i++) {
		const struct dra_attribute *x = &a->attributes[i], *y = &b->attributes[i];

		same_str(x->domain, y->domain);
		same_str(x->name, y->name);
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->n, y->n);
		for (k = 0; k < x->n; k++) {
			if (x->ints)
				assert_int_equal(x->ints[k], y->ints[k]);
			else if (x->bools)
				assert_int_equal(x->bools[k], y->bools[k]);
			else
				same_str(x->strings[k], y->strings[k]);
		}
	}
	assert_int_equal(a->ncapacity, b->ncapacity);
	for (i = 0; i < a->ncapacity; i++) {
		same_str(a->capacity[i].domain, b->capacity[i].domain);
		same_str(a->capacity[i].name, b->capacity[i].name);
		quantity_format(&a->capacity[i].value, qa);
		quantity_format(&b->capacity[i].value, qb);
		assert_string_equal(qa, qb);
	}
	assert_int_equal(a->ntaints, b->ntaints);
	for (i = 0; i < a->ntaints; i++) {
		same_str(a->taints[i].key, b->taints[i].key);
		same_str(a->taints[i].value, b->taints[i].value);
		same_str(a->taints[i].effect, b->taints[i].effect);
	}
	assert_int_equal(a->consumes_counters, b->consumes_counters);
	assert_int_equal(a->binding_conditions, b->binding_conditions);
	assert_int_equal(a->allow_multiple_allocations, b->allow_multiple_allocations);
	assert_int_equal(a->selection, b->selection);
	same_str(a->node_name, b->node_name);
	same_term(&a->node_selector, &b->node_selector);
}

static void same_slice(const struct dra_slice *a, const struct dra_slice *b)
{
	size_t i;

	same_str(a->name, b->name);
	same_str(a->driver, b->driver);
	same_str(a->pool, b->pool);
	assert_int_equal(a->generation, b->generation);
	assert_int_equal(a->slice_count, b->slice_count);
	assert_int_equal(a->selection, b->selection);
	same_str(a->node_name, b->node_name);
	same_term(&a->node_selector, &b->node_selector);
	assert_int_equal(a->shared_counters, b->shared_counters);
	assert_int_equal(a->ndevices, b->ndevices);
	for (i = 0; i < a->ndevices; i++)
		same_device(&a->devices[i], &b->devices[i]);
}

static void same_class(const struct dra_class *a, const struct dra_class *b)
{
	size_t i;

	same_str(a->name, b->name);
	same_str(a->extended_resource_name, b->extended_resource_name);
	assert_int_equal(a->nselectors, b->nselectors);
	for (i = 0; i < a->nselectors; i++)
		same_str(a->selectors[i], b->selectors[i]);
}

static void same_spec(const struct dra_request_spec *a, const struct dra_request_spec *b)
{
	size_t i;

	same_str(a->class_name, b->class_name);
	assert_int_equal(a->nselectors, b->nselectors);
	for (i = 0; i < a->nselectors; i++)
		same_str(a->selectors[i], b->selectors[i]);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->admin_access, b->admin_access);
	assert_int_equal(a->tolerations, b->tolerations);
	assert_int_equal(a->capacity_requests, b->capacity_requests);
}

static void same_claim(const struct dra_claim *a, const struct dra_claim *b)
{
	size_t i, k;

	same_str(a->namespace_, b->namespace_);
	same_str(a->name, b->name);
	same_str(a->uid, b->uid);
	assert_int_equal(a->from_template, b->from_template);
	assert_int_equal(a->nrequests, b->nrequests);
	for (i = 0; i < a->nrequests; i++) {
		const struct dra_request *x = &a->requests[i], *y = &b->requests[i];

		same_str(x->name, y->name);
		assert_int_equal(x->nspecs, y->nspecs);
		assert_true((x->subnames == NULL) == (y->subnames == NULL));
		for (k = 0; k < x->nspecs; k++) {
			same_spec(&x->specs[k], &y->specs[k]);
			if (x->subnames)
				same_str(x->subnames[k], y->subnames[k]);
		}
	}
	assert_int_equal(a->nconstraints, b->nconstraints);
	for (i = 0; i < a->nconstraints; i++) {
		const struct dra_constraint *x = &a->constraints[i], *y = &b->constraints[i];

		assert_int_equal(x->kind, y->kind);
		same_str(x->domain, y->domain);
		same_str(x->name, y->name);
		assert_int_equal(x->nrequests, y->nrequests);
		for (k = 0; k < x->nrequests; k++)
			same_str(x->requests[k], y->requests[k]);
	}
	assert_int_equal(a->allocated, b->allocated);
	same_str(a->allocated_node, b->allocated_node);
	assert_int_equal(a->nresults, b->nresults);
	for (i = 0; i < a->nresults; i++) {
		const struct dra_result *x = &a->results[i], *y = &b->results[i];

		same_str(x->request, y->request);
		same_str(x->driver, y->driver);
		same_str(x->pool, y->pool);
		same_str(x->device, y->device);
		assert_int_equal(x->admin_access, y->admin_access);
		same_str(x->share_id, y->share_id);
	}
}

/* text decoded as exactly one object, no bad ones. */
static void decode_one(const char *text, struct dra_objects *o)
{
	struct errmsg msg = { { 0 } };

	memset(o, 0, sizeof *o);
	if (dra_objects_decode(text, strlen(text), "encoded", o, &msg) != ERR_OK)
		fail_msg("%s\n%s", msg.text, text);
	if (o->nbad > 0)
		fail_msg("%s\n%s", o->bad[0].message, text);
	assert_int_equal(o->nslices + o->nclasses + o->nclaims + o->ntemplates, 1);
}

/* Every object of o: encoded, decoded, compared, encoded again. */
static size_t round_trip(const struct dra_objects *o)
{
	struct dra_objects back;
	size_t i, n = 0;
	char *a, *b;

	for (i = 0; i < o->nslices; i++, n++) {
		a = dra_slice_to_json(&o->slices[i]);
		decode_one(a, &back);
		assert_int_equal(back.nslices, 1);
		same_slice(&o->slices[i], &back.slices[0]);
		b = dra_slice_to_json(&back.slices[0]);
		assert_string_equal(a, b);
		free(a);
		free(b);
		dra_objects_cleanup(&back);
	}
	for (i = 0; i < o->nclasses; i++, n++) {
		a = dra_class_to_json(&o->classes[i]);
		decode_one(a, &back);
		assert_int_equal(back.nclasses, 1);
		same_class(&o->classes[i], &back.classes[0]);
		b = dra_class_to_json(&back.classes[0]);
		assert_string_equal(a, b);
		free(a);
		free(b);
		dra_objects_cleanup(&back);
	}
	for (i = 0; i < o->nclaims + o->ntemplates; i++, n++) {
		const struct dra_claim *c = i < o->nclaims ? &o->claims[i] : &o->templates[i - o->nclaims];
		const struct dra_claim *d;

		a = dra_claim_to_json(c);
		decode_one(a, &back);
		assert_int_equal(back.nclaims + back.ntemplates, 1);
		assert_int_equal(back.ntemplates, c->from_template ? 1 : 0);
		d = back.nclaims ? &back.claims[0] : &back.templates[0];
		same_claim(c, d);
		b = dra_claim_to_json(d);
		assert_string_equal(a, b);
		free(a);
		free(b);
		dra_objects_cleanup(&back);
	}
	return n;
}

static void test_fixtures(void **state)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	(void)state;
	if (dra_objects_load("tests/data/dra", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(o.nbad, 0);
	/* The three slices, the class, the claims and the template. */
	assert_int_equal(o.nslices, 3);
	assert_true(o.nclaims >= 4);
	assert_int_equal(o.ntemplates, 1);
	assert_int_equal(round_trip(&o), o.nslices + o.nclasses + o.nclaims + o.ntemplates);
	dra_objects_cleanup(&o);
}

/* Shapes the fixtures do not have. */
static const char shapes[] =
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: fabric}\n"
	"spec:\n"
	"  driver: fabric.example.com\n"
	"  pool: {name: fabric, generation: 3, resourceSliceCount: 2}\n"
	"  perDeviceNodeSelection: true\n"
	"  devices:\n"
	"  - name: link-0\n"
	"    nodeName: node-a\n"
	"    attributes:\n"
	"      ids: {ints: [1, 2]}\n"
	"      up: {bools: [true, false]}\n"
	"      names: {strings: [a, b]}\n"
	"      fw: {versions: [1.2.3, 2.0.0-rc.1]}\n"
	"      ready: {bool: true}\n"
	"    taints:\n"
	"    - {key: broken, value: fan, effect: NoSchedule}\n"
	"    - {key: drain, effect: None}\n"
	"    consumesCounters:\n"
	"    - counterSet: set-0\n"
	"      counters: {mem: {value: 1Gi}}\n"
	"    bindingConditions: [attached]\n"
	"    bindingFailureConditions: [failed]\n"
	"    allowMultipleAllocations: true\n"
	"  - name: link-1\n"
	"    allNodes: true\n"
	"  - name: link-2\n"
	"    nodeSelector:\n"
	"      nodeSelectorTerms:\n"
	"      - matchExpressions:\n"
	"        - {key: zone, operator: In, values: [z1, z2]}\n"
	"        - {key: gpu, operator: Exists}\n"
	"        matchFields:\n"
	"        - {key: metadata.name, operator: NotIn, values: [node-b]}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: labelled}\n"
	"spec:\n"
	"  driver: net.Example.com\n"
	"  pool: {name: rack-1, generation: 0, resourceSliceCount: 1}\n"
	"  nodeSelector:\n"
	"    nodeSelectorTerms:\n"
	"    - matchExpressions: [{key: rack, operator: Gt, values: ['3']}]\n"
	"  devices:\n"
	"  - name: nic-0\n"
	"    capacity: {bandwidth: {value: 100G}, net.example.com/queues: {value: '1.5'}}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceSlice\n"
	"metadata: {name: counters}\n"
	"spec:\n"
	"  driver: gpu.example.com\n"
	"  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
	"  allNodes: true\n"
	"  sharedCounters:\n"
	"  - name: set-0\n"
	"    counters: {mem: {value: 80Gi}}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: DeviceClass\n"
	"metadata: {name: ext}\n"
	"spec: {extendedResourceName: example.com/gpu}\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceClaim\n"
	"metadata: {name: held, namespace: ml, uid: u-1}\n"
	"spec:\n"
	"  devices:\n"
	"    requests:\n"
	"    - name: a\n"
	"      exactly:\n"
	"        deviceClassName: gpu.nvidia.com\n"
	"        adminAccess: true\n"
	"        tolerations: [{key: broken, operator: Exists}]\n"
	"    - name: b\n"
	"      exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}\n"
	"    constraints:\n"
	"    - distinctAttribute: gpu.nvidia.com/uuid\n"
	"status:\n"
	"  allocation:\n"
	"    devices:\n"
	"      results:\n"
	"      - {request: a, driver: gpu.nvidia.com, pool: node-a, device: gpu-0, adminAccess: true}\n"
	"      - {request: b, driver: gpu.nvidia.com, pool: node-a, device: gpu-1, shareID: 0a1b}\n"
	"    nodeSelector:\n"
	"      nodeSelectorTerms:\n"
	"      - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]\n"
	"---\n"
	"apiVersion: resource.k8s.io/v1\n"
	"kind: ResourceClaim\n"
	"metadata: {name: pending}\n"
	"spec: {}\n"
	"status: {allocation: {}}\n";

static void test_shapes(void **state)
{
	struct dra_objects o = { 0 };
	struct errmsg msg = { { 0 } };

	(void)state;
	if (dra_objects_decode(shapes, strlen(shapes), "shapes.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	if (o.nbad > 0)
		fail_msg("%s", o.bad[0].message);
	assert_int_equal(o.nslices, 3);
	assert_int_equal(o.nclasses, 1);
	assert_int_equal(o.nclaims, 2);
	/* What the flags and the node came from. */
	assert_true(o.slices[0].devices[0].consumes_counters);
	assert_true(o.slices[0].devices[0].binding_conditions);
	assert_true(o.slices[2].shared_counters);
	assert_true(o.claims[0].requests[0].specs[0].tolerations);
	assert_string_equal(o.claims[0].allocated_node, "node-a");
	assert_true(o.claims[1].allocated);
	assert_int_equal(round_trip(&o), 6);
	dra_objects_cleanup(&o);
}

static void same_pod_claims(const struct dra_pod_claims *a, const struct dra_pod_claims *b)
{
	size_t i, k;

	assert_int_equal(a->nclaims, b->nclaims);
	for (i = 0; i < a->nclaims; i++) {
		same_str(a->claims[i].name, b->claims[i].name);
		same_str(a->claims[i].claim_name, b->claims[i].claim_name);
		same_str(a->claims[i].template_name, b->claims[i].template_name);
	}
	assert_int_equal(a->ncontainers, b->ncontainers);
	for (i = 0; i < a->ncontainers; i++) {
		same_str(a->containers[i].container, b->containers[i].container);
		assert_int_equal(a->containers[i].nclaims, b->containers[i].nclaims);
		for (k = 0; k < a->containers[i].nclaims; k++) {
			same_str(a->containers[i].claims[k].claim, b->containers[i].claims[k].claim);
			same_str(a->containers[i].claims[k].request, b->containers[i].claims[k].request);
		}
	}
}

static void pod_claims_of(const char *text, struct dra_pod_claims *out)
{
	struct errmsg msg = { { 0 } };
	struct doc **docs = NULL;
	size_t ndocs = 0;

	if (doc_parse(text, strlen(text), "pod", &docs, &ndocs, &msg) != ERR_OK ||
	    dra_pod_claims_decode(docs[0], "pod", out, &msg) != ERR_OK)
		fail_msg("%s\n%s", msg.text, text);
	assert_int_equal(ndocs, 1);
	doc_free_all(docs, ndocs);
}

static void pod_round_trip(const char *text)
{
	struct dra_pod_claims pc, back;
	char *a, *b;

	pod_claims_of(text, &pc);
	a = dra_pod_claims_to_json(&pc);
	pod_claims_of(a, &back);
	same_pod_claims(&pc, &back);
	b = dra_pod_claims_to_json(&back);
	assert_string_equal(a, b);
	free(a);
	free(b);
	dra_pod_claims_cleanup(&pc);
	dra_pod_claims_cleanup(&back);
}

static void test_pod_claims(void **state)
{
	struct errmsg msg = { { 0 } };
	char *text = NULL;
	size_t len = 0;

	(void)state;
	if (file_read_all(DATA "pods/pod-train.yaml", 0, &text, &len, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	pod_round_trip(text);
	free(text);
	/* A template whose claim the status says was not made. */
	pod_round_trip("{\"spec\":{\"resourceClaims\":[{\"name\":\"g\",\"resourceClaimTemplateName\":\"t\"}],"
		       "\"containers\":[{\"name\":\"c\",\"resources\":{\"claims\":[{\"name\":\"g\"}]}}]},"
		       "\"status\":{\"resourceClaimStatuses\":[{\"name\":\"g\"}]}}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_pod_claims),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
