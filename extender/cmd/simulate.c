/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator keeps each node's snapshot and replaces it, after each
 * placement, by the snapshot minus the pod's predicted usage
 * (inventory_node_take): the same judge and score as serve, on the state the
 * placements leave behind. */
#include "extender/cmd/simulate.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/decide/decide.h"
#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/decide/settings.h"
#include "base/xalloc.h"
#include "topology/bitmask.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"

struct sim_node {
	struct inventory_node *inv;
};

struct placement {
	char *node;               /* NULL: unschedulable */
	uint64_t numa_ids;
	int64_t score;
	char reason[320];         /* unschedulable: the most common reason */
};

struct run {
	struct sim_node *nodes;
	size_t nnodes;
	struct placement *placed;
	size_t placed_count;
};

static int usage(void)
{
	fprintf(stderr, "usage: numa-extender simulate --nrt PATH [--nrt PATH ...] --pods PATH "
			"[--config FILE [--config FILE]] [-o text|json]\n"
			"  Regular files only (a FIFO or a device is refused), a pod list or NRT file\n"
			"  at most 16 MiB, a --config 1 MiB.\n");
	return 2;
}

/* Pods from a file: one pod, a multi-document stream, or a List. */
static enum err load_pods(const char *path, struct pod_spec **out, size_t *n, struct errmsg *msg)
{
	struct doc **docs = NULL;
	size_t ndocs = 0, len = 0, i, k;
	char *buf = NULL;
	enum err rc;

	*out = NULL;
	*n = 0;
	rc = file_read_all(path, FILE_READ_DOC_MAX_BYTES, &buf, &len, msg);
	if (rc == ERR_OK)
		rc = doc_parse(buf, len, path, &docs, &ndocs, msg);
	for (i = 0; rc == ERR_OK && i < ndocs; i++) {
		const struct doc *items = doc_get(docs[i], "items");
		size_t count = items && items->kind == DOC_ARRAY ? items->nchildren : 1;

		if (doc_is_null(docs[i]) || (docs[i]->kind == DOC_PLAIN && docs[i]->len == 0))
			continue;
		for (k = 0; rc == ERR_OK && k < count; k++) {
			const struct doc *d = items && items->kind == DOC_ARRAY ? items->children[k].value
										 : docs[i];

			*out = xreallocarray(*out, *n + 1, sizeof **out);
			memset(&(*out)[*n], 0, sizeof **out);
			rc = pod_decode_doc(d, path, &(*out)[*n], msg);
			if (rc == ERR_OK)
				(*n)++;
		}
	}
	doc_free_all(docs, ndocs);
	free(buf);
	return rc;
}

/* Takes the pod's predicted usage off the node (nothing here can fail: msg
 * is kept for the caller's error path). */
static enum err take(struct sim_node *sn, const struct verdict *v, struct errmsg *msg)
{
	const struct inventory_node *inv = sn->inv;
	struct inventory_usage *usage;
	struct inventory_node *fresh;
	size_t m = 0;
	int r, d;

	(void)msg;
	usage = xcalloc((size_t)inv->nresources * (size_t)inv->numa_count + 1, sizeof *usage);
	for (r = 0; r < inv->nresources; r++) {
		for (d = 0; d < inv->numa_count; d++) {
			int64_t used = verdict_usage(v, r, d);

			if (used == 0)
				continue;
			usage[m].resource = inv->resources[r].name;
			usage[m].numa_id = inv->numa_ids[d];
			usage[m].amount = used;
			m++;
		}
	}
	fresh = inventory_node_take(inv, usage, m);
	free(usage);
	inventory_node_free(sn->inv);
	sn->inv = fresh;
	return ERR_OK;
}

static int by_node_name(const void *a, const void *b)
{
	return strcmp(((const struct sim_node *)a)->inv->name, ((const struct sim_node *)b)->inv->name);
}

