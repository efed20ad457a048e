/* SPDX-License-Identifier: Apache-2.0 */
/* The project's one hash: XXH3 (libxxhash). Fast on short keys and well
 * mixed in every bit, so a table may take its bucket from the low bits.
 *
 * Two kinds. hash_bytes and hash_str are the same in every process: for
 * digests that are written out (a content version, the decision log's
 * settings digest) and for tables whose contents are not chosen from
 * outside. hash_key and hash_key_bytes are seeded once per process with
 * random bytes: for tables keyed by what comes from outside (names from the
 * API server, file names, pod specs), so that nobody can pick keys that
 * fall into one probe run or one stripe. Their values differ from run to
 * run, so nothing written out, and no order anyone sees, may depend on
 * them. */
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

/* Set once before main (base/hash.c); read-only afterwards. */
extern uint64_t hash_key_seed;

static inline uint64_t hash_key_bytes(const void *p, size_t n)
{
	return XXH3_64bits_withSeed(p, n, hash_key_seed);
}

static inline uint64_t hash_key(const char *s)
{
	return hash_key_bytes(s, strlen(s));
}

#endif
