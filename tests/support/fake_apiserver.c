/* SPDX-License-Identifier: Apache-2.0 */
/* The fake Kubernetes API server: libmicrohttpd in thread-per-connection
 * mode (a watch stream's content reader may then block), an object store
 * per resource, one change history for watch replay (etcd has one revision
 * for every key), list snapshots behind continue tokens, and per-watch
 * queues of lines for events and faults. Every stored object is an
 * immutable, refcounted `state` (its JSON text and the fields selectors
 * compare), shared by the store, the history and the snapshots, so a list
 * page or a replay copies pointers, not text. json-c is used only on trees
 * local to one call. */

/* POLLRDHUP (Linux) tells that a watching client went away while its stream
 * is idle; it needs _GNU_SOURCE. */
#define _GNU_SOURCE

#include "tests/support/fake_apiserver.h"

#include <errno.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "extender/codec/json_lex.h"

#define GROUP "topology.node.k8s.io"
#define PLURAL "noderesourcetopologies"
#define KIND "NodeResourceTopology"
#define NVERSIONS 2
/* How often an idle stream checks whether its client hung up. */
#define POLL_MS 50
/* Continue tokens older than the newest this many lists answer 410, as a
 * compacted etcd revision would. */
#define MAX_SNAPSHOTS 64
/* kube-apiserver's cap on a request body (3 MiB); a larger one gets 413. */
#define MAX_BODY (3u * 1024 * 1024)
/* The longest served path has 7 segments (.../pods/NAME/binding). */
#define MAX_SEGMENTS 8

/* NodeResourceTopology version index 0 is the storage version. */
static const char *const versions[NVERSIONS] = { "v1alpha2", "v1alpha1" };

/* The DRA resources follow enum dra_kind's order from RES_SLICE on. */
enum res { RES_NRT, RES_POD, RES_SLICE, RES_CLASS, RES_CLAIM, RES_TEMPLATE, NRES };

#define DRA_GROUP "resource.k8s.io"
#define DRA_VERSION "v1"

/* What differs between the served resources. */
struct resource {
	const char *kind, *plural;
	const char *qualified; /* as in `<qualified> "name" not found` */
	const char *group;     /* NULL: the core group */
	const char *api[NVERSIONS]; /* apiVersion per version index (NULL: none) */
	bool namespaced;
};

static const struct resource resources[NRES] = {
	[RES_NRT] = { KIND, PLURAL, PLURAL "." GROUP, GROUP,
		      { GROUP "/v1alpha2", GROUP "/v1alpha1" } },
	[RES_POD] = { "Pod", "pods", "pods", NULL, { "v1", NULL }, true },
#define DRA_RESOURCE(kind, plural, namespaced)                                              \
	{ kind, plural, plural "." DRA_GROUP, DRA_GROUP, { DRA_GROUP "/" DRA_VERSION, NULL }, \
	  namespaced }
	[RES_SLICE] = DRA_RESOURCE("ResourceSlice", "resourceslices", false),
	[RES_CLASS] = DRA_RESOURCE("DeviceClass", "deviceclasses", false),
	[RES_CLAIM] = DRA_RESOURCE("ResourceClaim", "resourceclaims", true),
	[RES_TEMPLATE] = DRA_RESOURCE("ResourceClaimTemplate", "resourceclaimtemplates", true),
#undef DRA_RESOURCE
};

/* What field selectors can compare. The key of a stored object is
 * (namespace, name); cluster-scoped objects have namespace "". */
enum field { F_NAME, F_NAMESPACE, F_NODE_NAME, F_PHASE, NFIELDS };

static const struct {
	const char *label;
	bool pods_only; /* custom resources offer metadata.name and .namespace */
} field_labels[NFIELDS] = {
	[F_NAME] = { "metadata.name", false },
	[F_NAMESPACE] = { "metadata.namespace", false },
	[F_NODE_NAME] = { "spec.nodeName", true },
	[F_PHASE] = { "status.phase", true },
};

enum change_type { CHANGE_ADDED, CHANGE_MODIFIED, CHANGE_DELETED };

/* One version of one object. Immutable once made; freed with the last
 * reference (all under the server's mutex). */
struct state {
	unsigned refs;
	enum res res;
	unsigned long long rv;
	char *json[NVERSIONS]; /* the object with each apiVersion (NULL: unserved) */
	char *item;            /* as a list item, when that differs: core types
				* drop apiVersion and kind there; NULL: json */
	char *field[NFIELDS];  /* "" when absent */
};

/* The objects of one resource, sorted by (namespace, name). */
struct store {
	struct state **v;
	size_t n, cap;
};

struct change {
	enum change_type type;
	struct state *old;     /* before the change; NULL for ADDED */
	struct state *cur;     /* after it; for DELETED the last content at the
				* deletion's resourceVersion */
	struct state *leaving; /* old content at cur's resourceVersion, made
				* when a selector watch first needs it */
};

/* The objects of a paged list at its resourceVersion: later pages come
 * from here, so a list is consistent across pages as with etcd's MVCC
 * reads. */
struct snapshot {
	struct snapshot *next;
	unsigned id;
	enum res res;
	unsigned long long rv;
	size_t n;
	struct state **items;
};

struct requirement {
	enum field field;
	bool negate; /* "!=" */
	char *value;
};

/* Requirements that must all hold; none: everything matches. */
struct selector {
	size_t n;
	struct requirement *req;
};

/* What a list or a watch asks for. */
struct query {
	enum res res;
	int version;
	char *ns; /* NULL: every namespace */
	struct selector sel;
};

/* One line to send on a watch stream; `end` marks a clean end of stream. */
struct item {
	struct item *next;
	bool end;
	size_t len;
	char data[];
};

struct watch {
	struct watch *next;
	struct fake_apiserver *s;
	struct MHD_Connection *conn;
	struct query q;
	bool bookmarks;
	bool aborted; /* disconnect_watches: cut at once */
	bool ending;  /* an end item is queued: nothing more is added */
	unsigned long long from; /* events at or below are never sent */
	unsigned long long rv;   /* of the newest event queued */
	bool has_deadline;
	struct timespec deadline;
	struct item *head, *tail;
	struct item *cur; /* being copied out; `off` bytes done */
	size_t off;
};

struct sbuf {
	char *p;
	size_t len, cap;
};

/* Per request (MHD's con_cls), from the URI callback to completion. */
struct request {
	char *query;    /* the raw query string, still URL-encoded; NULL: none */
	bool started;   /* the access handler has seen the request */
	bool too_large; /* the body passed MAX_BODY and was dropped */
	struct sbuf body;
};

struct fake_apiserver {
	pthread_mutex_t mu;
	pthread_cond_t cond; /* any change: events, faults, watch open/close, stop */
	struct MHD_Daemon *daemon;
	int port;
	char *token;
	bool serve[NVERSIONS];
	size_t page_limit_max;
	char *cert_pem, *key_pem;

	unsigned long long rv;           /* the counter: the newest resourceVersion */
	unsigned long long too_old_below; /* resourceVersions below are expired */
	struct store store[NRES];
	struct change *hist;             /* every change since the last expiry */
	size_t nhist, caphist;
	struct snapshot *snaps;          /* newest first */
	size_t nsnaps;
	unsigned next_snap;
	unsigned uid_seed;               /* makes pod uids differ between servers */
	unsigned long long next_uid;

	struct watch *watches;
	unsigned open_watches;
	int fail_status, fail_count;
	bool stalled, stopping;
	struct fake_apiserver_stats stats;
};

/* ---- text ---------------------------------------------------------------- */

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	if ((size_t)n < sizeof small) {
		sb_add(b, small, (size_t)n);
		return;
	}
	sb_add(b, "", 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = b->len + (size_t)n + 1;
		b->p = xrealloc(b->p, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A JSON string literal: names and messages may come from the request URL. */
static void sb_json_string(struct sbuf *b, const char *s)
{
	sb_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_add(b, s, 1);
	}
	sb_puts(b, "\"");
}

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Unpadded base64url, as the real server's continue tokens. */
static void sb_base64url(struct sbuf *b, const unsigned char *in, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		char q[4] = { b64url[in[i] >> 2], b64url[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      b64url[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)],
			      b64url[in[i + 2] & 63] };
		sb_add(b, q, 4);
	}
	if (n - i == 1) {
		char q[2] = { b64url[in[i] >> 2], b64url[(in[i] & 3) << 4] };
		sb_add(b, q, 2);
	} else if (n - i == 2) {
		char q[3] = { b64url[in[i] >> 2], b64url[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      b64url[(in[i + 1] & 15) << 2] };
		sb_add(b, q, 3);
	}
}

/* Accepts both alphabets and optional padding; false on anything else. */
static bool base64_decode(const char *in, struct sbuf *out)
{
	unsigned acc = 0;
	int bits = 0;

	for (; *in && *in != '='; in++) {
		const char *p = strchr(b64url, *in);
		int v;

		if (*in == '+')
			v = 62;
		else if (*in == '/')
			v = 63;
		else if (p != NULL)
			v = (int)(p - b64url);
		else
			return false;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			char c = (char)((acc >> (bits - 8)) & 0xff);

			bits -= 8;
			sb_add(out, &c, 1);
		}
	}
	sb_add(out, "", 0);
	return true;
}

/* The first value of `key` in a raw query string with %XX decoded; '+'
 * stays '+' (MHD's own argument parsing turns it into a space, which is
 * why selectors are read from the raw query). A malformed escape is kept
 * as it is. malloc'd; NULL when absent or empty, as arg() treats them. */
