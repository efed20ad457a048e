/* SPDX-License-Identifier: Apache-2.0 */
/* The per-process seed of hash_key. It is set by a constructor, before
 * main and any thread, so the hot path reads a plain variable with no
 * once-check. */
#include "base/hash.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t hash_key_seed;

__attribute__((constructor)) static void hash_seed_init(void)
{
	struct timespec ts;
	uint64_t seed = 0;

	/* Never blocks: early in boot the kernel's pool may not be ready,
	 * and a process that cannot start is worse than a guessable seed. */
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed) {
		hash_key_seed = seed;
		return;
	}
	/* Without getrandom (a seccomp filter, an old kernel): the clock, the
	 * process id and where the stack landed (ASLR). Not secret, but not
	 * known to whoever sends the names either. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid() ^
	       (uint64_t)(uintptr_t)&ts;
	hash_key_seed = XXH3_64bits(&seed, sizeof seed);
}
