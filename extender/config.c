/* SPDX-License-Identifier: Apache-2.0 */
/* The service configuration: libyaml events -> struct config, driven by a
 * table of field descriptors. Owns the file format (keys, types, units,
 * ranges, cross-field rules) and its "origin:LINE:COL: problem" messages; it
 * knows nothing of what the settings do.
 *
 * The text is read twice. The first pass only checks that it is YAML this
 * loader accepts at all: well-formed, one document, no anchors, aliases or
 * tags, nesting at most CONFIG_MAX_DEPTH. The second pass walks the schema,
 * which therefore never meets anything deeper than the schema itself, and
 * stops at the first wrong key or value. Everything is loaded into a scratch
 * config that replaces the caller's only on success. */
#include "config.h"
#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/net_addr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "topology/quantity.h"
#include "base/xalloc.h"
#include "extender/codec/yaml_error.h"

/* Bounds on what a config may cost: input bytes, collection nesting, and
 * entries of one list (scoring.resources, tls.clientNames). */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)
#define CONFIG_MAX_DEPTH 16
#define CONFIG_MAX_LIST 256

/* Room for a field path such as "scoring.resources[255].weight". */
#define PATH_CAP 96
/* Room for a value quoted into a message (64 bytes shown, each up to \xNN). */
#define QUOTE_CAP (64 * 4 + 8)

/* Keys whose positions the cross-field checks and list checks need. */
enum slot {
	SLOT_NONE,
	SLOT_METRICS_LISTEN,
	SLOT_TLS_CERT,
	SLOT_TLS_KEY,
	SLOT_TLS_CA,
	SLOT_TLS_NAMES,
	SLOT_KUBECONFIG,
	SLOT_RES_NAME,
	SLOT_BIND,
	SLOT_MAX_BUFFERED,
	SLOT_COUNT,
};

struct loader {
	const char *origin;
	const char *buf;
	size_t len;
	struct errmsg *msg;
	yaml_parser_t parser;
	yaml_event_t ev;          /* the current event of the schema pass */
	bool have_event;
	yaml_mark_t key_mark[SLOT_COUNT];
	yaml_mark_t value_mark[SLOT_COUNT];
};

/* How a field's value is read. A null value ("key:", "~", "null") keeps the
 * default for every kind, as if the key were absent. */
enum kind {
	K_STRING,     /* char *, plain or quoted; check() may refuse or shorten it */
	K_INT,        /* int64_t, decimal, plain scalar only */
	K_DURATION,   /* int64_t milliseconds from "500ms", "5s", "2m", "1h" */
	K_BYTES,      /* int64_t bytes from a Kubernetes quantity */
	K_ENUM,       /* one of names[], stored by set() */
	K_STRATEGY,   /* enum score_strategy, by score_strategy_name */
	K_SECTION,    /* a mapping of fields[] over the same base */
	K_NAMES,      /* a list of non-empty strings: char ** at offset, size_t at count */
	K_WEIGHTS,    /* scoring.resources into the struct score_config at offset */
};

typedef enum err (*check_fn)(struct loader *l, const char *path,
			     const yaml_mark_t *m, const char *text, size_t *len);

struct field {
	const char *key;
	enum kind kind;
	size_t offset;
	size_t count;                 /* K_NAMES: offset of the size_t count */
	int64_t min, max;             /* K_INT, K_DURATION, K_BYTES */
	const char *range;            /* min..max as messages show it */
	const char *below;            /* K_DURATION: the problem when below min */
	check_fn check;               /* K_STRING: validate, maybe shorten */
	const char *const *names;     /* K_ENUM, NULL-terminated */
	void (*set)(void *base, int value);   /* K_ENUM, K_STRATEGY */
	const struct field *fields;   /* K_SECTION and K_WEIGHTS items */
	size_t nfields;
	enum slot slot;
};

/* ---- Messages ---------------------------------------------------------- */

static enum err fail(struct loader *l, const yaml_mark_t *m, enum err rc,
		     const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum err fail(struct loader *l, const yaml_mark_t *m, enum err rc,
		     const char *path, const char *fmt, ...)
{
	char problem[sizeof l->msg->text];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	if (path != NULL && path[0] != '\0')
		errmsg_set(l->msg, "%s:%zu:%zu: %s: %s", l->origin, m->line + 1,
			   m->column + 1, path, problem);
	else
		errmsg_set(l->msg, "%s:%zu:%zu: %s", l->origin, m->line + 1,
			   m->column + 1, problem);
	return rc;
}

/* text as a double-quoted single-line literal: non-printable bytes become
 * \xNN and anything past 64 bytes is cut with "...", so hostile values
 * cannot flood or garble a log line. */
static void quote(char *out, size_t cap, const char *text, size_t len)
{
	doc_quote(out, cap, text, len);
}

/* A number's text for "X is out of range": already checked to be printable
 * by its grammar, only possibly long. */
static void shown(char *out, size_t cap, const char *text, size_t len)
{
	if (len + 1 <= cap) {
		memcpy(out, text, len);
		out[len] = '\0';
	} else {
		memcpy(out, text, cap - 4);
		memcpy(out + cap - 4, "...", 4);
	}
}

/* out = path + suffix, cut to fit; every path is built from the schema's
 * own keys and list indexes, far below the cap. */
static void path_append(char out[PATH_CAP], const char *path, const char *suffix)
{
	size_t a = strnlen(path, PATH_CAP - 1);
	size_t b = strnlen(suffix, PATH_CAP - 1 - a);

	memmove(out, path, a);
	memcpy(out + a, suffix, b);
	out[a + b] = '\0';
}

static void path_index(char out[PATH_CAP], const char *path, size_t i)
{
	char seg[24];

	snprintf(seg, sizeof seg, "[%zu]", i);
	path_append(out, path, seg);
}

static const char *event_kind(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a sequence";
	default:
		return "a scalar";
	}
}

