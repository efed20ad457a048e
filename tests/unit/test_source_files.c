/* SPDX-License-Identifier: Apache-2.0 */
/* The file source over 5000 files: all load; a rescan with nothing changed
 * publishes nothing; one edited file among them is picked up by the next
 * scan and only its node gets a new snapshot; a deleted one gives up its
 * node; a node defined in a second file stays with the first. Then the
 * polling thread: an edit and a deletion are seen within a few polls. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extender/inventory/source_files.h"
#include "extender/inventory/store.h"
#include "extender/log.h"

#define FILES 5000
#define POLL_MS 100
#define DEADLINE_MS 60000

static char dir[] = "/tmp/numa-sf-XXXXXX";

/* node-NNNNN.yaml holding `name` with `zones` zones (renamed into place). */
static void write_file(const char *file, const char *name, int zones)
{
	char path[128], tmp[128];
	FILE *f;
	int z;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, file);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		   "metadata: {name: %s}\nattributes:\n"
		   "- {name: topologyManagerPolicy, value: single-numa-node}\n"
		   "- {name: topologyManagerScope, value: pod}\nzones:\n",
		name);
	for (z = 0; z < zones; z++)
		fprintf(f, "- name: node-%d\n  type: Node\n  resources:\n"
			   "  - {name: cpu, capacity: \"4\", allocatable: \"4\", available: \"4\"}\n",
			z);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
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
	log_set_level(CONFIG_LOG_ERROR);
	if (mkdtemp(dir) == NULL)
		return -1;
	for (i = 0; i < FILES; i++)
		write_node(i, 2);
	return 0;
}

static int teardown(void **state)
{
	char cmd[96];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
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

static void polling_sees_an_edit_and_a_deletion(void **state)
{
	struct store *store = store_new();
	struct source_files *sf = source_files_new(store, dir);
	int64_t t0, scan_ms, ms;

	(void)state;
	t0 = now_ms();
	assert_int_equal(source_files_scan(sf), 0);
	assert_int_equal(size(store), FILES);
	t0 = now_ms();
	source_files_scan(sf);
	scan_ms = now_ms() - t0;
	source_files_start(sf, POLL_MS);
	write_node(1000, 4);
	ms = wait_zones(store, "node-01000", 4);
	print_message("edit seen after %lld ms (poll %d ms, idle rescan %lld ms)\n", (long long)ms,
		      POLL_MS, (long long)scan_ms);
	remove_node_file(1001);
	ms = wait_zones(store, "node-01001", -1);
	print_message("deletion seen after %lld ms\n", (long long)ms);
	assert_int_equal(size(store), FILES - 1);
	source_files_free(sf);
	store_free(store);
	write_node(1000, 2);
	write_node(1001, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scans_pick_up_one_edit_among_5000),
		cmocka_unit_test(polling_sees_an_edit_and_a_deletion),
	};

	return cmocka_run_group_tests_name("source_files", tests, setup, teardown);
}
