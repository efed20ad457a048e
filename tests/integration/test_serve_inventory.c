/* SPDX-License-Identifier: Apache-2.0 */
/* serve as a process over a real inventory directory: a file truncated to 0
 * bytes (or holding no objects), one replaced by a symlink loop, one over
 * inventory.maxFileBytes: each is a warning and the node keeps its last good
 * inventory, so filter still rejects the pod it should reject (with
 * missingInventory: allow a node without one would pass). A node whose set
 * of NUMA zones changes is a warning and a metric. The binary comes from
 * $BIN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/http_client.h"
#include "tests/support/spawn.h"
#include "tests/support/scratch_dir.h"

/* Generous: sanitizer runs on a loaded machine are slow. */
#define DEADLINE_S 60
#define MAX_FILE_BYTES 65536

/* 8 exclusive CPUs: more than any one zone below has free. */
static const char FILTER[] =
	"{\"Pod\":{\"metadata\":{\"name\":\"big\",\"namespace\":\"default\",\"uid\":\"u-1\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{"
	"\"requests\":{\"cpu\":\"8\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"8\",\"memory\":\"1Gi\"}}}]},"
	"\"status\":{\"phase\":\"Pending\",\"qosClass\":\"Guaranteed\"}},"
	"\"NodeNames\":[\"%s\"]}";

struct env {
	char dir[64];
	char config[96];
	char log[96];
	pid_t pid;
	int port;
};

/* An NRT for `name` with `zones` NUMA zones of 4 free CPUs each; padded with
 * a comment to at least `pad` bytes. */
