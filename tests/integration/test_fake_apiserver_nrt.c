/* SPDX-License-Identifier: Apache-2.0 */
/* The fake Kubernetes API server (tests/support/fake_apiserver.c) against
 * libcurl, NodeResourceTopology and the protocol: paged lists, watch replay
 * and live events, bookmarks, every fault, authentication, version serving
 * and TLS. Pods, bindings and field selectors are in
 * test_fake_apiserver_pods.c. Watches stream in a thread of their own
 * (tests/support/watch_client.h); assertions stay on the test thread. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/watch_client.h"
#include "tests/integration/fake_apiserver_checks.h"



/* ---- helpers ------------------------------------------------------------- */

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
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
	};
	int failed;

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	failed = cmocka_run_group_tests_name("fake_apiserver_nrt", tests, NULL, NULL);
	curl_global_cleanup();
	return failed;
}
