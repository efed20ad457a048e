/* SPDX-License-Identifier: Apache-2.0 */
/* A streaming HTTP GET in a thread of its own (a Kubernetes watch as a
 * client sees it): the body accumulates as it arrives, the status is known
 * as soon as the headers are, and the test thread waits for lines, the
 * status or the end with deadlines, reading events as parsed JSON lines. */
#ifndef TESTS_WATCH_CLIENT_H
#define TESTS_WATCH_CLIENT_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Read status and rc only once watcher_wait_done (or the status wait) says
 * so; the rest is the thread's. */
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

/* Starts GET url (token: a bearer token; ca: a CA file; either NULL);
 * aborts if no thread can be started. */
struct watcher *watcher_start(const char *url, const char *token, const char *ca);
/* Waits up to ms for at least n complete lines; returns how many there are. */
size_t watcher_wait_lines(struct watcher *w, size_t n, int ms);
/* Waits up to ms for the transfer to end; whether it has. */
bool watcher_wait_done(struct watcher *w, int ms);
/* Waits up to ms for the status line; the status, 0 if none yet. */
long watcher_wait_status(struct watcher *w, int ms);
/* Line i (0-based) parsed as JSON; NULL when absent or not JSON. */
json_object *watcher_event(struct watcher *w, size_t i);
/* Line i (0-based), without its newline (free it); NULL when absent. */
char *watcher_line(struct watcher *w, size_t i);
/* Stops the transfer, joins the thread and frees w. */
void watcher_finish(struct watcher *w);

#endif
