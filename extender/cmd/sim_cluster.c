/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated cluster and its scheduler configuration (sim_cluster.h). */
#include "extender/cmd/sim_cluster.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/codec/sched_config_decode.h"
#include "scheduler/resources.h"
#include "topology/inventory.h"

static int snap_by_name(const void *a, const void *b)
{
	const struct store_node *x = *(const struct store_node *const *)a;
	const struct store_node *y = *(const struct store_node *const *)b;

	return strcmp(x->inventory->name, y->inventory->name);
}

enum err sim_inputs_set_snapshots(struct sim_inputs *in, struct inventory_node **invs,
				  size_t n, struct errmsg *msg)
{
	size_t i;

	in->snaps = xcalloc(n + 1, sizeof *in->snaps);
	for (i = 0; i < n; i++)
		in->snaps[i] = store_node_new(invs[i], "simulate", invs[i]->version, NULL);
	in->nsnaps = n;
	if (n > 1)
		qsort(in->snaps, n, sizeof *in->snaps, snap_by_name);
	for (i = 1; i < n; i++)
		if (strcmp(in->snaps[i]->inventory->name, in->snaps[i - 1]->inventory->name) == 0) {
			errmsg_set(msg, "node \"%s\": two NodeResourceTopology objects",
				   in->snaps[i]->inventory->name);
			return ERR_INVALID;
		}
	return ERR_OK;
}

void sim_inputs_cleanup(struct sim_inputs *in)
{
	size_t i;

	for (i = 0; i < in->nsnaps; i++)
		store_node_unref(in->snaps[i]);
	free(in->snaps);
	sched_nodes_free(in->nodes, in->nnodes);
	sched_pods_free(in->running, in->nrunning);
	memset(in, 0, sizeof *in);
}

