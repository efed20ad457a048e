/* SPDX-License-Identifier: Apache-2.0 */
/* Devices for the tests of the selector language (dra/cel.h), built
 * attribute by attribute as a ResourceSlice would publish them, and the
 * one question those tests ask: does this expression give that answer on
 * that device? */
#ifndef TESTS_CEL_DEVICE_H
#define TESTS_CEL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "dra/cel.h"
#include "dra/types.h"

/* An empty device named name (free it with dra_device_cleanup). */
void cel_dev_init(struct dra_device *d, const char *name);
void cel_dev_int(struct dra_device *d, const char *domain, const char *name, int64_t v);
void cel_dev_bool(struct dra_device *d, const char *domain, const char *name, bool v);
void cel_dev_string(struct dra_device *d, const char *domain, const char *name, const char *v);
void cel_dev_version(struct dra_device *d, const char *domain, const char *name, const char *v);
void cel_dev_ints(struct dra_device *d, const char *domain, const char *name, const int64_t *v,
		  size_t n);
void cel_dev_strings(struct dra_device *d, const char *domain, const char *name,
		     const char *const *v, size_t n);
void cel_dev_versions(struct dra_device *d, const char *domain, const char *name,
		      const char *const *v, size_t n);
/* quantity: Kubernetes text ("40Gi"); aborts if it does not parse. */
void cel_dev_capacity(struct dra_device *d, const char *domain, const char *name,
		      const char *quantity);

/* Compiles expr and evaluates it on d of driver: NULL when the program
 * compiles and the result is want (and, for DRA_CEL_ERROR, the message
 * holds err_part when that is not NULL); otherwise what happened instead
 * (a static buffer). */
const char *cel_dev_mismatch(const char *expr, const struct dra_device *d, const char *driver,
			     enum dra_cel_value want, const char *err_part);
/* NULL when compiling expr gives want with a message holding msg_part. */
const char *cel_compile_mismatch(const char *expr, enum dra_cel_compiled want,
				 const char *msg_part);

#endif
