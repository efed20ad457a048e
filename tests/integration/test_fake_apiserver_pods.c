/* SPDX-License-Identifier: Apache-2.0 */
/* The fake Kubernetes API server (tests/support/fake_apiserver.c) against
 * libcurl, pods: lists, gets, bindings, field selectors on lists and
 * watches, and the resourceVersion counter shared with NodeResourceTopology
 * (whose lists and watches are in test_fake_apiserver_nrt.c). Watches stream
 * in a thread of their own (tests/support/watch_client.h); assertions stay
 * on the test thread. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/watch_client.h"
#include "tests/integration/fake_apiserver_checks.h"



/* ---- helpers ------------------------------------------------------------- */





/* ---- pods ---------------------------------------------------------------- */

#define PODS_PATH "/api/v1/pods"
#define NS_PODS(ns) "/api/v1/namespaces/" ns "/pods"
/* What kube-scheduler-like clients watch: bound pods that still run, sent
 * URL-encoded as client-go does. */
#define RUNNING_SEL "spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"

/* A pod with optional spec.nodeName and status.phase. */
static unsigned long long put_pod(struct fake_apiserver *s, const char *ns, const char *name,
				  const char *node, const char *phase)
{
	char json[512];

	snprintf(json, sizeof json, "{\"spec\":{%s%s%s\"containers\":[{\"name\":\"c\"}]},"
				    "\"status\":{%s%s%s}}",
		 node ? "\"nodeName\":\"" : "", node ? node : "", node ? "\"," : "",
		 phase ? "\"phase\":\"" : "", phase ? phase : "", phase ? "\"" : "");
	return fake_apiserver_pod_put(s, ns, name, json);
}

/* POST with the shared test client; the parsed body or NULL. */
static json_object *post_json(struct fake_apiserver *s, const char *path, const char *body,
			      size_t len, long *status)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	json_object *o;
	char url[1024];

	url_of(url, sizeof url, s, path);
	http_request(c, "POST", url, body, len, false, &r);
	assert_int_equal(r.curl_error, 0);
	*status = r.status;
	o = json_tokener_parse(r.body);
	http_response_cleanup(&r);
	http_client_free(c);
	return o;
}

/* POSTs a v1 Binding of ns/name to node (uid: precondition or NULL); the
 * parsed reply. */
static json_object *bind_pod(struct fake_apiserver *s, const char *ns, const char *name,
			     const char *node, const char *uid, long *status)
{
	char path[512], body[512];

	snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
	snprintf(body, sizeof body, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":"
				    "{\"name\":\"%s\",\"namespace\":\"%s\"%s%s%s},\"target\":"
				    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\"}}",
		 name, ns, uid ? ",\"uid\":\"" : "", uid ? uid : "", uid ? "\"" : "", node);
	return post_json(s, path, body, strlen(body), status);
}

/* The stored pod, parsed. */
static json_object *pod_object(struct fake_apiserver *s, const char *ns, const char *name)
{
	char *json = fake_apiserver_pod_get(s, ns, name);
	json_object *o;

	assert_non_null(json);
	o = json_tokener_parse(json);
	free(json);
	assert_non_null(o);
	return o;
}

/* A string inside watch event i's object (b may be NULL); malloc'd, NULL
 * when absent. */
static char *event_str(struct watcher *w, size_t i, const char *a, const char *b)
{
	json_object *ev = watcher_event(w, i);
	const char *v;
	char *out;

	assert_non_null(ev);
	v = str_at(json_object_object_get(ev, "object"), a, b);
	out = v ? strdup(v) : NULL;
	json_object_put(ev);
	return out;
}

static void assert_event_str(struct watcher *w, size_t i, const char *a, const char *b,
			     const char *want)
{
	char *v = event_str(w, i, a, b);

	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
}

