/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/cmd/dra_paths.h"

#include <stdio.h>
#include <string.h>

#include "extender/codec/dra_decode.h"

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
