/* SPDX-License-Identifier: Apache-2.0 */
/* The pods' claims and the devices a placement takes (sim_dra.h). */
#include "extender/cmd/sim_dra.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/codec/sched_objects.h"

/* ----- the pods' claims ----- */

struct pod_dra {
	struct dra_pod_claims claims;
	char *invalid;
};

static enum err decode_pod(struct decode_ctx *c, const struct doc *d, bool in_list, void *elem)
{
	struct pod_dra *pd = elem;
	char origin[1024];

	(void)in_list;
	/* Named as sched_pod_decode names the item. */
	if (c->path.len > 0)
		snprintf(origin, sizeof origin, "%s: %s", c->origin, c->path.text);
	else
		snprintf(origin, sizeof origin, "%s", c->origin);
	return dra_pod_claims_decode(d, origin, &pd->claims, c->msg);
}

static void cleanup(void *elem)
{
	struct pod_dra *pd = elem;

	dra_pod_claims_cleanup(&pd->claims);
	free(pd->invalid);
	memset(pd, 0, sizeof *pd);
}

static void placeholder(void *elem, const char *name, const char *ns, const char *message)
{
	struct pod_dra *pd = elem;

	(void)name;
	(void)ns;
	pd->invalid = xstrdup(message);
}

static const struct sched_objects_spec pod_dra_spec = {
	"Pod", "PodList", "pod", true, sizeof(struct pod_dra),
	decode_pod, cleanup, placeholder,
};

enum err sim_pod_claims_load(const char *path, struct dra_pod_claims **out, size_t *n,
			     struct errmsg *msg)
{
	void *items = NULL;
	struct pod_dra *pd;
	size_t i, count = 0;
	enum err rc = sched_objects_load(path, &pod_dra_spec, &items, &count, msg);

	*out = NULL;
	*n = 0;
	if (rc != ERR_OK)
		return rc;
	pd = items;
	for (i = 0; i < count && rc == ERR_OK; i++)
		if (pd[i].invalid != NULL) {
			errmsg_set(msg, "%s", pd[i].invalid);
			rc = ERR_INVALID;
		}
	if (rc == ERR_OK) {
		*out = xcalloc(count + 1, sizeof **out);
		for (i = 0; i < count; i++)
			(*out)[i] = pd[i].claims;
		*n = count;
	}
	for (i = 0; i < count; i++)
		if (rc != ERR_OK)
			cleanup(&pd[i]);
		else
			free(pd[i].invalid);
	free(items);
	return rc;
}

void sim_pod_claims_free(struct dra_pod_claims *c, size_t n)
{
	size_t i;

	for (i = 0; c != NULL && i < n; i++)
		dra_pod_claims_cleanup(&c[i]);
	free(c);
}

/* ----- a placement's devices ----- */

static char *dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static char **strings_copy(char *const *s, size_t n)
{
	char **out;
	size_t i;

	if (s == NULL)
		return NULL;
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = dup_or_null(s[i]);
	return out;
}

/* The spec of claim c (requests, constraints), owned by *out. */
static void spec_copy(const struct dra_claim *c, struct dra_claim *out)
{
	size_t i, k;

	out->requests = xcalloc(c->nrequests + 1, sizeof *out->requests);
	out->nrequests = c->nrequests;
	for (i = 0; i < c->nrequests; i++) {
		const struct dra_request *r = &c->requests[i];
		struct dra_request *o = &out->requests[i];

		o->name = dup_or_null(r->name);
		o->specs = xcalloc(r->nspecs + 1, sizeof *o->specs);
		o->nspecs = r->nspecs;
		for (k = 0; k < r->nspecs; k++) {
			o->specs[k] = r->specs[k];
			o->specs[k].class_name = dup_or_null(r->specs[k].class_name);
			o->specs[k].selectors = strings_copy(r->specs[k].selectors, r->specs[k].nselectors);
		}
		o->subnames = strings_copy(r->subnames, r->nspecs);
	}
	out->constraints = xcalloc(c->nconstraints + 1, sizeof *out->constraints);
	out->nconstraints = c->nconstraints;
	for (i = 0; i < c->nconstraints; i++) {
		const struct dra_constraint *x = &c->constraints[i];
		struct dra_constraint *o = &out->constraints[i];

		o->requests = strings_copy(x->requests, x->nrequests);
		o->nrequests = x->nrequests;
		o->kind = x->kind;
		o->domain = dup_or_null(x->domain);
		o->name = dup_or_null(x->name);
	}
}

