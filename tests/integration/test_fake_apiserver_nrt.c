/* SPDX-License-Identifier: Apache-2.0 */
/* The fake Kubernetes API server against libcurl: paged lists, watch replay
 * and live events, bookmarks, every fault, authentication, version serving
 * and TLS; then pods: lists, gets, bindings, field selectors on lists and
 * watches, and the resourceVersion counter shared with NodeResourceTopology.
 * Watches stream in a thread of their own; assertions stay on the test
 * thread. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"

#define NRT_PATH "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
#define NRT_PATH_V1 "/apis/topology.node.k8s.io/v1alpha1/noderesourcetopologies"
#define TLS_DIR "tests/data/tls/"
#define WAIT_MS 5000

static const char nrt[] = "{\"zones\":[{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":"
			  "[{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\","
			  "\"available\":\"%d\"}]}]}";

/* ---- helpers ------------------------------------------------------------- */

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static void put_nrt(struct fake_apiserver *s, const char *name, int available)
{
	char json[256];

	snprintf(json, sizeof json, nrt, available);
	fake_apiserver_put(s, name, json);
}

static struct fake_apiserver *start_plain(void)
{
	struct fake_apiserver_options o = { .serve_v1alpha2 = true, .serve_v1alpha1 = true };
	struct fake_apiserver *s = fake_apiserver_start(&o);

	assert_non_null(s);
	assert_true(fake_apiserver_port(s) > 0);
	return s;
}

static void url_of(char *out, size_t size, struct fake_apiserver *s, const char *path)
{
	snprintf(out, size, "http://127.0.0.1:%d%s", fake_apiserver_port(s), path);
}

/* GET with the shared test client; the parsed body, or NULL if it is not
 * JSON. */
static json_object *get_json(struct fake_apiserver *s, const char *path, long *status)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	json_object *o;
	char url[1024];

	url_of(url, sizeof url, s, path);
	http_request(c, "GET", url, NULL, 0, false, &r);
	assert_int_equal(r.curl_error, 0);
	*status = r.status;
	o = json_tokener_parse(r.body);
	http_response_cleanup(&r);
	http_client_free(c);
	return o;
}

static const char *str_at(json_object *o, const char *a, const char *b)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (b && !json_object_object_get_ex(x, b, &x))
		return NULL;
	return json_object_get_string(x);
}

static void assert_status_object(json_object *o, int code, const char *reason)
{
	json_object *c;

	assert_non_null(o);
	assert_string_equal(str_at(o, "kind", NULL), "Status");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "status", NULL), "Failure");
	assert_string_equal(str_at(o, "reason", NULL), reason);
	assert_non_null(str_at(o, "message", NULL));
	assert_true(json_object_object_get_ex(o, "code", &c));
	assert_int_equal(json_object_get_int(c), code);
}

static unsigned long long rv_of(json_object *o)
{
	const char *rv = str_at(o, "metadata", "resourceVersion");

	assert_non_null(rv);
	return strtoull(rv, NULL, 10);
}

/* A request with an optional bearer token and CA (the shared client sets no
 * headers). */
static long fetch(const char *url, const char *token, const char *ca, int *curl_rc)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	FILE *sink = fopen("/dev/null", "w");
	long status = 0;
	char auth[256];

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		h = curl_slist_append(h, auth);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	}
	if (ca)
		curl_easy_setopt(c, CURLOPT_CAINFO, ca);
	*curl_rc = (int)curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	fclose(sink);
	return status;
}

/* ---- a watch client in a thread ------------------------------------------ */

struct watcher {
	pthread_t thread;
	CURL *curl;
	struct curl_slist *headers;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	char *buf;
	size_t len;
	long status;     /* from the status line, as soon as headers arrive */
	bool done;
	CURLcode rc;
	atomic_int stop; /* read by the progress callback */
};

static size_t watcher_write(char *data, size_t size, size_t n, void *arg)
{
	struct watcher *w = arg;

	pthread_mutex_lock(&w->mu);
	w->buf = realloc(w->buf, w->len + size * n + 1);
	memcpy(w->buf + w->len, data, size * n);
	w->len += size * n;
	w->buf[w->len] = '\0';
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
	return size * n;
}

static size_t watcher_header(char *data, size_t size, size_t n, void *arg)
{
	struct watcher *w = arg;
	long code;

	if (size * n > 12 && strncmp(data, "HTTP/", 5) == 0 &&
	    sscanf(data, "HTTP/%*s %ld", &code) == 1) {
		pthread_mutex_lock(&w->mu);
		w->status = code;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->mu);
	}
	return size * n;
}

static int watcher_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct watcher *w = arg;

	(void)a, (void)b, (void)c, (void)d;
	return atomic_load(&w->stop);
}

