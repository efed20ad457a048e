/* SPDX-License-Identifier: Apache-2.0 */
/* DRA objects (dra/types.h) back to resource.k8s.io/v1 JSON, for the
 * decision log: what dra_decode.h and dra_pod_decode.h read back into the
 * same structs. Only what the decoders keep is written: a field they fold
 * into a flag (a device's consumesCounters, a request's tolerations) comes
 * back as one placeholder element, enough to set the flag again; a
 * claim's allocated node as the nodeSelector the scheduler writes
 * (matchFields metadata.name In [node]). Attribute and capacity names of
 * the slice's driver's domain are written unqualified ("index"), others
 * whole ("resource.kubernetes.io/numaNode"); quantities in
 * quantity_format's exact text.
 * New strings, compact, no trailing newline; thread-safe. */
#ifndef EXTENDER_DRA_ENCODE_H
#define EXTENDER_DRA_ENCODE_H

#include "dra/types.h"
#include "extender/codec/dra_pod_decode.h"

char *dra_slice_to_json(const struct dra_slice *s);
char *dra_class_to_json(const struct dra_class *c);
/* A ResourceClaim, or a ResourceClaimTemplate when c->from_template. */
char *dra_claim_to_json(const struct dra_claim *c);
/* A Pod holding only what dra_pod_claims_decode reads: spec.resourceClaims,
 * every container (all under spec.containers, in order) with its
 * resources.claims, and status.resourceClaimStatuses for the templates'
 * claims that have a name. */
char *dra_pod_claims_to_json(const struct dra_pod_claims *pc);

#endif
