/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log's file: whole records or nothing. Used by the writer
 * thread only (no locking).
 *
 * Records collect in a batch of complete lines, written with write(2) on a
 * descriptor opened O_APPEND when the queue runs empty or the batch passes
 * DECISION_FILE_BATCH_BYTES. Every write is checked; when one fails (ENOSPC,
 * EFBIG, EIO, a short write) the file is cut back to the end of its last
 * complete record, so no partial line is ever followed by another record. If
 * it cannot be cut, the next record starts a new file.
 *
 * The records of a failed batch are lost: counted in
 * numa_extender_decision_log_dropped_total, logged (rate-limited) and, once
 * writing works again, stated in the file by a marker that precedes the next
 * record:
 *   {"type":"lost","seq":S,"time":T,"records":N,"since":T0,"error":E}
 * N records that carried a seq (decisions and events) were lost since the
 * one decided at T0 (E: the first failure, "write: No space left on
 * device"). Every record that gets a seq either reaches the file or is
 * counted in a marker: the seqs missing between two records are those lost.
 *
 * Config and inventory records ("support") are marked as held by the file
 * only once their batch was written, so a lost one is written again before
 * the next decision that needs it. */
#ifndef EXTENDER_DECISIONLOG_FILE_H
#define EXTENDER_DECISIONLOG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* A batch this large is written at once (a single larger record goes
 * alone): few write calls, and a failure loses little. */
#define DECISION_FILE_BATCH_BYTES ((size_t)64 << 10)
/* At most one error line per this many seconds while writes fail. */
#define DECISION_FILE_REPORT_SECONDS 60

struct decision_file;

/* Now as the log writes times: "2026-11-29T15:50:01.123Z". */
void decision_time_now(char *buf, size_t size);

/* Opens path for appending; a non-empty file is moved aside first (to
 * path.1), since it may lack what our records refer to. */
enum err decision_file_open(const char *path, int64_t max_bytes, int64_t max_files,
			    struct decision_file **out, struct errmsg *msg);
/* Writes the batch (and a pending marker), closes, frees. Accepts NULL. */
void decision_file_close(struct decision_file *f);

/* Before each record: writes the batch once it passed
 * DECISION_FILE_BATCH_BYTES, moves a full (or cut) file aside, or opens the
 * file again after a failed open. Between begin and the next begin or flush,
 * a decision and the support records it needs share one batch: they reach
 * the file together or not at all. */
void decision_file_begin(struct decision_file *f);
/* The file holds (or the batch carries) the support record named key. */
bool decision_file_holds(const struct decision_file *f, const char *key);
/* Adds a support record (one JSON object, no newline) named key. */
void decision_file_support(struct decision_file *f, const char *line, size_t len, const char *key);
/* Adds {"type":type,"seq":<next seq>, then rest: rest[0..len) begins with
 * ',' and ends with '}'. time: when it was decided (a marker's "since"). */
void decision_file_record(struct decision_file *f, const char *type, const char *rest, size_t len,
			  const char *time);
/* Writes the batch. False when that failed (its records are lost). */
bool decision_file_flush(struct decision_file *f);

#endif
