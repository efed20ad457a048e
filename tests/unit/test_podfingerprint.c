/* SPDX-License-Identifier: Apache-2.0 */
/* The pod-set fingerprint against the podfingerprint project's published
 * vector (tests/data/fixtures/podfingerprint: 259 pods). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/podfingerprint.h"

#define DIR "tests/data/fixtures/podfingerprint/"

static void podfingerprint_matches_published_vector(void **state)
{
	struct json_object *pods = json_object_from_file(DIR "pods.json");
	struct pod_ref *refs;
	char fp[PODFINGERPRINT_LEN + 1], expected[64] = "";
	size_t n, i;
	FILE *f;

	(void)state;
	assert_non_null(pods);
	n = json_object_array_length(pods);
	assert_int_equal(n, 259);
	refs = calloc(n, sizeof *refs);
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(pods, i);

		refs[i].namespace_ = json_object_get_string(json_object_object_get(p, "namespace"));
		refs[i].name = json_object_get_string(json_object_object_get(p, "name"));
	}
	podfingerprint(refs, n, fp);
	f = fopen(DIR "expected", "r");
	assert_non_null(f);
	assert_non_null(fgets(expected, sizeof expected, f));
	fclose(f);
	expected[strcspn(expected, "\r\n")] = '\0';
	assert_string_equal(fp, expected);
	/* Order does not matter; membership does. */
	{
		struct pod_ref tmp = refs[0];

		refs[0] = refs[n - 1];
		refs[n - 1] = tmp;
		podfingerprint(refs, n, fp);
		assert_string_equal(fp, expected);
		podfingerprint(refs, n - 1, fp);
		assert_string_not_equal(fp, expected);
	}
	free(refs);
	json_object_put(pods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(podfingerprint_matches_published_vector),
	};

	return cmocka_run_group_tests_name("podfingerprint", tests, NULL, NULL);
}
