/* SPDX-License-Identifier: Apache-2.0 */
/* FNV-1a over a NUL-terminated string: the hash of every in-memory name index
 * (store, score cache, ledger). Not for anything an attacker could aim at a
 * single bucket of: the tables are sized for their contents and probe
 * linearly, so a collision costs a comparison, not a denial of service. */
#ifndef EXTENDER_STRHASH_H
#define EXTENDER_STRHASH_H

#include <stddef.h>

static inline size_t strhash(const char *s)
{
	size_t h = (size_t)1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
	return h;
}

#endif
