/* SPDX-License-Identifier: Apache-2.0 */
/* Fixed metric set with atomic counters; rendering takes no lock, so a
 * scrape may see counters from slightly different instants (as any
 * Prometheus client library allows). */
#include "extender/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extender/inventory/dra_store.h"
#include "extender/inventory/ledger.h"
#include "extender/inventory/store.h"
#include "extender/decide/dra_assume.h"
#include "extender/decide/verdict_cache.h"
#include "base/xalloc.h"
#include "base/textbuf.h"

static const char *const verb_names[METRICS_NVERBS] = { "filter", "prioritize", "other" };
static const int codes[] = { 200, 400, 403, 404, 405, 413, 500, 503 };
#define NCODES (sizeof codes / sizeof codes[0])
/* Seconds; extender budgets are sub-millisecond to a few ms. */
static const double buckets[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
				  0.01,   0.025,   0.05,   0.1,   0.25,   1.0 };
#define NBUCKETS (sizeof buckets / sizeof buckets[0])

static _Atomic uint64_t requests[METRICS_NVERBS][NCODES + 1];
static _Atomic uint64_t hist[METRICS_NVERBS][NBUCKETS + 1];
static _Atomic uint64_t hist_sum_ns[METRICS_NVERBS];
static _Atomic uint64_t nodes[METRICS_NVERBS][DECISION_NOUTCOMES];
static _Atomic uint64_t rejections[REASON_COUNT];
static _Atomic uint64_t inventory_nodes, inventory_generation, inventory_errors, inventory_reloads;
static _Atomic uint64_t config_reloads_ok, config_reloads_err;
static _Atomic uint64_t binds_ok, binds_err;
static struct ledger *_Atomic metrics_ledger;
static _Atomic uint64_t decision_log_dropped;
static _Atomic uint64_t kubelet_rejections[KUBELET_REJECTION_COUNT][LEDGER_DECIDED_COUNT];

void metrics_kubelet_rejection(enum kubelet_rejection reason, enum ledger_decided decided)
{
	if ((unsigned)reason < KUBELET_REJECTION_COUNT && (unsigned)decided < LEDGER_DECIDED_COUNT)
		atomic_fetch_add(&kubelet_rejections[reason][decided], 1);
}

void metrics_decision_log_dropped(void)
{
	atomic_fetch_add(&decision_log_dropped, 1);
}

static const char *const event_types[] = { "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR" };
#define NEVENTS (sizeof event_types / sizeof event_types[0])
static _Atomic uint64_t kube_restarts, kube_relists, kube_events[NEVENTS + 1];
static _Atomic uint64_t kube_hist[NBUCKETS + 1], kube_hist_sum_ns;
static struct store *_Atomic metrics_store;
static struct dra_store *_Atomic metrics_dra_store;
static _Atomic uint64_t dra_verdicts[DRA_OUTCOME_COUNT];
static struct dra_assume *_Atomic metrics_dra_assume;

void metrics_set_dra_assume(struct dra_assume *a)
{
	atomic_store(&metrics_dra_assume, a);
}

void metrics_set_dra_store(struct dra_store *s)
{
	atomic_store(&metrics_dra_store, s);
}

void metrics_dra_verdicts(enum dra_outcome outcome, uint64_t n)
{
	if ((unsigned)outcome < DRA_OUTCOME_COUNT)
		atomic_fetch_add(&dra_verdicts[outcome], n);
}

void metrics_kube_watch_restart(void)
{
	atomic_fetch_add(&kube_restarts, 1);
}

void metrics_kube_relist(void)
{
	atomic_fetch_add(&kube_relists, 1);
}

void metrics_kube_event(const char *type)
{
	size_t i;

	for (i = 0; i < NEVENTS && strcmp(event_types[i], type) != 0; i++)
		;
	atomic_fetch_add(&kube_events[i], 1);
}

void metrics_kube_request(double seconds)
{
	size_t i;

	for (i = 0; i < NBUCKETS && seconds > buckets[i]; i++)
		;
	atomic_fetch_add(&kube_hist[i], 1);
	atomic_fetch_add(&kube_hist_sum_ns, (uint64_t)(seconds * 1e9));
}

void metrics_set_store(struct store *s)
{
	atomic_store(&metrics_store, s);
}

