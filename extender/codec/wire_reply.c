/* SPDX-License-Identifier: Apache-2.0 */
/* ExtenderFilterResult, HostPriorityList, ExtenderBindingResult and
 * ExtenderPreemptionResult out (wire.h). They are written with the bounded
 * text builder, not json-c objects: a fixed shape around the caller's
 * strings and the request's bytes. */
#include "extender/codec/wire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/codec/json_write.h"

/* Replies are built in the bounded text builder. Their size follows the
 * request's (names are echoed, at most 6 bytes per byte escaped; reasons are
 * a few hundred bytes per node), so the ceiling only stops the absurd; a
 * reply that would pass it is replaced by an error reply. */
#define REPLY_MAX ((size_t)512 << 20)
#define TB_LIT(b, s) textbuf_add((b), (s), sizeof(s) - 1)
#define REPLY_TOO_LARGE_FILTER                                                         \
	"{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"                       \
	"\"FailedAndUnresolvableNodes\":{},\"Error\":\"the reply would exceed 512 MiB\"}"

/* Names sit back to back in one buffer, so their lengths come free. */
static void tb_name(struct textbuf *b, const struct wire_args *a, size_t i)
{
	const char *end = i + 1 < a->nnames ? a->names[i + 1]
					    : a->_name_text + a->_name_size;

	textbuf_json_str(b, a->names[i], (size_t)(end - a->names[i]) - 1);
}

/* The builder's text handed over, or, past the ceiling, the fallback. */
static char *tb_finish(struct textbuf *b, const char *fallback, size_t *len)
{
	if (textbuf_failed(b)) {
		textbuf_free(b);
		textbuf_init(b, REPLY_MAX);
		textbuf_adds(b, fallback);
	}
	return textbuf_take(b, len);
}

static bool repeated(const struct wire_args *a, size_t i)
{
	return a->_repeat != NULL && a->_repeat[i] != 0;
}

/* The reply's three places: pass, FailedNodes, and the rest. */
static enum decision_outcome bucket(enum decision_outcome o)
{
	return o == DECISION_PASS || o == DECISION_FAILED ? o : DECISION_UNRESOLVABLE;
}

/* The members of FailedNodes or FailedAndUnresolvableNodes. */
static void put_map(struct textbuf *b, const struct wire_args *a,
		    const enum decision_outcome *outcome, const char *const *reasons,
		    enum decision_outcome which)
{
	/* Callers pass one pointer per distinct reason (handlers intern them):
	 * the escaped text of the last few is copied, not escaped again. */
	struct {
		const char *reason;
		size_t at, len;
	} seen[8];
	size_t nseen = 0, i, k;
	bool first = true;

	for (i = 0; i < a->nnames; i++) {
		const char *reason = reasons != NULL ? reasons[i] : NULL;

		if (repeated(a, i) || bucket(outcome[i]) != which)
			continue;
		if (!first)
			textbuf_addc(b, ',');
		first = false;
		tb_name(b, a, i);
		textbuf_addc(b, ':');
		for (k = 0; k < nseen && seen[k].reason != reason; k++)
			;
		if (reason != NULL && k < nseen) {
			textbuf_repeat(b, seen[k].at, seen[k].len);
			continue;
		}
		k = b->len;
		textbuf_json_cstr(b, reason);
		if (reason != NULL && nseen < sizeof seen / sizeof seen[0]) {
			seen[nseen].reason = reason;
			seen[nseen].at = k;
			seen[nseen].len = b->len - k;
			nseen++;
		}
	}
}

