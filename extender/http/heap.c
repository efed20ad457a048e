/* SPDX-License-Identifier: Apache-2.0 */
/* Requests allocate and free the same arrays of a megabyte or so again and
 * again (a 5000-name filter: the names, the snapshots looked up, the
 * decisions, the reply). glibc hands memory freed at the top of a heap back
 * to the system past a threshold, and maps blocks above another on their
 * own; both thresholds start low and move with what the process has freed
 * so far. Where they sat low, every request paid page faults on memory it
 * had freed a moment before (mapped again, zero-filled by the kernel), and
 * how fast a request went depended on what the process had freed before
 * it. Fixed thresholds keep that memory for the next request; only blocks
 * of HEAP_MAP_BYTES or more (bodies near the limit) still come and go on
 * their own, so what stays is bounded by the largest ordinary request, not
 * by the largest body. */
#include "extender/http/heap.h"

#include <stdlib.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

void heap_keep_for_requests(void)
{
#ifdef __GLIBC__
	/* Set before the heap's first use, the mapping threshold did not hold
	 * (glibc 2.36: a 4 MiB block was still mapped): use it first (through
	 * a volatile, so that the pair is not optimised away). */
	void *volatile first = malloc(1);

	free(first);
	(void)mallopt(M_MMAP_THRESHOLD, (int)HEAP_MAP_BYTES);
	(void)mallopt(M_TRIM_THRESHOLD, (int)HEAP_KEEP_BYTES);
#endif
}
