/* SPDX-License-Identifier: Apache-2.0 */
/* Blocking libcurl easy transfers on one thread; a stop request aborts a
 * transfer through the progress callback. Watch events are split on newlines
 * (a corrupt line never desynchronises the parser) and handed over in
 * batches, one per received chunk. */
#include "extender/kube/reflector.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extender/log.h"
#include "extender/metrics.h"
#include "base/xalloc.h"

#define LIST_PAGE 500
#define LIST_MAX_BYTES ((size_t)256 << 20)
#define BACKOFF_MIN_MS 250
#define BACKOFF_MAX_MS 30000
#define WATCH_TIMEOUT_S 300

struct kube_reflector {
	const struct kube_reflector_ops *ops;
	void *arg;
	struct kube_credentials creds;
	int64_t idle_ms, request_ms;
	size_t max_event;
	int fallback;
	_Atomic bool listed;
	pthread_t thread;
	bool running;
	_Atomic bool stop;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char rv[64];
	unsigned failures;
};

enum watch_end {
	WATCH_ENDED,     /* closed cleanly (timeout): watch again */
	WATCH_GONE,      /* 410: relist */
	WATCH_CORRUPT,   /* garbage or an oversized event: relist */
	WATCH_FAILED,    /* transport or HTTP error: back off, watch again */
	WATCH_STOPPED,
};

struct buffer {
	char *p;
	size_t len, cap, max;
	bool overflow;
};

static size_t buffer_write(char *data, size_t size, size_t n, void *arg)
{
	struct buffer *b = arg;
	size_t add = size * n;

	if (b->overflow || b->len + add > b->max) {
		b->overflow = true;
		return 0; /* abort the transfer */
	}
	if (b->len + add + 1 > b->cap) {
		b->cap = (b->len + add + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, add);
	b->len += add;
	b->p[b->len] = '\0';
	return add;
}

static int progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct kube_reflector *k = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return atomic_load(&k->stop) ? 1 : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One GET; the body goes to write_cb. Returns the HTTP status, or -1 on a
 * transport failure (msg set). */
static long kube_get(struct kube_reflector *k, const char *path, bool watch,
		     curl_write_callback write_cb, void *arg, curl_write_callback header_cb,
		     void *header_arg, struct errmsg *msg)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = NULL;
	char *url = xmalloc(strlen(k->creds.server) + strlen(path) + 1);
	long status = -1;
	double start = now_s();
	CURLcode rc;

	sprintf(url, "%s%s", k->creds.server, path);
	if (kube_apply(&k->creds, curl, &headers, msg) != ERR_OK)
		goto out;
	headers = curl_slist_append(headers, "Accept: application/json");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(k->request_ms < 10000 ? k->request_ms : 10000));
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, arg);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(curl, CURLOPT_XFERINFODATA, k);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "numa-extender");
	if (header_cb) {
		curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, header_cb);
		curl_easy_setopt(curl, CURLOPT_HEADERDATA, header_arg);
	}
	if (watch) {
		/* A silent stream (not even a bookmark) is dropped and reopened. */
		curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, (long)((k->idle_ms + 999) / 1000));
	} else {
		curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)k->request_ms);
	}
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (!watch)
		metrics_kube_request(now_s() - start);
	if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
		errmsg_set(msg, "%s: %s", url, curl_easy_strerror(rc));
		if (status < 200)
			status = -1;
		else if (watch && status == 200)
			status = -2; /* the stream broke after it started */
	}
	if (rc == CURLE_WRITE_ERROR && status == 200)
		status = -3; /* our callback stopped it */
out:
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	free(url);
	return status;
}

static void log_http_error(struct kube_reflector *k, long status, const char *verb,
			   const char *body)
{

	if (status == 401)
		log_error("401 Unauthorized from the API server; check the service-account token or the kubeconfig user",
			  "verb=%s resource=%s", verb, k->ops->resource);
	else if (status == 403)
		log_error("403 Forbidden from the API server; grant list and watch on the resource",
			  "verb=%s resource=%s", verb, k->ops->resource);
	else
		log_warn("API server error", "verb=%s resource=%s status=%ld body=%s", verb,
			 k->ops->resource, status, log_q(body));
}

/* The API version of a collection path: "v1alpha2" of
 * "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies", "v1" of
 * "/api/v1/pods". */
static void version_of(const char *path, char *out, size_t size)
{
	const char *p = strncmp(path, "/apis/", 6) == 0 ? strchr(path + 6, '/')
							 : strncmp(path, "/api/", 5) == 0 ? path + 4 : NULL;
	size_t n;

	if (p == NULL) {
		snprintf(out, size, "?");
		return;
	}
	p++;
	n = strcspn(p, "/");
	snprintf(out, size, "%.*s", (int)n, p);
}

