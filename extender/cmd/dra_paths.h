/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA objects of the commands' --dra PATH options (explain,
 * simulate): files or directories of ResourceSlices, DeviceClasses,
 * ResourceClaims and ResourceClaimTemplates (YAML or JSON, several
 * documents, Lists), read once into a DRA store as serve's file source
 * would hold them. */
#ifndef EXTENDER_CMD_DRA_PATHS_H
#define EXTENDER_CMD_DRA_PATHS_H

#include <stdio.h>

#include "base/err.h"
#include "extender/inventory/dra_store.h"

/* Reads every path (in order; a directory's .yaml, .yml and .json files in
 * name order) into a new store (*out; free with dra_store_free). An object
 * that does not decode is left out and named on warn (when not NULL), one
 * line each, as serve's log would name it: the others stand. A path that
 * cannot be read or a text that does not parse fails the whole load, with
 * msg naming the path (*out NULL). */
enum err dra_paths_load(const char *const *paths, size_t npaths, FILE *warn, struct dra_store **out,
			struct errmsg *msg);

#endif
