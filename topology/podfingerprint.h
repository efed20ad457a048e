/* SPDX-License-Identifier: Apache-2.0 */
/* The pod-set fingerprint NRT agents publish in nodeTopologyPodsFingerprint
 * (k8stopologyawareschedwg/podfingerprint, version v001): XXH64 of each pod's
 * name seeded with XXH64 of its namespace, the hashes sorted, then XXH64 of
 * their little-endian concatenation, as "pfp0v001" + 16 hex digits. The
 * ledger compares it with the pods it knows on a node to tell when an NRT
 * update already includes them. Pure; uses libxxhash. */
#ifndef TOPOLOGY_PODFINGERPRINT_H
#define TOPOLOGY_PODFINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

struct pod_ref {
	const char *namespace_;
	const char *name;
};

#define PODFINGERPRINT_LEN 24 /* "pfp0v001" + 16 hex digits */

/* Writes the fingerprint of the pod set (order does not matter) into buf
 * (PODFINGERPRINT_LEN + 1 bytes). */
void podfingerprint(const struct pod_ref *pods, size_t n, char *buf);

#endif
