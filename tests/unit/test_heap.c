/* SPDX-License-Identifier: Apache-2.0 */
/* extender/http/heap: once set for serving, a request-sized block (a few
 * megabytes) comes from the heap rather than a mapping of its own, and
 * freeing it leaves the heap as large as it was, ready for the next
 * request, instead of handing the pages back to be faulted in again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "extender/http/heap.h"

/* Sanitizers bring their own allocator: glibc's thresholds mean nothing
 * there, and mallinfo2 does not describe it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OWN_ALLOCATOR 1
#endif
#endif

static void request_sized_blocks_stay(void **state)
{
	enum { BLOCK = 4 << 20 };
	struct mallinfo2 before, during, after;
	char *p;

	(void)state;
#ifdef OWN_ALLOCATOR
	skip();
#endif
	heap_keep_for_requests();
	before = mallinfo2();
	p = malloc(BLOCK);
	assert_non_null(p);
	memset(p, 1, BLOCK);
	during = mallinfo2();
	/* Not a mapping of its own (the default maps from 128 KiB). */
	assert_int_equal(during.hblkhd, before.hblkhd);
	assert_true(during.arena >= before.arena + BLOCK);
	free(p);
	after = mallinfo2();
	/* Kept: the heap did not shrink back (the default trims past 128 KiB). */
	assert_int_equal(after.arena, during.arena);
	assert_true(after.fordblks >= (size_t)BLOCK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_sized_blocks_stay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
