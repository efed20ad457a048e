/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/watch_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"


static size_t watcher_write(char *data, size_t size, size_t n, void *arg)
{
	struct watcher *w = arg;

	pthread_mutex_lock(&w->mu);
	w->buf = xrealloc(w->buf, w->len + size * n + 1);
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

struct watcher *watcher_start(const char *url, const char *token, const char *ca)
{
	struct watcher *w = xcalloc(1, sizeof *w);
	char auth[256];

	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->buf = xcalloc(1, 1);
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
	if (pthread_create(&w->thread, NULL, watcher_main, w) != 0) {
		perror("watcher_start: pthread_create");
		abort();
	}
	return w;
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

size_t watcher_wait_lines(struct watcher *w, size_t n, int ms)
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

bool watcher_wait_done(struct watcher *w, int ms)
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

long watcher_wait_status(struct watcher *w, int ms)
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

json_object *watcher_event(struct watcher *w, size_t i)
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

char *watcher_line(struct watcher *w, size_t i)
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

void watcher_finish(struct watcher *w)
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
