/* SPDX-License-Identifier: Apache-2.0 */
/* The install manifests (manifests/: a kustomize base, overlays, examples),
 * checked without a cluster: every file parses and names itself; the
 * kustomizations resolve (tests/support/kustomize.h) without clashes;
 * kube-scheduler's strictly decoded configuration holds only real v1 fields
 * and its URLs reach the routes the extender's own configuration serves
 * (loaded with config_load_buffer), bindVerb exactly when the extender
 * enables bind; probes reach the health listener; TLS files come from
 * Secrets; the decision log has a writable directory; the control plane's
 * static pod patch (control-plane/) starts kube-scheduler with the mTLS
 * configuration and mounts what it names. RBAC and the CRD are
 * checked in test_manifests_api.c, the pods and the image in
 * test_manifests_pods.c. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/net_addr.h"
#include "extender/codec/doc.h"
#include "tests/support/doc_query.h"
#include "tests/support/kustomize.h"
#include "tests/support/manifest_sites.h"
#include "base/xalloc.h"
#include "base/err.h"

/* An overlay's folder of files that go to the control-plane nodes rather
 * than into the build. */
#define CONTROL_PLANE_DIR "control-plane"
#define STATIC_POD_PATCH \
	"manifests/overlays/default-scheduler-mtls/" CONTROL_PLANE_DIR "/kube-scheduler+strategic.yaml"
/* kubeadm mounts the scheduler's kubeconfig at this path itself. */
#define KUBEADM_SCHEDULER_CONF "/etc/kubernetes/scheduler.conf"

/* What the issue asks kube-scheduler to send to the extender. */
/* The opt-in marker of CPU-only pods when the default scheduler is extended. */
#define MARKER_RESOURCE "numa-extender.io/aligned"

static const char *const managed_resources[] = {
	"nvidia.com/gpu", "dsa.intel.com/wq-user-shared", "dsa.intel.com/wq-user-dedicated", NULL,
};

static bool nonempty(const char *s)
{
	return s != NULL && *s != '\0';
}

static void manifests_every_yaml_parses_and_names_itself(void **state)
{
	size_t i, j;

	(void)state;
	/* base (6), the overlay's own files and patches, the examples. */
	assert_true(mf_tree.files.n >= 15);
	for (i = 0; i < mf_tree.files.n; i++) {
		const struct kz_file *f = &mf_tree.files.v[i];

		if (!f->ok)
			fail_msg("%s", f->err.text);
		if (f->ndocs == 0)
			fail_msg("%s: no document", f->path);
		if (kz_is_kustomization(f))
			continue; /* manifests_kustomizations_reference_existing_files */
		for (j = 0; j < f->ndocs; j++) {
			const struct doc *d = f->docs[j];

			if (d->kind != DOC_OBJECT)
				fail_msg("%s: document %zu is %s, not a mapping", f->path, j + 1, doc_kind_name(d));
			if (!nonempty(dq_str(d, "apiVersion")) || !nonempty(dq_str(d, "kind")) ||
			    !nonempty(dq_str(d, "metadata.name")))
				fail_msg("%s: document %zu lacks apiVersion, kind or metadata.name", f->path, j + 1);
		}
	}
}

static void manifests_kustomizations_reference_existing_files(void **state)
{
	size_t i, j, l, nk = 0, noverlays = 0;
	struct errmsg msg;

	(void)state;
	assert_non_null(kz_files_find(&mf_tree.files, "manifests/base/kustomization.yaml"));
	for (i = 0; i < mf_tree.files.n; i++) {
		const struct kz_file *k = &mf_tree.files.v[i];
		char dir[PATH_MAX];
		size_t dlen;

		if (!kz_is_kustomization(k))
			continue;
		nk++;
		if (!kz_check_kustomization(&mf_tree.files, k, &msg))
			fail_msg("%s", msg.text);
		dlen = (size_t)(strrchr(k->path, '/') - k->path);
		snprintf(dir, sizeof dir, "%.*s", (int)dlen, k->path);
		if (strncmp(dir, "manifests/overlays/", 19) == 0) {
			noverlays++;
			if (!dq_list_has(doc_lookup(k->docs[0], "resources"), "../../base"))
				fail_msg("%s: an overlay must build on ../../base", k->path);
		}
		/* No orphans: every YAML file of this kustomization's folder
		 * (and its subfolders without their own kustomization) is a
		 * resource or a patch; an unlisted file is silently not installed. */
		for (j = 0; j < mf_tree.files.n; j++) {
			const struct kz_file *f = &mf_tree.files.v[j];
			bool listed = false, nested = false;
			size_t m;

			if (f == k || strncmp(f->path, dir, dlen) != 0 || f->path[dlen] != '/')
				continue;
			/* Files for the control-plane nodes (the static pod's
			 * patch), not resources of the build. */
			if (strstr(f->path + dlen, "/" CONTROL_PLANE_DIR "/") != NULL)
				continue;
			for (m = 0; m < mf_tree.files.n; m++) {
				const struct kz_file *o = &mf_tree.files.v[m];
				size_t olen = (size_t)(strrchr(o->path, '/') - o->path);

				if (o != k && kz_is_kustomization(o) && olen > dlen && strncmp(o->path, dir, dlen) == 0 &&
				    strncmp(f->path, o->path, olen) == 0 && f->path[olen] == '/')
					nested = true;
			}
			if (nested)
				continue;
			for (l = 0; l < 2 && !listed; l++) {
				const struct doc *list = doc_lookup(k->docs[0], l == 0 ? "resources" : "patches");

				for (m = 0; m < dq_count(list) && !listed; m++) {
					const char *rel = l == 0 ? dq_text(dq_item(list, m)) : dq_str(dq_item(list, m), "path");
					char p[PATH_MAX];

					listed = (size_t)snprintf(p, sizeof p, "%s/%s", dir, rel ? rel : "") < sizeof p &&
						 kz_files_find(&mf_tree.files, p) == f;
				}
			}
			if (!listed)
				fail_msg("%s: not listed in %s", f->path, k->path);
		}
	}
	assert_true(nk >= 3);
	assert_true(noverlays >= 2);
}

static bool namespaced(const char *kind)
{
	static const char *const cluster[] = {
		"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "PriorityClass", NULL,
	};

	return !dq_in_list(kind, cluster);
}

/* The overlays the tests must see (docs/operator-guide.md describes each). */
static const char *const overlays[] = {
	"manifests/overlays/default-scheduler-mtls", "manifests/overlays/bind", NULL,
};

