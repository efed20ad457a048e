/* SPDX-License-Identifier: Apache-2.0 */
/* Inventory from the Kubernetes API: list NodeResourceTopology objects with
 * pagination, then watch from the list's resourceVersion (with bookmarks);
 * relist on 410 Gone (HTTP or an ERROR event), on a corrupt stream and on an
 * oversized event; reconnect with capped exponential backoff and jitter; drop
 * a watch that stays silent longer than the idle timeout. v1alpha2 first,
 * v1alpha1 when v1alpha2 is not served. Every change goes to the same store
 * as the file source. One thread owns all of it; requests never wait on the
 * network. */
#ifndef EXTENDER_SOURCE_KUBE_H
#define EXTENDER_SOURCE_KUBE_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/config.h"
#include "extender/inventory/store.h"
#include "base/err.h"

struct source_kube;

/* Resolves credentials (cfg->kubeconfig, else in-cluster) and starts the
 * thread. Credential problems are ERR_* with msg; API errors later are
 * logged and retried. */
enum err source_kube_start(struct store *store, const struct config *cfg,
			   struct source_kube **out, struct errmsg *msg);
void source_kube_stop(struct source_kube *k);

/* A source with no API server, fed by hand through source_kube_feed: the
 * bytes of a watch stream, handled exactly as a live one's (fuzzing and
 * tests). Stopped with source_kube_stop. */
struct source_kube *source_kube_detached(struct store *store);
bool source_kube_feed(struct source_kube *k, const char *data, size_t len, size_t chunk);

/* The API version in use ("v1alpha2"/"v1alpha1"), or NULL before the first
 * list. */
const char *source_kube_version(struct source_kube *k);

#define NRT_RESOURCE "noderesourcetopologies.topology.node.k8s.io"

#endif
