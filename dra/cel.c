/* SPDX-License-Identifier: Apache-2.0 */
/* Compiling a selector (cel.h): the text is parsed (cel_parse.c) and
 * checked (cel_check.c) into a program that owns everything it points to.
 * Evaluation is cel_eval.c. */
#include "dra/cel.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/cel_ast.h"
#include "dra/cel_reads.h"
#include "dra/cel_regex.h"

struct cel_node *cel_node_new(struct dra_cel_program *p, enum cel_op op, uint32_t pos)
{
	struct cel_node *n = arena_alloc(&p->arena, sizeof *n);

	n->op = op;
	n->pos = pos;
	n->type = CEL_T_DYN;
	return n;
}

struct cel_node **cel_args_new(struct dra_cel_program *p, size_t n)
{
	return n ? arena_alloc(&p->arena, n * sizeof(struct cel_node *)) : NULL;
}

enum dra_cel_compiled cel_fail(struct cel_status *cs, enum dra_cel_compiled st, size_t pos,
			       const char *fmt, ...)
{
	struct textbuf tb;
	size_t line = 1, col = 1;
	va_list ap;

	if (cs->st != DRA_CEL_COMPILED)
		return st;
	cs->st = st;
	if (cs->msg == NULL)
		return st;
	for (size_t i = 0; i < pos && i < cs->p->len; i++) {
		if (cs->p->text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	textbuf_init_fixed(&tb, cs->msg->text, sizeof cs->msg->text);
	textbuf_printf(&tb, "%zu:%zu: ", line, col);
	va_start(ap, fmt);
	textbuf_vprintf(&tb, fmt, ap);
	va_end(ap);
	return st;
}

enum dra_cel_compiled dra_cel_compile(const char *expr, size_t len, struct dra_cel_program **out,
				      struct errmsg *msg)
{
	struct dra_cel_program *p;
	enum dra_cel_compiled st;
	char *text;

	*out = NULL;
	if (expr == NULL) {
		errmsg_set(msg, "no expression");
		return DRA_CEL_INVALID;
	}
	if (len > DRA_CEL_MAX_LENGTH) {
		errmsg_set(msg,
			   "expression of %zu bytes is longer than the %d the API server accepts",
			   len, DRA_CEL_MAX_LENGTH);
		return DRA_CEL_INVALID;
	}
	p = xcalloc(1, sizeof *p);
	arena_init(&p->arena);
	text = arena_alloc_raw(&p->arena, len + 1);
	memcpy(text, expr, len);
	text[len] = '\0';
	p->text = text;
	p->len = len;
	st = cel_parse(p, msg);
	if (st == DRA_CEL_COMPILED)
		st = cel_check(p, msg);
	if (st != DRA_CEL_COMPILED) {
		dra_cel_free(p);
		return st;
	}
	cel_reads_collect(p);
	*out = p;
	return DRA_CEL_COMPILED;
}

void dra_cel_free(struct dra_cel_program *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nregexes; i++)
		cel_regex_free(p->regexes[i]);
	free(p->regexes);
	arena_cleanup(&p->arena);
	free(p);
}
