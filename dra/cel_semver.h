/* SPDX-License-Identifier: Apache-2.0 */
/* Semantic versions as Kubernetes' CEL reads them (github.com/blang/semver
 * v4 under k8s.io/apiserver/pkg/cel/library semverlib.go): the strict
 * parse, the normalising one of semver(s, true), and the ordering, where
 * build metadata does not count. */
#ifndef DRA_CEL_SEMVER_H
#define DRA_CEL_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cel_semver {
	uint64_t major, minor, patch;
	const char *pre;  /* the prerelease identifiers, dot-separated (into the text) */
	size_t pre_len;   /* 0: none */
};

/* semver.Parse. false and *why (a static description) when text is not
 * a version. out->pre points into text. */
bool cel_semver_parse(const char *text, size_t len, struct cel_semver *out, const char **why);

/* The normalising parse: a leading "v" dropped, missing minor and patch
 * added, leading zeros removed. scratch holds CEL_SEMVER_SCRATCH(len) bytes; out->pre
 * points into it. */
#define CEL_SEMVER_SCRATCH(len) ((len) + 8)
bool cel_semver_parse_normalized(const char *text, size_t len, char *scratch,
				 struct cel_semver *out, const char **why);

/* -1, 0 or 1 (Version.Compare). */
int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b);

#endif
