/* SPDX-License-Identifier: Apache-2.0 */
/* What lets a simulation's cycles skip the per-node work of a lone cycle:
 * the scalar index (scheduler/scalar_index.h) following pods added between
 * cycles, a context reused over many cycles giving what a fresh cycle gives
 * (statuses, message, choice), statuses sharing interned texts, and FitError
 * counting one reason however many copies of its text there are. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/cycle.h"
#include "scheduler/node_view.h"
#include "scheduler/scalar_index.h"
#include "scheduler/select.h"
#include "scheduler/status.h"
#include "tests/support/sched_build.h"

#define GPU "nvidia.com/gpu"
#define FOO "example.com/foo"

static void free_nodes(struct sched_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sched_node_cleanup(&nodes[i]);
	free(nodes);
}

/* Node i's amounts through the index equal those its lists hold. */
static void assert_index_matches(const struct sched_scalar_index *x,
				 const struct sched_node *nodes, size_t n, const char *name)
{
	size_t i, col = sched_scalar_index_column(x, name);

	for (i = 0; i < n; i++) {
		int64_t alloc = -1, used = -1;

		sched_scalar_index_amounts(x, i, col, &alloc, &used);
		assert_int_equal(alloc, sched_resources_get(&nodes[i].allocatable, name, NULL));
		assert_int_equal(used, sched_resources_get(&nodes[i].requested, name, NULL));
	}
}

/* The index sees what sched_node_add_pod changes: amounts in place, a name
 * a pod brings, and rows that outgrow their place; a new array is read
 * whole. */
static void test_index_follows_added_pods(void **state)
{
	struct sched_scalar_index *x = sched_scalar_index_new();
	struct sched_node *nodes = xcalloc(4, sizeof *nodes), *other;
	struct sched_pod gpu, foo, extra, extra_cpu;
	int64_t alloc, used;
	size_t i, k;
	char name[32];

	(void)state;
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "n%zu", i);
		sb_node(&nodes[i], name, "8", "16Gi", 110);
		if (i % 2 == 0)
			sb_node_alloc(&nodes[i], GPU, "4");
	}
	sb_simple_pod(&gpu, "gpu", "1", "1Gi");
	sb_request(&gpu, 0, GPU, "1");
	sb_simple_pod(&foo, "foo", "1", "1Gi");
	sb_request(&foo, 0, FOO, "3");
	sb_simple_pod(&extra_cpu, "extra-cpu", "1", "1Gi");
	sched_scalar_index_sync(x, nodes, 4);
	assert_index_matches(x, nodes, 4, GPU);
	assert_int_equal(sched_scalar_index_column(x, FOO), SCHED_NO_COLUMN);
	sched_scalar_index_amounts(x, 1, SCHED_NO_COLUMN, &alloc, &used);
	assert_int_equal(alloc, 0);
	assert_int_equal(used, 0);

	/* An amount changes in place; a node requests a name none has. */
	sched_node_add_pod(&nodes[0], &gpu, SCHED_V1_35);
	sched_node_add_pod(&nodes[1], &foo, SCHED_V1_35);
	sched_scalar_index_sync(x, nodes, 4);
	sched_scalar_index_amounts(x, 0, sched_scalar_index_column(x, GPU), &alloc, &used);
	assert_int_equal(alloc, 4);
	assert_int_equal(used, 1);
	assert_true(sched_scalar_index_column(x, FOO) != SCHED_NO_COLUMN);
	sched_scalar_index_amounts(x, 1, sched_scalar_index_column(x, FOO), &alloc, &used);
	assert_int_equal(alloc, 0);
	assert_int_equal(used, 3);
	assert_index_matches(x, nodes, 4, GPU);
	assert_index_matches(x, nodes, 4, FOO);

	/* Many new names: rows move to the end of the shared array and are
	 * packed again, amounts kept. */
	for (k = 0; k < 40; k++) {
		snprintf(name, sizeof name, "example.com/r%02zu", k);
		sb_simple_pod(&extra, "extra", "10m", "1Mi");
		sb_request(&extra, 0, name, "2");
		sched_node_add_pod(&nodes[k % 4], &extra, SCHED_V1_35);
		sched_pod_cleanup(&extra);
		sched_scalar_index_sync(x, nodes, 4);
		assert_index_matches(x, nodes, 4, name);
		assert_index_matches(x, nodes, 4, GPU);
	}
	for (k = 0; k < 40; k++) {
		snprintf(name, sizeof name, "example.com/r%02zu", k);
		assert_index_matches(x, nodes, 4, name);
	}

	/* Another array: read whole, its rows none of the old ones. Its
	 * nodes list no scalars until a pod brings one. */
	other = xcalloc(2, sizeof *other);
	sb_node(&other[0], "o0", "4", "8Gi", 110);
	sb_node(&other[1], "o1", "4", "8Gi", 110);
	sched_scalar_index_free(x);
	x = sched_scalar_index_new();
	sched_scalar_index_sync(x, other, 2);
	sched_node_add_pod(&other[0], &extra_cpu, SCHED_V1_35);
	sched_scalar_index_sync(x, other, 2);
	assert_int_equal(sched_scalar_index_column(x, GPU), SCHED_NO_COLUMN);
	sched_scalar_index_amounts(x, 0, SCHED_NO_COLUMN, &alloc, &used);
	assert_int_equal(alloc + used, 0);
	sched_node_add_pod(&other[1], &foo, SCHED_V1_35);
	sched_scalar_index_sync(x, other, 2);
	assert_index_matches(x, other, 2, FOO);
	assert_index_matches(x, other, 2, GPU);

	sched_scalar_index_free(x);
	free_nodes(other, 2);
	free_nodes(nodes, 4);
	sched_pod_cleanup(&gpu);
	sched_pod_cleanup(&foo);
	sched_pod_cleanup(&extra_cpu);
}

