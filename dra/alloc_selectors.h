/* SPDX-License-Identifier: Apache-2.0 */
/* Device selectors for the allocator's prediction: the CEL evaluator
 * behind a table of functions (the integration passes dra_cel_ops, the
 * tests a small evaluator of their own), and each expression compiled once
 * however many devices, requests and nodes it is evaluated for. */
#ifndef DRA_ALLOC_SELECTORS_H
#define DRA_ALLOC_SELECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "dra/cel.h"
#include "dra/types.h"

/* The signatures of dra_cel_compile, dra_cel_eval and dra_cel_free. */
struct dra_selector_ops {
	enum dra_cel_compiled (*compile)(const char *expr, size_t len, struct dra_cel_program **out,
					 struct errmsg *msg);
	enum dra_cel_value (*eval)(const struct dra_cel_program *p, const struct dra_device *d,
				   const char *driver, char *err, size_t err_size);
	void (*free)(struct dra_cel_program *p);
	/* dra_cel_device_key's signature, or NULL: every device evaluated. */
	bool (*key)(const struct dra_cel_program *p, const struct dra_device *d, const char *driver,
		    uint64_t *key);
};

/* The real evaluator (dra/cel_ops.c: { dra_cel_compile, dra_cel_eval,
 * dra_cel_free }). */
extern const struct dra_selector_ops dra_cel_ops;

struct dra_selector {
	char *expr;
	enum dra_cel_compiled status;
	struct dra_cel_program *prog; /* COMPILED */
	struct errmsg msg;            /* UNSUPPORTED, INVALID: why */
};

/* Compiled expressions, by their text. Filling it (dra_selectors_get of a
 * new expression, dra_selectors_prepare) writes; once every expression a
 * pod uses is in (dra_selectors_prepare), lookups only read and the set may
 * serve several threads. */
struct dra_selectors {
	const struct dra_selector_ops *ops;
	struct dra_selector *v;
	size_t n, cap;
	/* The answers already worked out, by device key (ops->key): shared by
	 * the threads that judge nodes with the set. NULL without ops->key. */
	uint64_t _Atomic *memo;
};

void dra_selectors_init(struct dra_selectors *s, const struct dra_selector_ops *ops);
void dra_selectors_free(struct dra_selectors *s);

/* s's answer on device d of driver: DRA_CEL_TRUE or FALSE from the memo
 * when a device with the same key was evaluated before, else evaluated
 * (err as ops->eval's). Thread-safe once the set is prepared. */
enum dra_cel_value dra_selectors_eval(const struct dra_selectors *set, const struct dra_selector *s,
				      const struct dra_device *d, const char *driver, char *err,
				      size_t err_size);

/* The compiled expr, compiling it on first sight. */
const struct dra_selector *dra_selectors_get(struct dra_selectors *s, const char *expr);

/* Compiles every selector of the claims' requests (each alternative) and of
 * the classes they name. */
void dra_selectors_prepare(struct dra_selectors *s, const struct dra_claim *const *claims,
			   size_t nclaims, const struct dra_class *classes, size_t nclasses);

/* The class named name, or NULL. */
const struct dra_class *dra_class_find(const struct dra_class *classes, size_t n,
				       const char *name);

#endif
