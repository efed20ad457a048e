/* SPDX-License-Identifier: Apache-2.0 */
/* A directory watcher: it says which names in one directory to look at, and
 * when, and knows nothing of what the files hold. A background thread
 * watches the directory with inotify (symlinks on the way to a file or to
 * the directory included) and asks its client to look at the names events
 * report, a few milliseconds after they happen, with a whole-directory
 * safety scan every full-rescan period; where inotify cannot be used it
 * scans the whole directory every poll interval instead.
 *
 * A scan calls the client from the scanning thread, in this order: begin,
 * then found for every name that is a regular file (or that exists but
 * cannot be stat'ed) and, in a scan of named files only, missing for every
 * named one that is not a file (deleted, a dangling symlink, a directory),
 * then end. A file the client is told about in a full scan is every file
 * there is: what it knows and was not found is gone. */
#ifndef EXTENDER_DIR_WATCH_H
#define EXTENDER_DIR_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* The default safety rescan period while watching; a longer poll interval
 * is used instead. */
#define DIR_WATCH_FULL_RESCAN_MS 10000
/* How long events gather before the thread reads them (default). */
#define DIR_WATCH_EVENT_DELAY_MS 50
/* The poll interval when dir_watch_start is given none. */
#define DIR_WATCH_POLL_MS 500

/* What the watcher's log lines say: the client names what it watches. */
struct dir_watch_texts {
	const char *polling;        /* inotify cannot be used: polling instead */
	const char *watching;       /* watching, for the first time */
	const char *watching_again; /* watching again after polling */
	const char *overflow;       /* events were lost: a full scan follows */
	const char *no_thread;      /* the thread cannot start */
	const char *no_wake;        /* the thread cannot be woken to stop */
};

struct dir_watch_client {
	void *arg;
	/* Whether a name in the directory is one the client reads (events on
	 * other names are ignored). */
	bool (*wanted)(const char *name);
	/* A scan starts. */
	void (*begin)(void *arg);
	/* name is there: a regular file with stat st (stat_errno 0), or a path
	 * that cannot be stat'ed (stat_errno says why; st NULL). */
	void (*found)(void *arg, const char *name, const struct stat *st, int stat_errno);
	/* A scan of named files: name is not a file any more. */
	void (*missing)(void *arg, const char *name);
	/* The scan ends (full: every file was reported by found); returns what
	 * the scan returns. */
	int (*end)(void *arg, bool full);
	/* A full scan cannot open the directory (errno err); returns what the
	 * scan returns. */
	int (*unreadable)(void *arg, int err);
	struct dir_watch_texts texts;
};

struct dir_watch;

/* No thread yet. client is copied. */
struct dir_watch *dir_watch_new(const char *dir, const struct dir_watch_client *client);
/* The safety rescan period while watching (0: the longer of
 * DIR_WATCH_FULL_RESCAN_MS and the poll interval). Before dir_watch_start. */
void dir_watch_set_full_rescan_ms(struct dir_watch *dw, int64_t ms);
/* How long events gather before they are read (0: the default). Before
 * dir_watch_start. */
void dir_watch_set_event_delay_ms(struct dir_watch *dw, int64_t ms);
/* false: never watch, scan every poll interval. Before dir_watch_start. */
void dir_watch_set_watch(struct dir_watch *dw, bool watch);
/* Scans the whole directory once, synchronously (not while the thread
 * runs); returns what the client's end (or unreadable) returned. */
int dir_watch_scan(struct dir_watch *dw);
/* Starts the thread (after a first scan): it watches the directory, or
 * scans it every poll_ms (0: DIR_WATCH_POLL_MS) when it cannot. */
void dir_watch_start(struct dir_watch *dw, int64_t poll_ms);
/* Stops the thread (if started) and frees everything. Accepts NULL. */
void dir_watch_free(struct dir_watch *dw);

/* What the thread has done so far. */
struct dir_watch_stats {
	bool watching;        /* watched, and scanned once since (else polling) */
	/* Counted as each scan starts, so a change seen is a scan counted. */
	uint64_t full_scans;  /* whole-directory scans by the thread */
	uint64_t named_scans; /* scans of only the files events named */
	uint64_t overflows;   /* inotify queue overflows seen */
	uint64_t fallbacks;   /* switches from watching to polling */
	uint64_t watches;     /* inotify watches held now */
};
void dir_watch_get_stats(struct dir_watch *dw, struct dir_watch_stats *out);

#endif
