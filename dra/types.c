/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/types.h"

#include <stdlib.h>
#include <string.h>

static void strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v; i++)
		free(v[i]);
	free(v);
}

void dra_attribute_cleanup(struct dra_attribute *a)
{
	free(a->domain);
	free(a->name);
	free(a->ints);
	free(a->bools);
	strings_free(a->strings, a->strings ? a->n : 0);
	memset(a, 0, sizeof *a);
}

void dra_device_cleanup(struct dra_device *d)
{
	size_t i;

	free(d->name);
	for (i = 0; i < d->nattributes; i++)
		dra_attribute_cleanup(&d->attributes[i]);
	free(d->attributes);
	for (i = 0; i < d->ncapacity; i++) {
		free(d->capacity[i].domain);
		free(d->capacity[i].name);
	}
	free(d->capacity);
	for (i = 0; i < d->ntaints; i++) {
		free(d->taints[i].key);
		free(d->taints[i].value);
		free(d->taints[i].effect);
	}
	free(d->taints);
	free(d->entry_hashes);
	free(d->node_name);
	sched_term_cleanup(&d->node_selector);
	memset(d, 0, sizeof *d);
}

void dra_slice_cleanup(struct dra_slice *s)
{
	size_t i;

	free(s->name);
	free(s->driver);
	free(s->pool);
	free(s->node_name);
	sched_term_cleanup(&s->node_selector);
	for (i = 0; i < s->ndevices; i++)
		dra_device_cleanup(&s->devices[i]);
	free(s->devices);
	memset(s, 0, sizeof *s);
}

void dra_class_cleanup(struct dra_class *c)
{
	free(c->name);
	strings_free(c->selectors, c->nselectors);
	free(c->extended_resource_name);
	memset(c, 0, sizeof *c);
}

void dra_request_cleanup(struct dra_request *r)
{
	size_t i;

	free(r->name);
	for (i = 0; i < r->nspecs; i++) {
		free(r->specs[i].class_name);
		strings_free(r->specs[i].selectors, r->specs[i].nselectors);
	}
	free(r->specs);
	strings_free(r->subnames, r->subnames ? r->nspecs : 0);
	memset(r, 0, sizeof *r);
}

void dra_constraint_cleanup(struct dra_constraint *c)
{
	strings_free(c->requests, c->nrequests);
	free(c->domain);
	free(c->name);
	memset(c, 0, sizeof *c);
}

void dra_claim_cleanup(struct dra_claim *c)
{
	size_t i;

	free(c->namespace_);
	free(c->name);
	free(c->uid);
	for (i = 0; i < c->nrequests; i++)
		dra_request_cleanup(&c->requests[i]);
	free(c->requests);
	for (i = 0; i < c->nconstraints; i++)
		dra_constraint_cleanup(&c->constraints[i]);
	free(c->constraints);
	for (i = 0; i < c->nresults; i++) {
		free(c->results[i].request);
		free(c->results[i].driver);
		free(c->results[i].pool);
		free(c->results[i].device);
		free(c->results[i].share_id);
	}
	free(c->results);
	free(c->allocated_node);
	memset(c, 0, sizeof *c);
}

void dra_pod_claim_cleanup(struct dra_pod_claim *c)
{
	free(c->name);
	free(c->claim_name);
	free(c->template_name);
	memset(c, 0, sizeof *c);
}

void dra_container_claim_cleanup(struct dra_container_claim *c)
{
	free(c->claim);
	free(c->request);
	memset(c, 0, sizeof *c);
}

const struct dra_attribute *dra_device_attribute(const struct dra_device *d, const char *domain,
						 const char *name)
{
	size_t i;

	for (i = 0; i < d->nattributes; i++)
		if (strcmp(d->attributes[i].name, name) == 0 && strcmp(d->attributes[i].domain, domain) == 0)
			return &d->attributes[i];
	return NULL;
}
