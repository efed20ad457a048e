/* SPDX-License-Identifier: Apache-2.0 */
/* The victim search of preemption (extender/decide/preempt.c), called in
 * process on a tiny node and hand-made ledger views: every result, the
 * fewest lower-priority victims added (exactly, then past the exact limit by
 * dropping extras), the preemptor never its own victim, and the explanation.
 * tests/integration/test_preempt drives the same search through serve. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/config.h"
#include "extender/decide/preempt.h"
#include "extender/decide/settings.h"
#include "tests/support/tiny_node.h"

/* Two NUMA zones with every CPU taken; only NUMA 0 has GPUs. The pod asks
 * 4 CPUs and a GPU under single-numa-node: it fits only once 4 CPUs are
 * freed on NUMA 0. */
static const struct tiny_zone ZONES[2] = {
	{ { 8, 0 }, { 16, 16 }, { 0, 0 }, { 2, 2 } },
	{ { 8, 0 }, { 16, 16 }, { 0, 0 }, { 0, 0 } },
};
#define POD "containers: [{name: app, resources: {limits: {cpu: 4, memory: 1Gi, " TINY_GPU ": 1}}}]"

struct pod_def {
	const char *name;
	int64_t priority;
	bool known;
	int numa;     /* where its CPUs are */
	int64_t cpus;
};

struct fixture {
	struct inventory_node *inv;
	struct pod_spec spec;
	struct pod_demand *demand;
	struct settings *settings;
	struct config cfg;
	struct decide_input in;
	struct preemptor who;
	struct ledger_pod_view *pods;
	size_t npods;
};

static void fixture_init(struct fixture *f, const struct pod_def *defs, size_t n)
{
	struct errmsg msg;
	size_t i;

	memset(f, 0, sizeof *f);
	f->inv = tiny_node("single-numa-node", false, NULL, 2, ZONES, &msg);
	assert_non_null(f->inv);
	f->demand = tiny_pod(POD, &f->spec, &msg);
	assert_non_null(f->demand);
	config_init(&f->cfg);
	f->settings = settings_new(&f->cfg);
	f->in.demand = f->demand;
	f->in.settings = f->settings;
	f->who.pod = &f->spec;
	f->who.priority = 100;
	f->pods = xcalloc(n + 1, sizeof *f->pods);
	f->npods = n;
	for (i = 0; i < n; i++) {
		struct ledger_pod_view *v = &f->pods[i];
		char uid[64];

		snprintf(uid, sizeof uid, "uid-%s", defs[i].name);
		v->uid = xstrdup(uid);
		v->namespace_ = xstrdup("ns");
		v->name = xstrdup(defs[i].name);
		v->priority = defs[i].priority;
		v->known = defs[i].known;
		if (v->known) {
			v->placed = xcalloc(1, sizeof *v->placed);
			v->placed[0].resource = xstrdup("cpu");
			v->placed[0].numa_id = defs[i].numa;
			v->placed[0].amount = defs[i].cpus;
			v->nplaced = 1;
		}
	}
}

static void fixture_cleanup(struct fixture *f)
{
	ledger_pod_views_free(f->pods, f->npods);
	settings_unref(f->settings);
	config_cleanup(&f->cfg);
	pod_demand_free(f->demand);
	pod_spec_cleanup(&f->spec);
	inventory_node_free(f->inv);
}

/* Decides the node with the given victims and checks the result, the added
 * UIDs (want_added: NULL-terminated, in order; NULL: none) and, when
 * want_why is not NULL, the explanation. */
static void check(struct fixture *f, bool with_inventory, const char *const *given,
		  size_t ngiven, enum preempt_result want, const char *const *want_added,
		  const char *want_why)
{
	struct preempt_node node = { with_inventory ? f->inv : NULL, f->pods, f->npods, given,
				     ngiven };
	struct textbuf why;
	char **added;
	size_t nadded, i;

	textbuf_init(&why, (size_t)1 << 20);
	assert_int_equal(preempt_decide(&f->in, &f->who, &node, &why, &added, &nadded), want);
	for (i = 0; want_added && want_added[i]; i++) {
		assert_true(i < nadded);
		assert_string_equal(added[i], want_added[i]);
	}
	assert_int_equal(nadded, i);
	if (nadded == 0)
		assert_null(added);
	if (want_why)
		assert_string_equal(textbuf_str(&why), want_why);
	for (i = 0; i < nadded; i++)
		free(added[i]);
	free(added);
	textbuf_free(&why);
}

