/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of the extender's HTTP verbs (not a test; exits 0 whatever the
 * numbers, 1 only when a reply is wrong or the setup fails):
 *  1. client-side latency of POST /filter and /prioritize against the real
 *     server (server_start on 127.0.0.1:0, default settings: LeastAllocated)
 *     over ONE keep-alive libcurl connection, at 500 and 5000 candidate names
 *     (node-names mode) out of 5000 published 8-NUMA inventories (the
 *     cluster, pod, candidate lists and client of tests/support/bench_cluster.c,
 *     shared with bench_floor);
 *  2. filter+prioritize pairs as kube-scheduler sends them (filter, then
 *     prioritize with the surviving names), sequential on the same connection;
 *  3. the baselines on the same request bytes, in process, interleaved with
 *     the requests of part 1 (each request is followed by one run of each):
 *     json-c alone (parse the body with a fresh depth-64 tokener, build and
 *     serialise the same reply with json-c objects), the handler alone
 *     (handle_filter / handle_prioritize without HTTP), and the handler's
 *     three stages (decode, judge, encode); then judge_node per node by
 *     kubelet policy and outcome.
 * Every reply is checked: HTTP 200, valid JSON, every candidate in exactly one
 * bucket (filter) or scored exactly once (prioritize), and byte-identical to
 * the first reply, to the handler's own output and to the encoder's.
 *
 * Modes: (none) the full run, under a minute; --quick tiny counts on a small
 * cluster (for valgrind or sanitizers); --threads N (1..64, default 2, the
 * config default) server threads; --profile-filter [COUNT] exactly COUNT
 * (default 200) in-process handle_filter calls at 500 names and nothing else:
 *   valgrind --tool=callgrind --toggle-collect=handle_filter ./bench_server --profile-filter
 *   perf record -g ./bench_server --profile-filter 20000
 */
#include <curl/curl.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/http/handlers.h"
#include "extender/log.h"
#include "extender/http/server.h"
#include "extender/decide/settings.h"
#include "extender/inventory/store.h"
#include "extender/codec/wire.h"
#include "tests/support/bench_cluster.h"
#include "base/xalloc.h"
#include "topology/demand.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/score.h"

/* --- run parameters --- */

/* A cell runs at least min_* operations and at least *_ns of wall time
 * (checks included), at most max_ops operations. HTTP cells: [0] at the small
 * request, [1] at every node. */
struct run_cfg {
	size_t nodes;          /* inventories published */
	size_t small;          /* candidates in the small request */
	size_t min_http[2];
	uint64_t http_ns[2];
	size_t min_group;      /* judge_node by policy and outcome */
	uint64_t group_ns;
	size_t max_ops;
	size_t warmup;         /* untimed operations before each cell */
	int threads;           /* server threads */
};

static struct run_cfg cfg = {
	.nodes = 5000,
	.small = 500,
	.min_http = { 200, 60 },
	.http_ns = { 2000000000u, 4500000000u },
	.min_group = 20,
	.group_ns = 100000000u,
	.max_ops = 200000,
	.warmup = 5,
	.threads = 2,
};

static volatile uint64_t sink; /* keeps results observable */

/* ======================================================================
 * Requests, expected replies and their checks.
 * ====================================================================== */

/* One request body and what the server answers it (the first reply; every
 * later reply, and the handler's own output, must be identical). */
struct body {
	char label[16];
	size_t *ids;                 /* candidates in request order */
	size_t n;
	struct bench_buf text;
	char *filter_reply;
	size_t filter_len;
	char *prio_reply;
	size_t prio_len;
	enum decision_outcome *outcome;  /* per candidate */
	const char **reason;         /* per candidate, NULL when passing */
	int64_t *score;              /* per candidate */
	char **reasons;              /* distinct reason texts */
	size_t nreasons;
	size_t npass, nfailed, nunres;
};

/* Candidate scratch space, indexed by node id. */
static unsigned char *want_map, *seen_map;
static size_t *pos_map;

static void body_init(struct body *b, const char *label, size_t n, bool shuffle_all)
{
	memset(b, 0, sizeof *b);
	snprintf(b->label, sizeof b->label, "%s", label);
	b->n = n;
	b->ids = bench_candidates(cfg.nodes, n, shuffle_all);
	bench_args_body(bench_pod_json, bench_pod_len, b->ids, n, &b->text);
	b->outcome = xcalloc(n + 1, sizeof *b->outcome);
	b->reason = xcalloc(n + 1, sizeof *b->reason);
	b->score = xcalloc(n + 1, sizeof *b->score);
}

static void body_cleanup(struct body *b)
{
	size_t i;

	for (i = 0; i < b->nreasons; i++)
		free(b->reasons[i]);
	free(b->reasons);
	free(b->ids);
	free(b->text.p);
	free(b->filter_reply);
	free(b->prio_reply);
	free(b->outcome);
	free(b->reason);
	free(b->score);
	memset(b, 0, sizeof *b);
}

static const char *body_intern(struct body *b, const char *text)
{
	size_t i;

	for (i = 0; i < b->nreasons; i++)
		if (strcmp(b->reasons[i], text) == 0)
			return b->reasons[i];
	b->reasons = xreallocarray(b->reasons, b->nreasons + 1, sizeof *b->reasons);
	b->reasons[b->nreasons] = xstrdup(text);
	return b->reasons[b->nreasons++];
}

static struct json_object *parse_exact(const char *text, size_t len, const char *what)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;

	if (tok == NULL)
		bench_die("json_tokener_new_ex failed");
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) != len)
		bench_die("%s: not exactly one JSON value (%s): %.200s", what,
		    json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return o;
}