/* An extender that rejects every node whose index is 3 mod 7 with a text a
 * filter also gives and every 5 mod 7 with its own, both from a buffer it
 * rewrites each call; scores by index. */
struct script {
	char text[2][32];
};

static enum err script_filter(void *arg, size_t ext, const struct sched_pod *pod,
			      const struct sched_node *nodes, const size_t *cand,
			      size_t n, struct sched_ext_filter *out, struct errmsg *msg)
{
	struct script *s = arg;
	size_t i;

	(void)ext;
	(void)pod;
	(void)nodes;
	(void)msg;
	snprintf(s->text[0], sizeof s->text[0], "Insufficient cpu");
	snprintf(s->text[1], sizeof s->text[1], "no NUMA fit");
	for (i = 0; i < n; i++) {
		out->pass[i] = cand[i] % 7 != 3 && cand[i] % 7 != 5;
		if (!out->pass[i])
			out->reason[i] = s->text[cand[i] % 7 == 3 ? 0 : 1];
		out->unresolvable[i] = cand[i] % 7 == 5;
	}
	return ERR_OK;
}

static enum err script_prioritize(void *arg, size_t ext, const struct sched_pod *pod,
				  const struct sched_node *nodes, const size_t *idx,
				  size_t n, int64_t *score, bool *has, struct errmsg *msg)
{
	size_t i;

	(void)arg;
	(void)ext;
	(void)pod;
	(void)nodes;
	(void)msg;
	for (i = 0; i < n; i++) {
		score[i] = (int64_t)(idx[i] % 11);
		has[i] = true;
	}
	return ERR_OK;
}

/* 150 nodes of mixed kinds: GPUs on some, a NoSchedule taint, a cordon, a
 * pod limit, extended resources the pods do not ask for. */
