/* SPDX-License-Identifier: Apache-2.0 */
/* The NUMA node of a DRA device, from what its driver publishes, in this
 * order:
 *  1. resource.kubernetes.io/numaNode: an int, or a list of ints whose first
 *     element is the device's own node (the rest are nodes at the same
 *     distance; k8s.io/dynamic-resource-allocation/deviceattribute
 *     numa_linux.go);
 *  2. a driver's own attribute where a driver publishes one (NVIDIA's VFIO
 *     devices: the unqualified int `numa`, i.e. gpu.nvidia.com/numa);
 *  3. the PCIe root: other devices of the same node (any driver) that
 *     publish both resource.kubernetes.io/pcieRoot (a string, or a list of
 *     strings) and a NUMA node by 1 or 2 give that root's NUMA node to the
 *     devices that publish the root (dra-driver-cpu with
 *     --expose-pcie-roots publishes the roots of each NUMA node's CPUs);
 *  4. else unknown.
 * NUMA ids are 0..63 (a 64-bit set); a negative or larger id reads as
 * unknown. Pure. */
#ifndef DRA_NUMA_H
#define DRA_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/textbuf.h"
#include "dra/types.h"

#define DRA_NUMA_DOMAIN "resource.kubernetes.io"
#define DRA_NUMA_ATTR "numaNode"
#define DRA_PCIE_ROOT_ATTR "pcieRoot"

/* A set of NUMA ids: one for a device that says where it sits; several only
 * when a PCIe root is published by devices of more than one node. */
struct dra_numa {
	bool known;
	uint64_t nodes;
};

enum dra_numa_source {
	DRA_NUMA_UNKNOWN,
	DRA_NUMA_STANDARD,  /* resource.kubernetes.io/numaNode */
	DRA_NUMA_DRIVER,    /* the driver's own attribute */
	DRA_NUMA_PCIE_ROOT, /* inferred from the device's PCIe root */
};

/* Where the PCIe roots of one node sit: built from that node's devices. */
struct dra_numa_root {
	const char *root; /* borrowed from the device's attribute */
	uint64_t nodes;
};

struct dra_numa_roots {
	struct dra_numa_root *v;
	size_t n, cap;
};

/* Rules 1 and 2 alone: what d says of itself. */
/* Keeps dra_numa_own's answer in d (its attributes must not change after). */
void dra_numa_cache(struct dra_device *d);
enum dra_numa_source dra_numa_own(const struct dra_device *d, struct dra_numa *out);

/* Records d's PCIe roots when d says its own NUMA node. */
void dra_numa_roots_add(struct dra_numa_roots *r, const struct dra_device *d);
void dra_numa_roots_free(struct dra_numa_roots *r);

/* Every rule; roots may be NULL (no inference). */
enum dra_numa_source dra_device_numa(const struct dra_device *d, const struct dra_numa_roots *roots,
				     struct dra_numa *out);

const char *dra_numa_source_name(enum dra_numa_source s);

/* The ids of nodes, comma-separated ("0,1"). */
void dra_numa_ids(struct textbuf *b, uint64_t nodes);
/* "1", "0,1", or "unknown", in buf. */
const char *dra_numa_text(const struct dra_numa *n, char *buf, size_t size);

#endif