static void fake_apiserver_pod_list_pages_by_namespace_then_name(void **state)
{
	static const char *const order[] = { "a/m", "a/z", "b/a", "b/x", "c/k" };
	struct fake_apiserver *s = start_plain();
	unsigned long long rv;
	char names[16][32];
	json_object *o, *items;
	int pages;
	long status;
	size_t n;

	(void)state;
	put_pod(s, "b", "x", NULL, "Pending"), put_pod(s, "a", "z", NULL, NULL);
	put_nrt(s, "node-1", 1); /* another resource: never in a pod list */
	put_pod(s, "c", "k", "n1", "Running"), put_pod(s, "b", "a", NULL, NULL);
	put_pod(s, "a", "m", NULL, NULL);
	n = list_kind(s, PODS_PATH, "PodList", 2, names, 16, &pages, &rv);
	assert_int_equal(n, 5);
	assert_int_equal(pages, 3);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], order[i]);
	assert_int_equal(rv, fake_apiserver_resource_version(s));
	/* One namespace, paged too. */
	n = list_kind(s, NS_PODS("b"), "PodList", 1, names, 16, &pages, &rv);
	assert_int_equal(n, 2);
	assert_int_equal(pages, 2);
	assert_string_equal(names[0], "b/a");
	assert_string_equal(names[1], "b/x");
	assert_int_equal(list_kind(s, NS_PODS("none"), "PodList", 5, names, 16, &pages, &rv), 0);
	/* A typed list: apiVersion "v1", items without apiVersion and kind. */
	o = get_json(s, PODS_PATH "?limit=2", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "kind", NULL), "PodList");
	assert_int_equal(json_object_get_int(json_object_object_get(
				 json_object_object_get(o, "metadata"), "remainingItemCount")),
			 3);
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_null(str_at(json_object_array_get_idx(items, 0), "kind", NULL));
	assert_null(str_at(json_object_array_get_idx(items, 0), "apiVersion", NULL));
	assert_string_equal(str_at(json_object_array_get_idx(items, 0), "metadata", "namespace"),
			    "a");
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_pod_get_and_not_found(void **state)
{
	struct fake_apiserver *s = start_plain();
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "default", "web-0", NULL, "Pending");
	o = get_json(s, NS_PODS("default") "/web-0", &status);
	assert_int_equal(status, 200);
	assert_string_equal(str_at(o, "kind", NULL), "Pod");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "metadata", "name"), "web-0");
	assert_string_equal(str_at(o, "metadata", "namespace"), "default");
	assert_string_equal(str_at(o, "status", "phase"), "Pending");
	json_object_put(o);
	o = get_json(s, NS_PODS("default") "/web-1", &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	assert_string_equal(str_at(o, "message", NULL), "pods \"web-1\" not found");
	assert_string_equal(str_at(o, "details", "name"), "web-1");
	assert_string_equal(str_at(o, "details", "kind"), "pods");
	json_object_put(o);
	/* The same name in another namespace is another pod. */
	o = get_json(s, NS_PODS("other") "/web-0", &status);
	assert_int_equal(status, 404);
	json_object_put(o);
	assert_null(fake_apiserver_pod_get(s, "other", "web-0"));
	fake_apiserver_stop(s);
}

static void fake_apiserver_pod_put_sets_metadata_and_keeps_uid(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv1, rv2, rv3, rv4;
	char uid[64], created[64];
	json_object *o;

	(void)state;
	/* Server-owned fields in the input are overridden. */
	rv1 = fake_apiserver_pod_put(s, "ns", "p", "{\"apiVersion\":\"v9\",\"kind\":\"Cat\","
						   "\"metadata\":{\"name\":\"q\",\"namespace\":\"x\"}}");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "kind", NULL), "Pod");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "metadata", "name"), "p");
	assert_string_equal(str_at(o, "metadata", "namespace"), "ns");
	assert_int_equal(rv_of(o), rv1);
	assert_int_equal(strlen(str_at(o, "metadata", "uid")), 36);
	assert_int_equal(strlen(str_at(o, "metadata", "creationTimestamp")), 20); /* ...Z */
	snprintf(uid, sizeof uid, "%s", str_at(o, "metadata", "uid"));
	snprintf(created, sizeof created, "%s", str_at(o, "metadata", "creationTimestamp"));
	json_object_put(o);
	/* A replacement without them keeps them (they never change on a real
	 * update); another pod gets another uid; an explicit uid wins. */
	rv2 = put_pod(s, "ns", "p", "n1", "Running");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "metadata", "uid"), uid);
	assert_string_equal(str_at(o, "metadata", "creationTimestamp"), created);
	assert_string_equal(str_at(o, "spec", "nodeName"), "n1");
	json_object_put(o);
	rv3 = put_pod(s, "ns", "p2", NULL, NULL);
	o = pod_object(s, "ns", "p2");
	assert_string_not_equal(str_at(o, "metadata", "uid"), uid);
	json_object_put(o);
	fake_apiserver_pod_put(s, "ns", "p", "{\"metadata\":{\"uid\":\"mine\"}}");
	o = pod_object(s, "ns", "p");
	assert_string_equal(str_at(o, "metadata", "uid"), "mine");
	json_object_put(o);
	/* One counter for both resources, as etcd's revision. */
	rv4 = fake_apiserver_put(s, "node-1", "{}");
	assert_true(rv1 < rv2 && rv2 < rv3 && rv3 < rv4 - 1);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "p2"), rv4 + 1);
	assert_int_equal(fake_apiserver_delete(s, "node-1"), rv4 + 2);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "absent"), 0);
	assert_int_equal(fake_apiserver_pod_delete(s, "ns", "p2"), 0);
	assert_int_equal(fake_apiserver_resource_version(s), rv4 + 2);
	assert_null(fake_apiserver_pod_get(s, "ns", "p2"));
	fake_apiserver_stop(s);
}