static struct json_object *member(struct json_object *o, const char *key, enum json_type type,
				  const char *what)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		bench_die("%s: member %s missing or of the wrong type", what, key);
	return v;
}

static void want_set(const size_t *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (want_map[ids[i]])
			bench_die("internal error: candidate worker-%05zu given twice", ids[i]);
		want_map[ids[i]] = 1;
		seen_map[ids[i]] = 0;
		pos_map[ids[i]] = i;
	}
}

static void want_check_clear(const size_t *ids, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (seen_map[ids[i]] != 1)
			bench_die("%s: worker-%05zu accounted for %d times", what, ids[i], seen_map[ids[i]]);
		want_map[ids[i]] = 0;
		seen_map[ids[i]] = 0;
	}
}

/* The position of a node named in a reply; dies unless it was a candidate
 * not seen before in this reply. */
static size_t reply_name(const char *name, const char *what)
{
	size_t id = bench_node_id(name, cfg.nodes);

	if (id == SIZE_MAX || !want_map[id])
		bench_die("%s: \"%s\" was not a candidate", what, name);
	if (seen_map[id]++)
		bench_die("%s: \"%s\" appears twice", what, name);
	return pos_map[id];
}

static void bucket_walk(struct json_object *map, enum decision_outcome outcome, struct body *fill,
			size_t *count, const char *what)
{
	struct json_object_iterator it = json_object_iter_begin(map);
	struct json_object_iterator end = json_object_iter_end(map);

	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		struct json_object *v = json_object_iter_peek_value(&it);
		size_t pos = reply_name(json_object_iter_peek_name(&it), what);

		if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0)
			bench_die("%s: reason of %s is not a non-empty string", what,
			    json_object_iter_peek_name(&it));
		if (fill) {
			fill->outcome[pos] = outcome;
			fill->reason[pos] = body_intern(fill, json_object_get_string(v));
		}
		(*count)++;
	}
}

/* A filter reply for the candidates ids[0..n): every candidate in exactly
 * one of NodeNames / FailedNodes / FailedAndUnresolvableNodes, Error "".
 * fill: record the outcome and reason of each candidate. Returns the number
 * passing. */
static size_t check_filter(const char *text, size_t len, const size_t *ids, size_t n,
			   struct body *fill)
{
	static const char what[] = "filter reply";
	struct json_object *o = parse_exact(text, len, what), *pass, *v = NULL;
	size_t i, npass = 0, nfailed = 0, nunres = 0;

	if (!json_object_is_type(o, json_type_object) || json_object_object_length(o) != 5)
		bench_die("%s: not an object of 5 members: %.200s", what, text);
	if (!json_object_object_get_ex(o, "Nodes", &v) || v != NULL)
		bench_die("%s: Nodes is not null", what);
	if (strcmp(json_object_get_string(member(o, "Error", json_type_string, what)), "") != 0)
		bench_die("%s: Error: %s", what, json_object_get_string(member(o, "Error", json_type_string, what)));
	want_set(ids, n);
	pass = member(o, "NodeNames", json_type_array, what);
	for (i = 0; i < json_object_array_length(pass); i++) {
		struct json_object *s = json_object_array_get_idx(pass, i);
		size_t pos;

		if (!json_object_is_type(s, json_type_string))
			bench_die("%s: NodeNames[%zu] is not a string", what, i);
		pos = reply_name(json_object_get_string(s), what);
		if (fill) {
			fill->outcome[pos] = DECISION_PASS;
			fill->reason[pos] = NULL;
		}
		npass++;
	}
	bucket_walk(member(o, "FailedNodes", json_type_object, what), DECISION_FAILED, fill, &nfailed,
		    what);
	bucket_walk(member(o, "FailedAndUnresolvableNodes", json_type_object, what),
		    DECISION_UNRESOLVABLE, fill, &nunres, what);
	want_check_clear(ids, n, what);
	if (fill) {
		fill->npass = npass;
		fill->nfailed = nfailed;
		fill->nunres = nunres;
	}
	json_object_put(o);
	return npass;
}

/* A HostPriorityList for ids[0..n): each candidate once, Score 0..10.
 * scores: record each candidate's score. */
static void check_prioritize(const char *text, size_t len, const size_t *ids, size_t n,
			     int64_t *scores)
{
	static const char what[] = "prioritize reply";
	struct json_object *o = parse_exact(text, len, what);
	size_t i;

	if (!json_object_is_type(o, json_type_array) || json_object_array_length(o) != n)
		bench_die("%s: not an array of %zu entries: %.200s", what, n, text);
	want_set(ids, n);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(o, i), *score;
		size_t pos;
		int64_t s;

		if (!json_object_is_type(e, json_type_object) || json_object_object_length(e) != 2)
			bench_die("%s: [%zu] is not an object of 2 members", what, i);
		pos = reply_name(json_object_get_string(member(e, "Host", json_type_string, what)), what);
		score = member(e, "Score", json_type_int, what);
		s = json_object_get_int64(score);
		if (s < 0 || s > 10)
			bench_die("%s: score %lld out of 0..10", what, (long long)s);
		if (scores)
			scores[pos] = s;
	}
	want_check_clear(ids, n, what);
	json_object_put(o);
}

/* ======================================================================
 * Cells: timed operations and their statistics.
 * ====================================================================== */

/* One operation; returns the nanoseconds of its timed part (checks done
 * outside it are free). */
typedef uint64_t (*op_fn)(void *ctx);

struct stats {
	size_t n;
	double p50, p99, mean, min, max; /* microseconds */
};

/* Nearest rank. */
/* Runs cfg.warmup untimed operations, then mark(ctx) when given, then at
 * least min_ops operations and until budget_ns of wall time has passed (at
 * most cfg.max_ops). */
