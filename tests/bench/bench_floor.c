/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of warm and cold filter against a floor of our own (not a test;
 * exits 0 whatever the numbers, 1 when a reply differs or the setup fails).
 *
 * Ours: the real server in process (server_start on 127.0.0.1:0, default
 * settings and threads) over bench_server's cluster (5000 8-NUMA
 * inventories, same seed, same pod, same candidate lists: a random 500, and
 * all 5000 in random order; tests/support/bench_cluster.c).
 *
 * The floor: a second libmicrohttpd daemon in this process, built the way
 * extender/http/server.c builds ours (internal polling thread, poll, a pool
 * of the same number of threads, the same connection limits; body buffered
 * from Content-Length) but with none of its judging. Its handler parses the
 * whole body with a fresh json-c tokener, finds the pod variant by its UID
 * and each candidate by name in a table prepared before timing (outcome,
 * reason, score per node), builds the ExtenderFilterResult (or
 * HostPriorityList) from json-c objects and serialises it. Its reply must be
 * byte-identical to ours: every request is checked, a difference exits 1.
 *
 * Cold: a demand seen for the first time, as every new workload's first pod
 * is. Each cold request carries a new pod variant (its server container asks
 * 32Gi + k Mi of memory, k never reused in the process; a new UID and name),
 * so the verdict cache (keyed by node snapshot, settings and demand) must
 * miss on every candidate: each cold request is checked to have 0 hits and
 * one miss per name (verdict_cache_stats, what /metrics exports). The
 * floor's tables are judged untimed on a reference store of its own (the
 * same cluster built again: other snapshot ids) through decide() without the
 * cache, so the measured server has seen nothing of a variant before its
 * request. Warm: one variant, seen once (untimed), then sent again and
 * again; the table shows its cache hit rate.
 *
 * Part 1: for each sample, the same request to ours and to the floor (which
 * goes first alternates), each on its own keep-alive libcurl connection;
 * client-side latency (curl_easy_perform), p50/p99 per server, and ours /
 * floor of the medians against the targets (cold 5000-name filter <= 3x,
 * warm <= 2x).
 *
 * Part 2: cold filter+prioritize pairs at 500 names on one core, as
 * kube-scheduler sends them (filter with a new variant, parse the reply,
 * prioritize the surviving names). "One core" is the extender's: both
 * servers restarted with threads: 1 (for ours that also means no decide
 * helpers, which server_start adds as threads - 1) and every server thread
 * pinned to one CPU with sched_setaffinity; the client (this thread: libcurl,
 * parsing the filter reply, building the prioritize body) runs on another
 * CPU when the machine has one, as kube-scheduler runs elsewhere, and on the
 * same one otherwise. An operator giving the extender one core would
 * configure one thread. pairs/s is what one sequential client sees (round
 * trips and wake-ups included); the target is judged on capacity, the pairs
 * the core serves per second when kept busy: 1 / the CPU time (user +
 * system, from /proc) that ours' threads used per pair. In Part 1 ours runs with
 * the default threads (2: two request threads and one helper that shares a
 * large request's judging), the floor with the same two request threads.
 * The server-side time per pair (/metrics) is shown beside pairs/s. Target
 * >= 1000 pairs/s. The floor answers the same pairs, interleaved,
 * byte-identical.
 *
 * Modes: (none) the full run, about a minute; --quick tiny counts on a
 * small cluster (valgrind, sanitizers); --profile-cold N exactly N cold
 * 5000-name filters to the real server over HTTP and nothing else (no
 * floor), each checked for 0 cache hits. The server runs with threads 1 so
 * that every instruction of a request is on the thread that runs
 * handle_filter (callgrind's --toggle-collect follows one thread's calls;
 * judging done by a helper thread would not be counted):
 *   valgrind --tool=callgrind --toggle-collect=handle_filter \
 *            ./build/bench/bench_floor --profile-cold 3
 * --profile-warm N: N filters of one demand at 5000 names, all answered from
 * the verdict cache.
 * --profile-pairs N: N cold filter+prioritize pairs at 500 names (part 2's,
 * without the floor and the pinning), for a profile of everything the
 * server's thread does for a pair, HTTP included. --threads T runs either
 * profile with T server threads. The cold path is bound by memory more than
 * by instructions; a sampling profile shows where the time goes:
 *   perf record -e cpu-clock -g ./build/bench/bench_floor --profile-cold 300
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "extender/codec/wire.h"
#include "extender/config.h"
#include "extender/decide/decide.h"
#include "extender/decide/settings.h"
#include "extender/decide/verdict_cache.h"
#include "extender/http/handlers.h"
#include "extender/http/server.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "base/xalloc.h"
#include "tests/support/bench_cluster.h"
#include "topology/demand.h"

/* --- run parameters --- */

struct run_cfg {
	size_t nodes;    /* inventories published */
	size_t small;    /* candidates in the small request */
	size_t warm[2];  /* warm samples: [0] the small request, [1] every node */
	size_t cold[2];  /* cold samples (one new variant each) */
	size_t pairs;    /* cold pairs on one core, small request */
	size_t warmup;   /* untimed samples before each cell (new variants when cold) */
};

static struct run_cfg cfg = {
	.nodes = 5000,
	.small = 500,
	.warm = { 3000, 400 },
	.cold = { 1500, 300 },
	.pairs = 2000,
	.warmup = 5,
};

/* ======================================================================
 * Pod variants and the floor's tables.
 * ====================================================================== */

/* Reasons are few and identical for identical causes: each kept once. */
static struct {
	char **text;
	size_t n;
} reasons;

static const char *reason_intern(const char *text)
{
	size_t i;

	for (i = 0; i < reasons.n; i++)
		if (strcmp(reasons.text[i], text) == 0)
			return reasons.text[i];
	reasons.text = xreallocarray(reasons.text, reasons.n + 1, sizeof *reasons.text);
	reasons.text[reasons.n] = xstrdup(text);
	return reasons.text[reasons.n++];
}

static void reasons_free(void)
{
	size_t i;

	for (i = 0; i < reasons.n; i++)
		free(reasons.text[i]);
	free(reasons.text);
	memset(&reasons, 0, sizeof reasons);
}

/* A candidate list: node ids in request order; pos[id] is the position + 1
 * (0: not a candidate). */
struct cand {
	size_t *ids;
	size_t n;
	size_t *pos;
};

static void cand_init(struct cand *c, size_t n, bool shuffle_all)
{
	size_t i;

	c->n = n;
	c->ids = bench_candidates(cfg.nodes, n, shuffle_all);
	c->pos = xcalloc(cfg.nodes + 1, sizeof *c->pos);
	for (i = 0; i < n; i++)
		c->pos[c->ids[i]] = i + 1;
}

static void cand_cleanup(struct cand *c)
{
	free(c->ids);
	free(c->pos);
	memset(c, 0, sizeof *c);
}

/* What the floor answers for one candidate. */
struct entry {
	const char *reason;       /* interned; NULL when passing */
	int64_t score;
	enum decision_outcome outcome;
};

/* A pod variant: its own demand, UID and name. */
struct variant {
	size_t serial;            /* k: memory 32Gi + k Mi */
	char uid[48];
	struct bench_buf pod;     /* the Pod object */
	struct bench_buf body;    /* filter ExtenderArgs over the cell's candidates */
	struct entry *table;      /* per candidate position */
};

/* What the floor answers from: variants serial first .. first + nv - 1. */
struct cell {
	const struct cand *cand;
	struct variant *v;
	size_t nv;
	size_t npass, nfailed, nunres;  /* over every variant */
};

static size_t next_serial = 1; /* never reused: every variant's demand is new */

struct subst {
	const char *from;
	char to[64];
	int want, got;
};

/* out = bench_pod_json with the server container's memory (limits and
 * requests) 32768 + serial Mi, and its own UID and name. */
static void variant_pod(size_t serial, char *uid, size_t uid_size, struct bench_buf *out)
{
	struct subst s[3] = {
		{ "\"memory\":\"32Gi\"", "", 2, 0 },
		{ "6b1f0c3e-2a7d-4e59-9c1b-8f3d2e7a4c10", "", 1, 0 },
		{ "\"infer-llm-7c9d5b8f6-x2vkq\"", "", 1, 0 },
	};
	const char *p = bench_pod_json, *end = bench_pod_json + bench_pod_len;
	size_t k;

	snprintf(s[0].to, sizeof s[0].to, "\"memory\":\"%zuMi\"", (size_t)32768 + serial);
	snprintf(uid, uid_size, "6b1f0c3e-2a7d-4e59-9c1b-%012zu", serial);
	snprintf(s[1].to, sizeof s[1].to, "%s", uid);
	snprintf(s[2].to, sizeof s[2].to, "\"infer-llm-7c9d5b8f6-v%zu\"", serial);
	out->len = 0;
	while (p < end) {
		const char *next = end;
		size_t which = 3;

		for (k = 0; k < 3; k++) {
			const char *q = strstr(p, s[k].from);

			if (q != NULL && q < next) {
				next = q;
				which = k;
			}
		}
		bench_buf_put(out, p, (size_t)(next - p));
		if (which == 3)
			break;
		bench_buf_str(out, s[which].to);
		s[which].got++;
		p = next + strlen(s[which].from);
	}
	for (k = 0; k < 3; k++)
		if (s[k].got != s[k].want)
			bench_die("pod variant: %s found %d times, expected %d", s[k].from, s[k].got,
				  s[k].want);
}

/* The environment: ours, the floor, the reference store. */
struct floor {
	struct MHD_Daemon *daemon;
	int port;
	const struct cell *_Atomic cell;
};

struct env {
	struct config config;
	struct store *store;             /* what ours serves */
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct server *server;
	struct floor floor;
	struct bench_client ours, flo;
	struct store *ref_store;         /* the same cluster, for the tables */
	struct settings *ref_settings;
	struct cand cand[2];             /* [0] the small request, [1] every node */
	unsigned long compared;          /* replies found byte-identical */
	pid_t ours_tids[64];             /* the threads server_start made */
	size_t nours_tids;
};

/* The floor's table for v: every candidate decided on the reference store,
 * without the verdict cache (snapshot id 0), as handle_filter buckets it. */
static void variant_judge(struct env *e, struct variant *v, const struct cand *c, struct cell *cell)
{
	struct store_set *set = store_acquire(e->ref_store);
	struct pod_demand *demand = NULL;
	struct decide_input in;
	struct wire_args args;
	struct errmsg msg;
	size_t i;

	if (wire_decode_args(v->body.p, v->body.len, &args, &msg) != ERR_OK ||
	    pod_demand_new(&args.pod, &demand, &msg) != ERR_OK)
		bench_die("variant %zu: %s", v->serial, msg.text);
	if (args.nnames != c->n)
		bench_die("variant %zu: %zu names decoded, %zu sent", v->serial, args.nnames, c->n);
	memset(&in, 0, sizeof in);
	in.demand = demand;
	in.settings = e->ref_settings;
	v->table = xcalloc(c->n + 1, sizeof *v->table);
	for (i = 0; i < c->n; i++) {
		const struct store_node *sn = store_get(set, args.names[i]);
		struct entry *t = &v->table[i];
		struct decision d;

		if (sn == NULL)
			bench_die("%s is not in the reference store", args.names[i]);
		decide(&in, sn->inventory, 0, &d);
		t->score = d.score;
		if (d.passes) {
			t->outcome = DECISION_PASS;
			cell->npass++;
		} else if (d.outcome == DECISION_FAILED) {
			t->outcome = DECISION_FAILED;
			cell->nfailed++;
		} else {
			t->outcome = DECISION_UNRESOLVABLE;
			cell->nunres++;
		}
		t->reason = d.passes ? NULL : reason_intern(d.reason);
	}
	pod_demand_free(demand);
	wire_args_cleanup(&args);
	store_release(set);
}

/* count new variants over c, bodies and tables ready; untimed. */
static void cell_prepare(struct env *e, const struct cand *c, size_t count, struct cell *cell)
{
	uint64_t t0 = bench_now_ns();
	size_t i;

	memset(cell, 0, sizeof *cell);
	cell->cand = c;
	cell->nv = count;
	cell->v = xcalloc(count + 1, sizeof *cell->v);
	for (i = 0; i < count; i++) {
		struct variant *v = &cell->v[i];

		v->serial = next_serial++;
		variant_pod(v->serial, v->uid, sizeof v->uid, &v->pod);
		bench_args_body(v->pod.p, v->pod.len, c->ids, c->n, &v->body);
		variant_judge(e, v, c, cell);
	}
	printf("  (%zu variant(s) at %zu names judged on the reference store for the floor in %.1f s, "
	       "untimed; per request: pass %.0f, failed %.0f, unresolvable %.0f)\n",
	       count, c->n, (double)(bench_now_ns() - t0) / 1e9, (double)cell->npass / (double)count,
	       (double)cell->nfailed / (double)count, (double)cell->nunres / (double)count);
}

static void cell_cleanup(struct cell *cell)
{
	size_t i;

	for (i = 0; i < cell->nv; i++) {
		free(cell->v[i].pod.p);
		free(cell->v[i].body.p);
		free(cell->v[i].table);
	}
	free(cell->v);
	memset(cell, 0, sizeof *cell);
}

/* ======================================================================
 * The floor: libmicrohttpd + json-c, a table instead of a judge.
 * ====================================================================== */

struct floor_req {
	char *body;
	size_t len, cap;
};

static const struct variant *floor_variant(const struct cell *cell, struct json_object *req)
{
	struct json_object *pod, *meta, *uid;
	const char *text, *dash;
	size_t serial;

	if (cell == NULL || !json_object_object_get_ex(req, "Pod", &pod) ||
	    !json_object_object_get_ex(pod, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "uid", &uid))
		return NULL;
	text = json_object_get_string(uid);
	dash = text ? strrchr(text, '-') : NULL;
	if (dash == NULL)
		return NULL;
	serial = (size_t)strtoull(dash + 1, NULL, 10);
	if (serial < cell->v[0].serial || serial - cell->v[0].serial >= cell->nv)
		return NULL;
	serial -= cell->v[0].serial;
	return strcmp(cell->v[serial].uid, text) == 0 ? &cell->v[serial] : NULL;
}

/* The reply to body, or NULL with *status and *why set. */
static char *floor_answer(const struct cell *cell, bool filter, const char *body, size_t len,
			  size_t *out_len, int *status, const char **why)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *req, *names = NULL, *reply;
	const struct variant *v;
	const char *text;
	char *copy = NULL;
	size_t i, n, tlen = 0;

	*status = 400;
	*why = "floor: not JSON";
	if (tok == NULL)
		return NULL;
	req = json_tokener_parse_ex(tok, body, (int)len);
	if (req == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		json_tokener_free(tok);
		json_object_put(req);
		return NULL;
	}
	json_tokener_free(tok);
	*status = 500;
	*why = "floor: unknown pod variant or no NodeNames";
	v = floor_variant(cell, req);
	if (v == NULL || !json_object_object_get_ex(req, "NodeNames", &names) ||
	    !json_object_is_type(names, json_type_array)) {
		json_object_put(req);
		return NULL;
	}
	n = json_object_array_length(names);
	if (filter) {
		struct json_object *pass = json_object_new_array();
		struct json_object *failed = json_object_new_object();
		struct json_object *unres = json_object_new_object();

		reply = json_object_new_object();
		json_object_object_add(reply, "Nodes", NULL);
		json_object_object_add(reply, "NodeNames", pass);
		json_object_object_add(reply, "FailedNodes", failed);
		json_object_object_add(reply, "FailedAndUnresolvableNodes", unres);
		json_object_object_add(reply, "Error", json_object_new_string(""));
		for (i = 0; i < n; i++) {
			struct json_object *s = json_object_array_get_idx(names, i);
			const char *name = json_object_get_string(s);
			size_t id = name ? bench_node_id(name, cfg.nodes) : SIZE_MAX;
			const struct entry *t;

			if (id == SIZE_MAX || cell->cand->pos[id] == 0)
				goto unknown;
			t = &v->table[cell->cand->pos[id] - 1];
			if (t->outcome == DECISION_PASS)
				json_object_array_add(pass, json_object_get(s));
			else
				json_object_object_add(t->outcome == DECISION_FAILED ? failed : unres, name,
						       json_object_new_string(t->reason));
		}
	} else {
		reply = json_object_new_array_ext((int)n);
		for (i = 0; i < n; i++) {
			struct json_object *s = json_object_array_get_idx(names, i), *e;
			const char *name = json_object_get_string(s);
			size_t id = name ? bench_node_id(name, cfg.nodes) : SIZE_MAX;

			if (id == SIZE_MAX || cell->cand->pos[id] == 0)
				goto unknown;
			e = json_object_new_object();
			json_object_object_add(e, "Host", json_object_get(s));
			json_object_object_add(e, "Score",
					       json_object_new_int64(v->table[cell->cand->pos[id] - 1].score));
			json_object_array_add(reply, e);
		}
	}
	text = json_object_to_json_string_length(reply, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, &tlen);
	copy = xmalloc(tlen + 1);
	memcpy(copy, text, tlen + 1);
	*out_len = tlen;
	*status = 200;
	json_object_put(reply);
	json_object_put(req);
	return copy;
unknown:
	*why = "floor: a name that is not a candidate";
	json_object_put(reply);
	json_object_put(req);
	return NULL;
}

