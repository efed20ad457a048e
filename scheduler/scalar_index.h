/* SPDX-License-Identifier: Apache-2.0 */
/* The scalar resources of a node array (sched_resources.scalars of each
 * node's allocatable and requested) with their names interned as columns,
 * small integers, so that NodeResourcesFit finds a pod's requests on every
 * node of a simulation by comparing integers, not names, in one array read
 * in node order rather than four lists per node.
 *
 * The index copies the amounts. sched_scalar_index_sync re-reads a node
 * whose pod count changed or whose lists moved or changed length (what
 * sched_node_add_pod does), and every node when the array is another one;
 * a node changed any other way is not noticed: the caller then makes a new
 * index. */
#ifndef SCHEDULER_SCALAR_INDEX_H
#define SCHEDULER_SCALAR_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler/node_view.h"

#define SCHED_NO_COLUMN SIZE_MAX

struct sched_scalar_index;

struct sched_scalar_index *sched_scalar_index_new(void);
void sched_scalar_index_free(struct sched_scalar_index *x);

/* Makes x describe nodes[0..n). */
void sched_scalar_index_sync(struct sched_scalar_index *x,
			     const struct sched_node *nodes, size_t n);

/* name's column, or SCHED_NO_COLUMN when no node lists it. */
size_t sched_scalar_index_column(const struct sched_scalar_index *x,
				 const char *name);

/* Node i's allocatable and requested amounts of column col, 0 where its
 * lists lack it (col may be SCHED_NO_COLUMN), as of the last sync. */
void sched_scalar_index_amounts(const struct sched_scalar_index *x, size_t i,
				size_t col, int64_t *alloc, int64_t *used);

#endif
