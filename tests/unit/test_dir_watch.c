/* SPDX-License-Identifier: Apache-2.0 */
/* The directory watcher through its interface, in a real directory with a
 * real thread: what a full scan reports (regular files the client wants;
 * not other names, directories or dangling symlinks; a path that cannot be
 * stat'ed with its errno), a directory that cannot be opened, a new file
 * and a deletion seen through inotify as scans of the named files, and
 * polling when watching is off. The thread's verdicts are waited for with
 * a deadline, never counted in a time window. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extender/inventory/dir_watch.h"
#include "tests/support/scratch_dir.h"

#define DEADLINE_MS 20000
/* Watching with this poll interval (and full rescans as rare), a change
 * seen before it came through inotify. */
#define LONG_POLL_MS 600000

static char dir[] = "/tmp/numa-dw-XXXXXX";

/* What the client was told, one line per call: "begin", "found NAME",
 * "found NAME errno=E", "missing NAME", "end full", "end named",
 * "unreadable E". */
struct calls {
	pthread_mutex_t lock;
	char text[1 << 16];
	size_t len;
	int ends;
};

static void say(struct calls *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	va_start(ap, fmt);
	if (c->len < sizeof c->text)
		c->len += (size_t)vsnprintf(c->text + c->len, sizeof c->text - c->len, fmt, ap);
	va_end(ap);
	if (c->len < sizeof c->text)
		c->text[c->len++] = '\n';
	c->text[c->len < sizeof c->text ? c->len : sizeof c->text - 1] = '\0';
	pthread_mutex_unlock(&c->lock);
}

static bool yaml(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".yaml") == 0;
}

static void begin(void *arg)
{
	say(arg, "begin");
}

static void found(void *arg, const char *name, const struct stat *st, int stat_errno)
{
	if (stat_errno != 0) {
		assert_null(st);
		say(arg, "found %s errno=%d", name, stat_errno);
	} else {
		assert_non_null(st);
		assert_true(S_ISREG(st->st_mode));
		say(arg, "found %s", name);
	}
}

static void missing(void *arg, const char *name)
{
	say(arg, "missing %s", name);
}

static int end(void *arg, bool full)
{
	struct calls *c = arg;

	say(c, "end %s", full ? "full" : "named");
	pthread_mutex_lock(&c->lock);
	c->ends++;
	pthread_mutex_unlock(&c->lock);
	return 7;
}

static int unreadable(void *arg, int err)
{
	say(arg, "unreadable %d", err);
	return -3;
}

static struct dir_watch *watcher(const char *path, struct calls *c)
{
	struct dir_watch_client client = {
		c, yaml, begin, found, missing, end, unreadable,
		{ "polling", "watching", "watching again", "overflow", "no thread", "no wake" },
	};

	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	return dir_watch_new(path, &client);
}

