/* SPDX-License-Identifier: Apache-2.0 */
/* What simulate's three outputs (text, JSON, HTML) say alike: the notes on
 * how a run was modelled, and free capacity and fragmentation (free capacity
 * that no single NUMA node offers: the free total less the largest free
 * amount of one zone) per node and over the cluster. */
#ifndef EXTENDER_SIM_REPORT_H
#define EXTENDER_SIM_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "extender/cmd/sim_place.h"
#include "topology/inventory.h"

/* One line each: the scheduler configuration and version, numa-extender's
 * place in it, other extenders, where the nodes came from, the running
 * pods, what the profiles turn on that is not modelled. Heap strings in a
 * heap array; free with sim_notes_free. has_running: --running was given;
 * no_urls: leave the extender's urlPrefix out (the HTML page names no URL). */
size_t sim_run_notes(const struct sim_run *r, bool has_running, bool no_urls, char ***lines);
void sim_notes_free(char **lines, size_t n);

struct sim_free {
	int64_t allocatable; /* over the zones */
	int64_t used;        /* allocatable - free */
	int64_t free;        /* over the zones, each at least 0 */
	int64_t fragmented;  /* free - the largest zone's free */
};

/* resource's amounts on inv (zeros when inv is NULL or lacks it). */
void sim_free_of(const struct inventory_node *inv, const char *resource, struct sim_free *out);

/* The NUMA-bound resource names of the cluster's snapshots (cpu, memory,
 * hugepages and devices; not ephemeral-storage or pods), cpu first, then
 * memory, then the rest by name. Borrowed from the snapshots; the array is
 * the caller's to free. */
size_t sim_resource_names(const struct sim_cluster *c, const char ***names);

/* Sums of sim_free_of over the cluster's nodes, before (first) or after
 * (now) the placements. */
void sim_cluster_free(const struct sim_cluster *c, const char *resource, bool after,
		      struct sim_free *out);

/* A placed pod's DRA verdict (has_dra) as one line in buf, returned:
 * "DRA aligned: gpu/gpu gpu-0 (gpu.example.com, NUMA 0)", then the why
 * after "; " when there is one. */
const char *sim_dra_line(const struct sim_placement *pl, char *buf, size_t size);

/* The cluster's node indices sorted by name (reports list nodes so; the
 * scheduler's order is its node tree's). n = c->n entries, heap. */
size_t *sim_nodes_by_name(const struct sim_cluster *c);

#endif
