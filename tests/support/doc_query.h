/* SPDX-License-Identifier: Apache-2.0 */
/* Reading parsed YAML/JSON documents (extender/doc.h) in tests: members by
 * dotted path, scalars as text, list membership, deep copies. Shared by the
 * kustomize model, the OpenAPI schema validator and the manifest checks. */
#ifndef TESTS_DOC_QUERY_H
#define TESTS_DOC_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "extender/codec/doc.h"
#include "base/err.h"

/* Sets msg and returns false, for "return dq_fail(msg, ...);". */
bool dq_fail(struct errmsg *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s is one of the NULL-terminated list (false for s NULL). */
bool dq_in_list(const char *s, const char *const *list);
/* Both NULL, or equal strings. */
bool dq_same_str(const char *a, const char *b);
bool dq_has_suffix(const char *s, const char *suffix);
/* POSIX extended regular expression re matches somewhere in s; aborts on a
 * malformed re (a bug in the caller). */
bool dq_matches(const char *re, const char *s);

/* The text of a string or plain scalar; NULL for anything else or null. */
const char *dq_text(const struct doc *d);
/* Member by dotted path ("spec.template.spec"); explicit nulls are absent. */
const struct doc *dq_at(const struct doc *d, const char *dotted);
/* dq_text(dq_at(d, dotted)). */
const char *dq_str(const struct doc *d, const char *dotted);
/* A bool or plain scalar true / false (NULL is neither). */
bool dq_is_true(const struct doc *d);
bool dq_is_false(const struct doc *d);
/* Children of an array or object; 0 for anything else and NULL. */
size_t dq_count(const struct doc *d);
/* Child i (< dq_count(d)) of an array or object. */
const struct doc *dq_item(const struct doc *d, size_t i);
/* A list holding the scalar s. */
bool dq_list_has(const struct doc *list, const char *s);
/* kind: K. */
bool dq_kind_is(const struct doc *d, const char *kind);
/* A deep copy, freed with doc_free. */
struct doc *dq_clone(const struct doc *d);

#endif
