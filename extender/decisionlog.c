/* SPDX-License-Identifier: Apache-2.0 */
/* Decision log writer: request threads build records (strings and node
 * references), one thread writes them, tracking per file which configs and
 * inventory versions it already holds. */
#include "extender/decisionlog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "extender/log.h"
#include "extender/http/metrics.h"
#include "extender/xalloc.h"
#include "topology/textbuf.h"

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
	char time[40];
};

struct seen {
	char **keys;
	size_t n, cap;
};

struct decision_log {
	char *path;
	int64_t max_bytes, max_files;
	FILE *f;
	int64_t size;
	uint64_t seq;
	struct seen written;          /* "config D" / "node N V" in the current file */
	struct decision_record **queue;
	size_t qcap, qhead, qlen;
	pthread_mutex_t lock;
	pthread_cond_t more;
	bool stop;
	pthread_t thread;
};

static uint64_t fnv1a(const char *p, uint64_t h)
{
	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3u;
	}
	return h;
}

/* A record line holds the pod as the request sent it and one entry per
 * candidate node: its size follows the request's, so the ceiling only stops
 * the absurd (such a record is dropped with a warning). */
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

	snprintf(buf, size, "fnv1a:%016llx", (unsigned long long)fnv1a(json, 0xcbf29ce484222325u));
	free(json);
}

struct decision_record *decision_record_new(const char *verb, const char *pod_json,
					    struct settings *settings)
{
	struct decision_record *r = xcalloc(1, sizeof *r);
	struct timespec ts;
	struct tm tm;

