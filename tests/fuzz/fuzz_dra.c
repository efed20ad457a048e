/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the DRA decoders and store: the bytes are read as a
 * text of ResourceSlices, DeviceClasses, ResourceClaims and
 * ResourceClaimTemplates (dra_objects_decode) and each of their documents
 * as a pod's claims (dra_pod_claims_decode); each must decode or fail with
 * a message, never crash, leak or hang. What decodes is published into a
 * DRA store twice (the second publish, of the same objects, must change
 * nothing), and every object must then be found where the views say.
 * Every object and pod's claims that decode must round-trip through the
 * decision log's encoders (dra_encode.h): encoded, decoded again, encoded
 * to the same text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/codec/dra_decode.h"
#include "extender/codec/dra_encode.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/inventory/dra_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void publish(struct dra_store *s, const char *buf, size_t len)
{
	struct dra_objects o = { 0 };
	struct dra_batch *b = dra_batch_new();
	struct errmsg msg = { { 0 } };

	if (dra_objects_decode(buf, len, "fuzz", &o, &msg) != ERR_OK) {
		dra_batch_free(b);
		return;
	}
	dra_batch_put_objects(b, &o, "v", "fuzz");
	dra_objects_cleanup(&o);
	dra_store_publish(s, b);
}

static void check_views(const struct dra_snapshot *snap)
{
	size_t i, k;

	for (i = 0; i < snap->nnodes; i++)
		for (k = 0; k < snap->nodes[i].nslices; k++) {
			const struct dra_slice *sl = snap->nodes[i].slices[k];

			if (strcmp(sl->node_name, snap->nodes[i].node) != 0 ||
			    dra_snapshot_pool(snap, sl->driver, sl->pool) == NULL)
				__builtin_trap();
		}
	for (i = 0; i < snap->nclaims; i++)
		if (dra_snapshot_claim(snap, snap->claims[i]->namespace_, snap->claims[i]->name) !=
		    snap->claims[i])
			__builtin_trap();
	for (i = 0; i < snap->nallocated; i++)
		if (!dra_snapshot_allocated(snap, snap->allocated[i].driver, snap->allocated[i].pool,
					    snap->allocated[i].device))
			__builtin_trap();
}

/* text decodes as one object whose encoding is text again. */
static void again(char *text)
{
	struct errmsg msg = { { 0 } };
	struct dra_objects o = { 0 };
	char *back = NULL;

	if (dra_objects_decode(text, strlen(text), "encoded", &o, &msg) != ERR_OK || o.nbad != 0 ||
	    o.nslices + o.nclasses + o.nclaims + o.ntemplates != 1)
		__builtin_trap();
	if (o.nslices)
		back = dra_slice_to_json(&o.slices[0]);
	else if (o.nclasses)
		back = dra_class_to_json(&o.classes[0]);
	else
		back = dra_claim_to_json(o.nclaims ? &o.claims[0] : &o.templates[0]);
	if (strcmp(back, text) != 0)
		__builtin_trap();
	free(back);
	free(text);
	dra_objects_cleanup(&o);
}

static void round_trip(const struct dra_objects *o)
{
	size_t i;

	for (i = 0; i < o->nslices; i++)
		again(dra_slice_to_json(&o->slices[i]));
	for (i = 0; i < o->nclasses; i++)
		again(dra_class_to_json(&o->classes[i]));
	for (i = 0; i < o->nclaims; i++)
		again(dra_claim_to_json(&o->claims[i]));
	for (i = 0; i < o->ntemplates; i++)
		again(dra_claim_to_json(&o->templates[i]));
}

static void pod_round_trip(const struct dra_pod_claims *pc)
{
	struct errmsg msg = { { 0 } };
	struct dra_pod_claims back;
	struct doc **docs = NULL;
	size_t ndocs = 0;
	char *a = dra_pod_claims_to_json(pc), *b;

	if (doc_parse(a, strlen(a), "encoded", &docs, &ndocs, &msg) != ERR_OK || ndocs != 1 ||
	    dra_pod_claims_decode(docs[0], "encoded", &back, &msg) != ERR_OK)
		__builtin_trap();
	b = dra_pod_claims_to_json(&back);
	if (strcmp(a, b) != 0)
		__builtin_trap();
	free(a);
	free(b);
	dra_pod_claims_cleanup(&back);
	doc_free_all(docs, ndocs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct errmsg msg = { { 0 } };
	struct dra_objects o = { 0 };
	struct dra_store *s;
	const struct dra_snapshot *snap;
	struct doc **docs = NULL;
	size_t ndocs = 0, i;
	uint64_t v;

	if (dra_objects_decode(buf, size, "fuzz", &o, &msg) != ERR_OK && msg.text[0] == '\0')
		__builtin_trap(); /* every error must say something */
	for (i = 0; i < o.nbad; i++)
		if (o.bad[i].message[0] == '\0')
			__builtin_trap();
	round_trip(&o);
	dra_objects_cleanup(&o);
	if (doc_parse(buf, size, "fuzz", &docs, &ndocs, &msg) == ERR_OK) {
		for (i = 0; i < ndocs && i < 4; i++) {
			struct dra_pod_claims pc;

			msg.text[0] = '\0';
			if (dra_pod_claims_decode(docs[i], "fuzz", &pc, &msg) != ERR_OK) {
				if (msg.text[0] == '\0')
					__builtin_trap();
			} else {
				pod_round_trip(&pc);
			}
			dra_pod_claims_cleanup(&pc);
		}
		doc_free_all(docs, ndocs);
	}
	s = dra_store_new();
	publish(s, buf, size);
	snap = dra_store_acquire(s);
	v = snap->version;
	check_views(snap);
	dra_snapshot_release(snap);
	publish(s, buf, size);
	snap = dra_store_acquire(s);
	if (snap->version != v)
		__builtin_trap(); /* the same objects again are no change */
	dra_snapshot_release(snap);
	dra_store_free(s);
	return 0;
}
