/* SPDX-License-Identifier: Apache-2.0 */
/* YAML -> document trees with libyaml's event API. The event API is used
 * rather than yaml_parser_load because it lets us refuse anchors and aliases
 * and cap the nesting depth before anything is built: libyaml 0.2.5 has no
 * depth limit of its own. libyaml never leaves this file. */
#include "extender/codec/doc.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/xalloc.h"
#include "extender/codec/yaml_error.h"

/* A collection being filled. Objects hold their next key here until its
 * value arrives. */
struct frame {
	struct doc *node;
	size_t cap;
	char *key;
};

struct builder {
	const char *origin;
	struct errmsg *msg;
	struct frame stack[DOC_MAX_DEPTH];
	size_t depth;
	struct doc *root;     /* of the document being read */
	struct doc **docs;
	size_t ndocs;
	size_t docs_cap;
};

static unsigned mark_line(const yaml_mark_t *m)
{
	return m->line >= UINT32_MAX ? UINT32_MAX : (unsigned)m->line + 1;
}

static unsigned mark_column(const yaml_mark_t *m)
{
	return m->column >= UINT32_MAX ? UINT32_MAX : (unsigned)m->column + 1;
}

static enum err fail_at(struct builder *b, const yaml_mark_t *m,
			const char *problem)
{
	errmsg_set(b->msg, "%s:%u:%u: %s", b->origin, mark_line(m),
		   mark_column(m), problem);
	return ERR_PARSE;
}


static bool tag_is_str(const yaml_char_t *tag)
{
	return tag != NULL &&
	       (strcmp((const char *)tag, YAML_STR_TAG) == 0 ||
		strcmp((const char *)tag, "!!str") == 0);
}

static struct doc *scalar_node(const yaml_event_t *ev)
{
	enum doc_kind kind = DOC_STRING;
	struct doc *d;

	/* Only an unquoted scalar without an explicit !!str tag is left for
	 * the decoder to interpret ("8", "true", "~"). */
	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    !tag_is_str(ev->data.scalar.tag))
		kind = DOC_PLAIN;
	d = doc_new(kind, mark_line(&ev->start_mark), mark_column(&ev->start_mark));
	doc_set_text(d, (const char *)ev->data.scalar.value,
		     ev->data.scalar.length);
	return d;
}

static void append_child(struct frame *f, char *key, struct doc *value)
{
	struct doc *parent = f->node;

	if (parent->nchildren == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 4;
		parent->children = xreallocarray(parent->children, f->cap,
						 sizeof *parent->children);
	}
	parent->children[parent->nchildren].key = key;
	parent->children[parent->nchildren].value = value;
	parent->nchildren++;
}

/* Attaches a new node to its parent (or makes it the root) and, for a
 * collection, opens it. Takes ownership of node in every case. */
static enum err add_node(struct builder *b, struct doc *node,
			 const yaml_mark_t *m)
{
	struct frame *top;

	if (b->depth == 0) {
		b->root = node;
	} else {
		top = &b->stack[b->depth - 1];
		if (top->node->kind == DOC_ARRAY) {
			append_child(top, NULL, node);
		} else if (top->key == NULL) {
			if (node->kind == DOC_ARRAY || node->kind == DOC_OBJECT) {
				doc_free(node);
				return fail_at(b, m, "a mapping key must be a scalar");
			}
			if (memchr(node->text, '\0', node->len) != NULL) {
				doc_free(node);
				return fail_at(b, m, "a mapping key contains a NUL byte");
			}
			/* Keys are kept as text only; take the copy over. */
			top->key = node->text;
			node->text = NULL;
			doc_free(node);
			return ERR_OK;
		} else {
			append_child(top, top->key, node);
			top->key = NULL;
		}
	}
	if (node->kind == DOC_ARRAY || node->kind == DOC_OBJECT) {
		if (b->depth == DOC_MAX_DEPTH)
			return fail_at(b, m, "nesting deeper than 64 levels");
		b->stack[b->depth].node = node;
		b->stack[b->depth].cap = 0;
		b->stack[b->depth].key = NULL;
		b->depth++;
	}
	return ERR_OK;
}

/* libyaml does not report repeated keys; a YAML reader may keep either
 * value, so refuse them. */
