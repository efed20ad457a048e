/* SPDX-License-Identifier: Apache-2.0 */
/* Logs cannot be forged: log_quote escapes quotes, backslashes and control
 * bytes and never cuts an escape in half; log_q's per-thread slots hold
 * their text for a whole line; a value logged raw with a newline in it
 * still makes exactly one line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extender/log.h"

static void quote_escapes(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(log_quote("a\"b\\c\nd\x7f", buf, sizeof buf), "\"a\\\"b\\\\c\\x0ad\\x7f\"");
	assert_string_equal(log_quote(NULL, buf, sizeof buf), "\"\"");
}

static void quote_cut_keeps_escapes_whole(void **state)
{
	char buf[8];

	(void)state;
	/* Room for 5 bytes between the quotes: "ab" then \x0a would need 4. */
	assert_string_equal(log_quote("abc\n", buf, sizeof buf), "\"abc\"");
	assert_string_equal(log_quote("ab\"\"", buf, sizeof buf), "\"ab\\\"\"");
	assert_string_equal(log_quote("abcdefghij", buf, sizeof buf), "\"abcde\"");
	/* No room for both quotes: nothing at all. */
	assert_string_equal(log_quote("a", buf, 2), "");
	assert_string_equal(log_quote("a", buf, 3), "\"\"");
}

/* UTF-8 names stay readable in logs; only control bytes are escaped. */
static void quote_keeps_utf8(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(log_quote("n\xc5\x93ud-\xe2\x82\xac\x1b", buf, sizeof buf),
			    "\"n\xc5\x93ud-\xe2\x82\xac\\x1b\"");
}

/* The one table of level names, in enum order, read by the configuration. */
static void level_names(void **state)
{
	(void)state;
	assert_string_equal(log_level_name(LOG_LEVEL_ERROR), "error");
	assert_string_equal(log_level_name(LOG_LEVEL_WARN), "warn");
	assert_string_equal(log_level_name(LOG_LEVEL_INFO), "info");
	assert_string_equal(log_level_name(LOG_LEVEL_DEBUG), "debug");
	assert_string_equal(log_level_name((enum log_level)42), "unknown");
	assert_string_equal(log_level_names[LOG_LEVEL_DEBUG], "debug");
	assert_null(log_level_names[LOG_LEVEL_COUNT]);
}

static void q_slots_last_a_line(void **state)
{
	const char *v[LOG_Q_SLOTS];
	char want[32];
	int i;

	(void)state;
	for (i = 0; i < LOG_Q_SLOTS; i++) {
		char in[16];

		snprintf(in, sizeof in, "v%d", i);
		v[i] = log_q(in);
	}
	for (i = 0; i < LOG_Q_SLOTS; i++) {
		snprintf(want, sizeof want, "\"v%d\"", i);
		assert_string_equal(v[i], want);
	}
}

/* Runs log_event with stderr on a temporary file and returns what it wrote. */
static char *captured(const char *name)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	char *out = calloc(1, 8192);

	assert_non_null(f);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	log_warn("forged?", "pod=%s raw=%s", log_q(name), name);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	assert_true(fread(out, 1, 8191, f) > 0);
	fclose(f);
	return out;
}

static void one_event_is_one_line(void **state)
{
	char *out;

	(void)state;
	out = captured("x\ntime=2026-01-01T00:00:00.000Z level=error msg=\"fake\"");
	/* Exactly one newline: the one that ends the event. */
	assert_non_null(strchr(out, '\n'));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	/* The quoted value escapes the newline and the quotes. */
	assert_non_null(strstr(out, "pod=\"x\\x0atime=2026-01-01T00:00:00.000Z level=error msg=\\\"fake\\\"\""));
	/* The raw value cannot start a line either. */
	assert_non_null(strstr(out, "raw=x\\x0atime="));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quote_escapes),
		cmocka_unit_test(quote_cut_keeps_escapes_whole),
		cmocka_unit_test(quote_keeps_utf8),
		cmocka_unit_test(level_names),
		cmocka_unit_test(q_slots_last_a_line),
		cmocka_unit_test(one_event_is_one_line),
	};

	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