static void manifests_builds_resolve_without_clashes(void **state)
{
	size_t i, j, k;

	(void)state;
	/* mf_tree_setup resolves every overlay it finds; these must be among them,
	 * so that each test over mf_tree.sets[] covers them. */
	assert_true(mf_tree.nsets >= 3);
	assert_string_equal(mf_tree.sets[0].dir, "manifests/base");
	for (const char *const *o = overlays; *o; o++) {
		for (i = 1; i < mf_tree.nsets && strcmp(mf_tree.sets[i].dir, *o) != 0; i++)
			;
		if (i == mf_tree.nsets)
			fail_msg("%s was not resolved", *o);
	}
	for (i = 0; i < mf_tree.nsets; i++) {
		const struct kz_build *s = &mf_tree.sets[i];
		struct mf_sites st;
		struct errmsg msg;

		if (!s->ok)
			fail_msg("%s: %s", s->dir, s->err.text);
		for (j = 0; j < s->n; j++) {
			const struct doc *d = s->v[j].doc;
			const char *kind = dq_str(d, "kind"), *ns = kz_ns(d);

			for (k = j + 1; k < s->n; k++)
				if (kz_same_id(d, s->v[k].doc))
					fail_msg("%s: %s %s is defined twice (%s, %s)", s->dir, kind,
						 dq_str(d, "metadata.name"), s->v[j].origin, s->v[k].origin);
			/* Without an explicit namespace, kubectl apply -k would put
			 * it in whatever namespace the user's context says. */
			if (namespaced(kind) && ns == NULL)
				fail_msg("%s: %s %s has no metadata.namespace", s->v[j].origin, kind,
					 dq_str(d, "metadata.name"));
			if (!namespaced(kind) && ns != NULL)
				fail_msg("%s: cluster-scoped %s %s has a namespace", s->v[j].origin, kind,
					 dq_str(d, "metadata.name"));
			if (ns && !kz_find(s, "Namespace", NULL, ns))
				fail_msg("%s: namespace %s is not created by %s", s->v[j].origin, ns, s->dir);
		}
		if (!mf_load_sites(s, &st, &msg))
			fail_msg("%s: %s", s->dir, msg.text);
		if (st.next == 0)
			fail_msg("%s: no numa-extender container", s->dir);
		for (j = 1; j < st.next; j++)
			if (strcmp(st.ext[j].cm, st.ext[0].cm) != 0 || strcmp(st.ext[j].key, st.ext[0].key) != 0)
				fail_msg("%s: numa-extender containers read different configurations", s->dir);
		if (st.nsched == 0)
			fail_msg("%s: no KubeSchedulerConfiguration", s->dir);
		mf_sites_free(&st);
	}
}

/* -------------------------------------------- KubeSchedulerConfiguration */

/* kubescheduler.config.k8s.io/v1 (staging/src/k8s.io/kube-scheduler/config/v1
 * types.go): the top level and profile fields, the embedded
 * component-base leader election and client connection, and the Extender
 * fields (urlPrefix ... ignorable). plugins and pluginConfig are not used
 * here and not looked into. */
static const char *const top_keys[] = {
	"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
	"enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
	"podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
	"delayCacheUntilActive", NULL,
};
static const char *const leader_keys[] = {
	"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
	"resourceName", "resourceNamespace", NULL,
};
static const char *const client_keys[] = {
	"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst", NULL,
};
static const char *const profile_keys[] = {
	"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", NULL,
};
static const char *const extender_keys[] = {
	"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
	"enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
	"ignorable", NULL,
};
static const char *const tls_keys[] = {
	"insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData", NULL,
};
static const char *const managed_keys[] = { "name", "ignoredByScheduler", NULL };

static bool check_keys(const struct doc *obj, const char *const *allowed, const char *where,
		       struct errmsg *msg)
{
	size_t i;

	if (obj == NULL || obj->kind != DOC_OBJECT)
		return dq_fail(msg, "%s: expected a mapping", where);
	for (i = 0; i < obj->nchildren; i++)
		if (!dq_in_list(obj->children[i].key, allowed))
			return dq_fail(msg, "%s: unknown field \"%s\" (kube-scheduler decodes strictly and would not start)",
				     where, obj->children[i].key);
	return true;
}

/* A present field must be a YAML boolean (strict decoding refuses "true"). */
static bool check_bool(const struct doc *obj, const char *key, const char *where, struct errmsg *msg)
{
	const struct doc *v = doc_lookup(obj, key);

	if (v && !dq_is_true(v) && !dq_is_false(v))
		return dq_fail(msg, "%s.%s: expected a boolean", where, key);
	return true;
}

static bool check_int(const struct doc *obj, const char *key, int64_t min, int64_t max,
		      const char *where, struct errmsg *msg)
{
	const struct doc *v = doc_lookup(obj, key);
	int64_t n;
	struct errmsg ignored;

	if (v && (doc_read_int64(v, &n, &ignored) != ERR_OK || n < min || n > max))
		return dq_fail(msg, "%s.%s: expected an integer in %lld..%lld", where, key, (long long)min,
			     (long long)max);
	return true;
}

static bool extended_resource_name(const char *n)
{
	const char *slash = strchr(n, '/');
	char prefix[256];

	if (slash == NULL || (size_t)(slash - n) >= sizeof prefix)
		return false;
	snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - n), n);
	/* Native resources live under kubernetes.io; the rest must be a DNS
	 * subdomain and a qualified name. */
	if (strcmp(prefix, "kubernetes.io") == 0 || dq_has_suffix(prefix, ".kubernetes.io") ||
	    strncmp(n, "requests.", 9) == 0)
		return false;
	return dq_matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", prefix) &&
	       strlen(slash + 1) <= 63 &&
	       dq_matches("^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$", slash + 1);
}

/* Field names, types, kube-scheduler's validation rules (weight > 0 with
 * prioritizeVerb, one binder, valid and unique managed resource names), and
 * this project's choices: nodeCacheCapable, fail closed, both verbs, a
 * timeout, and the managed resources of the issue. */
