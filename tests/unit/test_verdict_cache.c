/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict cache: an entry comes back as it was put (reason copied, cut at
 * VERDICT_REASON_MAX - 1); one demand's 5000 nodes (and four demands' 20,000)
 * do not evict each other; 10,000 demands one after another keep caching, and
 * past the demand table's size old keys make way with new ids, never reused;
 * memory stays bounded with CLOCK keeping what is read; reasons are interned
 * once each, within bounds; threads hammering
 * get and put never see a torn entry; /metrics reports the counters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/metrics.h"
#include "extender/decide/verdict_cache.h"

static const char reject[] = "NUMA: cannot align cpu on one NUMA node (single-numa-node)";

/* The entry a key always gets in these tests: every field depends on it. */
static void entry_for(uint64_t node, uint64_t settings, uint64_t demand, struct verdict_entry *e)
{
	size_t len = (size_t)((node * 7 + demand) % 200);
	size_t i;

	memset(e, 0, sizeof *e);
	e->outcome = (unsigned char)(node % 3);
	e->score = (int64_t)(node * 31 + settings * 7 + demand) * (node % 2 ? -1 : 1);
	e->numa_ids = node ^ (demand << 32) ^ (settings << 48);
	e->kubelet_reason = e->outcome ? REASON_TOPOLOGY_AFFINITY : REASON_NONE;
	if (e->outcome) {
		i = (size_t)snprintf(e->reason, sizeof e->reason, "r%llu/%llu/%llu:",
				     (unsigned long long)node, (unsigned long long)settings,
				     (unsigned long long)demand);
		for (; i < len + 20 && i + 1 < sizeof e->reason; i++)
			e->reason[i] = (char)('a' + (node + i) % 26);
		e->reason[i] = '\0';
	}
}

static int entry_equal(const struct verdict_entry *a, const struct verdict_entry *b)
{
	return a->outcome == b->outcome && a->score == b->score && a->numa_ids == b->numa_ids &&
	       a->kubelet_reason == b->kubelet_reason && strcmp(a->reason, b->reason) == 0;
}

static void put_key(uint64_t node, uint64_t settings, uint64_t demand)
{
	struct verdict_entry e;

	entry_for(node, settings, demand, &e);
	verdict_cache_put(node, settings, demand, &e);
}

/* Hit, and the entry is the one put for the key. */
static int hits_key(uint64_t node, uint64_t settings, uint64_t demand)
{
	struct verdict_entry want, got;

	if (!verdict_cache_get(node, settings, demand, &got))
		return 0;
	entry_for(node, settings, demand, &want);
	return entry_equal(&want, &got);
}

static void round_trip(void **state)
{
	struct verdict_entry e, got;
	struct verdict_cache_stats st;
	uint64_t d;

	(void)state;
	verdict_cache_clear();
	d = verdict_cache_demand("q1|c8|w0|");
	memset(&e, 0, sizeof e);
	e.outcome = 2;
	snprintf(e.reason, sizeof e.reason, "%s", reject);
	e.kubelet_reason = REASON_TOPOLOGY_AFFINITY;
	e.score = -3;
	e.numa_ids = 0x5;
	assert_false(verdict_cache_get(10, 1, d, &got));
	verdict_cache_put(10, 1, d, &e);
	memset(&got, 0x7f, sizeof got);
	assert_true(verdict_cache_get(10, 1, d, &got));
	assert_true(entry_equal(&e, &got));
	assert_string_equal(got.reason, reject);
	/* Another snapshot, settings or demand misses. */
	assert_false(verdict_cache_get(11, 1, d, &got));
	assert_false(verdict_cache_get(10, 2, d, &got));
	assert_false(verdict_cache_get(10, 1, d + 1, &got));
	/* Demand 0 is never remembered nor counted. */
	verdict_cache_put(10, 1, 0, &e);
	assert_false(verdict_cache_get(10, 1, 0, &got));
	/* The same key again replaces: a passing verdict has no reason. */
	memset(&e, 0, sizeof e);
	e.kubelet_reason = REASON_NONE;
	e.score = 9;
	e.numa_ids = 0x2;
	verdict_cache_put(10, 1, d, &e);
	memset(&got, 0x7f, sizeof got);
	assert_true(verdict_cache_get(10, 1, d, &got));
	assert_true(entry_equal(&e, &got));
	assert_string_equal(got.reason, "");
	/* A reason with no NUL in its array is cut at VERDICT_REASON_MAX - 1. */
	memset(e.reason, 'x', sizeof e.reason);
	verdict_cache_put(12, 1, d, &e);
	assert_true(verdict_cache_get(12, 1, d, &got));
	assert_int_equal(strlen(got.reason), VERDICT_REASON_MAX - 1);
	verdict_cache_stats(&st);
	assert_int_equal(st.hits, 3);
	assert_int_equal(st.misses, 4);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.evictions, 0);
	assert_int_equal(st.demands, 1);
	verdict_cache_clear();
	verdict_cache_stats(&st);
	assert_int_equal(st.hits + st.misses + st.entries + st.demands + st.evictions, 0);
	assert_false(verdict_cache_get(10, 1, d, &got));
}

