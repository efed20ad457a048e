/* SPDX-License-Identifier: Apache-2.0 */
/* Verdict -> json-c object. */
#include "extender/codec/verdict_json.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW |
						     JSON_C_OBJECT_ADD_CONSTANT_KEY);
}

struct json_object *verdict_to_json(const char *node, const struct verdict *v)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cs = json_object_new_array_ext((int)v->ncontainers);
	size_t i;

	add(o, "node", json_object_new_string(node));
	add(o, "admit", json_object_new_boolean(v->admit));
	add(o, "reason", json_object_new_string(verdict_reason_name(v->reason)));
	add(o, "message", json_object_new_string(v->message));
	add(o, "unresolvable", json_object_new_boolean(v->unresolvable));
	add(o, "policy", json_object_new_string(tm_policy_name(v->policy)));
	add(o, "scope", json_object_new_string(tm_scope_name(v->scope)));
	for (i = 0; i < v->ncontainers; i++) {
		const struct verdict_container *c = &v->containers[i];
		struct json_object *co = json_object_new_object();
		struct json_object *ids = json_object_new_array();
		bitmask_t m = c->has_affinity ? c->numa_ids : 0;

		while (m) {
			json_object_array_add(ids, json_object_new_int(bitmask_lowest(m)));
			m &= m - 1;
		}
		add(co, "name", json_object_new_string(c->name));
		add(co, "numaNodes", ids);
		add(co, "preferred", json_object_new_boolean(c->preferred));
		json_object_array_add(cs, co);
	}
	add(o, "containers", cs);
	return o;
}
