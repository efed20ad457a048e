/* SPDX-License-Identifier: Apache-2.0 */
/* numa-extender: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "extender/cmd/explain.h"
#include "extender/cmd/replay.h"
#include "extender/cmd/serve.h"
#include "extender/cmd/simulate.h"
#include "extender/cmd/usage.h"

#define NUMA_EXTENDER_VERSION "0.1.0"
#define WHO "numa-extender"

static const char usage_text[] =
	"usage: numa-extender COMMAND [ARGS]\n"
	"commands:\n"
	"  serve     run the scheduler extender over HTTP: filter, prioritize, preempt and\n"
	"            (with bind.enabled) bind; /healthz, /readyz, /metrics and (with the\n"
	"            assumed-pod ledger) /ledger\n"
	"  explain   judge a pod on NodeResourceTopology inventories, as the kubelet would\n"
	"  replay    re-decide a decision log, optionally with another configuration\n"
	"  simulate  place a list of pods on inventories, as scheduler and extender would\n"
	"  version   print the version (also --version)\n"
	"  help      this help (also --help, -h)\n"
	"Run 'numa-extender COMMAND --help' for a command's arguments.\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(WHO, usage_text, "a command is required");
	if (strcmp(argv[1], "serve") == 0)
		return serve_main(argc - 2, argv + 2);
	if (strcmp(argv[1], "simulate") == 0)
		return simulate_main(argc - 2, argv + 2);
	if (strcmp(argv[1], "replay") == 0)
		return replay_main(argc - 2, argv + 2);
	if (strcmp(argv[1], "explain") == 0)
		return explain_main(argc - 2, argv + 2);
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("numa-extender %s\n", NUMA_EXTENDER_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)
		return usage_help(usage_text);
	return usage_error(WHO, usage_text, "unknown command \"%s\"", argv[1]);
}
