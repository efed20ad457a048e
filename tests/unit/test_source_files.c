/* SPDX-License-Identifier: Apache-2.0 */
/* The file source over 5000 files: all load; a rescan with nothing changed
 * publishes nothing; one edited file among them is picked up by the next
 * scan and only its node gets a new snapshot; a deleted one gives up its
 * node; a node defined in a second file stays with the first. Then the
 * thread: polling (watching off) sees an edit and a deletion within a few
 * polls; watching with a 60 s poll interval sees renames, in-place writes
 * (only once closed), new files and deletions within seconds through
 * inotify; a ConfigMap's ..data swap; a symlink to a file in another
 * directory, edited there; the same file behind a replaced directory, seen
 * by the safety rescan; a hard link written through its other path; an overflowing event queue; and a directory deleted
 * and recreated, watched again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "extender/log.h"
#include "tests/support/scratch_dir.h"

#define FILES 5000
#define POLL_MS 100
#define DEADLINE_MS 60000
/* Watching with this poll interval (and full rescans as rare), a change
 * seen within PROMPT_MS came through inotify. */
#define LONG_POLL_MS 60000
#define PROMPT_MS 10000

static char dir[] = "/tmp/numa-sf-XXXXXX";

static void write_head(FILE *f, const char *name)
{
	fprintf(f, "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		   "metadata: {name: %s}\nattributes:\n"
		   "- {name: topologyManagerPolicy, value: single-numa-node}\n"
		   "- {name: topologyManagerScope, value: pod}\nzones:\n",
		name);
}

static void write_zone(FILE *f, int z)
{
	fprintf(f, "- name: node-%d\n  type: Node\n  resources:\n"
		   "  - {name: cpu, capacity: \"4\", allocatable: \"4\", available: \"4\"}\n",
		z);
}

/* d/file holding `name` with `zones` zones, written aside and renamed into
 * place. */
