/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/alloc_selectors.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void dra_selectors_init(struct dra_selectors *s, const struct dra_selector_ops *ops)
{
	memset(s, 0, sizeof *s);
	s->ops = ops;
}

void dra_selectors_free(struct dra_selectors *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].prog != NULL)
			s->ops->free(s->v[i].prog);
		free(s->v[i].expr);
	}
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

const struct dra_selector *dra_selectors_get(struct dra_selectors *s, const char *expr)
{
	struct dra_selector *e;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].expr, expr) == 0)
			return &s->v[i];
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	e = &s->v[s->n++];
	memset(e, 0, sizeof *e);
	e->expr = xstrdup(expr);
	e->status = s->ops->compile(expr, strlen(expr), &e->prog, &e->msg);
	if (e->status != DRA_CEL_COMPILED && e->prog != NULL) {
		s->ops->free(e->prog);
		e->prog = NULL;
	}
	if (e->status == DRA_CEL_COMPILED && e->prog == NULL) {
		e->status = DRA_CEL_INVALID;
		errmsg_set(&e->msg, "the evaluator returned no program");
	}
	return e;
}

const struct dra_class *dra_class_find(const struct dra_class *classes, size_t n,
				       const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < n; i++)
		if (classes[i].name != NULL && strcmp(classes[i].name, name) == 0)
			return &classes[i];
	return NULL;
}

void dra_selectors_prepare(struct dra_selectors *s, const struct dra_claim *const *claims,
			   size_t nclaims, const struct dra_class *classes, size_t nclasses)
{
	size_t c, r, k, i;

	for (c = 0; c < nclaims; c++)
		for (r = 0; claims[c] != NULL && r < claims[c]->nrequests; r++)
			for (k = 0; k < claims[c]->requests[r].nspecs; k++) {
				const struct dra_request_spec *sp = &claims[c]->requests[r].specs[k];
				const struct dra_class *cl =
					dra_class_find(classes, nclasses, sp->class_name);

				for (i = 0; cl != NULL && i < cl->nselectors; i++)
					if (cl->selectors[i] != NULL)
						dra_selectors_get(s, cl->selectors[i]);
				for (i = 0; i < sp->nselectors; i++)
					if (sp->selectors[i] != NULL)
						dra_selectors_get(s, sp->selectors[i]);
			}
}
