/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for the document tree (extender/doc*.c) and the NRT and pod decoders
 * (extender/codec/nrt_decode.c, extender/codec/pod_decode.c), against fixture files under
 * tests/data/decode/ and every scenario in tests/data/scenarios. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/codec/nrt_decode.h"
#include "topology/inventory.h"
#include "extender/codec/pod_decode.h"
#include "topology/quantity.h"

#define DATA "tests/data/decode/"
#define SCENARIOS "tests/data/scenarios"

static char *slurp(const char *path, size_t *len)
{
	struct errmsg msg = { { 0 } };
	char *buf = NULL;
	enum err rc = file_read_all(path, 0, &buf, len, &msg);

	if (rc != ERR_OK)
		fail_msg("%s", msg.text);
	return buf;
}

static const struct nrt_resource *find_resource(const struct nrt_zone *z,
						const char *name)
{
	size_t i;

	for (i = 0; i < z->nresources; i++) {
		if (strcmp(z->resources[i].name, name) == 0)
			return &z->resources[i];
	}
	fail_msg("zone %s has no resource %s", z->name, name);
	abort(); /* not reached; tells the compiler so */
}

static const struct nrt_attribute *find_attribute(const struct nrt_object *o,
						  const char *name)
{
	size_t i;

	for (i = 0; i < o->nattributes; i++) {
		if (strcmp(o->attributes[i].name, name) == 0)
			return &o->attributes[i];
	}
	fail_msg("no attribute %s", name);
	abort(); /* not reached; tells the compiler so */
}

static const struct pod_quantity *find_quantity(const struct pod_quantity *list,
						size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(list[i].name, name) == 0)
			return &list[i];
	}
	fail_msg("no quantity %s", name);
	abort(); /* not reached; tells the compiler so */
}

static int64_t scaled(const struct quantity *q, int scale)
{
	int64_t v = 0;

	assert_int_equal(quantity_scaled(q, scale, &v), ERR_OK);
	return v;
}

static void load_one(const char *path, struct nrt_object **objs)
{
	struct errmsg msg = { { 0 } };
	size_t n = 0;
	enum err rc = nrt_load_path(path, objs, &n, &msg);

	if (rc != ERR_OK)
		fail_msg("%s", msg.text);
	assert_int_equal(n, 1);
}

static void decode_json_nrt_fields(void **state)
{
	struct nrt_object *o = NULL;
	const struct nrt_zone *z;

	(void)state;
	load_one(DATA "nrt/w1.json", &o);
	assert_string_equal(o->name, "w1");
	assert_string_equal(o->api_version, "topology.node.k8s.io/v1alpha2");
	assert_string_equal(o->resource_version, "73125");
	assert_int_equal(o->npolicies, 1);
	assert_string_equal(o->policies[0], "SingleNUMANodePodLevel");
	assert_int_equal(o->nattributes, 4);
	assert_string_equal(o->attributes[0].name, "topologyManagerPolicy");
	assert_string_equal(o->attributes[0].value, "single-numa-node");
	/* Attribute values written as a JSON number or boolean keep their text. */
	assert_string_equal(find_attribute(o, "topologyManagerMaxNUMANodes")->value, "8");
	assert_string_equal(
		find_attribute(o, "topologyManagerOptionPreferClosestNumaNodes")->value,
		"false");
	assert_int_equal(o->nzones, 2);
	z = &o->zones[0];
	assert_string_equal(z->name, "node-0");
	assert_string_equal(z->type, "Node");
	assert_int_equal(z->ncosts, 2);
	assert_string_equal(z->costs[1].name, "node-1");
	assert_int_equal(z->costs[1].value, 21);
	assert_int_equal(z->nresources, 3);
	assert_string_equal(z->resources[0].name, "cpu");
	assert_int_equal(z->resources[0].capacity, 32);
	assert_int_equal(z->resources[0].allocatable, 30);
	assert_int_equal(z->resources[0].available, 24);
	assert_int_equal(find_resource(z, "memory")->capacity, 64LL << 30);
	assert_int_equal(find_resource(z, "memory")->available, 60000000000LL);
	assert_int_equal(find_resource(z, "nvidia.com/gpu")->available, 1);
	z = &o->zones[1];
	assert_string_equal(z->name, "node-1");
	assert_int_equal(z->costs[1].value, 10);
	assert_int_equal(find_resource(z, "memory")->available, 64LL << 30);
	nrt_objects_free(o, 1);
}

static void decode_yaml_nrt_example(void **state)
{
	struct nrt_object *o = NULL;
	const struct nrt_zone *z;

	(void)state;
	load_one(DATA "nrt/worker-a17.yaml", &o);
	assert_string_equal(o->name, "worker-a17");
	assert_null(o->resource_version);
	assert_int_equal(o->npolicies, 0);
	assert_int_equal(o->nattributes, 6);
	assert_string_equal(o->attributes[1].name, "topologyManagerScope");
	assert_string_equal(o->attributes[1].value, "pod");
	assert_string_equal(o->attributes[2].value, "8");
	assert_string_equal(o->attributes[4].value, "pfp0v001c3a91f07d24e5b18");
	assert_int_equal(o->nzones, 2);
	z = &o->zones[0];
	assert_int_equal(z->nresources, 7);
	assert_string_equal(z->resources[6].name, "dsa.intel.com/wq-user-shared");
	assert_int_equal(z->resources[6].available, 17);
	assert_int_equal(find_resource(z, "cpu")->available, 46);
	assert_int_equal(find_resource(z, "memory")->capacity, 269755191296LL);
	assert_int_equal(find_resource(z, "hugepages-1Gi")->available, 8589934592LL);
	assert_int_equal(z->costs[0].value, 10);
	z = &o->zones[1];
	assert_int_equal(find_resource(z, "nvidia.com/gpu")->available, 4);
	assert_int_equal(find_resource(z, "memory")->available, 261992697856LL);
	nrt_objects_free(o, 1);
}

