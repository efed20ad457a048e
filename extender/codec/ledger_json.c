/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/ledger_json.h"

#include <json-c/json.h>

#include "base/xalloc.h"
#include "topology/inventory.h"

static char *take_text(struct json_object *o)
{
	char *out = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return out;
}

/* Amounts per zone: {"resource","numa","amount"}, numa "every" for every
 * zone listing the resource; with_text adds the amount as text. */
static struct json_object *amounts_json(const struct ledger_json_amount *a, size_t n,
					bool with_text)
{
	struct json_object *list = json_object_new_array();
	size_t k;

	for (k = 0; k < n; k++) {
		struct json_object *u = json_object_new_object();
		char text[64];

		json_object_object_add(u, "resource", json_object_new_string(a[k].resource));
		json_object_object_add(u, "numa", a[k].numa_id >= 0 ? json_object_new_int(a[k].numa_id)
								 : json_object_new_string("every"));
		json_object_object_add(u, "amount", json_object_new_int64(a[k].amount));
		if (with_text) {
			resource_amount_format(a[k].resource, a[k].amount, text, sizeof text);
			json_object_object_add(u, "text", json_object_new_string(text));
		}
		json_object_array_add(list, u);
	}
	return list;
}

static struct json_object *pod_json(const struct ledger_json_pod *p)
{
	struct json_object *po = json_object_new_object();

	json_object_object_add(po, "namespace", json_object_new_string(p->namespace_));
	json_object_object_add(po, "name", json_object_new_string(p->name));
	json_object_object_add(po, "uid", json_object_new_string(p->uid));
	json_object_object_add(po, "state", json_object_new_string(p->state));
	json_object_object_add(po, "priority", json_object_new_int64(p->priority));
	json_object_object_add(po, "decided", json_object_new_string(p->decided));
	if (p->decided_version)
		json_object_object_add(po, "decidedVersion", json_object_new_string(p->decided_version));
	json_object_object_add(po, "placement", json_object_new_string(p->known ? "known" : "unknown"));
	if (p->known) {
		struct json_object *ids = json_object_new_array();
		int b;

		for (b = 0; b < 64; b++)
			if ((p->numa_ids >> b) & 1)
				json_object_array_add(ids, json_object_new_int(b));
		json_object_object_add(po, "numaNodes", ids);
		json_object_object_add(po, "holds", amounts_json(p->holds, p->nholds, false));
	}
	if (p->taken)
		json_object_object_add(po, "assumedSeconds",
				       json_object_new_double((double)p->assumed_ms_ago / 1000.0));
	json_object_object_add(po, "takes", amounts_json(p->takes, p->ntakes, true));
	return po;
}

char *ledger_json_node(const struct ledger_json_node *n)
{
	struct json_object *o = json_object_new_object(), *pods = json_object_new_array();
	size_t i;

	json_object_object_add(o, "node", json_object_new_string(n->node));
	json_object_object_add(o, "inventory", json_object_new_boolean(n->inventory));
	json_object_object_add(o, "mode", json_object_new_string(n->mode));
	json_object_object_add(o, "nrtFingerprint", json_object_new_string(n->nrt_fingerprint));
	json_object_object_add(o, "nrtFingerprintMethod", json_object_new_string(n->nrt_method));
	json_object_object_add(o, "ledgerFingerprint", json_object_new_string(n->ledger_fingerprint));
	for (i = 0; i < n->npods; i++)
		json_object_array_add(pods, pod_json(&n->pods[i]));
	json_object_object_add(o, "pods", pods);
	return take_text(o);
}

char *ledger_json_summary(const char *mode, const struct ledger_json_row *rows, size_t n)
{
	struct json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	size_t i;

	json_object_object_add(o, "mode", json_object_new_string(mode));
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "node", json_object_new_string(rows[i].node));
		json_object_object_add(e, "pods", json_object_new_int64((int64_t)rows[i].pods));
		json_object_object_add(e, "assumed", json_object_new_int64((int64_t)rows[i].assumed));
		json_object_array_add(nodes, e);
	}
	json_object_object_add(o, "nodes", nodes);
	return take_text(o);
}
