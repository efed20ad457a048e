/* SPDX-License-Identifier: Apache-2.0 */
/* extender/codec/score_json: a score's parts as the decision log records
 * them, resource names escaped, none as []. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "extender/codec/score_json.h"

static void parts_in_order_escaped(void **state)
{
	struct score_breakdown b;
	char *s;

	(void)state;
	memset(&b, 0, sizeof b);
	s = score_parts_json(&b);
	assert_string_equal(s, "[]");
	free(s);
	b.nparts = 2;
	b.parts[0].resource = "cpu";
	b.parts[0].weight = 1;
	b.parts[0].score100 = 75;
	b.parts[1].resource = "example.com/\"odd\"\n";
	b.parts[1].weight = -2;
	b.parts[1].score100 = 0;
	s = score_parts_json(&b);
	assert_string_equal(s, "[{\"resource\":\"cpu\",\"weight\":1,\"score100\":75},"
			       "{\"resource\":\"example.com/\\\"odd\\\"\\u000a\",\"weight\":-2,\"score100\":0}]");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parts_in_order_escaped),
	};

	return cmocka_run_group_tests_name("score_json", tests, NULL, NULL);
}
