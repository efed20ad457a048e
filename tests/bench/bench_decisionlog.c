/* SPDX-License-Identifier: Apache-2.0 */
/* The decision-log writer's cost per record: 100k small records (one node,
 * about 400 bytes each), 20k of ten nodes, and 50 of 2000 nodes that each
 * carry an inventory (so the file remembers 2000 inventory records and
 * every record asks after each of them) are built first, then handed to
 * the writer in one go; the time from the first submit to the end of
 * decision_log_close is the writer thread's alone (the submits cost a lock
 * each). The log goes to $BENCH_DIR (default /tmp): a disk and a tmpfs
 * differ by the cost of their write calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/decide/settings.h"
#include "extender/decisionlog.h"
#include "extender/inventory/store.h"
#include "base/xalloc.h"
#include "tests/support/bench_cluster.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run(const char *dir, int records, int nodes, bool inventories)
{
	static const char pod[] =
		"{\"metadata\":{\"name\":\"dsa-app-7f9c\",\"namespace\":\"dataplane\",\"uid\":"
		"\"3c5e1b2a-9d1f-4b8e-a7c2-0e6f5d4c3b2a\"},\"spec\":{\"containers\":[{\"name\":\"app\","
		"\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"1\"},"
		"\"limits\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"1\"}}}]}}";
	struct decision_record **recs = xcalloc((size_t)records, sizeof *recs);
	struct store_node **sns = xcalloc((size_t)nodes, sizeof *sns);
	struct decision_log *dl = NULL;
	struct config cfg;
	struct settings *settings;
	struct errmsg msg;
	struct stat st;
	char path[512], name[32];
	uint64_t t0, t1, t2, tb;
	int i, k;

	snprintf(path, sizeof path, "%s/bench-decisionlog-%d.jsonl", dir, (int)getpid());
	config_init(&cfg);
	settings = settings_new(&cfg);
	for (k = 0; inventories && k < nodes; k++) {
		snprintf(name, sizeof name, "%d", 1000000 + k);
		sns[k] = store_node_new(bench_node_build((size_t)k), "bench", name, xstrdup("{}"));
	}
	t0 = now_ns();
	for (i = 0; i < records; i++) {
		recs[i] = decision_record_new("filter", pod, settings);
		for (k = 0; k < nodes; k++) {
			snprintf(name, sizeof name, "worker-%03d", k);
			if (sns[k])
				decision_record_node(recs[i], name, sns[k], "pass", "", 1, 10, NULL);
			else
				decision_record_node(recs[i], name, NULL, "noInventory", "", 0, 0, NULL);
		}
	}
	tb = now_ns() - t0;
	if (decision_log_open(path, (int64_t)1 << 40, 1, records, &dl, &msg) != ERR_OK) {
		fprintf(stderr, "%s\n", msg.text);
		exit(1);
	}
	t1 = now_ns();
	for (i = 0; i < records; i++)
		decision_log_submit(dl, recs[i]);
	decision_log_close(dl);
	t2 = now_ns();
	if (stat(path, &st) != 0) {
		perror(path);
		exit(1);
	}
	printf("%d records of %d node(s)%s into %s: built %.0f ns/record; written %.0f ns/record "
	       "(%.1f MB/s, %lld bytes)\n",
	       records, nodes, inventories ? " with inventories" : "", dir, (double)tb / records, (double)(t2 - t1) / records,
	       (double)st.st_size / 1e6 / ((double)(t2 - t1) / 1e9), (long long)st.st_size);
	unlink(path);
	settings_unref(settings);
	config_cleanup(&cfg);
	for (k = 0; k < nodes; k++)
		store_node_unref(sns[k]);
	free(sns);
	free(recs);
}

int main(void)
{
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";

	bench_init("bench_decisionlog");
	run(dir, 100000, 1, false);
	run(dir, 20000, 10, false);
	run(dir, 50, 2000, true);
	return 0;
}
