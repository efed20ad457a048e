/* SPDX-License-Identifier: Apache-2.0 */
/* matchAttribute and distinctAttribute as the allocator applies them while
 * it places devices (allocator_incubating.go matchAttributeConstraint,
 * constraint.go distinctAttributeConstraint), quirks included: a match
 * constraint only remembers the first value; a distinct constraint keeps
 * the last value per request and forgets a request's value when any of its
 * devices is taken back. The attribute is looked up by its full name; an
 * unqualified attribute of the device's driver is stored under the
 * driver's domain, which is the same lookup. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/alloc_internal.h"

void alloc_cons_init(struct alloc_claim *ac)
{
	size_t i;

	ac->ncons = ac->claim->nconstraints;
	ac->cons = xcalloc(ac->ncons ? ac->ncons : 1, sizeof *ac->cons);
	for (i = 0; i < ac->ncons; i++) {
		ac->cons[i].c = &ac->claim->constraints[i];
		ac->cons[i].last = xcalloc(ac->nreqs ? ac->nreqs : 1, sizeof *ac->cons[i].last);
	}
}

void alloc_cons_free(struct alloc_claim *ac)
{
	size_t i;

	for (i = 0; i < ac->ncons; i++)
		free(ac->cons[i].last);
	free(ac->cons);
	ac->cons = NULL;
	ac->ncons = 0;
}

static bool applies(const struct dra_constraint *c, const struct alloc_req *rq)
{
	const char *base = rq->req->name != NULL ? rq->req->name : "";
	size_t i, blen = strlen(base);

	if (c->nrequests == 0)
		return true;
	for (i = 0; i < c->nrequests; i++) {
		const char *want = c->requests[i];

		if (want == NULL)
			continue;
		if (strcmp(want, base) == 0)
			return true;
		/* "<req>/<sub>" names one alternative. */
		if (rq->sub != NULL && strncmp(want, base, blen) == 0 && want[blen] == '/' &&
		    strcmp(want + blen + 1, rq->sub) == 0)
			return true;
	}
	return false;
}

static bool scalar(const struct dra_attribute *a)
{
	if (a->n == 0)
		return false;
	switch (a->type) {
	case DRA_ATTR_INT: return a->ints != NULL;
	case DRA_ATTR_BOOL: return a->bools != NULL;
	case DRA_ATTR_STRING:
	case DRA_ATTR_VERSION: return a->strings != NULL && a->strings[0] != NULL;
	default: return false;
	}
}

/* 1 when b holds the same scalar as a, 0 when not, -1 when a is no scalar
 * (a list: the scalar comparison of the incubating allocator never matches
 * it). Versions compare as text: semver 2.0.0 strings are minimal. */
static int same_value(const struct dra_attribute *a, const struct dra_attribute *b)
{
	if (!scalar(a))
		return -1;
	if (a->type != b->type || !scalar(b))
		return 0;
	switch (a->type) {
	case DRA_ATTR_INT: return a->ints[0] == b->ints[0];
	case DRA_ATTR_BOOL: return a->bools[0] == b->bools[0];
	default: return strcmp(a->strings[0], b->strings[0]) == 0;
	}
}

static bool match_add(struct alloc_cons *k, const struct dra_attribute *a)
{
	if (k->n == 0) {
		k->first = a;
		k->n = 1;
		return true;
	}
	if (same_value(a, k->first) != 1)
		return false;
	k->n++;
	return true;
}

static bool distinct_add(struct alloc_cons *k, const struct dra_attribute *a, size_t nreqs,
			 size_t ri)
{
	size_t j;

	if (k->n > 0)
		for (j = 0; j < nreqs; j++)
			if (k->last[j] != NULL && same_value(a, k->last[j]) != 0)
				return false;
	k->last[ri] = a;
	k->n++;
	return true;
}

static void cons_remove(struct alloc_cons *k, const struct alloc_req *rq)
{
	if (!applies(k->c, rq))
		return;
	k->n--;
	if (k->c->kind == DRA_DISTINCT_ATTRIBUTE)
		k->last[rq->index] = NULL;
}

bool alloc_cons_add(struct alloc_claim *ac, const struct alloc_req *rq, const struct dra_device *d)
{
	size_t i;

	for (i = 0; i < ac->ncons; i++) {
		struct alloc_cons *k = &ac->cons[i];
		const struct dra_attribute *a;
		bool ok;

		if (!applies(k->c, rq))
			continue;
		a = k->c->domain != NULL && k->c->name != NULL
			    ? dra_device_attribute(d, k->c->domain, k->c->name)
			    : NULL;
		if (a == NULL)
			ok = false;
		else if (k->c->kind == DRA_MATCH_ATTRIBUTE)
			ok = match_add(k, a);
		else
			ok = distinct_add(k, a, ac->nreqs, rq->index);
		if (!ok) {
			while (i-- > 0)
				cons_remove(&ac->cons[i], rq);
			return false;
		}
	}
	return true;
}

void alloc_cons_remove(struct alloc_claim *ac, const struct alloc_req *rq)
{
	size_t i;

	for (i = 0; i < ac->ncons; i++)
		cons_remove(&ac->cons[i], rq);
}