static bool name_taken(const struct dra_snapshot *snap, const char *ns, const char *name,
		       char *const *chosen, size_t nchosen)
{
	size_t i;

	if (dra_snapshot_claim(snap, ns, name) != NULL)
		return true;
	for (i = 0; i < nchosen; i++)
		if (strcmp(chosen[i], name) == 0)
			return true;
	return false;
}

/* "<pod>-<claim>", or with "-2", "-3"... when that is taken. */
static char *generated_name(const struct dra_snapshot *snap, const char *ns, const char *pod,
			    const char *claim, char *const *chosen, size_t nchosen)
{
	struct textbuf b;
	unsigned k;

	for (k = 1;; k++) {
		char *name;

		textbuf_init(&b, 4096);
		textbuf_printf(&b, "%s-%s", pod, claim);
		if (k > 1)
			textbuf_printf(&b, "-%u", k);
		name = textbuf_take(&b, NULL);
		if (!name_taken(snap, ns, name, chosen, nchosen))
			return name;
		free(name);
	}
}

static void set_results(struct dra_claim *c, const struct dra_claim_picks *picks, const char *node)
{
	size_t k;

	c->allocated = true;
	c->results = xcalloc(picks->n + 1, sizeof *c->results);
	c->nresults = picks->n;
	for (k = 0; k < picks->n; k++) {
		c->results[k].request = dup_or_null(picks->picks[k].request);
		c->results[k].driver = dup_or_null(picks->picks[k].driver);
		c->results[k].pool = dup_or_null(picks->picks[k].pool);
		c->results[k].device = dup_or_null(picks->picks[k].device);
	}
	c->allocated_node = xstrdup(node);
}

size_t sim_dra_allocate(struct dra_store *store, const struct dra_pod *p, const char *ns,
			const char *pod_name, const char *node, const struct dra_alloc_result *alloc,
			uint64_t *serial)
{
	const struct dra_snapshot *snap;
	const struct dra_pod_claim *pcs;
	const struct dra_claim *const *claims;
	struct dra_batch *b;
	char **chosen, version[64];
	size_t n, i, put = 0, nchosen = 0;

	if (alloc->verdict != DRA_ALLOC_OK && alloc->verdict != DRA_ALLOC_SAME_NUMA)
		return 0;
	n = dra_pod_claims_resolved(p, &pcs, &claims);
	if (alloc->nclaims < n)
		n = alloc->nclaims;
	snap = dra_store_acquire(store);
	b = dra_batch_new();
	chosen = xcalloc(n + 1, sizeof *chosen);
	for (i = 0; i < n; i++) {
		const struct dra_claim *base = claims[i];
		struct dra_claim c;

		if (base == NULL || alloc->claims[i].preallocated || base->allocated)
			continue;
		memset(&c, 0, sizeof c);
		spec_copy(base, &c);
		c.namespace_ = xstrdup(ns);
		if (base->from_template) {
			c.name = generated_name(snap, ns, pod_name, pcs[i].name ? pcs[i].name : "claim",
						chosen, nchosen);
			chosen[nchosen++] = xstrdup(c.name);
		} else {
			c.name = dup_or_null(base->name);
			c.uid = dup_or_null(base->uid);
		}
		set_results(&c, &alloc->claims[i], node);
		snprintf(version, sizeof version, "simulate#%" PRIu64, ++*serial);
		dra_batch_put_claim(b, &c, version, "simulate");
		dra_claim_cleanup(&c);
		put++;
	}
	for (i = 0; i < nchosen; i++)
		free(chosen[i]);
	free(chosen);
	dra_snapshot_release(snap);
	if (put > 0)
		dra_store_publish(store, b);
	else
		dra_batch_free(b);
	return put;
}