static void fake_apiserver_binding_binds_and_is_watched(void **state)
{
	static const char binding[] = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":"
				      "{\"name\":\"web-0\",\"annotations\":{\"bound-by\":\"test\"}},"
				      "\"target\":{\"name\":\"node-a\"}}";
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv;
	json_object *o, *conds, *c;
	struct watcher *w;
	char path[512], *t;
	long status;

	(void)state;
	rv = fake_apiserver_pod_put(s, "default", "web-0",
				    "{\"metadata\":{\"annotations\":{\"keep\":\"1\"}},\"spec\":{},"
				    "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
				    "\"PodScheduled\",\"status\":\"False\",\"reason\":"
				    "\"Unschedulable\"},{\"type\":\"Other\",\"status\":\"True\"}]}}");
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv);
	w = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 1, WAIT_MS));
	o = post_json(s, NS_PODS("default") "/web-0/binding", binding, strlen(binding), &status);
	assert_int_equal(status, 201);
	assert_string_equal(str_at(o, "kind", NULL), "Status");
	assert_string_equal(str_at(o, "status", NULL), "Success");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "code")), 201);
	json_object_put(o);
	/* The binding is a change like any other. */
	assert_int_equal(fake_apiserver_resource_version(s), rv + 1);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	assert_event(w, 0, "MODIFIED", "web-0", rv + 1);
	assert_event_str(w, 0, "spec", "nodeName", "node-a");
	o = pod_object(s, "default", "web-0");
	assert_string_equal(str_at(o, "spec", "nodeName"), "node-a");
	assert_string_equal(
		json_object_get_string(json_object_object_get(json_object_object_get(
			json_object_object_get(o, "metadata"), "annotations"), "bound-by")),
		"test");
	assert_non_null(json_object_object_get(json_object_object_get(
		json_object_object_get(o, "metadata"), "annotations"), "keep"));
	/* PodScheduled=True replaces the False entry (reason gone), the
	 * other condition stays. */
	conds = json_object_object_get(json_object_object_get(o, "status"), "conditions");
	assert_int_equal(json_object_array_length(conds), 2);
	c = json_object_array_get_idx(conds, 0);
	assert_string_equal(str_at(c, "type", NULL), "PodScheduled");
	assert_string_equal(str_at(c, "status", NULL), "True");
	assert_null(str_at(c, "reason", NULL));
	t = strdup(str_at(c, "lastTransitionTime", NULL));
	assert_int_equal(strlen(t), 20);
	assert_true(t[4] == '-' && t[10] == 'T' && t[19] == 'Z');
	free(t);
	assert_string_equal(str_at(json_object_array_get_idx(conds, 1), "type", NULL), "Other");
	assert_string_equal(str_at(o, "status", "phase"), "Pending");
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 1);
	assert_int_equal(st.binding_conflicts, 0);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_binding_conflicts(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv;
	char uid[64], want[256];
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "ns", "bound", "node-old", "Running");
	put_pod(s, "ns", "free", NULL, "Pending");
	o = pod_object(s, "ns", "free");
	snprintf(uid, sizeof uid, "%s", str_at(o, "metadata", "uid"));
	json_object_put(o);
	rv = fake_apiserver_resource_version(s);
	/* Already bound. */
	o = bind_pod(s, "ns", "bound", "node-new", NULL, &status);
	assert_int_equal(status, 409);
	assert_status_object(o, 409, "Conflict");
	assert_string_equal(str_at(o, "message", NULL),
			    "Operation cannot be fulfilled on pods/binding \"bound\": "
			    "pod bound is already assigned to node \"node-old\"");
	assert_string_equal(str_at(o, "details", "kind"), "pods/binding");
	assert_string_equal(str_at(o, "details", "name"), "bound");
	json_object_put(o);
	/* A uid precondition that does not hold: another pod of that name. */
	o = bind_pod(s, "ns", "free", "node-a", "stale-uid", &status);
	assert_int_equal(status, 409);
	assert_status_object(o, 409, "Conflict");
	snprintf(want, sizeof want, "Precondition failed: UID in precondition: stale-uid, "
				    "UID in object meta: %s", uid);
	assert_non_null(strstr(str_at(o, "message", NULL), want));
	assert_non_null(strstr(str_at(o, "message", NULL),
			       "Operation cannot be fulfilled on pods \"free\""));
	json_object_put(o);
	/* Refusals change nothing. */
	assert_int_equal(fake_apiserver_resource_version(s), rv);
	o = pod_object(s, "ns", "free");
	assert_null(str_at(o, "spec", "nodeName"));
	json_object_put(o);
	/* The right uid binds; binding again conflicts. */
	o = bind_pod(s, "ns", "free", "node-a", uid, &status);
	assert_int_equal(status, 201);
	json_object_put(o);
	o = bind_pod(s, "ns", "free", "node-b", uid, &status);
	assert_int_equal(status, 409);
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 1);
	assert_int_equal(st.binding_conflicts, 3);
	fake_apiserver_stop(s);
}