static void run_cell(op_fn fn, void *ctx, void (*mark)(void *ctx), size_t min_ops,
		     uint64_t budget_ns, struct stats *st)
{
	size_t cap = 1024, n = 0, i;
	uint64_t *samples = xcalloc(cap, sizeof *samples), t0, sum = 0;

	for (i = 0; i < cfg.warmup; i++)
		sink += fn(ctx);
	if (mark)
		mark(ctx);
	t0 = bench_now_ns();
	while (n < cfg.max_ops && (n < min_ops || bench_now_ns() - t0 < budget_ns)) {
		if (n == cap) {
			cap *= 2;
			samples = xreallocarray(samples, cap, sizeof *samples);
		}
		samples[n] = fn(ctx);
		sum += samples[n];
		n++;
	}
	qsort(samples, n, sizeof *samples, bench_cmp_u64);
	st->n = n;
	st->p50 = bench_pct_us(samples, n, 0.50);
	st->p99 = bench_pct_us(samples, n, 0.99);
	st->mean = (double)sum / (double)n / 1e3;
	st->min = (double)samples[0] / 1e3;
	st->max = (double)samples[n - 1] / 1e3;
	free(samples);
}

/* ======================================================================
 * The operations.
 * ====================================================================== */

struct env {
	struct store *store;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct config config;
	struct server *server;
	struct bench_client client;
};

/* What one iteration of a Part 1 cell measures besides the request itself,
 * in this order, on the same bytes: */
enum side {
	SIDE_JSONC,    /* json-c alone */
	SIDE_HANDLER,  /* handle_filter / handle_prioritize */
	SIDE_DECODE,   /* wire_decode_args + pod_demand_new */
	SIDE_JUDGE,    /* the judge loop */
	SIDE_ENCODE,   /* wire_encode_* */
	NSIDES
};

struct op {
	struct env *env;
	struct body *body;
	bool filter;
	double srv_sum, srv_count;   /* /metrics after the warm-up */
	/* Side samples, one per iteration after the warm-up (pairs: [0] the
	 * filter request, [1] the prioritize request). */
	uint64_t *side[NSIDES];
	size_t nside, side_cap;
	/* pairs */
	struct bench_buf prio_body;
	size_t *survivors;
	size_t nsurvivors;
	/* decoded once, for the judge and encode stages */
	struct wire_args args;
	struct pod_demand *demand;
};

static void side_push(struct op *op, const uint64_t *v, size_t n)
{
	size_t i;

	if (op->nside == op->side_cap) {
		op->side_cap = op->side_cap ? 2 * op->side_cap : 1024;
		for (i = 0; i < NSIDES; i++)
			op->side[i] = xreallocarray(op->side[i], op->side_cap, sizeof(uint64_t));
	}
	for (i = 0; i < n; i++)
		op->side[i][op->nside] = v[i];
	op->nside++;
}

static void side_free(struct op *op)
{
	size_t i;

	for (i = 0; i < NSIDES; i++)
		free(op->side[i]);
}

static uint64_t op_http_filter(void *arg)
{
	struct op *op = arg;
	struct bench_client *c = &op->env->client;
	struct body *b = op->body;
	uint64_t ns = bench_client_post(c, true, b->text.p, b->text.len);

	check_filter(c->reply.p, c->reply.len, b->ids, b->n, NULL);
	if (c->reply.len != b->filter_len || memcmp(c->reply.p, b->filter_reply, b->filter_len) != 0)
		bench_die("filter reply at %s names differs from the first one", b->label);
	return ns;
}

static uint64_t op_http_prioritize(void *arg)
{
	struct op *op = arg;
	struct bench_client *c = &op->env->client;
	struct body *b = op->body;
	uint64_t ns = bench_client_post(c, false, b->text.p, b->text.len);

	check_prioritize(c->reply.p, c->reply.len, b->ids, b->n, NULL);
	if (c->reply.len != b->prio_len || memcmp(c->reply.p, b->prio_reply, b->prio_len) != 0)
		bench_die("prioritize reply at %s names differs from the first one", b->label);
	return ns;
}

/* After the warm-up: forget its side samples; note the server's totals. */
static void op_mark(void *arg)
{
	struct op *op = arg;

	op->nside = 0;
	bench_server_time(&op->env->client, op->filter ? "filter" : "prioritize", &op->srv_sum,
		    &op->srv_count);
}

/* Mean server-side time (us) since op_mark. */
static double op_server_mean(struct op *op)
{
	double sum, count;

	bench_server_time(&op->env->client, op->filter ? "filter" : "prioritize", &sum, &count);
	if (count <= op->srv_count)
		return 0;
	return (sum - op->srv_sum) / (count - op->srv_count) * 1e6;
}

/* kube-scheduler's sequence for one pod: filter, read the survivors, build
 * the prioritize body from them, prioritize. All of it is timed. */
