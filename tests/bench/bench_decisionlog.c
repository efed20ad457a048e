/* SPDX-License-Identifier: Apache-2.0 */
/* The decision-log writer's cost per record: 100k small records (one node,
 * about 400 bytes each) and 20k of ten nodes are built first, then handed to
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
#include "base/xalloc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run(const char *dir, int records, int nodes)
{
	static const char pod[] =
		"{\"metadata\":{\"name\":\"dsa-app-7f9c\",\"namespace\":\"dataplane\",\"uid\":"
		"\"3c5e1b2a-9d1f-4b8e-a7c2-0e6f5d4c3b2a\"},\"spec\":{\"containers\":[{\"name\":\"app\","
		"\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"1\"},"
		"\"limits\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"1\"}}}]}}";
	struct decision_record **recs = xcalloc((size_t)records, sizeof *recs);
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
	t0 = now_ns();
	for (i = 0; i < records; i++) {
		recs[i] = decision_record_new("filter", pod, settings);
		for (k = 0; k < nodes; k++) {
			snprintf(name, sizeof name, "worker-%03d", k);
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
	printf("%d records of %d node(s) into %s: built %.0f ns/record; written %.0f ns/record "
	       "(%.1f MB/s, %lld bytes)\n",
	       records, nodes, dir, (double)tb / records, (double)(t2 - t1) / records,
	       (double)st.st_size / 1e6 / ((double)(t2 - t1) / 1e9), (long long)st.st_size);
	unlink(path);
	settings_unref(settings);
	config_cleanup(&cfg);
	free(recs);
}

int main(void)
{
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";

	run(dir, 100000, 1);
	run(dir, 20000, 10);
	return 0;
}
