/* SPDX-License-Identifier: Apache-2.0 */
/* What filter said for the pods it judged recently, per node with an
 * inventory (pass or reject, and the inventory version judged), kept until
 * the pod shows up bound: the ledger then knows what we decided for it on
 * its node. A ring of the last `cap` pods filtered; a later filter of the
 * same pod replaces the earlier one, and taking a pod's entry removes it.
 * Nodes are kept as their seeded hash (hash_key), so node names cannot be
 * chosen to collide. Not thread-safe: the caller locks; building an entry
 * needs no lock. */
#ifndef EXTENDER_FILTER_MEMO_H
#define EXTENDER_FILTER_MEMO_H

#include <stdbool.h>
#include <stddef.h>

struct filter_memo;
struct filter_memo_entry;

struct filter_memo *filter_memo_new(size_t cap);
void filter_memo_free(struct filter_memo *m);
/* filter's verdicts for pod uid: passes[i] for names[i], versions[i] the
 * inventory version judged (NULL for a node without inventory: not kept).
 * NULL when no node had an inventory (nothing to keep). */
struct filter_memo_entry *filter_memo_entry_new(const char *uid, size_t n,
						const char *const *names, const bool *passes,
						const char *const *versions);
/* Keeps e (taken over). */
void filter_memo_put(struct filter_memo *m, struct filter_memo_entry *e);
/* Removes uid's entry; true, with what filter said on node (*version a new
 * string), when the entry judged node. */
bool filter_memo_take(struct filter_memo *m, const char *uid, const char *node, bool *pass,
		      char **version);

#endif
