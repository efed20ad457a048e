/* SPDX-License-Identifier: Apache-2.0 */
/* The directory watcher (dir_watch.h).
 *
 * Scanning. A full scan is one readdir and one fstatat per name the client
 * wants; a scan of named files the same for only the names inotify
 * reported. The client decides what a found file means.
 *
 * Watching. The thread holds an inotify watch on the directory and wakes on
 * its events only; idle, it costs nothing but a whole-directory safety
 * rescan every full-rescan period (10 s, or the poll interval when longer).
 * Events gather for event_delay (50 ms) before they are read, so a burst is
 * one scan and a file replaced by unlink-then-create is not seen missing.
 * A name written in place (IN_MODIFY, or created as a regular file) is read
 * when its writer closes it (IN_CLOSE_WRITE), or one poll interval after
 * the first such event, whichever comes first, so half-written files are
 * not read sooner than polling would. Events are always read before the
 * scan they cause, and the watch is added before the scan that follows it,
 * so a change is either in the scan or in the next event. Scans caused by
 * events are at least min(pollInterval, max(event_delay, 10 x the last
 * scan's duration)) apart: a storm of events costs at most polling's CPU.
 * Too many names, a queue overflow (IN_Q_OVERFLOW), or an event on a name
 * a symlink goes through is a whole-directory scan.
 *
 * Symlinks. A file may be a symlink whose path leads elsewhere (a ConfigMap
 * mount: node.yaml -> ..data/node.yaml, ..data -> ..2024_01_01...; or a
 * file in another directory). Each full scan and each named scan of a
 * symlink walks its path component by component and watches the directory
 * holding every symlink it meets and the directory of the file it ends at,
 * remembering those names: an event on one of them is a full scan. Events
 * on other names there are ignored. A file with other hard links
 * (st_nlink > 1) is watched itself: a write through a link in another
 * directory raises no event in ours. What this does not see (a plain
 * directory higher up on a symlink's path renamed or replaced) is seen by
 * the safety rescan. The directory's own path is walked the same way: if a
 * symlink on it changes, or the directory is deleted, moved or unmounted
 * (IN_DELETE_SELF, IN_MOVE_SELF, IN_IGNORED), the watch is set up again on
 * whatever the path names now, then everything is rescanned.
 *
 * Polling. When inotify cannot be used (inotify_init1 fails, the watch
 * limit is reached, the directory or a symlink target is on a network or
 * FUSE filesystem where other hosts' changes raise no event, the directory
 * is missing), the thread rescans every poll interval as before, with one
 * warning, and tries to watch again: every poll while the directory is
 * missing, every full-rescan period otherwise. */
#include "extender/inventory/dir_watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/strmap.h"
#include "base/xalloc.h"
#include "extender/log.h"

/* More names than this waiting for a named scan: scan everything. */
#define NAMED_MAX 1024
/* Symlinks followed on one path before giving up (the kernel's limit). */
#define MAX_HOPS 40
/* What every watch asks for (the same mask everywhere: two paths to one
 * directory share one watch, and a different mask would replace it). */
#define WATCH_MASK                                                                              \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB |    \
	 IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* What a watch on a file itself asks for. */
#define FILE_MASK (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB)

/* What an event on a remembered name asks for. */
enum interest {
	INTEREST_FULL = 1,   /* a symlink's path goes through it: rescan everything */
	INTEREST_REARM = 2,  /* the directory's own path goes through it: watch again */
};

/* One inotify watch: the directory itself (main), a directory that the
 * path of a symlink goes through, with the names there that matter, or a
 * file with other hard links, with its names in the directory. */
struct watch {
	int wd;
	bool main;
	bool file;
	bool used;            /* needed by the current full scan */
	struct strmap names;  /* name -> (void *)enum interest; keys in keys[] */
	char **keys;
	size_t nkeys, capkeys;
};

/* Owned names waiting for a named scan. */
struct namelist {
	char **v;
	size_t n, cap;
};

