/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate`: reads the inputs once, runs one simulation per
 * --config (sim_place.h: kube-scheduler's cycle with numa-extender's
 * decide() as its extender) and reports them as text, JSON or an HTML page
 * (simulate_html.h). */
#include "extender/cmd/simulate.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/cmd/dra_paths.h"
#include "extender/cmd/sim_cluster.h"
#include "extender/cmd/sim_dra.h"
#include "extender/cmd/sim_place.h"
#include "extender/cmd/sim_report.h"
#include "extender/cmd/simulate_html.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/sched_node_decode.h"
#include "extender/codec/sched_pod_decode.h"
#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/http/heap.h"
#include "topology/bitmask.h"
#include "topology/demand.h"
#include "topology/inventory.h"

#define MAX_NRT 64
#define MAX_DRA 64
#define WHO "numa-extender simulate"

static const char usage_text[] =
	"usage: numa-extender simulate --nrt PATH [--nrt PATH ...] --pods FILE [options]\n"
	"Places the pods in order as kube-scheduler with numa-extender as its extender would,\n"
	"and reports placements, unschedulable pods, NUMA utilisation and fragmentation.\n"
	"  --nrt PATH               NodeResourceTopology objects: a file or a directory (required, up to 64)\n"
	"  --pods FILE              the pods to place, in order: one Pod, a List or a YAML stream (required)\n"
	"  --nodes FILE             Node objects (kubectl get nodes -o yaml); without: nodes from the NRTs\n"
	"  --running FILE           pods already bound (kubectl get pods -A -o yaml): their requests count\n"
	"  --scheduler-config FILE  KubeSchedulerConfiguration, or the ConfigMap holding it; default: built in\n"
	"  --dra PATH               DRA objects (slices, classes, claims, claim templates): a file or a directory (up to 64)\n"
	"  --version V              kube-scheduler version modelled, v1.32 to v1.35 (default v1.35)\n"
	"  --config FILE            numa-extender configuration; twice to compare two (A/B)\n"
	"  -o text|json             output format (default text)\n"
	"  --html FILE              also write a self-contained HTML page of the run(s) to FILE\n"
	"  -h, --help               this help\n"
	"Input files are regular files only, a pod, node or NRT file at most 16 MiB, a --config 1 MiB.\n"
	"Exit 0, or 2 on bad input.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Names what is wrong, then the usage; exit status 2. */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, WHO ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage_text);
	return 2;
}

struct args {
	const char *nrt[MAX_NRT];
	size_t nnrt;
	const char *dra[MAX_DRA];
	size_t ndra;
	const char *pods, *nodes, *running, *scheduler_config, *html;
	const char *configs[2];
	size_t nconfigs;
	enum sched_version version;
	bool json;
};

/* 0 to go on, 1 after --help, 2 on a bad command line. */
static int parse(int argc, char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof *a);
	a->version = SCHED_VERSION_DEFAULT;
	for (i = 0; i < argc; i++) {
		const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(f, "-h") == 0 || strcmp(f, "--help") == 0) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (strcmp(f, "--nrt") != 0 && strcmp(f, "--pods") != 0 && strcmp(f, "--nodes") != 0 &&
		    strcmp(f, "--running") != 0 && strcmp(f, "--scheduler-config") != 0 &&
		    strcmp(f, "--version") != 0 && strcmp(f, "--config") != 0 && strcmp(f, "-o") != 0 &&
		    strcmp(f, "--html") != 0 && strcmp(f, "--dra") != 0)
			return usage_error("unknown argument \"%s\"", f);
		if (v == NULL)
			return usage_error("%s needs a value", f);
		i++;
		if (strcmp(f, "--nrt") == 0) {
			if (a->nnrt == MAX_NRT)
				return usage_error("more than 64 %s", f);
			a->nrt[a->nnrt++] = v;
		} else if (strcmp(f, "--dra") == 0) {
			if (a->ndra == MAX_DRA)
				return usage_error("more than 64 %s", f);
			a->dra[a->ndra++] = v;
		} else if (strcmp(f, "--config") == 0) {
			if (a->nconfigs == 2)
				return usage_error("more than two %s", f);
			a->configs[a->nconfigs++] = v;
		} else if (strcmp(f, "-o") == 0) {
			if (strcmp(v, "json") != 0 && strcmp(v, "text") != 0)
				return usage_error("-o takes text or json, not \"%s\"", v);
			a->json = strcmp(v, "json") == 0;
		} else if (strcmp(f, "--version") == 0) {
			if (!sched_version_parse(v, &a->version))
				return usage_error("--version: \"%s\": expected v1.32, v1.33, v1.34 or v1.35", v);
		} else {
			const char **slot = strcmp(f, "--pods") == 0	? &a->pods
					    : strcmp(f, "--nodes") == 0 ? &a->nodes
					    : strcmp(f, "--running") == 0 ? &a->running
					    : strcmp(f, "--html") == 0	  ? &a->html
									  : &a->scheduler_config;

			if (*slot != NULL)
				return usage_error("%s given twice", f);
			*slot = v;
		}
	}
	if (a->nnrt == 0)
		return usage_error("%s is required", "--nrt");
	if (a->pods == NULL)
		return usage_error("%s is required", "--pods");
	return 0;
}

/* Items of a list that did not decode: fatal for the pods to place, left out
 * (and said on stderr) for the cluster's nodes and running pods. */
static enum err check_pods(const struct sched_pod *pods, size_t n, bool fatal, struct errmsg *msg)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct pod_demand *d = NULL;

		if (pods[i].invalid != NULL) {
			if (fatal) {
				errmsg_set(msg, "%s", pods[i].invalid);
				return ERR_INVALID;
			}
			fprintf(stderr, WHO ": left out: %s\n", pods[i].invalid);
			continue;
		}
		if (fatal) {
			if (pod_demand_new(&pods[i].spec, &d, msg) != ERR_OK) {
				errmsg_prefix(msg, "pod %s/%s: ", pods[i].spec.namespace_, pods[i].spec.name);
				return ERR_INVALID;
			}
			pod_demand_free(d);
		}
	}
	return ERR_OK;
}

static enum err load_inputs(const struct args *a, struct sim_inputs *in, struct sched_pod **pods,
			    size_t *npods, struct errmsg *msg)
{
	struct inventory_node **invs = NULL;
	size_t ninvs = 0, i, k;
	enum err rc = ERR_OK;

	if ((rc = sched_pods_load(a->pods, pods, npods, msg)) != ERR_OK ||
	    (rc = check_pods(*pods, *npods, true, msg)) != ERR_OK)
		return rc;
	for (i = 0; i < a->nnrt && rc == ERR_OK; i++) {
		struct nrt_object *objs = NULL;
		size_t n = 0;

		rc = nrt_load_path(a->nrt[i], &objs, &n, msg);
		for (k = 0; k < n && rc == ERR_OK; k++) {
			invs = xreallocarray(invs, ninvs + 1, sizeof *invs);
			rc = inventory_node_new(&objs[k], &invs[ninvs], msg);
			if (rc == ERR_OK)
				ninvs++;
			else
				errmsg_prefix(msg, "%s: node %s: ", a->nrt[i], objs[k].name);
		}
		nrt_objects_free(objs, n);
	}
	if (rc != ERR_OK) {
		for (i = 0; i < ninvs; i++)
			inventory_node_free(invs[i]);
		free(invs);
		return rc;
	}
	rc = sim_inputs_set_snapshots(in, invs, ninvs, msg);
	free(invs);
	if (rc == ERR_OK && a->nodes != NULL) {
		in->has_nodes = true;
		rc = sched_nodes_load(a->nodes, &in->nodes, &in->nnodes, msg);
		for (i = 0; rc == ERR_OK && i < in->nnodes; i++)
			if (in->nodes[i].invalid != NULL)
				fprintf(stderr, WHO ": left out: %s\n", in->nodes[i].invalid);
	}
	if (rc == ERR_OK && a->running != NULL) {
		rc = sched_pods_load(a->running, &in->running, &in->nrunning, msg);
		if (rc == ERR_OK)
			rc = check_pods(in->running, in->nrunning, false, msg);
	}
	return rc;
}

static const char *node_name(const struct sim_run *r, size_t i)
{
	return i == SIM_UNPLACED ? NULL : r->cluster.views[i].name;
}

/* ----- JSON ----- */

/* A placed pod's DRA verdict and devices (pods with claims, --dra). */
static struct json_object *dra_json(const struct sim_placement *pl)
{
	struct json_object *o = json_object_new_object(), *devs = json_object_new_array();
	size_t i;
	int b;

	json_object_object_add(o, "verdict", json_object_new_string(dra_outcome_name(pl->dra)));
	json_object_object_add(o, "why", json_object_new_string(pl->dra_why ? pl->dra_why : ""));
	for (i = 0; i < pl->ndevices; i++) {
		const struct sim_dra_device *d = &pl->devices[i];
		struct json_object *dev = json_object_new_object(), *numa = NULL;

		json_object_object_add(dev, "claim", json_object_new_string(d->claim));
		json_object_object_add(dev, "request", json_object_new_string(d->request));
		json_object_object_add(dev, "driver", json_object_new_string(d->driver));
		json_object_object_add(dev, "pool", json_object_new_string(d->pool));
		json_object_object_add(dev, "device", json_object_new_string(d->device));
		if (d->numa.known) {
			numa = json_object_new_array();
			for (b = 0; b < 64; b++)
				if ((d->numa.nodes >> b) & 1)
					json_object_array_add(numa, json_object_new_int(b));
		}
		json_object_object_add(dev, "numaNodes", numa);
		json_object_array_add(devs, dev);
	}
	json_object_object_add(o, "devices", devs);
	return o;
}

static struct json_object *placement_json(const struct sim_run *r, const struct sched_pod *pod,
					  const struct sim_placement *pl)
{
	struct json_object *p = json_object_new_object(), *ids = json_object_new_array();
	struct json_object *tied = json_object_new_array(), *plugins = json_object_new_object();
	char name[600];
	size_t i;
	int b;

	snprintf(name, sizeof name, "%s/%s", pod->spec.namespace_, pod->spec.name);
	json_object_object_add(p, "pod", json_object_new_string(name));
	json_object_object_add(p, "node", pl->node != SIM_UNPLACED
						  ? json_object_new_string(node_name(r, pl->node)) : NULL);
	for (b = 0; b < 64; b++)
		if ((pl->numa_ids >> b) & 1)
			json_object_array_add(ids, json_object_new_int(b));
	json_object_object_add(p, "numaNodes", ids);
	json_object_object_add(p, "score", json_object_new_int64(pl->ext_score));
	json_object_object_add(p, "reason", json_object_new_string(pl->reason ? pl->reason : ""));
	json_object_object_add(p, "total", json_object_new_int64(pl->score.total));
	json_object_object_add(p, "extenderPoints", json_object_new_int64(pl->score.extender));
	for (i = 0; pl->scored && i < SCHED_PLUGIN_COUNT; i++)
		if (pl->score.ran[i])
			json_object_object_add(plugins, sched_plugin_info((enum sched_plugin)i)->name,
					       json_object_new_int64(pl->score.weighted[i]));
	json_object_object_add(p, "pluginPoints", plugins);
	json_object_object_add(p, "scored", json_object_new_boolean(pl->scored));
	for (i = 0; i < pl->ntied; i++)
		json_object_array_add(tied, json_object_new_string(r->cluster.views[pl->tied[i]].name));
	json_object_object_add(p, "tied", tied);
	json_object_object_add(p, "askedExtender", json_object_new_boolean(pl->asked));
	json_object_object_add(p, "approximate", json_object_new_boolean(pl->approximate));
	if (pl->has_dra)
		json_object_object_add(p, "dra", dra_json(pl));
	return p;
}

static struct json_object *node_json(const struct sim_run *r, size_t i)
{
	const struct sim_node *sn = &r->cluster.numa[i];
	const struct inventory_node *inv = sn->now ? sn->now->inventory : NULL;
	struct json_object *no = json_object_new_object(), *res = json_object_new_array();
	int k, d;

	json_object_object_add(no, "node", json_object_new_string(r->cluster.views[i].name));
	for (k = 0; inv != NULL && k < inv->nresources; k++) {
		const struct inventory_resource *ir = &inv->resources[k];
		struct json_object *ro = json_object_new_object(), *per = json_object_new_array();
		struct sim_free before, after;

		if (ir->kind == RESOURCE_HOST) {
			json_object_put(ro);
			json_object_put(per);
			continue;
		}
		for (d = 0; d < inv->numa_count; d++) {
			int64_t a = ir->allocatable[d], f = ir->available[d] < 0 ? 0 : ir->available[d];

			json_object_array_add(per, json_object_new_int(a > 0 ? (int)((a - f) * 100 / a) : 0));
		}
		sim_free_of(sn->first->inventory, ir->name, &before);
		sim_free_of(inv, ir->name, &after);
		json_object_object_add(ro, "resource", json_object_new_string(ir->name));
		json_object_object_add(ro, "usedPercentPerNUMA", per);
		json_object_object_add(ro, "free", json_object_new_int64(after.free));
		json_object_object_add(ro, "fragmented", json_object_new_int64(after.fragmented));
		json_object_object_add(ro, "allocatable", json_object_new_int64(after.allocatable));
		json_object_object_add(ro, "freeBefore", json_object_new_int64(before.free));
		json_object_object_add(ro, "fragmentedBefore", json_object_new_int64(before.fragmented));
		json_object_array_add(res, ro);
	}
	json_object_object_add(no, "resources", res);
	json_object_object_add(no, "hasInventory", json_object_new_boolean(inv != NULL));
	return no;
}

static struct json_object *run_json(const struct sim_run *r, const struct sched_pod *pods,
				    size_t npods, bool has_running)
{
	struct json_object *o = json_object_new_object(), *pl = json_object_new_array();
	struct json_object *nodes = json_object_new_array(), *notes = json_object_new_array();
	struct json_object *sched = json_object_new_object(), *stats = json_object_new_object();
	char **lines = NULL;
	size_t i, n = sim_run_notes(r, has_running, false, &lines), *order;

	json_object_object_add(o, "config", json_object_new_string(r->label));
	json_object_object_add(o, "placed", json_object_new_int64((int64_t)r->nplaced));
	json_object_object_add(o, "unschedulable", json_object_new_int64((int64_t)(npods - r->nplaced)));
	for (i = 0; i < npods; i++)
		json_object_array_add(pl, placement_json(r, &pods[i], &r->placed[i]));
	order = sim_nodes_by_name(&r->cluster);
	for (i = 0; i < r->cluster.n; i++)
		json_object_array_add(nodes, node_json(r, order[i]));
	free(order);
	json_object_object_add(o, "placements", pl);
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(sched, "config", json_object_new_string(r->setup.source ? r->setup.source
											: "built-in"));
	json_object_object_add(sched, "version", json_object_new_string(sched_version_name(r->setup.version)));
	json_object_object_add(sched, "numaExtender", r->setup.has_numa
							      ? json_object_new_int64((int64_t)r->setup.numa) : NULL);
	json_object_object_add(sched, "otherExtenders", json_object_new_int64((int64_t)r->setup.other_extenders));
	json_object_object_add(sched, "nodesFromNRT", json_object_new_boolean(r->cluster.nrt_only));
	json_object_object_add(o, "scheduler", sched);
	for (i = 0; i < n; i++)
		json_object_array_add(notes, json_object_new_string(lines[i]));
	json_object_object_add(o, "notes", notes);
	json_object_object_add(stats, "cycles", json_object_new_int64((int64_t)r->stats.cycles));
	json_object_object_add(stats, "decided", json_object_new_int64((int64_t)r->stats.decided));
	json_object_object_add(stats, "judged", json_object_new_int64((int64_t)r->stats.judged));
	json_object_object_add(o, "stats", stats);
	sim_notes_free(lines, n);
	return o;
}

/* ----- text ----- */

static void node_text(const struct sim_run *r, size_t i)
{
	const struct sim_node *sn = &r->cluster.numa[i];
	const struct inventory_node *inv = sn->now ? sn->now->inventory : NULL;
	int k, d;

	printf("  %s%s\n", r->cluster.views[i].name, inv ? "" : "  (no inventory)");
	for (k = 0; inv != NULL && k < inv->nresources; k++) {
		const struct inventory_resource *ir = &inv->resources[k];
		struct sim_free f;
		char frag[32], total[32];

		if (ir->kind == RESOURCE_HOST)
			continue;
		printf("    %-34s", ir->name);
		for (d = 0; d < inv->numa_count; d++) {
			int64_t a = ir->allocatable[d], fr = ir->available[d] < 0 ? 0 : ir->available[d];

			printf(" %3d%%", a > 0 ? (int)((a - fr) * 100 / a) : 0);
		}
		sim_free_of(inv, ir->name, &f);
		resource_amount_format(ir->name, f.fragmented, frag, sizeof frag);
		resource_amount_format(ir->name, f.free, total, sizeof total);
		printf("   fragmented %s of %s free\n", frag, total);
	}
}

static void tied_text(const struct sim_run *r, const struct sim_placement *pl)
{
	size_t i, shown = 0;

	if (pl->ntied < 2)
		return;
	printf("  tied:");
	for (i = 0; i < pl->ntied && shown < 8; i++, shown++)
		printf("%s%s", i ? ", " : " ", r->cluster.views[pl->tied[i]].name);
	if (pl->ntied > shown)
		printf(" and %zu more", pl->ntied - shown);
}

static void run_text(const struct sim_run *r, const struct sched_pod *pods, size_t npods,
		     bool has_running)
{
	char **lines = NULL;
	const char **res = NULL;
	size_t i, n = sim_run_notes(r, has_running, false, &lines), nres, *order;

	printf("== %s: %zu placed, %zu unschedulable\n", r->label, r->nplaced, npods - r->nplaced);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	sim_notes_free(lines, n);
	for (i = 0; i < npods; i++) {
		const struct sim_placement *pl = &r->placed[i];
		char ids[200];

		bitmask_format(pl->numa_ids, ids, sizeof ids);
		if (pl->node == SIM_UNPLACED) {
			printf("  %-40s unschedulable: %s\n", pods[i].spec.name, pl->reason);
			continue;
		}
		printf("  %-40s -> %-24s NUMA %-8s score %lld", pods[i].spec.name, node_name(r, pl->node),
		       ids[0] ? ids : "-", (long long)pl->ext_score);
		if (pl->scored)
			printf("  total %lld", (long long)pl->score.total);
		else
			printf("  (the only feasible node)");
		tied_text(r, pl);
		printf("\n");
		if (pl->has_dra) {
			char line[2048];

			printf("    %s\n", sim_dra_line(pl, line, sizeof line));
		}
	}
	printf("  NUMA utilisation (used %% per NUMA node) and fragmentation:\n");
	order = sim_nodes_by_name(&r->cluster);
	for (i = 0; i < r->cluster.n; i++)
		node_text(r, order[i]);
	free(order);
	nres = sim_resource_names(&r->cluster, &res);
	printf("  cluster: free (fragmented: free no single NUMA node offers), before -> after:\n");
	for (i = 0; i < nres; i++) {
		struct sim_free b, a;
		char fb[32], ff[32], ab[32], af[32];

		sim_cluster_free(&r->cluster, res[i], false, &b);
		sim_cluster_free(&r->cluster, res[i], true, &a);
		resource_amount_format(res[i], b.free, fb, sizeof fb);
		resource_amount_format(res[i], b.fragmented, ff, sizeof ff);
		resource_amount_format(res[i], a.free, ab, sizeof ab);
		resource_amount_format(res[i], a.fragmented, af, sizeof af);
		printf("    %-34s %s (%s) -> %s (%s)\n", res[i], fb, ff, ab, af);
	}
	free(res);
}

static void difference_text(const struct sim_run *runs, const struct sched_pod *pods, size_t npods)
{
	size_t diff = 0, i;

	printf("== difference: placed %zu vs %zu\n", runs[0].nplaced, runs[1].nplaced);
	for (i = 0; i < npods; i++) {
		const char *x = node_name(&runs[0], runs[0].placed[i].node);
		const char *y = node_name(&runs[1], runs[1].placed[i].node);

		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0)) {
			printf("  %-40s %s -> %s\n", pods[i].spec.name, x ? x : "(unschedulable)",
			       y ? y : "(unschedulable)");
			diff++;
		}
	}
	printf("  %zu pod(s) placed differently\n", diff);
}

int simulate_main(int argc, char **argv)
{
	struct sim_inputs in;
	struct sched_pod *pods = NULL;
	struct dra_pod_claims *claims = NULL;
	size_t nclaims = 0;
	struct config cfg[2];
	struct settings *settings[2] = { NULL, NULL };
	struct sim_run runs[2];
	size_t npods = 0, nruns, c, i;
	struct errmsg msg;
	struct args a;
	int status = 2;

	switch (parse(argc, argv, &a)) {
	case 0:
		break;
	case 1:
		return 0;
	default:
		return 2;
	}
	/* Every placement allocates and frees arrays of a megabyte or so
	 * (a cycle's scores at 5000 nodes): keep them, as serve does. */
	heap_keep_for_requests();
	memset(&in, 0, sizeof in);
	memset(runs, 0, sizeof runs);
	nruns = a.nconfigs ? a.nconfigs : 1;
	for (c = 0; c < 2; c++)
		config_init(&cfg[c]);
	for (c = 0; c < a.nconfigs; c++)
		if (config_load_file(a.configs[c], &cfg[c], &msg) != ERR_OK)
			goto fail;
	if (load_inputs(&a, &in, &pods, &npods, &msg) != ERR_OK)
		goto fail;
	if (a.ndra > 0) {
		if (sim_pod_claims_load(a.pods, &claims, &nclaims, &msg) != ERR_OK)
			goto fail;
		if (nclaims != npods) {
			errmsg_set(&msg, "%s: changed while read (%zu pods, then %zu)", a.pods, npods, nclaims);
			goto fail;
		}
	}
	for (c = 0; c < nruns; c++) {
		runs[c].label = a.nconfigs ? a.configs[c] : "defaults";
		if (sim_setup_load(&runs[c].setup, a.scheduler_config, cfg[c].url_prefix, a.version,
				   &msg) != ERR_OK ||
		    sim_cluster_build(&in, a.version, &runs[c].cluster, &msg) != ERR_OK)
			goto fail;
		/* Each run allocates devices of its own: a store each, its
		 * warnings said once. */
		if (a.ndra > 0) {
			if (dra_paths_load(a.dra, a.ndra, c == 0 ? stderr : NULL, &runs[c].dra, &msg) != ERR_OK)
				goto fail;
			runs[c].claims = claims;
		}
		settings[c] = settings_new(&cfg[c]);
		sim_run_all(&runs[c], settings[c], pods, npods);
	}
	if (a.html != NULL && simulate_html_write(a.html, runs, nruns, pods, npods, a.running != NULL,
						  &msg) != ERR_OK)
		goto fail;
	if (a.json) {
		struct json_object *root = json_object_new_array();

		for (c = 0; c < nruns; c++)
			json_object_array_add(root, run_json(&runs[c], pods, npods, a.running != NULL));
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
									    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		for (c = 0; c < nruns; c++)
			run_text(&runs[c], pods, npods, a.running != NULL);
		if (nruns == 2)
			difference_text(runs, pods, npods);
	}
	status = 0;
	goto out;
fail:
	fprintf(stderr, WHO ": %s\n", msg.text);
out:
	for (c = 0; c < 2; c++) {
		sim_run_cleanup(&runs[c]);
		if (settings[c])
			settings_unref(settings[c]);
		config_cleanup(&cfg[c]);
	}
	sim_inputs_cleanup(&in);
	sched_pods_free(pods, npods);
	sim_pod_claims_free(claims, nclaims);
	(void)i;
	return status;
}
