/* SPDX-License-Identifier: Apache-2.0 */
/* What the install manifests grant and install in the API server: RBAC
 * grants exactly the API calls found in the extender's source (to the
 * extender; kube-scheduler only where it runs), and the NodeResourceTopology
 * CRD matches the calls and the NRT API, is structural, accepts the example
 * objects and agrees with the extender's quantity decoder
 * (tests/support/openapi_schema.h validates). Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/config.h"
#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "tests/support/doc_query.h"
#include "tests/support/kustomize.h"
#include "tests/support/manifest_sites.h"
#include "tests/support/openapi_schema.h"
#include "base/xalloc.h"
#include "base/err.h"
#include "topology/quantity.h"

/* Built-in ClusterRoles a second kube-scheduler runs with. */
static const char *const scheduler_roles[] = {
	"system:kube-scheduler", "system:volume-scheduler", NULL,
};

/* ------------------------------------------------------------------- RBAC */

struct triple {
	char group[96];
	char resource[96];
	char verb[16];
};

struct api_calls {
	struct triple v[32];
	size_t n;
	char versions[8][32];
	size_t nversions;
};

static void add_triple(struct triple *v, size_t *n, size_t cap, const char *g, const char *r,
		       const char *verb)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i].group, g) == 0 && strcmp(v[i].resource, r) == 0 && strcmp(v[i].verb, verb) == 0)
			return;
	assert_true(*n < cap);
	snprintf(v[*n].group, sizeof v[*n].group, "%s", g);
	snprintf(v[*n].resource, sizeof v[*n].resource, "%s", r);
	snprintf(v[*n].verb, sizeof v[*n].verb, "%s", verb);
	(*n)++;
}

/* The string literals of a C source, adjacent literals joined; comments and
 * character constants skipped. */
static size_t c_literals(const char *src, char ***out)
{
	char **lits = NULL, *cur = NULL;
	size_t n = 0, len = 0, i = 0;

	while (src[i]) {
		if (src[i] == '/' && src[i + 1] == '*') {
			const char *end = strstr(src + i + 2, "*/");

			i = end ? (size_t)(end - src) + 2 : strlen(src);
		} else if (src[i] == '/' && src[i + 1] == '/') {
			i += strcspn(src + i, "\n");
		} else if (src[i] == '"') {
			size_t start = ++i;

			while (src[i] && src[i] != '"')
				i += src[i] == '\\' && src[i + 1] ? 2 : 1;
			cur = xrealloc(cur, len + (i - start) + 1);
			memcpy(cur + len, src + start, i - start);
			len += i - start;
			cur[len] = '\0';
			if (src[i])
				i++;
		} else if (isspace((unsigned char)src[i])) {
			i++;
		} else {
			if (src[i] == '\'') {
				i++;
				while (src[i] && src[i] != '\'')
					i += src[i] == '\\' && src[i + 1] ? 2 : 1;
			}
			if (src[i])
				i++;
			if (cur) {
				lits = xreallocarray(lits, n + 1, sizeof *lits);
				lits[n++] = cur;
				cur = NULL;
				len = 0;
			}
		}
	}
	if (cur) {
		lits = xreallocarray(lits, n + 1, sizeof *lits);
		lits[n++] = cur;
	}
	*out = lits;
	return n;
}

/* Every Kubernetes API call the extender's source makes: each literal path
 * /apis/GROUP/VERSION/[namespaces/NS/]PLURAL[/NAME][?QUERY] (or /api/v1/...)
 * becomes (group, plural, verb): watch when the query says watch=1/true,
 * get with a NAME, list otherwise; a collection path in a file that drives a
 * kube_reflector is both listed and watched. A file that POSTs (sets
 * CURLOPT_POSTFIELDS) creates the subresources its paths name (pods/binding);
 * its other paths are GETs. A "%s" version takes every
 * API version literal of the same file. Any other method set through libcurl
 * stops the test, which would not know the verb. */
static void add_version(struct api_calls *calls, const char *version)
{
	size_t j;

	for (j = 0; j < calls->nversions; j++)
		if (strcmp(calls->versions[j], version) == 0)
			return;
	assert_true(calls->nversions < sizeof calls->versions / sizeof *calls->versions);
	snprintf(calls->versions[calls->nversions++], sizeof calls->versions[0], "%s", version);
}

/* The core group and the groups kube-apiserver serves itself
 * (resource.k8s.io: DRA) need no CRD; their versions are not the CRD's. */
static bool builtin_group(const char *group)
{
	return group[0] == '\0' || strcmp(group, "resource.k8s.io") == 0;
}

/* The calls of one source file (origin names it in messages). */
static bool extract_from_source(const char *src, const char *origin, struct api_calls *calls,
				struct errmsg *msg)
{
	char **lits = NULL;
	size_t n = c_literals(src, &lits), i, before = calls->n;
	bool any_version = false, ok = true;
	bool reflector = strstr(src, "#include \"extender/kube/reflector.h\"") != NULL;
	bool posts = strstr(src, "CURLOPT_POSTFIELDS") != NULL;

