/* SPDX-License-Identifier: Apache-2.0 */
/* What the resource.k8s.io/v1 decoders (dra_slice_decode.c,
 * dra_claim_decode.c, dra_objects.c) share: the API server's limits, its
 * name rules, qualified attribute names, metadata, CEL selector lists and
 * node selectors. Each reader works like sched_fields.h's: it reads
 * obj.key, pushes key onto the path for its messages and fails with
 * "origin: path: problem". */
#ifndef EXTENDER_DRA_FIELDS_H
#define EXTENDER_DRA_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/decode_walk.h"
#include "scheduler/pod_view.h"

/* The API server's limits (k8s.io/api/resource/v1 types.go): objects past
 * them were never stored, so an input that has them is refused here, before
 * it costs anything. */
#define DRA_MAX_DEVICES 128          /* devices of one slice */
#define DRA_MAX_DEVICES_TAINTED 64   /* ... when a device has taints or consumes counters */
#define DRA_MAX_ATTRIBUTES 32        /* attributes and capacities of one device */
#define DRA_MAX_LIST_VALUES 48       /* values of one device's list attributes */
#define DRA_MAX_VALUE_LENGTH 64      /* a string or version attribute */
#define DRA_MAX_TAINTS 16            /* taints of one device */
#define DRA_MAX_REQUESTS 32          /* requests of one claim */
#define DRA_MAX_SUBREQUESTS 8        /* firstAvailable alternatives of one request */
#define DRA_MAX_SELECTORS 32         /* selectors of one request or class */
#define DRA_MAX_CONSTRAINTS 32       /* constraints of one claim */
#define DRA_MAX_RESULTS 32           /* allocated devices of one claim */
#define DRA_MAX_DOMAIN 63            /* the domain of a qualified name */
#define DRA_MAX_ID 32                /* the C identifier of a qualified name */
#define DRA_MAX_DRIVER 63            /* a driver name */
#define DRA_MAX_POOL 253             /* a pool name */

/* The name rules of the fields. */
enum dra_name_rule {
	DRA_NAME_LABEL,      /* DNS-1123 label: devices, requests, pod claims */
	DRA_NAME_SUBDOMAIN,  /* DNS-1123 subdomain: objects, classes, nodes */
	DRA_NAME_DRIVER,     /* a subdomain of at most 63 characters, any case */
	DRA_NAME_POOL,       /* subdomains separated by '/', 253 characters in all */
};

/* Checks value against rule; on failure the message names the value, the
 * rule and why, at key (NULL: at the current path). */
enum err dra_check_name(struct decode_ctx *c, const char *key, const char *value,
			enum dra_name_rule rule);
/* decode_string of obj.key, then dra_check_name when present. */
enum err dra_read_name(struct decode_ctx *c, const struct doc *obj, const char *key,
		       unsigned how, enum dra_name_rule rule, char **out);

/* Splits a qualified name ("gpu.nvidia.com/model", "model") at its first
 * '/' into copies of its domain and identifier, checked as the API server
 * checks them. An unqualified name belongs to driver's domain; with driver
 * NULL it is refused ("must be fully qualified"). The caller has pushed the
 * name's place onto the path. */
enum err dra_qualified_name(struct decode_ctx *c, const char *text, const char *driver,
			    char **domain, char **id);

/* Flags of dra_one_of. */
enum {
	DRA_ONE_REQUIRED = 0x1, /* none set is "exactly one of A, B or C is required" */
	DRA_ONE_VALUES = 0x2,   /* false and [] are values too (attribute values) */
};

/* Which of the members keys[0..n) of obj is set: *which gets its index, or
 * SIZE_MAX when none is. A member whose value is null is not set, nor (as
 * Go's omitempty fields) one holding the boolean false or an empty array
 * unless DRA_ONE_VALUES. Two set: "only one of A and B may be set". */
enum err dra_one_of(struct decode_ctx *c, const struct doc *obj, const char *const *keys,
		    size_t n, unsigned flags, size_t *which);

/* The start of every object: d is an object whose kind, when present, is
 * kind and whose apiVersion, when present, is resource.k8s.io/v1; then its
 * metadata.name (a DNS subdomain) and, when asked for, metadata.uid and
 * metadata.namespace (namespaced kinds; "default" when absent). */
enum err dra_read_head(struct decode_ctx *c, const struct doc *d, const char *kind, char **ns,
		       char **name, char **uid);

/* obj.selectors[].cel.expression, each at most DRA_CEL_MAX_LENGTH bytes, at
 * most DRA_MAX_SELECTORS of them. */
enum err dra_read_selectors(struct decode_ctx *c, const struct doc *obj, char ***out,
			    size_t *n);

/* The array obj.key holds at most max elements (absent: fine). */
enum err dra_check_length(struct decode_ctx *c, const struct doc *obj, const char *key,
			  size_t max);

/* *out: obj.key is a non-empty array (kind DOC_ARRAY) or object (DOC_OBJECT);
 * what it holds is not read. */
enum err dra_read_nonempty(struct decode_ctx *c, const struct doc *obj, const char *key,
			   enum doc_kind kind, bool *out);

/* A core NodeSelector obj.key with exactly one term, into *t; *present
 * says it was there. */
enum err dra_read_node_selector(struct decode_ctx *c, const struct doc *obj, const char *key,
				struct sched_term *t, bool *present);

#endif
