/* SPDX-License-Identifier: Apache-2.0 */
/* YAML -> document trees with libyaml's event API. The event API is used
 * rather than yaml_parser_load because it lets us refuse anchors, aliases
 * and tags and cap the nesting depth before anything is built: libyaml 0.2.5
 * has no depth limit of its own. Every check a YAML reader needs is made
 * here, once, under the caller's doc_yaml_rules; libyaml never leaves this
 * file. */
#include "extender/codec/doc.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/xalloc.h"

const struct doc_yaml_rules doc_yaml_documents = {
	.max_depth = DOC_MAX_DEPTH,
	.no_anchors = "anchors are not supported",
	.no_aliases = "aliases are not supported",
	.too_deep = "nesting deeper than 64 levels",
};

/* A collection being filled. Objects hold their next key, and where it
 * starts, here until its value arrives. */
struct frame {
	struct doc *node;
	size_t cap;
	char *key;
	unsigned key_line;
	unsigned key_column;
};

struct builder {
	const char *origin;
	const struct doc_yaml_rules *rules;
	struct errmsg *msg;
	struct frame stack[DOC_MAX_DEPTH];
	size_t depth;
	size_t started;       /* documents begun */
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

/* The field path of the collection at stack[level]: each frame below it
 * holds it as its last child. */
static void frame_path(const struct builder *b, size_t level, struct doc_path *p)
{
	size_t i;

	doc_path_init(p);
	for (i = 0; i < level; i++) {
		const struct doc *parent = b->stack[i].node;

		if (parent->kind == DOC_ARRAY)
			doc_path_index(p, parent->nchildren - 1);
		else
			doc_path_key(p, parent->children[parent->nchildren - 1].key);
	}
}

static enum err fail_at(struct builder *b, const yaml_mark_t *m,
			const char *problem)
{
	doc_error_at(b->msg, b->origin, mark_line(m), mark_column(m), NULL, "%s",
		     problem);
	return ERR_PARSE;
}

/* libyaml's own complaint, in the same "origin:LINE:COLUMN: problem
 * (context)" shape. */
static enum err parser_failure(const yaml_parser_t *p, const char *buf, size_t len,
			       const char *origin, struct errmsg *msg)
{
	const char *problem = p->problem != NULL ? p->problem : "syntax error";
	size_t line = 1, column = 1, i;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		abort(); /* out of memory aborts, as everywhere */
	case YAML_READER_ERROR:
		/* Bad encoding carries a byte offset, not a mark: count the
		 * lines up to it so the message keeps its usual shape. */
		for (i = 0; i < p->problem_offset && i < len; i++) {
			if (buf[i] == '\n') {
				line++;
				column = 1;
			} else {
				column++;
			}
		}
		if (p->problem_value != -1)
			errmsg_set(msg, "%s:%zu:%zu: %s (#%X at byte %zu)", origin, line, column,
				   problem, (unsigned)p->problem_value, p->problem_offset);
		else
			errmsg_set(msg, "%s:%zu:%zu: %s (at byte %zu)", origin, line, column, problem,
				   p->problem_offset);
		return ERR_PARSE;
	case YAML_NO_ERROR:
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
	case YAML_WRITER_ERROR:
	case YAML_EMITTER_ERROR:
		break;
	}
	if (p->context != NULL)
		errmsg_set(msg, "%s:%zu:%zu: %s (%s at line %zu, column %zu)", origin,
			   p->problem_mark.line + 1, p->problem_mark.column + 1, problem, p->context,
			   p->context_mark.line + 1, p->context_mark.column + 1);
	else
		errmsg_set(msg, "%s:%zu:%zu: %s", origin, p->problem_mark.line + 1,
			   p->problem_mark.column + 1, problem);
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

/* A collection where a key belongs: refused with the mapping's path. */
static enum err key_not_scalar(struct builder *b, const struct doc *node)
{
	struct doc_path p;