/* libyaml's own complaint, in the same "origin:LINE:COL:" shape. */
static enum err yaml_failure(struct loader *l, const yaml_parser_t *p)
{
	return yaml_parser_failure(p, l->buf, l->len, l->origin, l->msg);
}

/* ---- Pass 1: is this YAML we accept? ----------------------------------- */

static void parser_open(struct loader *l, yaml_parser_t *p)
{
	if (!yaml_parser_initialize(p))
		abort(); /* only fails for memory */
	/* libyaml asserts on a NULL input even when it is empty. */
	yaml_parser_set_input_string(p, (const unsigned char *)(l->buf ? l->buf : ""),
				     l->len);
}

static enum err check_event(struct loader *l, const yaml_event_t *ev,
			    size_t *depth, size_t *ndocs)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return fail(l, &ev->start_mark, ERR_PARSE, NULL,
			    "anchors and aliases are not allowed");
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		(*depth)--;
		return ERR_OK;
	case YAML_DOCUMENT_START_EVENT:
		if (++*ndocs > 1)
			return fail(l, &ev->start_mark, ERR_PARSE, NULL,
				    "only one YAML document is allowed");
		return ERR_OK;
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return ERR_OK;
	}
	if (anchor != NULL)
		return fail(l, &ev->start_mark, ERR_PARSE, NULL,
			    "anchors and aliases are not allowed");
	/* A tag would ask for a typing this loader does not implement; every
	 * field already says how its text is read. */
	if (tag != NULL)
		return fail(l, &ev->start_mark, ERR_PARSE, NULL, "tags are not allowed");
	if (ev->type != YAML_SCALAR_EVENT && ++*depth > CONFIG_MAX_DEPTH)
		return fail(l, &ev->start_mark, ERR_PARSE, NULL, "nested too deep");
	return ERR_OK;
}

static enum err check_stream(struct loader *l)
{
	yaml_parser_t p;
	yaml_event_t ev;
	size_t depth = 0, ndocs = 0;
	enum err rc = ERR_OK;
	bool end = false;

	parser_open(l, &p);
	while (!end) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = yaml_failure(l, &p);
			goto out;
		}
		end = ev.type == YAML_STREAM_END_EVENT;
		rc = check_event(l, &ev, &depth, &ndocs);
		yaml_event_delete(&ev);
		if (rc != ERR_OK)
			goto out;
	}
out:
	yaml_parser_delete(&p);
	return rc;
}

/* ---- Pass 2: the schema walk ------------------------------------------- */

/* Makes the next event current. */
static enum err next(struct loader *l)
{
	if (l->have_event) {
		yaml_event_delete(&l->ev);
		l->have_event = false;
	}
	if (!yaml_parser_parse(&l->parser, &l->ev))
		return yaml_failure(l, &l->parser);
	l->have_event = true;
	return ERR_OK;
}

static const char *ev_text(const yaml_event_t *ev)
{
	return (const char *)ev->data.scalar.value;
}

static bool ev_is_plain(const yaml_event_t *ev)
{
	return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* An omitted value ("key:"), "~" or "null", unquoted: the key counts as
 * absent, as Kubernetes treats null in its own YAML. */
static bool ev_is_null(const yaml_event_t *ev)
{
	static const char *const spellings[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	if (ev->type != YAML_SCALAR_EVENT || !ev_is_plain(ev))
		return false;
	for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		if (strlen(spellings[i]) == ev->data.scalar.length &&
		    memcmp(spellings[i], ev_text(ev), ev->data.scalar.length) == 0)
			return true;
	}
	return false;
}

static bool text_is(const char *text, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(text, word, len) == 0;
}

static void *at(void *base, size_t offset)
{
	return (char *)base + offset;
}

/* Decimal integer: optional '-', digits, no leading zeros (YAML 1.1 would
 * read "010" as octal; refusing it avoids guessing). 0 ok, -1 not an
 * integer, 1 does not fit in int64_t. */
static int parse_int(const char *text, size_t len, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0, limit;
	size_t i = 0;

	if (len > 0 && text[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == len)
		return -1;
	if (text[i] == '0' && len - i > 1)
		return -1;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		unsigned d = (unsigned char)text[i] - (unsigned)'0';

		if (d > 9)
			return -1;
		if (v > (limit - d) / 10) {
			/* Still check the rest is digits, for the right message. */
			for (; i < len; i++) {
				if ((unsigned char)text[i] - (unsigned)'0' > 9)
					return -1;
			}
			return 1;
		}
		v = v * 10 + d;
	}
	*out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v)
		   : (int64_t)v;
	return 0;
}

/* An integer and one unit of ms, s, m, h, into milliseconds. 0 ok, -1 not a
 * duration, -2 a number without a unit, 1 too large. */
static int parse_duration(const char *text, size_t len, int64_t *ms)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 } };
	size_t start = len > 0 && text[0] == '-' ? 1 : 0, end = start, i;
	int64_t v = 0;
	int rc;

	while (end < len && (unsigned char)text[end] - (unsigned)'0' <= 9)
		end++;
	if (end == start)
		return -1;
	if (end == len)
		return -2;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (!text_is(text + end, len - end, units[i].unit))
			continue;
		/* Leading zeros are harmless here: no YAML typing competes. */
		while (end - start > 1 && text[start] == '0')
			start++;
		if ((rc = parse_int(text + start, end - start, &v)) != 0)
			return rc;
		if (v > INT64_MAX / units[i].ms)
			return 1;
		v *= units[i].ms;
		*ms = text[0] == '-' ? -v : v;
		return 0;
	}
	return -1;
}

static enum err expect_scalar(struct loader *l, const char *path,
			      const char *what)
{
	if (l->ev.type == YAML_SCALAR_EVENT)
		return ERR_OK;
	return fail(l, &l->ev.start_mark, ERR_INVALID, path, "expected %s, got %s",
		    what, event_kind(&l->ev));
}

