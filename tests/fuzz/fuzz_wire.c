/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the extender wire codec: any body must decode or give
 * an error message, never crash, leak or hang; a decoded request must encode
 * to filter and prioritize replies that json-c reads back, with every
 * distinct node in exactly one bucket and every passing NodeList item equal
 * to the request's. The same body goes to the bind and preempt decoders. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "extender/codec/object_json.h"
#include "extender/codec/wire.h"
#include "extender/codec/wire_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* text is a reply (NUL-terminated, no NUL inside) or, with !reply, the
 * request (not terminated). */
static struct json_object *parse_or_die(const char *text, size_t len, bool reply)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len ||
	    (reply && strlen(text) != len)) {
		fprintf(stderr, "reply is not JSON: %s\n", text);
		abort();
	}
	json_tokener_free(tok);
	return o;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		fprintf(stderr, "reply lacks %s\n", key);
		abort();
	}
	return v;
}

static bool first_occurrence(const struct wire_args *a, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++) {
		if (strcmp(a->names[j], a->names[i]) == 0)
			return false;
	}
	return true;
}

/* Names in the pass list equal to name (items compared by metadata.name). */
static size_t count_passed(struct json_object *pass, bool list, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < json_object_array_length(pass); i++) {
		struct json_object *e = json_object_array_get_idx(pass, i);

		if (list)
			e = member(member(e, "metadata"), "name");
		if (strcmp(json_object_get_string(e), name) == 0)
			n++;
	}
	return n;
}

static void check_filter(const struct wire_args *a, const char *body, size_t size)
{
	enum decision_outcome *outcome = calloc(a->nnames + 1, sizeof *outcome);
	const char **reasons = calloc(a->nnames + 1, sizeof *reasons);
	struct json_object *res, *pass, *failed, *unres, *req = NULL, *items = NULL;
	bool list = a->mode == WIRE_NODE_LIST;
	size_t i, len = 0, npass = 0, k = 0;
	char *json;

	if (outcome == NULL || reasons == NULL)
		abort();
	for (i = 0; i < a->nnames; i++) {
		/* Every outcome, and one outside the enum (unresolvable). */
		outcome[i] = (enum decision_outcome)(i % (DECISION_NOUTCOMES + 1));
		/* Reasons that need escaping, including the name itself. */
		reasons[i] = i % 2 ? a->names[i] : "why \"not\" \\ \x01";
	}
	json = wire_encode_filter(a, outcome, reasons, &len);
	res = parse_or_die(json, len, true);
	pass = member(res, list ? "Nodes" : "NodeNames");
	if (list)
		pass = member(pass, "items");
	failed = member(res, "FailedNodes");
	unres = member(res, "FailedAndUnresolvableNodes");
	if (list) {
		/* The request parses with json-c (it did inside the decoder). */
		req = parse_or_die(body, size, false);
		json_object_object_foreach(req, key, val) {
			if (strcasecmp(key, "nodes") == 0 && val != NULL)
				items = member(val, "items");
		}
	}
	for (i = 0; i < a->nnames; i++) {
		size_t in_pass;
		int in_failed, in_unres;

		if (!first_occurrence(a, i))
			continue;
		in_pass = count_passed(pass, list, a->names[i]);
		in_failed = json_object_object_get_ex(failed, a->names[i], NULL);
		in_unres = json_object_object_get_ex(unres, a->names[i], NULL);
		if (in_pass + (size_t)in_failed + (size_t)in_unres != 1 ||
		    (outcome[i] == DECISION_PASS) != (in_pass == 1)) {
			fprintf(stderr, "node %s misplaced in %s\n", a->names[i], json);
			abort();
		}
		if (outcome[i] != DECISION_PASS) {
			const char *r = json_object_get_string(member(
				outcome[i] == DECISION_FAILED ? failed : unres, a->names[i]));

			if (strcmp(r, reasons[i]) != 0)
				abort();
			continue;
		}
		npass++;
		if (list && items != NULL &&
		    !json_object_equal(json_object_array_get_idx(pass, k),
				       json_object_array_get_idx(items, i))) {
			fprintf(stderr, "item %zu changed\n", i);
			abort();
		}
		k++;
	}
	if (json_object_array_length(pass) != npass)
		abort();
	json_object_put(req);
	json_object_put(res);
	free(json);
	free(outcome);
	free(reasons);
}

static void check_prioritize(const struct wire_args *a)
{
	int64_t *scores = calloc(a->nnames + 1, sizeof *scores);
	struct json_object *res;
	size_t i, len = 0, k = 0;
	char *json;

	if (scores == NULL)
		abort();
	for (i = 0; i < a->nnames; i++)
		scores[i] = (int64_t)i * 7 - 3;
	json = wire_encode_prioritize(a, scores, &len);
	res = parse_or_die(json, len, true);
	for (i = 0; i < a->nnames; i++) {
		struct json_object *e;

		if (!first_occurrence(a, i))
			continue;
		e = json_object_array_get_idx(res, k++);
		if (e == NULL ||
		    strcmp(json_object_get_string(member(e, "Host")), a->names[i]) != 0 ||
		    json_object_get_int64(member(e, "Score")) != scores[i])
			abort();
	}
	if (json_object_array_length(res) != k)
		abort();
	json_object_put(res);
	free(json);
	free(scores);
}

