/* SPDX-License-Identifier: Apache-2.0 */
#include "names.h"

#include <stdio.h>
#include <string.h>

#include "quantity.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool no(char *why, size_t size, const char *reason)
{
	if (why != NULL && size > 0)
		snprintf(why, size, "%s", reason);
	return false;
}

bool name_is_dns_subdomain(const char *s, size_t len, char *why, size_t size)
{
	size_t i, label = 0;

	if (len == 0)
		return no(why, size, "must not be empty");
	if (len > 253)
		return no(why, size, "must be no more than 253 characters");
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return no(why, size,
					  "each label must start and end with a lowercase letter or digit");
			label = 0;
			continue;
		}
		if (!is_lower_alnum(c) && c != '-')
			return no(why, size,
				  "must consist of lowercase letters, digits, '-' and '.' (RFC 1123 subdomain)");
		if (label == 0 && c == '-')
			return no(why, size,
				  "each label must start and end with a lowercase letter or digit");
		label++;
	}
	if (label == 0 || s[len - 1] == '-')
		return no(why, size, "each label must start and end with a lowercase letter or digit");
	return true;
}

/* The name part of a qualified name. */
static bool name_part_ok(const char *s, size_t len, char *why, size_t size)
{
	size_t i;

	if (len == 0)
		return no(why, size, "name part must not be empty");
	if (len > 63)
		return no(why, size, "name part must be 63 characters or less");
	if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return no(why, size, "name part must start and end with a letter or digit");
	for (i = 0; i < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return no(why, size,
				  "name part must consist of letters, digits, '-', '_' and '.'");
	return true;
}

bool name_is_resource(const char *s, size_t len, char *why, size_t size)
{
	const char *slash = memchr(s, '/', len);
	char sub[160];

	if (memchr(s, '\0', len) != NULL)
		return no(why, size, "contains a NUL byte");
	if (slash != NULL) {
		size_t plen = (size_t)(slash - s);

		if (memchr(slash + 1, '/', len - plen - 1) != NULL)
			return no(why, size, "at most one '/' (prefix/name)");
		if (!name_is_dns_subdomain(s, plen, sub, sizeof sub)) {
			if (why != NULL && size > 0)
				snprintf(why, size, "prefix %s", sub);
			return false;
		}
		return name_part_ok(slash + 1, len - plen - 1, why, size);
	}
	if (!name_part_ok(s, len, why, size))
		return false;
	if (len > 10 && strncmp(s, "hugepages-", 10) == 0) {
		struct quantity q;

		if (quantity_parse(s + 10, len - 10, &q, NULL) != ERR_OK || quantity_sign(&q) <= 0)
			return no(why, size, "hugepages-<size> needs a positive quantity as its size");
	}
	return true;
}
