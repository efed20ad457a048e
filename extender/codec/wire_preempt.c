/* SPDX-License-Identifier: Apache-2.0 */
/* ExtenderPreemptionArgs in (wire.h), read straight from the text once the
 * scan (wire_scan.c) has accepted it (RFC 8259, UTF-8, depth), not through
 * json-c's tree: a victim is {"UID":U}, a dozen bytes of body, on which
 * json-c spends several hundred, so a body naming hundreds of thousands of
 * victims would become a tree fifty times its size, in small blocks glibc
 * keeps once they are freed. Only the Pod becomes a tree
 * (wire_decode_pod_text, as for the common filter request). Node names and
 * UIDs are copied into one buffer, the pointers into one array. */
#include "extender/codec/wire_internal.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/codec/json_lex.h"
#include "base/textbuf.h"
#include "base/xalloc.h"

/* A reader over text the scan accepted: the helpers below assume valid JSON
 * and never check the syntax again. */
struct rd {
	const char *b;
	size_t len;
};

static size_t rd_ws(const struct rd *r, size_t i)
{
	return json_ws_end(r->b, i, r->len);
}

/* Just past the string whose opening quote is at i; *flags as
 * json_string_scan's. */
static size_t rd_string_end(const struct rd *r, size_t i, unsigned *flags)
{
	size_t at = r->len;

	*flags = 0;
	(void)json_string_scan((const unsigned char *)r->b, i, r->len, false, &at, flags);
	return at;
}

/* Just past the value that starts at i. */
static size_t rd_skip(const struct rd *r, size_t i)
{
	size_t depth = 0;
	unsigned flags;

	do {
		switch (r->b[i]) {
		case '"':
			i = rd_string_end(r, i, &flags);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			if (depth == 0) { /* a literal or a number */
				while (i < r->len && strchr(" \t\n\r,]}:", r->b[i]) == NULL)
					i++;
				return i;
			}
		}
		i++;
	} while (depth > 0);
	return i;
}

static const char *rd_kind(const struct rd *r, size_t i)
{
	switch (r->b[i]) {
	case '{':
		return "an object";
	case '[':
		return "an array";
	case '"':
		return "a string";
	case 'n':
		return "null";
	case 't':
	case 'f':
		return "a boolean";
	default:
		return "a number";
	}
}

/* One member of an object: its key's raw text (inside the quotes) and its
 * value [val, val_end). */
struct rd_member {
	size_t key, key_len, val, val_end;
};

/* Iterating an object or an array: *i starts just past its opening bracket
 * (rd_ws(r, open + 1)); each call takes one member or element and moves *i
 * to the next; false at the closing bracket. */
static bool rd_next(const struct rd *r, size_t *i, bool object, struct rd_member *m)
{
	size_t k = *i;
	unsigned flags;

	if (r->b[k] == '}' || r->b[k] == ']')
		return false;
	if (object) {
		size_t e = rd_string_end(r, k, &flags);

		m->key = k + 1;
		m->key_len = e - k - 2;
		k = rd_ws(r, rd_ws(r, e) + 1); /* past ':' */
	}
	m->val = k;
	m->val_end = rd_skip(r, k);
	k = rd_ws(r, m->val_end);
	if (r->b[k] == ',')
		k = rd_ws(r, k + 1);
	*i = k;
	return true;
}

/* Whether m's key is name: folded as Go matches the extender types' fields,
 * or exactly (the API objects' keys). */
static bool rd_key_is(const struct rd *r, const struct rd_member *m, const char *name, bool fold)
{
	char key[WIRE_KEY_MAX + 1];
	size_t n = wire_decode_key(r->b + m->key, m->key_len, key);

	if (n == SIZE_MAX)
		return false;
	return fold ? wire_fold_equal(key, n, name) : n == strlen(name) && memcmp(key, name, n) == 0;
}

/* The value of the last member of the object at i whose key is name (Go
 * and json-c alike keep the last), or SIZE_MAX when there is none. */
static size_t rd_member_of(const struct rd *r, size_t i, const char *name, bool fold)
{
	struct rd_member m;
	size_t at = rd_ws(r, i + 1), found = SIZE_MAX;

	while (rd_next(r, &at, true, &m))
		if (rd_key_is(r, &m, name, fold))
			found = m.val;
	return found;
}

enum rd_int { RD_INT_OK, RD_INT_NOT, RD_INT_RANGE };

/* The JSON integer at i as an int64_t, as Go reads it: no fraction, no
 * exponent, in range. */