static enum MHD_Result floor_access(void *cls, struct MHD_Connection *c, const char *url,
				    const char *method, const char *version,
				    const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct floor *f = cls;
	struct floor_req *req = *con_cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	const char *why = NULL;
	size_t len = 0;
	int status = 404;
	char *text = NULL;
	bool filter = strcmp(url, "/filter") == 0;

	(void)version;
	if (req == NULL) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);

		req = xcalloc(1, sizeof *req);
		*con_cls = req;
		if (cl != NULL) {
			req->cap = (size_t)strtoull(cl, NULL, 10) + 1;
			req->body = xmalloc(req->cap);
		}
		return MHD_YES;
	}
	if (*upload_size != 0) {
		if (req->len + *upload_size + 1 > req->cap) {
			req->cap = (req->len + *upload_size + 1) * 2;
			req->body = xrealloc(req->body, req->cap);
		}
		memcpy(req->body + req->len, upload_data, *upload_size);
		req->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_POST) == 0 &&
	    (filter || strcmp(url, "/prioritize") == 0) && req->body != NULL) {
		req->body[req->len] = '\0';
		text = floor_answer(atomic_load(&f->cell), filter, req->body, req->len, &len,
				    &status, &why);
	}
	if (text == NULL) {
		why = why ? why : "floor: not found";
		len = strlen(why);
		text = xstrdup(why);
	}
	resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == 200 ? "application/json" : "text/plain; charset=utf-8");
	ret = MHD_queue_response(c, (unsigned int)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void floor_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			    enum MHD_RequestTerminationCode toe)
{
	struct floor_req *req = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (req == NULL)
		return;
	free(req->body);
	free(req);
	*con_cls = NULL;
}