static enum err simulate(struct run *run, const struct pod_spec *pods, size_t npods,
			 const struct config *cfg, struct errmsg *msg)
{
	struct settings *settings = settings_new(cfg);
	struct decide_input in;
	size_t p, i;

	run->placed = xcalloc(npods + 1, sizeof *run->placed);
	/* The same decide as serve; the simulation's nodes change after every
	 * placement and are not store snapshots, so nothing is cached. */
	in.settings = settings;
	in.demand_id = 0;
	in.demand_fresh = false;
	in.flags = DECIDE_VERDICT;
	for (p = 0; p < npods; p++) {
		struct pod_demand *demand = NULL;
		struct placement *pl = &run->placed[p];
		size_t best = (size_t)-1;
		int64_t best_score = -1;
		struct decision bestd;
		char reasons[4][DECISION_REASON_MAX];
		size_t counts[4] = { 0, 0, 0, 0 }, nreasons = 0;

		if (pod_demand_new(&pods[p], &demand, msg) != ERR_OK) {
			settings_unref(settings);
			return ERR_INVALID;
		}
		in.demand = demand;
		memset(&bestd, 0, sizeof bestd);
		for (i = 0; i < run->nnodes; i++) {
			struct decision d;

			decide(&in, run->nodes[i].inv, 0, &d);
			if (!d.passes) {
				size_t k;

				for (k = 0; k < nreasons && strcmp(reasons[k], d.reason) != 0; k++)
					;
				if (k == nreasons && nreasons < 4)
					snprintf(reasons[nreasons++], sizeof reasons[0], "%s", d.reason);
				if (k < 4)
					counts[k]++;
				decision_cleanup(&d);
				continue;
			}
			/* Nodes are in name order: the first best wins ties. */
			if (d.score > best_score) {
				if (best != (size_t)-1)
					decision_cleanup(&bestd);
				best = i;
				best_score = d.score;
				bestd = d;
			} else {
				decision_cleanup(&d);
			}
		}
		if (best == (size_t)-1) {
			size_t k, top = 0;

			for (k = 1; k < nreasons; k++)
				if (counts[k] > counts[top])
					top = k;
			snprintf(pl->reason, sizeof pl->reason, "%zu node(s): %s",
				 nreasons ? counts[top] : 0, nreasons ? reasons[top] : "no node");
		} else {
			pl->node = xstrdup(run->nodes[best].inv->name);
			pl->score = best_score;
			pl->numa_ids = bestd.numa_ids;
			if (take(&run->nodes[best], &bestd.verdict, msg) != ERR_OK) {
				decision_cleanup(&bestd);
				pod_demand_free(demand);
				settings_unref(settings);
				return ERR_INVALID;
			}
			run->placed_count++;
			decision_cleanup(&bestd);
		}
		pod_demand_free(demand);
	}
	settings_unref(settings);
	return ERR_OK;
}

/* Per node and resource: NUMA utilisation, and fragmentation = free capacity
 * that no single NUMA node can offer (total free minus the largest free). */
static void node_report(const struct sim_node *sn, struct json_object *out, bool text)
{
	const struct inventory_node *inv = sn->inv;
	int r, d;

	if (text)
		printf("  %s\n", inv->name);
	for (r = 0; r < inv->nresources; r++) {
		const struct inventory_resource *res = &inv->resources[r];
		int64_t free_total = 0, free_max = 0, alloc = 0;
		struct json_object *ro = json_object_new_object(), *per = json_object_new_array();

		if (res->kind == RESOURCE_HOST)
			continue;
		if (text)
			printf("    %-34s", res->name);
		for (d = 0; d < inv->numa_count; d++) {
			int64_t a = res->allocatable[d], f = res->available[d] < 0 ? 0 : res->available[d];
			int pct = a > 0 ? (int)((a - f) * 100 / a) : 0;

			free_total += f;
			if (f > free_max)
				free_max = f;
			alloc += a;
			if (text)
				printf(" %3d%%", pct);
			json_object_array_add(per, json_object_new_int(pct));
		}
		if (text) {
			char frag[32], total[32];

			resource_amount_format(res->name, free_total - free_max, frag, sizeof frag);
			resource_amount_format(res->name, free_total, total, sizeof total);
			printf("   fragmented %s of %s free\n", frag, total);
		}
		json_object_object_add(ro, "resource", json_object_new_string(res->name));
		json_object_object_add(ro, "usedPercentPerNUMA", per);
		json_object_object_add(ro, "free", json_object_new_int64(free_total));
		json_object_object_add(ro, "fragmented", json_object_new_int64(free_total - free_max));
		json_object_array_add(out, ro);
		(void)alloc;
	}
}

