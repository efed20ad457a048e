/* SPDX-License-Identifier: Apache-2.0 */
/* DRA objects back to JSON with json-c (dra_encode.h); one tree per call,
 * freed before returning. */
#include "extender/codec/dra_encode.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "topology/quantity.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *str(const char *s)
{
	return json_object_new_string(s != NULL ? s : "");
}

static char *finish(struct json_object *o)
{
	char *text = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return text;
}

/* apiVersion, kind and metadata (ns NULL: cluster-scoped). */
static struct json_object *head(const char *kind, const char *ns, const char *name, const char *uid)
{
	struct json_object *o = json_object_new_object(), *meta = json_object_new_object();

	add(o, "apiVersion", str("resource.k8s.io/v1"));
	add(o, "kind", str(kind));
	add(meta, "name", str(name));
	if (ns != NULL)
		add(meta, "namespace", str(ns));
	if (uid != NULL)
		add(meta, "uid", str(uid));
	add(o, "metadata", meta);
	return o;
}

static struct json_object *qualified(const char *domain, const char *name)
{
	size_t dl = strlen(domain != NULL ? domain : ""), nl = strlen(name != NULL ? name : "");
	char *full = xmalloc(dl + nl + 2);
	struct json_object *o;

	memcpy(full, domain != NULL ? domain : "", dl);
	full[dl] = '/';
	memcpy(full + dl + 1, name != NULL ? name : "", nl + 1);
	o = json_object_new_string(full);
	free(full);
	return o;
}

/* The same, as a member key of o; a name of the driver's own domain
 * unqualified, as the decoder reads it (a driver name may be one the
 * decoder would not take as a domain). */
static void add_qualified(struct json_object *o, const char *driver, const char *domain,
			  const char *name, struct json_object *v)
{
	struct json_object *key;

	if (driver != NULL && domain != NULL && strcmp(driver, domain) == 0) {
		add(o, name != NULL ? name : "", v);
		return;
	}
	key = qualified(domain, name);
	add(o, json_object_get_string(key), v);
	json_object_put(key);
}

/* A one-element array: what a decoder folds into "non-empty". */
static struct json_object *placeholder(struct json_object *elem)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, elem);
	return a;
}

static const char *const ops[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };

static struct json_object *requirements(const struct sched_requirement *r, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_new_object();

		add(e, "key", str(r[i].key));
		add(e, "operator", str((unsigned)r[i].op < sizeof ops / sizeof *ops ? ops[r[i].op] : ""));
		if (r[i].nvalues > 0) {
			struct json_object *v = json_object_new_array();

			for (k = 0; k < r[i].nvalues; k++)
				json_object_array_add(v, str(r[i].values[k]));
			add(e, "values", v);
		}
		json_object_array_add(a, e);
	}
	return a;
}

/* {"nodeSelectorTerms":[term]}: DRA's one-term node selector. */
static struct json_object *node_selector(const struct sched_term *t)
{
	struct json_object *sel = json_object_new_object(), *term = json_object_new_object();

	if (t->nexprs > 0)
		add(term, "matchExpressions", requirements(t->exprs, t->nexprs));
	if (t->nfields > 0)
		add(term, "matchFields", requirements(t->fields, t->nfields));
	add(sel, "nodeSelectorTerms", placeholder(term));
	return sel;
}

static void add_selection(struct json_object *o, enum dra_node_selection sel, const char *node,
			  const struct sched_term *term)
{
	switch (sel) {
	case DRA_NODE_NAME:
		add(o, "nodeName", str(node));
		break;
	case DRA_NODE_SELECTOR:
		add(o, "nodeSelector", node_selector(term));
		break;
	case DRA_ALL_NODES:
		add(o, "allNodes", json_object_new_boolean(1));
		break;
	case DRA_PER_DEVICE:
		add(o, "perDeviceNodeSelection", json_object_new_boolean(1));
		break;
	}
}

