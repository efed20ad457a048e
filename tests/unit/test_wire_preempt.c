/* SPDX-License-Identifier: Apache-2.0 */
/* The preempt verb's wire types: ExtenderPreemptionArgs with either victim
 * map (full pods or UIDs), in Go's field names and in other casings Go
 * decodes, and ExtenderPreemptionResult written back and read again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/wire.h"
#include "tests/support/http_client.h"

#define POD "{\"metadata\":{\"name\":\"hi\",\"namespace\":\"ml\",\"uid\":\"u-pre\"},\"spec\":{\"priority\":1000," \
	    "\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\"}}}]}}"
#define VPOD(uid) "{\"metadata\":{\"name\":\"v-" uid "\",\"namespace\":\"ml\",\"uid\":\"" uid "\"}," \
		  "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"

static void decode_ok(const char *body, struct wire_preemption *p)
{
	struct errmsg msg;

	if (wire_decode_preemption(body, strlen(body), p, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
}

/* The two-node shape every casing must decode to. */
static void check_two(const struct wire_preemption *p, bool meta)
{
	assert_int_equal(p->meta, meta);
	assert_string_equal(p->pod.name, "hi");
	assert_int_equal(p->priority, 1000);
	assert_int_equal(p->nnodes, 2);
	assert_string_equal(p->nodes[0].node, "n1");
	assert_int_equal(p->nodes[0].nuids, 2);
	assert_string_equal(p->nodes[0].uids[0], "a");
	assert_string_equal(p->nodes[0].uids[1], "b");
	assert_int_equal(p->nodes[0].num_pdb_violations, 1);
	assert_string_equal(p->nodes[1].node, "n2");
	assert_int_equal(p->nodes[1].nuids, 1);
	assert_string_equal(p->nodes[1].uids[0], "c");
	assert_int_equal(p->nodes[1].num_pdb_violations, 0);
}

static void meta_victims_in_both_casings(void **state)
{
	static const char *const bodies[] = {
		"{\"Pod\":" POD ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
		"\"n2\":{\"Pods\":[{\"UID\":\"c\"}],\"NumPDBViolations\":0},"
		"\"n1\":{\"Pods\":[{\"UID\":\"a\"},{\"UID\":\"b\"}],\"NumPDBViolations\":1}}}",
		"{\"pod\":" POD ",\"nodeNameToMetaVictims\":{"
		"\"n2\":{\"pods\":[{\"uid\":\"c\"}]},"
		"\"n1\":{\"pods\":[{\"Uid\":\"a\"},{\"uID\":\"b\"}],\"numPDBViolations\":1}}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct wire_preemption p;

		decode_ok(bodies[i], &p);
		check_two(&p, true);
		wire_preemption_cleanup(&p);
	}
}

static void full_victims_in_both_casings(void **state)
{
	static const char *const bodies[] = {
		"{\"Pod\":" POD ",\"NodeNameToVictims\":{"
		"\"n1\":{\"Pods\":[" VPOD("a") "," VPOD("b") "],\"NumPDBViolations\":1},"
		"\"n2\":{\"Pods\":[" VPOD("c") "],\"NumPDBViolations\":0}},\"NodeNameToMetaVictims\":null}",
		"{\"POD\":" POD ",\"nodenametovictims\":{"
		"\"n1\":{\"PODS\":[" VPOD("a") "," VPOD("b") "],\"numpdbviolations\":1},"
		"\"n2\":{\"pods\":[" VPOD("c") "]}}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct wire_preemption p;

		decode_ok(bodies[i], &p);
		check_two(&p, false);
		wire_preemption_cleanup(&p);
	}
}

/* The result comes back in Go's shape (sorted keys) and decodes again as
 * the meta victims of a request. */