	frame_path(b, b->depth - 1, &p);
	doc_error_at(b->msg, b->origin, node->line, node->column, &p,
		     "a mapping key must be a scalar, got %s",
		     node->kind == DOC_ARRAY ? "a sequence" : "a mapping");
	return ERR_PARSE;
}

/* Attaches a new node to its parent (or makes it the root) and, for a
 * collection, opens it. Takes ownership of node in every case. */
static enum err add_node(struct builder *b, struct doc *node,
			 const yaml_mark_t *m)
{
	struct frame *top;
	enum err rc;

	if (b->depth == 0) {
		b->root = node;
	} else {
		top = &b->stack[b->depth - 1];
		if (top->node->kind == DOC_ARRAY) {
			append_child(top, NULL, node);
		} else if (top->key == NULL) {
			if (node->kind == DOC_ARRAY || node->kind == DOC_OBJECT) {
				rc = key_not_scalar(b, node);
				doc_free(node);
				return rc;
			}
			if (memchr(node->text, '\0', node->len) != NULL) {
				doc_free(node);
				return fail_at(b, m, "a mapping key contains a NUL byte");
			}
			/* Keys are kept as text only; take the copy over. */
			top->key = node->text;
			top->key_line = node->line;
			top->key_column = node->column;
			node->text = NULL;
			doc_free(node);
			return ERR_OK;
		} else {
			node->key_line = top->key_line;
			node->key_column = top->key_column;
			append_child(top, top->key, node);
			top->key = NULL;
		}
	}
	if (node->kind == DOC_ARRAY || node->kind == DOC_OBJECT) {
		if (b->depth >= b->rules->max_depth || b->depth == DOC_MAX_DEPTH)
			return fail_at(b, m, b->rules->too_deep);
		b->stack[b->depth].node = node;
		b->stack[b->depth].cap = 0;
		b->stack[b->depth].key = NULL;
		b->depth++;
	}
	return ERR_OK;
}

/* libyaml does not report repeated keys; a YAML reader may keep either
 * value, so refuse them. obj is the mapping at stack[b->depth], just
 * closed. */
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
		struct doc_path p;

		frame_path(b, b->depth, &p);
		doc_quote(quoted, sizeof quoted, names[at], strlen(names[at]));
		doc_error_at(b->msg, b->origin, v->key_line, v->key_column, &p,
			     "duplicate key %s", quoted);
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

/* An anchor or a tag on a node, refused as the rules say. */
static enum err check_node(struct builder *b, const yaml_mark_t *m,
			   const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor != NULL)
		return fail_at(b, m, b->rules->no_anchors);
	/* A tag asks for a typing the caller may not implement. */
	if (tag != NULL && b->rules->no_tags)
		return fail_at(b, m, "tags are not allowed");
	return ERR_OK;
}

static enum err handle_event(struct builder *b, const yaml_event_t *ev,
			     bool *done)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct doc *node;
	enum err rc;

	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_NO_EVENT:
		return ERR_OK;
	case YAML_STREAM_END_EVENT:
		*done = true;
		return ERR_OK;
	case YAML_DOCUMENT_START_EVENT:
		if (++b->started > 1 && b->rules->one_document)
			return fail_at(b, m, "only one YAML document is allowed");
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
		return fail_at(b, m, b->rules->no_aliases);
	case YAML_SCALAR_EVENT:
		if ((rc = check_node(b, m, ev->data.scalar.anchor, ev->data.scalar.tag)) != ERR_OK)
			return rc;
		return add_node(b, scalar_node(ev), m);
	case YAML_SEQUENCE_START_EVENT:
		if ((rc = check_node(b, m, ev->data.sequence_start.anchor,
				     ev->data.sequence_start.tag)) != ERR_OK)
			return rc;
		node = doc_new(DOC_ARRAY, mark_line(m), mark_column(m));
		return add_node(b, node, m);
	case YAML_MAPPING_START_EVENT:
		if ((rc = check_node(b, m, ev->data.mapping_start.anchor,
				     ev->data.mapping_start.tag)) != ERR_OK)
			return rc;
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
	return doc_parse_yaml_rules(buf, len, origin, &doc_yaml_documents, docs, ndocs,
				    msg);
}

enum err doc_parse_yaml_rules(const char *buf, size_t len, const char *origin,
			      const struct doc_yaml_rules *rules, struct doc ***docs,
			      size_t *ndocs, struct errmsg *msg)
{
	struct builder b = { .origin = origin, .rules = rules, .msg = msg };
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
			rc = parser_failure(&parser, buf, len, origin, msg);
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