	for (i = 0; i < n; i++) {
		char *p = strstr(lits[i], "/apis/"), *query, *seg[8], *save = NULL, copy[1024];
		const char *group, *version, *verb;
		char resource[96];
		size_t nseg = 0, r;
		bool named = false;

		if (p == NULL && strncmp(lits[i], "/api/", 5) != 0)
			continue;
		snprintf(copy, sizeof copy, "%s", p ? p + 6 : lits[i] + 5);
		query = strchr(copy, '?');
		if (query)
			*query++ = '\0';
		for (char *t = strtok_r(copy, "/", &save); t && nseg < 8; t = strtok_r(NULL, "/", &save))
			seg[nseg++] = t;
		group = p ? (nseg > 0 ? seg[0] : "") : "";
		r = p ? 1 : 0;
		if (nseg < r + 2)
			continue; /* discovery */
		version = seg[r++];
		if (strcmp(seg[r], "namespaces") == 0 && nseg >= r + 3)
			r += 2;
		snprintf(resource, sizeof resource, "%s", seg[r]);
		if (nseg > r + 1)
			named = true;
		if (nseg > r + 2) /* a subresource: RBAC names it "pods/status" */
			snprintf(resource, sizeof resource, "%s/%s", seg[r], seg[r + 2]);
		if (posts && nseg > r + 2)
			verb = "create";
		else if (query && (strncmp(query, "watch=1", 7) == 0 || strncmp(query, "watch=true", 10) == 0 ||
				   strstr(query, "&watch=1") || strstr(query, "&watch=true")))
			verb = "watch";
		else
			verb = named ? "get" : "list";
		add_triple(calls->v, &calls->n, sizeof calls->v / sizeof *calls->v, group, resource, verb);
		if (reflector && !named)
			add_triple(calls->v, &calls->n, sizeof calls->v / sizeof *calls->v, group, resource,
				   "watch");
		/* Versions are those of API groups (CRDs); the core API is v1. */
		if (strcmp(version, "%s") == 0)
			any_version = true;
		else if (p && !builtin_group(group))
			add_version(calls, version);
	}
	for (i = 0; any_version && i < n; i++)
		if (dq_matches("^v[0-9]+((alpha|beta)[0-9]+)?$", lits[i]))
			add_version(calls, lits[i]);
	if (calls->n > before && (strstr(src, "CURLOPT_CUSTOMREQUEST") || strstr(src, "CURLOPT_UPLOAD") ||
				  strstr(src, "CURLOPT_PUT")))
		ok = dq_fail(msg, "%s sets an HTTP method: teach this test its verbs", origin);
	for (i = 0; i < n; i++)
		free(lits[i]);
	free(lits);
	return ok;
}

/* Files whose calls only some configurations make, and whether cfg does. */
static bool file_in_use(const char *name, const struct config *cfg)
{
	if (cfg == NULL)
		return true;
	if (strcmp(name, "binder.c") == 0)
		return cfg->bind_enabled;
	if (strcmp(name, "source_pods.c") == 0)
		return cfg->ledger_enabled && cfg->inventory_source == CONFIG_SOURCE_KUBERNETES;
	if (strcmp(name, "source_dra.c") == 0)
		return cfg->dra_enabled && cfg->inventory_source == CONFIG_SOURCE_KUBERNETES;
	return true;
}

/* The calls of every source file under dir, its folders included (cfg
 * NULL), or of those a configuration uses. */
static bool extract_api_calls_for(const char *dir, const struct config *cfg, struct api_calls *calls,
				  struct errmsg *msg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = true;

	if (d == NULL)
		return dq_fail(msg, "%s: cannot open", dir);
	while (ok && (e = readdir(d)) != NULL) {
		char path[PATH_MAX], *src = NULL;
		size_t len = 0;
		struct errmsg ignored;
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			ok = extract_api_calls_for(path, cfg, calls, msg);
			continue;
		}
		if ((!dq_has_suffix(e->d_name, ".c") && !dq_has_suffix(e->d_name, ".h")) ||
		    !file_in_use(e->d_name, cfg) || file_read_all(path, 0, &src, &len, &ignored) != ERR_OK)
			continue;
		ok = extract_from_source(src, path, calls, msg);
		free(src);
	}
	closedir(d);
	return ok;
}

static bool extract_api_calls(const char *dir, struct api_calls *calls, struct errmsg *msg)
{
	memset(calls, 0, sizeof *calls);
	return extract_api_calls_for(dir, NULL, calls, msg);
}

static bool has_call(const struct api_calls *c, const char *group, const char *resource, const char *verb)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].group, group) == 0 && strcmp(c->v[i].resource, resource) == 0 &&
		    strcmp(c->v[i].verb, verb) == 0)
			return true;
	return false;
}

/* The extraction itself, on sources written for it. */
static void manifests_api_call_extraction_reads_c_sources(void **state)
{
	static const char src[] =
		"#include \"extender/doc.h\"\n"
		"static const char *const v[] = { \"v1\", \"v2beta1\" };\n"
		"/* \"/apis/ignored.io/v1/comments\" */\n"
		"// \"/apis/ignored.io/v1/lines\"\n"
		"char q = '\"';\n"
		"void f(void) {\n"
		"  get(\"/api/v1/namespaces/%s/pods/%s\");\n"
		"  get(\"/api/v1/nodes\" \"?limit=500\");\n"
		"  get(\"/apis/coordination.k8s.io/\"\n    \"v1/namespaces/%s/leases?watch=true&x=1\");\n"
		"  get(\"/apis/example.io/%s/widgets?limit=1&watch=1\");\n"
		"  get(\"/api/v1/namespaces/%s/pods/%s/status\");\n"
		"  get(\"/apis/example.io\");\n"
		"}\n";
	struct api_calls calls;
	struct errmsg msg;

	(void)state;
	memset(&calls, 0, sizeof calls);
	assert_true(extract_from_source(src, "src.c", &calls, &msg));
	assert_int_equal(calls.n, 5);
	assert_true(has_call(&calls, "", "pods", "get"));
	assert_true(has_call(&calls, "", "nodes", "list"));
	assert_true(has_call(&calls, "coordination.k8s.io", "leases", "watch"));
	assert_true(has_call(&calls, "example.io", "widgets", "watch"));
	assert_true(has_call(&calls, "", "pods/status", "get"));
	assert_false(has_call(&calls, "ignored.io", "comments", "list"));
	/* "v1" from the paths, then every version literal for "%s". */
	assert_int_equal(calls.nversions, 2);
	assert_string_equal(calls.versions[0], "v1");
	assert_string_equal(calls.versions[1], "v2beta1");
	memset(&calls, 0, sizeof calls);
	assert_false(extract_from_source("x(\"/api/v1/pods\");\n"
					 "curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, \"DELETE\");",
					 "del.c", &calls, &msg));
	assert_non_null(strstr(msg.text, "del.c sets an HTTP method"));
}