static struct sched_node *cluster(size_t n)
{
	struct sched_node *nodes = xcalloc(n, sizeof *nodes);
	size_t i;
	char name[32];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "node-%03zu", (i * 37) % n);
		sb_node(&nodes[i], name, i % 5 == 0 ? "2" : "16", "32Gi", i % 13 == 0 ? 2 : 110);
		sb_node_alloc(&nodes[i], "example.com/aaa", "10");
		if (i % 3 != 0)
			sb_node_alloc(&nodes[i], GPU, i % 4 == 0 ? "1" : "4");
		sb_node_alloc(&nodes[i], "zz.example.com/last", "1");
		if (i % 17 == 0)
			sb_node_taint(&nodes[i], "dedicated", "batch", SCHED_EFFECT_NO_SCHEDULE);
		if (i % 19 == 0)
			nodes[i].unschedulable = true;
	}
	return nodes;
}

static void assert_same_status(const struct sched_status *a, const struct sched_status *b)
{
	size_t k;

	assert_int_equal(a->code, b->code);
	if (a->plugin == NULL || b->plugin == NULL)
		assert_ptr_equal(a->plugin, b->plugin);
	else
		assert_string_equal(a->plugin, b->plugin);
	assert_int_equal(a->nreasons, b->nreasons);
	for (k = 0; k < a->nreasons; k++)
		assert_string_equal(a->reasons[k], b->reasons[k]);
}

static void assert_same_cycle(const struct sched_cycle_out *a, const struct sched_cycle_out *b)
{
	size_t i;

	assert_int_equal(a->outcome, b->outcome);
	assert_int_equal(a->nfeasible, b->nfeasible);
	assert_int_equal(a->next_start, b->next_start);
	assert_int_equal(a->ntied, b->ntied);
	if (a->outcome == SCHED_SCHEDULED)
		assert_int_equal(a->chosen, b->chosen);
	if (a->message != NULL || b->message != NULL)
		assert_string_equal(a->message, b->message);
	assert_int_equal(a->nnodes, b->nnodes);
	for (i = 0; i < a->nnodes; i++) {
		assert_int_equal(a->stage[i], b->stage[i]);
		assert_same_status(&a->status[i], &b->status[i]);
	}
}

/* The extender's rejections keep its texts after it rewrote them. */
static void assert_extender_texts(const struct sched_cycle_out *out)
{
	size_t i;

	for (i = 0; i < out->nnodes; i++) {
		if (out->stage[i] != SCHED_EXTENDER_FILTERED)
			continue;
		assert_int_equal(out->status[i].nreasons, 1);
		assert_string_equal(out->status[i].reasons[0],
				    i % 7 == 3 ? "Insufficient cpu" : "no NUMA fit");
	}
}

/* Pods placed one after another with one context give, cycle for cycle,
 * what fresh cycles give, down to each node's status; the extender's texts
 * are copied before it rewrites them. */
static void test_ctx_cycles_match_fresh_cycles(void **state)
{
	static const enum sched_version versions[] = { SCHED_V1_32, SCHED_V1_35 };
	const size_t n = 150;
	size_t v, p;

	(void)state;
	for (v = 0; v < 2; v++) {
		struct sched_node *nodes = cluster(n);
		struct sched_cycle_ctx *ctx = sched_cycle_ctx_new();
		struct script s;
		struct sched_extender_ops ops = { &s, script_filter, script_prioritize };
		struct sched_config c;
		struct sched_pod pods[3];
		size_t start = 0, placed = 0, unschedulable = 0;

		memset(&s, 0, sizeof s);
		sched_config_default(&c);
		c.extenders = xcalloc(1, sizeof *c.extenders);
		c.nextenders = 1;
		c.extenders[0].url_prefix = xstrdup("http://127.0.0.1:8888/numa");
		c.extenders[0].filter_verb = xstrdup("filter");
		c.extenders[0].prioritize_verb = xstrdup("prioritize");
		c.extenders[0].weight = 5;
		c.extenders[0].node_cache_capable = true;
		sb_simple_pod(&pods[0], "gpu", "8", "4Gi");
		sb_request(&pods[0], 0, GPU, "4");
		sb_simple_pod(&pods[1], "cpu", "12", "8Gi");
		sb_simple_pod(&pods[2], "both", "1", "1Gi");
		sb_request(&pods[2], 0, GPU, "1");
		sb_request(&pods[2], 0, "example.com/aaa", "4");
		for (p = 0; p < 300; p++) {
			const struct sched_pod *pod = &pods[p % 3];
			struct sched_cycle_in in = {
				&c, &c.profiles[0], versions[v], pod, nodes, n, start, &ops,
			};
			struct sched_cycle_out fresh, reused;

			sched_schedule_one(&in, &fresh);
			sched_schedule_one_ctx(&in, ctx, &reused);
			memset(s.text, 'X', sizeof s.text);
			assert_same_cycle(&reused, &fresh);
			assert_extender_texts(&reused);
			start = reused.next_start;
			if (reused.outcome == SCHED_SCHEDULED) {
				sched_node_add_pod(&nodes[reused.chosen], pod, versions[v]);
				placed++;
			} else {
				unschedulable++;
			}
			sched_cycle_out_cleanup(&fresh);
			sched_cycle_out_cleanup(&reused);
		}
		/* The run went both ways: pods placed, then a full cluster. */
		assert_true(placed > 10);
		assert_true(unschedulable > 10);
		for (p = 0; p < 3; p++)
			sched_pod_cleanup(&pods[p]);
		sched_config_cleanup(&c);
		sched_cycle_ctx_free(ctx);
		free_nodes(nodes, n);
	}
}