struct dir_watch {
	char *dir;
	struct dir_watch_client client;
	pthread_t thread;
	bool running;
	int64_t poll_ms;
	pthread_mutex_t lock;       /* stop and stats */
	pthread_cond_t wake;        /* stop, when there is no wake_fd */
	bool stop;
	int wake_fd;                /* eventfd written to stop the thread, or -1 */
	struct dir_watch_stats stats;
	/* Watching: everything below belongs to the thread. */
	bool watch;                 /* allowed (dir_watch_set_watch) */
	int64_t full_ms, delay_ms;  /* 0: the defaults */
	int ifd;                    /* the inotify instance, or -1: polling */
	char *realdir;              /* the directory's path, symlinks resolved */
	dev_t dir_dev;              /* what the main watch is on */
	ino_t dir_ino;
	struct watch **watches;     /* by wd, ascending */
	size_t nwatches, capwatches;
	char *unwatchable;          /* why watching must stop (set in a scan) */
	bool unwatchable_dir;       /* ... because of the directory itself */
	bool just_armed;            /* announce watching after the first scan */
	char *polling_why;          /* why we poll now (warned once), or NULL */
	int64_t retry_at;           /* next attempt to watch again */
	/* Events read and not yet scanned. */
	struct namelist names;      /* main-directory names to scan now */
	struct namelist settle;     /* names written in place, scanned at settle_at */
	int64_t settle_at;
	bool full_pending, full_settle, rearm_pending;
	int64_t noticed;            /* when unread events were first seen, or 0 */
	int64_t last_end, gap;      /* end of the last scan; spacing after it */
	int64_t next_full, next_poll;
};

static void namelist_add(struct namelist *l, const char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n++] = xstrdup(name);
}