/* The (group, resource, verb) triples of a Role or ClusterRole. Wildcards,
 * resourceNames and nonResourceURLs are refused unless allowed_names. */
static bool role_triples(const struct doc *role, bool allow_names, struct triple *v, size_t *n, size_t cap,
			 struct errmsg *msg)
{
	const struct doc *rules = doc_lookup(role, "rules");
	const char *name = dq_str(role, "metadata.name");
	size_t i, g, r, k;

	for (i = 0; i < dq_count(rules); i++) {
		const struct doc *rule = dq_item(rules, i);
		const struct doc *groups = doc_lookup(rule, "apiGroups"), *res = doc_lookup(rule, "resources"),
				 *verbs = doc_lookup(rule, "verbs");

		if (doc_lookup(rule, "nonResourceURLs"))
			return dq_fail(msg, "%s: rules[%zu] grants nonResourceURLs", name, i);
		if (doc_lookup(rule, "resourceNames") && !allow_names)
			return dq_fail(msg, "%s: rules[%zu] has resourceNames (list and watch ignore them)", name, i);
		if (dq_list_has(groups, "*") || dq_list_has(res, "*") || dq_list_has(verbs, "*"))
			return dq_fail(msg, "%s: rules[%zu] uses a wildcard", name, i);
		for (g = 0; g < dq_count(groups); g++)
			for (r = 0; r < dq_count(res); r++)
				for (k = 0; k < dq_count(verbs); k++)
					add_triple(v, n, cap, dq_text(dq_item(groups, g)) ? dq_text(dq_item(groups, g)) : "",
						   dq_text(dq_item(res, r)) ? dq_text(dq_item(res, r)) : "",
						   dq_text(dq_item(verbs, k)) ? dq_text(dq_item(verbs, k)) : "");
	}
	return true;
}

static bool has_triple(const struct triple *v, size_t n, const struct triple *t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].group, t->group) == 0 && strcmp(v[i].resource, t->resource) == 0 &&
		    strcmp(v[i].verb, t->verb) == 0)
			return true;
	return false;
}

/* Granted == needed, naming the first difference. */
static bool same_grants(const struct triple *have, size_t nhave, const struct api_calls *need,
			const char *who, struct errmsg *msg)
{
	size_t i;

	for (i = 0; i < need->n; i++)
		if (!has_triple(have, nhave, &need->v[i]))
			return dq_fail(msg, "%s does not grant %s on %s/%s, which the extender calls", who, need->v[i].verb,
				     need->v[i].group, need->v[i].resource);
	for (i = 0; i < nhave; i++)
		if (!has_triple(need->v, need->n, &have[i]))
			return dq_fail(msg, "%s grants %s on %s/%s, which the extender never calls", who, have[i].verb,
				     have[i].group, have[i].resource);
	return true;
}

static bool subject_is(const struct doc *binding, const char *sa, const char *ns)
{
	const struct doc *subjects = doc_lookup(binding, "subjects");
	size_t i;

	for (i = 0; i < dq_count(subjects); i++) {
		const struct doc *s = dq_item(subjects, i);
		const char *sns = dq_str(s, "namespace") ? dq_str(s, "namespace") : kz_ns(binding);

		if (dq_same_str(dq_str(s, "kind"), "ServiceAccount") && dq_same_str(dq_str(s, "name"), sa) &&
		    dq_same_str(sns, ns))
			return true;
	}
	return false;
}

static const char *service_account(const struct doc *podspec)
{
	return dq_str(podspec, "serviceAccountName") ? dq_str(podspec, "serviceAccountName") : "default";
}

/* What the extender's service account gets through ClusterRoles this build
 * defines (the built-in kube-scheduler roles are checked by
 * manifests_kube_scheduler_grants_only_where_it_runs). */
static bool extender_grants(const struct kz_build *s, const struct mf_ext_site *e, struct triple *v, size_t *n,
			    size_t cap, struct errmsg *msg)
{
	const char *sa = service_account(e->podspec);
	size_t i;

	*n = 0;
	if (strcmp(sa, "default") == 0)
		return dq_fail(msg, "%s: the extender runs as the namespace's default service account", e->deploy->origin);
	for (i = 0; i < s->n; i++) {
		const struct doc *b = s->v[i].doc;
		const struct kz_res *role;

		if (!dq_kind_is(b, "ClusterRoleBinding") || !subject_is(b, sa, e->ns) ||
		    !dq_same_str(dq_str(b, "roleRef.kind"), "ClusterRole"))
			continue;
		role = kz_find(s, "ClusterRole", NULL, dq_str(b, "roleRef.name"));
		if (role && !role_triples(role->doc, false, v, n, cap, msg))
			return false;
	}
	return true;
}

