/* SPDX-License-Identifier: Apache-2.0 */
/* Directory polling: a stat signature per file (inode, size, mtime, ctime in
 * nanoseconds) decides what to re-read; decoding and snapshot building
 * happen here, off the request path.
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
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "extender/codec/doc.h"
#include "extender/codec/encode.h"
#include "extender/log.h"
#include "extender/http/metrics.h"
#include "extender/codec/nrt_decode.h"
#include "extender/xalloc.h"
#include "topology/bitmask.h"

/* Files at least this large are followed by a malloc_trim. */
#define TRIM_AFTER_BYTES ((uint64_t)1 << 20)

struct file_entry {
	char *path;
	struct stat sig;
	bool seen;            /* present in the current scan */
	char **nodes;         /* node names this file provides (last good) */
	size_t nnodes;
	int stat_errno;       /* why stat failed last time (warned once), or 0 */
};

struct source_files {
	struct store *store;
	char *dir;
	struct file_entry *files;
	size_t nfiles;
	bool scanned;
	pthread_t thread;
	bool running;
	int64_t poll_ms;
	size_t max_file_bytes;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
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

/* 64-bit FNV-1a: the content version of objects without a resourceVersion. */
static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3u;
	}
	return h;
}

static bool provided_elsewhere(const struct source_files *sf, const struct file_entry *self,
			       const char *name)
{
	size_t i, j;

	for (i = 0; i < sf->nfiles; i++) {
		if (&sf->files[i] == self || !sf->files[i].seen)
			continue;
		for (j = 0; j < sf->files[i].nnodes; j++)
			if (strcmp(sf->files[i].nodes[j], name) == 0)
				return true;
	}
	return false;
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

	rc = doc_read_file(f->path, sf->max_file_bytes, &buf, &len, &msg);
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
	hash = fnv1a(buf, len);
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
			snprintf(version, sizeof version, "fnv1a:%016llx#%zu", (unsigned long long)hash, i);
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
	free_nodes(f);
	f->nodes = names;
	f->nnodes = nnames;
	nrt_objects_free(objs, nobjs);
	store_release(before);
	return ok;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct file_entry *)a)->path, ((const struct file_entry *)b)->path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int source_files_scan(struct source_files *sf)
{
	struct store_batch *b = store_batch_new();
	struct stat *stats = NULL;
	char **paths = NULL;
	size_t npaths = 0, i, k;
	bool trim = false;
	int failed = 0;
	struct dirent *e;
	DIR *d;

	d = opendir(sf->dir);
	if (d == NULL) {

		log_error("cannot read the inventory directory; keeping the last inventory",
			  "dir=%s error=%s", log_q(sf->dir), log_q(strerror(errno)));
		metrics_inventory_error();
		store_batch_free(b);
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		char *path;

		if (!wanted(e->d_name))
			continue;
		path = xmalloc(strlen(sf->dir) + strlen(e->d_name) + 2);
		sprintf(path, "%s/%s", sf->dir, e->d_name);
		paths = xreallocarray(paths, npaths + 1, sizeof *paths);
		paths[npaths++] = path;
	}
	closedir(d);
	/* Name order, so that "the first file wins" is well defined. */
	if (npaths > 0)
		qsort(paths, npaths, sizeof *paths, by_name);
	stats = xcalloc(npaths + 1, sizeof *stats);
	for (i = 0; i < sf->nfiles; i++)
		sf->files[i].seen = false;
	/* Pass 1: which files exist (so ownership checks see all of them). A
	 * path that is there but cannot be stat'ed (a symlink loop, a
	 * directory it cannot search) still exists: it keeps its nodes. */
	for (k = 0; k < npaths; k++) {
		struct file_entry *f = NULL;
		int stat_errno = 0;

		if (stat(paths[k], &stats[k]) != 0) {
			stat_errno = errno;
			if (stat_errno == ENOENT || stat_errno == ENOTDIR)
				continue; /* gone, or a dangling symlink */
		} else if (!S_ISREG(stats[k].st_mode)) {
			continue;
		}
		for (i = 0; i < sf->nfiles; i++)
			if (strcmp(sf->files[i].path, paths[k]) == 0)
				f = &sf->files[i];
		if (f == NULL) {
			sf->files = xreallocarray(sf->files, sf->nfiles + 1, sizeof *sf->files);
			f = &sf->files[sf->nfiles++];
			memset(f, 0, sizeof *f);
			f->path = xstrdup(paths[k]);
			f->sig.st_ino = (ino_t)-1; /* never matches: load it */
		}
		f->seen = true;
		if (stat_errno != 0 && stat_errno != f->stat_errno) {

			log_warn("cannot read inventory file; its nodes keep their last good inventory",
				 "file=%s nodes=%zu error=%s", log_q(f->path), f->nnodes,
				 log_q(strerror(stat_errno)));
			metrics_inventory_error();
		}
		f->stat_errno = stat_errno;
		if (stat_errno != 0)
			stats[k] = f->sig; /* unchanged: pass 3 leaves it */
	}
	/* Pass 2: deleted files give up their nodes first. */
	for (i = 0; i < sf->nfiles;) {
		struct file_entry *f = &sf->files[i];
		size_t j;

		if (f->seen) {
			i++;
			continue;
		}
		for (j = 0; j < f->nnodes; j++)
			if (!provided_elsewhere(sf, f, f->nodes[j]))
				store_batch_delete(b, f->nodes[j]);
		log_info("inventory file removed", "file=%s nodes=%zu", log_q(f->path), f->nnodes);
		free_nodes(f);
		free(f->path);
		sf->files[i] = sf->files[--sf->nfiles];
	}
	if (sf->nfiles > 0)
		qsort(sf->files, sf->nfiles, sizeof *sf->files, by_path);
	/* Pass 3: changed files, in name order. */
	for (k = 0; k < npaths; k++) {
		for (i = 0; i < sf->nfiles; i++) {
			struct file_entry *f = &sf->files[i];

			if (strcmp(f->path, paths[k]) != 0 || same_sig(&f->sig, &stats[k]))
				continue;
			f->sig = stats[k];
			/* Not read at all: a huge file would grow the process
			 * for good (the allocator keeps what parsing took). */
			if ((uint64_t)stats[k].st_size > sf->max_file_bytes) {
				log_warn("inventory file larger than inventory.maxFileBytes, not read; "
					 "its nodes keep their last good inventory",
					 "file=%s bytes=%lld maxFileBytes=%zu", log_q(f->path),
					 (long long)stats[k].st_size, sf->max_file_bytes);
				metrics_inventory_error();
				failed++;
				continue;
			}
			if ((uint64_t)stats[k].st_size >= TRIM_AFTER_BYTES)
				trim = true;
			if (!load_file(sf, f, b))
				failed++;
		}
	}
	for (k = 0; k < npaths; k++)
		free(paths[k]);
	free(paths);
	free(stats);
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

struct source_files *source_files_new(struct store *store, const char *dir)
{
	struct source_files *sf = xcalloc(1, sizeof *sf);

	sf->store = store;
	sf->max_file_bytes = SOURCE_FILES_MAX_FILE_BYTES;
	sf->dir = xstrdup(dir);
	pthread_mutex_init(&sf->lock, NULL);
	pthread_cond_init(&sf->wake, NULL);
	return sf;
}

void source_files_set_max_file_bytes(struct source_files *sf, size_t max_bytes)
{
	sf->max_file_bytes = max_bytes > 0 ? max_bytes : SOURCE_FILES_MAX_FILE_BYTES;
}

static void *poll_thread(void *arg)
{
	struct source_files *sf = arg;

	pthread_mutex_lock(&sf->lock);
	while (!sf->stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += sf->poll_ms / 1000;
		until.tv_nsec += (sf->poll_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&sf->wake, &sf->lock, &until);
		if (sf->stop)
			break;
		pthread_mutex_unlock(&sf->lock);
		source_files_scan(sf);
		pthread_mutex_lock(&sf->lock);
	}
	pthread_mutex_unlock(&sf->lock);
	return NULL;
}

void source_files_start(struct source_files *sf, int64_t poll_ms)
{
	sf->poll_ms = poll_ms > 0 ? poll_ms : 500;
	sf->stop = false;
	if (pthread_create(&sf->thread, NULL, poll_thread, sf) == 0)
		sf->running = true;
	else
		log_error("cannot start the inventory polling thread", NULL);
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
		pthread_mutex_unlock(&sf->lock);
		pthread_join(sf->thread, NULL);
	}
	for (i = 0; i < sf->nfiles; i++) {
		free_nodes(&sf->files[i]);
		free(sf->files[i].path);
	}
	free(sf->files);
	free(sf->dir);
	pthread_mutex_destroy(&sf->lock);
	pthread_cond_destroy(&sf->wake);
	free(sf);
}