static void result_round_trip(void **state)
{
	char x1[] = "x\"1", y[] = "y", z[] = "z";
	char *a_uids[] = { x1, y }, *b_uids[] = { z };
	char n1[] = "n1", n2[] = "n2";
	struct wire_victims nodes[] = {
		{ n2, b_uids, 1, 0 },
		{ n1, a_uids, 2, 3 },
	};
	struct wire_preemption p;
	char *json, body[1024];
	size_t len = 0;

	(void)state;
	json = wire_encode_preemption(nodes, 2, &len);
	assert_int_equal(len, strlen(json));
	assert_string_equal(json, "{\"NodeNameToMetaVictims\":{"
			    "\"n1\":{\"Pods\":[{\"UID\":\"x\\\"1\"},{\"UID\":\"y\"}],\"NumPDBViolations\":3},"
			    "\"n2\":{\"Pods\":[{\"UID\":\"z\"}],\"NumPDBViolations\":0}}}");
	snprintf(body, sizeof body, "{\"Pod\":%s,%s", POD, json + 1);
	decode_ok(body, &p);
	assert_int_equal(p.nnodes, 2);
	assert_string_equal(p.nodes[0].uids[0], "x\"1");
	assert_int_equal(p.nodes[0].num_pdb_violations, 3);
	wire_preemption_cleanup(&p);
	free(json);
	json = wire_encode_preemption(NULL, 0, &len);
	assert_string_equal(json, "{\"NodeNameToMetaVictims\":{}}");
	free(json);
}

static void fixture_request_decodes(void **state)
{
	struct wire_preemption p;
	size_t len = 0;
	char *body = read_file_or_die("tests/data/fixtures/wire/preempt-request.json", &len);
	struct errmsg msg;

	(void)state;
	if (wire_decode_preemption(body, len, &p, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_true(p.meta);
	assert_int_equal(p.nnodes, 3);
	assert_string_equal(p.nodes[0].node, "worker-gpu-017");
	assert_string_equal(p.nodes[2].uids[0], "71c4e2a9-3d8b-4f60-b5e1-0a9c6d3f2b47");
	assert_int_equal(p.nodes[2].num_pdb_violations, 1);
	wire_preemption_cleanup(&p);
	free(body);
}

static void bad_requests_say_where(void **state)
{
	static const struct {
		const char *body, *want;
		enum err rc;
	} cases[] = {
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":7}]}}}",
		  "NodeNameToMetaVictims[\"n1\"].Pods[0].UID: expected a non-empty string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToVictims\":{\"n1\":{\"Pods\":[{\"metadata\":{}}]}}}",
		  "NodeNameToVictims[\"n1\"].Pods[0].metadata.uid: expected a non-empty string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":{}}}}",
		  "NodeNameToMetaVictims[\"n1\"].Pods: expected an array, got an object", ERR_INVALID },
		{ "{\"NodeNameToMetaVictims\":{}}", "Pod: expected an object, got nothing", ERR_INVALID },
		{ "{\"Pod\":", "invalid JSON", ERR_PARSE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct wire_preemption p;
		struct errmsg msg;

		assert_int_equal(wire_decode_preemption(cases[i].body, strlen(cases[i].body), &p, &msg),
				 cases[i].rc);
		if (strstr(msg.text, cases[i].want) == NULL)
			fail_msg("case %zu: %s", i, msg.text);
		assert_int_equal(p.nnodes, 0);
		assert_null(p.nodes);
	}
}


/* A UID named twice for a node is one victim, kept at its first place, in
 * both maps; the same UID on two nodes stays on both. An escaped spelling
 * is the same UID. */
static void repeated_uids_are_one_victim(void **state)
{
	static const char *const bodies[] = {
		"{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{"
		"\"n1\":{\"Pods\":[{\"UID\":\"a\"},{\"UID\":\"b\"},{\"UID\":\"\\u0061\"},{\"UID\":\"c\"},{\"UID\":\"b\"}]},"
		"\"n2\":{\"Pods\":[{\"UID\":\"a\"},{\"UID\":\"a\"}]}}}",
		"{\"Pod\":" POD ",\"NodeNameToVictims\":{"
		"\"n1\":{\"Pods\":[" VPOD("a") "," VPOD("b") "," VPOD("a") "," VPOD("c") "," VPOD("b") "]},"
		"\"n2\":{\"Pods\":[" VPOD("a") "," VPOD("a") "]}}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct wire_preemption p;

		decode_ok(bodies[i], &p);
		assert_int_equal(p.nnodes, 2);
		assert_int_equal(p.nodes[0].nuids, 3);
		assert_string_equal(p.nodes[0].uids[0], "a");
		assert_string_equal(p.nodes[0].uids[1], "b");
		assert_string_equal(p.nodes[0].uids[2], "c");
		assert_int_equal(p.nodes[1].nuids, 1);
		assert_string_equal(p.nodes[1].uids[0], "a");
		wire_preemption_cleanup(&p);
	}
}

