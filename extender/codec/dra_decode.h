/* SPDX-License-Identifier: Apache-2.0 */
/* Dynamic Resource Allocation objects (resource.k8s.io/v1) from JSON or
 * YAML into dra/types.h: ResourceSlices, DeviceClasses, ResourceClaims and
 * ResourceClaimTemplates. Validation at the door, as the API server
 * validates them: names, the one-of fields, the limits (128 devices per
 * slice, 32 attributes and capacities per device, 32 results per claim, 10
 * KiB per CEL expression, ...), typed attribute values. What a selector
 * means is dra/cel's business, what a claim gets dra/alloc's.
 *
 * Messages read "<origin>: <field path>: <problem>", e.g. `gpus.yaml
 * (ResourceSlice node-a-gpu): spec.devices[1].attributes.index: exactly one
 * of int, bool, string, version, ints, bools, strings or versions is
 * required`. No global state; thread-safe. Out of memory aborts. */
#ifndef EXTENDER_DRA_DECODE_H
#define EXTENDER_DRA_DECODE_H

#include <stddef.h>

#include "base/err.h"
#include "dra/types.h"
#include "extender/codec/doc.h"

/* One object each. kind, when present, must be the one named; apiVersion,
 * when present, resource.k8s.io/v1. out is overwritten; on error it is left
 * zeroed. ERR_INVALID (schema), ERR_PARSE (quantity syntax), ERR_RANGE (a
 * number that does not fit), ERR_TOO_LARGE (past a limit). */
enum err dra_slice_decode_doc(const struct doc *d, const char *origin, struct dra_slice *out,
			      struct errmsg *msg);
enum err dra_class_decode_doc(const struct doc *d, const char *origin, struct dra_class *out,
			      struct errmsg *msg);
enum err dra_claim_decode_doc(const struct doc *d, const char *origin, struct dra_claim *out,
			      struct errmsg *msg);
/* A ResourceClaimTemplate: its spec.spec as a claim with from_template set,
 * under the template's namespace, name and uid. */
enum err dra_template_decode_doc(const struct doc *d, const char *origin,
				 struct dra_claim *out, struct errmsg *msg);

/* The four kinds, in the order the decoders and the inventory list them. */
enum dra_kind {
	DRA_KIND_SLICE,
	DRA_KIND_CLASS,
	DRA_KIND_CLAIM,
	DRA_KIND_TEMPLATE,
	DRA_KIND_COUNT,
};

/* "ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate". */
const char *dra_kind_name(enum dra_kind k);

/* An object of a text that did not decode: what it was and why. */
struct dra_bad_object {
	char *kind;        /* its kind as written, "" when unreadable */
	char *namespace_;  /* NULL for cluster-scoped kinds or when unreadable */
	char *name;        /* "" when unreadable */
	char *message;     /* "origin (...): path: problem" */
};

/* What a text or a directory of texts holds, each kind in text order. */
struct dra_objects {
	struct dra_slice *slices;
	size_t nslices;
	struct dra_class *classes;
	size_t nclasses;
	struct dra_claim *claims;
	size_t nclaims;
	struct dra_claim *templates;   /* from_template claims */
	size_t ntemplates;
	struct dra_bad_object *bad;
	size_t nbad;
};

void dra_objects_cleanup(struct dra_objects *o);

/* A JSON text or a YAML stream whose documents are any of the four kinds,
 * or lists of them (kind List or <Kind>List, the objects in "items"; items
 * of a typed list may leave kind out). Empty documents are skipped.
 * Appends to out. In a text of several objects each stands or falls alone:
 * one that does not decode (or is of another kind) goes to out->bad with
 * its message, naming the document or items[i] and the object; only a text
 * of a single object fails as a whole (out unchanged), as does a text that
 * does not parse. */
enum err dra_objects_decode(const char *buf, size_t len, const char *origin,
			    struct dra_objects *out, struct errmsg *msg);

/* A regular file (decoded as above, the path as origin) or a directory: its
 * regular files ending in .yaml, .yml or .json, in strcmp order, not
 * recursing. Appends to out; on error out keeps what earlier files gave.
 * Adds ERR_IO and ERR_TOO_LARGE (files over FILE_READ_DOC_MAX_BYTES). */
enum err dra_objects_load(const char *path, struct dra_objects *out, struct errmsg *msg);

#endif
