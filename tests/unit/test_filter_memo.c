/* SPDX-License-Identifier: Apache-2.0 */
/* filter's verdicts kept until a pod binds (inventory/filter_memo.h): what a
 * pod's entry says per node, a later filter replacing an earlier one, the
 * oldest pod forgotten first, an entry taken once, and nothing kept when no
 * node had an inventory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/inventory/filter_memo.h"

static const char *const names[] = { "n1", "n2", "n3" };

static void note(struct filter_memo *m, const char *uid, bool pass1, const char *version1)
{
	const bool passes[] = { pass1, false, true };
	const char *const versions[] = { version1, "7", NULL };
	struct filter_memo_entry *e = filter_memo_entry_new(uid, 3, names, passes, versions);

	assert_non_null(e);
	filter_memo_put(m, e);
}

static void takes_what_filter_said_once(void **state)
{
	struct filter_memo *m = filter_memo_new(4);
	char *version = NULL;
	bool pass = false;

	(void)state;
	note(m, "u1", true, "5");
	assert_true(filter_memo_take(m, "u1", "n1", &pass, &version));
	assert_true(pass);
	assert_string_equal(version, "5");
	free(version);
	/* Taken: gone, whatever node is asked next. */
	assert_false(filter_memo_take(m, "u1", "n2", &pass, &version));

	note(m, "u2", true, "5");
	assert_true(filter_memo_take(m, "u2", "n2", &pass, &version));
	assert_false(pass);
	assert_string_equal(version, "7");
	free(version);

	/* n3 had no inventory; asking for it still takes the entry. */
	note(m, "u3", true, "5");
	assert_false(filter_memo_take(m, "u3", "n3", &pass, &version));
	assert_false(filter_memo_take(m, "u3", "n1", &pass, &version));
	filter_memo_free(m);
}

static void a_later_filter_replaces_and_the_oldest_goes(void **state)
{
	struct filter_memo *m = filter_memo_new(2);
	char *version = NULL;
	bool pass = true;

	(void)state;
	note(m, "a", true, "1");
	note(m, "a", false, "2"); /* replaces: the ring still holds one pod */
	note(m, "b", true, "3");
	assert_true(filter_memo_take(m, "a", "n1", &pass, &version));
	assert_false(pass);
	assert_string_equal(version, "2");
	free(version);
	note(m, "c", true, "4");
	note(m, "d", true, "5"); /* the ring of two: b goes */
	assert_false(filter_memo_take(m, "b", "n1", &pass, &version));
	assert_true(filter_memo_take(m, "c", "n1", &pass, &version));
	free(version);
	assert_true(filter_memo_take(m, "d", "n1", &pass, &version));
	assert_string_equal(version, "5");
	free(version);
	filter_memo_free(m);
}

static void nothing_kept_without_an_inventory(void **state)
{
	const bool passes[] = { true, true, true };
	const char *const versions[] = { NULL, NULL, NULL };

	(void)state;
	assert_null(filter_memo_entry_new("u", 3, names, passes, versions));
	assert_null(filter_memo_entry_new("u", 0, names, passes, versions));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(takes_what_filter_said_once),
		cmocka_unit_test(a_later_filter_replaces_and_the_oldest_goes),
		cmocka_unit_test(nothing_kept_without_an_inventory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
