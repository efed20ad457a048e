/* SPDX-License-Identifier: Apache-2.0 */
/* Where the allocator's prediction answers "cannot predict" rather than
 * guess (dra/alloc.h): features it does not model, prioritized lists past
 * their first alternative, the unsorted order of 1.32-1.35 (predictable
 * only when every candidate of a request sits on one NUMA set), and a
 * search too large for its budget. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/dra_fixture.h"

static const char *predict(const char *text)
{
	return df_run(text, true);
}

#define GPU "class gpu\nsel device.driver == 'gpu.x'\n"
#define NUMA "resource.kubernetes.io/numaNode=i:"

static void device_features_not_modelled(void **state)
{
	static const char *const cases[][2] = {
		{ " dev g0 consumes\n", "device \"g0\" of pool \"p\" is in a pool with shared "
					"counters (partitionable devices)" },
		{ " dev g0 multi\n", "device \"g0\" of pool \"p\" allows multiple allocations "
				     "(consumable capacity)" },
		{ " dev g0 binding\n", "device \"g0\" of pool \"p\" has binding conditions" },
		{ " dev g0 taint=NoSchedule\n", "device \"g0\" of pool \"p\" has a NoSchedule taint" },
		{ " dev g0 taint=NoExecute\n", "device \"g0\" of pool \"p\" has a NoExecute taint" },
	};
	char text[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char want[512];

		snprintf(text, sizeof text, GPU "slice s driver=gpu.x pool=p\n%sclaim c\nreq r class=gpu\n",
			 cases[i][0]);
		snprintf(want, sizeof want, "cannotPredict: %s", cases[i][1]);
		assert_string_equal(predict(text), want);
	}
	/* Only a device that would be a candidate matters: a taint of effect
	 * None, or a tainted device that does not match, changes nothing. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0 taint=None\n"
				    "slice t driver=nic.x pool=q\n dev n0 taint=NoSchedule binding multi\n"
				    "claim c\nreq r class=gpu\n"),
			    "c: r=g0@?");
	/* A device that consumes counters makes its whole pool's validity
	 * unknown (its counter sets are checked with the pool)... */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n dev g1 consumes\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: device \"g0\" of pool \"p\" is in a pool with shared "
			    "counters (partitionable devices)");
	/* ... not other pools'. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "slice t driver=gpu.x pool=q\n dev g1 consumes\n"
				    "claim c\nreq r class=gpu\n"),
			    "c: r=g0@?");
	/* A slice of shared counters makes its pool's devices unpredictable. */
	assert_string_equal(predict(GPU "slice s-1 driver=gpu.x pool=p count=2 counters\n"
				    "slice s-2 driver=gpu.x pool=p count=2\n dev g0\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: device \"g0\" of pool \"p\" is in a pool with shared "
			    "counters (partitionable devices)");
}

static void request_features_not_modelled(void **state)
{
	(void)state;
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu admin\n"),
			    "cannotPredict: claim \"c\", request \"r\" asks for admin access");
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu tolerations\n"),
			    "cannotPredict: claim \"c\", request \"r\" tolerates device taints");
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu capacity\n"),
			    "cannotPredict: claim \"c\", request \"r\": capacity requests "
			    "(consumable capacity) are not predicted");
	/* An error the prologue finds is certain all the same. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu admin\nclaim d\nreq r class=none\n"),
			    "fatal: claim \"d\", request \"r\": device class \"none\" does not exist");
}

static void prioritized_lists(void **state)
{
	(void)state;
	/* The first alternative fits: results are named <request>/<alt>. */
	assert_string_equal(predict(GPU "class nic\nsel device.driver == 'nic.x'\n"
				    "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n"
				    "claim c\nreq r\nalt big class=gpu count=2\nalt small class=gpu\n"),
			    "c: r/big=g0@? r/big=g1@?");
	/* It does not: the allocator would go on with the next one. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r\nalt big class=gpu count=2\nalt small class=gpu\n"),
			    "cannotPredict: claim \"c\", request \"r/big\": the first alternative "
			    "of the prioritized list cannot be satisfied here; later ones are not "
			    "predicted");
	/* A single alternative is just a request with a sub-name. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n"
				    "claim c\nreq r\nalt only class=gpu count=2\n"),
			    "c: r/only=g0@? r/only=g1@?");
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r\nalt only class=gpu count=2\n"),
			    "unsatisfiable: cannot allocate all claims");
	/* Constraints may name one alternative. */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0 v=i:0\n dev g1 v=i:1\n"
				    " dev g2 v=i:0\n"
				    "claim c\nreq r\nalt two class=gpu count=2\nalt one class=gpu\n"
				    "constraint match gpu.x/v r/two\n"),
			    "c: r/two=g0@? r/two=g2@?");
	/* Every alternative's class must exist (the prologue checks them). */
	assert_string_equal(predict(GPU "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r\nalt a class=gpu\nalt b class=none\n"),
			    "fatal: claim \"c\", request \"r/b\": device class \"none\" does not exist");
	/* The claim limit counts the smallest alternative; a first one that
	 * passes it leaves the choice to the allocator. */
	{
		char text[2048];
		size_t i, n = (size_t)snprintf(text, sizeof text, GPU "slice s driver=gpu.x pool=p\n");

		for (i = 0; i < 12; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, " dev g%zu\n", i);
		snprintf(text + n, sizeof text - n,
			 "claim c\nreq b class=gpu count=10\n"
			 "req a\nalt big class=gpu count=25\nalt small class=gpu\n");
		assert_string_equal(predict(text),
				    "cannotPredict: claim \"c\", request \"a/big\": the first "
				    "alternative passes the claim's limit of 32 devices; the "
				    "allocator would try the next");
	}
}

