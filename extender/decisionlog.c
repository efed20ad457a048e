/* SPDX-License-Identifier: Apache-2.0 */
/* Decision log writer: request threads build records (strings and node
 * references), one thread turns them into lines for the file
 * (decisionlog_file.c), each decision after the config and inventory
 * records it needs that the file does not hold yet. */
#include "extender/decisionlog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/decisionlog_dra.h"
#include "extender/decisionlog_file.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "base/hash.h"
#include "base/xalloc.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"

struct record_node {
	char *name;
	const struct store_node *sn;  /* referenced, or NULL */
	char *line;                   /* this node's JSON object */
};

struct decision_record {
	bool event;                   /* decision_log_event: verb is the type */
	char *verb;
	char *pod_json;
	struct settings *settings;    /* referenced */
	struct record_node *nodes;
	size_t n, cap;
	bool failed;                  /* a node's entry passed the ceiling */
	struct decision_dra *dra;     /* the DRA state judged, or NULL */
	char time[40];
};

struct decision_log {
	struct decision_file *file;   /* the writer thread's */
	struct textbuf rest, line, key;  /* the writer thread's, reused */
	struct decision_dra_bufs dra;
	struct decision_record **queue;
	size_t qcap, qhead, qlen;
	pthread_mutex_t lock;
	pthread_cond_t more;
	bool stop;
	pthread_t thread;
};

/* A record line holds the pod as the request sent it and one entry per
 * candidate node: its size follows the request's, so the ceiling only stops
 * the absurd (such a record is dropped with a warning, and counted). */
#define LINE_MAX_BYTES DECISION_LOG_MAX_LINE_BYTES

char *decision_settings_json(const struct settings *s)
{
	struct textbuf b;
	size_t i;

	textbuf_init(&b, LINE_MAX_BYTES);
	textbuf_printf(&b, "{\"strategy\":\"%s\",\"missingInventory\":\"%s\",\"weights\":[",
		       score_strategy_name(s->scoring.strategy),
		       s->missing_inventory == CONFIG_MISSING_ALLOW ? "allow" : "deny");
	for (i = 0; i < s->scoring.nweights; i++) {
		const struct score_weight *w = &s->scoring.weights[i];

		textbuf_adds(&b, i ? ",{\"name\":" : "{\"name\":");
		textbuf_json_cstr(&b, w->name);
		textbuf_printf(&b, ",\"weight\":%lld}", (long long)w->weight);
	}
	textbuf_adds(&b, "]}");
	return textbuf_take(&b, NULL);
}

void decision_settings_digest(const struct settings *s, char *buf, size_t size)
{
	char *json = decision_settings_json(s);

	snprintf(buf, size, "xxh3:%016llx", (unsigned long long)hash_str(json));
	free(json);
}

struct decision_record *decision_record_new(const char *verb, const char *pod_json,
					    struct settings *settings)
{
	struct decision_record *r = xcalloc(1, sizeof *r);

	r->verb = xstrdup(verb);
	r->pod_json = xstrdup(pod_json);
	atomic_fetch_add_explicit((_Atomic int *)&settings->refs, 1, memory_order_relaxed);
	r->settings = settings;
	decision_time_now(r->time, sizeof r->time);
	return r;
}

void decision_log_event(struct decision_log *log, const char *type, const char *fields_json)
{
	struct decision_record *r;

	if (log == NULL || fields_json[0] != '{' || fields_json[1] == '}')
		return;
	r = xcalloc(1, sizeof *r);
	r->event = true;
	r->verb = xstrdup(type);
	r->pod_json = xstrdup(fields_json);
	decision_time_now(r->time, sizeof r->time);
	decision_log_submit(log, r);
}

void decision_record_node(struct decision_record *r, const char *name, const struct store_node *sn,
			  const char *verdict, const char *reason, uint64_t numa_ids, int64_t score,
			  const char *parts_json)
{
	struct record_node *n;
	struct textbuf b;
	bool first = true;
	int i;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->nodes = xreallocarray(r->nodes, r->cap, sizeof *r->nodes);
	}
	n = &r->nodes[r->n++];
	n->name = xstrdup(name);
	n->sn = sn;
	if (sn)
		store_node_ref(sn);
	textbuf_init(&b, LINE_MAX_BYTES);
	textbuf_adds(&b, "{\"node\":");
	textbuf_json_cstr(&b, name);
	textbuf_adds(&b, ",\"version\":");
	textbuf_json_cstr(&b, sn ? sn->version : "");
	textbuf_adds(&b, ",\"verdict\":");
	textbuf_json_cstr(&b, verdict);
	textbuf_adds(&b, ",\"reason\":");
	textbuf_json_cstr(&b, reason);
	textbuf_adds(&b, ",\"numaNodes\":[");
	for (i = 0; i < 64; i++) {
		if (!((numa_ids >> i) & 1))
			continue;
		if (!first)
			textbuf_addc(&b, ',');
		textbuf_int(&b, i);
		first = false;
	}
	textbuf_adds(&b, "],\"score\":");
	textbuf_int(&b, score);
	if (parts_json) {
		textbuf_adds(&b, ",\"parts\":");
		textbuf_adds(&b, parts_json);
	}
	textbuf_addc(&b, '}');
	if (textbuf_failed(&b))
		r->failed = true;
	n->line = textbuf_take(&b, NULL);
}

