/* SPDX-License-Identifier: Apache-2.0 */
/* The fake Kubernetes API server: libmicrohttpd in thread-per-connection
 * mode (a watch stream's content reader may then block), an object store,
 * a change history for watch replay, list snapshots behind continue tokens,
 * and per-watch queues of lines for events and faults. json-c is used only
 * inside put/delete, on trees local to the call. */

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

#include "topology/alloc.h"

#define GROUP "topology.node.k8s.io"
#define PLURAL "noderesourcetopologies"
#define KIND "NodeResourceTopology"
#define NVERSIONS 2
/* How often an idle stream checks whether its client hung up. */
#define POLL_MS 50
/* Continue tokens older than the newest this many lists answer 410, as a
 * compacted etcd revision would. */
#define MAX_SNAPSHOTS 64

/* Index 0 is the storage version. */
static const char *const versions[NVERSIONS] = { "v1alpha2", "v1alpha1" };

enum change_type { CHANGE_ADDED, CHANGE_MODIFIED, CHANGE_DELETED };
static const char *const change_names[] = { "ADDED", "MODIFIED", "DELETED" };

struct object {
	char *name;
	unsigned long long rv;
	char *json[NVERSIONS]; /* the same object with each apiVersion */
};

struct change {
	unsigned long long rv;
	enum change_type type;
	char *json[NVERSIONS];
};

/* The items of a paged list at its resourceVersion: later pages come from
 * here, so a list is consistent across pages as with etcd's MVCC reads. */
struct snapshot {
	struct snapshot *next;
	unsigned id;
	unsigned long long rv;
	size_t n;
	char **json[NVERSIONS];
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
	int version;
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
	struct object *objs;             /* sorted by name */
	size_t nobjs, capobjs;
	struct change *hist;             /* every change since the last expiry */
	size_t nhist, caphist;
	struct snapshot *snaps;          /* newest first */
	size_t nsnaps;
	unsigned next_snap;

	struct watch *watches;
	unsigned open_watches;
	int fail_status, fail_count;
	bool stalled, stopping;
	struct fake_apiserver_stats stats;
};

/* ---- text ---------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
};

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
	case 429: return "TooManyRequests";
	case 500: return "InternalError";
	case 503: return "ServiceUnavailable";
	case 504: return "Timeout";
	default: return "";
	}
}

/* A metav1.Status body; `details` is raw JSON or NULL. */
static void sb_status(struct sbuf *b, unsigned code, const char *message, const char *details)
{
	sb_puts(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		   "\"status\":\"Failure\",\"message\":");
	sb_json_string(b, message);
	if (reason_for(code)[0])
		sb_printf(b, ",\"reason\":\"%s\"", reason_for(code));
	if (details)
		sb_printf(b, ",\"details\":%s", details);
	sb_printf(b, ",\"code\":%u}", code);
}

static enum MHD_Result reply_status(struct MHD_Connection *c, unsigned code, const char *message,
				    const char *details)
{
	struct sbuf b = { 0 };
	bool retry = code == 429 || code == 503;

	sb_status(&b, code, message, details);
	return reply(c, code, &b, retry);
}

static enum MHD_Result reply_not_found_path(struct MHD_Connection *c)
{
	/* What kube-apiserver's notfoundhandler answers for unserved paths. */
	return reply_status(c, 404, "the server could not find the requested resource", "{}");
}

/* ---- store --------------------------------------------------------------- */

