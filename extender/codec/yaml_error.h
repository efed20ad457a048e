/* SPDX-License-Identifier: Apache-2.0 */
/* libyaml's parser errors in the project's one shape,
 * "origin:LINE:COLUMN: problem (context)": the configuration loader and the
 * YAML document reader both report them, and say them the same way. */
#ifndef EXTENDER_YAML_ERROR_H
#define EXTENDER_YAML_ERROR_H

#include <stddef.h>
#include <yaml.h>

#include "base/err.h"

/* Sets msg from the parser's error and returns ERR_PARSE. buf[0..len) is the
 * text parsed: bad encodings carry a byte offset, not a mark, and the line
 * and column are counted from it. */
enum err yaml_parser_failure(const yaml_parser_t *p, const char *buf, size_t len,
			     const char *origin, struct errmsg *msg);

#endif