static bool check_scheduler_config(const struct doc *c, const char *origin, struct errmsg *msg)
{
	const struct doc *profiles = doc_lookup(c, "profiles"), *exts = doc_lookup(c, "extenders");
	const char *managed_seen[64];
	size_t i, j, nseen = 0, binders = 0;
	bool default_scheduler = false;
	char where[256];

	if (!check_keys(c, top_keys, origin, msg))
		return false;
	if (!dq_same_str(dq_str(c, "apiVersion"), "kubescheduler.config.k8s.io/v1"))
		return dq_fail(msg, "%s: apiVersion must be kubescheduler.config.k8s.io/v1", origin);
	if (doc_lookup(c, "leaderElection")) {
		snprintf(where, sizeof where, "%s: leaderElection", origin);
		if (!check_keys(doc_lookup(c, "leaderElection"), leader_keys, where, msg) ||
		    !check_bool(doc_lookup(c, "leaderElection"), "leaderElect", where, msg))
			return false;
	}
	snprintf(where, sizeof where, "%s: clientConnection", origin);
	if (doc_lookup(c, "clientConnection") &&
	    !check_keys(doc_lookup(c, "clientConnection"), client_keys, where, msg))
		return false;
	snprintf(where, sizeof where, "%s", origin);
	if (!check_int(c, "percentageOfNodesToScore", 0, 100, where, msg))
		return false;
	if (dq_count(profiles) == 0 || profiles->kind != DOC_ARRAY)
		return dq_fail(msg, "%s: no profiles", origin);
	for (i = 0; i < dq_count(profiles); i++) {
		snprintf(where, sizeof where, "%s: profiles[%zu]", origin, i);
		if (!check_keys(dq_item(profiles, i), profile_keys, where, msg) ||
		    !check_int(dq_item(profiles, i), "percentageOfNodesToScore", 0, 100, where, msg))
			return false;
		if (!dq_str(dq_item(profiles, i), "schedulerName"))
			return dq_fail(msg, "%s: no schedulerName", where);
	}
	if (dq_count(exts) == 0 || exts->kind != DOC_ARRAY)
		return dq_fail(msg, "%s: no extenders", origin);
	for (i = 0; i < dq_count(profiles); i++)
		default_scheduler |= dq_same_str(dq_str(dq_item(profiles, i), "schedulerName"), "default-scheduler");
	for (i = 0; i < dq_count(exts); i++) {
		const struct doc *e = dq_item(exts, i), *mr = doc_lookup(e, "managedResources");
		const char *timeout = dq_str(e, "httpTimeout");
		int64_t weight = 0;
		struct errmsg ignored;

		snprintf(where, sizeof where, "%s: extenders[%zu]", origin, i);
		if (!check_keys(e, extender_keys, where, msg))
			return false;
		if (doc_lookup(e, "tlsConfig")) {
			char tw[300];

			snprintf(tw, sizeof tw, "%s.tlsConfig", where);
			if (!check_keys(doc_lookup(e, "tlsConfig"), tls_keys, tw, msg) ||
			    !check_bool(doc_lookup(e, "tlsConfig"), "insecure", tw, msg))
				return false;
		}
		if (!check_bool(e, "enableHTTPS", where, msg) || !check_bool(e, "nodeCacheCapable", where, msg) ||
		    !check_bool(e, "ignorable", where, msg) || !check_int(e, "weight", INT64_MIN, INT64_MAX, where, msg))
			return false;
		if (!dq_str(e, "urlPrefix"))
			return dq_fail(msg, "%s: urlPrefix is required", where);
		if (doc_lookup(e, "weight"))
			doc_read_int64(doc_lookup(e, "weight"), &weight, &ignored);
		if (dq_str(e, "prioritizeVerb") && weight <= 0)
			return dq_fail(msg, "%s: weight must be > 0 with prioritizeVerb", where);
		if (dq_str(e, "bindVerb") && ++binders > 1)
			return dq_fail(msg, "%s: only one extender may have bindVerb", where);
		/* metav1.Duration decodes from a string only. */
		if (doc_lookup(e, "httpTimeout") &&
		    (doc_lookup(e, "httpTimeout")->kind == DOC_NUMBER || timeout == NULL ||
		     !dq_matches("^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$", timeout)))
			return dq_fail(msg, "%s.httpTimeout: expected a duration string such as 2s", where);
		for (j = 0; j < dq_count(mr); j++) {
			const char *name = dq_str(dq_item(mr, j), "name");
			char mw[300];

			snprintf(mw, sizeof mw, "%s.managedResources[%zu]", where, j);
			if (!check_keys(dq_item(mr, j), managed_keys, mw, msg) ||
			    !check_bool(dq_item(mr, j), "ignoredByScheduler", mw, msg))
				return false;
			if (name == NULL || !extended_resource_name(name))
				return dq_fail(msg, "%s.name: not a valid extended resource name", mw);
			for (size_t k = 0; k < nseen; k++)
				if (strcmp(managed_seen[k], name) == 0)
					return dq_fail(msg, "%s.name: %s is managed twice", mw, name);
			if (nseen < sizeof managed_seen / sizeof *managed_seen)
				managed_seen[nseen++] = name;
		}
		/* This project's choices. */
		if (!dq_is_true(doc_lookup(e, "nodeCacheCapable")))
			return dq_fail(msg, "%s: nodeCacheCapable must be true (the extender has its own inventory)", where);
		if (!dq_is_false(doc_lookup(e, "ignorable")))
			return dq_fail(msg, "%s: ignorable must be set to false (fail closed)", where);
		if (!dq_str(e, "filterVerb") || !dq_str(e, "prioritizeVerb"))
			return dq_fail(msg, "%s: filterVerb and prioritizeVerb are both needed", where);
		/* NUMA-aware preemption: without it the scheduler evicts pods
		 * whose freed CPUs or devices sit on the wrong NUMA node. */
		if (!dq_same_str(dq_str(e, "preemptVerb"), "preempt"))
			return dq_fail(msg, "%s: preemptVerb: preempt is needed (NUMA-aware preemption)", where);
		if (timeout == NULL)
			return dq_fail(msg, "%s: set httpTimeout (the default is 5 s per filter call)", where);
		/* The second scheduler sends every pod (CPU-only DPDK pods
		 * need the check too); extending the default scheduler, which
		 * schedules everything, the extender sees only pods asking a
		 * managed resource or the opt-in marker. */
		if (!default_scheduler) {
			if (mr != NULL)
				return dq_fail(msg, "%s: the numa-scheduler must send every pod: no managedResources", where);
			continue;
		}
		for (const char *const *m = managed_resources; *m; m++) {
			for (j = 0; j < dq_count(mr); j++)
				if (dq_same_str(dq_str(dq_item(mr, j), "name"), *m))
					break;
			if (j == dq_count(mr))
				return dq_fail(msg, "%s: managedResources lacks %s", where, *m);
			if (!dq_is_false(doc_lookup(dq_item(mr, j), "ignoredByScheduler")))
				return dq_fail(msg, "%s: managedResources %s: ignoredByScheduler must be false", where, *m);
		}
		for (j = 0; j < dq_count(mr); j++)
			if (dq_same_str(dq_str(dq_item(mr, j), "name"), MARKER_RESOURCE))
				break;
		if (j == dq_count(mr))
			return dq_fail(msg, "%s: managedResources lacks the CPU-only marker %s", where, MARKER_RESOURCE);
		if (!dq_is_true(doc_lookup(dq_item(mr, j), "ignoredByScheduler")))
			return dq_fail(msg, "%s: the marker %s needs ignoredByScheduler: true (no node advertises it)",
				       where, MARKER_RESOURCE);
	}
	return true;
}

static void manifests_scheduler_configs_use_only_known_fields(void **state)
{
	size_t i, j, n = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.nsched; j++) {
			char origin[256];

			snprintf(origin, sizeof origin, "%s (%s)", st.sched[j].cm->origin, st.sched[j].key);
			if (!check_scheduler_config(st.sched[j].cfg, origin, &msg))
				fail_msg("%s", msg.text);
			n++;
		}
		mf_sites_free(&st);
	}
	/* The second scheduler of the base and of the bind overlay, and the
	 * default scheduler of default-scheduler-mtls. */
	assert_true(n >= 3);
}

static const char good_scheduler_config[] =
	"apiVersion: kubescheduler.config.k8s.io/v1\n"
	"kind: KubeSchedulerConfiguration\n"
	"profiles:\n"
	"- schedulerName: numa-scheduler\n"
	"extenders:\n"
	"- urlPrefix: http://127.0.0.1:8888/numa\n"
	"  filterVerb: filter\n"
	"  prioritizeVerb: prioritize\n"
	"  preemptVerb: preempt\n"
	"  weight: 5\n"
	"  nodeCacheCapable: true\n"
	"  ignorable: false\n"
	"  httpTimeout: 2s\n"
	"  @@\n";

static const char managed_list[] =
	"  managedResources:\n"
	"  - {name: nvidia.com/gpu, ignoredByScheduler: false}\n"
	"  - {name: dsa.intel.com/wq-user-shared, ignoredByScheduler: false}\n"
	"  - {name: dsa.intel.com/wq-user-dedicated, ignoredByScheduler: false}\n"
	"  - {name: numa-extender.io/aligned, ignoredByScheduler: true}\n";

/* good_scheduler_config with "@@" replaced, then checked. */
static bool check_variant(const char *replacement, const char *drop, struct errmsg *msg)
{
	char buf[2048], *hole;
	struct doc **docs = NULL;
	size_t ndocs = 0;
	bool ok;

	snprintf(buf, sizeof buf, "%s", good_scheduler_config);
	hole = strstr(buf, "@@");
	memmove(hole + strlen(replacement), hole + 2, strlen(hole + 2) + 1);
	memcpy(hole, replacement, strlen(replacement));
	if (drop) {
		char *line = strstr(buf, drop), *end = line ? strchr(line, '\n') : NULL;

		assert_non_null(end);
		memmove(line, end + 1, strlen(end + 1) + 1);
	}
	assert_int_equal(doc_parse(buf, strlen(buf), "variant", &docs, &ndocs, msg), ERR_OK);
	ok = check_scheduler_config(docs[0], "variant", msg);
	doc_free_all(docs, ndocs);
	return ok;
}