static void namelist_clear(struct namelist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

static void namelist_free(struct namelist *l)
{
	namelist_clear(l);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* While watching: is dfd still the directory the main watch is on? If not
 * (replaced between events), watch again. */
static void check_dir(struct dir_watch *dw, int dfd)
{
	struct stat st;

	if (dw->ifd < 0)
		return;
	if (fstat(dfd, &st) != 0 || st.st_dev != dw->dir_dev || st.st_ino != dw->dir_ino)
		dw->rearm_pending = true;
}

/* ---- Scans ---- */

static void watch_path(struct dir_watch *dw, int dfd, const char *name);
static void watch_file(struct dir_watch *dw, int dfd, const char *name, struct stat *st);
static void watch_full_begin(struct dir_watch *dw);
static void watch_full_end(struct dir_watch *dw);

/* One name: the client hears of it if it is a regular file, or if it is
 * there but cannot be stat'ed (a symlink loop, a directory it cannot
 * search). A file with other hard links is watched before the stat the
 * client keeps. Returns false when the name is not a file (gone, a
 * dangling symlink, a directory). */
static bool look(struct dir_watch *dw, int dfd, const char *name)
{
	struct stat st;
	int stat_errno = 0;

	if (fstatat(dfd, name, &st, 0) != 0) {
		stat_errno = errno;
		if (stat_errno == ENOENT || stat_errno == ENOTDIR)
			return false; /* gone, or a dangling symlink */
	} else if (!S_ISREG(st.st_mode)) {
		return false;
	} else if (dw->ifd >= 0 && st.st_nlink > 1) {
		watch_file(dw, dfd, name, &st);
	}
	dw->client.found(dw->client.arg, name, stat_errno ? NULL : &st, stat_errno);
	return true;
}

int dir_watch_scan(struct dir_watch *dw)
{
	struct dirent *e;
	DIR *d;

	d = opendir(dw->dir);
	if (d == NULL) {
		int err = errno;

		if (dw->ifd >= 0)
			dw->rearm_pending = true;
		return dw->client.unreadable(dw->client.arg, err);
	}
	watch_full_begin(dw);
	check_dir(dw, dirfd(d));
	dw->client.begin(dw->client.arg);
	/* A symlink's path is watched before it is followed. */
	while ((e = readdir(d)) != NULL) {
		if (!dw->client.wanted(e->d_name))
			continue;
		if (dw->ifd >= 0 && (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN))
			watch_path(dw, dirfd(d), e->d_name);
		look(dw, dirfd(d), e->d_name);
	}
	closedir(d);
	watch_full_end(dw);
	return dw->client.end(dw->client.arg, true);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scans only the names events reported (sorted, deduplicated here). */
static int scan_names(struct dir_watch *dw, struct namelist *l)
{
	size_t i;
	int dfd;

	if (l->n == 0)
		return 0;
	dfd = open(dw->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		/* Gone or replaced: the full scan after watching again says so. */
		dw->rearm_pending = true;
		return 0;
	}
	check_dir(dw, dfd);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
	dw->client.begin(dw->client.arg);
	for (i = 0; i < l->n; i++) {
		if (i > 0 && strcmp(l->v[i], l->v[i - 1]) == 0)
			continue;
		if (dw->ifd >= 0)
			watch_path(dw, dfd, l->v[i]);
		if (!look(dw, dfd, l->v[i]))
			dw->client.missing(dw->client.arg, l->v[i]);
	}
	close(dfd);
	return dw->client.end(dw->client.arg, false);
}

/* ---- Watches ---- */

/* Filesystems where a change made by another host (or behind FUSE) raises
 * no inotify event here: polling is the only way to see it. */
static const char *remote_fs(const char *path)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} kinds[] = {
		{ 0x6969, "nfs" },           { 0x517b, "smb" },
		{ 0xff534d42, "cifs" },      { 0xfe534d42, "smb2" },
		{ 0x65735546, "fuse" },      { 0x00c36400, "ceph" },
		{ 0x01021997, "9p" },        { 0x5346414f, "afs" },
		{ 0x73757245, "coda" },      { 0x01161970, "gfs2" },
		{ 0x7461636f, "ocfs2" },     { 0x0bd00bd0, "lustre" },
		{ 0x47504653, "gpfs" },
	};
	struct statfs fs;
	size_t i;

	if (statfs(path, &fs) != 0)
		return NULL;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if ((unsigned long)(unsigned int)fs.f_type == kinds[i].magic)
			return kinds[i].name;
	return NULL;
}

/* The first watch at or after wd (watches are sorted by wd). */
static size_t watch_index(const struct dir_watch *dw, int wd)
{
	size_t lo = 0, hi = dw->nwatches;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->watches[mid]->wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct watch *watch_find(const struct dir_watch *dw, int wd)
{
	size_t i = watch_index(dw, wd);

	return i < dw->nwatches && dw->watches[i]->wd == wd ? dw->watches[i] : NULL;
}

static struct watch *watch_insert(struct dir_watch *dw, int wd)
{
	size_t i = watch_index(dw, wd);
	struct watch *w = xcalloc(1, sizeof *w);

	w->wd = wd;
	if (dw->nwatches == dw->capwatches) {
		dw->capwatches = dw->capwatches ? dw->capwatches * 2 : 8;
		dw->watches = xreallocarray(dw->watches, dw->capwatches, sizeof *dw->watches);
	}
	memmove(&dw->watches[i + 1], &dw->watches[i], (dw->nwatches - i) * sizeof *dw->watches);
	dw->watches[i] = w;
	dw->nwatches++;
	return w;
}

static void watch_clear_names(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nkeys; i++)
		free(w->keys[i]);
	w->nkeys = 0;
	strmap_clear(&w->names);
}

/* Forgets a watch (the kernel's is gone or removed by the caller). */
static void watch_remove(struct dir_watch *dw, struct watch *w)
{
	size_t i = watch_index(dw, w->wd);

	memmove(&dw->watches[i], &dw->watches[i + 1], (dw->nwatches - i - 1) * sizeof *dw->watches);
	dw->nwatches--;
	watch_clear_names(w);
	free(w->keys);
	free(w);
}

static void set_stats_watching(struct dir_watch *dw)
{
	pthread_mutex_lock(&dw->lock);
	dw->stats.watching = dw->ifd >= 0 && !dw->just_armed;
	dw->stats.watches = dw->nwatches;
	pthread_mutex_unlock(&dw->lock);
}

/* Drops every watch and what events asked for: polling from now on. */
static void disarm(struct dir_watch *dw)
{
	if (dw->ifd >= 0)
		close(dw->ifd);
	dw->ifd = -1;
	while (dw->nwatches > 0)
		watch_remove(dw, dw->watches[dw->nwatches - 1]);
	free(dw->realdir);
	dw->realdir = NULL;
	free(dw->unwatchable);
	dw->unwatchable = NULL;
	namelist_clear(&dw->names);
	namelist_clear(&dw->settle);
	dw->full_pending = dw->full_settle = dw->rearm_pending = false;
	dw->noticed = 0;
	dw->just_armed = false;
	set_stats_watching(dw);
}

/* Stops watching, warns once per reason, and schedules the next attempt:
 * every poll when the directory itself is the cause (missing, replaced),
 * else every full-rescan period. */
static void go_polling(struct dir_watch *dw, bool dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void go_polling(struct dir_watch *dw, bool dir, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	disarm(dw);
	dw->retry_at = mono_ms() + (dir ? 0 : dw->full_ms);
	if (dw->polling_why != NULL && strcmp(dw->polling_why, why) == 0)
		return;
	log_warn(dw->client.texts.polling, "dir=%s reason=%s pollInterval_ms=%lld", log_q(dw->dir),
		 log_q(why), (long long)dw->poll_ms);
	free(dw->polling_why);
	dw->polling_why = xstrdup(why);
	pthread_mutex_lock(&dw->lock);
	dw->stats.fallbacks++;
	pthread_mutex_unlock(&dw->lock);
}

/* Notes, during a scan, that something cannot be watched: the thread goes
 * back to polling after the scan (the first reason is kept). */
static void set_unwatchable(struct dir_watch *dw, bool dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_unwatchable(struct dir_watch *dw, bool dir, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	if (dw->unwatchable != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	dw->unwatchable = xstrdup(why);
	dw->unwatchable_dir = dir;
}

static const char *watch_error(int err)
{
	return err == ENOSPC ? "inotify watch limit reached (fs.inotify.max_user_watches)"
			     : strerror(err);
}

/* Watches the directory at path (or finds its watch); NULL when it cannot
 * (then the scan ends in polling, or, for a directory that just vanished,
 * in another full scan). */
static struct watch *watch_dir(struct dir_watch *dw, const char *path)
{
	struct watch *w;
	int wd = inotify_add_watch(dw->ifd, path, WATCH_MASK);

	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			dw->full_pending = true; /* changed under us: look again */
		else
			set_unwatchable(dw, false, "cannot watch %s: %s", path, watch_error(errno));
		return NULL;
	}
	w = watch_find(dw, wd);
	if (w == NULL) {
		const char *fs = remote_fs(path);

		w = watch_insert(dw, wd);
		if (fs != NULL)
			set_unwatchable(dw, false,
					"%s is on %s, where changes made elsewhere raise no event", path, fs);
	}
	w->used = true;
	return w;
}

static void watch_add_name(struct watch *w, const char *name, enum interest kind)
{
	uintptr_t had = (uintptr_t)strmap_get(&w->names, name);
	char *key;

	if (had != 0) {
		if (had < (uintptr_t)kind)
			strmap_put(&w->names, name, (void *)(uintptr_t)kind);
		return;
	}
	key = xstrdup(name);
	if (w->nkeys == w->capkeys) {
		w->capkeys = w->capkeys ? w->capkeys * 2 : 4;
		w->keys = xreallocarray(w->keys, w->capkeys, sizeof *w->keys);
	}
	w->keys[w->nkeys++] = key;
	strmap_put(&w->names, key, (void *)(uintptr_t)kind);
}

/* Remembers that an event on name in directory dir (res form: "" is the
 * root) asks for `kind`. */
static void note(struct dir_watch *dw, const char *dir, const char *name, enum interest kind)
{
	struct watch *w = watch_dir(dw, dir[0] ? dir : "/");

	if (w != NULL)
		watch_add_name(w, name, kind);
}

/* A file with other hard links can be written through a path in another
 * directory, which raises no event in ours: the file itself is watched,
 * and its events name it. The watch comes before the stat the scan keeps. */
static void watch_file(struct dir_watch *dw, int dfd, const char *name, struct stat *st)
{
	char path[PATH_MAX];
	struct watch *w;
	struct stat again;
	int wd;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dw->realdir, name) >= sizeof path)
		return;
	wd = inotify_add_watch(dw->ifd, path, FILE_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			dw->full_pending = true; /* changed under us: look again */
		else
			set_unwatchable(dw, false, "cannot watch %s: %s", path, watch_error(errno));
		return;
	}
	w = watch_find(dw, wd);
	if (w == NULL) {
		w = watch_insert(dw, wd);
		w->file = true;
	}
	w->used = true;
	watch_add_name(w, name, INTEREST_FULL);
	if (fstatat(dfd, name, &again, 0) == 0 && S_ISREG(again.st_mode))
		*st = again;
}

/* Walks path (relative to base, an absolute path without symlinks, "" for
 * the root; or absolute) one component at a time as the kernel does, and
 * notes the name of every symlink met in the directory holding it (except
 * the first component when skip_first: the named file itself, which events
 * already name), and with `final` the last component in its directory.
 * Watches are added before each link is read, so a change after the read
 * raises an event. A missing component is noted where it would appear. */
static void resolve(struct dir_watch *dw, const char *base, const char *path, bool skip_first,
		    bool final, enum interest kind)
{
	char res[PATH_MAX], todo[PATH_MAX], next[PATH_MAX], link[PATH_MAX];
	char cand[PATH_MAX + NAME_MAX + 2], comp[NAME_MAX + 1];
	const char *p;
	bool first = true;
	int hops = 0;

	if (path[0] == '/' || strcmp(base, "/") == 0)
		res[0] = '\0';
	else if ((size_t)snprintf(res, sizeof res, "%s", base) >= sizeof res)
		return;
	if ((size_t)snprintf(todo, sizeof todo, "%s", path) >= sizeof todo)
		return;
	for (p = todo;;) {
		struct stat st;
		size_t len;
		bool last;

		while (*p == '/')
			p++;
		if (*p == '\0')
			return;
		len = strcspn(p, "/");
		if (len > NAME_MAX)
			return;
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		last = p[strspn(p, "/")] == '\0';
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(res, '/');

			if (slash != NULL)
				*slash = '\0';
			continue;
		}
		snprintf(cand, sizeof cand, "%s/%s", res, comp);
		if (lstat(cand, &st) != 0) {
			note(dw, res, comp, kind);
			return;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;

			if (!(skip_first && first))
				note(dw, res, comp, kind);
			first = false;
			if (++hops > MAX_HOPS)
				return;
			n = readlink(cand, link, sizeof link - 1);
			if (n < 0)
				return;
			link[n] = '\0';
			if ((size_t)snprintf(next, sizeof next, "%s/%s", link, p) >= sizeof next)
				return;
			memcpy(todo, next, strlen(next) + 1);
			p = todo;
			if (link[0] == '/')
				res[0] = '\0';
			continue;
		}
		first = false;
		if (last) {
			if (final)
				note(dw, res, comp, kind);
			return;
		}
		if (!S_ISDIR(st.st_mode) || strlen(cand) >= sizeof res)
			return;
		memcpy(res, cand, strlen(cand) + 1);
	}
}

