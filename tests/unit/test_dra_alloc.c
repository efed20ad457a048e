/* SPDX-License-Identifier: Apache-2.0 */
/* The allocator's prediction (dra/alloc.h): the search itself. First fit
 * over sorted pools, slices and devices; combinations, not permutations;
 * backtracking across devices, requests and claims; matchAttribute and
 * distinctAttribute; mode All; the allocated set; the errors that fail a
 * pod on every node. Mirrors cases of upstream's allocator_testing.go. The
 * clusters are written in the fixture's text (tests/support/dra_fixture.h),
 * with its stand-in selector evaluator. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/support/dra_fixture.h"

/* The rendered prediction for a cluster (a static buffer). */
static const char *predict(const char *text)
{
	return df_run(text, false);
}

#define GPU_CLASS "class gpu\nsel device.driver == 'gpu.x'\n"

static void first_fit_follows_sorted_pools_slices_devices(void **state)
{
	(void)state;
	/* Published out of order: pool b before a, slice 2 before 1, a driver
	 * z before a. The allocator sorts pools by (driver, pool), slices by
	 * name, and keeps the devices' published order. */
	assert_string_equal(predict(GPU_CLASS
				    "slice s-9 driver=gpu.x pool=b\n dev b0\n"
				    "slice s-2 driver=gpu.x pool=a count=2\n dev a2\n dev a3\n"
				    "slice s-1 driver=gpu.x pool=a count=2\n dev a1\n dev a0\n"
				    "claim c\nreq r class=gpu count=3\n"),
			    "c: r=a1 r=a0 r=a2");
	assert_string_equal(predict("class any\nsel true\n"
				    "slice s1 driver=z.io pool=a\n dev z0\n"
				    "slice s2 driver=b.io pool=z\n dev b0\n"
				    "claim c\nreq r class=any\n"),
			    "c: r=b0");
}

static void the_search_tries_combinations_not_permutations(void **state)
{
	struct dra_fixture f;

	(void)state;
	/* Four devices with different values under matchAttribute, two wanted:
	 * no solution. Each first device (4) then each later one (3+2+1+0):
	 * 10 placements, where permutations would take 16. */
	df_load(&f, GPU_CLASS "slice s driver=gpu.x pool=p\n"
			      " dev g0 v=i:0\n dev g1 v=i:1\n dev g2 v=i:2\n dev g3 v=i:3\n"
			      "claim c\nreq r class=gpu count=2\nconstraint match gpu.x/v\n");
	assert_string_equal(df_predict(&f), "unsatisfiable: cannot allocate all claims");
	assert_int_equal(f.result.steps, 10);
	df_free(&f);
	/* The second device is searched after the first one only. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
					      " dev g0 v=i:0\n dev g1 v=i:1\n dev g2 v=i:0\n"
					      "claim c\nreq r class=gpu count=2\n"
					      "constraint match gpu.x/v\n"),
			    "c: r=g0 r=g2");
}

static void backtracks_across_requests(void **state)
{
	(void)state;
	/* a takes n0 first; b's only nic matching a's numa is on 1: a moves. */
	assert_string_equal(predict(GPU_CLASS "class nic\nsel device.driver == 'nic.x'\n"
				    "slice s driver=gpu.x pool=p\n dev g0 numa=i:0\n dev g1 numa=i:1\n"
				    "slice t driver=nic.x pool=q\n dev n1 numa=i:1\n"
				    "claim c\nreq a class=gpu\nreq b class=nic\n"
				    "constraint match resource.kubernetes.io/numa\n"),
			    "unsatisfiable: cannot allocate all claims");
	assert_string_equal(predict(GPU_CLASS "class nic\nsel device.driver == 'nic.x'\n"
				    "slice s driver=gpu.x pool=p\n"
				    " dev g0 resource.kubernetes.io/numa=i:0\n"
				    " dev g1 resource.kubernetes.io/numa=i:1\n"
				    "slice t driver=nic.x pool=q\n dev n1 resource.kubernetes.io/numa=i:1\n"
				    "claim c\nreq a class=gpu\nreq b class=nic\n"
				    "constraint match resource.kubernetes.io/numa\n"),
			    "c: a=g1 b=n1");
}

static void backtracks_across_claims(void **state)
{
	(void)state;
	/* c1 may take any gpu and first takes g0; c2 needs g0's model: c1
	 * moves to g1. */
	assert_string_equal(predict(GPU_CLASS "class big\nsel device.attributes['gpu.x'].model == 'big'\n"
				    "slice s driver=gpu.x pool=p\n dev g0 model=s:big\n dev g1 model=s:small\n"
				    "claim c1\nreq r class=gpu\n"
				    "claim c2\nreq r class=big\n"),
			    "c1: r=g1; c2: r=g0");
}

