/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/cmd/dra_paths.h"

#include <stdio.h>
#include <string.h>

#include "base/textbuf.h"
#include "dra/align.h"
#include "extender/codec/dra_decode.h"

/* One object left out, its kind and names quoted unless plain: they are
 * the file's, and a file may hold anything. */
static void warn_bad(FILE *warn, const char *path, const struct dra_bad_object *bad)
{
	struct textbuf b;

	textbuf_init(&b, 4096);
	textbuf_adds(&b, "warning: --dra ");
	textbuf_adds(&b, path);
	textbuf_adds(&b, ": ");
	if (bad->kind[0])
		dra_align_add_name(&b, bad->kind);
	else
		textbuf_adds(&b, "object");
	textbuf_adds(&b, " ");
	if (bad->namespace_ != NULL) {
		dra_align_add_name(&b, bad->namespace_);
		textbuf_adds(&b, "/");
	}
	if (bad->name[0])
		dra_align_add_name(&b, bad->name);
	else
		textbuf_adds(&b, "(unnamed)");
	textbuf_adds(&b, " left out: ");
	textbuf_adds(&b, bad->message);
	fprintf(warn, "%s\n", textbuf_str(&b));
	textbuf_free(&b);
}

enum err dra_paths_load(const char *const *paths, size_t npaths, FILE *warn, struct dra_store **out,
			struct errmsg *msg)
{
	struct dra_batch *b = dra_batch_new();
	size_t p, i;

	*out = NULL;
	for (p = 0; p < npaths; p++) {
		struct dra_objects o;
		enum err rc;

		memset(&o, 0, sizeof o);
		rc = dra_objects_load(paths[p], &o, msg);
		if (rc != ERR_OK) {
			errmsg_prefix(msg, "--dra: ");
			dra_objects_cleanup(&o);
			dra_batch_free(b);
			return rc;
		}
		for (i = 0; warn != NULL && i < o.nbad; i++)
			warn_bad(warn, paths[p], &o.bad[i]);
		/* Read once: one version does (a file's objects have names of
		 * their own). */
		dra_batch_put_objects(b, &o, "1", paths[p]);
		dra_objects_cleanup(&o);
	}
	*out = dra_store_new();
	dra_store_publish(*out, b);
	dra_store_set_ready(*out, true);
	return ERR_OK;
}