void metrics_request(enum metrics_verb verb, int http_status, double seconds)
{
	size_t i, c = NCODES;

	for (i = 0; i < NCODES; i++)
		if (codes[i] == http_status)
			c = i;
	atomic_fetch_add(&requests[verb][c], 1);
	for (i = 0; i < NBUCKETS && seconds > buckets[i]; i++)
		;
	atomic_fetch_add(&hist[verb][i], 1);
	atomic_fetch_add(&hist_sum_ns[verb], (uint64_t)(seconds * 1e9));
}

void metrics_nodes(enum metrics_verb verb, enum decision_outcome outcome, uint64_t count)
{
	if ((unsigned)outcome < DECISION_NOUTCOMES)
		atomic_fetch_add(&nodes[verb][outcome], count);
}

void metrics_rejection(enum verdict_reason reason)
{
	if ((unsigned)reason < REASON_COUNT)
		atomic_fetch_add(&rejections[reason], 1);
}

void metrics_inventory(uint64_t n, uint64_t generation)
{
	atomic_store(&inventory_nodes, n);
	atomic_store(&inventory_generation, generation);
}

void metrics_inventory_error(void)
{
	atomic_fetch_add(&inventory_errors, 1);
}

void metrics_inventory_reload(void)
{
	atomic_fetch_add(&inventory_reloads, 1);
}

static _Atomic uint64_t inventory_zone_set_changes;

void metrics_inventory_zone_set_change(void)
{
	atomic_fetch_add(&inventory_zone_set_changes, 1);
}

void metrics_bind(bool ok)
{
	atomic_fetch_add(ok ? &binds_ok : &binds_err, 1);
}

void metrics_set_ledger(struct ledger *l)
{
	atomic_store(&metrics_ledger, l);
}

void metrics_config_reload(int ok)
{
	atomic_fetch_add(ok ? &config_reloads_ok : &config_reloads_err, 1);
}

/* The exposition is a few KiB; the ceiling only stops a runaway label set. */
#define RENDER_MAX ((size_t)16 << 20)

