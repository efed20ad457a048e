/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log: JSON Lines written by a background thread from a
 * bounded queue (a full queue drops the record and counts it; a request is
 * never slowed by the disk). Record types:
 *   {"type":"config","digest":D,"settings":{"strategy","missingInventory","weights"}}
 *   {"type":"inventory","node":N,"version":V,"object":{NRT}}
 *   {"type":"decision","seq":S,"time":T,"verb":"filter"|"prioritize","pod":{Pod},
 *    "config":D,"nodes":[{"node","version","verdict","reason","numaNodes","score","parts"}]}
 *   {"type":"lost","seq":S,"time":T,"records":N,"since":T0,"error":E}
 * a decision whose pod's DRA claims were judged has a "dra" member and
 * draObject and draNode records before it (decisionlog_dra.h),
 * and records of other kinds (decision_log_event) with a type, seq and time.
 * Each config and inventory version is written once per file, before the
 * first decision that uses it, so every file alone is enough to replay.
 * Files rotate by size: path -> path.1 -> ... -> path.<maxFiles>.
 *
 * The file holds whole lines only. Records that could not be written (a
 * full disk, a file-size limit, a failed rotation) are counted in
 * numa_extender_decision_log_dropped_total, logged, and stated by a "lost"
 * record before the next record written: N records with a seq were lost,
 * the first decided at T0, E the first error. A config or inventory record
 * that was lost is written again before the next decision that needs it; a
 * decision whose records cannot all be written is dropped with them
 * (decisionlog_file.h). */
#ifndef EXTENDER_DECISIONLOG_H
#define EXTENDER_DECISIONLOG_H

#include <stddef.h>
#include <stdint.h>

#include "extender/decide/settings.h"
#include "extender/inventory/store.h"
#include "base/err.h"

struct decision_log;

/* The longest line (without its "\n") the writer emits; a longer record is
 * dropped with a warning. replay reads lines up to this and no longer. */
#define DECISION_LOG_MAX_LINE_BYTES ((size_t)256 << 20)

enum err decision_log_open(const char *path, int64_t max_bytes, int64_t max_files,
			   int64_t queue, struct decision_log **out, struct errmsg *msg);
/* Writes what is queued, then closes. Accepts NULL. */
void decision_log_close(struct decision_log *log);

/* One record under construction by a request thread. */
struct decision_record;

struct decision_record *decision_record_new(const char *verb, const char *pod_json,
					    struct settings *settings);
/* One candidate node. sn may be NULL (no inventory); it is referenced until
 * the record is written. numa_ids: NUMA ids of the predicted placement. */
void decision_record_node(struct decision_record *r, const char *name, const struct store_node *sn,
			  const char *verdict, const char *reason, uint64_t numa_ids, int64_t score,
			  const char *parts_json);
/* The DRA state the record's pod was judged on (decisionlog_dra.h): its
 * claims as resolved in snap and what each node's prediction reads there,
 * written with the decision so replay re-decides it the same way. Only for
 * a pod whose claims were judged (dra_pod_new gave pod): records without it
 * are as they were before DRA. snap is referenced, pod and claims read now. */
struct dra_snapshot;
struct dra_pod;
struct dra_pod_claims;
void decision_record_dra(struct decision_record *r, const struct dra_snapshot *snap,
			 const struct dra_pod *pod, const struct dra_pod_claims *claims);
/* Hands the record to the writer (or drops it when the queue is full). */
void decision_log_submit(struct decision_log *log, struct decision_record *r);

/* A record that is no decision: {"type":type,"seq":S,"time":T,...} with the
 * members of fields_json (a JSON object's text, at least one member) after
 * the time. The preempt verb writes "preemption" records, the pod watch
 * "kubeletRejection" records; replay lists the latter. Never blocks; a full
 * queue drops it as it drops decisions. log NULL: nothing. */
void decision_log_event(struct decision_log *log, const char *type, const char *fields_json);

/* The digest of a settings value as the log names it ("xxh3:<16 hex>",
 * the same in every process). Logs written before XXH3 name it
 * "fnv1a:<16 hex>": replay matches a decision to its config record by the
 * digest's text alone, so either kind reads. */
void decision_settings_digest(const struct settings *s, char *buf, size_t size);
/* The JSON of a settings value's decision-relevant part (new string). */
char *decision_settings_json(const struct settings *s);

#endif
