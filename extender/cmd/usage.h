/* SPDX-License-Identifier: Apache-2.0 */
/* The command line's two answers, the same for every command: --help prints
 * the usage on stdout and exits 0; a bad command line names what is wrong
 * ("--pod is required", "unknown argument \"-x\"") on stderr, then the
 * usage, and exits 2. */
#ifndef EXTENDER_CMD_USAGE_H
#define EXTENDER_CMD_USAGE_H

/* Prints usage to stdout; returns 0. */
int usage_help(const char *usage);

/* Prints "WHO: <what>\n" and usage to stderr; returns 2. */
int usage_error(const char *who, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