static void manifests_rbac_grants_exactly_the_api_calls_in_the_source(void **state)
{
	/* What the derivation must find for a bind-enabled extender with the
	 * ledger and the DRA inventory: the NRT, pod and DRA watches, plus
	 * kube_bind.c's GET of the pod and POST of its Binding. Pinned, so that
	 * neither the source scan nor the bind overlay can drift unnoticed. */
	static const char *const bind_calls[][3] = {
		{ "topology.node.k8s.io", "noderesourcetopologies", "list" },
		{ "topology.node.k8s.io", "noderesourcetopologies", "watch" },
		{ "", "pods", "list" },
		{ "", "pods", "watch" },
		{ "", "pods", "get" },
		{ "", "pods/binding", "create" },
		{ "resource.k8s.io", "resourceslices", "list" },
		{ "resource.k8s.io", "resourceslices", "watch" },
		{ "resource.k8s.io", "deviceclasses", "list" },
		{ "resource.k8s.io", "deviceclasses", "watch" },
		{ "resource.k8s.io", "resourceclaims", "list" },
		{ "resource.k8s.io", "resourceclaims", "watch" },
		{ "resource.k8s.io", "resourceclaims", "get" }, /* bind's DRA re-check */
		{ "resource.k8s.io", "resourceclaimtemplates", "list" },
		{ "resource.k8s.io", "resourceclaimtemplates", "watch" },
	};
	struct api_calls calls;
	struct errmsg msg;
	size_t i, j, k, nbind = 0;

	(void)state;
	if (!extract_api_calls("extender", &calls, &msg))
		fail_msg("%s", msg.text);
	/* The Kubernetes inventory source lists and watches. */
	assert_true(calls.n >= 2);
	for (i = 0; i < mf_tree.nsets; i++) {
		struct mf_sites st;

		if (!mf_load_sites(&mf_tree.sets[i], &st, &msg))
			fail_msg("%s: %s", mf_tree.sets[i].dir, msg.text);
		for (j = 0; j < st.next; j++) {
			struct triple have[64];
			size_t nhave = 0;
			char who[256];

			snprintf(who, sizeof who, "%s: the ClusterRoles of service account %s", mf_tree.sets[i].dir,
				 service_account(st.ext[j].podspec));
			memset(&calls, 0, sizeof calls);
			if (!extract_api_calls_for("extender", &st.ext[j].cfg, &calls, &msg) ||
			    !extender_grants(&mf_tree.sets[i], &st.ext[j], have, &nhave, 64, &msg) ||
			    !same_grants(have, nhave, &calls, who, &msg))
				fail_msg("%s", msg.text);
			if (!st.ext[j].cfg.bind_enabled)
				continue;
			if (!st.ext[j].cfg.ledger_enabled || !st.ext[j].cfg.dra_enabled ||
			    calls.n != sizeof bind_calls / sizeof *bind_calls)
				fail_msg("%s: bind with the ledger and DRA should need %zu grants, the source scan found %zu",
					 mf_tree.sets[i].dir, sizeof bind_calls / sizeof *bind_calls, calls.n);
			for (k = 0; k < sizeof bind_calls / sizeof *bind_calls; k++)
				if (!has_call(&calls, bind_calls[k][0], bind_calls[k][1], bind_calls[k][2]))
					fail_msg("%s: the source scan misses %s on %s/%s", mf_tree.sets[i].dir, bind_calls[k][2],
						 bind_calls[k][0], bind_calls[k][1]);
			nbind++;
		}
		mf_sites_free(&st);
	}
	/* manifests/overlays/bind */
	assert_true(nbind >= 1);
}

static void manifests_rbac_check_rejects_extra_and_missing_verbs(void **state)
{
	static const char *const roles[] = {
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [get, list, watch]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list]\n",
		"rules:\n- apiGroups: [\"*\"]\n  resources: [noderesourcetopologies]\n  verbs: [list, watch]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list, watch]\n- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [list]\n",
		"rules:\n- apiGroups: [topology.node.k8s.io]\n  resources: [noderesourcetopologies]\n"
		"  verbs: [list, watch]\n",
	};
	static const char *const expect[] = {
		"grants get on topology.node.k8s.io/noderesourcetopologies, which the extender never calls",
		"does not grant watch on topology.node.k8s.io/noderesourcetopologies",
		"uses a wildcard",
		"grants list on /secrets",
		NULL,
	};
	struct api_calls need;
	size_t i;

	(void)state;
	memset(&need, 0, sizeof need);
	add_triple(need.v, &need.n, 32, "topology.node.k8s.io", "noderesourcetopologies", "list");
	add_triple(need.v, &need.n, 32, "topology.node.k8s.io", "noderesourcetopologies", "watch");
	for (i = 0; i < sizeof roles / sizeof *roles; i++) {
		struct doc **docs = NULL;
		size_t ndocs = 0, nhave = 0;
		struct triple have[16];
		struct errmsg msg;
		bool ok;

		assert_int_equal(doc_parse(roles[i], strlen(roles[i]), "role", &docs, &ndocs, &msg), ERR_OK);
		ok = role_triples(docs[0], false, have, &nhave, 16, &msg) &&
		     same_grants(have, nhave, &need, "role", &msg);
		doc_free_all(docs, ndocs);
		if (expect[i] == NULL) {
			if (!ok)
				fail_msg("role %zu refused: %s", i, msg.text);
		} else if (ok || strstr(msg.text, expect[i]) == NULL) {
			fail_msg("role %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, expect[i]);
		}
	}
}

/* Does a kube-scheduler container run with service account sa in ns? */
static const struct mf_sched_site *scheduler_of(const struct mf_sites *st, const char *sa, const char *ns)
{
	size_t i;

	for (i = 0; i < st->nsched; i++)
		if (st->sched[i].podspec && strcmp(service_account(st->sched[i].podspec), sa) == 0 &&
		    dq_same_str(kz_ns(st->sched[i].deploy->doc), ns))
			return &st->sched[i];
	return NULL;
}

