/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/report.h"

#include <stdarg.h>
#include <stdio.h>

void report_add(struct report *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	r->problems++;
	if (r->len + 2 >= sizeof r->text)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->text + r->len, sizeof r->text - r->len - 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->len += (size_t)n < sizeof r->text - r->len - 1 ? (size_t)n : sizeof r->text - r->len - 2;
	r->text[r->len++] = '\n';
	r->text[r->len] = '\0';
}