static void contact(struct kube_reflector *k)
{
	if (k->ops->contact)
		k->ops->contact(k->arg);
}

/* The full list, every page, handed to the owner item by item. */
static bool do_list(struct kube_reflector *k)
{
	char cont[4096] = "", path[8192], rv[64] = "";
	const char *base;
	struct errmsg msg;
	int fallback = k->fallback;
	size_t listed = 0, i;

	metrics_kube_relist();
	k->ops->list_begin(k->arg);
	for (;;) {
		struct buffer body = { NULL, 0, 0, LIST_MAX_BYTES, false };
		struct json_object *root = NULL, *meta = NULL, *items = NULL, *c = NULL, *r = NULL;
		long status;

		base = k->ops->path(k->arg, fallback);
		if (base == NULL)
			goto fail;
		snprintf(path, sizeof path, "%s?limit=%d%s%s%s%s", base, LIST_PAGE,
			 k->ops->field_selector ? "&fieldSelector=" : "",
			 k->ops->field_selector ? k->ops->field_selector : "",
			 cont[0] ? "&continue=" : "", cont);
		status = kube_get(k, path, false, buffer_write, &body, NULL, NULL, &msg);
		if (status == 404 && cont[0] == '\0' && listed == 0 &&
		    k->ops->path(k->arg, fallback + 1) != NULL) {
			char v1[32], v2[32], text[160];

			version_of(base, v1, sizeof v1);
			version_of(k->ops->path(k->arg, fallback + 1), v2, sizeof v2);
			snprintf(text, sizeof text, "%s %s is not served; trying %s", v1, k->ops->kind, v2);
			log_info(text, "path=%s", log_q(base));
			free(body.p);
			fallback++;
			continue;
		}
		if (status != 200 || body.overflow) {
			char text[160];

			snprintf(text, sizeof text, "cannot list %s objects", k->ops->kind);
			if (status < 0)
				log_warn(text, "error=%s", log_q(msg.text));
			else if (body.overflow)
				log_error("list page too large", "kind=%s limit_bytes=%zu", k->ops->kind,
					  (size_t)LIST_MAX_BYTES);
			else
				log_http_error(k, status, "list", body.p);
			free(body.p);
			goto fail;
		}
		contact(k);
		root = body.p ? json_tokener_parse(body.p) : NULL;
		free(body.p);
		if (root == NULL || !json_object_object_get_ex(root, "items", &items) ||
		    !json_object_is_type(items, json_type_array)) {
			log_error("unexpected list body", "kind=%s", k->ops->kind);
			json_object_put(root);
			goto fail;
		}
		k->fallback = fallback;
		for (i = 0; i < json_object_array_length(items); i++, listed++)
			k->ops->list_item(k->arg, json_object_array_get_idx(items, i));
		json_object_object_get_ex(root, "metadata", &meta);
		if (json_object_object_get_ex(meta, "resourceVersion", &r) && cont[0] == '\0')
			snprintf(rv, sizeof rv, "%s", json_object_get_string(r));
		cont[0] = '\0';
		if (json_object_object_get_ex(meta, "continue", &c) && json_object_get_string_len(c) > 0) {
			/* The continue token is opaque and URL-safe base64. */
			snprintf(cont, sizeof cont, "%s", json_object_get_string(c));
			json_object_put(root);
			continue;
		}
		json_object_put(root);
		break;
	}
	k->ops->list_end(k->arg, true);
	snprintf(k->rv, sizeof k->rv, "%s", rv);
	atomic_store(&k->listed, true);
	log_debug("listed", "kind=%s objects=%zu resourceVersion=%s", k->ops->kind, listed, log_q(k->rv));
	return true;
fail:
	k->ops->list_end(k->arg, false);
	return false;
}

struct watch_state {
	struct kube_reflector *k;
	struct buffer line;
	enum watch_end end;
	long status;
	bool ok_status;
};