static void match_attribute_compares_type_and_value(void **state)
{
	static const char *const cases[][2] = {
		/* int, string, version: the first device fixes the value */
		{ " dev g0 v=i:7\n dev g1 v=i:8\n dev g2 v=i:7\n", "c: r=g0 r=g2" },
		{ " dev g0 v=s:a\n dev g1 v=s:b\n dev g2 v=s:a\n", "c: r=g0 r=g2" },
		{ " dev g0 v=v:1.0.0\n dev g1 v=v:1.0.1\n dev g2 v=v:1.0.0\n", "c: r=g0 r=g2" },
		/* a device without the attribute never satisfies it */
		{ " dev g0\n dev g1 v=i:1\n dev g2 v=i:1\n", "c: r=g1 r=g2" },
		/* same text, another type: no match */
		{ " dev g0 v=i:1\n dev g1 v=s:1\n", "unsatisfiable: cannot allocate all claims" },
		/* versions compare as text, bools as bools */
		{ " dev g0 v=b:true\n dev g1 v=b:false\n dev g2 v=b:true\n", "c: r=g0 r=g2" },
		/* a list never matches in the scalar comparison (but may come first) */
		{ " dev g0 v=is:1\n dev g1 v=is:1\n dev g2 v=i:1\n",
		  "unsatisfiable: cannot allocate all claims" },
	};
	char text[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text,
			 GPU_CLASS "slice s driver=gpu.x pool=p\n%s"
				   "claim c\nreq r class=gpu count=2\nconstraint match gpu.x/v\n",
			 cases[i][0]);
		assert_string_equal(predict(text), cases[i][1]);
	}
}

static void match_attribute_names_and_scope(void **state)
{
	(void)state;
	/* An unqualified attribute is in the driver's domain: gpu.x/v finds
	 * it; another domain does not. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0 v=i:1\n dev g1 v=i:1\n"
				    "claim c\nreq r class=gpu count=2\nconstraint match other.io/v\n"),
			    "unsatisfiable: cannot allocate all claims");
	/* Listed requests only: b is free of the constraint. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0 v=i:0\n dev g1 v=i:1\n dev g2 v=i:1\n dev g3 v=i:0\n"
				    "claim c\nreq a class=gpu\nreq b class=gpu\nreq d class=gpu\n"
				    "constraint match gpu.x/v a d\n"),
			    "c: a=g0 b=g1 d=g3");
	/* Within one claim: another claim may use another value. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0 v=i:0\n dev g1 v=i:1\n dev g2 v=i:1\n"
				    "claim c1\nreq r class=gpu\nconstraint match gpu.x/v\n"
				    "claim c2\nreq r class=gpu count=2\nconstraint match gpu.x/v\n"),
			    "c1: r=g0; c2: r=g1 r=g2");
}

static void distinct_attribute_wants_different_values(void **state)
{
	(void)state;
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0 v=i:0\n dev g1 v=i:0\n dev g2 v=i:1\n"
				    "claim c\nreq r class=gpu count=2\nconstraint distinct gpu.x/v\n"),
			    "c: r=g0 r=g2");
	/* Across two requests, and a device without it never satisfies. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0 v=s:a\n dev g1\n dev g2 v=s:a\n dev g3 v=s:b\n"
				    "claim c\nreq a class=gpu\nreq b class=gpu\n"
				    "constraint distinct gpu.x/v\n"),
			    "c: a=g0 b=g3");
	/* Upstream keeps one value per request (the last): a third device of
	 * the same request is only compared with the second. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0 v=i:0\n dev g1 v=i:1\n dev g2 v=i:0\n"
				    "claim c\nreq r class=gpu count=3\nconstraint distinct gpu.x/v\n"),
			    "c: r=g0 r=g1 r=g2");
}

static void mode_all_takes_every_matching_device(void **state)
{
	(void)state;
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n"
				    "slice t driver=nic.x pool=q\n dev n0\n"
				    "claim c\nreq r class=gpu all\n"),
			    "c: r=g0 r=g1");
	/* One of them allocated (upstream all-devices-some-allocated). */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n"
				    "used gpu.x p g1\n"
				    "claim c\nreq r class=gpu all\n"),
			    "unsatisfiable: cannot allocate all claims");
	/* Taken by an earlier claim of the same pod. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n"
				    "claim c1\nreq r class=gpu\nclaim c2\nreq r class=gpu all\n"),
			    "unsatisfiable: cannot allocate all claims");
	/* None matching. */
	assert_string_equal(predict(GPU_CLASS "slice t driver=nic.x pool=q\n dev n0\n"
				    "claim c\nreq r class=gpu all\n"),
			    "unsatisfiable: cannot allocate all claims");
	/* A constraint the set violates is an error of the claim. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0 v=i:0\n dev g1 v=i:1\n"
				    "claim c\nreq r class=gpu all\nconstraint match gpu.x/v\n"),
			    "fatal: claim \"c\", request \"r\": cannot add device \"g1\" because a "
			    "claim constraint would not be satisfied");
}

static void the_allocated_set_is_skipped(void **state)
{
	(void)state;
	/* Other claims' results, except admin access and shared ones. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n"
				    " dev g0\n dev g1\n dev g2\n dev g3\n"
				    "used gpu.x p g0\n"
				    "claim other allocated=n1\nresult r gpu.x p g1\nresult r gpu.x p g2 admin\n"
				    "claim c\nreq r class=gpu count=2\n"),
			    "other: r=g1 r=g2; c: r=g2 r=g3");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim other allocated\nresult r gpu.x p g0 share\n"
				    "claim c\nreq r class=gpu\n"),
			    "other: r=g0; c: r=g0");
	/* The same name in another pool or driver is another device. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "used gpu.x q g0\nused nic.x p g0\n"
				    "claim c\nreq r class=gpu\n"),
			    "c: r=g0");
}

static void counts_and_limits(void **state)
{
	(void)state;
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu count=0\n"),
			    "c:");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu count=33\n"),
			    "fatal: claim \"c\": number of requested devices exceeds the claim "
			    "limit of 32");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq a class=gpu count=20\nreq b class=gpu count=13\n"),
			    "fatal: claim \"c\": number of requested devices exceeds the claim "
			    "limit of 32");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=tpu\n"),
			    "fatal: claim \"c\", request \"r\": device class \"tpu\" does not exist");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu count=2\n"),
			    "unsatisfiable: cannot allocate all claims");
}

static void selectors_class_first_and_errors_fail_everywhere(void **state)
{
	(void)state;
	/* Class selectors run first and stop at the first false. */
	assert_string_equal(predict("class gpu\nsel device.driver == 'gpu.x'\nsel true\n"
				    "slice t driver=nic.x pool=q\n dev n0\n"
				    "slice s driver=gpu.x pool=p\n dev g0 model=s:a\n dev g1 model=s:b\n"
				    "claim c\nreq r class=gpu\n"
				    "sel device.attributes['gpu.x'].model == 'b'\n"),
			    "c: r=g1");
	/* A runtime error fails the scheduling attempt on every node. */
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu\n"
				    "sel device.attributes['gpu.x'].model == 'b'\n"),
			    "fatal: claim \"c\": request selector "
			    "\"device.attributes['gpu.x'].model == 'b'\" on device \"g0\": CEL "
			    "runtime error: no such key: model");
	assert_string_equal(predict("class gpu\nsel error\nslice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu\n"),
			    "fatal: claim \"c\": class selector \"error\" on device \"g0\": CEL "
			    "runtime error: boom");
	assert_string_equal(predict(GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu\nsel unsupported.ext()\n"),
			    "cannotPredict: request selector \"unsupported.ext()\" is outside the "
			    "supported CEL subset: the test evaluator does not know it");
	assert_string_equal(predict("class gpu\nsel invalid ((\nslice s driver=gpu.x pool=p\n dev g0\n"
				    "claim c\nreq r class=gpu\n"),
			    "cannotPredict: class selector \"invalid ((\" does not compile: syntax "
			    "error at 1");
}

