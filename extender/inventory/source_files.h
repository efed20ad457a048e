/* SPDX-License-Identifier: Apache-2.0 */
/* Inventory from a directory of NRT files (YAML or JSON, any mix; a file may
 * hold several objects). A background thread rescans the directory every poll
 * interval and publishes what changed (added, edited, deleted files) to the
 * store in one batch. A file that fails to decode, cannot be read, is
 * larger than the cap, or is empty (no objects) is logged with its file,
 * and the nodes it held keep their last good inventory; nothing else is
 * affected. Only a file that is gone gives its nodes up. */
#ifndef EXTENDER_SOURCE_FILES_H
#define EXTENDER_SOURCE_FILES_H

#include <stdint.h>

#include "extender/inventory/store.h"

struct source_files;

/* The default cap on one file's size (inventory.maxFileBytes). */
#define SOURCE_FILES_MAX_FILE_BYTES ((size_t)16 << 20)

/* Creates the source; no thread yet. */
struct source_files *source_files_new(struct store *store, const char *dir);
/* Files larger than max_bytes are refused with a warning and not read (0:
 * the default). Call before the first scan. */
void source_files_set_max_file_bytes(struct source_files *sf, size_t max_bytes);
/* Scans once, synchronously; returns the number of files that failed. The
 * first scan marks the store ready. */
int source_files_scan(struct source_files *sf);
/* Starts the polling thread (after a first scan). */
void source_files_start(struct source_files *sf, int64_t poll_ms);
/* Stops the thread (if started) and frees everything. */
void source_files_free(struct source_files *sf);

#endif
