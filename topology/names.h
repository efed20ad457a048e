/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation): resource
 * names (qualified names, hugepages-<size>) and DNS-1123 subdomains (node
 * names). Each check returns true, or false with a short reason in why
 * (e.g. "name part must be 63 characters or less"). No allocation. */
#ifndef TOPOLOGY_NAMES_H
#define TOPOLOGY_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Lowercase RFC 1123 subdomain, at most 253 characters. */
bool name_is_dns_subdomain(const char *s, size_t len, char *why, size_t size);

/* A resource name: a qualified name (optional DNS-subdomain prefix of at most
 * 253 characters and '/', then a name part of at most 63 characters of
 * [A-Za-z0-9-_.] starting and ending alphanumeric); "hugepages-<size>" also
 * needs a positive quantity as its size. */
bool name_is_resource(const char *s, size_t len, char *why, size_t size);

#endif
