/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log's file: batches of whole lines, checked writes, the cut
 * back to the last whole record, rotation, and the account of lost
 * records (the metric, the log lines, the marker in the file). */
#include "extender/decisionlog_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extender/metrics.h"
#include "extender/log.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"

/* A batch holds whole records, and one record may reach the decision
 * log's line ceiling (256 MiB) with the inventories it needs. */
#define OUT_MAX_BYTES ((size_t)1 << 30)
/* A batch buffer that a large record grew is given back once written. */
#define OUT_KEEP_BYTES ((size_t)4 << 20)
#define ERROR_BYTES 160

/* Owned keys, and a map of them for lookups: a file holds one key per
 * inventory version it carries, thousands in a large cluster, and every
 * record asks for one per candidate node. */
struct keys {
	char **v;
	size_t n, cap;
	struct strmap index;        /* key -> itself */
};

struct decision_file {
	char *path;
	int64_t max_bytes, max_files;
	int fd;                     /* -1: no file open; fd_error says why */
	char fd_error[ERROR_BYTES];
	int64_t size;               /* end of the last whole record */
	bool must_rotate;           /* move the file aside before the next record */
	bool shifted;               /* path.1... already moved up for that */
	uint64_t seq;
	struct keys held;           /* support records in the file */
	/* The batch: whole lines not written yet. */
	struct textbuf out;
	struct keys batch_keys;     /* support records in it */
	uint64_t batch_records;     /* records with a seq in it */
	char batch_since[40];       /* when the first of those was decided */
	bool batch_marker;          /* it begins with the lost marker */
	/* Records lost since the last marker written. */
	uint64_t lost;
	uint64_t marker_seq;        /* reserved for the marker when the loss began */
	char since[40];
	char error[ERROR_BYTES];    /* the first failure of that loss */
	/* Log lines: at most one error line per DECISION_FILE_REPORT_SECONDS. */
	uint64_t unlogged;          /* lost records no line has counted yet */
	bool episode_logged;        /* an error line since writing last worked */
	bool ever_logged;
	struct timespec last_line;
};

void decision_time_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static bool keys_find(const struct keys *k, const char *key)
{
	return strmap_get(&k->index, key) != NULL;
}

static void keys_add(struct keys *k, char *owned)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 256;
		k->v = xreallocarray(k->v, k->cap, sizeof *k->v);
	}
	k->v[k->n++] = owned;
	strmap_put(&k->index, owned, owned);
}

static void keys_clear(struct keys *k)
{
	size_t i;

	strmap_clear(&k->index);
	for (i = 0; i < k->n; i++)
		free(k->v[i]);
	k->n = 0;
}

/* Hands every key of from to to. */
static void keys_move(struct keys *to, struct keys *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		keys_add(to, from->v[i]);
	strmap_clear(&from->index);
	from->n = 0;
}

static void keys_free(struct keys *k)
{
	keys_clear(k);
	free(k->v);
	k->v = NULL;
	k->cap = 0;
}

/* "op: <strerror>" (errno 0: "op failed"). */
static void describe(char *buf, size_t size, const char *op, int err)
{
	char text[128];

	if (err == 0 || strerror_r(err, text, sizeof text) != 0)
		snprintf(text, sizeof text, "failed");
	snprintf(buf, size, "%s: %s", op, text);
}

/* True, and the clock restarted, when an error line may be logged now. */
static bool report_due(struct decision_file *f)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (f->ever_logged && now.tv_sec - f->last_line.tv_sec < DECISION_FILE_REPORT_SECONDS)
		return false;
	f->ever_logged = true;
	f->last_line = now;
	return true;
}

/* n records with a seq did not reach the file. */
static void lose(struct decision_file *f, uint64_t n, const char *since, const char *error)
{
	uint64_t i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		metrics_decision_log_dropped();
	if (f->lost == 0) {
		/* The marker takes the seq after the first lost ones: the seqs
		 * missing before the next record written are the lost ones. */
		f->marker_seq = ++f->seq;
		snprintf(f->since, sizeof f->since, "%s", since);
		snprintf(f->error, sizeof f->error, "%s", error);
	}
	f->lost += n;
	f->unlogged += n;
	if (report_due(f)) {
		log_error(f->episode_logged ? "decision log writes still failing: records dropped"
					    : "cannot write the decision log: records dropped",
			  "path=%s error=%s dropped=%llu", log_q(f->path), log_q(error),
			  (unsigned long long)f->unlogged);
		f->unlogged = 0;
		f->episode_logged = true;
	}
}