/* One event line; false when the stream must end (end set). */
static bool apply_event(struct watch_state *w, const char *text, size_t len)
{
	struct json_object *o, *type = NULL, *obj = NULL, *meta = NULL, *rv = NULL;
	struct json_tokener *tok = json_tokener_new_ex(64);
	const char *t;
	bool ok = true;

	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_parse_end(tok) != len ||
	    !json_object_object_get_ex(o, "type", &type) ||
	    !json_object_object_get_ex(o, "object", &obj)) {
		char head[120];

		snprintf(head, sizeof head, "%.*s", (int)(len < 100 ? len : 100), text);
		log_error("corrupt watch event; relisting", "kind=%s line=%s", w->k->ops->kind, log_q(head));
		w->end = WATCH_CORRUPT;
		ok = false;
		goto out;
	}
	t = json_object_get_string(type);
	metrics_kube_event(t);
	json_object_object_get_ex(obj, "metadata", &meta);
	json_object_object_get_ex(meta, "resourceVersion", &rv);
	if (strcmp(t, "ERROR") == 0) {
		struct json_object *code = NULL;

		json_object_object_get_ex(obj, "code", &code);
		if (code && json_object_get_int(code) == 410) {
			log_info("watch expired (410); relisting", "kind=%s", w->k->ops->kind);
			w->end = WATCH_GONE;
		} else {
			log_warn("watch error event", "kind=%s object=%s", w->k->ops->kind,
				 log_q(json_object_to_json_string(obj)));
			w->end = WATCH_FAILED;
		}
		ok = false;
		goto out;
	}
	if (strcmp(t, "ADDED") == 0 || strcmp(t, "MODIFIED") == 0 || strcmp(t, "DELETED") == 0) {
		w->k->ops->event(w->k->arg, t, obj);
	} else if (strcmp(t, "BOOKMARK") != 0) {
		log_warn("unknown watch event type; relisting", "kind=%s type=%s", w->k->ops->kind, log_q(t));
		w->end = WATCH_CORRUPT;
		ok = false;
		goto out;
	}
	if (rv)
		snprintf(w->k->rv, sizeof w->k->rv, "%s", json_object_get_string(rv));
out:
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

static size_t watch_write(char *data, size_t size, size_t n, void *arg)
{
	struct watch_state *w = arg;
	size_t add = size * n, start = 0, i;

	if (!w->ok_status) {
		/* Error bodies (Status objects) are collected for the log. */
		return buffer_write(data, size, n, &w->line) == add ? add : 0;
	}
	contact(w->k);
	if (w->line.len + add > w->k->max_event + 1) {
		/* Only a line longer than the cap can get here. */
		log_error("watch event larger than the limit; relisting", "kind=%s limit_bytes=%zu",
			  w->k->ops->kind, w->k->max_event);
		w->end = WATCH_CORRUPT;
		return 0;
	}
	buffer_write(data, size, n, &w->line);
	for (i = 0; i < w->line.len; i++) {
		if (w->line.p[i] != '\n')
			continue;
		if (i > start && !apply_event(w, w->line.p + start, i - start)) {
			w->k->ops->batch_end(w->k->arg);
			return 0;
		}
		start = i + 1;
	}
	memmove(w->line.p, w->line.p + start, w->line.len - start);
	w->line.len -= start;
	if (w->line.len > w->k->max_event) {
		log_error("watch event larger than the limit; relisting", "kind=%s limit_bytes=%zu",
			  w->k->ops->kind, w->k->max_event);
		w->k->ops->batch_end(w->k->arg);
		w->end = WATCH_CORRUPT;
		return 0;
	}
	w->k->ops->batch_end(w->k->arg);
	return add;
}

bool kube_reflector_feed(const struct kube_reflector_ops *ops, void *arg, size_t max_event,
			 const char *data, size_t len, size_t chunk)
{
	struct kube_reflector k;
	struct watch_state w;
	char *copy = xmalloc(len + 1);
	size_t at = 0;

	memset(&k, 0, sizeof k);
	k.ops = ops;
	k.arg = arg;
	k.max_event = max_event;
	memset(&w, 0, sizeof w);
	w.k = &k;
	w.line.max = max_event + 1;
	w.end = WATCH_ENDED;
	w.ok_status = true;
	memcpy(copy, data, len);
	if (chunk == 0)
		chunk = 1;
	while (at < len) {
		size_t n = len - at < chunk ? len - at : chunk;

		if (watch_write(copy + at, 1, n, &w) != n)
			break;
		at += n;
	}
	free(w.line.p);
	free(copy);
	return w.end == WATCH_ENDED && at == len;
}

/* Decides on the status line before the body arrives. */
static size_t watch_header(char *data, size_t size, size_t n, void *arg)
{
	struct watch_state *w = arg;

	if (size * n > 9 && strncmp(data, "HTTP/", 5) == 0) {
		const char *sp = memchr(data, ' ', size * n);

		w->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		w->ok_status = w->status == 200;
	}
	return size * n;
}

static enum watch_end do_watch(struct kube_reflector *k)
{
	struct watch_state w;
	char path[8192];
	struct errmsg msg;
	long status;