static const char *const type_keys[] = {
	"int", "bool", "string", "version", "ints", "bools", "strings", "versions",
};

static struct json_object *scalar(const struct dra_attribute *a, size_t i)
{
	switch (a->type) {
	case DRA_ATTR_INT:
	case DRA_ATTR_INTS:
		return json_object_new_int64(a->ints[i]);
	case DRA_ATTR_BOOL:
	case DRA_ATTR_BOOLS:
		return json_object_new_boolean(a->bools[i]);
	default:
		return str(a->strings[i]);
	}
}

static struct json_object *attribute(const struct dra_attribute *a)
{
	struct json_object *o = json_object_new_object(), *v;
	size_t i;

	if ((unsigned)a->type >= sizeof type_keys / sizeof *type_keys || a->n == 0)
		return o;
	if (a->type < DRA_ATTR_INTS) {
		v = scalar(a, 0);
	} else {
		v = json_object_new_array();
		for (i = 0; i < a->n; i++)
			json_object_array_add(v, scalar(a, i));
	}
	add(o, type_keys[a->type], v);
	return o;
}

static struct json_object *device(const struct dra_device *d, const char *driver, bool per_device)
{
	struct json_object *o = json_object_new_object();
	char text[QUANTITY_FORMAT_MAX];
	size_t i;

	add(o, "name", str(d->name));
	if (d->nattributes > 0) {
		struct json_object *attrs = json_object_new_object();

		for (i = 0; i < d->nattributes; i++)
			add_qualified(attrs, driver, d->attributes[i].domain, d->attributes[i].name,
				      attribute(&d->attributes[i]));
		add(o, "attributes", attrs);
	}
	if (d->ncapacity > 0) {
		struct json_object *caps = json_object_new_object();

		for (i = 0; i < d->ncapacity; i++) {
			struct json_object *c = json_object_new_object();

			quantity_format(&d->capacity[i].value, text);
			add(c, "value", str(text));
			add_qualified(caps, driver, d->capacity[i].domain, d->capacity[i].name, c);
		}
		add(o, "capacity", caps);
	}
	if (d->consumes_counters)
		add(o, "consumesCounters", placeholder(json_object_new_object()));
	if (d->ntaints > 0) {
		struct json_object *taints = json_object_new_array();

		for (i = 0; i < d->ntaints; i++) {
			struct json_object *t = json_object_new_object();

			add(t, "key", str(d->taints[i].key));
			if (d->taints[i].value != NULL && d->taints[i].value[0] != '\0')
				add(t, "value", str(d->taints[i].value));
			add(t, "effect", str(d->taints[i].effect));
			json_object_array_add(taints, t);
		}
		add(o, "taints", taints);
	}
	if (d->binding_conditions)
		add(o, "bindingConditions", placeholder(str("ready")));
	if (d->allow_multiple_allocations)
		add(o, "allowMultipleAllocations", json_object_new_boolean(1));
	if (per_device)
		add_selection(o, d->selection, d->node_name, &d->node_selector);
	return o;
}

char *dra_slice_to_json(const struct dra_slice *s)
{
	struct json_object *o = head("ResourceSlice", NULL, s->name, NULL);
	struct json_object *spec = json_object_new_object(), *pool = json_object_new_object();
	size_t i;

	add(spec, "driver", str(s->driver));
	add(pool, "name", str(s->pool));
	add(pool, "generation", json_object_new_int64(s->generation));
	add(pool, "resourceSliceCount", json_object_new_int64(s->slice_count));
	add(spec, "pool", pool);
	add_selection(spec, s->selection, s->node_name, &s->node_selector);
	if (s->ndevices > 0) {
		struct json_object *devs = json_object_new_array();

		for (i = 0; i < s->ndevices; i++)
			json_object_array_add(devs, device(&s->devices[i], s->driver, s->selection == DRA_PER_DEVICE));
		add(spec, "devices", devs);
	}
	if (s->shared_counters)
		add(spec, "sharedCounters", placeholder(json_object_new_object()));
	add(o, "spec", spec);
	return finish(o);
}