static const struct pod_def BIG_AND_WRONG_ZONE[] = {
	{ "a", 0, true, 0, 8 }, /* every CPU of NUMA 0 */
	{ "b", 0, true, 1, 4 }, /* half of NUMA 1, where there is no GPU */
};
static const char *const GIVEN_A[] = { "uid-a" };
static const char *const GIVEN_B[] = { "uid-b" };

static void victims_that_free_enough_are_kept_as_given(void **state)
{
	struct fixture f;

	(void)state;
	fixture_init(&f, BIG_AND_WRONG_ZONE, 2);
	check(&f, true, GIVEN_A, 1, PREEMPT_KEPT, NULL, "ns/a frees cpu 8 on NUMA 0");
	assert_string_equal(preempt_result_name(PREEMPT_KEPT), "kept");
	fixture_cleanup(&f);
}

static void a_lower_priority_pod_is_added_when_the_given_one_frees_the_wrong_zone(void **state)
{
	static const char *const a[] = { "uid-a", NULL };
	struct fixture f;

	(void)state;
	fixture_init(&f, BIG_AND_WRONG_ZONE, 2);
	check(&f, true, GIVEN_B, 1, PREEMPT_EXTENDED, a,
	      "ns/b frees cpu 4 on NUMA 1; added ns/a frees cpu 8 on NUMA 0");
	assert_string_equal(preempt_result_name(PREEMPT_EXTENDED), "extended");
	/* A preemptor of no higher priority may not take it: dropped. */
	f.who.priority = 0;
	check(&f, true, GIVEN_B, 1, PREEMPT_DROPPED, NULL, NULL);
	/* Nor is the preemptor ever its own victim. */
	f.who.priority = 100;
	f.spec.uid = xstrdup("uid-a");
	check(&f, true, GIVEN_B, 1, PREEMPT_DROPPED, NULL, NULL);
	assert_string_equal(preempt_result_name(PREEMPT_DROPPED), "dropped");
	fixture_cleanup(&f);
}

static void unknown_placements_and_missing_inventory_keep_the_node_as_given(void **state)
{
	static const char *const given[] = { "uid-b", "uid-nobody" };
	struct fixture f;

	(void)state;
	fixture_init(&f, BIG_AND_WRONG_ZONE, 2);
	/* uid-nobody may free NUMA 0: never dropped on a guess. */
	check(&f, true, given, 2, PREEMPT_KEPT_UNKNOWN, NULL,
	      "ns/b frees cpu 4 on NUMA 1; uid uid-nobody: not in the ledger, "
	      "frees nothing zone-specific");
	check(&f, false, given, 1, PREEMPT_KEPT_NO_INVENTORY, NULL, "ns/b frees cpu 4 on NUMA 1");
	/* A node is never kept without a victim. */
	check(&f, false, given, 0, PREEMPT_DROPPED, NULL, "");
	assert_string_equal(preempt_result_name(PREEMPT_KEPT_UNKNOWN), "keptUnknownPlacement");
	assert_string_equal(preempt_result_name(PREEMPT_KEPT_NO_INVENTORY), "keptNoInventory");
	fixture_cleanup(&f);
}

/* NUMA 0's CPUs held by pods of 1, 3 and 4 CPUs (in that order of
 * priority, lowest first): one victim beats two whatever their priorities;
 * without the 4-CPU pod, the pair of 1 and 3 it is. */