static char *query_value(const char *query, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = query; p && *p;) {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));

		if (eq && (size_t)(eq - p) == klen && memcmp(p, key, klen) == 0 && eq + 1 < end) {
			struct sbuf v = { 0 };

			for (const char *q = eq + 1; q < end; q++) {
				char ch = *q;

				if (*q == '%' && end - q >= 3 && json_hex_digit(q[1]) >= 0 &&
				    json_hex_digit(q[2]) >= 0) {
					ch = (char)(json_hex_digit(q[1]) * 16 + json_hex_digit(q[2]));
					q += 2;
				}
				sb_add(&v, &ch, 1);
			}
			return v.p;
		}
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

/* ---- time ---------------------------------------------------------------- */

static struct timespec mono_after_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Now as metav1.Time renders it: RFC 3339, UTC, whole seconds. */
static void rfc3339_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- replies ------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, struct sbuf *body,
			     bool retry_after)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(body->len, body->p, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body->p);
		return MHD_NO;
	}
	body->p = NULL;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
	if (retry_after)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static const char *reason_for(unsigned code)
{
	switch (code) {
	case 400: return "BadRequest";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "NotFound";
	case 405: return "MethodNotAllowed";
	case 409: return "Conflict";
	case 410: return "Expired";
	case 413: return "RequestEntityTooLarge";
	case 429: return "TooManyRequests";
	case 500: return "InternalError";
	case 503: return "ServiceUnavailable";
	case 504: return "Timeout";
	default: return "";
	}
}

/* A metav1.Status body; `reason` NULL: the usual one for the code ("": none,
 * as for errors the API server did not classify); `details` is raw JSON or
 * NULL. */
static void sb_status(struct sbuf *b, unsigned code, const char *reason, const char *message,
		      const char *details)
{
	if (reason == NULL)
		reason = reason_for(code);
	sb_puts(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		   "\"status\":\"Failure\",\"message\":");
	sb_json_string(b, message);
	if (reason[0])
		sb_printf(b, ",\"reason\":\"%s\"", reason);
	if (details)
		sb_printf(b, ",\"details\":%s", details);
	sb_printf(b, ",\"code\":%u}", code);
}

static enum MHD_Result reply_status_reason(struct MHD_Connection *c, unsigned code,
					   const char *reason, const char *message,
					   const char *details)
{
	struct sbuf b = { 0 };
	bool retry = code == 429 || code == 503;

	sb_status(&b, code, reason, message, details);
	return reply(c, code, &b, retry);
}

static enum MHD_Result reply_status(struct MHD_Connection *c, unsigned code, const char *message,
				    const char *details)
{
	return reply_status_reason(c, code, NULL, message, details);
}

static enum MHD_Result reply_not_found_path(struct MHD_Connection *c)
{
	/* What kube-apiserver's notfoundhandler answers for unserved paths. */
	return reply_status(c, 404, "the server could not find the requested resource", "{}");
}

static enum MHD_Result reply_method_not_allowed(struct MHD_Connection *c)
{
	return reply_status(c, 405, "the server does not allow this method on the requested resource",
			    NULL);
}

/* {"name":NAME[,"group":GROUP],"kind":KIND}, as StatusDetails. */
static void sb_details(struct sbuf *b, const char *name, const char *group, const char *kind)
{
	sb_puts(b, "{\"name\":");
	sb_json_string(b, name);
	if (group)
		sb_printf(b, ",\"group\":\"%s\"", group);
	sb_printf(b, ",\"kind\":\"%s\"}", kind);
}

/* The 404 of a get (or a binding) for an absent object. */
static enum MHD_Result reply_object_not_found(struct MHD_Connection *c, enum res res,
					      const char *name)
{
	const struct resource *r = &resources[res];
	struct sbuf msg = { 0 }, det = { 0 };
	enum MHD_Result ret;

	sb_printf(&msg, "%s \"%s\" not found", r->qualified, name);
	sb_details(&det, name, r->group, r->plural);
	ret = reply_status(c, 404, msg.p, det.p);
	free(msg.p);
	free(det.p);
	return ret;
}

/* ---- field selectors ----------------------------------------------------- */

static void selector_free(struct selector *sel)
{
	for (size_t i = 0; i < sel->n; i++)
		free(sel->req[i].value);
	free(sel->req);
	sel->req = NULL;
	sel->n = 0;
}

/* fields.UnescapeValue: "\\", "\," and "\=" stand for themselves; any
 * other backslash is an error. */
static bool unescape_value(const char *s, size_t n, struct sbuf *out)
{
	sb_add(out, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\') {
			if (++i == n || (s[i] != '\\' && s[i] != ',' && s[i] != '='))
				return false;
		}
		sb_add(out, &s[i], 1);
	}
	return true;
}

/* One term "field<op>value", split at the first "!=", "==" or "=" found
 * scanning from the left (escapes are not looked at there, as in
 * fields.ParseSelector), added to sel. False with err set otherwise. */
static bool selector_term(enum res res, const char *whole, const char *t, size_t n,
			  struct selector *sel, struct sbuf *err)
{
	struct sbuf value = { 0 };
	size_t i, oplen = 0;
	int f;

	for (i = 0; i < n && oplen == 0; i++) {
		if (i + 1 < n && (t[i] == '!' || t[i] == '=') && t[i + 1] == '=')
			oplen = 2;
		else if (t[i] == '=')
			oplen = 1;
	}
	if (oplen == 0) {
		sb_printf(err, "invalid selector: '%s'; can't understand '%.*s'", whole, (int)n, t);
		return false;
	}
	i--; /* the operator starts here */
	for (f = 0; f < NFIELDS; f++)
		if (strlen(field_labels[f].label) == i && memcmp(field_labels[f].label, t, i) == 0 &&
		    (res == RES_POD || !field_labels[f].pods_only))
			break;
	if (f == NFIELDS) {
		sb_printf(err, "field label not supported: %.*s", (int)i, t);
		return false;
	}
	if (!unescape_value(t + i + oplen, n - i - oplen, &value)) {
		free(value.p);
		sb_printf(err, "invalid field selector: '%s': invalid escape sequence", whole);
		return false;
	}
	sel->req = xreallocarray(sel->req, sel->n + 1, sizeof *sel->req);
	sel->req[sel->n++] = (struct requirement){ (enum field)f, t[i] == '!', value.p };
	return true;
}

/* A fieldSelector: terms split at unescaped commas, empty terms skipped, as
 * kube-apiserver parses it for the resource. False with err set (a 400). */
static bool selector_parse(enum res res, const char *text, struct selector *sel, struct sbuf *err)
{
	size_t start = 0, i = 0;
	bool escaped = false;

	for (;; i++) {
		if (text[i] == '\0' || (text[i] == ',' && !escaped)) {
			if (i > start && !selector_term(res, text, text + start, i - start, sel, err)) {
				selector_free(sel);
				return false;
			}
			if (text[i] == '\0')
				return true;
			start = i + 1;
		}
		escaped = !escaped && text[i] == '\\';
	}
}

static bool selector_matches(const struct selector *sel, const struct state *st)
{
	for (size_t i = 0; i < sel->n; i++) {
		bool eq = strcmp(st->field[sel->req[i].field], sel->req[i].value) == 0;

		if (eq == sel->req[i].negate)
			return false;
	}
	return true;
}

static void query_free(struct query *q)
{
	free(q->ns);
	q->ns = NULL;
	selector_free(&q->sel);
}

/* Within the query's key range: etcd scans it whatever the selector. */
static bool in_scope(const struct query *q, const struct state *st)
{
	return st->res == q->res && (q->ns == NULL || strcmp(st->field[F_NAMESPACE], q->ns) == 0);
}

static bool in_query(const struct query *q, const struct state *st)
{
	return in_scope(q, st) && selector_matches(&q->sel, st);
}

/* ---- states -------------------------------------------------------------- */

static struct state *state_new(enum res res, unsigned long long rv)
{
	struct state *st = xcalloc(1, sizeof *st);

	st->refs = 1;
	st->res = res;
	st->rv = rv;
	return st;
}

static struct state *state_ref(struct state *st)
{
	st->refs++;
	return st;
}

static void state_unref(struct state *st)
{
	if (st == NULL || --st->refs > 0)
		return;
	for (int v = 0; v < NVERSIONS; v++)
		free(st->json[v]);
	free(st->item);
	for (int f = 0; f < NFIELDS; f++)
		free(st->field[f]);
	free(st);
}

/* Parses a whole JSON object or aborts: a malformed fixture is a test bug. */
static json_object *parse_object_or_die(const char *text)
{
	json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	json_object *o = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error err = json_tokener_get_error(tok);

	if (err != json_tokener_success || !json_object_is_type(o, json_type_object)) {
		fprintf(stderr, "fake_apiserver: not a JSON object (%s): %.200s\n",
			json_tokener_error_desc(err), text);
		abort();
	}
	json_tokener_free(tok);
	return o;
}

static char *json_text(json_object *o)
{
	return xstrdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The object member `key` of o, made (or replacing a non-object) when
 * needed. */
static json_object *member_object(json_object *o, const char *key)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, json_type_object)) {
		m = json_object_new_object();
		json_object_object_add(o, key, m);
	}
	return m;
}

/* The string at o.a (or o.a.b); "" when absent or not a string, as Go
 * decodes a missing field. */
