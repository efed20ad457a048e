/* SPDX-License-Identifier: Apache-2.0 */
#include "version.h"

#include <string.h>

bool sched_version_parse(const char *text, enum sched_version *out)
{
	const char *p = text;
	unsigned minor = 0;
	size_t digits = 0;

	if (p == NULL)
		return false;
	if (*p == 'v')
		p++;
	if (strncmp(p, "1.", 2) != 0)
		return false;
	for (p += 2; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
		minor = minor * 10 + (unsigned)(*p - '0');
	if (digits == 0 || (*p != '\0' && *p != '.'))
		return false;
	if (*p == '.') {
		/* A patch number: digits only. */
		if (p[1] == '\0')
			return false;
		for (p++; *p != '\0'; p++)
			if (*p < '0' || *p > '9')
				return false;
	}
	if (minor < SCHED_V1_32 || minor > SCHED_V1_35)
		return false;
	*out = (enum sched_version)minor;
	return true;
}

const char *sched_version_name(enum sched_version v)
{
	switch (v) {
	case SCHED_V1_32: return "1.32";
	case SCHED_V1_33: return "1.33";
	case SCHED_V1_34: return "1.34";
	case SCHED_V1_35: return "1.35";
	}
	return "?";
}