static void *watcher_main(void *arg)
{
	struct watcher *w = arg;
	CURLcode rc = curl_easy_perform(w->curl);

	pthread_mutex_lock(&w->mu);
	w->rc = rc;
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static struct watcher *watcher_start(const char *url, const char *token, const char *ca)
{
	struct watcher *w = calloc(1, sizeof *w);
	char auth[256];

	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->buf = calloc(1, 1);
	w->curl = curl_easy_init();
	curl_easy_setopt(w->curl, CURLOPT_URL, url);
	curl_easy_setopt(w->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(w->curl, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(w->curl, CURLOPT_WRITEFUNCTION, watcher_write);
	curl_easy_setopt(w->curl, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(w->curl, CURLOPT_HEADERFUNCTION, watcher_header);
	curl_easy_setopt(w->curl, CURLOPT_HEADERDATA, w);
	curl_easy_setopt(w->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(w->curl, CURLOPT_XFERINFOFUNCTION, watcher_progress);
	curl_easy_setopt(w->curl, CURLOPT_XFERINFODATA, w);
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		w->headers = curl_slist_append(w->headers, auth);
		curl_easy_setopt(w->curl, CURLOPT_HTTPHEADER, w->headers);
	}
	if (ca)
		curl_easy_setopt(w->curl, CURLOPT_CAINFO, ca);
	assert_int_equal(pthread_create(&w->thread, NULL, watcher_main, w), 0);
	return w;
}

static struct watcher *watch_path(struct fake_apiserver *s, const char *path_and_query)
{
	char url[1024];

	url_of(url, sizeof url, s, path_and_query);
	return watcher_start(url, NULL, NULL);
}

static size_t count_lines(const struct watcher *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->len; i++)
		n += w->buf[i] == '\n';
	return n;
}

static struct timespec deadline_after(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Waits for at least n complete lines; returns how many there are. */
static size_t watcher_wait_lines(struct watcher *w, size_t n, int ms)
{
	struct timespec until = deadline_after(ms);
	size_t have;

	pthread_mutex_lock(&w->mu);
	while ((have = count_lines(w)) < n && !w->done &&
	       pthread_cond_timedwait(&w->cond, &w->mu, &until) == 0)
		;
	have = count_lines(w);
	pthread_mutex_unlock(&w->mu);
	return have;
}

static bool watcher_wait_done(struct watcher *w, int ms)
{
	struct timespec until = deadline_after(ms);
	bool done;

	pthread_mutex_lock(&w->mu);
	while (!w->done && pthread_cond_timedwait(&w->cond, &w->mu, &until) == 0)
		;
	done = w->done;
	pthread_mutex_unlock(&w->mu);
	return done;
}

static long watcher_wait_status(struct watcher *w, int ms)
{
	struct timespec until = deadline_after(ms);
	long status;

	pthread_mutex_lock(&w->mu);
	while (w->status == 0 && !w->done &&
	       pthread_cond_timedwait(&w->cond, &w->mu, &until) == 0)
		;
	status = w->status;
	pthread_mutex_unlock(&w->mu);
	return status;
}

/* Line i (0-based) parsed as JSON; NULL when absent or not JSON. */
static json_object *watcher_event(struct watcher *w, size_t i)
{
	json_object *o = NULL;
	const char *p;

	pthread_mutex_lock(&w->mu);
	p = w->buf;
	for (size_t k = 0; k < i && p; k++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (p && strchr(p, '\n')) {
		char *line = strndup(p, (size_t)(strchr(p, '\n') - p));

		o = json_tokener_parse(line);
		free(line);
	}
	pthread_mutex_unlock(&w->mu);
	return o;
}

static char *watcher_line(struct watcher *w, size_t i)
{
	char *line = NULL;
	const char *p;

	pthread_mutex_lock(&w->mu);
	p = w->buf;
	for (size_t k = 0; k < i && p; k++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (p && strchr(p, '\n'))
		line = strndup(p, (size_t)(strchr(p, '\n') - p));
	pthread_mutex_unlock(&w->mu);
	return line;
}

static void watcher_finish(struct watcher *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
	curl_easy_cleanup(w->curl);
	curl_slist_free_all(w->headers);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cond);
	free(w->buf);
	free(w);
}

/* Event i has this type, object name (unless NULL) and resourceVersion. */
static void assert_event(struct watcher *w, size_t i, const char *type, const char *name,
			 unsigned long long rv)
{
	json_object *ev = watcher_event(w, i), *obj;

	assert_non_null(ev);
	assert_string_equal(str_at(ev, "type", NULL), type);
	assert_true(json_object_object_get_ex(ev, "object", &obj));
	if (name)
		assert_string_equal(str_at(obj, "metadata", "name"), name);
	assert_int_equal(rv_of(obj), rv);
	json_object_put(ev);
}

/* Follows continue tokens of a list of `kind` (base may carry a query
 * already); returns the names ("namespace/name" for namespaced objects) in
 * order and the pages seen. */
static size_t list_kind(struct fake_apiserver *s, const char *base, const char *kind, int limit,
			char names[][32], size_t max, int *pages, unsigned long long *rv)
{
	const char *sep = strchr(base, '?') ? "&" : "?";
	char path[1024], token[512] = "";
	size_t n = 0;

	*pages = 0;
	do {
		json_object *o, *items, *cont;
		long status;

		if (token[0])
			snprintf(path, sizeof path, "%s%slimit=%d&continue=%s", base, sep, limit,
				 token);
		else
			snprintf(path, sizeof path, "%s%slimit=%d", base, sep, limit);
		o = get_json(s, path, &status);
		assert_int_equal(status, 200);
		assert_string_equal(str_at(o, "kind", NULL), kind);
		if (*pages == 0)
			*rv = rv_of(o);
		else
			assert_int_equal(rv_of(o), *rv); /* every page at the list's RV */
		assert_true(json_object_object_get_ex(o, "items", &items));
		assert_true((int)json_object_array_length(items) <= limit);
		for (size_t i = 0; i < json_object_array_length(items); i++) {
			json_object *it = json_object_array_get_idx(items, i);

			assert_true(n < max);
			if (str_at(it, "metadata", "namespace"))
				snprintf(names[n++], 32, "%s/%s", str_at(it, "metadata", "namespace"),
					 str_at(it, "metadata", "name"));
			else
				snprintf(names[n++], 32, "%s", str_at(it, "metadata", "name"));
		}
		token[0] = '\0';
		if (json_object_object_get_ex(json_object_object_get(o, "metadata"), "continue",
					      &cont))
			snprintf(token, sizeof token, "%s", json_object_get_string(cont));
		(*pages)++;
		json_object_put(o);
	} while (token[0]);
	return n;
}

static size_t list_all(struct fake_apiserver *s, const char *base, int limit, char names[][32],
		       size_t max, int *pages, unsigned long long *rv)
{
	return list_kind(s, base, "NodeResourceTopologyList", limit, names, max, pages, rv);
}

/* ---- lists --------------------------------------------------------------- */

static void fake_apiserver_paged_list_returns_each_object_once(void **state)
{
	struct fake_apiserver *s = start_plain();
	static const char *const order[] = { "a", "b", "c", "d", "e", "f", "g" };
	struct fake_apiserver_stats st;
	unsigned long long rv;
	char names[16][32];
	int pages;
	size_t n;

	(void)state;
	/* Put out of order: the list must come back sorted by name. */
	put_nrt(s, "d", 1), put_nrt(s, "a", 1), put_nrt(s, "g", 1), put_nrt(s, "c", 1);
	put_nrt(s, "b", 1), put_nrt(s, "f", 1), put_nrt(s, "e", 1);
	n = list_all(s, NRT_PATH, 3, names, 16, &pages, &rv);
	assert_int_equal(n, 7);
	assert_int_equal(pages, 3);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], order[i]);
	assert_int_equal(rv, fake_apiserver_resource_version(s));
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.list_pages, 3);
	fake_apiserver_stop(s);
}

static void fake_apiserver_paged_list_is_a_snapshot(void **state)
{
	struct fake_apiserver *s = start_plain();
	json_object *o, *items, *cont;
	char path[1024];
	long status;
	unsigned long long rv;

	(void)state;
	put_nrt(s, "a", 1), put_nrt(s, "b", 1), put_nrt(s, "c", 1), put_nrt(s, "d", 1);
	o = get_json(s, NRT_PATH "?limit=2", &status);
	assert_int_equal(status, 200);
	rv = rv_of(o);
	assert_true(json_object_object_get_ex(json_object_object_get(o, "metadata"), "continue",
					      &cont));
	snprintf(path, sizeof path, NRT_PATH "?limit=2&continue=%s", json_object_get_string(cont));
	json_object_put(o);

	/* Changes after the first page do not leak into later pages. */
	fake_apiserver_delete(s, "d");
	put_nrt(s, "bb", 1);
	put_nrt(s, "c", 7);
	o = get_json(s, path, &status);
	assert_int_equal(status, 200);
	assert_int_equal(rv_of(o), rv);
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_int_equal(json_object_array_length(items), 2);
	assert_string_equal(str_at(json_object_array_get_idx(items, 0), "metadata", "name"), "c");
	assert_true(rv_of(json_object_array_get_idx(items, 0)) <= rv);
	assert_string_equal(str_at(json_object_array_get_idx(items, 1), "metadata", "name"), "d");
	assert_false(json_object_object_get_ex(json_object_object_get(o, "metadata"), "continue",
					       &cont));
	json_object_put(o);

	/* A new list sees the changes. */
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 200);
	assert_true(rv_of(o) > rv);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "items")), 4);
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_page_limit_max_caps_limit(void **state)
{
	struct fake_apiserver_options opt = { .serve_v1alpha2 = true, .page_limit_max = 2 };
	struct fake_apiserver *s = fake_apiserver_start(&opt);
	unsigned long long rv;
	char names[8][32];
	int pages;
	json_object *o;
	long status;

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof name, "n%d", i);
		put_nrt(s, name, i);
	}
	o = get_json(s, NRT_PATH "?limit=500", &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "items")), 2);
	assert_non_null(str_at(o, "metadata", "continue"));
	json_object_put(o);
	assert_int_equal(list_all(s, NRT_PATH, 500, names, 8, &pages, &rv), 5);
	assert_int_equal(pages, 3);
	/* Without ?limit the whole list is one page, as on the real server. */
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "items")), 5);
	assert_null(str_at(o, "metadata", "continue"));
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_continue_after_expiry_is_gone(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	char path[1024];
	json_object *o;
	long status;

	(void)state;
	put_nrt(s, "a", 1), put_nrt(s, "b", 1), put_nrt(s, "c", 1);
	o = get_json(s, NRT_PATH "?limit=1", &status);
	assert_int_equal(status, 200);
	snprintf(path, sizeof path, NRT_PATH "?limit=1&continue=%s",
		 str_at(o, "metadata", "continue"));
	json_object_put(o);
	fake_apiserver_expire_history(s);
	o = get_json(s, path, &status);
	assert_int_equal(status, 410);
	assert_status_object(o, 410, "Expired");
	json_object_put(o);
	/* A malformed token is a bad request, not an expiry. */
	o = get_json(s, NRT_PATH "?limit=1&continue=bm90LWEtdG9rZW4", &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.gone, 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_get_single_object(void **state)
{
	struct fake_apiserver *s = start_plain();
	json_object *o;
	long status;

	(void)state;
	put_nrt(s, "worker-1", 3);
	o = get_json(s, NRT_PATH "/worker-1", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "kind", NULL), "NodeResourceTopology");
	assert_string_equal(str_at(o, "apiVersion", NULL), "topology.node.k8s.io/v1alpha2");
	assert_string_equal(str_at(o, "metadata", "name"), "worker-1");
	assert_non_null(json_object_object_get(o, "zones"));
	json_object_put(o);
	o = get_json(s, NRT_PATH "/worker-2", &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	assert_string_equal(str_at(o, "details", "name"), "worker-2");
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_put_sets_metadata(void **state)
{
	struct fake_apiserver *s = start_plain();
	char **names, **json;
	unsigned long long rv1, rv2;
	json_object *o;
	size_t n;

	(void)state;
	/* A wrong name and apiVersion in the input are overridden. */
	rv1 = fake_apiserver_put(s, "x", "{\"apiVersion\":\"v9\",\"metadata\":{\"name\":\"y\"},"
					 "\"zones\":[]}");
	rv2 = fake_apiserver_put(s, "w", "{\"zones\":[]}");
	assert_true(rv2 > rv1);
	assert_int_equal(fake_apiserver_delete(s, "absent"), 0);
	assert_int_equal(fake_apiserver_resource_version(s), rv2);
	n = fake_apiserver_list(s, &names, &json);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "w");
	assert_string_equal(names[1], "x");
	o = json_tokener_parse(json[1]);
	assert_string_equal(str_at(o, "metadata", "name"), "x");
	assert_int_equal(rv_of(o), rv1);
	assert_string_equal(str_at(o, "apiVersion", NULL), "topology.node.k8s.io/v1alpha2");
	assert_string_equal(str_at(o, "kind", NULL), "NodeResourceTopology");
	json_object_put(o);
	fake_apiserver_list_free(names, json, n);
	fake_apiserver_stop(s);
}

/* ---- watches ------------------------------------------------------------- */

static void fake_apiserver_watch_sends_changes_in_order(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv, last;
	struct watcher *w;
	char path[512];
	json_object *o;
	long status;
	char **names, **json;
	size_t n;

	(void)state;
	put_nrt(s, "a", 1), put_nrt(s, "b", 1);
	o = get_json(s, NRT_PATH, &status);
	rv = rv_of(o);
	json_object_put(o);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu", rv);
	w = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	put_nrt(s, "c", 1);
	put_nrt(s, "a", 5);
	fake_apiserver_delete(s, "b");
	assert_int_equal(watcher_wait_lines(w, 3, WAIT_MS), 3);
	assert_event(w, 0, "ADDED", "c", rv + 1);
	assert_event(w, 1, "MODIFIED", "a", rv + 2);
	assert_event(w, 2, "DELETED", "b", rv + 3);
	/* The stream agrees with the server's own view. */
	n = fake_apiserver_list(s, &names, &json);
	assert_int_equal(n, 2);
	o = json_tokener_parse(json[0]);
	last = rv_of(o);
	assert_int_equal(last, rv + 2);
	json_object_put(o);
	fake_apiserver_list_free(names, json, n);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_watch_replays_history_after_rv(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv1, rv2, rv3;
	struct watcher *w;
	char path[512];

	(void)state;
	rv1 = fake_apiserver_put(s, "a", "{}");
	rv2 = fake_apiserver_put(s, "b", "{}");
	rv3 = fake_apiserver_put(s, "a", "{\"zones\":[]}");
	snprintf(path, sizeof path, NRT_PATH "?watch=true&resourceVersion=%llu", rv1);
	w = watch_path(s, path);
	assert_int_equal(watcher_wait_lines(w, 2, WAIT_MS), 2);
	assert_event(w, 0, "ADDED", "b", rv2);
	assert_event(w, 1, "MODIFIED", "a", rv3);
	/* Nothing else was replayed (the change at rv1 is not after rv1). */
	assert_int_equal(watcher_wait_lines(w, 3, 200), 2);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_watch_without_rv_starts_with_state(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv_b, rv_c;
	struct watcher *w;

	(void)state;
	fake_apiserver_put(s, "b", "{}");
	fake_apiserver_put(s, "a", "{}");
	rv_b = fake_apiserver_put(s, "b", "{\"zones\":[]}");
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	rv_c = fake_apiserver_put(s, "c", "{}");
	assert_int_equal(watcher_wait_lines(w, 3, WAIT_MS), 3);
	/* Synthetic ADDED for the current state by name, then live changes. */
	assert_event(w, 0, "ADDED", "a", rv_b - 1);
	assert_event(w, 1, "ADDED", "b", rv_b);
	assert_event(w, 2, "ADDED", "c", rv_c);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_watch_headers_before_events(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *w;
	char path[512];

	(void)state;
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu",
		 fake_apiserver_resource_version(s));
	w = watch_path(s, path);
	/* A client can tell an open, quiet watch from a failed one. */
	assert_int_equal(watcher_wait_status(w, WAIT_MS), 200);
	assert_int_equal(watcher_wait_lines(w, 1, 200), 0);
	assert_false(watcher_wait_done(w, 0));
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_bookmark_only_when_allowed(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *with, *without;
	unsigned long long rv, rv_x;
	char path[512];
	json_object *e;

	(void)state;
	fake_apiserver_put(s, "a", "{}");
	rv = fake_apiserver_resource_version(s);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu&allowWatchBookmarks=true",
		 rv);
	with = watch_path(s, path);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu", rv);
	without = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 2, WAIT_MS));
	fake_apiserver_send_bookmark(s);
	rv_x = fake_apiserver_put(s, "x", "{}");
	assert_int_equal(watcher_wait_lines(with, 2, WAIT_MS), 2);
	assert_int_equal(watcher_wait_lines(without, 1, WAIT_MS), 1);
	assert_event(with, 0, "BOOKMARK", NULL, rv);
	e = watcher_event(with, 0);
	assert_string_equal(str_at(json_object_object_get(e, "object"), "kind", NULL),
			    "NodeResourceTopology");
	assert_string_equal(str_at(json_object_object_get(e, "object"), "apiVersion", NULL),
			    "topology.node.k8s.io/v1alpha2");
	json_object_put(e);
	assert_event(with, 1, "ADDED", "x", rv_x);
	/* The other stream never saw the bookmark. */
	assert_int_equal(watcher_wait_lines(without, 2, 200), 1);
	assert_event(without, 0, "ADDED", "x", rv_x);
	fake_apiserver_stop(s);
	watcher_finish(with);
	watcher_finish(without);
}

static void fake_apiserver_large_event_arrives_whole(void **state)
{
	struct fake_apiserver *s = start_plain();
	size_t zones = 3000, len;
	struct watcher *w;
	char *big, *p;
	json_object *e;

	(void)state;
	/* Larger than MHD's write buffer: the line spans several chunks. */
	big = malloc(zones * 64 + 64);
	p = big + sprintf(big, "{\"zones\":[");
	for (size_t i = 0; i < zones; i++)
		p += sprintf(p, "%s{\"name\":\"node-%zu\",\"type\":\"Node\"}", i ? "," : "", i);
	sprintf(p, "]}");
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	fake_apiserver_put(s, "big", big);
	put_nrt(s, "small", 1);
	assert_int_equal(watcher_wait_lines(w, 2, WAIT_MS), 2);
	e = watcher_event(w, 0);
	assert_non_null(e);
	len = json_object_array_length(json_object_object_get(json_object_object_get(e, "object"),
							      "zones"));
	assert_int_equal(len, zones);
	json_object_put(e);
	assert_event(w, 1, "ADDED", "small", fake_apiserver_resource_version(s));
	free(big);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_disconnect_cuts_streams(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *w;
	char path[512];

	(void)state;
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu",
		 fake_apiserver_resource_version(s));
	w = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	put_nrt(s, "a", 1);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	fake_apiserver_disconnect_watches(s);
	assert_true(watcher_wait_done(w, WAIT_MS));
	/* Cut without the terminating chunk: a transfer error, not a clean end. */
	assert_int_not_equal(w->rc, CURLE_OK);
	assert_true(fake_apiserver_wait_watches(s, 0, WAIT_MS));
	watcher_finish(w);
	/* Later watches are unaffected. */
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	assert_false(watcher_wait_done(w, 0));
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_client_hangup_closes_watch(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	struct watcher *w;

	(void)state;
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	watcher_finish(w); /* aborts the transfer and closes the socket */
	/* Noticed while idle, not only at the next event. */
	assert_true(fake_apiserver_wait_watches(s, 0, WAIT_MS));
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.watches, 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_watch_from_expired_rv_is_gone(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv;
	struct watcher *w;
	char path[512];
	json_object *o;
	long status;

	(void)state;
	put_nrt(s, "a", 1);
	o = get_json(s, NRT_PATH, &status);
	rv = rv_of(o);
	json_object_put(o);
	put_nrt(s, "a", 2);
	fake_apiserver_expire_history(s);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu", rv);
	o = get_json(s, path, &status);
	assert_int_equal(status, 410);
	assert_status_object(o, 410, "Expired");
	json_object_put(o);
	/* Even the newest resourceVersion expires, with no change since. */
	o = get_json(s, NRT_PATH, &status);
	rv = rv_of(o);
	json_object_put(o);
	fake_apiserver_expire_history(s);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu", rv);
	o = get_json(s, path, &status);
	assert_int_equal(status, 410);
	json_object_put(o);
	/* The relist's resourceVersion is newer, and watchable. */
	o = get_json(s, NRT_PATH, &status);
	assert_true(rv_of(o) > rv);
	rv = rv_of(o);
	json_object_put(o);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu", rv);
	w = watch_path(s, path);
	assert_int_equal(watcher_wait_status(w, WAIT_MS), 200);
	put_nrt(s, "b", 1);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.gone, 2);
	assert_int_equal(st.watches, 1);
	assert_int_equal(st.lists, 3);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_error_event_410_ends_stream(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	struct watcher *w;
	json_object *e, *obj;

	(void)state;
	put_nrt(s, "a", 1);
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	fake_apiserver_send_error_event_410(s);
	assert_true(watcher_wait_done(w, WAIT_MS));
	assert_int_equal(w->rc, CURLE_OK); /* a clean end after the event */
	assert_int_equal(w->status, 200);
	assert_int_equal(watcher_wait_lines(w, 2, 0), 2);
	e = watcher_event(w, 1);
	assert_non_null(e);
	assert_string_equal(str_at(e, "type", NULL), "ERROR");
	assert_true(json_object_object_get_ex(e, "object", &obj));
	assert_status_object(obj, 410, "Expired");
	json_object_put(e);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.gone, 1);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_stall_holds_events(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *w;
	json_object *e;

	(void)state;
	w = watch_path(s, NRT_PATH "?watch=1&allowWatchBookmarks=1");
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	fake_apiserver_stall_watches(s, true);
	put_nrt(s, "a", 1);
	fake_apiserver_send_bookmark(s);
	put_nrt(s, "b", 1);
	assert_int_equal(watcher_wait_lines(w, 1, 300), 0);
	fake_apiserver_stall_watches(s, false);
	assert_int_equal(watcher_wait_lines(w, 3, WAIT_MS), 3);
	e = watcher_event(w, 0);
	assert_string_equal(str_at(e, "type", NULL), "ADDED");
	json_object_put(e);
	e = watcher_event(w, 1);
	assert_string_equal(str_at(e, "type", NULL), "BOOKMARK");
	json_object_put(e);
	assert_event(w, 2, "ADDED", "b", fake_apiserver_resource_version(s));
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_garbage_line_is_sent_raw(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *w;
	char *line;
	json_object *e;

	(void)state;
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	fake_apiserver_send_garbage(s, "{\"type\":\"ADDED\",\"object\":{trunc");
	put_nrt(s, "a", 1);
	assert_int_equal(watcher_wait_lines(w, 2, WAIT_MS), 2);
	line = watcher_line(w, 0);
	assert_string_equal(line, "{\"type\":\"ADDED\",\"object\":{trunc");
	free(line);
	e = watcher_event(w, 1);
	assert_string_equal(str_at(e, "type", NULL), "ADDED");
	json_object_put(e);
	assert_false(watcher_wait_done(w, 0)); /* garbage does not end the stream */
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_timeout_seconds_ends_cleanly(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct timespec t0;
	struct watcher *w;
	long ms;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w = watch_path(s, NRT_PATH "?watch=1&timeoutSeconds=1");
	assert_true(watcher_wait_done(w, WAIT_MS));
	ms = elapsed_ms(&t0);
	assert_int_equal(w->rc, CURLE_OK);
	assert_int_equal(w->status, 200);
	assert_true(ms >= 900 && ms < 3000);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_stop_with_open_watch_is_prompt(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct watcher *w1, *w2;
	struct timespec t0;

	(void)state;
	w1 = watch_path(s, NRT_PATH "?watch=1");
	w2 = watch_path(s, NRT_PATH "?watch=1");
	assert_true(fake_apiserver_wait_watches(s, 2, WAIT_MS));
	fake_apiserver_stall_watches(s, true);
	put_nrt(s, "queued", 1); /* freed with the watch, never sent */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fake_apiserver_stop(s);
	assert_true(elapsed_ms(&t0) < 1000);
	assert_true(watcher_wait_done(w1, WAIT_MS));
	assert_true(watcher_wait_done(w2, WAIT_MS));
	assert_int_not_equal(w1->rc, CURLE_OK);
	watcher_finish(w1);
	watcher_finish(w2);
}

/* ---- protocol surface ---------------------------------------------------- */

static void fake_apiserver_wrong_token_is_unauthorized(void **state)
{
	struct fake_apiserver_options opt = { .serve_v1alpha2 = true, .token = "s3cret" };
	struct fake_apiserver *s = fake_apiserver_start(&opt);
	struct fake_apiserver_stats st;
	struct http_client *c;
	struct http_response r;
	char url[256];
	json_object *o;
	int rc;

	(void)state;
	assert_non_null(s);
	url_of(url, sizeof url, s, NRT_PATH);
	assert_int_equal(fetch(url, "wrong", NULL, &rc), 401);
	assert_int_equal(fetch(url, "s3cret", NULL, &rc), 200);
	/* No token at all; the body is a Status too. */
	c = http_client_new(NULL, NULL, NULL);
	http_request(c, "GET", url, NULL, 0, false, &r);
	assert_int_equal(r.status, 401);
	o = json_tokener_parse(r.body);
	assert_status_object(o, 401, "Unauthorized");
	json_object_put(o);
	http_response_cleanup(&r);
	http_client_free(c);
	/* A watch is refused before it starts. */
	url_of(url, sizeof url, s, NRT_PATH "?watch=1");
	assert_int_equal(fetch(url, "wrong", NULL, &rc), 401);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.auth_failures, 3);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.watches, 0);
	fake_apiserver_stop(s);
}

static void fake_apiserver_fail_next_then_recovers(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	struct watcher *w;
	json_object *o;
	long status;

	(void)state;
	fake_apiserver_fail_next(s, 500, 2);
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 500);
	assert_status_object(o, 500, "InternalError");
	json_object_put(o);
	/* The second failure hits a watch: it never becomes a stream. */
	w = watch_path(s, NRT_PATH "?watch=1");
	assert_true(watcher_wait_done(w, WAIT_MS));
	assert_int_equal(w->status, 500);
	watcher_finish(w);
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 200);
	json_object_put(o);
	fake_apiserver_fail_next(s, 503, 1);
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 503);
	assert_status_object(o, 503, "ServiceUnavailable");
	json_object_put(o);
	fake_apiserver_fail_next(s, 403, 1);
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 403);
	assert_status_object(o, 403, "Forbidden");
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.watches, 0);
	fake_apiserver_stop(s);
}