	r->verb = xstrdup(verb);
	r->pod_json = xstrdup(pod_json);
	atomic_fetch_add_explicit((_Atomic int *)&settings->refs, 1, memory_order_relaxed);
	r->settings = settings;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(r->time, sizeof r->time, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(r->time + strlen(r->time), sizeof r->time - strlen(r->time), ".%03ldZ",
		 ts.tv_nsec / 1000000);
	return r;
}

void decision_log_event(struct decision_log *log, const char *type, const char *fields_json)
{
	struct decision_record *r;
	struct timespec ts;
	struct tm tm;

	if (log == NULL || fields_json[0] != '{' || fields_json[1] == '}')
		return;
	r = xcalloc(1, sizeof *r);
	r->event = true;
	r->verb = xstrdup(type);
	r->pod_json = xstrdup(fields_json);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(r->time, sizeof r->time, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(r->time + strlen(r->time), sizeof r->time - strlen(r->time), ".%03ldZ",
		 ts.tv_nsec / 1000000);
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

static void record_free(struct decision_record *r)
{
	size_t i;

	if (r == NULL)
		return;
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

static bool seen_add(struct seen *s, const char *key)
{
	size_t i;

	/* Linear: a file holds a few thousand keys at most between rotations;
	 * checked only by the writer thread. */
	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return false;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->keys = xreallocarray(s->keys, s->cap, sizeof *s->keys);
	}
	s->keys[s->n++] = xstrdup(key);
	return true;
}

static void seen_clear(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->keys[i]);
	s->n = 0;
}

static void emit(struct decision_log *l, const char *text)
{
	size_t n = strlen(text);

	if (l->f == NULL)
		return;
	if (fwrite(text, 1, n, l->f) != n || fputc('\n', l->f) == EOF) {
		log_error("cannot write the decision log", "path=%s error=%s", log_q(l->path),
			  log_q(strerror(errno)));
		return;
	}
	l->size += (int64_t)n + 1;
}

static void rotate(struct decision_log *l)
{
	char from[4096], to[4096];
	int64_t i;

	fclose(l->f);
	for (i = l->max_files - 1; i >= 1; i--) {
		snprintf(from, sizeof from, "%s.%lld", l->path, (long long)i);
		snprintf(to, sizeof to, "%s.%lld", l->path, (long long)(i + 1));
		rename(from, to);
	}
	snprintf(to, sizeof to, "%s.1", l->path);
	rename(l->path, to);
	l->f = fopen(l->path, "a");
	l->size = 0;
	/* A new file must hold its own configs and inventories. */
	seen_clear(&l->written);
	if (l->f == NULL)
		log_error("cannot reopen the decision log", "path=%s error=%s", log_q(l->path),
			  log_q(strerror(errno)));
}

/* Emits b's line unless it passed the ceiling; then says so once per
 * record and counts the record as dropped. */
static bool emit_built(struct decision_log *l, struct textbuf *b, const char *what)
{
	bool ok = !textbuf_failed(b);

	if (ok)
		emit(l, textbuf_str(b));
	else
		log_warn("decision log record too large: dropped", "part=%s limit_bytes=%zu", what,
			 LINE_MAX_BYTES);
	textbuf_reset(b);
	return ok;
}

static void write_record(struct decision_log *l, struct decision_record *r)
{
	struct textbuf b, key;
	char digest[48];
	size_t i;

	if (l->f && l->size >= l->max_bytes)
		rotate(l);
	textbuf_init(&b, LINE_MAX_BYTES);
	textbuf_init(&key, LINE_MAX_BYTES);
	if (r->event) {
		textbuf_adds(&b, "{\"type\":");
		textbuf_json_cstr(&b, r->verb);
		textbuf_printf(&b, ",\"seq\":%llu,\"time\":", (unsigned long long)++l->seq);
		textbuf_json_cstr(&b, r->time);
		textbuf_addc(&b, ',');
		textbuf_adds(&b, r->pod_json + 1);
		emit_built(l, &b, r->verb);
		goto done;
	}
	if (r->failed) {
		log_warn("decision log record too large: dropped", "part=node limit_bytes=%zu",
			 LINE_MAX_BYTES);
		goto done;
	}
	decision_settings_digest(r->settings, digest, sizeof digest);
	textbuf_printf(&key, "config %s", digest);
	if (seen_add(&l->written, textbuf_str(&key))) {
		char *settings = decision_settings_json(r->settings);

		textbuf_printf(&b, "{\"type\":\"config\",\"digest\":\"%s\",\"settings\":", digest);
		textbuf_adds(&b, settings);
		textbuf_addc(&b, '}');
		emit_built(l, &b, "config");
		free(settings);
	}
	for (i = 0; i < r->n; i++) {
		const struct store_node *sn = r->nodes[i].sn;

		if (sn == NULL || sn->raw == NULL)
			continue;
		/* Whole name and version (no cut that could make two keys one). */
		textbuf_reset(&key);
		textbuf_printf(&key, "node %s %s", r->nodes[i].name, sn->version);
		if (textbuf_failed(&key) || !seen_add(&l->written, textbuf_str(&key)))
			continue;
		textbuf_adds(&b, "{\"type\":\"inventory\",\"node\":");
		textbuf_json_cstr(&b, r->nodes[i].name);
		textbuf_adds(&b, ",\"version\":");
		textbuf_json_cstr(&b, sn->version);
		textbuf_adds(&b, ",\"object\":");
		textbuf_adds(&b, sn->raw);
		textbuf_addc(&b, '}');
		emit_built(l, &b, "inventory");
	}
	textbuf_printf(&b, "{\"type\":\"decision\",\"seq\":%llu,\"time\":", (unsigned long long)++l->seq);
	textbuf_json_cstr(&b, r->time);
	textbuf_adds(&b, ",\"verb\":");
	textbuf_json_cstr(&b, r->verb);
	textbuf_adds(&b, ",\"config\":");
	textbuf_json_cstr(&b, digest);
	textbuf_adds(&b, ",\"pod\":");
	textbuf_adds(&b, r->pod_json);
	textbuf_adds(&b, ",\"nodes\":[");
	for (i = 0; i < r->n; i++) {
		if (i)
			textbuf_addc(&b, ',');
		textbuf_adds(&b, r->nodes[i].line);
	}
	textbuf_adds(&b, "]}");
	emit_built(l, &b, "decision");
done:
	textbuf_free(&b);
	textbuf_free(&key);
}

static void *writer(void *arg)
{
	struct decision_log *l = arg;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct decision_record *r;

		while (l->qlen == 0 && !l->stop)
			pthread_cond_wait(&l->more, &l->lock);
		if (l->qlen == 0 && l->stop)
			break;
		r = l->queue[l->qhead];
		l->qhead = (l->qhead + 1) % l->qcap;
		l->qlen--;
		pthread_mutex_unlock(&l->lock);
		write_record(l, r);
		record_free(r);
		pthread_mutex_lock(&l->lock);
		if (l->qlen == 0 && l->f)
			fflush(l->f);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

enum err decision_log_open(const char *path, int64_t max_bytes, int64_t max_files,
			   int64_t queue, struct decision_log **out, struct errmsg *msg)
{
	struct decision_log *l = xcalloc(1, sizeof *l);
	struct stat st;

	*out = NULL;
	l->path = xstrdup(path);
	l->max_bytes = max_bytes;
	l->max_files = max_files;
	l->qcap = (size_t)queue;
	l->queue = xcalloc(l->qcap, sizeof *l->queue);
	l->f = fopen(path, "a");
	if (l->f == NULL) {
		errmsg_set(msg, "%s: cannot open the decision log: %s", path, strerror(errno));
		free(l->queue);
		free(l->path);
		free(l);
		return ERR_IO;
	}
	if (stat(path, &st) == 0)
		l->size = st.st_size;
	/* An existing file may lack what our records refer to: start afresh. */
	if (l->size > 0)
		rotate(l);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->more, NULL);
	if (pthread_create(&l->thread, NULL, writer, l) != 0) {
		errmsg_set(msg, "cannot start the decision log writer");
		fclose(l->f);
		free(l->queue);
		free(l->path);
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
	if (l->f)
		fclose(l->f);
	seen_clear(&l->written);
	free(l->written.keys);
	free(l->queue);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->more);
	free(l->path);
	free(l);
}