static void put(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	textbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* The gauge of dra_assume.h's pods, counted on the current snapshot. */
static void assumed_pods(struct dra_store *dra, struct textbuf *b)
{
	struct dra_assume *a = atomic_load(&metrics_dra_assume);
	const struct dra_snapshot *snap;
	size_t n;

	if (a == NULL)
		return;
	snap = dra_store_acquire(dra);
	n = dra_assume_count(a, snap, store_now_ms());
	dra_snapshot_release(snap);
	put(b, "# HELP numa_extender_dra_assumed_pods Pods seen bound whose DRA claims' allocation has not arrived yet; their predicted devices are taken.\n"
	       "# TYPE numa_extender_dra_assumed_pods gauge\n"
	       "numa_extender_dra_assumed_pods %zu\n", n);
}

char *metrics_render(size_t *len)
{
	struct textbuf b;
	size_t v, i;

	textbuf_init(&b, RENDER_MAX);
	put(&b, "# HELP numa_extender_requests_total HTTP requests by verb and status code.\n"
		"# TYPE numa_extender_requests_total counter\n");
	for (v = 0; v < METRICS_NVERBS; v++)
		for (i = 0; i <= NCODES; i++) {
			uint64_t n = atomic_load(&requests[v][i]);
			char code[16];

			if (!n && !(i == 0 && v < METRICS_OTHER))
				continue;
			if (i < NCODES)
				snprintf(code, sizeof code, "%d", codes[i]);
			else
				snprintf(code, sizeof code, "other");
			put(&b, "numa_extender_requests_total{verb=\"%s\",code=\"%s\"} %llu\n",
			    verb_names[v], code, (unsigned long long)n);
		}
	put(&b, "# HELP numa_extender_request_duration_seconds Time from the request's last body "
		"byte to its reply, by verb.\n"
		"# TYPE numa_extender_request_duration_seconds histogram\n");
	for (v = 0; v < METRICS_NVERBS; v++) {
		uint64_t cum = 0;

		for (i = 0; i <= NBUCKETS; i++) {
			cum += atomic_load(&hist[v][i]);
			if (i < NBUCKETS)
				put(&b, "numa_extender_request_duration_seconds_bucket{verb=\"%s\",le=\"%g\"} %llu\n",
				    verb_names[v], buckets[i], (unsigned long long)cum);
			else
				put(&b, "numa_extender_request_duration_seconds_bucket{verb=\"%s\",le=\"+Inf\"} %llu\n",
				    verb_names[v], (unsigned long long)cum);
		}
		put(&b, "numa_extender_request_duration_seconds_sum{verb=\"%s\"} %.9f\n",
		    verb_names[v], (double)atomic_load(&hist_sum_ns[v]) / 1e9);
		put(&b, "numa_extender_request_duration_seconds_count{verb=\"%s\"} %llu\n",
		    verb_names[v], (unsigned long long)cum);
	}
	put(&b, "# HELP numa_extender_nodes_total Candidate nodes judged, by verb and outcome.\n"
		"# TYPE numa_extender_nodes_total counter\n");
	for (v = 0; v < METRICS_OTHER; v++)
		for (i = 0; i < DECISION_NOUTCOMES; i++)
			put(&b, "numa_extender_nodes_total{verb=\"%s\",outcome=\"%s\"} %llu\n",
			    verb_names[v], decision_outcome_name((enum decision_outcome)i), (unsigned long long)atomic_load(&nodes[v][i]));
	put(&b, "# HELP numa_extender_rejections_total Nodes rejected by filter, by reason (the kubelet's, NotSimulated, NoInventory or DRAAlignment).\n"
		"# TYPE numa_extender_rejections_total counter\n");
	for (i = REASON_NONE + 1; i < REASON_COUNT; i++)
		put(&b, "numa_extender_rejections_total{reason=\"%s\"} %llu\n",
		    verdict_reason_name((enum verdict_reason)i), (unsigned long long)atomic_load(&rejections[i]));
	put(&b, "# HELP numa_extender_inventory_nodes Nodes with an inventory.\n"
		"# TYPE numa_extender_inventory_nodes gauge\n"
		"numa_extender_inventory_nodes %llu\n"
		"# HELP numa_extender_inventory_generation Inventory publishes since start.\n"
		"# TYPE numa_extender_inventory_generation gauge\n"
		"numa_extender_inventory_generation %llu\n"
		"# HELP numa_extender_inventory_load_errors_total Inventory objects or files that could not be loaded.\n"
		"# TYPE numa_extender_inventory_load_errors_total counter\n"
		"numa_extender_inventory_load_errors_total %llu\n"
		"# HELP numa_extender_inventory_reloads_total Inventory changes applied.\n"
		"# TYPE numa_extender_inventory_reloads_total counter\n"
		"numa_extender_inventory_reloads_total %llu\n"
		"# HELP numa_extender_config_reloads_total Configuration reloads (SIGHUP) by result.\n"
		"# TYPE numa_extender_config_reloads_total counter\n"
		"numa_extender_config_reloads_total{result=\"ok\"} %llu\n"
		"numa_extender_config_reloads_total{result=\"error\"} %llu\n",
	    (unsigned long long)atomic_load(&inventory_nodes),
	    (unsigned long long)atomic_load(&inventory_generation),
	    (unsigned long long)atomic_load(&inventory_errors),
	    (unsigned long long)atomic_load(&inventory_reloads),
	    (unsigned long long)atomic_load(&config_reloads_ok),
	    (unsigned long long)atomic_load(&config_reloads_err));
	put(&b, "# HELP numa_extender_inventory_zone_set_changes_total Node inventories whose set of NUMA zones changed from one version to the next.\n"
		"# TYPE numa_extender_inventory_zone_set_changes_total counter\n"
		"numa_extender_inventory_zone_set_changes_total %llu\n",
	    (unsigned long long)atomic_load(&inventory_zone_set_changes));
	{
		struct verdict_cache_stats vc;

		verdict_cache_stats(&vc);
		put(&b, "# HELP numa_extender_verdict_cache_hits_total Verdict cache lookups answered from a remembered decision (node snapshot, settings, demand).\n"
			"# TYPE numa_extender_verdict_cache_hits_total counter\n"
			"numa_extender_verdict_cache_hits_total %llu\n"
			"# HELP numa_extender_verdict_cache_misses_total Verdict cache lookups that found nothing: the node was judged.\n"
			"# TYPE numa_extender_verdict_cache_misses_total counter\n"
			"numa_extender_verdict_cache_misses_total %llu\n"
			"# HELP numa_extender_verdict_cache_evictions_total Remembered decisions pushed out of their set by newer ones.\n"
			"# TYPE numa_extender_verdict_cache_evictions_total counter\n"
			"numa_extender_verdict_cache_evictions_total %llu\n"
			"# HELP numa_extender_verdict_cache_entries Decisions the verdict cache holds.\n"
			"# TYPE numa_extender_verdict_cache_entries gauge\n"
			"numa_extender_verdict_cache_entries %llu\n"
			"# HELP numa_extender_verdict_cache_demands Distinct pod demands the verdict cache knows.\n"
			"# TYPE numa_extender_verdict_cache_demands gauge\n"
			"numa_extender_verdict_cache_demands %llu\n"
			"# HELP numa_extender_verdict_cache_reasons Distinct rejection reasons the verdict cache holds once each (at most 4096).\n"
			"# TYPE numa_extender_verdict_cache_reasons gauge\n"
			"numa_extender_verdict_cache_reasons %llu\n",
		    (unsigned long long)vc.hits, (unsigned long long)vc.misses,
		    (unsigned long long)vc.evictions, (unsigned long long)vc.entries,
		    (unsigned long long)vc.demands, (unsigned long long)vc.reasons);
	}
	put(&b, "# HELP numa_extender_decision_log_dropped_total Decision-log records dropped (queue full, write failed, too large).\n"
		"# TYPE numa_extender_decision_log_dropped_total counter\n"
		"numa_extender_decision_log_dropped_total %llu\n",
	    (unsigned long long)atomic_load(&decision_log_dropped));
	put(&b, "# HELP numa_extender_kube_watch_restarts_total Watches reopened (NodeResourceTopology objects and, with the ledger, pods).\n"
		"# TYPE numa_extender_kube_watch_restarts_total counter\n"
		"numa_extender_kube_watch_restarts_total %llu\n"
		"# HELP numa_extender_kube_relists_total Full lists (NodeResourceTopology objects and, with the ledger, pods).\n"
		"# TYPE numa_extender_kube_relists_total counter\n"
		"numa_extender_kube_relists_total %llu\n"
		"# HELP numa_extender_kube_watch_events_total Watch events by type.\n"
		"# TYPE numa_extender_kube_watch_events_total counter\n",
	    (unsigned long long)atomic_load(&kube_restarts),
	    (unsigned long long)atomic_load(&kube_relists));
	for (i = 0; i <= NEVENTS; i++)
		put(&b, "numa_extender_kube_watch_events_total{type=\"%s\"} %llu\n",
		    i < NEVENTS ? event_types[i] : "other", (unsigned long long)atomic_load(&kube_events[i]));
	put(&b, "# HELP numa_extender_kube_request_duration_seconds API server round trips (list pages).\n"
		"# TYPE numa_extender_kube_request_duration_seconds histogram\n");
	{
		uint64_t cum = 0;

		for (i = 0; i <= NBUCKETS; i++) {
			cum += atomic_load(&kube_hist[i]);
			if (i < NBUCKETS)
				put(&b, "numa_extender_kube_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
				    buckets[i], (unsigned long long)cum);
			else
				put(&b, "numa_extender_kube_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
				    (unsigned long long)cum);
		}
		put(&b, "numa_extender_kube_request_duration_seconds_sum %.9f\n"
			"numa_extender_kube_request_duration_seconds_count %llu\n",
		    (double)atomic_load(&kube_hist_sum_ns) / 1e9, (unsigned long long)cum);
	}
	{
		struct store *st = atomic_load(&metrics_store);

		if (st != NULL) {
			struct store_set *set = store_acquire(st);
			int64_t now = store_now_ms(), oldest = now, contact = store_last_contact_ms(st);

			for (i = 0; i < store_size(set); i++)
				if (store_at(set, i)->loaded_ms < oldest)
					oldest = store_at(set, i)->loaded_ms;
			store_release(set);
			put(&b, "# HELP numa_extender_inventory_oldest_age_seconds Age of the oldest node snapshot.\n"
				"# TYPE numa_extender_inventory_oldest_age_seconds gauge\n"
				"numa_extender_inventory_oldest_age_seconds %.3f\n"
				"# HELP numa_extender_inventory_contact_age_seconds Time since the inventory source last heard from its origin (-1: never).\n"
				"# TYPE numa_extender_inventory_contact_age_seconds gauge\n"
				"numa_extender_inventory_contact_age_seconds %.3f\n",
			    (double)(now - oldest) / 1000.0,
			    contact ? (double)(now - contact) / 1000.0 : -1.0);
		}
	}
	{
		struct dra_store *dra = atomic_load(&metrics_dra_store);

		if (dra != NULL) {
			dra_store_metrics(dra, &b);
			put(&b, "# HELP numa_extender_dra_verdicts_total DRA verdicts of filter, per node judged for a pod, by result.\n"
				"# TYPE numa_extender_dra_verdicts_total counter\n");
			for (i = 0; i < DRA_OUTCOME_COUNT; i++)
				put(&b, "numa_extender_dra_verdicts_total{result=\"%s\"} %llu\n",
				    dra_outcome_name((enum dra_outcome)i),
				    (unsigned long long)atomic_load(&dra_verdicts[i]));
			assumed_pods(dra, &b);
		}
	}
	put(&b, "# HELP numa_extender_binds_total Bind verb calls by result.\n"
		"# TYPE numa_extender_binds_total counter\n"
		"numa_extender_binds_total{result=\"ok\"} %llu\n"
		"numa_extender_binds_total{result=\"error\"} %llu\n",
	    (unsigned long long)atomic_load(&binds_ok), (unsigned long long)atomic_load(&binds_err));
	{
		struct ledger *l = atomic_load(&metrics_ledger);

		if (l != NULL) {
			struct ledger_stats st;

			ledger_stats(l, &st);
			put(&b, "# HELP numa_extender_ledger_pods Assigned, non-terminal pods the ledger knows.\n"
				"# TYPE numa_extender_ledger_pods gauge\n"
				"numa_extender_ledger_pods %llu\n"
				"# HELP numa_extender_ledger_assumed_pods Pods taken off their node's NRT until an update includes them.\n"
				"# TYPE numa_extender_ledger_assumed_pods gauge\n"
				"numa_extender_ledger_assumed_pods %llu\n"
				"# HELP numa_extender_ledger_oldest_assumed_seconds Age of the oldest assumed pod (0: none).\n"
				"# TYPE numa_extender_ledger_oldest_assumed_seconds gauge\n"
				"numa_extender_ledger_oldest_assumed_seconds %.3f\n"
				"# HELP numa_extender_ledger_flushes_total Assumed pods dropped, by cause.\n"
				"# TYPE numa_extender_ledger_flushes_total counter\n",
			    (unsigned long long)st.pods, (unsigned long long)st.assumed,
			    (double)st.oldest_assumed_ms / 1000.0);
			for (i = 0; i < LEDGER_FLUSH_COUNT; i++)
				put(&b, "numa_extender_ledger_flushes_total{cause=\"%s\"} %llu\n",
				    ledger_flush_name((enum ledger_flush)i), (unsigned long long)st.flushed[i]);
			put(&b, "# HELP numa_extender_ledger_fingerprint_mismatches_total NRT updates whose pod fingerprint did not match the ledger's.\n"
				"# TYPE numa_extender_ledger_fingerprint_mismatches_total counter\n"
				"numa_extender_ledger_fingerprint_mismatches_total %llu\n",
			    (unsigned long long)st.fingerprint_mismatches);
			put(&b, "# HELP numa_extender_kubelet_predictions_checked Pods we decided whose kubelet verdict (admitted and running, or rejected) the pod watch has seen.\n"
				"# TYPE numa_extender_kubelet_predictions_checked gauge\n"
				"numa_extender_kubelet_predictions_checked %llu\n",
			    (unsigned long long)st.predictions_checked);
			put(&b, "# HELP numa_extender_kubelet_rejections_total Pods the kubelet's admission turned away, by reason and by what we had decided for them on that node.\n"
				"# TYPE numa_extender_kubelet_rejections_total counter\n");
			for (size_t r = 0; r < KUBELET_REJECTION_COUNT; r++)
				for (size_t d = 0; d < LEDGER_DECIDED_COUNT; d++)
					put(&b, "numa_extender_kubelet_rejections_total{reason=\"%s\",decided=\"%s\"} %llu\n",
					    kubelet_rejection_name((enum kubelet_rejection)r),
					    ledger_decided_name((enum ledger_decided)d),
					    (unsigned long long)atomic_load(&kubelet_rejections[r][d]));
		}
	}
	return textbuf_take(&b, len);
}
