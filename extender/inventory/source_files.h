/* SPDX-License-Identifier: Apache-2.0 */
/* Inventory from a directory of NRT files (YAML or JSON, any mix; a file may
 * hold several objects). A directory watcher (dir_watch.h) says what changed
 * (added, edited, renamed, deleted files, a ConfigMap's `..data` swap) a few
 * milliseconds after it happens, with a whole-directory safety rescan every
 * full-rescan period; where inotify cannot be used it rescans every poll
 * interval instead. Changes reach the store in batches. A file that fails to decode, cannot be read, is larger
 * than the cap, or is empty (no objects) is logged with its file, and the
 * nodes it held keep their last good inventory; nothing else is affected.
 * Only a file that is gone gives its nodes up. */
#ifndef EXTENDER_SOURCE_FILES_H
#define EXTENDER_SOURCE_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "extender/file_read.h"
#include "extender/inventory/dir_watch.h"
#include "extender/inventory/store.h"

struct source_files;

/* The default cap on one file's size (inventory.maxFileBytes): the bound
 * the commands hold an NRT file to. */
#define SOURCE_FILES_MAX_FILE_BYTES FILE_READ_DOC_MAX_BYTES

/* Creates the source; no thread yet. */
struct source_files *source_files_new(struct store *store, const char *dir);
/* Files larger than max_bytes are refused with a warning and not read (0:
 * the default). Call before the first scan. */
void source_files_set_max_file_bytes(struct source_files *sf, size_t max_bytes);
/* The watcher's settings, as dir_watch_set_full_rescan_ms,
 * dir_watch_set_event_delay_ms and dir_watch_set_watch say. Call before
 * source_files_start. */
void source_files_set_full_rescan_ms(struct source_files *sf, int64_t ms);
void source_files_set_event_delay_ms(struct source_files *sf, int64_t ms);
void source_files_set_watch(struct source_files *sf, bool watch);
/* Scans the whole directory once, synchronously; returns the number of
 * files that failed. The first scan marks the store ready. Not while the
 * thread runs. */
int source_files_scan(struct source_files *sf);
/* Starts the thread (after a first scan): it watches the directory, or
 * polls it every poll_ms when it cannot. */
void source_files_start(struct source_files *sf, int64_t poll_ms);
/* Stops the thread (if started) and frees everything. */
void source_files_free(struct source_files *sf);

/* What the watcher's thread has done so far (for tests and benchmarks): its
 * dir_watch_stats, under the source's name. */
#define source_files_stats dir_watch_stats
void source_files_get_stats(struct source_files *sf, struct source_files_stats *out);

#endif
