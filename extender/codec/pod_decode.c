/* SPDX-License-Identifier: Apache-2.0 */
/* Pod decoding: document tree -> struct pod_spec. Owns the admission order of
 * containers and the checks on restartPolicy, names and quantities; leaves
 * every defaulting rule to topology/. */
#include "extender/codec/pod_decode.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/decode_walk.h"
#include "extender/file_read.h"
#include "base/xalloc.h"
#include "topology/names.h"
#include "topology/quantity.h"

/* A request or limit: not negative, and small enough that the kubelet's
 * integer views of it exist (Value(), and MilliValue() for cpu, in int64):
 * an absurdly large one is refused here with the field named rather than
 * left to overflow later. */
static enum err decode_quantity(struct decode_ctx *c, const struct doc *d,
				const char *name, struct quantity *q)
{
	char quoted[DOC_QUOTE_CAP];
	int64_t v;
	enum err rc;

	if (d->kind != DOC_STRING && d->kind != DOC_PLAIN &&
	    d->kind != DOC_NUMBER)
		return decode_fail(c, ERR_INVALID, "expected a quantity, got %s",
				   doc_kind_name(d));
	rc = quantity_parse(d->text, d->len, q, c->msg);
	if (rc != ERR_OK)
		return decode_fail_prefixed(c, rc);
	if (quantity_sign(q) < 0) {
		doc_quote(quoted, sizeof quoted, d->text, d->len);
		return decode_fail(c, ERR_INVALID, "%s: must not be negative", quoted);
	}
	if (quantity_scaled(q, 0, &v) != ERR_OK ||
	    (strcmp(name, "cpu") == 0 && quantity_scaled(q, -3, &v) != ERR_OK)) {
		doc_quote(quoted, sizeof quoted, d->text, d->len);
		return decode_fail(c, ERR_RANGE, "%s: out of range (more than 2^63-1%s)", quoted,
				   strcmp(name, "cpu") == 0 ? " millicores" : "");
	}
	return ERR_OK;
}

/* resources.requests or resources.limits: a map of resource name to
 * quantity, kept in source order. */
static enum err decode_quantities(struct decode_ctx *c, const struct doc *res,
				  const char *key, struct pod_quantity **list,
				  size_t *n)
{
	size_t mark = doc_path_key(&c->path, key);
	const struct doc *map;
	char why[160];
	size_t i;
	enum err rc;

	rc = decode_field(c, res, key, DOC_OBJECT, 0, &map);
	if (rc != ERR_OK || map == NULL)
		goto out;
	*list = xcalloc(map->nchildren, sizeof **list);
	*n = map->nchildren;
	for (i = 0; i < map->nchildren; i++) {
		const struct doc_child *ch = &map->children[i];
		size_t m;

		if (ch->key[0] == '\0') {
			rc = decode_fail(c, ERR_INVALID, "empty resource name");
			goto out;
		}
		m = doc_path_key(&c->path, ch->key);
		(*list)[i].name = xstrdup(ch->key);
		if (!name_is_resource(ch->key, strlen(ch->key), why, sizeof why)) {
			char quoted[DOC_QUOTE_CAP];

			doc_quote(quoted, sizeof quoted, ch->key, strlen(ch->key));
			rc = decode_fail(c, ERR_INVALID, "%s: not a valid resource name: %s", quoted, why);
			goto out;
		}
		rc = decode_quantity(c, ch->value, ch->key, &(*list)[i].q);
		if (rc != ERR_OK)
			goto out;
		doc_path_pop(&c->path, m);
	}
out:
	doc_path_pop(&c->path, mark);
	return rc;
}

/* One element of spec.initContainers (arg points to true) or
 * spec.containers. */
