/* SPDX-License-Identifier: Apache-2.0 */
/* Directory watching and scanning: a stat signature per file (inode, size,
 * mtime, ctime in nanoseconds) decides what to re-read; decoding and
 * snapshot building happen here, off the request path.
 *
 * A rescan is O(files): one readdir, one fstatat and one lookup in a hash of
 * known file names per entry, and nothing more for a file whose signature
 * did not change. Only the files that changed, appeared, went away or could
 * not be stat'ed are sorted (by name, so that "the first file wins" and the
 * log order are those of a full sort). Which file provides a node is a
 * second hash (node name to file), so ownership checks do not walk the
 * other files either. A named scan does the same for only the names that
 * inotify reported.
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
 * missing, every full-rescan period otherwise.
 *
 * A file that cannot be used keeps its nodes' last good inventory, with one
 * log line per change of the file: one that does not decode (error), and
 * with a warning one that cannot be read (permission denied, a symlink
 * loop), one larger than the size cap (not read at all, so that it cannot
 * grow the process), and one that is empty or holds no objects (a writer
 * that truncates, then writes). Only a file that is gone (deleted, or a
 * dangling symlink) gives up its nodes. */
#include "extender/inventory/source_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/codec/object_json.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/codec/nrt_decode.h"
#include "base/hash.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "topology/bitmask.h"

/* Files at least this large are followed by a malloc_trim. */
#define TRIM_AFTER_BYTES ((uint64_t)1 << 20)
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

struct file_entry {
	char *path;
	const char *name;     /* the last component of path: the key of sf->by_name */
	struct stat sig;
	uint64_t scan;        /* the last scan that saw it (== sf->scan: present) */
	size_t slot;          /* its position in sf->files */
	char **nodes;         /* node names this file provides (last good) */
	size_t nnodes;
	int stat_errno;       /* why stat failed last time (warned once), or 0 */
	bool gone;            /* being removed by the current scan */
};

/* A file whose signature changed in this scan, with its new stat. */
struct pending {
	struct file_entry *f;
	struct stat st;
};

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