static void fake_apiserver_v1alpha1_only_server_404s_v1alpha2(void **state)
{
	struct fake_apiserver_options opt = { .serve_v1alpha1 = true };
	struct fake_apiserver *s = fake_apiserver_start(&opt);
	json_object *o, *items;
	struct watcher *w;
	long status;

	(void)state;
	assert_non_null(s);
	put_nrt(s, "a", 1);
	o = get_json(s, NRT_PATH, &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	json_object_put(o);
	o = get_json(s, NRT_PATH "?watch=1", &status);
	assert_int_equal(status, 404);
	json_object_put(o);
	o = get_json(s, NRT_PATH_V1, &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "apiVersion", NULL), "topology.node.k8s.io/v1alpha1");
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_int_equal(json_object_array_length(items), 1);
	assert_string_equal(str_at(json_object_array_get_idx(items, 0), "apiVersion", NULL),
			    "topology.node.k8s.io/v1alpha1");
	json_object_put(o);
	/* Discovery agrees with what is served. */
	o = get_json(s, "/apis/topology.node.k8s.io/v1alpha1", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "kind", NULL), "APIResourceList");
	json_object_put(o);
	o = get_json(s, "/apis/topology.node.k8s.io/v1alpha2", &status);
	assert_int_equal(status, 404);
	json_object_put(o);
	/* Watch events are rewritten too. */
	w = watch_path(s, NRT_PATH_V1 "?watch=1");
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	o = watcher_event(w, 0);
	assert_string_equal(str_at(json_object_object_get(o, "object"), "apiVersion", NULL),
			    "topology.node.k8s.io/v1alpha1");
	json_object_put(o);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_tls_with_test_ca(void **state)
{
	struct fake_apiserver_options opt = { .cert_file = TLS_DIR "server.crt",
					      .key_file = TLS_DIR "server.key",
					      .token = "t",
					      .serve_v1alpha2 = true };
	struct fake_apiserver *s = fake_apiserver_start(&opt);
	struct watcher *w;
	char url[256];
	int rc;

	(void)state;
	assert_non_null(s);
	put_nrt(s, "a", 1);
	snprintf(url, sizeof url, "https://localhost:%d" NRT_PATH, fake_apiserver_port(s));
	assert_int_equal(fetch(url, "t", TLS_DIR "ca.crt", &rc), 200);
	assert_int_equal(rc, CURLE_OK);
	snprintf(url, sizeof url, "https://127.0.0.1:%d" NRT_PATH, fake_apiserver_port(s));
	assert_int_equal(fetch(url, "t", TLS_DIR "ca.crt", &rc), 200);
	/* Not trusted without the test CA; not served over plain HTTP. */
	fetch(url, "t", TLS_DIR "rogue.crt", &rc);
	assert_int_not_equal(rc, CURLE_OK);
	snprintf(url, sizeof url, "http://127.0.0.1:%d" NRT_PATH, fake_apiserver_port(s));
	assert_int_not_equal(fetch(url, "t", NULL, &rc), 200);
	/* A watch streams over TLS as well. */
	snprintf(url, sizeof url, "https://localhost:%d" NRT_PATH "?watch=1",
		 fake_apiserver_port(s));
	w = watcher_start(url, "t", TLS_DIR "ca.crt");
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	put_nrt(s, "b", 1);
	assert_int_equal(watcher_wait_lines(w, 2, WAIT_MS), 2);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_start_fails_without_key(void **state)
{
	struct fake_apiserver_options opt = { .cert_file = TLS_DIR "server.crt",
					      .key_file = TLS_DIR "no-such.key",
					      .serve_v1alpha2 = true };

	(void)state;
	assert_null(fake_apiserver_start(&opt));
}

/* ---- pods ---------------------------------------------------------------- */

#define PODS_PATH "/api/v1/pods"
#define NS_PODS(ns) "/api/v1/namespaces/" ns "/pods"
/* What kube-scheduler-like clients watch: bound pods that still run, sent
 * URL-encoded as client-go does. */
#define RUNNING_SEL "spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"

/* A pod with optional spec.nodeName and status.phase. */
static unsigned long long put_pod(struct fake_apiserver *s, const char *ns, const char *name,
				  const char *node, const char *phase)
{
	char json[512];

	snprintf(json, sizeof json, "{\"spec\":{%s%s%s\"containers\":[{\"name\":\"c\"}]},"
				    "\"status\":{%s%s%s}}",
		 node ? "\"nodeName\":\"" : "", node ? node : "", node ? "\"," : "",
		 phase ? "\"phase\":\"" : "", phase ? phase : "", phase ? "\"" : "");
	return fake_apiserver_pod_put(s, ns, name, json);
}

/* POST with the shared test client; the parsed body or NULL. */
static json_object *post_json(struct fake_apiserver *s, const char *path, const char *body,
			      size_t len, long *status)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	json_object *o;
	char url[1024];

	url_of(url, sizeof url, s, path);
	http_request(c, "POST", url, body, len, false, &r);
	assert_int_equal(r.curl_error, 0);
	*status = r.status;
	o = json_tokener_parse(r.body);
	http_response_cleanup(&r);
	http_client_free(c);
	return o;
}

