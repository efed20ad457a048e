/* SPDX-License-Identifier: Apache-2.0 */
/* The subset of CEL that DRA device selectors use, with Kubernetes'
 * semantics (k8s.io/dynamic-resource-allocation/cel): one variable,
 * `device` (driver, attributes[domain][id], capacity[domain][id],
 * allowMultipleAllocations). An expression outside the subset compiles to
 * DRA_CEL_UNSUPPORTED: the caller then cannot predict the allocator on that
 * node, and never guesses. */
#ifndef DRA_CEL_H
#define DRA_CEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "dra/types.h"

/* Longest expression the API server accepts (CELSelectorExpressionMaxLength). */
#define DRA_CEL_MAX_LENGTH 10240
/* The scheduler's limit on one evaluation's work (CELSelectorExpressionMaxCost). */
#define DRA_CEL_MAX_COST 1000000

enum dra_cel_compiled {
	DRA_CEL_COMPILED,     /* *out holds the program */
	DRA_CEL_UNSUPPORTED,  /* valid CEL, perhaps, but outside the subset (msg says what) */
	DRA_CEL_INVALID,      /* not CEL, or a type error the API server would refuse (msg says where) */
};

struct dra_cel_program;

enum dra_cel_compiled dra_cel_compile(const char *expr, size_t len, struct dra_cel_program **out,
				      struct errmsg *msg);
void dra_cel_free(struct dra_cel_program *p);

enum dra_cel_value {
	DRA_CEL_FALSE,
	DRA_CEL_TRUE,
	/* A runtime error ("no such key: model", a non-bool result, a cost
	 * limit): the scheduler's allocator then fails the pod's whole
	 * scheduling attempt, on every node. */
	DRA_CEL_ERROR,
	/* What this evaluator cannot work out the way the scheduler does (the
	 * message starts DRA_CEL_UNKNOWN_PREFIX): a quantity beyond 19
	 * significant digits, matches() of non-ASCII text with a pattern that
	 * could match a non-ASCII character, ... The scheduler may answer
	 * true, false or an error: the allocator cannot be predicted, and the
	 * pod is not failed on a guess. */
	DRA_CEL_UNKNOWN,
};

#define DRA_CEL_UNKNOWN_PREFIX "cannot evaluate like the scheduler"

/* The program on one device of a slice published by driver. err gets the
 * runtime error's text (may be NULL). A program is read-only here: several
 * threads may evaluate the same one at once. */
enum dra_cel_value dra_cel_eval(const struct dra_cel_program *p, const struct dra_device *d,
				const char *driver, char *err, size_t err_size);

/* A key of what p's answer on device d (of driver) depends on, when p reads
 * a fixed list of the device's entries (device.driver, attributes and
 * capacities by constant names): devices with equal keys get the same
 * true or false from dra_cel_eval (a 64-bit hash: equal keys of different
 * inputs are as rare as its collisions). false: p reads more than that (a
 * whole map, a computed name), no key. Seeded per process. */
bool dra_cel_device_key(const struct dra_cel_program *p, const struct dra_device *d,
			const char *driver, uint64_t *key);

/* Keeps in d what dra_cel_device_key reads (its entries' hashes, whether
 * its versions parse, the hash of driver, its slice's driver), so that
 * keys need not read d's strings: the DRA store does it for every device
 * it stores. d must not change after; the key is the same either way. */
void dra_cel_device_prepare(struct dra_device *d, const char *driver);

#endif
