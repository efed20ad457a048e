/* SPDX-License-Identifier: Apache-2.0 */
/* Which pools and devices a node sees (dra/pools.h) as the allocator's
 * prediction uses them: node names, node selectors, allNodes and
 * per-device node selection; generations, incomplete, replaced and
 * invalid pools; binding-condition pools last; claims allocated already,
 * read back from status.allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/pools.h"
#include "tests/support/dra_fixture.h"

static const char *predict(const char *text)
{
	return df_run(text, false);
}

#define ANY "class any\nsel true\n"

static void node_selection_of_slices(void **state)
{
	(void)state;
	/* Another node's slice, a selector that does not match, one that
	 * does, allNodes, matchFields on the node's name. */
	assert_string_equal(predict("node n1 zone=a\n" ANY
				    "slice s1 driver=d.io pool=a node=n2\n dev other\n"
				    "slice s2 driver=d.io pool=b select:zone=b\n dev zone-b\n"
				    "slice s3 driver=d.io pool=c select:zone=a\n dev zone-a\n"
				    "slice s4 driver=d.io pool=d all\n dev everywhere\n"
				    "slice s5 driver=d.io pool=e field:n1\n dev by-name\n"
				    "slice s6 driver=d.io pool=f field:n2\n dev not-by-name\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=zone-a r=everywhere r=by-name");
}

