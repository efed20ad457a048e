/* SPDX-License-Identifier: Apache-2.0 */
/* Field readers the scheduler-model decoders share (sched_node_decode.c,
 * sched_pod_decode.c, sched_config_decode.c) beyond decode_walk.h's string
 * fields: each reads obj.key, pushes key onto the path for its messages,
 * and fails with "origin: path: problem". An absent or null field leaves
 * the output alone. */
#ifndef EXTENDER_SCHED_FIELDS_H
#define EXTENDER_SCHED_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extender/codec/decode_walk.h"
#include "scheduler/pod_view.h"

/* true/false (YAML's True/TRUE spellings too). */
enum err sf_bool(struct decode_ctx *c, const struct doc *obj, const char *key,
		 bool *out);
/* A whole number in [min, max]; *present (may be NULL) says it was there. */
enum err sf_int(struct decode_ctx *c, const struct doc *obj, const char *key,
		int64_t min, int64_t max, int64_t *out, bool *present);
/* An array of strings. */
enum err sf_strings(struct decode_ctx *c, const struct doc *obj, const char *key,
		    char ***out, size_t *n);
/* A map of string to string (labels, nodeSelector), in source order. */
enum err sf_string_map(struct decode_ctx *c, const struct doc *obj,
		       const char *key, struct sched_label **out, size_t *n);
/* A map of resource name to quantity (allocatable, overhead, requests):
 * valid resource names, non-negative quantities whose Value() and, for cpu,
 * MilliValue() fit in int64. */
enum err sf_quantities(struct decode_ctx *c, const struct doc *obj,
		       const char *key, struct pod_quantity **out, size_t *n);

#endif
