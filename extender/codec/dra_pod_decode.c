/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/dra_pod_decode.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/decode_walk.h"
#include "extender/codec/dra_fields.h"

static const char *const sources[] = { "resourceClaimName", "resourceClaimTemplateName" };

static enum err decode_pod_claim(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	struct dra_pod_claim *pc = elem;
	size_t which;
	enum err rc;

	(void)arg;
	rc = decode_named(c, d, &pc->name);
	if (rc == ERR_OK)
		rc = dra_check_name(c, "name", pc->name, DRA_NAME_LABEL);
	if (rc == ERR_OK)
		rc = dra_one_of(c, d, sources, 2, DRA_ONE_REQUIRED, &which);
	if (rc == ERR_OK)
		rc = dra_read_name(c, d, sources[which], DECODE_NONEMPTY, DRA_NAME_SUBDOMAIN,
				   which == 0 ? &pc->claim_name : &pc->template_name);
	return rc;
}

/* The entry of spec.resourceClaims named name, or NULL. */
static struct dra_pod_claim *find(struct dra_pod_claims *out, const char *name)
{
	size_t i;

	for (i = 0; i < out->nclaims; i++)
		if (strcmp(out->claims[i].name, name) == 0)
			return &out->claims[i];
	return NULL;
}

static enum err unknown_claim(struct decode_ctx *c, const char *name, const char *why)
{
	char quoted[DOC_QUOTE_CAP];

	doc_quote(quoted, sizeof quoted, name, strlen(name));
	return decode_fail_at(c, "name", ERR_INVALID, "%s: %s", quoted, why);
}

/* status.resourceClaimStatuses[i]: the generated name of a template's
 * claim (null: none was made on purpose). */
static enum err decode_status_entry(struct decode_ctx *c, const struct doc *d, void *elem,
				    void *arg)
{
	struct dra_pod_claims *out = arg;
	struct dra_pod_claim *pc;
	char **name = elem;
	enum err rc;

	rc = decode_named(c, d, name);
	if (rc != ERR_OK)
		return rc;
	pc = find(out, *name);
	if (pc == NULL)
		return unknown_claim(c, *name, "no such claim in spec.resourceClaims");
	if (pc->template_name == NULL)
		return unknown_claim(c, *name, "not a claim made from a template");
	return dra_read_name(c, d, "resourceClaimName", DECODE_NONEMPTY, DRA_NAME_SUBDOMAIN,
			     &pc->claim_name);
}

static enum err decode_container_claim(struct decode_ctx *c, const struct doc *d, void *elem,
				       void *arg)
{
	struct dra_container_claim *cc = elem;
	enum err rc;

	rc = decode_named(c, d, &cc->claim);
	if (rc == ERR_OK && find(arg, cc->claim) == NULL)
		rc = unknown_claim(c, cc->claim, "no such claim in spec.resourceClaims");
	if (rc == ERR_OK)
		rc = decode_string(c, d, "request", DECODE_NONEMPTY, &cc->request);
	return rc;
}

