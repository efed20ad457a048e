/* SPDX-License-Identifier: Apache-2.0 */
/* replay's DRA side: the draObject and draNode records of a decision log
 * (extender/decisionlog_dra.h) kept as read, and for a decision with a
 * "dra" member a DRA store holding exactly what that decision read, the
 * pod's claims resolved in it, so that decide judges the pod's devices as
 * serve did. A record or member that does not read is an error message
 * for the caller to report; the rest of the log replays on. */
#ifndef EXTENDER_REPLAY_DRA_H
#define EXTENDER_REPLAY_DRA_H

#include <json-c/json.h>

#include "base/err.h"
#include "dra/alloc_set.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/config.h"
#include "extender/decide/dra.h"
#include "extender/inventory/dra_store.h"

struct replay_dra;

struct replay_dra *replay_dra_new(void);
void replay_dra_free(struct replay_dra *rd);

/* Keeps a "draObject" or "draNode" record (type says which), checked: an
 * object must decode, a node's entries be whole. ERR_INVALID with msg
 * otherwise (nothing kept). */
enum err replay_dra_record(struct replay_dra *rd, const char *type, struct json_object *o,
			   struct errmsg *msg);

/* One decision's DRA state. */
struct replay_dra_decision {
	enum config_dra_alignment alignment;     /* as logged */
	enum config_dra_unknown_numa unknown_numa;
	enum config_dra_order order;
	const struct dra_snapshot *snap;      /* of the replay's one store */
	struct dra_pod_claims claims;
	struct dra_device_set allocated;        /* the nodes' allocated devices */
	struct dra_pod *pod;                    /* judged with order */
};

/* Rebuilds the state of member (the decision's "dra") for the pod ns/name
 * and a decision on nnodes nodes. order_override: the allocator order to
 * judge with (the replay's configuration), or NULL: the logged one.
 * ERR_INVALID with msg when the member does not read or names a record
 * the log does not hold (out is clean then). */
enum err replay_dra_begin(struct replay_dra *rd, struct json_object *member, size_t nnodes,
			  const char *ns, const char *name, const enum config_dra_order *order_override,
			  struct replay_dra_decision *out, struct errmsg *msg);
void replay_dra_end(struct replay_dra_decision *d);

#endif