static enum err decode_container(struct decode_ctx *c, const struct doc *d,
				 void *container, void *arg)
{
	struct pod_container *out = container;
	bool init = *(const bool *)arg;
	const struct doc *res;
	const char *policy;
	size_t mark;
	enum err rc;

	rc = decode_named(c, d, &out->name);
	if (rc != ERR_OK)
		return rc;

	rc = decode_text(c, d, "restartPolicy", 0, &policy);
	out->kind = init ? CONTAINER_INIT : CONTAINER_APP;
	mark = doc_path_key(&c->path, "restartPolicy");
	if (rc == ERR_OK && policy != NULL) {
		char quoted[DOC_QUOTE_CAP];

		doc_quote(quoted, sizeof quoted, policy, strlen(policy));
		/* Only restartable init containers (sidecars, KEP-753) may
		 * set it; they run beside the app containers, which is why
		 * the kind matters to the Topology Manager. */
		if (!init)
			rc = decode_fail(c, ERR_INVALID,
					 "%s: not allowed on an app container", quoted);
		else if (strcmp(policy, "Always") != 0)
			rc = decode_fail(c, ERR_INVALID, "%s: expected Always", quoted);
		else
			out->kind = CONTAINER_SIDECAR;
	}
	doc_path_pop(&c->path, mark);
	if (rc != ERR_OK)
		return rc;

	mark = doc_path_key(&c->path, "resources");
	rc = decode_field(c, d, "resources", DOC_OBJECT, 0, &res);
	if (rc == ERR_OK && res != NULL)
		rc = decode_quantities(c, res, "requests", &out->requests,
				       &out->nrequests);
	if (rc == ERR_OK && res != NULL)
		rc = decode_quantities(c, res, "limits", &out->limits,
				       &out->nlimits);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* Appends spec.<key> to out->containers: initContainers may be absent,
 * containers must list one at least. */
static enum err decode_containers(struct decode_ctx *c, const struct doc *spec,
				  const char *key, bool init,
				  struct pod_spec *out)
{
	void *v = out->containers;
	enum err rc;

	rc = decode_array(c, spec, key,
			  init ? 0 : DECODE_REQUIRED | DECODE_NONEMPTY,
			  sizeof *out->containers, &v, &out->ncontainers,
			  decode_container, &init);
	out->containers = v;
	return rc;
}

/* Container names are unique across init and app containers in a pod. */
static enum err check_names(struct decode_ctx *c, const struct pod_spec *pod,
			    size_t ninit)
{
	char quoted[DOC_QUOTE_CAP];
	const char **names;
	size_t i, dup;
	enum err rc = ERR_OK;

	names = xcalloc(pod->ncontainers, sizeof *names);
	for (i = 0; i < pod->ncontainers; i++)
		names[i] = pod->containers[i].name;
	if (doc_find_duplicate(names, pod->ncontainers, &dup)) {
		doc_path_key(&c->path, "spec");
		if (dup < ninit) {
			doc_path_key(&c->path, "initContainers");
			doc_path_index(&c->path, dup);
		} else {
			doc_path_key(&c->path, "containers");
			doc_path_index(&c->path, dup - ninit);
		}
		doc_path_key(&c->path, "name");
		doc_quote(quoted, sizeof quoted, names[dup], strlen(names[dup]));
		rc = decode_fail(c, ERR_INVALID, "duplicate container name %s", quoted);
	}
	free(names);
	return rc;
}

static enum err decode_status(struct decode_ctx *c, const struct doc *pod,
			      struct pod_spec *out)
{
	static const char *const names[] = { "Guaranteed", "Burstable", "BestEffort" };
	static const enum qos_class classes[] = { QOS_GUARANTEED, QOS_BURSTABLE, QOS_BEST_EFFORT };
	size_t mark = doc_path_key(&c->path, "status");
	const struct doc *status;
	size_t i = SIZE_MAX;
	enum err rc;

	rc = decode_field(c, pod, "status", DOC_OBJECT, 0, &status);
	if (rc == ERR_OK && status != NULL)
		rc = decode_choice(c, status, "qosClass", 0, names, sizeof names / sizeof names[0], &i);
	if (rc == ERR_OK && i != SIZE_MAX) {
		out->has_status_qos = true;
		out->status_qos = classes[i];
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_pod(struct decode_ctx *c, const struct doc *d,
			   struct pod_spec *out)
{
	const struct doc *md, *spec;
	size_t mark, ninit;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc != ERR_OK)
		return rc;

	rc = decode_kind(c, d, "Pod", false);
	if (rc != ERR_OK)
		return rc;

	mark = doc_path_key(&c->path, "metadata");
	rc = decode_field(c, d, "metadata", DOC_OBJECT, DECODE_REQUIRED, &md);
	if (rc == ERR_OK)
		rc = decode_string(c, md, "name", DECODE_REQUIRED | DECODE_NONEMPTY, &out->name);
	if (rc == ERR_OK)
		rc = decode_string(c, md, "namespace", 0, &out->namespace_);
	if (rc == ERR_OK)
		rc = decode_string(c, md, "uid", 0, &out->uid);
	doc_path_pop(&c->path, mark);
	if (rc != ERR_OK)
		return rc;
	/* An empty namespace means the default one, as in the API server. */
	if (out->namespace_ == NULL || out->namespace_[0] == '\0') {
		free(out->namespace_);
		out->namespace_ = xstrdup("default");
	}

	mark = doc_path_key(&c->path, "spec");
	rc = decode_field(c, d, "spec", DOC_OBJECT, DECODE_REQUIRED, &spec);
	if (rc == ERR_OK)
		rc = decode_containers(c, spec, "initContainers", true, out);
	ninit = out->ncontainers;
	if (rc == ERR_OK)
		rc = decode_containers(c, spec, "containers", false, out);
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK)
		rc = check_names(c, out, ninit);
	if (rc == ERR_OK)
		rc = decode_status(c, d, out);
	return rc;
}

enum err pod_decode_doc(const struct doc *d, const char *origin,
			struct pod_spec *out, struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = decode_pod(&c, d, out);
	if (rc != ERR_OK)
		pod_spec_cleanup(out);
	return rc;
}

enum err pod_decode_buffer(const char *buf, size_t len, const char *origin,
			   struct pod_spec *out, struct errmsg *msg)
{
	const struct doc *one = NULL;
	struct doc **docs = NULL;
	size_t ndocs = 0, i, n = 0;
	enum err rc;

	memset(out, 0, sizeof *out);
	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc != ERR_OK)
		return rc;
	/* A stray "---" before or after the pod is harmless. */
	for (i = 0; i < ndocs; i++) {
		if (!doc_is_null(docs[i])) {
			one = docs[i];
			n++;
		}
	}
	if (n == 0) {
		errmsg_set(msg, "%s: no document", origin);
		rc = ERR_INVALID;
	} else if (n > 1) {
		errmsg_set(msg, "%s: expected one document, got %zu", origin, n);
		rc = ERR_INVALID;
	} else {
		rc = pod_decode_doc(one, origin, out, msg);
	}
	doc_free_all(docs, ndocs);
	return rc;
}