void decision_record_dra(struct decision_record *r, const struct dra_snapshot *snap,
			 const struct dra_pod *pod, const struct dra_pod_claims *claims)
{
	if (r->dra == NULL && snap != NULL && pod != NULL)
		r->dra = decision_dra_new(snap, pod, claims, r->settings);
}

static void record_free(struct decision_record *r)
{
	size_t i;

	if (r == NULL)
		return;
	decision_dra_free(r->dra);
	for (i = 0; i < r->n; i++) {
		free(r->nodes[i].name);
		free(r->nodes[i].line);
		if (r->nodes[i].sn)
			store_node_unref(r->nodes[i].sn);
	}
	free(r->nodes);
	free(r->verb);
	free(r->pod_json);
	settings_unref(r->settings);
	free(r);
}

/* True when b passed the ceiling: the record is dropped, said and counted. */
static bool too_large(struct textbuf *b, const char *what)
{
	if (!textbuf_failed(b))
		return false;
	log_warn("decision log record too large: dropped", "part=%s limit_bytes=%zu", what, LINE_MAX_BYTES);
	metrics_decision_log_dropped();
	return true;
}

/* The config record, unless the file holds it. False: it is too large. */
static bool put_config(struct decision_log *l, const struct settings *s, const char *digest)
{
	char *settings;
	bool ok;

	textbuf_reset(&l->key);
	textbuf_printf(&l->key, "config %s", digest);
	if (decision_file_holds(l->file, textbuf_str(&l->key)))
		return true;
	settings = decision_settings_json(s);
	textbuf_reset(&l->line);
	textbuf_printf(&l->line, "{\"type\":\"config\",\"digest\":\"%s\",\"settings\":", digest);
	textbuf_adds(&l->line, settings);
	textbuf_addc(&l->line, '}');
	free(settings);
	ok = !too_large(&l->line, "config");
	if (ok)
		decision_file_support(l->file, textbuf_str(&l->line), textbuf_len(&l->line),
				      textbuf_str(&l->key));
	return ok;
}

/* The inventory record of node n, unless the file holds it. False: it is
 * too large. */
static bool put_inventory(struct decision_log *l, const struct record_node *n)
{
	const struct store_node *sn = n->sn;

	/* Whole name and version (no cut that could make two keys one). */
	textbuf_reset(&l->key);
	textbuf_printf(&l->key, "node %s %s", n->name, sn->version);
	if (too_large(&l->key, "inventory"))
		return false;
	if (decision_file_holds(l->file, textbuf_str(&l->key)))
		return true;
	textbuf_reset(&l->line);
	textbuf_adds(&l->line, "{\"type\":\"inventory\",\"node\":");
	textbuf_json_cstr(&l->line, n->name);
	textbuf_adds(&l->line, ",\"version\":");
	textbuf_json_cstr(&l->line, sn->version);
	textbuf_adds(&l->line, ",\"object\":");
	textbuf_adds(&l->line, sn->raw);
	textbuf_addc(&l->line, '}');
	if (too_large(&l->line, "inventory"))
		return false;
	decision_file_support(l->file, textbuf_str(&l->line), textbuf_len(&l->line), textbuf_str(&l->key));
	return true;
}

/* The DRA records of r's decision and its "dra" member. */
static bool put_dra(struct decision_log *l, const struct decision_record *r)
{
	const char **names = xcalloc(r->n + 1, sizeof *names);
	bool *judged = xcalloc(r->n + 1, sizeof *judged);
	size_t i;
	bool ok;

	for (i = 0; i < r->n; i++) {
		names[i] = r->nodes[i].name;
		judged[i] = r->nodes[i].sn != NULL;
	}
	ok = decision_dra_put(l->file, r->dra, names, judged, r->n, &l->dra, &l->rest);
	free(names);
	free(judged);
	return ok && !too_large(&l->rest, "decision");
}

/* One record into the file's batch, a decision after the config and
 * inventory records it needs that the file does not hold yet. The file
 * writes each record's "type" and "seq" (it numbers records as it takes
 * them); this builds the rest. */
