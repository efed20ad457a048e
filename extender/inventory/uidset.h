/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded set of pod UIDs, by their 64-bit hash: what has been counted
 * once and must not be counted again. At most `cap` UIDs are held; adding
 * one more forgets the oldest. Memory: 24 bytes a slot (the ring and a
 * table of twice the capacity), allocated at creation. Two UIDs whose hashes
 * collide count as one (UIDs are the API server's random UUIDs: at 16384
 * held, about one chance in 2^50; the hash is seeded per process, so UIDs
 * cannot be chosen to collide). Not thread-safe: the caller locks. */
#ifndef EXTENDER_UIDSET_H
#define EXTENDER_UIDSET_H

#include <stdbool.h>
#include <stddef.h>

struct uidset;

struct uidset *uidset_new(size_t cap);
void uidset_free(struct uidset *s);
bool uidset_has(const struct uidset *s, const char *uid);
/* Adds uid; false when it was there already. */
bool uidset_add(struct uidset *s, const char *uid);
/* Forgets uid (a pod deleted from the API: its UID never comes back). */
void uidset_remove(struct uidset *s, const char *uid);
size_t uidset_count(const struct uidset *s);

#endif
