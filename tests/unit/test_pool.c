/* SPDX-License-Identifier: Apache-2.0 */
/* extender/decide/pool: every index runs exactly once, helpers do take part,
 * a helper waking after its job is over takes nothing from the next,
 * a busy pool makes a second caller work alone, and a pool without helpers
 * or without a pool at all still runs everything. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "extender/decide/pool.h"

enum { ITEMS = 5000 };

struct job {
	_Atomic int runs[ITEMS];
	pthread_t who[ITEMS];
	long nap_ns;                /* per chunk, so that helpers get a share */
	struct decide_pool *pool;   /* for the nested caller */
	_Atomic bool nested_shared; /* what the nested call returned */
	_Atomic int nested_calls;
};

static void nap(long ns)
{
	struct timespec t = { 0, ns };

	if (ns > 0)
		nanosleep(&t, NULL);
}

static void mark(void *arg, size_t begin, size_t end)
{
	struct job *j = arg;
	size_t i;

	for (i = begin; i < end; i++) {
		atomic_fetch_add(&j->runs[i], 1);
		j->who[i] = pthread_self();
	}
	nap(j->nap_ns);
}

static size_t threads_seen(const struct job *j, size_t n)
{
	pthread_t seen[16];
	size_t nseen = 0, i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nseen && !pthread_equal(seen[k], j->who[i]); k++)
			;
		if (k == nseen && nseen < 16)
			seen[nseen++] = j->who[i];
	}
	return nseen;
}

static void every_index_once(struct job *j, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(atomic_load(&j->runs[i]), 1);
	for (; i < ITEMS; i++)
		assert_int_equal(atomic_load(&j->runs[i]), 0);
}

static void helpers_share_every_index_once(void **state)
{
	static struct job j;
	struct decide_pool *p = decide_pool_new(3);
	size_t sizes[] = { 1, 31, 32, 33, 1000, ITEMS }, s;
	int round;

	(void)state;
	assert_int_equal(decide_pool_helpers(p), 3);
	for (round = 0; round < 20; round++) {
		for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			memset(&j, 0, sizeof j);
			j.nap_ns = 20000;
			decide_pool_run(p, sizes[s], 32, mark, &j);
			every_index_once(&j, sizes[s]);
		}
	}
	/* 157 chunks that each sleep: the helpers must have taken some. */
	memset(&j, 0, sizeof j);
	j.nap_ns = 200000;
	assert_true(decide_pool_run(p, ITEMS, 32, mark, &j));
	every_index_once(&j, ITEMS);
	assert_true(threads_seen(&j, ITEMS) >= 2);
	decide_pool_free(p);
}

/* Back-to-back jobs shorter than a helper's wake-up, each with its own
 * counts, alternately of 2 and 40 chunks (a filter shares its lookups, then
 * its judging): a helper that wakes after its job is over must not run a
 * chunk of the next one (which the next job's claims would run again) nor
 * touch the finished one (its counts are checked and reset at once). */
struct tick {
	_Atomic int runs[40];
	_Atomic int after; /* chunks run after the job was checked */
	bool checked;
};

static void tick(void *arg, size_t begin, size_t end)
{
	struct tick *t = arg;
	size_t i;

	if (t->checked)
		atomic_fetch_add(&t->after, 1);
	for (i = begin; i < end; i++)
		atomic_fetch_add(&t->runs[i], 1);
}

static void late_helpers_take_nothing(void **state)
{
	static struct tick ticks[2];
	struct decide_pool *p = decide_pool_new(2);
	int round, i;

	(void)state;
	for (round = 0; round < 200000; round++) {
		struct tick *t = &ticks[round % 2];
		int n = round % 2 ? 40 : 2;

		memset(t, 0, sizeof *t);
		decide_pool_run(p, (size_t)n, 1, tick, t);
		for (i = 0; i < n; i++)
			if (atomic_load(&t->runs[i]) != 1)
				fail_msg("round %d: chunk %d ran %d times", round, i,
					 atomic_load(&t->runs[i]));
		t->checked = true;
		if (atomic_load(&ticks[(round + 1) % 2].after) != 0)
			fail_msg("round %d: a chunk of a finished job ran", round);
	}
	decide_pool_free(p);
}

/* A chunk function that itself asks the (busy) pool: that caller must run
 * its work alone instead of waiting for the pool. */
static void nested(void *arg, size_t begin, size_t end)
{
	static struct job inner[64];
	struct job *j = arg;
	int k = atomic_fetch_add(&j->nested_calls, 1);

	(void)begin;
	(void)end;
	if (k < 64) {
		memset(&inner[k], 0, sizeof inner[k]);
		if (decide_pool_run(j->pool, 100, 10, mark, &inner[k]))
			atomic_store(&j->nested_shared, true);
		every_index_once(&inner[k], 100);
	}
}

static void busy_pool_means_alone(void **state)
{
	static struct job j;
	struct decide_pool *p = decide_pool_new(2);

	(void)state;
	memset(&j, 0, sizeof j);
	j.pool = p;
	assert_true(decide_pool_run(p, 8, 1, nested, &j));
	assert_int_equal(atomic_load(&j.nested_calls), 8);
	assert_false(atomic_load(&j.nested_shared));
	decide_pool_free(p);
}

static void no_helpers_run_everything(void **state)
{
	static struct job j;
	struct decide_pool *p = decide_pool_new(0);

	(void)state;
	memset(&j, 0, sizeof j);
	assert_false(decide_pool_run(p, ITEMS, 32, mark, &j));
	every_index_once(&j, ITEMS);
	assert_int_equal(threads_seen(&j, ITEMS), 1);
	memset(&j, 0, sizeof j);
	assert_false(decide_pool_run(NULL, 77, 0, mark, &j));
	every_index_once(&j, 77);
	memset(&j, 0, sizeof j);
	assert_false(decide_pool_run(p, 0, 32, mark, &j));
	every_index_once(&j, 0);
	decide_pool_free(p);
	decide_pool_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(helpers_share_every_index_once),
		cmocka_unit_test(late_helpers_take_nothing),
		cmocka_unit_test(busy_pool_means_alone),
		cmocka_unit_test(no_helpers_run_everything),
	};

	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