static enum err no_nul(struct loader *l, const char *path)
{
	if (memchr(ev_text(&l->ev), '\0', l->ev.data.scalar.length) == NULL)
		return ERR_OK;
	return fail(l, &l->ev.start_mark, ERR_INVALID, path,
		    "must not contain a NUL byte");
}

static enum err parse_string(struct loader *l, const struct field *f,
			     void *base, const char *path)
{
	char **dst = at(base, f->offset);
	size_t len;
	enum err rc;

	if ((rc = expect_scalar(l, path, "a string")) != ERR_OK ||
	    (rc = no_nul(l, path)) != ERR_OK)
		return rc;
	len = l->ev.data.scalar.length;
	if (f->check != NULL &&
	    (rc = f->check(l, path, &l->ev.start_mark, ev_text(&l->ev), &len)) != ERR_OK)
		return rc;
	free(*dst);
	*dst = xstrndup(ev_text(&l->ev), len);
	return ERR_OK;
}

static enum err range_error(struct loader *l, const struct field *f,
			    const char *path)
{
	char text[40];

	shown(text, sizeof text, ev_text(&l->ev), l->ev.data.scalar.length);
	return fail(l, &l->ev.start_mark, ERR_RANGE, path, "%s is out of range (%s)",
		    text, f->range);
}

static enum err parse_integer(struct loader *l, const struct field *f,
			      void *base, const char *path)
{
	char q[QUOTE_CAP];
	int64_t v = 0;
	enum err rc;
	int r;

	if ((rc = expect_scalar(l, path, "an integer")) != ERR_OK)
		return rc;
	quote(q, sizeof q, ev_text(&l->ev), l->ev.data.scalar.length);
	/* A quoted "12" is a string in YAML, and in Kubernetes' own decoding;
	 * say so rather than guess. */
	if (!ev_is_plain(&l->ev))
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected an integer, got the string %s", q);
	r = parse_int(ev_text(&l->ev), l->ev.data.scalar.length, &v);
	if (r < 0)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected an integer, got %s", q);
	if (r > 0 || v < f->min || v > f->max)
		return range_error(l, f, path);
	*(int64_t *)at(base, f->offset) = v;
	return ERR_OK;
}

static enum err parse_dur(struct loader *l, const struct field *f, void *base,
			  const char *path)
{
	char q[QUOTE_CAP];
	int64_t v = 0;
	enum err rc;
	int r;

	if ((rc = expect_scalar(l, path, "a duration")) != ERR_OK)
		return rc;
	quote(q, sizeof q, ev_text(&l->ev), l->ev.data.scalar.length);
	r = parse_duration(ev_text(&l->ev), l->ev.data.scalar.length, &v);
	if (r == -2)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "a duration needs a unit (ms, s, m, h), got %s", q);
	if (r < 0)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected a duration such as 500ms, 30s, 5m or 1h, got %s", q);
	if (r == 0 && v < f->min && v >= 0 && f->below != NULL)
		return fail(l, &l->ev.start_mark, ERR_RANGE, path, "%s", f->below);
	if (r > 0 || v < f->min || v > f->max)
		return range_error(l, f, path);
	*(int64_t *)at(base, f->offset) = v;
	return ERR_OK;
}

static enum err parse_bytes(struct loader *l, const struct field *f, void *base,
			    const char *path)
{
	struct errmsg qmsg = { { 0 } };
	struct quantity q;
	char text[QUOTE_CAP];
	int64_t v = 0;
	enum err rc;

	if ((rc = expect_scalar(l, path, "a quantity of bytes")) != ERR_OK)
		return rc;
	rc = quantity_parse(ev_text(&l->ev), l->ev.data.scalar.length, &q, &qmsg);
	if (rc == ERR_RANGE)
		return range_error(l, f, path);
	if (rc != ERR_OK)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path, "%s", qmsg.text);
	if (!quantity_is_exact(&q, 0)) {
		quote(text, sizeof text, ev_text(&l->ev), l->ev.data.scalar.length);
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "%s is not a whole number of bytes", text);
	}
	if (quantity_scaled(&q, 0, &v) != ERR_OK || v < f->min || v > f->max)
		return range_error(l, f, path);
	*(int64_t *)at(base, f->offset) = v;
	return ERR_OK;
}

/* The current event names one of names[] (NULL-terminated): *index. */
static enum err parse_choice(struct loader *l, const char *path,
			     const char *const *names, size_t *index)
{
	char choices[160] = "", q[QUOTE_CAP];
	size_t i, n = 0;

	for (i = 0; names[i] != NULL; i++)
		n += (size_t)snprintf(choices + n, sizeof choices - n, "%s%s",
				      i ? ", " : "", names[i]);
	if (l->ev.type != YAML_SCALAR_EVENT)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected one of %s, got %s", choices, event_kind(&l->ev));
	for (i = 0; names[i] != NULL; i++) {
		if (text_is(ev_text(&l->ev), l->ev.data.scalar.length, names[i])) {
			*index = i;
			return ERR_OK;
		}
	}
	quote(q, sizeof q, ev_text(&l->ev), l->ev.data.scalar.length);
	return fail(l, &l->ev.start_mark, ERR_INVALID, path,
		    "expected one of %s, got %s", choices, q);
}

static enum err parse_enum(struct loader *l, const struct field *f, void *base,
			   const char *path)
{
	size_t i;
	enum err rc = parse_choice(l, path, f->names, &i);

	if (rc == ERR_OK)
		f->set(base, (int)i);
	return rc;
}

