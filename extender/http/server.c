/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd glue: a poll thread pool (the verbs only use the CPU),
 * the per-request body buffer capped before it grows and counted against a
 * bound shared by all requests, mTLS verification cached per connection, a
 * deadline for receiving each request enforced by a sweeper thread, the
 * connection limit kept here rather than by libmicrohttpd, and
 * quiesce -> drain -> stop on shutdown.
 *
 * The connection limit: libmicrohttpd stops accept()ing when its own limit
 * is reached (per worker thread), so connections over it waited in the
 * kernel's listen backlog, served first in, first out, behind every silent
 * connection ahead of them: slots came free only in waves of the request
 * timeout. Its limit is therefore set far above limits.maxConnections (the
 * listen socket is always polled) and ours is kept by the accept policy
 * callback, which runs for every accepted socket after libmicrohttpd's
 * per-address cap: at the limit, a new connection makes room by closing the
 * connection of its listener that has waited longest for a request (first
 * one that has not delivered its whole request, else one idle between
 * requests); a connection whose request has arrived (being judged or
 * answered) is never closed for room. When there is none to close, the new
 * one is closed at once.
 *
 * Poll, not epoll: libmicrohttpd 0.9.75's edge-triggered epoll loop misses
 * the end of a connection whose last data and FIN arrive together (a short
 * read clears "read ready" and no new edge comes), leaving the socket in
 * CLOSE-WAIT, its slot taken and its request in flight until the idle
 * timeout. Poll is level-triggered and sees the EOF at once. */
#include "extender/http/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/decide/pool.h"
#include "extender/http/heap.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/net_addr.h"
#include "base/xalloc.h"

enum route {
	ROUTE_FILTER,
	ROUTE_PRIORITIZE,
	ROUTE_HEALTHZ,
	ROUTE_READYZ,
	ROUTE_METRICS,
	ROUTE_BIND,
	ROUTE_PREEMPT,
	ROUTE_LEDGER,
	ROUTE_NONE,
};

struct conn_state;

struct conn_queue {
	struct conn_state *head, *tail;
};

struct listener {
	struct MHD_Daemon *daemon;
	int port;
	bool main;          /* serves the verbs */
	bool health;        /* serves /healthz /readyz /metrics */
	bool mtls;
	struct server *server;
	/* Under the server's conns_lock. Each queue is in the order its
	 * connections entered it, so also in the order of their deadlines. */
	struct conn_queue waiting, idle;
	int64_t live;     /* registered and not being closed */
	int64_t pending;  /* let in by the accept policy, not registered yet */
};

/* Where a connection is; each change is made under conns_lock. */
enum conn_phase {
	PHASE_WAITING, /* accepted, or a request line on a kept-alive one: receiving a request */
	PHASE_IDLE,    /* kept alive between requests */
	PHASE_BUSY,    /* its request is in: being judged or answered */
	PHASE_CLOSING, /* shut down by us, waiting for libmicrohttpd to close it */
};

/* Per connection (MHD's socket context), from accept to close. */
struct conn_state {
	struct conn_state *prev, *next;  /* its listener's queue (waiting, idle) */
	struct listener *l;
	MHD_socket fd;
	int verified;                    /* mTLS: 0 unknown, 1 verified, -1 refused */
	enum conn_phase phase;
	/* Monotonic ms by which the request being received must be complete
	 * (waiting), or the keep-alive wait for the next one is over (idle). */
	int64_t deadline_ms;
};

struct server {
	struct listener main, metrics;
	const struct handler_ctx *ctx;
	/* Ours when the caller's context has none (handler_ctx.pool). */
	struct decide_pool *own_pool;
	char *filter_path, *prioritize_path, *bind_path, *preempt_path;
	int64_t max_body;
	int64_t max_buffered;
	int64_t request_timeout_ms, idle_timeout_ms;
	int64_t max_conns;                    /* per listener */
	char *cert_pem, *key_pem, *ca_pem;
	char **client_names;
	size_t nclient_names;
	_Atomic bool draining;
	_Atomic int inflight;
	_Atomic int64_t buffered;             /* bytes reserved by request bodies */
	_Atomic uint64_t busy_refusals;       /* 503: maxBufferedBytes reached */
	_Atomic uint64_t aborted;             /* requests ended without a reply sent */

	/* Guards every conn_state's phase and queue, the listeners' queues
	 * and counts, and the counters below. A connection leaves its queue
	 * (NOTIFY_CLOSED) before libmicrohttpd closes its socket, so a socket
	 * found in a queue under the lock is still that connection's. */
	pthread_mutex_t conns_lock;
	pthread_cond_t sweeper_wake;
	int64_t nconns;                       /* registered, all listeners */
	uint64_t request_timeouts;            /* closed by the deadline */
	uint64_t evicted;                     /* closed to make room for a new one */
	uint64_t refused;                     /* new ones closed at once: no room */
	uint64_t logged_evicted, logged_refused;
	int64_t room_logged_ms;
	bool sweeper_stop;
	bool sweeper_running;
	pthread_t sweeper;
};

