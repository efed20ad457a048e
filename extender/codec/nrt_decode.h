/* SPDX-License-Identifier: Apache-2.0 */
/* NodeResourceTopology objects from JSON or YAML text, files and directories
 * into the plain structs of topology/nrt.h. Validation stops at the schema:
 * required fields, types, quantity syntax and range, whole counts, unique
 * resource names per zone. What the numbers mean is topology/'s business.
 *
 * Every error message reads "<origin>: <field path>: <problem>", for example
 * `w1.yaml: zones[1].resources[0].available: "12x": not a quantity`; the
 * path starts with "items[2]." inside a list and the origin gains
 * " (document N)" from the second document of a YAML stream on.
 * No global state; thread-safe. Out of memory aborts. */
#ifndef EXTENDER_NRT_DECODE_H
#define EXTENDER_NRT_DECODE_H

#include <stddef.h>

#include "extender/codec/doc.h"
#include "base/err.h"
#include "topology/nrt.h"

/* One NodeResourceTopology object (kind NodeResourceTopology, apiVersion
 * topology.node.k8s.io/v1alpha1 or v1alpha2). The legacy annotation
 * topology.node.k8s.io/fingerprint becomes the nodeTopologyPodsFingerprint
 * attribute when that attribute is absent (scheduler-plugins' fallback). out is overwritten; on error it
 * is left zeroed. ERR_INVALID (schema), ERR_PARSE (quantity syntax),
 * ERR_RANGE (a number that does not fit). */
enum err nrt_decode_doc(const struct doc *d, const char *origin,
			struct nrt_object *out, struct errmsg *msg);

/* A JSON text, or a YAML stream of one or more documents, where each document
 * is a NodeResourceTopology or a list of them (kind NodeResourceTopologyList,
 * or kubectl's kind List) in "items". Empty YAML documents are skipped, so a
 * blank text yields no objects. On success *objs (free with
 * nrt_objects_free; NULL when *nobjs is 0) holds the objects in text order;
 * on error *objs is NULL and *nobjs 0. Adds ERR_TOO_LARGE and ERR_PARSE from
 * doc_parse to nrt_decode_doc's errors.
 *
 * In a text of several objects (more than one document, or any list) each
 * object stands or falls alone: an item that does not decode is returned as
 * a placeholder whose `invalid` holds the message (naming the document
 * number or items[i] and the node, e.g. `f.yaml (document 2, node w2):
 * zones[0].name: missing`), whose name is its node name when readable (else
 * ""), and which inventory_node_new refuses with that message. Only a text
 * of a single object fails as a whole, as does a text that does not parse. */
enum err nrt_decode_buffer(const char *buf, size_t len, const char *origin,
			   struct nrt_object **objs, size_t *nobjs,
			   struct errmsg *msg);

/* A regular file (decoded as by nrt_decode_buffer, the path as origin) or a
 * directory: its regular files ending in .yaml, .yml or .json, in strcmp
 * order of their names, not recursing; other entries are ignored and a
 * directory without any yields 0 objects. Adds ERR_IO (also for a FIFO or a
 * device, refused without blocking) and ERR_TOO_LARGE (files over
 * FILE_READ_DOC_MAX_BYTES, 16 MiB). */
enum err nrt_load_path(const char *path, struct nrt_object **objs,
		       size_t *nobjs, struct errmsg *msg);

/* Cleans up and frees an array from nrt_decode_buffer or nrt_load_path;
 * accepts NULL. */
void nrt_objects_free(struct nrt_object *objs, size_t n);

#endif
