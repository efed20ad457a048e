/* SPDX-License-Identifier: Apache-2.0 */
/* The Kubernetes inventory source against the fake API server: paged lists,
 * watches, and every fault the fake can inject; after each fault sequence the
 * extender's inventory must equal the server's objects exactly. Also
 * readiness, the stale stance, v1alpha1 fallback, TLS and bad credentials. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/http/handlers.h"
#include "extender/http/server.h"
#include "extender/decide/settings.h"
#include "extender/inventory/source_kube.h"
#include "extender/inventory/store.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "base/xalloc.h"

#define TOKEN "s3cr3t-token"

struct kenv {
	struct fake_apiserver *api;
	struct store *store;
	struct source_kube *kube;
	struct config cfg;
	char kubeconfig[64];
};

static void nrt_json(char *buf, size_t size, const char *name, int free0, int free1)
{
	snprintf(buf, size,
		 "{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\","
		 "\"metadata\":{\"name\":\"%s\"},"
		 "\"attributes\":[{\"name\":\"topologyManagerPolicy\",\"value\":\"single-numa-node\"}],"
		 "\"zones\":[{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":[{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"%d\"}]},"
		 "{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":[{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"%d\"}]}]}",
		 name, free0, free1);
}

static void write_kubeconfig(struct kenv *e, const char *scheme, const char *token, const char *ca)
{
	FILE *f;
	int fd;

	snprintf(e->kubeconfig, sizeof e->kubeconfig, "/tmp/numa-kubeconfig-XXXXXX");
	fd = mkstemp(e->kubeconfig);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: %s://127.0.0.1:%d\n%s%s%s"
		   "users:\n- name: u\n  user: {token: %s}\n",
		scheme, fake_apiserver_port(e->api), ca ? "    certificate-authority: " : "",
		ca ? ca : "", ca ? "\n" : "", token);
	fclose(f);
}

static void kenv_start(struct kenv *e, const struct fake_apiserver_options *o, const char *token,
		       bool start_source)
{
	struct fake_apiserver_options defaults = { NULL, NULL, TOKEN, true, true, 50 };
	struct errmsg msg;

	memset(e, 0, sizeof *e);
	e->api = fake_apiserver_start(o ? o : &defaults);
	assert_non_null(e->api);
	{
		char ca[4096];

		/* The kubeconfig lives in /tmp: give the CA as an absolute path. */
		if (o && o->cert_file && realpath("tests/data/tls/ca.crt", ca) == NULL)
			fail_msg("tests/data/tls/ca.crt: missing");
		write_kubeconfig(e, o && o->cert_file ? "https" : "http", token ? token : TOKEN,
				 o && o->cert_file ? ca : NULL);
	}
	config_init(&e->cfg);
	e->cfg.inventory_source = CONFIG_SOURCE_KUBERNETES;
	e->cfg.kubeconfig = xstrdup(e->kubeconfig);
	e->cfg.watch_idle_timeout_ms = 1000;
	e->cfg.request_timeout_ms = 5000;
	e->store = store_new();
	if (start_source && source_kube_start(e->store, &e->cfg, &e->kube, &msg) != ERR_OK)
		fail_msg("source_kube_start: %s", msg.text);
}

static void kenv_stop(struct kenv *e)
{
	source_kube_stop(e->kube);
	fake_apiserver_stop(e->api);
	store_free(e->store);
	config_cleanup(&e->cfg);
	unlink(e->kubeconfig);
}

/* True when the store holds exactly the server's objects, same versions. */
static bool same_inventory(struct kenv *e, char *why, size_t whysize)
{
	char **names = NULL, **json = NULL;
	size_t n = fake_apiserver_list(e->api, &names, &json), i;
	struct store_set *set = store_acquire(e->store);
	bool same = store_size(set) == n;

	if (!same)
		snprintf(why, whysize, "store has %zu nodes, server %zu", store_size(set), n);
	for (i = 0; i < n && same; i++) {
		const struct store_node *sn = store_get(set, names[i]);
		struct json_object *o = json_tokener_parse(json[i]), *m = NULL, *rv = NULL;

		json_object_object_get_ex(o, "metadata", &m);
		json_object_object_get_ex(m, "resourceVersion", &rv);
		if (sn == NULL) {
			same = false;
			snprintf(why, whysize, "store lacks %s", names[i]);
		} else if (rv == NULL || strcmp(sn->version, json_object_get_string(rv)) != 0) {
			same = false;
			snprintf(why, whysize, "%s: store version %s, server %s", names[i], sn->version,
				 rv ? json_object_get_string(rv) : "?");
		}
		json_object_put(o);
	}
	store_release(set);
	fake_apiserver_list_free(names, json, n);
	return same;
}

static void wait_same(struct kenv *e, int seconds, const char *after)
{
	char why[256] = "";
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (same_inventory(e, why, sizeof why))
			return;
		usleep(50 * 1000);
	}
	fail_msg("after %s: inventory differs from the server: %s", after, why);
}