/* As listener_start in extender/http/server.c builds ours, without TLS,
 * the per-connection bookkeeping or the limits' callbacks. */
static void floor_start(struct floor *f, const struct config *config)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
			     MHD_USE_ERROR_LOG;
	unsigned int threads = (unsigned int)config->threads;
	unsigned int limit = (unsigned int)config->max_connections;
	unsigned int timeout = (unsigned int)((config->idle_timeout_ms + 999) / 1000);
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem ops[8];
	struct sockaddr_in addr;
	int k = 0;

	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (limit < threads)
		limit = threads;
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &addr };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, limit, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, timeout, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 128 * 1024, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)floor_completed, f };
	if (threads > 1)
		ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, threads, NULL };
	ops[k++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	atomic_store(&f->cell, NULL);
	f->daemon = MHD_start_daemon(flags, 0, NULL, NULL, floor_access, f, MHD_OPTION_ARRAY, ops,
				     MHD_OPTION_END);
	if (f->daemon == NULL)
		bench_die("the floor's MHD_start_daemon failed");
	info = MHD_get_daemon_info(f->daemon, MHD_DAEMON_INFO_BIND_PORT);
	f->port = info ? info->port : 0;
}

static void floor_stop(struct floor *f)
{
	MHD_stop_daemon(f->daemon);
	f->daemon = NULL;
}

