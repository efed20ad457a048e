/* SPDX-License-Identifier: Apache-2.0 */
/* v1.Pod from JSON or YAML into struct pod_spec (topology/pod.h): identity,
 * containers in admission order with their kinds, requests and limits as
 * exact quantities, and status.qosClass. No defaulting (limits copied into
 * requests, QoS derivation): topology/ does that, the same way for every
 * source of pods.
 *
 * Error messages read "<origin>: <field path>: <problem>", for example
 * `pod.yaml: spec.containers[0].resources.limits.cpu: "abc": not a quantity`.
 * No global state; thread-safe. Out of memory aborts. */
#ifndef EXTENDER_POD_DECODE_H
#define EXTENDER_POD_DECODE_H

#include <stddef.h>

#include "extender/codec/doc.h"
#include "base/err.h"
#include "topology/pod.h"

/* One pod. kind, when present, must be Pod; metadata.name and a non-empty
 * spec.containers are required; namespace defaults to "default". Init
 * containers come first in spec order (CONTAINER_SIDECAR with restartPolicy
 * Always, else CONTAINER_INIT), then app containers. out is overwritten; on
 * error it is left zeroed. ERR_INVALID (schema), ERR_PARSE (quantity syntax),
 * ERR_RANGE (a quantity that does not fit). */
enum err pod_decode_doc(const struct doc *d, const char *origin,
			struct pod_spec *out, struct errmsg *msg);

/* The members of a pod that pod_decode_doc reads, for trees built of those
 * alone (doc_from_json_kept, doc_from_text): kube-scheduler's and the API
 * server's pods carry managedFields, volumes, env and probes for nothing. */
extern const struct doc_keep pod_fields[];

/* A pod that json-c parsed (a member of a request body, a watch event). Only
 * pod_fields are converted. Errors as pod_decode_doc's. */
struct json_object;
enum err pod_decode_json(struct json_object *o, const char *origin, struct pod_spec *out,
			 struct errmsg *msg);

/* A JSON or YAML text holding exactly one non-empty document. */
enum err pod_decode_buffer(const char *buf, size_t len, const char *origin,
			   struct pod_spec *out, struct errmsg *msg);

/* A regular file (up to FILE_READ_DOC_MAX_BYTES, 16 MiB), the path as
 * origin. Adds ERR_IO (also for a FIFO, a device or a directory, refused
 * without blocking) and ERR_TOO_LARGE. */
enum err pod_load_file(const char *path, struct pod_spec *out,
		       struct errmsg *msg);

#endif
