/* SPDX-License-Identifier: Apache-2.0 */
/* DRA objects from a directory, on the directory watcher (dir_watch.h) as
 * NRT files are: a stat signature per file decides what to re-read. Every
 * scan that changes something publishes one batch that lists every kind
 * completely (dra_batch_replace): the objects of the files read now, and
 * the names the other files gave before (dra_batch_keep), so that whatever
 * no file names any more goes. Files are taken in name order, and an
 * object two files define is the first's; a file that defined a name
 * another file had is read again whenever the directory changes, so that
 * it takes the name over when the first file drops it. Objects keep their
 * version while their file's bytes do (a hash of them), so an unchanged
 * file re-read changes nothing. */
#include "extender/inventory/source_dra.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hash.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "extender/file_read.h"
#include "extender/inventory/dir_watch.h"
#include "extender/log.h"

/* A name a file gives: kind, namespace ("" when cluster-scoped), name. */
struct dra_name {
	enum dra_kind kind;
	char *ns, *name;
	char *key;       /* "<kind>/<ns>/<name>", the owners map's key */
};

struct dra_file {
	char *path;
	const char *base;           /* the last component of path */
	struct stat sig;
	uint64_t scan;              /* the last scan that saw it */
	struct dra_name *names;     /* what it gave last time it was read */
	size_t nnames;
	bool shadowed;              /* it names what an earlier file had */
	bool reread;                /* read in this scan */
	struct dra_objects objs;    /* what this scan's read gave */
	uint64_t hash;
};

struct source_dra_files {
	struct dra_store *store;
	char *dir;
	struct dir_watch *watcher;
	struct dra_file **files;
	size_t nfiles;
	struct strmap by_base;      /* file name -> struct dra_file */
	uint64_t scan;
	bool dirty;                 /* a file changed, appeared or went */
	bool scanned;
	size_t max_file_bytes;
};

static bool wanted(const char *name)
{
	size_t len = strlen(name);

	if (name[0] == '.')
		return false;
	return (len > 5 && strcmp(name + len - 5, ".yaml") == 0) ||
	       (len > 4 && strcmp(name + len - 4, ".yml") == 0) ||
	       (len > 5 && strcmp(name + len - 5, ".json") == 0);
}

static void names_free(struct dra_name *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].ns);
		free(v[i].name);
		free(v[i].key);
	}
	free(v);
}

static void file_free(struct dra_file *f)
{
	names_free(f->names, f->nnames);
	dra_objects_cleanup(&f->objs);
	free(f->path);
	free(f);
}

static void add_name(struct dra_name **v, size_t *n, enum dra_kind kind, const char *ns,
		     const char *name)
{
	struct dra_name *x;
	size_t size;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	x = &(*v)[(*n)++];
	x->kind = kind;
	x->ns = xstrdup(kind >= DRA_KIND_CLAIM && ns ? ns : "");
	x->name = xstrdup(name);
	size = strlen(x->ns) + strlen(name) + 16;
	x->key = xmalloc(size);
	snprintf(x->key, size, "%d/%s/%s", (int)kind, x->ns, name);
}

/* ---- the watcher's scans --------------------------------------------------- */

static void scan_begin(void *arg)
{
	struct source_dra_files *sf = arg;

	sf->scan++;
	sf->dirty = false;
}

static void found(void *arg, const char *name, const struct stat *st, int stat_errno)
{
	struct source_dra_files *sf = arg;
	struct dra_file *f = strmap_get(&sf->by_base, name);

	if (f == NULL) {
		size_t dirlen = strlen(sf->dir);

		f = xcalloc(1, sizeof *f);
		f->path = xmalloc(dirlen + strlen(name) + 2);
		sprintf(f->path, "%s/%s", sf->dir, name);
		f->base = f->path + dirlen + 1;
		f->sig.st_ino = (ino_t)-1; /* never matches: read it */
		sf->files = xreallocarray(sf->files, sf->nfiles + 1, sizeof *sf->files);
		sf->files[sf->nfiles++] = f;
		strmap_put(&sf->by_base, f->base, f);
	}
	f->scan = sf->scan;
	/* A file that cannot be stat'ed keeps what it gave. */
	if (stat_errno != 0 || (f->sig.st_ino == st->st_ino && f->sig.st_size == st->st_size &&
				f->sig.st_mtim.tv_sec == st->st_mtim.tv_sec &&
				f->sig.st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
				f->sig.st_ctim.tv_sec == st->st_ctim.tv_sec &&
				f->sig.st_ctim.tv_nsec == st->st_ctim.tv_nsec))
		return;
	f->sig = *st;
	f->reread = true;
	sf->dirty = true;
}

static void remove_file(struct source_dra_files *sf, size_t i)
{
	struct dra_file *f = sf->files[i];

	log_info("DRA file removed", "file=%s objects=%zu", log_q(f->path), f->nnames);
	strmap_remove(&sf->by_base, f->base);
	sf->files[i] = sf->files[--sf->nfiles];
	file_free(f);
	sf->dirty = true;
}

