/* SPDX-License-Identifier: Apache-2.0 */
/* /metrics names every reason, outcome and cause from the one table that
 * names it elsewhere (logs, replies, the decision log), so none can be
 * missing from a metric: each is counted and read back from the rendered
 * text, by the names an operator greps for. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/metrics.h"
#include "extender/inventory/dra_store.h"
#include "extender/inventory/ledger.h"
#include "extender/inventory/store.h"
#include "topology/judge.h"

/* The value of the sample line that starts with name, or -1. */
static long long sample(const char *text, const char *name)
{
	const char *at = text;
	size_t len = strlen(name);

	while ((at = strstr(at, name)) != NULL) {
		if ((at == text || at[-1] == '\n') && at[len] == ' ')
			return strtoll(at + len + 1, NULL, 10);
		at += len;
	}
	return -1;
}

static void every_rejection_reason_is_counted(void **state)
{
	static const char *const names[] = { "TopologyAffinityError", "UnexpectedAdmissionError",
					     "TopologyManagerConfigError", "NotSimulated", "NoInventory",
					     "DRAAlignment" };
	char *text, name[128];
	size_t len, i;
	int r;

	(void)state;
	for (r = REASON_NONE + 1; r < REASON_COUNT; r++) {
		int k;

		for (k = 0; k <= r; k++)
			metrics_rejection((enum verdict_reason)r);
	}
	metrics_rejection(REASON_COUNT); /* out of range: ignored */
	text = metrics_render(&len);
	assert_int_equal(REASON_COUNT - 1, sizeof names / sizeof names[0]);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(name, sizeof name, "numa_extender_rejections_total{reason=\"%s\"}", names[i]);
		assert_int_equal(sample(text, name), (long long)i + 2);
	}
	assert_null(strstr(text, "numa_extender_rejections_total{reason=\"\"}"));
	free(text);
}

static void kubelet_rejections_by_reason_and_decision(void **state)
{
	struct store *st = store_new();
	struct ledger_options o = { LEDGER_PREDICTED, 30000, 600000, false };
	struct ledger *l = ledger_new(st, &o);
	char *text;
	size_t len;
	int r;

	(void)state;
	for (r = 0; r < KUBELET_REJECTION_COUNT; r++)
		assert_int_equal(kubelet_rejection_of(kubelet_rejection_name((enum kubelet_rejection)r)), r);
	assert_int_equal(kubelet_rejection_of("Evicted"), KUBELET_REJECTION_COUNT);
	metrics_set_ledger(l);
	metrics_kubelet_rejection(KUBELET_SMT_ALIGNMENT, LEDGER_DECIDED_PASS);
	metrics_kubelet_rejection(KUBELET_TOPOLOGY_AFFINITY, LEDGER_DECIDED_UNKNOWN);
	metrics_kubelet_rejection(KUBELET_TOPOLOGY_AFFINITY, LEDGER_DECIDED_UNKNOWN);
	text = metrics_render(&len);
	assert_int_equal(sample(text, "numa_extender_kubelet_rejections_total{reason=\"SMTAlignmentError\",decided=\"pass\"}"), 1);
	assert_int_equal(sample(text, "numa_extender_kubelet_rejections_total{reason=\"TopologyAffinityError\",decided=\"unknown\"}"), 2);
	assert_int_equal(sample(text, "numa_extender_kubelet_rejections_total{reason=\"UnexpectedAdmissionError\",decided=\"reject\"}"), 0);
	assert_int_equal(sample(text, "numa_extender_ledger_flushes_total{cause=\"fingerprint\"}"), 0);
	assert_int_equal(sample(text, "numa_extender_ledger_flushes_total{cause=\"ttl\"}"), 0);
	assert_int_equal(sample(text, "numa_extender_ledger_flushes_total{cause=\"expired\"}"), 0);
	free(text);
	metrics_set_ledger(NULL);
	ledger_free(l);
	store_free(st);
}

static void every_outcome_is_counted(void **state)
{
	char *text, name[160];
	size_t len;
	int o;

	(void)state;
	for (o = 0; o < DECISION_NOUTCOMES; o++)
		metrics_nodes(METRICS_FILTER, (enum decision_outcome)o, (uint64_t)o + 10);
	text = metrics_render(&len);
	for (o = 0; o < DECISION_NOUTCOMES; o++) {
		snprintf(name, sizeof name, "numa_extender_nodes_total{verb=\"filter\",outcome=\"%s\"}",
			 decision_outcome_name((enum decision_outcome)o));
		assert_int_equal(sample(text, name), o + 10);
	}
	assert_int_equal(sample(text, "numa_extender_nodes_total{verb=\"filter\",outcome=\"noInventory\"}"), 13);
	free(text);
}

static void every_dra_verdict_is_counted_with_the_dra_store(void **state)
{
	static const char *const names[] = { "noClaims", "aligned", "misaligned", "unpredictable",
					     "unknownNUMA" };
	struct dra_store *dra = dra_store_new();
	char *text, name[128];
	size_t len, i;

	(void)state;
	/* Without DRA configured the family is not shown. */
	text = metrics_render(&len);
	assert_null(strstr(text, "numa_extender_dra_verdicts_total"));
	free(text);
	assert_int_equal(DRA_OUTCOME_COUNT, sizeof names / sizeof names[0]);
	for (i = 0; i < DRA_OUTCOME_COUNT; i++)
		metrics_dra_verdicts((enum dra_outcome)i, i + 3);
	metrics_dra_verdicts(DRA_OUTCOME_COUNT, 1); /* out of range: ignored */
	metrics_set_dra_store(dra);
	text = metrics_render(&len);
	for (i = 0; i < DRA_OUTCOME_COUNT; i++) {
		snprintf(name, sizeof name, "numa_extender_dra_verdicts_total{result=\"%s\"}", names[i]);
		assert_int_equal(sample(text, name), (long long)i + 3);
	}
	assert_null(strstr(text, "numa_extender_dra_verdicts_total{result=\"\"}"));
	free(text);
	metrics_set_dra_store(NULL);
	dra_store_free(dra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_rejection_reason_is_counted),
		cmocka_unit_test(kubelet_rejections_by_reason_and_decision),
		cmocka_unit_test(every_outcome_is_counted),
		cmocka_unit_test(every_dra_verdict_is_counted_with_the_dra_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
