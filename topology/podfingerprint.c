/* SPDX-License-Identifier: Apache-2.0 */
/* podfingerprint v001 with Debian's libxxhash. */
#include "podfingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/xalloc.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void podfingerprint(const struct pod_ref *pods, size_t n, char *buf)
{
	uint64_t *hashes = xcalloc(n + 1, sizeof *hashes);
	unsigned char *bytes = xcalloc(n * 8 + 1, 1);
	uint64_t digest;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		XXH64_hash_t seed = XXH64(pods[i].namespace_, strlen(pods[i].namespace_), 0);

		hashes[i] = XXH64(pods[i].name, strlen(pods[i].name), seed);
	}
	if (n > 0)
		qsort(hashes, n, sizeof *hashes, by_value);
	/* Little-endian words, whatever the host's byte order. */
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			bytes[i * 8 + (size_t)b] = (unsigned char)(hashes[i] >> (8 * b));
	digest = XXH64(bytes, n * 8, 0);
	snprintf(buf, PODFINGERPRINT_LEN + 1, "pfp0v001%016llx", (unsigned long long)digest);
	free(hashes);
	free(bytes);
}
