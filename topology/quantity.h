/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes resource quantities ("500m", "4Gi", "1e3", "+.5E"): parsing into an
 * exact decimal form and exact integer conversion at a chosen scale.
 * Follows k8s.io/apimachinery/pkg/api/resource: Value() and MilliValue() round
 * up, away from zero. No allocation; safe to call from any thread. */
#ifndef TOPOLOGY_QUANTITY_H
#define TOPOLOGY_QUANTITY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "base/err.h"

/* value = (negative ? -1 : 1) * mantissa * 10^exp10 * 2^exp2.
 * mantissa has at most 19 significant decimal digits (trailing zeros folded into
 * exp10); exp2 is one of 0, 10, ..., 60 (binary suffixes). */
struct quantity {
	bool negative;
	uint64_t mantissa;
	int32_t exp10;
	uint8_t exp2;
};

/* Longest quantity text accepted, in bytes. */
#define QUANTITY_MAX_TEXT 64

/* Parses text[0..len) with the full Kubernetes grammar:
 *   sign? (digits ('.' digits?)? | '.' digits) suffix?
 *   suffix: Ki Mi Gi Ti Pi Ei | n u m k M G T P E | [eE] sign? digits
 * Returns ERR_PARSE for garbage, ERR_RANGE when the value cannot be represented
 * (more than 19 significant digits, or an exponent beyond +-1000). On error msg
 * receives text of the form `"12x": not a quantity` (the caller adds the field). */
enum err quantity_parse(const char *text, size_t len, struct quantity *out,
			struct errmsg *msg);

/* The value in units of 10^scale (scale 0: Value(), scale -3: MilliValue()),
 * rounded up away from zero as Kubernetes does. ERR_RANGE if it does not fit
 * in int64_t. */
enum err quantity_scaled(const struct quantity *q, int scale, int64_t *out);

/* True when the value is exactly an integer multiple of 10^scale. */
bool quantity_is_exact(const struct quantity *q, int scale);

bool quantity_is_zero(const struct quantity *q);

/* Writes an exact text of q: "<digits>[e<exp>]", or "<digits><Ki..Ei>"
 * when there is no decimal exponent. quantity_parse reads it back to the same
 * value, except a binary suffix combined with a decimal fraction whose exact
 * product has more than 19 digits (e.g. "1.234567890123456789Ei").
 * buf needs QUANTITY_FORMAT_MAX bytes. */
#define QUANTITY_FORMAT_MAX 64
void quantity_format(const struct quantity *q, char *buf);

/* Sign of the value: -1, 0 or 1. */
int quantity_sign(const struct quantity *q);

#endif
