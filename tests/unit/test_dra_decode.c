/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA decoders (extender/codec/dra_*) on realistic objects
 * (tests/data/dra/: the NVIDIA, dra-driver-cpu and Intel GPU slices, the
 * NVIDIA DeviceClass, claims of every request shape, an allocated claim, a
 * template), lists and streams where one bad object fails alone, and each
 * error path with its exact message. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "extender/codec/dra_attribute_decode.h"
#include "extender/codec/dra_decode.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/file_read.h"

#define DATA "tests/data/dra/"

static void load(const char *path, struct dra_objects *o)
{
	struct errmsg msg = { { 0 } };

	if (dra_objects_load(path, o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
}

static const struct dra_attribute *attr(const struct dra_device *d, const char *domain,
					const char *name)
{
	const struct dra_attribute *a = dra_device_attribute(d, domain, name);

	if (a == NULL)
		fail_msg("%s: no attribute %s/%s", d->name, domain, name);
	return a;
}

static int64_t capacity(const struct dra_device *d, const char *domain, const char *name)
{
	size_t i;
	int64_t v = -1;

	for (i = 0; i < d->ncapacity; i++)
		if (strcmp(d->capacity[i].domain, domain) == 0 && strcmp(d->capacity[i].name, name) == 0)
			assert_int_equal(quantity_scaled(&d->capacity[i].value, 0, &v), ERR_OK);
	return v;
}

static void test_nvidia_slice(void **state)
{
	struct dra_objects o = { 0 };
	const struct dra_slice *s;
	const struct dra_device *g0, *g3;

	(void)state;
	load(DATA "slice-nvidia-gpu.yaml", &o);
	assert_int_equal(o.nslices, 1);
	assert_int_equal(o.nbad, 0);
	s = &o.slices[0];
	assert_string_equal(s->name, "gpu-node-a-gpu.nvidia.com-8xk2q");
	assert_string_equal(s->driver, "gpu.nvidia.com");
	assert_string_equal(s->pool, "gpu-node-a");
	assert_int_equal(s->generation, 1);
	assert_int_equal(s->slice_count, 1);
	assert_int_equal(s->selection, DRA_NODE_NAME);
	assert_string_equal(s->node_name, "gpu-node-a");
	assert_int_equal(s->ndevices, 4);
	assert_false(s->shared_counters);
	g0 = &s->devices[0];
	g3 = &s->devices[3];
	assert_string_equal(g0->name, "gpu-0");
	assert_int_equal(g0->nattributes, 13);
	/* Unqualified names are the driver's. */
	assert_int_equal(attr(g0, "gpu.nvidia.com", "type")->type, DRA_ATTR_STRING);
	assert_string_equal(attr(g0, "gpu.nvidia.com", "type")->strings[0], "gpu");
	assert_string_equal(attr(g0, "gpu.nvidia.com", "productName")->strings[0],
			    "NVIDIA H100 80GB HBM3");
	assert_int_equal(attr(g3, "gpu.nvidia.com", "index")->type, DRA_ATTR_INT);
	assert_int_equal(attr(g3, "gpu.nvidia.com", "index")->ints[0], 3);
	assert_int_equal(attr(g0, "gpu.nvidia.com", "cudaComputeCapability")->type, DRA_ATTR_VERSION);
	assert_string_equal(attr(g0, "gpu.nvidia.com", "driverVersion")->strings[0], "570.124.6");
	/* Qualified names keep their own domain. */
	assert_string_equal(attr(g3, "resource.kubernetes.io", "pcieRoot")->strings[0], "pci0000:b7");
	assert_string_equal(attr(g0, "resource.kubernetes.io", "pciBusID")->strings[0], "0000:18:00.0");
	assert_null(dra_device_attribute(g0, "resource.kubernetes.io", "numaNode"));
	assert_int_equal(capacity(g0, "gpu.nvidia.com", "memory"), 80LL << 30);
	assert_int_equal(capacity(g0, "gpu.nvidia.com", "multiprocessors"), 132);
	assert_false(g0->allow_multiple_allocations);
	assert_int_equal(g0->ntaints, 0);
	dra_objects_cleanup(&o);
}

static void test_cpu_and_intel_slices(void **state)
{
	struct dra_objects o = { 0 };
	const struct dra_device *n1, *flex;
	const struct dra_attribute *roots;

	(void)state;
	load(DATA "slice-dra-cpu.yaml", &o);
	load(DATA "slice-intel-gpu.json", &o);
	assert_int_equal(o.nslices, 2);
	n1 = &o.slices[0].devices[1];
	assert_string_equal(o.slices[0].driver, "dra.cpu");
	assert_int_equal(o.slices[0].generation, 3);
	assert_string_equal(n1->name, "cpudevnuma001");
	assert_int_equal(attr(n1, "resource.kubernetes.io", "numaNode")->ints[0], 1);
	assert_int_equal(attr(n1, "dra.cpu", "numaNodeID")->ints[0], 1);
	assert_true(attr(n1, "dra.cpu", "smtEnabled")->bools[0]);
	roots = attr(n1, "resource.kubernetes.io", "pcieRoot");
	assert_int_equal(roots->type, DRA_ATTR_STRINGS);
	assert_int_equal(roots->n, 3);
	assert_string_equal(roots->strings[2], "pci0000:b7");
	assert_true(n1->allow_multiple_allocations);
	assert_int_equal(capacity(n1, "dra.cpu", "cpu"), 56);
	/* The JSON one. */
	assert_string_equal(o.slices[1].driver, "gpu.intel.com");
	assert_int_equal(o.slices[1].generation, 0);
	flex = &o.slices[1].devices[1];
	assert_string_equal(flex->name, "0000-c8-00-0-0x56c0");
	assert_true(attr(flex, "gpu.intel.com", "sriov")->bools[0]);
	assert_string_equal(attr(flex, "resource.kubernetes.io", "pcieRoot")->strings[0], "pci0000:c5");
	assert_int_equal(capacity(flex, "gpu.intel.com", "millicores"), 1000);
	assert_int_equal(capacity(flex, "gpu.intel.com", "memory"), 16LL << 30);
	dra_objects_cleanup(&o);
}

static void test_class_claims_template(void **state)
{
	struct dra_objects o = { 0 };
	const struct dra_claim *c;

	(void)state;
	load(DATA "class-nvidia-gpu.yaml", &o);
	load(DATA "claims.yaml", &o);
	load(DATA "template.yaml", &o);
	assert_int_equal(o.nclasses, 1);
	assert_string_equal(o.classes[0].name, "gpu.nvidia.com");
	assert_int_equal(o.classes[0].nselectors, 1);
	assert_string_equal(o.classes[0].selectors[0],
			    "device.driver == 'gpu.nvidia.com' && "
			    "device.attributes['gpu.nvidia.com'].type == 'gpu'");
	assert_null(o.classes[0].extended_resource_name);
	assert_int_equal(o.nclaims, 5);
	assert_int_equal(o.nbad, 0);
	/* ExactCount and count 1 by default. */
	c = &o.claims[0];
	assert_string_equal(c->namespace_, "ml");
	assert_string_equal(c->name, "one-gpu");
	assert_string_equal(c->uid, "3b9e4f2a-6c1d-4e8b-9a73-5d0f2c8e1b64");
	assert_int_equal(c->nrequests, 1);
	assert_int_equal(c->requests[0].nspecs, 1);
	assert_null(c->requests[0].subnames);
	assert_string_equal(c->requests[0].specs[0].class_name, "gpu.nvidia.com");
	assert_int_equal(c->requests[0].specs[0].mode, DRA_EXACT_COUNT);
	assert_int_equal(c->requests[0].specs[0].count, 1);
	assert_false(c->allocated);
	/* All. */
	assert_int_equal(o.claims[1].requests[0].specs[0].mode, DRA_ALL);
	assert_int_equal(o.claims[1].requests[0].specs[0].count, 0);
	/* firstAvailable. */
	c = &o.claims[2];
	assert_int_equal(c->requests[0].nspecs, 2);
	assert_string_equal(c->requests[0].subnames[0], "a100");
	assert_string_equal(c->requests[0].subnames[1], "two-large");
	assert_int_equal(c->requests[0].specs[0].count, 1);
	assert_int_equal(c->requests[0].specs[1].count, 2);
	assert_int_equal(c->requests[0].specs[1].nselectors, 1);
	/* A constraint between two requests; capacity requests flagged. */
	c = &o.claims[3];
	assert_int_equal(c->nconstraints, 1);
	assert_int_equal(c->constraints[0].kind, DRA_MATCH_ATTRIBUTE);
	assert_string_equal(c->constraints[0].domain, "resource.kubernetes.io");
	assert_string_equal(c->constraints[0].name, "pcieRoot");
	assert_int_equal(c->constraints[0].nrequests, 2);
	assert_string_equal(c->constraints[0].requests[1], "cpus");
	assert_true(c->requests[1].specs[0].capacity_requests);
	assert_false(c->requests[0].specs[0].capacity_requests);
	/* Allocated. */
	c = &o.claims[4];
	assert_true(c->allocated);
	assert_int_equal(c->nresults, 1);
	assert_string_equal(c->results[0].request, "gpu");
	assert_string_equal(c->results[0].driver, "gpu.nvidia.com");
	assert_string_equal(c->results[0].pool, "gpu-node-a");
	assert_string_equal(c->results[0].device, "gpu-2");
	assert_false(c->results[0].admin_access);
	assert_null(c->results[0].share_id);
	assert_string_equal(c->allocated_node, "gpu-node-a");
	/* The template's spec.spec as a claim. */
	assert_int_equal(o.ntemplates, 1);
	assert_true(o.templates[0].from_template);
	assert_string_equal(o.templates[0].name, "single-gpu");
	assert_string_equal(o.templates[0].namespace_, "ml");
	assert_int_equal(o.templates[0].requests[0].specs[0].nselectors, 1);
	dra_objects_cleanup(&o);
}

static void test_directory(void **state)
{
	struct dra_objects o = { 0 };

	(void)state;
	load("tests/data/dra", &o);
	assert_int_equal(o.nslices, 3);
	assert_int_equal(o.nclasses, 1);
	assert_int_equal(o.nclaims, 5);
	assert_int_equal(o.ntemplates, 1);
	assert_int_equal(o.nbad, 0);
	/* strcmp order of the file names: class-, claims, slice-dra-cpu, ... */
	assert_string_equal(o.slices[0].driver, "dra.cpu");
	assert_string_equal(o.slices[1].driver, "gpu.intel.com");
	dra_objects_cleanup(&o);
}

#define SLICE_HEAD                                                        \
	"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n" \
	"spec:\n  driver: gpu.nvidia.com\n  nodeName: n1\n"                 \
	"  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"

/* A kubectl List of three kinds (one bad item), a typed list whose items
 * leave kind out, and a stream of both: every good object is read. */
static void test_lists_and_streams(void **state)
{
	static const char text[] =
		"apiVersion: v1\nkind: List\nitems:\n"
		"- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: c1}\n"
		"- kind: ResourceSlice\n  metadata: {name: broken}\n  spec: {driver: d.io}\n"
		"- kind: Pod\n  metadata: {name: p}\n"
		"- kind: ResourceClaim\n  metadata: {name: c}\n  spec: {}\n"
		"---\n"
		"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplateList\nitems:\n"
		"- metadata: {name: t1, namespace: ns}\n  spec: {spec: {}}\n";
	struct errmsg msg = { { 0 } };
	struct dra_objects o = { 0 };

	(void)state;
	memset(&o, 0, sizeof o);
	if (dra_objects_decode(text, strlen(text), "l.yaml", &o, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(o.nclasses, 1);
	assert_int_equal(o.nclaims, 1);
	assert_string_equal(o.claims[0].namespace_, "default");
	assert_int_equal(o.ntemplates, 1);
	assert_string_equal(o.templates[0].name, "t1");
	assert_int_equal(o.nslices, 0);
	assert_int_equal(o.nbad, 2);
	assert_string_equal(o.bad[0].kind, "ResourceSlice");
	assert_string_equal(o.bad[0].name, "broken");
	assert_null(o.bad[0].namespace_);
	assert_string_equal(o.bad[0].message,
			    "l.yaml (document 1, items[1], ResourceSlice broken): spec.pool: missing");
	assert_string_equal(o.bad[1].kind, "Pod");
	assert_string_equal(o.bad[1].message,
			    "l.yaml (document 1, items[2], object p): kind: \"Pod\": expected "
			    "ResourceSlice, DeviceClass, ResourceClaim or ResourceClaimTemplate");
	dra_objects_cleanup(&o);
}

/* A text of one object fails as a whole, leaving out as it was. */
static void test_single_object_fails(void **state)
{
	static const char text[] = SLICE_HEAD "  devices:\n  - name: GPU-0\n";
	struct errmsg msg = { { 0 } };
	struct dra_objects o = { 0 };

	(void)state;
	load(DATA "class-nvidia-gpu.yaml", &o);
	assert_int_equal(dra_objects_decode(text, strlen(text), "t.yaml", &o, &msg), ERR_INVALID);
	assert_string_equal(msg.text,
			    "t.yaml (ResourceSlice s): spec.devices[0].name: \"GPU-0\": not a DNS label: "
			    "must consist of lowercase letters, digits, '-' and '.' (RFC 1123 subdomain)");
	assert_int_equal(o.nclasses, 1);
	assert_int_equal(o.nslices, 0);
	assert_int_equal(dra_objects_decode("{", 1, "t.json", &o, &msg), ERR_PARSE);
	assert_int_equal(dra_objects_load("tests/data/dra/none.yaml", &o, &msg), ERR_IO);
	assert_int_equal(o.nclasses, 1);
	dra_objects_cleanup(&o);
}

struct bad {
	const char *text;
	enum err rc;
	const char *want; /* after "t.yaml (Kind name): " */
};

static void expect_errors(const struct bad *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct errmsg msg = { { 0 } };
		struct dra_objects o;
		enum err rc;
		const char *colon;

		memset(&o, 0, sizeof o);
		rc = dra_objects_decode(cases[i].text, strlen(cases[i].text), "t.yaml", &o, &msg);
		colon = strstr(msg.text, "): ");
		if (rc != cases[i].rc || colon == NULL || strcmp(colon + 3, cases[i].want) != 0)
			fail_msg("case %zu: got %s \"%s\", want %s \"%s\"", i, err_name(rc), msg.text,
				 err_name(cases[i].rc), cases[i].want);
		dra_objects_cleanup(&o);
	}
}

static void test_slice_errors(void **state)
{
	static const struct bad cases[] = {
		{ "kind: ResourceSlice\napiVersion: resource.k8s.io/v1beta1\nmetadata: {name: s}\n",
		  ERR_INVALID, "apiVersion: \"resource.k8s.io/v1beta1\": expected resource.k8s.io/v1 "
			       "(kubectl get -o yaml prints the served version)" },
		{ "kind: ResourceSlice\nmetadata: {name: S}\nspec: {}\n", ERR_INVALID,
		  "metadata.name: \"S\": not a DNS subdomain: must consist of lowercase letters, digits, "
		  "'-' and '.' (RFC 1123 subdomain)" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec: {nodeName: n}\n", ERR_INVALID,
		  "spec.driver: missing" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: -x.io}\n", ERR_INVALID,
		  "spec.driver: \"-x.io\": not a driver name: each label must start and end with a "
		  "lowercase letter or digit" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  pool: {name: a//b, generation: 1, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec.pool.name: \"a//b\": not a pool name: must not be empty" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  pool: {name: p, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec.pool.generation: missing" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  pool: {name: p, generation: 1, resourceSliceCount: 0}\n",
		  ERR_RANGE, "spec.pool.resourceSliceCount: 0: not in [1, 9223372036854775807]" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec: exactly one of nodeName, nodeSelector, allNodes or "
			       "perDeviceNodeSelection is required" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n  nodeName: n\n"
		  "  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec: only one of nodeName and allNodes may be set" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  nodeSelector: {nodeSelectorTerms: [{}, {}]}\n"
		  "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec.nodeSelector.nodeSelectorTerms: must have exactly one term, got 2" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: spec.x, operator: In, "
		  "values: [a]}]}]}\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n",
		  ERR_INVALID, "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: only "
			       "metadata.name is supported" },
		{ SLICE_HEAD "  devices: [{name: a}, {name: b}, {name: a}]\n", ERR_INVALID,
		  "spec.devices[2].name: duplicate device name \"a\"" },
		{ SLICE_HEAD "  devices: [{name: a}]\n  sharedCounters: [{name: c}]\n", ERR_INVALID,
		  "spec: only one of devices and sharedCounters may be set" },
		{ SLICE_HEAD "  devices: [{name: a, nodeName: n2}]\n", ERR_INVALID,
		  "spec.devices[0].nodeName: may only be set when spec.perDeviceNodeSelection is true" },
		{ "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.io\n"
		  "  perDeviceNodeSelection: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
		  "  devices: [{name: a, allNodes: true}, {name: b}]\n",
		  ERR_INVALID, "spec.devices[1]: exactly one of nodeName, nodeSelector or allNodes is "
			       "required" },
		{ SLICE_HEAD "  devices: [{name: a, taints: [{key: k, effect: NoScheduel}]}]\n",
		  ERR_INVALID, "spec.devices[0].taints[0].effect: \"NoScheduel\": expected None, "
			       "NoSchedule or NoExecute" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {index: {int: 1, string: x}}}]\n",
		  ERR_INVALID, "spec.devices[0].attributes.index: only one of int and string may be set" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {index: {}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.index: exactly one of int, bool, string, version, ints, "
		  "bools, strings or versions is required" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {index: {int: 1.5}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.index.int: \"1.5\": not an integer" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {ok: {bool: yes}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.ok.bool: expected a boolean, got a string" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {v: {version: \"1.2\"}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.v.version: \"1.2\": not a semantic version "
		  "(MAJOR.MINOR.PATCH)" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {v: {versions: [1.0.0, 01.0.0]}}}]\n",
		  ERR_INVALID, "spec.devices[0].attributes.v.versions[1]: \"01.0.0\": not a semantic "
			       "version (MAJOR.MINOR.PATCH)" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {l: {ints: []}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.l.ints: must not be empty" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {l: {strings: [a, 1, [x]]}}}]\n",
		  ERR_INVALID, "spec.devices[0].attributes.l.strings[2]: expected a string, got an array" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {a/b/c: {int: 1}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.a/b/c: \"a/b/c\": the name must be a C identifier "
		  "([A-Za-z_][A-Za-z0-9_]*)" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {X.io/x: {int: 1}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.X.io/x: \"X.io/x\": the domain is not a DNS subdomain: must "
		  "consist of lowercase letters, digits, '-' and '.' (RFC 1123 subdomain)" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {x.io/9lives: {int: 1}}}]\n", ERR_INVALID,
		  "spec.devices[0].attributes.x.io/9lives: \"x.io/9lives\": the name must be a C "
		  "identifier ([A-Za-z_][A-Za-z0-9_]*)" },
		{ SLICE_HEAD "  devices: [{name: a, attributes: {model: {string: a}, "
			     "gpu.nvidia.com/model: {string: b}}}]\n",
		  ERR_INVALID, "spec.devices[0].attributes.gpu.nvidia.com/model: names the same "
			       "attribute as an earlier entry (\"gpu.nvidia.com/model\")" },
		{ SLICE_HEAD "  devices: [{name: a, capacity: {memory: {}}}]\n", ERR_INVALID,
		  "spec.devices[0].capacity.memory.value: missing" },
		{ SLICE_HEAD "  devices: [{name: a, capacity: {memory: {value: -1Gi}}}]\n", ERR_INVALID,
		  "spec.devices[0].capacity.memory.value: \"-1Gi\": must not be negative" },
		{ SLICE_HEAD "  devices: [{name: a, capacity: {memory: {value: 12x}}}]\n", ERR_PARSE,
		  "spec.devices[0].capacity.memory.value: \"12x\": not a quantity" },
		{ SLICE_HEAD "  devices: [{name: a, capacity: {memory: {value: 1, requestPolicy: 2}}}]\n",
		  ERR_INVALID, "spec.devices[0].capacity.memory.requestPolicy: expected an object, got a "
			       "number" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

/* head, then n copies of item with each '#' replaced by the copy's index,
 * then tail: an object past one of the API server's limits. */
static char *repeated(const char *head, const char *item, size_t n, const char *tail)
{
	struct textbuf b;
	size_t i;
	const char *p;

	textbuf_init(&b, 1 << 24);
	textbuf_adds(&b, head);
	for (i = 0; i < n; i++)
		for (p = item; *p; p++)
			if (*p == '#')
				textbuf_printf(&b, "%zu", i);
			else
				textbuf_addc(&b, *p);
	textbuf_adds(&b, tail);
	return textbuf_take(&b, NULL);
}

#define DEVICE_A SLICE_HEAD "  devices:\n  - name: a\n"

static void expect_limit(char *text, const char *want)
{
	struct bad one = { text, ERR_TOO_LARGE, want };

	expect_errors(&one, 1);
	free(text);
}

static void test_slice_limits(void **state)
{
	(void)state;
	expect_limit(repeated(SLICE_HEAD "  devices:\n", "  - name: d#\n", 129, ""),
		     "spec.devices: 129 entries: more than the API server's 128");
	expect_limit(repeated(DEVICE_A "    attributes:\n", "      a#: {int: #}\n", 33, ""),
		     "spec.devices[0]: 33 attributes and capacities: more than the API server's 32");
	expect_limit(repeated(DEVICE_A "    attributes:\n", "      a#: {ints: [1, 2, 3, 4, 5, 6, 7, #]}\n",
			      7, ""),
		     "spec.devices[0].attributes.a6.ints: the device's list attributes hold more than "
		     "the API server's 48 values");
	expect_limit(repeated(DEVICE_A "    taints:\n", "    - {key: k#, value: v#, effect: NoSchedule}\n",
			      17, ""),
		     "spec.devices[0].taints: 17 entries: more than the API server's 16");
	expect_limit(repeated(SLICE_HEAD "  devices:\n", "  - {name: d#, taints: [{key: k, effect: None}]}\n",
			      65, ""),
		     "spec.devices: 65 entries: more than the API server's 64 when a device has taints "
		     "or consumes counters");
	{
		char *text = repeated(DEVICE_A "    attributes:\n", "      s#: {string: #", 1, "");
		struct textbuf b;

		textbuf_init(&b, 1 << 20);
		textbuf_adds(&b, text);
		for (size_t k = 0; k < 64; k++)
			textbuf_addc(&b, 'x');
		textbuf_adds(&b, "}\n");
		free(text);
		{
			struct bad one = { textbuf_str(&b), ERR_INVALID,
					   "spec.devices[0].attributes.s0.string: 65 characters: longer "
					   "than the API server's 64" };

			expect_errors(&one, 1);
		}
		textbuf_free(&b);
	}
}

#define CLAIM_HEAD "kind: ResourceClaim\nmetadata: {name: c, namespace: ml}\nspec:\n  devices:\n"

static void test_claim_errors(void **state)
{
	static const struct bad cases[] = {
		{ "kind: ResourceClaim\nmetadata: {name: c, namespace: Ml}\nspec: {}\n", ERR_INVALID,
		  "metadata.namespace: \"Ml\": not a DNS label: must consist of lowercase letters, "
		  "digits, '-' and '.' (RFC 1123 subdomain)" },
		{ "kind: ResourceClaim\nmetadata: {name: c}\n", ERR_INVALID, "spec: missing" },
		{ CLAIM_HEAD "    requests: [{name: gpu}]\n", ERR_INVALID,
		  "spec.devices.requests[0]: exactly one of exactly or firstAvailable is required" },
		{ CLAIM_HEAD "    requests: [{name: gpu, deviceClassName: gpu.nvidia.com}]\n", ERR_INVALID,
		  "spec.devices.requests[0]: exactly one of exactly or firstAvailable is required "
		  "(deviceClassName on the request is the v1beta1 shape: resource.k8s.io/v1 puts it "
		  "under exactly)" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g}, "
			     "firstAvailable: [{name: a, deviceClassName: g}]}]\n",
		  ERR_INVALID, "spec.devices.requests[0]: only one of exactly and firstAvailable may be set" },
		{ CLAIM_HEAD "    requests: [{name: GPU, exactly: {deviceClassName: g}}]\n", ERR_INVALID,
		  "spec.devices.requests[0].name: \"GPU\": not a DNS label: must consist of lowercase "
		  "letters, digits, '-' and '.' (RFC 1123 subdomain)" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {}}]\n", ERR_INVALID,
		  "spec.devices.requests[0].exactly.deviceClassName: missing" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g, count: 0}}]\n",
		  ERR_INVALID, "spec.devices.requests[0].exactly.count: 0: must be greater than zero" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g, allocationMode: All, "
			     "count: 2}}]\n",
		  ERR_INVALID, "spec.devices.requests[0].exactly.count: must not be specified when "
			       "allocationMode is All" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g, allocationMode: "
			     "Some}}]\n",
		  ERR_INVALID, "spec.devices.requests[0].exactly.allocationMode: \"Some\": expected "
			       "ExactCount or All" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g, selectors: [{}]}}]\n",
		  ERR_INVALID, "spec.devices.requests[0].exactly.selectors[0].cel: missing" },
		{ CLAIM_HEAD "    requests: [{name: gpu, firstAvailable: [{name: a, deviceClassName: g}, "
			     "{name: a, deviceClassName: h}]}]\n",
		  ERR_INVALID, "spec.devices.requests[0].firstAvailable[1].name: duplicate subrequest "
			       "name \"a\"" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g}}, "
			     "{name: gpu, exactly: {deviceClassName: g}}]\n",
		  ERR_INVALID, "spec.devices.requests[1].name: duplicate request name \"gpu\"" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g}}]\n"
			     "    constraints: [{requests: [gpu, nic], matchAttribute: x.io/pcie}]\n",
		  ERR_INVALID, "spec.devices.constraints[0].requests[1]: \"nic\": no such request in "
			       "spec.devices.requests" },
		{ CLAIM_HEAD "    requests: [{name: gpu, firstAvailable: [{name: a, deviceClassName: g}]}]\n"
			     "    constraints: [{requests: [gpu/b], matchAttribute: x.io/pcie}]\n",
		  ERR_INVALID, "spec.devices.constraints[0].requests[0]: \"gpu/b\": no such request in "
			       "spec.devices.requests" },
		{ CLAIM_HEAD "    constraints: [{matchAttribute: pcieRoot}]\n", ERR_INVALID,
		  "spec.devices.constraints[0].matchAttribute: \"pcieRoot\": must be fully qualified "
		  "(domain/name)" },
		{ CLAIM_HEAD "    constraints: [{requests: []}]\n", ERR_INVALID,
		  "spec.devices.constraints[0]: exactly one of matchAttribute or distinctAttribute is "
		  "required" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g}}]\n"
			     "status:\n  allocation:\n    devices:\n      results:\n"
			     "      - {request: gpu, driver: d.io, pool: p}\n",
		  ERR_INVALID, "status.allocation.devices.results[0].device: missing" },
		{ CLAIM_HEAD "    requests: [{name: gpu, exactly: {deviceClassName: g}}]\n"
			     "status:\n  allocation:\n    devices:\n      results:\n"
			     "      - {request: nic, driver: d.io, pool: p, device: x}\n",
		  ERR_INVALID, "status.allocation.devices.results[0].request: \"nic\": no such request "
			       "in spec.devices.requests" },
		{ "kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {}\n", ERR_INVALID,
		  "spec.spec: missing" },
		{ "kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec:\n    devices:\n"
		  "      requests: [{name: g, exactly: {deviceClassName: G}}]\n",
		  ERR_INVALID, "spec.spec.devices.requests[0].exactly.deviceClassName: \"G\": not a DNS "
			       "subdomain: must consist of lowercase letters, digits, '-' and '.' (RFC "
			       "1123 subdomain)" },
		{ "kind: DeviceClass\nmetadata: {name: c}\nspec: {extendedResourceName: \"a b\"}\n",
		  ERR_INVALID, "spec.extendedResourceName: \"a b\": not a valid resource name: name part "
			       "must consist of letters, digits, '-', '_' and '.'" },
		{ "kind: DeviceClass\nmetadata: {name: c}\nspec: {selectors: [{cel: {expression: \"\"}}]}\n",
		  ERR_INVALID, "spec.selectors[0].cel.expression: must not be empty" },
	};

	(void)state;
	expect_errors(cases, sizeof cases / sizeof cases[0]);
}

