/* SPDX-License-Identifier: Apache-2.0 */
/* Topology hints and flattened hint lists, the currency between the hint
 * providers and the policy merge (kubelet topologymanager.TopologyHint and
 * filterProvidersHints). A list is kept as sets over masks rather than as a
 * sequence: the merge result does not depend on hint order (the comparison is
 * a total order), only on which (mask, preferred) pairs are present. */
#ifndef TOPOLOGY_HINT_H
#define TOPOLOGY_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bitmask.h"

struct topo_hint {
	bitmask_t mask;   /* dense NUMA indices; ignored when nil */
	bool nil;         /* "any NUMA node" */
	bool preferred;
};

/* Up to this many sum conditions per family (memory: allocatable and free per
 * requested type). */
#define HINT_FAM_DIMS 32

/* An upward-closed family of masks, as the CPU, device and memory providers
 * define them from counts: every mask h with required <= h <= universe,
 * popcount(h) >= min_size and, for every dimension d, the sum of w[d][i] over
 * the bits i of h at least need[d]. Weights are non-negative. */
struct hint_fam {
	bitmask_t universe;
	bitmask_t required;
	int min_size;
	int ndims;
	const int64_t *w[HINT_FAM_DIMS];
	int64_t need[HINT_FAM_DIMS];
};

struct hint_mask {
	bitmask_t mask;
	bool preferred;
};

/* One flattened resource list. Three forms:
 *  - maskset: `all` and `pref` are bitmaps of 2^n bits, bit m set when mask m
 *    is in the list (pref: with preferred=true);
 *  - singleton (single-numa-node only, after filterSingleNumaHints): `all` and
 *    `pref` are NULL and `singles` holds the preferred single-NUMA hints;
 *  - rule (`rule` set, `all` and `pref` NULL): the members of `fam` (when
 *    has_fam; preferred when their size is pref_size) and the masks of
 *    `extra`, each with its own preferred flag. Any NUMA count up to 64.
 * nil_pref / nil_nonpref: a nil-mask hint with that preferred flag. */
struct hint_list {
	const char *resource;
	bool nil_pref;
	bool nil_nonpref;
	uint64_t *all;
	uint64_t *pref;
	bitmask_t singles;
	bool rule;
	bool has_fam;
	int pref_size;
	const struct hint_mask *extra;
	size_t nextra;
	/* For messages only: the amount asked and the provider's minimum
	 * affinity size (0: none). */
	int64_t amount;
	int min_affinity;
	/* For messages only (CPU and device lists, container scope): the NUMA
	 * nodes holding reusable init-container units, which every hint must
	 * contain, when that rule alone removed every hint of the preferred
	 * size (the amounts would give one); 0 otherwise. pin_singles: the
	 * single NUMA nodes that would fit without the rule. */
	bitmask_t pinned;
	bitmask_t pin_singles;
	/* Last, so that hint_list_clear can leave its weight and need arrays
	 * (read only below fam.ndims) alone. */
	struct hint_fam fam;
};

/* An empty list, as memset to 0 would make it, without writing the ~0.5 KB
 * of fam.w and fam.need that nothing reads before fam.ndims grows: a
 * judgement builds a dozen lists, and zeroing them all was a large share of
 * the cheapest admissions' work (single-numa-node). */
static inline void hint_list_clear(struct hint_list *l)
{
	memset(l, 0, offsetof(struct hint_list, fam) + offsetof(struct hint_fam, w));
}

/* Number of 64-bit words in a maskset bitmap over n NUMA nodes. */
static inline size_t maskset_words(int n)
{
	return n >= 6 ? ((size_t)1 << n) / 64 : 1;
}

static inline bool maskset_has(const uint64_t *set, uint64_t m)
{
	return (set[m >> 6] >> (m & 63)) & 1u;
}

static inline void maskset_add(uint64_t *set, uint64_t m)
{
	set[m >> 6] |= (uint64_t)1 << (m & 63);
}

/* True when the list holds no hint at all (possible only after filtering). */
bool hint_list_is_empty(const struct hint_list *l, int n);

#endif