static void write_nrt(const char *d, const char *file, const char *name, int zones)
{
	char path[256], tmp[256];
	FILE *f;
	int z;

	snprintf(path, sizeof path, "%s/%s", d, file);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", d, file);
	f = fopen(tmp, "w");
	assert_non_null(f);
	write_head(f, name);
	for (z = 0; z < zones; z++)
		write_zone(f, z);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* node-NNNNN.yaml holding `name` with `zones` zones (renamed into place). */
static void write_file(const char *file, const char *name, int zones)
{
	write_nrt(dir, file, name, zones);
}

static void write_node(int i, int zones)
{
	char file[64], name[32];

	snprintf(file, sizeof file, "node-%05d.yaml", i);
	snprintf(name, sizeof name, "node-%05d", i);
	write_file(file, name, zones);
}

static void remove_node_file(int i)
{
	char path[128];

	snprintf(path, sizeof path, "%s/node-%05d.yaml", dir, i);
	assert_int_equal(unlink(path), 0);
}

static int setup(void **state)
{
	int i;

	(void)state;
	log_set_level(LOG_LEVEL_ERROR);
	if (scratch_dir_make(dir) != 0)
		return -1;
	for (i = 0; i < FILES; i++)
		write_node(i, 2);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

/* The node's NUMA zone count in the current set, or -1 when absent. */
static int zones_of(struct store *store, const char *name)
{
	struct store_set *set = store_acquire(store);
	const struct store_node *n = store_get(set, name);
	int zones = n && n->inventory ? n->inventory->numa_count : -1;

	store_release(set);
	return zones;
}

static uint64_t id_of(struct store *store, const char *name)
{
	struct store_set *set = store_acquire(store);
	const struct store_node *n = store_get(set, name);
	uint64_t id = n ? n->id : 0;

	store_release(set);
	return id;
}

static uint64_t generation(struct store *store)
{
	struct store_set *set = store_acquire(store);
	uint64_t g = store_generation(set);

	store_release(set);
	return g;
}

static size_t size(struct store *store)
{
	struct store_set *set = store_acquire(store);
	size_t n = store_size(set);

	store_release(set);
	return n;
}

static void scans_pick_up_one_edit_among_5000(void **state)
{
	struct store *store = store_new();
	struct source_files *sf = source_files_new(store, dir);
	uint64_t gen, id_other, id_edited;

	(void)state;
	assert_int_equal(source_files_scan(sf), 0);
	assert_true(store_ready(store));
	assert_int_equal(size(store), FILES);
	assert_int_equal(zones_of(store, "node-00000"), 2);
	assert_int_equal(zones_of(store, "node-04999"), 2);
	/* Nothing changed: nothing published. */
	gen = generation(store);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(generation(store), gen);
	/* One file edited: the next scan has it, and only it. */
	id_other = id_of(store, "node-01234");
	id_edited = id_of(store, "node-02500");
	write_node(2500, 3);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(generation(store), gen + 1);
	assert_int_equal(zones_of(store, "node-02500"), 3);
	assert_int_not_equal(id_of(store, "node-02500"), id_edited);
	assert_int_equal(id_of(store, "node-01234"), id_other);
	assert_int_equal(size(store), FILES);
	/* One file deleted: the next scan drops its node. */
	remove_node_file(4321);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "node-04321"), -1);
	assert_int_equal(size(store), FILES - 1);
	assert_int_equal(generation(store), gen + 2);
	/* A second file naming a node another file holds: the first keeps it
	 * (node-00007.yaml sorts first). */
	write_file("zz-dup.yaml", "node-00007", 4);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "node-00007"), 2);
	/* The second file changed to a node of its own: that one appears. */
	write_file("zz-dup.yaml", "node-extra", 4);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "node-extra"), 4);
	assert_int_equal(zones_of(store, "node-00007"), 2);
	assert_int_equal(size(store), FILES);
	/* A file gone and its node moved to another file in one scan. */
	remove_node_file(8);
	write_file("zz-dup.yaml", "node-00008", 1);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "node-00008"), 1);
	assert_int_equal(zones_of(store, "node-extra"), -1);
	assert_int_equal(size(store), FILES - 1);
	/* Put back what this test changed. */
	{
		char path[128];

		snprintf(path, sizeof path, "%s/zz-dup.yaml", dir);
		assert_int_equal(unlink(path), 0);
	}
	write_node(4321, 2);
	write_node(8, 2);
	write_node(2500, 2);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(size(store), FILES);
	assert_int_equal(zones_of(store, "node-00008"), 2);
	source_files_free(sf);
	store_free(store);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until the node has `zones` zones (-1: absent); returns the ms it took. */
static int64_t wait_zones(struct store *store, const char *name, int zones)
{
	int64_t t0 = now_ms();

	while (zones_of(store, name) != zones) {
		if (now_ms() - t0 > DEADLINE_MS)
			fail_msg("%s never had %d zones", name, zones);
		usleep(10 * 1000);
	}
	return now_ms() - t0;
}

/* Waits up to limit_ms until the node has `zones` zones (-1: absent);
 * returns the ms it took, or -1 on timeout. */
static int64_t wait_zones_within(struct store *store, const char *name, int zones, int64_t limit_ms)
{
	int64_t t0 = now_ms();

	while (zones_of(store, name) != zones) {
		if (now_ms() - t0 > limit_ms)
			return -1;
		usleep(5 * 1000);
	}
	return now_ms() - t0;
}

static struct source_files_stats stats_of(struct source_files *sf)
{
	struct source_files_stats st;

	source_files_get_stats(sf, &st);
	return st;
}

/* Waits until the thread says it watches (or not); false on timeout. */
static bool wait_watching(struct source_files *sf, bool watching)
{
	int64_t t0 = now_ms();

	while (stats_of(sf).watching != watching) {
		if (now_ms() - t0 > DEADLINE_MS)
			return false;
		usleep(5 * 1000);
	}
	return true;
}