/* A node name given twice is one entry, the last (Go decodes a map key
 * given twice so); so is a key of the extender types given twice, in any
 * casing. Escaped names decode. */
static void last_of_repeated_keys_wins(void **state)
{
	struct wire_preemption p;

	(void)state;
	decode_ok("{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{"
		  "\"n1\":{\"Pods\":[{\"UID\":\"old\"}],\"NumPDBViolations\":5},"
		  "\"n\\u0032\":{\"Pods\":[{\"UID\":\"x\",\"uid\":\"c\"}]},"
		  "\"n1\":{\"pods\":[{\"UID\":\"gone\"}],\"Pods\":[{\"UID\":\"a\"},{\"UID\":\"b\"}],\"NumPDBViolations\":1}}}",
		  &p);
	check_two(&p, true);
	wire_preemption_cleanup(&p);
	/* Long s (U+017F) folds to 's', as Go folds it. */
	decode_ok("{\"Pod\":" POD ",\"NodeNameToMetaVictim\\u017f\":{\"n1\":{\"Pod\\u017f\":[{\"UID\":\"a\"}]}}}", &p);
	assert_true(p.meta);
	assert_int_equal(p.nnodes, 1);
	assert_string_equal(p.nodes[0].uids[0], "a");
	wire_preemption_cleanup(&p);
	/* Both maps: the meta one; no map, or a null one: no node. */
	decode_ok("{\"Pod\":" POD ",\"NodeNameToVictims\":{\"n9\":null},\"NodeNameToMetaVictims\":{\"n1\":null}}", &p);
	assert_int_equal(p.nnodes, 1);
	assert_string_equal(p.nodes[0].node, "n1");
	assert_int_equal(p.nodes[0].nuids, 0);
	wire_preemption_cleanup(&p);
	decode_ok("{\"Pod\":" POD ",\"NodeNameToMetaVictims\":null}", &p);
	assert_int_equal(p.nnodes, 0);
	assert_int_equal(p.priority, 1000);
	wire_preemption_cleanup(&p);
}

/* n victims {"UID":"a"} on n1 (malloc'd). */
static char *repeated_a(size_t n, size_t *len)
{
	static const char head[] = "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[";
	size_t cap = sizeof head + n * 12 + 16, o = sizeof head - 1, i;
	char *b = malloc(cap);

	assert_non_null(b);
	memcpy(b, head, o);
	for (i = 0; i < n; i++) {
		memcpy(b + o, i ? ",{\"UID\":\"a\"}" : "{\"UID\":\"a\"}", i ? 12 : 11);
		o += i ? 12 : 11;
	}
	memcpy(b + o, "]}}}", 5);
	*len = o + 4;
	return b;
}

/* WIRE_PREEMPT_VICTIMS_MAX victims decode (repeats count as given); one
 * more is ERR_TOO_LARGE, saying where. */
static void victims_are_bounded(void **state)
{
	struct wire_preemption p;
	struct errmsg msg;
	size_t len;
	char *body = repeated_a(WIRE_PREEMPT_VICTIMS_MAX, &len);

	(void)state;
	assert_int_equal(wire_decode_preemption(body, len, &p, &msg), ERR_OK);
	assert_int_equal(p.nodes[0].nuids, 1);
	wire_preemption_cleanup(&p);
	free(body);
	body = repeated_a(WIRE_PREEMPT_VICTIMS_MAX + 1, &len);
	assert_int_equal(wire_decode_preemption(body, len, &p, &msg), ERR_TOO_LARGE);
	assert_string_equal(msg.text, "NodeNameToMetaVictims[\"n1\"].Pods[500000]: more than 500000 victims in one request");
	assert_null(p.nodes);
	free(body);
}

