/* SPDX-License-Identifier: Apache-2.0 */
/* List + watch of one Kubernetes collection on one thread, the way client-go's
 * reflector does it: list with pagination, then watch from the list's
 * resourceVersion (with bookmarks); relist on 410 Gone (HTTP or an ERROR
 * event), on a corrupt stream and on an oversized event; reconnect with capped
 * exponential backoff and jitter; drop a watch that stays silent longer than
 * the idle timeout. What the objects mean is the owner's business: it gets
 * callbacks on the reflector's thread. Requests never wait on the network. */
#ifndef EXTENDER_KUBE_REFLECTOR_H
#define EXTENDER_KUBE_REFLECTOR_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extender/kube/client.h"
#include "base/err.h"

struct kube_reflector_ops {
	const char *kind;      /* "NodeResourceTopology", "Pod": for logs */
	const char *resource;  /* "pods", "noderesourcetopologies.topology.node.k8s.io": RBAC hints */
	/* URL-encoded fieldSelector for list and watch, or NULL. */
	const char *field_selector;
	/* The collection path ("/api/v1/pods"). `fallback` counts the 404s the
	 * first page of the first list got (served API versions); NULL: none
	 * left. */
	const char *(*path)(void *arg, int fallback);
	/* A list: begin, every item of every page, then end (complete: apply it,
	 * dropping what it did not list; !complete: it failed, discard). */
	void (*list_begin)(void *arg);
	void (*list_item)(void *arg, struct json_object *item);
	void (*list_end)(void *arg, bool complete);
	/* A watch event: type "ADDED", "MODIFIED" or "DELETED". */
	void (*event)(void *arg, const char *type, struct json_object *object);
	/* The end of one received chunk of events: publish what they changed. */
	void (*batch_end)(void *arg);
	/* Any sign of life from the API server (list page, watch bytes). */
	void (*contact)(void *arg);
};

struct kube_reflector_limits {
	int64_t idle_ms;       /* a silent watch is reopened */
	int64_t request_ms;    /* one list page */
	size_t max_event;      /* one watch event line */
};

struct kube_reflector;

/* Takes ownership of creds (cleaned up by stop, also on failure) and starts
 * the thread. */
enum err kube_reflector_start(const struct kube_reflector_ops *ops, void *arg,
			      struct kube_credentials *creds,
			      const struct kube_reflector_limits *limits,
			      struct kube_reflector **out, struct errmsg *msg);
/* Asks the thread to stop without waiting for it: several reflectors
 * signalled first and stopped after wind down together (each notices the
 * request within about a second, in its transfer's progress callback). */
void kube_reflector_signal_stop(struct kube_reflector *r);
void kube_reflector_stop(struct kube_reflector *r);
/* The fallback index the last successful list used (0 before it). */
int kube_reflector_fallback(struct kube_reflector *r);
/* The API server's address ("https://10.0.0.1:443"), for logs. */
const char *kube_reflector_server(struct kube_reflector *r);
/* Whether a complete list has been applied. */
bool kube_reflector_listed(struct kube_reflector *r);

/* Feeds data, in chunks of `chunk` bytes as curl would deliver them, through
 * the same line splitting and event handling as a live watch stream, on the
 * calling thread (for fuzzing and tests: every byte an API server sends on a
 * watch goes this way). False when the stream would have ended early
 * (corrupt or oversized event, ERROR event). */
bool kube_reflector_feed(const struct kube_reflector_ops *ops, void *arg, size_t max_event,
			 const char *data, size_t len, size_t chunk);

#endif
