/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/cmd/usage.h"

#include <stdarg.h>
#include <stdio.h>

int usage_help(const char *usage)
{
	fputs(usage, stdout);
	return 0;
}

int usage_error(const char *who, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
	return 2;
}