/* The thread with watching off: the poll interval as before. */
static void polling_sees_an_edit_and_a_deletion(void **state)
{
	struct store *store = store_new();
	struct source_files *sf = source_files_new(store, dir);
	struct source_files_stats st;
	int64_t t0, scan_ms, ms;

	(void)state;
	t0 = now_ms();
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(size(store), FILES);
	t0 = now_ms();
	source_files_scan(sf);
	scan_ms = now_ms() - t0;
	source_files_set_watch(sf, false);
	source_files_start(sf, POLL_MS);
	write_node(1000, 4);
	ms = wait_zones(store, "node-01000", 4);
	print_message("polling: edit seen after %lld ms (poll %d ms, idle rescan %lld ms)\n",
		      (long long)ms, POLL_MS, (long long)scan_ms);
	remove_node_file(1001);
	ms = wait_zones(store, "node-01001", -1);
	print_message("polling: deletion seen after %lld ms\n", (long long)ms);
	assert_int_equal(size(store), FILES - 1);
	/* Scans are counted before they publish: both are counted now. */
	st = stats_of(sf);
	assert_false(st.watching);
	assert_true(st.full_scans >= 2);
	assert_int_equal(st.named_scans, 0);
	assert_int_equal(st.watches, 0);
	source_files_free(sf);
	store_free(store);
	write_node(1000, 2);
	write_node(1001, 2);
}

/* Watching, with a poll interval (and so a safety rescan period) of 60 s:
 * whatever is seen within PROMPT_MS came through inotify. Whether an event
 * led to a named scan or a full one is not asserted: a file that is gone
 * before its watch is added (a writer's temporary file, renamed at once)
 * makes the next scan a full one, as timing decides. */
static void events_see_changes_with_a_long_poll(void **state)
{
	struct store *store = store_new();
	struct source_files *sf = source_files_new(store, dir);
	struct source_files_stats st;
	char path[128];
	int64_t ms;
	FILE *f;
	int z;

	(void)state;
	assert_int_equal(source_files_scan(sf), 0);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	/* Atomic rename. */
	write_node(1000, 4);
	ms = wait_zones_within(store, "node-01000", 4, PROMPT_MS);
	print_message("watching: rename seen after %lld ms (poll %d ms)\n", (long long)ms,
		      LONG_POLL_MS);
	assert_in_range(ms, 0, PROMPT_MS);
	/* Deletion. */
	remove_node_file(1001);
	ms = wait_zones_within(store, "node-01001", -1, PROMPT_MS);
	print_message("watching: deletion seen after %lld ms\n", (long long)ms);
	assert_in_range(ms, 0, PROMPT_MS);
	assert_int_equal(size(store), FILES - 1);
	/* A new file. */
	write_file("node-new.yaml", "node-new", 1);
	assert_in_range(wait_zones_within(store, "node-new", 1, PROMPT_MS), 0, PROMPT_MS);
	/* Written in place: not read while its writer still writes (here a
	 * complete 3-zone document, then a fourth zone), read once closed. */
	snprintf(path, sizeof path, "%s/node-01002.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	write_head(f, "node-01002");
	for (z = 0; z < 3; z++)
		write_zone(f, z);
	assert_int_equal(fflush(f), 0);
	usleep(500 * 1000); /* ten times the event delay */
	assert_int_equal(zones_of(store, "node-01002"), 2);
	write_zone(f, 3);
	assert_int_equal(fclose(f), 0);
	ms = wait_zones_within(store, "node-01002", 4, PROMPT_MS);
	print_message("watching: in-place write seen %lld ms after close\n", (long long)ms);
	assert_in_range(ms, 0, PROMPT_MS);
	st = stats_of(sf);
	assert_true(st.watching);
	assert_int_equal(st.overflows, 0);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.watches, 1);
	source_files_free(sf);
	store_free(store);
	snprintf(path, sizeof path, "%s/node-new.yaml", dir);
	assert_int_equal(unlink(path), 0);
	write_node(1000, 2);
	write_node(1001, 2);
	write_node(1002, 2);
}