/* Index of name, or where it would go (with *found false). */
static size_t find_object(const struct fake_apiserver *s, const char *name, bool *found)
{
	size_t lo = 0, hi = s->nobjs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(s->objs[mid].name, name);

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

static void free_versions(char *json[NVERSIONS])
{
	for (int v = 0; v < NVERSIONS; v++) {
		free(json[v]);
		json[v] = NULL;
	}
}

static void free_snapshot(struct snapshot *sn)
{
	for (int v = 0; v < NVERSIONS; v++) {
		for (size_t i = 0; i < sn->n; i++)
			free(sn->json[v][i]);
		free(sn->json[v]);
	}
	free(sn);
}

static void free_history(struct fake_apiserver *s)
{
	for (size_t i = 0; i < s->nhist; i++)
		free_versions(s->hist[i].json);
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

/* Sets the server-owned fields and renders the object in every version. */
static void render(json_object *o, const char *name, unsigned long long rv, char *out[NVERSIONS])
{
	json_object *meta;
	char rvs[32];

	if (!json_object_object_get_ex(o, "metadata", &meta) ||
	    !json_object_is_type(meta, json_type_object)) {
		meta = json_object_new_object();
		json_object_object_add(o, "metadata", meta);
	}
	snprintf(rvs, sizeof rvs, "%llu", rv);
	json_object_object_add(meta, "name", json_object_new_string(name));
	json_object_object_add(meta, "resourceVersion", json_object_new_string(rvs));
	json_object_object_add(o, "kind", json_object_new_string(KIND));
	for (int v = 0; v < NVERSIONS; v++) {
		char api[64];

		snprintf(api, sizeof api, GROUP "/%s", versions[v]);
		json_object_object_add(o, "apiVersion", json_object_new_string(api));
		out[v] = xstrdup(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	}
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

/* Called with the mutex held: records the change and queues it on every
 * watch that has not ended. */
static void record_change(struct fake_apiserver *s, enum change_type type, unsigned long long rv,
			  char *json[NVERSIONS])
{
	struct change *ch;

	if (s->nhist == s->caphist) {
		s->caphist = s->caphist ? s->caphist * 2 : 16;
		s->hist = xreallocarray(s->hist, s->caphist, sizeof *s->hist);
	}
	ch = &s->hist[s->nhist++];
	ch->rv = rv;
	ch->type = type;
	for (int v = 0; v < NVERSIONS; v++)
		ch->json[v] = xstrdup(json[v]);
	for (struct watch *w = s->watches; w; w = w->next) {
		if (w->ending || rv <= w->from)
			continue;
		push_event(w, change_names[type], json[w->version]);
		w->rv = rv;
	}
	pthread_cond_broadcast(&s->cond);
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

static void list_item_json(struct sbuf *b, const char *const *items, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (i > from)
			sb_puts(b, ",");
		sb_puts(b, items[i]);
	}
}

static enum MHD_Result handle_list(struct fake_apiserver *s, struct MHD_Connection *c, int v)
{
	const char *limit_s = arg(c, "limit"), *cont = arg(c, "continue");
	unsigned long long limit = 0, rv;
	struct sbuf b = { 0 };
	struct snapshot *sn = NULL;
	const char *const *items;
	const char **tmp = NULL;
	size_t n, start = 0, end;

	if (limit_s && !parse_u64(limit_s, &limit))
		return reply_status(c, 400, "limit: Invalid value: must be a non-negative integer",
				    NULL);
	if (limit && s->page_limit_max && limit > s->page_limit_max)
		limit = s->page_limit_max;

	pthread_mutex_lock(&s->mu);
	if (cont) {
		struct sbuf raw = { 0 };
		unsigned long long tok_rv = 0;
		unsigned id = 0;
		size_t off = 0;
		int used = -1;

		if (base64_decode(cont, &raw))
			sscanf(raw.p, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":%zu,\"snap\":%u}%n",
			       &tok_rv, &off, &id, &used);
		if (used < 0 || (size_t)used != raw.len) {
			pthread_mutex_unlock(&s->mu);
			free(raw.p);
			return reply_status(c, 400, "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)", NULL);
		}
		free(raw.p);
		for (sn = s->snaps; sn && sn->id != id; sn = sn->next)
			;
		if (sn == NULL || tok_rv < s->too_old_below || sn->rv != tok_rv || off > sn->n) {
			s->stats.gone++;
			pthread_mutex_unlock(&s->mu);
			return reply_status(c, 410, "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.", NULL);
		}
		items = (const char *const *)sn->json[v];
		n = sn->n;
		start = off;
		rv = sn->rv;
	} else {
		tmp = xcalloc(s->nobjs + 1, sizeof *tmp);
		for (size_t i = 0; i < s->nobjs; i++)
			tmp[i] = s->objs[i].json[v];
		items = tmp;
		n = s->nobjs;
		rv = s->rv;
		if (limit && n > limit) {
			/* More pages will follow: keep this list as it is now. */
			sn = xcalloc(1, sizeof *sn);
			sn->id = ++s->next_snap;
			sn->rv = rv;
			sn->n = n;
			for (int k = 0; k < NVERSIONS; k++) {
				sn->json[k] = xcalloc(n, sizeof(char *));
				for (size_t i = 0; i < n; i++)
					sn->json[k][i] = xstrdup(s->objs[i].json[k]);
			}
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
		}
	}
	end = limit && n - start > limit ? start + (size_t)limit : n;
	sb_printf(&b, "{\"kind\":\"" KIND "List\",\"apiVersion\":\"" GROUP "/%s\","
		      "\"metadata\":{\"resourceVersion\":\"%llu\"", versions[v], rv);
	if (end < n) {
		char tok[160];

		snprintf(tok, sizeof tok, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":%zu,\"snap\":%u}",
			 rv, end, sn->id);
		sb_puts(&b, ",\"continue\":\"");
		sb_base64url(&b, (const unsigned char *)tok, strlen(tok));
		sb_printf(&b, "\",\"remainingItemCount\":%zu", n - end);
	}
	sb_puts(&b, "},\"items\":[");
	list_item_json(&b, items, start, end);
	sb_puts(&b, "]}");
	if (!cont)
		s->stats.lists++;
	s->stats.list_pages++;
	pthread_mutex_unlock(&s->mu);
	free(tmp);
	return reply(c, 200, &b, false);
}

static enum MHD_Result handle_get(struct fake_apiserver *s, struct MHD_Connection *c, int v,
				  const char *name)
{
	struct sbuf b = { 0 };
	size_t i;
	bool found;

	pthread_mutex_lock(&s->mu);
	i = find_object(s, name, &found);
	if (found)
		sb_puts(&b, s->objs[i].json[v]);
	pthread_mutex_unlock(&s->mu);
	if (found)
		return reply(c, 200, &b, false);
	{
		struct sbuf msg = { 0 }, det = { 0 };
		enum MHD_Result ret;

		sb_printf(&msg, PLURAL "." GROUP " \"%s\" not found", name);
		sb_puts(&det, "{\"name\":");
		sb_json_string(&det, name);
		sb_puts(&det, ",\"group\":\"" GROUP "\",\"kind\":\"" PLURAL "\"}");
		ret = reply_status(c, 404, msg.p, det.p);
		free(msg.p);
		free(det.p);
		return ret;
	}
}

static enum MHD_Result handle_watch(struct fake_apiserver *s, struct MHD_Connection *c, int v)
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

	w = xcalloc(1, sizeof *w);
	w->s = s;
	w->conn = c;
	w->version = v;
	w->bookmarks = bookmarks == 1;
	if (timeout) {
		w->has_deadline = true;
		w->deadline = mono_after_ms((long)(timeout > 86400 ? 86400 : timeout) * 1000);
	}

	pthread_mutex_lock(&s->mu);
	if (from != 0 && from < s->too_old_below) {
		struct sbuf msg = { 0 };

		s->stats.gone++;
		sb_printf(&msg, "too old resource version: %llu (%llu)", from, s->too_old_below);
		pthread_mutex_unlock(&s->mu);
		free(w);
		ret = reply_status(c, 410, msg.p, NULL);
		free(msg.p);
		return ret;
	}
	if (from == 0) {
		/* Unset or "0": the current state as synthetic ADDED events,
		 * then changes from now on. */
		for (size_t i = 0; i < s->nobjs; i++)
			push_event(w, "ADDED", s->objs[i].json[v]);
		from = s->rv;
	} else {
		for (size_t i = 0; i < s->nhist; i++)
			if (s->hist[i].rv > from)
				push_event(w, change_names[s->hist[i].type], s->hist[i].json[v]);
	}
	w->from = from;
	w->rv = s->rv > from ? s->rv : from;
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

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_data_size,
				      void **con_cls)
{
	static const char prefix[] = "/apis/" GROUP "/";
	struct fake_apiserver *s = cls;
	const char *rest, *slash;
	int v = -1, watch = 0, fail = 0;
	const char *watch_s;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;

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
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0)
		return reply_status(c, 405, "the server does not allow this method on the requested resource", NULL);

	if (strncmp(url, prefix, sizeof prefix - 1) != 0)
		return reply_not_found_path(c);
	rest = url + sizeof prefix - 1;
	slash = strchr(rest, '/');
	for (int k = 0; k < NVERSIONS; k++) {
		size_t len = strlen(versions[k]);

		if (strncmp(rest, versions[k], len) == 0 && (rest[len] == '/' || rest[len] == '\0'))
			v = k;
	}
	if (v < 0 || !s->serve[v])
		return reply_not_found_path(c);
	if (slash == NULL)
		return handle_discovery(c, v);
	rest = slash + 1;
	if (strncmp(rest, PLURAL, strlen(PLURAL)) != 0)
		return reply_not_found_path(c);
	rest += strlen(PLURAL);
	if (rest[0] == '/' && rest[1] != '\0' && strchr(rest + 1, '/') == NULL)
		return handle_get(s, c, v, rest + 1);
	if (rest[0] != '\0')
		return reply_not_found_path(c);

	watch_s = arg(c, "watch");
	if (watch_s && (watch = parse_bool(watch_s)) < 0)
		return reply_status(c, 400, "watch: Invalid value", NULL);
	return watch ? handle_watch(s, c, v) : handle_list(s, c, v);
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
				     ops, MHD_OPTION_END);
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
		free(s->watches);
		s->watches = next;
	}
	for (size_t i = 0; i < s->nobjs; i++) {
		free(s->objs[i].name);
		free_versions(s->objs[i].json);
	}
	free(s->objs);
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

unsigned long long fake_apiserver_put(struct fake_apiserver *s, const char *name,
				      const char *object_json)
{
	json_object *o = parse_object_or_die(object_json);
	char *json[NVERSIONS];
	unsigned long long rv;
	struct object *ob;
	bool found;
	size_t i;

	pthread_mutex_lock(&s->mu);
	rv = ++s->rv;
	render(o, name, rv, json);
	i = find_object(s, name, &found);
	if (!found) {
		if (s->nobjs == s->capobjs) {
			s->capobjs = s->capobjs ? s->capobjs * 2 : 16;
			s->objs = xreallocarray(s->objs, s->capobjs, sizeof *s->objs);
		}
		memmove(&s->objs[i + 1], &s->objs[i], (s->nobjs - i) * sizeof *s->objs);
		s->nobjs++;
		s->objs[i].name = xstrdup(name);
	} else {
		free_versions(s->objs[i].json);
	}
	ob = &s->objs[i];
	ob->rv = rv;
	for (int v = 0; v < NVERSIONS; v++)
		ob->json[v] = json[v];
	record_change(s, found ? CHANGE_MODIFIED : CHANGE_ADDED, rv, ob->json);
	pthread_mutex_unlock(&s->mu);
	json_object_put(o);
	return rv;
}

unsigned long long fake_apiserver_delete(struct fake_apiserver *s, const char *name)
{
	char *json[NVERSIONS];
	unsigned long long rv;
	json_object *o;
	bool found;
	size_t i;

	pthread_mutex_lock(&s->mu);
	i = find_object(s, name, &found);
	if (!found) {
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	rv = ++s->rv;
	o = parse_object_or_die(s->objs[i].json[0]);
	render(o, name, rv, json);
	json_object_put(o);
	free(s->objs[i].name);
	free_versions(s->objs[i].json);
	memmove(&s->objs[i], &s->objs[i + 1], (s->nobjs - i - 1) * sizeof *s->objs);
	s->nobjs--;
	record_change(s, CHANGE_DELETED, rv, json);
	free_versions(json);
	pthread_mutex_unlock(&s->mu);
	return rv;
}

size_t fake_apiserver_list(struct fake_apiserver *s, char ***names, char ***json)
{
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->nobjs;
	*names = xcalloc(n + 1, sizeof **names);
	*json = xcalloc(n + 1, sizeof **json);
	for (size_t i = 0; i < n; i++) {
		(*names)[i] = xstrdup(s->objs[i].name);
		(*json)[i] = xstrdup(s->objs[i].json[0]);
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
		sb_status(&b, 410, msg.p, NULL);
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
		struct sbuf b = { 0 };

		if (w->ending || !w->bookmarks)
			continue;
		sb_printf(&b, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" KIND "\",\"apiVersion\":\""
			      GROUP "/%s\",\"metadata\":{\"resourceVersion\":\"%llu\"}}}\n",
			  versions[w->version], s->rv);
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