/* What a decode produced, as one comparable text. */
static char *outcome_text(enum err rc, const struct errmsg *msg, const struct wire_args *a)
{
	size_t cap = 256 + (rc == ERR_OK ? a->_name_size : 0), len, i;
	char *pod = rc == ERR_OK ? pod_spec_to_json(&a->pod) : NULL, *out;

	cap += pod ? strlen(pod) : 0;
	out = malloc(cap + 1);
	len = (size_t)snprintf(out, cap, "%d|%s|%d|%s|", (int)rc, rc == ERR_OK ? "" : msg->text,
			       rc == ERR_OK ? (int)a->mode : -1, pod ? pod : "");
	for (i = 0; rc == ERR_OK && i < a->nnames && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s\n", a->names[i]);
	free(pod);
	return out;
}

/* The common-request path and the general one must agree on everything. */
static void check_paths_agree(const uint8_t *data, size_t size)
{
	struct errmsg m1 = { { 0 } }, m2 = { { 0 } };
	struct wire_args a1, a2;
	enum err r1, r2;
	char *t1, *t2;

	r1 = wire_decode_args((const char *)data, size, &a1, &m1);
	r2 = wire_decode_args_via((const char *)data, size, &a2, &m2, false);
	t1 = outcome_text(r1, &m1, &a1);
	t2 = outcome_text(r2, &m2, &a2);
	if (strcmp(t1, t2) != 0) {
		fprintf(stderr, "paths disagree:\ncommon:  %s\ngeneral: %s\n", t1, t2);
		abort();
	}
	free(t1);
	free(t2);
	wire_args_cleanup(&a1);
	wire_args_cleanup(&a2);
}

/* The same body as ExtenderPreemptionArgs: decoded, or a message (and
 * nothing kept); decoded, its nodes are in strictly ascending name order (a
 * name given twice is one entry), no node names a UID twice or an empty
 * one, and the result encodes to JSON. The scan and the text reader never
 * disagree about the Pod. */
static void check_preemption(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct wire_preemption p;
	struct json_object *res;
	size_t i, k, j, len = 0;
	char *json;

	if (wire_decode_preemption((const char *)data, size, &p, &msg) != ERR_OK) {
		/* (Other messages may quote the input: match the whole.) */
		if (msg.text[0] == '\0' || strcmp(msg.text, "invalid JSON: Pod out of step with the parser") == 0 ||
		    p.nodes != NULL || p.nnodes != 0)
			__builtin_trap();
		return;
	}
	for (i = 0; i < p.nnodes; i++) {
		const struct wire_victims *w = &p.nodes[i];

		if (w->node[0] == '\0' || (i > 0 && strcmp(p.nodes[i - 1].node, w->node) >= 0))
			__builtin_trap();
		for (k = 0; k < w->nuids; k++) {
			if (w->uids[k][0] == '\0')
				__builtin_trap();
			for (j = 0; j < k; j++)
				if (strcmp(w->uids[j], w->uids[k]) == 0)
					__builtin_trap();
		}
	}
	json = wire_encode_preemption(p.nodes, p.nnodes, &len);
	res = parse_or_die(json, len, true);
	json_object_put(res);
	free(json);
	wire_preemption_cleanup(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct wire_args a;
	struct json_object *res;
	size_t len = 0;
	char *json;
	enum err rc;

	/* The same body as ExtenderBindingArgs: decoded or a message, and the
	 * result (error or not) encodes to JSON. */
	{
		struct wire_binding b;

		rc = wire_decode_binding((const char *)data, size, &b, &msg);
		if (rc != ERR_OK && msg.text[0] == '\0')
			__builtin_trap();
		if (rc == ERR_OK && (b.pod_name[0] == '\0' || b.node[0] == '\0' || !b.pod_namespace || !b.pod_uid))
			__builtin_trap();
		json = wire_encode_binding_result(rc == ERR_OK ? b.pod_name : msg.text, &len);
		res = parse_or_die(json, len, true);
		json_object_put(res);
		free(json);
		wire_binding_cleanup(&b);
		msg.text[0] = '\0';
	}
	check_preemption(data, size);
	check_paths_agree(data, size);
	rc = wire_decode_args((const char *)data, size, &a, &msg);
	if (rc != ERR_OK) {
		if (msg.text[0] == '\0')
			__builtin_trap(); /* every error must say something */
		/* json-c and the decoder's own pass over the text disagreed
		 * (other messages may quote the input, so match the form). */
		if (strncmp(msg.text, "invalid JSON: ", 14) == 0 &&
		    strstr(msg.text, "out of step with the parser") != NULL)
			__builtin_trap();
		/* The message goes back in Error: it must encode too. */
		json = wire_encode_filter_error(msg.text, &len);
		res = parse_or_die(json, len, true);
		json_object_put(res);
		free(json);
		wire_args_cleanup(&a);
		return 0;
	}
	check_filter(&a, (const char *)data, size);
	check_prioritize(&a);
	wire_args_cleanup(&a);
	return 0;
}