/* ======================================================================
 * Both servers, samples and their statistics.
 * ====================================================================== */

/* Threads of the process now. */
static size_t process_threads(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The process's thread ids, at most max. */
static size_t tids_now(pid_t *out, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");

	if (d == NULL)
		bench_die("cannot list /proc/self/task");
	while ((de = readdir(d)) != NULL && n < max)
		if (de->d_name[0] != '.')
			out[n++] = (pid_t)atoi(de->d_name);
	closedir(d);
	return n;
}

/* CPU seconds (user + system) the given threads have used so far. */
static double tids_cpu_s(const pid_t *tids, size_t n)
{
	long ticks = sysconf(_SC_CLK_TCK);
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char path[64], buf[1024], *p;
		unsigned long ut = 0, st = 0;
		FILE *f;
		size_t len;

		snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tids[i]);
		f = fopen(path, "r");
		if (f == NULL)
			bench_die("cannot read %s", path);
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		/* Fields 14 and 15, counted after the command's closing ')'. */
		p = strrchr(buf, ')');
		if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
					&ut, &st) != 2)
			bench_die("%s: unexpected format", path);
		sum += (double)(ut + st) / (double)ticks;
	}
	return sum;
}

static void servers_start(struct env *e, int threads)
{
	pid_t before[64], after[64];
	size_t nbefore, nafter, i, j;
	struct errmsg msg;

	e->config.threads = threads;
	nbefore = tids_now(before, 64);
	if (server_start(&e->config, &e->ctx, &e->server, &msg) != ERR_OK)
		bench_die("server_start: %s", msg.text);
	nafter = tids_now(after, 64);
	e->nours_tids = 0;
	for (i = 0; i < nafter; i++) {
		for (j = 0; j < nbefore && before[j] != after[i]; j++)
			;
		if (j == nbefore)
			e->ours_tids[e->nours_tids++] = after[i];
	}
	floor_start(&e->floor, &e->config);
	bench_client_init(&e->ours, server_port(e->server));
	bench_client_init(&e->flo, e->floor.port);
	printf("servers: ours on 127.0.0.1:%d, the floor on 127.0.0.1:%d; libmicrohttpd, poll, "
	       "internal thread%s, threads %d each;\n"
	       "  one keep-alive libcurl connection to each; %zu threads in the process\n",
	       server_port(e->server), e->floor.port, threads > 1 ? " pool" : "", threads,
	       process_threads());
}

static void servers_stop(struct env *e)
{
	if (e->ours.connects != 1 || e->flo.connects != 1)
		bench_die("connections opened: ours %ld for %ld requests, the floor %ld for %ld; "
			  "expected one each",
			  e->ours.connects, e->ours.requests, e->flo.connects, e->flo.requests);
	bench_client_cleanup(&e->ours);
	bench_client_cleanup(&e->flo);
	server_drain_and_stop(e->server, 1000);
	e->server = NULL;
	floor_stop(&e->floor);
}

static void same_reply(struct env *e, const struct bench_buf *a, const struct bench_buf *b,
		       const char *what, size_t serial)
{
	size_t i;

	if (a->len == b->len && memcmp(a->p, b->p, a->len) == 0) {
		e->compared++;
		return;
	}
	for (i = 0; i < a->len && i < b->len && a->p[i] == b->p[i]; i++)
		;
	bench_die("%s of variant %zu: ours (%zu B) and the floor's (%zu B) differ at byte %zu: "
		  "ours \"%.80s\", floor \"%.80s\"",
		  what, serial, a->len, b->len, i, a->p + (i > 20 ? i - 20 : 0),
		  b->p + (i > 20 ? i - 20 : 0));
}

struct series {
	uint64_t *ns;
	size_t n, cap;
};

static void series_push(struct series *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->ns = xreallocarray(s->ns, s->cap, sizeof *s->ns);
	}
	s->ns[s->n++] = v;
}

struct stats {
	size_t n;
	double p50, p99, mean; /* microseconds */
};

/* Nearest rank. */
/* Sorts s and frees it. */
static void stats_take(struct series *s, struct stats *st)
{
	uint64_t sum = 0;
	size_t i;

	memset(st, 0, sizeof *st);
	if (s->n == 0)
		bench_die("internal error: no samples");
	qsort(s->ns, s->n, sizeof *s->ns, bench_cmp_u64);
	for (i = 0; i < s->n; i++)
		sum += s->ns[i];
	st->n = s->n;
	st->p50 = bench_pct_us(s->ns, s->n, 0.50);
	st->p99 = bench_pct_us(s->ns, s->n, 0.99);
	st->mean = (double)sum / (double)s->n / 1e3;
	free(s->ns);
	memset(s, 0, sizeof *s);
}

/* The verdict cache's lookups during a request (filter or a pair). */
struct lookups {
	uint64_t hits, misses;
};

static void lookups_since(const struct verdict_cache_stats *before, struct lookups *out)
{
	struct verdict_cache_stats now;

	verdict_cache_stats(&now);
	out->hits = now.hits - before->hits;
	out->misses = now.misses - before->misses;
}

/* ======================================================================
 * Part 1: filter, warm and cold, ours and the floor interleaved.
 * ====================================================================== */

struct row {
	bool cold;
	size_t names;
	struct stats ours, floor;
	uint64_t hits, lookups;
};

