/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded reads of regular files: see file_read.h. */
#include "extender/file_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

/* What a line reader asks of read() at a time, and its first buffer. */
#define LINES_CHUNK ((size_t)64 << 10)

void file_error_errno(struct errmsg *msg, const char *path, const char *what,
		      int e)
{
	char buf[128];

	if (strerror_r(e, buf, sizeof buf) != 0)
		snprintf(buf, sizeof buf, "error %d", e);
	errmsg_set(msg, "%s: %s: %s", path, what, buf);
}

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of another type";
}

/* The open behind file_open_input, with the fstat of the descriptor. */
static enum err open_regular(const char *path, int *fd, struct stat *st,
			     struct errmsg *msg)
{
	int flags;

	/* O_NONBLOCK: opening a FIFO without a writer would wait for one.
	 * O_NOCTTY: a terminal must not become the controlling one. */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0) {
		file_error_errno(msg, path, "cannot open", errno);
		return ERR_IO;
	}
	if (fstat(*fd, st) != 0) {
		file_error_errno(msg, path, "cannot stat", errno);
		goto fail;
	}
	if (S_ISDIR(st->st_mode)) {
		errmsg_set(msg, "%s: is a directory", path);
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		errmsg_set(msg, "%s: not a regular file (%s)", path, kind_of(st->st_mode));
		goto fail;
	}
	flags = fcntl(*fd, F_GETFL);
	if (flags < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		file_error_errno(msg, path, "cannot set blocking mode", errno);
		goto fail;
	}
	return ERR_OK;
fail:
	close(*fd);
	*fd = -1;
	return ERR_IO;
}

enum err file_open_input(const char *path, int *fd, struct errmsg *msg)
{
	struct stat st;

	return open_regular(path, fd, &st, msg);
}

enum err file_read_all(const char *path, size_t max_bytes, char **buf,
		       size_t *len, struct errmsg *msg)
{
	struct stat st;
	enum err rc;
	char *data = NULL;
	size_t cap, used = 0;
	int fd;

	*buf = NULL;
	*len = 0;
	if (max_bytes == 0 || max_bytes > FILE_READ_MAX_BYTES)
		max_bytes = FILE_READ_MAX_BYTES;
	rc = open_regular(path, &fd, &st, msg);
	if (rc != ERR_OK)
		return rc;
	if ((uint64_t)st.st_size > max_bytes) {
		errmsg_set(msg, "%s: larger than %zu bytes", path, max_bytes);
		rc = ERR_TOO_LARGE;
		goto out;
	}
	/* st_size is only a hint (files may grow, /proc reports 0): read until
	 * EOF and enforce the ceiling on what actually arrives. */
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	data = xmalloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (used == cap) {
			cap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
			data = xrealloc(data, cap + 1);
		}
		n = read(fd, data + used, cap - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			file_error_errno(msg, path, "cannot read", errno);
			rc = ERR_IO;
			goto out;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max_bytes) {
			errmsg_set(msg, "%s: larger than %zu bytes", path, max_bytes);
			rc = ERR_TOO_LARGE;
			goto out;
		}
	}
	data[used] = '\0';
	*buf = data;
	*len = used;
	data = NULL;
out:
	free(data);
	close(fd);
	return rc;
}

enum err file_read_with(const char *path, size_t max_bytes, file_text_fn *fn,
			void *arg, struct errmsg *msg)
{
	char *buf = NULL;
	size_t len = 0;
	enum err rc;

	rc = file_read_all(path, max_bytes, &buf, &len, msg);
	if (rc == ERR_OK)
		rc = fn(buf, len, path, arg, msg);
	free(buf);
	return rc;
}

struct file_lines {
	int fd;
	char *path;
	size_t max_line;
	/* cap + 1 bytes, so that any line can be NUL-terminated in place;
	 * cap never passes max_line + 1, the least that tells a line of
	 * max_line bytes from a longer one. */
	char *buf;
	size_t cap;
	size_t start, end;  /* not yet returned: buf[start..end) */
	size_t scanned;     /* buf[start..scanned) holds no "\n" */
	size_t lineno;
	bool eof;
};

enum err file_lines_open(const char *path, size_t max_line,
			 struct file_lines **out, struct errmsg *msg)
{
	struct file_lines *fl;
	struct stat st;
	enum err rc;
	int fd;