static void write_node(struct env *e, const char *file, const char *name, int zones, size_t pad)
{
	char path[160], tmp[176];
	size_t written;
	FILE *f;
	int z;

	snprintf(path, sizeof path, "%s/%s", e->dir, file);
	/* Written aside and renamed: the poller never sees half a file. */
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", e->dir, file);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\n"
		   "metadata: {name: %s}\nattributes:\n"
		   "- {name: topologyManagerPolicy, value: single-numa-node}\n"
		   "- {name: topologyManagerScope, value: pod}\nzones:\n",
		name);
	for (z = 0; z < zones; z++)
		fprintf(f, "- name: node-%d\n  type: Node\n  resources:\n"
			   "  - {name: cpu, capacity: \"4\", allocatable: \"4\", available: \"4\"}\n"
			   "  - {name: memory, capacity: \"8Gi\", allocatable: \"8Gi\", available: \"8Gi\"}\n",
			z);
	written = (size_t)ftell(f);
	while (written < pad) {
		fputs("# padding padding padding padding padding padding padding padding\n", f);
		written += 66;
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static struct env *env_start(void)
{
	struct env *e = calloc(1, sizeof *e);
	FILE *f;

	assert_non_null(e);
	e->pid = -1;
	snprintf(e->dir, sizeof e->dir, "/tmp/numa-inv-XXXXXX");
	assert_int_equal(scratch_dir_make(e->dir), 0);
	snprintf(e->config, sizeof e->config, "%s.yaml", e->dir);
	snprintf(e->log, sizeof e->log, "%s.log", e->dir);
	f = fopen(e->config, "w");
	assert_non_null(f);
	fprintf(f, "listen: \"127.0.0.1:0\"\nmissingInventory: allow\n"
		   "inventory: {source: files, dir: %s, pollInterval: 50ms, maxFileBytes: %d}\n"
		   "log: {level: info}\n",
		e->dir, MAX_FILE_BYTES);
	fclose(f);
	write_node(e, "worker-a.yaml", "worker-a", 2, 0);
	write_node(e, "worker-b.yaml", "worker-b", 2, 0);
	return e;
}

static void env_serve(struct env *e)
{
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", e->config, NULL };

	e->pid = spawn_process(argv, e->log);
	e->port = spawn_wait_listening(e->log, DEADLINE_S);
	if (e->port == 0)
		fail_msg("serve never listened (see %s)", e->log);
}

static int env_free(void **state)
{
	struct env *e = *state;

	if (e == NULL)
		return 0;
	spawn_cleanup(e->pid, e->dir, e->config, e->log);
	free(e);
	*state = NULL;
	return 0;
}

static long request(struct env *e, const char *method, const char *path, const char *body,
		    char **reply)
{
	return http_local_request(e->port, method, path, body, reply);
}

/* Whether filter rejects the pod on `node` (false: it passes). */
static bool rejected(struct env *e, const char *node)
{
	char body[1024], *reply = NULL, want[96];
	bool failed, passed;

	snprintf(body, sizeof body, FILTER, node);
	assert_int_equal(request(e, "POST", "/filter", body, &reply), 200);
	snprintf(want, sizeof want, "\"NodeNames\":[\"%s\"]", node);
	passed = strstr(reply, want) != NULL;
	/* Unresolvable: no zone ever has 8 CPUs. */
	snprintf(want, sizeof want, "\"FailedAndUnresolvableNodes\":{\"%s\":", node);
	failed = strstr(reply, want) != NULL;
	if (passed == failed)
		fail_msg("unexpected filter reply: %s", reply);
	free(reply);
	return failed;
}

static bool wait_metric(struct env *e, const char *line)
{
	return http_local_wait_for(e->port, "/metrics", line, DEADLINE_S);
}

static void wait_log(struct env *e, const char *text)
{
	if (!spawn_wait_log(e->log, text, DEADLINE_S))
		fail_msg("the log never said: %s (see %s)", text, e->log);
}

static void stop(struct env *e)
{
	kill(e->pid, SIGTERM);
	assert_int_equal(spawn_wait_exit(e->pid, DEADLINE_S), 0);
	e->pid = -1;
}

/* Both nodes loaded: the pod (8 CPUs, 4 free per zone) is rejected on each. */
static void start_with_two_nodes(struct env *e)
{
	env_serve(e);
	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 2\n"));
	assert_true(rejected(e, "worker-a"));
	assert_true(rejected(e, "worker-b"));
	/* Control: a node without an inventory passes (missingInventory: allow). */
	assert_false(rejected(e, "worker-none"));
}

static void empty_file_keeps_the_last_good_inventory(void **state)
{
	struct env *e = *state = env_start();
	char path[160], text[256];
	int fd;

	start_with_two_nodes(e);
	/* A writer that truncates, then writes: caught between the two. */
	snprintf(path, sizeof path, "%s/worker-a.yaml", e->dir);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	close(fd);
	snprintf(text, sizeof text, "file=\"%s\" bytes=0", path);
	wait_log(e, text);
	assert_true(rejected(e, "worker-a"));
	/* A file of comments holds no objects: the same. */
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("# being rewritten\n", f);
		fclose(f);
	}
	snprintf(text, sizeof text, "file=\"%s\" bytes=18", path);
	wait_log(e, text);
	assert_true(rejected(e, "worker-a"));
	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 2\n"));
	assert_true(spawn_log_contains(e->log, "inventory file is empty or holds no objects"));
	/* A file that does not decode is an error naming what is wrong, not
	 * an empty file. */
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("kind: NodeResourceTopology\nmetadata: {name: [\n", f);
		fclose(f);
	}
	snprintf(text, sizeof text, "cannot load inventory file; its nodes keep their last good "
				    "inventory\" file=\"%s\" error=", path);
	wait_log(e, text);
	assert_true(rejected(e, "worker-a"));
	stop(e);
}

static void symlink_loop_keeps_the_node(void **state)
{
	struct env *e = *state = env_start();
	char path[160], tmp[160], text[256];

	start_with_two_nodes(e);
	snprintf(path, sizeof path, "%s/worker-b.yaml", e->dir);
	snprintf(tmp, sizeof tmp, "%s/.loop", e->dir);
	/* worker-b.yaml -> worker-b.yaml, swapped in at once. */
	assert_int_equal(symlink("worker-b.yaml", tmp), 0);
	assert_int_equal(rename(tmp, path), 0);
	snprintf(text, sizeof text, "cannot read inventory file; its nodes keep their last good "
				    "inventory\" file=\"%s\" nodes=1 error=", path);
	wait_log(e, text);
	assert_true(spawn_log_contains(e->log, "Too many levels of symbolic links"));
	assert_false(spawn_log_contains(e->log, "inventory file removed"));
	assert_true(rejected(e, "worker-b"));
	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 2\n"));
	/* Fixed: the node is read again (now with one more zone, still too
	 * small for the pod). */
	assert_int_equal(unlink(path), 0);
	write_node(e, "worker-b.yaml", "worker-b", 3, 0);
	wait_log(e, "node=\"worker-b\" before=0,1 after=0,1,2");
	assert_true(rejected(e, "worker-b"));
	stop(e);
}