static void test_claim_limits(void **state)
{
	struct textbuf b;

	(void)state;
	expect_limit(repeated(CLAIM_HEAD "    requests:\n",
				"    - {name: r#, exactly: {deviceClassName: g}}\n", 33, ""),
		     "spec.devices.requests: 33 entries: more than the API server's 32");
	expect_limit(repeated(CLAIM_HEAD "    requests:\n    - name: r\n      firstAvailable:\n",
				"      - {name: a#, deviceClassName: g}\n", 9, ""),
		     "spec.devices.requests[0].firstAvailable: 9 entries: more than the API server's 8");
	expect_limit(repeated(CLAIM_HEAD "    requests:\n    - name: r\n      exactly:\n"
					   "        deviceClassName: g\n        selectors:\n",
				"        - cel: {expression: \"device.driver == '#'\"}\n", 33, ""),
		     "spec.devices.requests[0].exactly.selectors: 33 entries: more than the API "
		     "server's 32");
	expect_limit(repeated(CLAIM_HEAD "    constraints:\n",
				"    - {matchAttribute: x.io/a#}\n", 33, ""),
		     "spec.devices.constraints: 33 entries: more than the API server's 32");
	expect_limit(repeated(CLAIM_HEAD "    requests: [{name: r, exactly: {deviceClassName: g}}]\n"
					   "status:\n  allocation:\n    devices:\n      results:\n",
				"      - {request: r, driver: d.io, pool: p, device: d#}\n", 33, ""),
		     "status.allocation.devices.results: 33 entries: more than the API server's 32");
	/* A CEL expression one byte over 10 KiB. */
	textbuf_init(&b, 1 << 20);
	textbuf_adds(&b, "kind: DeviceClass\nmetadata: {name: c}\nspec:\n  selectors:\n"
			 "  - cel:\n      expression: \"x");
	for (size_t k = 0; k < 10240; k++)
		textbuf_addc(&b, 'x');
	textbuf_adds(&b, "\"\n");
	expect_limit(textbuf_take(&b, NULL),
		     "spec.selectors[0].cel.expression: 10241 bytes: longer than the API server's 10240");
}