static void missing(void *arg, const char *name)
{
	struct source_dra_files *sf = arg;
	size_t i;

	for (i = 0; i < sf->nfiles; i++)
		if (strcmp(sf->files[i]->base, name) == 0) {
			remove_file(sf, i);
			return;
		}
}

/* Reads a changed file into f->objs; false (logged, counted) when it fails
 * as a whole and keeps what it gave. */
static bool read_file(struct source_dra_files *sf, struct dra_file *f)
{
	struct errmsg msg;
	char *buf = NULL;
	size_t len = 0, i;
	enum err rc;

	dra_objects_cleanup(&f->objs);
	if ((uint64_t)f->sig.st_size > sf->max_file_bytes) {
		log_warn("DRA file larger than inventory.maxFileBytes, not read; it keeps what it gave",
			 "file=%s bytes=%lld", log_q(f->path), (long long)f->sig.st_size);
		dra_store_count_error(sf->store);
		return false;
	}
	rc = file_read_all(f->path, sf->max_file_bytes, &buf, &len, &msg);
	if (rc == ERR_OK)
		rc = dra_objects_decode(buf, len, f->path, &f->objs, &msg);
	f->hash = rc == ERR_OK ? hash_bytes(buf, len) : 0;
	free(buf);
	if (rc == ERR_OK && f->objs.nslices + f->objs.nclasses + f->objs.nclaims + f->objs.ntemplates +
					    f->objs.nbad == 0) {
		log_warn("DRA file is empty or holds no objects (being written?); it keeps what it gave",
			 "file=%s bytes=%zu", log_q(f->path), len);
		rc = ERR_INVALID;
	} else if (rc != ERR_OK) {
		log_error("cannot load DRA file; it keeps what it gave", "file=%s error=%s", log_q(f->path),
			  log_q(msg.text));
	}
	if (rc != ERR_OK) {
		dra_objects_cleanup(&f->objs);
		dra_store_count_error(sf->store);
		return false;
	}
	for (i = 0; i < f->objs.nbad; i++) {
		log_error("invalid DRA object; it keeps its last good version", "file=%s error=%s",
			  log_q(f->path), log_q(f->objs.bad[i].message));
		dra_store_count_error(sf->store);
	}
	return true;
}

static int by_path(const void *a, const void *b)
{
	return strcmp((*(struct dra_file *const *)a)->path, (*(struct dra_file *const *)b)->path);
}

/* Whether f may give name n: not when an earlier file does. */
static bool own(struct strmap *owners, struct dra_file *f, struct dra_name *n)
{
	struct dra_file *first = strmap_get(owners, n->key);

	if (first == NULL) {
		strmap_put(owners, n->key, f);
		return true;
	}
	if (first != f) {
		if (!f->shadowed)
			log_warn("DRA object defined in more than one file; keeping the first",
				 "file=%s first=%s kind=%s name=%s", log_q(f->path), log_q(first->path),
				 dra_kind_name(n->kind), log_q(n->name));
		f->shadowed = true;
	}
	return false;
}

/* The names a freshly read file gives, in its objects' order. */
static void names_of(struct dra_file *f, struct dra_name **v, size_t *n)
{
	const struct dra_objects *o = &f->objs;
	size_t i;

	for (i = 0; i < o->nslices; i++)
		add_name(v, n, DRA_KIND_SLICE, NULL, o->slices[i].name);
	for (i = 0; i < o->nclasses; i++)
		add_name(v, n, DRA_KIND_CLASS, NULL, o->classes[i].name);
	for (i = 0; i < o->nclaims; i++)
		add_name(v, n, DRA_KIND_CLAIM, o->claims[i].namespace_, o->claims[i].name);
	for (i = 0; i < o->ntemplates; i++)
		add_name(v, n, DRA_KIND_TEMPLATE, o->templates[i].namespace_, o->templates[i].name);
	for (i = 0; i < o->nbad; i++) {
		int k;

		for (k = 0; k < DRA_KIND_COUNT; k++)
			if (o->bad[i].name[0] && strcmp(o->bad[i].kind, dra_kind_name((enum dra_kind)k)) == 0)
				add_name(v, n, (enum dra_kind)k, o->bad[i].namespace_, o->bad[i].name);
	}
}

/* Puts object i of f's names (the good ones come first, in names_of's
 * order) into b. */
static void put_object(struct dra_batch *b, struct dra_file *f, size_t i)
{
	struct dra_objects *o = &f->objs;
	char version[64];
	size_t at = i;

	snprintf(version, sizeof version, "xxh3:%016llx#%zu", (unsigned long long)f->hash, i);
	if (at < o->nslices) {
		dra_batch_put_slice(b, &o->slices[at], version, f->path);
		return;
	}
	at -= o->nslices;
	if (at < o->nclasses) {
		dra_batch_put_class(b, &o->classes[at], version, f->path);
		return;
	}
	at -= o->nclasses;
	if (at < o->nclaims) {
		dra_batch_put_claim(b, &o->claims[at], version, f->path);
		return;
	}
	at -= o->nclaims;
	if (at < o->ntemplates)
		dra_batch_put_claim(b, &o->templates[at], version, f->path);
}

