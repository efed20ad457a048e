/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes credentials: kubeconfig (current context, CA and client
 * certificate as files or data, tokens and token files, clear errors) and
 * the in-cluster service account. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extender/kube/client.h"
#include "tests/support/scratch_dir.h"

static char dir[] = "/tmp/numa-kube-XXXXXX";

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

static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#define KUBECONFIG_HEAD                                                                  \
	"apiVersion: v1\nkind: Config\ncurrent-context: dev\n"                            \
	"contexts:\n- name: other\n  context: {cluster: nowhere, user: nobody}\n"          \
	"- name: dev\n  context: {cluster: c1, user: u1}\n"

static void kube_kubeconfig_token_file_and_ca_file(void **state)
{
	struct kube_credentials c;
	struct errmsg msg;
	char path[256];

	(void)state;
	put("token", "first-token\n");
	put("ca.crt", "not really a certificate\n");
	snprintf(path, sizeof path, "%s",
		 put("kubeconfig", KUBECONFIG_HEAD
			 "clusters:\n- name: c1\n  cluster: {server: \"https://127.0.0.1:6443/\", certificate-authority: ca.crt}\n"
			 "users:\n- name: u1\n  user: {tokenFile: token}\n"));
	if (kube_credentials_from_kubeconfig(path, &c, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_string_equal(c.server, "https://127.0.0.1:6443");
	assert_non_null(strstr(c.ca_file, "/ca.crt"));
	assert_string_equal(c.token, "first-token");
	/* A rotated token is picked up at the next request. */
	sleep(1);
	put("token", "second-token");
	{
		CURL *curl = curl_easy_init();
		struct curl_slist *h = NULL;

		assert_int_equal(kube_apply(&c, curl, &h, &msg), ERR_OK);
		assert_string_equal(c.token, "second-token");
		assert_string_equal(h->data, "Authorization: Bearer second-token");
		curl_slist_free_all(h);
		curl_easy_cleanup(curl);
	}
	kube_credentials_cleanup(&c);
}

static void kube_kubeconfig_inline_data(void **state)
{
	struct kube_credentials c;
	struct errmsg msg;
	char path[256];

	(void)state;
	/* "cert" and "key" and "ca" base64-encoded. */
	snprintf(path, sizeof path, "%s",
		 put("kubeconfig", KUBECONFIG_HEAD
			 "clusters:\n- name: c1\n  cluster:\n    server: http://localhost:8080\n"
			 "    certificate-authority-data: Y2E=\n    insecure-skip-tls-verify: true\n"
			 "users:\n- name: u1\n  user:\n    client-certificate-data: Y2VydA==\n"
			 "    client-key-data: a2V5\n    token: abc\n"));
	if (kube_credentials_from_kubeconfig(path, &c, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_string_equal(c.server, "http://localhost:8080");
	assert_int_equal(c.ca_len, 2);
	assert_memory_equal(c.ca_data, "ca", 2);
	assert_memory_equal(c.cert_data, "cert", 4);
	assert_memory_equal(c.key_data, "key", 3);
	assert_true(c.insecure);
	assert_string_equal(c.token, "abc");
	kube_credentials_cleanup(&c);
}

static void expect_error(const char *kubeconfig, const char *message)
{
	struct kube_credentials c;
	struct errmsg msg;
	char path[256];

	snprintf(path, sizeof path, "%s", put("kubeconfig", kubeconfig));
	assert_int_not_equal(kube_credentials_from_kubeconfig(path, &c, &msg), ERR_OK);
	if (strstr(msg.text, message) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", msg.text, message);
}

static void kube_kubeconfig_errors(void **state)
{
	(void)state;
	expect_error("apiVersion: v1\nkind: Config\n", "current-context: missing");
	expect_error(KUBECONFIG_HEAD "clusters: []\n", "clusters: no cluster named \"c1\" (context \"dev\")");
	expect_error(KUBECONFIG_HEAD "clusters:\n- name: c1\n  cluster: {server: ftp://x}\n",
		     "cluster \"c1\": server: expected an http:// or https:// URL");
	expect_error(KUBECONFIG_HEAD "clusters:\n- name: c1\n  cluster: {server: https://x}\n"
				     "users:\n- name: u1\n  user:\n    exec: {command: aws}\n",
		     "user \"u1\": exec and auth-provider credentials are not supported");
	expect_error(KUBECONFIG_HEAD "clusters:\n- name: c1\n  cluster: {server: https://x, certificate-authority-data: \"!!\"}\n",
		     "certificate-authority-data: not valid base64");
	expect_error(KUBECONFIG_HEAD "clusters:\n- name: c1\n  cluster: {server: https://x}\n"
				     "users:\n- name: u1\n  user: {client-certificate-data: Y2VydA==}\n",
		     "a client certificate needs its key");
	expect_error(KUBECONFIG_HEAD "clusters:\n- name: c1\n  cluster: {server: https://x}\n"
				     "users:\n- name: u1\n  user: {tokenFile: /nonexistent/token}\n",
		     "/nonexistent/token: cannot read the bearer token");
}

static void kube_in_cluster(void **state)
{
	struct kube_credentials c;
	struct errmsg msg;

	(void)state;
	unsetenv("KUBERNETES_SERVICE_HOST");
	assert_int_not_equal(kube_credentials_in_cluster(&c, &msg), ERR_OK);
	assert_non_null(strstr(msg.text, "KUBERNETES_SERVICE_HOST"));
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	setenv("NUMA_EXTENDER_SERVICEACCOUNT_DIR", dir, 1);
	put("ca.crt", "ca");
	put("token", "sa-token\n");
	if (kube_credentials_in_cluster(&c, &msg) != ERR_OK)
		fail_msg("%s", msg.text);
	assert_string_equal(c.server, "https://[fd00::1]:443");
	assert_string_equal(c.token, "sa-token");
	kube_credentials_cleanup(&c);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("NUMA_EXTENDER_SERVICEACCOUNT_DIR");
}

static void kube_base64(void **state)
{
	char *out = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(kube_base64_decode("aGVs\nbG8=", 9, &out, &len), ERR_OK);
	assert_int_equal(len, 5);
	assert_memory_equal(out, "hello", 5);
	free(out);
	assert_int_equal(kube_base64_decode("a=b", 3, &out, &len), ERR_PARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kube_kubeconfig_token_file_and_ca_file),
		cmocka_unit_test(kube_kubeconfig_inline_data),
		cmocka_unit_test(kube_kubeconfig_errors),
		cmocka_unit_test(kube_in_cluster),
		cmocka_unit_test(kube_base64),
	};

	return cmocka_run_group_tests_name("kube_client", tests, setup, teardown);
}
