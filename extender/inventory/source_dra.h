/* SPDX-License-Identifier: Apache-2.0 */
/* Where the DRA inventory (dra_store.h) comes from: the Kubernetes API
 * (resource.k8s.io/v1: ResourceSlices, DeviceClasses, ResourceClaims and
 * ResourceClaimTemplates, each listed and watched by its own kube_reflector)
 * or a directory of files (source_dra_files.c, watched with dir_watch.h as
 * NRT files are). Either way an object that does not decode is logged and
 * counted (dra_store_count_error) and keeps its last good version; nothing
 * else is affected. */
#ifndef EXTENDER_SOURCE_DRA_H
#define EXTENDER_SOURCE_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "extender/config.h"
#include "extender/inventory/dir_watch.h"
#include "extender/inventory/dra_store.h"

/* ---- from the API server ---- */

struct source_dra;

/* Resolves credentials (cfg->kubeconfig, else in-cluster) and starts the
 * four watches. A complete list of every kind marks the store ready. API
 * errors later are logged and retried. */
enum err source_dra_start(struct dra_store *store, const struct config *cfg,
			  struct source_dra **out, struct errmsg *msg);
void source_dra_stop(struct source_dra *s);

/* A source with no API server, fed by hand through source_dra_feed: the
 * bytes of a watch stream of kind, handled exactly as a live one's
 * (fuzzing and tests). Stopped with source_dra_stop. */
struct source_dra *source_dra_detached(struct dra_store *store);
bool source_dra_feed(struct source_dra *s, enum dra_kind kind, const char *data, size_t len,
		     size_t chunk);

/* An object read from the API outside the watches (the bind verb's GET
 * of a pod's claims, once PreBind has written their allocation): decoded
 * and published at once, as the watch will deliver it (the same version
 * and origin, so its event then changes nothing). ERR_* with msg when it
 * does not decode; the store is left alone. */
struct json_object;
enum err source_dra_put_json(struct dra_store *store, enum dra_kind kind, struct json_object *o,
			     struct errmsg *msg);

/* ---- from a directory ---- */

struct source_dra_files;

/* Every file of dir ending in .yaml, .yml or .json, any mix of the four
 * kinds (dra_objects_decode). No thread yet. A file that fails as a whole
 * (unreadable, larger than the cap, not YAML or JSON, empty) keeps what it
 * gave; only a file that is gone gives its objects up. An object two files
 * define is the first file's, in name order. */
struct source_dra_files *source_dra_files_new(struct dra_store *store, const char *dir);
/* Files larger than max_bytes are refused with a warning and not read (0:
 * FILE_READ_DOC_MAX_BYTES). Before the first scan. */
void source_dra_files_set_max_file_bytes(struct source_dra_files *sf, size_t max_bytes);
/* The directory watcher, for its settings (dir_watch_set_*), a synchronous
 * scan (dir_watch_scan: the first marks the store ready; it returns the
 * number of files that failed) and the watching thread (dir_watch_start,
 * after a first scan). Freed with the source. */
struct dir_watch *source_dra_files_watcher(struct source_dra_files *sf);
void source_dra_files_free(struct source_dra_files *sf);

#define DRA_GROUP "resource.k8s.io"

#endif
