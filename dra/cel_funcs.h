/* SPDX-License-Identifier: Apache-2.0 */
/* The functions of the subset, called by the evaluator with their target
 * and arguments already evaluated (none of them an error): strings, size,
 * the conversions, Quantity, Semver and DRA's includes (cel_funcs.c), and
 * the conversions' number parsing and printing (cel_convert.c). */
#ifndef DRA_CEL_FUNCS_H
#define DRA_CEL_FUNCS_H

#include "dra/cel_ast.h"
#include "dra/cel_value.h"

/* n is a checked CEL_CALL; target is NULL for a global call; args holds
 * n->nargs values. */
struct cel_val cel_call(struct cel_ctx *c, const struct cel_node *n, const struct cel_val *target,
			const struct cel_val *args);

/* int(), uint(), double(), string() of one value. */
struct cel_val cel_to_int(struct cel_ctx *c, const struct cel_val *v);
struct cel_val cel_to_uint(struct cel_ctx *c, const struct cel_val *v);
struct cel_val cel_to_double(struct cel_ctx *c, const struct cel_val *v);
struct cel_val cel_to_string(struct cel_ctx *c, const struct cel_val *v);

/* Go's strconv.FormatFloat(d, 'g', -1, 64) into buf (32 bytes). */
void cel_format_double(double d, char *buf);

#endif