static void the_fewest_extra_victims_lowest_priority_first(void **state)
{
	static const struct pod_def with_four[] = {
		{ "one", 1, true, 0, 1 },
		{ "three", 2, true, 0, 3 },
		{ "four", 3, true, 0, 4 },
		{ "wrong-zone", 0, true, 1, 4 },
	};
	static const struct pod_def without_four[] = {
		{ "one", 1, true, 0, 1 },
		{ "three", 2, true, 0, 3 },
		{ "wrong-zone", 0, true, 1, 4 },
	};
	static const char *const given[] = { "uid-wrong-zone" };
	static const char *const four[] = { "uid-four", NULL };
	static const char *const one_three[] = { "uid-one", "uid-three", NULL };
	struct fixture f;

	(void)state;
	fixture_init(&f, with_four, 4);
	check(&f, true, given, 1, PREEMPT_EXTENDED, four, NULL);
	fixture_cleanup(&f);
	fixture_init(&f, without_four, 3);
	check(&f, true, given, 1, PREEMPT_EXTENDED, one_three, NULL);
	fixture_cleanup(&f);
}

/* Eight 1-CPU pods on NUMA 0: four must go, more than the exact search
 * tries, so extras are dropped highest priority first while the rest
 * admits, leaving the four of lowest priority. */
static void past_the_exact_limit_a_minimal_set_is_kept(void **state)
{
	static const struct pod_def defs[] = {
		{ "p8", 8, true, 0, 1 }, { "p7", 7, true, 0, 1 }, { "p6", 6, true, 0, 1 },
		{ "p5", 5, true, 0, 1 }, { "p4", 4, true, 0, 1 }, { "p3", 3, true, 0, 1 },
		{ "p2", 2, true, 0, 1 }, { "p1", 1, true, 0, 1 }, { "b", 0, true, 1, 4 },
	};
	static const char *const lowest_four[] = { "uid-p1", "uid-p2", "uid-p3", "uid-p4", NULL };
	struct fixture f;

	(void)state;
	fixture_init(&f, defs, 9);
	check(&f, true, GIVEN_B, 1, PREEMPT_EXTENDED, lowest_four, NULL);
	fixture_cleanup(&f);
}

/* Past PREEMPT_EXPLAIN_GIVEN_BYTES the given victims are counted, not
 * named; the decision still weighs every one of them. */
static void a_long_list_of_victims_is_summed_up(void **state)
{
	enum { N = 2000 };
	struct fixture f;
	struct preempt_node node;
	struct textbuf why;
	char **uids = xcalloc(N, sizeof *uids), **added;
	const char **given = xcalloc(N, sizeof *given);
	size_t nadded, i;

	(void)state;
	fixture_init(&f, BIG_AND_WRONG_ZONE, 2);
	for (i = 0; i < N - 1; i++) {
		char uid[32];

		snprintf(uid, sizeof uid, "gone-%04zu", i);
		uids[i] = xstrdup(uid);
	}
	uids[N - 1] = xstrdup("uid-a");
	for (i = 0; i < N; i++)
		given[i] = uids[i];
	node = (struct preempt_node){ f.inv, f.pods, f.npods, given, N };
	textbuf_init(&why, (size_t)1 << 20);
	assert_int_equal(preempt_decide(&f.in, &f.who, &node, &why, &added, &nadded), PREEMPT_KEPT);
	assert_true(textbuf_len(&why) < PREEMPT_EXPLAIN_GIVEN_BYTES + 200);
	assert_non_null(strstr(textbuf_str(&why), " more not listed"));
	assert_null(strstr(textbuf_str(&why), "ns/a"));
	textbuf_free(&why);
	for (i = 0; i < N; i++)
		free(uids[i]);
	free(uids);
	free(given);
	fixture_cleanup(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(victims_that_free_enough_are_kept_as_given),
		cmocka_unit_test(a_lower_priority_pod_is_added_when_the_given_one_frees_the_wrong_zone),
		cmocka_unit_test(unknown_placements_and_missing_inventory_keep_the_node_as_given),
		cmocka_unit_test(the_fewest_extra_victims_lowest_priority_first),
		cmocka_unit_test(past_the_exact_limit_a_minimal_set_is_kept),
		cmocka_unit_test(a_long_list_of_victims_is_summed_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