static enum rd_int rd_int64(const struct rd *r, size_t i, int64_t *out)
{
	size_t e = rd_skip(r, i), k;
	bool real, neg = r->b[i] == '-';
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	if (!neg && (r->b[i] < '0' || r->b[i] > '9'))
		return RD_INT_NOT;
	if (json_number_len(r->b + i, e - i, &real) != e - i || real)
		return RD_INT_NOT;
	for (k = i + neg; k < e; k++) {
		unsigned d = (unsigned)(r->b[k] - '0');

		if (v > (lim - d) / 10)
			return RD_INT_RANGE;
		v = v * 10 + d;
	}
	*out = !neg ? (int64_t)v : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	return RD_INT_OK;
}

/* A node of the victims map while it is read: offsets into the text and
 * the UID list, since both still grow. */
struct pre_node {
	size_t name;            /* offset of the name in text */
	size_t first, n;        /* its UIDs: uid[first .. first + n) */
	int64_t pdb;
};

struct pre {
	struct rd r;
	bool meta;
	const char *map;        /* "NodeNameToMetaVictims" or "NodeNameToVictims" */
	struct textbuf text;    /* names and UIDs, each NUL-terminated */
	size_t *uid, nuid, uid_cap;
	struct pre_node *node;
	size_t nnode, node_cap;
	char where[DOC_QUOTE_CAP];
};

/* The name of the node being read, quoted for a message. */
static const char *pre_where(struct pre *p)
{
	const char *name = textbuf_str(&p->text) + p->node[p->nnode - 1].name;

	doc_quote(p->where, sizeof p->where, name, strlen(name));
	return p->where;
}

/* Appends the string whose quote is at i, decoded and NUL-terminated, to the
 * text: its offset, or SIZE_MAX when it is empty or holds \u0000 (a C string
 * would cut it). */
static size_t take_text(struct pre *p, size_t i)
{
	unsigned flags;
	size_t e = rd_string_end(&p->r, i, &flags), n = e - i - 2, off = textbuf_len(&p->text);

	if (n == 0 || (flags & JSON_STR_NUL))
		return SIZE_MAX;
	if (flags & JSON_STR_ESCAPED) {
		char *tmp = xmalloc(n + 1);

		n = json_unescape(p->r.b + i + 1, n, tmp, n, JSON_LONE_REPLACE);
		textbuf_add(&p->text, tmp, n);
		free(tmp);
	} else {
		textbuf_add(&p->text, p->r.b + i + 1, n);
	}
	textbuf_addc(&p->text, '\0');
	return off;
}

/* One victim: {"UID":U} (meta) or a Pod whose metadata.uid is U. */
static enum err take_victim(struct pre *p, size_t v, size_t i, struct errmsg *msg)
{
	const struct rd *r = &p->r;
	size_t uid = SIZE_MAX, off = SIZE_MAX;

	if (r->b[v] != '{') {
		errmsg_set(msg, "%s[%s].Pods[%zu]: expected an object, got %s", p->map, pre_where(p), i,
			   rd_kind(r, v));
		return ERR_INVALID;
	}
	if (p->meta) {
		uid = rd_member_of(r, v, "UID", true);
	} else {
		size_t md = rd_member_of(r, v, "metadata", false);

		if (md != SIZE_MAX && r->b[md] == '{')
			uid = rd_member_of(r, md, "uid", false);
	}
	if (uid != SIZE_MAX && r->b[uid] == '"')
		off = take_text(p, uid);
	if (off == SIZE_MAX) {
		errmsg_set(msg, "%s[%s].Pods[%zu]%s: expected a non-empty string without \\u0000", p->map,
			   pre_where(p), i, p->meta ? ".UID" : ".metadata.uid");
		return ERR_INVALID;
	}
	if (p->nuid == WIRE_PREEMPT_VICTIMS_MAX) {
		errmsg_set(msg, "%s[%s].Pods[%zu]: more than %d victims in one request", p->map, pre_where(p), i,
			   WIRE_PREEMPT_VICTIMS_MAX);
		return ERR_TOO_LARGE;
	}
	if (p->nuid == p->uid_cap) {
		p->uid_cap = p->uid_cap ? p->uid_cap * 2 : 64;
		p->uid = xreallocarray(p->uid, p->uid_cap, sizeof *p->uid);
	}
	p->uid[p->nuid++] = off;
	return ERR_OK;
}

/* One entry of the map: the node's name (key) and its Victims (value). */
static enum err take_node(struct pre *p, const struct rd_member *m, struct errmsg *msg)
{
	const struct rd *r = &p->r;
	struct pre_node *w;
	size_t pods, pdb, at, i = 0;
	struct rd_member e;