/* The strategies by the names topology/score.c gives them. */
static enum err parse_strategy(struct loader *l, const struct field *f,
			       void *base, const char *path)
{
	static const enum score_strategy all[] = {
		SCORE_LEAST_ALLOCATED, SCORE_MOST_ALLOCATED,
		SCORE_BALANCED_ALLOCATION, SCORE_LEAST_NUMA_NODES,
	};
	const char *names[sizeof all / sizeof all[0] + 1];
	size_t i;
	enum err rc;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		names[i] = score_strategy_name(all[i]);
	names[i] = NULL;
	rc = parse_choice(l, path, names, &i);
	if (rc == ERR_OK)
		f->set(base, (int)all[i]);
	return rc;
}

static enum err parse_mapping(struct loader *l, const struct field *fields,
			      size_t nfields, void *base, const char *path);

static enum err parse_section(struct loader *l, const struct field *f,
			      void *base, const char *path)
{
	if (l->ev.type != YAML_MAPPING_START_EVENT)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected a mapping, got %s", event_kind(&l->ev));
	return parse_mapping(l, f->fields, f->nfields, base, path);
}

static enum err expect_sequence(struct loader *l, const char *path)
{
	if (l->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(l, &l->ev.start_mark, ERR_INVALID, path,
			    "expected a sequence, got %s", event_kind(&l->ev));
	return ERR_OK;
}

/* In a sequence (path) of at most CONFIG_MAX_LIST entries, n of them read
 * so far: steps to the next entry, whose path goes to item, or to the
 * sequence's end (*end). */
static enum err next_entry(struct loader *l, const char *path, size_t n,
			   char item[PATH_CAP], bool *end)
{
	enum err rc;

	*end = false;
	if ((rc = next(l)) != ERR_OK)
		return rc;
	if (l->ev.type == YAML_SEQUENCE_END_EVENT) {
		*end = true;
		return ERR_OK;
	}
	path_index(item, path, n);
	if (n == CONFIG_MAX_LIST)
		return fail(l, &l->ev.start_mark, ERR_TOO_LARGE, path,
			    "more than %d entries", CONFIG_MAX_LIST);
	return ERR_OK;
}

static enum err parse_names(struct loader *l, const struct field *f, void *base,
			    const char *path)
{
	char ***list = at(base, f->offset);
	size_t *n = at(base, f->count);
	char item[PATH_CAP];
	bool end;
	enum err rc;

	if ((rc = expect_sequence(l, path)) != ERR_OK)
		return rc;
	for (;;) {
		if ((rc = next_entry(l, path, *n, item, &end)) != ERR_OK || end)
			return rc;
		if (ev_is_null(&l->ev))
			return fail(l, &l->ev.start_mark, ERR_INVALID, item,
				    "expected a string, got null");
		if ((rc = expect_scalar(l, item, "a string")) != ERR_OK ||
		    (rc = no_nul(l, item)) != ERR_OK)
			return rc;
		if (l->ev.data.scalar.length == 0)
			return fail(l, &l->ev.start_mark, ERR_INVALID, item,
				    "must not be empty");
		*list = xreallocarray(*list, *n + 1, sizeof **list);
		(*list)[(*n)++] = xstrndup(ev_text(&l->ev), l->ev.data.scalar.length);
	}
}

static enum err parse_weights(struct loader *l, const struct field *f,
			      void *base, const char *path)
{
	struct score_config *sc = at(base, f->offset);
	char item[PATH_CAP], name_path[PATH_CAP], q[QUOTE_CAP];
	struct score_weight *w;
	yaml_mark_t start;
	size_t i;
	bool end;
	enum err rc;

	if ((rc = expect_sequence(l, path)) != ERR_OK)
		return rc;
	for (;;) {
		if ((rc = next_entry(l, path, sc->nweights, item, &end)) != ERR_OK ||
		    end)
			return rc;
		if (l->ev.type != YAML_MAPPING_START_EVENT)
			return fail(l, &l->ev.start_mark, ERR_INVALID, item,
				    "expected a mapping with name and weight, got %s",
				    event_kind(&l->ev));
		start = l->ev.start_mark;
		/* Appended before it is filled, so that the scratch config's
		 * cleanup frees a half-read entry too. -1 marks "no weight". */
		sc->weights = xreallocarray(sc->weights, sc->nweights + 1,
					    sizeof *sc->weights);
		w = &sc->weights[sc->nweights++];
		w->name = NULL;
		w->weight = -1;
		if ((rc = parse_mapping(l, f->fields, f->nfields, w, item)) != ERR_OK)
			return rc;
		if (w->name == NULL)
			return fail(l, &start, ERR_INVALID, item, "missing key \"name\"");
		if (w->weight < 0)
			return fail(l, &start, ERR_INVALID, item, "missing key \"weight\"");
		for (i = 0; i + 1 < sc->nweights; i++) {
			if (strcmp(sc->weights[i].name, w->name) != 0)
				continue;
			path_append(name_path, item, ".name");
			quote(q, sizeof q, w->name, strlen(w->name));
			return fail(l, &l->value_mark[SLOT_RES_NAME], ERR_INVALID,
				    name_path, "%s is listed twice (also resources[%zu])",
				    q, i);
		}
	}
}

static enum err parse_value(struct loader *l, const struct field *f, void *base,
			    const char *path)
{
	if (ev_is_null(&l->ev))
		return ERR_OK;
	switch (f->kind) {
	case K_STRING:
		return parse_string(l, f, base, path);
	case K_INT:
		return parse_integer(l, f, base, path);
	case K_DURATION:
		return parse_dur(l, f, base, path);
	case K_BYTES:
		return parse_bytes(l, f, base, path);
	case K_ENUM:
		return parse_enum(l, f, base, path);
	case K_STRATEGY:
		return parse_strategy(l, f, base, path);
	case K_SECTION:
		return parse_section(l, f, base, path);
	case K_NAMES:
		return parse_names(l, f, base, path);
	case K_WEIGHTS:
		return parse_weights(l, f, base, path);
	}
	abort(); /* every kind is handled above */
}

/* The current event is MAPPING_START; consumes up to its MAPPING_END. */
static enum err parse_mapping(struct loader *l, const struct field *fields,
			      size_t nfields, void *base, const char *path)
{
	char q[QUOTE_CAP], sub[PATH_CAP];
	uint32_t seen = 0;
	const struct field *f;
	size_t i;
	enum err rc;

	for (;;) {
		if ((rc = next(l)) != ERR_OK)
			return rc;
		if (l->ev.type == YAML_MAPPING_END_EVENT)
			return ERR_OK;
		if (l->ev.type != YAML_SCALAR_EVENT)
			return fail(l, &l->ev.start_mark, ERR_PARSE, path,
				    "a mapping key must be a scalar, got %s",
				    event_kind(&l->ev));
		f = NULL;
		for (i = 0; i < nfields && f == NULL; i++) {
			if (text_is(ev_text(&l->ev), l->ev.data.scalar.length, fields[i].key))
				f = &fields[i];
		}
		if (f == NULL) {
			quote(q, sizeof q, ev_text(&l->ev), l->ev.data.scalar.length);
			return fail(l, &l->ev.start_mark, ERR_INVALID, path,
				    "unknown key %s", q);
		}
		/* libyaml does not report repeated keys, and which value a
		 * reader keeps differs between readers: refuse them. */
		if (seen & (UINT32_C(1) << (f - fields))) {
			quote(q, sizeof q, ev_text(&l->ev), l->ev.data.scalar.length);
			return fail(l, &l->ev.start_mark, ERR_PARSE, path,
				    "duplicate key %s", q);
		}
		seen |= UINT32_C(1) << (f - fields);
		if (f->slot != SLOT_NONE)
			l->key_mark[f->slot] = l->ev.start_mark;
		path_append(sub, path, path[0] ? "." : "");
		path_append(sub, sub, f->key);
		if ((rc = next(l)) != ERR_OK)
			return rc;
		if (f->slot != SLOT_NONE)
			l->value_mark[f->slot] = l->ev.start_mark;
		if ((rc = parse_value(l, f, base, sub)) != ERR_OK)
			return rc;
	}
}

/* ---- The schema -------------------------------------------------------- */

static enum err check_hostport(struct loader *l, const char *path,
			       const yaml_mark_t *m, const char *text, size_t *len)
{
	struct errmsg sub = { { 0 } };
	char *host = NULL;
	int port = 0;

	(void)len;
	if (net_split_hostport(text, &host, &port, &sub) != ERR_OK)
		return fail(l, m, ERR_INVALID, path, "%s", sub.text);
	free(host);
	return ERR_OK;
}

static enum err check_nonempty(struct loader *l, const char *path,
			       const yaml_mark_t *m, const char *text, size_t *len)
{
	(void)text;
	if (*len == 0)
		return fail(l, m, ERR_INVALID, path, "must not be empty");
	return ERR_OK;
}

/* "" or "/a/b": routes are prefix + "/filter", so a trailing slash would
 * double up, and a lone "/" means no prefix. */
static enum err check_url_prefix(struct loader *l, const char *path,
				 const yaml_mark_t *m, const char *text, size_t *len)
{
	char q[QUOTE_CAP];
	size_t i;

	if (*len == 1 && text[0] == '/') {
		*len = 0;
		return ERR_OK;
	}
	if (*len == 0)
		return ERR_OK;
	quote(q, sizeof q, text, *len);
	if (text[0] != '/')
		return fail(l, m, ERR_INVALID, path, "%s: must start with \"/\"", q);
	if (text[*len - 1] == '/')
		return fail(l, m, ERR_INVALID, path, "%s: must not end with \"/\"", q);
	for (i = 0; i < *len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c <= 0x20 || c == 0x7f || c == '?' || c == '#')
			return fail(l, m, ERR_INVALID, path,
				    "%s: must not contain spaces, control characters, \"?\" or \"#\"",
				    q);
	}
	return ERR_OK;
}