static void demand_ids(void **state)
{
	char *big = malloc(VERDICT_CACHE_DEMAND_KEY_MAX + 2);
	uint64_t a, b, a2, b1, b2;

	(void)state;
	verdict_cache_clear();
	a = verdict_cache_demand("q2|c4|w1|");
	b = verdict_cache_demand("q2|c4|w0|");
	assert_true(a != 0 && b != 0 && a != b);
	assert_int_equal(verdict_cache_demand("q2|c4|w1|"), a);
	assert_int_equal(verdict_cache_demand("q2|c4|w0|"), b);
	/* Forgotten keys get new ids; no id comes back. */
	verdict_cache_clear();
	a2 = verdict_cache_demand("q2|c4|w1|");
	assert_true(a2 > a && a2 > b);
	/* Keys past the ceiling are not interned: a fresh id each time. */
	memset(big, 'k', VERDICT_CACHE_DEMAND_KEY_MAX + 1);
	big[VERDICT_CACHE_DEMAND_KEY_MAX + 1] = '\0';
	b1 = verdict_cache_demand(big);
	b2 = verdict_cache_demand(big);
	assert_true(b1 > a2 && b2 > b1);
	/* One at the ceiling is. */
	big[VERDICT_CACHE_DEMAND_KEY_MAX] = '\0';
	b1 = verdict_cache_demand(big);
	assert_int_equal(verdict_cache_demand(big), b1);
	free(big);
}

/* kube-scheduler's 5000 candidates for one pod: all remembered, and with
 * three more demands' 5000 put in between, still all remembered. */
static void one_demand_5000_nodes(void **state)
{
	struct verdict_cache_stats st;
	uint64_t d[4], n;
	int k;

	(void)state;
	verdict_cache_clear();
	d[0] = verdict_cache_demand("shape-a");
	for (n = 1; n <= 5000; n++)
		put_key(n, 1, d[0]);
	for (n = 1; n <= 5000; n++)
		assert_true(hits_key(n, 1, d[0]));
	for (k = 1; k < 4; k++) {
		char key[32];

		snprintf(key, sizeof key, "shape-%c", 'a' + k);
		d[k] = verdict_cache_demand(key);
	}
	/* Node ids as a store hands them out while inventories change. */
	for (n = 1; n <= 5000; n++)
		for (k = 1; k < 4; k++)
			put_key(n + 100000 * (uint64_t)k, 1, d[k]);
	for (k = 0; k < 4; k++)
		for (n = 1; n <= 5000; n++)
			assert_true(hits_key(n + (k ? 100000 * (uint64_t)k : 0), 1, d[k]));
	verdict_cache_stats(&st);
	assert_int_equal(st.entries, 20000);
	assert_int_equal(st.evictions, 0);
	assert_int_equal(st.hits, 25000);
}