/* A name in the directory that is a symlink: watch where it leads. */
static void watch_path(struct dir_watch *dw, int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		resolve(dw, dw->realdir, name, true, true, INTEREST_FULL);
}

/* Before a full scan: every remembered name is found again by the scan,
 * starting with the symlinks on the directory's own path. */
static void watch_full_begin(struct dir_watch *dw)
{
	char cwd[PATH_MAX];
	size_t i;

	if (dw->ifd < 0)
		return;
	for (i = 0; i < dw->nwatches; i++) {
		dw->watches[i]->used = dw->watches[i]->main;
		watch_clear_names(dw->watches[i]);
	}
	if (dw->dir[0] == '/')
		resolve(dw, "", dw->dir, false, false, INTEREST_REARM);
	else if (getcwd(cwd, sizeof cwd) != NULL)
		resolve(dw, cwd, dw->dir, false, false, INTEREST_REARM);
}

/* After a full scan: watches nothing needs any more are removed. */
static void watch_full_end(struct dir_watch *dw)
{
	size_t i = 0;

	if (dw->ifd < 0)
		return;
	while (i < dw->nwatches) {
		struct watch *w = dw->watches[i];

		if (w->used || w->main) {
			i++;
			continue;
		}
		inotify_rm_watch(dw->ifd, w->wd);
		watch_remove(dw, w);
	}
	set_stats_watching(dw);
}