static void set_source(void *base, int v)
{
	((struct config *)base)->inventory_source = (enum config_source)v;
}

static void set_on_stale(void *base, int v)
{
	((struct config *)base)->on_stale = (enum config_on_stale)v;
}

static void set_missing(void *base, int v)
{
	((struct config *)base)->missing_inventory = (enum config_missing)v;
}

static void set_log_level(void *base, int v)
{
	((struct config *)base)->log_level = (enum log_level)v;
}

static void set_strategy(void *base, int v)
{
	((struct config *)base)->scoring.strategy = (enum score_strategy)v;
}

static void set_ledger_enabled(void *base, int v)
{
	((struct config *)base)->ledger_enabled = v != 0;
}

static void set_ledger_mode(void *base, int v)
{
	((struct config *)base)->ledger_mode = (enum ledger_mode)v;
}

static void set_bind_enabled(void *base, int v)
{
	((struct config *)base)->bind_enabled = v != 0;
}

/* In enum order, so that the index is the value (the ledger and log own
 * theirs). */
static const char *const bool_names[] = { "false", "true", NULL };
static const char *const source_names[] = { "files", "kubernetes", NULL };
static const char *const on_stale_names[] = { "failClosed", "failOpen", NULL };
static const char *const missing_names[] = { "allow", "deny", NULL };

#define NFIELDS(a) (sizeof (a) / sizeof (a)[0])
#define CFG(member) offsetof(struct config, member)

static const struct field tls_fields[] = {
	{ .key = "certFile", .kind = K_STRING, .offset = CFG(tls_cert_file),
	  .check = check_nonempty, .slot = SLOT_TLS_CERT },
	{ .key = "keyFile", .kind = K_STRING, .offset = CFG(tls_key_file),
	  .check = check_nonempty, .slot = SLOT_TLS_KEY },
	{ .key = "clientCAFile", .kind = K_STRING, .offset = CFG(tls_client_ca_file),
	  .check = check_nonempty, .slot = SLOT_TLS_CA },
	{ .key = "clientNames", .kind = K_NAMES, .offset = CFG(tls_client_names),
	  .count = CFG(ntls_client_names), .slot = SLOT_TLS_NAMES },
};

