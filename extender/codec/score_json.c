/* SPDX-License-Identifier: Apache-2.0 */
/* Score parts -> JSON text (score_json.h). */
#include "extender/codec/score_json.h"

#include "base/textbuf.h"
#include "extender/codec/json_write.h"

/* Resource names come from the node's inventory: escaped, and never larger
 * than the builder's ceiling (a part is at most a few hundred bytes;
 * SCORE_MAX_PARTS bounds their number). */
char *score_parts_json(const struct score_breakdown *b)
{
	struct textbuf t;
	size_t i;

	textbuf_init(&t, (size_t)1 << 20);
	textbuf_addc(&t, '[');
	for (i = 0; i < b->nparts; i++) {
		textbuf_adds(&t, i ? ",{\"resource\":" : "{\"resource\":");
		textbuf_json_cstr(&t, b->parts[i].resource);
		textbuf_printf(&t, ",\"weight\":%lld,\"score100\":%lld}", (long long)b->parts[i].weight,
			       (long long)b->parts[i].score100);
	}
	textbuf_addc(&t, ']');
	if (textbuf_failed(&t)) {
		textbuf_reset(&t);
		textbuf_adds(&t, "[]");
	}
	return textbuf_take(&t, NULL);
}
