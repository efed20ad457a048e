/* SPDX-License-Identifier: Apache-2.0 */
/* Process-wide counters, gauges and histograms, lock-free (atomics), rendered
 * in the Prometheus text format (version 0.0.4) for GET /metrics. Metric
 * names start with numa_extender_. */
#ifndef EXTENDER_METRICS_H
#define EXTENDER_METRICS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "extender/decide/decide.h"
#include "extender/inventory/ledger.h"

enum metrics_verb { METRICS_FILTER, METRICS_PRIORITIZE, METRICS_OTHER, METRICS_NVERBS };

void metrics_request(enum metrics_verb verb, int http_status, double seconds);
/* Nodes decided, by verb and decide's outcome (labelled with its name). */
void metrics_nodes(enum metrics_verb verb, enum decision_outcome outcome, uint64_t count);
/* A node rejected, by its reason (named by verdict_reason_name). */
void metrics_rejection(enum verdict_reason reason);

/* The kubelet turned a pod away, and what we had decided for it on that
 * node. */
void metrics_kubelet_rejection(enum kubelet_rejection reason, enum ledger_decided decided);

/* A decision-log record dropped: the queue was full, its write failed, or
 * it passed the size ceiling. */
void metrics_decision_log_dropped(void);

void metrics_inventory(uint64_t nodes, uint64_t generation);
void metrics_inventory_error(void);
void metrics_inventory_reload(void);
/* A node's new inventory has another set of NUMA zones than its last one. */
void metrics_inventory_zone_set_change(void);
void metrics_config_reload(int ok);

/* Kubernetes source. */
void metrics_kube_watch_restart(void);
void metrics_kube_relist(void);
void metrics_kube_event(const char *type);
void metrics_kube_request(double seconds);
/* The store whose node ages and last contact /metrics reports (or NULL). */
struct store;
void metrics_set_store(struct store *s);

/* The bind verb, by result. */
void metrics_bind(bool ok);
/* The ledger whose pods and flushes /metrics reports (or NULL). */
struct ledger;
void metrics_set_ledger(struct ledger *l);

/* The DRA store whose counts /metrics reports (numa_extender_dra_*), or
 * NULL: none are shown, as when DRA is not configured. */
struct dra_store;
void metrics_set_dra_store(struct dra_store *s);

/* The pods whose DRA devices are held until their claims' allocation
 * arrives (numa_extender_dra_assumed_pods, shown with the DRA store's
 * counts), or NULL: the gauge is not shown. */
struct dra_assume;
void metrics_set_dra_assume(struct dra_assume *a);

/* n nodes' DRA verdicts of a filter, by outcome (named by
 * dra_outcome_name); shown with the DRA store's counts. */
void metrics_dra_verdicts(enum dra_outcome outcome, uint64_t n);

/* Renders everything into a new malloc'd buffer (*len without the NUL). */
char *metrics_render(size_t *len);

#endif
