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
#include "extender/metrics.h"
#include "extender/xalloc.h"

struct record_node {
	char *name;
	const struct store_node *sn;  /* referenced, or NULL */
	char *line;                   /* this node's JSON object */
};

struct decision_record {
	char *verb;
	char *pod_json;
	struct settings *settings;    /* referenced */
	struct record_node *nodes;
	size_t n, cap;
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

char *decision_settings_json(const struct settings *s)
{
	size_t cap = 256, len = 0, i;
	char *buf = xmalloc(cap);
	int n;

	len = (size_t)snprintf(buf, cap, "{\"strategy\":\"%s\",\"missingInventory\":\"%s\",\"weights\":[",
			       score_strategy_name(s->scoring.strategy),
			       s->missing_inventory == CONFIG_MISSING_ALLOW ? "allow" : "deny");
	for (i = 0; i < s->scoring.nweights; i++) {
		const struct score_weight *w = &s->scoring.weights[i];

		for (;;) {
			n = snprintf(buf + len, cap - len, "%s{\"name\":\"%s\",\"weight\":%lld}",
				     i ? "," : "", w->name, (long long)w->weight);
			if (n >= 0 && (size_t)n < cap - len)
				break;
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		len += (size_t)n;
	}
	if (len + 3 > cap)
		buf = xrealloc(buf, cap = len + 3);
	memcpy(buf + len, "]}", 3);
	return buf;
}

void decision_settings_digest(const struct settings *s, char *buf, size_t size)
{
	char *json = decision_settings_json(s);

	snprintf(buf, size, "fnv1a:%016llx", (unsigned long long)fnv1a(json, 0xcbf29ce484222325u));
	free(json);
}

/* JSON string escaping for names and reasons. */
static void put_string(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t need = strlen(s) * 6 + 3;
	char *o;

	if (*len + need + 1 > *cap) {
		*cap = (*len + need + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	o = *buf + *len;
	*o++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			o += sprintf(o, "\\u%04x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = '\0';
	*len = (size_t)(o - *buf);
}

static void put_raw(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
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

void decision_record_node(struct decision_record *r, const char *name, const struct store_node *sn,
			  const char *verdict, const char *reason, uint64_t numa_ids, int64_t score,
			  const char *parts_json)
{
	struct record_node *n;
	size_t len = 0, cap = 256;
	char *line = xmalloc(cap), tmp[64];
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
	line[0] = '\0';
	put_raw(&line, &len, &cap, "{\"node\":");
	put_string(&line, &len, &cap, name);
	put_raw(&line, &len, &cap, ",\"version\":");
	put_string(&line, &len, &cap, sn ? sn->version : "");
	put_raw(&line, &len, &cap, ",\"verdict\":");
	put_string(&line, &len, &cap, verdict);
	put_raw(&line, &len, &cap, ",\"reason\":");
	put_string(&line, &len, &cap, reason ? reason : "");
	put_raw(&line, &len, &cap, ",\"numaNodes\":[");
	for (i = 0; i < 64; i++) {
		if (!((numa_ids >> i) & 1))
			continue;
		snprintf(tmp, sizeof tmp, "%s%d", first ? "" : ",", i);
		put_raw(&line, &len, &cap, tmp);
		first = false;
	}
	snprintf(tmp, sizeof tmp, "],\"score\":%lld", (long long)score);
	put_raw(&line, &len, &cap, tmp);
	if (parts_json) {
		put_raw(&line, &len, &cap, ",\"parts\":");
		put_raw(&line, &len, &cap, parts_json);
	}
	put_raw(&line, &len, &cap, "}");
	n->line = line;
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
		log_error("cannot write the decision log", "path=%s error=\"%s\"", l->path,
			  strerror(errno));
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
		log_error("cannot reopen the decision log", "path=%s error=\"%s\"", l->path,
			  strerror(errno));
}

static void write_record(struct decision_log *l, struct decision_record *r)
{
	size_t cap = 1024, len = 0, i;
	char *line = xmalloc(cap), digest[48], key[600], tmp[64];
	char *settings;

	if (l->f && l->size >= l->max_bytes)
		rotate(l);
	decision_settings_digest(r->settings, digest, sizeof digest);
	snprintf(key, sizeof key, "config %s", digest);
	if (seen_add(&l->written, key)) {
		char *head;

		settings = decision_settings_json(r->settings);
		head = xmalloc(strlen(settings) + 128);
		sprintf(head, "{\"type\":\"config\",\"digest\":\"%s\",\"settings\":%s}", digest, settings);
		emit(l, head);
		free(head);
		free(settings);
	}
	for (i = 0; i < r->n; i++) {
		const struct store_node *sn = r->nodes[i].sn;
		size_t ilen = 0, icap = 256;
		char *inv;

		if (sn == NULL || sn->raw == NULL)
			continue;
		snprintf(key, sizeof key, "node %s %s", r->nodes[i].name, sn->version);
		if (!seen_add(&l->written, key))
			continue;
		inv = xmalloc(icap);
		inv[0] = '\0';
		put_raw(&inv, &ilen, &icap, "{\"type\":\"inventory\",\"node\":");
		put_string(&inv, &ilen, &icap, r->nodes[i].name);
		put_raw(&inv, &ilen, &icap, ",\"version\":");
		put_string(&inv, &ilen, &icap, sn->version);
		put_raw(&inv, &ilen, &icap, ",\"object\":");
		put_raw(&inv, &ilen, &icap, sn->raw);
		put_raw(&inv, &ilen, &icap, "}");
		emit(l, inv);
		free(inv);
	}
	line[0] = '\0';
	snprintf(tmp, sizeof tmp, "{\"type\":\"decision\",\"seq\":%llu,\"time\":",
		 (unsigned long long)++l->seq);
	put_raw(&line, &len, &cap, tmp);
	put_string(&line, &len, &cap, r->time);
	put_raw(&line, &len, &cap, ",\"verb\":");
	put_string(&line, &len, &cap, r->verb);
	put_raw(&line, &len, &cap, ",\"config\":");
	put_string(&line, &len, &cap, digest);
	put_raw(&line, &len, &cap, ",\"pod\":");
	put_raw(&line, &len, &cap, r->pod_json);
	put_raw(&line, &len, &cap, ",\"nodes\":[");
	for (i = 0; i < r->n; i++) {
		if (i)
			put_raw(&line, &len, &cap, ",");
		put_raw(&line, &len, &cap, r->nodes[i].line);
	}
	put_raw(&line, &len, &cap, "]}");
	emit(l, line);
	free(line);
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