struct request {
	enum route route;
	char *ledger_node;  /* /ledger/<node> */
	char *body;
	size_t len, cap;
	size_t reserved;    /* bytes counted in server->buffered */
	bool too_big;
	bool busy;          /* the shared buffer bound refused this body */
	bool counted;       /* counted in inflight */
	struct timespec start;
};

static int64_t now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static double elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* The scheduler's verbs: POST with a JSON body. */
static bool is_verb(enum route r)
{
	return r == ROUTE_FILTER || r == ROUTE_PRIORITIZE || r == ROUTE_BIND || r == ROUTE_PREEMPT;
}

static enum metrics_verb verb_of(enum route r)
{
	return r == ROUTE_FILTER ? METRICS_FILTER : r == ROUTE_PRIORITIZE ? METRICS_PRIORITIZE
									  : METRICS_OTHER;
}

static void request_received(struct server *s, struct MHD_Connection *c);

static enum MHD_Result send_reply(struct server *s, struct MHD_Connection *c,
				  struct request *req, struct reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(r->body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
	if (r->status == 405)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					is_verb(req->route) ? "POST" : "GET");
	if (atomic_load(&s->draining))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	request_received(s, c);
	ret = MHD_queue_response(c, (unsigned int)r->status, resp);
	MHD_destroy_response(resp);
	metrics_request(verb_of(req->route), r->status, elapsed(&req->start));
	return ret;
}

static enum MHD_Result send_text(struct server *s, struct MHD_Connection *c,
				 struct request *req, int status, const char *text)
{
	struct reply r;

	reply_text(&r, status, text);
	return send_reply(s, c, req, &r);
}

static enum route route_of(const struct server *s, const struct listener *l, const char *url,
			   struct request *req)
{
	if (l->main && strcmp(url, s->filter_path) == 0)
		return ROUTE_FILTER;
	if (l->main && strcmp(url, s->prioritize_path) == 0)
		return ROUTE_PRIORITIZE;
	if (l->main && s->ctx->binder && strcmp(url, s->bind_path) == 0)
		return ROUTE_BIND;
	if (l->main && strcmp(url, s->preempt_path) == 0)
		return ROUTE_PREEMPT;
	/* Without a ledger these answer 404 saying why (handle_get). */
	if (l->health && strcmp(url, "/ledger") == 0)
		return ROUTE_LEDGER;
	if (l->health && strncmp(url, "/ledger/", 8) == 0 && url[8] != '\0') {
		req->ledger_node = xstrdup(url + 8);
		return ROUTE_LEDGER;
	}
	if (l->health && strcmp(url, "/healthz") == 0)
		return ROUTE_HEALTHZ;
	if (l->health && strcmp(url, "/readyz") == 0)
		return ROUTE_READYZ;
	if (l->health && strcmp(url, "/metrics") == 0)
		return ROUTE_METRICS;
	return ROUTE_NONE;
}

/* The peer's certificate must chain to the client CA (MHD's trust) for
 * client authentication, and name an allowed client when a list is set. */
static bool client_allowed(struct server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t session;
	const gnutls_datum_t *peers;
	gnutls_x509_crt_t crt;
	unsigned int status = 0, npeers = 0, i, k;
	gnutls_typed_vdata_st purpose;
	bool ok = false;
	char buf[512];
	size_t size;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (ci == NULL || ci->tls_session == NULL)
		return false;
	session = (gnutls_session_t)ci->tls_session;
	memset(&purpose, 0, sizeof purpose);
	purpose.type = GNUTLS_DT_KEY_PURPOSE_OID;
	purpose.data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_CLIENT;
	if (gnutls_certificate_verify_peers(session, &purpose, 1, &status) != 0 || status != 0)
		return false;
	peers = gnutls_certificate_get_peers(session, &npeers);
	if (peers == NULL || npeers == 0)
		return false;
	if (s->nclient_names == 0)
		return true;
	if (gnutls_x509_crt_init(&crt) != 0)
		return false;
	if (gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) == 0) {
		size = sizeof buf;
		if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &size) == 0)
			for (k = 0; k < s->nclient_names && !ok; k++)
				ok = strcmp(buf, s->client_names[k]) == 0;
		for (i = 0; !ok; i++) {
			size = sizeof buf;
			int type = gnutls_x509_crt_get_subject_alt_name(crt, i, buf, &size, NULL);

			if (type < 0)
				break;
			if (type != GNUTLS_SAN_DNSNAME)
				continue;
			for (k = 0; k < s->nclient_names && !ok; k++)
				ok = strcmp(buf, s->client_names[k]) == 0;
		}
	}
	gnutls_x509_crt_deinit(crt);
	return ok;
}

static struct conn_state *conn_state_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? (struct conn_state *)ci->socket_context : NULL;
}

static struct conn_queue *queue_of(struct conn_state *cs)
{
	if (cs->phase == PHASE_WAITING)
		return &cs->l->waiting;
	if (cs->phase == PHASE_IDLE)
		return &cs->l->idle;
	return NULL;
}