static uint64_t op_pair(void *arg)
{
	struct op *op = arg;
	struct bench_client *c = &op->env->client;
	struct body *b = op->body;
	struct json_object *o, *pass;
	uint64_t t0 = bench_now_ns(), t1, tf, tp;
	size_t i, n;

	tf = bench_client_post(c, true, b->text.p, b->text.len);
	o = parse_exact(c->reply.p, c->reply.len, "filter reply");
	pass = member(o, "NodeNames", json_type_array, "filter reply");
	n = json_object_array_length(pass);
	op->prio_body.len = 0;
	bench_buf_str(&op->prio_body, "{\"Pod\":");
	bench_buf_put(&op->prio_body, bench_pod_json, bench_pod_len);
	bench_buf_str(&op->prio_body, ",\"Nodes\":null,\"NodeNames\":[");
	for (i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(pass, i);

		if (i)
			bench_buf_put(&op->prio_body, ",", 1);
		bench_buf_put(&op->prio_body, "\"", 1);
		bench_buf_put(&op->prio_body, json_object_get_string(s), (size_t)json_object_get_string_len(s));
		bench_buf_put(&op->prio_body, "\"", 1);
		op->survivors[i] = bench_node_id(json_object_get_string(s), cfg.nodes);
	}
	bench_buf_str(&op->prio_body, "]}");
	json_object_put(o);
	/* The full check of this reply is the one of the first reply: same bytes. */
	if (c->reply.len != b->filter_len || memcmp(c->reply.p, b->filter_reply, b->filter_len) != 0)
		bench_die("filter reply at %s names differs from the first one", b->label);
	tp = bench_client_post(c, false, op->prio_body.p, op->prio_body.len);
	t1 = bench_now_ns();
	/* Untimed: the checks. */
	check_prioritize(c->reply.p, c->reply.len, op->survivors, n, NULL);
	op->nsurvivors = n;
	{
		uint64_t v[2] = { tf, tp };

		side_push(op, v, 2);
	}
	return t1 - t0;
}

/* json-c alone: parse the request as a fresh depth-64 tokener would, walk the
 * candidate names, build the ExtenderFilterResult the server sent (same
 * buckets and reasons) with json-c objects and serialise it. */
static struct json_object *baseline_names(struct json_object **req, const struct body *b)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *names = NULL;

	*req = json_tokener_parse_ex(tok, b->text.p, (int)b->text.len);
	if (*req == NULL || !json_object_object_get_ex(*req, "NodeNames", &names) ||
	    json_object_array_length(names) != b->n)
		bench_die("json-c baseline: cannot parse the request");
	json_tokener_free(tok);
	return names;
}

static size_t baseline_filter_once(const struct body *b, char *copy, size_t size)
{
	struct json_object *req, *names = baseline_names(&req, b);
	struct json_object *reply = json_object_new_object(), *pass = json_object_new_array();
	struct json_object *failed = json_object_new_object(), *unres = json_object_new_object();
	const char *text;
	size_t i, len;

	for (i = 0; i < b->n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, i));

		switch (b->outcome[i]) {
		case DECISION_PASS:
			json_object_array_add(pass, json_object_get(json_object_array_get_idx(names, i)));
			break;
		case DECISION_FAILED:
			json_object_object_add(failed, name, json_object_new_string(b->reason[i]));
			break;
		case DECISION_UNRESOLVABLE:
		default:
			json_object_object_add(unres, name, json_object_new_string(b->reason[i]));
			break;
		}
	}
	json_object_object_add(reply, "Nodes", NULL);
	json_object_object_add(reply, "NodeNames", pass);
	json_object_object_add(reply, "FailedNodes", failed);
	json_object_object_add(reply, "FailedAndUnresolvableNodes", unres);
	json_object_object_add(reply, "Error", json_object_new_string(""));
	text = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (copy)
		snprintf(copy, size, "%s", text);
	json_object_put(reply);
	json_object_put(req);
	return len;
}

static size_t baseline_prioritize_once(const struct body *b, char *copy, size_t size)
{
	struct json_object *req, *names = baseline_names(&req, b);
	struct json_object *list = json_object_new_array();
	const char *text;
	size_t i, len;

	for (i = 0; i < b->n; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "Host", json_object_get(json_object_array_get_idx(names, i)));
		json_object_object_add(e, "Score", json_object_new_int64(b->score[i]));
		json_object_array_add(list, e);
	}
	text = json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (copy)
		snprintf(copy, size, "%s", text);
	json_object_put(list);
	json_object_put(req);
	return len;
}

static uint64_t op_baseline_filter(void *arg)
{
	struct op *op = arg;
	uint64_t t0 = bench_now_ns();

	sink += baseline_filter_once(op->body, NULL, 0);
	return bench_now_ns() - t0;
}

static uint64_t op_baseline_prioritize(void *arg)
{
	struct op *op = arg;
	uint64_t t0 = bench_now_ns();

	sink += baseline_prioritize_once(op->body, NULL, 0);
	return bench_now_ns() - t0;
}

static uint64_t op_handler_filter(void *arg)
{
	struct op *op = arg;
	struct body *b = op->body;
	struct reply r;
	uint64_t t0 = bench_now_ns(), t1;

	handle_filter(&op->env->ctx, b->text.p, b->text.len, &r);
	t1 = bench_now_ns();
	if (r.status != 200 || r.len != b->filter_len || memcmp(r.body, b->filter_reply, r.len) != 0)
		bench_die("handle_filter at %s names: status %d, reply differs from the HTTP one",
		    b->label, r.status);
	free(r.body);
	return t1 - t0;
}

static uint64_t op_handler_prioritize(void *arg)
{
	struct op *op = arg;
	struct body *b = op->body;
	struct reply r;
	uint64_t t0 = bench_now_ns(), t1;

	handle_prioritize(&op->env->ctx, b->text.p, b->text.len, &r);
	t1 = bench_now_ns();
	if (r.status != 200 || r.len != b->prio_len || memcmp(r.body, b->prio_reply, r.len) != 0)
		bench_die("handle_prioritize at %s names: status %d, reply differs from the HTTP one",
		    b->label, r.status);
	free(r.body);
	return t1 - t0;
}

/* The handler's three stages, timed apart (the same calls handlers.c makes). */
static uint64_t op_decode(void *arg)
{
	struct op *op = arg;
	struct wire_args args;
	struct pod_demand *demand = NULL;
	struct errmsg msg;
	uint64_t t0 = bench_now_ns(), t1;

	if (wire_decode_args(op->body->text.p, op->body->text.len, &args, &msg) != ERR_OK ||
	    pod_demand_new(&args.pod, &demand, &msg) != ERR_OK)
		bench_die("decode: %s", msg.text);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
	t1 = bench_now_ns();
	return t1 - t0;
}