static const char *string_at(json_object *o, const char *a, const char *b)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x))
		return "";
	if (b && (!json_object_is_type(x, json_type_object) || !json_object_object_get_ex(x, b, &x)))
		return "";
	return json_object_is_type(x, json_type_string) ? json_object_get_string(x) : "";
}

static void set_string(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value));
}

/* The server-owned metadata: name, namespace (namespaced resources only)
 * and resourceVersion. */
static void set_identity(json_object *o, const char *ns, const char *name, unsigned long long rv)
{
	json_object *meta = member_object(o, "metadata");
	char rvs[32];

	snprintf(rvs, sizeof rvs, "%llu", rv);
	set_string(meta, "name", name);
	if (ns)
		set_string(meta, "namespace", ns);
	set_string(meta, "resourceVersion", rvs);
}

static void set_fields(struct state *st, json_object *o, const char *ns, const char *name)
{
	st->field[F_NAME] = xstrdup(name);
	st->field[F_NAMESPACE] = xstrdup(ns);
	st->field[F_NODE_NAME] = xstrdup(string_at(o, "spec", "nodeName"));
	st->field[F_PHASE] = xstrdup(string_at(o, "status", "phase"));
}

/* A NodeResourceTopology in every version; only apiVersion differs. */
static struct state *render_nrt(json_object *o, const char *name, unsigned long long rv)
{
	struct state *st = state_new(RES_NRT, rv);

	set_identity(o, NULL, name, rv);
	set_string(o, "kind", KIND);
	for (int v = 0; v < NVERSIONS; v++) {
		set_string(o, "apiVersion", resources[RES_NRT].api[v]);
		st->json[v] = json_text(o);
	}
	set_fields(st, o, "", name);
	return st;
}

/* A built-in object (a pod, a DRA object), kind and apiVersion first as the
 * API server writes them; its list item form has neither (a typed list's
 * items carry no TypeMeta). */
static struct state *render_builtin(enum res res, json_object *o, const char *ns,
				    const char *name, unsigned long long rv)
{
	struct state *st = state_new(res, rv);
	json_object *full = json_object_new_object(), *item = json_object_new_object();
	struct json_object_iterator it, end;

	set_identity(o, resources[res].namespaced ? ns : NULL, name, rv);
	set_string(full, "kind", resources[res].kind);
	set_string(full, "apiVersion", resources[res].api[0]);
	end = json_object_iter_end(o);
	for (it = json_object_iter_begin(o); !json_object_iter_equal(&it, &end);
	     json_object_iter_next(&it)) {
		const char *k = json_object_iter_peek_name(&it);
		json_object *v = json_object_iter_peek_value(&it);

		if (strcmp(k, "kind") == 0 || strcmp(k, "apiVersion") == 0)
			continue;
		json_object_object_add(full, k, json_object_get(v));
		json_object_object_add(item, k, json_object_get(v));
	}
	st->json[0] = json_text(full);
	st->item = json_text(item);
	set_fields(st, o, ns, name);
	json_object_put(full);
	json_object_put(item);
	return st;
}

/* Sets the server-owned fields of o (which it changes) and renders it. */
static struct state *render(enum res res, json_object *o, const char *ns, const char *name,
			    unsigned long long rv)
{
	return res == RES_NRT ? render_nrt(o, name, rv) : render_builtin(res, o, ns, name, rv);
}

/* The same content at another resourceVersion. */
static struct state *rerender(const struct state *st, unsigned long long rv)
{
	json_object *o = parse_object_or_die(st->json[0]);
	struct state *out = render(st->res, o, st->field[F_NAMESPACE], st->field[F_NAME], rv);

	json_object_put(o);
	return out;
}

static const char *item_json(const struct state *st, int version)
{
	return st->item ? st->item : st->json[version];
}

/* ---- store --------------------------------------------------------------- */

static int key_cmp(const struct state *st, const char *ns, const char *name)
{
	int c = strcmp(st->field[F_NAMESPACE], ns);

	return c ? c : strcmp(st->field[F_NAME], name);
}

/* Index of (ns, name), or where it would go (with *found false). */
static size_t store_find(const struct store *t, const char *ns, const char *name, bool *found)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = key_cmp(t->v[mid], ns, name);

		if (cmp == 0) {
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* The stored object or NULL; the reference stays the store's. */
static struct state *store_get(struct fake_apiserver *s, enum res res, const char *ns,
			       const char *name)
{
	bool found;
	size_t i = store_find(&s->store[res], ns, name, &found);

	return found ? s->store[res].v[i] : NULL;
}

/* Stores cur under its key, with a reference of its own. Returns what it
 * replaced, whose reference passes to the caller, or NULL. */
static struct state *store_put(struct store *t, struct state *cur)
{
	bool found;
	size_t i = store_find(t, cur->field[F_NAMESPACE], cur->field[F_NAME], &found);
	struct state *old = NULL;

	if (found) {
		old = t->v[i];
	} else {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
		}
		memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
		t->n++;
	}
	t->v[i] = state_ref(cur);
	return old;
}

/* Removes entry i; its reference passes to the caller. */
static struct state *store_take(struct store *t, size_t i)
{
	struct state *st = t->v[i];

	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
	t->n--;
	return st;
}

static void store_free(struct store *t)
{
	for (size_t i = 0; i < t->n; i++)
		state_unref(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof *t);
}

static void free_snapshot(struct snapshot *sn)
{
	for (size_t i = 0; i < sn->n; i++)
		state_unref(sn->items[i]);
	free(sn->items);
	free(sn);
}

static void free_history(struct fake_apiserver *s)
{
	for (size_t i = 0; i < s->nhist; i++) {
		state_unref(s->hist[i].old);
		state_unref(s->hist[i].cur);
		state_unref(s->hist[i].leaving);
	}
	s->nhist = 0;
}

static void free_snapshots(struct fake_apiserver *s)
{
	while (s->snaps) {
		struct snapshot *next = s->snaps->next;

		free_snapshot(s->snaps);
		s->snaps = next;
	}
	s->nsnaps = 0;
}

/* Called with the mutex held: the current objects of res, kept for the
 * later pages of a list; the oldest snapshot goes past MAX_SNAPSHOTS. */
static struct snapshot *take_snapshot(struct fake_apiserver *s, enum res res)
{
	const struct store *t = &s->store[res];
	struct snapshot *sn = xcalloc(1, sizeof *sn);

	sn->id = ++s->next_snap;
	sn->res = res;
	sn->rv = s->rv;
	sn->n = t->n;
	sn->items = xcalloc(t->n + 1, sizeof *sn->items);
	for (size_t i = 0; i < t->n; i++)
		sn->items[i] = state_ref(t->v[i]);
	sn->next = s->snaps;
	s->snaps = sn;
	if (++s->nsnaps > MAX_SNAPSHOTS) {
		struct snapshot **pp = &s->snaps;

		while ((*pp)->next)
			pp = &(*pp)->next;
		free_snapshot(*pp);
		*pp = NULL;
		s->nsnaps--;
	}
	return sn;
}

/* ---- watch queues -------------------------------------------------------- */

static void push_item(struct watch *w, const char *data, size_t len, bool end)
{
	struct item *it = xmalloc(sizeof *it + len + 1);

	it->next = NULL;
	it->end = end;
	it->len = len;
	memcpy(it->data, data, len);
	it->data[len] = '\0';
	if (w->tail)
		w->tail->next = it;
	else
		w->head = it;
	w->tail = it;
}

static void push_event(struct watch *w, const char *type, const char *object_json)
{
	struct sbuf b = { 0 };

	sb_printf(&b, "{\"type\":\"%s\",\"object\":%s}\n", type, object_json);
	push_item(w, b.p, b.len, false);
	free(b.p);
}

/* What a watch sees of a change, decided as the API server's watch cache
 * does (cacheWatcher.convertToWatchEvent): old and new state against the
 * selector; an object leaving the selection is DELETED with its previous
 * content at the change's resourceVersion. Returns the event type and sets
 * *obj, or NULL when the watch sees nothing. */
static const char *seen_as(const struct query *q, struct change *ch, const struct state **obj)
{
	bool was, is;

	if (!in_scope(q, ch->cur))
		return NULL;
	was = ch->old && selector_matches(&q->sel, ch->old);
	is = ch->type != CHANGE_DELETED && selector_matches(&q->sel, ch->cur);
	if (is) {
		*obj = ch->cur;
		return was ? "MODIFIED" : "ADDED";
	}
	if (!was)
		return NULL;
	if (ch->type != CHANGE_DELETED && ch->leaving == NULL)
		ch->leaving = rerender(ch->old, ch->cur->rv);
	*obj = ch->type == CHANGE_DELETED ? ch->cur : ch->leaving;
	return "DELETED";
}

static void push_change(struct watch *w, struct change *ch)
{
	const struct state *obj;
	const char *type = seen_as(&w->q, ch, &obj);

	if (type == NULL)
		return;
	push_event(w, type, obj->json[w->q.version]);
	w->rv = ch->cur->rv;
}

/* Called with the mutex held: records the change (taking the caller's
 * references to old and cur) and queues it on every watch that has not
 * ended and wants it. */
static void record_change(struct fake_apiserver *s, enum change_type type, struct state *old,
			  struct state *cur)
{
	struct change *ch;

