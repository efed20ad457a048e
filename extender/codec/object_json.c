/* SPDX-License-Identifier: Apache-2.0 */
/* Decoded objects back to JSON with json-c; one json-c tree per call, freed
 * before returning (trees never leave the calling thread). */
#include "extender/codec/object_json.h"

#include <json-c/json.h>
#include <string.h>

#include "base/xalloc.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static char *finish(struct json_object *o)
{
	char *text = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return text;
}

char *nrt_object_to_json(const struct nrt_object *obj)
{
	struct json_object *o = json_object_new_object(), *meta = json_object_new_object();
	struct json_object *zones = json_object_new_array();
	size_t i, j;

	add(o, "apiVersion", json_object_new_string(obj->api_version ? obj->api_version
								 : "topology.node.k8s.io/v1alpha2"));
	add(o, "kind", json_object_new_string("NodeResourceTopology"));
	add(meta, "name", json_object_new_string(obj->name ? obj->name : ""));
	if (obj->resource_version)
		add(meta, "resourceVersion", json_object_new_string(obj->resource_version));
	add(o, "metadata", meta);
	if (obj->npolicies) {
		struct json_object *p = json_object_new_array();

		for (i = 0; i < obj->npolicies; i++)
			json_object_array_add(p, json_object_new_string(obj->policies[i]));
		add(o, "topologyPolicies", p);
	}
	if (obj->nattributes) {
		struct json_object *a = json_object_new_array();

		for (i = 0; i < obj->nattributes; i++) {
			struct json_object *e = json_object_new_object();

			add(e, "name", json_object_new_string(obj->attributes[i].name));
			add(e, "value", json_object_new_string(obj->attributes[i].value ? obj->attributes[i].value : ""));
			json_object_array_add(a, e);
		}
		add(o, "attributes", a);
	}
	for (i = 0; i < obj->nzones; i++) {
		const struct nrt_zone *z = &obj->zones[i];
		struct json_object *zo = json_object_new_object();
		struct json_object *res = json_object_new_array(), *costs = json_object_new_array();

		add(zo, "name", json_object_new_string(z->name ? z->name : ""));
		add(zo, "type", json_object_new_string(z->type ? z->type : ""));
		for (j = 0; j < z->ncosts; j++) {
			struct json_object *c = json_object_new_object();

			add(c, "name", json_object_new_string(z->costs[j].name));
			add(c, "value", json_object_new_int64(z->costs[j].value));
			json_object_array_add(costs, c);
		}
		for (j = 0; j < z->nresources; j++) {
			struct json_object *r = json_object_new_object();

			/* Whole numbers: the decoder reads them back exactly. */
			add(r, "name", json_object_new_string(z->resources[j].name));
			add(r, "capacity", json_object_new_int64(z->resources[j].capacity));
			add(r, "allocatable", json_object_new_int64(z->resources[j].allocatable));
			add(r, "available", json_object_new_int64(z->resources[j].available));
			json_object_array_add(res, r);
		}
		add(zo, "costs", costs);
		add(zo, "resources", res);
		json_object_array_add(zones, zo);
	}
	add(o, "zones", zones);
	return finish(o);
}

static struct json_object *quantities(const struct pod_quantity *q, size_t n)
{
	struct json_object *o = json_object_new_object();
	char text[QUANTITY_FORMAT_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		quantity_format(&q[i].q, text);
		add(o, q[i].name, json_object_new_string(text));
	}
	return o;
}

char *pod_spec_to_json(const struct pod_spec *p)
{
	struct json_object *o = json_object_new_object(), *meta = json_object_new_object();
	struct json_object *spec = json_object_new_object();
	struct json_object *inits = json_object_new_array(), *apps = json_object_new_array();
	size_t i;

	add(meta, "name", json_object_new_string(p->name ? p->name : ""));
	add(meta, "namespace", json_object_new_string(p->namespace_ ? p->namespace_ : "default"));
	if (p->uid)
		add(meta, "uid", json_object_new_string(p->uid));
	add(o, "metadata", meta);
	for (i = 0; i < p->ncontainers; i++) {
		const struct pod_container *c = &p->containers[i];
		struct json_object *co = json_object_new_object(), *res = json_object_new_object();

		add(co, "name", json_object_new_string(c->name));
		if (c->kind == CONTAINER_SIDECAR)
			add(co, "restartPolicy", json_object_new_string("Always"));
		if (c->nrequests)
			add(res, "requests", quantities(c->requests, c->nrequests));
		if (c->nlimits)
			add(res, "limits", quantities(c->limits, c->nlimits));
		add(co, "resources", res);
		json_object_array_add(c->kind == CONTAINER_APP ? apps : inits, co);
	}
	if (json_object_array_length(inits))
		add(spec, "initContainers", inits);
	else
		json_object_put(inits);
	add(spec, "containers", apps);
	add(o, "spec", spec);
	if (p->has_status_qos) {
		struct json_object *st = json_object_new_object();

		add(st, "qosClass", json_object_new_string(qos_class_name(p->status_qos)));
		add(o, "status", st);
	}
	return finish(o);
}
