/* SPDX-License-Identifier: Apache-2.0 */
/* Directory polling: a stat signature per file (inode, size, mtime, ctime in
 * nanoseconds) decides what to re-read; decoding and snapshot building
 * happen here, off the request path.
 *
 * A rescan is O(files): one readdir, one fstatat and one lookup in a hash of
 * known file names per entry, and nothing more for a file whose signature
 * did not change. Only the files that changed, appeared, went away or could
 * not be stat'ed are sorted (by name, so that "the first file wins" and the
 * log order are those of a full sort). Which file provides a node is a
 * second hash (node name to file), so ownership checks do not walk the
 * other files either.
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
#include "extender/inventory/strhash.h"
#include "extender/xalloc.h"
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
};

/* An open-addressing hash (linear probing, power-of-two capacity, at most
 * half full) from a borrowed string to a pointer. */
struct hslot {
	const char *key;      /* NULL: empty */
	size_t hash;
	void *val;
};

struct hindex {
	struct hslot *slots;
	size_t cap;
	size_t n;
};

/* A file whose signature changed in this scan, with its new stat. */
struct pending {
	struct file_entry *f;
	struct stat st;
};

struct source_files {
	struct store *store;
	char *dir;
	struct file_entry **files;  /* every known file, in no order */
	size_t nfiles, capfiles;
	struct hindex by_name;      /* file name in dir -> struct file_entry */
	struct hindex owners;       /* node name -> the file providing it */
	uint64_t scan;
	/* Scratch reused from scan to scan (only what changed lands here). */
	struct pending *changed;
	size_t nchanged, capchanged;
	struct file_entry **marks;
	size_t nmarks, capmarks;
	bool scanned;
	pthread_t thread;
	bool running;
	int64_t poll_ms;
	size_t max_file_bytes;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
};

static struct hslot *hindex_find(const struct hindex *ix, const char *key, size_t hash)
{
	size_t mask = ix->cap - 1, i;

	if (ix->cap == 0)
		return NULL;
	for (i = hash & mask;; i = (i + 1) & mask) {
		struct hslot *s = &ix->slots[i];

		if (s->key == NULL)
			return NULL;
		if (s->hash == hash && strcmp(s->key, key) == 0)
			return s;
	}
}

static void *hindex_get(const struct hindex *ix, const char *key)
{
	const struct hslot *s = hindex_find(ix, key, strhash(key));

	return s ? s->val : NULL;
}

static void hindex_insert(struct hslot *slots, size_t cap, const char *key, size_t hash, void *val)
{
	size_t i;

	for (i = hash & (cap - 1); slots[i].key != NULL; i = (i + 1) & (cap - 1))
		;
	slots[i].key = key;
	slots[i].hash = hash;
	slots[i].val = val;
}

/* Adds key (not present; borrowed until it is removed). */
static void hindex_put(struct hindex *ix, const char *key, void *val)
{
	size_t i;

	if ((ix->n + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		struct hslot *slots = xcalloc(cap, sizeof *slots);

		for (i = 0; i < ix->cap; i++)
			if (ix->slots[i].key != NULL)
				hindex_insert(slots, cap, ix->slots[i].key, ix->slots[i].hash,
					      ix->slots[i].val);
		free(ix->slots);
		ix->slots = slots;
		ix->cap = cap;
	}
	hindex_insert(ix->slots, ix->cap, key, strhash(key), val);
	ix->n++;
}

/* Removes a slot hindex_find returned: later entries of its run move back,
 * so lookups never need tombstones. */
static void hindex_remove(struct hindex *ix, struct hslot *s)
{
	size_t mask = ix->cap - 1, hole = (size_t)(s - ix->slots), j = hole;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (ix->slots[j].key == NULL)
			break;
		home = ix->slots[j].hash & mask;
		/* It may fill the hole unless its home lies in (hole, j]. */
		if ((hole < j) ? (home <= hole || home > j) : (home <= hole && home > j)) {
			ix->slots[hole] = ix->slots[j];
			hole = j;
		}
	}
	ix->slots[hole].key = NULL;
	ix->n--;
}

static void hindex_del(struct hindex *ix, const char *key)
{
	struct hslot *s = hindex_find(ix, key, strhash(key));

	if (s != NULL)
		hindex_remove(ix, s);
}

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

/* Whether a file other than self, present in this scan, provides the node.
 * Every node name is listed by at most one file (a file takes a node only
 * when no other present file lists it), so one owner per name says it. */
static bool provided_elsewhere(const struct source_files *sf, const struct file_entry *self,
			       const char *name)
{
	const struct file_entry *owner = hindex_get(&sf->owners, name);

	return owner != NULL && owner != self && owner->scan == sf->scan;
}