	if (s->nhist == s->caphist) {
		s->caphist = s->caphist ? s->caphist * 2 : 16;
		s->hist = xreallocarray(s->hist, s->caphist, sizeof *s->hist);
	}
	ch = &s->hist[s->nhist++];
	*ch = (struct change){ type, old, cur, NULL };
	for (struct watch *w = s->watches; w; w = w->next)
		if (!w->ending && cur->rv > w->from)
			push_change(w, ch);
	pthread_cond_broadcast(&s->cond);
}

/* Called with the mutex held: stores a new state of an object (taking the
 * caller's reference) as an ADDED or MODIFIED change. */
static void commit_put(struct fake_apiserver *s, struct state *cur)
{
	struct state *old = store_put(&s->store[cur->res], cur);

	record_change(s, old ? CHANGE_MODIFIED : CHANGE_ADDED, old, cur);
}

/* Called with the mutex held: removes an object as a DELETED change;
 * returns its resourceVersion, 0 when absent. */
static unsigned long long commit_delete(struct fake_apiserver *s, enum res res, const char *ns,
					const char *name)
{
	struct store *t = &s->store[res];
	unsigned long long rv;
	struct state *old;
	bool found;
	size_t i = store_find(t, ns, name, &found);

	if (!found)
		return 0;
	rv = ++s->rv;
	old = store_take(t, i);
	record_change(s, CHANGE_DELETED, old, rerender(old, rv));
	return rv;
}

static void free_items(struct watch *w)
{
	while (w->head) {
		struct item *next = w->head->next;

		free(w->head);
		w->head = next;
	}
	w->tail = NULL;
	free(w->cur);
	w->cur = NULL;
}

/* The client closed its end (checked while the stream is idle, because MHD
 * only notices on the next write). */
static bool peer_gone(struct watch *w)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(w->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct pollfd p;

	if (ci == NULL)
		return false;
	p.fd = ci->connect_fd;
	p.events = POLLRDHUP;
	p.revents = 0;
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* The content reader of a watch stream. Thread-per-connection mode lets it
 * block (returning 0 is illegal with MHD's internal threads: it would busy
 * loop), so it waits on the condition variable until there is a line to
 * send, the stream must end, or the client has gone. A line longer than
 * `max` goes out over several calls. */
static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct watch *w = cls;
	struct fake_apiserver *s = w->s;
	ssize_t ret;

	(void)pos;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct timespec until;

		if (s->stopping || w->aborted) {
			ret = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
		if (!s->stalled) {
			if (w->cur == NULL && w->has_deadline) {
				struct timespec now = mono_after_ms(0);

				if (!ts_before(&now, &w->deadline)) {
					ret = MHD_CONTENT_READER_END_OF_STREAM;
					break;
				}
			}
			if (w->cur == NULL && w->head) {
				w->cur = w->head;
				w->head = w->head->next;
				if (w->head == NULL)
					w->tail = NULL;
				w->off = 0;
			}
			if (w->cur && w->cur->end) {
				ret = MHD_CONTENT_READER_END_OF_STREAM;
				break;
			}
			if (w->cur) {
				size_t n = w->cur->len - w->off;

				if (n > max)
					n = max;
				memcpy(buf, w->cur->data + w->off, n);
				w->off += n;
				if (w->off == w->cur->len) {
					free(w->cur);
					w->cur = NULL;
				}
				ret = (ssize_t)n;
				break;
			}
		}
		if (peer_gone(w)) {
			ret = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
		until = mono_after_ms(POLL_MS);
		if (w->has_deadline && !s->stalled && ts_before(&w->deadline, &until))
			until = w->deadline;
		pthread_cond_timedwait(&s->cond, &s->mu, &until);
	}
	pthread_mutex_unlock(&s->mu);
	return ret;
}

/* MHD is done with the stream's response: unlink and free the watch. */
static void watch_free(void *cls)
{
	struct watch *w = cls;
	struct fake_apiserver *s = w->s;

	pthread_mutex_lock(&s->mu);
	for (struct watch **pp = &s->watches; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			s->open_watches--;
			break;
		}
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	free_items(w);
	query_free(&w->q);
	free(w);
}

/* ---- request handling ---------------------------------------------------- */

/* Go's strconv.ParseBool, which the API server uses for query booleans. */
static int parse_bool(const char *v)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
	static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };

	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (strcmp(v, yes[i]) == 0)
			return 1;
		if (strcmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

static bool parse_u64(const char *v, unsigned long long *out)
{
	char *end;

	if (v[0] < '0' || v[0] > '9')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno == 0 && *end == '\0';
}

static const char *arg(struct MHD_Connection *c, const char *key)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	return v && v[0] ? v : NULL;
}

static bool authorized(struct fake_apiserver *s, struct MHD_Connection *c)
{
	const char *h;

	if (s->token == NULL)
		return true;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	/* The scheme is case-insensitive (RFC 7235), as in the API server's
	 * bearer-token authenticator. */
	return h && strncasecmp(h, "Bearer ", 7) == 0 && strcmp(h + 7, s->token) == 0;
}

/* Called with the mutex held: the snapshot and start index behind a
 * continue token. 0, or the status to answer: 400 malformed (or from a
 * list of another resource), 410 expired. */
static unsigned resolve_continue(struct fake_apiserver *s, const char *cont, enum res res,
				 struct snapshot **out, size_t *start)
{
	struct sbuf raw = { 0 };
	unsigned long long tok_rv = 0;
	struct snapshot *sn;
	unsigned id = 0;
	size_t off = 0;
	int used = -1;

	if (base64_decode(cont, &raw))
		sscanf(raw.p, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":%zu,\"snap\":%u}%n",
		       &tok_rv, &off, &id, &used);
	if (used < 0 || (size_t)used != raw.len) {
		free(raw.p);
		return 400;
	}
	free(raw.p);
	for (sn = s->snaps; sn && sn->id != id; sn = sn->next)
		;
	if (sn && sn->res != res)
		return 400;
	if (sn == NULL || tok_rv < s->too_old_below || sn->rv != tok_rv || off > sn->n) {
		s->stats.gone++;
		return 410;
	}
	*out = sn;
	*start = off;
	return 0;
}

/* Appends to b the objects of items[start..n) that the query selects, at
 * most `limit` (0: no limit), and returns the index after the last one
 * looked at: where the next page starts, as etcd's range read continues
 * after the last key it scanned. */
static size_t list_page(struct sbuf *b, const struct query *q, struct state *const *items,
			size_t n, size_t start, unsigned long long limit)
{
	unsigned long long count = 0;
	size_t i;

	for (i = start; i < n && !(limit && count == limit); i++) {
		if (!in_query(q, items[i]))
			continue;
		if (count++)
			sb_puts(b, ",");
		sb_puts(b, item_json(items[i], q->version));
	}
	return i;
}

/* Objects in the query's key range from index i on, selected or not. */
static size_t count_in_scope(const struct query *q, struct state *const *items, size_t i,
			     size_t n)
{
	size_t k = 0;

	for (; i < n; i++)
		k += in_scope(q, items[i]);
	return k;
}

static const char bad_continue[] = "continue key is not valid: incorrect encoded start "
				   "resourceVersion (version meta.k8s.io/v1)";
static const char old_continue[] = "The provided continue parameter is too old to display a "
				   "consistent list result. You can start a new list without the "
				   "continue parameter.";

static enum MHD_Result handle_list(struct fake_apiserver *s, struct MHD_Connection *c,
				   const struct query *q)
{
	const char *limit_s = arg(c, "limit"), *cont = arg(c, "continue");
	const struct resource *r = &resources[q->res];
	unsigned long long limit = 0, rv;
	struct sbuf b = { 0 }, page = { 0 };
	struct snapshot *sn = NULL;
	struct state *const *items;
	size_t n, start = 0, next, more;

	if (limit_s && !parse_u64(limit_s, &limit))
		return reply_status(c, 400, "limit: Invalid value: must be a non-negative integer",
				    NULL);
	if (limit && s->page_limit_max && limit > s->page_limit_max)
		limit = s->page_limit_max;

	pthread_mutex_lock(&s->mu);
	if (cont) {
		unsigned code = resolve_continue(s, cont, q->res, &sn, &start);

		if (code) {
			pthread_mutex_unlock(&s->mu);
			return reply_status(c, code, code == 400 ? bad_continue : old_continue, NULL);
		}
		items = sn->items;
		n = sn->n;
		rv = sn->rv;
	} else {
		items = s->store[q->res].v;
		n = s->store[q->res].n;
		rv = s->rv;
	}
	next = list_page(&page, q, items, n, start, limit);
	more = count_in_scope(q, items, next, n);
	sb_printf(&b, "{\"kind\":\"%sList\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
		      "\"%llu\"", r->kind, r->api[q->version], rv);
	if (more) {
		char tok[160];

		if (sn == NULL) /* more pages will follow: keep this list as it is now */
			sn = take_snapshot(s, q->res);
		snprintf(tok, sizeof tok, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":%zu,\"snap\":%u}",
			 rv, next, sn->id);
		sb_puts(&b, ",\"continue\":\"");
		sb_base64url(&b, (const unsigned char *)tok, strlen(tok));
		sb_puts(&b, "\"");
		/* The API server counts what is left only when nothing filters. */
		if (q->sel.n == 0)
			sb_printf(&b, ",\"remainingItemCount\":%zu", more);
	}
	sb_puts(&b, "},\"items\":[");
	if (page.p)
		sb_puts(&b, page.p);
	sb_puts(&b, "]}");
	if (!cont)
		s->stats.lists++;
	s->stats.list_pages++;
	pthread_mutex_unlock(&s->mu);
	free(page.p);
	return reply(c, 200, &b, false);
}