/* A batch was written. */
static void written(struct decision_file *f)
{
	if (f->batch_marker) {
		/* Only after an error line: a disk that flaps between full and
		 * not says so at most once per DECISION_FILE_REPORT_SECONDS. */
		if (f->episode_logged) {
			log_info("decision log writable again", "path=%s lost=%llu", log_q(f->path),
				 (unsigned long long)f->lost);
			f->unlogged = 0;
		}
		f->episode_logged = false;
		f->lost = 0;
		f->marker_seq = 0;
	}
	if (f->unlogged > 0 && report_due(f)) {
		log_warn("decision log records were dropped", "path=%s dropped=%llu", log_q(f->path),
			 (unsigned long long)f->unlogged);
		f->unlogged = 0;
	}
}

/* Starts a line of the batch: a batch after a loss begins with the marker,
 * so that it is written exactly when a record after the loss is. */
static void open_line(struct decision_file *f)
{
	char now[40];

	if (textbuf_len(&f->out) > 0 || f->lost == 0)
		return;
	decision_time_now(now, sizeof now);
	textbuf_printf(&f->out, "{\"type\":\"lost\",\"seq\":%llu,\"time\":", (unsigned long long)f->marker_seq);
	textbuf_json_cstr(&f->out, now);
	textbuf_printf(&f->out, ",\"records\":%llu,\"since\":", (unsigned long long)f->lost);
	textbuf_json_cstr(&f->out, f->since);
	textbuf_adds(&f->out, ",\"error\":");
	textbuf_json_cstr(&f->out, f->error);
	textbuf_adds(&f->out, "}\n");
	f->batch_marker = true;
}

static char *numbered(const char *path, int64_t i)
{
	struct textbuf b;

	textbuf_init(&b, (size_t)1 << 20);
	textbuf_printf(&b, "%s.%lld", path, (long long)i);
	return textbuf_take(&b, NULL);
}

static void close_fd(struct decision_file *f)
{
	char error[ERROR_BYTES];

	if (f->fd < 0)
		return;
	if (close(f->fd) != 0) {
		describe(error, sizeof error, "close", errno);
		log_error("closing the decision log failed: records written to it may be lost",
			  "path=%s error=%s", log_q(f->path), log_q(error));
	}
	f->fd = -1;
	snprintf(f->fd_error, sizeof f->fd_error, "not open");
}

