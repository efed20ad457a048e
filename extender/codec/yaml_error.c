/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/yaml_error.h"

#include <stdlib.h>

enum err yaml_parser_failure(const yaml_parser_t *p, const char *buf, size_t len,
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
