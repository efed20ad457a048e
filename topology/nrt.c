/* SPDX-License-Identifier: Apache-2.0 */
/* Ownership of decoded NodeResourceTopology objects. */
#include "nrt.h"

#include <stdlib.h>
#include <string.h>

void nrt_object_cleanup(struct nrt_object *obj)
{
	size_t i, j;

	if (obj == NULL)
		return;
	free(obj->name);
	free(obj->api_version);
	free(obj->resource_version);
	for (i = 0; i < obj->npolicies; i++)
		free(obj->policies[i]);
	free(obj->policies);
	for (i = 0; i < obj->nattributes; i++) {
		free(obj->attributes[i].name);
		free(obj->attributes[i].value);
	}
	free(obj->attributes);
	for (i = 0; i < obj->nzones; i++) {
		struct nrt_zone *z = &obj->zones[i];

		free(z->name);
		free(z->type);
		for (j = 0; j < z->nresources; j++)
			free(z->resources[j].name);
		free(z->resources);
		for (j = 0; j < z->ncosts; j++)
			free(z->costs[j].name);
		free(z->costs);
	}
	free(obj->zones);
	free(obj->invalid);
	memset(obj, 0, sizeof *obj);
}