/* Drops f's node names from the owner index (before its list is freed). */
static void unown_nodes(struct source_files *sf, struct file_entry *f)
{
	size_t j;

	for (j = 0; j < f->nnodes; j++) {
		struct hslot *s = hindex_find(&sf->owners, f->nodes[j], strhash(f->nodes[j]));

		if (s != NULL && s->val == f)
			hindex_remove(&sf->owners, s);
	}
}

/* Records f as the owner of its node names (after its list is set). */
static void own_nodes(struct source_files *sf, struct file_entry *f)
{
	size_t j;

	for (j = 0; j < f->nnodes; j++)
		if (hindex_get(&sf->owners, f->nodes[j]) == NULL)
			hindex_put(&sf->owners, f->nodes[j], f);
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
	hindex_put(&sf->by_name, f->name, f);
	return f;
}

static void free_entry(struct file_entry *f)
{
	free_nodes(f);
	free(f->path);
	free(f);
}

/* Pass 1, per directory entry: is it a file, is it known, did it change?
 * An unchanged known file costs a lookup and a stat, nothing else. A path
 * that is there but cannot be stat'ed (a symlink loop, a directory it
 * cannot search) still exists: it keeps its nodes. */
static void see(struct source_files *sf, int dfd, const char *name)
{
	struct file_entry *f;
	struct stat st;
	int stat_errno = 0;

	if (fstatat(dfd, name, &st, 0) != 0) {
		stat_errno = errno;
		if (stat_errno == ENOENT || stat_errno == ENOTDIR)
			return; /* gone, or a dangling symlink */
	} else if (!S_ISREG(st.st_mode)) {
		return;
	}
	f = hindex_get(&sf->by_name, name);
	if (f == NULL)
		f = add_entry(sf, name);
	else if (f->scan == sf->scan)
		return; /* listed twice by one readdir */
	f->scan = sf->scan;
	if (stat_errno != f->stat_errno)
		mark(sf, f); /* its warning is logged in name order */
	f->stat_errno = stat_errno;
	if (stat_errno != 0 || same_sig(&f->sig, &st))
		return;
	if (sf->nchanged == sf->capchanged) {
		sf->capchanged = sf->capchanged ? sf->capchanged * 2 : 16;
		sf->changed = xreallocarray(sf->changed, sf->capchanged, sizeof *sf->changed);
	}
	sf->changed[sf->nchanged].f = f;
	sf->changed[sf->nchanged].st = st;
	sf->nchanged++;
}

int source_files_scan(struct source_files *sf)
{
	struct store_batch *b = store_batch_new();
	bool trim = false;
	int failed = 0;
	struct dirent *e;
	size_t i, k;
	DIR *d;

	d = opendir(sf->dir);
	if (d == NULL) {

		log_error("cannot read the inventory directory; keeping the last inventory",
			  "dir=%s error=%s", log_q(sf->dir), log_q(strerror(errno)));
		metrics_inventory_error();
		store_batch_free(b);
		return 1;
	}
	sf->scan++;
	sf->nchanged = 0;
	sf->nmarks = 0;
	/* Pass 1: which files exist (so ownership checks see all of them). */
	while ((e = readdir(d)) != NULL)
		if (wanted(e->d_name))
			see(sf, dirfd(d), e->d_name);
	closedir(d);
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
	/* Pass 2: deleted files give up their nodes first. */
	sf->nmarks = 0;
	for (i = 0; i < sf->nfiles; i++)
		if (sf->files[i]->scan != sf->scan)
			mark(sf, sf->files[i]);
	if (sf->nmarks > 1)
		qsort(sf->marks, sf->nmarks, sizeof *sf->marks, entry_by_path);
	for (k = 0; k < sf->nmarks; k++) {
		struct file_entry *f = sf->marks[k];
		size_t j;

		for (j = 0; j < f->nnodes; j++)
			if (!provided_elsewhere(sf, f, f->nodes[j]))
				store_batch_delete(b, f->nodes[j]);
		log_info("inventory file removed", "file=%s nodes=%zu", log_q(f->path), f->nnodes);
		unown_nodes(sf, f);
		hindex_del(&sf->by_name, f->name);
		sf->files[f->slot] = sf->files[--sf->nfiles];
		sf->files[f->slot]->slot = f->slot;
		free_entry(f);
	}
	sf->nmarks = 0;
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
	for (i = 0; i < sf->nfiles; i++)
		free_entry(sf->files[i]);
	free(sf->files);
	free(sf->by_name.slots);
	free(sf->owners.slots);
	free(sf->changed);
	free(sf->marks);
	free(sf->dir);
	pthread_mutex_destroy(&sf->lock);
	pthread_cond_destroy(&sf->wake);
	free(sf);
}
