/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of the preempt verb on one node with many victims (not a test;
 * exits 0 whatever the numbers, 1 when a reply is wrong or the setup fails).
 *
 * handle_preempt in process, on the calling thread, over a store of one
 * node (two NUMA zones: 8 CPUs and 2 GPUs on NUMA 0, 8 CPUs on NUMA 1) and
 * a ledger that knows 102 pods there: "a" (8 CPUs, NUMA 0), "b" (4 CPUs,
 * NUMA 1) and 100 BestEffort pods, all through the bind path, so their
 * placements are known. The preemptor asks 4 CPUs and a GPU, priority 100.
 * The decision log is on, as in the shipped configuration. Three bodies,
 * each at 1000, 100,000 and 400,000 victims on that node (UIDs of 7
 * bytes: 400,000 of them make a 6.8 MB body, under the 8 MiB default
 * limit):
 *   kept      N-1 UIDs the ledger does not know, then "u-a": the node
 *             admits, kept as given (the reply names all N);
 *   unknown   N UIDs the ledger does not know: kept as given;
 *   repeated  "u-b" N times: one victim, which frees the wrong zone; "u-a"
 *             is added (the reply names u-b and u-a).
 * Each cell: CPU time of the calling thread (the one request thread that
 * serves it) and wall time, median of the runs; the peak resident memory
 * of the process during a run (VmHWM, reset before each; this process's
 * own check of the reply, which parses it with json-c, comes after), and
 * VmRSS after the cell, with glibc's heap set as the server sets it. The
 * target: 400,000 victims in under a second of one core.
 *
 * Modes: (none) the full run; --quick 1000 and 20,000 victims only (for
 * valgrind or sanitizers). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"
#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog.h"
#include "extender/http/handlers.h"
#include "extender/http/heap.h"
#include "extender/inventory/ledger.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "base/xalloc.h"
#include "topology/inventory.h"

#define RUNS 5