static enum err decode_container(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	struct dra_container_claims *cc = elem;
	const struct doc *res;
	void *claims = NULL;
	size_t mark;
	enum err rc;

	rc = decode_named(c, d, &cc->container);
	mark = doc_path_key(&c->path, "resources");
	if (rc == ERR_OK)
		rc = decode_field(c, d, "resources", DOC_OBJECT, 0, &res);
	if (rc == ERR_OK && res != NULL) {
		rc = decode_array(c, res, "claims", 0, sizeof *cc->claims, &claims, &cc->nclaims,
				  decode_container_claim, arg);
		cc->claims = claims;
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_claims(struct decode_ctx *c, const struct doc *pod, struct dra_pod_claims *out)
{
	const struct doc *spec, *status;
	void *claims = NULL, *containers = NULL, *names = NULL;
	size_t mark, nnames = 0, i, dup;
	enum err rc;

	rc = decode_expect(c, pod, DOC_OBJECT);
	mark = doc_path_key(&c->path, "spec");
	if (rc == ERR_OK)
		rc = decode_field(c, pod, "spec", DOC_OBJECT, DECODE_REQUIRED, &spec);
	if (rc == ERR_OK) {
		rc = decode_array(c, spec, "resourceClaims", 0, sizeof *out->claims, &claims,
				  &out->nclaims, decode_pod_claim, NULL);
		out->claims = claims;
	}
	if (rc == ERR_OK && out->nclaims > 0) {
		const char **v = xcalloc(out->nclaims, sizeof *v);

		for (i = 0; i < out->nclaims; i++)
			v[i] = out->claims[i].name;
		if (doc_find_duplicate(v, out->nclaims, &dup)) {
			size_t m = doc_path_key(&c->path, "resourceClaims"), k = doc_path_index(&c->path, dup);

			rc = unknown_claim(c, v[dup], "duplicate claim name");
			doc_path_pop(&c->path, k);
			doc_path_pop(&c->path, m);
		}
		free(v);
	}
	for (i = 0; rc == ERR_OK && i < 2; i++) {
		rc = decode_array(c, spec, i == 0 ? "initContainers" : "containers", 0,
				  sizeof *out->containers, &containers, &out->ncontainers,
				  decode_container, out);
		out->containers = containers;
	}
	doc_path_pop(&c->path, mark);
	mark = doc_path_key(&c->path, "status");
	if (rc == ERR_OK)
		rc = decode_field(c, pod, "status", DOC_OBJECT, 0, &status);
	if (rc == ERR_OK && status != NULL)
		rc = decode_array(c, status, "resourceClaimStatuses", 0, sizeof(char *), &names, &nnames,
				  decode_status_entry, out);
	doc_path_pop(&c->path, mark);
	for (i = 0; i < nnames; i++)
		free(((char **)names)[i]);
	free(names);
	return rc;
}

enum err dra_pod_claims_decode(const struct doc *pod, const char *origin,
			       struct dra_pod_claims *out, struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = decode_claims(&c, pod, out);
	if (rc != ERR_OK)
		dra_pod_claims_cleanup(out);
	return rc;
}

void dra_pod_claims_cleanup(struct dra_pod_claims *c)
{
	size_t i, k;

	for (i = 0; i < c->nclaims; i++)
		dra_pod_claim_cleanup(&c->claims[i]);
	free(c->claims);
	for (i = 0; i < c->ncontainers; i++) {
		free(c->containers[i].container);
		for (k = 0; k < c->containers[i].nclaims; k++)
			dra_container_claim_cleanup(&c->containers[i].claims[k]);
		free(c->containers[i].claims);
	}
	free(c->containers);
	memset(c, 0, sizeof *c);
}

static const struct doc_keep claim_ref_fields[] = {
	{ "name", NULL, NULL },
	{ "request", NULL, NULL },
	{ NULL, NULL, NULL },
};
static const struct doc_keep resources_fields[] = {
	{ "claims", NULL, claim_ref_fields },
	{ NULL, NULL, NULL },
};
static const struct doc_keep container_fields[] = {
	{ "name", NULL, NULL },
	{ "resources", resources_fields, NULL },
	{ NULL, NULL, NULL },
};
static const struct doc_keep spec_fields[] = {
	{ "resourceClaims", NULL, NULL },
	{ "initContainers", NULL, container_fields },
	{ "containers", NULL, container_fields },
	{ NULL, NULL, NULL },
};
static const struct doc_keep status_fields[] = {
	{ "resourceClaimStatuses", NULL, NULL },
	{ NULL, NULL, NULL },
};
const struct doc_keep dra_pod_claim_fields[] = {
	{ "spec", spec_fields, NULL },
	{ "status", status_fields, NULL },
	{ NULL, NULL, NULL },
};