/* Moves cs to phase (under conns_lock): out of its queue, and to the tail
 * of the new one, since it enters it last. */
static void set_phase(struct conn_state *cs, enum conn_phase phase, int64_t deadline_ms)
{
	struct conn_queue *q = queue_of(cs);

	if (q != NULL) {
		if (cs->prev)
			cs->prev->next = cs->next;
		else
			q->head = cs->next;
		if (cs->next)
			cs->next->prev = cs->prev;
		else
			q->tail = cs->prev;
	}
	cs->prev = cs->next = NULL;
	cs->phase = phase;
	cs->deadline_ms = deadline_ms;
	q = queue_of(cs);
	if (q != NULL) {
		cs->prev = q->tail;
		if (q->tail)
			q->tail->next = cs;
		else
			q->head = cs;
		q->tail = cs;
	}
}

/* Shuts down cs's socket (under conns_lock). The shutdown wakes the
 * connection's thread (poll reports the EOF), which closes it and ends its
 * request through the usual paths (request_completed, NOTIFY_CLOSED), so
 * nothing is freed here; its slot is free from now on. */
static void close_conn(struct conn_state *cs)
{
	set_phase(cs, PHASE_CLOSING, 0);
	cs->l->live--;
	if (cs->fd != MHD_INVALID_SOCKET)
		shutdown(cs->fd, SHUT_RDWR);
}

/* The listener whose connection this thread's last accept let in, until
 * that connection is registered. libmicrohttpd accepts, asks the accept
 * policy and registers (NOTIFY_STARTED) on one thread, one socket at a
 * time; a socket it drops in between (out of memory) is never registered,
 * and its reservation is given back at the thread's next accept. */
static _Thread_local struct listener *reserved_on;

static void forget_reservation(void)
{
	if (reserved_on != NULL) {
		reserved_on->pending--;
		reserved_on = NULL;
	}
}

/* libmicrohttpd's accept policy, after its per-address cap: a connection
 * over limits.maxConnections takes the slot of the one that has waited
 * longest for a request (see the top of the file), or is closed at once
 * when every connection has its request in. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct listener *l = cls;
	struct server *s = l->server;
	enum MHD_Result ok = MHD_YES;

	(void)addr;
	(void)addrlen;
	pthread_mutex_lock(&s->conns_lock);
	forget_reservation();
	while (l->live + l->pending >= s->max_conns) {
		struct conn_state *victim = l->waiting.head ? l->waiting.head : l->idle.head;

		if (victim == NULL) {
			s->refused++;
			ok = MHD_NO;
			break;
		}
		close_conn(victim);
		s->evicted++;
	}
	if (ok == MHD_YES) {
		l->pending++;
		reserved_on = l;
	}
	pthread_mutex_unlock(&s->conns_lock);
	return ok;
}

/* A new connection must deliver its first request (TLS handshake included)
 * within the request timeout; it joins its listener's waiting queue. */
static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct listener *l = cls;
	struct server *s = l->server;
	struct conn_state *cs;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci;

		cs = xcalloc(1, sizeof *cs);
		cs->l = l;
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		cs->fd = ci ? ci->connect_fd : MHD_INVALID_SOCKET;
		cs->phase = PHASE_BUSY; /* in no queue yet */
		pthread_mutex_lock(&s->conns_lock);
		if (reserved_on == l) {
			l->pending--;
			reserved_on = NULL;
		}
		set_phase(cs, PHASE_WAITING, now_ms() + s->request_timeout_ms);
		l->live++;
		s->nconns++;
		pthread_mutex_unlock(&s->conns_lock);
		*socket_context = cs;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		cs = *socket_context;
		if (cs == NULL)
			return;
		pthread_mutex_lock(&s->conns_lock);
		if (cs->phase != PHASE_CLOSING)
			l->live--;
		set_phase(cs, PHASE_CLOSING, 0); /* out of its queue */
		s->nconns--;
		pthread_mutex_unlock(&s->conns_lock);
		free(cs);
		*socket_context = NULL;
	}
}

/* The request line of a request has arrived (MHD_OPTION_URI_LOG_CALLBACK,
 * before its headers): on a kept-alive connection the clock starts now and
 * it queues as waiting again. The first request keeps the deadline and the
 * place set at accept. */
static void *request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct listener *l = cls;
	struct server *s = l->server;
	struct conn_state *cs = conn_state_of(c);

	(void)uri;
	if (cs != NULL) {
		pthread_mutex_lock(&s->conns_lock);
		if (cs->phase == PHASE_IDLE)
			set_phase(cs, PHASE_WAITING, now_ms() + s->request_timeout_ms);
		pthread_mutex_unlock(&s->conns_lock);
	}
	return NULL; /* *con_cls stays NULL for the access handler's first call */
}

/* The request is in (its last body byte, or answered before its body): no
 * deadline while the handler works and the reply goes out, and never closed
 * to make room. */
static void request_received(struct server *s, struct MHD_Connection *c)
{
	struct conn_state *cs = conn_state_of(c);

	if (cs == NULL)
		return;
	pthread_mutex_lock(&s->conns_lock);
	if (cs->phase == PHASE_WAITING)
		set_phase(cs, PHASE_BUSY, 0);
	pthread_mutex_unlock(&s->conns_lock);
}