static enum MHD_Result handle_get(struct fake_apiserver *s, struct MHD_Connection *c,
				  enum res res, int v, const char *ns, const char *name)
{
	struct sbuf b = { 0 };
	struct state *st;

	pthread_mutex_lock(&s->mu);
	st = store_get(s, res, ns ? ns : "", name);
	if (st)
		sb_puts(&b, st->json[v]);
	pthread_mutex_unlock(&s->mu);
	if (b.p)
		return reply(c, 200, &b, false);
	return reply_object_not_found(c, res, name);
}

/* Called with the mutex held: what a new watch gets before live changes.
 * From resourceVersion 0 the current state as synthetic ADDED events (only
 * what the query selects), else every recorded change after `from` as the
 * watch would have seen it. Returns the resourceVersion it is now at. */
static unsigned long long replay(struct fake_apiserver *s, struct watch *w,
				 unsigned long long from)
{
	if (from == 0) {
		const struct store *t = &s->store[w->q.res];

		for (size_t i = 0; i < t->n; i++)
			if (in_query(&w->q, t->v[i]))
				push_event(w, "ADDED", t->v[i]->json[w->q.version]);
		return s->rv;
	}
	for (size_t i = 0; i < s->nhist; i++)
		if (s->hist[i].cur->rv > from)
			push_change(w, &s->hist[i]);
	return from;
}

/* Takes over the query (leaving *q empty) once the watch is open. */
static enum MHD_Result handle_watch(struct fake_apiserver *s, struct MHD_Connection *c,
				    struct query *q)
{
	const char *rv_s = arg(c, "resourceVersion"), *bm_s = arg(c, "allowWatchBookmarks");
	const char *to_s = arg(c, "timeoutSeconds");
	unsigned long long from = 0, timeout = 0;
	int bookmarks = 0;
	struct MHD_Response *r;
	struct watch *w;
	enum MHD_Result ret;

	if (rv_s && !parse_u64(rv_s, &from)) {
		struct sbuf msg = { 0 };

		sb_printf(&msg, "resourceVersion: Invalid value: \"%s\": must be an unsigned integer",
			  rv_s);
		ret = reply_status(c, 400, msg.p, NULL);
		free(msg.p);
		return ret;
	}
	if (bm_s && (bookmarks = parse_bool(bm_s)) < 0)
		return reply_status(c, 400, "allowWatchBookmarks: Invalid value", NULL);
	if (to_s && !parse_u64(to_s, &timeout))
		return reply_status(c, 400, "timeoutSeconds: Invalid value", NULL);

	pthread_mutex_lock(&s->mu);
	if (from != 0 && from < s->too_old_below) {
		struct sbuf msg = { 0 };

		s->stats.gone++;
		sb_printf(&msg, "too old resource version: %llu (%llu)", from, s->too_old_below);
		pthread_mutex_unlock(&s->mu);
		ret = reply_status(c, 410, msg.p, NULL);
		free(msg.p);
		return ret;
	}
	w = xcalloc(1, sizeof *w);
	w->s = s;
	w->conn = c;
	w->q = *q;
	memset(q, 0, sizeof *q);
	w->bookmarks = bookmarks == 1;
	if (timeout) {
		w->has_deadline = true;
		w->deadline = mono_after_ms((long)(timeout > 86400 ? 86400 : timeout) * 1000);
	}
	w->from = replay(s, w, from);
	w->rv = s->rv > w->from ? s->rv : w->from;
	/* Registered under the same lock as the replay: no change is missed
	 * or sent twice. */
	w->next = s->watches;
	s->watches = w;
	s->open_watches++;
	s->stats.watches++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);

	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, watch_read, w,
					      watch_free);
	if (r == NULL) {
		watch_free(w);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r); /* frees the watch if it was not queued */
	return ret;
}

/* A list or a watch of one collection (ns NULL: every namespace). */
static enum MHD_Result handle_collection(struct fake_apiserver *s, struct MHD_Connection *c,
					 const struct request *rq, enum res res, int v,
					 const char *ns)
{
	struct query q = { .res = res, .version = v };
	const char *watch_s = arg(c, "watch");
	char *fs = query_value(rq->query, "fieldSelector");
	struct sbuf err = { 0 };
	enum MHD_Result ret;
	int watch = 0;

	if (watch_s && (watch = parse_bool(watch_s)) < 0) {
		free(fs);
		return reply_status(c, 400, "watch: Invalid value", NULL);
	}
	if (fs && !selector_parse(res, fs, &q.sel, &err)) {
		free(fs);
		ret = reply_status(c, 400, err.p, NULL);
		free(err.p);
		return ret;
	}
	free(fs);
	q.ns = ns ? xstrdup(ns) : NULL;
	ret = watch ? handle_watch(s, c, &q) : handle_list(s, c, &q);
	query_free(&q);
	return ret;
}

/* ---- pods/binding -------------------------------------------------------- */

/* A decoded Binding; the strings and annotations belong to root. */
struct binding {
	json_object *root;
	const char *uid, *rv, *node;
	json_object *annotations; /* NULL or an object */
};

/* The body as one JSON object (trailing whitespace allowed), or NULL with
 * json-c's reason in msg. */