static void expect_variant_fails(const char *replacement, const char *drop, const char *needle)
{
	struct errmsg msg;

	if (check_variant(replacement, drop, &msg))
		fail_msg("accepted a configuration with \"%s\"", replacement);
	if (strstr(msg.text, needle) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", msg.text, needle);
}

static void manifests_scheduler_check_rejects_bad_configs(void **state)
{
	struct errmsg msg;

	(void)state;
	if (!check_variant("bindVerb: bind", NULL, &msg))
		fail_msg("the well-formed variant was refused: %s", msg.text);
	/* The Policy-era spelling that breaks install guides. */
	expect_variant_fails("enableHttps: true", NULL, "unknown field \"enableHttps\"");
	expect_variant_fails("tlsConfig: {caFile: a, cafile: b}", NULL, "unknown field \"cafile\"");
	expect_variant_fails("tlsConfig: {insecure: \"true\"}", NULL, "tlsConfig.insecure: expected a boolean");
	expect_variant_fails("bindVerb: bind", "  weight: 5\n", "weight must be > 0");
	expect_variant_fails("bindVerb: bind", "  preemptVerb: preempt\n", "preemptVerb: preempt is needed");
	expect_variant_fails("bindVerb: bind", "  nodeCacheCapable: true\n", "nodeCacheCapable must be true");
	expect_variant_fails("ignorable: true", "  ignorable: false\n", "ignorable must be set to false");
	expect_variant_fails("bindVerb: bind", "  ignorable: false\n", "ignorable must be set to false");
	expect_variant_fails("httpTimeout: 2", "  httpTimeout: 2s\n", "httpTimeout: expected a duration");
	/* The second scheduler sends every pod. */
	expect_variant_fails(managed_list + 2, NULL, "the numa-scheduler must send every pod: no managedResources");
	expect_variant_fails("bindVerb: bind", "  filterVerb: filter\n", "filterVerb and prioritizeVerb");
}

/* Extending the default scheduler: the managed list with the CPU-only
 * marker, whose ignoredByScheduler must be true. */
static bool check_default(const char *drop, const char *replace_from, const char *replace_to,
			  struct errmsg *msg)
{
	char buf[4096], *at;
	struct doc **docs = NULL;
	size_t ndocs = 0;
	bool ok;

	snprintf(buf, sizeof buf, "%s", good_scheduler_config);
	at = strstr(buf, "numa-scheduler");
	memmove(at + strlen("default-scheduler"), at + strlen("numa-scheduler"),
		strlen(at + strlen("numa-scheduler")) + 1);
	memcpy(at, "default-scheduler", strlen("default-scheduler"));
	at = strstr(buf, "  @@\n");
	snprintf(at, sizeof buf - (size_t)(at - buf), "%s", managed_list);
	if (drop) {
		char *line = strstr(buf, drop), *end = line ? strchr(line, '\n') : NULL;

		assert_non_null(end);
		memmove(line, end + 1, strlen(end + 1) + 1);
	}
	if (replace_from) {
		at = strstr(buf, replace_from);
		assert_non_null(at);
		memmove(at + strlen(replace_to), at + strlen(replace_from), strlen(at + strlen(replace_from)) + 1);
		memcpy(at, replace_to, strlen(replace_to));
	}
	assert_int_equal(doc_parse(buf, strlen(buf), "variant", &docs, &ndocs, msg), ERR_OK);
	ok = check_scheduler_config(docs[0], "variant", msg);
	doc_free_all(docs, ndocs);
	return ok;
}

static void manifests_managed_resources_per_scheduler(void **state)
{
	struct errmsg msg;

	(void)state;
	if (!check_default(NULL, NULL, NULL, &msg))
		fail_msg("the default-scheduler variant was refused: %s", msg.text);
	assert_false(check_default("  - {name: dsa.intel.com/wq-user-dedicated", NULL, NULL, &msg));
	assert_non_null(strstr(msg.text, "managedResources lacks dsa.intel.com/wq-user-dedicated"));
	assert_false(check_default("  - {name: numa-extender.io/aligned", NULL, NULL, &msg));
	assert_non_null(strstr(msg.text, "lacks the CPU-only marker numa-extender.io/aligned"));
	assert_false(check_default(NULL, "aligned, ignoredByScheduler: true", "aligned, ignoredByScheduler: false",
				   &msg));
	assert_non_null(strstr(msg.text, "needs ignoredByScheduler: true"));
}

/* ------------------------------------------------ URLs versus routes */

struct url {
	char scheme[8];
	char host[256];
	int port;
	char path[512];
};

static bool parse_url(const char *s, struct url *u, struct errmsg *msg)
{
	const char *p, *host_end, *path;
	size_t n;

	memset(u, 0, sizeof *u);
	p = strstr(s, "://");
	if (p == NULL || (size_t)(p - s) >= sizeof u->scheme)
		return dq_fail(msg, "%s: not an absolute URL", s);
	snprintf(u->scheme, sizeof u->scheme, "%.*s", (int)(p - s), s);
	if (strcmp(u->scheme, "http") != 0 && strcmp(u->scheme, "https") != 0)
		return dq_fail(msg, "%s: scheme must be http or https", s);
	p += 3;
	path = p + strcspn(p, "/?#");
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (host_end == NULL || host_end > path)
			return dq_fail(msg, "%s: bad IPv6 host", s);
		snprintf(u->host, sizeof u->host, "%.*s", (int)(host_end - p - 1), p + 1);
		host_end++;
	} else {
		n = strcspn(p, ":/?#");
		snprintf(u->host, sizeof u->host, "%.*s", (int)n, p);
		host_end = p + n;
	}
	if (*host_end == ':') {
		char *end;
		long port = strtol(host_end + 1, &end, 10);

		if (end != path || port < 1 || port > 65535)
			return dq_fail(msg, "%s: bad port", s);
		u->port = (int)port;
	} else {
		u->port = strcmp(u->scheme, "https") == 0 ? 443 : 80;
	}
	if (strchr(path, '?') || strchr(path, '#'))
		return dq_fail(msg, "%s: query or fragment in a URL prefix", s);
	snprintf(u->path, sizeof u->path, "%s", path);
	return u->host[0] != '\0' || dq_fail(msg, "%s: no host", s);
}

static bool loopback(const char *host)
{
	return strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strncmp(host, "127.", 4) == 0;
}

static bool wildcard(const char *host)
{
	return host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0;
}

/* kube-scheduler's URL for a verb (strings.TrimRight(urlPrefix, "/") + "/" +
 * verb) must be a route the extender serves with cfg: <urlPrefix>/filter and
 * <urlPrefix>/prioritize, on the port it listens on, with TLS exactly when
 * the extender has it, and plain HTTP only on loopback. bindVerb, when set,
 * must reach <urlPrefix>/bind of an extender with bind.enabled (without it
 * the route does not exist and every bind fails); an extender with
 * bind.enabled must be given a bindVerb (else its bind never runs, and the
 * grants and exposure it needs are for nothing). */
