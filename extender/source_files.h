/* SPDX-License-Identifier: Apache-2.0 */
/* Inventory from a directory of NRT files (YAML or JSON, any mix; a file may
 * hold several objects). A background thread rescans the directory every poll
 * interval and publishes what changed (added, edited, deleted files) to the
 * store in one batch. A file that fails to decode is logged with its file
 * and field, and the nodes it held keep their last good inventory; nothing
 * else is affected. */
#ifndef EXTENDER_SOURCE_FILES_H
#define EXTENDER_SOURCE_FILES_H

#include <stdint.h>

#include "extender/store.h"

struct source_files;

/* Creates the source; no thread yet. */
struct source_files *source_files_new(struct store *store, const char *dir);
/* Scans once, synchronously; returns the number of files that failed. The
 * first scan marks the store ready. */
int source_files_scan(struct source_files *sf);
/* Starts the polling thread (after a first scan). */
void source_files_start(struct source_files *sf, int64_t poll_ms);
/* Stops the thread (if started) and frees everything. */
void source_files_free(struct source_files *sf);

#endif
