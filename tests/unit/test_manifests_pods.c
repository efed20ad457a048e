/* SPDX-License-Identifier: Apache-2.0 */
/* The pods the install manifests run and the image they run: every
 * container of a Deployment is locked down (non-root, read-only root, no
 * capabilities, RuntimeDefault seccomp, requests and limits, a pinned
 * image); the extender may use as many CPUs as it has threads; the
 * example pods are Guaranteed and reach the extender; the
 * Dockerfile builds with the packages scripts/install-deps.sh installs and
 * runs the user and configuration the Deployments expect. Run from the
 * repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "tests/support/doc_query.h"
#include "tests/support/kustomize.h"
#include "tests/support/manifest_sites.h"
#include "base/err.h"
#include "topology/quantity.h"

/* ------------------------------------------------------ locked-down pods */

static const struct doc *effective(const struct doc *container_sc, const struct doc *pod_sc, const char *key)
{
	return dq_at(container_sc, key) ? dq_at(container_sc, key) : dq_at(pod_sc, key);
}

static bool quantity_milli(const struct doc *d, int64_t *out)
{
	const char *t = dq_text(d);
	struct quantity q;
	struct errmsg ignored;

	if (t == NULL && d && d->kind == DOC_NUMBER)
		t = d->text;
	return t && quantity_parse(t, strlen(t), &q, &ignored) == ERR_OK &&
	       quantity_scaled(&q, -3, out) == ERR_OK;
}

/* A container of a Deployment: non-root, read-only root, no capabilities,
 * no privilege escalation, RuntimeDefault seccomp (pod or container level),
 * cpu and memory requests and limits, a pinned image. */
static bool check_lockdown(const struct doc *podspec, const char *where, struct errmsg *msg)
{
	static const char *const lists[] = { "initContainers", "containers" };
	const struct doc *psc = doc_lookup(podspec, "securityContext");
	size_t l, i;

	if (dq_is_true(doc_lookup(podspec, "hostNetwork")) || dq_is_true(doc_lookup(podspec, "hostPID")) ||
	    dq_is_true(doc_lookup(podspec, "hostIPC")))
		return dq_fail(msg, "%s: shares a host namespace", where);
	if (dq_count(doc_lookup(podspec, "containers")) == 0)
		return dq_fail(msg, "%s: no containers", where);
	for (l = 0; l < 2; l++) {
		const struct doc *cs = doc_lookup(podspec, lists[l]);

		for (i = 0; i < dq_count(cs); i++) {
			const struct doc *c = dq_item(cs, i), *csc = doc_lookup(c, "securityContext");
			const struct doc *drop = dq_at(csc, "capabilities.drop"), *uid = effective(csc, psc, "runAsUser");
			const char *name = dq_str(c, "name"), *image = dq_str(c, "image");
			static const char *const res[] = { "cpu", "memory" };
			int64_t n;
			struct errmsg ignored;
			size_t r;

			if (!dq_is_true(effective(csc, psc, "runAsNonRoot")))
				return dq_fail(msg, "%s: container %s: runAsNonRoot must be true", where, name);
			if (uid && (doc_read_int64(uid, &n, &ignored) != ERR_OK || n == 0))
				return dq_fail(msg, "%s: container %s: runAsUser 0", where, name);
			if (!dq_is_true(doc_lookup(csc, "readOnlyRootFilesystem")))
				return dq_fail(msg, "%s: container %s: readOnlyRootFilesystem must be true", where, name);
			if (!dq_is_false(doc_lookup(csc, "allowPrivilegeEscalation")))
				return dq_fail(msg, "%s: container %s: allowPrivilegeEscalation must be false", where, name);
			if (dq_is_true(doc_lookup(csc, "privileged")))
				return dq_fail(msg, "%s: container %s: privileged", where, name);
			if (!dq_list_has(drop, "ALL") || dq_count(dq_at(csc, "capabilities.add")) > 0)
				return dq_fail(msg, "%s: container %s: capabilities must drop ALL and add none", where, name);
			if (!dq_same_str(dq_text(effective(csc, psc, "seccompProfile.type")), "RuntimeDefault"))
				return dq_fail(msg, "%s: container %s: seccompProfile must be RuntimeDefault", where, name);
			for (r = 0; r < 2; r++) {
				int64_t req, lim;

				if (!quantity_milli(dq_at(doc_lookup(c, "resources"), "requests") ?
						    doc_get(dq_at(c, "resources.requests"), res[r]) : NULL, &req) ||
				    !quantity_milli(doc_get(dq_at(c, "resources.limits"), res[r]), &lim))
					return dq_fail(msg, "%s: container %s: resources.requests and resources.limits need %s",
						     where, name, res[r]);
				if (req > lim)
					return dq_fail(msg, "%s: container %s: %s request above its limit", where, name, res[r]);
			}
			if (image == NULL || (!strchr(strrchr(image, '/') ? strrchr(image, '/') : image, ':') &&
					      !strchr(image, '@')) ||
			    dq_has_suffix(image, ":latest"))
				return dq_fail(msg, "%s: container %s: image %s is not pinned", where, name,
					     image ? image : "(none)");
		}
	}
	return true;
}