static bool check_routes(const char *url_prefix, const char *filter_verb, const char *prioritize_verb,
			 const char *bind_verb, const struct config *cfg, struct errmsg *msg)
{
	const char *verbs[3] = { filter_verb, prioritize_verb, bind_verb };
	const char *const routes[3] = { "filter", "prioritize", "bind" };
	char trimmed[512], full[600], want[600], *host = NULL;
	struct url u;
	size_t k, n;
	int port = 0;
	bool ok;

	if (bind_verb != NULL && !cfg->bind_enabled)
		return dq_fail(msg, "kube-scheduler calls bindVerb \"%s\", but the extender's bind.enabled is false: "
			     "it serves no bind route", bind_verb);
	if (bind_verb == NULL && cfg->bind_enabled)
		return dq_fail(msg, "bind is enabled but kube-scheduler never calls it: set bindVerb: bind "
			     "in the scheduler's extender entry");
	snprintf(trimmed, sizeof trimmed, "%s", url_prefix);
	n = strlen(trimmed);
	while (n > 0 && trimmed[n - 1] == '/')
		trimmed[--n] = '\0';
	for (k = 0; k < 3; k++) {
		if (k == 2 && verbs[k] == NULL)
			break;
		if (verbs[k] == NULL)
			return dq_fail(msg, "no %sVerb", routes[k]);
		snprintf(full, sizeof full, "%s/%s", trimmed, verbs[k]);
		if (!parse_url(full, &u, msg))
			return false;
		snprintf(want, sizeof want, "%s/%s", cfg->url_prefix ? cfg->url_prefix : "", routes[k]);
		if (strcmp(u.path, want) != 0)
			return dq_fail(msg, "kube-scheduler POSTs %s to path %s, but the extender serves %s (urlPrefix \"%s\")",
				     routes[k], u.path, want, cfg->url_prefix ? cfg->url_prefix : "");
	}
	if (net_split_hostport(cfg->listen, &host, &port, msg) != ERR_OK)
		return false;
	ok = true;
	if (u.port != port)
		ok = dq_fail(msg, "urlPrefix %s uses port %d, the extender listens on %s", url_prefix, u.port,
			   cfg->listen);
	else if ((strcmp(u.scheme, "https") == 0) != (cfg->tls_cert_file != NULL))
		ok = dq_fail(msg, "urlPrefix %s is %s but the extender %s TLS", url_prefix, u.scheme,
			   cfg->tls_cert_file ? "serves" : "does not serve");
	else if (strcmp(u.scheme, "http") == 0 && (!loopback(u.host) || !loopback(host)))
		ok = dq_fail(msg, "plain HTTP is for loopback only: urlPrefix %s, listen %s", url_prefix, cfg->listen);
	free(host);
	return ok;
}

static const struct mf_ext_site *ext_in_pod(const struct mf_sites *st, const struct doc *podspec)
{
	size_t i;

	for (i = 0; i < st->next; i++)
		if (st->ext[i].podspec == podspec)
			return &st->ext[i];
	return NULL;
}

static bool labels_select(const struct doc *selector, const struct doc *labels)
{
	size_t i;

	if (dq_count(selector) == 0)
		return false;
	for (i = 0; i < selector->nchildren; i++)
		if (!dq_same_str(dq_text(doc_lookup(labels, selector->children[i].key)), dq_text(dq_item(selector, i))))
			return false;
	return true;
}

/* The containerPort a probe or Service targetPort names (a name or a number). */
static bool container_port(const struct doc *container, const struct doc *target, int64_t *out)
{
	const struct doc *ports = doc_lookup(container, "ports");
	struct errmsg ignored;
	size_t i;

	if (target == NULL)
		return false;
	if (doc_read_int64(target, out, &ignored) == ERR_OK)
		return true;
	for (i = 0; i < dq_count(ports); i++)
		if (dq_same_str(dq_str(dq_item(ports, i), "name"), dq_text(target)))
			return doc_read_int64(doc_lookup(dq_item(ports, i), "containerPort"), out, &ignored) == ERR_OK;
	return false;
}

/* The extender behind the URL is this build's extender: in the scheduler's
 * own pod for a loopback URL, else through a Service of the build. TLS on
 * the scheduler's side matches the extender's. */
static bool check_reachable(const struct kz_build *s, const struct mf_sites *st, const struct mf_sched_site *sc,
			    const struct doc *ext, struct errmsg *msg)
{
	const struct doc *tls = doc_lookup(ext, "tlsConfig");
	const struct mf_ext_site *es = &st->ext[0];
	struct url u;
	char svc[128], ns[128], rest[128], *host = NULL;
	int port = 0;
	bool https = dq_is_true(doc_lookup(ext, "enableHTTPS"));

	if (!parse_url(dq_str(ext, "urlPrefix"), &u, msg))
		return false;
	if (https != (strcmp(u.scheme, "https") == 0))
		return dq_fail(msg, "urlPrefix %s and enableHTTPS disagree", dq_str(ext, "urlPrefix"));
	if (https) {
		if (dq_is_true(doc_lookup(tls, "insecure")))
			return dq_fail(msg, "tlsConfig.insecure: the extender's certificate would not be checked");
		if (!dq_str(tls, "caFile") && !dq_str(tls, "caData"))
			return dq_fail(msg, "tlsConfig without caFile or caData: kube-scheduler silently skips verification");
		if (es->cfg.tls_client_ca_file && (!(dq_str(tls, "certFile") || dq_str(tls, "certData")) ||
						   !(dq_str(tls, "keyFile") || dq_str(tls, "keyData"))))
			return dq_fail(msg, "the extender requires a client certificate; tlsConfig has none");
	}
	if (loopback(u.host)) {
		if (sc->podspec == NULL || ext_in_pod(st, sc->podspec) == NULL)
			return dq_fail(msg, "loopback urlPrefix %s, but no numa-extender runs in the scheduler's pod",
				     dq_str(ext, "urlPrefix"));
		return true;
	}
	if (sscanf(u.host, "%127[^.].%127[^.].%127s", svc, ns, rest) != 3 ||
	    (strcmp(rest, "svc") != 0 && strcmp(rest, "svc.cluster.local") != 0))
		return dq_fail(msg, "urlPrefix host %s is neither loopback nor SERVICE.NAMESPACE.svc", u.host);
	if (dq_str(tls, "serverName")) {
		char a[300], b[320];

		snprintf(a, sizeof a, "%s.%s.svc", svc, ns);
		snprintf(b, sizeof b, "%s.%s.svc.cluster.local", svc, ns);
		if (strcmp(dq_str(tls, "serverName"), a) != 0 && strcmp(dq_str(tls, "serverName"), b) != 0)
			return dq_fail(msg, "tlsConfig.serverName %s does not name Service %s/%s",
				     dq_str(tls, "serverName"), ns, svc);
	}
	{
		const struct kz_res *service = kz_find(s, "Service", ns, svc);
		const struct doc *ports = service ? dq_at(service->doc, "spec.ports") : NULL;
		size_t i, j;

		if (service == NULL)
			return dq_fail(msg, "urlPrefix names Service %s/%s, which %s does not create", ns, svc, s->dir);
		for (i = 0; i < dq_count(ports); i++) {
			int64_t p = 0, target = 0;
			struct errmsg ignored;
			const struct doc *tp = doc_lookup(dq_item(ports, i), "targetPort");

			if (doc_read_int64(doc_lookup(dq_item(ports, i), "port"), &p, &ignored) != ERR_OK || p != u.port)
				continue;
			if (tp == NULL)
				tp = doc_lookup(dq_item(ports, i), "port");
			if (net_split_hostport(es->cfg.listen, &host, &port, msg) != ERR_OK)
				return false;
			if (!wildcard(host)) {
				dq_fail(msg, "reached through Service %s, but the extender listens on %s only", svc,
				      es->cfg.listen);
				free(host);
				return false;
			}
			free(host);
			for (j = 0; j < st->next; j++) {
				const struct doc *labels = dq_at(st->ext[j].deploy->doc, "spec.template.metadata.labels");

				if (!labels_select(dq_at(service->doc, "spec.selector"), labels))
					continue;
				if (!container_port(st->ext[j].container, tp, &target) || target != port)
					return dq_fail(msg, "Service %s port %d reaches container port %lld, the extender listens on %s",
						     svc, u.port, (long long)target, es->cfg.listen);
				return true;
			}
			return dq_fail(msg, "Service %s selects no numa-extender pod", svc);
		}
		return dq_fail(msg, "Service %s has no port %d", svc, u.port);
	}
}