static void each_expression_compiles_once(void **state)
{
	struct dra_fixture f;

	(void)state;
	df_compiles = 0;
	df_load(&f, GPU_CLASS "slice s driver=gpu.x pool=p\n dev g0\n dev g1\n dev g2\n dev g3\n"
			      "claim c1\nreq a class=gpu count=2\nsel true\nreq b class=gpu\nsel true\n"
			      "claim c2\nreq a class=gpu\nsel true\n");
	assert_string_equal(df_predict(&f), "c1: a=g0 a=g1 b=g2; c2: a=g3");
	assert_int_equal(df_compiles, 2);
	/* A second node (another call) reuses the compiled set. */
	assert_string_equal(df_predict(&f), "c1: a=g0 a=g1 b=g2; c2: a=g3");
	assert_int_equal(df_compiles, 2);
	df_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_fit_follows_sorted_pools_slices_devices),
		cmocka_unit_test(the_search_tries_combinations_not_permutations),
		cmocka_unit_test(backtracks_across_requests),
		cmocka_unit_test(backtracks_across_claims),
		cmocka_unit_test(match_attribute_compares_type_and_value),
		cmocka_unit_test(match_attribute_names_and_scope),
		cmocka_unit_test(distinct_attribute_wants_different_values),
		cmocka_unit_test(mode_all_takes_every_matching_device),
		cmocka_unit_test(the_allocated_set_is_skipped),
		cmocka_unit_test(counts_and_limits),
		cmocka_unit_test(selectors_class_first_and_errors_fail_everywhere),
		cmocka_unit_test(each_expression_compiles_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
