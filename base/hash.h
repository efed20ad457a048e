/* SPDX-License-Identifier: Apache-2.0 */
/* The project's one hash: XXH3 (libxxhash), for in-memory tables keyed by
 * names and for content digests. Fast on short keys and well mixed in every
 * bit, so a table may take its bucket from the low bits. */
#ifndef BASE_HASH_H
#define BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

static inline uint64_t hash_bytes(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

static inline uint64_t hash_str(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

#endif
