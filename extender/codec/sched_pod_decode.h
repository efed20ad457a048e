/* SPDX-License-Identifier: Apache-2.0 */
/* v1 Pods into the scheduler model's pod view (scheduler/pod_view.h): what
 * pod_decode.h reads (identity, containers, requests, limits) plus
 * spec.nodeName, spec.schedulerName, status.phase, spec.nodeSelector,
 * spec.affinity.nodeAffinity, spec.tolerations, spec.overhead and
 * spec.resources.requests. One Pod, a PodList or kubectl's List, or a YAML
 * stream (`kubectl get pods -A -o yaml`), read as
 * extender/codec/sched_objects.h says: in a text of several pods a bad one
 * becomes a placeholder whose `invalid` holds the message. Tolerations are
 * checked as the API server does (an empty key needs operator Exists,
 * Exists takes no value). */
#ifndef EXTENDER_SCHED_POD_DECODE_H
#define EXTENDER_SCHED_POD_DECODE_H

#include <stddef.h>

#include "base/err.h"
#include "extender/codec/doc.h"
#include "scheduler/pod_view.h"

/* One pod document (kind Pod when present). */
enum err sched_pod_decode_doc(const struct doc *d, const char *origin,
			      struct sched_pod *out, struct errmsg *msg);

enum err sched_pods_decode(const char *buf, size_t len, const char *origin,
			   struct sched_pod **pods, size_t *n, struct errmsg *msg);
enum err sched_pods_load(const char *path, struct sched_pod **pods, size_t *n,
			 struct errmsg *msg);

#endif