/* (Re)starts watching: a new inotify instance with a watch on what the
 * directory's path names now. The caller scans everything next. */
static bool arm(struct dir_watch *dw)
{
	struct stat before, after;
	struct watch *w;
	const char *fs;
	char *real;
	int tries, wd;

	disarm(dw);
	dw->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (dw->ifd < 0) {
		go_polling(dw, false, "inotify_init1: %s", strerror(errno));
		return false;
	}
	for (tries = 0;; tries++) {
		if (stat(dw->dir, &before) != 0) {
			go_polling(dw, true, "%s", strerror(errno));
			return false;
		}
		wd = inotify_add_watch(dw->ifd, dw->dir, WATCH_MASK);
		if (wd < 0) {
			int err = errno;

			go_polling(dw, err == ENOENT || err == ENOTDIR, "%s", watch_error(err));
			return false;
		}
		/* The same directory before and after: the watch is on it. */
		if (stat(dw->dir, &after) == 0 && after.st_dev == before.st_dev &&
		    after.st_ino == before.st_ino)
			break;
		if (tries == 3) {
			go_polling(dw, true, "the directory keeps being replaced");
			return false;
		}
		inotify_rm_watch(dw->ifd, wd);
	}
	fs = remote_fs(dw->dir);
	if (fs != NULL) {
		go_polling(dw, false, "the directory is on %s, where changes made elsewhere raise no event",
			   fs);
		return false;
	}
	real = realpath(dw->dir, NULL);
	if (real == NULL) {
		go_polling(dw, true, "%s", strerror(errno));
		return false;
	}
	dw->realdir = real;
	dw->dir_dev = before.st_dev;
	dw->dir_ino = before.st_ino;
	w = watch_insert(dw, wd);
	w->main = true;
	w->used = true;
	dw->just_armed = true;
	set_stats_watching(dw);
	return true;
}

