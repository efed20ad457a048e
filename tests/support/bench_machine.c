/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/bench_machine.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The flags stamp the Makefile writes next to the build outputs
 * (<build>/.flags, the binary being <build>/bench/<name>). */
static void read_flags(const char *argv0, char *out, size_t size)
{
	char path[1024];
	char *slash;
	FILE *f;

	snprintf(out, size, "unknown");
	if (argv0 == NULL || strlen(argv0) + 8 >= sizeof path)
		return;
	snprintf(path, sizeof path, "%s", argv0);
	slash = strrchr(path, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	slash = strrchr(path, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		snprintf(path, sizeof path, ".");
	strcat(path, "/.flags");
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(out, (int)size, f) == NULL)
		snprintf(out, size, "unknown");
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

void bench_print_machine(const char *argv0)
{
	struct utsname u;
	char model[160] = "unknown", line[512], flags[768];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f != NULL) {
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) != 0 || colon == NULL)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, sizeof model, "%s", colon);
			break;
		}
		fclose(f);
	}
	if (uname(&u) != 0)
		snprintf(u.machine, sizeof u.machine, "unknown");
	read_flags(argv0, flags, sizeof flags);
	printf("machine: %s, %s, nproc %ld; compiler: %s %s; flags: %s\n", u.machine, model,
	       sysconf(_SC_NPROCESSORS_ONLN),
#ifdef __clang__
	       "clang",
#else
	       "gcc",
#endif
	       __VERSION__, flags);
}
