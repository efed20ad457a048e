/* SPDX-License-Identifier: Apache-2.0 */
/* The C library's heap, set for serving requests (see heap.c). */
#ifndef EXTENDER_HEAP_H
#define EXTENDER_HEAP_H

/* Fixed thresholds: up to HEAP_KEEP_BYTES freed at the top of a heap stays
 * with the process, and only blocks of HEAP_MAP_BYTES or more are mapped
 * (and returned) on their own. Process-wide; server_start calls it. */
#define HEAP_KEEP_BYTES ((long)64 << 20)
#define HEAP_MAP_BYTES ((long)16 << 20)
void heap_keep_for_requests(void);

#endif