static const char NRT[] =
	"{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
	"\"metadata\":{\"name\":\"w1\",\"resourceVersion\":\"1\"},"
	"\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},"
	"{\"name\":\"topologyManagerScope\",\"value\":\"pod\"}],\"zones\":["
	"{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"32Gi\",\"allocatable\":\"32Gi\",\"available\":\"32Gi\"},"
	"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"2\",\"allocatable\":\"2\",\"available\":\"2\"}]},"
	"{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":["
	"{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\",\"available\":\"8\"},"
	"{\"name\":\"memory\",\"capacity\":\"32Gi\",\"allocatable\":\"32Gi\",\"available\":\"32Gi\"}]}]}";

/* A Guaranteed pod of cpus CPUs and 1Gi (cpus 0: BestEffort). */
static void pod_text(const char *name, const char *uid, int prio, int cpus, int gpus, char *buf, size_t size)
{
	char res[256] = "";

	if (cpus > 0)
		snprintf(res, sizeof res,
			 "\"resources\":{\"limits\":{\"cpu\":\"%d\",\"memory\":\"1Gi\"%s}},", cpus,
			 gpus ? ",\"nvidia.com/gpu\":\"1\"" : "");
	snprintf(buf, size,
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"pre\",\"uid\":\"%s\"},"
		 "\"spec\":{\"priority\":%d,\"containers\":[{%s\"name\":\"c\"}]}}",
		 name, uid, prio, res);
}

static bool bind_pod(struct ledger *l, const char *name, const char *uid, int cpus)
{
	struct pod_spec spec;
	struct errmsg msg;
	char text[1024], why[256];
	bool ok;

	pod_text(name, uid, 0, cpus, 0, text, sizeof text);
	if (pod_decode_buffer(text, strlen(text), "bench", &spec, &msg) != ERR_OK) {
		fprintf(stderr, "bench_preempt: %s\n", msg.text);
		return false;
	}
	ok = ledger_bind(l, &spec, uid, "w1", why, sizeof why) == LEDGER_BIND_ADDED;
	if (!ok)
		fprintf(stderr, "bench_preempt: bind %s: %s\n", name, why);
	pod_spec_cleanup(&spec);
	return ok;
}

enum shape { KEPT, UNKNOWN, REPEATED };
static const char *const shape_names[] = { "kept", "unknown", "repeated" };

/* The ExtenderPreemptionArgs of a shape at n victims (malloc'd). */
static char *body_of(enum shape s, size_t n, size_t *len)
{
	char pod[1024];
	size_t cap = 2048 + n * 20, i, o;
	char *b = xmalloc(cap);

	pod_text("hi", "u-hi", 100, 4, 1, pod, sizeof pod);
	o = (size_t)snprintf(b, cap, "{\"Pod\":%s,\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":"
				     "{\"w1\":{\"Pods\":[", pod);
	for (i = 0; i < n; i++) {
		const char *sep = i ? "," : "";

		if (s == REPEATED)
			o += (size_t)snprintf(b + o, cap - o, "%s{\"UID\":\"u-b\"}", sep);
		else if (s == KEPT && i == n - 1)
			o += (size_t)snprintf(b + o, cap - o, "%s{\"UID\":\"u-a\"}", sep);
		else
			o += (size_t)snprintf(b + o, cap - o, "%s{\"UID\":\"v%06zx\"}", sep, i);
	}
	o += (size_t)snprintf(b + o, cap - o, "],\"NumPDBViolations\":0}}}");
	*len = o;
	return b;
}

/* The victims kept on w1, -1 when the reply is not the expected shape. */
static long reply_victims(const struct reply *r, const char **last)
{
	struct json_object *o, *m, *n, *pods;
	long count = -1;

	*last = NULL;
	if (r->status != 200 || (o = json_tokener_parse(r->body)) == NULL)
		return -1;
	if (json_object_object_get_ex(o, "NodeNameToMetaVictims", &m) && json_object_object_get_ex(m, "w1", &n) &&
	    json_object_object_get_ex(n, "Pods", &pods) && json_object_is_type(pods, json_type_array)) {
		static char uid[64];
		size_t k = json_object_array_length(pods);

		count = (long)k;
		if (k > 0) {
			snprintf(uid, sizeof uid, "%s",
				 json_object_get_string(
					 json_object_object_get(json_object_array_get_idx(pods, k - 1), "UID")));
			*last = uid;
		}
	}
	json_object_put(o);
	return count;
}

static double secs(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* VmRSS and VmHWM of this process, in MiB. */
static void memory(double *rss, double *hwm)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	*rss = *hwm = -1;
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			*rss = strtod(line + 6, NULL) / 1024.0;
		else if (strncmp(line, "VmHWM:", 6) == 0)
			*hwm = strtod(line + 6, NULL) / 1024.0;
	}
	if (f)
		fclose(f);
}

/* Starts VmHWM again from VmRSS (Linux 4.0 and later; otherwise VmHWM
 * stays the process's peak so far). */
static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

