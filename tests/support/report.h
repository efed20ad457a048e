/* SPDX-License-Identifier: Apache-2.0 */
/* A checker's findings, one line each, so that a test that walks many files
 * names every problem at once rather than the first: the checks of the docs
 * (test_docs, test_layout) collect here, then fail with the whole text. */
#ifndef TESTS_REPORT_H
#define TESTS_REPORT_H

#include <stddef.h>

#define REPORT_CAP 16384

struct report {
	char text[REPORT_CAP]; /* the lines so far, NUL-terminated; cut at the cap */
	size_t len;
	size_t problems;       /* counted even past the cap */
};

/* Adds one line (no newline in fmt). */
void report_add(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