/* A scratch directory next to the shared one; removed by rm_rf. */
static void scratch(char *out, size_t cap, const char *what)
{
	snprintf(out, cap, "/tmp/numa-sf-%s-XXXXXX", what);
	assert_int_equal(scratch_dir_make(out), 0);
}

static void rm_rf(const char *path)
{
	assert_int_equal(scratch_dir_remove(path), 0);
}

/* One step of kubelet's AtomicWriter: the files in a new timestamped
 * directory, ..data swapped to it by a rename, the old one removed. */
static void configmap_update(const char *d, int version, int zones_a, int zones_b)
{
	char ts[256], link[256], tmp[256], old[256];

	snprintf(ts, sizeof ts, "%s/..2024_01_01_00_00_0%d", d, version);
	assert_int_equal(mkdir(ts, 0755), 0);
	write_nrt(ts, "node-a.yaml", "cm-a", zones_a);
	if (zones_b > 0)
		write_nrt(ts, "node-b.yaml", "cm-b", zones_b);
	snprintf(link, sizeof link, "%s/..data_tmp", d);
	snprintf(tmp, sizeof tmp, "..2024_01_01_00_00_0%d", version);
	assert_int_equal(symlink(tmp, link), 0);
	snprintf(tmp, sizeof tmp, "%s/..data", d);
	assert_int_equal(rename(link, tmp), 0);
	if (version > 1) {
		snprintf(old, sizeof old, "%s/..2024_01_01_00_00_0%d", d, version - 1);
		rm_rf(old);
	}
}

static void configmap_data_swap_is_seen(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	char d[64], link[128];

	(void)state;
	scratch(d, sizeof d, "cm");
	configmap_update(d, 1, 2, 0);
	snprintf(link, sizeof link, "%s/node-a.yaml", d);
	assert_int_equal(symlink("..data/node-a.yaml", link), 0);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "cm-a"), 2);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	/* The file's own name raises no event: only ..data does. */
	configmap_update(d, 2, 3, 0);
	assert_in_range(wait_zones_within(store, "cm-a", 3, PROMPT_MS), 0, PROMPT_MS);
	/* Again (the new target directory is watched now), with a new key:
	 * kubelet adds its symlink after the swap. */
	configmap_update(d, 3, 4, 1);
	assert_in_range(wait_zones_within(store, "cm-a", 4, PROMPT_MS), 0, PROMPT_MS);
	snprintf(link, sizeof link, "%s/node-b.yaml", d);
	assert_int_equal(symlink("..data/node-b.yaml", link), 0);
	assert_in_range(wait_zones_within(store, "cm-b", 1, PROMPT_MS), 0, PROMPT_MS);
	/* A key removed: its symlink goes. */
	assert_int_equal(unlink(link), 0);
	assert_in_range(wait_zones_within(store, "cm-b", -1, PROMPT_MS), 0, PROMPT_MS);
	assert_true(stats_of(sf).watching);
	assert_int_equal(stats_of(sf).fallbacks, 0);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
}

/* link.yaml -> <outside>/sub/target.yaml, edited where it lives: an event
 * in the target's directory (the safety rescan is a minute away). */
