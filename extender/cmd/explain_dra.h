/* SPDX-License-Identifier: Apache-2.0 */
/* explain's DRA side (--dra PATH): the pod's claims resolved in the DRA
 * objects of the paths, as serve resolves them in its DRA inventory, and
 * per node the DRA verdict's details for the table and the JSON. */
#ifndef EXTENDER_CMD_EXPLAIN_DRA_H
#define EXTENDER_CMD_EXPLAIN_DRA_H

#include <stdio.h>

#include <json-c/json.h>

#include "base/err.h"
#include "extender/config.h"
#include "extender/decide/dra.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/pod.h"

struct explain_dra;

/* Reads the DRA objects of paths (dra_paths_load: an object that does not
 * decode is named on warn and left out) and the claims of the pod in
 * pod_path (pod is that file decoded). *out is NULL when the pod has no
 * claims: explain then answers as without --dra. Errors name the path:
 * ERR_IO, ERR_PARSE, ERR_INVALID... */
enum err explain_dra_open(const char *pod_path, const struct pod_spec *pod, const char *const *paths,
			  size_t npaths, enum config_dra_order order, FILE *warn, struct explain_dra **out,
			  struct errmsg *msg);
void explain_dra_free(struct explain_dra *e);

/* The pod's claims resolved (for decide_input.dra). */
const struct dra_pod *explain_dra_pod(const struct explain_dra *e);

/* The details of node's DRA verdict against the kubelet's verdict
 * (dra_judge with DRA_JUDGE_KEEP; with reach, DRA_JUDGE_REACH too). Free
 * with dra_node_verdict_cleanup. */
void explain_dra_judge(const struct dra_pod *p, const struct inventory_node *node, const struct verdict *kubelet, bool reach,
		       struct dra_node_verdict *out);

/* {"predictable", "why", "claims": [{"name", "devices": [{"request",
 * "driver", "pool", "device", "numaNodes"}]}], "aligned"}: aligned is null
 * when there is nothing to align or a device's NUMA node is unknown. */
struct json_object *explain_dra_json(const struct dra_pod *p, const struct dra_node_verdict *v);

/* The table's lines: one per claim with its devices, then `dra: ...`. */
void explain_dra_text(FILE *out, const struct dra_pod *p, const struct dra_node_verdict *v);

#endif
