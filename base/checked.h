/* SPDX-License-Identifier: Apache-2.0 */
/* Checked int64 arithmetic for amounts that come from outside (NRT
 * quantities, pod requests, distances): every sum and product of such
 * amounts in topology/ goes through these, so none can wrap (undefined
 * behaviour) whatever an exporter publishes. Saturating at INT64_MAX is the
 * defined result throughout: a saturated total still compares as "at least
 * any request", which is what a real (unbounded) total would say too. */
#ifndef BASE_CHECKED_H
#define BASE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

/* a + b, saturated to [INT64_MIN, INT64_MAX]. */
static inline int64_t i64_add_sat(int64_t a, int64_t b)
{
	int64_t s;

	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return s;
}

/* a * b, saturated to [INT64_MIN, INT64_MAX]. */
static inline int64_t i64_mul_sat(int64_t a, int64_t b)
{
	int64_t p;

	if (__builtin_mul_overflow(a, b, &p))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return p;
}

/* a * b into *out; false (and *out untouched) when it does not fit. */
static inline bool i64_mul_ok(int64_t a, int64_t b, int64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

#endif
