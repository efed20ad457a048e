/* SPDX-License-Identifier: Apache-2.0 */
/* The string map (base/strmap.h): lookups, replacement, and removal that
 * keeps every other key findable (probe runs shifted back, no tombstones),
 * against a plain reference model over random operations; and the seeded
 * key hash it uses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/strmap.h"

static void gets_puts_and_removes(void **state)
{
	struct strmap m = { NULL, 0, 0 };
	char first[] = "node-a", again[] = "node-a";
	int a = 1, b = 2, c = 3;

	(void)state;
	assert_null(strmap_get(&m, "node-a")); /* empty, no table yet */
	assert_null(strmap_remove(&m, "node-a"));
	strmap_put(&m, first, &a);
	strmap_put(&m, "node-b", &b);
	assert_ptr_equal(strmap_get(&m, "node-a"), &a);
	assert_ptr_equal(strmap_get(&m, "node-b"), &b);
	assert_null(strmap_get(&m, "node-c"));
	assert_int_equal(m.n, 2);
	/* A present key takes the new value and keeps its first string. */
	strmap_put(&m, again, &c);
	assert_int_equal(m.n, 2);
	assert_ptr_equal(strmap_get(&m, "node-a"), &c);
	again[0] = 'X';
	assert_ptr_equal(strmap_get(&m, "node-a"), &c);
	assert_ptr_equal(strmap_remove(&m, "node-a"), &c);
	assert_null(strmap_get(&m, "node-a"));
	assert_null(strmap_remove(&m, "node-a"));
	assert_int_equal(m.n, 1);
	strmap_clear(&m);
	assert_int_equal(m.n, 0);
	assert_null(strmap_get(&m, "node-b"));
}

/* The map against a model (an array indexed by key number) over random
 * puts and removes, every key checked after each step, through several
 * growths and many shifted runs. */
static void matches_a_model_under_random_operations(void **state)
{
	enum { KEYS = 600, OPS = 20000 };
	static char keys[KEYS][32];
	static int vals[KEYS];
	static bool in[KEYS];
	struct strmap m = { NULL, 0, 0 };
	unsigned seed = 12345;
	size_t count = 0, i, op;

	(void)state;
	for (i = 0; i < KEYS; i++) {
		snprintf(keys[i], sizeof keys[i], "pod-%zu-%08zx", i, i * 2654435761u);
		vals[i] = (int)i;
	}
	for (op = 0; op < OPS; op++) {
		size_t k;

		seed = seed * 1103515245u + 12345u;
		k = (seed >> 8) % KEYS;
		if ((seed >> 4) % 3 == 0) {
			assert_ptr_equal(strmap_remove(&m, keys[k]), in[k] ? &vals[k] : NULL);
			count -= in[k];
			in[k] = false;
		} else {
			strmap_put(&m, keys[k], &vals[k]);
			count += !in[k];
			in[k] = true;
		}
		assert_int_equal(m.n, count);
		assert_true(m.n * 2 <= m.cap);
		if (op % 97 == 0 || op == OPS - 1)
			for (i = 0; i < KEYS; i++)
				assert_ptr_equal(strmap_get(&m, keys[i]), in[i] ? &vals[i] : NULL);
	}
	strmap_clear(&m);
}

/* Tables keyed by outside names use a seeded hash; digests written out use
 * the unseeded one, the same in every process. */
static void key_hash_is_seeded_and_digests_are_not(void **state)
{
	(void)state;
	assert_int_not_equal(hash_key("node-1"), hash_str("node-1"));
	assert_int_equal(hash_key("node-1"), hash_key("node-1"));
	/* XXH3-64 of "" (unseeded) is a published constant. */
	assert_int_equal(hash_str(""), 0x2D06800538D394C2ull);
	assert_int_equal(hash_bytes("abc", 3), hash_str("abc"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gets_puts_and_removes),
		cmocka_unit_test(matches_a_model_under_random_operations),
		cmocka_unit_test(key_hash_is_seeded_and_digests_are_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