/* No cliff after N pod shapes. */
static void ten_thousand_demands(void **state)
{
	struct verdict_cache_stats st;
	uint64_t id[10000], first;
	char key[32];
	int i;
	uint64_t n;

	(void)state;
	verdict_cache_clear();
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof key, "shape-%d", i);
		id[i] = verdict_cache_demand(key);
		assert_true(id[i] != 0 && (i == 0 || id[i] > id[i - 1]));
		for (n = 1; n <= 3; n++)
			put_key(n, 7, id[i]);
		for (n = 1; n <= 3; n++)
			assert_true(hits_key(n, 7, id[i]));
	}
	/* The recent ones are still there, under the same ids. */
	for (i = 9000; i < 10000; i++) {
		snprintf(key, sizeof key, "shape-%d", i);
		assert_int_equal(verdict_cache_demand(key), id[i]);
		for (n = 1; n <= 3; n++)
			assert_true(hits_key(n, 7, id[i]));
	}
	/* The first, seen again and put again, hits. */
	first = verdict_cache_demand("shape-0");
	assert_true(first == id[0] || first > id[9999]);
	put_key(1, 7, first);
	assert_true(hits_key(1, 7, first));
	verdict_cache_stats(&st);
	assert_true(st.demands <= VERDICT_CACHE_DEMANDS);
	assert_true(st.entries <= VERDICT_CACHE_ENTRIES);
}

/* Past the demand table's size the oldest keys go: they come back under new
 * ids, the recent ones keep theirs, and no id is given twice. */
static void demand_table_evicts(void **state)
{
	enum { N = 50000 };
	struct verdict_cache_stats st;
	uint64_t *id = malloc(N * sizeof *id), again, last;
	char key[32];
	int i;

	(void)state;
	verdict_cache_clear();
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof key, "pod-shape-%d", i);
		id[i] = verdict_cache_demand(key);
		assert_true(i == 0 || id[i] > id[i - 1]);
	}
	verdict_cache_stats(&st);
	assert_true(st.demands <= VERDICT_CACHE_DEMANDS);
	assert_true(st.demands > VERDICT_CACHE_DEMANDS * 9 / 10);
	assert_int_equal(st.demands + st.demand_evictions, N);
	last = id[N - 1];
	/* The first key was pushed out long ago: a new id. */
	again = verdict_cache_demand("pod-shape-0");
	assert_true(again > last);
	put_key(42, 1, again);
	assert_true(hits_key(42, 1, again));
	assert_false(hits_key(42, 1, id[0]));
	/* The last 1000 are all still known. */
	for (i = N - 1000; i < N; i++) {
		snprintf(key, sizeof key, "pod-shape-%d", i);
		assert_int_equal(verdict_cache_demand(key), id[i]);
	}
	free(id);
}

/* More keys than the table holds: memory stays put, the newest are there. */
static void bounded_with_eviction(void **state)
{
	enum { N = 300000 };
	struct verdict_cache_stats st;
	uint64_t d, n;

	(void)state;
	verdict_cache_clear();
	d = verdict_cache_demand("shape-bounded");
	for (n = 1; n <= N; n++)
		put_key(n, 3, d);
	verdict_cache_stats(&st);
	assert_true(st.entries <= VERDICT_CACHE_ENTRIES);
	assert_true(st.entries > VERDICT_CACHE_ENTRIES * 95 / 100);
	assert_int_equal(st.entries + st.evictions, N);
	for (n = N - 1000 + 1; n <= N; n++)
		assert_true(hits_key(n, 3, d));
}

/* A filter's rejections share a few reasons: each is interned once, every
 * entry reads back its own; thousands of distinct reasons past the table's
 * bound still read back exactly (each entry then keeps its own copy). */