char *wire_encode_filter(const struct wire_args *a,
			 const enum decision_outcome *outcome,
			 const char *const *reasons, size_t *len)
{
	struct textbuf b;
	bool first = true;
	size_t i;

	textbuf_init(&b, REPLY_MAX);
	/* A guess that avoids most regrowth: names plus quotes and commas,
	 * and room for the reasons of some failed nodes. */
	textbuf_reserve(&b, 128 + a->nnames * 40 +
				    (a->mode == WIRE_NODE_LIST && a->nnames > 0
					     ? a->_item_end[a->nnames - 1]
					     : 0));
	if (a->mode == WIRE_NODE_LIST) {
		TB_LIT(&b, "{\"Nodes\":{\"metadata\":{},\"items\":[");
		for (i = 0; i < a->nnames; i++) {
			size_t start = i > 0 ? a->_item_end[i - 1] : 0;

			if (repeated(a, i) || bucket(outcome[i]) != DECISION_PASS)
				continue;
			if (!first)
				textbuf_addc(&b, ',');
			first = false;
			textbuf_add(&b, a->_items + start, a->_item_end[i] - start);
		}
		TB_LIT(&b, "]},\"NodeNames\":null,\"FailedNodes\":{");
	} else {
		TB_LIT(&b, "{\"Nodes\":null,\"NodeNames\":[");
		for (i = 0; i < a->nnames; i++) {
			if (repeated(a, i) || bucket(outcome[i]) != DECISION_PASS)
				continue;
			if (!first)
				textbuf_addc(&b, ',');
			first = false;
			tb_name(&b, a, i);
		}
		TB_LIT(&b, "],\"FailedNodes\":{");
	}
	put_map(&b, a, outcome, reasons, DECISION_FAILED);
	TB_LIT(&b, "},\"FailedAndUnresolvableNodes\":{");
	put_map(&b, a, outcome, reasons, DECISION_UNRESOLVABLE);
	TB_LIT(&b, "},\"Error\":\"\"}");
	return tb_finish(&b, REPLY_TOO_LARGE_FILTER, len);
}

char *wire_encode_filter_error(const char *error, size_t *len)
{
	struct textbuf b;

	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"
		   "\"FailedAndUnresolvableNodes\":{},\"Error\":");
	textbuf_json_cstr(&b, error);
	textbuf_addc(&b, '}');
	return tb_finish(&b, REPLY_TOO_LARGE_FILTER, len);
}

char *wire_encode_prioritize(const struct wire_args *a, const int64_t *scores,
			     size_t *len)
{
	struct textbuf b;
	bool first = true;
	size_t i;

	textbuf_init(&b, REPLY_MAX);
	textbuf_reserve(&b, 16 + a->nnames * 48);
	textbuf_addc(&b, '[');
	for (i = 0; i < a->nnames; i++) {
		if (repeated(a, i))
			continue;
		if (!first)
			textbuf_addc(&b, ',');
		first = false;
		TB_LIT(&b, "{\"Host\":");
		tb_name(&b, a, i);
		TB_LIT(&b, ",\"Score\":");
		textbuf_int(&b, scores[i]);
		textbuf_addc(&b, '}');
	}
	textbuf_addc(&b, ']');
	/* No list: kube-scheduler counts every node's score as 0. */
	return tb_finish(&b, "[]", len);
}

char *wire_encode_binding_result(const char *error, size_t *len)
{
	struct textbuf b;

	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"Error\":");
	textbuf_json_cstr(&b, error);
	textbuf_addc(&b, '}');
	return tb_finish(&b, "{\"Error\":\"reply too large\"}", len);
}

char *wire_encode_preemption(const struct wire_victims *nodes, size_t n, size_t *len)
{
	const struct wire_victims **sorted = xcalloc(n + 1, sizeof *sorted);
	struct textbuf b;
	size_t i, k, j;

	/* Go writes map keys sorted; the caller's order may be any. */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && strcmp(sorted[j - 1]->node, nodes[i].node) > 0; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = &nodes[i];
	}
	textbuf_init(&b, REPLY_MAX);
	TB_LIT(&b, "{\"NodeNameToMetaVictims\":{");
	for (i = 0; i < n; i++) {
		if (i)
			textbuf_addc(&b, ',');
		textbuf_json_cstr(&b, sorted[i]->node);
		TB_LIT(&b, ":{\"Pods\":[");
		for (k = 0; k < sorted[i]->nuids; k++) {
			textbuf_adds(&b, k ? ",{\"UID\":" : "{\"UID\":");
			textbuf_json_cstr(&b, sorted[i]->uids[k]);
			textbuf_addc(&b, '}');
		}
		textbuf_printf(&b, "],\"NumPDBViolations\":%lld}", (long long)sorted[i]->num_pdb_violations);
	}
	TB_LIT(&b, "}}");
	free(sorted);
	return tb_finish(&b, "{\"NodeNameToMetaVictims\":{}}", len);
}