/* FitError counts a text once however many copies of it the statuses hold
 * (interned, owned, another text at another address), then sorts the
 * entries as strings: "12 b" before "2 a". */
static void test_fit_error_counts_texts(void **state)
{
	static const char *const b = "b", *const a = "a";
	struct sched_reasons *r = sched_reasons_new();
	struct sched_status st[13];
	const char *interned = sched_reasons_intern(r, "b");
	const char *two[2] = { "a", "b" };
	char *message;
	size_t i;

	(void)state;
	memset(st, 0, sizeof st);
	assert_ptr_equal(sched_reasons_intern(r, "b"), interned);
	for (i = 0; i < 4; i++)
		sched_status_add(r, &st[i], SCHED_UNSCHEDULABLE, "NodeResourcesFit", &b, 1, false);
	for (i = 4; i < 8; i++)
		sched_status_add(r, &st[i], SCHED_UNSCHEDULABLE, "NodeResourcesFit", &interned, 1,
				 false);
	for (i = 8; i < 10; i++)
		sched_status_add(r, &st[i], SCHED_UNSCHEDULABLE, "NodeResourcesFit", &b, 1, true);
	/* One node with both: reasons added to reasons already there. */
	sched_status_add(r, &st[10], SCHED_UNSCHEDULABLE, "NodeResourcesFit", &a, 1, false);
	sched_status_add(r, &st[10], SCHED_UNSCHEDULABLE_UNRESOLVABLE, "Extender", &b, 1, false);
	assert_int_equal(st[10].nreasons, 2);
	assert_string_equal(st[10].plugin, "NodeResourcesFit");
	assert_int_equal(st[10].code, SCHED_UNSCHEDULABLE_UNRESOLVABLE);
	sched_status_add(r, &st[11], SCHED_UNSCHEDULABLE, "Extender", two, 1, true);
	sched_status_add(r, &st[11], SCHED_UNSCHEDULABLE, "Extender", two + 1, 1, false);
	assert_true(st[11].owned);
	assert_int_equal(st[11].nreasons, 2);
	assert_string_equal(st[11].reasons[1], "b");
	message = sched_fit_error(st, 13, 20, NULL);
	assert_string_equal(message, "0/20 nodes are available: 12 b, 2 a.");
	free(message);
	message = sched_fit_error(st, 0, 20, NULL);
	assert_string_equal(message, "0/20 nodes are available:");
	free(message);
	for (i = 0; i < 13; i++)
		sched_status_cleanup(&st[i]);
	sched_reasons_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_follows_added_pods),
		cmocka_unit_test(test_ctx_cycles_match_fresh_cycles),
		cmocka_unit_test(test_fit_error_counts_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
