/* SPDX-License-Identifier: Apache-2.0 */
/* ResourceClaim and ResourceClaimTemplate decoding: the requests (exactly
 * one of `exactly` or `firstAvailable`, with the API server's defaults:
 * allocationMode ExactCount, count 1), the constraints between them, and
 * status.allocation: the devices and the node the allocation is bound to. */
#include "extender/codec/dra_decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/dra_fields.h"
#include "extender/codec/sched_fields.h"

static const char *const modes[] = { "ExactCount", "All" };
static const char *const request_kinds[] = { "exactly", "firstAvailable" };
static const char *const constraint_kinds[] = { "matchAttribute", "distinctAttribute" };

/* The count the mode needs: ExactCount defaults to 1 and must be positive;
 * All takes every matching device and must not have one. */
static enum err decode_count(struct decode_ctx *c, const struct doc *d, struct dra_request_spec *r)
{
	bool present = false;
	enum err rc = sf_int(c, d, "count", INT64_MIN, INT64_MAX, &r->count, &present);

	if (rc != ERR_OK)
		return rc;
	if (r->mode == DRA_ALL && present && r->count != 0)
		return decode_fail_at(c, "count", ERR_INVALID,
				      "must not be specified when allocationMode is All");
	if (r->mode == DRA_EXACT_COUNT && !present)
		r->count = 1;
	else if (r->mode == DRA_EXACT_COUNT && r->count <= 0)
		return decode_fail_at(c, "count", ERR_INVALID, "%lld: must be greater than zero",
				      (long long)r->count);
	return ERR_OK;
}

/* exactly{...} (exactly true) or one firstAvailable alternative. */
static enum err decode_spec_of(struct decode_ctx *c, const struct doc *d, bool exactly,
			       struct dra_request_spec *r)
{
	const struct doc *cap = NULL;
	size_t mode = 0, mark;
	enum err rc;

	rc = dra_read_name(c, d, "deviceClassName", DECODE_REQUIRED | DECODE_NONEMPTY,
			   DRA_NAME_SUBDOMAIN, &r->class_name);
	if (rc == ERR_OK)
		rc = dra_read_selectors(c, d, &r->selectors, &r->nselectors);
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "allocationMode", 0, modes, 2, &mode);
	r->mode = mode == 1 ? DRA_ALL : DRA_EXACT_COUNT;
	if (rc == ERR_OK)
		rc = decode_count(c, d, r);
	if (rc == ERR_OK && exactly)
		rc = sf_bool(c, d, "adminAccess", &r->admin_access);
	if (rc == ERR_OK)
		rc = dra_read_nonempty(c, d, "tolerations", DOC_ARRAY, &r->tolerations);
	mark = doc_path_key(&c->path, "capacity");
	if (rc == ERR_OK)
		rc = decode_field(c, d, "capacity", DOC_OBJECT, 0, &cap);
	if (rc == ERR_OK && cap != NULL)
		rc = dra_read_nonempty(c, cap, "requests", DOC_OBJECT, &r->capacity_requests);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* Names are unique among the elements of an array at obj.key; names[i]
 * is element i's. */
static enum err check_unique(struct decode_ctx *c, const char *key, char *const *names, size_t n,
			     const char *what)
{
	char quoted[DOC_QUOTE_CAP];
	size_t dup, m, k;
	enum err rc;

	if (!doc_find_duplicate((const char *const *)names, n, &dup))
		return ERR_OK;
	m = doc_path_key(&c->path, key);
	k = doc_path_index(&c->path, dup);
	doc_quote(quoted, sizeof quoted, names[dup], strlen(names[dup]));
	rc = decode_fail_at(c, "name", ERR_INVALID, "duplicate %s name %s", what, quoted);
	doc_path_pop(&c->path, k);
	doc_path_pop(&c->path, m);
	return rc;
}

static enum err decode_alternatives(struct decode_ctx *c, const struct doc *d, struct dra_request *r)
{
	size_t mark = doc_path_key(&c->path, "firstAvailable"), i;
	const struct doc *arr = doc_lookup(d, "firstAvailable");
	enum err rc = ERR_OK;

	if (arr->nchildren > DRA_MAX_SUBREQUESTS)
		rc = decode_fail(c, ERR_TOO_LARGE, "%zu entries: more than the API server's %d",
				 arr->nchildren, DRA_MAX_SUBREQUESTS);
	if (rc == ERR_OK) {
		r->specs = xcalloc(arr->nchildren, sizeof *r->specs);
		r->subnames = xcalloc(arr->nchildren, sizeof *r->subnames);
		r->nspecs = arr->nchildren;
	}
	for (i = 0; rc == ERR_OK && i < arr->nchildren; i++) {
		size_t m = doc_path_index(&c->path, i);
		const struct doc *alt = arr->children[i].value;

		rc = decode_named(c, alt, &r->subnames[i]);
		if (rc == ERR_OK)
			rc = dra_check_name(c, "name", r->subnames[i], DRA_NAME_LABEL);
		if (rc == ERR_OK)
			rc = decode_spec_of(c, alt, false, &r->specs[i]);
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK)
		rc = check_unique(c, "firstAvailable", r->subnames, r->nspecs, "subrequest");
	return rc;
}

