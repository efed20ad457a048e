/* SPDX-License-Identifier: Apache-2.0 */
/* The extender wire codec: the only code that knows the JSON shapes of
 * kube-scheduler's ExtenderArgs (filter and prioritize requests),
 * ExtenderFilterResult and HostPriorityList. Those structs carry no json tags,
 * so their keys are Go field names ("Pod", "NodeNames", "FailedNodes"); the
 * Pod and Node objects inside them use their normal lower-case tags.
 *
 * Ownership: wire_decode_args fills a caller-owned struct wire_args that
 * wire_args_cleanup releases; it keeps copies of everything it needs, so the
 * body may be freed right after decoding, and no json-c object outlives the
 * call. The encoders return malloc'd text for the caller to free(). No global
 * state: thread-safe. Out of memory aborts. */
#ifndef EXTENDER_WIRE_H
#define EXTENDER_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/decide/outcome.h"
#include "topology/pod.h"

enum wire_mode {
	WIRE_NODE_NAMES, /* nodeCacheCapable: true, the request holds NodeNames */
	WIRE_NODE_LIST,  /* nodeCacheCapable: false, Nodes holds a full NodeList */
};

struct wire_args {
	struct pod_spec pod; /* the decoded Pod */
	/* Its DRA claims (spec.resourceClaims, the containers'
	 * resources.claims; nclaims 0: none). */
	struct dra_pod_claims dra;
	enum wire_mode mode;
	/* Candidate node names in request order (NodeList mode:
	 * items[].metadata.name); names[nnames] is NULL. Names are non-empty,
	 * valid UTF-8 and hold no NUL byte. Read-only to the caller: the
	 * encoders rely on the layout. */
	char **names;
	size_t nnames;

	/* Private to the wire codec. */
	char *_name_text;        /* every name, NUL-terminated, back to back */
	size_t _name_size;       /* bytes in _name_text */
	unsigned char *_repeat;  /* NULL, or _repeat[i] != 0 when names[i]
				    repeats an earlier name */
	char *_items;            /* NodeList mode: each item's exact source
				    text, back to back */
	size_t *_item_end;       /* item i is _items[_item_end[i-1] ..
				    _item_end[i]) (item 0 starts at 0) */
};

/* Decodes an ExtenderArgs body, which filter and prioritize share. body need
 * not be NUL-terminated; its size is bounded by the caller (the server caps
 * the body before calling).
 *
 * ERR_PARSE, for a 400: not JSON (json-c's verdict, held to RFC 8259 where
 * json-c 0.16 is lax: single-quoted keys, NaN, Infinity, "1.", raw control
 * characters in strings), trailing data, nesting deeper than 64, invalid
 * UTF-8 (overlong forms, surrogates and code points above U+10FFFF too). msg
 * reads "invalid JSON at byte N: problem".
 *
 * ERR_INVALID, for a 200 with Error: JSON that is not usable ExtenderArgs:
 * the top level not an object; Pod missing, null or not an object; Nodes and
 * NodeNames both null (or absent) or both non-null; NodeNames not an array
 * of strings; a NodeList without items or an item without metadata.name; an
 * empty name or one holding a NUL byte; an object key holding \u0000
 * (json-c cannot represent it); two spellings of one field ("Pod" and
 * "pod"); a pod the pod decoder rejects. msg says what, with the field path:
 * `Pod.spec.containers[0].resources.limits.cpu: "abc": not a quantity`,
 * `NodeNames[3]: expected a string`, `Nodes.items[1].metadata.name: missing`.
 *
 * ERR_TOO_LARGE for a body over INT_MAX bytes (json-c's limit).
 *
 * Top-level keys match as in Go's encoding/json: exactly, else
 * case-insensitively with Unicode simple folding (so "pod", "NODENAMES" and
 * even "NodeNameſ" work); unknown keys are ignored; an exact key given twice
 * keeps its last value, as in Go (which would merge two Pod objects; no
 * scheduler sends either). Keys inside the Pod and Node objects are
 * matched exactly. Duplicate node names are accepted (see the encoders).
 * The Pod goes through doc_from_json, so integer quantities written as JSON
 * numbers beyond 64 bits read back clamped; Kubernetes sends quantities as
 * strings.
 *
 * out is overwritten; on error it is left zeroed, so wire_args_cleanup is
 * safe either way. */
enum err wire_decode_args(const char *body, size_t len, struct wire_args *out,
			  struct errmsg *msg);

/* Frees everything wire_decode_args allocated and zeroes a; accepts a zeroed
 * struct. */
void wire_args_cleanup(struct wire_args *a);