struct source_files {
	struct store *store;
	char *dir;
	struct file_entry **files;  /* every known file, in no order */
	size_t nfiles, capfiles;
	struct strmap by_name;      /* file name in dir -> struct file_entry */
	struct strmap owners;       /* node name -> the file providing it */
	uint64_t scan;
	/* Scratch reused from scan to scan (only what changed lands here). */
	struct pending *changed;
	size_t nchanged, capchanged;
	struct file_entry **marks;
	size_t nmarks, capmarks;
	struct file_entry **gone;   /* files the current scan removes */
	size_t ngone, capgone;
	bool scanned;
	pthread_t thread;
	bool running;
	int64_t poll_ms;
	size_t max_file_bytes;
	pthread_mutex_t lock;       /* stop and stats */
	pthread_cond_t wake;        /* stop, when there is no wake_fd */
	bool stop;
	int wake_fd;                /* eventfd written to stop the thread, or -1 */
	struct source_files_stats stats;
	/* Watching: everything below belongs to the thread. */
	bool watch;                 /* allowed (source_files_set_watch) */
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

static bool same_sig(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static bool wanted(const char *name)
{
	size_t len = strlen(name);

	if (name[0] == '.')
		return false; /* editors' swap files and hidden files */
	return (len > 5 && strcmp(name + len - 5, ".yaml") == 0) ||
	       (len > 4 && strcmp(name + len - 4, ".yml") == 0) ||
	       (len > 5 && strcmp(name + len - 5, ".json") == 0);
}

static void free_nodes(struct file_entry *f)
{
	size_t i;

	for (i = 0; i < f->nnodes; i++)
		free(f->nodes[i]);
	free(f->nodes);
	f->nodes = NULL;
	f->nnodes = 0;
}

/* Whether a file other than self, present (not being removed), provides the node.
 * Every node name is listed by at most one file (a file takes a node only
 * when no other present file lists it), so one owner per name says it. */
static bool provided_elsewhere(const struct source_files *sf, const struct file_entry *self,
			       const char *name)
{
	const struct file_entry *owner = strmap_get(&sf->owners, name);

	return owner != NULL && owner != self && !owner->gone;
}

/* Drops f's node names from the owner index (before its list is freed). */
static void unown_nodes(struct source_files *sf, struct file_entry *f)
{
	size_t j;

	for (j = 0; j < f->nnodes; j++)
		if (strmap_get(&sf->owners, f->nodes[j]) == f)
			strmap_remove(&sf->owners, f->nodes[j]);
}

/* Records f as the owner of its node names (after its list is set). */
static void own_nodes(struct source_files *sf, struct file_entry *f)
{
	size_t j;

	for (j = 0; j < f->nnodes; j++)
		if (strmap_get(&sf->owners, f->nodes[j]) == NULL)
			strmap_put(&sf->owners, f->nodes[j], f);
}

/* "0,1,3": the NUMA ids of a node, for a log line. */
static void zone_list(const struct inventory_node *n, char *out, size_t cap)
{
	bitmask_t ids = 0;
	int i;

	for (i = 0; i < n->numa_count; i++)
		ids |= (bitmask_t)1 << n->numa_ids[i];
	bitmask_format(ids, out, cap);
}

/* A node whose NUMA zones are not the ones it had (a BIOS or firmware change,
 * a different machine under the same name, an agent bug): pods judged on
 * the old layout may not fit the new one, so say so. */
static void warn_zone_set_change(const struct store_set *before, const struct inventory_node *node,
				 const char *path)
{
	const struct store_node *old = store_get(before, node->name);
	char was[128], now[128];

	if (old == NULL || old->inventory == NULL)
		return;
	if (old->inventory->numa_count == node->numa_count &&
	    memcmp(old->inventory->numa_ids, node->numa_ids,
		   (size_t)node->numa_count * sizeof node->numa_ids[0]) == 0)
		return;
	zone_list(old->inventory, was, sizeof was);
	zone_list(node, now, sizeof now);
	log_warn("node's set of NUMA zones changed", "file=%s node=%s before=%s after=%s", log_q(path),
		 log_q(node->name), was, now);
	metrics_inventory_zone_set_change();
}

/* Reads one file; on success replaces its node list and queues the changes.
 * Returns false (logged) when the file or one of its objects is bad: the
 * file's good objects are still applied, its bad ones keep their last good
 * inventory. */
static bool load_file(struct source_files *sf, struct file_entry *f, struct store_batch *b)
{
	struct nrt_object *objs = NULL;
	size_t nobjs = 0, i, j, len = 0;
	char *buf = NULL, **names;
	size_t nnames = 0;
	struct errmsg msg;
	char version[64];
	bool ok = true;
	struct store_set *before;
	uint64_t hash;
	enum err rc;

	rc = file_read_all(f->path, sf->max_file_bytes, &buf, &len, &msg);
	if (rc != ERR_OK) {
		/* Unreadable, or grown past the cap since it was stat'ed. */
		log_warn("cannot read inventory file; its nodes keep their last good inventory",
			 "file=%s error=%s", log_q(f->path), log_q(msg.text));
		metrics_inventory_error();
		return false;
	}
	rc = len == 0 ? ERR_OK : nrt_decode_buffer(buf, len, f->path, &objs, &nobjs, &msg);
	if (rc != ERR_OK || nobjs == 0) {
		if (rc == ERR_OK)
			log_warn("inventory file is empty or holds no objects (being written?); "
				 "its nodes keep their last good inventory",
				 "file=%s bytes=%zu", log_q(f->path), len);
		else
			log_error("cannot load inventory file; its nodes keep their last good inventory",
				  "file=%s error=%s", log_q(f->path), log_q(msg.text));
		metrics_inventory_error();
		free(buf);
		return false;
	}
	/* The content version of objects without a resourceVersion: the
	 * same bytes give the same version in every process. */
	hash = hash_bytes(buf, len);
	free(buf);
	before = store_acquire(sf->store);
	names = xcalloc(nobjs + f->nnodes + 1, sizeof *names);
	for (i = 0; i < nobjs; i++) {
		struct inventory_node *node = NULL;

		if (inventory_node_new(&objs[i], &node, &msg) != ERR_OK) {
			log_error("invalid inventory; the node keeps its last good inventory",
				  "file=%s node=%s error=%s", log_q(f->path), log_q(objs[i].name),
				  log_q(msg.text));
			metrics_inventory_error();
			ok = false;
			/* Keep providing the node (its last good snapshot stays). */
			for (j = 0; j < f->nnodes; j++)
				if (strcmp(f->nodes[j], objs[i].name) == 0)
					names[nnames++] = xstrdup(objs[i].name);
			continue;
		}
		if (provided_elsewhere(sf, f, node->name)) {
			log_warn("node defined in more than one file; keeping the first",
				 "file=%s node=%s", log_q(f->path), log_q(node->name));
			inventory_node_free(node);
			continue;
		}
		warn_zone_set_change(before, node, f->path);
		if (objs[i].resource_version && objs[i].resource_version[0])
			snprintf(version, sizeof version, "%s", objs[i].resource_version);
		else
			snprintf(version, sizeof version, "xxh3:%016llx#%zu", (unsigned long long)hash, i);
		names[nnames++] = xstrdup(node->name);
		store_batch_put_raw(b, node, f->path, version, nrt_object_to_json(&objs[i]));
	}
	/* Nodes this file no longer holds go away. */
	for (j = 0; j < f->nnodes; j++) {
		bool kept = false;

		for (i = 0; i < nnames; i++)
			if (strcmp(names[i], f->nodes[j]) == 0)
				kept = true;
		if (!kept && !provided_elsewhere(sf, f, f->nodes[j]))
			store_batch_delete(b, f->nodes[j]);
	}
	unown_nodes(sf, f);
	free_nodes(f);
	f->nodes = names;
	f->nnodes = nnames;
	own_nodes(sf, f);
	nrt_objects_free(objs, nobjs);
	store_release(before);
	return ok;
}

static int pending_by_path(const void *a, const void *b)
{
	return strcmp(((const struct pending *)a)->f->path, ((const struct pending *)b)->f->path);
}

static int entry_by_path(const void *a, const void *b)
{
	return strcmp((*(struct file_entry *const *)a)->path, (*(struct file_entry *const *)b)->path);
}

static void mark(struct source_files *sf, struct file_entry *f)
{
	if (sf->nmarks == sf->capmarks) {
		sf->capmarks = sf->capmarks ? sf->capmarks * 2 : 16;
		sf->marks = xreallocarray(sf->marks, sf->capmarks, sizeof *sf->marks);
	}
	sf->marks[sf->nmarks++] = f;
}

static struct file_entry *add_entry(struct source_files *sf, const char *name)
{
	size_t dirlen = strlen(sf->dir);
	struct file_entry *f = xcalloc(1, sizeof *f);

	f->path = xmalloc(dirlen + strlen(name) + 2);
	sprintf(f->path, "%s/%s", sf->dir, name);
	f->name = f->path + dirlen + 1;
	f->sig.st_ino = (ino_t)-1; /* never matches: load it */
	if (sf->nfiles == sf->capfiles) {
		sf->capfiles = sf->capfiles ? sf->capfiles * 2 : 64;
		sf->files = xreallocarray(sf->files, sf->capfiles, sizeof *sf->files);
	}
	f->slot = sf->nfiles;
	sf->files[sf->nfiles++] = f;
	strmap_put(&sf->by_name, f->name, f);
	return f;
}

static void free_entry(struct file_entry *f)
{
	free_nodes(f);
	free(f->path);
	free(f);
}

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

static void watch_path(struct source_files *sf, int dfd, const char *name);
static void watch_file(struct source_files *sf, int dfd, const char *name, struct stat *st);

/* Pass 1, per name: is it a file, is it known, did it change? An unchanged
 * known file costs a lookup and a stat, nothing else. A path that is there
 * but cannot be stat'ed (a symlink loop, a directory it cannot search)
 * still exists: it keeps its nodes. Returns false when the name is not a
 * file (gone, a dangling symlink, a directory). */
static bool see(struct source_files *sf, int dfd, const char *name)
{
	struct file_entry *f;
	struct stat st;
	int stat_errno = 0;

	if (fstatat(dfd, name, &st, 0) != 0) {
		stat_errno = errno;
		if (stat_errno == ENOENT || stat_errno == ENOTDIR)
			return false; /* gone, or a dangling symlink */
	} else if (!S_ISREG(st.st_mode)) {
		return false;
	} else if (sf->ifd >= 0 && st.st_nlink > 1) {
		watch_file(sf, dfd, name, &st);
	}
	f = strmap_get(&sf->by_name, name);
	if (f == NULL)
		f = add_entry(sf, name);
	else if (f->scan == sf->scan)
		return true; /* listed twice by one readdir */
	f->scan = sf->scan;
	if (stat_errno != f->stat_errno)
		mark(sf, f); /* its warning is logged in name order */
	f->stat_errno = stat_errno;
	if (stat_errno != 0 || same_sig(&f->sig, &st))
		return true;
	if (sf->nchanged == sf->capchanged) {
		sf->capchanged = sf->capchanged ? sf->capchanged * 2 : 16;
		sf->changed = xreallocarray(sf->changed, sf->capchanged, sizeof *sf->changed);
	}
	sf->changed[sf->nchanged].f = f;
	sf->changed[sf->nchanged].st = st;
	sf->nchanged++;
	return true;
}

static void add_gone(struct source_files *sf, struct file_entry *f)
{
	if (sf->ngone == sf->capgone) {
		sf->capgone = sf->capgone ? sf->capgone * 2 : 16;
		sf->gone = xreallocarray(sf->gone, sf->capgone, sizeof *sf->gone);
	}
	sf->gone[sf->ngone++] = f;
}

/* Passes 2 and 3 after pass 1 (see) of a full or named scan: the files in
 * sf->gone give up their nodes, then the changed ones are read, in name
 * order; one publish. Returns the number of files that failed. */
static int apply(struct source_files *sf)
{
	struct store_batch *b = store_batch_new();
	bool trim = false;
	int failed = 0;
	size_t k;

	/* Name order, so that "the first file wins" is well defined; only
	 * what changed is sorted. */
	if (sf->nmarks > 1)
		qsort(sf->marks, sf->nmarks, sizeof *sf->marks, entry_by_path);
	for (k = 0; k < sf->nmarks; k++) {
		struct file_entry *f = sf->marks[k];

		if (f->stat_errno == 0)
			continue;
		log_warn("cannot read inventory file; its nodes keep their last good inventory",
			 "file=%s nodes=%zu error=%s", log_q(f->path), f->nnodes,
			 log_q(strerror(f->stat_errno)));
		metrics_inventory_error();
	}
	sf->nmarks = 0;
	/* Pass 2: deleted files give up their nodes first. */
	if (sf->ngone > 1)
		qsort(sf->gone, sf->ngone, sizeof *sf->gone, entry_by_path);
	for (k = 0; k < sf->ngone; k++)
		sf->gone[k]->gone = true;
	for (k = 0; k < sf->ngone; k++) {
		struct file_entry *f = sf->gone[k];
		size_t j;

		for (j = 0; j < f->nnodes; j++)
			if (!provided_elsewhere(sf, f, f->nodes[j]))
				store_batch_delete(b, f->nodes[j]);
		log_info("inventory file removed", "file=%s nodes=%zu", log_q(f->path), f->nnodes);
		unown_nodes(sf, f);
		strmap_remove(&sf->by_name, f->name);
		sf->files[f->slot] = sf->files[--sf->nfiles];
		sf->files[f->slot]->slot = f->slot;
		free_entry(f);
	}
	sf->ngone = 0;
	/* Pass 3: changed files, in name order. */
	if (sf->nchanged > 1)
		qsort(sf->changed, sf->nchanged, sizeof *sf->changed, pending_by_path);
	for (k = 0; k < sf->nchanged; k++) {
		struct file_entry *f = sf->changed[k].f;
		const struct stat *st = &sf->changed[k].st;

		f->sig = *st;
		/* Not read at all: a huge file would grow the process
		 * for good (the allocator keeps what parsing took). */
		if ((uint64_t)st->st_size > sf->max_file_bytes) {
			log_warn("inventory file larger than inventory.maxFileBytes, not read; "
				 "its nodes keep their last good inventory",
				 "file=%s bytes=%lld maxFileBytes=%zu", log_q(f->path),
				 (long long)st->st_size, sf->max_file_bytes);
			metrics_inventory_error();
			failed++;
			continue;
		}
		if ((uint64_t)st->st_size >= TRIM_AFTER_BYTES)
			trim = true;
		if (!load_file(sf, f, b))
			failed++;
	}
	sf->nchanged = 0;
	if (store_batch_size(b) > 0) {
		uint64_t generation = store_publish(sf->store, b);
		struct store_set *set = store_acquire(sf->store);

		metrics_inventory(store_size(set), generation);
		metrics_inventory_reload();
		log_info("inventory updated", "dir=%s nodes=%zu generation=%llu", log_q(sf->dir),
			 store_size(set), (unsigned long long)generation);
		store_release(set);
	} else {
		store_batch_free(b);
	}
	/* Parsing a large file leaves the heap grown; give it back. */
	if (trim)
		malloc_trim(0);
	store_touch(sf->store);
	if (!sf->scanned) {
		sf->scanned = true;
		store_set_ready(sf->store, true);
	}
	return failed;
}

/* While watching: is dfd still the directory the main watch is on? If not
 * (replaced between events), watch again. */
static void check_dir(struct source_files *sf, int dfd)
{
	struct stat st;

	if (sf->ifd < 0)
		return;
	if (fstat(dfd, &st) != 0 || st.st_dev != sf->dir_dev || st.st_ino != sf->dir_ino)
		sf->rearm_pending = true;
}

static void watch_full_begin(struct source_files *sf);
static void watch_full_end(struct source_files *sf);

int source_files_scan(struct source_files *sf)
{
	struct dirent *e;
	size_t i;
	DIR *d;

	d = opendir(sf->dir);
	if (d == NULL) {
		log_error("cannot read the inventory directory; keeping the last inventory",
			  "dir=%s error=%s", log_q(sf->dir), log_q(strerror(errno)));
		metrics_inventory_error();
		if (sf->ifd >= 0)
			sf->rearm_pending = true;
		return 1;
	}
	watch_full_begin(sf);
	check_dir(sf, dirfd(d));
	sf->scan++;
	sf->nchanged = 0;
	sf->nmarks = 0;
	sf->ngone = 0;
	/* Pass 1: which files exist (so ownership checks see all of them).
	 * A symlink's path is watched before it is followed. */
	while ((e = readdir(d)) != NULL) {
		if (!wanted(e->d_name))
			continue;
		if (sf->ifd >= 0 && (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN))
			watch_path(sf, dirfd(d), e->d_name);
		see(sf, dirfd(d), e->d_name);
	}
	closedir(d);
	for (i = 0; i < sf->nfiles; i++)
		if (sf->files[i]->scan != sf->scan)
			add_gone(sf, sf->files[i]);
	watch_full_end(sf);
	return apply(sf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scans only the names events reported (sorted, deduplicated here): pass 1
 * for each, and a known one that is no longer a file is gone. */
static int scan_names(struct source_files *sf, struct namelist *l)
{
	size_t i;
	int dfd;

	if (l->n == 0)
		return 0;
	dfd = open(sf->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		/* Gone or replaced: the full scan after watching again says so. */
		sf->rearm_pending = true;
		return 0;
	}
	check_dir(sf, dfd);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
	sf->scan++;
	sf->nchanged = 0;
	sf->nmarks = 0;
	sf->ngone = 0;
	for (i = 0; i < l->n; i++) {
		struct file_entry *f;

		if (i > 0 && strcmp(l->v[i], l->v[i - 1]) == 0)
			continue;
		if (sf->ifd >= 0)
			watch_path(sf, dfd, l->v[i]);
		if (see(sf, dfd, l->v[i]))
			continue;
		f = strmap_get(&sf->by_name, l->v[i]);
		if (f != NULL)
			add_gone(sf, f);
	}
	close(dfd);
	return apply(sf);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
static size_t watch_index(const struct source_files *sf, int wd)
{
	size_t lo = 0, hi = sf->nwatches;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sf->watches[mid]->wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct watch *watch_find(const struct source_files *sf, int wd)
{
	size_t i = watch_index(sf, wd);

	return i < sf->nwatches && sf->watches[i]->wd == wd ? sf->watches[i] : NULL;
}

static struct watch *watch_insert(struct source_files *sf, int wd)
{
	size_t i = watch_index(sf, wd);
	struct watch *w = xcalloc(1, sizeof *w);

	w->wd = wd;
	if (sf->nwatches == sf->capwatches) {
		sf->capwatches = sf->capwatches ? sf->capwatches * 2 : 8;
		sf->watches = xreallocarray(sf->watches, sf->capwatches, sizeof *sf->watches);
	}
	memmove(&sf->watches[i + 1], &sf->watches[i], (sf->nwatches - i) * sizeof *sf->watches);
	sf->watches[i] = w;
	sf->nwatches++;
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
static void watch_remove(struct source_files *sf, struct watch *w)
{
	size_t i = watch_index(sf, w->wd);

	memmove(&sf->watches[i], &sf->watches[i + 1], (sf->nwatches - i - 1) * sizeof *sf->watches);
	sf->nwatches--;
	watch_clear_names(w);
	free(w->keys);
	free(w);
}

static void set_stats_watching(struct source_files *sf)
{
	pthread_mutex_lock(&sf->lock);
	sf->stats.watching = sf->ifd >= 0 && !sf->just_armed;
	sf->stats.watches = sf->nwatches;
	pthread_mutex_unlock(&sf->lock);
}

/* Drops every watch and what events asked for: polling from now on. */
static void disarm(struct source_files *sf)
{
	if (sf->ifd >= 0)
		close(sf->ifd);
	sf->ifd = -1;
	while (sf->nwatches > 0)
		watch_remove(sf, sf->watches[sf->nwatches - 1]);
	free(sf->realdir);
	sf->realdir = NULL;
	free(sf->unwatchable);
	sf->unwatchable = NULL;
	namelist_clear(&sf->names);
	namelist_clear(&sf->settle);
	sf->full_pending = sf->full_settle = sf->rearm_pending = false;
	sf->noticed = 0;
	sf->just_armed = false;
	set_stats_watching(sf);
}

/* Stops watching, warns once per reason, and schedules the next attempt:
 * every poll when the directory itself is the cause (missing, replaced),
 * else every full-rescan period. */
static void go_polling(struct source_files *sf, bool dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void go_polling(struct source_files *sf, bool dir, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	disarm(sf);
	sf->retry_at = mono_ms() + (dir ? 0 : sf->full_ms);
	if (sf->polling_why != NULL && strcmp(sf->polling_why, why) == 0)
		return;
	log_warn("cannot watch the inventory directory with inotify; rescanning it every "
		 "inventory.pollInterval instead",
		 "dir=%s reason=%s pollInterval_ms=%lld", log_q(sf->dir), log_q(why),
		 (long long)sf->poll_ms);
	free(sf->polling_why);
	sf->polling_why = xstrdup(why);
	pthread_mutex_lock(&sf->lock);
	sf->stats.fallbacks++;
	pthread_mutex_unlock(&sf->lock);
}

/* Notes, during a scan, that something cannot be watched: the thread goes
 * back to polling after the scan (the first reason is kept). */
static void set_unwatchable(struct source_files *sf, bool dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_unwatchable(struct source_files *sf, bool dir, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	if (sf->unwatchable != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	sf->unwatchable = xstrdup(why);
	sf->unwatchable_dir = dir;
}

static const char *watch_error(int err)
{
	return err == ENOSPC ? "inotify watch limit reached (fs.inotify.max_user_watches)"
			     : strerror(err);
}

/* Watches the directory at path (or finds its watch); NULL when it cannot
 * (then the scan ends in polling, or, for a directory that just vanished,
 * in another full scan). */
static struct watch *watch_dir(struct source_files *sf, const char *path)
{
	struct watch *w;
	int wd = inotify_add_watch(sf->ifd, path, WATCH_MASK);

	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			sf->full_pending = true; /* changed under us: look again */
		else
			set_unwatchable(sf, false, "cannot watch %s: %s", path, watch_error(errno));
		return NULL;
	}
	w = watch_find(sf, wd);
	if (w == NULL) {
		const char *fs = remote_fs(path);

		w = watch_insert(sf, wd);
		if (fs != NULL)
			set_unwatchable(sf, false,
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
static void note(struct source_files *sf, const char *dir, const char *name, enum interest kind)
{
	struct watch *w = watch_dir(sf, dir[0] ? dir : "/");

	if (w != NULL)
		watch_add_name(w, name, kind);
}

/* A file with other hard links can be written through a path in another
 * directory, which raises no event in ours: the file itself is watched,
 * and its events name it. The watch comes before the stat the scan keeps. */
static void watch_file(struct source_files *sf, int dfd, const char *name, struct stat *st)
{
	char path[PATH_MAX];
	struct watch *w;
	struct stat again;
	int wd;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", sf->realdir, name) >= sizeof path)
		return;
	wd = inotify_add_watch(sf->ifd, path, FILE_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			sf->full_pending = true; /* changed under us: look again */
		else
			set_unwatchable(sf, false, "cannot watch %s: %s", path, watch_error(errno));
		return;
	}
	w = watch_find(sf, wd);
	if (w == NULL) {
		w = watch_insert(sf, wd);
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
static void resolve(struct source_files *sf, const char *base, const char *path, bool skip_first,
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
			note(sf, res, comp, kind);
			return;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;

			if (!(skip_first && first))
				note(sf, res, comp, kind);
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
				note(sf, res, comp, kind);
			return;
		}
		if (!S_ISDIR(st.st_mode) || strlen(cand) >= sizeof res)
			return;
		memcpy(res, cand, strlen(cand) + 1);
	}
}

/* A name in the directory that is a symlink: watch where it leads. */
static void watch_path(struct source_files *sf, int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		resolve(sf, sf->realdir, name, true, true, INTEREST_FULL);
}

/* Before a full scan: every remembered name is found again by the scan,
 * starting with the symlinks on the directory's own path. */
static void watch_full_begin(struct source_files *sf)
{
	char cwd[PATH_MAX];
	size_t i;

	if (sf->ifd < 0)
		return;
	for (i = 0; i < sf->nwatches; i++) {
		sf->watches[i]->used = sf->watches[i]->main;
		watch_clear_names(sf->watches[i]);
	}
	if (sf->dir[0] == '/')
		resolve(sf, "", sf->dir, false, false, INTEREST_REARM);
	else if (getcwd(cwd, sizeof cwd) != NULL)
		resolve(sf, cwd, sf->dir, false, false, INTEREST_REARM);
}

/* After a full scan: watches nothing needs any more are removed. */
static void watch_full_end(struct source_files *sf)
{
	size_t i = 0;

	if (sf->ifd < 0)
		return;
	while (i < sf->nwatches) {
		struct watch *w = sf->watches[i];

		if (w->used || w->main) {
			i++;
			continue;
		}
		inotify_rm_watch(sf->ifd, w->wd);
		watch_remove(sf, w);
	}
	set_stats_watching(sf);
}

/* (Re)starts watching: a new inotify instance with a watch on what the
 * directory's path names now. The caller scans everything next. */
static bool arm(struct source_files *sf)
{
	struct stat before, after;
	struct watch *w;
	const char *fs;
	char *real;
	int tries, wd;

	disarm(sf);
	sf->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (sf->ifd < 0) {
		go_polling(sf, false, "inotify_init1: %s", strerror(errno));
		return false;
	}
	for (tries = 0;; tries++) {
		if (stat(sf->dir, &before) != 0) {
			go_polling(sf, true, "%s", strerror(errno));
			return false;
		}
		wd = inotify_add_watch(sf->ifd, sf->dir, WATCH_MASK);
		if (wd < 0) {
			int err = errno;

			go_polling(sf, err == ENOENT || err == ENOTDIR, "%s", watch_error(err));
			return false;
		}
		/* The same directory before and after: the watch is on it. */
		if (stat(sf->dir, &after) == 0 && after.st_dev == before.st_dev &&
		    after.st_ino == before.st_ino)
			break;
		if (tries == 3) {
			go_polling(sf, true, "the directory keeps being replaced");
			return false;
		}
		inotify_rm_watch(sf->ifd, wd);
	}
	fs = remote_fs(sf->dir);
	if (fs != NULL) {
		go_polling(sf, false, "the directory is on %s, where changes made elsewhere raise no event",
			   fs);
		return false;
	}
	real = realpath(sf->dir, NULL);
	if (real == NULL) {
		go_polling(sf, true, "%s", strerror(errno));
		return false;
	}
	sf->realdir = real;
	sf->dir_dev = before.st_dev;
	sf->dir_ino = before.st_ino;
	w = watch_insert(sf, wd);
	w->main = true;
	w->used = true;
	sf->just_armed = true;
	set_stats_watching(sf);
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

static void settle_start(struct source_files *sf, int64_t now)
{
	if (sf->settle.n == 0 && !sf->full_settle)
		sf->settle_at = now + sf->poll_ms;
}

static void on_event(struct source_files *sf, const struct inotify_event *ev, const char *name,
		     int64_t now)
{
	struct watch *w;
	uintptr_t kind;

	if (ev->mask & IN_Q_OVERFLOW) {
		sf->full_pending = true;
		pthread_mutex_lock(&sf->lock);
		sf->stats.overflows++;
		pthread_mutex_unlock(&sf->lock);
		log_warn("inotify event queue overflowed; rescanning the inventory directory", "dir=%s",
			 log_q(sf->dir));
		return;
	}
	w = watch_find(sf, ev->wd);
	if (w == NULL)
		return; /* removed since */
	if (w->file) {
		/* A hard-linked file, written somewhere: scan its names. */
		size_t i;

		if (ev->mask & IN_IGNORED) {
			watch_remove(sf, w);
			return;
		}
		for (i = 0; i < w->nkeys && !sf->full_pending; i++) {
			if (sf->names.n + sf->settle.n >= NAMED_MAX) {
				sf->full_pending = true;
			} else if (ev->mask & IN_MODIFY) {
				settle_start(sf, now);
				namelist_add(&sf->settle, w->keys[i]);
			} else {
				namelist_add(&sf->names, w->keys[i]);
			}
		}
		return;
	}
	if (ev->mask & (IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF | IN_MOVE_SELF)) {
		if (w->main) {
			sf->rearm_pending = true;
		} else {
			sf->full_pending = true;
			if (ev->mask & IN_IGNORED)
				watch_remove(sf, w);
		}
		return;
	}
	if (name == NULL || name[0] == '\0') {
		sf->full_pending = true; /* the directory's own attributes */
		return;
	}
	kind = (uintptr_t)strmap_get(&w->names, name);
	if (kind == INTEREST_REARM) {
		sf->rearm_pending = true;
		return;
	}
	if (kind == INTEREST_FULL) {
		if ((ev->mask & IN_MODIFY) && !sf->full_pending) {
			settle_start(sf, now);
			sf->full_settle = true;
		} else {
			sf->full_pending = true;
		}
		return;
	}
	if (!w->main || !wanted(name) || sf->full_pending)
		return;
	if (sf->names.n + sf->settle.n >= NAMED_MAX) {
		sf->full_pending = true; /* cheaper to look at everything */
		return;
	}
	if (in_place(ev, sf->dir, name)) {
		settle_start(sf, now);
		namelist_add(&sf->settle, name);
	} else {
		namelist_add(&sf->names, name);
	}
}

/* Reads every queued event. */
static void drain(struct source_files *sf, int64_t now)
{
	char buf[64 * 1024];

	for (;;) {
		ssize_t n = read(sf->ifd, buf, sizeof buf), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			go_polling(sf, false, "reading inotify events: %s",
				   n < 0 ? strerror(errno) : "end of file");
			return;
		}
		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			struct inotify_event ev;

			memcpy(&ev, buf + off, sizeof ev);
			on_event(sf, &ev, ev.len ? buf + off + sizeof ev : NULL, now);
			off += (ssize_t)(sizeof ev + ev.len);
		}
	}
	if (sf->full_pending)
		namelist_clear(&sf->names);
}

/* ---- The thread ---- */

/* After any scan by the thread: spacing for the next one caused by events,
 * and back to polling if the scan found something it cannot watch. */
static void scanned(struct source_files *sf, int64_t t0)
{
	int64_t end = mono_ms(), gap = 10 * (end - t0);

	sf->last_end = end;
	if (gap < sf->delay_ms)
		gap = sf->delay_ms;
	sf->gap = gap < sf->poll_ms ? gap : sf->poll_ms;
	if (sf->ifd >= 0 && sf->unwatchable != NULL) {
		char *why = sf->unwatchable;
		bool dir = sf->unwatchable_dir;

		sf->unwatchable = NULL;
		go_polling(sf, dir, "%s", why);
		free(why);
	}
	if (sf->ifd < 0) {
		sf->next_poll = end + sf->poll_ms;
	} else if (sf->just_armed) {
		/* Everything the scan met is watched: say so (once). */
		sf->just_armed = false;
		log_info(sf->polling_why ? "watching the inventory directory again"
					 : "watching the inventory directory",
			 "dir=%s watches=%zu fullRescan_ms=%lld", log_q(sf->dir), sf->nwatches,
			 (long long)sf->full_ms);
		free(sf->polling_why);
		sf->polling_why = NULL;
		set_stats_watching(sf);
	}
}

static void full_scan(struct source_files *sf)
{
	int64_t t0 = mono_ms();

	sf->full_pending = sf->full_settle = sf->rearm_pending = false;
	namelist_clear(&sf->names);
	namelist_clear(&sf->settle);
	source_files_scan(sf);
	pthread_mutex_lock(&sf->lock);
	sf->stats.full_scans++;
	pthread_mutex_unlock(&sf->lock);
	sf->next_full = mono_ms() + sf->full_ms;
	scanned(sf, t0);
}

static void named_scan(struct source_files *sf, int64_t now)
{
	int64_t t0 = mono_ms();
	size_t i;

	if (sf->settle.n > 0 && now >= sf->settle_at) {
		for (i = 0; i < sf->settle.n; i++)
			namelist_add(&sf->names, sf->settle.v[i]);
		namelist_clear(&sf->settle);
	}
	scan_names(sf, &sf->names);
	namelist_clear(&sf->names);
	pthread_mutex_lock(&sf->lock);
	sf->stats.named_scans++;
	pthread_mutex_unlock(&sf->lock);
	scanned(sf, t0);
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
static int64_t next_due(const struct source_files *sf)
{
	int64_t at;

	if (sf->ifd < 0)
		return sf->next_poll;
	if (sf->rearm_pending)
		return 0;
	at = sf->next_full;
	if (sf->full_pending || sf->names.n > 0)
		at = min64(at, sf->last_end + sf->gap);
	if (sf->settle.n > 0 || sf->full_settle)
		at = min64(at, sf->settle_at);
	if (sf->noticed)
		at = min64(at, max64(sf->noticed + sf->delay_ms, sf->last_end + sf->gap));
	return at;
}

/* Sleeps until `until` (CLOCK_MONOTONIC ms), a stop or, with_events, an
 * inotify event; false when stopping. */
static bool wait_for(struct source_files *sf, int64_t until, bool with_events, bool *events)
{
	int64_t ms = until - mono_ms();
	bool stop;

	*events = false;
	if (ms < 0)
		ms = 0;
	if (sf->wake_fd >= 0) {
		struct pollfd fds[2] = { { .fd = sf->wake_fd, .events = POLLIN },
					 { .fd = sf->ifd, .events = POLLIN } };

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
		pthread_mutex_lock(&sf->lock);
		if (!sf->stop)
			pthread_cond_timedwait(&sf->wake, &sf->lock, &at);
		pthread_mutex_unlock(&sf->lock);
	}
	pthread_mutex_lock(&sf->lock);
	stop = sf->stop;
	pthread_mutex_unlock(&sf->lock);
	return !stop;
}

static void *watch_thread(void *arg)
{
	struct source_files *sf = arg;
	bool events;

	sf->last_end = mono_ms();
	sf->next_poll = sf->last_end + sf->poll_ms;
	/* The watch first, then a scan: nothing changed since the caller's
	 * scan is missed. */
	if (sf->watch && arm(sf))
		full_scan(sf);
	for (;;) {
		int64_t now;

		if (!wait_for(sf, next_due(sf), sf->ifd >= 0 && !sf->noticed, &events))
			break;
		now = mono_ms();
		if (sf->ifd < 0) {
			if (now < sf->next_poll)
				continue;
			if (sf->watch && now >= sf->retry_at && arm(sf)) {
				full_scan(sf);
				continue;
			}
			source_files_scan(sf);
			pthread_mutex_lock(&sf->lock);
			sf->stats.full_scans++;
			pthread_mutex_unlock(&sf->lock);
			sf->next_poll = mono_ms() + sf->poll_ms;
			continue;
		}
		if (events && !sf->noticed) {
			sf->noticed = now; /* let them gather for delay_ms */
			continue;
		}
		if (sf->noticed && now >= max64(sf->noticed + sf->delay_ms, sf->last_end + sf->gap)) {
			sf->noticed = 0;
			drain(sf, now);
			if (sf->ifd < 0)
				continue;
		}
		if (sf->rearm_pending) {
			if (arm(sf))
				full_scan(sf);
			else
				sf->next_poll = now; /* poll at once: the scan says what is wrong */
		} else if ((sf->full_pending && now >= sf->last_end + sf->gap) ||
			   (sf->full_settle && now >= sf->settle_at) || now >= sf->next_full) {
			full_scan(sf);
		} else if ((sf->names.n > 0 && now >= sf->last_end + sf->gap) ||
			   (sf->settle.n > 0 && now >= sf->settle_at)) {
			named_scan(sf, now);
		}
	}
	disarm(sf);
	return NULL;
}

struct source_files *source_files_new(struct store *store, const char *dir)
{
	struct source_files *sf = xcalloc(1, sizeof *sf);
	pthread_condattr_t attr;

	sf->store = store;
	sf->max_file_bytes = SOURCE_FILES_MAX_FILE_BYTES;
	sf->dir = xstrdup(dir);
	sf->ifd = -1;
	sf->wake_fd = -1;
	sf->watch = true;
	pthread_mutex_init(&sf->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&sf->wake, &attr);
	pthread_condattr_destroy(&attr);
	return sf;
}

void source_files_set_max_file_bytes(struct source_files *sf, size_t max_bytes)
{
	sf->max_file_bytes = max_bytes > 0 ? max_bytes : SOURCE_FILES_MAX_FILE_BYTES;
}

void source_files_set_full_rescan_ms(struct source_files *sf, int64_t ms)
{
	sf->full_ms = ms > 0 ? ms : 0;
}

void source_files_set_event_delay_ms(struct source_files *sf, int64_t ms)
{
	sf->delay_ms = ms > 0 ? ms : 0;
}

void source_files_set_watch(struct source_files *sf, bool watch)
{
	sf->watch = watch;
}

void source_files_start(struct source_files *sf, int64_t poll_ms)
{
	sf->poll_ms = poll_ms > 0 ? poll_ms : 500;
	if (sf->full_ms <= 0)
		sf->full_ms = max64(SOURCE_FILES_FULL_RESCAN_MS, sf->poll_ms);
	if (sf->delay_ms <= 0)
		sf->delay_ms = SOURCE_FILES_EVENT_DELAY_MS;
	sf->stop = false;
	if (sf->watch) {
		sf->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (sf->wake_fd < 0) {
			go_polling(sf, false, "eventfd: %s", strerror(errno));
			sf->watch = false;
		}
	}
	if (pthread_create(&sf->thread, NULL, watch_thread, sf) == 0)
		sf->running = true;
	else
		log_error("cannot start the inventory polling thread", NULL);
}

void source_files_get_stats(struct source_files *sf, struct source_files_stats *out)
{
	pthread_mutex_lock(&sf->lock);
	*out = sf->stats;
	pthread_mutex_unlock(&sf->lock);
}

void source_files_free(struct source_files *sf)
{
	size_t i;

	if (sf == NULL)
		return;
	if (sf->running) {
		pthread_mutex_lock(&sf->lock);
		sf->stop = true;
		pthread_cond_signal(&sf->wake);
		if (sf->wake_fd >= 0) {
			uint64_t one = 1;

			if (write(sf->wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
				log_error("cannot wake the inventory thread", NULL);
		}
		pthread_mutex_unlock(&sf->lock);
		pthread_join(sf->thread, NULL);
	}
	disarm(sf);
	if (sf->wake_fd >= 0)
		close(sf->wake_fd);
	for (i = 0; i < sf->nfiles; i++)
		free_entry(sf->files[i]);
	free(sf->files);
	strmap_clear(&sf->by_name);
	strmap_clear(&sf->owners);
	free(sf->changed);
	free(sf->marks);
	free(sf->gone);
	free(sf->watches);
	namelist_free(&sf->names);
	namelist_free(&sf->settle);
	free(sf->polling_why);
	free(sf->dir);
	pthread_mutex_destroy(&sf->lock);
	pthread_cond_destroy(&sf->wake);
	free(sf);
}
