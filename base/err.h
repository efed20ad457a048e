/* SPDX-License-Identifier: Apache-2.0 */
/* The project-wide error enum and message buffer, used by both layers.
 * A node that does not fit is a verdict, never an error: errors are things an
 * operator must fix (bad input, I/O, limits). */
#ifndef BASE_ERR_H
#define BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum err {
	ERR_OK = 0,
	ERR_INVALID,   /* well-formed but semantically wrong input */
	ERR_PARSE,     /* not well-formed (JSON, YAML, quantity syntax) */
	ERR_RANGE,     /* a number does not fit */
	ERR_TOO_LARGE, /* a size limit was hit */
	ERR_IO,
	ERR_NOT_FOUND,
	ERR_HTTP,
	ERR_TIMEOUT,
};

/* Human detail for an error: "w1.yaml: zones[1].name: ...". Always NUL-terminated. */
struct errmsg {
	char text[512];
};

/* Overwrites msg (if not NULL) with the formatted text. */
void errmsg_set(struct errmsg *msg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prefixes the current text with the formatted text ("prefix" + current). */
void errmsg_prefix(struct errmsg *msg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

const char *err_name(enum err e);

#endif