static void kube_paged_list_then_watch(void **state)
{
	struct fake_apiserver_stats st;
	struct kenv e;
	char obj[1024], name[32];
	int i;

	(void)state;
	kenv_start(&e, NULL, NULL, false);
	for (i = 0; i < 120; i++) {
		snprintf(name, sizeof name, "node-%03d", i);
		nrt_json(obj, sizeof obj, name, 8, 8);
		fake_apiserver_put(e.api, name, obj);
	}
	{
		struct errmsg msg;

		if (source_kube_start(e.store, &e.cfg, &e.kube, &msg) != ERR_OK)
			fail_msg("%s", msg.text);
	}
	wait_same(&e, 10, "the first list");
	assert_true(store_ready(e.store));
	fake_apiserver_stats(e.api, &st);
	assert_true(st.list_pages >= 3); /* 120 objects, pages of at most 50 */
	assert_string_equal(source_kube_version(e.kube), "v1alpha2");
	assert_true(fake_apiserver_wait_watches(e.api, 1, 5000));
	nrt_json(obj, sizeof obj, "node-007", 1, 2);
	fake_apiserver_put(e.api, "node-007", obj);
	fake_apiserver_delete(e.api, "node-008");
	nrt_json(obj, sizeof obj, "brand-new", 16, 16);
	fake_apiserver_put(e.api, "brand-new", obj);
	wait_same(&e, 5, "watch events");
	kenv_stop(&e);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static int below(int k)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (int)((rng * 2685821657736338717u) % (uint64_t)k);
}

static void random_changes(struct kenv *e, int count)
{
	char obj[1024], name[32];
	int i;

	for (i = 0; i < count; i++) {
		snprintf(name, sizeof name, "n%02d", below(60));
		if (below(5) == 0) {
			fake_apiserver_delete(e->api, name);
		} else {
			nrt_json(obj, sizeof obj, name, below(17), below(17));
			fake_apiserver_put(e->api, name, obj);
		}
	}
}

/* 1,000 random changes interleaved with every fault the fake can inject. */
static void kube_random_changes_with_faults(void **state)
{
	struct fake_apiserver_stats st;
	struct kenv e;
	int round;

	(void)state;
	kenv_start(&e, NULL, NULL, true);
	wait_same(&e, 10, "the first (empty) list");
	for (round = 0; round < 20; round++) {
		char label[64];

		random_changes(&e, 25);
		switch (round % 8) {
		case 0:
			fake_apiserver_disconnect_watches(e.api);
			snprintf(label, sizeof label, "a mid-stream disconnect");
			break;
		case 1:
			/* The resumed watch is too old: 410 Gone, relist. */
			fake_apiserver_expire_history(e.api);
			fake_apiserver_disconnect_watches(e.api);
			snprintf(label, sizeof label, "410 Gone on rewatch");
			break;
		case 2:
			fake_apiserver_send_error_event_410(e.api);
			snprintf(label, sizeof label, "an ERROR 410 event");
			break;
		case 3:
			fake_apiserver_fail_next(e.api, 500, 2);
			fake_apiserver_disconnect_watches(e.api);
			snprintf(label, sizeof label, "500 twice");
			break;
		case 4:
			fake_apiserver_fail_next(e.api, 401, 1);
			fake_apiserver_disconnect_watches(e.api);
			snprintf(label, sizeof label, "401 once");
			break;
		case 5:
			/* Silent longer than the idle timeout (1 s): reconnect. */
			fake_apiserver_stall_watches(e.api, true);
			random_changes(&e, 10);
			usleep(1800 * 1000);
			fake_apiserver_stall_watches(e.api, false);
			snprintf(label, sizeof label, "a stalled stream");
			break;
		case 6:
			fake_apiserver_send_garbage(e.api, "{\"type\":\"MODIFIED\",\"object\":{garbage");
			snprintf(label, sizeof label, "a garbage line");
			break;
		case 7:
			fake_apiserver_send_bookmark(e.api);
			snprintf(label, sizeof label, "a bookmark");
			break;
		}
		random_changes(&e, 25);
		wait_same(&e, 15, label);
	}
	fake_apiserver_stats(e.api, &st);
	assert_true(st.gone > 0);
	assert_true(st.lists >= 4); /* the first list and the relists */
	kenv_stop(&e);
}

static void kube_oversized_event_relists(void **state)
{
	struct kenv e;
	size_t big = 300 * 1024; /* over the 256 KiB cap set below */
	char *line = malloc(big + 1);

	(void)state;
	kenv_start(&e, NULL, NULL, false);
	e.cfg.max_event_bytes = 256 * 1024;
	{
		struct errmsg msg;

		assert_int_equal(source_kube_start(e.store, &e.cfg, &e.kube, &msg), ERR_OK);
	}
	wait_same(&e, 10, "the first list");
	assert_true(fake_apiserver_wait_watches(e.api, 1, 5000));
	memset(line, 'x', big);
	memcpy(line, "{\"type\":\"ADDED\",\"object\":\"", 26);
	line[big] = '\0';
	fake_apiserver_send_garbage(e.api, line);
	free(line);
	random_changes(&e, 30);
	wait_same(&e, 15, "an event larger than the cap");
	kenv_stop(&e);
}