static void per_device_node_selection(void **state)
{
	(void)state;
	assert_string_equal(predict("node n1 zone=a\n" ANY
				    "slice s driver=d.io pool=p perdevice\n"
				    " dev far node=n2\n dev near node=n1\n dev zoned select:zone=a\n"
				    " dev shared all\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=near r=zoned r=shared");
	/* A slice none of whose devices is for the node is not seen at all:
	 * the pool is incomplete only where a slice is seen. */
	assert_string_equal(predict(ANY "slice s driver=d.io pool=p perdevice\n dev far node=n2\n"
				    "claim c\nreq r class=any all\n"),
			    "unsatisfiable: cannot allocate all claims");
}

static void highest_generation_wins(void **state)
{
	(void)state;
	assert_string_equal(predict(ANY "slice old driver=d.io pool=p gen=1\n dev g1-dev\n"
				    "slice new driver=d.io pool=p gen=2\n dev g2-dev\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=g2-dev");
}

static void incomplete_pools(void **state)
{
	static const char cluster[] = ANY
		"slice a-1 driver=d.io pool=a count=2\n dev a0\n"
		"slice b-1 driver=d.io pool=b\n dev b0\n";
	char text[1024];

	(void)state;
	/* ExactCount skips the incomplete pool. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=any\n", cluster);
	assert_string_equal(predict(text), "c: r=b0");
	/* Mode All cannot count its devices: the pod fails on every node. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=any all\n", cluster);
	assert_string_equal(predict(text),
			    "fatal: claim \"c\", request \"r\": asks for all devices, but resource "
			    "pool \"a\" is currently being updated");
	/* The rest of the pool published for another node completes it. */
	assert_string_equal(predict(ANY "slice a-1 driver=d.io pool=a count=2\n dev a0\n"
				    "slice a-2 driver=d.io pool=a count=2 node=n2\n dev a1\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=a0");
	/* A newer generation elsewhere: the driver is replacing the pool,
	 * which is ignored (not incomplete). */
	assert_string_equal(predict(ANY "slice a-1 driver=d.io pool=a count=2\n dev a0\n"
				    "slice a-2 driver=d.io pool=a gen=2 node=n2\n dev a1\n"
				    "slice b-1 driver=d.io pool=b\n dev b0\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=b0");
}

static void invalid_pools(void **state)
{
	static const char cluster[] = ANY
		"slice a-1 driver=d.io pool=a count=2\n dev same\n"
		"slice a-2 driver=d.io pool=a count=2\n dev same\n";
	char text[1024];

	(void)state;
	snprintf(text, sizeof text, "%sslice b-1 driver=d.io pool=b\n dev b0\nclaim c\nreq r class=any\n",
		 cluster);
	assert_string_equal(predict(text), "c: r=b0");
	snprintf(text, sizeof text, "%sclaim c\nreq r class=any\n", cluster);
	assert_string_equal(predict(text), "unsatisfiable: cannot allocate all claims");
	snprintf(text, sizeof text, "%sclaim c\nreq r class=any all\n", cluster);
	assert_string_equal(predict(text),
			    "fatal: claim \"c\", request \"r\": asks for all devices, but resource "
			    "pool \"a\" is currently invalid (a device name occurs twice)");
	/* One slice that names a device twice: the same verdict whether the
	 * pool compares its devices or the slice was checked when stored. */
	{
		static const char one[] = "slice s driver=d.io pool=p\n dev x\n dev y\n dev x\n"
					  "slice t driver=d.io pool=q\n dev x\n dev y\n";
		struct dra_node_pools pools;
		struct dra_fixture f;
		int checked;

		for (checked = 0; checked < 2; checked++) {
			df_load(&f, one);
			if (checked) {
				dra_slice_check_duplicates(&f.slices[0]);
				dra_slice_check_duplicates(&f.slices[1]);
				assert_string_equal(f.slices[0].dup_name, "x");
				assert_null(f.slices[1].dup_name);
			}
			dra_node_pools_gather(&pools, &f.index, &f.node);
			assert_int_equal(pools.n, 2);
			assert_int_equal(pools.pools[0].state, DRA_POOL_INVALID);
			assert_string_equal(pools.pools[0].duplicate, "x");
			assert_int_equal(pools.pools[1].state, DRA_POOL_COMPLETE);
			assert_null(pools.pools[1].duplicate);
			dra_node_pools_free(&pools);
			df_free(&f);
		}
	}
	/* The same name in two pools is two devices. */
	assert_string_equal(predict(ANY "slice a driver=d.io pool=a\n dev same\n"
				    "slice b driver=d.io pool=b\n dev same\n"
				    "claim c\nreq r class=any all\n"),
			    "c: r=same r=same");
}

static void binding_condition_pools_come_last(void **state)
{
	struct dra_fixture f;
	struct dra_node_pools pools;

	(void)state;
	df_load(&f, "slice s1 driver=d.io pool=a\n dev bound binding\n dev a0\n"
		    "slice s2 driver=d.io pool=b\n dev b0\n"
		    "slice s3 driver=c.io pool=z\n dev z0\n");
	dra_node_pools_gather(&pools, &f.index, &f.node);
	assert_int_equal(pools.n, 3);
	assert_string_equal(pools.pools[0].driver, "c.io");
	assert_string_equal(pools.pools[1].name, "b");
	assert_string_equal(pools.pools[2].name, "a");
	assert_true(pools.pools[2].binding_conditions);
	dra_node_pools_free(&pools);
	df_free(&f);
	/* So a plain device of a later pool is taken first. */
	assert_string_equal(predict("class plain\nsel device.attributes['d.io'].kind == 'plain'\n"
				    "slice s1 driver=d.io pool=a\n dev bound binding kind=s:other\n"
				    " dev a0 kind=s:plain\n"
				    "slice s2 driver=d.io pool=b\n dev b0 kind=s:plain\n"
				    "claim c\nreq r class=plain\n"),
			    "c: r=b0");
}

static void allocated_claims_are_read_back(void **state)
{
	struct dra_fixture f;

	(void)state;
	df_load(&f, ANY "slice s driver=d.io pool=p\n dev d0 resource.kubernetes.io/numaNode=i:1\n"
			" dev d1\n"
			"claim done allocated=n1\nresult r d.io p d0\nresult r d.io net gone\n"
			"req r class=missing\n"
			"claim new\nreq r class=any\n");
	f.show_numa = true;
	/* Not allocated again (its class does not even exist); its devices
	 * are taken, one the node does not see has no NUMA node. */
	assert_string_equal(df_predict(&f), "done: r=d0@1 r=gone@?; new: r=d1@?");
	assert_true(f.result.claims[0].preallocated);
	assert_null(f.result.claims[0].picks[1].dev);
	df_free(&f);
	/* Allocated for another node: this one is out. */
	assert_string_equal(predict(ANY "slice s driver=d.io pool=p\n dev d0\n"
				    "claim done allocated=n2\nresult r d.io p d0\n"
				    "claim new\nreq r class=any\nsel error\n"),
			    "unsatisfiable: claim \"done\" is allocated for node \"n2\"");
	/* Not node-local: fine anywhere. */
	assert_string_equal(predict(ANY "slice s driver=d.io pool=p all\n dev d0\n"
				    "claim done allocated\nresult r d.io p d0\n"),
			    "done: r=d0");
}

static void the_slice_index(void **state)
{
	struct dra_fixture f;

	(void)state;
	df_load(&f, "slice a driver=d.io pool=p node=n1\n"
		    "slice b driver=d.io pool=q node=n2\n"
		    "slice c driver=d.io pool=r all\n"
		    "slice d driver=d.io pool=s node=n1\n");
	assert_int_equal(f.index.nlists, 2);
	assert_int_equal(f.index.shared.n, 1);
	assert_int_equal(f.index.shared.idx[0], 2);
	df_free(&f);
}

/* Fields a decoder would have refused, left empty anyway: no crash, and
 * what cannot be named is not used. */
static void missing_fields_are_not_a_crash(void **state)
{
	struct dra_fixture f;

	(void)state;
	df_load(&f, ANY "slice s driver=d.io pool=p\n dev d0\n dev d1\n dev d2\n dev d3\n"
		    "slice t driver=d.io pool=q\n dev e0\n"
		    "claim c\nreq r class=any count=2\nconstraint match d.io/v r\n"
		    "claim e\nreq r class=any\nsel true\n");
	free(f.slices[1].pool); /* slice t is not published */
	f.slices[1].pool = NULL;
	free(f.slices[0].devices[0].name);
	f.slices[0].devices[0].name = NULL;
	free(f.claims[0].constraints[0].domain);
	f.claims[0].constraints[0].domain = NULL;
	df_index(&f);
	/* A constraint without its attribute name holds for no device. */
	assert_string_equal(df_predict(&f), "unsatisfiable: cannot allocate all claims");
	free(f.claims[0].constraints[0].requests[0]);
	f.claims[0].constraints[0].requests[0] = NULL;
	free(f.claims[0].requests[0].name);
	f.claims[0].requests[0].name = NULL;
	free(f.claims[1].requests[0].specs[0].selectors[0]);
	f.claims[1].requests[0].specs[0].selectors[0] = NULL;
	assert_string_equal(df_predict(&f), "cannotPredict: request selector #0 has no expression");
	free(f.classes[0].name);
	f.classes[0].name = NULL;
	assert_string_equal(df_predict(&f),
			    "fatal: claim \"c\", request \"\": device class \"any\" does not exist");
	df_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node_selection_of_slices),
		cmocka_unit_test(per_device_node_selection),
		cmocka_unit_test(highest_generation_wins),
		cmocka_unit_test(incomplete_pools),
		cmocka_unit_test(invalid_pools),
		cmocka_unit_test(binding_condition_pools_come_last),
		cmocka_unit_test(allocated_claims_are_read_back),
		cmocka_unit_test(the_slice_index),
		cmocka_unit_test(missing_fields_are_not_a_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
