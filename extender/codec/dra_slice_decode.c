/* SPDX-License-Identifier: Apache-2.0 */
/* ResourceSlice decoding: document tree -> struct dra_slice. The devices'
 * typed attributes and capacities (dra_attribute_decode.c), their taints,
 * the flags of the features the prediction cannot follow yet, and where the
 * slice (or each device) is available. */
#include "extender/codec/dra_decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/dra_attribute_decode.h"
#include "extender/codec/dra_fields.h"
#include "extender/codec/sched_fields.h"

static const char *const selections[] = {
	"nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection",
};
static const enum dra_node_selection selection_values[] = {
	DRA_NODE_NAME, DRA_NODE_SELECTOR, DRA_ALL_NODES, DRA_PER_DEVICE,
};
static const char *const effects[] = { "None", "NoSchedule", "NoExecute" };

static enum err decode_taint(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	struct dra_device_taint *t = elem;
	size_t effect = 0;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "key", DECODE_REQUIRED | DECODE_NONEMPTY, &t->key);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "value", DECODE_SCALAR, &t->value);
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "effect", DECODE_REQUIRED, effects, 3, &effect);
	if (rc == ERR_OK) {
		t->effect = xstrdup(effects[effect]);
		if (t->value == NULL)
			t->value = xstrdup("");
	}
	return rc;
}

/* nodeName, nodeSelector or allNodes (slice: also perDeviceNodeSelection),
 * exactly one. */
static enum err decode_selection(struct decode_ctx *c, const struct doc *d, size_t n,
				 enum dra_node_selection *sel, char **node, struct sched_term *term)
{
	bool present;
	size_t which;
	enum err rc = dra_one_of(c, d, selections, n, DRA_ONE_REQUIRED, &which);

	if (rc != ERR_OK)
		return rc;
	*sel = selection_values[which];
	if (*sel == DRA_NODE_NAME)
		return dra_read_name(c, d, "nodeName", DECODE_NONEMPTY, DRA_NAME_SUBDOMAIN, node);
	if (*sel == DRA_NODE_SELECTOR)
		return dra_read_node_selector(c, d, "nodeSelector", term, &present);
	return ERR_OK;
}

static enum err decode_device(struct decode_ctx *c, const struct doc *d, void *elem, void *arg)
{
	const struct dra_slice *slice = arg;
	struct dra_device *dev = elem;
	void *taints = NULL;
	size_t which;
	enum err rc;

	rc = decode_named(c, d, &dev->name);
	if (rc == ERR_OK)
		rc = dra_check_name(c, "name", dev->name, DRA_NAME_LABEL);
	if (rc == ERR_OK)
		rc = dra_attributes_decode(c, d, slice->driver, dev);
	if (rc == ERR_OK)
		rc = dra_read_nonempty(c, d, "consumesCounters", DOC_ARRAY, &dev->consumes_counters);
	if (rc == ERR_OK)
		rc = dra_check_length(c, d, "taints", DRA_MAX_TAINTS);
	if (rc == ERR_OK) {
		rc = decode_array(c, d, "taints", 0, sizeof *dev->taints, &taints, &dev->ntaints,
				  decode_taint, NULL);
		dev->taints = taints;
	}
	if (rc == ERR_OK)
		rc = dra_read_nonempty(c, d, "bindingConditions", DOC_ARRAY, &dev->binding_conditions);
	if (rc == ERR_OK)
		rc = sf_bool(c, d, "allowMultipleAllocations", &dev->allow_multiple_allocations);
	if (rc != ERR_OK)
		return rc;
	/* A device's own selection exists only under perDeviceNodeSelection. */
	if (slice->selection == DRA_PER_DEVICE)
		return decode_selection(c, d, 3, &dev->selection, &dev->node_name, &dev->node_selector);
	rc = dra_one_of(c, d, selections, 3, 0, &which);
	if (rc == ERR_OK && which != SIZE_MAX)
		rc = decode_fail_at(c, selections[which], ERR_INVALID,
				    "may only be set when spec.perDeviceNodeSelection is true");
	dev->selection = slice->selection;
	return rc;
}

/* Device names are unique in a slice; across the slices of a pool a
 * repeat makes the pool invalid, which is the inventory's business. */