static void decode_v1alpha1_policies(void **state)
{
	struct nrt_object *o = NULL;

	(void)state;
	load_one(DATA "nrt/v1alpha1.yaml", &o);
	assert_string_equal(o->api_version, "topology.node.k8s.io/v1alpha1");
	assert_int_equal(o->npolicies, 1);
	assert_string_equal(o->policies[0], "SingleNUMANodeContainerLevel");
	assert_int_equal(o->nattributes, 0);
	assert_null(o->attributes);
	assert_int_equal(o->zones[0].resources[0].capacity, 16);
	assert_int_equal(o->zones[0].resources[0].available, 8);
	assert_int_equal(o->zones[0].ncosts, 0);
	nrt_objects_free(o, 1);
}

/* The legacy fingerprint annotation stands in for the attribute, never over it. */
static void decode_legacy_fingerprint_annotation(void **state)
{
	static const char only[] =
		"apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		"metadata:\n  name: n\n  annotations:\n    topology.node.k8s.io/fingerprint: pfp0v001aaaaaaaaaaaaaaaa\n"
		"zones: []\n";
	static const char both[] =
		"{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
		"\"metadata\":{\"name\":\"n\",\"annotations\":{\"topology.node.k8s.io/fingerprint\":\"pfp0v001aaaaaaaaaaaaaaaa\"}},"
		"\"attributes\":[{\"name\":\"nodeTopologyPodsFingerprint\",\"value\":\"pfp0v001bbbbbbbbbbbbbbbb\"}],"
		"\"zones\":[]}";
	struct nrt_object *o = NULL;
	struct errmsg msg;
	size_t n = 0;

	(void)state;
	assert_int_equal(nrt_decode_buffer(only, strlen(only), "t", &o, &n, &msg), ERR_OK);
	assert_int_equal(o->nattributes, 1);
	assert_string_equal(o->attributes[0].name, "nodeTopologyPodsFingerprint");
	assert_string_equal(o->attributes[0].value, "pfp0v001aaaaaaaaaaaaaaaa");
	nrt_objects_free(o, n);
	assert_int_equal(nrt_decode_buffer(both, strlen(both), "t", &o, &n, &msg), ERR_OK);
	assert_int_equal(o->nattributes, 1);
	assert_string_equal(o->attributes[0].value, "pfp0v001bbbbbbbbbbbbbbbb");
	nrt_objects_free(o, n);
}

static void decode_multi_document_stream_skips_empty(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(nrt_load_path(DATA "nrt/stream.yaml", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].name, "node-a");
	assert_int_equal(o[0].nzones, 0);
	assert_string_equal(o[1].name, "node-b");
	assert_int_equal(o[1].nzones, 1);
	assert_int_equal(o[1].zones[0].resources[0].available, 3);
	nrt_objects_free(o, n);
}

static void decode_list_items_inherit_api_version(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(nrt_load_path(DATA "nrt/list.json", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].name, "n1");
	assert_string_equal(o[0].resource_version, "11");
	assert_int_equal(o[0].zones[0].resources[0].capacity, 8);
	/* The second item carries neither kind nor apiVersion. */
	assert_string_equal(o[1].name, "n2");
	assert_string_equal(o[1].api_version, "topology.node.k8s.io/v1alpha2");
	nrt_objects_free(o, n);
}

static void decode_kubectl_list(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(nrt_load_path(DATA "nrt/kubectl-list.yaml", &o, &n, &msg),
			 ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].name, "k1");
	assert_string_equal(o[1].name, "k2");
	assert_string_equal(o[1].api_version, "topology.node.k8s.io/v1alpha1");
	assert_string_equal(o[1].policies[0], "None");
	nrt_objects_free(o, n);
}

