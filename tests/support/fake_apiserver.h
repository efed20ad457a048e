/* SPDX-License-Identifier: Apache-2.0 */
/* A fake Kubernetes API server for tests, on 127.0.0.1, plain HTTP or TLS,
 * with bearer-token authentication and scripted faults. It serves:
 * - the cluster-scoped NodeResourceTopology resource (topology.node.k8s.io,
 *   v1alpha2 and/or v1alpha1): list, watch and get, plus the group
 *   version's discovery document;
 * - core/v1 Pods: list and watch across all namespaces or in one, get, and
 *   the pods/binding subresource (POST), the one write served over HTTP;
 * - resource.k8s.io/v1 ResourceSlices and DeviceClasses
 *   (cluster-scoped), ResourceClaims and ResourceClaimTemplates (in every
 *   namespace or in one): list, watch and get, plus the group version's
 *   discovery document. Their list items carry no apiVersion or kind, as
 *   in a real typed list.
 * Nothing else: no other resources or verbs (405), no label selectors (the
 * parameter is ignored), no protobuf. A list always shows the newest state
 * (resourceVersion and resourceVersionMatch on a list are ignored); a watch
 * from a resourceVersion newer than the counter is accepted.
 *
 * Ownership and threads: every function may be called from any thread while
 * the server's threads stream; one mutex guards all state. Strings passed in
 * are copied. fake_apiserver_stop() accepts NULL. */
#ifndef TESTS_FAKE_APISERVER_H
#define TESTS_FAKE_APISERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/dra_decode.h"

/* The protocol. Collections: /apis/topology.node.k8s.io/<version>/
 * noderesourcetopologies, /api/v1/pods and /api/v1/namespaces/<ns>/pods,
 * /apis/resource.k8s.io/v1/<plural> and, for claims and templates,
 * /apis/resource.k8s.io/v1/namespaces/<ns>/<plural>.
 * - Every request: authentication (401), then fail_next, then the method:
 *   POST only on .../pods/<name>/binding, GET everywhere else (405), then
 *   routing; an unserved path gets kube's 404 Status "the server could not
 *   find the requested resource". Errors are metav1.Status objects.
 * - List: kind "NodeResourceTopologyList" (apiVersion of the path's
 *   version) or "PodList" ("v1"); items sorted by name, pods by namespace
 *   then name. Pod items carry no apiVersion or kind, as in a real typed
 *   list; NodeResourceTopology items (a custom resource) do. ?limit=N
 *   (capped by page_limit_max) pages with an opaque base64url continue
 *   token. The first page of a paged list takes a snapshot; later pages
 *   come from it at the first page's resourceVersion, as etcd serves them.
 *   Tokens from before expire_history, or older than the 64 newest
 *   snapshots, get 410 Expired; a malformed token (or one from a list of
 *   the other resource) gets 400.
 * - fieldSelector (lists and watches; read from the raw query: %XX is
 *   decoded, '+' is not special): comma-separated `field=value`,
 *   `field==value` or `field!=value`, all of which must hold; "\," "\="
 *   and "\\" escape in values. Fields: metadata.name, metadata.namespace,
 *   and for pods spec.nodeName and status.phase (absent: ""). Any other
 *   field: 400 "field label not supported: <field>". With a selector a
 *   page holds up to N matching objects and may come back short, or empty,
 *   with a continue token (as etcd pages before filtering), and carries no
 *   remainingItemCount.
 * - Watch (?watch=1|true): chunked application/json, one event per line and
 *   per chunk (split only when longer than MHD's buffer). resourceVersion
 *   unset or "0": a synthetic ADDED for every selected object (in list
 *   order), then changes. resourceVersion=N: every recorded change after
 *   N, then live changes; N too old: HTTP 410. timeoutSeconds=T ends the
 *   stream cleanly after T s (0: never). Headers go out before the first
 *   event. A watch gets only its own resource's (and namespace's) changes.
 *   With a selector, each change is judged on the object's old and new
 *   state, as kube-apiserver's watch cache does: new state selected → ADDED
 *   (old not selected) or MODIFIED (old selected); only the old state
 *   selected → DELETED carrying the old content at the change's
 *   resourceVersion; a real delete of a selected object → DELETED.
 * - Get (.../noderesourcetopologies/NAME, .../namespaces/NS/pods/NAME): the
 *   object or a 404 Status (`pods "NAME" not found`, details {name, kind}).
 * - Binding: POST /api/v1/namespaces/NS/pods/NAME/binding with a v1
 *   Binding {"metadata":{"name":NAME[,"namespace":NS][,"uid":U]
 *   [,"resourceVersion":RV][,"annotations":{...}]},"target":{["kind":
 *   "Node",]"name":NODE}}. Checked in kube-apiserver's order:
 *   body over 3 MiB: 413; not a JSON object, apiVersion other than "v1",
 *   kind other than "Binding", metadata.namespace other than NS, or
 *   metadata.name other than NAME: 400 BadRequest; target.name empty or
 *   target.kind other than "Node": 500 with no reason (validation errors
 *   reach the real server's error writer unclassified; message
 *   "target.name: Required value"); no such pod: 404; uid or
 *   resourceVersion given and different from the pod's: 409 Conflict
 *   `Operation cannot be fulfilled on pods "NAME": StorageError: invalid
 *   object, ... Precondition failed: UID in precondition: U, UID in object
 *   meta: <uid>`; the pod has metadata.deletionTimestamp, spec.nodeName or
 *   a non-empty spec.schedulingGates: 409 `Operation cannot be fulfilled
 *   on pods/binding "NAME": pod NAME is already assigned to node "OLD"`
 *   (and the like). Otherwise spec.nodeName=NODE, the annotations are
 *   merged into the pod's, status.conditions gets {"type":"PodScheduled",
 *   "status":"True","lastProbeTime":null,"lastTransitionTime":<now>} in
 *   place of any PodScheduled entry (the time is kept if it was True
 *   already), the pod is stored as a MODIFIED change, and the reply is
 *   201 {"kind":"Status","apiVersion":"v1","metadata":{},"status":
 *   "Success","code":201}. */