static struct json_object *selectors(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		struct json_object *sel = json_object_new_object(), *cel = json_object_new_object();

		add(cel, "expression", str(v[i]));
		add(sel, "cel", cel);
		json_object_array_add(a, sel);
	}
	return a;
}

char *dra_class_to_json(const struct dra_class *c)
{
	struct json_object *o = head("DeviceClass", NULL, c->name, NULL);
	struct json_object *spec = json_object_new_object();

	if (c->nselectors > 0)
		add(spec, "selectors", selectors(c->selectors, c->nselectors));
	if (c->extended_resource_name != NULL)
		add(spec, "extendedResourceName", str(c->extended_resource_name));
	add(o, "spec", spec);
	return finish(o);
}

/* exactly{...} (exactly true) or one firstAvailable alternative into o. */
static void request_spec(struct json_object *o, const struct dra_request_spec *r, bool exactly)
{
	add(o, "deviceClassName", str(r->class_name));
	if (r->nselectors > 0)
		add(o, "selectors", selectors(r->selectors, r->nselectors));
	if (r->mode == DRA_ALL) {
		add(o, "allocationMode", str("All"));
	} else {
		add(o, "allocationMode", str("ExactCount"));
		add(o, "count", json_object_new_int64(r->count));
	}
	if (exactly && r->admin_access)
		add(o, "adminAccess", json_object_new_boolean(1));
	if (r->tolerations) {
		struct json_object *t = json_object_new_object();

		add(t, "operator", str("Exists"));
		add(o, "tolerations", placeholder(t));
	}
	if (r->capacity_requests) {
		struct json_object *cap = json_object_new_object(), *req = json_object_new_object();

		add(req, "memory", str("1"));
		add(cap, "requests", req);
		add(o, "capacity", cap);
	}
}

static struct json_object *claim_spec(const struct dra_claim *c)
{
	struct json_object *spec = json_object_new_object(), *devices = json_object_new_object();
	struct json_object *reqs = json_object_new_array();
	size_t i, k;

	for (i = 0; i < c->nrequests; i++) {
		const struct dra_request *r = &c->requests[i];
		struct json_object *e = json_object_new_object();

		add(e, "name", str(r->name));
		if (r->subnames == NULL && r->nspecs > 0) {
			struct json_object *ex = json_object_new_object();

			request_spec(ex, &r->specs[0], true);
			add(e, "exactly", ex);
		} else {
			struct json_object *alts = json_object_new_array();

			for (k = 0; k < r->nspecs; k++) {
				struct json_object *alt = json_object_new_object();

				add(alt, "name", str(r->subnames[k]));
				request_spec(alt, &r->specs[k], false);
				json_object_array_add(alts, alt);
			}
			add(e, "firstAvailable", alts);
		}
		json_object_array_add(reqs, e);
	}
	add(devices, "requests", reqs);
	if (c->nconstraints > 0) {
		struct json_object *cons = json_object_new_array();

		for (i = 0; i < c->nconstraints; i++) {
			const struct dra_constraint *k2 = &c->constraints[i];
			struct json_object *e = json_object_new_object();

			if (k2->nrequests > 0) {
				struct json_object *names = json_object_new_array();

				for (k = 0; k < k2->nrequests; k++)
					json_object_array_add(names, str(k2->requests[k]));
				add(e, "requests", names);
			}
			add(e, k2->kind == DRA_MATCH_ATTRIBUTE ? "matchAttribute" : "distinctAttribute",
			    qualified(k2->domain, k2->name));
			json_object_array_add(cons, e);
		}
		add(devices, "constraints", cons);
	}
	add(spec, "devices", devices);
	return spec;
}

static struct json_object *allocation(const struct dra_claim *c)
{
	struct json_object *alloc = json_object_new_object();
	size_t i;