static void fake_apiserver_binding_bad_requests(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	static const char no_target[] = "{\"metadata\":{\"name\":\"p\"},\"target\":{}}";
	static const char other_name[] = "{\"metadata\":{\"name\":\"q\"},\"target\":{\"name\":\"n\"}}";
	static const char good[] = "{\"metadata\":{\"name\":\"p\"},\"target\":{\"name\":\"n\"}}";
	size_t big_len = 4u << 20;
	char *big = malloc(big_len);
	json_object *o;
	long status;

	(void)state;
	put_pod(s, "ns", "p", NULL, NULL);
	o = post_json(s, NS_PODS("ns") "/p/binding", "not json", 8, &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p/binding", "[1]", 3, &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p/binding", other_name, strlen(other_name), &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	assert_string_equal(str_at(o, "message", NULL),
			    "name in URL does not match name in Binding object");
	json_object_put(o);
	/* Validation errors are not API errors in BindingREST: the real
	 * server answers 500 without a reason. */
	o = post_json(s, NS_PODS("ns") "/p/binding", no_target, strlen(no_target), &status);
	assert_int_equal(status, 500);
	assert_string_equal(str_at(o, "message", NULL), "target.name: Required value");
	assert_null(str_at(o, "reason", NULL));
	json_object_put(o);
	memset(big, ' ', big_len);
	o = post_json(s, NS_PODS("ns") "/p/binding", big, big_len, &status);
	assert_int_equal(status, 413);
	json_object_put(o);
	free(big);
	/* No such pod. */
	o = bind_pod(s, "ns", "ghost", "n", NULL, &status);
	assert_int_equal(status, 404);
	assert_status_object(o, 404, "NotFound");
	assert_string_equal(str_at(o, "message", NULL), "pods \"ghost\" not found");
	json_object_put(o);
	/* POST is served on the binding path only; GET is not served there. */
	o = post_json(s, PODS_PATH, good, strlen(good), &status);
	assert_int_equal(status, 405);
	assert_status_object(o, 405, "MethodNotAllowed");
	json_object_put(o);
	o = post_json(s, NS_PODS("ns") "/p", good, strlen(good), &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	o = post_json(s, NRT_PATH, "{}", 2, &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	o = get_json(s, NS_PODS("ns") "/p/binding", &status);
	assert_int_equal(status, 405);
	json_object_put(o);
	/* An injected failure hits a binding before anything happens. */
	fake_apiserver_fail_next(s, 503, 1);
	o = post_json(s, NS_PODS("ns") "/p/binding", good, strlen(good), &status);
	assert_int_equal(status, 503);
	json_object_put(o);
	o = pod_object(s, "ns", "p");
	assert_null(str_at(o, "spec", "nodeName"));
	json_object_put(o);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.bindings, 0);
	assert_int_equal(st.binding_conflicts, 0);
	/* The connection survives all of that: a binding still works. */
	o = post_json(s, NS_PODS("ns") "/p/binding", good, strlen(good), &status);
	assert_int_equal(status, 201);
	json_object_put(o);
	fake_apiserver_stop(s);
}

static void fake_apiserver_selector_watch_follows_pod_lifecycle(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv_bind, rv_mod, rv_done, rv_del;
	struct watcher *w;
	char names[8][32];
	unsigned long long rv;
	long status;
	int pages;

	(void)state;
	put_pod(s, "ns", "p", NULL, "Pending");
	put_pod(s, "ns", "r", "node-a", "Running");
	put_pod(s, "ns", "done", "node-a", "Succeeded");
	put_pod(s, "ns", "failed", "node-a", "Failed");
	/* A list with the same selector, written unencoded. */
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=spec.nodeName!=,status.phase!="
						"Succeeded,status.phase!=Failed",
				   "PodList", 10, names, 8, &pages, &rv),
			 1);
	assert_string_equal(names[0], "ns/r");
	/* From rv unset: synthetic ADDED only for what the selector takes. */
	w = watch_path(s, PODS_PATH "?watch=1&fieldSelector=" RUNNING_SEL);
	assert_int_equal(watcher_wait_lines(w, 1, WAIT_MS), 1);
	assert_event(w, 0, "ADDED", "r", rv - 2);
	/* Bound through the API: it enters the selection. */
	json_object_put(bind_pod(s, "ns", "p", "node-b", NULL, &status));
	assert_int_equal(status, 201);
	rv_bind = fake_apiserver_resource_version(s);
	put_pod(s, "ns", "q", NULL, "Pending"); /* outside before and after: nothing */
	rv_mod = fake_apiserver_pod_put(s, "ns", "p",
					"{\"metadata\":{\"labels\":{\"x\":\"1\"}},\"spec\":{\"nodeName\":"
					"\"node-b\"},\"status\":{\"phase\":\"Running\"}}");
	rv_done = put_pod(s, "ns", "p", "node-b", "Succeeded");
	rv_del = fake_apiserver_pod_delete(s, "ns", "r");
	fake_apiserver_pod_delete(s, "ns", "done"); /* never selected: nothing */
	assert_int_equal(watcher_wait_lines(w, 5, WAIT_MS), 5);
	assert_event(w, 1, "ADDED", "p", rv_bind);
	assert_event_str(w, 1, "spec", "nodeName", "node-b");
	assert_event(w, 2, "MODIFIED", "p", rv_mod);
	assert_event_str(w, 2, "status", "phase", "Running");
	/* Leaving the selection: DELETED with the content it was selected
	 * with, at the change's resourceVersion. */
	assert_event(w, 3, "DELETED", "p", rv_done);
	assert_event_str(w, 3, "status", "phase", "Running");
	assert_event(w, 4, "DELETED", "r", rv_del);
	assert_int_equal(watcher_wait_lines(w, 6, 200), 5);
	fake_apiserver_stop(s);
	watcher_finish(w);
}

