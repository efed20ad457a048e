/* SPDX-License-Identifier: Apache-2.0 */
/* The compiled form of a device selector, shared by the parser
 * (cel_parse.c), the checker (cel_check.c) and the evaluator (cel_eval.c):
 * a tree of nodes in the program's arena. The parser expands CEL's macros
 * (has, all, exists, exists_one, cel.bind) into their own nodes, as cel-go
 * does; the checker resolves names to variable slots and functions, works
 * out the static types it can and parses constant arguments once. */
#ifndef DRA_CEL_AST_H
#define DRA_CEL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "dra/cel.h"
#include "dra/cel_value.h"

/* Deepest nesting of the tree (and of the parser's recursion) this
 * evaluator accepts: cel-go's parser stops at 250 as well. Anything deeper
 * is refused as unsupported, never evaluated, so neither the parser nor the
 * evaluator can run off the stack. */
#define CEL_MAX_DEPTH 250

enum cel_op {
	CEL_NULL,
	CEL_BOOL,
	CEL_INT,
	CEL_UINT,
	CEL_DOUBLE,
	CEL_STRING,
	CEL_LIST,       /* args: the elements */
	CEL_IDENT,      /* name; after check: slot (0 is `device`) */
	CEL_SELECT,     /* a.name */
	CEL_HAS,        /* has(a.name) */
	CEL_INDEX,      /* a[b] */
	CEL_NOT,        /* !a */
	CEL_NEG,        /* -a */
	CEL_MUL,
	CEL_DIV,
	CEL_MOD,
	CEL_ADD,
	CEL_SUB,
	CEL_EQ,
	CEL_NE,
	CEL_LT,
	CEL_LE,
	CEL_GT,
	CEL_GE,
	CEL_IN,
	CEL_AND,        /* args: the operands of a chain of && (any order decides) */
	CEL_OR,         /* args: the operands of a chain of || */
	CEL_COND,       /* a ? b : c */
	CEL_CALL,       /* name(args) or a.name(args); after check: fn */
	CEL_ALL,        /* a.all(slot, b) */
	CEL_EXISTS,     /* a.exists(slot, b) */
	CEL_EXISTS_ONE, /* a.exists_one(slot, b) */
	CEL_BIND,       /* cel.bind(slot, a, b) */
};

/* The functions of the subset, resolved by name, receiver and arity. */
enum cel_fn {
	CEL_FN_NONE,
	CEL_FN_SIZE,
	CEL_FN_INT,
	CEL_FN_UINT,
	CEL_FN_DOUBLE,
	CEL_FN_STRING,
	CEL_FN_DYN,
	CEL_FN_CONTAINS,
	CEL_FN_STARTS_WITH,
	CEL_FN_ENDS_WITH,
	CEL_FN_MATCHES,
	CEL_FN_LOWER_ASCII,
	CEL_FN_UPPER_ASCII,
	CEL_FN_QUANTITY,
	CEL_FN_IS_QUANTITY,
	CEL_FN_SEMVER,
	CEL_FN_IS_SEMVER,
	CEL_FN_COMPARE_TO,
	CEL_FN_IS_LESS_THAN,
	CEL_FN_IS_GREATER_THAN,
	CEL_FN_ADD,
	CEL_FN_SUB,
	CEL_FN_AS_INTEGER,
	CEL_FN_IS_INTEGER,
	CEL_FN_AS_APPROXIMATE_FLOAT,
	CEL_FN_SIGN,
	CEL_FN_MAJOR,
	CEL_FN_MINOR,
	CEL_FN_PATCH,
	CEL_FN_INCLUDES,
};

/* Static types, as far as the checker can tell; CEL_T_DYN otherwise. */
enum cel_type {
	CEL_T_DYN,
	CEL_T_NULL,
	CEL_T_BOOL,
	CEL_T_INT,
	CEL_T_UINT,
	CEL_T_DOUBLE,
	CEL_T_STRING,
	CEL_T_LIST,
	CEL_T_QUANTITY,
	CEL_T_SEMVER,
	CEL_T_DEVICE,
	CEL_T_ATTRS,       /* device.attributes */
	CEL_T_ATTR_DOMAIN, /* device.attributes[domain] */
	CEL_T_CAPS,        /* device.capacity */
	CEL_T_CAP_DOMAIN,  /* device.capacity[domain] */
};

struct cel_regex;

struct cel_node {
	enum cel_op op;
	enum cel_fn fn;
	enum cel_type type;
	uint32_t pos;            /* byte offset of the node's token in the expression */
	bool root;               /* IDENT written `.name`: the outermost scope */
	unsigned height;         /* 1 + the tallest operand's: bounded by CEL_MAX_DEPTH */
	int slot;                /* IDENT, ALL/EXISTS/EXISTS_ONE, BIND */
	const char *name;        /* IDENT, SELECT, HAS, CALL (not NUL-terminated) */
	size_t name_len;
	struct cel_node *a, *b, *c;
	struct cel_node **args;  /* LIST, AND, OR, CALL */
	size_t nargs;
	struct cel_val lit;       /* NULL .. STRING: the value (strings in the arena) */
	/* A constant argument parsed once by the checker: the pattern of
	 * matches() (a struct cel_regex), or the value of quantity("...") or
	 * semver("...") (a struct cel_val). NULL: evaluate at run time. */
	const struct cel_regex *re;
	const void *constant;
};

struct dra_cel_program {
	struct arena arena;        /* every node and literal */
	struct cel_node *root;
	size_t nslots;             /* variables: `device` and the macros' */
	struct cel_regex **regexes;
	size_t nregexes;
	const char *text;          /* the expression, in the arena */
	size_t len;
	/* What it reads of the device (dra/cel_reads.h); reads_fixed false:
	 * more than a fixed list of entries (a whole map, a computed key). */
	struct cel_read *reads;
	size_t nreads;
	bool reads_fixed;
};

/* Nodes and text in the program's arena. */
struct cel_node *cel_node_new(struct dra_cel_program *p, enum cel_op op, uint32_t pos);
struct cel_node **cel_args_new(struct dra_cel_program *p, size_t n);

/* Where compiling stands: the first problem recorded is the one told. */
struct cel_status {
	const struct dra_cel_program *p;
	struct errmsg *msg;
	enum dra_cel_compiled st; /* DRA_CEL_COMPILED until a problem */
};

/* Records a problem at byte offset pos of the expression, unless one was
 * recorded before, as "<line>:<column>: <what>" (both from 1, the column
 * in bytes); returns st. */
enum dra_cel_compiled cel_fail(struct cel_status *cs, enum dra_cel_compiled st, size_t pos,
			       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The parser: text to tree (macros expanded). msg says what and where. */
enum dra_cel_compiled cel_parse(struct dra_cel_program *p, struct errmsg *msg);
/* The checker: names, functions, static types, constants. */
enum dra_cel_compiled cel_check(struct dra_cel_program *p, struct errmsg *msg);

#endif