static enum err decode_request(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	struct dra_request *r = elem;
	const struct doc *ex;
	size_t which, mark;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &r->name);
	if (rc == ERR_OK)
		rc = dra_check_name(c, "name", r->name, DRA_NAME_LABEL);
	if (rc != ERR_OK)
		return rc;
	rc = dra_one_of(c, d, request_kinds, 2, DRA_ONE_REQUIRED, &which);
	/* v1beta1 wrote exactly's fields on the request itself. */
	if (rc != ERR_OK && which == SIZE_MAX && doc_lookup(d, "deviceClassName") != NULL)
		return decode_fail(c, ERR_INVALID,
				   "exactly one of exactly or firstAvailable is required (deviceClassName "
				   "on the request is the v1beta1 shape: resource.k8s.io/v1 puts it under "
				   "exactly)");
	if (rc != ERR_OK)
		return rc;
	if (which == 1)
		return decode_alternatives(c, d, r);
	mark = doc_path_key(&c->path, "exactly");
	rc = decode_field(c, d, "exactly", DOC_OBJECT, DECODE_REQUIRED, &ex);
	r->specs = xcalloc(1, sizeof *r->specs);
	r->nspecs = 1;
	if (rc == ERR_OK)
		rc = decode_spec_of(c, ex, true, &r->specs[0]);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* "req" or "req/sub" names a request (or an alternative) of the claim. */
static bool names_request(const struct dra_claim *claim, const char *ref)
{
	const char *slash = strchr(ref, '/');
	size_t len = slash ? (size_t)(slash - ref) : strlen(ref), i, k;

	for (i = 0; i < claim->nrequests; i++) {
		const struct dra_request *r = &claim->requests[i];

		if (strlen(r->name) != len || strncmp(r->name, ref, len) != 0)
			continue;
		if (slash == NULL)
			return true;
		for (k = 0; r->subnames && k < r->nspecs; k++)
			if (strcmp(r->subnames[k], slash + 1) == 0)
				return true;
	}
	return false;
}

static enum err check_reference(struct decode_ctx *c, const struct dra_claim *claim,
				const char *ref)
{
	char quoted[DOC_QUOTE_CAP];

	if (names_request(claim, ref))
		return ERR_OK;
	doc_quote(quoted, sizeof quoted, ref, strlen(ref));
	return decode_fail(c, ERR_INVALID, "%s: no such request in spec.devices.requests", quoted);
}

static enum err decode_constraint(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	const struct dra_claim *claim = arg;
	struct dra_constraint *k = elem;
	const char *attr;
	size_t which, i, mark;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = dra_check_length(c, d, "requests", DRA_MAX_REQUESTS);
	if (rc == ERR_OK)
		rc = sf_strings(c, d, "requests", &k->requests, &k->nrequests);
	mark = doc_path_key(&c->path, "requests");
	for (i = 0; rc == ERR_OK && i < k->nrequests; i++) {
		size_t m = doc_path_index(&c->path, i);

		rc = check_reference(c, claim, k->requests[i]);
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK)
		rc = dra_one_of(c, d, constraint_kinds, 2, DRA_ONE_REQUIRED, &which);
	if (rc != ERR_OK)
		return rc;
	k->kind = which == 0 ? DRA_MATCH_ATTRIBUTE : DRA_DISTINCT_ATTRIBUTE;
	rc = decode_text(c, d, constraint_kinds[which], DECODE_NONEMPTY, &attr);
	mark = doc_path_key(&c->path, constraint_kinds[which]);
	if (rc == ERR_OK)
		rc = dra_qualified_name(c, attr, NULL, &k->domain, &k->name);
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_result(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	const struct dra_claim *claim = arg;
	struct dra_result *r = elem;
	size_t mark;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "request", DECODE_REQUIRED | DECODE_NONEMPTY, &r->request);
	mark = doc_path_key(&c->path, "request");
	if (rc == ERR_OK && !claim->from_template)
		rc = check_reference(c, claim, r->request);
	doc_path_pop(&c->path, mark);
	if (rc == ERR_OK)
		rc = dra_read_name(c, d, "driver", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_DRIVER,
				   &r->driver);
	if (rc == ERR_OK)
		rc = dra_read_name(c, d, "pool", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_POOL, &r->pool);
	if (rc == ERR_OK)
		rc = dra_read_name(c, d, "device", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_LABEL,
				   &r->device);
	if (rc == ERR_OK)
		rc = sf_bool(c, d, "adminAccess", &r->admin_access);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "shareID", DECODE_NONEMPTY, &r->share_id);
	return rc;
}

/* The node of an allocation's nodeSelector: the scheduler writes
 * matchFields metadata.name In [node] for node-local devices. */
static void allocated_node(const struct sched_term *t, char **node)
{
	size_t i;

	for (i = 0; i < t->nfields; i++)
		if (t->fields[i].op == SCHED_OP_IN && t->fields[i].nvalues == 1 && *node == NULL)
			*node = xstrdup(t->fields[i].values[0]);
}

