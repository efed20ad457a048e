/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_node_decode.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/sched_fields.h"
#include "extender/codec/sched_objects.h"
#include "topology/names.h"

static const char *const effects[] = { "NoSchedule", "PreferNoSchedule", "NoExecute" };
static const enum sched_taint_effect effect_values[] = {
	SCHED_EFFECT_NO_SCHEDULE, SCHED_EFFECT_PREFER_NO_SCHEDULE, SCHED_EFFECT_NO_EXECUTE,
};

static enum err decode_taint(struct decode_ctx *c, const struct doc *d, void *elem,
			     void *arg)
{
	struct sched_taint *t = elem;
	size_t effect = SIZE_MAX;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "key", DECODE_REQUIRED | DECODE_NONEMPTY, &t->key);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "value", DECODE_SCALAR, &t->value);
	if (rc == ERR_OK && t->value == NULL)
		t->value = xstrdup("");
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "effect", DECODE_REQUIRED, effects, 3, &effect);
	if (rc == ERR_OK)
		t->effect = effect_values[effect];
	return rc;
}

static enum err decode_metadata(struct decode_ctx *c, const struct doc *d,
				struct sched_node *node)
{
	size_t mark = doc_path_key(&c->path, "metadata");
	const struct doc *md;
	char why[160];
	enum err rc;

	rc = decode_field(c, d, "metadata", DOC_OBJECT, DECODE_REQUIRED, &md);
	if (rc == ERR_OK)
		rc = decode_string(c, md, "name", DECODE_REQUIRED | DECODE_NONEMPTY, &node->name);
	if (rc == ERR_OK && !name_is_dns_subdomain(node->name, strlen(node->name), why, sizeof why)) {
		char quoted[DOC_QUOTE_CAP];

		doc_quote(quoted, sizeof quoted, node->name, strlen(node->name));
		rc = decode_fail_at(c, "name", ERR_INVALID, "%s: not a node name: %s", quoted, why);
	}
	if (rc == ERR_OK)
		rc = sf_string_map(c, md, "labels", &node->labels, &node->nlabels);
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_spec(struct decode_ctx *c, const struct doc *d,
			    struct sched_node *node)
{
	size_t mark = doc_path_key(&c->path, "spec");
	const struct doc *spec;
	void *taints = NULL;
	enum err rc;

	rc = decode_field(c, d, "spec", DOC_OBJECT, 0, &spec);
	if (rc == ERR_OK && spec != NULL)
		rc = sf_bool(c, spec, "unschedulable", &node->unschedulable);
	if (rc == ERR_OK && spec != NULL) {
		rc = decode_array(c, spec, "taints", 0, sizeof *node->taints, &taints,
				  &node->ntaints, decode_taint, NULL);
		node->taints = taints;
	}
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_status(struct decode_ctx *c, const struct doc *d,
			      struct sched_node *node)
{
	size_t mark = doc_path_key(&c->path, "status");
	struct pod_quantity *alloc = NULL;
	const struct doc *status;
	size_t n = 0, i;
	enum err rc;

	rc = decode_field(c, d, "status", DOC_OBJECT, 0, &status);
	if (rc == ERR_OK && status != NULL)
		rc = sf_quantities(c, status, "allocatable", &alloc, &n);
	if (rc == ERR_OK)
		sched_resources_from_list(&node->allocatable, alloc, n);
	for (i = 0; i < n; i++)
		free(alloc[i].name);
	free(alloc);
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_node(struct decode_ctx *c, const struct doc *d, bool in_list,
			    void *elem)
{
	struct sched_node *node = elem;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_kind(c, d, "Node", !in_list);
	if (rc == ERR_OK)
		rc = decode_metadata(c, d, node);
	if (rc == ERR_OK)
		rc = decode_spec(c, d, node);
	if (rc == ERR_OK)
		rc = decode_status(c, d, node);
	/* A Node object states its allocatable cpu: one without it has none. */
	node->cpu_known = true;
	return rc;
}

static void cleanup(void *elem)
{
	sched_node_cleanup(elem);
}

static void placeholder(void *elem, const char *name, const char *ns, const char *message)
{
	struct sched_node *node = elem;

	(void)ns;
	node->name = xstrdup(name != NULL ? name : "");
	node->invalid = xstrdup(message);
}

static const struct sched_objects_spec node_spec = {
	"Node", "NodeList", "node", false, sizeof(struct sched_node),
	decode_node, cleanup, placeholder,
};

enum err sched_nodes_decode(const char *buf, size_t len, const char *origin,
			    struct sched_node **nodes, size_t *n,
			    struct errmsg *msg)
{
	void *items = NULL;
	enum err rc = sched_objects_decode(buf, len, origin, &node_spec, &items, n, msg);

	*nodes = items;
	return rc;
}

enum err sched_nodes_load(const char *path, struct sched_node **nodes,
			  size_t *n, struct errmsg *msg)
{
	void *items = NULL;
	enum err rc = sched_objects_load(path, &node_spec, &items, n, msg);

	*nodes = items;
	return rc;
}