/* POSTs a v1 Binding of ns/name to node (uid: precondition or NULL); the
 * parsed reply. */
static json_object *bind_pod(struct fake_apiserver *s, const char *ns, const char *name,
			     const char *node, const char *uid, long *status)
{
	char path[512], body[512];

	snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
	snprintf(body, sizeof body, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":"
				    "{\"name\":\"%s\",\"namespace\":\"%s\"%s%s%s},\"target\":"
				    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\"}}",
		 name, ns, uid ? ",\"uid\":\"" : "", uid ? uid : "", uid ? "\"" : "", node);
	return post_json(s, path, body, strlen(body), status);
}

/* The stored pod, parsed. */
static json_object *pod_object(struct fake_apiserver *s, const char *ns, const char *name)
{
	char *json = fake_apiserver_pod_get(s, ns, name);
	json_object *o;

	assert_non_null(json);
	o = json_tokener_parse(json);
	free(json);
	assert_non_null(o);
	return o;
}

/* A string inside watch event i's object (b may be NULL); malloc'd, NULL
 * when absent. */
static char *event_str(struct watcher *w, size_t i, const char *a, const char *b)
{
	json_object *ev = watcher_event(w, i);
	const char *v;
	char *out;

	assert_non_null(ev);
	v = str_at(json_object_object_get(ev, "object"), a, b);
	out = v ? strdup(v) : NULL;
	json_object_put(ev);
	return out;
}