static void symlink_outside_the_directory(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	char d[64], out[64], sub[96], target[128], ln[128];
	int64_t ms;

	(void)state;
	scratch(d, sizeof d, "ln");
	scratch(out, sizeof out, "out");
	snprintf(sub, sizeof sub, "%s/sub", out);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_nrt(sub, "target.yaml", "outside", 2);
	snprintf(target, sizeof target, "%s/target.yaml", sub);
	snprintf(ln, sizeof ln, "%s/link.yaml", d);
	assert_int_equal(symlink(target, ln), 0);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "outside"), 2);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	assert_int_equal(stats_of(sf).watches, 2);
	write_nrt(sub, "target.yaml", "outside", 3);
	ms = wait_zones_within(store, "outside", 3, PROMPT_MS);
	print_message("watching: symlink target edited, seen after %lld ms\n", (long long)ms);
	assert_in_range(ms, 0, PROMPT_MS);
	/* The link pointed elsewhere (renamed over): read at once, and the new
	 * target's directory is watched from then on. */
	write_nrt(out, "other.yaml", "outside", 1);
	snprintf(target, sizeof target, "%s/other.yaml", out);
	{
		char tmp[160];

		snprintf(tmp, sizeof tmp, "%s/.link.tmp", d);
		assert_int_equal(symlink(target, tmp), 0);
		assert_int_equal(rename(tmp, ln), 0);
	}
	assert_in_range(wait_zones_within(store, "outside", 1, PROMPT_MS), 0, PROMPT_MS);
	write_nrt(out, "other.yaml", "outside", 4);
	assert_in_range(wait_zones_within(store, "outside", 4, PROMPT_MS), 0, PROMPT_MS);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
	rm_rf(out);
}

/* The same, but the directory above the target's is swapped for another
 * holding a new target: no watch sees that, the safety rescan (1 s here)
 * does, and watches the new target's directory from then on. */
static void safety_rescan_sees_a_replaced_directory(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	char d[64], out[64], sub[96], target[128], ln[128], moved[96];
	struct source_files_stats before;
	int64_t ms;

	(void)state;
	scratch(d, sizeof d, "sr");
	scratch(out, sizeof out, "srout");
	snprintf(sub, sizeof sub, "%s/sub", out);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_nrt(sub, "target.yaml", "behind", 2);
	snprintf(target, sizeof target, "%s/target.yaml", sub);
	snprintf(ln, sizeof ln, "%s/link.yaml", d);
	assert_int_equal(symlink(target, ln), 0);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	source_files_set_full_rescan_ms(sf, 1000);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	before = stats_of(sf);
	snprintf(moved, sizeof moved, "%s.old", out);
	assert_int_equal(rename(out, moved), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_nrt(sub, "target.yaml", "behind", 4);
	ms = wait_zones_within(store, "behind", 4, PROMPT_MS);
	print_message("watching: target behind a replaced directory, seen after %lld ms\n",
		      (long long)ms);
	assert_in_range(ms, 0, PROMPT_MS);
	assert_true(stats_of(sf).full_scans > before.full_scans);
	write_nrt(sub, "target.yaml", "behind", 1);
	assert_in_range(wait_zones_within(store, "behind", 1, PROMPT_MS), 0, PROMPT_MS);
	assert_true(stats_of(sf).watching);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
	rm_rf(out);
	rm_rf(moved);
}

/* h.yaml is a hard link of a file in another directory, written in place
 * there: only a watch on the file itself sees that. */
static void hard_link_written_elsewhere(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	char d[64], out[64], target[128], hl[128];
	int64_t ms;
	FILE *f;
	int z;

	(void)state;
	scratch(d, sizeof d, "hl");
	scratch(out, sizeof out, "hlout");
	write_nrt(out, "target.yaml", "hard", 2);
	snprintf(target, sizeof target, "%s/target.yaml", out);
	snprintf(hl, sizeof hl, "%s/h.yaml", d);
	assert_int_equal(link(target, hl), 0);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(zones_of(store, "hard"), 2);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	assert_int_equal(stats_of(sf).watches, 2);
	f = fopen(target, "w");
	assert_non_null(f);
	write_head(f, "hard");
	for (z = 0; z < 3; z++)
		write_zone(f, z);
	assert_int_equal(fclose(f), 0);
	ms = wait_zones_within(store, "hard", 3, PROMPT_MS);
	print_message("watching: hard link written elsewhere, seen after %lld ms\n", (long long)ms);
	assert_in_range(ms, 0, PROMPT_MS);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
	rm_rf(out);
}

static long max_queued_events(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	long n = 16384;

	if (f != NULL) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 16384;
		fclose(f);
	}
	return n;
}