	*out = NULL;
	rc = open_regular(path, &fd, &st, msg);
	if (rc != ERR_OK)
		return rc;
	fl = xcalloc(1, sizeof *fl);
	fl->fd = fd;
	fl->path = xstrdup(path);
	fl->max_line = max_line > 0 && max_line < SIZE_MAX / 2 ? max_line : SIZE_MAX / 2;
	fl->cap = fl->max_line + 1 < LINES_CHUNK ? fl->max_line + 1 : LINES_CHUNK;
	fl->buf = xmalloc(fl->cap + 1);
	*out = fl;
	return ERR_OK;
}

static enum err too_long(struct file_lines *fl, struct errmsg *msg)
{
	errmsg_set(msg, "%s: line %zu longer than %zu bytes", fl->path, fl->lineno + 1,
		   fl->max_line);
	return ERR_TOO_LARGE;
}

/* Makes room at buf's end: moves what is left to the front, or grows the
 * buffer (at most to max_line + 1, which the caller has not reached). */
static void make_room(struct file_lines *fl)
{
	if (fl->start > 0) {
		memmove(fl->buf, fl->buf + fl->start, fl->end - fl->start);
		fl->end -= fl->start;
		fl->scanned -= fl->start;
		fl->start = 0;
	}
	if (fl->end < fl->cap)
		return;
	fl->cap = fl->cap > (fl->max_line + 1) / 2 ? fl->max_line + 1 : fl->cap * 2;
	fl->buf = xrealloc(fl->buf, fl->cap + 1);
}

enum err file_lines_next(struct file_lines *fl, char **line, size_t *len,
			 size_t *lineno, struct errmsg *msg)
{
	*line = NULL;
	*len = 0;
	for (;;) {
		char *nl = memchr(fl->buf + fl->scanned, '\n', fl->end - fl->scanned);
		ssize_t n;

		if (nl != NULL || (fl->eof && fl->start < fl->end)) {
			size_t size = nl ? (size_t)(nl - fl->buf) - fl->start : fl->end - fl->start;

			if (size > fl->max_line)
				return too_long(fl, msg);
			fl->buf[fl->start + size] = '\0';
			*line = fl->buf + fl->start;
			*len = size;
			*lineno = ++fl->lineno;
			fl->start += size + (nl != NULL);
			fl->scanned = fl->start;
			return ERR_OK;
		}
		fl->scanned = fl->end;
		if (fl->end - fl->start > fl->max_line)
			return too_long(fl, msg);
		if (fl->eof)
			return ERR_OK;
		if (fl->end == fl->cap)
			make_room(fl);
		n = read(fl->fd, fl->buf + fl->end, fl->cap - fl->end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			file_error_errno(msg, fl->path, "cannot read", errno);
			return ERR_IO;
		}
		if (n == 0)
			fl->eof = true;
		fl->end += (size_t)n;
	}
}

void file_lines_close(struct file_lines *fl)
{
	if (fl == NULL)
		return;
	close(fl->fd);
	free(fl->path);
	free(fl->buf);
	free(fl);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && strcmp(name + n - s, suffix) == 0;
}

static int cmp_names(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return strcmp(*x, *y);
}

enum err file_read_dir(const char *path, size_t max_bytes, file_text_fn *fn, void *arg,
		       struct errmsg *msg)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	enum err rc = ERR_OK;
	struct dirent *e;
	DIR *dir;

	dir = opendir(path);
	if (dir == NULL) {
		file_error_errno(msg, path, "cannot open directory", errno);
		return ERR_IO;
	}
	for (;;) {
		errno = 0;
		e = readdir(dir);
		if (e == NULL)
			break;
		if (!has_suffix(e->d_name, ".yaml") &&
		    !has_suffix(e->d_name, ".yml") &&
		    !has_suffix(e->d_name, ".json"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(e->d_name);
	}
	if (errno != 0) {
		file_error_errno(msg, path, "cannot read directory", errno);
		rc = ERR_IO;
		goto out;
	}
	if (n > 0)
		qsort(names, n, sizeof *names, cmp_names);
	for (i = 0; i < n; i++) {
		size_t plen = strlen(path);
		bool slash = plen > 0 && path[plen - 1] == '/';
		size_t flen = plen + 1 + strlen(names[i]) + 1;
		char *full = xmalloc(flen);
		struct stat st;

		snprintf(full, flen, "%s%s%s", path, slash ? "" : "/", names[i]);
		/* Subdirectories (and sockets...) named like data files are
		 * not data; a dangling symlink is reported by the read. */
		if (stat(full, &st) == 0 && !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
		rc = file_read_with(full, max_bytes, fn, arg, msg);
		free(full);
		if (rc != ERR_OK)
			goto out;
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dir);
	return rc;
}
