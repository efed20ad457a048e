/* SPDX-License-Identifier: Apache-2.0 */
/* A DRA cluster for tests, written as lines of text (one object or part
 * per line, '#' starts a comment), with a small selector evaluator that
 * stands in for dra/cel.h:
 *
 *   node NAME [KEY=VALUE...]                  the node predicted for
 *   slice NAME driver=D pool=P [gen=G] [count=C] [node=N | all | perdevice
 *         | select:KEY=VALUE | field:NAME] [counters]
 *                                            (default: gen=1 count=1 node=n1)
 *   dev NAME [[DOMAIN/]ID=T:VALUE...] [taint=EFFECT] [consumes] [binding]
 *         [multi] [node=N | all | select:KEY=VALUE]   (T: i b s v, lists is bs ss vs
 *                                            with comma-separated values)
 *   class NAME                                a device class
 *   sel EXPRESSION                            a selector of the last class or request
 *   claim NAME [allocated[=NODE]]             the pod's next claim
 *   req NAME [class=C] [count=N | all] [admin] [tolerations] [capacity]
 *                                            (no class: alternatives follow)
 *   alt NAME class=C [count=N | all]           a prioritized-list alternative
 *   constraint match|distinct DOMAIN/ID [REQUEST...]
 *   result REQUEST DRIVER POOL DEVICE [admin] [share]   status.allocation
 *   used DRIVER POOL DEVICE                   in the allocated set
 *   order unsorted
 *
 * Selectors understood (anything else compiles as unsupported):
 *   true | false | error (a runtime error) | unsupported... | invalid...
 *   device.driver == 'X'
 *   device.attributes['D'].ID == 'S' | == INT | == true | == false
 *     (a missing attribute is the runtime error "no such key: ID")
 * A malformed line aborts the test with its text. */
#ifndef TESTS_SUPPORT_DRA_FIXTURE_H
#define TESTS_SUPPORT_DRA_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "dra/alloc.h"
#include "dra/alloc_selectors.h"
#include "dra/types.h"
#include "scheduler/node_view.h"

struct dra_fixture {
	struct sched_node node;
	struct dra_slice *slices;
	size_t nslices;
	const struct dra_slice **slice_ptrs; /* what the index borrows */
	struct dra_class *classes;
	size_t nclasses;
	struct dra_claim *claims;
	size_t nclaims;
	const struct dra_claim **claim_ptrs;
	struct dra_pod_claim *pod_claims;
	struct dra_device_set allocated;
	struct dra_slice_index index;
	struct dra_selectors selectors;
	enum dra_alloc_order order;
	struct dra_alloc_result result;
	char text[4096];          /* df_predict's rendering */
	bool show_numa;           /* render "device@numa" */
	/* internal: where a "sel" line goes */
	char ***sel_list;
	size_t *sel_n;
};

/* The stand-in evaluator, and how many expressions it compiled. */
extern const struct dra_selector_ops df_test_ops;
extern size_t df_compiles;

void df_load(struct dra_fixture *f, const char *text);
/* Indexes f->slices again (after a test changed them). */
void df_index(struct dra_fixture *f);
void df_input(struct dra_fixture *f, struct dra_alloc_input *in);
/* Predicts (the result stays in f->result) and renders it:
 *   "c1: r1=gpu-0 r1=gpu-1; c2: r=gpu-2"   allocated (claims in pod order)
 *   "sameNUMA c1: r1=gpu-0"                 unsorted, one NUMA set
 *   "unsatisfiable: WHY", "cannotPredict: WHY", "fatal: WHY" */
const char *df_predict(struct dra_fixture *f);
void df_free(struct dra_fixture *f);
/* Loads text, predicts and frees: the rendering (a static buffer), with
 * each device's NUMA set when numa is set. */
const char *df_run(const char *text, bool numa);

#endif