/* One file's part of the batch: what it gives now (read) or gave before. */
static void give(struct dra_batch *b, struct strmap *owners, struct dra_file *f, bool read)
{
	size_t good = f->objs.nslices + f->objs.nclasses + f->objs.nclaims + f->objs.ntemplates, i;

	if (read) {
		struct dra_name *v = NULL;
		size_t n = 0;

		names_of(f, &v, &n);
		names_free(f->names, f->nnames);
		f->names = v;
		f->nnames = n;
		f->shadowed = false;
	}
	for (i = 0; i < f->nnames; i++) {
		struct dra_name *n = &f->names[i];

		if (!own(owners, f, n))
			continue;
		if (read && i < good)
			put_object(b, f, i);
		else
			dra_batch_keep(b, n->kind, n->ns, n->name);
	}
}

/* After the found and missing calls of a scan: read what changed (and, when
 * anything did, the files whose names were shadowed), then one publish. */
static int apply(struct source_dra_files *sf)
{
	struct strmap owners = { 0 };
	struct dra_batch *b;
	size_t i;
	int failed = 0, k;

	if (!sf->dirty && sf->scanned)
		return 0;
	if (sf->nfiles > 1)
		qsort(sf->files, sf->nfiles, sizeof *sf->files, by_path);
	b = dra_batch_new();
	for (k = 0; k < DRA_KIND_COUNT; k++)
		dra_batch_replace(b, (enum dra_kind)k);
	for (i = 0; i < sf->nfiles; i++) {
		struct dra_file *f = sf->files[i];
		bool read = false;

		if (f->reread || f->shadowed) {
			read = read_file(sf, f);
			failed += !read;
		}
		f->reread = false;
		give(b, &owners, f, read);
		dra_objects_cleanup(&f->objs);
	}
	strmap_clear(&owners);
	{
		uint64_t version = dra_store_publish(sf->store, b);

		log_info("DRA inventory updated", "dir=%s files=%zu version=%llu", log_q(sf->dir),
			 sf->nfiles, (unsigned long long)version);
	}
	if (!sf->scanned) {
		sf->scanned = true;
		dra_store_set_ready(sf->store, true);
	}
	return failed;
}

static int scan_end(void *arg, bool full)
{
	struct source_dra_files *sf = arg;
	size_t i;

	for (i = sf->nfiles; full && i-- > 0;)
		if (sf->files[i]->scan != sf->scan)
			remove_file(sf, i);
	return apply(sf);
}

static int unreadable(void *arg, int err)
{
	struct source_dra_files *sf = arg;

	log_error("cannot read the DRA directory; keeping the last inventory", "dir=%s error=%s",
		  log_q(sf->dir), log_q(strerror(err)));
	dra_store_count_error(sf->store);
	return 1;
}

struct source_dra_files *source_dra_files_new(struct dra_store *store, const char *dir)
{
	struct source_dra_files *sf = xcalloc(1, sizeof *sf);
	struct dir_watch_client client = {
		.arg = sf,
		.wanted = wanted,
		.begin = scan_begin,
		.found = found,
		.missing = missing,
		.end = scan_end,
		.unreadable = unreadable,
		.texts = {
			.polling = "cannot watch the DRA directory with inotify; "
				   "rescanning it every inventory.pollInterval instead",
			.watching = "watching the DRA directory",
			.watching_again = "watching the DRA directory again",
			.overflow = "inotify event queue overflowed; rescanning the DRA directory",
			.no_thread = "cannot start the DRA polling thread",
			.no_wake = "cannot wake the DRA directory thread",
		},
	};

	sf->store = store;
	sf->dir = xstrdup(dir);
	sf->max_file_bytes = FILE_READ_DOC_MAX_BYTES;
	sf->watcher = dir_watch_new(dir, &client);
	return sf;
}

void source_dra_files_set_max_file_bytes(struct source_dra_files *sf, size_t max_bytes)
{
	sf->max_file_bytes = max_bytes > 0 ? max_bytes : FILE_READ_DOC_MAX_BYTES;
}

struct dir_watch *source_dra_files_watcher(struct source_dra_files *sf)
{
	return sf->watcher;
}

void source_dra_files_free(struct source_dra_files *sf)
{
	size_t i;

	if (sf == NULL)
		return;
	dir_watch_free(sf->watcher);
	for (i = 0; i < sf->nfiles; i++)
		file_free(sf->files[i]);
	free(sf->files);
	strmap_clear(&sf->by_base);
	free(sf->dir);
	free(sf);
}
