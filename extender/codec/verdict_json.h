/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON form of a verdict, shared by explain and the decision log:
 * {"node","admit","reason","message","unresolvable","policy","scope",
 *  "containers":[{"name","numaNodes","preferred"}]}. The only place that
 * spells these keys. */
#ifndef EXTENDER_VERDICT_JSON_H
#define EXTENDER_VERDICT_JSON_H

#include <json-c/json.h>

#include "topology/inventory.h"
#include "topology/judge.h"

/* A new json-c object (caller owns it). */
struct json_object *verdict_to_json(const char *node, const struct verdict *v);

#endif