static void kube_falls_back_to_v1alpha1(void **state)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, false, true, 0 };
	struct kenv e;

	(void)state;
	kenv_start(&e, &o, NULL, true);
	random_changes(&e, 20);
	wait_same(&e, 10, "v1alpha1 list and watch");
	assert_string_equal(source_kube_version(e.kube), "v1alpha1");
	kenv_stop(&e);
}

static void kube_over_tls(void **state)
{
	struct fake_apiserver_options o = { "tests/data/tls/server.crt", "tests/data/tls/server.key",
					    TOKEN, true, true, 0 };
	struct kenv e;

	(void)state;
	kenv_start(&e, &o, NULL, true);
	random_changes(&e, 20);
	wait_same(&e, 10, "list and watch over TLS");
	kenv_stop(&e);
}

static void kube_bad_token_is_not_ready(void **state)
{
	struct fake_apiserver_stats st;
	struct kenv e;
	char obj[1024];

	(void)state;
	kenv_start(&e, NULL, "wrong-token", false);
	nrt_json(obj, sizeof obj, "n1", 1, 1);
	fake_apiserver_put(e.api, "n1", obj);
	{
		struct errmsg msg;

		assert_int_equal(source_kube_start(e.store, &e.cfg, &e.kube, &msg), ERR_OK);
	}
	{
		int i;

		for (i = 0; i < 200; i++) {
			fake_apiserver_stats(e.api, &st);
			if (st.auth_failures >= 1)
				break;
			usleep(50 * 1000);
		}
	}
	assert_true(st.auth_failures >= 1);
	assert_false(store_ready(e.store));
	kenv_stop(&e);
}

/* /readyz and the stale stance through the real HTTP server. */
static void kube_readyz_and_stale_stance(void **state)
{
	static const char body[] =
		"{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"cpu\":\"8\",\"memory\":\"1Gi\"}}}]}},"
		"\"Nodes\":null,\"NodeNames\":[\"busy\"]}";
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct server *srv = NULL;
	struct http_client *http = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	struct errmsg msg;
	struct kenv e;
	char url[128], obj[1024];
	int i;

	(void)state;
	kenv_start(&e, NULL, NULL, false);
	nrt_json(obj, sizeof obj, "busy", 2, 2);
	fake_apiserver_put(e.api, "busy", obj);
	fake_apiserver_fail_next(e.api, 503, 3);
	free(e.cfg.listen);
	e.cfg.listen = xstrdup("127.0.0.1:0");
	settings_holder_init(&holder, settings_new(&e.cfg));
	memset(&ctx, 0, sizeof ctx);
	ctx.store = e.store;
	ctx.settings = &holder;
	ctx.stale_after_ms = 1000;
	if (server_start(&e.cfg, &ctx, &srv, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/readyz", server_port(srv));
	http_request(http, "GET", url, NULL, 0, false, &r);
	assert_int_equal(r.status, 503); /* nothing listed yet */
	http_response_cleanup(&r);
	assert_int_equal(source_kube_start(e.store, &e.cfg, &e.kube, &msg), ERR_OK);
	for (i = 0; i < 200 && !store_ready(e.store); i++)
		usleep(50 * 1000);
	http_request(http, "GET", url, NULL, 0, false, &r);
	assert_int_equal(r.status, 200);
	http_response_cleanup(&r);
	/* Fresh: the busy node is rejected on its merits. */
	snprintf(url, sizeof url, "http://127.0.0.1:%d/filter", server_port(srv));
	http_request(http, "POST", url, body, strlen(body), false, &r);
	assert_non_null(strstr(r.body, "\"Error\":\"\""));
	http_response_cleanup(&r);
	/* Stalled longer than staleAfter (and reconnects stall too). */
	fake_apiserver_stall_watches(e.api, true);
	fake_apiserver_fail_next(e.api, 503, 1000);
	usleep(2600 * 1000);
	http_request(http, "POST", url, body, strlen(body), false, &r);
	assert_non_null(strstr(r.body, "topology inventory unavailable"));
	http_response_cleanup(&r);
	ctx.fail_open = true;
	http_request(http, "POST", url, body, strlen(body), false, &r);
	assert_non_null(strstr(r.body, "[inventory stale]"));
	assert_non_null(strstr(r.body, "\"Error\":\"\""));
	http_response_cleanup(&r);
	fake_apiserver_fail_next(e.api, 503, 0);
	fake_apiserver_stall_watches(e.api, false);
	server_drain_and_stop(srv, 1000);
	settings_holder_cleanup(&holder);
	http_client_free(http);
	kenv_stop(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kube_paged_list_then_watch),
		cmocka_unit_test(kube_random_changes_with_faults),
		cmocka_unit_test(kube_oversized_event_relists),
		cmocka_unit_test(kube_falls_back_to_v1alpha1),
		cmocka_unit_test(kube_over_tls),
		cmocka_unit_test(kube_bad_token_is_not_ready),
		cmocka_unit_test(kube_readyz_and_stale_stance),
	};

	return cmocka_run_group_tests_name("kube", tests, NULL, NULL);
}