/* ---- Events ---- */

/* Whether an event is a file being written in place (read it when it is
 * closed, or at settle_at). */
static bool in_place(const struct inotify_event *ev, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (ev->mask & IN_MODIFY)
		return true;
	if (!(ev->mask & IN_CREATE) || (ev->mask & IN_ISDIR))
		return false;
	/* Created: a symlink is complete, a regular file is being written. */
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
	    lstat(path, &st) != 0)
		return false;
	return S_ISREG(st.st_mode);
}

static void settle_start(struct dir_watch *dw, int64_t now)
{
	if (dw->settle.n == 0 && !dw->full_settle)
		dw->settle_at = now + dw->poll_ms;
}

static void on_event(struct dir_watch *dw, const struct inotify_event *ev, const char *name,
		     int64_t now)
{
	struct watch *w;
	uintptr_t kind;

	if (ev->mask & IN_Q_OVERFLOW) {
		dw->full_pending = true;
		pthread_mutex_lock(&dw->lock);
		dw->stats.overflows++;
		pthread_mutex_unlock(&dw->lock);
		log_warn(dw->client.texts.overflow, "dir=%s", log_q(dw->dir));
		return;
	}
	w = watch_find(dw, ev->wd);
	if (w == NULL)
		return; /* removed since */
	if (w->file) {
		/* A hard-linked file, written somewhere: scan its names. */
		size_t i;

		if (ev->mask & IN_IGNORED) {
			watch_remove(dw, w);
			return;
		}
		for (i = 0; i < w->nkeys && !dw->full_pending; i++) {
			if (dw->names.n + dw->settle.n >= NAMED_MAX) {
				dw->full_pending = true;
			} else if (ev->mask & IN_MODIFY) {
				settle_start(dw, now);
				namelist_add(&dw->settle, w->keys[i]);
			} else {
				namelist_add(&dw->names, w->keys[i]);
			}
		}
		return;
	}
	if (ev->mask & (IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF | IN_MOVE_SELF)) {
		if (w->main) {
			dw->rearm_pending = true;
		} else {
			dw->full_pending = true;
			if (ev->mask & IN_IGNORED)
				watch_remove(dw, w);
		}
		return;
	}
	if (name == NULL || name[0] == '\0') {
		dw->full_pending = true; /* the directory's own attributes */
		return;
	}
	kind = (uintptr_t)strmap_get(&w->names, name);
	if (kind == INTEREST_REARM) {
		dw->rearm_pending = true;
		return;
	}
	if (kind == INTEREST_FULL) {
		if ((ev->mask & IN_MODIFY) && !dw->full_pending) {
			settle_start(dw, now);
			dw->full_settle = true;
		} else {
			dw->full_pending = true;
		}
		return;
	}
	if (!w->main || !dw->client.wanted(name) || dw->full_pending)
		return;
	if (dw->names.n + dw->settle.n >= NAMED_MAX) {
		dw->full_pending = true; /* cheaper to look at everything */
		return;
	}
	if (in_place(ev, dw->dir, name)) {
		settle_start(dw, now);
		namelist_add(&dw->settle, name);
	} else {
		namelist_add(&dw->names, name);
	}
}

/* Reads every queued event. */
static void drain(struct dir_watch *dw, int64_t now)
{
	char buf[64 * 1024];

	for (;;) {
		ssize_t n = read(dw->ifd, buf, sizeof buf), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			go_polling(dw, false, "reading inotify events: %s",
				   n < 0 ? strerror(errno) : "end of file");
			return;
		}
		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			struct inotify_event ev;

			memcpy(&ev, buf + off, sizeof ev);
			on_event(dw, &ev, ev.len ? buf + off + sizeof ev : NULL, now);
			off += (ssize_t)(sizeof ev + ev.len);
		}
	}
	if (dw->full_pending)
		namelist_clear(&dw->names);
}

/* ---- The thread ---- */

/* After any scan by the thread: spacing for the next one caused by events,
 * and back to polling if the scan found something it cannot watch. */
