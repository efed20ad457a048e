/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/cmd/dra_paths.h"

#include <stdio.h>
#include <string.h>

#include "extender/codec/dra_decode.h"

/* Each object's version: its path and place, as the file source names
 * objects of files. */
static void put_all(struct dra_batch *b, struct dra_objects *o, const char *path)
{
	char version[64];
	size_t i, at = 0;

	for (i = 0; i < o->nslices; i++, at++) {
		snprintf(version, sizeof version, "file#%zu", at);
		dra_batch_put_slice(b, &o->slices[i], version, path);
	}
	for (i = 0; i < o->nclasses; i++, at++) {
		snprintf(version, sizeof version, "file#%zu", at);
		dra_batch_put_class(b, &o->classes[i], version, path);
	}
	for (i = 0; i < o->nclaims; i++, at++) {
		snprintf(version, sizeof version, "file#%zu", at);
		dra_batch_put_claim(b, &o->claims[i], version, path);
	}
	for (i = 0; i < o->ntemplates; i++, at++) {
		snprintf(version, sizeof version, "file#%zu", at);
		dra_batch_put_claim(b, &o->templates[i], version, path);
	}
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
			fprintf(warn, "warning: --dra %s: %s %s%s%s left out: %s\n", paths[p],
				o.bad[i].kind[0] ? o.bad[i].kind : "object",
				o.bad[i].namespace_ ? o.bad[i].namespace_ : "", o.bad[i].namespace_ ? "/" : "",
				o.bad[i].name[0] ? o.bad[i].name : "(unnamed)", o.bad[i].message);
		put_all(b, &o, paths[p]);
		dra_objects_cleanup(&o);
	}
	*out = dra_store_new();
	dra_store_publish(*out, b);
	dra_store_set_ready(*out, true);
	return ERR_OK;
}