/* One sample: body to both servers (ours first when ours_first), replies
 * compared; *l: the verdict cache's lookups (only ours makes any). */
static void filter_both(struct env *e, const struct variant *v, bool ours_first, uint64_t *t_ours,
			uint64_t *t_floor, struct lookups *l)
{
	struct verdict_cache_stats before;

	verdict_cache_stats(&before);
	if (ours_first) {
		*t_ours = bench_client_post(&e->ours, true, v->body.p, v->body.len);
		*t_floor = bench_client_post(&e->flo, true, v->body.p, v->body.len);
	} else {
		*t_floor = bench_client_post(&e->flo, true, v->body.p, v->body.len);
		*t_ours = bench_client_post(&e->ours, true, v->body.p, v->body.len);
	}
	lookups_since(&before, l);
	same_reply(e, &e->ours.reply, &e->flo.reply, "filter reply", v->serial);
}

static void run_cell(struct env *e, size_t k, bool cold, struct row *r)
{
	const struct cand *c = &e->cand[k];
	size_t count = cold ? cfg.cold[k] : cfg.warm[k], i;
	struct series ours = { NULL, 0, 0 }, flo = { NULL, 0, 0 };
	uint64_t t0 = bench_now_ns(), to, tf;
	struct lookups l;
	struct cell cell;

	printf("filter, %s, %zu names:\n", cold ? "cold" : "warm", c->n);
	cell_prepare(e, c, cold ? cfg.warmup + count : 1, &cell);
	atomic_store(&e->floor.cell, &cell);
	memset(r, 0, sizeof *r);
	r->cold = cold;
	r->names = c->n;
	if (!cold) {
		/* The variant's first sight, untimed. */
		filter_both(e, &cell.v[0], true, &to, &tf, &l);
		if (l.hits != 0 || l.misses != c->n)
			bench_die("first sight of a demand: %llu verdict-cache hits, %llu misses for %zu "
				  "names", (unsigned long long)l.hits, (unsigned long long)l.misses, c->n);
	}
	for (i = 0; i < cfg.warmup + count; i++) {
		const struct variant *v = &cell.v[cold ? i : 0];

		filter_both(e, v, i % 2 == 0, &to, &tf, &l);
		if (cold && (l.hits != 0 || l.misses != c->n))
			bench_die("cold request (variant %zu): %llu verdict-cache hits, %llu misses for "
				  "%zu names; expected 0 and %zu",
				  v->serial, (unsigned long long)l.hits, (unsigned long long)l.misses, c->n,
				  c->n);
		if (i < cfg.warmup)
			continue;
		series_push(&ours, to);
		series_push(&flo, tf);
		r->hits += l.hits;
		r->lookups += l.hits + l.misses;
	}
	atomic_store(&e->floor.cell, NULL);
	cell_cleanup(&cell);
	stats_take(&ours, &r->ours);
	stats_take(&flo, &r->floor);
	printf("  %zu samples in %.1f s: ours p50 %.1f us, the floor p50 %.1f us\n", r->ours.n,
	       (double)(bench_now_ns() - t0) / 1e9, r->ours.p50, r->floor.p50);
}

/* ======================================================================
 * Part 2: cold filter+prioritize pairs on one core.
 * ====================================================================== */

/* One client's side of a pair: the filter reply is kept (swapped out of
 * the client's buffer, no copy) for the comparison. */
struct pair_side {
	struct bench_client *c;
	struct bench_buf filter_reply;
	struct bench_buf prio_body;
	size_t survivors;
};

/* kube-scheduler's sequence for one pod, all of it timed: filter, parse the
 * reply, build the prioritize body from NodeNames, prioritize. */
static uint64_t pair_once(struct pair_side *s, const struct variant *v)
{
	uint64_t t0 = bench_now_ns(), t1;
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o, *pass = NULL;
	struct bench_buf tmp;
	size_t i, n;

	if (tok == NULL)
		bench_die("json_tokener_new_ex failed");
	bench_client_post(s->c, true, v->body.p, v->body.len);
	o = json_tokener_parse_ex(tok, s->c->reply.p, (int)s->c->reply.len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_object_get_ex(o, "NodeNames", &pass) ||
	    !json_object_is_type(pass, json_type_array))
		bench_die("filter reply of variant %zu: no NodeNames: %.200s", v->serial,
			  s->c->reply.p);
	json_tokener_free(tok);
	n = json_object_array_length(pass);
	s->prio_body.len = 0;
	bench_buf_str(&s->prio_body, "{\"Pod\":");
	bench_buf_put(&s->prio_body, v->pod.p, v->pod.len);
	bench_buf_str(&s->prio_body, ",\"Nodes\":null,\"NodeNames\":[");
	for (i = 0; i < n; i++) {
		struct json_object *name = json_object_array_get_idx(pass, i);

		if (i)
			bench_buf_put(&s->prio_body, ",", 1);
		bench_buf_put(&s->prio_body, "\"", 1);
		bench_buf_put(&s->prio_body, json_object_get_string(name),
			      (size_t)json_object_get_string_len(name));
		bench_buf_put(&s->prio_body, "\"", 1);
	}
	bench_buf_str(&s->prio_body, "]}");
	json_object_put(o);
	tmp = s->filter_reply;
	s->filter_reply = s->c->reply;
	s->c->reply = tmp;
	bench_client_post(s->c, false, s->prio_body.p, s->prio_body.len);
	t1 = bench_now_ns();
	s->survivors = n;
	return t1 - t0;
}

static void side_init(struct pair_side *s, struct bench_client *c)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->filter_reply.cap = 1 << 16;
	s->filter_reply.p = xmalloc(s->filter_reply.cap);
	s->filter_reply.p[0] = '\0';
}

static void side_cleanup(struct pair_side *s)
{
	free(s->filter_reply.p);
	free(s->prio_body.p);
}

/* Every thread of the process onto the CPU the caller runs on; threads
 * created later inherit it. Returns that CPU. */
static int pin_process(void)
{
	int cpu = sched_getcpu();
	struct dirent *de;
	cpu_set_t set;
	DIR *d;

	if (cpu < 0)
		bench_die("sched_getcpu failed");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	d = opendir("/proc/self/task");
	if (d == NULL)
		bench_die("cannot list /proc/self/task");
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (sched_setaffinity((pid_t)atoi(de->d_name), sizeof set, &set) != 0)
			bench_die("sched_setaffinity(%s, CPU %d) failed", de->d_name, cpu);
	}
	closedir(d);
	return cpu;
}

