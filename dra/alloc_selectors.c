/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/alloc_selectors.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* The memo: open addressing over MEMO_SLOTS words, each a key's upper
 * bits with the answer in the two low ones (0: empty), probed MEMO_PROBES
 * slots from the key's home; a full run leaves the answer unremembered. */
#define MEMO_SLOTS 1024
#define MEMO_PROBES 8
#define MEMO_TRUE 2u
#define MEMO_FALSE 1u

void dra_selectors_init(struct dra_selectors *s, const struct dra_selector_ops *ops)
{
	memset(s, 0, sizeof *s);
	s->ops = ops;
	if (ops->key != NULL)
		s->memo = xcalloc(MEMO_SLOTS, sizeof *s->memo);
}

static uint64_t memo_tag(uint64_t key)
{
	uint64_t tag = key & ~(uint64_t)3;

	return tag ? tag : 4;
}

enum dra_cel_value dra_selectors_eval(const struct dra_selectors *set, const struct dra_selector *s,
				      const struct dra_device *d, const char *driver, char *err,
				      size_t err_size)
{
	enum dra_cel_value v;
	uint64_t key, tag, word;
	size_t home, i;

	if (set->memo == NULL || !set->ops->key(s->prog, d, driver, &key))
		return set->ops->eval(s->prog, d, driver, err, err_size);
	tag = memo_tag(key);
	home = (size_t)(key >> 52) % MEMO_SLOTS;
	for (i = 0; i < MEMO_PROBES; i++) {
		word = atomic_load_explicit(&set->memo[(home + i) % MEMO_SLOTS], memory_order_relaxed);
		if (word == 0)
			break;
		if ((word & ~(uint64_t)3) == tag)
			return (word & 3) == MEMO_TRUE ? DRA_CEL_TRUE : DRA_CEL_FALSE;
	}
	v = set->ops->eval(s->prog, d, driver, err, err_size);
	/* Only true and false: an error's message names the device. */
	if (v != DRA_CEL_TRUE && v != DRA_CEL_FALSE)
		return v;
	word = tag | (v == DRA_CEL_TRUE ? MEMO_TRUE : MEMO_FALSE);
	for (i = 0; i < MEMO_PROBES; i++) {
		uint64_t empty = 0;

		if (atomic_compare_exchange_strong_explicit(&set->memo[(home + i) % MEMO_SLOTS], &empty,
							    word, memory_order_relaxed,
							    memory_order_relaxed) ||
		    (empty & ~(uint64_t)3) == tag)
			break;
	}
	return v;
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
	free((void *)(uintptr_t)s->memo);
	s->v = NULL;
	s->memo = NULL;
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
