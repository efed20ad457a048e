/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender explain --pod FILE --nrt PATH [--nrt PATH ...] [--dra PATH ...]
 * [-o json|text]`: decode, build snapshots, judge with the one judge, print. */
#include "extender/cmd/explain.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "extender/cmd/explain_dra.h"
#include "extender/cmd/usage.h"
#include "extender/decide/decide.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/decide/settings.h"
#include "extender/codec/verdict_json.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"
#include "extender/config.h"

/* What the pod asks of a resource in total (pod-scope aggregation), for the
 * table's last column. */
static int64_t pod_asks(const struct pod_demand *d, const char *name)
{
	size_t i;

	if (strcmp(name, "cpu") == 0)
		return d->pod_cpus;
	for (i = 0; i < d->npod_memory; i++)
		if (strcmp(d->pod_memory[i].name, name) == 0)
			return d->pod_memory[i].amount;
	for (i = 0; i < d->npod_devices; i++)
		if (strcmp(d->pod_devices[i].name, name) == 0)
			return d->pod_devices[i].amount;
	return 0;
}

static void write_text(FILE *out, const struct inventory_node *node, const struct pod_demand *d,
		       const struct verdict *v, const struct score_breakdown *sb, const struct dra_pod *dra,
		       const struct dra_node_verdict *dv)
{
	char buf[64], ids[256];
	size_t i;
	int r, k;

	fprintf(out, "node %s  (policy %s, scope %s%s)\n", node->name, tm_policy_name(node->policy),
		tm_scope_name(node->scope), node->prefer_closest ? ", prefer-closest-numa-nodes" : "");
	fprintf(out, "  %-34s", "available/allocatable");
	for (k = 0; k < node->numa_count; k++) {
		snprintf(buf, sizeof buf, "NUMA %d", node->numa_ids[k]);
		fprintf(out, " %-15s", buf);
	}
	fprintf(out, " %s\n", "pod asks");
	for (r = 0; r < node->nresources; r++) {
		const struct inventory_resource *res = &node->resources[r];
		char a[32], b[32];

		fprintf(out, "  %-34s", res->name);
		for (k = 0; k < node->numa_count; k++) {
			resource_amount_format(res->name, res->available[k], a, sizeof a);
			resource_amount_format(res->name, res->allocatable[k], b, sizeof b);
			snprintf(buf, sizeof buf, "%s/%s", a, b);
			fprintf(out, " %-15s", buf);
		}
		resource_amount_format(res->name, pod_asks(d, res->name), a, sizeof a);
		fprintf(out, " %s\n", a);
	}
	for (i = 0; i < v->ncontainers; i++) {
		const struct verdict_container *c = &v->containers[i];

		if (c->has_affinity)
			bitmask_format(c->numa_ids, ids, sizeof ids);
		fprintf(out, "  container %-24s NUMA %s%s\n", c->name,
			c->has_affinity ? ids : "(none)", c->preferred ? ", preferred" : "");
	}
	if (dra != NULL)
		explain_dra_text(out, dra, dv);
	if (v->admit) {
		fprintf(out, "  verdict: admit, score %lld/10", (long long)sb->score);
		for (i = 0; i < sb->nparts; i++)
			fprintf(out, "%s%s %lld (weight %lld)", i ? ", " : " (", sb->parts[i].resource,
				(long long)sb->parts[i].score100, (long long)sb->parts[i].weight);
		fprintf(out, "%s%s%s\n\n", sb->nparts ? ")" : "", sb->note ? "; " : "",
			sb->note ? sb->note : "");
	}
	else
		fprintf(out, "  verdict: reject (%s%s): %s\n\n", verdict_reason_name(v->reason),
			v->unresolvable ? ", unresolvable" : "", v->message);
}

enum err explain_write(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
		       enum explain_format format, FILE *out, struct errmsg *msg)
{
	return explain_write_scored(pod, objs, n, format, NULL, out, msg);
}

static struct json_object *score_json(const struct score_breakdown *b, struct json_object *o)
{
	struct json_object *parts = json_object_new_array();
	size_t i;

	json_object_object_add(o, "score", json_object_new_int64(b->score));
	for (i = 0; i < b->nparts; i++) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "resource", json_object_new_string(b->parts[i].resource));
		json_object_object_add(p, "weight", json_object_new_int64(b->parts[i].weight));
		json_object_object_add(p, "score100", json_object_new_int64(b->parts[i].score100));
		json_object_object_add(p, "requested", json_object_new_int64(b->parts[i].requested));
		json_object_object_add(p, "used", json_object_new_int64(b->parts[i].used));
		json_object_object_add(p, "allocatable", json_object_new_int64(b->parts[i].allocatable));
		json_object_array_add(parts, p);
	}
	json_object_object_add(o, "scoreParts", parts);
	json_object_object_add(o, "scoreNote", b->note ? json_object_new_string(b->note) : NULL);
	return o;
}

enum err explain_write_scored(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
			      enum explain_format format, const struct score_config *scoring,
			      FILE *out, struct errmsg *msg)
{
	struct explain_options opt = { scoring, CONFIG_DRA_PREFER, CONFIG_DRA_UNKNOWN_ALLOW, NULL };

	return explain_write_with(pod, objs, n, format, &opt, out, msg);
}

/* The kubelet's verdict as the report shows it: decide's when the DRA
 * verdict rejected a node the kubelet admits (dra.alignment: require). A
 * shallow copy: it shares v's containers and usage. */
static struct verdict shown_verdict(const struct verdict *v, const struct decision *d)
{
	struct verdict s = *v;

	if (d->passes || d->kubelet_reason != REASON_DRA_ALIGNMENT)
		return s;
	s.admit = false;
	s.reason = REASON_DRA_ALIGNMENT;
	s.unresolvable = d->outcome == DECISION_UNRESOLVABLE;
	snprintf(s.message, sizeof s.message, "%s", d->reason);
	return s;
}

enum err explain_write_with(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
			    enum explain_format format, const struct explain_options *opt, FILE *out,
			    struct errmsg *msg)
{
	struct score_config default_scoring = { SCORE_LEAST_ALLOCATED, NULL, 0 };
	struct explain_options defaults = { NULL, CONFIG_DRA_PREFER, CONFIG_DRA_UNKNOWN_ALLOW, NULL };
	const struct explain_options *eo = opt != NULL ? opt : &defaults;
	/* explain decides as serve does, with the verdict's details kept. */
	struct settings settings = { 1, eo->scoring ? *eo->scoring : default_scoring, CONFIG_MISSING_ALLOW,
				     LOG_LEVEL_INFO, 0, eo->dra_alignment, eo->dra_unknown_numa,
				     CONFIG_DRA_SORTED };
	struct decide_input in = { NULL, &settings, 0, DECIDE_VERDICT | DECIDE_DETAIL | DECIDE_PARTS, false,
				   eo->dra };
	struct json_object *root = NULL, *nodes = NULL;
	struct pod_demand *demand = NULL;
	enum err rc;
	size_t i;

	rc = pod_demand_new(pod, &demand, msg);
	if (rc != ERR_OK) {
		errmsg_prefix(msg, "pod %s/%s: ", pod->namespace_, pod->name);
		return rc;
	}
	in.demand = demand;
	if (format == EXPLAIN_JSON) {
		char name[512];

		root = json_object_new_object();
		nodes = json_object_new_array();
		snprintf(name, sizeof name, "%s/%s", pod->namespace_, pod->name);
		json_object_object_add(root, "pod", json_object_new_string(name));
		json_object_object_add(root, "nodes", nodes);
	} else {
		fprintf(out, "pod %s/%s (QoS %s)\n\n", pod->namespace_, pod->name,
			qos_class_name(demand->qos));
	}
	for (i = 0; i < n; i++) {
		struct inventory_node *node = NULL;
		struct dra_node_verdict dv;
		struct verdict shown;
		struct errmsg bad;
		struct decision d;

		if (inventory_node_new(&objs[i], &node, &bad) != ERR_OK) {
			/* Each node stands or falls alone: say why this one
			 * is not judged, judge the others, and report the
			 * first such error to the caller at the end. */
			const char *name = objs[i].name && objs[i].name[0] ? objs[i].name : "?";

			if (format == EXPLAIN_JSON) {
				struct json_object *o = json_object_new_object();

				json_object_object_add(o, "node", json_object_new_string(name));
				json_object_object_add(o, "error", json_object_new_string(bad.text));
				json_object_array_add(nodes, o);
			} else {
				fprintf(out, "node %s\n  invalid inventory: %s\n\n", name, bad.text);
			}
			if (rc == ERR_OK) {
				rc = ERR_INVALID;
				errmsg_set(msg, "node %s: %s", name, bad.text);
			}
			continue;
		}
		decide(&in, node, 0, &d);
		memset(&dv, 0, sizeof dv);
		if (eo->dra != NULL)
			explain_dra_judge(eo->dra, node, &d.verdict,
					  eo->dra_alignment == CONFIG_DRA_REQUIRE, &dv);
		shown = shown_verdict(&d.verdict, &d);
		if (format == EXPLAIN_JSON) {
			struct json_object *jo = score_json(&d.parts, verdict_to_json(node->name, &shown));

			if (eo->dra != NULL)
				json_object_object_add(jo, "dra", explain_dra_json(eo->dra, &dv));
			json_object_array_add(nodes, jo);
		} else {
			write_text(out, node, demand, &shown, &d.parts, eo->dra, &dv);
		}
		dra_node_verdict_cleanup(&dv);
		decision_cleanup(&d);
		inventory_node_free(node);
	}
	if (format == EXPLAIN_JSON)
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								     JSON_C_TO_STRING_SPACED |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	pod_demand_free(demand);
	return rc;
}

#define WHO "numa-extender explain"

static const char usage_text[] =
	"usage: numa-extender explain --pod FILE --nrt PATH [--nrt PATH ...] [options]\n"
	"Judges the pod on every node of the inventories as the kubelet's Topology Manager would,\n"
	"and prints per node the NUMA table, the affinity per container, the verdict and the score;\n"
	"with --dra and a pod with resource claims, the DRA devices predicted and their alignment too.\n"
	"  --pod FILE               a v1.Pod, YAML or JSON (required)\n"
	"  --nrt PATH               NodeResourceTopology objects: a file (one object, a stream or a List) or a directory (required, repeatable)\n"
	"  --dra PATH               DRA objects (ResourceSlices, DeviceClasses, ResourceClaims, ResourceClaimTemplates): a file or a directory (repeatable)\n"
	"  --config FILE            numa-extender configuration: its scoring scores admitted nodes (default LeastAllocated), its dra.alignment, dra.unknownNUMA and dra.allocatorOrder judge DRA devices\n"
	"  -o, --output text|json   output format (default text)\n"
	"  -h, --help               this help\n"
	"Input files are regular files only, a pod or NRT file at most 16 MiB, a --config 1 MiB.\n"
	"Exit 0; 1 when some node's inventory could not be judged (the others are reported); 2 on bad input.\n";

int explain_main(int argc, char **argv)
{
	const char *pod_path = NULL, *config_path = NULL;
	struct config cfg;
	const char **nrt_paths = xcalloc((size_t)argc + 1, sizeof *nrt_paths);
	const char **dra_paths = xcalloc((size_t)argc + 1, sizeof *dra_paths);
	struct explain_dra *dra = NULL;
	struct explain_options opt;
	enum explain_format format = EXPLAIN_TEXT;
	struct nrt_object *all = NULL;
	size_t nall = 0, npaths = 0, ndra = 0, i;
	struct pod_spec pod;
	struct errmsg msg;
	int status = 2, a;
	enum err rc;

	memset(&pod, 0, sizeof pod);
	config_init(&cfg);
	for (a = 0; a < argc; a++) {
		const char *arg = argv[a];

		if ((strcmp(arg, "--pod") == 0 || strcmp(arg, "--nrt") == 0 || strcmp(arg, "--config") == 0 ||
		     strcmp(arg, "--dra") == 0 || strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) && a + 1 >= argc) {
			status = usage_error(WHO, usage_text, "%s needs a value", arg);
			goto out;
		}
		if (strcmp(arg, "--pod") == 0) {
			pod_path = argv[++a];
		} else if (strcmp(arg, "--config") == 0) {
			config_path = argv[++a];
		} else if (strcmp(arg, "--nrt") == 0) {
			nrt_paths[npaths++] = argv[++a];
		} else if (strcmp(arg, "--dra") == 0) {
			dra_paths[ndra++] = argv[++a];
		} else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
			const char *f = argv[++a];

			if (strcmp(f, "json") == 0)
				format = EXPLAIN_JSON;
			else if (strcmp(f, "text") == 0)
				format = EXPLAIN_TEXT;
			else {
				status = usage_error(WHO, usage_text, "-o %s: expected json or text", f);
				goto out;
			}
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			status = usage_help(usage_text);
			goto out;
		} else {
			status = usage_error(WHO, usage_text, "unknown argument \"%s\"", arg);
			goto out;
		}
	}
	if (pod_path == NULL || npaths == 0) {
		status = usage_error(WHO, usage_text, "%s is required", pod_path == NULL ? "--pod" : "--nrt");
		goto out;
	}
	if (config_path && config_load_file(config_path, &cfg, &msg) != ERR_OK) {
		fprintf(stderr, "numa-extender explain: %s\n", msg.text);
		goto out;
	}
	rc = pod_load_file(pod_path, &pod, &msg);
	if (rc != ERR_OK) {
		fprintf(stderr, "numa-extender explain: %s\n", msg.text);
		goto out;
	}
	for (i = 0; i < npaths; i++) {
		struct nrt_object *objs = NULL;
		size_t nobjs = 0;

		rc = nrt_load_path(nrt_paths[i], &objs, &nobjs, &msg);
		if (rc != ERR_OK) {
			fprintf(stderr, "numa-extender explain: %s\n", msg.text);
			goto out;
		}
		all = xreallocarray(all, nall + nobjs + 1, sizeof *all);
		if (nobjs > 0)
			memcpy(all + nall, objs, nobjs * sizeof *objs);
		nall += nobjs;
		free(objs);
	}
	if (nall == 0) {
		fprintf(stderr, "numa-extender explain: no NodeResourceTopology object found\n");
		goto out;
	}
	if (ndra > 0 && explain_dra_open(pod_path, &pod, dra_paths, ndra, cfg.dra_allocator_order, stderr, &dra,
					 &msg) != ERR_OK) {
		fprintf(stderr, "numa-extender explain: %s\n", msg.text);
		goto out;
	}
	opt.scoring = &cfg.scoring;
	opt.dra_alignment = cfg.dra_alignment;
	opt.dra_unknown_numa = cfg.dra_unknown_numa;
	opt.dra = explain_dra_pod(dra);
	rc = explain_write_with(&pod, all, nall, format, &opt, stdout, &msg);
	if (rc == ERR_INVALID) {
		/* The report is complete; some nodes in it could not be judged. */
		fprintf(stderr, "numa-extender explain: %s\n", msg.text);
		status = 1;
		goto out;
	}
	if (rc != ERR_OK) {
		fprintf(stderr, "numa-extender explain: %s\n", msg.text);
		goto out;
	}
	status = 0;
out:
	explain_dra_free(dra);
	nrt_objects_free(all, nall);
	pod_spec_cleanup(&pod);
	config_cleanup(&cfg);
	free(nrt_paths);
	free(dra_paths);
	return status;
}
