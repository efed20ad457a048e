/* SPDX-License-Identifier: Apache-2.0 */
/* Inside the wire codec: what its pieces share, and the one door tests use
 * to compare the two ways a filter request is decoded. The pieces:
 *   wire_scan.c     the strict pass over a body, and key matching;
 *   wire_args.c     ExtenderArgs and ExtenderBindingArgs in;
 *   wire_preempt.c  ExtenderPreemptionArgs in;
 *   wire_reply.c    every reply out.
 * Nothing but those files and the tests includes this header. */
#ifndef EXTENDER_WIRE_INTERNAL_H
#define EXTENDER_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "extender/codec/wire.h"
#include "topology/pod.h"

/* ExtenderArgs' fields, and their Go names. */
enum wire_field { WIRE_FIELD_POD, WIRE_FIELD_NODES, WIRE_FIELD_NODE_NAMES, WIRE_NFIELDS };

extern const char *const wire_field_names[WIRE_NFIELDS];

/* Room for a decoded key that can still name a field: "NodeNames" with every
 * 's' spelled as the two-byte U+017F is 11 bytes. Longer keys name nothing
 * here and are not decoded. */
#define WIRE_KEY_MAX 31

/* A key (the text between its quotes, as the scan accepted it) that can
 * still name a field, decoded as json-c decodes keys (a lone surrogate
 * becomes U+FFFD); SIZE_MAX when longer than WIRE_KEY_MAX. */
size_t wire_decode_key(const char *s, size_t n, char out[WIRE_KEY_MAX + 1]);

/* Whether key[0..n) equals name as Go's encoding/json matches a field that
 * has no exact match: Unicode simple folding. */
bool wire_fold_equal(const char *key, size_t n, const char *name);

/* What the scan found: the first problem, and for ExtenderArgs its fields
 * and the spans of Nodes.items. */
struct wire_scan {
	const char *b;
	size_t len;
	size_t pos;
	const char *problem; /* the first one found; NULL while none */
	size_t bad;          /* its byte offset */
	bool nul_key;        /* some key spells \u0000 */
	/* How each field was spelled the first time it appeared; a second,
	 * different spelling is a conflict (Go would merge or overwrite). */
	char spelling[WIRE_NFIELDS][WIRE_KEY_MAX + 1];
	bool seen[WIRE_NFIELDS];
	/* Where the last value of each field lies: [vstart, vend). */
	size_t vstart[WIRE_NFIELDS], vend[WIRE_NFIELDS];
	int conflict; /* the field spelled two ways, or -1 */
	char conflict_key[WIRE_KEY_MAX + 1];
	/* Item spans [start, end) of the last items array of the last Nodes
	 * object, the one json-c keeps (it keeps the last of duplicate keys). */
	size_t *items;
	size_t nitems;
	size_t cap;
	bool has_items;
};

/* One strict pass over body[0..len): true when it is one RFC 8259 value of
 * valid UTF-8, nested at most DOC_MAX_DEPTH deep, with only white space
 * after it; false with problem and bad set. args: the body is ExtenderArgs,
 * note its fields and items. Free with wire_scan_free either way. */
bool wire_scan(struct wire_scan *sc, const char *body, size_t len, bool args);
void wire_scan_free(struct wire_scan *sc);

/* The Pod [ps, pe) of a scanned body, its tree built from the text
 * (doc_from_text) or, where that gives up, by json-c: the same tree either
 * way; *rc is the pod decoder's verdict, with msg; with dra, the pod's DRA
 * claims from the same tree too. 0: the Pod did not parse on its own (the
 * caller's scan and json-c disagree). */
int wire_decode_pod_text(const char *body, size_t ps, size_t pe, struct pod_spec *pod,
			 struct dra_pod_claims *dra, enum err *rc, struct errmsg *msg);

/* wire_decode_args, which is this with common true. common false sends the
 * common request the general way too (json-c's tree of the whole body), so
 * that tests can compare the two; product code never asks for that. */
enum err wire_decode_args_via(const char *body, size_t len, struct wire_args *out,
			      struct errmsg *msg, bool common);

#endif