static json_object *parse_body(const struct request *rq, struct sbuf *msg)
{
	json_tokener *tok = json_tokener_new();
	const char *p = rq->body.p ? rq->body.p : "";
	json_object *o = json_tokener_parse_ex(tok, p, (int)rq->body.len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);

	json_tokener_free(tok);
	if (e == json_tokener_continue || rq->body.len == 0)
		e = json_tokener_error_parse_eof;
	while (e == json_tokener_success && used < rq->body.len && p[used] &&
	       strchr(" \t\r\n", p[used]))
		used++;
	if (e == json_tokener_success && !json_object_is_type(o, json_type_object))
		e = json_tokener_error_parse_unexpected;
	if (e != json_tokener_success || used < rq->body.len) {
		sb_printf(msg, "the object provided is unrecognized (must be of type Binding): "
			       "couldn't get version/kind; json parse error: %s",
			  e != json_tokener_success ? json_tokener_error_desc(e) : "trailing data");
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* ValidatePodBinding: target.kind empty or "Node", target.name set. False
 * with the errors in msg, aggregated as Go prints them ("[a, b]" for two). */
static bool binding_valid(const char *kind, const char *node, struct sbuf *msg)
{
	bool bad_kind = kind[0] && strcmp(kind, "Node") != 0, no_node = node[0] == '\0';

	if (bad_kind && no_node)
		sb_puts(msg, "[");
	if (bad_kind)
		sb_printf(msg, "target.kind: Unsupported value: \"%s\": supported values: "
			       "\"Node\", \"<empty>\"", kind);
	if (bad_kind && no_node)
		sb_puts(msg, ", ");
	if (no_node)
		sb_puts(msg, "target.name: Required value");
	if (bad_kind && no_node)
		sb_puts(msg, "]");
	return !bad_kind && !no_node;
}

/* Decodes and checks a Binding as the create handler and BindingREST.Create
 * do before they look at the pod. 0, or the status to answer (msg set;
 * *reason NULL for the code's usual one). Validation errors are not API
 * errors there, so they come out as 500 with no reason, as on the real
 * server. */
static unsigned binding_parse(const struct request *rq, const char *ns, const char *name,
			      struct binding *b, struct sbuf *msg, const char **reason)
{
	json_object *o, *meta, *ann;
	const char *api, *kind;

	memset(b, 0, sizeof *b);
	*reason = NULL;
	if (rq->too_large) {
		sb_printf(msg, "Request entity too large: limit is %u", MAX_BODY);
		return 413;
	}
	if ((o = parse_body(rq, msg)) == NULL)
		return 400;
	b->root = o;
	api = string_at(o, "apiVersion", NULL);
	kind = string_at(o, "kind", NULL);
	if (api[0] && strcmp(api, "v1") != 0) {
		sb_printf(msg, "the API version in the data (%s) does not match the expected API "
			       "version (v1)", api);
		return 400;
	}
	if (kind[0] && strcmp(kind, "Binding") != 0) {
		sb_printf(msg, "not a Binding object: kind \"%s\"", kind);
		return 400;
	}
	if (string_at(o, "metadata", "namespace")[0] &&
	    strcmp(string_at(o, "metadata", "namespace"), ns) != 0) {
		sb_puts(msg, "the namespace of the provided object does not match the namespace "
			     "sent on the request");
		return 400;
	}
	if (strcmp(string_at(o, "metadata", "name"), name) != 0) {
		sb_puts(msg, "name in URL does not match name in Binding object");
		return 400;
	}
	b->node = string_at(o, "target", "name");
	if (!binding_valid(string_at(o, "target", "kind"), b->node, msg)) {
		*reason = "";
		return 500;
	}
	b->uid = string_at(o, "metadata", "uid");
	b->rv = string_at(o, "metadata", "resourceVersion");
	if (json_object_object_get_ex(o, "metadata", &meta) &&
	    json_object_is_type(meta, json_type_object) &&
	    json_object_object_get_ex(meta, "annotations", &ann) &&
	    json_object_is_type(ann, json_type_object))
		b->annotations = ann;
	return 0;
}

/* Why the API server refuses to bind this pod (409), checked in its order:
 * the storage preconditions (uid, resourceVersion), then the update
 * function's checks. Returns the StatusDetails kind with msg set, or NULL
 * when the binding may go ahead. */
static const char *binding_conflict(json_object *pod, const char *ns, const char *name,
				    const struct binding *b, struct sbuf *msg)
{
	static const char *const what[2] = { "UID", "ResourceVersion" };
	const char *want[2] = { b->uid, b->rv };
	const char *have[2] = { string_at(pod, "metadata", "uid"),
				string_at(pod, "metadata", "resourceVersion") };
	struct sbuf why = { 0 };
	json_object *x;

	for (int k = 0; k < 2; k++) {
		if (want[k][0] && strcmp(want[k], have[k]) != 0) {
			sb_printf(msg, "Operation cannot be fulfilled on pods \"%s\": StorageError: "
				       "invalid object, Code: 4, Key: /registry/pods/%s/%s, "
				       "ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
				       "%s in precondition: %s, %s in object meta: %s",
				  name, ns, name, what[k], want[k], what[k], have[k]);
			return "pods";
		}
	}
	if (json_object_object_get_ex(json_object_object_get(pod, "metadata"), "deletionTimestamp",
				      &x) && x != NULL)
		sb_printf(&why, "pod %s is being deleted, cannot be assigned to a host", name);
	else if (string_at(pod, "spec", "nodeName")[0])
		sb_printf(&why, "pod %s is already assigned to node \"%s\"", name,
			  string_at(pod, "spec", "nodeName"));
	else if (json_object_object_get_ex(json_object_object_get(pod, "spec"), "schedulingGates",
					   &x) &&
		 json_object_is_type(x, json_type_array) && json_object_array_length(x) > 0)
		sb_printf(&why, "pod %s has non-empty .spec.schedulingGates", name);
	if (why.p == NULL)
		return NULL;
	sb_printf(msg, "Operation cannot be fulfilled on pods/binding \"%s\": %s", name, why.p);
	free(why.p);
	return "pods/binding";
}

/* status.conditions gets PodScheduled=True in place of any PodScheduled
 * entry, keeping the old transition time when it was True already
 * (podutil.UpdatePodCondition). */
static void set_scheduled_condition(json_object *status)
{
	json_object *conds, *c = json_object_new_object();
	char now[32];
	const char *since = now;
	size_t i, n;

	if (!json_object_object_get_ex(status, "conditions", &conds) ||
	    !json_object_is_type(conds, json_type_array)) {
		conds = json_object_new_array();
		json_object_object_add(status, "conditions", conds);
	}
	n = json_object_array_length(conds);
	for (i = 0; i < n; i++)
		if (strcmp(string_at(json_object_array_get_idx(conds, i), "type", NULL),
			   "PodScheduled") == 0)
			break;
	rfc3339_now(now);
	if (i < n && strcmp(string_at(json_object_array_get_idx(conds, i), "status", NULL),
			    "True") == 0 &&
	    string_at(json_object_array_get_idx(conds, i), "lastTransitionTime", NULL)[0])
		since = string_at(json_object_array_get_idx(conds, i), "lastTransitionTime", NULL);
	set_string(c, "type", "PodScheduled");
	set_string(c, "status", "True");
	json_object_object_add(c, "lastProbeTime", NULL);
	set_string(c, "lastTransitionTime", since);
	if (i < n)
		json_object_array_put_idx(conds, i, c); /* frees the old entry */
	else
		json_object_array_add(conds, c);
}

/* What setPodHostAndAnnotations writes: the node, the Binding's
 * annotations and the PodScheduled condition. */
static void apply_binding(json_object *pod, const struct binding *b)
{
	set_string(member_object(pod, "spec"), "nodeName", b->node);
	if (b->annotations) {
		json_object *ann = member_object(member_object(pod, "metadata"), "annotations");
		struct json_object_iterator it = json_object_iter_begin(b->annotations);
		struct json_object_iterator end = json_object_iter_end(b->annotations);

		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
			json_object_object_add(ann, json_object_iter_peek_name(&it),
					       json_object_get(json_object_iter_peek_value(&it)));
	}
	set_scheduled_condition(member_object(pod, "status"));
}

/* Called with the mutex held: binds the pod or says why not. 0 (the change
 * is recorded), 404, or 409 with msg and *details_kind set. */
static unsigned bind_locked(struct fake_apiserver *s, const char *ns, const char *name,
			    const struct binding *b, struct sbuf *msg, const char **details_kind)
{
	struct state *st = store_get(s, RES_POD, ns, name);
	json_object *pod;

	if (st == NULL)
		return 404;
	pod = parse_object_or_die(st->json[0]);
	*details_kind = binding_conflict(pod, ns, name, b, msg);
	if (*details_kind) {
		json_object_put(pod);
		s->stats.binding_conflicts++;
		return 409;
	}
	apply_binding(pod, b);
	commit_put(s, render_builtin(RES_POD, pod, ns, name, ++s->rv));
	json_object_put(pod);
	s->stats.bindings++;
	return 0;
}

static enum MHD_Result handle_binding(struct fake_apiserver *s, struct MHD_Connection *c,
				      const struct request *rq, const char *ns, const char *name)
{
	struct sbuf msg = { 0 }, det = { 0 };
	const char *reason, *details_kind = NULL;
	struct binding b;
	enum MHD_Result ret;
	unsigned code = binding_parse(rq, ns, name, &b, &msg, &reason);

	if (code == 0) {
		pthread_mutex_lock(&s->mu);
		code = bind_locked(s, ns, name, &b, &msg, &details_kind);
		pthread_mutex_unlock(&s->mu);
	}
	json_object_put(b.root);
	if (code == 0) {
		sb_puts(&msg, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
			      "\"status\":\"Success\",\"code\":201}");
		return reply(c, 201, &msg, false);
	}
	if (code == 404) {
		free(msg.p);
		return reply_object_not_found(c, RES_POD, name);
	}
	if (details_kind)
		sb_details(&det, name, NULL, details_kind);
	ret = reply_status_reason(c, code, reason, msg.p, det.p);
	free(msg.p);
	free(det.p);
	return ret;
}

/* ---- routing ------------------------------------------------------------- */

/* Discovery for one group version, as kube-apiserver answers for a CRD. */
static enum MHD_Result handle_discovery(struct MHD_Connection *c, int v)
{
	struct sbuf b = { 0 };

	sb_printf(&b, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" GROUP
		      "/%s\",\"resources\":[{\"name\":\"" PLURAL "\",\"singularName\":"
		      "\"noderesourcetopology\",\"namespaced\":false,\"kind\":\"" KIND "\","
		      "\"verbs\":[\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\","
		      "\"create\",\"update\",\"watch\"],\"shortNames\":[\"node-res-topo\"]}]}",
		  versions[v]);
	return reply(c, 200, &b, false);
}

/* The same for resource.k8s.io/v1, as kube-apiserver answers it. */
static enum MHD_Result handle_dra_discovery(struct MHD_Connection *c)
{
	struct sbuf b = { 0 };

	sb_puts(&b, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" DRA_GROUP
		    "/" DRA_VERSION "\",\"resources\":[");
	for (int r = RES_SLICE; r < NRES; r++)
		sb_printf(&b, "%s{\"name\":\"%s\",\"singularName\":\"\",\"namespaced\":%s,\"kind\":\"%s\","
			      "\"verbs\":[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\","
			      "\"patch\",\"update\",\"watch\"]}",
			  r == RES_SLICE ? "" : ",", resources[r].plural,
			  resources[r].namespaced ? "true" : "false", resources[r].kind);
	sb_puts(&b, "]}");
	return reply(c, 200, &b, false);
}

enum target_kind { T_NONE, T_DISCOVERY, T_COLLECTION, T_OBJECT, T_BINDING };

/* What a path names; ns and name point into the split path. */
struct target {
	enum target_kind kind;
	enum res res;
	int version;
	const char *ns, *name;
};

/* Splits "/a/b" into its segments in place (empty ones included); 0 when
 * there are more than max or the path is not absolute. */
static size_t split_path(char *path, char **seg, size_t max)
{
	size_t n = 0;
	char *p = path + 1;

	if (path[0] != '/')
		return 0;
	for (;;) {
		char *slash = strchr(p, '/');

		if (n == max)
			return 0;
		seg[n++] = p;
		if (slash == NULL)
			return n;
		*slash = '\0';
		p = slash + 1;
	}
}

/* /apis/topology.node.k8s.io/VERSION[/noderesourcetopologies[/NAME]] */
static struct target nrt_target(const struct fake_apiserver *s, char **seg, size_t n)
{
	struct target t = { T_NONE, RES_NRT, -1, NULL, NULL };

	for (int k = 0; k < NVERSIONS; k++)
		if (strcmp(seg[2], versions[k]) == 0 && s->serve[k])
			t.version = k;
	if (t.version < 0)
		return t;
	if (n == 3)
		t.kind = T_DISCOVERY;
	else if (strcmp(seg[3], PLURAL) == 0 && n == 4)
		t.kind = T_COLLECTION;
	else if (strcmp(seg[3], PLURAL) == 0 && n == 5 && seg[4][0])
		t.kind = T_OBJECT;
	if (t.kind == T_OBJECT)
		t.name = seg[4];
	return t;
}

/* /api/v1/pods, /api/v1/namespaces/NS/pods[/NAME[/binding]] */
static struct target pod_target(char **seg, size_t n)
{
	struct target t = { T_NONE, RES_POD, 0, NULL, NULL };

	if (n == 3 && strcmp(seg[2], "pods") == 0) {
		t.kind = T_COLLECTION;
		return t;
	}
	if (n < 5 || strcmp(seg[2], "namespaces") != 0 || !seg[3][0] || strcmp(seg[4], "pods") != 0)
		return t;
	t.ns = seg[3];
	t.name = n > 5 ? seg[5] : NULL;
	if (n == 5)
		t.kind = T_COLLECTION;
	else if (n == 6 && seg[5][0])
		t.kind = T_OBJECT;
	else if (n == 7 && seg[5][0] && strcmp(seg[6], "binding") == 0)
		t.kind = T_BINDING;
	return t;
}

/* /apis/resource.k8s.io/v1[/PLURAL[/NAME]] and, for the namespaced kinds,
 * /apis/resource.k8s.io/v1/namespaces/NS/PLURAL[/NAME]. */
static struct target dra_target(const struct fake_apiserver *s, char **seg, size_t n)
{
	struct target t = { T_NONE, RES_SLICE, 0, NULL, NULL };
	size_t at = 3;
	int r;

	(void)s;
	if (strcmp(seg[2], DRA_VERSION) != 0)
		return t;
	if (n == 3) {
		t.kind = T_DISCOVERY;
		return t;
	}
	if (n >= 6 && strcmp(seg[3], "namespaces") == 0 && seg[4][0]) {
		t.ns = seg[4];
		at = 5;
	}
	for (r = RES_SLICE; r < NRES; r++)
		if (strcmp(seg[at], resources[r].plural) == 0 && (t.ns == NULL || resources[r].namespaced))
			break;
	if (r == NRES)
		return t;
	t.res = (enum res)r;
	if (n == at + 1) {
		t.kind = T_COLLECTION;
	} else if (n == at + 2 && seg[at + 1][0] && (t.ns != NULL || !resources[r].namespaced)) {
		t.kind = T_OBJECT;
		t.name = seg[at + 1];
	}
	return t;
}

static struct target parse_target(const struct fake_apiserver *s, char **seg, size_t n)
{
	struct target none = { T_NONE, RES_NRT, -1, NULL, NULL };

	if (n >= 3 && strcmp(seg[0], "apis") == 0 && strcmp(seg[1], DRA_GROUP) == 0)
		return dra_target(s, seg, n);

	if (n >= 3 && strcmp(seg[0], "apis") == 0 && strcmp(seg[1], GROUP) == 0)
		return nrt_target(s, seg, n);
	if (n >= 3 && strcmp(seg[0], "api") == 0 && strcmp(seg[1], "v1") == 0)
		return pod_target(seg, n);
	return none;
}

/* Only GET is served, except POST on pods/binding (a create-only
 * subresource: any other method there is 405 too). */
static enum MHD_Result route(struct fake_apiserver *s, struct MHD_Connection *c,
			     const struct request *rq, const char *url, const char *method)
{
	char *path = xstrdup(url), *seg[MAX_SEGMENTS];
	struct target t = parse_target(s, seg, split_path(path, seg, MAX_SEGMENTS));
	enum MHD_Result ret;

	if (t.kind == T_BINDING && strcmp(method, MHD_HTTP_METHOD_POST) == 0)
		ret = handle_binding(s, c, rq, t.ns, t.name);
	else if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 || t.kind == T_BINDING)
		ret = reply_method_not_allowed(c);
	else if (t.kind == T_NONE)
		ret = reply_not_found_path(c);
	else if (t.kind == T_DISCOVERY && t.res != RES_NRT)
		ret = handle_dra_discovery(c);
	else if (t.kind == T_DISCOVERY)
		ret = handle_discovery(c, t.version);
	else if (t.kind == T_OBJECT)
		ret = handle_get(s, c, t.res, t.version, t.ns, t.name);
	else
		ret = handle_collection(s, c, rq, t.res, t.version, t.ns);
	free(path);
	return ret;
}

/* A POST body is kept up to MAX_BODY; past it, it is dropped and the
 * request gets 413 once it is all in. */
static void request_add_body(struct request *rq, const char *data, size_t n)
{
	if (rq->too_large)
		return;
	if (rq->body.len + n > MAX_BODY) {
		rq->too_large = true;
		free(rq->body.p);
		memset(&rq->body, 0, sizeof rq->body);
		return;
	}
	sb_add(&rq->body, data, n);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_data_size,
				      void **con_cls)
{
	struct fake_apiserver *s = cls;
	struct request *rq = *con_cls;
	int fail = 0;

	(void)version;
	if (rq == NULL) /* request_begin runs first for every request */
		return MHD_NO;
	if (!rq->started) {
		rq->started = true;
		/* A POST body arrives in the next calls: answer once it is in. */
		if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
			return MHD_YES;
	}
	if (*upload_data_size) {
		request_add_body(rq, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}

	/* Authentication comes before everything else, as in the API server. */
	if (!authorized(s, c)) {
		pthread_mutex_lock(&s->mu);
		s->stats.auth_failures++;
		pthread_mutex_unlock(&s->mu);
		return reply_status(c, 401, "Unauthorized", NULL);
	}
	pthread_mutex_lock(&s->mu);
	if (s->fail_count > 0) {
		s->fail_count--;
		fail = s->fail_status;
		if (fail == 410)
			s->stats.gone++;
	}
	pthread_mutex_unlock(&s->mu);
	if (fail) {
		char msg[64];

		snprintf(msg, sizeof msg, "injected failure (HTTP %d)", fail);
		return reply_status(c, (unsigned)fail, msg, NULL);
	}
	return route(s, c, rq, url, method);
}

/* MHD's URI callback: the raw URI, before MHD decodes the query (and turns
 * '+' into a space). What it returns is the request's con_cls. */
static void *request_begin(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct request *rq = xcalloc(1, sizeof *rq);
	const char *q = strchr(uri, '?');

	(void)cls;
	(void)c;
	if (q)
		rq->query = xstrdup(q + 1);
	return rq;
}

static void request_end(void *cls, struct MHD_Connection *c, void **con_cls,
			enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (rq == NULL)
		return;
	free(rq->query);
	free(rq->body.p);
	free(rq);
	*con_cls = NULL;
}

/* ---- lifetime ------------------------------------------------------------ */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = { 0 };
	char chunk[4096];
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "fake_apiserver: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_add(&b, chunk, n);
	fclose(f);
	sb_add(&b, "", 0); /* MHD takes the PEM's length with strlen */
	return b.p;
}

static void wipe_free(char *p)
{
	if (p) {
		volatile char *q = p;

		while (*q)
			*q++ = 0;
		free(p);
	}
}

/* Pod uids need only be unique, but differing between servers (and runs)
 * keeps a test from passing on a uid it should not know. */
static unsigned make_uid_seed(const struct fake_apiserver *s)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (unsigned)t.tv_nsec ^ (unsigned)t.tv_sec ^ (unsigned)getpid() ^
	       (unsigned)(uintptr_t)s;
}