static void manifests_deployments_are_locked_down(void **state)
{
	size_t i, j, n = 0;
	struct errmsg msg;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++)
		for (j = 0; j < mf_tree.sets[i].n; j++) {
			const struct doc *d = mf_tree.sets[i].v[j].doc;
			char where[512];

			if (dq_kind_is(d, "DaemonSet") || dq_kind_is(d, "StatefulSet") || dq_kind_is(d, "Pod") || dq_kind_is(d, "Job"))
				fail_msg("%s: %s: only Deployments are expected (and checked)", mf_tree.sets[i].v[j].origin,
					 dq_str(d, "kind"));
			if (!dq_kind_is(d, "Deployment"))
				continue;
			snprintf(where, sizeof where, "%s (%s)", mf_tree.sets[i].v[j].origin, mf_tree.sets[i].dir);
			if (!check_lockdown(mf_podspec_of(&mf_tree.sets[i].v[j]), where, &msg))
				fail_msg("%s", msg.text);
			n++;
		}
	/* numa-scheduler of the base and the bind overlay, numa-extender of
	 * default-scheduler-mtls. */
	assert_true(n >= 3);
}

static void manifests_lockdown_check_rejects_loose_containers(void **state)
{
	static const char base[] =
		"securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n"
		"containers:\n"
		"- name: c\n"
		"  image: registry.example/c:1\n"
		"  resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: \"1\", memory: 64Mi}}\n"
		"  securityContext:\n"
		"    readOnlyRootFilesystem: true\n"
		"    allowPrivilegeEscalation: false\n"
		"    capabilities: {drop: [ALL]}\n";
	static const struct {
		const char *from, *to, *needle;
	} cases[] = {
		{ NULL, NULL, NULL },
		{ "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem" },
		{ "allowPrivilegeEscalation: false", "privileged: false", "allowPrivilegeEscalation" },
		{ "drop: [ALL]", "drop: [NET_RAW]", "drop ALL" },
		{ "drop: [ALL]", "drop: [ALL], add: [NET_ADMIN]", "add none" },
		{ "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot" },
		{ "type: RuntimeDefault", "type: Unconfined", "seccompProfile" },
		{ "limits: {cpu: \"1\", memory: 64Mi}", "limits: {cpu: \"1\"}", "need memory" },
		{ "memory: 64Mi}, limits", "memory: 128Mi}, limits", "memory request above its limit" },
		{ "c:1", "c", "not pinned" },
		{ "containers:", "hostNetwork: true\ncontainers:", "host namespace" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[2048];
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		snprintf(buf, sizeof buf, "%s", base);
		if (cases[i].from) {
			char *p = strstr(buf, cases[i].from);

			assert_non_null(p);
			memmove(p + strlen(cases[i].to), p + strlen(cases[i].from), strlen(p + strlen(cases[i].from)) + 1);
			memcpy(p, cases[i].to, strlen(cases[i].to));
		}
		assert_int_equal(doc_parse(buf, strlen(buf), "pod", &docs, &ndocs, &msg), ERR_OK);
		ok = check_lockdown(docs[0], "pod", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("the locked-down pod was refused: %s", msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* A request that judges many nodes shares the work with threads - 1
 * helpers: a CPU limit below `threads` throttles them, so every extender
 * container may use as many whole CPUs as its configuration has threads. */
static void manifests_extender_cpu_limit_covers_its_threads(void **state)
{
	size_t i, j, n = 0;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			const struct mf_ext_site *e = &st.ext[j];
			int64_t cpu = 0;

			if (!quantity_milli(doc_get(dq_at(e->container, "resources.limits"), "cpu"), &cpu))
				fail_msg("%s (%s): the extender has no cpu limit", e->deploy->origin, mf_tree.sets[i].dir);
			if (cpu / 1000 < e->cfg.threads)
				fail_msg("%s (%s): cpu limit %lldm is below threads: %lld of its configuration",
					 e->deploy->origin, mf_tree.sets[i].dir, (long long)cpu, (long long)e->cfg.threads);
			n++;
		}
		mf_sites_free(&st);
	}
	/* The base's sidecar, the bind overlay's, and the mTLS Deployment. */
	assert_true(n >= 3);
}

/* ------------------------------------------------------------- examples */

/* The sample pods go to the second scheduler, are Guaranteed with whole
 * CPUs (exclusive, so the Topology Manager aligns them), and ask a resource
 * the scheduler sends to the extender. */
static void manifests_example_pods_are_guaranteed_and_reach_the_extender(void **state)
{
	struct mf_sites st;
	struct errmsg msg;
	size_t i, j, npods = 0;

	(void)state;
	if (!mf_load_sites(&mf_tree.sets[0], &st, &msg))
		fail_msg("%s", msg.text);
	for (i = 0; i < mf_tree.files.n; i++) {
		const struct kz_file *f = &mf_tree.files.v[i];

		if (strncmp(f->path, "manifests/examples/", 19) != 0)
			continue;
		for (j = 0; j < f->ndocs; j++) {
			const struct doc *pod = f->docs[j], *cs = dq_at(pod, "spec.containers");
			const struct mf_sched_site *sc = NULL;
			bool managed = false;
			size_t k, c, e;

			if (!dq_kind_is(pod, "Pod"))
				continue;
			npods++;
			for (k = 0; k < st.nsched && sc == NULL; k++) {
				const struct doc *profiles = doc_lookup(st.sched[k].cfg, "profiles");

				for (c = 0; c < dq_count(profiles); c++)
					if (st.sched[k].podspec &&
					    dq_same_str(dq_str(dq_item(profiles, c), "schedulerName"), dq_str(pod, "spec.schedulerName")))
						sc = &st.sched[k];
			}
			if (sc == NULL)
				fail_msg("%s: schedulerName %s is no profile of the base's scheduler", f->path,
					 dq_str(pod, "spec.schedulerName") ? dq_str(pod, "spec.schedulerName") : "(default)");
			if (dq_count(cs) == 0)
				fail_msg("%s: no containers", f->path);
			for (c = 0; c < dq_count(cs); c++) {
				const struct doc *req = dq_at(dq_item(cs, c), "resources.requests");
				const struct doc *lim = dq_at(dq_item(cs, c), "resources.limits");
				int64_t cpu = 0, a = 0, b = 0;

				if (!quantity_milli(doc_get(lim, "cpu"), &cpu) || cpu % 1000 != 0 || cpu == 0 ||
				    !quantity_milli(doc_get(lim, "memory"), &a))
					fail_msg("%s: container %zu: Guaranteed with exclusive CPUs needs whole cpu and memory limits",
						 f->path, c);
				/* Requests default to limits; set ones must equal them. */
				for (k = 0; k < dq_count(req); k++) {
					if (!quantity_milli(dq_item(req, k), &a) ||
					    !quantity_milli(doc_get(lim, req->children[k].key), &b) || a != b)
						fail_msg("%s: container %zu: %s request differs from its limit", f->path, c,
							 req->children[k].key);
				}
				for (k = 0; k < dq_count(lim); k++)
					for (e = 0; e < dq_count(doc_lookup(sc->cfg, "extenders")); e++) {
						const struct doc *mr = dq_at(dq_item(doc_lookup(sc->cfg, "extenders"), e), "managedResources");

						/* No managedResources: every pod is sent. */
						managed |= mr == NULL;
						for (size_t m = 0; m < dq_count(mr); m++)
							managed |= dq_same_str(dq_str(dq_item(mr, m), "name"), lim->children[k].key);
					}
			}
			if (!managed)
				fail_msg("%s: asks no managed resource, so the extender never sees it", f->path);
		}
	}
	mf_sites_free(&st);
	assert_true(npods >= 2);
}

/* ------------------------------------------------------------ Dockerfile */

/* Debian's development and runtime package of each pkg-config module the
 * Makefile links (PKGS). */
static const struct {
	const char *module, *dev, *runtime;
} pkg_map[] = {
	{ "json-c", "libjson-c-dev", "libjson-c5" },
	{ "yaml-0.1", "libyaml-dev", "libyaml-0-2" },
	{ "libmicrohttpd", "libmicrohttpd-dev", "libmicrohttpd12" },
	{ "libcurl", "libcurl4-openssl-dev", "libcurl4" },
	{ "gnutls", "libgnutls28-dev", "libgnutls30" },
	{ "libxxhash", "libxxhash-dev", "libxxhash0" },
};

/* " word " occurs in the space-padded list. */
static bool has_word(const char *list, const char *word)
{
	char w[160];

	snprintf(w, sizeof w, " %s ", word);
	return strstr(list, w) != NULL;
}

/* The image runs the user the Deployments expect, with the entrypoint and
 * default command the issue fixes; it builds with packages that
 * scripts/install-deps.sh installs, one per library the Makefile links, and
 * ships the runtime library of each. */
static void manifests_dockerfile_matches_the_deployments(void **state)
{
	char *df = NULL, *deps = NULL, *mk = NULL, *line, *save = NULL, *last_from = NULL;
	char user[64] = "", entry[256] = "", cmd[256] = "", pkgs[2][1024] = { " ", " " }, modules[512] = "";
	size_t len, i, j, nfrom = 0;
	struct errmsg msg;
	int64_t uid;

	(void)state;
	assert_int_equal(file_read_all("Dockerfile", 0, &df, &len, &msg), ERR_OK);
	assert_int_equal(file_read_all("scripts/install-deps.sh", 0, &deps, &len, &msg), ERR_OK);
	assert_int_equal(file_read_all("Makefile", 0, &mk, &len, &msg), ERR_OK);
	for (char *q = deps; *q; q++)
		if (*q == '\n' || *q == '"' || *q == '\\' || *q == '\t')
			*q = ' ';
	for (line = strtok_r(mk, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "PKGS", 4) == 0 && strstr(line, ":="))
			snprintf(modules, sizeof modules, "%s", strstr(line, ":=") + 2);
	/* Continuation lines joined, so that RUN ... \ lines are one. */
	for (char *p = strstr(df, "\\\n"); p; p = strstr(p, "\\\n"))
		p[0] = p[1] = ' ';
	for (line = strtok_r(df, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *inst;

		while (*line == ' ')
			line++;
		if (strncmp(line, "FROM ", 5) == 0) {
			nfrom++;
			last_from = line + 5;
			if (nfrom == 1 && strncmp(line + 5, "debian:bookworm ", 16) != 0)
				fail_msg("Dockerfile: the build stage must be FROM debian:bookworm");
		} else if (strncmp(line, "USER ", 5) == 0) {
			snprintf(user, sizeof user, "%s", line + 5);
		} else if (strncmp(line, "ENTRYPOINT ", 11) == 0) {
			snprintf(entry, sizeof entry, "%s", line + 11);
		} else if (strncmp(line, "CMD ", 4) == 0) {
			snprintf(cmd, sizeof cmd, "%s", line + 4);
		} else if (nfrom >= 1 && nfrom <= 2 && (inst = strstr(line, "--no-install-recommends")) != NULL) {
			char *end = strstr(inst, "&&");
			int n = (int)((end ? end : inst + strlen(inst)) - inst - 23);

			snprintf(pkgs[nfrom - 1], sizeof pkgs[0], " %.*s ", n, inst + 23);
		}
	}
	assert_int_equal(nfrom, 2);
	assert_non_null(last_from);
	assert_string_equal(last_from, "debian:bookworm-slim");
	assert_string_equal(entry, "[\"/usr/local/bin/numa-extender\"]");
	assert_string_equal(cmd, "[\"serve\", \"--config\", \"/etc/numa-extender/config.yaml\"]");
	/* Numeric, so that the kubelet can enforce runAsNonRoot. */
	if (!dq_matches("^[1-9][0-9]*(:[0-9]+)?$", user))
		fail_msg("Dockerfile: USER \"%s\" is not a numeric non-root uid", user);
	uid = strtoll(user, NULL, 10);
	{
		char copy[1024];

		snprintf(copy, sizeof copy, "%s", pkgs[0]);
		for (char *p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save))
			if (!has_word(deps, p))
				fail_msg("Dockerfile installs %s, which scripts/install-deps.sh does not list", p);
	}
	assert_true(strlen(modules) > 0);
	for (char *m = strtok_r(modules, " \t", &save); m; m = strtok_r(NULL, " \t", &save)) {
		for (i = 0; i < sizeof pkg_map / sizeof *pkg_map && strcmp(pkg_map[i].module, m) != 0; i++)
			;
		if (i == sizeof pkg_map / sizeof *pkg_map)
			fail_msg("the Makefile links %s: add its packages to the Dockerfile and to pkg_map here", m);
		if (!has_word(pkgs[0], pkg_map[i].dev))
			fail_msg("Dockerfile: the build stage lacks %s (for %s)", pkg_map[i].dev, m);
		if (!has_word(pkgs[1], pkg_map[i].runtime))
			fail_msg("Dockerfile: the runtime stage lacks %s (for %s)", pkg_map[i].runtime, m);
	}
	/* The Deployments run the image's user (or leave it to the image). */
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s", msg.text);
		for (j = 0; j < st.next; j++) {
			const struct doc *u = effective(doc_lookup(st.ext[j].container, "securityContext"),
							doc_lookup(st.ext[j].podspec, "securityContext"), "runAsUser");
			int64_t n;
			struct errmsg ignored;

			if (u && (doc_read_int64(u, &n, &ignored) != ERR_OK || n != uid))
				fail_msg("%s: numa-extender runs as another user than the image's %lld",
					 st.ext[j].deploy->origin, (long long)uid);
			if (strcmp(st.ext[j].config_path, "/etc/numa-extender/config.yaml") != 0)
				fail_msg("%s: --config %s is not the image's default", st.ext[j].deploy->origin,
					 st.ext[j].config_path);
		}
		mf_sites_free(&st);
	}
	free(df);
	free(deps);
	free(mk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(manifests_deployments_are_locked_down),
		cmocka_unit_test(manifests_lockdown_check_rejects_loose_containers),
		cmocka_unit_test(manifests_extender_cpu_limit_covers_its_threads),
		cmocka_unit_test(manifests_example_pods_are_guaranteed_and_reach_the_extender),
		cmocka_unit_test(manifests_dockerfile_matches_the_deployments),
	};

	return cmocka_run_group_tests_name("manifests_pods", tests, mf_tree_setup, mf_tree_teardown);
}
