/* SPDX-License-Identifier: Apache-2.0 */
/* The mutable state of one admission simulation on one node: what is free per
 * resource and NUMA node as containers are admitted one after another, what
 * init containers left reusable, and the memory manager's groups. Private to
 * topology/ (providers.c, allocate.c, judge.c). */
#ifndef TOPOLOGY_SIM_H
#define TOPOLOGY_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "bitmask.h"
#include "demand.h"
#include "hint.h"
#include "inventory.h"
#include "merge.h"

/* Init-container memory reusable by later containers, per exact NUMA mask and
 * memory type (memorymanager initContainersReusableMemory). */
struct mem_reuse {
	bitmask_t mask;
	int resource;
	int64_t amount;
};

/* Up to this many NUMA nodes the preferred phase and the memory manager's
 * best hint use bitmaps of all 2^n masks (a few words), which beats the
 * search on the common admissions; above it only the search scales. */
#define SIM_BITMAP_NUMA 8

/* Resource name -> index on one node, keyed by the demand's name pointers
 * (pod_demand_new makes equal names one pointer). */
struct sim_names {
	const char *name[16];
	int index[16];
	int n;
};

/* sim_init sets every field one by one (no memset of the whole): a new
 * field needs its line there. */
struct sim {
	const struct inventory_node *node;
	const struct pod_demand *pod;
	int n;
	bitmask_t full;
	struct arena *arena;          /* per-judgement scratch */
	/* Providers write rule lists (any NUMA count; the judge's merge) rather
	 * than 2^n mask sets, outside single-numa-node and full_enumeration. */
	bool rule_lists;
	/* Phase 1 of a merge: providers generate preferred hints only. */
	bool preferred_only;
	/* Build messages (JUDGE_DETAIL). */
	bool detail;
	int64_t *avail;               /* [resource * n + numa]: free now */
	int64_t *reuse;               /* [resource * n + numa]: reusable (cpu, devices) */
	int64_t *used;                /* [resource * n + numa]: taken by this pod */
	/* Whether reuse may hold anything but zeros: set once an init
	 * container allocates CPUs or devices. While false, the providers and
	 * Allocate skip their reuse arithmetic (every term is 0). */
	bool reuse_any;
	bitmask_t group[INVENTORY_MAX_NUMA];  /* memory manager "cells" */
	int assignments[INVENTORY_MAX_NUMA];
	bitmask_t assigned;           /* the NUMA nodes with assignments > 0 */
	bool multi_group;             /* some group has more than one node */
	struct mem_reuse *mem_reuse;
	size_t nmem_reuse;
	size_t mem_reuse_cap;
	/* Resource name -> node index, cached by the demand's name pointers
	 * (the same few names are looked up for every provider call); names
	 * points at own_names unless the judge shares one map between the
	 * judgement and the emptied-node check. */
	struct sim_names *names;
	struct sim_names own_names;
	/* Searches of rule lists (merge, providers, Allocate): a search out
	 * of budget makes the verdict "not simulated". */
	struct merge_stats stats;
	/* Why Allocate failed, for the verdict message. */
	char failure[256];
	const char *failed_resource;
};

static inline int64_t *sim_at(int64_t *base, const struct sim *s, int r)
{
	return base + (size_t)r * (size_t)s->n;
}

/* The node's index of a resource named by the pod demand, or -1. */
static inline int sim_names_find(struct sim_names *m, const struct inventory_node *node,
				 const char *name)
{
	int i, r;

	for (i = 0; i < m->n; i++)
		if (m->name[i] == name)
			return m->index[i];
	r = inventory_find(node, name);
	if (m->n < 16) {
		m->name[m->n] = name;
		m->index[m->n++] = r;
	}
	return r;
}

static inline int sim_resource(struct sim *s, const char *name)
{
	return sim_names_find(s->names, s->node, name);
}

/* What one container (or, in pod scope, the whole pod) asks for. */
struct ask {
	const char *container;        /* its name, or NULL for the whole pod */
	enum container_kind kind;
	int64_t cpus;
	const struct demand_amount *memory;
	size_t nmemory;
	bool memory_whole;
	const struct demand_amount *devices;
	size_t ndevices;
};

/* Provider outcome beyond the lists: a requested memory type (a hugepage
 * size) that no zone publishes, so no NUMA node can serve it. */
struct provider_notes {
	bool memory_missing_type;
	char missing[96];
	/* Phase 1 only: the memory provider found no preferred hint, so it may
	 * still say "no preference" (no hint at all) in phase 2. */
	bool memory_unsure;
};

/* Builds the flattened hint lists of every provider for one ask (devices,
 * CPUs, memory), in the form the node's policy needs. Lists that can only say
 * "no preference" are omitted: they never change the merge. Returns the
 * number of lists written to out (capacity: ndevices + 1 + nmemory). */
size_t providers_hints(struct sim *s, const struct ask *a, struct hint_list *out,
		       struct provider_notes *notes);

/* memorymanager calculateHints over every NUMA subset: fills the bitmaps all
 * and pref (maskset words for n) and returns the number of hints. */
size_t providers_memory_hints(struct sim *s, const struct demand_amount *memory,
			      size_t nmemory, uint64_t *all, uint64_t *pref);

/* calculateHints in rule form into l (see providers.c); false when the
 * provider has no hint at all. res: the node's index of each type. */
bool providers_memory_rule(struct sim *s, const struct demand_amount *memory, size_t k,
			   const int *res, struct hint_list *l);

/* The providers' Allocate for one container with its stored hint, in kubelet
 * order: devices, CPUs, memory. False (and s->failure, naming the container)
 * when one fails. */
bool allocate_container(struct sim *s, const struct container_demand *c, struct topo_hint hint);

/* A simulation of pod on node before any container: what is free, nothing
 * reusable yet, and the count view of memory groups (a zone whose free
 * memory is below its allocatable holds single-NUMA allocations). The
 * arrays come from state; s->arena (scratch) is the caller's to set. */
void sim_init(struct sim *s, const struct inventory_node *node, const struct pod_demand *pod,
	      struct arena *state);

#endif