/* Takes what was said so far (the caller frees it). */
static char *take(struct calls *c)
{
	char *s;

	pthread_mutex_lock(&c->lock);
	s = strdup(c->text);
	c->len = 0;
	c->text[0] = '\0';
	pthread_mutex_unlock(&c->lock);
	return s;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until what was said holds want; fails at the deadline. */
static void wait_for_call(struct calls *c, const char *want)
{
	int64_t until = now_ms() + DEADLINE_MS;
	bool seen;

	for (;;) {
		pthread_mutex_lock(&c->lock);
		seen = strstr(c->text, want) != NULL;
		pthread_mutex_unlock(&c->lock);
		if (seen)
			return;
		if (now_ms() > until)
			fail_msg("no \"%s\" within %d ms; said:\n%s", want, DEADLINE_MS, c->text);
		usleep(5 * 1000);
	}
}

static void put(const char *name)
{
	char path[512], tmp[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

static void at(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
}

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

static void full_scan_reports_files_the_client_wants(void **state)
{
	struct calls c;
	struct dir_watch *dw;
	char path[512], loop[512], *said;

	(void)state;
	put("a.yaml");
	put("b.txt");                              /* not wanted */
	at("sub.yaml", path, sizeof path);
	assert_int_equal(mkdir(path, 0755), 0);    /* a directory */
	at("dangling.yaml", path, sizeof path);
	assert_int_equal(symlink("nowhere.yaml", path), 0);
	at("loop.yaml", loop, sizeof loop);
	assert_int_equal(symlink("loop.yaml", loop), 0); /* exists, cannot be stat'ed */
	dw = watcher(dir, &c);
	assert_int_equal(dir_watch_scan(dw), 7);
	said = take(&c);
	/* readdir's order is the filesystem's: check each line apart. */
	assert_true(strncmp(said, "begin\n", 6) == 0);
	assert_non_null(strstr(said, "\nfound a.yaml\n"));
	assert_non_null(strstr(said, "\nfound loop.yaml errno=40\n")); /* ELOOP */
	assert_null(strstr(said, "b.txt"));
	assert_null(strstr(said, "sub.yaml"));
	assert_null(strstr(said, "dangling.yaml"));
	assert_non_null(strstr(said, "\nend full\n"));
	assert_int_equal(strlen(said), strlen("begin\nfound a.yaml\nfound loop.yaml errno=40\nend full\n"));
	free(said);
	dir_watch_free(dw);
	assert_int_equal(unlink(loop), 0);
	at("dangling.yaml", path, sizeof path);
	assert_int_equal(unlink(path), 0);
	at("sub.yaml", path, sizeof path);
	assert_int_equal(rmdir(path), 0);

	dw = watcher("/nonexistent/numa-dw", &c);
	assert_int_equal(dir_watch_scan(dw), -3);
	said = take(&c);
	assert_string_equal(said, "unreadable 2\n"); /* ENOENT, and nothing else */
	free(said);
	dir_watch_free(dw);
}

static void events_become_scans_of_the_named_files(void **state)
{
	struct dir_watch_stats st;
	struct calls c;
	struct dir_watch *dw;
	char path[512], *said;

	(void)state;
	dw = watcher(dir, &c);
	dir_watch_set_full_rescan_ms(dw, LONG_POLL_MS);
	dir_watch_set_event_delay_ms(dw, 10);
	assert_int_equal(dir_watch_scan(dw), 7);
	free(take(&c));
	dir_watch_start(dw, LONG_POLL_MS);
	/* The thread arms its watch, then scans everything once. */
	wait_for_call(&c, "end full\n");
	dir_watch_get_stats(dw, &st);
	assert_true(st.watching);
	assert_true(st.watches >= 1);
	free(take(&c));
	put("new.yaml");
	wait_for_call(&c, "end named\n");
	said = take(&c);
	assert_string_equal(said, "begin\nfound new.yaml\nend named\n");
	free(said);
	at("new.yaml", path, sizeof path);
	assert_int_equal(unlink(path), 0);
	wait_for_call(&c, "end named\n");
	said = take(&c);
	assert_string_equal(said, "begin\nmissing new.yaml\nend named\n");
	free(said);
	dir_watch_get_stats(dw, &st);
	assert_true(st.named_scans >= 2);
	assert_int_equal(st.full_scans, 1);
	assert_int_equal(st.fallbacks, 0);
	dir_watch_free(dw);
}

static void polls_when_watching_is_off(void **state)
{
	struct dir_watch_stats st;
	struct calls c;
	struct dir_watch *dw;
	char path[512];

	(void)state;
	dw = watcher(dir, &c);
	dir_watch_set_watch(dw, false);
	assert_int_equal(dir_watch_scan(dw), 7);
	free(take(&c));
	dir_watch_start(dw, 20);
	put("polled.yaml");
	wait_for_call(&c, "found polled.yaml\n");
	wait_for_call(&c, "end full\n");
	dir_watch_get_stats(dw, &st);
	assert_false(st.watching);
	assert_int_equal(st.named_scans, 0);
	assert_true(st.full_scans >= 1);
	dir_watch_free(dw);
	at("polled.yaml", path, sizeof path);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_scan_reports_files_the_client_wants),
		cmocka_unit_test(events_become_scans_of_the_named_files),
		cmocka_unit_test(polls_when_watching_is_off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
