/* SPDX-License-Identifier: Apache-2.0 */
/* The bind's DRA vetoes (extender/decide/dra_veto.h): per (pod UID, node),
 * with the bind's reason, renewed by a second veto of the pair, gone after
 * DRA_VETO_TTL_MS, and never more than DRA_VETO_MAX of them (the oldest
 * goes first). Time is passed in: no test waits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "extender/decide/dra_veto.h"

#define T0 ((int64_t)1700000000000)

static void vetoes_are_per_pod_and_node(void **state)
{
	struct dra_veto *v = dra_veto_new();
	struct dra_veto_list l;

	(void)state;
	dra_veto_add(v, "uid-a", "n1", "NUMA: DRA devices gpu-2 (gpu.x) on NUMA 1, container \"c\" CPUs on NUMA 0", T0);
	dra_veto_add(v, "uid-a", "n2", "far", T0);
	dra_veto_add(v, "uid-b", "n1", "other pod", T0);
	dra_veto_of(v, "uid-a", T0 + 1, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(dra_veto_list_find(&l, "n1"),
			    "NUMA: DRA devices gpu-2 (gpu.x) on NUMA 1, container \"c\" CPUs on NUMA 0");
	assert_string_equal(dra_veto_list_find(&l, "n2"), "far");
	assert_null(dra_veto_list_find(&l, "n3"));
	dra_veto_list_free(&l);
	dra_veto_of(v, "uid-c", T0 + 1, &l);
	assert_int_equal(l.n, 0);
	assert_null(dra_veto_list_find(&l, "n1"));
	dra_veto_list_free(&l);
	assert_int_equal(dra_veto_count(v, T0), 3);
	dra_veto_free(v);
	dra_veto_free(NULL);
}

static void vetoes_expire_and_renew(void **state)
{
	struct dra_veto *v = dra_veto_new();
	struct dra_veto_list l;

	(void)state;
	dra_veto_add(v, "uid-a", "n1", "first", T0);
	dra_veto_of(v, "uid-a", T0 + DRA_VETO_TTL_MS - 1, &l);
	assert_int_equal(l.n, 1);
	dra_veto_list_free(&l);
	dra_veto_of(v, "uid-a", T0 + DRA_VETO_TTL_MS, &l);
	assert_int_equal(l.n, 0);
	dra_veto_list_free(&l);
	/* A second veto of the pair: one entry, the new reason, the new term. */
	dra_veto_add(v, "uid-a", "n1", "second", T0 + 1000);
	dra_veto_of(v, "uid-a", T0 + DRA_VETO_TTL_MS, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.reasons[0], "second");
	dra_veto_list_free(&l);
	assert_int_equal(dra_veto_count(v, T0 + 1000), 1);
	/* A far future does not overflow. */
	dra_veto_add(v, "uid-z", "n1", "late", INT64_MAX - 5);
	assert_int_equal(dra_veto_count(v, INT64_MAX - 6), 1);
	dra_veto_free(v);
}

static void the_table_is_bounded(void **state)
{
	struct dra_veto *v = dra_veto_new();
	struct dra_veto_list l;
	char uid[32], long_reason[DRA_VETO_REASON_MAX * 2];
	size_t i;

	(void)state;
	for (i = 0; i <= DRA_VETO_MAX; i++) {
		snprintf(uid, sizeof uid, "uid-%zu", i);
		dra_veto_add(v, uid, "n1", "r", T0);
	}
	assert_int_equal(dra_veto_count(v, T0), DRA_VETO_MAX);
	/* The oldest went first. */
	dra_veto_of(v, "uid-0", T0, &l);
	assert_int_equal(l.n, 0);
	dra_veto_list_free(&l);
	dra_veto_of(v, "uid-1", T0, &l);
	assert_int_equal(l.n, 1);
	dra_veto_list_free(&l);
	/* Reasons are cut to the bound. */
	memset(long_reason, 'x', sizeof long_reason - 1);
	long_reason[sizeof long_reason - 1] = '\0';
	dra_veto_add(v, "uid-1", "n1", long_reason, T0);
	dra_veto_of(v, "uid-1", T0, &l);
	assert_int_equal(strlen(l.reasons[0]), DRA_VETO_REASON_MAX - 1);
	dra_veto_list_free(&l);
	dra_veto_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vetoes_are_per_pod_and_node),
		cmocka_unit_test(vetoes_expire_and_renew),
		cmocka_unit_test(the_table_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