static void manifests_scheduler_urls_match_extender_routes(void **state)
{
	size_t i, j, k, checked = 0, binds = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		assert_true(st.next >= 1);
		for (j = 0; j < st.nsched; j++) {
			const struct doc *exts = doc_lookup(st.sched[j].cfg, "extenders");

			for (k = 0; k < dq_count(exts); k++) {
				const struct doc *e = dq_item(exts, k);
				char *host = NULL;
				int port = 0;

				if (!check_routes(dq_str(e, "urlPrefix"), dq_str(e, "filterVerb"),
						  dq_str(e, "prioritizeVerb"), dq_str(e, "bindVerb"), &st.ext[0].cfg,
						  &msg) ||
				    !check_reachable(&mf_tree.sets[i], &st, &st.sched[j], e, &msg))
					fail_msg("%s (%s, in %s) extenders[%zu]: %s", st.sched[j].cm->origin, st.sched[j].key,
						 mf_tree.sets[i].dir, k, msg.text);
				/* Reached through a Service: must listen beyond loopback. */
				assert_int_equal(net_split_hostport(st.ext[0].cfg.listen, &host, &port, &msg), ERR_OK);
				if (!loopback(host) && !wildcard(host))
					fail_msg("%s: listen %s is neither loopback nor all addresses", mf_tree.sets[i].dir,
						 st.ext[0].cfg.listen);
				free(host);
				checked++;
				binds += dq_str(e, "bindVerb") != NULL;
			}
		}
		mf_sites_free(&st);
	}
	assert_true(checked >= 3);
	/* The bind overlay's scheduler delegates binding. */
	assert_true(binds >= 1);
}

static void manifests_route_check_rejects_mismatches(void **state)
{
	struct config plain, tls;
	struct errmsg msg;
	static const char plain_yaml[] = "listen: \"127.0.0.1:8888\"\nurlPrefix: /numa\n";
	static const char tls_yaml[] =
		"listen: \"0.0.0.0:8443\"\nurlPrefix: /numa\n"
		"tls: {certFile: /c, keyFile: /k, clientCAFile: /ca}\n";

	(void)state;
	config_init(&plain);
	config_init(&tls);
	assert_int_equal(config_load_buffer(plain_yaml, strlen(plain_yaml), "plain", &plain, &msg), ERR_OK);
	assert_int_equal(config_load_buffer(tls_yaml, strlen(tls_yaml), "tls", &tls, &msg), ERR_OK);
	assert_true(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &plain, &msg));
	/* Trailing slashes are trimmed by kube-scheduler. */
	assert_true(check_routes("http://127.0.0.1:8888/numa//", "filter", "prioritize", NULL, &plain, &msg));
	assert_false(check_routes("http://127.0.0.1:8888/v1", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "the extender serves /numa/filter"));
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "score", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "/numa/prioritize"));
	assert_false(check_routes("http://127.0.0.1:8889/numa", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "port 8889"));
	assert_false(check_routes("https://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &plain, &msg));
	assert_non_null(strstr(msg.text, "does not serve TLS"));
	assert_false(check_routes("http://x.y.svc:8443/numa", "filter", "prioritize", NULL, &tls, &msg));
	assert_non_null(strstr(msg.text, "serves TLS"));
	assert_true(check_routes("https://x.y.svc:8443/numa", "filter", "prioritize", NULL, &tls, &msg));
	config_cleanup(&plain);
	config_cleanup(&tls);
}

/* bindVerb against bind.enabled, and the loader's rule that makes the bind
 * overlay move metricsListen to loopback. */
static void manifests_route_check_rejects_bind_mismatches(void **state)
{
	struct config plain, bind, refused;
	struct errmsg msg;
	static const char plain_yaml[] = "listen: \"127.0.0.1:8888\"\nurlPrefix: /numa\n";
	static const char bind_yaml[] =
		"listen: \"127.0.0.1:8888\"\nmetricsListen: \"127.0.0.1:9090\"\nurlPrefix: /numa\n"
		"inventory: {source: kubernetes}\nbind: {enabled: true}\n";
	/* The base's metricsListen: reachable from the pod network. */
	static const char open_yaml[] =
		"listen: \"127.0.0.1:8888\"\nmetricsListen: \"0.0.0.0:9090\"\nurlPrefix: /numa\n"
		"inventory: {source: kubernetes}\nbind: {enabled: true}\n";

	(void)state;
	config_init(&plain);
	config_init(&bind);
	config_init(&refused);
	assert_int_equal(config_load_buffer(plain_yaml, strlen(plain_yaml), "plain", &plain, &msg), ERR_OK);
	if (config_load_buffer(bind_yaml, strlen(bind_yaml), "bind", &bind, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_true(bind.bind_enabled);
	assert_int_not_equal(config_load_buffer(open_yaml, strlen(open_yaml), "open", &refused, &msg), ERR_OK);
	assert_non_null(strstr(msg.text, "loopback"));

	assert_true(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "bind", &bind, &msg));
	assert_true(check_routes("http://127.0.0.1:8888/numa/", "filter", "prioritize", "bind", &bind, &msg));
	/* The route is <urlPrefix>/bind whatever the verb is called. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "binding", &bind, &msg));
	assert_non_null(strstr(msg.text, "POSTs bind to path /numa/binding, but the extender serves /numa/bind"));
	/* kube-scheduler binds, the extender's route is never called. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", NULL, &bind, &msg));
	assert_non_null(strstr(msg.text, "bind is enabled but kube-scheduler never calls it"));
	/* bindVerb against an extender without the route: every bind a 404. */
	assert_false(check_routes("http://127.0.0.1:8888/numa", "filter", "prioritize", "bind", &plain, &msg));
	assert_non_null(strstr(msg.text, "bind.enabled is false"));
	/* The other checks still apply with a bindVerb. */
	assert_false(check_routes("http://127.0.0.1:8889/numa", "filter", "prioritize", "bind", &bind, &msg));
	assert_non_null(strstr(msg.text, "port 8889"));
	config_cleanup(&plain);
	config_cleanup(&bind);
	config_cleanup(&refused);
}

/* A probe run inside the container, for a health listener on loopback (the
 * kubelet probes the pod IP; an httpGet host of 127.0.0.1 is the node's
 * own): bash, which the image's debian:bookworm-slim base ships, opens
 * host:port through /dev/tcp, GETs path and succeeds on status 200 only. */
static bool check_exec_probe(const struct doc *probe, const char *host, int port, const char *path,
			     struct errmsg *msg)
{
	const struct doc *cmd = dq_at(probe, "exec.command");
	const char *script = dq_count(cmd) == 3 ? dq_text(dq_item(cmd, 2)) : NULL;
	char want[300];

	if (doc_lookup(probe, "httpGet") || doc_lookup(probe, "tcpSocket") || doc_lookup(probe, "grpc"))
		return dq_fail(msg, "an exec probe with a second handler");
	if (script == NULL || !dq_same_str(dq_text(dq_item(cmd, 0)), "/bin/bash") || !dq_same_str(dq_text(dq_item(cmd, 1)), "-c"))
		return dq_fail(msg, "exec.command must be [/bin/bash, -c, SCRIPT]");
	snprintf(want, sizeof want, "/dev/tcp/%s/%d ", host, port);
	if (strstr(script, want) == NULL)
		return dq_fail(msg, "the script does not connect to %s:%d, where health is served", host, port);
	snprintf(want, sizeof want, "'GET %s HTTP/1.0\\r\\n\\r\\n'", path);
	if (strstr(script, want) == NULL)
		return dq_fail(msg, "the script does not send GET %s", path);
	if (strstr(script, "read -r _ code _ <&3 && [ \"$code\" = 200 ]") == NULL)
		return dq_fail(msg, "the script does not require status 200");
	return true;
}

static void manifests_extender_probes_reach_the_health_listener(void **state)
{
	static const char *const probes[2] = { "livenessProbe", "readinessProbe" };
	static const char *const paths[2] = { "/healthz", "/readyz" };
	size_t i, j, k, checked = 0, inside = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct mf_ext_site *e = &st.ext[j];
			const char *health = e->cfg.metrics_listen ? e->cfg.metrics_listen : e->cfg.listen;
			char *host = NULL, where[512];
			int port = 0;
			bool local;

			snprintf(where, sizeof where, "%s (%s)", e->deploy->origin, mf_tree.sets[i].dir);
			assert_int_equal(net_split_hostport(health, &host, &port, &msg), ERR_OK);
			local = loopback(host);
			/* A TLS health listener is out of the kubelet's reach (it has
			 * no client certificate). */
			if (!local && !e->cfg.metrics_listen && e->cfg.tls_cert_file)
				fail_msg("%s: /healthz and /readyz on %s need TLS, out of the kubelet's reach; set metricsListen",
					 where, health);
			for (k = 0; k < 2; k++) {
				const struct doc *probe = dq_at(e->container, probes[k]), *get = doc_lookup(probe, "httpGet");
				int64_t target = 0;

				if (probe == NULL)
					fail_msg("%s: the numa-extender container has no %s", where, probes[k]);
				/* Loopback: only a probe inside the container reaches it. */
				if (local) {
					if (!check_exec_probe(probe, host, port, paths[k], &msg))
						fail_msg("%s: %s: /healthz and /readyz on %s are out of the kubelet's reach, "
							 "probe from inside the container: %s", where, probes[k], health, msg.text);
					checked++;
					continue;
				}
				if (get == NULL)
					fail_msg("%s: the numa-extender container has no %s.httpGet", where, probes[k]);
				if (!dq_same_str(dq_str(get, "path"), paths[k]))
					fail_msg("%s: %s must GET %s", where, probes[k], paths[k]);
				if (dq_str(get, "scheme") && strcmp(dq_str(get, "scheme"), "HTTP") != 0)
					fail_msg("%s: %s: the health listener is plain HTTP", where, probes[k]);
				if (!container_port(e->container, doc_lookup(get, "port"), &target) || target != port)
					fail_msg("%s: %s probes port %lld, health is served on %s", where, probes[k],
						 (long long)target, health);
				checked++;
			}
			/* A declared port nothing outside the pod can connect to would
			 * mislead Services and PodMonitors. */
			if (local) {
				const struct doc *ports = doc_lookup(e->container, "ports");

				for (k = 0; k < dq_count(ports); k++) {
					int64_t declared = 0;
					struct errmsg ignored;

					if (doc_read_int64(doc_lookup(dq_item(ports, k), "containerPort"), &declared, &ignored) ==
						    ERR_OK && declared == port)
						fail_msg("%s: containerPort %d is declared, but health listens on %s only",
							 where, port, health);
				}
				inside++;
			}
			free(host);
		}
		mf_sites_free(&st);
	}
	/* Base, default-scheduler-mtls and bind; the bind overlay's on loopback. */
	assert_true(checked >= 6);
	assert_true(inside >= 1);
}

