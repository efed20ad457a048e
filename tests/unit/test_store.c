/* SPDX-License-Identifier: Apache-2.0 */
/* The store's lookups: store_get_many (pipelined, for a filter's thousands
 * of names) answers exactly as store_get, name by name, for known, unknown
 * and repeated names and at every length around its pipeline's depth. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/inventory/store.h"
#include "tests/support/tiny_node.h"
#include "base/xalloc.h"

#define NODES 3000

static struct store *store_of(size_t nodes)
{
	static const struct tiny_zone zone = { { 8, 8 }, { 16, 16 }, { 0, 0 }, { 0, 0 } };
	struct store *st = store_new();
	struct store_batch *b = store_batch_new();
	struct errmsg msg;
	size_t i;

	for (i = 0; i < nodes; i++) {
		struct inventory_node *node = tiny_node("single-numa-node", false, NULL, 1, &zone, &msg);
		char name[32];

		if (node == NULL)
			fail_msg("tiny_node: %s", msg.text);
		snprintf(name, sizeof name, "w-%05zu", i);
		free(node->name);
		node->name = xstrdup(name);
		store_batch_put(b, node, "test", "1");
	}
	store_publish(st, b);
	return st;
}

static uint64_t rnd_state = 88172645463325252ull;

static size_t rnd_below(size_t k)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (size_t)(rnd_state % k);
}

/* names[0..n): known names in random order, a few unknown ones (some a
 * prefix or extension of a known one) and repeats. */
static char **names_of(size_t n)
{
	char **names = xcalloc(n + 1, sizeof *names);
	size_t i;

	for (i = 0; i < n; i++) {
		char name[40];

		switch (rnd_below(10)) {
		case 0:
			snprintf(name, sizeof name, "w-%05zu-gone", rnd_below(NODES));
			break;
		case 1:
			snprintf(name, sizeof name, "x-%zu", rnd_below(1000000));
			break;
		case 2:
			snprintf(name, sizeof name, "w-%04zu", rnd_below(NODES / 10));
			break;
		default:
			snprintf(name, sizeof name, "w-%05zu", rnd_below(NODES));
			break;
		}
		names[i] = xstrdup(name);
	}
	return names;
}

static void names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void many_answers_as_one_by_one(void **state)
{
	struct store *st = store_of(NODES);
	struct store_set *set = store_acquire(st);
	size_t lens[] = { 0, 1, 2, 3, 5, 9, 10, 11, 12, 13, 16, 17, 31, 256, 5000 };
	size_t known = 0, k, i;

	(void)state;
	for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k];
		char **names = names_of(n);
		const struct store_node **got = xcalloc(n + 1, sizeof *got);

		store_get_many(set, (const char *const *)names, n, got);
		for (i = 0; i < n; i++) {
			const struct store_node *want = store_get(set, names[i]);

			if (got[i] != want)
				fail_msg("%zu names, [%zu] %s: store_get_many %s, store_get %s", n, i,
					 names[i], got[i] ? got[i]->inventory->name : "none",
					 want ? want->inventory->name : "none");
			if (want != NULL) {
				assert_string_equal(want->inventory->name, names[i]);
				known++;
			}
		}
		free(got);
		names_free(names, n);
	}
	/* Most names are known, so the test is not only about misses. */
	assert_true(known > 3000);
	store_release(set);
	store_free(st);
}

/* Every node of the store finds itself, in name order and reversed. */
static void every_node_finds_itself(void **state)
{
	struct store *st = store_of(NODES);
	struct store_set *set = store_acquire(st);
	size_t n = store_size(set), i;
	const char **names = xcalloc(2 * n, sizeof *names);
	const struct store_node **got = xcalloc(2 * n, sizeof *got);

	(void)state;
	assert_int_equal(n, NODES);
	for (i = 0; i < n; i++) {
		names[i] = store_at(set, i)->inventory->name;
		names[2 * n - 1 - i] = names[i];
	}
	store_get_many(set, names, 2 * n, got);
	for (i = 0; i < 2 * n; i++)
		assert_ptr_equal(got[i], store_at(set, i < n ? i : 2 * n - 1 - i));
	free(got);
	free(names);
	store_release(set);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_answers_as_one_by_one),
		cmocka_unit_test(every_node_finds_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