/* Bytes of request bodies held at once are bounded across all requests. */
static bool reserve_bytes(struct server *s, size_t n)
{
	int64_t cur = atomic_load(&s->buffered);

	do {
		if (cur + (int64_t)n > s->max_buffered)
			return false;
	} while (!atomic_compare_exchange_weak(&s->buffered, &cur, cur + (int64_t)n));
	return true;
}

static void release_bytes(struct server *s, struct request *req)
{
	if (req->reserved > 0)
		atomic_fetch_sub(&s->buffered, (int64_t)req->reserved);
	req->reserved = 0;
}

/* Closes, oldest first, the connections in q whose deadline has passed
 * (under conns_lock); returns how many. */
static uint64_t sweep_queue(struct conn_queue *q, int64_t now)
{
	uint64_t closed = 0;

	while (q->head != NULL && q->head->deadline_ms <= now) {
		close_conn(q->head);
		closed++;
	}
	return closed;
}

/* Every tick: closes the connections whose deadline has passed (the queues
 * are in deadline order, so only the expired ones are looked at), and says
 * in the log, at most every 10 s, how many were closed to make room. */
static void *sweeper_main(void *arg)
{
	struct server *s = arg;
	int64_t tick = s->request_timeout_ms / 4;

	if (tick > 250)
		tick = 250;
	if (tick < 10)
		tick = 10;
	pthread_mutex_lock(&s->conns_lock);
	while (!s->sweeper_stop) {
		int64_t now = now_ms();
		uint64_t closed = 0, evicted = 0, refused = 0;
		struct listener *ls[2] = { &s->main, &s->metrics };
		struct timespec until;
		int i;

		for (i = 0; i < 2; i++) {
			closed += sweep_queue(&ls[i]->waiting, now);
			closed += sweep_queue(&ls[i]->idle, now);
		}
		s->request_timeouts += closed;
		if ((s->evicted != s->logged_evicted || s->refused != s->logged_refused) &&
		    (s->room_logged_ms == 0 || now - s->room_logged_ms >= 10000)) {
			evicted = s->evicted - s->logged_evicted;
			refused = s->refused - s->logged_refused;
			s->logged_evicted = s->evicted;
			s->logged_refused = s->refused;
			s->room_logged_ms = now;
		}
		if (closed > 0 || evicted > 0 || refused > 0) {
			pthread_mutex_unlock(&s->conns_lock);
			if (closed > 0)
				log_warn("closed connections that sent no complete request in time",
					 "connections=%llu request_timeout_ms=%lld",
					 (unsigned long long)closed, (long long)s->request_timeout_ms);
			if (evicted > 0 || refused > 0)
				log_warn("connection limit reached: closed connections waiting for a "
					 "request to make room, or new ones when none was waiting",
					 "evicted=%llu refused=%llu max_connections=%lld",
					 (unsigned long long)evicted, (unsigned long long)refused,
					 (long long)s->max_conns);
			pthread_mutex_lock(&s->conns_lock);
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)(tick % 1000) * 1000000L;
		until.tv_sec += (time_t)(tick / 1000) + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (!s->sweeper_stop)
			pthread_cond_timedwait(&s->sweeper_wake, &s->conns_lock, &until);
	}
	pthread_mutex_unlock(&s->conns_lock);
	return NULL;
}

static bool authorized(struct listener *l, struct MHD_Connection *c)
{
	struct conn_state *cs;

	if (!l->mtls)
		return true;
	cs = conn_state_of(c);
	if (cs == NULL)
		return client_allowed(l->server, c);
	if (cs->verified == 0)
		cs->verified = client_allowed(l->server, c) ? 1 : -1;
	return cs->verified > 0;
}

