/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender serve` as a process against the fake API server, for the
 * integration tests that drive it as kube-scheduler does: the kubeconfig
 * that points serve at the fake, its config file, starting it and waiting
 * until it listens and is ready, GET and POST on its port, its metrics and
 * its ledger, stopping it and removing its files.
 *
 * A test writes the kubeconfig and the config itself (its settings differ)
 * or, for the two-node cluster of test_preempt and test_kubelet_feedback,
 * calls serve_cluster_start_pair, which does all of it.
 *
 * No cmocka here (the benchmarks link tests/support/ too): a function that
 * fails says why on stderr and returns false, NULL or a status, and the test
 * asserts on that. A temporary file that cannot be created aborts. */
#ifndef TESTS_SERVE_CLUSTER_H
#define TESTS_SERVE_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct fake_apiserver;
struct http_client;
struct json_object;

struct serve_cluster {
	struct fake_apiserver *api;
	/* /tmp/numa-<tag>-kc-XXXXXX, /tmp/numa-<tag>-cfg-XXXXXX, <config>.log,
	 * <config>.decisions.jsonl */
	char kubeconfig[64], config[64], log[80], decisions[96];
	int port; /* 0 until serve logs that it listens */
	pid_t pid;
};

/* CLOCK_MONOTONIC in seconds. */
double serve_cluster_now(void);

/* Creates c->kubeconfig (/tmp/numa-<tag>-kc-XXXXXX): the fake API server
 * c->api over plain HTTP, with bearer token. */
void serve_cluster_write_kubeconfig(struct serve_cluster *c, const char *tag, const char *token);
/* Creates c->config (/tmp/numa-<tag>-cfg-XXXXXX), names c->log and
 * c->decisions after it, and returns the config open for writing; the
 * caller writes serve's settings and closes it. */
FILE *serve_cluster_open_config(struct serve_cluster *c, const char *tag);

/* Starts `serve --config c->config` (spawn_serve_bin()) with its output in
 * c->log and sets c->pid; does not wait. */
void serve_cluster_launch(struct serve_cluster *c);
/* Waits up to 20 s for the port serve logs (c->port: listen on port 0 in
 * the config) and up to 20 s more for /readyz to answer 200. */
bool serve_cluster_wait_ready(struct serve_cluster *c);
/* SIGTERM to serve, reaped: its exit status (spawn_wait_exit; -1 when it was
 * still running after 20 s and had to be killed). */
int serve_cluster_terminate(struct serve_cluster *c);
/* serve_cluster_terminate, then stops the fake API server and removes the
 * config, kubeconfig, log and decision log; serve's exit status. */
int serve_cluster_stop(struct serve_cluster *c);

/* GET path on serve: the HTTP status (-1 when the request failed) and, when
 * body is not NULL, a copy of the body (free it). */
long serve_cluster_get(const struct serve_cluster *c, const char *path, char **body);
/* POST body to /numa/<verb> with client h (NULL: a client of its own): the
 * JSON body of a 200 answer (json_object_put), else NULL. */
struct json_object *serve_cluster_post(const struct serve_cluster *c, struct http_client *h, const char *verb,
				       const char *body);
/* The value of the sample named `name` (with its labels, as on the line's
 * start) on /metrics, -1 when absent or when /metrics does not answer 200. */
int64_t serve_cluster_metric(const struct serve_cluster *c, const char *name);
/* Waits up to `seconds` until that sample is want; false (what it is then
 * on stderr) when it never was. */
bool serve_cluster_wait_metric(const struct serve_cluster *c, const char *name, int64_t want,
			       double seconds);
/* Waits up to 15 s until /ledger/<node> shows uid followed by placement;
 * false when it never did. */
bool serve_cluster_wait_ledger(const struct serve_cluster *c, const char *node, const char *uid,
			       const char *placement);

/* --- the two-node cluster of test_preempt and test_kubelet_feedback ---
 * Nodes w1 and w2, single-numa-node with pod scope; NUMA 0 has 8 CPUs,
 * 32Gi and 2 GPUs, NUMA 1 8 CPUs and 32Gi. Pods live in namespace "pre". */

/* Starts the fake API server (token) with both NRTs, writes the kubeconfig
 * and a config (decision log, port 0, urlPrefix /numa, kubernetes inventory,
 * predicted ledger, the DRA inventory on, as the manifests have it; log
 * level info), launches serve and waits until it is
 * ready; false when the fake or serve did not start. */
bool serve_cluster_start_pair(struct serve_cluster *c, const char *tag, const char *token);
/* A Guaranteed pod of cpus CPUs, 1Gi and gpus GPUs, with priority prio;
 * node NULL: Pending, else Running there. */
void serve_cluster_pod_text(const char *name, const char *uid, int prio, int cpus, int gpus, const char *node,
			    char *buf, size_t size);
/* A pod through our filter (when through_us, so its placement is known),
 * then bound to node; waits until the ledger of node holds it with placement
 * known, or unknown when not through_us. False when the filter did not
 * answer or did not pass node, or the ledger never showed the pod. */
bool serve_cluster_place(struct serve_cluster *c, const char *name, const char *uid, int prio, int cpus, int gpus,
			 const char *node, bool through_us);

#endif
