/* SPDX-License-Identifier: Apache-2.0 */
/* Run-time values of the selector language and what every operator needs
 * of them: CEL's heterogeneous equality, its ordering (ints, uints and
 * doubles compared across types), the maps of a device (the two outer ones
 * answer every missing domain with an empty map, as
 * k8s.io/dynamic-resource-allocation/cel/compile.go's mapper does) and the
 * evaluation context with its cost counter.
 *
 * An error is a value too (CEL_V_ERROR with its message), so that && and
 * || can absorb one the other side decides. Running past the cost limit is
 * not: it stops the whole evaluation, as cel-go's cost limit does. */
#ifndef DRA_CEL_VALUE_H
#define DRA_CEL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "dra/cel.h"
#include "dra/cel_quantity.h"
#include "dra/cel_semver.h"
#include "dra/types.h"

enum cel_kind {
	CEL_V_ERROR,
	CEL_V_NULL,
	CEL_V_BOOL,
	CEL_V_INT,
	CEL_V_UINT,
	CEL_V_DOUBLE,
	CEL_V_STRING,
	CEL_V_LIST,
	CEL_V_MAP,
	CEL_V_QUANTITY,
	CEL_V_SEMVER,
	CEL_V_DEVICE,
};

enum cel_map_kind {
	CEL_MAP_ATTRS,       /* device.attributes: domain -> CEL_MAP_ATTR_DOMAIN */
	CEL_MAP_CAPS,        /* device.capacity: domain -> CEL_MAP_CAP_DOMAIN */
	CEL_MAP_ATTR_DOMAIN, /* id -> the attribute's value */
	CEL_MAP_CAP_DOMAIN,  /* id -> the capacity, a quantity */
	CEL_MAP_EMPTY,       /* a domain the device does not have */
};

struct cel_val;

struct cel_list {
	size_t n;
	const struct cel_val *items;
};

struct cel_val {
	enum cel_kind kind;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		struct {
			const char *p; /* NUL-terminated at len (may hold NULs before) */
			size_t len;
		} s;                   /* STRING; ERROR: the message */
		const struct cel_list *list;
		struct {
			enum cel_map_kind kind;
			const char *domain; /* the DOMAIN maps */
		} map;
		struct cel_qty q;
		const struct cel_semver *sv;
	} v;
};

/* The limit on evaluation work (CELSelectorExpressionMaxCost). Our units
 * follow cel-go's actual cost roughly (one per operation, a tenth per byte
 * a string function walks, one per element a list operation touches), not
 * exactly: an expression near the limit may stop a little earlier or
 * later than the scheduler's. */
#define CEL_COST_LIMIT ((uint64_t)DRA_CEL_MAX_COST)

/* Attributes or capacities of one device at most: the API server allows
 * 32 of both together; a device with more cannot come from it. */
#define CEL_MAX_DEVICE_ENTRIES 128

struct cel_ctx {
	const struct dra_device *dev;
	const char *driver;
	struct arena arena;       /* strings, lists and messages of this evaluation */
	struct cel_val *slots;    /* the variables, by slot (0: device) */
	uint64_t cost;
	bool aborted;             /* the cost limit was passed */
	/* The index of the first entry of each distinct domain, of the
	 * attributes [0] and the capacities [1]: worked out at first use. */
	uint8_t *firsts[2];
	size_t nfirsts[2];
	bool firsts_ready[2];
};

/* --- construction --- */

struct cel_val cel_bool(bool b);
struct cel_val cel_int(int64_t i);
struct cel_val cel_string(const char *p, size_t len);
/* An error value with a formatted message (cut at 240 bytes). */
struct cel_val cel_error(struct cel_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "no such key: <key>", the key quoted unless it is short plain text. */
struct cel_val cel_error_key(struct cel_ctx *c, const struct cel_val *key);
/* The error of a value this evaluator cannot work out, though the
 * scheduler could: the caller must not predict either way. */
struct cel_val cel_unknown(struct cel_ctx *c, const char *what);
struct cel_val cel_no_overload(struct cel_ctx *c, const char *op, const struct cel_val *a,
			       const struct cel_val *b);
/* Arena memory for len bytes and a NUL. */
char *cel_text(struct cel_ctx *c, size_t len);

/* Adds units of work; false (and the context aborted) past the limit. */
bool cel_charge(struct cel_ctx *c, uint64_t units);
/* Units for walking n bytes of string: a tenth each, rounded up. */
uint64_t cel_string_units(size_t n);

/* "int", "string", "kubernetes.Quantity"... */
const char *cel_kind_name(enum cel_kind k);

/* --- equality and order --- */

/* a == b, CEL's way: values of different types are unequal, numbers
 * compare across int, uint and double; a Quantity or Semver compared with
 * anything else is a "no such overload" error. */
struct cel_val cel_equal(struct cel_ctx *c, const struct cel_val *a, const struct cel_val *b);
/* a < b and friends: *cmp gets -1, 0 or 1, or an error comes back. */
bool cel_compare(struct cel_ctx *c, const struct cel_val *a, const struct cel_val *b, int *cmp,
		 struct cel_val *err);

/* --- the device's maps --- */

/* The number of entries, and the key at i (a string). */
size_t cel_map_size(struct cel_ctx *c, const struct cel_val *m);
struct cel_val cel_map_key(struct cel_ctx *c, const struct cel_val *m, size_t i);
/* m[key]: true and *out when found (the outer maps find every domain);
 * false when not. */
bool cel_map_find(struct cel_ctx *c, const struct cel_val *m, const struct cel_val *key,
		  struct cel_val *out);
/* key in m: presence, without the outer maps' default. */
bool cel_map_has(const struct cel_ctx *c, const struct cel_val *m, const struct cel_val *key);
/* device.<name> ("driver", "attributes", ...); false for another name. */
bool cel_device_field(const struct cel_ctx *c, const char *name, size_t len, struct cel_val *out);

/* The value of one attribute: int, bool, string, a Semver, or a list of
 * those. */
struct cel_val cel_attribute_value(struct cel_ctx *c, const struct dra_attribute *a);

#endif