/* The server's own gauges and counters, after the process-wide ones. */
static void append_server_metrics(struct server *s, struct reply *r)
{
	char text[4096];
	int n;
	int64_t nconns;
	uint64_t timeouts, evicted, refused;

	/* Read together: a connection counted as closed has been shut down. */
	pthread_mutex_lock(&s->conns_lock);
	nconns = s->nconns;
	timeouts = s->request_timeouts;
	evicted = s->evicted;
	refused = s->refused;
	pthread_mutex_unlock(&s->conns_lock);
	n = snprintf(text, sizeof text,
		     "# HELP numa_extender_http_requests_in_flight Requests received and not yet "
		     "done, not counting the scrape that reads this.\n"
		     "# TYPE numa_extender_http_requests_in_flight gauge\n"
		     "numa_extender_http_requests_in_flight %d\n"
		     "# HELP numa_extender_http_connections Open client connections, all listeners.\n"
		     "# TYPE numa_extender_http_connections gauge\n"
		     "numa_extender_http_connections %lld\n"
		     "# HELP numa_extender_http_buffered_bytes Request body bytes held "
		     "(bounded by limits.maxBufferedBytes).\n"
		     "# TYPE numa_extender_http_buffered_bytes gauge\n"
		     "numa_extender_http_buffered_bytes %lld\n"
		     "# HELP numa_extender_http_request_timeouts_total Connections closed because "
		     "a request was not received within limits.requestTimeout.\n"
		     "# TYPE numa_extender_http_request_timeouts_total counter\n"
		     "numa_extender_http_request_timeouts_total %llu\n"
		     "# HELP numa_extender_http_connections_evicted_total Connections closed "
		     "to make room for a new one at limits.maxConnections (the one waiting "
		     "longest for its request).\n"
		     "# TYPE numa_extender_http_connections_evicted_total counter\n"
		     "numa_extender_http_connections_evicted_total %llu\n"
		     "# HELP numa_extender_http_connections_refused_total New connections "
		     "closed at once at limits.maxConnections: every connection had its "
		     "request in.\n"
		     "# TYPE numa_extender_http_connections_refused_total counter\n"
		     "numa_extender_http_connections_refused_total %llu\n"
		     "# HELP numa_extender_http_busy_refusals_total Requests refused with 503 "
		     "because limits.maxBufferedBytes was reached.\n"
		     "# TYPE numa_extender_http_busy_refusals_total counter\n"
		     "numa_extender_http_busy_refusals_total %llu\n"
		     "# HELP numa_extender_http_aborted_requests_total Requests that ended "
		     "without their reply sent (client closed, read error, timeout).\n"
		     "# TYPE numa_extender_http_aborted_requests_total counter\n"
		     "numa_extender_http_aborted_requests_total %llu\n",
		     atomic_load(&s->inflight) - 1, (long long)nconns,
		     (long long)atomic_load(&s->buffered),
		     (unsigned long long)timeouts, (unsigned long long)evicted,
		     (unsigned long long)refused,
		     (unsigned long long)atomic_load(&s->busy_refusals),
		     (unsigned long long)atomic_load(&s->aborted));
	if (n <= 0 || (size_t)n >= sizeof text)
		return;
	r->body = xrealloc(r->body, r->len + (size_t)n + 1);
	memcpy(r->body + r->len, text, (size_t)n + 1);
	r->len += (size_t)n;
}

/* GET /ledger when serve did not say why there is none. */
#define LEDGER_OFF_TEXT \
	"the assumed-pod ledger is off: it runs with inventory.source: kubernetes and ledger.enabled: true"

static enum MHD_Result handle_get(struct server *s, struct MHD_Connection *c, struct request *req)
{
	struct reply r;

	switch (req->route) {
	case ROUTE_HEALTHZ:
		return send_text(s, c, req, 200, "ok");
	case ROUTE_READYZ:
		if (atomic_load(&s->draining))
			return send_text(s, c, req, 503, "shutting down");
		if (!store_ready(s->ctx->store))
			return send_text(s, c, req, 503, "inventory not loaded yet");
		if (s->ctx->ledger && !ledger_listed(s->ctx->ledger))
			return send_text(s, c, req, 503, "pods not listed yet");
		return send_text(s, c, req, 200, "ready");
	case ROUTE_LEDGER:
		if (s->ctx->ledger == NULL)
			return send_text(s, c, req, 404,
					 s->ctx->ledger_off ? s->ctx->ledger_off : LEDGER_OFF_TEXT);
		r.body = ledger_json(s->ctx->ledger, req->ledger_node);
		if (r.body == NULL)
			return send_text(s, c, req, 404, "the ledger knows no pod on this node");
		r.status = 200;
		r.content_type = "application/json";
		r.len = strlen(r.body);
		return send_reply(s, c, req, &r);
	case ROUTE_METRICS:
		r.status = 200;
		r.content_type = "text/plain; version=0.0.4; charset=utf-8";
		r.body = metrics_render(&r.len);
		append_server_metrics(s, &r);
		return send_reply(s, c, req, &r);
	default:
		return send_text(s, c, req, 404, "not found");
	}
}

/* kube-scheduler retries a filter that fails; the body is for people. */
#define BUSY_TEXT \
	"server busy: request bodies being received exceed limits.maxBufferedBytes; retry"