static int cell(const struct handler_ctx *h, enum shape s, size_t n)
{
	size_t len, i;
	char *body = body_of(s, n, &len);
	double cpu[RUNS], wall[RUNS], rss = 0, hwm = 0, run_unused;
	int runs = n > 100000 ? 3 : RUNS;

	for (i = 0; i < (size_t)runs; i++) {
		struct reply r;
		double c0, w0, run_rss, run_hwm;
		const char *last;
		long got, want = s == REPEATED ? 2 : (long)n;

		memset(&r, 0, sizeof r);
		reset_peak();
		c0 = secs(CLOCK_THREAD_CPUTIME_ID);
		w0 = secs(CLOCK_MONOTONIC);
		handle_preempt(h, body, len, &r);
		cpu[i] = secs(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall[i] = secs(CLOCK_MONOTONIC) - w0;
		/* The reply is still held here, as the server holds it while
		 * sending. */
		memory(&run_rss, &run_hwm);
		if (run_hwm > hwm)
			hwm = run_hwm;
		got = reply_victims(&r, &last);
		if (got != want || last == NULL || strcmp(last, s == UNKNOWN ? "" : "u-a") != 0) {
			if (!(s == UNKNOWN && got == want && last != NULL && last[0] == 'v')) {
				fprintf(stderr, "bench_preempt: %s at %zu: %ld victims kept (want %ld), last %s: %.200s\n",
					shape_names[s], n, got, want, last ? last : "(none)", r.body ? r.body : "");
				free(r.body);
				free(body);
				return 1;
			}
		}
		free(r.body);
	}
	qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
	qsort(wall, (size_t)runs, sizeof *wall, cmp_double);
	memory(&rss, &run_unused);
	printf("  %-9s %7zu victims (%4.1f MB body): cpu %7.1f ms  wall %7.1f ms  (median of %d)  "
	       "peak VmHWM %4.0f MiB  VmRSS after %4.0f MiB\n",
	       shape_names[s], n, (double)len / 1e6, cpu[runs / 2] * 1e3, wall[runs / 2] * 1e3, runs, hwm, rss);
	free(body);
	return 0;
}

int main(int argc, char **argv)
{
	static const size_t full[] = { 1000, 100000, 400000 }, quick[] = { 1000, 20000 };
	bool q = argc > 1 && strcmp(argv[1], "--quick") == 0;
	const size_t *sizes = q ? quick : full;
	size_t nsizes = q ? 2 : 3, i;
	struct ledger_options lo = { LEDGER_PREDICTED, 3600000, 3600000, false };
	struct settings_holder holder;
	struct handler_ctx h;
	struct store_batch *b;
	struct nrt_object *objs = NULL;
	struct inventory_node *inv = NULL;
	struct config cfg;
	struct errmsg msg;
	char logpath[64];
	size_t nobjs = 0;
	int rc = 0, s;

	log_set_level(LOG_LEVEL_ERROR);
	heap_keep_for_requests(); /* as server_start does */
	memset(&h, 0, sizeof h);
	config_init(&cfg);
	settings_holder_init(&holder, settings_new(&cfg));
	h.settings = &holder;
	h.store = store_new();
	h.ledger = ledger_new(h.store, &lo);
	if (nrt_decode_buffer(NRT, strlen(NRT), "bench", &objs, &nobjs, &msg) != ERR_OK ||
	    inventory_node_new(&objs[0], &inv, &msg) != ERR_OK) {
		fprintf(stderr, "bench_preempt: %s\n", msg.text);
		return 1;
	}
	nrt_objects_free(objs, nobjs);
	b = store_batch_new();
	store_batch_put_raw(b, inv, "kubernetes", "1", NULL);
	store_publish(h.store, b);
	ledger_list_begin(h.ledger);
	ledger_list_end(h.ledger, true);
	if (!bind_pod(h.ledger, "a", "u-a", 8) || !bind_pod(h.ledger, "b", "u-b", 4))
		return 1;
	for (i = 0; i < 100; i++) {
		char name[32], uid[32];

		snprintf(name, sizeof name, "be-%03zu", i);
		snprintf(uid, sizeof uid, "u-be-%03zu", i);
		if (!bind_pod(h.ledger, name, uid, 0))
			return 1;
	}
	snprintf(logpath, sizeof logpath, "/tmp/numa-bench-preempt-%d.jsonl", (int)getpid());
	if (decision_log_open(logpath, (int64_t)64 << 20, 1, 64, &h.decisions, &msg) != ERR_OK) {
		fprintf(stderr, "bench_preempt: %s\n", msg.text);
		return 1;
	}
	printf("preempt, one node, 102 pods in the ledger, handle_preempt on this thread%s\n",
	       q ? " (--quick)" : "");
	for (i = 0; i < nsizes && rc == 0; i++)
		for (s = KEPT; s <= REPEATED && rc == 0; s++)
			rc = cell(&h, (enum shape)s, sizes[i]);
	decision_log_close(h.decisions);
	unlink(logpath);
	{
		char rotated[80];

		snprintf(rotated, sizeof rotated, "%s.1", logpath);
		unlink(rotated);
	}
	ledger_free(h.ledger);
	store_free(h.store);
	settings_holder_cleanup(&holder);
	config_cleanup(&cfg);
	return rc;
}
