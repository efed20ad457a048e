/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded UID set: membership, the oldest forgotten first, removal
 * that keeps every other UID findable (the probe runs are shifted back),
 * against a plain reference model over random operations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/inventory/uidset.h"

static void uid_of(unsigned i, char *buf, size_t size)
{
	snprintf(buf, size, "%08x-0000-4000-8000-%012u", i * 2654435761u, i);
}

static void adds_once_and_forgets_the_oldest(void **state)
{
	struct uidset *s = uidset_new(3);
	char u[64];
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		uid_of(i, u, sizeof u);
		assert_true(uidset_add(s, u));
		assert_false(uidset_add(s, u));
	}
	assert_int_equal(uidset_count(s), 3);
	uid_of(3, u, sizeof u);
	assert_true(uidset_add(s, u)); /* uid 0 goes */
	assert_int_equal(uidset_count(s), 3);
	uid_of(0, u, sizeof u);
	assert_false(uidset_has(s, u));
	for (i = 1; i < 4; i++) {
		uid_of(i, u, sizeof u);
		assert_true(uidset_has(s, u));
	}
	uid_of(2, u, sizeof u);
	uidset_remove(s, u);
	assert_false(uidset_has(s, u));
	assert_int_equal(uidset_count(s), 2);
	uidset_remove(s, u); /* absent: nothing */
	assert_int_equal(uidset_count(s), 2);
	uidset_free(s);
}

/* The set against a model: the last `cap` additions, minus removals. */
static void matches_a_model_under_random_operations(void **state)
{
	enum { CAP = 64, UIDS = 400, OPS = 200000 };
	static unsigned ring[CAP];
	static bool in_ring[UIDS];
	struct uidset *s = uidset_new(CAP);
	unsigned next = 0, seed = 12345, op, i;
	char u[64];

	(void)state;
	for (i = 0; i < CAP; i++)
		ring[i] = UINT32_MAX;
	for (op = 0; op < OPS; op++) {
		unsigned id, k;

		seed = seed * 1103515245u + 12345u;
		id = (seed >> 8) % UIDS;
		uid_of(id, u, sizeof u);
		if ((seed >> 4) % 3 == 0) {
			uidset_remove(s, u);
			for (k = 0; k < CAP; k++)
				if (ring[k] == id)
					ring[k] = UINT32_MAX;
			in_ring[id] = false;
		} else {
			bool added = uidset_add(s, u);

			assert_int_equal(added, !in_ring[id]);
			if (added) {
				if (ring[next] != UINT32_MAX)
					in_ring[ring[next]] = false;
				ring[next] = id;
				in_ring[id] = true;
				next = (next + 1) % CAP;
			}
		}
		if (op % 997 == 0) {
			size_t count = 0;

			for (k = 0; k < UIDS; k++) {
				uid_of(k, u, sizeof u);
				assert_int_equal(uidset_has(s, u), in_ring[k]);
				count += in_ring[k];
			}
			assert_int_equal(uidset_count(s), count);
		}
	}
	uidset_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adds_once_and_forgets_the_oldest),
		cmocka_unit_test(matches_a_model_under_random_operations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