static void assert_event_str(struct watcher *w, size_t i, const char *a, const char *b,
			     const char *want)
{
	char *v = event_str(w, i, a, b);

	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
}

static void fake_apiserver_pod_list_pages_by_namespace_then_name(void **state)
{
	static const char *const order[] = { "a/m", "a/z", "b/a", "b/x", "c/k" };
	struct fake_apiserver *s = start_plain();
	unsigned long long rv;
	char names[16][32];
	json_object *o, *items;
	int pages;
	long status;
	size_t n;

	(void)state;
	put_pod(s, "b", "x", NULL, "Pending"), put_pod(s, "a", "z", NULL, NULL);
	put_nrt(s, "node-1", 1); /* another resource: never in a pod list */
	put_pod(s, "c", "k", "n1", "Running"), put_pod(s, "b", "a", NULL, NULL);
	put_pod(s, "a", "m", NULL, NULL);
	n = list_kind(s, PODS_PATH, "PodList", 2, names, 16, &pages, &rv);
	assert_int_equal(n, 5);
	assert_int_equal(pages, 3);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], order[i]);
	assert_int_equal(rv, fake_apiserver_resource_version(s));
	/* One namespace, paged too. */
	n = list_kind(s, NS_PODS("b"), "PodList", 1, names, 16, &pages, &rv);
	assert_int_equal(n, 2);
	assert_int_equal(pages, 2);
	assert_string_equal(names[0], "b/a");
	assert_string_equal(names[1], "b/x");
	assert_int_equal(list_kind(s, NS_PODS("none"), "PodList", 5, names, 16, &pages, &rv), 0);
	/* A typed list: apiVersion "v1", items without apiVersion and kind. */
	o = get_json(s, PODS_PATH "?limit=2", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "kind", NULL), "PodList");
	assert_int_equal(json_object_get_int(json_object_object_get(
				 json_object_object_get(o, "metadata"), "remainingItemCount")),
			 3);
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_null(str_at(json_object_array_get_idx(items, 0), "kind", NULL));
	assert_null(str_at(json_object_array_get_idx(items, 0), "apiVersion", NULL));
	assert_string_equal(str_at(json_object_array_get_idx(items, 0), "metadata", "namespace"),
			    "a");
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_pod_get_and_not_found(void **state)
{
	struct fake_apiserver *s = start_plain();
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "default", "web-0", NULL, "Pending");
	o = get_json(s, NS_PODS("default") "/web-0", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "kind", NULL), "Pod");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "metadata", "name"), "web-0");
	assert_string_equal(str_at(o, "metadata", "namespace"), "default");
	assert_string_equal(str_at(o, "status", "phase"), "Pending");
	json_object_put(o);
	o = get_json(s, NS_PODS("default") "/web-1", &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	assert_string_equal(str_at(o, "message", NULL), "pods \"web-1\" not found");
	assert_string_equal(str_at(o, "details", "name"), "web-1");
	assert_string_equal(str_at(o, "details", "kind"), "pods");
	json_object_put(o);
	/* The same name in another namespace is another pod. */
	o = get_json(s, NS_PODS("other") "/web-0", &status);
	assert_int_equal(status, 404);
	json_object_put(o);
	assert_null(fake_apiserver_pod_get(s, "other", "web-0"));
	fake_apiserver_stop(s);
}

