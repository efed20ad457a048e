/* SPDX-License-Identifier: Apache-2.0 */
/* The alignment verdict (dra/align.h): a container's (or, under the pod
 * scope, the pod's) predicted DRA devices against the NUMA affinity the
 * kubelet would give it; the overall verdict and the reason; and whether
 * matching devices exist on the affinity's NUMA nodes at all, for the
 * unresolvable decision. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dra/align.h"
#include "tests/support/dra_fixture.h"

#define NODE "resource.kubernetes.io/numaNode=i:"

/* Two GPUs on NUMA 0, two on NUMA 1, one of unknown NUMA; claim "gpu"
 * takes g0 (NUMA 0) for a and g2 (NUMA 1) for b; claim "odd" takes the
 * unknown one, claim "alt" takes g1 through an alternative. */
static const char cluster[] =
	"class gpu\nsel device.driver == 'gpu.x'\n"
	"class odd\nsel device.attributes['gpu.x'].kind == 'odd'\n"
	"class zero\nsel device.attributes['resource.kubernetes.io'].numaNode == 0\n"
	"class one\nsel device.attributes['resource.kubernetes.io'].numaNode == 1\n"
	"slice s driver=gpu.x pool=p\n"
	" dev g0 " NODE "0 kind=s:even\n dev g1 " NODE "0 kind=s:even\n"
	" dev g2 " NODE "1 kind=s:even\n dev g3 " NODE "1 kind=s:even\n"
	"slice t driver=gpu.x pool=q\n dev u0 kind=s:odd\n"
	"claim gpu\nreq a class=zero\nreq b class=one\n"
	"claim odd\nreq r class=odd\n"
	"claim alt\nreq r\nalt first class=zero\n";

/* Names for the containers' references (struct dra_container_claim holds
 * writable strings). */
static char n_gpu[] = "gpu", n_a[] = "a", n_b[] = "b", n_nosuch[] = "nosuch", n_r[] = "r", n_odd[] = "odd", n_alt[] = "alt";

static struct dra_fixture fx;

static int setup(void **state)
{
	(void)state;
	df_load(&fx, cluster);
	fx.show_numa = true;
	assert_string_equal(df_predict(&fx), "gpu: a=g0@0 b=g2@1; odd: r=u0@?; alt: r/first=g1@0");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	df_free(&fx);
	return 0;
}

/* One unit's verdict: "yes", "no: REASON", "null (why)". */
static const char *verdict_of(const struct dra_align_unit *u)
{
	static char out[512];
	struct dra_align_verdict v = dra_align(&fx.result, fx.pod_claims, fx.nclaims, u, 1, NULL);
	char reason[256];

	switch (v.aligned) {
	case DRA_ALIGNED_YES:
		return "yes";
	case DRA_ALIGNED_NO:
		snprintf(out, sizeof out, "no: %s", dra_align_reason(&v, reason, sizeof reason));
		return out;
	case DRA_ALIGNED_NULL:
		break;
	}
	assert_true(v.why == DRA_ALIGN_NOTHING || v.why == DRA_ALIGN_NO_AFFINITY ||
		    v.why == DRA_ALIGN_UNKNOWN_NUMA);
	snprintf(out, sizeof out, "null (%s%s)",
		 v.why == DRA_ALIGN_NOTHING ? "nothing" :
		 v.why == DRA_ALIGN_NO_AFFINITY ? "no affinity" : "unknown NUMA: ",
		 v.why == DRA_ALIGN_UNKNOWN_NUMA ? v.device->device : "");
	return out;
}

static void containers_against_their_affinity(void **state)
{
	struct dra_container_claim whole = { n_gpu, NULL }, a = { n_gpu, n_a },
				   b = { n_gpu, n_b };
	struct dra_align_unit u = { "train", false, &whole, 1, true, 0x1 };

	(void)state;
	/* The whole claim: b's g2 is on NUMA 1. */
	assert_string_equal(verdict_of(&u), "no: NUMA: DRA devices g2 (gpu.x) on NUMA 1, container "
					    "\"train\" CPUs on NUMA 0");
	u.affinity = 0x3;
	assert_string_equal(verdict_of(&u), "yes");
	/* One request of it. */
	u.refs = &a;
	u.affinity = 0x1;
	assert_string_equal(verdict_of(&u), "yes");
	u.refs = &b;
	assert_string_equal(verdict_of(&u), "no: NUMA: DRA devices g2 (gpu.x) on NUMA 1, container "
					    "\"train\" CPUs on NUMA 0");
	/* No Topology-Manager resources, or a pod rejected anyway. */
	u.has_affinity = false;
	assert_string_equal(verdict_of(&u), "null (no affinity)");
}