	if (c->nresults > 0) {
		struct json_object *devices = json_object_new_object(), *results = json_object_new_array();

		for (i = 0; i < c->nresults; i++) {
			const struct dra_result *r = &c->results[i];
			struct json_object *e = json_object_new_object();

			add(e, "request", str(r->request));
			add(e, "driver", str(r->driver));
			add(e, "pool", str(r->pool));
			add(e, "device", str(r->device));
			if (r->admin_access)
				add(e, "adminAccess", json_object_new_boolean(1));
			if (r->share_id != NULL)
				add(e, "shareID", str(r->share_id));
			json_object_array_add(results, e);
		}
		add(devices, "results", results);
		add(alloc, "devices", devices);
	}
	if (c->allocated_node != NULL) {
		char key[] = "metadata.name";
		struct sched_requirement req;
		struct sched_term term;
		char *values[1];

		/* What the scheduler writes for node-local devices. */
		values[0] = c->allocated_node;
		memset(&req, 0, sizeof req);
		req.key = key;
		req.op = SCHED_OP_IN;
		req.values = values;
		req.nvalues = 1;
		memset(&term, 0, sizeof term);
		term.fields = &req;
		term.nfields = 1;
		add(alloc, "nodeSelector", node_selector(&term));
	}
	return alloc;
}

char *dra_claim_to_json(const struct dra_claim *c)
{
	struct json_object *o;

	if (c->from_template) {
		struct json_object *spec = json_object_new_object();

		o = head("ResourceClaimTemplate", c->namespace_, c->name, c->uid);
		add(spec, "spec", claim_spec(c));
		add(o, "spec", spec);
		return finish(o);
	}
	o = head("ResourceClaim", c->namespace_, c->name, c->uid);
	add(o, "spec", claim_spec(c));
	if (c->allocated) {
		struct json_object *status = json_object_new_object();

		add(status, "allocation", allocation(c));
		add(o, "status", status);
	}
	return finish(o);
}

char *dra_pod_claims_to_json(const struct dra_pod_claims *pc)
{
	struct json_object *o = json_object_new_object(), *spec = json_object_new_object();
	struct json_object *claims = json_object_new_array(), *containers = json_object_new_array();
	struct json_object *statuses = json_object_new_array();
	size_t i, k;

	for (i = 0; i < pc->nclaims; i++) {
		const struct dra_pod_claim *c = &pc->claims[i];
		struct json_object *e = json_object_new_object();

		add(e, "name", str(c->name));
		if (c->template_name != NULL) {
			add(e, "resourceClaimTemplateName", str(c->template_name));
			if (c->claim_name != NULL) {
				struct json_object *st = json_object_new_object();

				add(st, "name", str(c->name));
				add(st, "resourceClaimName", str(c->claim_name));
				json_object_array_add(statuses, st);
			}
		} else {
			add(e, "resourceClaimName", str(c->claim_name));
		}
		json_object_array_add(claims, e);
	}
	for (i = 0; i < pc->ncontainers; i++) {
		const struct dra_container_claims *cc = &pc->containers[i];
		struct json_object *e = json_object_new_object();

		add(e, "name", str(cc->container));
		if (cc->nclaims > 0) {
			struct json_object *res = json_object_new_object(), *refs = json_object_new_array();

			for (k = 0; k < cc->nclaims; k++) {
				struct json_object *r = json_object_new_object();

				add(r, "name", str(cc->claims[k].claim));
				if (cc->claims[k].request != NULL)
					add(r, "request", str(cc->claims[k].request));
				json_object_array_add(refs, r);
			}
			add(res, "claims", refs);
			add(e, "resources", res);
		}
		json_object_array_add(containers, e);
	}
	add(spec, "resourceClaims", claims);
	add(spec, "containers", containers);
	add(o, "spec", spec);
	if (json_object_array_length(statuses) > 0) {
		struct json_object *status = json_object_new_object();

		add(status, "resourceClaimStatuses", statuses);
		add(o, "status", status);
	} else {
		json_object_put(statuses);
	}
	return finish(o);
}
