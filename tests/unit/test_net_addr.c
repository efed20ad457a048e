/* SPDX-License-Identifier: Apache-2.0 */
/* Network addresses (extender/net_addr.c): "HOST:PORT" and "[V6]:PORT"
 * split with exact messages, and what counts as a loopback host. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "extender/net_addr.h"

static void split_accepts(void **state)
{
	static const struct {
		const char *text, *host;
		int port;
	} cases[] = {
		{ "127.0.0.1:8888", "127.0.0.1", 8888 },
		{ "localhost:0", "localhost", 0 },
		{ "example.com:65535", "example.com", 65535 },
		{ "0.0.0.0:00080", "0.0.0.0", 80 },
		{ "[::1]:8888", "::1", 8888 },
		{ "[::]:1", "::", 1 },
		{ "[fe80::1%eth0]:443", "fe80::1%eth0", 443 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };
		char *host = NULL;
		int port = -1;

		if (net_split_hostport(cases[i].text, &host, &port, &msg) != ERR_OK)
			fail_msg("%s: %s", cases[i].text, msg.text);
		assert_string_equal(host, cases[i].host);
		assert_int_equal(port, cases[i].port);
		free(host);
	}
}

static void split_rejects(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "localhost", "\"localhost\": expected HOST:PORT" },
		{ "", "\"\": expected HOST:PORT" },
		{ "host:", "\"host:\": expected HOST:PORT" },
		{ ":8888", "\":8888\": the host is empty" },
		{ "[]:80", "\"[]:80\": the host is empty" },
		{ "host:65536", "\"host:65536\": the port is out of range (0..65535)" },
		{ "host:99999999999999999999", "\"host:99999999999999999999\": the port is out of range (0..65535)" },
		{ "host:8a", "\"host:8a\": the port must be a number" },
		{ "host:-1", "\"host:-1\": the port must be a number" },
		{ "host:+1", "\"host:+1\": the port must be a number" },
		{ "::1:80", "\"::1:80\": an IPv6 address needs brackets ([V6]:PORT)" },
		{ "[::1]8888", "\"[::1]8888\": expected [V6]:PORT" },
		{ "[::1:8888", "\"[::1:8888\": expected [V6]:PORT" },
		{ "[[::1]:80", "\"[[::1]:80\": invalid character in the host" },
		{ "a b:80", "\"a b:80\": invalid character in the host" },
		{ "a/b:80", "\"a/b:80\": invalid character in the host" },
		{ "a]:80", "\"a]:80\": invalid character in the host" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct errmsg msg = { { 0 } };
		char *host = (char *)&msg; /* must come back NULL */
		int port = -1;

		assert_int_equal(net_split_hostport(cases[i].text, &host, &port, &msg),
				 ERR_INVALID);
		assert_string_equal(msg.text, cases[i].msg);
		assert_null(host);
	}
	/* msg is optional. */
	{
		char *host = NULL;
		int port = 0;

		assert_int_equal(net_split_hostport("x", &host, &port, NULL), ERR_INVALID);
	}
}

static void loopback_is_an_address_not_a_prefix(void **state)
{
	static const struct {
		const char *host;
		bool loopback;
	} cases[] = {
		{ "127.0.0.1", true },
		{ "127.0.0.2", true },
		{ "127.255.255.254", true },
		{ "::1", true },
		{ "::ffff:127.0.0.1", true },
		{ "localhost", true },           /* every address of it is loopback here */
		{ "127.evil.example", false },
		{ "127.0.0.1.nip.io", false },
		{ "127.1", false },              /* not what inet_pton calls an address */
		{ "0.0.0.0", false },
		{ "::", false },
		{ "128.0.0.1", false },
		{ "10.0.0.1", false },
		{ "::2", false },
		{ "::ffff:10.0.0.1", false },
		{ "localhost.example", false },
		{ "", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (net_host_is_loopback(cases[i].host) != cases[i].loopback)
			fail_msg("%s: want %s", cases[i].host, cases[i].loopback ? "loopback" : "not loopback");
	assert_false(net_host_is_loopback(NULL));
}

/* A listener's text: loopback only when it splits and its host is. */
static void hostport_loopback(void **state)
{
	(void)state;
	assert_true(net_hostport_is_loopback("127.0.0.1:8888"));
	assert_true(net_hostport_is_loopback("[::1]:0"));
	assert_false(net_hostport_is_loopback("0.0.0.0:8888"));
	assert_false(net_hostport_is_loopback("127.0.0.1"));      /* no port: does not split */
	assert_false(net_hostport_is_loopback("::1:8888"));       /* needs brackets */
	assert_false(net_hostport_is_loopback(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_accepts),
		cmocka_unit_test(split_rejects),
		cmocka_unit_test(loopback_is_an_address_not_a_prefix),
		cmocka_unit_test(hostport_loopback),
	};

	return cmocka_run_group_tests_name("net_addr", tests, NULL, NULL);
}