static void unknown_numa_and_nothing_to_align(void **state)
{
	struct dra_container_claim refs[] = { { n_odd, NULL }, { n_gpu, n_b } };
	struct dra_container_claim none = { n_nosuch, NULL }, r = { n_gpu, n_r };
	struct dra_align_unit u = { "c", false, refs, 1, true, 0x1 };

	(void)state;
	assert_string_equal(verdict_of(&u), "null (unknown NUMA: u0)");
	/* A device known to be outside decides, unknown or not. */
	u.nrefs = 2;
	assert_string_equal(verdict_of(&u), "no: NUMA: DRA devices g2 (gpu.x) on NUMA 1, container "
					    "\"c\" CPUs on NUMA 0");
	u.refs = NULL;
	u.nrefs = 0;
	assert_string_equal(verdict_of(&u), "null (nothing)");
	u.refs = &none;
	u.nrefs = 1;
	assert_string_equal(verdict_of(&u), "null (nothing)");
	/* A request the claim does not have covers nothing. */
	u.refs = &r;
	assert_string_equal(verdict_of(&u), "null (nothing)");
}

static void alternatives_and_the_pod_scope(void **state)
{
	struct dra_container_claim alt = { n_alt, n_r },
				   refs[] = { { n_alt, NULL }, { n_gpu, NULL } };
	struct dra_align_unit u = { "c", false, &alt, 1, true, 0x2 };

	(void)state;
	/* A reference to a request covers the alternative chosen for it. */
	assert_string_equal(verdict_of(&u), "no: NUMA: DRA devices g1 (gpu.x) on NUMA 0, container "
					    "\"c\" CPUs on NUMA 1");
	/* The pod scope: one unit for the pod with every container's claims. */
	u.name = "web-0";
	u.pod_scope = true;
	u.refs = refs;
	u.nrefs = 2;
	u.affinity = 0x1;
	assert_string_equal(verdict_of(&u), "no: NUMA: DRA devices g2 (gpu.x) on NUMA 1, pod "
					    "\"web-0\" CPUs on NUMA 0");
}

static void the_overall_verdict(void **state)
{
	struct dra_container_claim a = { n_gpu, n_a }, b = { n_gpu, n_b },
				   odd = { n_odd, NULL };
	struct dra_align_unit units[] = {
		{ "aligned", false, &a, 1, true, 0x1 },
		{ "no-tm", false, &b, 1, false, 0 },
		{ "unknown", false, &odd, 1, true, 0x1 },
		{ "far", false, &b, 1, true, 0x1 },
	};
	struct dra_align_verdict per[4], all;

	(void)state;
	all = dra_align(&fx.result, fx.pod_claims, fx.nclaims, units, 2, per);
	assert_int_equal(all.aligned, DRA_ALIGNED_YES);
	assert_string_equal(all.unit->name, "aligned");
	assert_int_equal(per[1].why, DRA_ALIGN_NO_AFFINITY);
	all = dra_align(&fx.result, fx.pod_claims, fx.nclaims, units, 3, per);
	assert_int_equal(all.why, DRA_ALIGN_UNKNOWN_NUMA);
	assert_int_equal(all.aligned, DRA_ALIGNED_NULL);
	all = dra_align(&fx.result, fx.pod_claims, fx.nclaims, units, 4, per);
	assert_int_equal(all.aligned, DRA_ALIGNED_NO);
	assert_string_equal(all.unit->name, "far");
	assert_int_equal(per[0].aligned, DRA_ALIGNED_YES);
	assert_int_equal(per[2].why, DRA_ALIGN_UNKNOWN_NUMA);
	all = dra_align(&fx.result, fx.pod_claims, fx.nclaims, units + 1, 1, NULL);
	assert_int_equal(all.why, DRA_ALIGN_NO_AFFINITY);
	all = dra_align(&fx.result, fx.pod_claims, fx.nclaims, NULL, 0, NULL);
	assert_int_equal(all.why, DRA_ALIGN_NOTHING);
}