/* Lease namespace and name the scheduler elects on (v1 defaults). */
static void lease_of(const struct doc *cfg, const char **ns, const char **name, bool *elect)
{
	const struct doc *le = doc_lookup(cfg, "leaderElection");

	*elect = !dq_is_false(doc_lookup(le, "leaderElect"));
	*ns = dq_str(le, "resourceNamespace") ? dq_str(le, "resourceNamespace") : "kube-system";
	*name = dq_str(le, "resourceName") ? dq_str(le, "resourceName") : "kube-scheduler";
}

static void manifests_kube_scheduler_grants_only_where_it_runs(void **state)
{
	size_t i, j, k;

	(void)state;
	for (i = 0; i < mf_tree.nsets; i++) {
		const struct kz_build *s = &mf_tree.sets[i];
		struct mf_sites st;
		struct errmsg msg;

		if (!mf_load_sites(s, &st, &msg))
			fail_msg("%s: %s", s->dir, msg.text);
		for (j = 0; j < s->n; j++) {
			const struct doc *d = s->v[j].doc;
			const struct doc *subjects = doc_lookup(d, "subjects");
			const char *ref = dq_str(d, "roleRef.name");
			bool cluster = dq_kind_is(d, "ClusterRoleBinding");

			if (dq_kind_is(d, "Role") || dq_kind_is(d, "ClusterRole")) {
				struct triple t[64];
				size_t nt = 0;

				/* resourceNames are legitimate on a lease Role. */
				if (!role_triples(d, dq_kind_is(d, "Role"), t, &nt, 64, &msg))
					fail_msg("%s: %s", s->v[j].origin, msg.text);
				continue;
			}
			if (!cluster && !dq_kind_is(d, "RoleBinding"))
				continue;
			for (k = 0; k < dq_count(subjects); k++) {
				const struct doc *sub = dq_item(subjects, k);
				const char *sns = dq_str(sub, "namespace") ? dq_str(sub, "namespace") : kz_ns(d);
				const struct mf_sched_site *sched;

				if (!dq_same_str(dq_str(sub, "kind"), "ServiceAccount") ||
				    !kz_find(s, "ServiceAccount", sns, dq_str(sub, "name")))
					fail_msg("%s: binding %s grants to %s %s, not a service account of this build",
						 s->v[j].origin, dq_str(d, "metadata.name"), dq_str(sub, "kind"),
						 dq_str(sub, "name"));
				sched = scheduler_of(&st, dq_str(sub, "name"), sns);
				if (dq_same_str(dq_str(d, "roleRef.kind"), "ClusterRole") &&
				    !kz_find(s, "ClusterRole", NULL, ref)) {
					/* A built-in role: only kube-scheduler's, only where one runs. */
					if (!dq_in_list(ref, scheduler_roles))
						fail_msg("%s: binding to built-in ClusterRole %s", s->v[j].origin, ref);
					if (sched == NULL)
						fail_msg("%s: %s binds %s, but no kube-scheduler runs as %s in %s",
							 s->v[j].origin, dq_str(d, "metadata.name"), ref,
							 dq_str(sub, "name"), s->dir);
				}
				if (dq_same_str(dq_str(d, "roleRef.kind"), "Role")) {
					const struct kz_res *role = kz_find(s, "Role", kz_ns(d), ref);
					const char *lns, *lname;
					bool elect;
					struct triple t[16], want;
					size_t nt = 0;

					if (role == NULL)
						fail_msg("%s: Role %s is not in this build", s->v[j].origin, ref);
					if (sched == NULL)
						fail_msg("%s: Role %s is bound where no kube-scheduler runs", s->v[j].origin, ref);
					lease_of(sched->cfg, &lns, &lname, &elect);
					if (!elect || !dq_same_str(lns, kz_ns(d)))
						fail_msg("%s: Role %s: the scheduler does not elect a leader in %s",
							 s->v[j].origin, ref, kz_ns(d));
					assert_true(role_triples(role->doc, true, t, &nt, 16, &msg));
					/* Exactly get and update on the one Lease (create comes
					 * with system:kube-scheduler). */
					assert_int_equal(nt, 2);
					snprintf(want.group, sizeof want.group, "coordination.k8s.io");
					snprintf(want.resource, sizeof want.resource, "leases");
					snprintf(want.verb, sizeof want.verb, "get");
					assert_true(has_triple(t, nt, &want));
					snprintf(want.verb, sizeof want.verb, "update");
					assert_true(has_triple(t, nt, &want));
					if (!dq_list_has(dq_at(dq_item(doc_lookup(role->doc, "rules"), 0), "resourceNames"), lname) ||
					    dq_count(dq_at(dq_item(doc_lookup(role->doc, "rules"), 0), "resourceNames")) != 1)
						fail_msg("%s: Role %s must name exactly the Lease %s", role->origin, ref, lname);
				}
			}
		}
		/* Each second scheduler: its built-in roles, a Lease of its own
		 * (never the default scheduler's kube-system/kube-scheduler), and
		 * leader election whenever it has replicas. */
		for (j = 0; j < st.nsched; j++) {
			const struct mf_sched_site *sc = &st.sched[j];
			const char *sa, *lns, *lname;
			int64_t replicas = 1;
			bool elect, found;
			struct errmsg ignored;

			if (sc->podspec == NULL)
				continue;
			sa = service_account(sc->podspec);
			for (const char *const *r = scheduler_roles; *r; r++) {
				found = false;
				for (k = 0; k < s->n; k++)
					if (dq_kind_is(s->v[k].doc, "ClusterRoleBinding") &&
					    dq_same_str(dq_str(s->v[k].doc, "roleRef.name"), *r) &&
					    subject_is(s->v[k].doc, sa, kz_ns(sc->deploy->doc)))
						found = true;
				if (!found)
					fail_msg("%s: kube-scheduler runs as %s without ClusterRole %s", sc->deploy->origin, sa, *r);
			}
			lease_of(sc->cfg, &lns, &lname, &elect);
			if (doc_lookup(dq_at(sc->deploy->doc, "spec"), "replicas"))
				doc_read_int64(dq_at(sc->deploy->doc, "spec.replicas"), &replicas, &ignored);
			if (replicas > 1 && !elect)
				fail_msg("%s: %lld replicas without leader election would all schedule", sc->deploy->origin,
					 (long long)replicas);
			if (elect && strcmp(lns, "kube-system") == 0 && strcmp(lname, "kube-scheduler") == 0)
				fail_msg("%s: a second scheduler must not contend for the default scheduler's Lease",
					 sc->cm->origin);
			found = false;
			for (k = 0; elect && k < s->n; k++)
				if (dq_kind_is(s->v[k].doc, "RoleBinding") && dq_same_str(kz_ns(s->v[k].doc), lns) &&
				    subject_is(s->v[k].doc, sa, kz_ns(sc->deploy->doc)))
					found = true;
			if (elect && !found)
				fail_msg("%s: nothing lets %s renew Lease %s/%s", sc->cm->origin, sa, lns, lname);
		}
		mf_sites_free(&st);
	}
}