static const struct field inventory_fields[] = {
	{ .key = "source", .kind = K_ENUM, .names = source_names, .set = set_source },
	{ .key = "dir", .kind = K_STRING, .offset = CFG(inventory_dir),
	  .check = check_nonempty },
	{ .key = "pollInterval", .kind = K_DURATION, .offset = CFG(inventory_poll_ms),
	  .min = 50, .max = 3600000, .range = "50ms..1h" },
	{ .key = "maxFileBytes", .kind = K_BYTES, .offset = CFG(inventory_max_file_bytes),
	  .min = 1024, .max = (int64_t)64 << 20, .range = "1Ki..64Mi" },
	{ .key = "kubeconfig", .kind = K_STRING, .offset = CFG(kubeconfig),
	  .check = check_nonempty, .slot = SLOT_KUBECONFIG },
	{ .key = "staleAfter", .kind = K_DURATION, .offset = CFG(stale_after_ms),
	  .min = 1000, .max = 86400000, .range = "1s..24h" },
	{ .key = "onStale", .kind = K_ENUM, .names = on_stale_names, .set = set_on_stale },
	{ .key = "watchIdleTimeout", .kind = K_DURATION, .offset = CFG(watch_idle_timeout_ms),
	  .min = 1000, .max = 3600000, .range = "1s..1h" },
	{ .key = "requestTimeout", .kind = K_DURATION, .offset = CFG(request_timeout_ms),
	  .min = 1000, .max = 600000, .range = "1s..10m" },
	{ .key = "maxEventBytes", .kind = K_BYTES, .offset = CFG(max_event_bytes),
	  .min = 64 * 1024, .max = (int64_t)1 << 30, .range = "64Ki..1Gi" },
};

static const struct field weight_fields[] = {
	{ .key = "name", .kind = K_STRING, .offset = offsetof(struct score_weight, name),
	  .check = check_nonempty, .slot = SLOT_RES_NAME },
	{ .key = "weight", .kind = K_INT, .offset = offsetof(struct score_weight, weight),
	  .min = 0, .max = SCORE_MAX_WEIGHT, .range = "0..100" },
};

static const struct field scoring_fields[] = {
	{ .key = "strategy", .kind = K_STRATEGY, .set = set_strategy },
	{ .key = "resources", .kind = K_WEIGHTS, .offset = CFG(scoring),
	  .fields = weight_fields, .nfields = NFIELDS(weight_fields) },
};

static const struct field limits_fields[] = {
	{ .key = "maxBodyBytes", .kind = K_BYTES, .offset = CFG(max_body_bytes),
	  .min = 1024, .max = 1024 * 1024 * 1024, .range = "1Ki..1Gi" },
	{ .key = "maxConnections", .kind = K_INT, .offset = CFG(max_connections),
	  .min = 1, .max = 100000, .range = "1..100000" },
	/* kube-scheduler's Go transport drops idle connections after 90 s;
	 * a server that closes at the same moment races it and a request
	 * sent on a dying connection fails. */
	{ .key = "idleTimeout", .kind = K_DURATION, .offset = CFG(idle_timeout_ms),
	  .min = 90001, .max = 3600000, .range = "more than 90s, up to 1h",
	  .below = "must be more than 90s (kube-scheduler closes idle connections at 90s)" },
	/* From accept (or from the request line on a kept-alive connection)
	 * to the last byte of the request: silent and trickling clients give
	 * their connection back after this, whatever the idle timeout. */
	{ .key = "requestTimeout", .kind = K_DURATION, .offset = CFG(http_request_timeout_ms),
	  .min = 1000, .max = 600000, .range = "1s..10m" },
	/* kube-scheduler comes from one address: keep this well above the
	 * binds it runs at once (0 turns the cap off). */
	{ .key = "maxConnectionsPerClient", .kind = K_INT,
	  .offset = CFG(max_connections_per_client),
	  .min = 0, .max = 100000, .range = "0..100000" },
	{ .key = "maxBufferedBytes", .kind = K_BYTES, .offset = CFG(max_buffered_bytes),
	  .min = 1024, .max = (int64_t)1 << 40, .range = "1Ki..1Ti", .slot = SLOT_MAX_BUFFERED },
};

/* limits: the buffer shared by all requests must hold the largest one
 * (unset, it grows with maxBodyBytes). */
static enum err check_limits(struct loader *l, const struct config *c)
{
	if (c->max_buffered_bytes != 0 && c->max_buffered_bytes < c->max_body_bytes)
		return fail(l, &l->value_mark[SLOT_MAX_BUFFERED], ERR_INVALID,
			    "limits.maxBufferedBytes",
			    "%lld is less than limits.maxBodyBytes (%lld): the largest body "
			    "allowed could never be taken",
			    (long long)c->max_buffered_bytes, (long long)c->max_body_bytes);
	return ERR_OK;
}

static const struct field decision_log_fields[] = {
	{ .key = "path", .kind = K_STRING, .offset = CFG(decision_log_path),
	  .check = check_nonempty },
	{ .key = "maxBytes", .kind = K_BYTES, .offset = CFG(decision_log_max_bytes),
	  .min = 64 * 1024, .max = (int64_t)1 << 40, .range = "64Ki..1Ti" },
	{ .key = "maxFiles", .kind = K_INT, .offset = CFG(decision_log_max_files),
	  .min = 1, .max = 100, .range = "1..100" },
	{ .key = "queue", .kind = K_INT, .offset = CFG(decision_log_queue),
	  .min = 16, .max = 1000000, .range = "16..1000000" },
};