static void reasons_interned_once(void **state)
{
	static const char *const texts[3] = {
		"NUMA: cannot align cpu, memory on one NUMA node (single-numa-node)",
		"NUMA: cannot align nvidia.com/gpu on one NUMA node (single-numa-node)",
		"NUMA: cannot align cpu on a preferred NUMA set (restricted)",
	};
	struct verdict_cache_stats st;
	struct verdict_entry e, got;
	uint64_t d, n;

	(void)state;
	verdict_cache_clear();
	d = verdict_cache_demand("shape-reasons");
	for (n = 1; n <= 5000; n++) {
		memset(&e, 0, sizeof e);
		e.outcome = 1;
		snprintf(e.reason, sizeof e.reason, "%s", texts[n % 3]);
		verdict_cache_put(n, 1, d, &e);
	}
	verdict_cache_stats(&st);
	assert_int_equal(st.reasons, 3);
	for (n = 1; n <= 5000; n++) {
		assert_true(verdict_cache_get(n, 1, d, &got));
		assert_string_equal(got.reason, texts[n % 3]);
	}
	/* 20,000 texts of about 200 bytes: 4 MB, past the table. */
	for (n = 1; n <= 20000; n++) {
		memset(&e, 0, sizeof e);
		e.outcome = 1;
		snprintf(e.reason, sizeof e.reason, "%0200llu", (unsigned long long)n);
		verdict_cache_put(n, 2, d, &e);
	}
	verdict_cache_stats(&st);
	assert_true(st.reasons > 3 && st.reasons <= 4096 + 3);
	for (n = 1; n <= 20000; n++) {
		char want[256];

		snprintf(want, sizeof want, "%0200llu", (unsigned long long)n);
		assert_true(verdict_cache_get(n, 2, d, &got));
		assert_string_equal(got.reason, want);
	}
	/* Overwritten in place: the entry's own copy goes, the shared text
	 * stays for the others. */
	memset(&e, 0, sizeof e);
	e.outcome = 1;
	snprintf(e.reason, sizeof e.reason, "%s", texts[0]);
	verdict_cache_put(19999, 2, d, &e);
	assert_true(verdict_cache_get(19999, 2, d, &got));
	assert_string_equal(got.reason, texts[0]);
	assert_true(verdict_cache_get(3, 1, d, &got));
	assert_string_equal(got.reason, texts[0]);
	verdict_cache_clear();
	verdict_cache_stats(&st);
	assert_int_equal(st.reasons, 0);
}

/* CLOCK: verdicts read again survive a stream of verdicts nobody reads. */
static void clock_keeps_what_is_read(void **state)
{
	struct verdict_cache_stats st;
	uint64_t hot, cold, n, next = 1000000;
	int round;

	(void)state;
	verdict_cache_clear();
	hot = verdict_cache_demand("hot");
	cold = verdict_cache_demand("cold");
	for (n = 1; n <= 5000; n++)
		put_key(n, 1, hot);
	for (round = 0; round < 12; round++) {
		for (n = 1; n <= 5000; n++)
			assert_true(hits_key(n, 1, hot));
		for (n = 0; n < 20000; n++)
			put_key(next++, 1, cold);
	}
	verdict_cache_stats(&st);
	assert_true(st.evictions > 100000);
}

struct hammer {
	unsigned seed;
	uint64_t demands[3];
	unsigned long hits, gets, torn;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	uint64_t x = h->seed * 0x9e3779b97f4a7c15ull + 1;
	struct verdict_entry want, got;
	int i;