/* Moves the calling thread (the client) to a CPU other than `server` that
 * the process may use; returns it, or `server` when there is none. */
static int client_elsewhere(int server)
{
	cpu_set_t allowed, set;
	int cpu;

	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return server;
	/* The process was pinned to `server`: ask what the machine has. */
	for (cpu = 0; cpu < CPU_SETSIZE && cpu < (int)sysconf(_SC_NPROCESSORS_ONLN); cpu++) {
		if (cpu == server)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) == 0)
			return cpu;
	}
	return server;
}

/* The number of threads of the process but `skip` (a thread id, or 0);
 * dies unless each runs on cpu only. */
static size_t threads_on(int cpu, pid_t skip)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");

	if (d == NULL)
		bench_die("cannot list /proc/self/task");
	while ((de = readdir(d)) != NULL) {
		cpu_set_t set;

		if (de->d_name[0] == '.' || (skip && (pid_t)atoi(de->d_name) == skip))
			continue;
		CPU_ZERO(&set);
		if (sched_getaffinity((pid_t)atoi(de->d_name), sizeof set, &set) != 0)
			continue; /* gone meanwhile */
		if (CPU_COUNT(&set) != 1 || !CPU_ISSET(cpu, &set))
			bench_die("thread %s is not pinned to CPU %d", de->d_name, cpu);
		n++;
	}
	closedir(d);
	return n;
}

struct pairs_result {
	int cpu, client_cpu;
	size_t threads;
	struct stats ours, floor;
	double survivors;       /* mean */
	double server_us;       /* ours' own time per pair (/metrics) */
	double cpu_us;          /* CPU time of ours' threads per pair (/proc) */
	uint64_t prio_hits, prio_names;
	double pairs_per_s, floor_pairs_per_s;
};

static void run_pairs(struct env *e, struct pairs_result *r)
{
	struct series ours = { NULL, 0, 0 }, flo = { NULL, 0, 0 };
	struct pair_side so, sf;
	double f0, fc0, p0, pc0, f1, fc1, p1, pc1, cpu0 = 0, cpu1;
	uint64_t t0, survivors = 0;
	struct cell cell;
	size_t i;

	memset(r, 0, sizeof *r);
	cell_prepare(e, &e->cand[0], cfg.warmup + cfg.pairs, &cell);
	r->cpu = pin_process();
	servers_start(e, 1); /* their threads inherit the CPU */
	r->client_cpu = client_elsewhere(r->cpu);
	r->threads = threads_on(r->cpu, r->client_cpu != r->cpu ? (pid_t)syscall(SYS_gettid) : 0);
	printf("  every server thread (%zu) pinned to CPU %d, the client on CPU %d\n", r->threads,
	       r->cpu, r->client_cpu);
	atomic_store(&e->floor.cell, &cell);
	side_init(&so, &e->ours);
	side_init(&sf, &e->flo);
	t0 = bench_now_ns();
	f0 = fc0 = p0 = pc0 = 0;
	for (i = 0; i < cfg.warmup + cfg.pairs; i++) {
		const struct variant *v = &cell.v[i];
		struct verdict_cache_stats before;
		struct lookups l;
		uint64_t to, tf;

		if (i == cfg.warmup) {
			bench_server_time(&e->ours, "filter", &f0, &fc0);
			bench_server_time(&e->ours, "prioritize", &p0, &pc0);
			cpu0 = tids_cpu_s(e->ours_tids, e->nours_tids);
		}
		verdict_cache_stats(&before);
		if (i % 2 == 0) {
			to = pair_once(&so, v);
			tf = pair_once(&sf, v);
		} else {
			tf = pair_once(&sf, v);
			to = pair_once(&so, v);
		}
		lookups_since(&before, &l);
		same_reply(e, &so.filter_reply, &sf.filter_reply, "filter reply (pair)", v->serial);
		same_reply(e, &e->ours.reply, &e->flo.reply, "prioritize reply (pair)", v->serial);
		/* The filter judged every name (n misses); prioritize could only
		 * find what that filter left. */
		if (l.misses < cell.cand->n || l.hits > so.survivors)
			bench_die("cold pair (variant %zu): %llu verdict-cache hits, %llu misses for %zu "
				  "names and %zu survivors",
				  v->serial, (unsigned long long)l.hits, (unsigned long long)l.misses,
				  cell.cand->n, so.survivors);
		if (i < cfg.warmup)
			continue;
		series_push(&ours, to);
		series_push(&flo, tf);
		survivors += so.survivors;
		r->prio_hits += l.hits;
		r->prio_names += so.survivors;
	}
	cpu1 = tids_cpu_s(e->ours_tids, e->nours_tids);
	bench_server_time(&e->ours, "filter", &f1, &fc1);
	bench_server_time(&e->ours, "prioritize", &p1, &pc1);
	atomic_store(&e->floor.cell, NULL);
	side_cleanup(&so);
	side_cleanup(&sf);
	servers_stop(e);
	cell_cleanup(&cell);
	stats_take(&ours, &r->ours);
	stats_take(&flo, &r->floor);
	r->survivors = (double)survivors / (double)r->ours.n;
	r->server_us = ((f1 - f0) + (p1 - p0)) / (double)r->ours.n * 1e6;
	/* CPU time comes in clock ticks (10 ms): below 50 of them (--quick)
	 * the capacity is not measured (0), rather than divided by nothing. */
	r->cpu_us = cpu1 - cpu0 >= 50.0 / (double)sysconf(_SC_CLK_TCK)
			    ? (cpu1 - cpu0) / (double)r->ours.n * 1e6
			    : 0;
	r->pairs_per_s = 1e6 / r->ours.mean;
	r->floor_pairs_per_s = 1e6 / r->floor.mean;
	printf("  %zu pairs in %.1f s\n", r->ours.n, (double)(bench_now_ns() - t0) / 1e9);
}

/* ======================================================================
 * Setup and the report.
 * ====================================================================== */

static void env_start(struct env *e, bool reference)
{
	memset(e, 0, sizeof *e);
	log_set_level(LOG_LEVEL_WARN);
	config_init(&e->config);
	free(e->config.listen);
	e->config.listen = xstrdup("127.0.0.1:0");
	e->store = store_new();
	bench_rnd_seed(BENCH_SEED);
	bench_cluster_publish(e->store, cfg.nodes);
	if (reference) {
		/* The same random numbers again: the same inventories, other
		 * snapshots. */
		e->ref_store = store_new();
		bench_rnd_seed(BENCH_SEED);
		bench_cluster_publish(e->ref_store, cfg.nodes);
		e->ref_settings = settings_new(&e->config);
	}
	/* The candidate lists of bench_server: drawn right after the cluster. */
	cand_init(&e->cand[0], cfg.small, true);
	cand_init(&e->cand[1], cfg.nodes, true);
	settings_holder_init(&e->holder, settings_new(&e->config));
	e->ctx.store = e->store;
	e->ctx.settings = &e->holder;
}

