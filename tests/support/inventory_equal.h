/* SPDX-License-Identifier: Apache-2.0 */
/* Field-by-field comparison of two node snapshots, for tests: every field of
 * struct inventory_node and its resources (and of the emptied copies). */
#ifndef TESTS_SUPPORT_INVENTORY_EQUAL_H
#define TESTS_SUPPORT_INVENTORY_EQUAL_H

#include <stdbool.h>
#include <stddef.h>

#include "topology/inventory.h"

/* true when a and b are equal; otherwise false with the first difference
 * named in why (e.g. "resources[2] \"cpu\" available[1]: 4 != 6"). */
bool inventory_equal(const struct inventory_node *a, const struct inventory_node *b, char *why,
		     size_t size);

#endif
