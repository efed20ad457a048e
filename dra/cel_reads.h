/* SPDX-License-Identifier: Apache-2.0 */
/* What a compiled selector reads of its device, when that is a fixed list
 * of entries (device.driver, device.attributes[D].N, device.capacity[D].N
 * with constant D and N, has() of them, device.allowMultipleAllocations):
 * then the selector's answer on a device is a function of those entries'
 * values alone, and devices that agree on them (the same model of GPU on
 * every node, whatever its UUID or bus address) agree on the answer. The
 * allocator's prediction evaluates each selector once per such class of
 * devices in a request instead of once per device of every node. */
#ifndef DRA_CEL_READS_H
#define DRA_CEL_READS_H

#include <stdbool.h>
#include <stdint.h>

#include "dra/cel_ast.h"
#include "dra/types.h"

enum cel_read_kind {
	CEL_READ_DRIVER,
	CEL_READ_MULTIPLE,      /* device.allowMultipleAllocations */
	CEL_READ_ATTRIBUTE,
	CEL_READ_CAPACITY,
};

struct cel_read {
	enum cel_read_kind kind;
	const char *domain, *name; /* ATTRIBUTE, CAPACITY: in the program's arena */
	size_t domain_len, name_len;
	uint64_t name_hash;        /* cel_entry_name_hash of domain and name */
};

/* Fills p->reads (in its arena) and p->reads_fixed after the checker. */
void cel_reads_collect(struct dra_cel_program *p);

/* Whether every version attribute of d parses (the evaluator fails the
 * device otherwise, whatever the expression reads). cel_eval.c. */
bool cel_device_versions_parse(const struct dra_device *d);

#endif
