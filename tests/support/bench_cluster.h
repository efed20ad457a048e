/* SPDX-License-Identifier: Apache-2.0 */
/* What the HTTP benchmarks (bench_server, bench_floor) share: the cluster of
 * 8-NUMA inventories (70 % single-numa-node, 20 % restricted, 10 %
 * best-effort, container scope) built from one deterministic random
 * sequence, so that every run and both benchmarks see the same nodes and the
 * same candidate lists; the pod they ask about and ExtenderArgs bodies in
 * node-names mode; one keep-alive libcurl client per server; the clock, the
 * header lines and a growable buffer.
 *
 * No cmocka here (benchmarks only link tests/support): a failure prints
 * "<name>: message" (bench_init's name) on stderr and exits 1. */
#ifndef TESTS_BENCH_CLUSTER_H
#define TESTS_BENCH_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "extender/inventory/store.h"
#include "topology/inventory.h"

#define BENCH_NUMA 8
#define BENCH_GIB ((int64_t)1 << 30)
/* The random sequence's start: the cluster, then the candidate lists. */
#define BENCH_SEED UINT64_C(0x9e3779b97f4a7c15)

/* The name failures are prefixed with; resets the random sequence. */
void bench_init(const char *name);
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);
/* The machine line (bench_machine.h), then the library versions. */
void bench_print_header(const char *argv0);

/* xorshift64*: deterministic. bench_rnd_seed restarts the sequence. */
void bench_rnd_seed(uint64_t seed);
uint64_t bench_rnd(void);
int64_t bench_rnd_below(int64_t k);

/* A growable byte buffer, always NUL-terminated after the first put. */
struct bench_buf {
	char *p;
	size_t len, cap;
};

void bench_buf_put(struct bench_buf *b, const char *s, size_t n);
void bench_buf_str(struct bench_buf *b, const char *s);

/* --- the cluster --- */

/* "worker-NNNNN". */
void bench_node_name(size_t id, char *buf, size_t size);
/* The id of "worker-NNNNN" when below nodes, else SIZE_MAX. */
size_t bench_node_id(const char *name, size_t nodes);
/* Exactly 70 / 20 / 10 % over every ten consecutive ids. */
const char *bench_policy_of(size_t id);
/* Node id's inventory from the next random numbers: two sockets of four
 * NUMA nodes; per NUMA node cpu 16 (0..16 free), memory 64Gi (62Gi
 * allocatable on NUMA 0; 0..48Gi in use), on a third of the nodes
 * hugepages-1Gi 8Gi (0..8Gi free); nvidia.com/gpu 0..2 and
 * dsa.intel.com/wq-user-shared 0..4 per NUMA node (listed only where
 * present), partly in use. */
struct inventory_node *bench_node_build(size_t id);
/* Builds ids 0..nodes-1 in order, publishes them in st (origin "bench",
 * version 1000000 + id), marks st ready and prints the "cluster:" line. */
void bench_cluster_publish(struct store *st, size_t nodes);

/* --- requests --- */

/* The pod of tests/data/fixtures/wire/filter-request-nodecache.json, compact:
 * Guaranteed; server: cpu 8, memory 32Gi, nvidia.com/gpu 1, dsa 1; metrics:
 * cpu 1, memory 512Mi. */
extern const char bench_pod_json[];
extern const size_t bench_pod_len;

/* A random permutation of 0..nodes-1 (malloc'd, nodes entries) whose first n
 * are the candidates, as kube-scheduler's node tree hands them out; when
 * n == nodes and !shuffle_all, the identity. */
size_t *bench_candidates(size_t nodes, size_t n, bool shuffle_all);
/* out = ExtenderArgs {"Pod":pod,"Nodes":null,"NodeNames":[ids' names]}. */
void bench_args_body(const char *pod, size_t pod_len, const size_t *ids, size_t n,
		     struct bench_buf *out);

/* --- the client: one libcurl easy handle, one keep-alive connection --- */

struct bench_client {
	CURL *curl;
	struct curl_slist *headers;
	struct bench_buf reply;
	char filter_url[64], prio_url[64], metrics_url[64];
	long connects;               /* connections libcurl opened */
	long requests;
};

/* As kube-scheduler's client: POST, application/json, no Expect, TCP_NODELAY. */
void bench_client_init(struct bench_client *c, int port);
void bench_client_cleanup(struct bench_client *c);
/* POSTs body to /filter or /prioritize; the reply lands in c->reply; dies
 * unless HTTP 200. Returns the client-side latency in ns (curl_easy_perform,
 * from the first byte sent to the last byte read). */
uint64_t bench_client_post(struct bench_client *c, bool filter, const char *body, size_t len);
/* GET /metrics on the same connection: the server's own duration sum (s)
 * and count for verb ("filter", "prioritize"), measured from the request's
 * first callback to its reply being queued. */
void bench_server_time(struct bench_client *c, const char *verb, double *sum_s, double *count);

/* qsort order of uint64_t. */
int bench_cmp_u64(const void *a, const void *b);
/* The p-quantile (0..1, nearest rank) of n >= 1 sorted nanosecond samples, in us. */
double bench_pct_us(const uint64_t *sorted_ns, size_t n, double p);

/* One row of a benchmark's target table. */
struct bench_target {
	char what[96];
	char goal[24];
	char got[48];
	bool ok;
};

/* Fills t: the goal ("<= 2x", ">= 1000/s") and what was measured, with how
 * far off when missed. Returns t->ok. */
bool bench_target_set(struct bench_target *t, const char *what, bool lower_is_better,
		      double limit, double got, const char *unit);

#endif