/* dra_align_reach for one reference of a cluster. */
static enum dra_reach reach(const char *text, const char *claim, const char *request,
			    uint64_t affinity)
{
	char cbuf[64], rbuf[64];
	struct dra_container_claim ref = { cbuf, request != NULL ? rbuf : NULL };
	struct dra_align_unit u = { "c", false, &ref, 1, true, affinity };
	struct dra_alloc_input in;
	struct dra_fixture f;
	enum dra_reach r;

	snprintf(cbuf, sizeof cbuf, "%s", claim);
	snprintf(rbuf, sizeof rbuf, "%s", request != NULL ? request : "");
	df_load(&f, text);
	df_input(&f, &in);
	r = dra_align_reach(&in, f.pod_claims, &u);
	df_free(&f);
	return r;
}

static void devices_on_the_affinity_at_all(void **state)
{
	static const char two[] =
		"class gpu\nsel device.driver == 'gpu.x'\n"
		"slice s driver=gpu.x pool=p\n dev g0 " NODE "0\n dev g1 " NODE "1\n dev g2 " NODE "1\n"
		"used gpu.x p g0\n";
	char text[1024];

	(void)state;
	/* g0 is allocated, but the node emptied of allocations has it. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=gpu\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", "r", 0x1), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", NULL, 0x4), DRA_REACH_NO);
	/* Enough of them: two on NUMA 1, one on NUMA 0. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=gpu count=2\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x2), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_NO);
	/* Mode All: every matching device inside. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=gpu all\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x3), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", NULL, 0x2), DRA_REACH_NO);
	/* A device of unknown NUMA would not be misaligned. */
	assert_int_equal(reach("class gpu\nsel true\nslice s driver=gpu.x pool=p\n dev g0\n"
			       "claim c\nreq r class=gpu\n", "c", NULL, 0x1),
			 DRA_REACH_YES);
	/* A later alternative may do; every request of the claim must. */
	snprintf(text, sizeof text,
		 "%sclaim c\nreq r\nalt big class=gpu count=3\nalt small class=gpu\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_YES);
	snprintf(text, sizeof text, "%sclaim c\nreq a class=gpu\nreq b class=gpu count=3\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x3), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", NULL, 0x2), DRA_REACH_NO);
	assert_int_equal(reach(text, "c", "a", 0x2), DRA_REACH_YES);
	/* What cannot be evaluated here. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=gpu\nsel error\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_UNKNOWN);
	snprintf(text, sizeof text, "%sclaim c\nreq r class=none\n", two);
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_UNKNOWN);
	/* An unknown claim has nothing to serve. */
	snprintf(text, sizeof text, "%sclaim c\nreq r class=gpu\n", two);
	assert_int_equal(reach(text, "other", NULL, 0x4), DRA_REACH_YES);
	/* Counting devices near the CPUs, the others' selectors need not run:
	 * one that errs far away (g1 has no attribute m) does not make the
	 * answer unknown, and no near device at all is NO whatever the far
	 * ones say. In mode All every matching device counts: it does. */
	snprintf(text, sizeof text,
		 "class gpu\nsel device.driver == 'gpu.x'\n"
		 "slice s driver=gpu.x pool=p\n dev g0 " NODE "0 gpu.x/m=i:1\n dev g1 " NODE "1\n"
		 " dev g2 " NODE "2 gpu.x/m=i:2\n"
		 "claim c\nreq r class=gpu\nsel device.attributes['gpu.x'].m == 1\n");
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_YES);
	assert_int_equal(reach(text, "c", NULL, 0x4), DRA_REACH_NO);
	assert_int_equal(reach(text, "c", NULL, 0x2), DRA_REACH_UNKNOWN);
	snprintf(text, sizeof text,
		 "class gpu\nsel device.driver == 'gpu.x'\n"
		 "slice s driver=gpu.x pool=p\n dev g0 " NODE "0 gpu.x/m=i:1\n dev g1 " NODE "1\n"
		 "claim c\nreq r class=gpu all\nsel device.attributes['gpu.x'].m == 1\n");
	assert_int_equal(reach(text, "c", NULL, 0x1), DRA_REACH_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(containers_against_their_affinity),
		cmocka_unit_test(unknown_numa_and_nothing_to_align),
		cmocka_unit_test(alternatives_and_the_pod_scope),
		cmocka_unit_test(the_overall_verdict),
		cmocka_unit_test(devices_on_the_affinity_at_all),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
