/* SPDX-License-Identifier: Apache-2.0 */
/* Ownership of node views, their labels, what assigned pods add to them,
 * and the node tree's order. */
#include "node_view.h"

#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/xalloc.h"
#include "scheduler/requests.h"

void sched_node_cleanup(struct sched_node *node)
{
	size_t i;

	if (node == NULL)
		return;
	free(node->name);
	for (i = 0; i < node->nlabels; i++) {
		free(node->labels[i].key);
		free(node->labels[i].value);
	}
	free(node->labels);
	for (i = 0; i < node->ntaints; i++) {
		free(node->taints[i].key);
		free(node->taints[i].value);
	}
	free(node->taints);
	sched_resources_cleanup(&node->allocatable);
	sched_resources_cleanup(&node->requested);
	free(node->invalid);
	memset(node, 0, sizeof *node);
}

void sched_nodes_free(struct sched_node *nodes, size_t n)
{
	size_t i;

	if (nodes == NULL)
		return;
	for (i = 0; i < n; i++)
		sched_node_cleanup(&nodes[i]);
	free(nodes);
}

const char *sched_node_label(const struct sched_node *node, const char *key)
{
	size_t i;

	for (i = 0; i < node->nlabels; i++)
		if (strcmp(node->labels[i].key, key) == 0)
			return node->labels[i].value;
	return NULL;
}

void sched_node_add_pod(struct sched_node *node, const struct sched_pod *pod,
			enum sched_version v)
{
	struct sched_resources req = { 0 };
	int64_t cpu = 0, mem = 0;

	sched_pod_node_usage(pod, v, &req, &cpu, &mem);
	/* A pod's "pods" request, if any, is no part of Requested. */
	req.pods = 0;
	sched_resources_add_all(&node->requested, &req);
	node->nonzero_milli_cpu = i64_add_sat(node->nonzero_milli_cpu, cpu);
	node->nonzero_memory = i64_add_sat(node->nonzero_memory, mem);
	node->npods = i64_add_sat(node->npods, 1);
	sched_resources_cleanup(&req);
}

struct name_index {
	const char *name;
	size_t index;
};

static int name_index_cmp(const void *pa, const void *pb)
{
	const struct name_index *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c != 0)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

/* The node named name in the sorted table, or SIZE_MAX. A name given twice
 * resolves to its first node. */
static size_t lookup(const struct name_index *t, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(t[lo].name, name) == 0 ? t[lo].index : SIZE_MAX;
}

size_t sched_nodes_add_pods(struct sched_node *nodes, size_t n,
			    const struct sched_pod *pods, size_t npods,
			    enum sched_version v)
{
	struct name_index *t = xcalloc(n > 0 ? n : 1, sizeof *t);
	size_t i, nt = 0, unknown = 0;

	for (i = 0; i < n; i++)
		if (nodes[i].invalid == NULL && nodes[i].name != NULL)
			t[nt++] = (struct name_index){ nodes[i].name, i };
	if (nt > 0)
		qsort(t, nt, sizeof *t, name_index_cmp);
	for (i = 0; i < npods; i++) {
		size_t at;

		if (!sched_pod_is_assigned(&pods[i]))
			continue;
		at = lookup(t, nt, pods[i].node_name);
		if (at == SIZE_MAX)
			unknown++;
		else
			sched_node_add_pod(&nodes[at], &pods[i], v);
	}
	free(t);
	return unknown;
}

/* GetZoneKey's parts: the deprecated beta label wins over the GA one. */
static const char *zone_part(const struct sched_node *node, const char *beta,
			     const char *ga)
{
	const char *v = sched_node_label(node, beta);

	if (v == NULL)
		v = sched_node_label(node, ga);
	return v != NULL ? v : "";
}

struct tree_slot {
	const char *region;
	const char *zone;
	size_t index;
	size_t zone_first; /* the first node of its zone: the zone's order */
	size_t rank;       /* its place within its zone */
};

static int by_zone(const void *pa, const void *pb)
{
	const struct tree_slot *a = pa, *b = pb;
	int c = strcmp(a->region, b->region);

	if (c == 0)
		c = strcmp(a->zone, b->zone);
	if (c != 0)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

static int by_round(const void *pa, const void *pb)
{
	const struct tree_slot *a = pa, *b = pb;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->zone_first > b->zone_first) - (a->zone_first < b->zone_first);
}

void sched_node_tree_order(const struct sched_node *nodes, size_t n,
			   size_t *order)
{
	struct tree_slot *s;
	size_t i, start = 0;

	if (n == 0)
		return;
	s = xcalloc(n, sizeof *s);
	for (i = 0; i < n; i++) {
		s[i].region = zone_part(&nodes[i], "failure-domain.beta.kubernetes.io/region",
					"topology.kubernetes.io/region");
		s[i].zone = zone_part(&nodes[i], "failure-domain.beta.kubernetes.io/zone",
				      "topology.kubernetes.io/zone");
		s[i].index = i;
	}
	/* Group by zone (sorting, so that many zones stay cheap); within a
	 * zone nodes keep their insertion order. */
	qsort(s, n, sizeof *s, by_zone);
	for (i = 0; i < n; i++) {
		if (i > 0 && (strcmp(s[i].region, s[i - 1].region) != 0 ||
			      strcmp(s[i].zone, s[i - 1].zone) != 0))
			start = i;
		s[i].zone_first = s[start].index;
		s[i].rank = i - start;
	}
	/* The tree lists the r-th node of every zone, zones in order of first
	 * appearance, for r = 0, 1, ... */
	qsort(s, n, sizeof *s, by_round);
	for (i = 0; i < n; i++)
		order[i] = s[i].index;
	free(s);
}