static void fake_apiserver_pod_put_sets_metadata_and_keeps_uid(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv1, rv2, rv3, rv4;
	char uid[64], created[64];
	json_object *o;

	(void)state;
	/* Server-owned fields in the input are overridden. */
	rv1 = fake_apiserver_pod_put(s, "ns", "p", "{\"apiVersion\":\"v9\",\"kind\":\"Cat\","
						   "\"metadata\":{\"name\":\"q\",\"namespace\":\"x\"}}");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "kind", NULL), "Pod");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "metadata", "name"), "p");
	assert_string_equal(str_at(o, "metadata", "namespace"), "ns");
	assert_int_equal(rv_of(o), rv1);
	assert_int_equal(strlen(str_at(o, "metadata", "uid")), 36);
	assert_int_equal(strlen(str_at(o, "metadata", "creationTimestamp")), 20); /* ...Z */
	snprintf(uid, sizeof uid, "%s", str_at(o, "metadata", "uid"));
	snprintf(created, sizeof created, "%s", str_at(o, "metadata", "creationTimestamp"));
	json_object_put(o);
	/* A replacement without them keeps them (they never change on a real
	 * update); another pod gets another uid; an explicit uid wins. */
	rv2 = put_pod(s, "ns", "p", "n1", "Running");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "metadata", "uid"), uid);
	assert_string_equal(str_at(o, "metadata", "creationTimestamp"), created);
	assert_string_equal(str_at(o, "spec", "nodeName"), "n1");
	json_object_put(o);
	rv3 = put_pod(s, "ns", "p2", NULL, NULL);
	o = pod_object(s, "ns", "p2");
	assert_string_not_equal(str_at(o, "metadata", "uid"), uid);
	json_object_put(o);
	fake_apiserver_pod_put(s, "ns", "p", "{\"metadata\":{\"uid\":\"mine\"}}");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "metadata", "uid"), "mine");
	json_object_put(o);
	/* One counter for both resources, as etcd's revision. */
	rv4 = fake_apiserver_put(s, "node-1", "{}");
	assert_true(rv1 < rv2 && rv2 < rv3 && rv3 < rv4 - 1);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "p2"), rv4 + 1);
	assert_int_equal(fake_apiserver_delete(s, "node-1"), rv4 + 2);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "absent"), 0);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "p2"), 0);
	assert_int_equal(fake_apiserver_resource_version(s), rv4 + 2);
	assert_null(fake_apiserver_pod_get(s, "ns", "p2"));
	fake_apiserver_stop(s);
}

static void fake_apiserver_binding_binds_and_is_watched(void **state)
{
	static const char binding[] = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":"
				      "{\"name\":\"web-0\",\"annotations\":{\"bound-by\":\"test\"}},"
				      "\"target\":{\"name\":\"node-a\"}}";
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv;
	json_object *o, *conds, *c;
	struct watcher *w;
	char path[512], *t;
	long status;

	(void)state;
	rv = fake_apiserver_pod_put(s, "default", "web-0",
				    "{\"metadata\":{\"annotations\":{\"keep\":\"1\"}},\"spec\":{},"
				    "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
				    "\"PodScheduled\",\"status\":\"False\",\"reason\":"
				    "\"Unschedulable\"},{\"type\":\"Other\",\"status\":\"True\"}]}}");
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv);
	w = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	o = post_json(s, NS_PODS("default") "/web-0/binding", binding, strlen(binding), &status);
	assert_int_equal(status, 201);
	assert_string_equal(str_at(o, "kind", NULL), "Status");
	assert_string_equal(str_at(o, "status", NULL), "Success");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "code")), 201);
	json_object_put(o);
	/* The binding is a change like any other. */
	assert_int_equal(fake_apiserver_resource_version(s), rv + 1);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	assert_event(w, 0, "MODIFIED", "web-0", rv + 1);
	assert_event_str(w, 0, "spec", "nodeName", "node-a");
	o = pod_object(s, "default", "web-0");
	assert_string_equal(str_at(o, "spec", "nodeName"), "node-a");
	assert_string_equal(
		json_object_get_string(json_object_object_get(json_object_object_get(
			json_object_object_get(o, "metadata"), "annotations"), "bound-by")),
		"test");
	assert_non_null(json_object_object_get(json_object_object_get(
		json_object_object_get(o, "metadata"), "annotations"), "keep"));
	/* PodScheduled=True replaces the False entry (reason gone), the
	 * other condition stays. */
	conds = json_object_object_get(json_object_object_get(o, "status"), "conditions");
	assert_int_equal(json_object_array_length(conds), 2);
	c = json_object_array_get_idx(conds, 0);
	assert_string_equal(str_at(c, "type", NULL), "PodScheduled");
	assert_string_equal(str_at(c, "status", NULL), "True");
	assert_null(str_at(c, "reason", NULL));
	t = strdup(str_at(c, "lastTransitionTime", NULL));
	assert_int_equal(strlen(t), 20);
	assert_true(t[4] == '-' && t[10] == 'T' && t[19] == 'Z');
	free(t);
	assert_string_equal(str_at(json_object_array_get_idx(conds, 1), "type", NULL), "Other");
	assert_string_equal(str_at(o, "status", "phase"), "Pending");
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 1);
	assert_int_equal(st.binding_conflicts, 0);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_binding_conflicts(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv;
	char uid[64], want[256];
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "ns", "bound", "node-old", "Running");
	put_pod(s, "ns", "free", NULL, "Pending");
	o = pod_object(s, "ns", "free");
	snprintf(uid, sizeof uid, "%s", str_at(o, "metadata", "uid"));
	json_object_put(o);
	rv = fake_apiserver_resource_version(s);
	/* Already bound. */
	o = bind_pod(s, "ns", "bound", "node-new", NULL, &status);
	assert_int_equal(status, 409);
	assert_status_object(o, 409, "Conflict");
	assert_string_equal(str_at(o, "message", NULL),
			    "Operation cannot be fulfilled on pods/binding \"bound\": "
			    "pod bound is already assigned to node \"node-old\"");
	assert_string_equal(str_at(o, "details", "kind"), "pods/binding");
	assert_string_equal(str_at(o, "details", "name"), "bound");
	json_object_put(o);
	/* A uid precondition that does not hold: another pod of that name. */
	o = bind_pod(s, "ns", "free", "node-a", "stale-uid", &status);
	assert_int_equal(status, 409);
	assert_status_object(o, 409, "Conflict");
	snprintf(want, sizeof want, "Precondition failed: UID in precondition: stale-uid, "
				    "UID in object meta: %s", uid);
	assert_non_null(strstr(str_at(o, "message", NULL), want));
	assert_non_null(strstr(str_at(o, "message", NULL),
			       "Operation cannot be fulfilled on pods \"free\""));
	json_object_put(o);
	/* Refusals change nothing. */
	assert_int_equal(fake_apiserver_resource_version(s), rv);
	o = pod_object(s, "ns", "free");
	assert_null(str_at(o, "spec", "nodeName"));
	json_object_put(o);
	/* The right uid binds; binding again conflicts. */
	o = bind_pod(s, "ns", "free", "node-a", uid, &status);
	assert_int_equal(status, 201);
	json_object_put(o);
	o = bind_pod(s, "ns", "free", "node-b", uid, &status);
	assert_int_equal(status, 409);
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 1);
	assert_int_equal(st.binding_conflicts, 3);
	fake_apiserver_stop(s);
}

