/* SPDX-License-Identifier: Apache-2.0 */
/* NRT files in a directory: the directory watcher (dir_watch.h) says which
 * names to look at; here a stat signature per file (inode, size, mtime,
 * ctime in nanoseconds) decides what to re-read, and decoding and snapshot
 * building happen off the request path.
 *
 * A rescan is O(files): one lookup in a hash of known file names per entry
 * the watcher finds, and nothing more for a file whose signature did not
 * change. Only the files that changed, appeared, went away or could not be
 * stat'ed are sorted (by name, so that "the first file wins" and the log
 * order are those of a full sort). Which file provides a node is a second
 * hash (node name to file), so ownership checks do not walk the other
 * files either.
 *
 * A file that cannot be used keeps its nodes' last good inventory, with one
 * log line per change of the file: one that does not decode (error), and
 * with a warning one that cannot be read (permission denied, a symlink
 * loop), one larger than the size cap (not read at all, so that it cannot
 * grow the process), and one that is empty or holds no objects (a writer
 * that truncates, then writes). Only a file that is gone (deleted, or a
 * dangling symlink) gives up its nodes. */
#include "extender/inventory/source_files.h"

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/codec/object_json.h"
#include "extender/inventory/dir_watch.h"
#include "extender/log.h"
#include "extender/metrics.h"
#include "extender/codec/nrt_decode.h"
#include "base/hash.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "topology/bitmask.h"

/* Files at least this large are followed by a malloc_trim. */
#define TRIM_AFTER_BYTES ((uint64_t)1 << 20)

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

struct source_files {
	struct store *store;
	char *dir;
	struct dir_watch *watcher;
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
	size_t max_file_bytes;
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

/* The watcher's scans, called back on the scanning thread. */

static void scan_begin(void *arg)
{
	struct source_files *sf = arg;

	sf->scan++;
	sf->nchanged = 0;
	sf->nmarks = 0;
	sf->ngone = 0;
}

/* Pass 1, per name the watcher found: is it known, did it change? An
 * unchanged known file costs a lookup, nothing else. A path that is there
 * but cannot be stat'ed (stat_errno) still exists: it keeps its nodes. */
static void found(void *arg, const char *name, const struct stat *st, int stat_errno)
{
	struct source_files *sf = arg;
	struct file_entry *f = strmap_get(&sf->by_name, name);

	if (f == NULL)
		f = add_entry(sf, name);
	else if (f->scan == sf->scan)
		return; /* listed twice by one readdir */
	f->scan = sf->scan;
	if (stat_errno != f->stat_errno)
		mark(sf, f); /* its warning is logged in name order */
	f->stat_errno = stat_errno;
	if (stat_errno != 0 || same_sig(&f->sig, st))
		return;
	if (sf->nchanged == sf->capchanged) {
		sf->capchanged = sf->capchanged ? sf->capchanged * 2 : 16;
		sf->changed = xreallocarray(sf->changed, sf->capchanged, sizeof *sf->changed);
	}
	sf->changed[sf->nchanged].f = f;
	sf->changed[sf->nchanged].st = *st;
	sf->nchanged++;
}

static void add_gone(struct source_files *sf, struct file_entry *f)
{
	if (sf->ngone == sf->capgone) {
		sf->capgone = sf->capgone ? sf->capgone * 2 : 16;
		sf->gone = xreallocarray(sf->gone, sf->capgone, sizeof *sf->gone);
	}
	sf->gone[sf->ngone++] = f;
}

/* Passes 2 and 3 after pass 1 (found) of a full or named scan: the files in
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


/* A named file that is no longer a file: a known one is gone. */
static void missing(void *arg, const char *name)
{
	struct source_files *sf = arg;
	struct file_entry *f = strmap_get(&sf->by_name, name);

	if (f != NULL)
		add_gone(sf, f);
}

/* After a full scan every known file not found is gone. */
static int scan_end(void *arg, bool full)
{
	struct source_files *sf = arg;
	size_t i;

	if (full)
		for (i = 0; i < sf->nfiles; i++)
			if (sf->files[i]->scan != sf->scan)
				add_gone(sf, sf->files[i]);
	return apply(sf);
}

static int unreadable(void *arg, int err)
{
	struct source_files *sf = arg;

	log_error("cannot read the inventory directory; keeping the last inventory",
		  "dir=%s error=%s", log_q(sf->dir), log_q(strerror(err)));
	metrics_inventory_error();
	return 1;
}

int source_files_scan(struct source_files *sf)
{
	return dir_watch_scan(sf->watcher);
}

struct source_files *source_files_new(struct store *store, const char *dir)
{
	struct source_files *sf = xcalloc(1, sizeof *sf);
	struct dir_watch_client client = {
		.arg = sf,
		.wanted = wanted,
		.begin = scan_begin,
		.found = found,
		.missing = missing,
		.end = scan_end,
		.unreadable = unreadable,
		.texts = {
			.polling = "cannot watch the inventory directory with inotify; "
				   "rescanning it every inventory.pollInterval instead",
			.watching = "watching the inventory directory",
			.watching_again = "watching the inventory directory again",
			.overflow = "inotify event queue overflowed; rescanning the inventory directory",
			.no_thread = "cannot start the inventory polling thread",
			.no_wake = "cannot wake the inventory thread",
		},
	};

	sf->store = store;
	sf->max_file_bytes = SOURCE_FILES_MAX_FILE_BYTES;
	sf->dir = xstrdup(dir);
	sf->watcher = dir_watch_new(dir, &client);
	return sf;
}

void source_files_set_max_file_bytes(struct source_files *sf, size_t max_bytes)
{
	sf->max_file_bytes = max_bytes > 0 ? max_bytes : SOURCE_FILES_MAX_FILE_BYTES;
}

void source_files_set_full_rescan_ms(struct source_files *sf, int64_t ms)
{
	dir_watch_set_full_rescan_ms(sf->watcher, ms);
}

void source_files_set_event_delay_ms(struct source_files *sf, int64_t ms)
{
	dir_watch_set_event_delay_ms(sf->watcher, ms);
}

void source_files_set_watch(struct source_files *sf, bool watch)
{
	dir_watch_set_watch(sf->watcher, watch);
}

void source_files_start(struct source_files *sf, int64_t poll_ms)
{
	dir_watch_start(sf->watcher, poll_ms);
}

void source_files_get_stats(struct source_files *sf, struct source_files_stats *out)
{
	dir_watch_get_stats(sf->watcher, out);
}

void source_files_free(struct source_files *sf)
{
	size_t i;

	if (sf == NULL)
		return;
	/* The thread first: it is what calls back into sf. */
	dir_watch_free(sf->watcher);
	for (i = 0; i < sf->nfiles; i++)
		free_entry(sf->files[i]);
	free(sf->files);
	strmap_clear(&sf->by_name);
	strmap_clear(&sf->owners);
	free(sf->changed);
	free(sf->marks);
	free(sf->gone);
	free(sf->dir);
	free(sf);
}