static void scanned(struct dir_watch *dw, int64_t t0)
{
	int64_t end = mono_ms(), gap = 10 * (end - t0);

	dw->last_end = end;
	if (gap < dw->delay_ms)
		gap = dw->delay_ms;
	dw->gap = gap < dw->poll_ms ? gap : dw->poll_ms;
	if (dw->ifd >= 0 && dw->unwatchable != NULL) {
		char *why = dw->unwatchable;
		bool dir = dw->unwatchable_dir;

		dw->unwatchable = NULL;
		go_polling(dw, dir, "%s", why);
		free(why);
	}
	if (dw->ifd < 0) {
		dw->next_poll = end + dw->poll_ms;
	} else if (dw->just_armed) {
		/* Everything the scan met is watched: say so (once). */
		dw->just_armed = false;
		log_info(dw->polling_why ? dw->client.texts.watching_again : dw->client.texts.watching,
			 "dir=%s watches=%zu fullRescan_ms=%lld", log_q(dw->dir), dw->nwatches,
			 (long long)dw->full_ms);
		free(dw->polling_why);
		dw->polling_why = NULL;
		set_stats_watching(dw);
	}
}

/* Counted before the scan runs: whoever sees what a scan published (a
 * client's callback, the store) then sees it counted too. */
static void count_scan(struct dir_watch *dw, uint64_t *counter)
{
	pthread_mutex_lock(&dw->lock);
	(*counter)++;
	pthread_mutex_unlock(&dw->lock);
}

static void full_scan(struct dir_watch *dw)
{
	int64_t t0 = mono_ms();

	dw->full_pending = dw->full_settle = dw->rearm_pending = false;
	namelist_clear(&dw->names);
	namelist_clear(&dw->settle);
	count_scan(dw, &dw->stats.full_scans);
	dir_watch_scan(dw);
	dw->next_full = mono_ms() + dw->full_ms;
	scanned(dw, t0);
}

static void named_scan(struct dir_watch *dw, int64_t now)
{
	int64_t t0 = mono_ms();
	size_t i;

	if (dw->settle.n > 0 && now >= dw->settle_at) {
		for (i = 0; i < dw->settle.n; i++)
			namelist_add(&dw->names, dw->settle.v[i]);
		namelist_clear(&dw->settle);
	}
	count_scan(dw, &dw->stats.named_scans);
	scan_names(dw, &dw->names);
	namelist_clear(&dw->names);
	scanned(dw, t0);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* When the thread has something to do next. */
static int64_t next_due(const struct dir_watch *dw)
{
	int64_t at;

	if (dw->ifd < 0)
		return dw->next_poll;
	if (dw->rearm_pending)
		return 0;
	at = dw->next_full;
	if (dw->full_pending || dw->names.n > 0)
		at = min64(at, dw->last_end + dw->gap);
	if (dw->settle.n > 0 || dw->full_settle)
		at = min64(at, dw->settle_at);
	if (dw->noticed)
		at = min64(at, max64(dw->noticed + dw->delay_ms, dw->last_end + dw->gap));
	return at;
}

/* Sleeps until `until` (CLOCK_MONOTONIC ms), a stop or, with_events, an
 * inotify event; false when stopping. */
static bool wait_for(struct dir_watch *dw, int64_t until, bool with_events, bool *events)
{
	int64_t ms = until - mono_ms();
	bool stop;

	*events = false;
	if (ms < 0)
		ms = 0;
	if (dw->wake_fd >= 0) {
		struct pollfd fds[2] = { { .fd = dw->wake_fd, .events = POLLIN },
					 { .fd = dw->ifd, .events = POLLIN } };

		if (poll(fds, with_events ? 2 : 1, ms > INT_MAX ? INT_MAX : (int)ms) > 0 && with_events &&
		    (fds[1].revents & POLLIN))
			*events = true;
	} else {
		struct timespec at;

		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += (time_t)(ms / 1000);
		at.tv_nsec += (long)(ms % 1000) * 1000000;
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&dw->lock);
		if (!dw->stop)
			pthread_cond_timedwait(&dw->wake, &dw->lock, &at);
		pthread_mutex_unlock(&dw->lock);
	}
	pthread_mutex_lock(&dw->lock);
	stop = dw->stop;
	pthread_mutex_unlock(&dw->lock);
	return !stop;
}