static enum err check_devices(struct decode_ctx *c, const struct dra_slice *s)
{
	const char **names = xcalloc(s->ndevices + 1, sizeof *names);
	char quoted[DOC_QUOTE_CAP];
	size_t i, dup, limited = 0;
	enum err rc = ERR_OK;

	for (i = 0; i < s->ndevices; i++) {
		names[i] = s->devices[i].name;
		if (s->devices[i].ntaints > 0 || s->devices[i].consumes_counters)
			limited++;
	}
	if (doc_find_duplicate(names, s->ndevices, &dup)) {
		size_t m = doc_path_key(&c->path, "devices"), k = doc_path_index(&c->path, dup);

		doc_quote(quoted, sizeof quoted, names[dup], strlen(names[dup]));
		rc = decode_fail_at(c, "name", ERR_INVALID, "duplicate device name %s", quoted);
		doc_path_pop(&c->path, k);
		doc_path_pop(&c->path, m);
	} else if (limited > 0 && s->ndevices > DRA_MAX_DEVICES_TAINTED) {
		rc = decode_fail_at(c, "devices", ERR_TOO_LARGE,
				    "%zu entries: more than the API server's %d when a device has taints "
				    "or consumes counters", s->ndevices, DRA_MAX_DEVICES_TAINTED);
	}
	free(names);
	return rc;
}

static enum err decode_pool(struct decode_ctx *c, const struct doc *spec, struct dra_slice *s)
{
	size_t mark = doc_path_key(&c->path, "pool");
	const struct doc *pool;
	bool has_gen = false, has_count = false;
	enum err rc;

	rc = decode_field(c, spec, "pool", DOC_OBJECT, DECODE_REQUIRED, &pool);
	if (rc == ERR_OK)
		rc = dra_read_name(c, pool, "name", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_POOL,
				   &s->pool);
	if (rc == ERR_OK)
		rc = sf_int(c, pool, "generation", 0, INT64_MAX, &s->generation, &has_gen);
	if (rc == ERR_OK && !has_gen)
		rc = decode_fail_at(c, "generation", ERR_INVALID, "missing");
	if (rc == ERR_OK)
		rc = sf_int(c, pool, "resourceSliceCount", 1, INT64_MAX, &s->slice_count, &has_count);
	if (rc == ERR_OK && !has_count)
		rc = decode_fail_at(c, "resourceSliceCount", ERR_INVALID, "missing");
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_spec(struct decode_ctx *c, const struct doc *d, struct dra_slice *s)
{
	size_t mark = doc_path_key(&c->path, "spec"), which;
	const struct doc *spec;
	void *devices = NULL;
	enum err rc;

	rc = decode_field(c, d, "spec", DOC_OBJECT, DECODE_REQUIRED, &spec);
	if (rc == ERR_OK)
		rc = dra_read_name(c, spec, "driver", DECODE_REQUIRED | DECODE_NONEMPTY, DRA_NAME_DRIVER,
				   &s->driver);
	if (rc == ERR_OK)
		rc = decode_pool(c, spec, s);
	if (rc == ERR_OK)
		rc = decode_selection(c, spec, 4, &s->selection, &s->node_name, &s->node_selector);
	if (rc == ERR_OK)
		rc = dra_one_of(c, spec, (const char *const[]){ "devices", "sharedCounters" }, 2, 0,
				&which);
	if (rc == ERR_OK)
		rc = dra_read_nonempty(c, spec, "sharedCounters", DOC_ARRAY, &s->shared_counters);
	if (rc == ERR_OK)
		rc = dra_check_length(c, spec, "devices", DRA_MAX_DEVICES);
	if (rc == ERR_OK) {
		rc = decode_array(c, spec, "devices", 0, sizeof *s->devices, &devices, &s->ndevices,
				  decode_device, s);
		s->devices = devices;
	}
	if (rc == ERR_OK)
		rc = check_devices(c, s);
	doc_path_pop(&c->path, mark);
	return rc;
}

enum err dra_slice_decode_doc(const struct doc *d, const char *origin, struct dra_slice *out,
			      struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = dra_read_head(&c, d, "ResourceSlice", NULL, &out->name, NULL);
	if (rc == ERR_OK)
		rc = decode_spec(&c, d, out);
	if (rc != ERR_OK)
		dra_slice_cleanup(out);
	return rc;
}
