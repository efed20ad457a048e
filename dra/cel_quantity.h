/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes' Quantity as CEL sees it (k8s.io/apiserver/pkg/cel/library
 * quantity.go over k8s.io/apimachinery resource.Quantity): exact
 * comparison and sums over topology/quantity's exact form, plus the one
 * thing the value alone does not say, whether Quantity.AsInt64 succeeds.
 * That depends on how apimachinery stores the value: as an int64 with a
 * decimal scale (AsInt64 works when the scale is >= 0 and the value fits)
 * or as an arbitrary-precision decimal (it never works), which follows
 * from the text the quantity was parsed from ("1000m" and "1" are equal,
 * but only the second is an integer to isInteger()). */
#ifndef DRA_CEL_QUANTITY_H
#define DRA_CEL_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/quantity.h"

struct cel_qty {
	struct quantity q;
	/* apimachinery holds it as an int64 amount with a scale >= 0. */
	bool int_rep;
};

enum cel_qty_parsed {
	CEL_QTY_OK,
	CEL_QTY_BAD,     /* not a quantity: quantity() fails, isQuantity() is false */
	CEL_QTY_UNKNOWN, /* a quantity, but beyond topology/quantity's range */
};

/* quantity(text): ParseQuantity's grammar, its rounding of values it keeps
 * as decimals (up to the next nano, away from zero) and its cap at
 * 2^63 - 1 for those of them written with a binary suffix. */
enum cel_qty_parsed cel_qty_parse(const char *text, size_t len, struct cel_qty *out);

/* A capacity of a device as the scheduler reads it: the API server has
 * stored it in canonical form, so its representation follows from the
 * value (and from whether it was written with a binary suffix). */
void cel_qty_from_capacity(const struct quantity *q, struct cel_qty *out);

/* -1, 0 or 1, exactly. */
int cel_qty_cmp(const struct cel_qty *a, const struct cel_qty *b);

/* a + b, or a - b when subtract: false when the exact result does not fit
 * topology/quantity's form (the caller cannot decide then). */
bool cel_qty_add(const struct cel_qty *a, const struct cel_qty *b, bool subtract,
		 struct cel_qty *out);

/* The quantity of an int (quantity.add(5)). */
void cel_qty_from_int(int64_t v, struct cel_qty *out);

/* Quantity.AsInt64: false when isInteger() is false. */
bool cel_qty_as_int64(const struct cel_qty *a, int64_t *out);

/* AsApproximateFloat64. */
double cel_qty_approx(const struct cel_qty *a);

#endif