	memset(&w, 0, sizeof w);
	w.k = k;
	w.line.max = k->max_event + 1;
	w.end = WATCH_ENDED;
	snprintf(path, sizeof path,
		 "%s?watch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%d%s%s",
		 k->ops->path(k->arg, k->fallback), k->rv, WATCH_TIMEOUT_S,
		 k->ops->field_selector ? "&fieldSelector=" : "",
		 k->ops->field_selector ? k->ops->field_selector : "");
	status = kube_get(k, path, true, watch_write, &w, watch_header, &w, &msg);
	if (atomic_load(&k->stop)) {
		free(w.line.p);
		return WATCH_STOPPED;
	}
	if (w.end != WATCH_ENDED) {
		free(w.line.p);
		return w.end;
	}
	if (status == 410) {
		free(w.line.p);
		return WATCH_GONE;
	}
	if (status == 200) {
		free(w.line.p);
		return WATCH_ENDED;
	}
	if (status == -2 || status == -3)
		log_info("watch stream ended; reconnecting", "kind=%s error=%s", k->ops->kind, log_q(msg.text));
	else if (status < 0)
		log_warn("watch connection failed", "kind=%s error=%s", k->ops->kind, log_q(msg.text));
	else
		log_http_error(k, status, "watch", w.line.p);
	free(w.line.p);
	return WATCH_FAILED;
}

/* Sleeps for the backoff of the n-th consecutive failure (capped
 * exponential with jitter); returns false when asked to stop. */
static bool back_off(struct kube_reflector *k)
{
	int64_t ms = BACKOFF_MIN_MS;
	unsigned i;
	struct timespec until;

	for (i = 1; i < k->failures && ms < BACKOFF_MAX_MS; i++)
		ms *= 2;
	if (ms > BACKOFF_MAX_MS)
		ms = BACKOFF_MAX_MS;
	/* Full jitter between half and the whole delay spreads reconnects. */
	ms = ms / 2 + (int64_t)((uint64_t)rand() % (uint64_t)(ms / 2 + 1));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&k->lock);
	while (!atomic_load(&k->stop)) {
		if (pthread_cond_timedwait(&k->wake, &k->lock, &until) != 0)
			break;
	}
	pthread_mutex_unlock(&k->lock);
	return !atomic_load(&k->stop);
}

static void *reflector_thread(void *arg)
{
	struct kube_reflector *k = arg;
	bool need_list = true;

	while (!atomic_load(&k->stop)) {
		enum watch_end end;

		if (need_list) {
			if (do_list(k)) {
				need_list = false;
				k->failures = 0;
			} else {
				k->failures++;
				if (!back_off(k))
					break;
			}
			continue;
		}
		end = do_watch(k);
		if (end == WATCH_STOPPED)
			break;
		metrics_kube_watch_restart();
		switch (end) {
		case WATCH_ENDED:
			k->failures = 0;
			break;
		case WATCH_GONE:
		case WATCH_CORRUPT:
			need_list = true;
			break;
		case WATCH_FAILED:
		case WATCH_STOPPED:
			k->failures++;
			if (!back_off(k))
				goto out;
			break;
		}
	}
out:
	return NULL;
}

enum err kube_reflector_start(const struct kube_reflector_ops *ops, void *arg,
			      struct kube_credentials *creds,
			      const struct kube_reflector_limits *limits,
			      struct kube_reflector **out, struct errmsg *msg)
{
	struct kube_reflector *k = xcalloc(1, sizeof *k);

	*out = NULL;
	k->ops = ops;
	k->arg = arg;
	k->creds = *creds;
	memset(creds, 0, sizeof *creds);
	k->idle_ms = limits->idle_ms;
	k->request_ms = limits->request_ms;
	k->max_event = limits->max_event;
	atomic_init(&k->stop, false);
	atomic_init(&k->listed, false);
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	if (pthread_create(&k->thread, NULL, reflector_thread, k) != 0) {
		errmsg_set(msg, "cannot start the %s watch thread", ops->kind);
		kube_reflector_stop(k);
		return ERR_IO;
	}
	k->running = true;
	*out = k;
	return ERR_OK;
}

void kube_reflector_signal_stop(struct kube_reflector *k)
{
	if (k == NULL || !k->running)
		return;
	pthread_mutex_lock(&k->lock);
	atomic_store(&k->stop, true);
	pthread_cond_broadcast(&k->wake);
	pthread_mutex_unlock(&k->lock);
}

void kube_reflector_stop(struct kube_reflector *k)
{
	if (k == NULL)
		return;
	if (k->running) {
		kube_reflector_signal_stop(k);
		pthread_join(k->thread, NULL);
	}
	kube_credentials_cleanup(&k->creds);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->wake);
	free(k);
}

int kube_reflector_fallback(struct kube_reflector *k)
{
	/* A detached owner (no reflector) reads the first version. */
	return k ? k->fallback : 0;
}

bool kube_reflector_listed(struct kube_reflector *k)
{
	return atomic_load(&k->listed);
}

const char *kube_reflector_server(struct kube_reflector *k)
{
	return k->creds.server;
}