/* ---------------------------------------------------------------- the CRD */

/* The NodeResourceTopology v1alpha2 schema (k8stopologyawareschedwg/
 * noderesourcetopology-api, pkg/apis/topology/v1alpha2/types.go), as paths
 * ("[]" = items). */
static const struct openapi_field nrt_v1alpha2[] = {
	{ "apiVersion", "string", 0 },
	{ "kind", "string", 0 },
	{ "metadata", "object", 0 },
	{ "topologyPolicies", "array", 0 },
	{ "topologyPolicies[]", "string", -1 },
	{ "attributes", "array", 0 },
	{ "attributes[]", "object", -1 },
	{ "attributes[].name", "string", 1 },
	{ "attributes[].value", "string", 1 },
	{ "zones", "array", 1 },
	{ "zones[]", "object", -1 },
	{ "zones[].name", "string", 1 },
	{ "zones[].type", "string", 1 },
	{ "zones[].parent", "string", 0 },
	{ "zones[].costs", "array", 0 },
	{ "zones[].costs[]", "object", -1 },
	{ "zones[].costs[].name", "string", 1 },
	{ "zones[].costs[].value", "integer", 1 },
	{ "zones[].attributes", "array", 0 },
	{ "zones[].attributes[]", "object", -1 },
	{ "zones[].attributes[].name", "string", 1 },
	{ "zones[].attributes[].value", "string", 1 },
	{ "zones[].resources", "array", 0 },
	{ "zones[].resources[]", "object", -1 },
	{ "zones[].resources[].name", "string", 1 },
	{ "zones[].resources[].capacity", "quantity", 1 },
	{ "zones[].resources[].allocatable", "quantity", 1 },
	{ "zones[].resources[].available", "quantity", 1 },
	{ NULL, NULL, 0 },
};

/* v1alpha1: no top-level attributes, topologyPolicies required. */
static const struct openapi_field nrt_v1alpha1[] = {
	{ "apiVersion", "string", 0 },
	{ "kind", "string", 0 },
	{ "metadata", "object", 0 },
	{ "topologyPolicies", "array", 1 },
	{ "topologyPolicies[]", "string", -1 },
	{ "zones", "array", 1 },
	{ "zones[]", "object", -1 },
	{ "zones[].name", "string", 1 },
	{ "zones[].type", "string", 1 },
	{ "zones[].parent", "string", 0 },
	{ "zones[].costs", "array", 0 },
	{ "zones[].costs[]", "object", -1 },
	{ "zones[].costs[].name", "string", 1 },
	{ "zones[].costs[].value", "integer", 1 },
	{ "zones[].attributes", "array", 0 },
	{ "zones[].attributes[]", "object", -1 },
	{ "zones[].attributes[].name", "string", 1 },
	{ "zones[].attributes[].value", "string", 1 },
	{ "zones[].resources", "array", 0 },
	{ "zones[].resources[]", "object", -1 },
	{ "zones[].resources[].name", "string", 1 },
	{ "zones[].resources[].capacity", "quantity", 1 },
	{ "zones[].resources[].allocatable", "quantity", 1 },
	{ "zones[].resources[].available", "quantity", 1 },
	{ NULL, NULL, 0 },
};

static const struct doc *find_crd(const struct kz_build *s, const char *group, const char *plural)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (dq_kind_is(s->v[i].doc, "CustomResourceDefinition") &&
		    dq_same_str(dq_str(s->v[i].doc, "spec.group"), group) &&
		    (plural == NULL || dq_same_str(dq_str(s->v[i].doc, "spec.names.plural"), plural)))
			return s->v[i].doc;
	return NULL;
}


