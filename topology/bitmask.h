/* SPDX-License-Identifier: Apache-2.0 */
/* NUMA affinity masks: a 64-bit set of NUMA node indices, with the kubelet's
 * ordering rules (bitmask.go: IsNarrowerThan, IsLessThan). Inside the judge,
 * masks are over dense indices 0..n-1 (the node's NUMA ids in ascending order);
 * that relabelling is monotone, so popcount and integer-value order, and hence
 * every kubelet tie-break, are preserved. Header-only, pure. */
#ifndef TOPOLOGY_BITMASK_H
#define TOPOLOGY_BITMASK_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t bitmask_t;

/* SWAR popcount: without -mpopcnt, __builtin_popcountll is a library call,
 * and this is the hottest operation of the merge. */
static inline int bitmask_count(bitmask_t m)
{
	m = m - ((m >> 1) & 0x5555555555555555u);
	m = (m & 0x3333333333333333u) + ((m >> 2) & 0x3333333333333333u);
	m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (int)((m * 0x0101010101010101u) >> 56);
}

static inline bitmask_t bitmask_full(int n)
{
	return n >= 64 ? ~(bitmask_t)0 : (((bitmask_t)1 << n) - 1);
}

static inline bool bitmask_is_set(bitmask_t m, int i)
{
	return (m >> i) & 1u;
}

static inline int bitmask_lowest(bitmask_t m)
{
	return __builtin_ctzll(m);
}

/* kubelet IsNarrowerThan: fewer bits, or equal bits and a smaller value. */
static inline bool bitmask_narrower(bitmask_t a, bitmask_t b)
{
	int ca = bitmask_count(a), cb = bitmask_count(b);

	return ca != cb ? ca < cb : a < b;
}

/* Maps a dense mask to the mask of the real NUMA ids (ids[i] for bit i). */
static inline bitmask_t bitmask_to_ids(bitmask_t dense, const int *ids)
{
	bitmask_t out = 0;

	while (dense) {
		int i = bitmask_lowest(dense);

		out |= (bitmask_t)1 << ids[i];
		dense &= dense - 1;
	}
	return out;
}

/* Writes "0,2,3" (ids) into buf; "" for an empty mask. */
void bitmask_format(bitmask_t ids, char *buf, unsigned long size);

#endif