/* Root reads any file: nothing to see there. */
static void unreadable_file_keeps_the_node(void **state)
{
	struct env *e;
	char path[160], text[256];

	if (geteuid() == 0)
		skip();
	e = *state = env_start();
	start_with_two_nodes(e);
	snprintf(path, sizeof path, "%s/worker-a.yaml", e->dir);
	assert_int_equal(chmod(path, 0), 0);
	snprintf(text, sizeof text, "cannot read inventory file; its nodes keep their last good "
				    "inventory\" file=\"%s\" error=", path);
	wait_log(e, text);
	assert_true(spawn_log_contains(e->log, "Permission denied"));
	assert_true(rejected(e, "worker-a"));
	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 2\n"));
	stop(e);
}

static void oversize_file_is_refused(void **state)
{
	struct env *e = *state = env_start();
	char text[256];

	start_with_two_nodes(e);
	/* A new node in a file over the cap: not read. */
	write_node(e, "worker-huge.yaml", "worker-huge", 1, 2 * MAX_FILE_BYTES);
	snprintf(text, sizeof text, "inventory file larger than inventory.maxFileBytes, not read; "
				    "its nodes keep their last good inventory\" file=\"%s/worker-huge.yaml\" bytes=",
		 e->dir);
	wait_log(e, text);
	assert_false(rejected(e, "worker-huge")); /* no inventory: passes */
	/* A known node's file grown over the cap: the node keeps its inventory. */
	write_node(e, "worker-a.yaml", "worker-a", 2, MAX_FILE_BYTES + 1);
	snprintf(text, sizeof text, "file=\"%s/worker-a.yaml\" bytes=", e->dir);
	wait_log(e, text);
	assert_true(spawn_log_contains(e->log, "maxFileBytes=65536"));
	assert_true(rejected(e, "worker-a"));
	assert_true(wait_metric(e, "\nnuma_extender_inventory_nodes 2\n"));
	stop(e);
}

static void zone_set_change_is_a_warning_and_a_metric(void **state)
{
	struct env *e = *state = env_start();

	start_with_two_nodes(e);
	assert_true(wait_metric(e, "\nnuma_extender_inventory_zone_set_changes_total 0\n"));
	/* The same zones with other numbers: no change. */
	write_node(e, "worker-b.yaml", "worker-b", 2, 100);
	assert_true(wait_metric(e, "\nnuma_extender_inventory_generation 2\n"));
	write_node(e, "worker-a.yaml", "worker-a", 4, 0);
	wait_log(e, "msg=\"node's set of NUMA zones changed\"");
	assert_true(spawn_log_contains(e->log, "node=\"worker-a\" before=0,1 after=0,1,2,3"));
	assert_true(wait_metric(e, "\nnuma_extender_inventory_zone_set_changes_total 1\n"));
	assert_false(spawn_log_contains(e->log, "node=\"worker-b\" before="));
	stop(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(empty_file_keeps_the_last_good_inventory, env_free),
		cmocka_unit_test_teardown(symlink_loop_keeps_the_node, env_free),
		cmocka_unit_test_teardown(unreadable_file_keeps_the_node, env_free),
		cmocka_unit_test_teardown(oversize_file_is_refused, env_free),
		cmocka_unit_test_teardown(zone_set_change_is_a_warning_and_a_metric, env_free),
	};

	return cmocka_run_group_tests_name("serve_inventory", tests, NULL, NULL);
}