static uint64_t judge_all(struct op *op, bool filter)
{
	struct store_set *set = store_acquire(op->env->store);
	struct settings *settings = settings_acquire(op->env->ctx.settings);
	uint64_t t0 = bench_now_ns(), t1, acc = 0;
	size_t i;

	for (i = 0; i < op->args.nnames; i++) {
		const struct store_node *sn = store_get(set, op->args.names[i]);
		struct verdict v;
		char summary[300];

		if (sn == NULL)
			bench_die("judge: %s is not in the store", op->args.names[i]);
		judge_node(sn->inventory, op->demand, &v);
		if (filter) {
			if (!v.admit) {
				verdict_summary(&v, summary, sizeof summary);
				acc += (unsigned char)summary[0];
			}
		} else {
			acc += (uint64_t)score_node(&settings->scoring, sn->inventory, &v, NULL);
		}
		verdict_cleanup(&v);
	}
	t1 = bench_now_ns();
	sink += acc;
	settings_unref(settings);
	store_release(set);
	return t1 - t0;
}

static uint64_t op_judge_filter(void *arg)
{
	return judge_all(arg, true);
}

static uint64_t op_judge_prioritize(void *arg)
{
	return judge_all(arg, false);
}

static uint64_t op_encode_filter(void *arg)
{
	struct op *op = arg;
	size_t len = 0;
	uint64_t t0 = bench_now_ns(), t1;
	char *json = wire_encode_filter(&op->args, op->body->outcome, op->body->reason, &len);

	t1 = bench_now_ns();
	if (len != op->body->filter_len || memcmp(json, op->body->filter_reply, len) != 0)
		bench_die("wire_encode_filter at %s names differs from the server's reply", op->body->label);
	free(json);
	return t1 - t0;
}

static uint64_t op_encode_prioritize(void *arg)
{
	struct op *op = arg;
	size_t len = 0;
	uint64_t t0 = bench_now_ns(), t1;
	char *json = wire_encode_prioritize(&op->args, op->body->score, &len);

	t1 = bench_now_ns();
	if (len != op->body->prio_len || memcmp(json, op->body->prio_reply, len) != 0)
		bench_die("wire_encode_prioritize at %s names differs from the server's reply",
		    op->body->label);
	free(json);
	return t1 - t0;
}

/* One iteration of a Part 1 cell: the request over HTTP (returned), then the
 * in-process measurements of the same bytes (side samples), interleaved so
 * that a slow phase of a shared machine hits all of them alike. */
static uint64_t op_verb(void *arg)
{
	struct op *op = arg;
	uint64_t http, v[NSIDES];

	if (op->filter) {
		http = op_http_filter(op);
		v[SIDE_JSONC] = op_baseline_filter(op);
		v[SIDE_HANDLER] = op_handler_filter(op);
		v[SIDE_DECODE] = op_decode(op);
		v[SIDE_JUDGE] = op_judge_filter(op);
		v[SIDE_ENCODE] = op_encode_filter(op);
	} else {
		http = op_http_prioritize(op);
		v[SIDE_JSONC] = op_baseline_prioritize(op);
		v[SIDE_HANDLER] = op_handler_prioritize(op);
		v[SIDE_DECODE] = op_decode(op);
		v[SIDE_JUDGE] = op_judge_prioritize(op);
		v[SIDE_ENCODE] = op_encode_prioritize(op);
	}
	side_push(op, v, NSIDES);
	return http;
}

/* ======================================================================
 * Setup and the report.
 * ====================================================================== */

static void env_start(struct env *e, bool http)
{
	struct errmsg msg;

	memset(e, 0, sizeof *e);
	log_set_level(LOG_LEVEL_WARN);
	config_init(&e->config);
	free(e->config.listen);
	e->config.listen = xstrdup("127.0.0.1:0");
	e->config.threads = cfg.threads;
	e->store = store_new();
	bench_cluster_publish(e->store, cfg.nodes);
	settings_holder_init(&e->holder, settings_new(&e->config));
	e->ctx.store = e->store;
	e->ctx.settings = &e->holder;
	if (!http)
		return;
	if (server_start(&e->config, &e->ctx, &e->server, &msg) != ERR_OK)
		bench_die("server_start: %s", msg.text);
	bench_client_init(&e->client, server_port(e->server));
	printf("server: libmicrohttpd on 127.0.0.1:%d, threads %d, scoring %s, missing inventory "
	       "%s; client: libcurl, one keep-alive connection\n",
	       server_port(e->server), cfg.threads, score_strategy_name(e->config.scoring.strategy),
	       e->config.missing_inventory == CONFIG_MISSING_ALLOW ? "allow" : "deny");
}

static void env_stop(struct env *e)
{
	if (e->server) {
		bench_client_cleanup(&e->client);
		server_drain_and_stop(e->server, 1000);
	}
	settings_holder_cleanup(&e->holder);
	store_free(e->store);
	config_cleanup(&e->config);
}

/* First replies: checked in full; they are the reference for every later
 * reply, and the json-c baseline rebuilds them. */