struct fake_apiserver *fake_apiserver_start(const struct fake_apiserver_options *o)
{
	struct fake_apiserver *s = xcalloc(1, sizeof *s);
	struct sockaddr_in addr;
	pthread_condattr_t ca;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_AUTO | MHD_USE_ITC;
	struct MHD_OptionItem ops[8];
	const union MHD_DaemonInfo *info;
	int k = 0;

	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	s->token = o->token ? xstrdup(o->token) : NULL;
	s->serve[0] = o->serve_v1alpha2;
	s->serve[1] = o->serve_v1alpha1;
	s->page_limit_max = o->page_limit_max;
	s->rv = 1;
	s->uid_seed = make_uid_seed(s);

	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = 0;
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &addr };
	if (o->cert_file || o->key_file) {
		s->cert_pem = o->cert_file ? read_text(o->cert_file) : NULL;
		s->key_pem = o->key_file ? read_text(o->key_file) : NULL;
		if (s->cert_pem == NULL || s->key_pem == NULL) {
			fake_apiserver_stop(s);
			return NULL;
		}
		flags |= MHD_USE_TLS;
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert_pem };
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->key_pem };
		ops[k++] = (struct MHD_OptionItem){
			MHD_OPTION_HTTPS_PRIORITIES, 0,
			(void *)(uintptr_t) "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
		};
	}
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, access_handler, s, MHD_OPTION_ARRAY,
				     ops, MHD_OPTION_URI_LOG_CALLBACK, request_begin, s,
				     MHD_OPTION_NOTIFY_COMPLETED, request_end, s, MHD_OPTION_END);
	if (s->daemon == NULL) {
		fprintf(stderr, "fake_apiserver: libmicrohttpd did not start\n");
		fake_apiserver_stop(s);
		return NULL;
	}
	info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : 0;
	return s;
}

