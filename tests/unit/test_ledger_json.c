/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON of /ledger (codec/ledger_json.h) from a view, byte for byte: every
 * key in its place, a known placement's NUMA nodes and holds, what an
 * assumed pod takes (one zone, or "every" zone listing the resource) with
 * its amount's text, seconds since it was assumed, and json-c's escapes
 * ("/" as "\/", control characters, quotes), which /ledger has always
 * returned. And the summary of every node. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "extender/codec/ledger_json.h"

static void one_node_byte_for_byte(void **state)
{
	static const struct ledger_json_amount holds[] = {
		{ "cpu", 1, 4 },
		{ "nvidia.com/gpu", 1, 1 },
	};
	static const struct ledger_json_amount takes[] = {
		{ "memory", 1, (int64_t)3 << 30 },
		{ "example.com/nic", -1, 2 },
	};
	const struct ledger_json_pod pods[] = {
		{ "ns", "p-0", "u-0", "assumed", 100, "pass", "12+ledger.3", true, (1u << 1) | (1u << 3),
		  holds, 2, true, 1500, takes, 2 },
		{ "a\"b", "c\\d\n\x01", "u/1", "reflected", -5, "unknown", NULL, false, 0, NULL, 0, false,
		  0, NULL, 0 },
	};
	const struct ledger_json_node node = { "node/1", true, "predicted", "pfp0v001abc", "all",
					       "pfp0v001def", pods, 2 };
	char *json = ledger_json_node(&node);

	(void)state;
	assert_string_equal(
		json,
		"{\"node\":\"node\\/1\",\"inventory\":true,\"mode\":\"predicted\","
		"\"nrtFingerprint\":\"pfp0v001abc\",\"nrtFingerprintMethod\":\"all\","
		"\"ledgerFingerprint\":\"pfp0v001def\",\"pods\":["
		"{\"namespace\":\"ns\",\"name\":\"p-0\",\"uid\":\"u-0\",\"state\":\"assumed\","
		"\"priority\":100,\"decided\":\"pass\",\"decidedVersion\":\"12+ledger.3\","
		"\"placement\":\"known\",\"numaNodes\":[1,3],\"holds\":["
		"{\"resource\":\"cpu\",\"numa\":1,\"amount\":4},"
		"{\"resource\":\"nvidia.com\\/gpu\",\"numa\":1,\"amount\":1}],"
		"\"assumedSeconds\":1.5,\"takes\":["
		"{\"resource\":\"memory\",\"numa\":1,\"amount\":3221225472,\"text\":\"3Gi\"},"
		"{\"resource\":\"example.com\\/nic\",\"numa\":\"every\",\"amount\":2,\"text\":\"2\"}]},"
		"{\"namespace\":\"a\\\"b\",\"name\":\"c\\\\d\\n\\u0001\",\"uid\":\"u\\/1\","
		"\"state\":\"reflected\",\"priority\":-5,\"decided\":\"unknown\","
		"\"placement\":\"unknown\",\"takes\":[]}]}");
	free(json);
}

static void the_summary(void **state)
{
	const struct ledger_json_row rows[] = { { "n1", 3, 1 }, { "n2", 0, 2 } };
	char *json;

	(void)state;
	json = ledger_json_summary("pessimistic", rows, 2);
	assert_string_equal(json, "{\"mode\":\"pessimistic\",\"nodes\":["
				  "{\"node\":\"n1\",\"pods\":3,\"assumed\":1},"
				  "{\"node\":\"n2\",\"pods\":0,\"assumed\":2}]}");
	free(json);
	json = ledger_json_summary("predicted", NULL, 0);
	assert_string_equal(json, "{\"mode\":\"predicted\",\"nodes\":[]}");
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_node_byte_for_byte),
		cmocka_unit_test(the_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