static void body_learn(struct env *e, struct body *b)
{
	struct bench_client *c = &e->client;
	size_t len, cap;
	char *copy;

	bench_client_post(c, true, b->text.p, b->text.len);
	check_filter(c->reply.p, c->reply.len, b->ids, b->n, b);
	b->filter_reply = xstrndup(c->reply.p, c->reply.len);
	b->filter_len = c->reply.len;
	bench_client_post(c, false, b->text.p, b->text.len);
	check_prioritize(c->reply.p, c->reply.len, b->ids, b->n, b->score);
	b->prio_reply = xstrndup(c->reply.p, c->reply.len);
	b->prio_len = c->reply.len;

	/* Does json-c, asked for the same reply, write the same bytes? */
	cap = (b->filter_len > b->prio_len ? b->filter_len : b->prio_len) + 64;
	copy = xmalloc(cap);
	len = baseline_filter_once(b, copy, cap);
	printf("%6zu names: request %zu B; filter reply %zu B (pass %zu, failed %zu, "
	       "unresolvable %zu; %zu distinct reasons), json-c's %s; prioritize reply %zu B, ",
	       b->n, b->text.len, b->filter_len, b->npass, b->nfailed, b->nunres, b->nreasons,
	       len == b->filter_len && memcmp(copy, b->filter_reply, len) == 0 ? "byte-identical"
										: "differs",
	       b->prio_len);
	len = baseline_prioritize_once(b, copy, cap);
	printf("json-c's %s\n", len == b->prio_len && memcmp(copy, b->prio_reply, len) == 0
					? "byte-identical" : "differs");
	free(copy);
}

static const char *verdict_str(bool ok)
{
	return ok ? "ok" : "MISSED";
}

static struct bench_target targets[16];
static size_t ntargets;

static bool target_add(const char *what, bool lower_is_better, double limit, double got,
		       const char *unit)
{
	if (ntargets == sizeof targets / sizeof targets[0])
		bench_die("internal error: more than %zu targets", ntargets);
	return bench_target_set(&targets[ntargets++], what, lower_is_better, limit, got, unit);
}

static void stats_from(uint64_t *samples, size_t n, struct stats *st)
{
	uint64_t sum = 0;
	size_t i;

	qsort(samples, n, sizeof *samples, bench_cmp_u64);
	for (i = 0; i < n; i++)
		sum += samples[i];
	st->n = n;
	st->p50 = bench_pct_us(samples, n, 0.50);
	st->p99 = bench_pct_us(samples, n, 0.99);
	st->mean = (double)sum / (double)n / 1e3;
	st->min = (double)samples[0] / 1e3;
	st->max = (double)samples[n - 1] / 1e3;
}

/* judge_node over a group of nodes (one policy, one outcome), as the handler
 * calls it; or over their emptied copies (the second judgement a rejection
 * costs). */
struct group_op {
	const struct inventory_node **nodes;
	size_t n;
	const struct pod_demand *demand;
	bool emptied;
};

static uint64_t op_judge_group(void *arg)
{
	struct group_op *g = arg;
	uint64_t t0 = bench_now_ns(), acc = 0;
	size_t i;

	for (i = 0; i < g->n; i++) {
		struct verdict v;

		judge_node(g->emptied ? g->nodes[i]->emptied : g->nodes[i], g->demand, &v);
		acc += v.admit;
		verdict_cleanup(&v);
	}
	sink += acc;
	return bench_now_ns() - t0;
}

static void judge_groups(struct env *e, const struct body *b)
{
	static const enum tm_policy policies[3] = { TM_POLICY_SINGLE_NUMA_NODE, TM_POLICY_RESTRICTED,
						    TM_POLICY_BEST_EFFORT };
	struct store_set *set = store_acquire(e->store);
	const struct inventory_node **nodes = xcalloc(b->n + 1, sizeof *nodes);
	struct wire_args args;
	struct pod_demand *demand = NULL;
	struct errmsg msg;
	size_t p, k, i;
	double total = 0;

	if (wire_decode_args(b->text.p, b->text.len, &args, &msg) != ERR_OK ||
	    pod_demand_new(&args.pod, &demand, &msg) != ERR_OK)
		bench_die("decode: %s", msg.text);
	printf("\njudge_node per node of the %zu-name request, by policy and filter outcome "
	       "(judge_node + verdict_cleanup; us/node, median)\n",
	       b->n);
	printf("%-17s %-8s %6s %10s %18s %12s\n", "policy", "outcome", "nodes", "us/node",
	       "of which emptied", "us/request");
	for (p = 0; p < 3; p++) {
		for (k = 0; k < 2; k++) {
			struct group_op g = { nodes, 0, demand, false };
			struct stats st, em;
			char emp[32] = "";
			double per;

			for (i = 0; i < b->n; i++) {
				const struct store_node *sn = store_get(set, args.names[i]);

				if (sn == NULL)
					bench_die("%s is not in the store", args.names[i]);
				if (sn->inventory->policy == policies[p] &&
				    (b->outcome[i] == DECISION_PASS) == (k == 0))
					nodes[g.n++] = sn->inventory;
			}
			if (g.n == 0)
				continue;
			run_cell(op_judge_group, &g, NULL, cfg.min_group, cfg.group_ns, &st);
			per = st.p50 / (double)g.n;
			if (k == 1 && nodes[0]->emptied != NULL) {
				g.emptied = true;
				run_cell(op_judge_group, &g, NULL, cfg.min_group, cfg.group_ns, &em);
				snprintf(emp, sizeof emp, "%.2f", em.p50 / (double)g.n);
			}
			total += st.p50;
			printf("%-17s %-8s %6zu %10.2f %18s %12.1f\n", tm_policy_name(policies[p]),
			       k == 0 ? "pass" : "reject", g.n, per, emp, st.p50);
		}
	}
	printf("(sum %.1f us per request; each group timed alone, back to back, so caches are "
	       "warmer than in Part 3's judge\n"
	       " column, which also has store_get and verdict_summary. reject: the judgement, its "
	       "rejection message, and a second\n"
	       " judgement on the emptied node to tell FailedNodes from "
	       "FailedAndUnresolvableNodes; \"of which emptied\" times\n"
	       " that second judgement alone.)\n",
	       total);
	free(nodes);
	pod_demand_free(demand);
	wire_args_cleanup(&args);
	store_release(set);
}