static enum err pod_text(const char *buf, size_t len, const char *origin, void *out,
			 struct errmsg *msg)
{
	return pod_decode_buffer(buf, len, origin, out, msg);
}

enum err pod_load_file(const char *path, struct pod_spec *out,
		       struct errmsg *msg)
{
	memset(out, 0, sizeof *out);
	return file_read_with(path, FILE_READ_DOC_MAX_BYTES, pod_text, out, msg);
}

/* Only what pod_decode_doc and dra_pod_claims_decode read
 * (dra_pod_claim_fields: containers' resources are kept whole), in the
 * same places: a pod from kube-scheduler carries managedFields, volumes,
 * env and probes that would otherwise be converted on every request for
 * nothing. */
static const struct doc_keep container_fields[] = {
	{ "name", NULL, NULL },
	{ "resources", NULL, NULL },
	{ "restartPolicy", NULL, NULL },
	{ NULL, NULL, NULL },
};
static const struct doc_keep metadata_fields[] = {
	{ "name", NULL, NULL },
	{ "namespace", NULL, NULL },
	{ "uid", NULL, NULL },
	{ NULL, NULL, NULL },
};
static const struct doc_keep spec_fields[] = {
	{ "initContainers", NULL, container_fields },
	{ "containers", NULL, container_fields },
	{ "resourceClaims", NULL, NULL },
	{ NULL, NULL, NULL },
};
static const struct doc_keep status_fields[] = {
	{ "qosClass", NULL, NULL },
	{ "resourceClaimStatuses", NULL, NULL },
	{ NULL, NULL, NULL },
};
const struct doc_keep pod_fields[] = {
	{ "kind", NULL, NULL },
	{ "metadata", metadata_fields, NULL },
	{ "spec", spec_fields, NULL },
	{ "status", status_fields, NULL },
	{ NULL, NULL, NULL },
};

enum err pod_decode_json(struct json_object *o, const char *origin, struct pod_spec *out,
			 struct errmsg *msg)
{
	struct doc *d = NULL;
	enum err rc;

	rc = doc_from_json_kept(o, pod_fields, &d, msg);
	if (rc != ERR_OK) {
		memset(out, 0, sizeof *out);
		errmsg_prefix(msg, "%s: ", origin);
		return ERR_INVALID;
	}
	rc = pod_decode_doc(d, origin, out, msg);
	doc_free(d);
	return rc;
}
