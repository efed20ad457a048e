/* SPDX-License-Identifier: Apache-2.0 */
#include "status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/strmap.h"
#include "base/xalloc.h"

struct sched_reasons {
	struct arena arena; /* reason arrays and interned texts */
	struct strmap texts; /* text -> its copy in the arena */
};

void sched_status_cleanup(struct sched_status *st)
{
	size_t i;

	if (st->owned) {
		for (i = 0; i < st->nreasons; i++)
			free((void *)(uintptr_t)st->reasons[i]);
		free(st->reasons);
	}
	memset(st, 0, sizeof *st);
}

struct sched_reasons *sched_reasons_new(void)
{
	struct sched_reasons *r = xcalloc(1, sizeof *r);

	arena_init(&r->arena);
	return r;
}

void sched_reasons_free(struct sched_reasons *r)
{
	if (r == NULL)
		return;
	strmap_clear(&r->texts);
	arena_cleanup(&r->arena);
	free(r);
}

const char *sched_reasons_intern(struct sched_reasons *r, const char *text)
{
	char *copy = strmap_get(&r->texts, text);
	size_t len;

	if (copy != NULL)
		return copy;
	len = strlen(text) + 1;
	copy = memcpy(arena_alloc_raw(&r->arena, len), text, len);
	strmap_put(&r->texts, copy, copy);
	return copy;
}

static void add_copies(struct sched_status *st, const char *const *text, size_t n)
{
	const char **v = xcalloc(st->nreasons + n, sizeof *v);
	size_t i;

	for (i = 0; i < st->nreasons; i++)
		v[i] = st->owned ? st->reasons[i] : xstrdup(st->reasons[i]);
	for (i = 0; i < n; i++)
		v[st->nreasons + i] = xstrdup(text[i]);
	if (st->owned)
		free(st->reasons);
	st->reasons = v;
	st->owned = true;
}

void sched_status_add(struct sched_reasons *r, struct sched_status *st,
		      enum sched_code code, const char *plugin,
		      const char *const *text, size_t n, bool own_copies)
{
	const char **v;

	if (code > st->code)
		st->code = code;
	if (st->plugin == NULL)
		st->plugin = plugin;
	if (n == 0)
		return;
	if (own_copies || st->owned) {
		add_copies(st, text, n);
	} else {
		/* A node's reasons come in one go but for the odd extender
		 * reason after a filter's: a copy then, the old array left to
		 * the arena. Both counts are of arrays already held, so the
		 * size cannot wrap. */
		v = arena_alloc_raw(&r->arena, (st->nreasons + n) * sizeof *v);
		if (st->nreasons > 0)
			memcpy(v, st->reasons, st->nreasons * sizeof *v);
		memcpy(v + st->nreasons, text, n * sizeof *v);
		st->reasons = v;
	}
	st->nreasons += n;
}