static const struct field ledger_fields[] = {
	{ .key = "enabled", .kind = K_ENUM, .names = bool_names, .set = set_ledger_enabled },
	{ .key = "mode", .kind = K_ENUM, .names = ledger_mode_names, .set = set_ledger_mode },
	{ .key = "assumeTTL", .kind = K_DURATION, .offset = CFG(ledger_assume_ttl_ms),
	  .min = 1000, .max = 3600000, .range = "1s..1h" },
	{ .key = "maxAssumeAge", .kind = K_DURATION, .offset = CFG(ledger_max_assume_age_ms),
	  .min = 1000, .max = 86400000, .range = "1s..24h" },
};

static const struct field bind_fields[] = {
	{ .key = "enabled", .kind = K_ENUM, .names = bool_names, .set = set_bind_enabled,
	  .slot = SLOT_BIND },
};

static const struct field log_fields[] = {
	{ .key = "level", .kind = K_ENUM, .names = log_level_names, .set = set_log_level },
};

static const struct field top_fields[] = {
	{ .key = "listen", .kind = K_STRING, .offset = CFG(listen),
	  .check = check_hostport },
	{ .key = "metricsListen", .kind = K_STRING, .offset = CFG(metrics_listen),
	  .check = check_hostport, .slot = SLOT_METRICS_LISTEN },
	{ .key = "urlPrefix", .kind = K_STRING, .offset = CFG(url_prefix),
	  .check = check_url_prefix },
	{ .key = "tls", .kind = K_SECTION, .fields = tls_fields,
	  .nfields = NFIELDS(tls_fields) },
	{ .key = "inventory", .kind = K_SECTION, .fields = inventory_fields,
	  .nfields = NFIELDS(inventory_fields) },
	{ .key = "missingInventory", .kind = K_ENUM, .names = missing_names,
	  .set = set_missing },
	{ .key = "scoring", .kind = K_SECTION, .fields = scoring_fields,
	  .nfields = NFIELDS(scoring_fields) },
	{ .key = "limits", .kind = K_SECTION, .fields = limits_fields,
	  .nfields = NFIELDS(limits_fields) },
	{ .key = "threads", .kind = K_INT, .offset = CFG(threads),
	  .min = 1, .max = 64, .range = "1..64" },
	{ .key = "log", .kind = K_SECTION, .fields = log_fields,
	  .nfields = NFIELDS(log_fields) },
	{ .key = "decisionLog", .kind = K_SECTION, .fields = decision_log_fields,
	  .nfields = NFIELDS(decision_log_fields) },
	{ .key = "ledger", .kind = K_SECTION, .fields = ledger_fields,
	  .nfields = NFIELDS(ledger_fields) },
	{ .key = "bind", .kind = K_SECTION, .fields = bind_fields,
	  .nfields = NFIELDS(bind_fields) },
};

/* A listener only this machine can reach (NULL: the main one stands in). */
static bool loopback(const char *hostport)
{
	return hostport == NULL || net_hostport_is_loopback(hostport);
}

/* A rule between keys that a configuration breaks: the key it points at,
 * its section and the problem; detail names the value for messages that
 * have no file position to point at. */
struct violation {
	int slot;
	const char *section;
	const char *problem;
	char detail[160];
};

#define UNAUTHENTICATED_BIND \
	"enabled needs mTLS (tls.clientCAFile) or listeners on loopback only; " \
	"anyone who can reach an unauthenticated /bind can place pods"

/* The rules between keys, on a finished configuration; false when one is
 * broken (the first, in *v). */
static bool find_violation(const struct config *c, struct violation *v)
{
	bool cert = c->tls_cert_file != NULL, key = c->tls_key_file != NULL;

	memset(v, 0, sizeof *v);
	v->section = "tls";
	if (cert && !key) {
		v->slot = SLOT_TLS_CERT;
		v->problem = "certFile needs keyFile";
	} else if (key && !cert) {
		v->slot = SLOT_TLS_KEY;
		v->problem = "keyFile needs certFile";
	} else if (c->tls_client_ca_file != NULL && !cert) {
		v->slot = SLOT_TLS_CA;
		v->problem = "clientCAFile needs certFile and keyFile";
	} else if (c->ntls_client_names > 0 && c->tls_client_ca_file == NULL) {
		v->slot = SLOT_TLS_NAMES;
		v->problem = "clientNames needs clientCAFile";
	} else if (c->kubeconfig != NULL && c->inventory_source != CONFIG_SOURCE_KUBERNETES) {
		v->slot = SLOT_KUBECONFIG;
		v->section = "inventory";
		v->problem = "kubeconfig needs source: kubernetes";
	} else if (c->bind_enabled && c->inventory_source != CONFIG_SOURCE_KUBERNETES) {
		v->slot = SLOT_BIND;
		v->section = "bind";
		v->problem = "enabled needs inventory.source: kubernetes (bind talks to the API server)";
	} else if (c->bind_enabled && c->tls_client_ca_file == NULL &&
		   (!loopback(c->listen) || !loopback(c->metrics_listen))) {
		/* Whoever can call bind can place pods: only the scheduler may. */
		bool main_off = !loopback(c->listen);

		v->slot = SLOT_BIND;
		v->section = "bind";
		v->problem = UNAUTHENTICATED_BIND;
		snprintf(v->detail, sizeof v->detail, "%s \"%.100s\" is not a loopback address",
			 main_off ? "listen" : "metricsListen",
			 main_off ? c->listen : c->metrics_listen);
	} else {
		/* Two listeners cannot share a port; only the same text is
		 * caught here, the bind reports the rest. Port 0 picks two
		 * free ports. */
		char *host = NULL;
		int port = 0;
		bool clash;

		if (c->metrics_listen == NULL || strcmp(c->metrics_listen, c->listen) != 0)
			return true;
		clash = net_split_hostport(c->listen, &host, &port, NULL) == ERR_OK && port != 0;
		free(host);
		if (!clash)
			return true;
		v->slot = SLOT_METRICS_LISTEN;
		v->section = "metricsListen";
		v->problem = "is the same address as listen";
	}
	return false;
}