static void run_free(struct run *run, size_t npods)
{
	size_t i;

	for (i = 0; i < run->nnodes; i++)
		inventory_node_free(run->nodes[i].inv);
	free(run->nodes);
	for (i = 0; i < npods && run->placed; i++)
		free(run->placed[i].node);
	free(run->placed);
}

int simulate_main(int argc, char **argv)
{
	const char *nrt_paths[64], *pods_path = NULL, *configs[2];
	size_t nnrt = 0, nconfigs = 0, npods = 0, i, c;
	struct pod_spec *pods = NULL;
	struct config cfg[2];
	struct run runs[2];
	struct errmsg msg;
	bool json = false;
	int a, status = 2;

	memset(runs, 0, sizeof runs);
	memset(cfg, 0, sizeof cfg);
	for (a = 0; a < argc; a++) {
		if (strcmp(argv[a], "--nrt") == 0 && a + 1 < argc && nnrt < 64)
			nrt_paths[nnrt++] = argv[++a];
		else if (strcmp(argv[a], "--pods") == 0 && a + 1 < argc)
			pods_path = argv[++a];
		else if (strcmp(argv[a], "--config") == 0 && a + 1 < argc && nconfigs < 2)
			configs[nconfigs++] = argv[++a];
		else if (strcmp(argv[a], "-o") == 0 && a + 1 < argc &&
			 (strcmp(argv[a + 1], "json") == 0 || strcmp(argv[a + 1], "text") == 0))
			json = strcmp(argv[++a], "json") == 0;
		else
			return usage();
	}
	if (nnrt == 0 || pods_path == NULL)
		return usage();
	for (c = 0; c < (nconfigs ? nconfigs : 1); c++) {
		config_init(&cfg[c]);
		if (nconfigs && config_load_file(configs[c], &cfg[c], &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender simulate: %s\n", msg.text);
			goto out;
		}
	}
	if (load_pods(pods_path, &pods, &npods, &msg) != ERR_OK) {
		fprintf(stderr, "numa-extender simulate: %s\n", msg.text);
		goto out;
	}
	for (c = 0; c < (nconfigs ? nconfigs : 1); c++) {
		for (i = 0; i < nnrt; i++) {
			struct nrt_object *objs = NULL;
			size_t n = 0, k;

			if (nrt_load_path(nrt_paths[i], &objs, &n, &msg) != ERR_OK) {
				fprintf(stderr, "numa-extender simulate: %s\n", msg.text);
				goto out;
			}
			for (k = 0; k < n; k++) {
				struct sim_node *sn;

				runs[c].nodes = xreallocarray(runs[c].nodes, runs[c].nnodes + 1,
							      sizeof *runs[c].nodes);
				sn = &runs[c].nodes[runs[c].nnodes];
				if (inventory_node_new(&objs[k], &sn->inv, &msg) != ERR_OK) {
					fprintf(stderr, "numa-extender simulate: node %s: %s\n", objs[k].name,
						msg.text);
					for (; k < n; k++)
						nrt_object_cleanup(&objs[k]);
					free(objs);
					goto out;
				}
				nrt_object_cleanup(&objs[k]);
				runs[c].nnodes++;
			}
			free(objs);
		}
		if (runs[c].nnodes > 0)
			qsort(runs[c].nodes, runs[c].nnodes, sizeof *runs[c].nodes, by_node_name);
		if (simulate(&runs[c], pods, npods, &cfg[c], &msg) != ERR_OK) {
			fprintf(stderr, "numa-extender simulate: %s\n", msg.text);
			goto out;
		}
	}
	if (json) {
		struct json_object *root = json_object_new_array();

		for (c = 0; c < (nconfigs ? nconfigs : 1); c++) {
			struct json_object *o = json_object_new_object(), *pl = json_object_new_array();
			struct json_object *nodes = json_object_new_array();

			json_object_object_add(o, "config", json_object_new_string(nconfigs ? configs[c] : "(defaults)"));
			json_object_object_add(o, "placed", json_object_new_int64((int64_t)runs[c].placed_count));
			json_object_object_add(o, "unschedulable",
					       json_object_new_int64((int64_t)(npods - runs[c].placed_count)));
			for (i = 0; i < npods; i++) {
				struct json_object *p = json_object_new_object(), *ids = json_object_new_array();
				char name[512];
				int b;

				snprintf(name, sizeof name, "%s/%s", pods[i].namespace_, pods[i].name);
				json_object_object_add(p, "pod", json_object_new_string(name));
				json_object_object_add(p, "node", runs[c].placed[i].node
									 ? json_object_new_string(runs[c].placed[i].node) : NULL);
				for (b = 0; b < 64; b++)
					if ((runs[c].placed[i].numa_ids >> b) & 1)
						json_object_array_add(ids, json_object_new_int(b));
				json_object_object_add(p, "numaNodes", ids);
				json_object_object_add(p, "score", json_object_new_int64(runs[c].placed[i].score));
				json_object_object_add(p, "reason", json_object_new_string(runs[c].placed[i].reason));
				json_object_array_add(pl, p);
			}
			for (i = 0; i < runs[c].nnodes; i++) {
				struct json_object *no = json_object_new_object(), *res = json_object_new_array();

				json_object_object_add(no, "node", json_object_new_string(runs[c].nodes[i].inv->name));
				node_report(&runs[c].nodes[i], res, false);
				json_object_object_add(no, "resources", res);
				json_object_array_add(nodes, no);
			}
			json_object_object_add(o, "placements", pl);
			json_object_object_add(o, "nodes", nodes);
			json_object_array_add(root, o);
		}
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
									    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		for (c = 0; c < (nconfigs ? nconfigs : 1); c++) {
			struct json_object *scratch = json_object_new_array();

			printf("== %s: %zu placed, %zu unschedulable\n", nconfigs ? configs[c] : "defaults",
			       runs[c].placed_count, npods - runs[c].placed_count);
			for (i = 0; i < npods; i++) {
				char ids[200];

				bitmask_format(runs[c].placed[i].numa_ids, ids, sizeof ids);
				if (runs[c].placed[i].node)
					printf("  %-40s -> %-24s NUMA %-8s score %lld\n", pods[i].name,
					       runs[c].placed[i].node, ids[0] ? ids : "-",
					       (long long)runs[c].placed[i].score);
				else
					printf("  %-40s unschedulable: %s\n", pods[i].name, runs[c].placed[i].reason);
			}
			printf("  NUMA utilisation (used %% per NUMA node) and fragmentation:\n");
			for (i = 0; i < runs[c].nnodes; i++)
				node_report(&runs[c].nodes[i], scratch, true);
			json_object_put(scratch);
		}
		if (nconfigs == 2) {
			size_t diff = 0;

			printf("== difference: placed %zu vs %zu\n", runs[0].placed_count, runs[1].placed_count);
			for (i = 0; i < npods; i++) {
				const char *x = runs[0].placed[i].node, *y = runs[1].placed[i].node;

				if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0)) {
					printf("  %-40s %s -> %s\n", pods[i].name, x ? x : "(unschedulable)",
					       y ? y : "(unschedulable)");
					diff++;
				}
			}
			printf("  %zu pod(s) placed differently\n", diff);
		}
	}
	status = 0;
out:
	for (c = 0; c < 2; c++) {
		run_free(&runs[c], npods);
		config_cleanup(&cfg[c]);
	}
	for (i = 0; i < npods; i++)
		pod_spec_cleanup(&pods[i]);
	free(pods);
	return status;
}