/* What the text reader refuses: JSON outside RFC 8259 (at its byte), and
 * values of the wrong kind or range, each with its path. */
static void bad_values_say_what(void **state)
{
	static const struct {
		const char *body, *want;
		enum err rc;
	} cases[] = {
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{'n1':null}}", "invalid JSON at byte ", ERR_PARSE },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":NaN}}}",
		  "not a JSON value", ERR_PARSE },
		{ "{\"Pod\":" POD "} x", "unexpected data after the value", ERR_PARSE },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"\xc0\xaf" "\"}]}}}",
		  "invalid UTF-8", ERR_PARSE },
		{ "[]", "ExtenderPreemptionArgs: expected an object, got an array", ERR_INVALID },
		{ "{\"Pod\":null}", "Pod: expected an object, got null", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":[]}",
		  "NodeNameToMetaVictims: expected an object, got an array", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"\":null}}",
		  "NodeNameToMetaVictims: a node name is empty or holds \\u0000", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n\\u0000\":null}}",
		  "NodeNameToMetaVictims: a node name is empty or holds \\u0000", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":7}}",
		  "NodeNameToMetaVictims[\"n1\"]: expected an object, got a number", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"a\\u0000b\"}]}}}",
		  "NodeNameToMetaVictims[\"n1\"].Pods[0].UID: expected a non-empty string without \\u0000", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"\"}]}}}",
		  "NodeNameToMetaVictims[\"n1\"].Pods[0].UID: expected a non-empty string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"a\"},\"b\"]}}}",
		  "NodeNameToMetaVictims[\"n1\"].Pods[1]: expected an object, got a string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToVictims\":{\"n1\":{\"Pods\":[{\"metadata\":[]}]}}}",
		  "NodeNameToVictims[\"n1\"].Pods[0].metadata.uid: expected a non-empty string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":1.5}}}",
		  "NodeNameToMetaVictims[\"n1\"].NumPDBViolations: expected an integer, got a number", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":\"1\"}}}",
		  "NodeNameToMetaVictims[\"n1\"].NumPDBViolations: expected an integer, got a string", ERR_INVALID },
		{ "{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":9223372036854775808}}}",
		  "NodeNameToMetaVictims[\"n1\"].NumPDBViolations: out of range", ERR_INVALID },
		{ "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priority\":\"high\",\"containers\":[{\"name\":\"c\"}]}}}",
		  "Pod.spec.priority: expected an integer, got a string", ERR_INVALID },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct wire_preemption p;
		struct errmsg msg;

		assert_int_equal(wire_decode_preemption(cases[i].body, strlen(cases[i].body), &p, &msg),
				 cases[i].rc);
		if (strstr(msg.text, cases[i].want) == NULL)
			fail_msg("case %zu: %s", i, msg.text);
		assert_int_equal(p.nnodes, 0);
		assert_null(p.nodes);
	}
}

/* The int64 edges of NumPDBViolations, and a null count. */
static void counts_at_their_limits(void **state)
{
	struct wire_preemption p;

	(void)state;
	decode_ok("{\"Pod\":" POD ",\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":-9223372036854775808},"
		  "\"n2\":{\"NumPDBViolations\":9223372036854775807},\"n3\":{\"NumPDBViolations\":null}}}",
		  &p);
	assert_int_equal(p.nnodes, 3);
	assert_true(p.nodes[0].num_pdb_violations == INT64_MIN);
	assert_true(p.nodes[1].num_pdb_violations == INT64_MAX);
	assert_int_equal(p.nodes[2].num_pdb_violations, 0);
	wire_preemption_cleanup(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(meta_victims_in_both_casings),
		cmocka_unit_test(full_victims_in_both_casings),
		cmocka_unit_test(result_round_trip),
		cmocka_unit_test(fixture_request_decodes),
		cmocka_unit_test(bad_requests_say_where),
		cmocka_unit_test(repeated_uids_are_one_victim),
		cmocka_unit_test(last_of_repeated_keys_wins),
		cmocka_unit_test(victims_are_bounded),
		cmocka_unit_test(bad_values_say_what),
		cmocka_unit_test(counts_at_their_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
