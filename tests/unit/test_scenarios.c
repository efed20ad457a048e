/* SPDX-License-Identifier: Apache-2.0 */
/* Every scenario file (NRT + pod + the kubelet's expected verdict) through the
 * same path as `numa-extender explain -o json`: decode, judge, encode; then
 * the JSON is read back and compared with "expect". Scenarios live in
 * tests/data/scenarios: the reference scenarios (numbered below 100) and our
 * own cases for the kubelet's less obvious rules and the NRT conventions
 * (100 and up: identical masks for "preferred", capacity versus availability,
 * init-container reuse, policy options, missing hugepage sizes, ...). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/cmd/explain.h"
#include "extender/codec/nrt_decode.h"
#include "extender/codec/pod_decode.h"

static const char *const dirs[] = { "tests/data/scenarios" };

static char *run_explain(const char *path)
{
	struct doc **docs = NULL;
	size_t ndocs = 0, len = 0, blen = 0;
	struct nrt_object obj;
	struct pod_spec pod;
	struct errmsg msg;
	char *buf = NULL, *out = NULL;
	FILE *f;

	memset(&obj, 0, sizeof obj);
	memset(&pod, 0, sizeof pod);
	if (file_read_all(path, 0, &buf, &blen, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	if (doc_parse(buf, blen, path, &docs, &ndocs, &msg) != ERR_OK || ndocs != 1)
		fail_msg("%s: %s", path, msg.text);
	if (nrt_decode_doc(doc_get(docs[0], "nrt"), path, &obj, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	if (pod_decode_doc(doc_get(docs[0], "pod"), path, &pod, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	if (explain_write(&pod, &obj, 1, EXPLAIN_JSON, f, &msg) != ERR_OK)
		fail_msg("%s: %s", path, msg.text);
	fclose(f);
	nrt_object_cleanup(&obj);
	pod_spec_cleanup(&pod);
	doc_free_all(docs, ndocs);
	free(buf);
	return out;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("missing key \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static void scenario(void **state)
{
	const char *path = *state;
	char *out = run_explain(path);
	struct json_object *file = json_object_from_file(path);
	struct json_object *root, *got, *expect, *gc, *ec;
	size_t i;

	assert_non_null(file);
	root = json_tokener_parse(out);
	assert_non_null(root);
	got = json_object_array_get_idx(member(root, "nodes"), 0);
	expect = member(file, "expect");
	if (json_object_get_boolean(member(got, "admit")) !=
		    json_object_get_boolean(member(expect, "admit")) ||
	    strcmp(json_object_get_string(member(got, "reason")),
		   json_object_get_string(member(expect, "reason"))) != 0)
		fail_msg("%s: got admit=%d reason=%s (%s); expected admit=%d reason=%s", path,
			 json_object_get_boolean(member(got, "admit")),
			 json_object_get_string(member(got, "reason")),
			 json_object_get_string(member(got, "message")),
			 json_object_get_boolean(member(expect, "admit")),
			 json_object_get_string(member(expect, "reason")));
	gc = member(got, "containers");
	ec = member(expect, "containers");
	if (json_object_array_length(gc) != json_object_array_length(ec))
		fail_msg("%s: containers %s, expected %s", path, json_object_to_json_string(gc),
			 json_object_to_json_string(ec));
	for (i = 0; i < json_object_array_length(ec); i++) {
		struct json_object *g = json_object_array_get_idx(gc, i);
		struct json_object *e = json_object_array_get_idx(ec, i);

		if (strcmp(json_object_get_string(member(g, "name")),
			   json_object_get_string(member(e, "name"))) != 0 ||
		    strcmp(json_object_to_json_string(member(g, "numaNodes")),
			   json_object_to_json_string(member(e, "numaNodes"))) != 0 ||
		    json_object_get_boolean(member(g, "preferred")) !=
			    json_object_get_boolean(member(e, "preferred")))
			fail_msg("%s: container %zu: got %s, expected %s", path, i,
				 json_object_to_json_string(g), json_object_to_json_string(e));
	}
	/* Optional: "unresolvable" and a fragment of the message. */
	{
		struct json_object *u = NULL, *m = NULL;

		if (json_object_object_get_ex(expect, "unresolvable", &u) &&
		    json_object_get_boolean(u) != json_object_get_boolean(member(got, "unresolvable")))
			fail_msg("%s: unresolvable %d, expected %d", path,
				 json_object_get_boolean(member(got, "unresolvable")),
				 json_object_get_boolean(u));
		if (json_object_object_get_ex(expect, "messageContains", &m) &&
		    strstr(json_object_get_string(member(got, "message")),
			   json_object_get_string(m)) == NULL)
			fail_msg("%s: message \"%s\" lacks \"%s\"", path,
				 json_object_get_string(member(got, "message")),
				 json_object_get_string(m));
	}
	json_object_put(root);
	json_object_put(file);
	free(out);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	struct CMUnitTest *tests = NULL;
	char **paths = NULL;
	size_t n = 0, d, i;
	int failed;

	for (d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;
		size_t first = n;

		if (dir == NULL) {
			fprintf(stderr, "scenarios: cannot open %s\n", dirs[d]);
			return 1;
		}
		while ((e = readdir(dir)) != NULL) {
			size_t len = strlen(e->d_name);

			if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
				continue;
			paths = realloc(paths, (n + 1) * sizeof *paths);
			paths[n] = malloc(strlen(dirs[d]) + len + 2);
			sprintf(paths[n], "%s/%s", dirs[d], e->d_name);
			n++;
		}
		closedir(dir);
		qsort(paths + first, n - first, sizeof *paths, by_name);
	}
	tests = calloc(n + 1, sizeof *tests);
	for (i = 0; i < n; i++) {
		tests[i].name = paths[i];
		tests[i].test_func = scenario;
		tests[i].initial_state = paths[i];
	}
	failed = _cmocka_run_group_tests("scenarios", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(tests);
	return failed;
}