/* Forgets a body that will not be used (and its share of the bound). */
static void drop_body(struct server *s, struct request *req)
{
	free(req->body);
	req->body = NULL;
	req->len = req->cap = 0;
	release_bytes(s, req);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct listener *l = cls;
	struct server *s = l->server;
	struct request *req = *con_cls;
	struct reply r;
	struct handler_ctx ctx;
	bool post;

	(void)version;
	if (req == NULL) {
		const char *cl;

		req = xcalloc(1, sizeof *req);
		clock_gettime(CLOCK_MONOTONIC, &req->start);
		req->route = route_of(s, l, url, req);
		*con_cls = req;
		atomic_fetch_add(&s->inflight, 1);
		req->counted = true;
		post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
		if (!authorized(l, c))
			return send_text(s, c, req, 403, "client certificate required");
		if (req->route == ROUTE_NONE)
			return send_text(s, c, req, 404, "not found");
		if (is_verb(req->route) != post ||
		    (!post && strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		     strcmp(method, MHD_HTTP_METHOD_HEAD) != 0))
			return send_text(s, c, req, 405, "method not allowed");
		if (!post)
			return MHD_YES; /* answer on the final call */
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL) {
			char *end;
			unsigned long long n = strtoull(cl, &end, 10);

			/* Refuse before reading a byte of an oversized body. */
			if (*end != '\0' || n > (unsigned long long)s->max_body)
				return send_text(s, c, req, 413, "request body too large");
			if (!reserve_bytes(s, (size_t)n + 1)) {
				atomic_fetch_add(&s->busy_refusals, 1);
				return send_text(s, c, req, 503, BUSY_TEXT);
			}
			req->reserved = (size_t)n + 1;
			req->cap = (size_t)n + 1;
			req->body = xmalloc(req->cap);
		}
		return MHD_YES;
	}
	if (*upload_size != 0) {
		size_t n = *upload_size;

		*upload_size = 0;
		if (req->too_big || req->busy)
			return MHD_YES; /* keep reading, store nothing */
		if (req->len + n > (size_t)s->max_body) {
			req->too_big = true;
			drop_body(s, req);
			return MHD_YES;
		}
		if (req->len + n + 1 > req->cap) {
			size_t cap = (req->len + n + 1) * 2;

			if (cap > (size_t)s->max_body + 1)
				cap = (size_t)s->max_body + 1;
			if (cap > req->reserved) {
				if (!reserve_bytes(s, cap - req->reserved)) {
					req->busy = true;
					drop_body(s, req);
					return MHD_YES;
				}
				req->reserved = cap;
			}
			req->cap = cap;
			req->body = xrealloc(req->body, req->cap);
		}
		memcpy(req->body + req->len, upload_data, n);
		req->len += n;
		return MHD_YES;
	}
	request_received(s, c);
	if (!is_verb(req->route))
		return handle_get(s, c, req);
	if (req->too_big)
		return send_text(s, c, req, 413, "request body too large");
	if (req->busy) {
		atomic_fetch_add(&s->busy_refusals, 1);
		return send_text(s, c, req, 503, BUSY_TEXT);
	}
	if (req->body == NULL)
		req->body = xmalloc(1);
	req->body[req->len] = '\0';
	/* The caller's context as it is now (it may change it while we run),
	 * with our pool when it gave none. */
	ctx = *s->ctx;
	if (ctx.pool == NULL)
		ctx.pool = s->own_pool;
	if (req->route == ROUTE_FILTER)
		handle_filter(&ctx, req->body, req->len, &r);
	else if (req->route == ROUTE_BIND)
		handle_bind(&ctx, req->body, req->len, &r);
	else if (req->route == ROUTE_PREEMPT)
		handle_preempt(&ctx, req->body, req->len, &r);
	else
		handle_prioritize(&ctx, req->body, req->len, &r);
	return send_reply(s, c, req, &r);
}

static void request_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			      enum MHD_RequestTerminationCode toe)
{
	struct listener *l = cls;
	struct server *s = l->server;
	struct request *req = *con_cls;
	struct conn_state *cs = conn_state_of(c);

	/* Called for every request libmicrohttpd told us of (request line
	 * or handler), whether answered, aborted by the client, timed out
	 * or cut by the shutdown: the one place its counts are given back. */
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		atomic_fetch_add(&s->aborted, 1);
	else if (cs != NULL) {
		/* Kept alive: the next request line must come before the idle
		 * timeout, even one byte at a time. */
		pthread_mutex_lock(&s->conns_lock);
		if (cs->phase != PHASE_CLOSING)
			set_phase(cs, PHASE_IDLE, now_ms() + s->idle_timeout_ms);
		pthread_mutex_unlock(&s->conns_lock);
	}
	if (req == NULL)
		return;
	if (req->counted)
		atomic_fetch_sub(&s->inflight, 1);
	release_bytes(s, req);
	free(req->body);
	free(req->ledger_node);
	free(req);
	*con_cls = NULL;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char text[512], quoted[600];
	size_t len;

	(void)cls;
	vsnprintf(text, sizeof text, fmt, ap);
	len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	/* A client going away is its own business (and, by the thousand, a
	 * way to flood the log); /metrics counts aborted requests. */
	if (strstr(text, "closed by remote side") || strstr(text, "has been disconnected") ||
	    strstr(text, "Connection socket is closed")) {
		log_debug("http server", "detail=%s", log_quote(text, quoted, sizeof quoted));
		return;
	}
	log_warn("http server", "detail=%s", log_quote(text, quoted, sizeof quoted));
}

static enum err resolve(const char *hostport, struct sockaddr_storage *addr, socklen_t *alen,
			struct errmsg *msg)
{
	struct addrinfo hints, *res = NULL;
	char portstr[16];
	char *host = NULL;
	int port, rc;