	if (p->nnode == p->node_cap) {
		p->node_cap = p->node_cap ? p->node_cap * 2 : 16;
		p->node = xreallocarray(p->node, p->node_cap, sizeof *p->node);
	}
	w = &p->node[p->nnode];
	memset(w, 0, sizeof *w);
	w->name = take_text(p, m->key - 1);
	if (w->name == SIZE_MAX) {
		errmsg_set(msg, "%s: a node name is empty or holds \\u0000", p->map);
		return ERR_INVALID;
	}
	p->nnode++;
	w->first = p->nuid;
	if (r->b[m->val] == 'n')
		return ERR_OK; /* a nil *Victims: no victims */
	if (r->b[m->val] != '{') {
		errmsg_set(msg, "%s[%s]: expected an object, got %s", p->map, pre_where(p), rd_kind(r, m->val));
		return ERR_INVALID;
	}
	pdb = rd_member_of(r, m->val, "NumPDBViolations", true);
	if (pdb != SIZE_MAX && r->b[pdb] != 'n') {
		enum rd_int ri = rd_int64(r, pdb, &w->pdb);

		if (ri != RD_INT_OK) {
			errmsg_set(msg, "%s[%s].NumPDBViolations: %s%s", p->map, pre_where(p),
				   ri == RD_INT_RANGE ? "out of range" : "expected an integer, got ",
				   ri == RD_INT_RANGE ? "" : rd_kind(r, pdb));
			return ERR_INVALID;
		}
	}
	pods = rd_member_of(r, m->val, "Pods", true);
	if (pods == SIZE_MAX || r->b[pods] == 'n')
		return ERR_OK;
	if (r->b[pods] != '[') {
		errmsg_set(msg, "%s[%s].Pods: expected an array, got %s", p->map, pre_where(p), rd_kind(r, pods));
		return ERR_INVALID;
	}
	at = rd_ws(r, pods + 1);
	for (; rd_next(r, &at, false, &e); i++) {
		enum err rc = take_victim(p, e.val, i, msg);

		if (rc != ERR_OK)
			return rc;
		w->n++;
	}
	return ERR_OK;
}

/* A UID with its place in its node's list, for finding repeats. */
struct uid_at {
	const char *uid;
	size_t at;
};

