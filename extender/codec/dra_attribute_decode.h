/* SPDX-License-Identifier: Apache-2.0 */
/* A device's attributes and capacity (ResourceSlice spec.devices[i]):
 * qualified names split at their first '/' (an unqualified one belongs to
 * the driver's domain), each attribute exactly one typed value (int, bool,
 * string, version, or the list forms ints, bools, strings, versions),
 * each capacity a non-negative quantity; at most DRA_MAX_ATTRIBUTES of
 * both together, DRA_MAX_LIST_VALUES list values, and no two names for the
 * same attribute ("model" and "<driver>/model"). */
#ifndef EXTENDER_DRA_ATTRIBUTE_DECODE_H
#define EXTENDER_DRA_ATTRIBUTE_DECODE_H

#include "dra/types.h"
#include "extender/codec/decode_walk.h"

/* Reads dev.attributes and dev.capacity into out (whose arrays it sets). */
enum err dra_attributes_decode(struct decode_ctx *c, const struct doc *dev, const char *driver,
			       struct dra_device *out);

/* A semantic version 2.0.0 (MAJOR.MINOR.PATCH[-pre][+build], no leading
 * zeros in numbers), as a version attribute must be. */
bool dra_semver_valid(const char *s);

#endif