static void open_file(struct decision_file *f)
{
	struct stat st;

	f->fd = open(f->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (f->fd < 0) {
		describe(f->fd_error, sizeof f->fd_error, "open", errno);
		return;
	}
	f->size = fstat(f->fd, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* path -> path.1 -> ... -> path.<max_files>. When the last step fails the
 * file stays closed (its records are counted as lost) and the next record
 * tries that step again, without moving the older files up once more. */
static void rotate(struct decision_file *f)
{
	char *from, *to;
	int64_t i;

	close_fd(f);
	if (!f->shifted) {
		for (i = f->max_files - 1; i >= 1; i--) {
			from = numbered(f->path, i);
			to = numbered(f->path, i + 1);
			rename(from, to); /* a missing one is normal */
			free(from);
			free(to);
		}
		f->shifted = true;
	}
	to = numbered(f->path, 1);
	if (rename(f->path, to) != 0 && errno != ENOENT) {
		describe(f->fd_error, sizeof f->fd_error, "rename", errno);
		free(to);
		return;
	}
	free(to);
	f->shifted = false;
	f->must_rotate = false;
	/* A new file must hold its own configs and inventories. */
	keys_clear(&f->held);
	open_file(f);
}

/* The file after a failed write holds partial bytes of the batch at its
 * end: cut them off. The end of the last whole record is taken from the
 * file itself (its size less what this batch added), not from f->size, so
 * that a file shortened by someone else is never lengthened. */
static void cut_back(struct decision_file *f, size_t partial)
{
	char error[ERROR_BYTES];
	struct stat st;

	if (fstat(f->fd, &st) != 0) {
		describe(error, sizeof error, "fstat", errno);
	} else if ((uint64_t)st.st_size < partial) {
		snprintf(error, sizeof error, "the file shrank while it was written");
	} else if (ftruncate(f->fd, st.st_size - (off_t)partial) != 0) {
		describe(error, sizeof error, "ftruncate", errno);
	} else {
		f->size = (int64_t)(st.st_size - (off_t)partial);
		return;
	}
	log_error("cannot cut a partial record off the decision log: the next record starts a new file",
		  "path=%s error=%s", log_q(f->path), log_q(error));
	f->must_rotate = true;
}

/* Loops on short writes: a write that stops short is retried for the rest,
 * and the call after it says why it cannot go on. */
static bool write_all(int fd, const char *p, size_t n, size_t *done, char *error, size_t size)
{
	while (*done < n) {
		ssize_t w = write(fd, p + *done, n - *done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			describe(error, size, "write", w < 0 ? errno : 0);
			return false;
		}
		*done += (size_t)w;
	}
	return true;
}

bool decision_file_flush(struct decision_file *f)
{
	size_t n = textbuf_len(&f->out), done = 0;
	char error[ERROR_BYTES];
	bool ok = false;

	if (n == 0)
		return true;
	if (textbuf_failed(&f->out))
		snprintf(error, sizeof error, "batch larger than %zu bytes", OUT_MAX_BYTES);
	else if (f->fd < 0)
		snprintf(error, sizeof error, "%s", f->fd_error);
	else
		ok = write_all(f->fd, textbuf_str(&f->out), n, &done, error, sizeof error);
	if (ok) {
		f->size += (int64_t)n;
		keys_move(&f->held, &f->batch_keys);
		written(f);
	} else {
		if (done > 0)
			cut_back(f, done);
		keys_clear(&f->batch_keys);
		lose(f, f->batch_records, f->batch_since, error);
	}
	if (f->out.cap > OUT_KEEP_BYTES) {
		textbuf_free(&f->out);
		textbuf_init(&f->out, OUT_MAX_BYTES);
	} else {
		textbuf_reset(&f->out);
	}
	f->batch_records = 0;
	f->batch_marker = false;
	return ok;
}

void decision_file_begin(struct decision_file *f)
{
	if (textbuf_len(&f->out) >= DECISION_FILE_BATCH_BYTES)
		decision_file_flush(f);
	if (f->fd >= 0 && f->size + (int64_t)textbuf_len(&f->out) >= f->max_bytes)
		f->must_rotate = true;
	if (f->must_rotate) {
		decision_file_flush(f);
		rotate(f);
	} else if (f->fd < 0) {
		open_file(f);
	}
}

bool decision_file_holds(const struct decision_file *f, const char *key)
{
	return keys_find(&f->held, key) || keys_find(&f->batch_keys, key);
}

void decision_file_support(struct decision_file *f, const char *line, size_t len, const char *key)
{
	open_line(f);
	textbuf_add(&f->out, line, len);
	textbuf_addc(&f->out, '\n');
	keys_add(&f->batch_keys, xstrdup(key));
}

void decision_file_record(struct decision_file *f, const char *type, const char *rest, size_t len,
			  const char *time)
{
	open_line(f);
	textbuf_adds(&f->out, "{\"type\":");
	textbuf_json_cstr(&f->out, type);
	textbuf_printf(&f->out, ",\"seq\":%llu", (unsigned long long)++f->seq);
	textbuf_add(&f->out, rest, len);
	textbuf_addc(&f->out, '\n');
	if (f->batch_records++ == 0)
		snprintf(f->batch_since, sizeof f->batch_since, "%s", time);
}

static void file_free(struct decision_file *f)
{
	keys_free(&f->held);
	keys_free(&f->batch_keys);
	textbuf_free(&f->out);
	free(f->path);
	free(f);
}

enum err decision_file_open(const char *path, int64_t max_bytes, int64_t max_files,
			    struct decision_file **out, struct errmsg *msg)
{
	struct decision_file *f = xcalloc(1, sizeof *f);

	*out = NULL;
	f->path = xstrdup(path);
	f->max_bytes = max_bytes;
	f->max_files = max_files;
	textbuf_init(&f->out, OUT_MAX_BYTES);
	open_file(f);
	if (f->fd < 0) {
		errmsg_set(msg, "%s: cannot open the decision log: %s", path, f->fd_error);
		file_free(f);
		return ERR_IO;
	}
	/* An existing file may lack what our records refer to: start afresh. */
	if (f->size > 0) {
		f->must_rotate = true;
		rotate(f);
		if (f->fd < 0) {
			errmsg_set(msg, "%s: cannot start a new decision log: %s", path, f->fd_error);
			file_free(f);
			return ERR_IO;
		}
	}
	*out = f;
	return ERR_OK;
}

void decision_file_close(struct decision_file *f)
{
	if (f == NULL)
		return;
	decision_file_flush(f);
	if (f->lost > 0) {
		/* Writing may work again: the marker alone then says what the
		 * file lacks. */
		decision_file_begin(f);
		open_line(f);
		decision_file_flush(f);
	}
	if (f->lost > 0)
		log_error("decision log closed with records lost", "path=%s lost=%llu error=%s", log_q(f->path),
			  (unsigned long long)f->lost, log_q(f->error));
	else if (f->unlogged > 0)
		log_warn("decision log records were dropped", "path=%s dropped=%llu", log_q(f->path),
			 (unsigned long long)f->unlogged);
	close_fd(f);
	file_free(f);
}