static enum err check_keys(struct builder *b, const struct doc *obj)
{
	const char **names;
	bool dup;
	size_t i, at = 0;
	enum err rc = ERR_OK;

	if (obj->nchildren < 2)
		return ERR_OK;
	names = xcalloc(obj->nchildren, sizeof *names);
	for (i = 0; i < obj->nchildren; i++)
		names[i] = obj->children[i].key;
	dup = doc_find_duplicate(names, obj->nchildren, &at);
	if (dup) {
		char quoted[DOC_QUOTE_CAP];
		const struct doc *v = obj->children[at].value;

		doc_quote(quoted, sizeof quoted, names[at], strlen(names[at]));
		/* The value's position is the closest one we keep to the key. */
		errmsg_set(b->msg, "%s:%u:%u: duplicate key %s", b->origin,
			   v->line, v->column, quoted);
		rc = ERR_PARSE;
	}
	free(names);
	return rc;
}

static void push_doc(struct builder *b)
{
	if (b->ndocs == b->docs_cap) {
		b->docs_cap = b->docs_cap ? b->docs_cap * 2 : 4;
		b->docs = xreallocarray(b->docs, b->docs_cap, sizeof *b->docs);
	}
	b->docs[b->ndocs++] = b->root;
	b->root = NULL;
}

static enum err handle_event(struct builder *b, const yaml_event_t *ev,
			     bool *done)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct doc *node;

	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_NO_EVENT:
		return ERR_OK;
	case YAML_STREAM_END_EVENT:
		*done = true;
		return ERR_OK;
	case YAML_DOCUMENT_START_EVENT:
		return ERR_OK;
	case YAML_DOCUMENT_END_EVENT:
		if (b->root == NULL) {
			/* libyaml gives an empty document an empty scalar;
			 * keep the same shape should that ever change. */
			b->root = doc_new(DOC_PLAIN, mark_line(m), mark_column(m));
			doc_set_text(b->root, "", 0);
		}
		push_doc(b);
		return ERR_OK;
	case YAML_ALIAS_EVENT:
		return fail_at(b, m, "aliases are not supported");
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor != NULL)
			return fail_at(b, m, "anchors are not supported");
		return add_node(b, scalar_node(ev), m);
	case YAML_SEQUENCE_START_EVENT:
		if (ev->data.sequence_start.anchor != NULL)
			return fail_at(b, m, "anchors are not supported");
		node = doc_new(DOC_ARRAY, mark_line(m), mark_column(m));
		return add_node(b, node, m);
	case YAML_MAPPING_START_EVENT:
		if (ev->data.mapping_start.anchor != NULL)
			return fail_at(b, m, "anchors are not supported");
		node = doc_new(DOC_OBJECT, mark_line(m), mark_column(m));
		return add_node(b, node, m);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		/* libyaml only emits balanced events. */
		if (b->depth == 0)
			return fail_at(b, m, "unbalanced collection end");
		b->depth--;
		if (ev->type == YAML_MAPPING_END_EVENT)
			return check_keys(b, b->stack[b->depth].node);
		return ERR_OK;
	}
	return ERR_OK;
}

enum err doc_parse_yaml(const char *buf, size_t len, const char *origin,
			struct doc ***docs, size_t *ndocs, struct errmsg *msg)
{
	struct builder b = { .origin = origin, .msg = msg };
	yaml_parser_t parser;
	enum err rc = ERR_OK;
	bool done = false;
	size_t i;

	*docs = NULL;
	*ndocs = 0;
	/* libyaml asserts on a NULL input even when it is empty. */
	if (buf == NULL)
		buf = "";
	if (!yaml_parser_initialize(&parser))
		abort(); /* only fails when out of memory */
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = yaml_parser_failure(&parser, buf, len, origin, msg);
			goto out;
		}
		rc = handle_event(&b, &ev, &done);
		yaml_event_delete(&ev);
		if (rc != ERR_OK)
			goto out;
	}
	*docs = b.docs;
	*ndocs = b.ndocs;
	b.docs = NULL;
	b.ndocs = 0;
out:
	/* Open collections are already linked under b.root; only their
	 * pending keys are owned by the stack. */
	for (i = 0; i < b.depth; i++)
		free(b.stack[i].key);
	doc_free(b.root);
	doc_free_all(b.docs, b.ndocs);
	yaml_parser_delete(&parser);
	return rc;
}