struct fake_apiserver;

struct fake_apiserver_options {
	const char *cert_file, *key_file;    /* PEM files; NULL: plain HTTP */
	const char *token;                   /* required "Authorization: Bearer <token>"; NULL: none */
	bool serve_v1alpha2, serve_v1alpha1; /* which versions are served (404 for the others) */
	size_t page_limit_max;               /* cap on ?limit= (0: no cap); no ?limit: one page */
};

/* Listens on 127.0.0.1 on an ephemeral port. NULL when the certificate or
 * key cannot be read or the daemon does not start (a message goes to
 * stderr). */
struct fake_apiserver *fake_apiserver_start(const struct fake_apiserver_options *o);
/* Ends every open stream at once (the client sees a truncated stream),
 * stops the daemon, frees everything. Does not wait for clients. */
void fake_apiserver_stop(struct fake_apiserver *s);
int fake_apiserver_port(const struct fake_apiserver *s);

/* Objects. The server keeps one NodeResourceTopology per name, stored as
 * v1alpha2 (apiVersion and kind are set; served as v1alpha1 only apiVersion
 * changes), and one Pod per (namespace, name). Every put, every delete of
 * an existing object and every binding is a change: it takes the next
 * value of one resourceVersion counter shared by both resources (as etcd's
 * revision), is recorded in the history and is sent to the open watches of
 * its resource as ADDED / MODIFIED / DELETED (see the selector rules). A
 * DELETED event carries the last state of the object with the deletion's
 * resourceVersion, as the real server does. */

/* Adds or replaces a NodeResourceTopology; sets metadata.name and
 * metadata.resourceVersion in the stored object. object_json must be a
 * JSON object (aborts otherwise: a test bug). Returns the new
 * resourceVersion. */
unsigned long long fake_apiserver_put(struct fake_apiserver *s, const char *name,
				      const char *object_json);
/* Deleting a name that is absent changes nothing and returns 0; otherwise
 * returns the deletion's resourceVersion. */
unsigned long long fake_apiserver_delete(struct fake_apiserver *s, const char *name);
/* A snapshot of the current NodeResourceTopologies sorted by name: names
 * and the stored (v1alpha2) JSON text, with metadata.resourceVersion
 * inside. Both arrays and every string are malloc'd and the caller's
 * (fake_apiserver_list_free frees them). */
size_t fake_apiserver_list(struct fake_apiserver *s, char ***names, char ***json);
void fake_apiserver_list_free(char **names, char **json, size_t n);
/* The current value of the resourceVersion counter (what a list now returns). */
unsigned long long fake_apiserver_resource_version(struct fake_apiserver *s);

/* Adds or replaces a Pod (what a create, update or status update would
 * leave behind; the caller writes spec.nodeName and status as it likes).
 * Sets apiVersion "v1", kind "Pod", metadata.name, .namespace and
 * .resourceVersion. metadata.uid and .creationTimestamp, when absent (or
 * empty), are kept from the pod being replaced, else made: a fresh uid
 * unique to the server, the current time (RFC 3339, UTC). pod_json must be
 * a JSON object (aborts otherwise: a test bug). Returns the new
 * resourceVersion. Pods are deleted at once (no graceful deletion:
 * set metadata.deletionTimestamp with a put to act it out). */
unsigned long long fake_apiserver_pod_put(struct fake_apiserver *s, const char *namespace_,
					  const char *name, const char *pod_json);
/* 0 when absent; otherwise the deletion's resourceVersion. */
unsigned long long fake_apiserver_pod_delete(struct fake_apiserver *s, const char *namespace_,
					     const char *name);
/* The stored pod's JSON (as a get returns it), malloc'd; NULL when absent. */
char *fake_apiserver_pod_get(struct fake_apiserver *s, const char *namespace_, const char *name);

