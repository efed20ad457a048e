/* SPDX-License-Identifier: Apache-2.0 */
/* Helper threads that share one request's judging. kube-scheduler schedules
 * one pod at a time and waits for the extender's answer, so while a filter
 * judges thousands of nodes it has never seen with this demand, the other
 * cores are idle: the request splits its nodes into chunks that the calling
 * thread and the helpers take in turn.
 *
 * One job at a time: a request that finds the pool busy (another request is
 * being shared) does its own work alone, so requests never wait for each
 * other here. The job function must be safe to run concurrently on distinct
 * chunks. */
#ifndef EXTENDER_DECIDE_POOL_H
#define EXTENDER_DECIDE_POOL_H

#include <stdbool.h>
#include <stddef.h>

struct decide_pool;

/* Runs fn(ctx, begin, end) over [0, n) in chunks of `chunk`. */
typedef void (*decide_pool_fn)(void *ctx, size_t begin, size_t end);

/* helpers: threads besides the caller's (0: a pool that never shares). A
 * thread that cannot be created leaves the pool with fewer helpers
 * (decide_pool_helpers tells how many). */
struct decide_pool *decide_pool_new(int helpers);
void decide_pool_free(struct decide_pool *p);
int decide_pool_helpers(const struct decide_pool *p);

/* Returns when every chunk is done. pool NULL, no helpers or a busy pool:
 * the caller runs every chunk itself. Returns whether helpers took part. */
bool decide_pool_run(struct decide_pool *p, size_t n, size_t chunk, decide_pool_fn fn, void *ctx);

#endif
