/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation wrappers that abort on out-of-memory (as redis, h2o and jq do):
 * every size that comes from outside is bounded before it reaches them. */
#ifndef BASE_XALLOC_H
#define BASE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
/* Zeroed; aborts also when n * size overflows. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* xrealloc for n elements of size bytes; aborts when n * size overflows. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* Copies n bytes (which may contain NULs) and appends a NUL. */
char *xstrndup(const char *s, size_t n);
#define xmemdup0 xstrndup

#endif