/* resource.k8s.io/v1 objects, one per (kind, namespace, name); namespace_
 * is ignored for the cluster-scoped kinds. The put sets apiVersion, kind,
 * metadata.name, .namespace (namespaced kinds), .resourceVersion, and
 * .uid and .creationTimestamp as pods get them; the objects share the one
 * resourceVersion counter and history (watches get ADDED / MODIFIED /
 * DELETED as for pods). object_json must be a JSON object (aborts
 * otherwise). Returns the new resourceVersion; a delete of an absent
 * object returns 0. get: the stored JSON, malloc'd; NULL when absent. */
unsigned long long fake_apiserver_dra_put(struct fake_apiserver *s, enum dra_kind kind,
					  const char *namespace_, const char *name,
					  const char *object_json);
unsigned long long fake_apiserver_dra_delete(struct fake_apiserver *s, enum dra_kind kind,
					     const char *namespace_, const char *name);
char *fake_apiserver_dra_get(struct fake_apiserver *s, enum dra_kind kind, const char *namespace_,
			     const char *name);

/* Faults. "Open watches" are the watch streams open at the time of the
 * call, of either resource; each queued item is delivered in the order of
 * the calls. */

/* Every open watch is cut mid-stream: the connection closes without the
 * terminating chunk (the client sees a transfer error), events still queued
 * for it are dropped. Watches opened later are unaffected. */
void fake_apiserver_disconnect_watches(struct fake_apiserver *s);
/* The next `count` requests that pass authentication (list, watch, get,
 * binding or any other path) are answered `status` with a Status object
 * body (reason from the code: 400 BadRequest, 401 Unauthorized,
 * 403 Forbidden, 404 NotFound, 409 Conflict, 410 Expired, 429
 * TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout;
 * 429 and 503 also carry "Retry-After: 1"). A later call replaces an
 * unused remainder. They are not counted in lists, list_pages, watches,
 * bindings or binding_conflicts, and an injected failure of a binding
 * changes nothing. */
void fake_apiserver_fail_next(struct fake_apiserver *s, int status, int count);
/* Compaction: every resourceVersion issued so far becomes too old, for
 * both resources. A watch from one of them gets HTTP 410 with reason
 * "Expired", and so does a list continue token issued so far. The counter
 * advances by one (as etcd's revision does for changes to other
 * resources), so a list made afterwards returns a resourceVersion that can
 * be watched. Open watches are not touched (see
 * fake_apiserver_send_error_event_410). */
void fake_apiserver_expire_history(struct fake_apiserver *s);
/* Every open watch receives {"type":"ERROR","object":{"kind":"Status",
 * "apiVersion":"v1","metadata":{},"status":"Failure","message":"too old
 * resource version: ...","reason":"Expired","code":410}} after what is
 * already queued for it, then the stream ends cleanly (terminating chunk).
 * It does not expire the history by itself: call expire_history too if a
 * re-watch from the same resourceVersion should also get 410. */
void fake_apiserver_send_error_event_410(struct fake_apiserver *s);
/* While stalled, no watch stream sends anything (not even bookmarks, the
 * ending of timeoutSeconds or of an ERROR event); this also holds for
 * watches opened during the stall, once their headers are out. Events
 * queue up and flow when the stall is lifted. Disconnects and stop still
 * act at once. */
void fake_apiserver_stall_watches(struct fake_apiserver *s, bool stall);
/* Every open watch receives this raw line plus "\n" (not validated). */
void fake_apiserver_send_garbage(struct fake_apiserver *s, const char *line);
/* Every open watch that asked allowWatchBookmarks=true receives
 * {"type":"BOOKMARK","object":{"kind":K,"apiVersion":A,"metadata":
 * {"resourceVersion":"<the counter now>"}}} with K and A those of its
 * resource: "NodeResourceTopology" and "topology.node.k8s.io/<its
 * version>", or "Pod" and "v1". The server never sends bookmarks on its
 * own. */
void fake_apiserver_send_bookmark(struct fake_apiserver *s);

/* Counters for assertions (both resources together):
 * lists: list requests served 200 without a continue token (new lists);
 * list_pages: list pages served 200 (the first page included);
 * watches: watch streams opened (200);
 * auth_failures: 401 replies for a missing or wrong bearer token;
 * gone: 410s sent, as HTTP replies or as ERROR events (one per stream);
 * bindings: pods/binding requests answered 201;
 * binding_conflicts: pods/binding requests answered 409. */
struct fake_apiserver_stats {
	unsigned lists, list_pages, watches, auth_failures, gone;
	unsigned bindings, binding_conflicts;
};
void fake_apiserver_stats(struct fake_apiserver *s, struct fake_apiserver_stats *out);
/* Waits until exactly n watch streams are open; false after timeout_ms. */
bool fake_apiserver_wait_watches(struct fake_apiserver *s, unsigned n, int timeout_ms);

#endif