/* The ExtenderFilterResult for a decoded request, as malloc'd JSON text
 * (NUL-terminated; *len excludes the NUL). outcome[i] and reasons[i] belong
 * to names[i]; reasons may be NULL, and so may any reasons[i] (read as "");
 * a reason is ignored for a pass. outcome[i] places the node: DECISION_PASS
 * in the pass list, DECISION_FAILED in FailedNodes (preemption may help),
 * any other (unresolvable, no inventory, or outside the enum: fail closed)
 * in FailedAndUnresolvableNodes. A node filter lets through without a pass
 * (no inventory under missingInventory: allow) is the caller's to give as
 * DECISION_PASS. Keys come out in this order:
 *   names mode: {"Nodes":null,"NodeNames":[passing names],"FailedNodes":{name:
 *                reason,...},"FailedAndUnresolvableNodes":{...},"Error":""}
 *   list mode:  {"Nodes":{"metadata":{},"items":[passing items]},
 *                "NodeNames":null,"FailedNodes":{...},
 *                "FailedAndUnresolvableNodes":{...},"Error":""}
 * Passing items are echoed byte for byte as the request held them. Every
 * node lands in exactly one of the three, in request order; empty maps are
 * {} and an empty pass list is []. A name that repeats an earlier one is
 * left out (its first occurrence decides), so a map never holds a key twice
 * and no node is passed twice. Strings are JSON-escaped (quotes, backslash,
 * control characters as \u00XX; "/" is not escaped); invalid UTF-8 in a
 * reason becomes U+FFFD, as Go's encoder does. */
char *wire_encode_filter(const struct wire_args *a,
			 const enum decision_outcome *outcome,
			 const char *const *reasons, size_t *len);

/* {"Nodes":null,"NodeNames":null,"FailedNodes":{},
 *  "FailedAndUnresolvableNodes":{},"Error":"<error>"}: the whole call failed.
 * error NULL reads as "". */
char *wire_encode_filter_error(const char *error, size_t *len);

/* The HostPriorityList: [{"Host":"n1","Score":7},...] in request order,
 * scores[i] for names[i] as given (the caller clamps to 0..10). Repeated
 * names are left out as in wire_encode_filter, since the scheduler would add
 * their scores up. */
char *wire_encode_prioritize(const struct wire_args *a, const int64_t *scores,
			     size_t *len);

/* ExtenderBindingArgs: PodName, PodNamespace, PodUID, Node (keys matched as
 * Go's encoding/json does; unknown keys ignored). PodName and Node must be
 * non-empty strings; a missing PodNamespace reads "default"; PodUID may be
 * empty. ERR_PARSE (JSON) or ERR_INVALID with msg. Free with
 * wire_binding_cleanup. */
struct wire_binding {
	char *pod_name, *pod_namespace, *pod_uid, *node;
};
enum err wire_decode_binding(const char *body, size_t len, struct wire_binding *out,
			     struct errmsg *msg);
void wire_binding_cleanup(struct wire_binding *b);
/* ExtenderBindingResult: {"Error":"<error>"}; error NULL reads as "". */
char *wire_encode_binding_result(const char *error, size_t *len);

/* ExtenderPreemptionArgs (preempt verb): the preemptor Pod and, per
 * candidate node, the victims kube-scheduler's dry run chose, either as full
 * pods (NodeNameToVictims: {"Pods":[Pod...],"NumPDBViolations":N}, sent to
 * extenders without nodeCacheCapable) or as UIDs (NodeNameToMetaVictims:
 * {"Pods":[{"UID":U}...],"NumPDBViolations":N}). Every key, at every level
 * of these extender types, matches as Go's encoding/json matches it
 * (exactly, else case-insensitively: "nodeNameToMetaVictims", "pods",
 * "uid"); keys inside the Pods are the API's, matched exactly; a key given
 * twice keeps its last value, a node name given twice its last entry. When
 * both maps are non-null the meta one is read. Nodes come out sorted by
 * name, victims in request order; a victim pod is known by metadata.uid. A
 * UID named twice for one node is one victim: only its first place is kept.
 * Pod.spec.priority is read as priority (0 when absent or null).
 *
 * The body is read from its text, without a json-c tree of the victims;
 * the memory it takes is about the size of the names and UIDs it holds.
 *
 * ERR_PARSE (JSON, as wire_decode_args's scan: RFC 8259, UTF-8, depth 64;
 * "invalid JSON at byte N: problem"); ERR_INVALID with the field path
 * (`NodeNameToMetaVictims["n1"].Pods[0].UID: expected a non-empty string
 * without \u0000`, a Pod the pod decoder rejects, a node name that is empty,
 * NumPDBViolations or Pod.spec.priority not an int64); ERR_TOO_LARGE for more
 * than WIRE_PREEMPT_VICTIMS_MAX victims in the request (all nodes together,
 * repeats included), or a body over INT_MAX bytes. out is left zeroed on
 * error. */
#define WIRE_PREEMPT_VICTIMS_MAX 500000

struct wire_victims {
	char *node;
	char **uids;            /* victims' UIDs, nuids of them */
	size_t nuids;
	int64_t num_pdb_violations;
};

struct wire_preemption {
	struct pod_spec pod;
	int64_t priority;
	bool meta;              /* the request used NodeNameToMetaVictims */
	struct wire_victims *nodes; /* node and uids point into _text */
	size_t nnodes;

	/* Private to the wire codec. */
	char *_text;            /* every name and UID, NUL-terminated */
	char **_uids;           /* every node's uids, one array */
};

enum err wire_decode_preemption(const char *body, size_t len, struct wire_preemption *out,
				struct errmsg *msg);
void wire_preemption_cleanup(struct wire_preemption *p);

/* ExtenderPreemptionResult: {"NodeNameToMetaVictims":{node:{"Pods":[{"UID":
 * U}...],"NumPDBViolations":N},...}} with the nodes in name order (Go sorts
 * map keys); {} when none is kept. */
char *wire_encode_preemption(const struct wire_victims *nodes, size_t n, size_t *len);

#endif
