/* SPDX-License-Identifier: Apache-2.0 */
/* A bump arena for the short-lived tables of one judgement (hint bitmaps,
 * per-subset sums): one free at the end instead of one per table. */
#ifndef BASE_ARENA_H
#define BASE_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	_Alignas(16) char inline_buf[8192];
	size_t inline_used;
};

void arena_init(struct arena *a);
/* Zeroed, 16-byte aligned memory valid until arena_cleanup/arena_reset. */
void *arena_alloc(struct arena *a, size_t size);
/* The same without zeroing, for tables every user fills before reading. */
void *arena_alloc_raw(struct arena *a, size_t size);
/* Forgets every allocation but keeps the largest chunk for reuse. */
void arena_reset(struct arena *a);
void arena_cleanup(struct arena *a);

#endif
