/* SPDX-License-Identifier: Apache-2.0 */
/* tests/support/kustomize.c, the model of kustomize the manifest checks
 * build on: which kustomization.yaml files it accepts and refuses, how
 * builds resolve (nested directories, patches, $patch: delete, clashes of
 * ids), and strategic merge as a table of base, patch and result (maps merge,
 * null deletes, scalars and scalar lists replace, the pod template's lists
 * merge by key; anything it does not model is refused with a message). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extender/codec/doc.h"
#include "tests/support/doc_query.h"
#include "tests/support/kustomize.h"
#include "base/err.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/test_kustomize.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return scratch_dir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_dir_remove(dir);
}

/* Writes dir/case/rel (making its directories). */
static void put(const char *name, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s/%s", dir, name, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct doc *parse1(const char *yaml, struct doc ***docs, size_t *n)
{
	struct errmsg msg;

	if (doc_parse(yaml, strlen(yaml), "test", docs, n, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_true(*n >= 1);
	return (*docs)[0];
}

#define KUST "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
#define CM(name) "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " name ", namespace: n}\ndata: {a: \"1\"}\n"

/* kustomization.yaml files accepted and refused, each in a directory of its
 * own with a ConfigMap file cm.yaml and a subdirectory sub/ without a
 * kustomization. */
static void kustomize_checks_kustomization_files(void **state)
{
	static const struct {
		const char *kust, *needle;
	} cases[] = {
		{ KUST "resources: [cm.yaml]\n", NULL },
		{ KUST "resources: [cm.yaml]\npatches: [{path: cm.yaml}]\nimages: [{name: a, newTag: b}]\n", NULL },
		{ KUST "resources: [cm.yaml]\nnamePrefix: x-\n", "key \"namePrefix\" is not modelled" },
		{ KUST "resources: [cm.yaml]\nconfigMapGenerator: []\n", "key \"configMapGenerator\" is not modelled" },
		{ "apiVersion: kustomize.config.k8s.io/v1\nkind: Kustomization\nresources: [cm.yaml]\n",
		  "not a kustomize.config.k8s.io/v1beta1 Kustomization" },
		{ "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Component\nresources: [cm.yaml]\n",
		  "not a kustomize.config.k8s.io/v1beta1 Kustomization" },
		{ KUST, "lists no resources" },
		{ KUST "resources: []\n", "lists no resources" },
		{ KUST "resources: cm.yaml\n", "lists no resources" },
		{ KUST "resources: [cm.yaml]\npatches: cm.yaml\n", "patches is not a list" },
		{ KUST "resources: [gone.yaml]\n", "resources[0] \"gone.yaml\" does not exist" },
		{ KUST "resources: [cm.yaml, {a: b}]\n", "resources[1] names no file" },
		{ KUST "resources: [sub]\n", "\"sub\" is a directory without kustomization.yaml" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: sub}]\n", "\"sub\" is a directory without kustomization.yaml" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: cm.yaml, target: {kind: ConfigMap}}]\n",
		  "patches[0]: only {path: FILE} is modelled" },
		{ KUST "resources: [cm.yaml]\npatches: [cm.yaml]\n", "patches[0]: only {path: FILE} is modelled" },
		{ KUST "resources: [notes.txt]\n", "\"notes.txt\" is not a YAML file under" },
		{ "- a\n- b\n", "expected one mapping" },
		{ KUST "resources: [cm.yaml]\n---\n" KUST "resources: [cm.yaml]\n", "expected one mapping" },
		{ KUST "resources: [cm.yaml\n", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32], root[512], path[600];
		struct kz_files fs = { NULL, 0, NULL };
		const struct kz_file *k;
		struct errmsg msg;
		bool ok;

		snprintf(name, sizeof name, "check%zu", i);
		put(name, "cm.yaml", CM("c"));
		put(name, "sub/other.yaml", CM("o"));
		put(name, "notes.txt", "not yaml\n");
		put(name, "kustomization.yaml", cases[i].kust);
		snprintf(root, sizeof root, "%s/%s", dir, name);
		kz_files_walk(&fs, root, true);
		assert_int_equal(fs.n, 3);
		snprintf(path, sizeof path, "%s/kustomization.yaml", root);
		k = kz_files_find(&fs, path);
		assert_non_null(k);
		assert_true(kz_is_kustomization(k));
		assert_false(kz_is_kustomization(&fs.v[0]));
		ok = kz_check_kustomization(&fs, k, &msg);
		kz_files_free(&fs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("case %zu refused: %s", i, msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* A build over nested directories: an overlay on a base that includes a
 * component directory, with a patch that merges and one that deletes. */
static void kustomize_resolves_nested_builds(void **state)
{
	char root[512], path[600];
	struct kz_files fs = { NULL, 0, NULL };
	struct kz_build b;
	const struct kz_res *r;

	(void)state;
	put("nested", "base/kustomization.yaml", KUST "resources: [cm.yaml, part]\n");
	put("nested", "base/cm.yaml", CM("a") "---\n" CM("b"));
	put("nested", "base/part/kustomization.yaml", KUST "resources: [cm.yaml]\n");
	put("nested", "base/part/cm.yaml", CM("c"));
	put("nested", "overlay/kustomization.yaml",
	    KUST "resources: [../base, extra.yaml]\npatches: [{path: patch.yaml}, {path: drop.yaml}]\n");
	put("nested", "overlay/extra.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n");
	put("nested", "overlay/patch.yaml",
	    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\ndata: {a: null, b: \"2\"}\n");
	put("nested", "overlay/drop.yaml",
	    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n$patch: delete\n");
	snprintf(root, sizeof root, "%s/nested", dir);
	kz_files_walk(&fs, root, true);
	assert_int_equal(fs.n, 8);
	snprintf(path, sizeof path, "%s/overlay", root);
	kz_build_resolve(&b, &fs, path);
	if (!b.ok)
		fail_msg("%s", b.err.text);
	assert_string_equal(b.dir, path);
	assert_int_equal(b.n, 3);
	r = kz_find(&b, "ConfigMap", "n", "a");
	assert_non_null(r);
	assert_null(doc_lookup(doc_lookup(r->doc, "data"), "a"));
	assert_string_equal(dq_str(r->doc, "data.b"), "2");
	assert_non_null(strstr(r->origin, "base/cm.yaml"));
	assert_string_equal(dq_str(kz_find(&b, "ConfigMap", "n", "b")->doc, "data.a"), "1");
	assert_null(kz_find(&b, "ConfigMap", "n", "c"));
	assert_null(kz_find(&b, "ConfigMap", NULL, "b"));
	assert_non_null(kz_find(&b, "Namespace", NULL, "n"));
	assert_null(kz_find(&b, "Namespace", "n", "n"));
	kz_build_free(&b);
	/* The base alone still has c, and the files are not changed by the overlay. */
	snprintf(path, sizeof path, "%s/base", root);
	kz_build_resolve(&b, &fs, path);
	assert_true(b.ok);
	assert_int_equal(b.n, 3);
	assert_string_equal(dq_str(kz_find(&b, "ConfigMap", "n", "a")->doc, "data.a"), "1");
	kz_build_free(&b);
	kz_files_free(&fs);
}

/* Builds that fail, with why. */
static void kustomize_refuses_broken_builds(void **state)
{
	static const struct {
		const char *kust, *extra, *needle;
	} cases[] = {
		{ KUST "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
		  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: zz, namespace: n}\n",
		  "the patch of ConfigMap zz matches no resource" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
		  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: other}\n",
		  "the patch of ConfigMap c matches no resource" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
		  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n$patch: replace\n",
		  "only a bare \"$patch: delete\" is modelled" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
		  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n$patch: delete\ndata: {}\n",
		  "only a bare \"$patch: delete\" is modelled" },
		{ KUST "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
		  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\ndata: {$retainKeys: [a]}\n",
		  "directive not modelled" },
		{ KUST "resources: [cm.yaml, p.yaml]\n", "a: [unclosed\n", "cannot use resource" },
		{ KUST "resources: [., cm.yaml]\n", "", "nested too deep" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32], root[512];
		struct kz_files fs = { NULL, 0, NULL };
		struct kz_build b;

		snprintf(name, sizeof name, "broken%zu", i);
		put(name, "kustomization.yaml", cases[i].kust);
		put(name, "cm.yaml", CM("c"));
		put(name, "p.yaml", cases[i].extra);
		snprintf(root, sizeof root, "%s/%s", dir, name);
		kz_files_walk(&fs, root, true);
		kz_build_resolve(&b, &fs, root);
		if (b.ok || strstr(b.err.text, cases[i].needle) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, b.ok ? "(built)" : b.err.text, cases[i].needle);
		kz_build_free(&b);
		kz_files_free(&fs);
	}
}

/* Strategic merge of one patch into one resource: base, patch, and the
 * resource afterwards (as YAML parsed and compared by value). */
static bool same_doc(const struct doc *a, const struct doc *b)
{
	size_t i;

	if (a->kind != b->kind || a->nchildren != b->nchildren ||
	    !dq_same_str(a->kind == DOC_ARRAY || a->kind == DOC_OBJECT ? NULL : a->text,
			 b->kind == DOC_ARRAY || b->kind == DOC_OBJECT ? NULL : b->text))
		return false;
	for (i = 0; i < a->nchildren; i++)
		if (!dq_same_str(a->children[i].key, b->children[i].key) ||
		    !same_doc(a->children[i].value, b->children[i].value))
			return false;
	return true;
}

#define DEP "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n"
#define POD DEP "spec:\n  template:\n    spec:\n"

static void kustomize_strategic_merge_table(void **state)
{
	static const struct {
		const char *base, *patch, *want; /* want NULL: refused with needle */
		const char *needle;
	} cases[] = {
		/* maps merge key by key; scalars replace; new keys append */
		{ DEP "spec: {replicas: 1, paused: true}\n", DEP "spec: {replicas: 2, minReadySeconds: 5}\n",
		  DEP "spec: {replicas: 2, paused: true, minReadySeconds: 5}\n", NULL },
		/* null deletes; deleting an absent key is a no-op */
		{ DEP "spec: {replicas: 1, paused: true}\n", DEP "spec: {paused: null, gone: null}\n",
		  DEP "spec: {replicas: 1}\n", NULL },
		/* a map replaces a scalar and the other way round */
		{ DEP "spec: {strategy: Recreate}\n", DEP "spec: {strategy: {type: RollingUpdate}}\n",
		  DEP "spec: {strategy: {type: RollingUpdate}}\n", NULL },
		/* lists of scalars replace */
		{ POD "      containers: [{name: a, args: [x, y]}]\n", POD "      containers: [{name: a, args: [z]}]\n",
		  POD "      containers: [{name: a, args: [z]}]\n", NULL },
		/* env merges by name, volumeMounts by mountPath, ports by containerPort */
		{ POD "      containers: [{name: a, env: [{name: X, value: \"1\"}, {name: Y, value: \"2\"}]}]\n",
		  POD "      containers: [{name: a, env: [{name: Y, value: \"3\"}, {name: Z, value: \"4\"}]}]\n",
		  POD "      containers: [{name: a, env: [{name: X, value: \"1\"}, {name: Y, value: \"3\"}, "
		      "{name: Z, value: \"4\"}]}]\n", NULL },
		{ POD "      containers: [{name: a, ports: [{containerPort: 80, name: h}]}]\n",
		  POD "      containers: [{name: a, ports: [{containerPort: 80, protocol: TCP}]}]\n",
		  POD "      containers: [{name: a, ports: [{containerPort: 80, name: h, protocol: TCP}]}]\n", NULL },
		{ POD "      volumes: [{name: v, emptyDir: {}}]\n      initContainers: [{name: i, image: i:1}]\n",
		  POD "      volumes: [{name: w, emptyDir: {}}]\n      initContainers: [{name: i, image: i:2}]\n",
		  POD "      volumes: [{name: v, emptyDir: {}}, {name: w, emptyDir: {}}]\n"
		      "      initContainers: [{name: i, image: i:2}]\n", NULL },
		/* a keyed list the base lacks is added */
		{ POD "      containers: [{name: a}]\n", POD "      volumes: [{name: v, emptyDir: {}}]\n",
		  POD "      containers: [{name: a}]\n      volumes: [{name: v, emptyDir: {}}]\n", NULL },
		/* refused */
		{ POD "      tolerations: []\n", POD "      tolerations: [{key: k}]\n", NULL, "kustomize merges it by key" },
		{ DEP "spec: {}\n", DEP "spec: {list: [{a: 1}]}\n", NULL, "kustomize merges it by key" },
		{ POD "      containers: [{name: a}]\n", POD "      containers: [{image: b}]\n", NULL,
		  "without its merge key name" },
		{ POD "      containers: [{name: a, volumeMounts: [{name: v, mountPath: /v}]}]\n",
		  POD "      containers: [{name: a, volumeMounts: [{name: v}]}]\n", NULL, "without its merge key mountPath" },
		{ DEP "spec: {}\n", DEP "spec: {$setElementOrder/x: []}\n", NULL, "directive not modelled" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct doc **bd = NULL, **pd = NULL, **wd = NULL;
		size_t nb = 0, np = 0, nw = 0;
		struct kz_build b;
		struct errmsg msg;
		bool ok;

		memset(&b, 0, sizeof b);
		kz_build_add(&b, parse1(cases[i].base, &bd, &nb), "base");
		ok = kz_apply_patch(&b, parse1(cases[i].patch, &pd, &np), "patch", &msg);
		if (cases[i].want) {
			if (!ok)
				fail_msg("case %zu refused: %s", i, msg.text);
			if (!same_doc(b.v[0].doc, parse1(cases[i].want, &wd, &nw)))
				fail_msg("case %zu: the merge differs from the expected result", i);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
		/* The base document is copied, never changed. */
		assert_int_equal(bd[0]->nchildren, 4);
		kz_build_free(&b);
		doc_free_all(bd, nb);
		doc_free_all(pd, np);
		doc_free_all(wd, nw);
	}
}

/* Resource ids: apiVersion, kind, namespace and name all count. */
static void kustomize_ids_compare_all_four_parts(void **state)
{
	static const char *const objs[] = {
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\n",
		"apiVersion: v2\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: n}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: n}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: m}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
	};
	struct doc **d[6];
	size_t n[6], i, j;

	(void)state;
	for (i = 0; i < 6; i++)
		parse1(objs[i], &d[i], &n[i]);
	assert_string_equal(kz_ns(d[0][0]), "n");
	assert_null(kz_ns(d[5][0]));
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			assert_int_equal(kz_same_id(d[i][0], d[j][0]), i == j);
	for (i = 0; i < 6; i++)
		doc_free_all(d[i], n[i]);
}

/* The strategic-merge model on lists of objects: the pod template's merge
 * by key (what the bind overlay's probe patch relies on), everything else
 * refused rather than silently replaced. */
static void kustomize_merges_pod_lists_by_key(void **state)
{
	static const char base[] =
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n"
		"spec:\n  template:\n    spec:\n      containers:\n"
		"      - name: a\n        image: a:1\n"
		"      - name: b\n        image: b:1\n        ports: [{name: m, containerPort: 9090}]\n"
		"        livenessProbe: {httpGet: {path: /healthz, port: m}, periodSeconds: 10}\n"
		"        volumeMounts: [{name: v, mountPath: /v}]\n";
	static const char head[] =
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n"
		"spec:\n  template:\n    spec:\n";
	static const struct {
		const char *body, *needle;
	} bad[] = {
		{ "      tolerations: [{key: k, operator: Exists}]\n", "kustomize merges it by key" },
		{ "      containers: [{image: c:1}]\n", "without its merge key name" },
		{ "      containers: [{name: b, ports: [{containerPort: 9090, $patch: delete}]}]\n",
		  "directive not modelled" },
	};
	static const char good[] =
		"      containers:\n"
		"      - name: b\n        ports: null\n"
		"        livenessProbe: {httpGet: null, exec: {command: [x]}}\n"
		"        volumeMounts: [{mountPath: /v, readOnly: true}, {name: w, mountPath: /w}]\n"
		"      - name: c\n        image: c:1\n";
	char buf[2048];
	struct doc **bdocs = NULL, **pdocs = NULL;
	size_t nb = 0, np = 0, i;
	struct kz_build s;
	struct errmsg msg;
	const struct doc *cs, *b;

	(void)state;
	assert_int_equal(doc_parse(base, strlen(base), "base", &bdocs, &nb, &msg), ERR_OK);
	memset(&s, 0, sizeof s);
	kz_build_add(&s, bdocs[0], "base");
	snprintf(buf, sizeof buf, "%s%s", head, good);
	assert_int_equal(doc_parse(buf, strlen(buf), "patch", &pdocs, &np, &msg), ERR_OK);
	if (!kz_apply_patch(&s, pdocs[0], "patch", &msg))
		fail_msg("the by-key patch was refused: %s", msg.text);
	doc_free_all(pdocs, np);
	cs = dq_at(s.v[0].doc, "spec.template.spec.containers");
	assert_int_equal(dq_count(cs), 3);
	assert_string_equal(dq_str(dq_item(cs, 0), "image"), "a:1");
	b = dq_item(cs, 1);
	assert_string_equal(dq_str(b, "name"), "b");
	assert_string_equal(dq_str(b, "image"), "b:1");
	assert_null(doc_lookup(b, "ports"));
	assert_null(dq_at(b, "livenessProbe.httpGet"));
	assert_non_null(dq_at(b, "livenessProbe.exec"));
	assert_string_equal(dq_str(b, "livenessProbe.periodSeconds"), "10");
	assert_int_equal(dq_count(doc_lookup(b, "volumeMounts")), 2);
	assert_string_equal(dq_str(dq_item(doc_lookup(b, "volumeMounts"), 0), "name"), "v");
	assert_true(dq_is_true(doc_lookup(dq_item(doc_lookup(b, "volumeMounts"), 0), "readOnly")));
	assert_string_equal(dq_str(dq_item(cs, 2), "image"), "c:1");
	kz_build_free(&s);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		bool ok;

		memset(&s, 0, sizeof s);
		kz_build_add(&s, bdocs[0], "base");
		snprintf(buf, sizeof buf, "%s%s", head, bad[i].body);
		assert_int_equal(doc_parse(buf, strlen(buf), "patch", &pdocs, &np, &msg), ERR_OK);
		ok = kz_apply_patch(&s, pdocs[0], "patch", &msg);
		doc_free_all(pdocs, np);
		kz_build_free(&s);
		if (ok || strstr(msg.text, bad[i].needle) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, bad[i].needle);
	}
	doc_free_all(bdocs, nb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kustomize_checks_kustomization_files),
		cmocka_unit_test(kustomize_resolves_nested_builds),
		cmocka_unit_test(kustomize_refuses_broken_builds),
		cmocka_unit_test(kustomize_strategic_merge_table),
		cmocka_unit_test(kustomize_merges_pod_lists_by_key),
		cmocka_unit_test(kustomize_ids_compare_all_four_parts),
	};

	return cmocka_run_group_tests_name("kustomize", tests, setup, teardown);
}
