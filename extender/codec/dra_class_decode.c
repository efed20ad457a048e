/* SPDX-License-Identifier: Apache-2.0 */
/* DeviceClass decoding: its CEL selectors, which every request for the
 * class adds before its own, and the extended resource it stands for. */
#include "extender/codec/dra_decode.h"

#include <string.h>

#include "extender/codec/dra_fields.h"
#include "topology/names.h"

static enum err decode_spec(struct decode_ctx *c, const struct doc *d, struct dra_class *out)
{
	size_t mark = doc_path_key(&c->path, "spec");
	const struct doc *spec;
	char why[160], quoted[DOC_QUOTE_CAP];
	const char *ext;
	enum err rc;

	rc = decode_field(c, d, "spec", DOC_OBJECT, 0, &spec);
	if (rc == ERR_OK && spec != NULL)
		rc = dra_read_selectors(c, spec, &out->selectors, &out->nselectors);
	if (rc == ERR_OK && spec != NULL)
		rc = decode_string(c, spec, "extendedResourceName", DECODE_NONEMPTY,
				   &out->extended_resource_name);
	ext = out->extended_resource_name;
	if (rc == ERR_OK && ext != NULL && !name_is_resource(ext, strlen(ext), why, sizeof why)) {
		doc_quote(quoted, sizeof quoted, ext, strlen(ext));
		rc = decode_fail_at(c, "extendedResourceName", ERR_INVALID,
				    "%s: not a valid resource name: %s", quoted, why);
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err dra_class_decode_doc(const struct doc *d, const char *origin, struct dra_class *out,
			      struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = dra_read_head(&c, d, "DeviceClass", NULL, &out->name, NULL);
	if (rc == ERR_OK)
		rc = decode_spec(&c, d, out);
	if (rc != ERR_OK)
		dra_class_cleanup(out);
	return rc;
}
