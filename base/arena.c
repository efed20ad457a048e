/* SPDX-License-Identifier: Apache-2.0 */
/* Bump arena: an inline first block, then heap chunks. */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;
	size_t used;
	char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->inline_used = 0;
}

static size_t round16(size_t n)
{
	return (n + 15u) & ~(size_t)15u;
}

void *arena_alloc(struct arena *a, size_t size)
{
	void *p = arena_alloc_raw(a, size);

	memset(p, 0, size ? size : 1);
	return p;
}

void *arena_alloc_raw(struct arena *a, size_t size)
{
	struct arena_chunk *c;
	void *p;

	size = round16(size ? size : 1);
	if (a->inline_used + size <= sizeof a->inline_buf) {
		p = a->inline_buf + a->inline_used;
		a->inline_used += size;
		return p;
	}
	c = a->head;
	if (c == NULL || c->used + size > c->size) {
		size_t want = size > 65536 ? size : 65536;

		c = xmalloc(sizeof *c + want);
		c->next = a->head;
		c->size = want;
		c->used = 0;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static void free_chunks(struct arena_chunk *c)
{
	while (c) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
}

void arena_reset(struct arena *a)
{
	struct arena_chunk *keep = a->head;

	/* The head is the newest chunk; chunks only grow, so it is the largest
	 * or as large as any request seen since it was made. */
	if (keep != NULL) {
		free_chunks(keep->next);
		keep->next = NULL;
		keep->used = 0;
	}
	a->inline_used = 0;
}

void arena_cleanup(struct arena *a)
{
	free_chunks(a->head);
	a->head = NULL;
	a->inline_used = 0;
}
