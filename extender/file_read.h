/* SPDX-License-Identifier: Apache-2.0 */
/* Every file the extender reads as input (configuration, pod, NRT, token,
 * kubeconfig, decision log) is opened and read here, under a bound:
 *
 * - Only regular files are read. A FIFO, a device (/dev/zero), a socket or a
 *   directory is refused at once: the open never blocks (O_NONBLOCK, a FIFO
 *   without a writer would wait forever otherwise) and the type is checked
 *   with fstat on the descriptor that is then read, so a file swapped in
 *   between cannot slip through.
 * - A whole file is read only up to a ceiling (file_read_all), a line only
 *   up to a ceiling (file_lines_next): past it the read stops with an error
 *   naming the file and the limit, having held at most the limit in memory.
 *
 * Messages start with the path: "PATH: cannot open: No such file or
 * directory", "PATH: is a directory", "PATH: not a regular file (a FIFO)",
 * "PATH: larger than N bytes", "PATH: line 3 longer than N bytes". Nothing
 * here keeps global state. Out of memory aborts. */
#ifndef EXTENDER_FILE_READ_H
#define EXTENDER_FILE_READ_H

#include <stddef.h>

#include "base/err.h"

/* Ceiling of file_read_all (a max_bytes of 0 means this). */
#define FILE_READ_MAX_BYTES ((size_t)64 << 20)
/* A pod, pod list or NRT file that a command reads (explain, simulate), and
 * serve's default inventory.maxFileBytes: one bound for one kind of file. */
#define FILE_READ_DOC_MAX_BYTES ((size_t)16 << 20)

/* Opens path read-only if it is a regular file (following symlinks) and
 * returns the descriptor (close-on-exec, blocking) in *fd; -1 on error.
 * ERR_IO: cannot open, "is a directory", "not a regular file (a FIFO)". */
enum err file_open_input(const char *path, int *fd, struct errmsg *msg);

/* Reads a whole regular file into a NUL-terminated heap buffer (*buf, free
 * with free(); *len excludes the NUL). max_bytes 0 or above
 * FILE_READ_MAX_BYTES means FILE_READ_MAX_BYTES. The size the file reports
 * is checked before anything is allocated, and what actually arrives is
 * held to the same ceiling (a file may grow; /proc reports 0). ERR_IO as
 * file_open_input or a read error; ERR_TOO_LARGE ("path: larger than N
 * bytes"). */
enum err file_read_all(const char *path, size_t max_bytes, char **buf,
		       size_t *len, struct errmsg *msg);

/* What a decoder of a whole file's text looks like: buf[0..len) (with a NUL
 * after it), origin the path for its messages, arg the caller's. */
typedef enum err file_text_fn(const char *buf, size_t len, const char *origin,
			      void *arg, struct errmsg *msg);

/* Reads path as file_read_all does and hands its text to fn with the path
 * as origin, freeing it afterwards: fn's errors, or file_read_all's. */
enum err file_read_with(const char *path, size_t max_bytes, file_text_fn *fn,
			void *arg, struct errmsg *msg);

/* file_read_with on each regular file of the directory path whose name ends
 * in .yaml, .yml or .json, in strcmp order of the names, not recursing;
 * other entries (subdirectories named like data files too) are skipped.
 * Stops at the first error. ERR_IO: the directory cannot be opened or
 * read. */
enum err file_read_dir(const char *path, size_t max_bytes, file_text_fn *fn, void *arg,
		       struct errmsg *msg);

/* A regular file read line by line, each line held to a ceiling. */
struct file_lines;

/* Opens path as file_open_input does; lines may hold up to max_line bytes
 * (without the "\n"; max_line > 0). */
enum err file_lines_open(const char *path, size_t max_line,
			 struct file_lines **out, struct errmsg *msg);

/* The next line, without its "\n", NUL-terminated (it may hold other NULs),
 * borrowed until the next call; *lineno is its 1-based number. The last
 * line needs no "\n". At the end of the file: ERR_OK with *line NULL.
 * ERR_TOO_LARGE ("path: line N longer than M bytes") once a line passes
 * max_line, having read max_line + 1 bytes of it; ERR_IO on a read error.
 * After an error only file_lines_close is left to call. */
enum err file_lines_next(struct file_lines *fl, char **line, size_t *len,
			 size_t *lineno, struct errmsg *msg);

/* Closes the file and frees the reader; NULL is fine. */
void file_lines_close(struct file_lines *fl);

/* Sets msg to "path: what: strerror(e)" ("path: cannot open: No such file
 * or directory"). */
void file_error_errno(struct errmsg *msg, const char *path, const char *what,
		      int e);

#endif