/* The pod's file through the document layer, then its claims. */
static enum err pod_claims(const char *text, struct dra_pod_claims *out, struct errmsg *msg)
{
	struct doc **docs = NULL;
	size_t ndocs = 0;
	enum err rc = doc_parse(text, strlen(text), "pod.yaml", &docs, &ndocs, msg);

	if (rc == ERR_OK) {
		assert_int_equal(ndocs, 1);
		rc = dra_pod_claims_decode(docs[0], "pod.yaml", out, msg);
	}
	doc_free_all(docs, ndocs);
	return rc;
}

static void test_pod_claims(void **state)
{
	struct errmsg msg = { { 0 } };
	struct dra_pod_claims pc;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	if (file_read_all(DATA "pods/pod-train.yaml", 0, &text, &len, &msg) != ERR_OK ||
	    pod_claims(text, &pc, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	free(text);
	assert_int_equal(pc.nclaims, 2);
	assert_string_equal(pc.claims[0].name, "gpu");
	assert_string_equal(pc.claims[0].template_name, "single-gpu");
	assert_string_equal(pc.claims[0].claim_name, "train-0-gpu-7xk2m");
	assert_string_equal(pc.claims[1].name, "scratch");
	assert_string_equal(pc.claims[1].claim_name, "shared-nic");
	assert_null(pc.claims[1].template_name);
	/* pod_decode's order: the init container first. */
	assert_int_equal(pc.ncontainers, 3);
	assert_string_equal(pc.containers[0].container, "fetch");
	assert_int_equal(pc.containers[0].nclaims, 0);
	assert_string_equal(pc.containers[1].container, "train");
	assert_int_equal(pc.containers[1].nclaims, 2);
	assert_string_equal(pc.containers[1].claims[0].claim, "gpu");
	assert_null(pc.containers[1].claims[0].request);
	assert_string_equal(pc.containers[1].claims[1].request, "nic");
	assert_int_equal(pc.containers[2].nclaims, 0);
	dra_pod_claims_cleanup(&pc);
	/* A template whose claim is not made yet, and a pod without claims. */
	if (pod_claims("spec:\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n"
		       "  containers: [{name: c}]\n", &pc, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_null(pc.claims[0].claim_name);
	dra_pod_claims_cleanup(&pc);
	if (pod_claims("spec: {containers: [{name: c, resources: {limits: {cpu: 1}}}]}\n", &pc,
		       &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(pc.nclaims, 0);
	assert_int_equal(pc.ncontainers, 1);
	dra_pod_claims_cleanup(&pc);
}

static void test_pod_claim_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "spec:\n  resourceClaims: [{name: g}]\n",
		  "pod.yaml: spec.resourceClaims[0]: exactly one of resourceClaimName or "
		  "resourceClaimTemplateName is required" },
		{ "spec:\n  resourceClaims: [{name: g, resourceClaimName: a, resourceClaimTemplateName: b}]\n",
		  "pod.yaml: spec.resourceClaims[0]: only one of resourceClaimName and "
		  "resourceClaimTemplateName may be set" },
		{ "spec:\n  resourceClaims: [{name: G, resourceClaimName: a}]\n",
		  "pod.yaml: spec.resourceClaims[0].name: \"G\": not a DNS label: must consist of "
		  "lowercase letters, digits, '-' and '.' (RFC 1123 subdomain)" },
		{ "spec:\n  resourceClaims: [{name: g, resourceClaimName: a}, {name: g, resourceClaimName: b}]\n",
		  "pod.yaml: spec.resourceClaims[1].name: \"g\": duplicate claim name" },
		{ "spec:\n  containers: [{name: c, resources: {claims: [{name: gpu}]}}]\n",
		  "pod.yaml: spec.containers[0].resources.claims[0].name: \"gpu\": no such claim in "
		  "spec.resourceClaims" },
		{ "spec:\n  resourceClaims: [{name: g, resourceClaimName: a}]\n"
		  "status:\n  resourceClaimStatuses: [{name: g, resourceClaimName: x}]\n",
		  "pod.yaml: status.resourceClaimStatuses[0].name: \"g\": not a claim made from a template" },
		{ "spec: {}\nstatus:\n  resourceClaimStatuses: [{name: h}]\n",
		  "pod.yaml: status.resourceClaimStatuses[0].name: \"h\": no such claim in "
		  "spec.resourceClaims" },
		{ "kind: Pod\n", "pod.yaml: spec: missing" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };
		struct dra_pod_claims pc;

		if (pod_claims(cases[i].text, &pc, &msg) != ERR_INVALID ||
		    strcmp(msg.text, cases[i].want) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, msg.text, cases[i].want);
		assert_null(pc.claims);
		assert_null(pc.containers);
	}
}

static void test_semver(void **state)
{
	static const char *const good[] = { "0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha.1",
					     "1.0.0-0.3.7", "1.0.0-x-y.z", "1.0.0+build.5",
					     "1.0.0-rc.1+exp.sha.5114f85", "570.124.6" };
	static const char *const bad[] = { "", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-",
					   "1.2.3+", "1.2.3-01", "1.2.3-a..b", "v1.2.3", "1.2.3-a+b+c",
					   "1.2.3 ", "-1.2.3" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		if (!dra_semver_valid(good[i]))
			fail_msg("%s should be a semantic version", good[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (dra_semver_valid(bad[i]))
			fail_msg("\"%s\" should not be a semantic version", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_slice),
		cmocka_unit_test(test_cpu_and_intel_slices),
		cmocka_unit_test(test_class_claims_template),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_lists_and_streams),
		cmocka_unit_test(test_single_object_fails),
		cmocka_unit_test(test_slice_errors),
		cmocka_unit_test(test_slice_limits),
		cmocka_unit_test(test_claim_errors),
		cmocka_unit_test(test_claim_limits),
		cmocka_unit_test(test_pod_claims),
		cmocka_unit_test(test_pod_claim_errors),
		cmocka_unit_test(test_semver),
	};

	return cmocka_run_group_tests_name("dra_decode", tests, NULL, NULL);
}