static void decode_directory_sorted_and_filtered(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t n = 0;

	(void)state;
	/* notes.txt, README, z.yaml.bak and the directory sub.yaml/ are not
	 * data; a.json, b.yaml (two documents) and c.yml are, in name order. */
	assert_int_equal(nrt_load_path(DATA "dir", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 4);
	assert_string_equal(o[0].name, "dir-a");
	assert_string_equal(o[1].name, "dir-b1");
	assert_string_equal(o[2].name, "dir-b2");
	assert_string_equal(o[3].name, "dir-c");
	assert_int_equal(o[3].zones[0].resources[0].capacity, 2);
	nrt_objects_free(o, n);

	/* A trailing slash names the same directory. */
	assert_int_equal(nrt_load_path(DATA "dir/", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 4);
	nrt_objects_free(o, n);
}

static void decode_directory_without_data_files_is_empty(void **state)
{
	static struct nrt_object dummy;
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = &dummy;
	size_t n = 99;

	(void)state;
	assert_int_equal(nrt_load_path(DATA "nodata", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 0);
	assert_null(o);
}

static void decode_quantities_json_numbers_and_strings(void **state)
{
	struct nrt_object *o = NULL;
	const struct nrt_zone *z;
	const struct nrt_resource *r;

	(void)state;
	load_one(DATA "nrt/quantities.json", &o);
	z = &o->zones[0];
	r = find_resource(z, "cpu");
	assert_int_equal(r->capacity, 1000);     /* number 1e3 */
	assert_int_equal(r->allocatable, 1000);  /* string "1e3" */
	assert_int_equal(r->available, 100);     /* number 1E+2 */
	r = find_resource(z, "memory");
	assert_int_equal(r->capacity, 2);        /* 1.5 bytes rounds up */
	assert_int_equal(r->allocatable, 1610612736);
	assert_int_equal(r->available, 5);       /* 0.5e1 */
	r = find_resource(z, "hugepages-2Mi");
	assert_int_equal(r->capacity, 2097152);
	assert_int_equal(r->allocatable, 524288);
	r = find_resource(z, "example.com/dev");
	assert_int_equal(r->capacity, 2000);
	assert_int_equal(r->allocatable, 2000);  /* 2000.0 is whole */
	assert_int_equal(r->available, 4);       /* 4000m is whole */
	r = find_resource(z, "example.com/big");
	assert_int_equal(r->capacity, INT64_MAX);
	assert_int_equal(r->allocatable, 7LL << 60);
	assert_int_equal(r->available, 0);
	nrt_objects_free(o, 1);
}

static void decode_quantities_yaml_scalars(void **state)
{
	struct nrt_object *o = NULL;
	const struct nrt_resource *r;

	(void)state;
	load_one(DATA "nrt/quantities.yaml", &o);
	r = find_resource(&o->zones[0], "cpu");
	assert_int_equal(r->capacity, 1000);
	assert_int_equal(r->allocatable, 1000);
	assert_int_equal(r->available, 12);
	r = find_resource(&o->zones[0], "memory");
	assert_int_equal(r->capacity, 2);
	assert_int_equal(r->allocatable, 1610612736);
	assert_int_equal(r->available, 5);
	nrt_objects_free(o, 1);
}

struct bad_case {
	const char *file;
	enum err rc;
	const char *text; /* after "<path>" */
};

static void decode_bad_nrt_files(void **state)
{
	static const struct bad_case cases[] = {
		{ "w1.yaml", ERR_PARSE,
		  ": zones[1].resources[0].available: \"12x\": not a quantity" },
		{ "zone-name-missing.yaml", ERR_INVALID, ": zones[0].name: missing" },
		{ "zones-string.yaml", ERR_INVALID,
		  ": zones: expected an array, got a string" },
		{ "zones-missing.json", ERR_INVALID, ": zones: missing" },
		{ "wrong-kind.yaml", ERR_INVALID,
		  ": kind: \"Node\": expected NodeResourceTopology" },
		{ "wrong-api.json", ERR_INVALID,
		  ": apiVersion: \"topology.node.k8s.io/v1beta1\": expected "
		  "topology.node.k8s.io/v1alpha1 or topology.node.k8s.io/v1alpha2" },
		{ "no-name.yaml", ERR_INVALID, ": metadata.name: missing" },
		{ "not-object.yaml", ERR_INVALID, ": expected an object, got an array" },
		{ "bad-resource-name.yaml", ERR_INVALID,
		  ": zones[0].resources[0].name: \"example.com/-gpu\": not a valid resource name: "
		  "name part must start and end with a letter or digit" },
		{ "hugepages-bad-size.yaml", ERR_INVALID,
		  ": zones[0].resources[0].name: \"hugepages-huge\": not a valid resource name: "
		  "hugepages-<size> needs a positive quantity as its size" },
		{ "bad-node-name.yaml", ERR_INVALID,
		  ": metadata.name: \"Worker_1\": not a valid node name: must consist of lowercase "
		  "letters, digits, '-' and '.' (RFC 1123 subdomain)" },
		{ "negative.json", ERR_INVALID,
		  ": zones[0].resources[1].available: \"-1Gi\": must not be negative" },
		{ "dup-resource.yaml", ERR_INVALID,
		  ": zones[0].resources[2].name: duplicate resource \"cpu\"" },
		{ "cost-float.yaml", ERR_INVALID,
		  ": zones[0].costs[1].value: \"21.5\": not an integer" },
		{ "cost-string.json", ERR_INVALID,
		  ": zones[0].costs[0].value: expected an integer, got a string" },
		/* The exact text, not json-c's clamped 18446744073709551615. */
		{ "range.json", ERR_RANGE,
		  ": zones[0].resources[0].capacity: \"100000000000000000000\": out of range (more than 2^63-1)" },
		{ "anchor.yaml", ERR_PARSE, ":5:3: anchors are not supported" },
		{ "alias.yaml", ERR_PARSE, ":5:3: aliases are not supported" },
		{ "syntax.yaml", ERR_PARSE,
		  ":5:2: did not find expected key (while parsing a block mapping "
		  "at line 1, column 1)" },
		{ "deep.yaml", ERR_PARSE, ":1:71: nesting deeper than 64 levels" },
		{ "dupkey.yaml", ERR_PARSE, ":6:1: duplicate key \"metadata\"" },
		{ "syntax.json", ERR_PARSE,
		  ": invalid JSON at byte 47: object value separator ',' expected" },
		{ "trailing.json", ERR_PARSE,
		  ": invalid JSON at byte 122: unexpected character" },
		{ "truncated.json", ERR_PARSE,
		  ": invalid JSON at byte 119: unexpected end of input" },
		{ "deep.json", ERR_PARSE, ": invalid JSON at byte 73: nesting too deep" },
		{ "dupkey.json", ERR_PARSE, ": invalid JSON: duplicate key in an object" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		static struct nrt_object dummy;
		struct errmsg msg = { { 0 } };
		struct nrt_object *o = &dummy;
		char path[256], want[600];
		size_t n = 99;

		snprintf(path, sizeof path, DATA "bad/%s", cases[i].file);
		snprintf(want, sizeof want, "%s%s", path, cases[i].text);
		assert_int_equal(nrt_load_path(path, &o, &n, &msg), cases[i].rc);
		assert_string_equal(msg.text, want);
		assert_null(o);
		assert_int_equal(n, 0);
	}
}

static void decode_bad_nrt_buffer_uses_origin(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t len = 0, n = 0;
	char *buf;

	(void)state;
	buf = slurp(DATA "bad/w1.yaml", &len);
	assert_int_equal(nrt_decode_buffer(buf, len, "w1.yaml", &o, &n, &msg),
			 ERR_PARSE);
	assert_string_equal(msg.text,
			    "w1.yaml: zones[1].resources[0].available: \"12x\": not a quantity");
	free(buf);
}

/* In a file of several objects each stands or falls alone: a bad one is a
 * placeholder naming its document or item and node; the others decode. */
static void decode_bad_item_stands_alone(void **state)
{
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	struct inventory_node *node = NULL;
	size_t len = 0, n = 0;
	char *buf;

	(void)state;
	buf = slurp(DATA "bad/stream-doc2-bad.yaml", &len);
	assert_int_equal(nrt_decode_buffer(buf, len, "w1.yaml", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].name, "ok");
	assert_null(o[0].invalid);
	assert_string_equal(o[1].name, "");
	assert_string_equal(o[1].invalid, "w1.yaml (document 2): metadata.name: missing");
	assert_int_equal(inventory_node_new(&o[1], &node, &msg), ERR_INVALID);
	assert_null(node);
	assert_string_equal(msg.text, "w1.yaml (document 2): metadata.name: missing");
	nrt_objects_free(o, n);
	free(buf);

	assert_int_equal(nrt_load_path(DATA "bad/list-item-bad.json", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].name, "n1");
	assert_null(o[0].invalid);
	assert_string_equal(o[0].api_version, "topology.node.k8s.io/v1alpha2");
	assert_string_equal(o[1].name, "n2");
	assert_string_equal(o[1].invalid,
			    DATA "bad/list-item-bad.json (node n2): items[1].zones[0].resources[0]"
				 ".capacity: \"x\": not a quantity");
	nrt_objects_free(o, n);
}

/* Exclusive CPUs and devices count whole units: a fraction rounds down. */
static void decode_fractional_counts_floor(void **state)
{
	struct nrt_object *o = NULL;

	(void)state;
	load_one(DATA "bad/fractional-cpu.yaml", &o);
	assert_int_equal(o->zones[0].resources[0].capacity, 1); /* 1500m */
	assert_int_equal(o->zones[0].resources[0].allocatable, 1);
	nrt_objects_free(o, 1);
}

static void decode_nrt_doc_single_object(void **state)
{
	static const char text[] =
		"{\"apiVersion\": \"topology.node.k8s.io/v1alpha2\","
		" \"kind\": \"NodeResourceTopology\", \"metadata\": {\"name\": \"x\"},"
		" \"zones\": [{\"name\": \"node-0\", \"type\": \"\", \"resources\": null}]}";
	struct errmsg msg = { { 0 } };
	struct nrt_object o;
	struct doc **docs = NULL;
	size_t ndocs = 0;

	(void)state;
	assert_int_equal(doc_parse(text, strlen(text), "t", &docs, &ndocs, &msg), ERR_OK);
	assert_int_equal(ndocs, 1);
	assert_int_equal(nrt_decode_doc(docs[0], "t", &o, &msg), ERR_OK);
	assert_string_equal(o.name, "x");
	assert_int_equal(o.nzones, 1);
	assert_string_equal(o.zones[0].type, "");
	assert_int_equal(o.zones[0].nresources, 0);
	nrt_object_cleanup(&o);
	/* A list is not one object. */
	doc_free_all(docs, ndocs);
	assert_int_equal(doc_parse("{\"kind\": \"NodeResourceTopologyList\"}", 36,
				   "t", &docs, &ndocs, &msg), ERR_OK);
	assert_int_equal(nrt_decode_doc(docs[0], "t", &o, &msg), ERR_INVALID);
	assert_string_equal(msg.text,
			    "t: kind: \"NodeResourceTopologyList\": expected NodeResourceTopology");
	assert_null(o.name);
	doc_free_all(docs, ndocs);
}

static void decode_empty_stream_yields_nothing(void **state)
{
	static const char text[] = "# only a comment\n---\n...\n";
	struct errmsg msg = { { 0 } };
	struct nrt_object *o = NULL;
	size_t n = 7;

	(void)state;
	assert_int_equal(nrt_decode_buffer(text, strlen(text), "e", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 0);
	assert_null(o);
	assert_int_equal(nrt_decode_buffer("", 0, "e", &o, &n, &msg), ERR_OK);
	assert_int_equal(n, 0);
}

static void decode_pod_sidecar_admission_order(void **state)
{
	struct errmsg msg = { { 0 } };
	struct pod_spec p;
	const struct pod_container *c;

	(void)state;
	assert_int_equal(pod_load_file(DATA "pod/sidecar.yaml", &p, &msg), ERR_OK);
	assert_string_equal(p.name, "web");
	assert_string_equal(p.namespace_, "shop");
	assert_string_equal(p.uid, "6f1e2d3c-0000-4000-8000-00000000beef");
	assert_true(p.has_status_qos);
	assert_int_equal(p.status_qos, QOS_BURSTABLE);
	assert_int_equal(p.ncontainers, 4);
	assert_string_equal(p.containers[0].name, "setup");
	assert_int_equal(p.containers[0].kind, CONTAINER_INIT);
	assert_string_equal(p.containers[1].name, "proxy");
	assert_int_equal(p.containers[1].kind, CONTAINER_SIDECAR);
	assert_string_equal(p.containers[2].name, "app");
	assert_int_equal(p.containers[2].kind, CONTAINER_APP);
	assert_string_equal(p.containers[3].name, "logger");
	assert_int_equal(p.containers[3].kind, CONTAINER_APP);

	c = &p.containers[0];
	assert_int_equal(c->nrequests, 2);
	assert_string_equal(c->requests[0].name, "cpu");
	assert_int_equal(scaled(&c->requests[0].q, 0), 2);
	assert_int_equal(scaled(&find_quantity(c->limits, c->nlimits, "memory")->q, 0),
			 512LL << 20);
	c = &p.containers[1];
	assert_int_equal(c->nlimits, 0);
	assert_null(c->limits);
	assert_int_equal(scaled(&find_quantity(c->requests, c->nrequests, "cpu")->q, -3),
			 500);
	c = &p.containers[2];
	assert_int_equal(c->nrequests, 3);
	assert_int_equal(scaled(&find_quantity(c->requests, c->nrequests,
					       "nvidia.com/gpu")->q, 0), 1);
	assert_int_equal(scaled(&find_quantity(c->limits, c->nlimits, "memory")->q, 0),
			 2LL << 30);
	c = &p.containers[3];
	assert_int_equal(c->nrequests, 0);
	assert_int_equal(c->nlimits, 0);
	pod_spec_cleanup(&p);
}

static void decode_pod_json_number_quantities(void **state)
{
	struct errmsg msg = { { 0 } };
	struct pod_spec p;
	const struct pod_container *c;
	const struct pod_quantity *q;

	(void)state;
	assert_int_equal(pod_load_file(DATA "pod/guaranteed.json", &p, &msg), ERR_OK);
	assert_string_equal(p.namespace_, "batch");
	assert_string_equal(p.uid, "u-1");
	assert_true(p.has_status_qos);
	assert_int_equal(p.status_qos, QOS_GUARANTEED);
	assert_int_equal(p.ncontainers, 1);
	c = &p.containers[0];
	assert_int_equal(c->kind, CONTAINER_APP);
	assert_int_equal(c->nrequests, 4);
	assert_string_equal(c->requests[0].name, "cpu");
	assert_int_equal(scaled(&c->requests[0].q, -3), 2000);
	assert_int_equal(scaled(&c->requests[1].q, 0), 1073741824);
	q = find_quantity(c->limits, c->nlimits, "memory");
	/* 1.5e9 arrives as written, not as a binary double. */
	assert_false(q->q.negative);
	assert_true(quantity_is_exact(&q->q, 0));
	assert_int_equal(scaled(&q->q, 0), 1500000000);
	q = find_quantity(c->limits, c->nlimits, "hugepages-1Gi");
	assert_int_equal(scaled(&q->q, 0), 2LL << 30);
	pod_spec_cleanup(&p);
}

static void decode_pod_defaults(void **state)
{
	struct errmsg msg = { { 0 } };
	struct pod_spec p;

	(void)state;
	assert_int_equal(pod_load_file(DATA "pod/minimal.yaml", &p, &msg), ERR_OK);
	assert_string_equal(p.name, "tiny");
	assert_string_equal(p.namespace_, "default");
	assert_null(p.uid);
	assert_false(p.has_status_qos);
	assert_int_equal(p.ncontainers, 1);
	assert_int_equal(p.containers[0].kind, CONTAINER_APP);
	assert_int_equal(p.containers[0].nrequests, 0);
	pod_spec_cleanup(&p);

	/* An empty namespace is the default one; an empty initContainers list
	 * and an empty resources map are fine. */
	assert_int_equal(pod_load_file(DATA "pod/besteffort.json", &p, &msg), ERR_OK);
	assert_string_equal(p.namespace_, "default");
	assert_int_equal(p.ncontainers, 1);
	assert_true(p.has_status_qos);
	assert_int_equal(p.status_qos, QOS_BEST_EFFORT);
	pod_spec_cleanup(&p);
}

static void decode_bad_pod_files(void **state)
{
	static const struct bad_case cases[] = {
		{ "bad-quantity.yaml", ERR_PARSE,
		  ": spec.containers[0].resources.limits.cpu: \"abc\": not a quantity" },
		{ "no-containers.yaml", ERR_INVALID, ": spec.containers: missing" },
		{ "empty-containers.json", ERR_INVALID,
		  ": spec.containers: must not be empty" },
		{ "init-policy.yaml", ERR_INVALID,
		  ": spec.initContainers[0].restartPolicy: \"OnFailure\": expected Always" },
		{ "app-policy.yaml", ERR_INVALID,
		  ": spec.containers[0].restartPolicy: \"Always\": not allowed on an app container" },
		{ "dup-names.yaml", ERR_INVALID,
		  ": spec.containers[0].name: duplicate container name \"proxy\"" },
		{ "bad-qos.yaml", ERR_INVALID,
		  ": status.qosClass: \"Gold\": expected Guaranteed, Burstable or BestEffort" },
		{ "wrong-kind.yaml", ERR_INVALID, ": kind: \"Deployment\": expected Pod" },
		{ "negative.json", ERR_INVALID,
		  ": spec.containers[0].resources.requests.memory: \"-1\": must not be negative" },
		{ "two-docs.yaml", ERR_INVALID, ": expected one document, got 2" },
		{ "no-name.yaml", ERR_INVALID, ": metadata.name: missing" },
		{ "container-no-name.yaml", ERR_INVALID, ": spec.containers[1].name: missing" },
		{ "requests-list.yaml", ERR_INVALID,
		  ": spec.containers[0].resources.requests: expected an object, got an array" },
		{ "empty.yaml", ERR_INVALID, ": no document" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };
		char path[256], want[600];
		struct pod_spec p;

		snprintf(path, sizeof path, DATA "pod/%s", cases[i].file);
		snprintf(want, sizeof want, "%s%s", path, cases[i].text);
		assert_int_equal(pod_load_file(path, &p, &msg), cases[i].rc);
		assert_string_equal(msg.text, want);
		assert_null(p.name);
		assert_null(p.containers);
	}
}

static void decode_pod_buffer_uses_origin(void **state)
{
	struct errmsg msg = { { 0 } };
	struct pod_spec p;
	size_t len = 0;
	char *buf;

	(void)state;
	buf = slurp(DATA "pod/bad-quantity.yaml", &len);
	assert_int_equal(pod_decode_buffer(buf, len, "pod.yaml", &p, &msg), ERR_PARSE);
	assert_string_equal(msg.text,
			    "pod.yaml: spec.containers[0].resources.limits.cpu: \"abc\": not a quantity");
	free(buf);
	assert_int_equal(pod_load_file(DATA "pod/nosuch.yaml", &p, &msg), ERR_IO);
	assert_string_equal(msg.text, DATA "pod/nosuch.yaml: cannot open: No such file or directory");
}

static int cmp_str(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return strcmp(*x, *y);
}

/* Every scenario's NRT and pod decode, and the decoded pod lists its
 * containers in the order the scenario's expectations name them. */
static void decode_scenarios(void **state)
{
	char *names[256];
	size_t nnames = 0, i, j;
	struct dirent *e;
	DIR *dir;

	(void)state;
	dir = opendir(SCENARIOS);
	if (dir == NULL)
		fail_msg("cannot open %s (run from the repository root)", SCENARIOS);
	while ((e = readdir(dir)) != NULL && nnames < 256) {
		size_t n = strlen(e->d_name);

		if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0)
			names[nnames++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, nnames, sizeof names[0], cmp_str);
	assert_true(nnames >= 20);
	for (i = 0; i < nnames; i++) {
		struct errmsg msg = { { 0 } };
		const struct doc *nrt, *pod, *expect, *ecs;
		struct doc **docs = NULL;
		struct nrt_object o;
		struct pod_spec p;
		char path[512];
		size_t len = 0, ndocs = 0;
		char *buf;

		snprintf(path, sizeof path, "%s/%s", SCENARIOS, names[i]);
		buf = slurp(path, &len);
		if (doc_parse(buf, len, path, &docs, &ndocs, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		assert_int_equal(ndocs, 1);
		nrt = doc_get(docs[0], "nrt");
		pod = doc_get(docs[0], "pod");
		expect = doc_get(docs[0], "expect");
		assert_non_null(nrt);
		assert_non_null(pod);
		assert_non_null(expect);
		if (nrt_decode_doc(nrt, path, &o, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		if (pod_decode_doc(pod, path, &p, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
		assert_string_equal(o.name, doc_get(doc_get(nrt, "metadata"), "name")->text);
		assert_true(o.nzones >= 1);
		for (j = 0; j < o.nzones; j++) {
			assert_string_equal(o.zones[j].type, "Node");
			assert_true(o.zones[j].nresources >= 1);
			assert_true(o.zones[j].resources[0].available <=
				    o.zones[j].resources[0].allocatable);
		}
		assert_string_equal(p.name, doc_get(doc_get(pod, "metadata"), "name")->text);
		ecs = doc_get(expect, "containers");
		/* A configuration error judges no container. */
		if (ecs != NULL && ecs->nchildren > 0) {
			assert_int_equal(ecs->nchildren, p.ncontainers);
			for (j = 0; j < p.ncontainers; j++)
				assert_string_equal(
					doc_get(ecs->children[j].value, "name")->text,
					p.containers[j].name);
		}
		nrt_object_cleanup(&o);
		pod_spec_cleanup(&p);
		doc_free_all(docs, ndocs);
		free(buf);
		free(names[i]);
	}
}

static struct doc *parse_one(const char *text, struct errmsg *msg)
{
	struct doc **docs = NULL;
	struct doc *d;
	size_t n = 0;

	if (doc_parse(text, strlen(text), "t", &docs, &n, msg) != ERR_OK)
		return NULL;
	assert_int_equal(n, 1);
	d = docs[0];
	free(docs);
	return d;
}

static void decode_json_number_text_is_exact(void **state)
{
	static const char text[] =
		"[1.5, 1e3, 1E+3, -0, 100000000000000000000,"
		" -12345678901234567890123, 9223372036854775808, 1.50, 7]";
	static const char *const want[] = {
		"1.5", "1e3", "1E+3", "-0", "100000000000000000000",
		"-12345678901234567890123", "9223372036854775808", "1.50", "7",
	};
	struct errmsg msg = { { 0 } };
	struct doc *d = parse_one(text, &msg);
	size_t i;

	(void)state;
	assert_non_null(d);
	assert_int_equal(d->kind, DOC_ARRAY);
	assert_int_equal(d->nchildren, sizeof want / sizeof want[0]);
	for (i = 0; i < d->nchildren; i++) {
		assert_int_equal(d->children[i].value->kind, DOC_NUMBER);
		assert_string_equal(d->children[i].value->text, want[i]);
		assert_int_equal(d->children[i].value->line, 0);
	}
	doc_free(d);

	/* Numbers inside strings and keys do not shift the pairing. */
	d = parse_one("{\"1\": \"2 3\", \"a:b\": [4, {\"5\": 6e0}], \"t\": true, \"n\": null}",
		      &msg);
	assert_non_null(d);
	assert_string_equal(doc_get(d, "1")->text, "2 3");
	assert_string_equal(doc_get(d, "a:b")->children[0].value->text, "4");
	assert_string_equal(doc_get(doc_get(d, "a:b")->children[1].value, "5")->text, "6e0");
	assert_int_equal(doc_get(d, "t")->kind, DOC_BOOL);
	assert_string_equal(doc_get(d, "t")->text, "true");
	assert_int_equal(doc_get(d, "n")->kind, DOC_NULL);
	assert_null(doc_lookup(d, "n"));
	assert_non_null(doc_get(d, "n"));
	doc_free(d);
}

static void decode_json_rejects_duplicates_nul_and_bad_utf8(void **state)
{
	static const char nul[] = "{\"a\": 1}\0{}";
	struct errmsg msg = { { 0 } };
	struct doc **docs = NULL;
	size_t n = 0;

	(void)state;
	assert_null(parse_one("{\"a\": \"x\", \"a\": \"y\"}", &msg));
	assert_string_equal(msg.text, "t: invalid JSON: duplicate key in an object");
	assert_null(parse_one("{\"a\": 1, \"b\": {\"c\": 2, \"c\": 2}}", &msg));
	assert_string_equal(msg.text, "t: invalid JSON: duplicate key in an object");
	assert_int_equal(doc_parse(nul, sizeof nul - 1, "t", &docs, &n, &msg), ERR_PARSE);
	assert_string_equal(msg.text,
			    "t: invalid JSON at byte 8: unexpected data after the value");
	assert_null(docs);
	/* json-c would keep "a\u0000b" as "a". */
	assert_null(parse_one("{\"a\\u0000b\": 1}", &msg));
	assert_string_equal(msg.text, "t: invalid JSON: an object key contains a NUL byte");
	{
		/* An escaped backslash before "u0000" is no NUL. */
		struct doc *d = parse_one("{\"a\\\\u0000b\" : 1}", &msg);

		assert_non_null(d);
		assert_non_null(doc_get(d, "a\\u0000b"));
		doc_free(d);
	}
	assert_null(parse_one("{\"a\": \"\xff\"}", &msg));
	assert_string_equal(msg.text, "t: invalid JSON at byte 7: invalid utf-8 string");
	/* Strings may hold NULs; the string reader refuses to cut them short. */
	{
		struct doc *d = parse_one("[\"a\\u0000b\"]", &msg);
		const char *s = NULL;

		assert_non_null(d);
		assert_int_equal(d->children[0].value->len, 3);
		assert_int_equal(doc_read_string(d->children[0].value, 0, &s, NULL, &msg),
				 ERR_INVALID);
		assert_string_equal(msg.text, "string contains a NUL byte");
		doc_free(d);
	}
}

static void decode_depth_limit_is_64_in_both_formats(void **state)
{
	char json[2 * 66 + 1], yaml[2 * 66 + 8];
	struct errmsg msg = { { 0 } };
	struct doc *d;
	struct doc **docs = NULL;
	size_t n = 0;

	(void)state;
	memset(json, '[', 64);
	memset(json + 64, ']', 64);
	json[128] = '\0';
	d = parse_one(json, &msg);
	assert_non_null(d);
	doc_free(d);
	memset(json, '[', 65);
	memset(json + 65, ']', 65);
	json[130] = '\0';
	assert_null(parse_one(json, &msg));
	assert_string_equal(msg.text, "t: invalid JSON at byte 64: nesting too deep");

	/* "- " opens the first sequence in block style, then flow ones. */
	memcpy(yaml, "- ", 2);
	memset(yaml + 2, '[', 63);
	memset(yaml + 65, ']', 63);
	yaml[128] = '\0';
	assert_int_equal(doc_parse_yaml(yaml, strlen(yaml), "y", &docs, &n, &msg), ERR_OK);
	assert_int_equal(n, 1);
	doc_free_all(docs, n);
	memset(yaml + 2, '[', 64);
	memset(yaml + 66, ']', 64);
	yaml[130] = '\0';
	assert_int_equal(doc_parse_yaml(yaml, strlen(yaml), "y", &docs, &n, &msg),
			 ERR_PARSE);
	assert_string_equal(msg.text, "y:1:66: nesting deeper than 64 levels");
	assert_null(docs);
}

/* Parses text that is expected to fail, freeing anything it yields. */
static enum err parse_text(const char *text, struct errmsg *msg)
{
	struct doc **docs = NULL;
	size_t n = 0;
	enum err rc = doc_parse(text, strlen(text), "y", &docs, &n, msg);

	doc_free_all(docs, n);
	return rc;
}

static void decode_yaml_kinds_and_positions(void **state)
{
	static const char text[] =
		"a: 8\n"
		"b: \"8\"\n"
		"c: !!str 8\n"
		"d: |\n"
		"  block\n"
		"e:\n"
		"f: ~\n"
		"g:\n"
		"  - x\n"
		"  - {h: true}\n";
	struct errmsg msg = { { 0 } };
	struct doc **docs = NULL;
	const struct doc *d, *g;
	size_t n = 0;

	(void)state;
	assert_int_equal(doc_parse(text, strlen(text), "y", &docs, &n, &msg), ERR_OK);
	assert_int_equal(n, 1);
	d = docs[0];
	assert_int_equal(d->kind, DOC_OBJECT);
	assert_int_equal(d->line, 1);
	assert_int_equal(d->column, 1);
	assert_int_equal(doc_get(d, "a")->kind, DOC_PLAIN);
	assert_string_equal(doc_kind_name(doc_get(d, "a")), "a number");
	assert_int_equal(doc_get(d, "b")->kind, DOC_STRING);
	assert_int_equal(doc_get(d, "c")->kind, DOC_STRING);
	assert_string_equal(doc_get(d, "d")->text, "block\n");
	assert_int_equal(doc_get(d, "d")->kind, DOC_STRING);
	assert_non_null(doc_get(d, "e"));
	assert_null(doc_lookup(d, "e"));
	assert_null(doc_lookup(d, "f"));
	assert_null(doc_get(d, "A"));
	g = doc_get(d, "g");
	assert_int_equal(g->kind, DOC_ARRAY);
	assert_int_equal(g->line, 9);
	assert_int_equal(g->column, 3);
	assert_int_equal(g->nchildren, 2);
	assert_null(g->children[0].key);
	assert_string_equal(g->children[0].value->text, "x");
	assert_int_equal(g->children[1].value->line, 10);
	assert_int_equal(g->children[1].value->column, 5);
	assert_string_equal(doc_kind_name(doc_get(g->children[1].value, "h")), "a boolean");
	doc_free_all(docs, n);

	assert_int_equal(parse_text("? [a]\n: b\n", &msg), ERR_PARSE);
	assert_string_equal(msg.text, "y:1:3: a mapping key must be a scalar, got a sequence");
	assert_int_equal(parse_text("a: \"\\x00\"\n\"\\x00\": 1\n", &msg), ERR_PARSE);
	assert_string_equal(msg.text, "y:2:1: a mapping key contains a NUL byte");
	assert_int_equal(parse_text("a: \x01\n", &msg), ERR_PARSE);
	assert_string_equal(msg.text, "y:1:4: control characters are not allowed (#1 at byte 3)");
}

static void decode_kind_names(void **state)
{
	static const char *const texts[] = {
		"[1, \"s\", true, null, [], {}]",
		"- 1.5e3\n- -7\n- .inf\n- abc\n- True\n- ~\n- ''\n- 1.2.3\n",
	};
	static const char *const json_names[] = {
		"a number", "a string", "a boolean", "null", "an array", "an object",
	};
	static const char *const yaml_names[] = {
		"a number", "a number", "a number", "a string", "a boolean", "null",
		"a string", "a string",
	};
	struct errmsg msg = { { 0 } };
	struct doc *d;
	size_t i;

	(void)state;
	d = parse_one(texts[0], &msg);
	assert_non_null(d);
	assert_int_equal(d->nchildren, 6);
	for (i = 0; i < d->nchildren; i++)
		assert_string_equal(doc_kind_name(d->children[i].value), json_names[i]);
	doc_free(d);
	d = parse_one(texts[1], &msg);
	assert_non_null(d);
	assert_int_equal(d->nchildren, 8);
	for (i = 0; i < d->nchildren; i++)
		assert_string_equal(doc_kind_name(d->children[i].value), yaml_names[i]);
	doc_free(d);
	assert_string_equal(doc_kind_name(NULL), "null");
}

static void decode_read_int64_bounds(void **state)
{
	static const struct {
		const char *text;
		enum err rc;
		int64_t value;
		const char *msg;
	} cases[] = {
		{ "[10]", ERR_OK, 10, NULL },
		{ "[-9223372036854775808]", ERR_OK, INT64_MIN, NULL },
		{ "[9223372036854775807]", ERR_OK, INT64_MAX, NULL },
		{ "[9223372036854775808]", ERR_RANGE, 0,
		  "\"9223372036854775808\": out of range" },
		{ "[-9223372036854775809]", ERR_RANGE, 0,
		  "\"-9223372036854775809\": out of range" },
		{ "[1e2]", ERR_INVALID, 0, "\"1e2\": not an integer" },
		{ "[\"10\"]", ERR_INVALID, 0, "expected an integer, got a string" },
		{ "[[]]", ERR_INVALID, 0, "expected an integer, got an array" },
		{ "- +12\n", ERR_OK, 12, NULL },
		{ "- +\n", ERR_INVALID, 0, "\"+\": not an integer" },
		{ "- 0x10\n", ERR_INVALID, 0, "\"0x10\": not an integer" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };
		struct doc *d = parse_one(cases[i].text, &msg);
		int64_t v = -1;

		assert_non_null(d);
		assert_int_equal(doc_read_int64(d->children[0].value, &v, &msg),
				 cases[i].rc);
		if (cases[i].rc == ERR_OK)
			assert_true(v == cases[i].value);
		else
			assert_string_equal(msg.text, cases[i].msg);
		doc_free(d);
	}
}

static void decode_read_string_kinds(void **state)
{
	struct errmsg msg = { { 0 } };
	struct doc *d = parse_one("[\"s\", 8, false, {}]", &msg);
	const char *s = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(d);
	assert_int_equal(doc_read_string(d->children[0].value, 0, &s, &len, &msg), ERR_OK);
	assert_string_equal(s, "s");
	assert_int_equal(len, 1);
	assert_int_equal(doc_read_string(d->children[1].value, 0, &s, &len, &msg),
			 ERR_INVALID);
	assert_string_equal(msg.text, "expected a string, got a number");
	assert_int_equal(doc_read_string(d->children[1].value, DOC_STR_SCALAR, &s,
					 &len, &msg), ERR_OK);
	assert_string_equal(s, "8");
	assert_int_equal(doc_read_string(d->children[2].value, DOC_STR_SCALAR, &s,
					 NULL, &msg), ERR_OK);
	assert_string_equal(s, "false");
	assert_int_equal(doc_read_string(d->children[3].value, DOC_STR_SCALAR, &s,
					 NULL, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "expected a string, got an object");
	doc_free(d);
}

static void decode_read_file_errors(void **state)
{
	static char dummy[1];
	struct errmsg msg = { { 0 } };
	char *buf = dummy;
	size_t len = 5;

	(void)state;
	assert_int_equal(file_read_all(DATA "nope.yaml", 0, &buf, &len, &msg), ERR_IO);
	assert_string_equal(msg.text, DATA "nope.yaml: cannot open: No such file or directory");
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_int_equal(file_read_all(DATA "dir", 0, &buf, &len, &msg), ERR_IO);
	assert_string_equal(msg.text, DATA "dir: is a directory");
	assert_int_equal(file_read_all(DATA "dir/a.json", 16, &buf, &len, &msg),
			 ERR_TOO_LARGE);
	assert_string_equal(msg.text, DATA "dir/a.json: larger than 16 bytes");
	assert_null(buf);
	assert_int_equal(file_read_all(DATA "dir/notes.txt", 12, &buf, &len, &msg), ERR_OK);
	assert_int_equal(len, 12);
	assert_int_equal(buf[len], '\0');
	assert_memory_equal(buf, "not yaml: [\n", 12);
	free(buf);
	/* Files that report no size (/proc) are read to EOF under the same
	 * ceiling. */
	assert_int_equal(file_read_all("/proc/self/status", 8, &buf, &len, &msg),
			 ERR_TOO_LARGE);
	assert_string_equal(msg.text, "/proc/self/status: larger than 8 bytes");
}

static void decode_path_and_duplicates(void **state)
{
	static const char *const names[] = { "b", "a", "c", "a", "b" };
	char key[300];
	struct doc_path p;
	size_t mark, dup = 99;

	(void)state;
	doc_path_init(&p);
	doc_path_key(&p, "items");
	doc_path_index(&p, 2);
	mark = doc_path_key(&p, "zones");
	doc_path_index(&p, 10);
	assert_string_equal(p.text, "items[2].zones[10]");
	doc_path_pop(&p, mark);
	assert_string_equal(p.text, "items[2]");
	memset(key, 'k', sizeof key - 1);
	key[sizeof key - 1] = '\0';
	mark = doc_path_key(&p, key);
	assert_int_equal(p.len, sizeof p.text - 1);
	assert_int_equal(strlen(p.text), p.len);
	doc_path_pop(&p, mark);
	assert_string_equal(p.text, "items[2]");

	/* "a" repeats at 3 before "b" repeats at 4. */
	assert_true(doc_find_duplicate(names, 5, &dup));
	assert_int_equal(dup, 3);
	assert_false(doc_find_duplicate(names, 3, &dup));
	assert_false(doc_find_duplicate(names, 0, &dup));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_json_nrt_fields),
		cmocka_unit_test(decode_yaml_nrt_example),
		cmocka_unit_test(decode_v1alpha1_policies),
		cmocka_unit_test(decode_legacy_fingerprint_annotation),
		cmocka_unit_test(decode_multi_document_stream_skips_empty),
		cmocka_unit_test(decode_list_items_inherit_api_version),
		cmocka_unit_test(decode_kubectl_list),
		cmocka_unit_test(decode_directory_sorted_and_filtered),
		cmocka_unit_test(decode_directory_without_data_files_is_empty),
		cmocka_unit_test(decode_quantities_json_numbers_and_strings),
		cmocka_unit_test(decode_quantities_yaml_scalars),
		cmocka_unit_test(decode_bad_nrt_files),
		cmocka_unit_test(decode_bad_nrt_buffer_uses_origin),
		cmocka_unit_test(decode_bad_item_stands_alone),
		cmocka_unit_test(decode_fractional_counts_floor),
		cmocka_unit_test(decode_nrt_doc_single_object),
		cmocka_unit_test(decode_empty_stream_yields_nothing),
		cmocka_unit_test(decode_pod_sidecar_admission_order),
		cmocka_unit_test(decode_pod_json_number_quantities),
		cmocka_unit_test(decode_pod_defaults),
		cmocka_unit_test(decode_bad_pod_files),
		cmocka_unit_test(decode_pod_buffer_uses_origin),
		cmocka_unit_test(decode_scenarios),
		cmocka_unit_test(decode_json_number_text_is_exact),
		cmocka_unit_test(decode_json_rejects_duplicates_nul_and_bad_utf8),
		cmocka_unit_test(decode_depth_limit_is_64_in_both_formats),
		cmocka_unit_test(decode_yaml_kinds_and_positions),
		cmocka_unit_test(decode_kind_names),
		cmocka_unit_test(decode_read_int64_bounds),
		cmocka_unit_test(decode_read_string_kinds),
		cmocka_unit_test(decode_read_file_errors),
		cmocka_unit_test(decode_path_and_duplicates),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