static const char *const verb_names[2] = { "filter", "prioritize" };

static int run(void)
{
	struct env e;
	struct body bodies[2];
	struct stats http[2][2], local[2][2][NSIDES], pair[2], pf[2], pp[2];
	double srv[2][2], pairs_per_s[2];
	size_t survivors[2];
	size_t k, v, i, failed = 0;
	char what[96];

	want_map = xcalloc(cfg.nodes, 1);
	seen_map = xcalloc(cfg.nodes, 1);
	pos_map = xcalloc(cfg.nodes, sizeof *pos_map);
	env_start(&e, true);
	{
		char small[16], large[16];

		snprintf(small, sizeof small, "%zu", cfg.small);
		snprintf(large, sizeof large, "%zu", cfg.nodes);
		body_init(&bodies[0], small, cfg.small, true);
		body_init(&bodies[1], large, cfg.nodes, true);
	}
	printf("pod: Guaranteed, server (cpu 8, memory 32Gi, nvidia.com/gpu 1, dsa 1) + metrics "
	       "(cpu 1, memory 512Mi); node-names mode;\n"
	       "candidates: a random %zu of the %zu nodes, and all %zu in random order\n",
	       cfg.small, cfg.nodes, cfg.nodes);
	for (k = 0; k < 2; k++)
		body_learn(&e, &bodies[k]);

	/* Part 1: the verbs over HTTP. */
	printf("\n== Part 1: HTTP round trip on one keep-alive connection, client-side latency "
	       "(us); per row >= %zu requests and >= %.1f s\n"
	       "   (wall, Part 3's in-process runs included) at %zu names, >= %zu and >= %.1f s at "
	       "%zu names\n",
	       cfg.min_http[0], (double)cfg.http_ns[0] / 1e9, bodies[0].n, cfg.min_http[1],
	       (double)cfg.http_ns[1] / 1e9, bodies[1].n);
	printf("%-11s %6s %7s %9s %9s %9s %9s %9s %10s %10s\n", "verb", "names", "reqs", "p50",
	       "p99", "mean", "min", "max", "srv mean", "rest mean");
	for (v = 0; v < 2; v++) {
		for (k = 0; k < 2; k++) {
			struct op op = { .env = &e, .body = &bodies[k], .filter = v == 0 };
			const struct stats *s = &http[v][k];
			struct errmsg msg;
			size_t j;

			if (wire_decode_args(bodies[k].text.p, bodies[k].text.len, &op.args, &msg) !=
				    ERR_OK ||
			    pod_demand_new(&op.args.pod, &op.demand, &msg) != ERR_OK)
				bench_die("decode: %s", msg.text);
			run_cell(op_verb, &op, op_mark, cfg.min_http[k], cfg.http_ns[k], &http[v][k]);
			srv[v][k] = op_server_mean(&op);
			for (j = 0; j < NSIDES; j++)
				stats_from(op.side[j], op.nside, &local[v][k][j]);
			side_free(&op);
			pod_demand_free(op.demand);
			wire_args_cleanup(&op.args);
			printf("%-11s %6zu %7zu %9.1f %9.1f %9.1f %9.1f %9.1f %10.1f %10.1f\n",
			       verb_names[v], bodies[k].n, s->n, s->p50, s->p99, s->mean, s->min,
			       s->max, srv[v][k], s->mean - srv[v][k]);
		}
	}
	printf("(curl_easy_perform around one POST, reply read in full. srv mean: the server's "
	       "own duration histogram (/metrics,\n"
	       " first request callback to reply queued); rest = client mean - srv mean: "
	       "request/reply transfer, libcurl, MHD parsing.\n"
	       " Every reply: HTTP 200, parsed, each candidate in exactly one bucket / scored "
	       "once, byte-identical to the first.\n"
	       " prioritize is sent every candidate here, not only filter's survivors.)\n");

	/* Part 2: filter + prioritize pairs. */
	printf("\n== Part 2: filter + prioritize pairs as kube-scheduler sends them, sequential on "
	       "the same connection (us)\n");
	printf("%6s %9s %7s %11s %11s %9s %9s %9s %10s\n", "names", "survivors", "pairs",
	       "filter p50", "prio. p50", "pair p50", "pair p99", "pair mean", "pairs/s");
	for (k = 0; k < 2; k++) {
		struct op op = { .env = &e, .body = &bodies[k] };

		op.survivors = xcalloc(bodies[k].n + 1, sizeof *op.survivors);
		run_cell(op_pair, &op, op_mark, cfg.min_http[k], cfg.http_ns[k], &pair[k]);
		stats_from(op.side[0], op.nside, &pf[k]);
		stats_from(op.side[1], op.nside, &pp[k]);
		survivors[k] = op.nsurvivors;
		pairs_per_s[k] = 1e6 / pair[k].mean;
		printf("%6zu %9zu %7zu %11.1f %11.1f %9.1f %9.1f %9.1f %10.0f\n", bodies[k].n,
		       survivors[k], pair[k].n, pf[k].p50, pp[k].p50, pair[k].p50, pair[k].p99,
		       pair[k].mean, pairs_per_s[k]);
		free(op.survivors);
		free(op.prio_body.p);
		side_free(&op);
	}
	printf("(a pair: POST filter, parse its reply with json-c, build the prioritize body from "
	       "NodeNames, POST prioritize;\n"
	       " pairs/s = 1 / mean pair time, client work included, checks excluded)\n");
	if (e.client.connects != 1)
		bench_die("%ld connections were opened for %ld requests; expected one", e.client.connects,
		    e.client.requests);

	/* Part 3: the same bytes in process, from Part 1's iterations. */
	printf("\n== Part 3: the same request bytes in process, measured in Part 1's iterations "
	       "(each request followed by\n"
	       "   json-c alone, the handler, and its three stages, in that order), us\n");
	printf("%-11s %6s %9s %9s %9s %9s %9s %9s %9s %9s %10s\n", "verb", "names", "json-c",
	       "handler", "h. p99", "decode", "judge", "encode", "server", "http ovh", "srv/json-c");
	for (v = 0; v < 2; v++) {
		for (k = 0; k < 2; k++) {
			const struct stats *l = local[v][k];

			printf("%-11s %6zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.2fx\n",
			       verb_names[v], bodies[k].n, l[SIDE_JSONC].p50, l[SIDE_HANDLER].p50,
			       l[SIDE_HANDLER].p99, l[SIDE_DECODE].p50, l[SIDE_JUDGE].p50,
			       l[SIDE_ENCODE].p50, http[v][k].p50,
			       http[v][k].p50 - l[SIDE_HANDLER].p50,
			       http[v][k].p50 / l[SIDE_JSONC].p50);
		}
	}
	printf("(medians. json-c: fresh depth-64 tokener parse of the request, walk of NodeNames, "
	       "the same reply built from json-c\n"
	       " objects and serialised (PLAIN, no slash escape). handler: handle_filter / "
	       "handle_prioritize called directly.\n"
	       " decode: wire_decode_args + pod_demand_new; judge: store_get + judge_node per name "
	       "(+ verdict_summary on rejects,\n"
	       " + score_node for prioritize); encode: wire_encode_*. server: Part 1 p50; "
	       "http ovh = server - handler; srv/json-c\n"
	       " = server / json-c, the ratio the targets below hold to 2x.)\n");
	judge_groups(&e, &bodies[0]);

	/* Targets. */
	printf("\n== Targets (to stay within one bare scheduling cycle, ~1 ms, at 5000 nodes; "
	       "ratios are Part 1 p50 over json-c p50)\n");
	for (v = 0; v < 2; v++)
		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof what, "%s, %zu names: server / json-c alone", verb_names[v],
				 bodies[k].n);
			target_add(what, true, 2, http[v][k].p50 / local[v][k][SIDE_JSONC].p50, "x");
		}
	snprintf(what, sizeof what, "filter+prioritize pairs/s at %zu names", bodies[0].n);
	target_add(what, false, 1000, pairs_per_s[0], "/s");
	snprintf(what, sizeof what, "filter p50 at %zu names", bodies[0].n);
	target_add(what, true, 0.5, http[0][0].p50 / 1e3, " ms");
	snprintf(what, sizeof what, "filter p99 at %zu names", bodies[0].n);
	target_add(what, true, 2, http[0][0].p99 / 1e3, " ms");
	snprintf(what, sizeof what, "filter p99 at %zu names", bodies[1].n);
	target_add(what, true, 5, http[0][1].p99 / 1e3, " ms");
	snprintf(what, sizeof what, "prioritize p99 at %zu names", bodies[1].n);
	target_add(what, true, 5, http[1][1].p99 / 1e3, " ms");
	printf("%-46s %-10s %-26s %s\n", "target", "goal", "measured", "ok");
	for (i = 0; i < ntargets; i++) {
		printf("%-46s %-10s %-26s %s\n", targets[i].what, targets[i].goal, targets[i].got,
		       verdict_str(targets[i].ok));
		failed += !targets[i].ok;
	}
	printf("(%zu of %zu targets missed; a miss does not change the exit status. %ld requests "
	       "on %ld connection(s).)\n",
	       failed, ntargets, e.client.requests, e.client.connects);

	for (k = 0; k < 2; k++)
		body_cleanup(&bodies[k]);
	env_stop(&e);
	free(want_map);
	free(seen_map);
	free(pos_map);
	return 0;
}