	if (net_split_hostport(hostport, &host, &port, msg) != ERR_OK)
		return ERR_INVALID;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(portstr, sizeof portstr, "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0 || res == NULL) {
		errmsg_set(msg, "%s: cannot resolve \"%s\": %s", hostport, host, gai_strerror(rc));
		free(host);
		return ERR_INVALID;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*alen = res->ai_addrlen;
	freeaddrinfo(res);
	free(host);
	return ERR_OK;
}

/* libmicrohttpd's own limit, which it splits evenly across its worker
 * threads and at which a worker stops accepting: high enough that no
 * worker reaches it, since all of a listener's connections may land on one
 * and those being closed still count until their thread closes them. Ours
 * (accept_policy) is the one that binds. */
static unsigned int mhd_connection_limit(const struct config *cfg)
{
	uint64_t per_thread = (uint64_t)cfg->max_connections * 2 + 16;
	uint64_t limit = per_thread * (uint64_t)(cfg->threads > 1 ? cfg->threads : 1);

	return limit > UINT_MAX ? UINT_MAX : (unsigned int)limit;
}

/* Every connection is a descriptor: accept() failing for want of one makes
 * libmicrohttpd stop accepting until a connection closes, and connections
 * wait in the listen backlog again. Raises the soft limit when the
 * listeners' connections (ours, and those being closed) may not fit. */
static void make_fd_room(const struct config *cfg)
{
	uint64_t listeners = cfg->metrics_listen ? 2 : 1;
	uint64_t want = listeners * (uint64_t)cfg->max_connections * 2 + 256;
	uint64_t need = listeners * (uint64_t)cfg->max_connections + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want)
		rl.rlim_cur = (rlim_t)want;
	else
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < need)
		log_warn("open file limit too low for limits.maxConnections: connections over it "
			 "wait in the listen backlog",
			 "nofile=%llu needed=%llu", (unsigned long long)rl.rlim_cur,
			 (unsigned long long)need);
}

static enum err listener_start(struct server *s, struct listener *l, const struct config *cfg,
			       const char *hostport, bool tls, struct errmsg *msg)
{
	struct sockaddr_storage addr;
	socklen_t alen = 0;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
			     MHD_USE_ERROR_LOG;
	unsigned int timeout = (unsigned int)((cfg->idle_timeout_ms + 999) / 1000);
	unsigned int threads = (unsigned int)cfg->threads;
	unsigned int limit = mhd_connection_limit(cfg);
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem ops[20];
	int k = 0;

	if (resolve(hostport, &addr, &alen, msg) != ERR_OK)
		return ERR_INVALID;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (tls)
		flags |= MHD_USE_TLS;
	l->server = s;
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_logger, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &addr };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, limit, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, timeout, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 128 * 1024, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)request_completed, l };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_connection, l };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)request_line, l };
	if (cfg->max_connections_per_client > 0)
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
						    (intptr_t)cfg->max_connections_per_client, NULL };
	if (threads > 1)
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, threads, NULL };
	if (tls) {
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert_pem };
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->key_pem };
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						    (void *)(uintptr_t)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" };
		if (s->ca_pem) {
			ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, s->ca_pem };
			l->mtls = true;
		}
	}
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	l->daemon = MHD_start_daemon(flags, 0, accept_policy, l, access_handler, l,
				     MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
	if (l->daemon == NULL) {
		errmsg_set(msg, "cannot listen on %s: %s", hostport,
			   errno ? strerror(errno) : "libmicrohttpd refused the options");
		return ERR_IO;
	}
	info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_BIND_PORT);
	l->port = info ? info->port : 0;
	return ERR_OK;
}

static char *read_pem(const char *path, struct errmsg *msg)
{
	char *buf = NULL;
	size_t len = 0;

	if (file_read_all(path, 1 << 20, &buf, &len, msg) != ERR_OK)
		return NULL;
	return buf;
}

enum err server_start(const struct config *cfg, const struct handler_ctx *ctx,
		      struct server **out, struct errmsg *msg)
{
	struct server *s = xcalloc(1, sizeof *s);
	bool tls = cfg->tls_cert_file != NULL;
	const char *prefix = cfg->url_prefix ? cfg->url_prefix : "";
	enum err rc = ERR_OK;
	int rc_thread;
	size_t i;

