/* SPDX-License-Identifier: Apache-2.0 */
/* The API calls of the bind verb: read the pod (its UID and resources) and,
 * with DRA, its ResourceClaims; then create its Binding through the
 * pods/binding subresource with the UID as precondition. Thread-safe: binds
 * arrive concurrently, one per pod. */
#ifndef EXTENDER_KUBE_BIND_H
#define EXTENDER_KUBE_BIND_H

#include "extender/config.h"
#include "base/err.h"

struct kube_binder;

enum err kube_binder_new(const struct config *cfg, struct kube_binder **out, struct errmsg *msg);
void kube_binder_free(struct kube_binder *b);

/* An API answer: the HTTP status (-1: no answer, msg says why) and the body
 * (malloc'd, NUL-terminated, "" when empty). */
struct kube_answer {
	long status;
	char *body;
};

/* GET /api/v1/namespaces/NS/pods/NAME. */
void kube_get_pod(struct kube_binder *b, const char *ns, const char *name, struct kube_answer *out,
		  struct errmsg *msg);
/* GET /apis/resource.k8s.io/v1/namespaces/NS/resourceclaims/NAME: a pod's
 * claim as PreBind left it (status.allocation written), for the bind's
 * DRA re-check. */
void kube_get_resource_claim(struct kube_binder *b, const char *ns, const char *name,
			     struct kube_answer *out, struct errmsg *msg);
/* POST the Binding of NS/NAME (UID precondition) to node. 201 on success. */
void kube_create_binding(struct kube_binder *b, const char *ns, const char *name, const char *uid,
			 const char *node, struct kube_answer *out, struct errmsg *msg);

#endif
