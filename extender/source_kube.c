/* SPDX-License-Identifier: Apache-2.0 */
/* List + watch on one thread with blocking libcurl easy transfers; a stop
 * request aborts a transfer through the progress callback. Watch events are
 * split on newlines (a corrupt line never desynchronises the parser) and
 * applied in batches, one publish per received chunk. */
#include "extender/source_kube.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extender/doc.h"
#include "extender/encode.h"
#include "extender/kube_client.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/nrt_decode.h"
#include "extender/xalloc.h"

#define LIST_PAGE 500
#define LIST_MAX_BYTES ((size_t)256 << 20)
#define BACKOFF_MIN_MS 250
#define BACKOFF_MAX_MS 30000
#define WATCH_TIMEOUT_S 300

struct source_kube {
	struct store *store;
	struct kube_credentials creds;
	char version[16];
	int64_t idle_ms, request_ms;
	size_t max_event;
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
	struct source_kube *k = arg;

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
static long kube_get(struct source_kube *k, const char *path, bool watch,
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

static void log_http_error(long status, const char *verb, const char *body)
{
	char quoted[600];

	if (status == 401)
		log_error("401 Unauthorized from the API server; check the service-account token or the kubeconfig user",
			  "verb=%s resource=%s", verb, NRT_RESOURCE);
	else if (status == 403)
		log_error("403 Forbidden from the API server; grant list and watch on " NRT_RESOURCE,
			  "verb=%s resource=%s", verb, NRT_RESOURCE);
	else
		log_warn("API server error", "verb=%s resource=%s status=%ld body=%s", verb, NRT_RESOURCE,
			 status, log_quote(body ? body : "", quoted, sizeof quoted));
}

/* Decodes one object (json-c) into a snapshot. */
static struct inventory_node *decode_object(struct source_kube *k, struct json_object *o,
					    char *version, size_t vsize, char **raw)
{
	struct json_object *meta = NULL, *rv = NULL, *name = NULL;
	struct nrt_object obj;
	struct inventory_node *node = NULL;
	struct doc *d = NULL;
	struct errmsg msg;
	char quoted[600], apiversion[64];

	/* List items may leave out kind and apiVersion. */
	if (!json_object_object_get_ex(o, "kind", NULL))
		json_object_object_add(o, "kind", json_object_new_string("NodeResourceTopology"));
	if (!json_object_object_get_ex(o, "apiVersion", NULL)) {
		snprintf(apiversion, sizeof apiversion, "topology.node.k8s.io/%s", k->version);
		json_object_object_add(o, "apiVersion", json_object_new_string(apiversion));
	}
	json_object_object_get_ex(o, "metadata", &meta);
	json_object_object_get_ex(meta, "resourceVersion", &rv);
	json_object_object_get_ex(meta, "name", &name);
	snprintf(version, vsize, "%s", rv ? json_object_get_string(rv) : "");
	memset(&obj, 0, sizeof obj);
	if (doc_from_json(o, &d, &msg) != ERR_OK ||
	    nrt_decode_doc(d, "kubernetes", &obj, &msg) != ERR_OK ||
	    inventory_node_new(&obj, &node, &msg) != ERR_OK) {
		log_error("invalid NodeResourceTopology; the node keeps its last good inventory",
			  "node=%s error=%s", name ? json_object_get_string(name) : "?",
			  log_quote(msg.text, quoted, sizeof quoted));
		metrics_inventory_error();
		node = NULL;
	}
	*raw = node ? nrt_object_to_json(&obj) : NULL;
	nrt_object_cleanup(&obj);
	doc_free(d);
	return node;
}

static void publish(struct source_kube *k, struct store_batch *b)
{
	uint64_t generation;
	struct store_set *set;

	if (store_batch_size(b) == 0) {
		store_batch_free(b);
		return;
	}
	generation = store_publish(k->store, b);
	set = store_acquire(k->store);
	metrics_inventory(store_size(set), generation);
	metrics_inventory_reload();
	store_release(set);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The full list, every page, then one batch: puts for every object and
 * deletes for nodes the API no longer has. */
static bool do_list(struct source_kube *k)
{
	static const char *const versions[] = { "v1alpha2", "v1alpha1" };
	struct store_batch *batch = store_batch_new();
	char **names = NULL, cont[4096] = "", path[8192], rv[64] = "";
	size_t nnames = 0, i;
	struct errmsg msg;
	int vi = 0;

	metrics_kube_relist();
	if (k->version[0] && strcmp(k->version, "v1alpha1") == 0)
		vi = 1;
	for (;;) {
		struct buffer body = { NULL, 0, 0, LIST_MAX_BYTES, false };
		struct json_object *root = NULL, *meta = NULL, *items = NULL, *c = NULL, *r = NULL;
		long status;

		snprintf(path, sizeof path, "/apis/topology.node.k8s.io/%s/noderesourcetopologies?limit=%d%s%s",
			 versions[vi], LIST_PAGE, cont[0] ? "&continue=" : "", cont);
		status = kube_get(k, path, false, buffer_write, &body, NULL, NULL, &msg);
		if (status == 404 && vi == 0 && cont[0] == '\0' && nnames == 0) {
			log_info("v1alpha2 NodeResourceTopology is not served; trying v1alpha1", NULL);
			free(body.p);
			vi = 1;
			continue;
		}
		if (status != 200 || body.overflow) {
			if (status < 0)
				log_warn("cannot list NodeResourceTopology objects", "error=\"%s\"", msg.text);
			else if (body.overflow)
				log_error("NodeResourceTopology list page too large", "limit_bytes=%zu",
					  (size_t)LIST_MAX_BYTES);
			else
				log_http_error(status, "list", body.p);
			if (status == 410)
				cont[0] = '\0';
			free(body.p);
			goto fail;
		}
		store_touch(k->store);
		snprintf(k->version, sizeof k->version, "%s", versions[vi]);
		root = body.p ? json_tokener_parse(body.p) : NULL;
		free(body.p);
		if (root == NULL || !json_object_object_get_ex(root, "items", &items) ||
		    !json_object_is_type(items, json_type_array)) {
			log_error("unexpected NodeResourceTopology list body", NULL);
			json_object_put(root);
			goto fail;
		}
		for (i = 0; i < json_object_array_length(items); i++) {
			struct json_object *item = json_object_array_get_idx(items, i), *m = NULL, *n = NULL;
			struct inventory_node *node;
			char version[64], *raw = NULL;

			json_object_object_get_ex(item, "metadata", &m);
			if (!json_object_object_get_ex(m, "name", &n))
				continue;
			names = xreallocarray(names, nnames + 1, sizeof *names);
			names[nnames++] = xstrdup(json_object_get_string(n));
			node = decode_object(k, item, version, sizeof version, &raw);
			if (node)
				store_batch_put_raw(batch, node, "kubernetes", version, raw);
		}
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
	/* Nodes the API no longer lists go away. */
	if (nnames > 0)
		qsort(names, nnames, sizeof *names, by_name);
	{
		struct store_set *set = store_acquire(k->store);

		for (i = 0; i < store_size(set); i++) {
			const char *have = store_at(set, i)->inventory->name;

			if (nnames == 0 || bsearch(&have, names, nnames, sizeof *names, by_name) == NULL)
				store_batch_delete(batch, have);
		}
		store_release(set);
	}
	publish(k, batch);
	snprintf(k->rv, sizeof k->rv, "%s", rv);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (!store_ready(k->store))
		log_info("inventory listed from the Kubernetes API", "version=%s nodes=%zu resourceVersion=%s",
			 k->version, nnames, k->rv);
	store_set_ready(k->store, true);
	return true;
fail:
	store_batch_free(batch);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return false;
}

struct watch_state {
	struct source_kube *k;
	struct buffer line;
	enum watch_end end;
	long status;
	bool ok_status;
};

/* One event line; false when the stream must end (end set). */
static bool apply_event(struct watch_state *w, const char *text, size_t len,
			struct store_batch *batch)
{
	struct json_object *o, *type = NULL, *obj = NULL, *meta = NULL, *rv = NULL, *name = NULL;
	struct json_tokener *tok = json_tokener_new_ex(64);
	const char *t;
	bool ok = true;

	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_parse_end(tok) != len ||
	    !json_object_object_get_ex(o, "type", &type) ||
	    !json_object_object_get_ex(o, "object", &obj)) {
		char quoted[200], head[120];

		snprintf(head, sizeof head, "%.*s", (int)(len < 100 ? len : 100), text);
		log_error("corrupt watch event; relisting", "line=%s", log_quote(head, quoted, sizeof quoted));
		w->end = WATCH_CORRUPT;
		ok = false;
		goto out;
	}
	t = json_object_get_string(type);
	metrics_kube_event(t);
	json_object_object_get_ex(obj, "metadata", &meta);
	json_object_object_get_ex(meta, "resourceVersion", &rv);
	json_object_object_get_ex(meta, "name", &name);
	if (strcmp(t, "ERROR") == 0) {
		struct json_object *code = NULL;

		json_object_object_get_ex(obj, "code", &code);
		if (code && json_object_get_int(code) == 410) {
			log_info("watch expired (410); relisting", NULL);
			w->end = WATCH_GONE;
		} else {
			log_warn("watch error event", "object=%s", json_object_to_json_string(obj));
			w->end = WATCH_FAILED;
		}
		ok = false;
		goto out;
	}
	if (strcmp(t, "ADDED") == 0 || strcmp(t, "MODIFIED") == 0) {
		char version[64], *raw = NULL;
		struct inventory_node *node = decode_object(w->k, obj, version, sizeof version, &raw);

		if (node)
			store_batch_put_raw(batch, node, "kubernetes", version, raw);
	} else if (strcmp(t, "DELETED") == 0) {
		if (name)
			store_batch_delete(batch, json_object_get_string(name));
	} else if (strcmp(t, "BOOKMARK") != 0) {
		log_warn("unknown watch event type; relisting", "type=%s", t);
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
	struct store_batch *batch;
	size_t add = size * n, start = 0, i;

	if (!w->ok_status) {
		/* Error bodies (Status objects) are collected for the log. */
		return buffer_write(data, size, n, &w->line) == add ? add : 0;
	}
	store_touch(w->k->store);
	if (w->line.len + add > w->k->max_event + 1) {
		/* Only a line longer than the cap can get here. */
		log_error("watch event larger than the limit; relisting", "limit_bytes=%zu",
			  w->k->max_event);
		w->end = WATCH_CORRUPT;
		return 0;
	}
	buffer_write(data, size, n, &w->line);
	batch = store_batch_new();
	for (i = 0; i < w->line.len; i++) {
		if (w->line.p[i] != '\n')
			continue;
		if (i > start && !apply_event(w, w->line.p + start, i - start, batch)) {
			publish(w->k, batch);
			return 0;
		}
		start = i + 1;
	}
	memmove(w->line.p, w->line.p + start, w->line.len - start);
	w->line.len -= start;
	if (w->line.len > w->k->max_event) {
		log_error("watch event larger than the limit; relisting", "limit_bytes=%zu",
			  w->k->max_event);
		publish(w->k, batch);
		w->end = WATCH_CORRUPT;
		return 0;
	}
	publish(w->k, batch);
	return add;
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

static enum watch_end do_watch(struct source_kube *k)
{
	struct watch_state w;
	char path[512];
	struct errmsg msg;
	long status;

	memset(&w, 0, sizeof w);
	w.k = k;
	w.line.max = k->max_event + 1;
	w.end = WATCH_ENDED;
	snprintf(path, sizeof path,
		 "/apis/topology.node.k8s.io/%s/noderesourcetopologies?watch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%d",
		 k->version, k->rv, WATCH_TIMEOUT_S);
	status = kube_get(k, path, true, watch_write, &w, watch_header, &w, &msg);
	free(w.line.p);
	if (atomic_load(&k->stop))
		return WATCH_STOPPED;
	if (w.end != WATCH_ENDED)
		return w.end;
	if (status == 410)
		return WATCH_GONE;
	if (status == 200)
		return WATCH_ENDED;
	if (status < 0)
		log_warn("watch connection failed", "error=\"%s\"", msg.text);
	else if (status == -2 || status == -3)
		log_info("watch stream ended; reconnecting", "error=\"%s\"", msg.text);
	else
		log_http_error(status, "watch", NULL);
	return WATCH_FAILED;
}

/* Sleeps for the backoff of the n-th consecutive failure (capped
 * exponential with jitter); returns false when asked to stop. */
static bool back_off(struct source_kube *k)
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

static void *kube_thread(void *arg)
{
	struct source_kube *k = arg;
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

enum err source_kube_start(struct store *store, const struct config *cfg,
			   struct source_kube **out, struct errmsg *msg)
{
	struct source_kube *k = xcalloc(1, sizeof *k);
	enum err rc;

	*out = NULL;
	k->store = store;
	k->idle_ms = cfg->watch_idle_timeout_ms;
	k->request_ms = cfg->request_timeout_ms;
	k->max_event = (size_t)cfg->max_event_bytes;
	atomic_init(&k->stop, false);
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	if (cfg->kubeconfig)
		rc = kube_credentials_from_kubeconfig(cfg->kubeconfig, &k->creds, msg);
	else
		rc = kube_credentials_in_cluster(&k->creds, msg);
	if (rc != ERR_OK) {
		source_kube_stop(k);
		return rc;
	}
	if (pthread_create(&k->thread, NULL, kube_thread, k) != 0) {
		errmsg_set(msg, "cannot start the Kubernetes watch thread");
		source_kube_stop(k);
		return ERR_IO;
	}
	k->running = true;
	log_info("watching NodeResourceTopology objects", "server=%s", k->creds.server);
	*out = k;
	return ERR_OK;
}

void source_kube_stop(struct source_kube *k)
{
	if (k == NULL)
		return;
	if (k->running) {
		pthread_mutex_lock(&k->lock);
		atomic_store(&k->stop, true);
		pthread_cond_broadcast(&k->wake);
		pthread_mutex_unlock(&k->lock);
		pthread_join(k->thread, NULL);
	}
	kube_credentials_cleanup(&k->creds);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->wake);
	free(k);
}

const char *source_kube_version(struct source_kube *k)
{
	return k->version[0] ? k->version : NULL;
}