static void unsorted_order_needs_one_numa_set(void **state)
{
	(void)state;
	/* Every free candidate on NUMA 1 (g0 is allocated). */
	assert_string_equal(predict("order unsorted\n" GPU "slice s driver=gpu.x pool=p\n"
				    " dev g0 " NUMA "0\n dev g1 " NUMA "1\n dev g2 " NUMA "1\n"
				    "used gpu.x p g0\n"
				    "slice t driver=gpu.x pool=q\n dev g3 " NUMA "1\n"
				    "claim c\nreq r class=gpu\n"),
			    "sameNUMA c: r=g1@1");
	/* Candidates on two NUMA nodes: which one is taken is not known. */
	assert_string_equal(predict("order unsorted\n" GPU "slice s driver=gpu.x pool=p\n"
				    " dev g1 " NUMA "1\n"
				    "slice t driver=gpu.x pool=q\n dev g3 " NUMA "0\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: the allocator's order is not predictable here and claim "
			    "\"c\", request \"r\" has candidates on NUMA 1 and 0");
	/* Known and unknown differ too. */
	assert_string_equal(predict("order unsorted\n" GPU "slice s driver=gpu.x pool=p\n"
				    " dev g1 " NUMA "1\n dev g2\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: the allocator's order is not predictable here and claim "
			    "\"c\", request \"r\" has candidates on NUMA 1 and unknown");
	/* Unsatisfiable under any order; mode All and claims read back are
	 * exact. */
	assert_string_equal(predict("order unsorted\n" GPU "slice s driver=gpu.x pool=p\n"
				    " dev g1 " NUMA "1\n dev g2 " NUMA "0\n"
				    "claim c\nreq r class=gpu count=3\n"),
			    "unsatisfiable: cannot allocate all claims");
	assert_string_equal(predict("order unsorted\n" GPU "slice s driver=gpu.x pool=p\n"
				    " dev g1 " NUMA "1\n dev g2 " NUMA "0\n"
				    "claim c\nreq r class=gpu all\n"),
			    "c: r=g1@1 r=g2@0");
	/* A runtime error the sorted search meets might not be met in
	 * another order, and one it does not meet might. */
	assert_string_equal(predict("order unsorted\nclass gpu\n"
				    "sel device.attributes['gpu.x'].model == 'a'\n"
				    "slice s driver=gpu.x pool=p\n dev g1 model=s:a\n dev g2\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: the allocator's order is not predictable here and it may "
			    "stop on: claim \"c\": class selector "
			    "\"device.attributes['gpu.x'].model == 'a'\" on device \"g2\": CEL "
			    "runtime error: no such key: model");
	assert_string_equal(predict("order unsorted\nclass gpu\n"
				    "sel device.attributes['gpu.x'].model == 'a'\n"
				    "slice s driver=gpu.x pool=p\n dev g2\n dev g1 model=s:a\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: the allocator's order is not predictable here and it may "
			    "stop on: claim \"c\": class selector "
			    "\"device.attributes['gpu.x'].model == 'a'\" on device \"g2\": CEL "
			    "runtime error: no such key: model");
}

static void a_search_past_its_budget(void **state)
{
	struct dra_fixture f;
	struct dra_alloc_input in;
	char text[4096];
	size_t i, n;

	(void)state;
	n = (size_t)snprintf(text, sizeof text, GPU "slice s driver=gpu.x pool=p\n");
	for (i = 0; i < 20; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, " dev g%zu v=i:%zu\n", i, i);
	snprintf(text + n, sizeof text - n,
		 "claim c\nreq r class=gpu count=4\nconstraint match gpu.x/v\n");
	df_load(&f, text);
	df_input(&f, &in);
	in.budget = 100;
	dra_alloc_predict(&in, &f.result);
	assert_int_equal(f.result.verdict, DRA_ALLOC_CANNOT_PREDICT);
	assert_string_equal(f.result.why.text, "the device search passed 100 steps (constraints "
					       "with many combinations)");
	dra_alloc_result_free(&f.result);
	/* With the default budget it ends: no four share a value. */
	assert_string_equal(df_predict(&f), "unsatisfiable: cannot allocate all claims");
	df_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(device_features_not_modelled),
		cmocka_unit_test(request_features_not_modelled),
		cmocka_unit_test(prioritized_lists),
		cmocka_unit_test(unsorted_order_needs_one_numa_set),
		cmocka_unit_test(a_search_past_its_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