static void *watch_thread(void *arg)
{
	struct dir_watch *dw = arg;
	bool events;

	dw->last_end = mono_ms();
	dw->next_poll = dw->last_end + dw->poll_ms;
	/* The watch first, then a scan: nothing changed since the caller's
	 * scan is missed. */
	if (dw->watch && arm(dw))
		full_scan(dw);
	for (;;) {
		int64_t now;

		if (!wait_for(dw, next_due(dw), dw->ifd >= 0 && !dw->noticed, &events))
			break;
		now = mono_ms();
		if (dw->ifd < 0) {
			if (now < dw->next_poll)
				continue;
			if (dw->watch && now >= dw->retry_at && arm(dw)) {
				full_scan(dw);
				continue;
			}
			count_scan(dw, &dw->stats.full_scans);
			dir_watch_scan(dw);
			dw->next_poll = mono_ms() + dw->poll_ms;
			continue;
		}
		if (events && !dw->noticed) {
			dw->noticed = now; /* let them gather for delay_ms */
			continue;
		}
		if (dw->noticed && now >= max64(dw->noticed + dw->delay_ms, dw->last_end + dw->gap)) {
			dw->noticed = 0;
			drain(dw, now);
			if (dw->ifd < 0)
				continue;
		}
		if (dw->rearm_pending) {
			if (arm(dw))
				full_scan(dw);
			else
				dw->next_poll = now; /* poll at once: the scan says what is wrong */
		} else if ((dw->full_pending && now >= dw->last_end + dw->gap) ||
			   (dw->full_settle && now >= dw->settle_at) || now >= dw->next_full) {
			full_scan(dw);
		} else if ((dw->names.n > 0 && now >= dw->last_end + dw->gap) ||
			   (dw->settle.n > 0 && now >= dw->settle_at)) {
			named_scan(dw, now);
		}
	}
	disarm(dw);
	return NULL;
}


/* ---- Lifetime ---- */

struct dir_watch *dir_watch_new(const char *dir, const struct dir_watch_client *client)
{
	struct dir_watch *dw = xcalloc(1, sizeof *dw);
	pthread_condattr_t attr;

	dw->dir = xstrdup(dir);
	dw->client = *client;
	dw->ifd = -1;
	dw->wake_fd = -1;
	dw->watch = true;
	pthread_mutex_init(&dw->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&dw->wake, &attr);
	pthread_condattr_destroy(&attr);
	return dw;
}

void dir_watch_set_full_rescan_ms(struct dir_watch *dw, int64_t ms)
{
	dw->full_ms = ms > 0 ? ms : 0;
}

void dir_watch_set_event_delay_ms(struct dir_watch *dw, int64_t ms)
{
	dw->delay_ms = ms > 0 ? ms : 0;
}

void dir_watch_set_watch(struct dir_watch *dw, bool watch)
{
	dw->watch = watch;
}

void dir_watch_start(struct dir_watch *dw, int64_t poll_ms)
{
	dw->poll_ms = poll_ms > 0 ? poll_ms : DIR_WATCH_POLL_MS;
	if (dw->full_ms <= 0)
		dw->full_ms = max64(DIR_WATCH_FULL_RESCAN_MS, dw->poll_ms);
	if (dw->delay_ms <= 0)
		dw->delay_ms = DIR_WATCH_EVENT_DELAY_MS;
	dw->stop = false;
	if (dw->watch) {
		dw->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (dw->wake_fd < 0) {
			go_polling(dw, false, "eventfd: %s", strerror(errno));
			dw->watch = false;
		}
	}
	if (pthread_create(&dw->thread, NULL, watch_thread, dw) == 0)
		dw->running = true;
	else
		log_error(dw->client.texts.no_thread, NULL);
}

void dir_watch_get_stats(struct dir_watch *dw, struct dir_watch_stats *out)
{
	pthread_mutex_lock(&dw->lock);
	*out = dw->stats;
	pthread_mutex_unlock(&dw->lock);
}

void dir_watch_free(struct dir_watch *dw)
{
	if (dw == NULL)
		return;
	if (dw->running) {
		pthread_mutex_lock(&dw->lock);
		dw->stop = true;
		pthread_cond_signal(&dw->wake);
		if (dw->wake_fd >= 0) {
			uint64_t one = 1;

			if (write(dw->wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
				log_error(dw->client.texts.no_wake, NULL);
		}
		pthread_mutex_unlock(&dw->lock);
		pthread_join(dw->thread, NULL);
	}
	disarm(dw);
	if (dw->wake_fd >= 0)
		close(dw->wake_fd);
	free(dw->watches);
	namelist_free(&dw->names);
	namelist_free(&dw->settle);
	free(dw->polling_why);
	free(dw->dir);
	pthread_mutex_destroy(&dw->lock);
	pthread_cond_destroy(&dw->wake);
	free(dw);
}
