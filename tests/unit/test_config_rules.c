/* SPDX-License-Identifier: Apache-2.0 */
/* The rules between keys on a finished configuration (config_check, what
 * serve runs after its flags), the loopback rule in the file, and
 * inventory.maxFileBytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "base/xalloc.h"

static void set(char **field, const char *value)
{
	free(*field);
	*field = value ? xstrdup(value) : NULL;
}

/* What the flags can change, checked after the change. */
static void check_runs_on_the_final_config(void **state)
{
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	config_init(&c);
	assert_int_equal(config_check(&c, &msg), ERR_OK);
	c.inventory_source = CONFIG_SOURCE_KUBERNETES;
	c.bind_enabled = true;
	assert_int_equal(config_check(&c, &msg), ERR_OK);
	/* --listen opening the port. */
	set(&c.listen, "0.0.0.0:8888");
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	assert_string_equal(msg.text,
			    "bind: enabled needs mTLS (tls.clientCAFile) or listeners on loopback only; "
			    "anyone who can reach an unauthenticated /bind can place pods "
			    "(listen \"0.0.0.0:8888\" is not a loopback address)");
	set(&c.listen, "127.evil.example:8888");
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	set(&c.listen, "[::1]:8888");
	assert_int_equal(config_check(&c, &msg), ERR_OK);
	set(&c.metrics_listen, "[::]:9090");
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	assert_non_null(strstr(msg.text, "(metricsListen \"[::]:9090\" is not a loopback address)"));
	/* mTLS makes any listener fine. */
	set(&c.tls_cert_file, "c");
	set(&c.tls_key_file, "k");
	set(&c.tls_client_ca_file, "ca");
	assert_int_equal(config_check(&c, &msg), ERR_OK);
	/* --nrt-dir taking the API away from bind. */
	c.inventory_source = CONFIG_SOURCE_FILES;
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "bind: enabled needs inventory.source: kubernetes "
				      "(bind talks to the API server)");
	c.bind_enabled = false;
	set(&c.kubeconfig, "/k");
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "inventory: kubeconfig needs source: kubernetes");
	set(&c.kubeconfig, NULL);
	/* --listen equal to metricsListen. */
	set(&c.listen, "[::]:9090");
	assert_int_equal(config_check(&c, &msg), ERR_INVALID);
	assert_string_equal(msg.text, "metricsListen: is the same address as listen");
	config_cleanup(&c);
}

/* In the file, a name that starts with 127. is refused with its position. */
static void file_rule_uses_addresses(void **state)
{
	static const char bad[] = "listen: \"127.evil.example:8888\"\n"
				  "inventory: {source: kubernetes}\nbind: {enabled: true}\n";
	static const char good[] = "listen: \"127.0.0.2:8888\"\nmetricsListen: \"[::1]:9090\"\n"
				   "inventory: {source: kubernetes}\nbind: {enabled: true}\n";
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	config_init(&c);
	assert_int_equal(config_load_buffer(bad, strlen(bad), "x.yaml", &c, &msg), ERR_INVALID);
	assert_string_equal(msg.text,
			    "x.yaml:3:8: bind: enabled needs mTLS (tls.clientCAFile) or listeners on "
			    "loopback only; anyone who can reach an unauthenticated /bind can place pods");
	assert_false(c.bind_enabled);
	assert_int_equal(config_load_buffer(good, strlen(good), "x.yaml", &c, &msg), ERR_OK);
	assert_true(c.bind_enabled);
	config_cleanup(&c);
}

static void inventory_max_file_bytes(void **state)
{
	static const char text[] = "inventory: {maxFileBytes: 1Mi}\n";
	static const char low[] = "inventory: {maxFileBytes: 100}\n";
	struct errmsg msg = { { 0 } };
	struct config c;

	(void)state;
	config_init(&c);
	assert_int_equal(c.inventory_max_file_bytes, (int64_t)16 << 20);
	assert_int_equal(config_load_buffer(text, strlen(text), "x.yaml", &c, &msg), ERR_OK);
	assert_int_equal(c.inventory_max_file_bytes, (int64_t)1 << 20);
	assert_int_equal(config_load_buffer(low, strlen(low), "x.yaml", &c, &msg), ERR_RANGE);
	if (strstr(msg.text, "x.yaml:1:27: inventory.maxFileBytes") == NULL ||
	    strstr(msg.text, "1Ki..64Mi") == NULL)
		fail_msg("%s", msg.text);
	config_cleanup(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_runs_on_the_final_config),
		cmocka_unit_test(file_rule_uses_addresses),
		cmocka_unit_test(inventory_max_file_bytes),
	};

	return cmocka_run_group_tests_name("config_rules", tests, NULL, NULL);
}