static void write_record(struct decision_log *l, struct decision_record *r)
{
	struct textbuf *b = &l->rest;
	char digest[48];
	size_t i;

	decision_file_begin(l->file);
	textbuf_reset(b);
	if (r->event) {
		textbuf_adds(b, ",\"time\":");
		textbuf_json_cstr(b, r->time);
		textbuf_addc(b, ',');
		textbuf_adds(b, r->pod_json + 1);
		if (!too_large(b, r->verb))
			decision_file_record(l->file, r->verb, textbuf_str(b), textbuf_len(b), r->time);
		return;
	}
	if (r->failed) {
		log_warn("decision log record too large: dropped", "part=node limit_bytes=%zu",
			 LINE_MAX_BYTES);
		metrics_decision_log_dropped();
		return;
	}
	decision_settings_digest(r->settings, digest, sizeof digest);
	textbuf_adds(b, ",\"time\":");
	textbuf_json_cstr(b, r->time);
	textbuf_adds(b, ",\"verb\":");
	textbuf_json_cstr(b, r->verb);
	textbuf_adds(b, ",\"config\":");
	textbuf_json_cstr(b, digest);
	textbuf_adds(b, ",\"pod\":");
	textbuf_adds(b, r->pod_json);
	textbuf_adds(b, ",\"nodes\":[");
	for (i = 0; i < r->n; i++) {
		if (i)
			textbuf_addc(b, ',');
		textbuf_adds(b, r->nodes[i].line);
	}
	textbuf_addc(b, ']');
	/* A decision goes with what it refers to or not at all: one that
	 * replay could not re-judge is dropped. The batch carries them
	 * together, so they reach the file together or not at all. */
	if (too_large(b, "decision") || !put_config(l, r->settings, digest))
		return;
	for (i = 0; i < r->n; i++)
		if (r->nodes[i].sn && r->nodes[i].sn->raw && !put_inventory(l, &r->nodes[i]))
			return;
	if (r->dra != NULL && !put_dra(l, r))
		return;
	textbuf_addc(b, '}');
	if (too_large(b, "decision"))
		return;
	decision_file_record(l->file, "decision", textbuf_str(b), textbuf_len(b), r->time);
}

/* Line buffers grown past this by a large record are given back. */
#define KEEP_BYTES ((size_t)1 << 20)

static void trim(struct textbuf *b)
{
	if (b->cap > KEEP_BYTES) {
		textbuf_free(b);
		textbuf_init(b, LINE_MAX_BYTES);
	}
}

static void *writer(void *arg)
{
	struct decision_log *l = arg;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct decision_record *r;
		bool last;

		while (l->qlen == 0 && !l->stop)
			pthread_cond_wait(&l->more, &l->lock);
		if (l->qlen == 0 && l->stop)
			break;
		r = l->queue[l->qhead];
		l->qhead = (l->qhead + 1) % l->qcap;
		l->qlen--;
		last = l->qlen == 0;
		/* Never holds the lock over the disk: request threads take it. */
		pthread_mutex_unlock(&l->lock);
		write_record(l, r);
		record_free(r);
		trim(&l->rest);
		trim(&l->line);
		trim(&l->key);
		trim(&l->dra.line);
		trim(&l->dra.key);
		trim(&l->dra.state);
		if (last)
			decision_file_flush(l->file);
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

enum err decision_log_open(const char *path, int64_t max_bytes, int64_t max_files,
			   int64_t queue, struct decision_log **out, struct errmsg *msg)
{
	struct decision_log *l;
	struct decision_file *file;
	enum err e;

	*out = NULL;
	e = decision_file_open(path, max_bytes, max_files, &file, msg);
	if (e != ERR_OK)
		return e;
	l = xcalloc(1, sizeof *l);
	l->file = file;
	textbuf_init(&l->rest, LINE_MAX_BYTES);
	textbuf_init(&l->line, LINE_MAX_BYTES);
	textbuf_init(&l->key, LINE_MAX_BYTES);
	textbuf_init(&l->dra.line, LINE_MAX_BYTES);
	textbuf_init(&l->dra.key, LINE_MAX_BYTES);
	textbuf_init(&l->dra.state, LINE_MAX_BYTES);
	l->qcap = (size_t)queue;
	l->queue = xcalloc(l->qcap, sizeof *l->queue);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->more, NULL);
	if (pthread_create(&l->thread, NULL, writer, l) != 0) {
		errmsg_set(msg, "cannot start the decision log writer");
		decision_file_close(l->file);
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->more);
		free(l->queue);
		free(l);
		return ERR_IO;
	}
	*out = l;
	return ERR_OK;
}

void decision_log_submit(struct decision_log *l, struct decision_record *r)
{
	if (l == NULL) {
		record_free(r);
		return;
	}
	pthread_mutex_lock(&l->lock);
	if (l->qlen == l->qcap) {
		pthread_mutex_unlock(&l->lock);
		metrics_decision_log_dropped();
		record_free(r);
		return;
	}
	l->queue[(l->qhead + l->qlen) % l->qcap] = r;
	l->qlen++;
	pthread_cond_signal(&l->more);
	pthread_mutex_unlock(&l->lock);
}

void decision_log_close(struct decision_log *l)
{
	if (l == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_signal(&l->more);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	decision_file_close(l->file);
	textbuf_free(&l->rest);
	textbuf_free(&l->line);
	textbuf_free(&l->key);
	textbuf_free(&l->dra.line);
	textbuf_free(&l->dra.key);
	textbuf_free(&l->dra.state);
	free(l->queue);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->more);
	free(l);
}