static void manifests_probe_check_rejects_unreachable_exec_probes(void **state)
{
	static const char good[] =
		"exec:\n  command:\n  - /bin/bash\n  - -c\n"
		"  - exec 3<>/dev/tcp/127.0.0.1/9090 && printf 'GET /readyz HTTP/1.0\\r\\n\\r\\n' >&3 && "
		"read -r _ code _ <&3 && [ \"$code\" = 200 ]\n";
	static const struct {
		const char *from, *to, *needle;
	} cases[] = {
		{ NULL, NULL, NULL },
		{ "/9090 ", "/9091 ", "does not connect to 127.0.0.1:9090" },
		{ "/127.0.0.1/", "/10.0.0.1/", "does not connect to 127.0.0.1:9090" },
		{ "GET /readyz", "GET /healthz", "does not send GET /readyz" },
		{ " && [ \"$code\" = 200 ]", "", "does not require status 200" },
		{ "/bin/bash", "/bin/sh", "[/bin/bash, -c, SCRIPT]" },
		{ "exec:", "httpGet: {path: /readyz, port: 9090}\nexec:", "second handler" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[1024];
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		snprintf(buf, sizeof buf, "%s", good);
		if (cases[i].from) {
			char *p = strstr(buf, cases[i].from);

			assert_non_null(p);
			memmove(p + strlen(cases[i].to), p + strlen(cases[i].from), strlen(p + strlen(cases[i].from)) + 1);
			memcpy(p, cases[i].to, strlen(cases[i].to));
		}
		assert_int_equal(doc_parse(buf, strlen(buf), "probe", &docs, &ndocs, &msg), ERR_OK);
		ok = check_exec_probe(docs[0], "127.0.0.1", 9090, "/readyz", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("the good probe was refused: %s", msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* The files the extender's TLS settings name are in its pod: certificate and
 * CA from the Secrets the operator creates, the private key never from a
 * ConfigMap. */
static void manifests_extender_tls_files_come_from_secrets(void **state)
{
	static const char *const secrets[] = { "numa-extender-tls", "numa-extender-client-ca", NULL };
	size_t i, j, k, ntls = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct mf_ext_site *e = &st.ext[j];
			const char *paths[3] = { e->cfg.tls_cert_file, e->cfg.tls_key_file, e->cfg.tls_client_ca_file };

			if (paths[0] == NULL)
				continue;
			ntls++;
			for (k = 0; k < 3; k++) {
				struct mf_file_ref ref;

				if (paths[k] == NULL)
					continue;
				if (!mf_resolve_in_pod(&mf_tree.sets[i], e->ns, e->podspec, e->container, paths[k], &ref, &msg))
					fail_msg("%s: %s", e->deploy->origin, msg.text);
				if (!ref.secret || !dq_in_list(ref.name, secrets))
					fail_msg("%s: %s must come from Secret numa-extender-tls or numa-extender-client-ca, not %s %s",
						 e->deploy->origin, paths[k], ref.secret ? "Secret" : "ConfigMap", ref.name);
			}
		}
		mf_sites_free(&st);
	}
	/* The default-scheduler-mtls overlay serves TLS. */
	assert_true(ntls >= 1);
}

/* The extender writes only its decision log, and the root filesystem is
 * read-only: the log's directory must be a writable emptyDir mount, or the
 * extender refuses to start ("cannot open the decision log"). */
static void manifests_decision_log_has_a_writable_directory(void **state)
{
	size_t i, j, k, nlogs = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct mf_ext_site *e = &st.ext[j];
			const struct doc *mounts = doc_lookup(e->container, "volumeMounts");
			const struct doc *vols = doc_lookup(e->podspec, "volumes");
			const char *path = e->cfg.decision_log_path, *slash, *vol = NULL;
			bool writable = false;

			if (path == NULL)
				continue;
			nlogs++;
			slash = strrchr(path, '/');
			for (k = 0; slash && k < dq_count(mounts); k++) {
				const char *mp = dq_str(dq_item(mounts, k), "mountPath");

				if (mp && strlen(mp) == (size_t)(slash - path) && strncmp(mp, path, strlen(mp)) == 0 &&
				    !dq_is_true(doc_lookup(dq_item(mounts, k), "readOnly")) && !dq_str(dq_item(mounts, k), "subPath"))
					vol = dq_str(dq_item(mounts, k), "name");
			}
			for (k = 0; vol && k < dq_count(vols); k++)
				if (dq_same_str(dq_str(dq_item(vols, k), "name"), vol) && doc_get(dq_item(vols, k), "emptyDir"))
					writable = true;
			if (!writable)
				fail_msg("%s: decisionLog.path %s is not in a writable emptyDir mount", e->deploy->origin, path);
		}
		mf_sites_free(&st);
	}
	assert_true(nlogs >= 1);
}


/* The path p is a mount of the patch's container, or lies under one. */
static bool mounted(const struct doc *mounts, const char *p)
{
	size_t i;

	for (i = 0; p && i < dq_count(mounts); i++) {
		const char *mp = dq_str(dq_item(mounts, i), "mountPath");
		size_t n = mp ? strlen(mp) : 0;

		if (n > 0 && strncmp(p, mp, n) == 0 && (p[n] == '\0' || p[n] == '/'))
			return true;
	}
	return false;
}

/* Step 3 of the mTLS install is a patch of the control plane's static pod:
 * it must start kube-scheduler with --config at the path the guide installs
 * the configuration to, without the flags the file replaces, mount that file
 * and every certificate the configuration names from the host, and resolve
 * the Service name the extender's URL uses. */
static void manifests_control_plane_patch_serves_the_scheduler_config(void **state)
{
	const struct kz_file *f = kz_files_find(&mf_tree.files, STATIC_POD_PATCH);
	const struct doc *pod, *c = NULL, *cmd, *mounts, *vols, *cfg = NULL;
	const struct kz_build *mtls = NULL;
	const char *config_path = NULL;
	struct mf_sites st;
	struct errmsg msg;
	size_t i, e, nfiles = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->ndocs, 1);
	pod = f->docs[0];
	assert_true(dq_kind_is(pod, "Pod"));
	assert_true(dq_same_str(dq_str(pod, "metadata.namespace"), "kube-system"));
	for (i = 0; i < dq_count(dq_at(pod, "spec.containers")); i++)
		if (dq_same_str(dq_str(dq_item(dq_at(pod, "spec.containers"), i), "name"), "kube-scheduler"))
			c = dq_item(dq_at(pod, "spec.containers"), i);
	assert_non_null(c);
	cmd = doc_lookup(c, "command");
	mounts = doc_lookup(c, "volumeMounts");
	vols = dq_at(pod, "spec.volumes");
	assert_true(dq_same_str(dq_text(dq_item(cmd, 0)), "kube-scheduler"));
	for (i = 0; i < dq_count(cmd); i++) {
		const char *arg = dq_text(dq_item(cmd, i));

		if (arg && strncmp(arg, "--config=", 9) == 0)
			config_path = arg + 9;
		if (arg && (strncmp(arg, "--kubeconfig", 12) == 0 || strncmp(arg, "--leader-elect", 14) == 0))
			fail_msg("%s: %s is set by the configuration file; the patch must drop it", f->path, arg);
	}
	assert_non_null(config_path);
	assert_true(mounted(mounts, config_path));
	/* Every mount comes from a hostPath volume of the same path. */
	for (i = 0; i < dq_count(mounts); i++) {
		const struct doc *m = dq_item(mounts, i);
		bool found = false;

		if (!dq_is_true(doc_lookup(m, "readOnly")))
			fail_msg("%s: mount %s must be read-only", f->path, dq_str(m, "mountPath"));
		for (e = 0; e < dq_count(vols); e++)
			found |= dq_same_str(dq_str(dq_item(vols, e), "name"), dq_str(m, "name")) &&
				 dq_same_str(dq_str(dq_item(vols, e), "hostPath.path"), dq_str(m, "mountPath"));
		if (!found)
			fail_msg("%s: mount %s has no hostPath volume of that path", f->path, dq_str(m, "mountPath"));
	}
	/* The configuration the patch starts kube-scheduler with: the one
	 * of the mTLS overlay that no Deployment runs. */
	for (i = 0; i < mf_tree.nsets; i++)
		if (strcmp(mf_tree.sets[i].dir, "manifests/overlays/default-scheduler-mtls") == 0)
			mtls = &mf_tree.sets[i];
	assert_non_null(mtls);
	if (!mf_load_sites(mtls, &st, &msg))
		fail_msg("%s", msg.text);
	for (i = 0; i < st.nsched; i++)
		if (st.sched[i].deploy == NULL)
			cfg = st.sched[i].cfg;
	assert_non_null(cfg);
	assert_true(dq_same_str(dq_str(cfg, "clientConnection.kubeconfig"), KUBEADM_SCHEDULER_CONF));
	for (e = 0; e < dq_count(doc_lookup(cfg, "extenders")); e++) {
		const struct doc *x = dq_item(doc_lookup(cfg, "extenders"), e);
		static const char *const keys[] = { "tlsConfig.caFile", "tlsConfig.certFile", "tlsConfig.keyFile" };
		const char *url = dq_str(x, "urlPrefix");

		for (i = 0; i < 3; i++) {
			const char *p = dq_str(x, keys[i]);

			if (p == NULL)
				continue;
			nfiles++;
			if (!mounted(mounts, p))
				fail_msg("%s: %s %s is not mounted by %s", mtls->dir, keys[i], p, f->path);
		}
		/* A Service name needs the cluster's DNS from the host network. */
		if (url && strstr(url, ".svc") != NULL &&
		    !dq_same_str(dq_str(pod, "spec.dnsPolicy"), "ClusterFirstWithHostNet"))
			fail_msg("%s: %s needs dnsPolicy ClusterFirstWithHostNet", f->path, url);
	}
	assert_int_equal(nfiles, 3);
	mf_sites_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(manifests_every_yaml_parses_and_names_itself),
		cmocka_unit_test(manifests_kustomizations_reference_existing_files),
		cmocka_unit_test(manifests_builds_resolve_without_clashes),
		cmocka_unit_test(manifests_scheduler_configs_use_only_known_fields),
		cmocka_unit_test(manifests_scheduler_check_rejects_bad_configs),
		cmocka_unit_test(manifests_managed_resources_per_scheduler),
		cmocka_unit_test(manifests_scheduler_urls_match_extender_routes),
		cmocka_unit_test(manifests_route_check_rejects_mismatches),
		cmocka_unit_test(manifests_route_check_rejects_bind_mismatches),
		cmocka_unit_test(manifests_extender_probes_reach_the_health_listener),
		cmocka_unit_test(manifests_probe_check_rejects_unreachable_exec_probes),
		cmocka_unit_test(manifests_extender_tls_files_come_from_secrets),
		cmocka_unit_test(manifests_decision_log_has_a_writable_directory),
		cmocka_unit_test(manifests_control_plane_patch_serves_the_scheduler_config),
	};

	return cmocka_run_group_tests_name("manifests", tests, mf_tree_setup, mf_tree_teardown);
}