void fake_apiserver_stop(struct fake_apiserver *s)
{
	if (s == NULL)
		return;
	/* Wake every blocked stream so that it ends; MHD_stop_daemon joins
	 * the connection threads, whose responses then free their watches.
	 * The mutex must not be held across it. */
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	while (s->watches) { /* none expected: defensive */
		struct watch *next = s->watches->next;

		free_items(s->watches);
		query_free(&s->watches->q);
		free(s->watches);
		s->watches = next;
	}
	for (int r = 0; r < NRES; r++)
		store_free(&s->store[r]);
	free_history(s);
	free(s->hist);
	free_snapshots(s);
	free(s->token);
	free(s->cert_pem);
	wipe_free(s->key_pem);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int fake_apiserver_port(const struct fake_apiserver *s)
{
	return s->port;
}

/* ---- objects ------------------------------------------------------------- */

/* The stored JSON of an object, malloc'd, or NULL. */
static char *get_json(struct fake_apiserver *s, enum res res, const char *ns, const char *name)
{
	struct state *st;
	char *json;

	pthread_mutex_lock(&s->mu);
	st = store_get(s, res, ns, name);
	json = st ? xstrdup(st->json[0]) : NULL;
	pthread_mutex_unlock(&s->mu);
	return json;
}

/* commit_delete under the mutex. */
static unsigned long long delete_locked(struct fake_apiserver *s, enum res res, const char *ns,
					const char *name)
{
	unsigned long long rv;

	pthread_mutex_lock(&s->mu);
	rv = commit_delete(s, res, ns, name);
	pthread_mutex_unlock(&s->mu);
	return rv;
}

unsigned long long fake_apiserver_put(struct fake_apiserver *s, const char *name,
				      const char *object_json)
{
	json_object *o = parse_object_or_die(object_json);
	unsigned long long rv;

	pthread_mutex_lock(&s->mu);
	rv = ++s->rv;
	commit_put(s, render_nrt(o, name, rv));
	pthread_mutex_unlock(&s->mu);
	json_object_put(o);
	return rv;
}

unsigned long long fake_apiserver_delete(struct fake_apiserver *s, const char *name)
{
	return delete_locked(s, RES_NRT, "", name);
}

size_t fake_apiserver_list(struct fake_apiserver *s, char ***names, char ***json)
{
	const struct store *t = &s->store[RES_NRT];
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = t->n;
	*names = xcalloc(n + 1, sizeof **names);
	*json = xcalloc(n + 1, sizeof **json);
	for (size_t i = 0; i < n; i++) {
		(*names)[i] = xstrdup(t->v[i]->field[F_NAME]);
		(*json)[i] = xstrdup(t->v[i]->json[0]);
	}
	pthread_mutex_unlock(&s->mu);
	return n;
}

void fake_apiserver_list_free(char **names, char **json, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (names)
			free(names[i]);
		if (json)
			free(json[i]);
	}
	free(names);
	free(json);
}

unsigned long long fake_apiserver_resource_version(struct fake_apiserver *s)
{
	unsigned long long rv;

	pthread_mutex_lock(&s->mu);
	rv = s->rv;
	pthread_mutex_unlock(&s->mu);
	return rv;
}

/* Called with the mutex held: metadata.uid and .creationTimestamp, which
 * the API server sets on create and never changes, kept from the stored
 * object (old, may be NULL) when the new JSON has none, else made now. */
static void set_birth(struct fake_apiserver *s, json_object *o, const struct state *old)
{
	json_object *meta = member_object(o, "metadata");
	json_object *prev = old ? parse_object_or_die(old->json[0]) : NULL;
	char made[48];

	if (!string_at(o, "metadata", "uid")[0]) {
		const char *uid = prev ? string_at(prev, "metadata", "uid") : "";

		if (!uid[0]) {
			snprintf(made, sizeof made, "%08x-0000-4000-8000-%012llx", s->uid_seed,
				 ++s->next_uid & 0xffffffffffffULL);
			uid = made;
		}
		set_string(meta, "uid", uid);
	}
	if (!string_at(o, "metadata", "creationTimestamp")[0]) {
		const char *at = prev ? string_at(prev, "metadata", "creationTimestamp") : "";

		if (!at[0]) {
			rfc3339_now(made);
			at = made;
		}
		set_string(meta, "creationTimestamp", at);
	}
	json_object_put(prev);
}

/* A new state of a built-in object: its birth fields kept or made, then
 * stored as a change. */
static unsigned long long put_builtin(struct fake_apiserver *s, enum res res, const char *ns,
				     const char *name, const char *object_json)
{
	json_object *o = parse_object_or_die(object_json);
	unsigned long long rv;

	pthread_mutex_lock(&s->mu);
	set_birth(s, o, store_get(s, res, ns, name));
	rv = ++s->rv;
	commit_put(s, render_builtin(res, o, ns, name, rv));
	pthread_mutex_unlock(&s->mu);
	json_object_put(o);
	return rv;
}

unsigned long long fake_apiserver_pod_put(struct fake_apiserver *s, const char *namespace_,
					  const char *name, const char *pod_json)
{
	return put_builtin(s, RES_POD, namespace_, name, pod_json);
}

unsigned long long fake_apiserver_pod_delete(struct fake_apiserver *s, const char *namespace_,
					     const char *name)
{
	return delete_locked(s, RES_POD, namespace_, name);
}

char *fake_apiserver_pod_get(struct fake_apiserver *s, const char *namespace_, const char *name)
{
	return get_json(s, RES_POD, namespace_, name);
}

/* ---- faults -------------------------------------------------------------- */

void fake_apiserver_disconnect_watches(struct fake_apiserver *s)
{
	pthread_mutex_lock(&s->mu);
	for (struct watch *w = s->watches; w; w = w->next)
		w->aborted = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void fake_apiserver_fail_next(struct fake_apiserver *s, int status, int count)
{
	pthread_mutex_lock(&s->mu);
	s->fail_status = status;
	s->fail_count = count > 0 ? count : 0;
	pthread_mutex_unlock(&s->mu);
}

void fake_apiserver_expire_history(struct fake_apiserver *s)
{
	pthread_mutex_lock(&s->mu);
	s->rv++;
	s->too_old_below = s->rv;
	free_history(s);
	free_snapshots(s);
	pthread_mutex_unlock(&s->mu);
}

void fake_apiserver_send_error_event_410(struct fake_apiserver *s)
{
	pthread_mutex_lock(&s->mu);
	for (struct watch *w = s->watches; w; w = w->next) {
		struct sbuf b = { 0 }, msg = { 0 };

		if (w->ending || w->aborted)
			continue;
		sb_printf(&msg, "too old resource version: %llu (%llu)", w->rv, s->rv);
		sb_puts(&b, "{\"type\":\"ERROR\",\"object\":");
		sb_status(&b, 410, NULL, msg.p, NULL);
		sb_puts(&b, "}\n");
		push_item(w, b.p, b.len, false);
		push_item(w, "", 0, true);
		w->ending = true;
		s->stats.gone++;
		free(b.p);
		free(msg.p);
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void fake_apiserver_stall_watches(struct fake_apiserver *s, bool stall)
{
	pthread_mutex_lock(&s->mu);
	s->stalled = stall;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void fake_apiserver_send_garbage(struct fake_apiserver *s, const char *line)
{
	struct sbuf b = { 0 };

	sb_puts(&b, line);
	sb_puts(&b, "\n");
	pthread_mutex_lock(&s->mu);
	for (struct watch *w = s->watches; w; w = w->next)
		if (!w->ending)
			push_item(w, b.p, b.len, false);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	free(b.p);
}

void fake_apiserver_send_bookmark(struct fake_apiserver *s)
{
	pthread_mutex_lock(&s->mu);
	for (struct watch *w = s->watches; w; w = w->next) {
		const struct resource *r = &resources[w->q.res];
		struct sbuf b = { 0 };

		if (w->ending || !w->bookmarks)
			continue;
		sb_printf(&b, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\","
			      "\"metadata\":{\"resourceVersion\":\"%llu\"}}}\n",
			  r->kind, r->api[w->q.version], s->rv);
		push_item(w, b.p, b.len, false);
		w->rv = s->rv;
		free(b.p);
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

/* ---- observation --------------------------------------------------------- */

void fake_apiserver_stats(struct fake_apiserver *s, struct fake_apiserver_stats *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->stats;
	pthread_mutex_unlock(&s->mu);
}

bool fake_apiserver_wait_watches(struct fake_apiserver *s, unsigned n, int timeout_ms)
{
	struct timespec until = mono_after_ms(timeout_ms);
	bool ok;

	pthread_mutex_lock(&s->mu);
	while (s->open_watches != n &&
	       pthread_cond_timedwait(&s->cond, &s->mu, &until) != ETIMEDOUT)
		;
	ok = s->open_watches == n;
	pthread_mutex_unlock(&s->mu);
	return ok;
}

/* ---- resource.k8s.io/v1 -------------------------------------------------- */

static enum res dra_res(enum dra_kind kind)
{
	return (enum res)(RES_SLICE + (int)kind);
}

/* The store's key namespace of a DRA object: "" when cluster-scoped. */
static const char *dra_ns(enum res res, const char *namespace_)
{
	return resources[res].namespaced && namespace_ ? namespace_ : "";
}

unsigned long long fake_apiserver_dra_put(struct fake_apiserver *s, enum dra_kind kind,
					  const char *namespace_, const char *name,
					  const char *object_json)
{
	enum res res = dra_res(kind);

	return put_builtin(s, res, dra_ns(res, namespace_), name, object_json);
}

unsigned long long fake_apiserver_dra_delete(struct fake_apiserver *s, enum dra_kind kind,
					     const char *namespace_, const char *name)
{
	enum res res = dra_res(kind);

	return delete_locked(s, res, dra_ns(res, namespace_), name);
}

char *fake_apiserver_dra_get(struct fake_apiserver *s, enum dra_kind kind, const char *namespace_,
			     const char *name)
{
	enum res res = dra_res(kind);

	return get_json(s, res, dra_ns(res, namespace_), name);
}
