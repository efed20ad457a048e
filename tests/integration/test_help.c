/* SPDX-License-Identifier: Apache-2.0 */
/* The command line of every command, run as a process ($BIN):
 *  - `--help` (and `-h`, and `numa-extender help`) prints the usage on
 *    stdout, nothing on stderr, and exits 0;
 *  - every flag a command takes has a line of its own in that usage, and
 *    every flag such a line names is one the command takes (checked by
 *    giving it, with a value, before an unknown argument: the error must
 *    name the unknown argument, not the flag);
 *  - a missing argument or value is named on stderr ("--pod is required")
 *    before the usage, with exit 2 and nothing on stdout. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/spawn.h"

#define MAX_ARGV 8
#define DEADLINE_S 20
#define UNKNOWN "--no-such-flag-for-the-test"

/* "CMD ARGS..." split on spaces (the tests' arguments hold none). */
static int run(const char *line, char **out, char **err)
{
	const char *argv[MAX_ARGV + 2];
	char *copy = strdup(line), *tok, *save = NULL;
	size_t n = 0;
	int status;

	assert_non_null(copy);
	argv[n++] = spawn_serve_bin();
	for (tok = strtok_r(copy, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		assert_true(n < MAX_ARGV);
		argv[n++] = tok;
	}
	argv[n] = NULL;
	status = spawn_run(argv, DEADLINE_S, out, err);
	free(copy);
	return status;
}

struct command {
	const char *name;      /* "" for the top level */
	const char *const *flags; /* every flag it takes, NULL-terminated */
};

static const char *const top_flags[] = { "--help", "-h", "--version", NULL };
static const char *const serve_flags[] = {
	"--config", "--listen", "--nrt-dir", "--kubeconfig", "-h", "--help", NULL,
};
static const char *const explain_flags[] = {
	"--pod", "--nrt", "--dra", "--config", "-o", "--output", "-h", "--help", NULL,
};
static const char *const simulate_flags[] = {
	"--nrt", "--pods", "--nodes", "--running", "--scheduler-config", "--version",
	"--config", "-o", "--html", "--dra", "-h", "--help", NULL,
};
static const char *const replay_flags[] = {
	"--log", "--config", "--scheduler-config", "--version", "-o", "-h", "--help", NULL,
};

static const struct command commands[] = {
	{ "", top_flags },
	{ "serve", serve_flags },
	{ "explain", explain_flags },
	{ "simulate", simulate_flags },
	{ "replay", replay_flags },
};

static bool listed(const char *const *flags, const char *flag)
{
	for (; *flags != NULL; flags++)
		if (strcmp(*flags, flag) == 0)
			return true;
	return false;
}

/* The flags a usage line names: a line "  -o, --output text|json  ..." or
 * "  --pod FILE  ..." names -o and --output, or --pod. */
static size_t flags_of_line(const char *line, size_t len, char names[2][64])
{
	size_t i = 2, n = 0;

	if (len < 4 || strncmp(line, "  -", 3) != 0)
		return 0;
	while (n < 2 && i < len && line[i] == '-') {
		size_t start = i;

		while (i < len && line[i] != ' ' && line[i] != ',')
			i++;
		snprintf(names[n++], 64, "%.*s", (int)(i - start), line + start);
		if (i + 1 < len && line[i] == ',' && line[i + 1] == ' ')
			i += 2;
		else
			break;
	}
	return n;
}

static void help_output(const char *args)
{
	char *out, *err;

	if (run(args, &out, &err) != 0)
		fail_msg("\"%s\" did not exit 0; stderr: %s", args, err);
	if (err[0] != '\0')
		fail_msg("\"%s\" wrote to stderr: %s", args, err);
	if (strncmp(out, "usage: numa-extender", 20) != 0)
		fail_msg("\"%s\" printed no usage on stdout: %s", args, out);
	free(out);
	free(err);
}

static void help_goes_to_stdout_and_exits_0(void **state)
{
	static const char *const forms[] = {
		"--help", "-h", "help", "serve --help", "serve -h", "explain --help", "explain -h",
		"simulate --help", "simulate -h", "replay --help", "replay -h",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof forms / sizeof forms[0]; i++)
		help_output(forms[i]);
}

/* The value a flag is given when it is tried: one each kind accepts
 * without reading a file (a file flag only records its path while the
 * command line is read). */
static const char *value_for(const char *flag)
{
	if (strcmp(flag, "-o") == 0 || strcmp(flag, "--output") == 0)
		return "text";
	if (strcmp(flag, "--version") == 0)
		return "v1.35";
	if (strcmp(flag, "--listen") == 0)
		return "127.0.0.1:0";
	return "some-file";
}

static void every_flag_has_a_line_and_every_line_a_flag(void **state)
{
	size_t c;

	(void)state;
	for (c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		const struct command *cmd = &commands[c];
		char args[128], *out, *err, *line, *end;
		size_t f, seen = 0;

		snprintf(args, sizeof args, "%s%s--help", cmd->name, cmd->name[0] ? " " : "");
		assert_int_equal(run(args, &out, &err), 0);
		/* Each flag the command takes starts a line: "  FLAG" then
		 * a space, a comma or the end of the line. */
		for (f = 0; cmd->name[0] && cmd->flags[f] != NULL; f++) {
			bool found = false;

			for (line = out; line && *line && !found; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
				char names[2][64];
				size_t k, n;

				end = strchr(line, '\n');
				n = flags_of_line(line, end ? (size_t)(end - line) : strlen(line), names);
				for (k = 0; k < n; k++)
					found |= strcmp(names[k], cmd->flags[f]) == 0;
			}
			if (!found)
				fail_msg("%s --help has no line for %s:\n%s", cmd->name, cmd->flags[f], out);
		}
		/* Each flag a line names is one the command takes. */
		for (line = out; line && *line; line = end ? end + 1 : NULL) {
			char names[2][64], tried[256], *o2, *e2;
			size_t k, n;

			end = strchr(line, '\n');
			n = flags_of_line(line, end ? (size_t)(end - line) : strlen(line), names);
			for (k = 0; k < n; k++) {
				seen++;
				if (!listed(cmd->flags, names[k]))
					fail_msg("%s --help names %s, which the test does not know", cmd->name, names[k]);
				if (strcmp(names[k], "-h") == 0 || strcmp(names[k], "--help") == 0)
					continue;
				snprintf(tried, sizeof tried, "%s %s %s " UNKNOWN, cmd->name, names[k], value_for(names[k]));
				assert_int_equal(run(tried, &o2, &e2), 2);
				if (strstr(e2, "\"" UNKNOWN "\"") == NULL)
					fail_msg("\"%s\": the error does not name the unknown argument:\n%s", tried, e2);
				free(o2);
				free(e2);
			}
		}
		if (cmd->name[0] && seen == 0)
			fail_msg("%s --help names no flag:\n%s", cmd->name, out);
		/* The top level lists every command on a line of its own. */
		for (f = 1; !cmd->name[0] && f < sizeof commands / sizeof commands[0]; f++) {
			char want[64];

			snprintf(want, sizeof want, "\n  %s ", commands[f].name);
			if (strstr(out, want) == NULL)
				fail_msg("numa-extender --help does not list %s:\n%s", commands[f].name, out);
		}
		free(out);
		free(err);
	}
}

struct missing {
	const char *args;
	const char *first_line; /* stderr's first line, exactly */
};

static void missing_arguments_are_named(void **state)
{
	static const struct missing cases[] = {
		{ "", "numa-extender: a command is required" },
		{ "frobnicate", "numa-extender: unknown command \"frobnicate\"" },
		{ "explain", "numa-extender explain: --pod is required" },
		{ "explain --nrt config/examples", "numa-extender explain: --pod is required" },
		{ "explain --pod config/pods/gpu-2.yaml", "numa-extender explain: --nrt is required" },
		{ "explain --pod", "numa-extender explain: --pod needs a value" },
		{ "explain -o", "numa-extender explain: -o needs a value" },
		{ "explain --frobnicate", "numa-extender explain: unknown argument \"--frobnicate\"" },
		{ "simulate", "numa-extender simulate: --nrt is required" },
		{ "simulate --nrt config/examples", "numa-extender simulate: --pods is required" },
		{ "replay", "numa-extender replay: --log is required" },
		{ "serve --config", "numa-extender serve: --config needs a value" },
		{ "serve --frobnicate", "numa-extender serve: unknown argument \"--frobnicate\"" },
		{ "serve --nrt-dir a --kubeconfig b",
		  "numa-extender serve: --nrt-dir and --kubeconfig are two inventory sources; give one" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err, *nl;
		int status = run(cases[i].args, &out, &err);

		if (status != 2)
			fail_msg("\"%s\": exit %d, not 2", cases[i].args, status);
		if (out[0] != '\0')
			fail_msg("\"%s\" wrote to stdout: %s", cases[i].args, out);
		nl = strchr(err, '\n');
		assert_non_null(nl);
		*nl = '\0';
		assert_string_equal(err, cases[i].first_line);
		/* Then the usage, so the right form is at hand. */
		assert_non_null(strstr(nl + 1, "usage: numa-extender"));
		free(out);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_goes_to_stdout_and_exits_0),
		cmocka_unit_test(every_flag_has_a_line_and_every_line_a_flag),
		cmocka_unit_test(missing_arguments_are_named),
	};

	return cmocka_run_group_tests_name("help", tests, NULL, NULL);
}
