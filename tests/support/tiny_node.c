/* SPDX-License-Identifier: Apache-2.0 */
/* Tiny nodes and pods for the core's table tests (tiny_node.h). */
#include "tests/support/tiny_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/pod_decode.h"
#include "base/xalloc.h"
#include "topology/nrt.h"

static void add_resource(struct nrt_zone *z, const char *name, const int64_t v[2], int64_t unit)
{
	struct nrt_resource *r;

	if (v[0] == 0 && v[1] == 0)
		return; /* not listed */
	z->resources = xreallocarray(z->resources, z->nresources + 1, sizeof *z->resources);
	r = &z->resources[z->nresources++];
	r->name = xstrdup(name);
	r->capacity = r->allocatable = (v[0] == TINY_ZERO ? 0 : v[0]) * unit;
	r->available = (v[1] == TINY_ZERO ? 0 : v[1]) * unit;
}

static void add_attribute(struct nrt_object *o, const char *name, const char *value)
{
	o->attributes = xreallocarray(o->attributes, o->nattributes + 1, sizeof *o->attributes);
	o->attributes[o->nattributes].name = xstrdup(name);
	o->attributes[o->nattributes++].value = xstrdup(value);
}

struct inventory_node *tiny_node(const char *policy, bool pod_scope, const char *attr, int n,
				 const struct tiny_zone *zones, struct errmsg *msg)
{
	struct inventory_node *node = NULL;
	struct nrt_object o;
	int i;

	memset(&o, 0, sizeof o);
	o.name = xstrdup("w");
	add_attribute(&o, "topologyManagerPolicy", policy ? policy : "best-effort");
	add_attribute(&o, "topologyManagerScope", pod_scope ? "pod" : "container");
	if (attr) {
		const char *eq = strchr(attr, '=');
		char *name = xstrndup(attr, eq ? (size_t)(eq - attr) : strlen(attr));

		add_attribute(&o, name, eq ? eq + 1 : "");
		free(name);
	}
	o.nzones = (size_t)n;
	o.zones = xcalloc((size_t)n + 1, sizeof *o.zones);
	for (i = 0; i < n; i++) {
		char zone[24];

		snprintf(zone, sizeof zone, "node-%d", i);
		o.zones[i].name = xstrdup(zone);
		o.zones[i].type = xstrdup("Node");
		add_resource(&o.zones[i], "cpu", zones[i].cpu, 1);
		add_resource(&o.zones[i], "memory", zones[i].mem, TINY_GI);
		add_resource(&o.zones[i], "hugepages-1Gi", zones[i].hp, TINY_GI);
		add_resource(&o.zones[i], TINY_GPU, zones[i].gpu, 1);
	}
	if (inventory_node_new(&o, &node, msg) != ERR_OK)
		node = NULL;
	nrt_object_cleanup(&o);
	return node;
}

struct pod_demand *tiny_pod(const char *spec_inside, struct pod_spec *spec, struct errmsg *msg)
{
	struct pod_demand *d = NULL;
	char text[4096];

	snprintf(text, sizeof text, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {%s}\n",
		 spec_inside);
	if (pod_decode_buffer(text, strlen(text), "pod.yaml", spec, msg) != ERR_OK)
		return NULL;
	if (pod_demand_new(spec, &d, msg) != ERR_OK)
		return NULL;
	return d;
}