static void env_stop(struct env *e)
{
	if (e->server)
		servers_stop(e);
	cand_cleanup(&e->cand[0]);
	cand_cleanup(&e->cand[1]);
	settings_holder_cleanup(&e->holder);
	if (e->ref_settings)
		settings_unref(e->ref_settings);
	store_free(e->store);
	if (e->ref_store)
		store_free(e->ref_store);
	config_cleanup(&e->config);
	reasons_free();
}

static struct bench_target targets[8];
static size_t ntargets;

static void target_add(const char *what, bool lower_is_better, double limit, double got,
		       const char *unit)
{
	if (ntargets == sizeof targets / sizeof targets[0])
		bench_die("internal error: more than %zu targets", ntargets);
	bench_target_set(&targets[ntargets++], what, lower_is_better, limit, got, unit);
}

static int run(void)
{
	struct env e;
	struct row rows[4];
	struct pairs_result pr;
	size_t i, missed = 0;
	char what[80];

	env_start(&e, true);
	printf("pod: Guaranteed, server (cpu 8, memory 32Gi + k Mi, nvidia.com/gpu 1, dsa 1) + "
	       "metrics (cpu 1, memory 512Mi);\n"
	       "  each cold request a new k (a new demand, UID and name); node-names mode; "
	       "candidates: a random %zu of the %zu nodes, and all %zu in random order\n",
	       cfg.small, cfg.nodes, cfg.nodes);

	printf("\n== Part 1: filter, ours and the floor interleaved (alternating which goes first)\n");
	servers_start(&e, (int)e.config.threads);
	run_cell(&e, 0, false, &rows[0]);
	run_cell(&e, 0, true, &rows[1]);
	run_cell(&e, 1, false, &rows[2]);
	run_cell(&e, 1, true, &rows[3]);
	servers_stop(&e);
	printf("\nclient-side latency, us (curl_easy_perform around one POST, reply read in full)\n");
	printf("%-13s %6s %7s %11s %9s %9s %10s %10s %12s\n", "request", "names", "samples",
	       "cache hits", "ours p50", "ours p99", "floor p50", "floor p99", "ours/floor");
	for (i = 0; i < 4; i++) {
		const struct row *r = &rows[i];
		char hits[24];

		snprintf(hits, sizeof hits, "%.1f%%",
			 r->lookups ? 100.0 * (double)r->hits / (double)r->lookups : 0.0);
		printf("%-13s %6zu %7zu %11s %9.1f %9.1f %10.1f %10.1f %11.2fx\n",
		       r->cold ? "filter, cold" : "filter, warm", r->names, r->ours.n, hits,
		       r->ours.p50, r->ours.p99, r->floor.p50, r->floor.p99, r->ours.p50 / r->floor.p50);
	}
	printf("(ours/floor: ratio of the medians. cache hits: verdict-cache hits over lookups in "
	       "ours during the samples;\n"
	       " every cold request was checked to have 0 hits and one miss per name. Every reply "
	       "byte-identical to the floor's.)\n");

	printf("\n== Part 2: cold filter+prioritize pairs at %zu names on one core (threads 1)\n",
	       cfg.small);
	run_pairs(&e, &pr);
	printf("%-7s %6s %9s %9s %9s %9s %9s %10s %10s %12s\n", "server", "pairs", "survivors",
	       "pair p50", "pair p99", "pair mean", "pairs/s", "server/pair", "capacity", "prio. hits");
	printf("%-7s %6zu %9.0f %9.1f %9.1f %9.1f %9.0f %10.1f %10.0f %11.1f%%\n", "ours", pr.ours.n,
	       pr.survivors, pr.ours.p50, pr.ours.p99, pr.ours.mean, pr.pairs_per_s, pr.server_us,
	       pr.cpu_us > 0 ? 1e6 / pr.cpu_us : 0.0,
	       pr.prio_names ? 100.0 * (double)pr.prio_hits / (double)pr.prio_names : 0.0);
	printf("%-7s %6zu %9.0f %9.1f %9.1f %9.1f %9.0f %10s %12s\n", "floor", pr.floor.n,
	       pr.survivors, pr.floor.p50, pr.floor.p99, pr.floor.mean, pr.floor_pairs_per_s, "", "");
	printf("(us. a pair: POST filter with a new variant, parse its reply with json-c, build the "
	       "prioritize body from NodeNames,\n"
	       " POST prioritize; servers on CPU %d, the client on CPU %d. pairs/s = 1 / mean "
	       "pair. server/pair: ours' own\n"
	       " time per pair (/metrics, first request callback to reply queued, filter + "
	       "prioritize); capacity = 1 / the CPU time ours'\n"
	       " threads used per pair (/proc, user + system, HTTP included): the pairs one core "
	       "serves per second when kept busy\n"
	       " (the target). prio. hits: prioritize's\n"
	       " verdict-cache hits over its names (what the pair's filter left). Both replies of "
	       "every pair byte-identical to the floor's.)\n",
	       pr.cpu, pr.client_cpu);

	printf("\n== Targets (ratios: ours p50 / floor p50)\n");
	for (i = 0; i < 4; i++) {
		const struct row *r = &rows[i];

		if (r->cold && r->names != cfg.nodes)
			continue;
		snprintf(what, sizeof what, "filter, %s, %zu names: ours / floor", r->cold ? "cold" : "warm",
			 r->names);
		target_add(what, true, r->cold ? 3 : 2, r->ours.p50 / r->floor.p50, "x");
	}
	snprintf(what, sizeof what, "cold filter+prioritize pairs/s, %zu names, one core", cfg.small);
	if (pr.cpu_us > 0)
		target_add(what, false, 1000, 1e6 / pr.cpu_us, "/s");
	else
		printf("(%s: not judged, the pairs used less CPU than 50 clock ticks)\n", what);
	printf("%-52s %-9s %-24s %s\n", "target", "goal", "measured", "ok");
	for (i = 0; i < ntargets; i++) {
		printf("%-52s %-9s %-24s %s\n", targets[i].what, targets[i].goal, targets[i].got,
		       targets[i].ok ? "ok" : "MISSED");
		missed += !targets[i].ok;
	}
	printf("(%zu of %zu targets missed; a miss does not change the exit status. %lu replies "
	       "compared with the floor's, all identical.)\n",
	       missed, ntargets, e.compared);
	env_stop(&e);
	return 0;
}