static void manifests_crd_matches_the_source_and_the_nrt_api(void **state)
{
	struct api_calls calls;
	struct errmsg msg;
	const struct doc *crd, *v2, *v1, *versions;
	size_t i, nstorage = 0;

	(void)state;
	if (!extract_api_calls("extender", &calls, &msg))
		fail_msg("%s", msg.text);
	assert_true(calls.n >= 1);
	/* The core group ("") and the built-in ones need no CRD. */
	for (i = 0; i < calls.n && builtin_group(calls.v[i].group); i++)
		;
	assert_true(i < calls.n);
	crd = find_crd(&mf_tree.sets[0], calls.v[i].group, calls.v[i].resource);
	if (crd == NULL)
		fail_msg("manifests/base installs no CRD for %s/%s, which the extender reads", calls.v[i].group,
			 calls.v[i].resource);
	assert_string_equal(dq_str(crd, "metadata.name"), "noderesourcetopologies.topology.node.k8s.io");
	assert_string_equal(dq_str(crd, "spec.group"), "topology.node.k8s.io");
	assert_string_equal(dq_str(crd, "spec.names.kind"), "NodeResourceTopology");
	assert_string_equal(dq_str(crd, "spec.names.listKind"), "NodeResourceTopologyList");
	assert_string_equal(dq_str(crd, "spec.names.plural"), "noderesourcetopologies");
	assert_string_equal(dq_str(crd, "spec.names.singular"), "noderesourcetopology");
	assert_true(dq_list_has(dq_at(crd, "spec.names.shortNames"), "node-res-topo"));
	assert_string_equal(dq_str(crd, "spec.scope"), "Cluster");
	/* *.k8s.io groups are protected: the API server refuses the CRD without it. */
	if (dq_has_suffix(dq_str(crd, "spec.group"), ".k8s.io") && !dq_at(crd, "metadata.annotations") )
		fail_msg("the CRD lacks the api-approved.kubernetes.io annotation");
	{
		const struct doc *ann = dq_at(crd, "metadata.annotations");
		bool found = false;

		for (i = 0; i < dq_count(ann); i++)
			found |= strcmp(ann->children[i].key, "api-approved.kubernetes.io") == 0 &&
				 dq_text(dq_item(ann, i)) && strncmp(dq_text(dq_item(ann, i)), "https://", 8) == 0;
		assert_true(found);
	}
	/* Every version the code may request is served. */
	assert_true(calls.nversions >= 1);
	for (i = 0; i < calls.nversions; i++) {
		const struct doc *v = openapi_crd_version(crd, calls.versions[i]);

		if (v == NULL || !dq_is_true(doc_lookup(v, "served")))
			fail_msg("the extender requests %s, which the CRD does not serve", calls.versions[i]);
	}
	versions = dq_at(crd, "spec.versions");
	for (i = 0; i < dq_count(versions); i++)
		nstorage += dq_is_true(doc_lookup(dq_item(versions, i), "storage"));
	assert_int_equal(nstorage, 1);
	v2 = openapi_crd_version(crd, "v1alpha2");
	v1 = openapi_crd_version(crd, "v1alpha1");
	assert_non_null(v2);
	assert_non_null(v1);
	assert_true(dq_is_true(doc_lookup(v2, "served")) && dq_is_true(doc_lookup(v2, "storage")));
	assert_true(dq_is_true(doc_lookup(v1, "served")) && dq_is_false(doc_lookup(v1, "storage")));
	if (!openapi_check_fields(dq_at(v2, "schema.openAPIV3Schema"), nrt_v1alpha2, "v1alpha2", &msg) ||
	    !openapi_check_fields(dq_at(v1, "schema.openAPIV3Schema"), nrt_v1alpha1, "v1alpha1", &msg))
		fail_msg("%s", msg.text);
}


static const struct doc *nrt_crd(void)
{
	const struct doc *crd = find_crd(&mf_tree.sets[0], "topology.node.k8s.io", "noderesourcetopologies");

	assert_non_null(crd);
	return crd;
}

static void manifests_crd_schema_is_structural(void **state)
{
	const struct doc *versions = dq_at(nrt_crd(), "spec.versions");
	size_t i;

	(void)state;
	for (i = 0; i < dq_count(versions); i++) {
		const struct doc *schema = dq_at(dq_item(versions, i), "schema.openAPIV3Schema"), *meta;
		struct errmsg msg;

		assert_non_null(schema);
		if (!openapi_structural(schema,
					dq_same_str(dq_str(dq_item(versions, i), "name"), "v1alpha1") ? nrt_v1alpha1 : nrt_v1alpha2,
					&msg))
			fail_msg("%s: %s", dq_str(dq_item(versions, i), "name"), msg.text);
		/* metadata may only say it is an object. */
		meta = doc_get(doc_lookup(schema, "properties"), "metadata");
		assert_non_null(meta);
		assert_int_equal(dq_count(meta), 1);
	}
}

static void manifests_crd_accepts_the_example_objects(void **state)
{
	struct kz_files ex = { NULL, 0, NULL };
	const struct doc *crd = nrt_crd();
	size_t i, j, n = 0, v1 = 0;

	(void)state;
	kz_files_walk(&ex, "config/examples", false);
	kz_files_walk(&ex, "manifests/examples", false);
	for (i = 0; i < ex.n; i++) {
		if (!ex.v[i].ok)
			fail_msg("%s", ex.v[i].err.text);
		for (j = 0; j < ex.v[i].ndocs; j++) {
			const struct doc *d = ex.v[i].docs[j];
			struct errmsg msg;

			if (!dq_kind_is(d, "NodeResourceTopology"))
				continue;
			if (!openapi_validate_object(crd, d, ex.v[i].path, &msg))
				fail_msg("%s", msg.text);
			n++;
			v1 += dq_has_suffix(dq_str(d, "apiVersion"), "/v1alpha1");
		}
	}
	kz_files_free(&ex);
	/* config/examples (7, one of them v1alpha1) and manifests/examples. */
	assert_true(n >= 8);
	assert_true(v1 >= 1 && v1 < n);
}

#define NRT2 "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: w}\n"
#define NRT1 "apiVersion: topology.node.k8s.io/v1alpha1\nkind: NodeResourceTopology\nmetadata: {name: w}\n"
#define ZONE "zones:\n- name: node-0\n  type: Node\n"
#define RES  "  resources:\n  - {name: cpu, capacity: \"4\", allocatable: \"4\", available: "

