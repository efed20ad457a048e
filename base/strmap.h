/* SPDX-License-Identifier: Apache-2.0 */
/* A map from borrowed strings to pointers, for tables keyed by names from
 * outside (pod UIDs, node names, file names): open addressing with linear
 * probing, a power-of-two capacity at most half full, and removal that
 * moves the rest of a probe run back instead of leaving tombstones. Keys
 * are hashed with hash_key (base/hash.h), seeded per process, so names
 * cannot be chosen to pile into one run; for the same reason it has no
 * iteration (its order changes from run to run). Values are never NULL:
 * NULL means absent. A zeroed struct strmap is an empty map. Not
 * thread-safe: the caller locks. */
#ifndef BASE_STRMAP_H
#define BASE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key; /* NULL: empty */
	uint64_t hash;
	void *val;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, n;
};

/* key's value, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Sets key's value (not NULL). A key not present is added and borrowed: it
 * must stay valid and unchanged until it is removed. A present key keeps
 * the string it was added with. */
void strmap_put(struct strmap *m, const char *key, void *val);
/* Removes key; returns its value, or NULL when it was not there. */
void *strmap_remove(struct strmap *m, const char *key);
/* Empties the map and frees its table (the keys are the caller's). */
void strmap_clear(struct strmap *m);

#endif