/* Exactly count in-process handle_filter calls at cfg.small names (for
 * callgrind or perf); no server. */
static int profile_filter(long count)
{
	struct env e;
	struct body b;
	long i;
	int pass = 0;

	env_start(&e, false);
	body_init(&b, "profile", cfg.small, true);
	for (i = 0; i < count; i++) {
		struct reply r;

		handle_filter(&e.ctx, b.text.p, b.text.len, &r);
		pass += r.status == 200;
		free(r.body);
	}
	printf("profile-filter: %ld handle_filter calls at %zu names, %d answered 200\n", count,
	       b.n, pass);
	body_cleanup(&b);
	env_stop(&e);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_server [--quick] [--threads N] | --profile-filter [COUNT]\n");
}

int main(int argc, char **argv)
{
	uint64_t t0;
	long profile = 0;
	int i, rc;

	bench_init("bench_server");
	t0 = bench_now_ns();
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			cfg.nodes = 1000;
			cfg.small = 100;
			cfg.min_http[0] = cfg.min_http[1] = 3;
			cfg.min_group = 3;
			cfg.http_ns[0] = cfg.http_ns[1] = 0;
			cfg.group_ns = 0;
			cfg.max_ops = 3;
			cfg.warmup = 1;
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			cfg.threads = atoi(argv[++i]);
			if (cfg.threads < 1 || cfg.threads > 64) {
				usage();
				return 1;
			}
		} else if (strcmp(argv[i], "--profile-filter") == 0) {
			profile = 200;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				profile = atol(argv[++i]);
			if (profile < 1) {
				usage();
				return 1;
			}
		} else {
			usage();
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (profile)
		return profile_filter(profile);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		bench_die("curl_global_init failed");
	bench_print_header(argc > 0 ? argv[0] : NULL);
	rc = run();
	curl_global_cleanup();
	printf("\ntotal %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
	return rc;
}