static void fake_apiserver_selector_replay_and_paging(void **state)
{
	struct fake_apiserver *s = start_plain();
	unsigned long long rv0, rv;
	json_object *o, *items;
	char names[16][32], path[512];
	struct watcher *w;
	int pages;
	long status;

	(void)state;
	rv0 = fake_apiserver_resource_version(s);
	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof name, "p%d", i);
		put_pod(s, "ns", name, i % 2 ? "node-a" : "node-b", "Running");
	}
	put_pod(s, "ns", "p0", "node-a", "Running"); /* b → a: enters */
	put_pod(s, "ns", "p1", "node-b", "Running"); /* a → b: leaves */
	/* A replay from an old resourceVersion is judged like live changes. */
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu&fieldSelector="
					      "spec.nodeName%%3Dnode-a", rv0);
	w = watch_path(s, path);
	assert_int_equal(watcher_wait_lines(w, 5, WAIT_MS), 5);
	assert_event(w, 0, "ADDED", "p1", rv0 + 2);
	assert_event(w, 1, "ADDED", "p3", rv0 + 4);
	assert_event(w, 2, "ADDED", "p5", rv0 + 6);
	assert_event(w, 3, "ADDED", "p0", rv0 + 7);
	assert_event(w, 4, "DELETED", "p1", rv0 + 8);
	assert_event_str(w, 4, "spec", "nodeName", "node-a");
	watcher_finish(w);
	/* Pages hold up to `limit` matches; the last may come back short, or
	 * empty, and no count of what is left is given. */
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=spec.nodeName%3Dnode-a",
				   "PodList", 2, names, 16, &pages, &rv),
			 3);
	assert_string_equal(names[0], "ns/p0");
	assert_string_equal(names[1], "ns/p3");
	assert_string_equal(names[2], "ns/p5");
	assert_int_equal(pages, 2);
	o = get_json(s, PODS_PATH "?limit=1&fieldSelector=spec.nodeName%3Dnode-b", &status);
	assert_int_equal(status, 200);
	assert_true(json_object_object_get_ex(o, "items", &items));
	assert_int_equal(json_object_array_length(items), 1);
	assert_non_null(str_at(o, "metadata", "continue"));
	assert_null(str_at(o, "metadata", "remainingItemCount"));
	json_object_put(o);
	/* '+' in the raw query is a plus sign, not a space. */
	put_pod(s, "ns", "odd", NULL, "a+b");
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=status.phase=a+b", "PodList", 5,
				   names, 16, &pages, &rv),
			 1);
	assert_int_equal(list_kind(s, PODS_PATH "?fieldSelector=status.phase%3Da%2Bb", "PodList",
				   5, names, 16, &pages, &rv),
			 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_unsupported_selector_is_bad_request(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	char names[8][32];
	unsigned long long rv;
	json_object *o;
	long status;
	int pages;

	(void)state;
	o = get_json(s, PODS_PATH "?fieldSelector=spec.schedulerName%3Dx", &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	assert_string_equal(str_at(o, "message", NULL),
			    "field label not supported: spec.schedulerName");
	json_object_put(o);
	o = get_json(s, PODS_PATH "?watch=1&fieldSelector=spec.schedulerName%3Dx", &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	o = get_json(s, PODS_PATH "?fieldSelector=nonsense", &status);
	assert_int_equal(status, 400);
	assert_status_object(o, 400, "BadRequest");
	json_object_put(o);
	/* A custom resource offers metadata.name and .namespace only. */
	o = get_json(s, NRT_PATH "?fieldSelector=spec.nodeName%3Dx", &status);
	assert_int_equal(status, 400);
	json_object_put(o);
	put_nrt(s, "a", 1), put_nrt(s, "b", 1);
	assert_int_equal(list_all(s, NRT_PATH "?fieldSelector=metadata.name%3Db", 5, names, 8,
				  &pages, &rv),
			 1);
	assert_string_equal(names[0], "b");
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.watches, 0);
	assert_int_equal(st.lists, 1);
	fake_apiserver_stop(s);
}

static void fake_apiserver_watches_see_only_their_resource(void **state)
{
	struct fake_apiserver *s = start_plain();
	struct fake_apiserver_stats st;
	unsigned long long rv, rv_nrt, rv_pod, rv_nrt_del, rv_bind, rv_other;
	struct watcher *wn, *wp, *wns;
	char path[512];
	json_object *e;
	long status;

	(void)state;
	rv = fake_apiserver_resource_version(s);
	snprintf(path, sizeof path, NRT_PATH "?watch=1&resourceVersion=%llu&allowWatchBookmarks=1",
		 rv);
	wn = watch_path(s, path);
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu&allowWatchBookmarks=1",
		 rv);
	wp = watch_path(s, path);
	snprintf(path, sizeof path, NS_PODS("other") "?watch=1&resourceVersion=%llu", rv);
	wns = watch_path(s, path);
	assert_true(fake_apiserver_wait_watches(s, 3, WAIT_MS));
	rv_nrt = fake_apiserver_put(s, "node-a", "{}");
	rv_pod = put_pod(s, "ns", "p", NULL, NULL);
	rv_nrt_del = fake_apiserver_delete(s, "node-a");
	json_object_put(bind_pod(s, "ns", "p", "node-a", NULL, &status));
	assert_int_equal(status, 201);
	rv_bind = fake_apiserver_resource_version(s);
	rv_other = put_pod(s, "other", "p", NULL, NULL);
	/* One counter: every change took the next value. */
	assert_true(rv_nrt == rv + 1 && rv_pod == rv + 2 && rv_nrt_del == rv + 3 &&
		    rv_bind == rv + 4 && rv_other == rv + 5);
	fake_apiserver_send_bookmark(s);
	assert_int_equal(watcher_wait_lines(wn, 3, WAIT_MS), 3);
	assert_int_equal(watcher_wait_lines(wp, 4, WAIT_MS), 4);
	assert_int_equal(watcher_wait_lines(wns, 1, WAIT_MS), 1);
	assert_event(wn, 0, "ADDED", "node-a", rv_nrt);
	assert_event(wn, 1, "DELETED", "node-a", rv_nrt_del);
	assert_event_str(wn, 0, "kind", NULL, "NodeResourceTopology");
	assert_event(wn, 2, "BOOKMARK", NULL, rv_other);
	assert_event_str(wn, 2, "kind", NULL, "NodeResourceTopology");
	assert_event(wp, 0, "ADDED", "p", rv_pod);
	assert_event_str(wp, 0, "kind", NULL, "Pod");
	assert_event_str(wp, 0, "apiVersion", NULL, "v1");
	assert_event(wp, 1, "MODIFIED", "p", rv_bind);
	assert_event(wp, 2, "ADDED", "p", rv_other);
	assert_event_str(wp, 2, "metadata", "namespace", "other");
	assert_event(wp, 3, "BOOKMARK", NULL, rv_other);
	assert_event_str(wp, 3, "kind", NULL, "Pod");
	assert_event_str(wp, 3, "apiVersion", NULL, "v1");
	assert_event(wns, 0, "ADDED", "p", rv_other);
	/* A replay from the start gives each resource its own changes only. */
	watcher_finish(wns);
	assert_true(fake_apiserver_wait_watches(s, 2, WAIT_MS));
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv);
	wns = watch_path(s, path);
	assert_int_equal(watcher_wait_lines(wns, 3, WAIT_MS), 3);
	assert_int_equal(watcher_wait_lines(wns, 4, 200), 3);
	assert_event(wns, 0, "ADDED", "p", rv_pod);
	/* Faults reach the watches of both resources. */
	fake_apiserver_send_error_event_410(s);
	assert_true(watcher_wait_done(wn, WAIT_MS));
	assert_true(watcher_wait_done(wp, WAIT_MS));
	assert_true(watcher_wait_done(wns, WAIT_MS));
	e = watcher_event(wp, 4);
	assert_string_equal(str_at(e, "type", NULL), "ERROR");
	json_object_put(e);
	fake_apiserver_stats(s, &st);
	assert_int_equal(st.gone, 3);
	assert_int_equal(st.watches, 4);
	/* Compaction covers pods too. */
	fake_apiserver_expire_history(s);
	snprintf(path, sizeof path, PODS_PATH "?watch=1&resourceVersion=%llu", rv_bind);
	e = get_json(s, path, &status);
	assert_int_equal(status, 410);
	json_object_put(e);
	fake_apiserver_stop(s);
	watcher_finish(wn);
	watcher_finish(wp);
	watcher_finish(wns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fake_apiserver_pod_list_pages_by_namespace_then_name),
		cmocka_unit_test(fake_apiserver_pod_get_and_not_found),
		cmocka_unit_test(fake_apiserver_pod_put_sets_metadata_and_keeps_uid),
		cmocka_unit_test(fake_apiserver_binding_binds_and_is_watched),
		cmocka_unit_test(fake_apiserver_binding_conflicts),
		cmocka_unit_test(fake_apiserver_binding_bad_requests),
		cmocka_unit_test(fake_apiserver_selector_watch_follows_pod_lifecycle),
		cmocka_unit_test(fake_apiserver_selector_replay_and_paging),
		cmocka_unit_test(fake_apiserver_unsupported_selector_is_bad_request),
		cmocka_unit_test(fake_apiserver_watches_see_only_their_resource),
	};
	int failed;

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	failed = cmocka_run_group_tests_name("fake_apiserver_pods", tests, NULL, NULL);
	curl_global_cleanup();
	return failed;
}
