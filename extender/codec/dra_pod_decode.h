/* SPDX-License-Identifier: Apache-2.0 */
/* A pod's Dynamic Resource Allocation claims, read from the same document
 * tree as pod_decode (which it leaves alone): spec.resourceClaims in pod
 * order, each a claim by name or a template whose generated claim's name
 * status.resourceClaimStatuses gives, and each container's
 * resources.claims. Messages as pod_decode's: "<origin>: <field path>:
 * <problem>". */
#ifndef EXTENDER_DRA_POD_DECODE_H
#define EXTENDER_DRA_POD_DECODE_H

#include <stddef.h>

#include "base/err.h"
#include "dra/types.h"
#include "extender/codec/doc.h"

/* One container's claims. */
struct dra_container_claims {
	char *container;
	struct dra_container_claim *claims;
	size_t nclaims;
};

struct dra_pod_claims {
	struct dra_pod_claim *claims;   /* spec.resourceClaims, in order */
	size_t nclaims;
	/* Every container in pod_decode's order (init containers, then app
	 * containers), with or without claims. */
	struct dra_container_claims *containers;
	size_t ncontainers;
};

/* Reads pod (a v1 Pod) into out, overwritten; on error it is left zeroed.
 * Checked as the API server checks them: claim names are DNS labels,
 * unique, each with exactly one of resourceClaimName and
 * resourceClaimTemplateName; a status entry and a container's claim name
 * an entry of spec.resourceClaims (a status entry one with a template).
 * A template's claim name stays NULL until the status names it (or when
 * the status says none was made). ERR_INVALID. */
enum err dra_pod_claims_decode(const struct doc *pod, const char *origin,
			       struct dra_pod_claims *out, struct errmsg *msg);
void dra_pod_claims_cleanup(struct dra_pod_claims *c);

/* The members of a pod that dra_pod_claims_decode reads, for trees built of
 * those alone (doc_from_json_kept); join it with pod_fields to read both. */
extern const struct doc_keep dra_pod_claim_fields[];

#endif