/* The snapshot of node name, or NULL. */
static const struct store_node *snapshot_of(const struct sim_inputs *in, const char *name)
{
	size_t lo = 0, hi = in->nsnaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(in->snaps[mid]->inventory->name, name);

		if (c == 0)
			return in->snaps[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sim_view_from_inventory(const struct inventory_node *inv, struct sched_node *view)
{
	bool storage = false;
	int r;

	memset(view, 0, sizeof *view);
	view->name = xstrdup(inv->name);
	view->cpu_known = false;
	view->allocatable.pods = SIM_NRT_ONLY_PODS;
	for (r = 0; r < inv->nresources; r++) {
		const struct inventory_resource *res = &inv->resources[r];

		if (res->kind == RESOURCE_CPU)
			continue;
		if (strcmp(res->name, "ephemeral-storage") == 0)
			storage = true;
		/* "pods" in a zone has no NUMA meaning: the kubelet's maxPods
		 * stands. Names the scheduler does not keep are dropped by
		 * sched_resources_set. */
		if (strcmp(res->name, "pods") != 0)
			sched_resources_set(&view->allocatable, res->name, res->total_allocatable);
	}
	/* Unknown amounts are not checked: a node whose zones list no memory
	 * (its memory manager is off) or no ephemeral-storage. */
	if (!inv->memory_listed)
		view->allocatable.memory = INT64_MAX;
	if (!storage)
		view->allocatable.ephemeral_storage = INT64_MAX;
}

/* A deep copy of a decoded Node (nothing requested yet). */
static void view_copy(struct sched_node *dst, const struct sched_node *src)
{
	size_t i;

	memset(dst, 0, sizeof *dst);
	dst->name = src->name ? xstrdup(src->name) : NULL;
	dst->invalid = src->invalid ? xstrdup(src->invalid) : NULL;
	dst->labels = xcalloc(src->nlabels + 1, sizeof *dst->labels);
	for (i = 0; i < src->nlabels; i++) {
		dst->labels[i].key = xstrdup(src->labels[i].key);
		dst->labels[i].value = xstrdup(src->labels[i].value);
	}
	dst->nlabels = src->nlabels;
	dst->taints = xcalloc(src->ntaints + 1, sizeof *dst->taints);
	for (i = 0; i < src->ntaints; i++) {
		dst->taints[i].key = xstrdup(src->taints[i].key);
		dst->taints[i].value = xstrdup(src->taints[i].value);
		dst->taints[i].effect = src->taints[i].effect;
	}
	dst->ntaints = src->ntaints;
	dst->unschedulable = src->unschedulable;
	dst->cpu_known = src->cpu_known;
	sched_resources_copy(&dst->allocatable, &src->allocatable);
	sched_resources_copy(&dst->requested, &src->requested);
	dst->nonzero_milli_cpu = src->nonzero_milli_cpu;
	dst->nonzero_memory = src->nonzero_memory;
	dst->npods = src->npods;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static enum err duplicate_names(const struct sched_node *nodes, size_t n, struct errmsg *msg)
{
	const char **names = xcalloc(n + 1, sizeof *names);
	size_t i, k = 0;
	enum err rc = ERR_OK;

	for (i = 0; i < n; i++)
		if (nodes[i].invalid == NULL)
			names[k++] = nodes[i].name;
	qsort(names, k, sizeof *names, by_string);
	for (i = 1; i < k && rc == ERR_OK; i++)
		if (strcmp(names[i], names[i - 1]) == 0) {
			errmsg_set(msg, "node \"%s\" listed twice", names[i]);
			rc = ERR_INVALID;
		}
	free(names);
	return rc;
}

/* The views in the scheduler's order; numa[i] follows views[i]. */
static void tree_order(struct sim_cluster *c)
{
	size_t *order = xcalloc(c->n + 1, sizeof *order), i;
	struct sched_node *views = xcalloc(c->n + 1, sizeof *views);
	struct sim_node *numa = xcalloc(c->n + 1, sizeof *numa);

	sched_node_tree_order(c->views, c->n, order);
	for (i = 0; i < c->n; i++) {
		views[i] = c->views[order[i]];
		numa[i] = c->numa[order[i]];
	}
	free(c->views);
	free(c->numa);
	free(order);
	c->views = views;
	c->numa = numa;
}

enum err sim_cluster_build(const struct sim_inputs *in, enum sched_version v,
			   struct sim_cluster *out, struct errmsg *msg)
{
	size_t i, listed = 0;

	memset(out, 0, sizeof *out);
	if (in->has_nodes) {
		enum err rc = duplicate_names(in->nodes, in->nnodes, msg);

		if (rc != ERR_OK)
			return rc;
		out->views = xcalloc(in->nnodes + 1, sizeof *out->views);
		out->numa = xcalloc(in->nnodes + 1, sizeof *out->numa);
		for (i = 0; i < in->nnodes; i++) {
			const struct store_node *snap;

			if (in->nodes[i].invalid != NULL) {
				out->invalid_nodes++;
				continue;
			}
			view_copy(&out->views[out->n], &in->nodes[i]);
			snap = snapshot_of(in, in->nodes[i].name);
			if (snap != NULL) {
				store_node_ref(snap);
				store_node_ref(snap);
				listed++;
			} else {
				out->no_inventory++;
			}
			out->numa[out->n].first = snap;
			out->numa[out->n].now = snap;
			out->n++;
		}
		out->nrt_unlisted = in->nsnaps - listed;
	} else {
		out->nrt_only = true;
		out->views = xcalloc(in->nsnaps + 1, sizeof *out->views);
		out->numa = xcalloc(in->nsnaps + 1, sizeof *out->numa);
		for (i = 0; i < in->nsnaps; i++) {
			sim_view_from_inventory(in->snaps[i]->inventory, &out->views[i]);
			store_node_ref(in->snaps[i]);
			store_node_ref(in->snaps[i]);
			out->numa[i].first = in->snaps[i];
			out->numa[i].now = in->snaps[i];
		}
		out->n = in->nsnaps;
	}
	for (i = 0; i < in->nrunning; i++)
		out->running += sched_pod_is_assigned(&in->running[i]);
	out->running_elsewhere = sched_nodes_add_pods(out->views, out->n, in->running,
						      in->nrunning, v);
	out->running -= out->running_elsewhere;
	tree_order(out);
	return ERR_OK;
}

void sim_cluster_cleanup(struct sim_cluster *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		sched_node_cleanup(&c->views[i]);
		if (c->numa[i].first != NULL)
			store_node_unref(c->numa[i].first);
		if (c->numa[i].now != NULL)
			store_node_unref(c->numa[i].now);
	}
	free(c->views);
	free(c->numa);
	memset(c, 0, sizeof *c);
}

void sim_cluster_replace(struct sim_cluster *c, size_t i, struct store_node *snap)
{
	if (c->numa[i].now != NULL)
		store_node_unref(c->numa[i].now);
	c->numa[i].now = snap;
}

/* Whether the extender's urlPrefix, less trailing slashes, ends with path. */
static bool ends_with_path(const char *url, const char *path)
{
	size_t n = strlen(url), k = strlen(path);

	while (n > 0 && url[n - 1] == '/')
		n--;
	while (k > 0 && path[k - 1] == '/')
		k--;
	return k > 0 && n >= k && strncmp(url + n - k, path, k) == 0 &&
	       (path[0] == '/' || n == k || url[n - k - 1] == '/');
}

static enum err find_numa(struct sim_setup *s, const char *path, struct errmsg *msg)
{
	const struct sched_config *c = &s->config;
	struct textbuf t;
	char names[400];
	size_t i;

	for (i = 0; i < c->nextenders; i++)
		if (ends_with_path(c->extenders[i].url_prefix ? c->extenders[i].url_prefix : "", path)) {
			s->has_numa = true;
			s->numa = i;
			break;
		}
	if (!s->has_numa && c->nextenders == 1) {
		s->has_numa = true;
		s->numa = 0;
	}
	if (!s->has_numa && c->nextenders > 1) {
		textbuf_init_fixed(&t, names, sizeof names);
		for (i = 0; i < c->nextenders; i++) {
			textbuf_adds(&t, i ? ", " : "");
			textbuf_quote(&t, c->extenders[i].url_prefix ? c->extenders[i].url_prefix : "",
				      c->extenders[i].url_prefix ? strlen(c->extenders[i].url_prefix) : 0,
				      100, 0);
		}
		errmsg_set(msg, "no extender's urlPrefix ends with \"%s\" (numa-extender's urlPrefix) "
				"among %s",
			   path, textbuf_str(&t));
		return ERR_INVALID;
	}
	s->other_extenders = c->nextenders - (s->has_numa ? 1 : 0);
	return ERR_OK;
}

enum err sim_setup_load(struct sim_setup *s, const char *path, const char *url_prefix,
			enum sched_version v, struct errmsg *msg)
{
	enum err rc;

	memset(s, 0, sizeof *s);
	s->version = v;
	if (path == NULL) {
		s->builtin = true;
		rc = sched_config_decode(SIM_BUILTIN_CONFIG, strlen(SIM_BUILTIN_CONFIG),
					 "the built-in scheduler configuration", &s->config, msg);
	} else {
		s->source = xstrdup(path);
		rc = sched_config_load(path, &s->config, msg);
	}
	if (rc == ERR_OK)
		rc = find_numa(s, url_prefix && url_prefix[0] ? url_prefix : SIM_DEFAULT_URL_PATH,
			       msg);
	return rc;
}

void sim_setup_cleanup(struct sim_setup *s)
{
	sched_config_cleanup(&s->config);
	free(s->source);
	memset(s, 0, sizeof *s);
}

const struct sched_profile *sim_profile_for(const struct sim_setup *s,
					    const struct sched_pod *pod, bool *fallback)
{
	const struct sched_profile *p = NULL;

	*fallback = false;
	if (!s->builtin)
		p = sched_config_profile(&s->config, sched_pod_scheduler(pod));
	if (p == NULL && (s->builtin || s->config.nprofiles == 1)) {
		p = &s->config.profiles[0];
		*fallback = !s->builtin;
	}
	return p;
}
