/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender explain`: judge one pod on a set of NRT inventories and print
 * the verdicts as JSON or as a readable table per node. */
#ifndef EXTENDER_EXPLAIN_H
#define EXTENDER_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "extender/config.h"
#include "topology/nrt.h"
#include "topology/pod.h"

enum explain_format { EXPLAIN_TEXT, EXPLAIN_JSON };

/* Judges pod on every object and writes the report to out. A pod the kubelet
 * could not represent is ERR_RANGE with nothing written. Each node stands or
 * falls alone: one whose inventory is invalid (bad zones, or an item of a
 * stream or list that did not decode) is reported in place ("error" in JSON,
 * "invalid inventory:" in text), the others are judged, and the call returns
 * ERR_INVALID with msg naming the first such node and field. */
enum err explain_write(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
		       enum explain_format format, FILE *out, struct errmsg *msg);
/* The same, scoring admitted nodes with scoring (NULL: LeastAllocated, no
 * weights): JSON gains "score", "scoreParts" and "scoreNote"; text a line. */
struct score_config;
enum err explain_write_scored(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
			      enum explain_format format, const struct score_config *scoring,
			      FILE *out, struct errmsg *msg);

/* What else a report depends on. */
struct dra_pod;
struct explain_options {
	const struct score_config *scoring; /* NULL: LeastAllocated, no weights */
	/* How the DRA verdict folds in (dra.alignment, dra.unknownNUMA). */
	enum config_dra_alignment dra_alignment;
	enum config_dra_unknown_numa dra_unknown_numa;
	/* The pod's claims resolved (explain_dra.h), or NULL: no DRA, and the
	 * report is what it is without DRA. With it every node's JSON gains
	 * "dra" and its table the claims' devices and a "dra:" line; under
	 * require a misaligned node is rejected (reason DRAAlignment). */
	const struct dra_pod *dra;
};

/* The same, with opt (NULL: explain_write_scored's defaults). */
enum err explain_write_with(const struct pod_spec *pod, const struct nrt_object *objs, size_t n,
			    enum explain_format format, const struct explain_options *opt, FILE *out,
			    struct errmsg *msg);

/* The CLI: argv after "explain" (--config FILE takes the scoring and the
 * dra settings from a service configuration; --dra PATH the DRA objects). Returns the exit status: 0; 1 when the report is
 * complete but some nodes' inventories are invalid (each named on stdout, the
 * first on stderr); 2 on bad input or usage, with the reason on stderr. */
int explain_main(int argc, char **argv);

#endif
