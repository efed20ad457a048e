/* SPDX-License-Identifier: Apache-2.0 */
/* Text form of NUMA masks for messages. */
#include "bitmask.h"

#include "base/textbuf.h"

void bitmask_format(bitmask_t ids, char *buf, unsigned long size)
{
	struct textbuf t;

	if (size == 0)
		return;
	textbuf_init_fixed(&t, buf, size);
	while (ids) {
		if (textbuf_len(&t) && !textbuf_addc(&t, ','))
			break;
		if (!textbuf_int(&t, bitmask_lowest(ids)))
			break;
		ids &= ids - 1;
	}
}
