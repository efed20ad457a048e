/* SPDX-License-Identifier: Apache-2.0 */
/* Text form of NUMA masks for messages. */
#include "bitmask.h"

#include <stdio.h>

void bitmask_format(bitmask_t ids, char *buf, unsigned long size)
{
	unsigned long used = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	while (ids && used < size) {
		int i = bitmask_lowest(ids);
		int w = snprintf(buf + used, size - used, "%s%d", used ? "," : "", i);

		if (w < 0)
			break;
		used += (unsigned long)w;
		ids &= ids - 1;
	}
}