static enum err decode_status(struct decode_ctx *c, const struct doc *d, struct dra_claim *claim)
{
	size_t mark = doc_path_key(&c->path, "status"), m;
	const struct doc *status, *alloc = NULL, *devices = NULL;
	struct sched_term term;
	void *results = NULL;
	bool present;
	enum err rc;

	memset(&term, 0, sizeof term);
	rc = decode_field(c, d, "status", DOC_OBJECT, 0, &status);
	m = doc_path_key(&c->path, "allocation");
	if (rc == ERR_OK && status != NULL)
		rc = decode_field(c, status, "allocation", DOC_OBJECT, 0, &alloc);
	claim->allocated = alloc != NULL;
	if (rc == ERR_OK && alloc != NULL) {
		size_t k = doc_path_key(&c->path, "devices");

		rc = decode_field(c, alloc, "devices", DOC_OBJECT, 0, &devices);
		if (rc == ERR_OK && devices != NULL)
			rc = dra_check_length(c, devices, "results", DRA_MAX_RESULTS);
		if (rc == ERR_OK && devices != NULL) {
			rc = decode_array(c, devices, "results", 0, sizeof *claim->results, &results,
					  &claim->nresults, decode_result, claim);
			claim->results = results;
		}
		doc_path_pop(&c->path, k);
	}
	if (rc == ERR_OK && alloc != NULL)
		rc = dra_read_node_selector(c, alloc, "nodeSelector", &term, &present);
	if (rc == ERR_OK)
		allocated_node(&term, &claim->allocated_node);
	sched_term_cleanup(&term);
	doc_path_pop(&c->path, m);
	doc_path_pop(&c->path, mark);
	return rc;
}

/* A ResourceClaimSpec at obj.key (spec, or a template's spec.spec). */
static enum err decode_claim_spec(struct decode_ctx *c, const struct doc *obj, const char *key,
				  struct dra_claim *claim)
{
	size_t mark = doc_path_key(&c->path, key), m, i;
	const struct doc *spec, *devices = NULL;
	void *requests = NULL, *constraints = NULL;
	char **names;
	enum err rc;

	rc = decode_field(c, obj, key, DOC_OBJECT, DECODE_REQUIRED, &spec);
	m = doc_path_key(&c->path, "devices");
	if (rc == ERR_OK)
		rc = decode_field(c, spec, "devices", DOC_OBJECT, 0, &devices);
	if (rc == ERR_OK && devices != NULL)
		rc = dra_check_length(c, devices, "requests", DRA_MAX_REQUESTS);
	if (rc == ERR_OK && devices != NULL) {
		rc = decode_array(c, devices, "requests", 0, sizeof *claim->requests, &requests,
				  &claim->nrequests, decode_request, NULL);
		claim->requests = requests;
	}
	if (rc == ERR_OK && claim->nrequests > 0) {
		names = xcalloc(claim->nrequests, sizeof *names);
		for (i = 0; i < claim->nrequests; i++)
			names[i] = claim->requests[i].name;
		rc = check_unique(c, "requests", names, claim->nrequests, "request");
		free(names);
	}
	if (rc == ERR_OK && devices != NULL)
		rc = dra_check_length(c, devices, "constraints", DRA_MAX_CONSTRAINTS);
	if (rc == ERR_OK && devices != NULL) {
		rc = decode_array(c, devices, "constraints", 0, sizeof *claim->constraints,
				  &constraints, &claim->nconstraints, decode_constraint, claim);
		claim->constraints = constraints;
	}
	doc_path_pop(&c->path, m);
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err dra_claim_decode_doc(const struct doc *d, const char *origin, struct dra_claim *out,
			      struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = dra_read_head(&c, d, "ResourceClaim", &out->namespace_, &out->name, &out->uid);
	if (rc == ERR_OK)
		rc = decode_claim_spec(&c, d, "spec", out);
	if (rc == ERR_OK)
		rc = decode_status(&c, d, out);
	if (rc != ERR_OK)
		dra_claim_cleanup(out);
	return rc;
}

enum err dra_template_decode_doc(const struct doc *d, const char *origin,
				 struct dra_claim *out, struct errmsg *msg)
{
	const struct doc *spec;
	struct decode_ctx c;
	size_t mark;
	enum err rc;

	memset(out, 0, sizeof *out);
	out->from_template = true;
	decode_ctx_init(&c, origin, msg);
	rc = dra_read_head(&c, d, "ResourceClaimTemplate", &out->namespace_, &out->name, &out->uid);
	mark = doc_path_key(&c.path, "spec");
	if (rc == ERR_OK)
		rc = decode_field(&c, d, "spec", DOC_OBJECT, DECODE_REQUIRED, &spec);
	if (rc == ERR_OK)
		rc = decode_claim_spec(&c, spec, "spec", out);
	doc_path_pop(&c.path, mark);
	if (rc != ERR_OK) {
		dra_claim_cleanup(out);
		out->from_template = false;
	}
	return rc;
}