	for (i = 0; i < 300000; i++) {
		uint64_t node, settings, demand;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 3 x 2 x 40,000 keys: more than the table holds, so that
		 * puts evict what other threads read. */
		node = x % 40000 + 1;
		settings = (x >> 20) % 2 + 1;
		demand = h->demands[(x >> 30) % 3];
		h->gets++;
		if (verdict_cache_get(node, settings, demand, &got)) {
			h->hits++;
			entry_for(node, settings, demand, &want);
			if (!entry_equal(&want, &got))
				h->torn++;
		} else {
			put_key(node, settings, demand);
		}
		if (i % 50000 == 0) {
			struct verdict_cache_stats st;

			verdict_cache_stats(&st);
			verdict_cache_demand("shape-h0");
		}
	}
	return NULL;
}

static void threads_see_no_torn_entry(void **state)
{
	enum { T = 4 };
	struct hammer h[T];
	pthread_t th[T];
	unsigned long hits = 0, gets = 0;
	struct verdict_cache_stats st;
	uint64_t d[3];
	int i;

	(void)state;
	verdict_cache_clear();
	d[0] = verdict_cache_demand("shape-h0");
	d[1] = verdict_cache_demand("shape-h1");
	d[2] = verdict_cache_demand("shape-h2");
	for (i = 0; i < T; i++) {
		memset(&h[i], 0, sizeof h[i]);
		h[i].seed = (unsigned)i + 1;
		memcpy(h[i].demands, d, sizeof d);
		assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
	}
	for (i = 0; i < T; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(h[i].torn, 0);
		hits += h[i].hits;
		gets += h[i].gets;
	}
	verdict_cache_stats(&st);
	assert_int_equal(st.hits, hits);
	assert_int_equal(st.hits + st.misses, gets);
	assert_true(hits > gets / 10);
	assert_true(st.evictions > 0);
	assert_true(st.entries <= VERDICT_CACHE_ENTRIES);
}

static unsigned long long metric(const char *text, const char *name)
{
	char line[128];
	const char *p;

	snprintf(line, sizeof line, "\n%s ", name);
	p = strstr(text, line);
	assert_non_null(p);
	return strtoull(p + strlen(line), NULL, 10);
}

static void metrics_report_the_cache(void **state)
{
	struct verdict_cache_stats st;
	struct verdict_entry e;
	uint64_t d;
	size_t len;
	char *text;

	(void)state;
	verdict_cache_clear();
	d = verdict_cache_demand("shape-m");
	put_key(1, 1, d);
	put_key(2, 1, d);
	assert_true(verdict_cache_get(1, 1, d, &e));
	assert_true(verdict_cache_get(1, 1, d, &e));
	assert_false(verdict_cache_get(3, 1, d, &e));
	text = metrics_render(&len);
	assert_int_equal(metric(text, "numa_extender_verdict_cache_hits_total"), 2);
	assert_int_equal(metric(text, "numa_extender_verdict_cache_misses_total"), 1);
	assert_int_equal(metric(text, "numa_extender_verdict_cache_evictions_total"), 0);
	assert_int_equal(metric(text, "numa_extender_verdict_cache_entries"), 2);
	assert_int_equal(metric(text, "numa_extender_verdict_cache_demands"), 1);
	/* Both entries reject, each with its own reason (entry_for). */
	assert_int_equal(metric(text, "numa_extender_verdict_cache_reasons"), 2);
	assert_non_null(strstr(text, "# TYPE numa_extender_verdict_cache_entries gauge\n"));
	assert_non_null(strstr(text, "# TYPE numa_extender_verdict_cache_misses_total counter\n"));
	free(text);
	verdict_cache_stats(&st);
	assert_int_equal(st.hits, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(demand_ids),
		cmocka_unit_test(one_demand_5000_nodes),
		cmocka_unit_test(ten_thousand_demands),
		cmocka_unit_test(demand_table_evicts),
		cmocka_unit_test(bounded_with_eviction),
		cmocka_unit_test(reasons_interned_once),
		cmocka_unit_test(clock_keeps_what_is_read),
		cmocka_unit_test(threads_see_no_torn_entry),
		cmocka_unit_test(metrics_report_the_cache),
	};

	return cmocka_run_group_tests_name("verdict_cache", tests, NULL, NULL);
}