static void fake_apiserver_binding_bad_requests(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	static const char no_target[] = "{\"metadata\":{\"name\":\"p\"},\"target\":{}}";
	static const char other_name[] = "{\"metadata\":{\"name\":\"q\"},\"target\":{\"name\":\"n\"}}";
	static const char good[] = "{\"metadata\":{\"name\":\"p\"},\"target\":{\"name\":\"n\"}}";
	size_t big_len = 4u << 20;
	char *big = malloc(big_len);
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "ns", "p", NULL, NULL);
	o = post_json(s, NS_PODS("ns") "/p/binding", "not json", 8, &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p/binding", "[1]", 3, &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p/binding", other_name, strlen(other_name), &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	assert_string_equal(str_at(o, "message", NULL),
			    "name in URL does not match name in Binding object");
	json_object_put(o);
	/* Validation errors are not API errors in BindingREST: the real
	 * server answers 500 without a reason. */
	o = post_json(s, NS_PODS("ns") "/p/binding", no_target, strlen(no_target), &status);
	assert_int_equal(status, 500);
	assert_string_equal(str_at(o, "message", NULL), "target.name: Required value");
	assert_null(str_at(o, "reason", NULL));
	json_object_put(o);
	memset(big, ' ', big_len);
	o = post_json(s, NS_PODS("ns") "/p/binding", big, big_len, &status);
	assert_int_equal(status, 413);
	json_object_put(o);
	free(big);
	/* No such pod. */
	o = bind_pod(s, "ns", "ghost", "n", NULL, &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	assert_string_equal(str_at(o, "message", NULL), "pods \"ghost\" not found");
	json_object_put(o);
	/* POST is served on the binding path only; GET is not served there. */
	o = post_json(s, PODS_PATH, good, strlen(good), &status);
	assert_int_equal(status, 405);
	assert_status_object(o, 405, "MethodNotAllowed");
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p", good, strlen(good), &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	o = post_json(s, NRT_PATH, "{}", 2, &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	o = get_json(s, NS_PODS("ns") "/p/binding", &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	/* An injected failure hits a binding before anything happens. */
	fake_apiserver_fail_next(s, 503, 1);
	o = post_json(s, NS_PODS("ns") "/p/binding", good, strlen(good), &status);
	assert_int_equal(status, 503);
	json_object_put(o);
	o = pod_object(s, "ns", "p");
	assert_null(str_at(o, "spec", "nodeName"));
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 0);
	assert_int_equal(st.binding_conflicts, 0);
	/* The connection survives all of that: a binding still works. */
	o = post_json(s, NS_PODS("ns") "/p/binding", good, strlen(good), &status);
	assert_int_equal(status, 201);
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_selector_watch_follows_pod_lifecycle(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv_bind, rv_mod, rv_done, rv_del;
	struct watcher *w;
	char names[8][32];
	unsigned long long rv;
	long status;
	int pages;

	(void)state;
	put_pod(s, "ns", "p", NULL, "Pending");
	put_pod(s, "ns", "r", "node-a", "Running");
	put_pod(s, "ns", "done", "node-a", "Succeeded");
	put_pod(s, "ns", "failed", "node-a", "Failed");
	/* A list with the same selector, written unencoded. */
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=spec.nodeName!=,status.phase!="
						"Succeeded,status.phase!=Failed",
				   "PodList", 10, names, 8, &pages, &rv),
			 1);
	assert_string_equal(names[0], "ns/r");
	/* From rv unset: synthetic ADDED only for what the selector takes. */
	w = watch_path(s, PODS_PATH "?watch=1&fieldSelector=" RUNNING_SEL);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	assert_event(w, 0, "ADDED", "r", rv - 2);
	/* Bound through the API: it enters the selection. */
	json_object_put(bind_pod(s, "ns", "p", "node-b", NULL, &status));
	assert_int_equal(status, 201);
	rv_bind = fake_apiserver_resource_version(s);
	put_pod(s, "ns", "q", NULL, "Pending"); /* outside before and after: nothing */
	rv_mod = fake_apiserver_pod_put(s, "ns", "p",
					"{\"metadata\":{\"labels\":{\"x\":\"1\"}},\"spec\":{\"nodeName\":"
					"\"node-b\"},\"status\":{\"phase\":\"Running\"}}");
	rv_done = put_pod(s, "ns", "p", "node-b", "Succeeded");
	rv_del = fake_apiserver_pod_delete(s, "ns", "r");
	fake_apiserver_pod_delete(s, "ns", "done"); /* never selected: nothing */
	assert_int_equal(watcher_wait_lines(w, 5, WAIT_MS), 5);
	assert_event(w, 1, "ADDED", "p", rv_bind);
	assert_event_str(w, 1, "spec", "nodeName", "node-b");
	assert_event(w, 2, "MODIFIED", "p", rv_mod);
	assert_event_str(w, 2, "status", "phase", "Running");
	/* Leaving the selection: DELETED with the content it was selected
	 * with, at the change's resourceVersion. */
	assert_event(w, 3, "DELETED", "p", rv_done);
	assert_event_str(w, 3, "status", "phase", "Running");
	assert_event(w, 4, "DELETED", "r", rv_del);
	assert_int_equal(watcher_wait_lines(w, 6, 200), 5);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_selector_replay_and_paging(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv0, rv;
	json_object *o, *items;
	char names[16][32], path[512];
	struct watcher *w;
	int pages;
	long status;

	(void)state;
	rv0 = fake_apiserver_resource_version(s);
	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof name, "p%d", i);
		put_pod(s, "ns", name, i % 2 ? "node-a" : "node-b", "Running");
	}
	put_pod(s, "ns", "p0", "node-a", "Running"); /* b → a: enters */
	put_pod(s, "ns", "p1", "node-b", "Running"); /* a → b: leaves */
	/* A replay from an old resourceVersion is judged like live changes. */
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu&fieldSelector="
					      "spec.nodeName%%3Dnode-a", rv0);
	w = watch_path(s, path);
	assert_int_equal(watcher_wait_lines(w, 5, WAIT_MS), 5);
	assert_event(w, 0, "ADDED", "p1", rv0 + 2);
	assert_event(w, 1, "ADDED", "p3", rv0 + 4);
	assert_event(w, 2, "ADDED", "p5", rv0 + 6);
	assert_event(w, 3, "ADDED", "p0", rv0 + 7);
	assert_event(w, 4, "DELETED", "p1", rv0 + 8);
	assert_event_str(w, 4, "spec", "nodeName", "node-a");
	watcher_finish(w);
	/* Pages hold up to `limit` matches; the last may come back short, or
	 * empty, and no count of what is left is given. */
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=spec.nodeName%3Dnode-a",
				   "PodList", 2, names, 16, &pages, &rv),
			 3);
	assert_string_equal(names[0], "ns/p0");
	assert_string_equal(names[1], "ns/p3");
	assert_string_equal(names[2], "ns/p5");
	assert_int_equal(pages, 2);
	o = get_json(s, PODS_PATH "?limit=1&fieldSelector=spec.nodeName%3Dnode-b", &status);
	assert_int_equal(status, 200);
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_int_equal(json_object_array_length(items), 1);
	assert_non_null(str_at(o, "metadata", "continue"));
	assert_null(str_at(o, "metadata", "remainingItemCount"));
	json_object_put(o);
	/* '+' in the raw query is a plus sign, not a space. */
	put_pod(s, "ns", "odd", NULL, "a+b");
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=status.phase=a+b", "PodList", 5,
				   names, 16, &pages, &rv),
			 1);
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=status.phase%3Da%2Bb", "PodList",
				   5, names, 16, &pages, &rv),
			 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_unsupported_selector_is_bad_request(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	char names[8][32];
	unsigned long long rv;
	json_object *o;
	long status;
	int pages;

	(void)state;
	o = get_json(s, PODS_PATH "?fieldSelector=spec.schedulerName%3Dx", &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	assert_string_equal(str_at(o, "message", NULL),
			    "field label not supported: spec.schedulerName");
	json_object_put(o);
	o = get_json(s, PODS_PATH "?watch=1&fieldSelector=spec.schedulerName%3Dx", &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	o = get_json(s, PODS_PATH "?fieldSelector=nonsense", &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	json_object_put(o);
	/* A custom resource offers metadata.name and .namespace only. */
	o = get_json(s, NRT_PATH "?fieldSelector=spec.nodeName%3Dx", &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	put_nrt(s, "a", 1), put_nrt(s, "b", 1);
	assert_int_equal(list_all(s, NRT_PATH "?fieldSelector=metadata.name%3Db", 5, names, 8,
				  &pages, &rv),
			 1);
	assert_string_equal(names[0], "b");
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.watches, 0);
	assert_int_equal(st.lists, 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_watches_see_only_their_resource(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv, rv_nrt, rv_pod, rv_nrt_del, rv_bind, rv_other;
	struct watcher *wn, *wp, *wns;
	char path[512];
	json_object *e;
	long status;

	(void)state;
	rv = fake_apiserver_resource_version(s);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu&allowWatchBookmarks=1",
		 rv);
	wn = watch_path(s, path);
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu&allowWatchBookmarks=1",
		 rv);
	wp = watch_path(s, path);
	snprintf(path, sizeof path, NS_PODS("other") "?watch=1&resourceVersion=%llu", rv);
	wns = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 3, WAIT_MS));
	rv_nrt = fake_apiserver_put(s, "node-a", "{}");
	rv_pod = put_pod(s, "ns", "p", NULL, NULL);
	rv_nrt_del = fake_apiserver_delete(s, "node-a");
	json_object_put(bind_pod(s, "ns", "p", "node-a", NULL, &status));
	assert_int_equal(status, 201);
	rv_bind = fake_apiserver_resource_version(s);
	rv_other = put_pod(s, "other", "p", NULL, NULL);
	/* One counter: every change took the next value. */
	assert_true(rv_nrt == rv + 1 && rv_pod == rv + 2 && rv_nrt_del == rv + 3 &&
		    rv_bind == rv + 4 && rv_other == rv + 5);
	fake_apiserver_send_bookmark(s);
	assert_int_equal(watcher_wait_lines(wn, 3, WAIT_MS), 3);
	assert_int_equal(watcher_wait_lines(wp, 4, WAIT_MS), 4);
	assert_int_equal(watcher_wait_lines(wns, 1, WAIT_MS), 1);
	assert_event(wn, 0, "ADDED", "node-a", rv_nrt);
	assert_event(wn, 1, "DELETED", "node-a", rv_nrt_del);
	assert_event_str(wn, 0, "kind", NULL, "NodeResourceTopology");
	assert_event(wn, 2, "BOOKMARK", NULL, rv_other);
	assert_event_str(wn, 2, "kind", NULL, "NodeResourceTopology");
	assert_event(wp, 0, "ADDED", "p", rv_pod);
	assert_event_str(wp, 0, "kind", NULL, "Pod");
	assert_event_str(wp, 0, "apiVersion", NULL, "v1");
	assert_event(wp, 1, "MODIFIED", "p", rv_bind);
	assert_event(wp, 2, "ADDED", "p", rv_other);
	assert_event_str(wp, 2, "metadata", "namespace", "other");
	assert_event(wp, 3, "BOOKMARK", NULL, rv_other);
	assert_event_str(wp, 3, "kind", NULL, "Pod");
	assert_event_str(wp, 3, "apiVersion", NULL, "v1");
	assert_event(wns, 0, "ADDED", "p", rv_other);
	/* A replay from the start gives each resource its own changes only. */
	watcher_finish(wns);
	assert_true(fake_apiserver_wait_watches(s, 2, WAIT_MS));
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv);
	wns = watch_path(s, path);
	assert_int_equal(watcher_wait_lines(wns, 3, WAIT_MS), 3);
	assert_int_equal(watcher_wait_lines(wns, 4, 200), 3);
	assert_event(wns, 0, "ADDED", "p", rv_pod);
	/* Faults reach the watches of both resources. */
	fake_apiserver_send_error_event_410(s);
	assert_true(watcher_wait_done(wn, WAIT_MS));
	assert_true(watcher_wait_done(wp, WAIT_MS));
	assert_true(watcher_wait_done(wns, WAIT_MS));
	e = watcher_event(wp, 4);
	assert_string_equal(str_at(e, "type", NULL), "ERROR");
	json_object_put(e);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.gone, 3);
	assert_int_equal(st.watches, 4);
	/* Compaction covers pods too. */
	fake_apiserver_expire_history(s);
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv_bind);
	e = get_json(s, path, &status);
	assert_int_equal(status, 410);
	json_object_put(e);
	fake_apiserver_stop(s);
	watcher_finish(wn);
	watcher_finish(wp);
	watcher_finish(wns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fake_apiserver_paged_list_returns_each_object_once),
		cmocka_unit_test(fake_apiserver_paged_list_is_a_snapshot),
		cmocka_unit_test(fake_apiserver_page_limit_max_caps_limit),
		cmocka_unit_test(fake_apiserver_continue_after_expiry_is_gone),
		cmocka_unit_test(fake_apiserver_get_single_object),
		cmocka_unit_test(fake_apiserver_put_sets_metadata),
		cmocka_unit_test(fake_apiserver_watch_sends_changes_in_order),
		cmocka_unit_test(fake_apiserver_watch_replays_history_after_rv),
		cmocka_unit_test(fake_apiserver_watch_without_rv_starts_with_state),
		cmocka_unit_test(fake_apiserver_watch_headers_before_events),
		cmocka_unit_test(fake_apiserver_bookmark_only_when_allowed),
		cmocka_unit_test(fake_apiserver_large_event_arrives_whole),
		cmocka_unit_test(fake_apiserver_disconnect_cuts_streams),
		cmocka_unit_test(fake_apiserver_client_hangup_closes_watch),
		cmocka_unit_test(fake_apiserver_watch_from_expired_rv_is_gone),
		cmocka_unit_test(fake_apiserver_error_event_410_ends_stream),
		cmocka_unit_test(fake_apiserver_stall_holds_events),
		cmocka_unit_test(fake_apiserver_garbage_line_is_sent_raw),
		cmocka_unit_test(fake_apiserver_timeout_seconds_ends_cleanly),
		cmocka_unit_test(fake_apiserver_stop_with_open_watch_is_prompt),
		cmocka_unit_test(fake_apiserver_wrong_token_is_unauthorized),
		cmocka_unit_test(fake_apiserver_fail_next_then_recovers),
		cmocka_unit_test(fake_apiserver_v1alpha1_only_server_404s_v1alpha2),
		cmocka_unit_test(fake_apiserver_tls_with_test_ca),
		cmocka_unit_test(fake_apiserver_start_fails_without_key),
		cmocka_unit_test(fake_apiserver_pod_list_pages_by_namespace_then_name),
		cmocka_unit_test(fake_apiserver_pod_get_and_not_found),
		cmocka_unit_test(fake_apiserver_pod_put_sets_metadata_and_keeps_uid),
		cmocka_unit_test(fake_apiserver_binding_binds_and_is_watched),
		cmocka_unit_test(fake_apiserver_binding_conflicts),
		cmocka_unit_test(fake_apiserver_binding_bad_requests),
		cmocka_unit_test(fake_apiserver_selector_watch_follows_pod_lifecycle),
		cmocka_unit_test(fake_apiserver_selector_replay_and_paging),
		cmocka_unit_test(fake_apiserver_unsupported_selector_is_bad_request),
		cmocka_unit_test(fake_apiserver_watches_see_only_their_resource),
	};
	int failed;

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	failed = cmocka_run_group_tests_name("fake_apiserver", tests, NULL, NULL);
	curl_global_cleanup();
	return failed;
}