/* Server threads of --profile-cold and --profile-pairs (--threads). */
static int profile_threads = 1;

/* Exactly count cold filters at every node to the real server over HTTP
 * (no floor, no tables), each checked for 0 verdict-cache hits; warm: one
 * demand judged first, then count filters of it, each all hits. */
static int profile_filters(long count, bool warm)
{
	double server_s = 0, served = 0;
	struct verdict_cache_stats before;
	struct errmsg msg;
	struct lookups l;
	struct bench_buf pod = { NULL, 0, 0 }, body = { NULL, 0, 0 };
	uint64_t total = 0;
	struct env e;
	char uid[48];
	long i;

	env_start(&e, false);
	e.config.threads = profile_threads;
	if (server_start(&e.config, &e.ctx, &e.server, &msg) != ERR_OK)
		bench_die("server_start: %s", msg.text);
	bench_client_init(&e.ours, server_port(e.server));
	if (warm) {
		/* One demand, judged once before the count. */
		variant_pod(next_serial++, uid, sizeof uid, &pod);
		bench_args_body(pod.p, pod.len, e.cand[1].ids, e.cand[1].n, &body);
		bench_client_post(&e.ours, true, body.p, body.len);
		bench_server_time(&e.ours, "filter", &server_s, &served);
	}
	for (i = 0; i < count; i++) {
		if (!warm) {
			variant_pod(next_serial++, uid, sizeof uid, &pod);
			bench_args_body(pod.p, pod.len, e.cand[1].ids, e.cand[1].n, &body);
		}
		verdict_cache_stats(&before);
		total += bench_client_post(&e.ours, true, body.p, body.len);
		lookups_since(&before, &l);
		if (l.hits != (warm ? e.cand[1].n : 0) || l.misses != (warm ? 0 : e.cand[1].n))
			bench_die("%s request %ld: %llu verdict-cache hits, %llu misses for %zu names",
				  warm ? "warm" : "cold", i, (unsigned long long)l.hits,
				  (unsigned long long)l.misses, e.cand[1].n);
	}
	{
		double s0 = server_s, c0 = served;

		bench_server_time(&e.ours, "filter", &server_s, &served);
		server_s -= s0;
		served -= c0;
	}
	printf("profile-%s: %ld %s filters at %zu names over HTTP (server threads %d), %s "
	       "verdict-cache hits, mean %.2f ms (in the server %.2f ms)\n",
	       warm ? "warm" : "cold", count, warm ? "warm" : "cold", e.cand[1].n, profile_threads,
	       warm ? "all" : "0", (double)total / (double)count / 1e6,
	       served > 0 ? server_s / served * 1e3 : 0.0);
	free(pod.p);
	free(body.p);
	bench_client_cleanup(&e.ours);
	server_drain_and_stop(e.server, 1000);
	e.server = NULL;
	env_stop(&e);
	return 0;
}

/* Exactly count cold filter+prioritize pairs at the small candidate list to
 * the real server over HTTP (threads 1, no floor): what one core spends on
 * the pairs of part 2, for callgrind over the whole process. */
static int profile_pairs(long count)
{
	struct variant v;
	struct pair_side s;
	uint64_t total = 0;
	struct env e;
	long i;

	env_start(&e, false);
	e.config.threads = profile_threads;
	if (server_start(&e.config, &e.ctx, &e.server, &(struct errmsg){ 0 }) != ERR_OK)
		bench_die("server_start failed");
	bench_client_init(&e.ours, server_port(e.server));
	memset(&v, 0, sizeof v);
	side_init(&s, &e.ours);
	for (i = 0; i < count; i++) {
		v.serial = next_serial++;
		variant_pod(v.serial, v.uid, sizeof v.uid, &v.pod);
		bench_args_body(v.pod.p, v.pod.len, e.cand[0].ids, e.cand[0].n, &v.body);
		total += pair_once(&s, &v);
	}
	printf("profile-pairs: %ld cold filter+prioritize pairs at %zu names over HTTP (server "
	       "threads %d), mean %.1f us, %zu survivors in the last\n",
	       count, e.cand[0].n, profile_threads, (double)total / (double)count / 1e3,
	       s.survivors);
	side_cleanup(&s);
	free(v.pod.p);
	free(v.body.p);
	bench_client_cleanup(&e.ours);
	server_drain_and_stop(e.server, 1000);
	e.server = NULL;
	env_stop(&e);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_floor [--quick] | [--threads T] --profile-cold N | "
			"[--threads T] --profile-warm N | [--threads T] --profile-pairs N\n");
}

int main(int argc, char **argv)
{
	uint64_t t0;
	long profile = 0, pairs = 0, warm = 0;
	int i, rc;

	bench_init("bench_floor");
	t0 = bench_now_ns();
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			cfg.nodes = 300;
			cfg.small = 50;
			cfg.warm[0] = cfg.warm[1] = 3;
			cfg.cold[0] = cfg.cold[1] = 3;
			cfg.pairs = 3;
			cfg.warmup = 1;
		} else if (strcmp(argv[i], "--profile-cold") == 0 && i + 1 < argc) {
			profile = atol(argv[++i]);
			if (profile < 1) {
				usage();
				return 1;
			}
		} else if (strcmp(argv[i], "--profile-warm") == 0 && i + 1 < argc) {
			warm = atol(argv[++i]);
			if (warm < 1) {
				usage();
				return 1;
			}
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			profile_threads = atoi(argv[++i]);
			if (profile_threads < 1 || profile_threads > 64) {
				usage();
				return 1;
			}
		} else if (strcmp(argv[i], "--profile-pairs") == 0 && i + 1 < argc) {
			pairs = atol(argv[++i]);
			if (pairs < 1) {
				usage();
				return 1;
			}
		} else {
			usage();
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		bench_die("curl_global_init failed");
	bench_print_header(argc > 0 ? argv[0] : NULL);
	rc = profile ? profile_filters(profile, false)
	     : warm  ? profile_filters(warm, true)
	     : pairs ? profile_pairs(pairs)
		     : run();
	curl_global_cleanup();
	printf("\ntotal %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
	return rc;
}