	*out = NULL;
	s->ctx = ctx;
	heap_keep_for_requests();
	if (ctx->pool == NULL && cfg->threads > 1)
		/* As many as the request threads: kube-scheduler asks one
		 * filter at a time, so the other threads' cores are free to
		 * share it. */
		s->own_pool = decide_pool_new((int)cfg->threads - 1);
	s->max_body = cfg->max_body_bytes;
	s->max_buffered = cfg->max_buffered_bytes;
	if (s->max_buffered == 0)
		s->max_buffered = s->max_body > ((int64_t)64 << 20) ? s->max_body : (int64_t)64 << 20;
	s->request_timeout_ms = cfg->http_request_timeout_ms;
	s->idle_timeout_ms = cfg->idle_timeout_ms;
	s->max_conns = cfg->max_connections;
	make_fd_room(cfg);
	pthread_mutex_init(&s->conns_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->sweeper_wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	s->filter_path = xmalloc(strlen(prefix) + 16);
	s->prioritize_path = xmalloc(strlen(prefix) + 16);
	sprintf(s->filter_path, "%s/filter", prefix);
	sprintf(s->prioritize_path, "%s/prioritize", prefix);
	s->bind_path = xmalloc(strlen(prefix) + 16);
	sprintf(s->bind_path, "%s/bind", prefix);
	s->preempt_path = xmalloc(strlen(prefix) + 16);
	sprintf(s->preempt_path, "%s/preempt", prefix);
	atomic_init(&s->draining, false);
	atomic_init(&s->inflight, 0);
	atomic_init(&s->buffered, 0);
	atomic_init(&s->busy_refusals, 0);
	atomic_init(&s->aborted, 0);
	if (tls) {
		s->cert_pem = read_pem(cfg->tls_cert_file, msg);
		s->key_pem = s->cert_pem ? read_pem(cfg->tls_key_file, msg) : NULL;
		if (s->key_pem && cfg->tls_client_ca_file)
			s->ca_pem = read_pem(cfg->tls_client_ca_file, msg);
		if (!s->cert_pem || !s->key_pem || (cfg->tls_client_ca_file && !s->ca_pem)) {
			rc = ERR_IO;
			goto out;
		}
		s->nclient_names = cfg->ntls_client_names;
		s->client_names = xcalloc(s->nclient_names + 1, sizeof *s->client_names);
		for (i = 0; i < s->nclient_names; i++)
			s->client_names[i] = xstrdup(cfg->tls_client_names[i]);
	}
	rc_thread = pthread_create(&s->sweeper, NULL, sweeper_main, s);
	if (rc_thread != 0) {
		errmsg_set(msg, "cannot start the connection sweeper: %s", strerror(rc_thread));
		rc = ERR_IO;
		goto out;
	}
	s->sweeper_running = true;
	s->main.main = true;
	s->main.health = cfg->metrics_listen == NULL;
	rc = listener_start(s, &s->main, cfg, cfg->listen, tls, msg);
	if (rc != ERR_OK)
		goto out;
	if (cfg->metrics_listen) {
		s->metrics.health = true;
		rc = listener_start(s, &s->metrics, cfg, cfg->metrics_listen, false, msg);
	}
out:
	if (rc != ERR_OK) {
		server_drain_and_stop(s, 0);
		return rc;
	}
	log_info("listening", "address=%s port=%d tls=%s mtls=%s metrics_port=%d", cfg->listen,
		 s->main.port, tls ? "true" : "false", s->main.mtls ? "true" : "false",
		 s->metrics.daemon ? s->metrics.port : s->main.port);
	*out = s;
	return ERR_OK;
}

int server_port(const struct server *s)
{
	return s->main.port;
}

int server_metrics_port(const struct server *s)
{
	return s->metrics.daemon ? s->metrics.port : s->main.port;
}

static void listener_stop(struct listener *l)
{
	if (l->daemon == NULL)
		return;
	MHD_stop_daemon(l->daemon);
	l->daemon = NULL;
}

void server_drain_and_stop(struct server *s, int64_t deadline_ms)
{
	MHD_socket fds[2] = { MHD_INVALID_SOCKET, MHD_INVALID_SOCKET };
	struct timespec start;
	int i;

	if (s == NULL)
		return;
	atomic_store(&s->draining, true);
	if (s->main.daemon)
		fds[0] = MHD_quiesce_daemon(s->main.daemon);
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* Requests already in flight finish; idle keep-alive connections are
	 * closed by the stop below. */
	while (atomic_load(&s->inflight) > 0 && elapsed(&start) * 1000 < (double)deadline_ms) {
		struct timespec nap = { 0, 5 * 1000 * 1000 };

		nanosleep(&nap, NULL);
	}
	if (atomic_load(&s->inflight) > 0)
		log_warn("shutdown deadline passed with requests in flight", "inflight=%d",
			 atomic_load(&s->inflight));
	listener_stop(&s->main);
	listener_stop(&s->metrics);
	/* Every connection is closed and off the list now. */
	if (s->sweeper_running) {
		pthread_mutex_lock(&s->conns_lock);
		s->sweeper_stop = true;
		pthread_cond_signal(&s->sweeper_wake);
		pthread_mutex_unlock(&s->conns_lock);
		pthread_join(s->sweeper, NULL);
	}
	pthread_cond_destroy(&s->sweeper_wake);
	pthread_mutex_destroy(&s->conns_lock);
	/* No request is running: the daemons are stopped. */
	decide_pool_free(s->own_pool);
	for (i = 0; i < 2; i++)
		if (fds[i] != MHD_INVALID_SOCKET)
			close(fds[i]);
	if (s->key_pem)
		memset(s->key_pem, 0, strlen(s->key_pem));
	free(s->cert_pem);
	free(s->key_pem);
	free(s->ca_pem);
	for (size_t k = 0; k < s->nclient_names; k++)
		free(s->client_names[k]);
	free(s->client_names);
	free(s->filter_path);
	free(s->prioritize_path);
	free(s->bind_path);
	free(s->preempt_path);
	free(s);
}