static void manifests_crd_rejects_bad_objects(void **state)
{
	static const struct {
		const char *yaml, *needle;
	} cases[] = {
		{ NRT2 ZONE RES "2}\n", NULL },
		{ NRT2 ZONE RES "\"2Gi\"}\n  costs: [{name: node-0, value: 10}]\n  attributes: [{name: a, value: b}]\n"
		       "attributes: [{name: topologyManagerPolicy, value: single-numa-node}]\n", NULL },
		{ NRT1 "topologyPolicies: [SingleNUMANodeContainerLevel]\n" ZONE, NULL },
		{ NRT2 "zones:\n- name: node-0\n  resources: []\n", "bad: zones[0].type: required field is missing" },
		{ NRT2 ZONE "  resources:\n  - {name: cpu, capacity: \"4\", allocatable: \"4\"}\n",
		  "bad: zones[0].resources[0].available: required field is missing" },
		{ NRT2 ZONE RES "\"12x\"}\n", "bad: zones[0].resources[0].available: \"12x\" does not match the pattern" },
		{ NRT2 ZONE RES "[2]}\n", "zones[0].resources[0].available: expected an integer or a string, got array" },
		{ NRT2 ZONE "  costs: [{name: node-0, value: ten}]\n",
		  "zones[0].costs[0].value: expected integer, got string" },
		{ NRT2 ZONE "  costs: [{name: node-0}]\n", "zones[0].costs[0].value: required field is missing" },
		{ NRT2 ZONE "  cost: []\n", "zones[0].cost: unknown field" },
		{ NRT2 "attributes: [{name: topologyManagerPolicy, value: off}]\n" ZONE,
		  "attributes[0].value: expected string, got boolean" },
		{ NRT2 "zones: {name: node-0}\n", "bad: zones: expected array, got object" },
		{ NRT2 "attributes: []\n", "bad: zones: required field is missing" },
		{ NRT1 ZONE, "bad: topologyPolicies: required field is missing" },
		{ NRT1 "topologyPolicies: [None]\nattributes: []\n" ZONE, "bad: attributes: unknown field" },
		{ "apiVersion: topology.node.k8s.io/v1beta1\nkind: NodeResourceTopology\nmetadata: {name: w}\n" ZONE,
		  "version v1beta1 is not served" },
	};
	const struct doc *crd = nrt_crd();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct doc **docs = NULL;
		size_t ndocs = 0;
		struct errmsg msg;
		bool ok;

		assert_int_equal(doc_parse(cases[i].yaml, strlen(cases[i].yaml), "bad", &docs, &ndocs, &msg), ERR_OK);
		ok = openapi_validate_object(crd, docs[0], "bad", &msg);
		doc_free_all(docs, ndocs);
		if (cases[i].needle == NULL) {
			if (!ok)
				fail_msg("case %zu refused: %s", i, msg.text);
		} else if (ok || strstr(msg.text, cases[i].needle) == NULL) {
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ok ? "(accepted)" : msg.text, cases[i].needle);
		}
	}
}

/* What the API server admits as a quantity, the extender must decode, and
 * the other way round. */
static void manifests_crd_quantity_pattern_agrees_with_the_decoder(void **state)
{
	static const char *const samples[] = {
		"0", "64", "269755191296", "1.5", ".5", "1.", "+1", "-1", "1Gi", "1.5Gi", "500m", "100n", "1e3",
		"1E3", "1e-3", "1E+3", "+.5E", "1k", "12x", "", "Gi", "1GiB", "1 Gi", "0x10", "1e", "1K", "1ki",
		"--1", "1.5.5", ".", "+", "1m1", "1Ei", "5u",
	};
	bool required;
	const struct doc *node = openapi_schema_at(dq_at(openapi_crd_version(nrt_crd(), "v1alpha2"), "schema.openAPIV3Schema"),
					   "zones[].resources[].available", &required);
	const char *pattern = dq_str(node, "pattern");
	size_t i, accepted = 0;

	(void)state;
	assert_non_null(pattern);
	for (i = 0; i < sizeof samples / sizeof *samples; i++) {
		struct quantity q;
		struct errmsg msg;
		enum err rc = quantity_parse(samples[i], strlen(samples[i]), &q, &msg);
		bool decoder = rc == ERR_OK || rc == ERR_RANGE, crd = dq_matches(pattern, samples[i]);

		if (decoder != crd)
			fail_msg("\"%s\": the CRD %s it, the extender's decoder %s it", samples[i],
				 crd ? "accepts" : "refuses", decoder ? "accepts" : "refuses");
		accepted += crd;
	}
	assert_true(accepted >= 10 && accepted < sizeof samples / sizeof *samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(manifests_api_call_extraction_reads_c_sources),
		cmocka_unit_test(manifests_rbac_grants_exactly_the_api_calls_in_the_source),
		cmocka_unit_test(manifests_rbac_check_rejects_extra_and_missing_verbs),
		cmocka_unit_test(manifests_kube_scheduler_grants_only_where_it_runs),
		cmocka_unit_test(manifests_crd_matches_the_source_and_the_nrt_api),
		cmocka_unit_test(manifests_crd_schema_is_structural),
		cmocka_unit_test(manifests_crd_accepts_the_example_objects),
		cmocka_unit_test(manifests_crd_rejects_bad_objects),
		cmocka_unit_test(manifests_crd_quantity_pattern_agrees_with_the_decoder),
	};

	return cmocka_run_group_tests_name("manifests_api", tests, mf_tree_setup, mf_tree_teardown);
}
