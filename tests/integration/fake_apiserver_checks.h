/* SPDX-License-Identifier: Apache-2.0 */
/* What both fake API server test files (test_fake_apiserver_nrt.c and
 * test_fake_apiserver_pods.c) need: the NRT paths and object, a plain server,
 * JSON GETs, a watch on a path, and checks of events, Status objects and
 * paged lists. It asserts with cmocka, so only those two tests include it
 * (tests/support/ is linked into the benchmarks too, which have no cmocka).
 * Include it after cmocka.h, json-c, fake_apiserver.h and watch_client.h. */
#ifndef TESTS_INTEGRATION_FAKE_APISERVER_CHECKS_H
#define TESTS_INTEGRATION_FAKE_APISERVER_CHECKS_H

#define NRT_PATH "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
#define NRT_PATH_V1 "/apis/topology.node.k8s.io/v1alpha1/noderesourcetopologies"
#define TLS_DIR "tests/data/tls/"
#define WAIT_MS 5000

static const char nrt[] = "{\"zones\":[{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":"
			  "[{\"name\":\"cpu\",\"capacity\":\"8\",\"allocatable\":\"8\","
			  "\"available\":\"%d\"}]}]}";

static __attribute__((unused)) void put_nrt(struct fake_apiserver *s, const char *name, int available)
{
	char json[256];

	snprintf(json, sizeof json, nrt, available);
	fake_apiserver_put(s, name, json);
}

static __attribute__((unused)) struct fake_apiserver *start_plain(void)
{
	struct fake_apiserver_options o = { .serve_v1alpha2 = true, .serve_v1alpha1 = true };
	struct fake_apiserver *s = fake_apiserver_start(&o);

	assert_non_null(s);
	assert_true(fake_apiserver_port(s) > 0);
	return s;
}

static __attribute__((unused)) void url_of(char *out, size_t size, struct fake_apiserver *s, const char *path)
{
	snprintf(out, size, "http://127.0.0.1:%d%s", fake_apiserver_port(s), path);
}

/* GET with the shared test client; the parsed body, or NULL if it is not
 * JSON. */
static __attribute__((unused)) json_object *get_json(struct fake_apiserver *s, const char *path, long *status)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	json_object *o;
	char url[1024];

	url_of(url, sizeof url, s, path);
	http_request(c, "GET", url, NULL, 0, false, &r);
	assert_int_equal(r.curl_error, 0);
	*status = r.status;
	o = json_tokener_parse(r.body);
	http_response_cleanup(&r);
	http_client_free(c);
	return o;
}

static __attribute__((unused)) const char *str_at(json_object *o, const char *a, const char *b)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (b && !json_object_object_get_ex(x, b, &x))
		return NULL;
	return json_object_get_string(x);
}

static __attribute__((unused)) void assert_status_object(json_object *o, int code, const char *reason)
{
	json_object *c;

	assert_non_null(o);
	assert_string_equal(str_at(o, "kind", NULL), "Status");
	assert_string_equal(str_at(o, "apiVersion", NULL), "v1");
	assert_string_equal(str_at(o, "status", NULL), "Failure");
	assert_string_equal(str_at(o, "reason", NULL), reason);
	assert_non_null(str_at(o, "message", NULL));
	assert_true(json_object_object_get_ex(o, "code", &c));
	assert_int_equal(json_object_get_int(c), code);
}

static __attribute__((unused)) unsigned long long rv_of(json_object *o)
{
	const char *rv = str_at(o, "metadata", "resourceVersion");

	assert_non_null(rv);
	return strtoull(rv, NULL, 10);
}

static __attribute__((unused)) struct watcher *watch_path(struct fake_apiserver *s, const char *path_and_query)
{
	char url[1024];

	url_of(url, sizeof url, s, path_and_query);
	return watcher_start(url, NULL, NULL);
}

/* Event i has this type, object name (unless NULL) and resourceVersion. */
static __attribute__((unused)) void assert_event(struct watcher *w, size_t i, const char *type, const char *name,
			 unsigned long long rv)
{
	json_object *ev = watcher_event(w, i), *obj;

	assert_non_null(ev);
	assert_string_equal(str_at(ev, "type", NULL), type);
	assert_true(json_object_object_get_ex(ev, "object", &obj));
	if (name)
		assert_string_equal(str_at(obj, "metadata", "name"), name);
	assert_int_equal(rv_of(obj), rv);
	json_object_put(ev);
}

/* Follows continue tokens of a list of `kind` (base may carry a query
 * already); returns the names ("namespace/name" for namespaced objects) in
 * order and the pages seen. */
static __attribute__((unused)) size_t list_kind(struct fake_apiserver *s, const char *base, const char *kind, int limit,
			char names[][32], size_t max, int *pages, unsigned long long *rv)
{
	const char *sep = strchr(base, '?') ? "&" : "?";
	char path[1024], token[512] = "";
	size_t n = 0;

	*pages = 0;
	do {
		json_object *o, *items, *cont;
		long status;

		if (token[0])
			snprintf(path, sizeof path, "%s%slimit=%d&continue=%s", base, sep, limit,
				 token);
		else
			snprintf(path, sizeof path, "%s%slimit=%d", base, sep, limit);
		o = get_json(s, path, &status);
		assert_int_equal(status, 200);
		assert_string_equal(str_at(o, "kind", NULL), kind);
		if (*pages == 0)
			*rv = rv_of(o);
		else
			assert_int_equal(rv_of(o), *rv); /* every page at the list's RV */
		assert_true(json_object_object_get_ex(o, "items", &items));
		assert_true((int)json_object_array_length(items) <= limit);
		for (size_t i = 0; i < json_object_array_length(items); i++) {
			json_object *it = json_object_array_get_idx(items, i);

			assert_true(n < max);
			if (str_at(it, "metadata", "namespace"))
				snprintf(names[n++], 32, "%s/%s", str_at(it, "metadata", "namespace"),
					 str_at(it, "metadata", "name"));
			else
				snprintf(names[n++], 32, "%s", str_at(it, "metadata", "name"));
		}
		token[0] = '\0';
		if (json_object_object_get_ex(json_object_object_get(o, "metadata"), "continue",
					      &cont))
			snprintf(token, sizeof token, "%s", json_object_get_string(cont));
		(*pages)++;
		json_object_put(o);
	} while (token[0]);
	return n;
}

static __attribute__((unused)) size_t list_all(struct fake_apiserver *s, const char *base, int limit, char names[][32],
		       size_t max, int *pages, unsigned long long *rv)
{
	return list_kind(s, base, "NodeResourceTopologyList", limit, names, max, pages, rv);
}

#endif