static int uid_at_cmp(const void *a, const void *b)
{
	const struct uid_at *x = a, *y = b;
	int c = strcmp(x->uid, y->uid);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Drops every UID of w that repeats an earlier one, keeping the order: a pod
 * named twice is still one pod to evict, and counting it twice would free
 * its resources twice. Sorting finds the repeats in O(n log n) comparisons
 * whatever the UIDs are; a table hashed by a fixed, public function can be
 * flooded by UIDs chosen to collide, and these come from the client. */
static void drop_repeats(struct wire_victims *w)
{
	struct uid_at *s;
	unsigned char *repeat;
	size_t i, k = 0;

	if (w->nuids < 2)
		return;
	s = xcalloc(w->nuids, sizeof *s);
	repeat = xcalloc(w->nuids, 1);
	for (i = 0; i < w->nuids; i++) {
		s[i].uid = w->uids[i];
		s[i].at = i;
	}
	qsort(s, w->nuids, sizeof *s, uid_at_cmp);
	for (i = 1; i < w->nuids; i++)
		if (strcmp(s[i].uid, s[i - 1].uid) == 0)
			repeat[s[i].at] = 1;
	for (i = 0; i < w->nuids; i++)
		if (!repeat[i])
			w->uids[k++] = w->uids[i];
	w->nuids = k;
	free(repeat);
	free(s);
}

/* By name; the names lie in the text in map order, so ties keep it. */
static int victims_cmp(const void *a, const void *b)
{
	const struct wire_victims *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Moves what p read into out: nodes sorted by name, a name given twice
 * reading as its last entry (Go decodes a map key given twice into one
 * entry, the last value), each node's repeated UIDs dropped. */
static void pre_finish(struct pre *p, struct wire_preemption *out)
{
	size_t i, k = 0;

	out->_text = textbuf_take(&p->text, NULL);
	out->_uids = xcalloc(p->nuid + 1, sizeof *out->_uids);
	for (i = 0; i < p->nuid; i++)
		out->_uids[i] = out->_text + p->uid[i];
	out->nodes = xcalloc(p->nnode + 1, sizeof *out->nodes);
	for (i = 0; i < p->nnode; i++) {
		out->nodes[i].node = out->_text + p->node[i].name;
		out->nodes[i].uids = out->_uids + p->node[i].first;
		out->nodes[i].nuids = p->node[i].n;
		out->nodes[i].num_pdb_violations = p->node[i].pdb;
	}
	qsort(out->nodes, p->nnode, sizeof *out->nodes, victims_cmp);
	for (i = 0; i < p->nnode; i++) {
		if (i + 1 < p->nnode && strcmp(out->nodes[i].node, out->nodes[i + 1].node) == 0)
			continue;
		out->nodes[k] = out->nodes[i];
		drop_repeats(&out->nodes[k]);
		k++;
	}
	out->nnodes = k;
}

enum err wire_decode_preemption(const char *body, size_t len, struct wire_preemption *out,
				struct errmsg *msg)
{
	struct wire_scan sc;
	struct pre p;
	struct rd_member m;
	size_t at, pod = SIZE_MAX, mv = SIZE_MAX, v = SIZE_MAX, map;
	enum err rc = ERR_OK;

	memset(out, 0, sizeof *out);
	if (len > INT_MAX) {
		errmsg_set(msg, "request body larger than %d bytes", INT_MAX);
		return ERR_TOO_LARGE;
	}
	if (!wire_scan(&sc, body, len, false)) {
		errmsg_set(msg, "invalid JSON at byte %zu: %s", sc.bad, sc.problem);
		wire_scan_free(&sc);
		return ERR_PARSE;
	}
	wire_scan_free(&sc);
	memset(&p, 0, sizeof p);
	p.r.b = body;
	p.r.len = len;
	at = rd_ws(&p.r, 0);
	if (body[at] != '{') {
		errmsg_set(msg, "ExtenderPreemptionArgs: expected an object, got %s", rd_kind(&p.r, at));
		return ERR_INVALID;
	}
	for (at = rd_ws(&p.r, at + 1); rd_next(&p.r, &at, true, &m);) {
		if (rd_key_is(&p.r, &m, "Pod", true))
			pod = m.val;
		else if (rd_key_is(&p.r, &m, "NodeNameToMetaVictims", true))
			mv = m.val;
		else if (rd_key_is(&p.r, &m, "NodeNameToVictims", true))
			v = m.val;
	}
	if (pod == SIZE_MAX || body[pod] != '{') {
		errmsg_set(msg, "Pod: expected an object, got %s", pod == SIZE_MAX ? "nothing" : rd_kind(&p.r, pod));
		return ERR_INVALID;
	}
	if (!wire_decode_pod_text(body, pod, rd_skip(&p.r, pod), &out->pod, NULL, &rc, msg)) {
		errmsg_set(msg, "invalid JSON: Pod out of step with the parser");
		rc = ERR_PARSE;
	}
	if (rc == ERR_OK) {
		size_t spec = rd_member_of(&p.r, pod, "spec", false), prio = SIZE_MAX;
		enum rd_int ri = RD_INT_OK;

		if (spec != SIZE_MAX && body[spec] == '{')
			prio = rd_member_of(&p.r, spec, "priority", false);
		if (prio != SIZE_MAX && body[prio] != 'n')
			ri = rd_int64(&p.r, prio, &out->priority);
		if (ri != RD_INT_OK) {
			errmsg_set(msg, "Pod.spec.priority: %s%s", ri == RD_INT_RANGE ? "out of range" : "expected an integer, got ",
				   ri == RD_INT_RANGE ? "" : rd_kind(&p.r, prio));
			rc = ERR_INVALID;
		}
	}
	if (rc != ERR_OK) {
		wire_preemption_cleanup(out);
		return rc;
	}
	/* Both maps non-null: the meta one, as kube-scheduler fills only one. */
	out->meta = p.meta = mv != SIZE_MAX && body[mv] != 'n';
	map = p.meta ? mv : v;
	if (map == SIZE_MAX || body[map] == 'n')
		return ERR_OK; /* no candidate: nothing to keep */
	p.map = p.meta ? "NodeNameToMetaVictims" : "NodeNameToVictims";
	if (body[map] != '{') {
		errmsg_set(msg, "%s: expected an object, got %s", p.map, rd_kind(&p.r, map));
		rc = ERR_INVALID;
	}
	textbuf_init(&p.text, len + 1);
	for (at = rd_ws(&p.r, map + 1); rc == ERR_OK && rd_next(&p.r, &at, true, &m);)
		rc = take_node(&p, &m, msg);
	if (rc == ERR_OK)
		pre_finish(&p, out);
	else
		wire_preemption_cleanup(out);
	textbuf_free(&p.text);
	free(p.uid);
	free(p.node);
	return rc;
}

void wire_preemption_cleanup(struct wire_preemption *p)
{
	pod_spec_cleanup(&p->pod);
	free(p->nodes);
	free(p->_uids);
	free(p->_text);
	memset(p, 0, sizeof *p);
}