/* Events gather for 3 s before they are read; meanwhile more than the
 * queue holds arrive, then a change whose events are lost: the overflow
 * is a full rescan, which sees it. */
static void queue_overflow_rescans_everything(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	char d[64], a[128], b[128];
	long i, n = max_queued_events() + 64;

	(void)state;
	scratch(d, sizeof d, "ovf");
	write_nrt(d, "a.yaml", "ovf-a", 1);
	write_nrt(d, "b.yaml", "ovf-b", 1);
	snprintf(a, sizeof a, "%s/a.yaml", d);
	snprintf(b, sizeof b, "%s/b.yaml", d);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	source_files_set_event_delay_ms(sf, 3000);
	source_files_start(sf, LONG_POLL_MS);
	assert_true(wait_watching(sf, true));
	/* Alternating names: the kernel merges only repeats of the last event. */
	for (i = 0; i < n; i++)
		assert_int_equal(utimensat(AT_FDCWD, (i & 1) ? b : a, NULL, 0), 0);
	write_nrt(d, "c.yaml", "ovf-c", 2);
	assert_in_range(wait_zones_within(store, "ovf-c", 2, PROMPT_MS), 0, PROMPT_MS);
	assert_true(stats_of(sf).overflows >= 1);
	assert_true(stats_of(sf).watching);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
}

/* The directory deleted: the thread polls (one warning) and, as polling
 * always did, keeps the last inventory while the directory is missing;
 * recreated: its files are read and it is watched again. */
static void deleted_and_recreated_directory(void **state)
{
	struct store *store = store_new();
	struct source_files *sf;
	struct source_files_stats st;
	char d[64];

	(void)state;
	scratch(d, sizeof d, "re");
	write_nrt(d, "a.yaml", "re-a", 2);
	sf = source_files_new(store, d);
	assert_int_equal(source_files_scan(sf), 0);
	source_files_start(sf, POLL_MS);
	assert_true(wait_watching(sf, true));
	rm_rf(d);
	assert_true(wait_watching(sf, false));
	assert_int_equal(stats_of(sf).fallbacks, 1);
	/* As when polling: a missing directory keeps the last inventory. */
	assert_int_equal(zones_of(store, "re-a"), 2);
	assert_int_equal(mkdir(d, 0755), 0);
	write_nrt(d, "a.yaml", "re-a", 3);
	assert_in_range(wait_zones_within(store, "re-a", 3, PROMPT_MS), 0, PROMPT_MS);
	assert_true(wait_watching(sf, true));
	/* Through events again. */
	st = stats_of(sf);
	write_nrt(d, "a.yaml", "re-a", 1);
	assert_in_range(wait_zones_within(store, "re-a", 1, PROMPT_MS), 0, PROMPT_MS);
	assert_true(stats_of(sf).named_scans > st.named_scans);
	assert_int_equal(stats_of(sf).fallbacks, 1);
	source_files_free(sf);
	store_free(store);
	rm_rf(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scans_pick_up_one_edit_among_5000),
		cmocka_unit_test(polling_sees_an_edit_and_a_deletion),
		cmocka_unit_test(events_see_changes_with_a_long_poll),
		cmocka_unit_test(configmap_data_swap_is_seen),
		cmocka_unit_test(symlink_outside_the_directory),
		cmocka_unit_test(safety_rescan_sees_a_replaced_directory),
		cmocka_unit_test(hard_link_written_elsewhere),
		cmocka_unit_test(queue_overflow_rescans_everything),
		cmocka_unit_test(deleted_and_recreated_directory),
	};

	return cmocka_run_group_tests_name("source_files", tests, setup, teardown);
}
