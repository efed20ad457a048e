/* SPDX-License-Identifier: Apache-2.0 */
/* JSON text of decoded objects, for the decision log: an NRT object and a
 * pod as the decoders read them back to the same structs (quantities in the
 * exact text of quantity_format). */
#ifndef EXTENDER_OBJECT_JSON_H
#define EXTENDER_OBJECT_JSON_H

#include "topology/nrt.h"
#include "topology/pod.h"

/* New strings (compact JSON, no trailing newline). */
char *nrt_object_to_json(const struct nrt_object *o);
char *pod_spec_to_json(const struct pod_spec *p);

#endif