/* The rules between keys, checked once everything is read; each names the key
 * that cannot stand as written. */
static enum err cross_check(struct loader *l, const struct config *c)
{
	struct violation v;

	if (find_violation(c, &v))
		return ERR_OK;
	return fail(l, &l->key_mark[v.slot], ERR_INVALID, v.section, "%s", v.problem);
}

enum err config_check(const struct config *c, struct errmsg *msg)
{
	struct violation v;

	if (find_violation(c, &v))
		return ERR_OK;
	if (v.detail[0] != '\0')
		errmsg_set(msg, "%s: %s (%s)", v.section, v.problem, v.detail);
	else
		errmsg_set(msg, "%s: %s", v.section, v.problem);
	return ERR_INVALID;
}

static enum err load(struct loader *l, struct config *c)
{
	enum err rc;

	if ((rc = check_stream(l)) != ERR_OK)
		return rc;
	parser_open(l, &l->parser);
	/* The first pass vouched for the stream's shape: STREAM_START, then
	 * at most one document. */
	if ((rc = next(l)) != ERR_OK || (rc = next(l)) != ERR_OK)
		goto out;
	if (l->ev.type == YAML_DOCUMENT_START_EVENT) {
		if ((rc = next(l)) != ERR_OK)
			goto out;
		if (l->ev.type == YAML_MAPPING_START_EVENT)
			rc = parse_mapping(l, top_fields, NFIELDS(top_fields), c, "");
		else if (!ev_is_null(&l->ev))
			rc = fail(l, &l->ev.start_mark, ERR_INVALID, NULL,
				  "expected a mapping at the top level, got %s",
				  event_kind(&l->ev));
		if (rc != ERR_OK)
			goto out;
	}
	rc = cross_check(l, c);
	if (rc == ERR_OK)
		rc = check_limits(l, c);
out:
	if (l->have_event)
		yaml_event_delete(&l->ev);
	l->have_event = false;
	yaml_parser_delete(&l->parser);
	return rc;
}

/* ---- Public ------------------------------------------------------------ */

void config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->listen = xstrdup("127.0.0.1:8888");
	c->metrics_listen = NULL;
	c->url_prefix = xstrdup("");
	c->inventory_source = CONFIG_SOURCE_FILES;
	c->inventory_dir = xstrdup("config/examples");
	c->inventory_poll_ms = 500;
	c->inventory_max_file_bytes = (int64_t)16 << 20;
	c->kubeconfig = NULL;
	c->stale_after_ms = 300000;
	c->watch_idle_timeout_ms = 90000;
	c->request_timeout_ms = 30000;
	c->max_event_bytes = (int64_t)16 << 20;
	c->decision_log_path = NULL;
	c->decision_log_max_bytes = (int64_t)64 << 20;
	c->decision_log_max_files = 3;
	c->decision_log_queue = 4096;
	c->on_stale = CONFIG_STALE_FAIL_CLOSED;
	c->missing_inventory = CONFIG_MISSING_ALLOW;
	c->scoring.strategy = SCORE_LEAST_ALLOCATED;
	c->scoring.weights = NULL;
	c->scoring.nweights = 0;
	c->max_body_bytes = (int64_t)8 << 20;
	c->max_connections = 256;
	c->idle_timeout_ms = 120000;
	c->http_request_timeout_ms = 10000;
	c->max_connections_per_client = 64;
	c->max_buffered_bytes = 0; /* 64 MiB, or maxBodyBytes when larger */
	c->threads = 2;
	c->log_level = LOG_LEVEL_INFO;
	c->ledger_enabled = true;
	c->ledger_mode = LEDGER_PREDICTED;
	c->ledger_assume_ttl_ms = 30000;
	c->ledger_max_assume_age_ms = 600000;
	c->bind_enabled = false;
}

void config_cleanup(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	free(c->listen);
	free(c->metrics_listen);
	free(c->url_prefix);
	free(c->tls_cert_file);
	free(c->tls_key_file);
	free(c->tls_client_ca_file);
	for (i = 0; i < c->ntls_client_names; i++)
		free(c->tls_client_names[i]);
	free(c->tls_client_names);
	free(c->inventory_dir);
	free(c->kubeconfig);
	free(c->decision_log_path);
	score_config_cleanup(&c->scoring);
	memset(c, 0, sizeof *c);
}

enum err config_load_buffer(const char *buf, size_t len, const char *origin,
			    struct config *out, struct errmsg *msg)
{
	struct loader l;
	struct config tmp;
	enum err rc;

	if (origin == NULL)
		origin = "config";
	if (len > CONFIG_MAX_BYTES) {
		errmsg_set(msg, "%s: larger than %zu bytes", origin, CONFIG_MAX_BYTES);
		return ERR_TOO_LARGE;
	}
	memset(&l, 0, sizeof l);
	l.origin = origin;
	l.buf = buf;
	l.len = len;
	l.msg = msg;
	config_init(&tmp);
	rc = load(&l, &tmp);
	/* A NULL out only validates. */
	if (rc == ERR_OK && out != NULL) {
		/* Swap: the caller's old config goes out with the scratch one. */
		struct config old = *out;

		*out = tmp;
		tmp = old;
	}
	config_cleanup(&tmp);
	return rc;
}


enum err config_load_file(const char *path, struct config *out, struct errmsg *msg)
{
	char *data = NULL;
	size_t used = 0;
	enum err rc;

	/* The shared reader: capped before it allocates, clear errors. */
	rc = file_read_all(path, CONFIG_MAX_BYTES, &data, &used, msg);
	if (rc == ERR_OK)
		rc = config_load_buffer(data, used, path, out, msg);
	free(data);
	return rc;
}
