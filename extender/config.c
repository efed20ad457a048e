/* SPDX-License-Identifier: Apache-2.0 */
/* The configuration's schema and how a document tree is read into it. Holds
 * one table of keys (name, type, default, range, name table) that both
 * fills the defaults and drives the reading, the checks of single values
 * (durations, quantities of bytes, URL prefix), the rules between keys, and
 * the "origin:LINE:COL: field.path: problem" messages; it knows nothing of
 * what the settings do.
 *
 * The YAML itself is read by the document layer under strict rules: one
 * document, no anchors, aliases or tags, nesting at most CONFIG_MAX_DEPTH,
 * no repeated key. The walk below therefore never meets anything deeper than
 * the schema, and stops at the first wrong key or value. Everything is
 * loaded into a scratch config that replaces the caller's only on success.
 * Host:port and loopback rules are extender/net_addr.c's. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "extender/net_addr.h"
#include "topology/quantity.h"

/* Bounds on what a config may cost: input bytes, collection nesting, and
 * entries of one list (scoring.resources, tls.clientNames). */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)
#define CONFIG_MAX_DEPTH 16
#define CONFIG_MAX_LIST 256

/* Operators write this file by hand: what YAML offers beyond plain
 * mappings, lists and scalars is more likely a mistake than meant. */
static const struct doc_yaml_rules config_yaml = {
	.max_depth = CONFIG_MAX_DEPTH,
	.one_document = true,
	.no_tags = true,
	.no_anchors = "anchors and aliases are not allowed",
	.no_aliases = "anchors and aliases are not allowed",
	.too_deep = "nested too deep",
};

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
	SLOT_DRA_DIR,
	SLOT_DRA_ENABLED,
	SLOT_COUNT,
};

struct loader {
	const char *origin;
	struct errmsg *msg;
	struct doc_path path;               /* of the value being read */
	const struct doc *slot[SLOT_COUNT]; /* the values of those keys */
};

/* How a field's value is read. A null value ("key:", "~", "null") keeps the
 * default for every kind, as if the key were absent. */
enum kind {
	K_STRING,     /* char *, plain or quoted; check() may refuse or shorten it */
	K_INT,        /* int64_t, decimal, plain scalar only */
	K_DURATION,   /* int64_t milliseconds from "500ms", "5s", "2m", "1h" */
	K_BYTES,      /* int64_t bytes from a Kubernetes quantity */
	K_ENUM,       /* an enum, by its index in names[] */
	K_BOOL,       /* bool, "false" or "true" */
	K_STRATEGY,   /* enum score_strategy, by score_strategy_name */
	K_SECTION,    /* a mapping of fields[] over the same base */
	K_NAMES,      /* a list of non-empty strings: char ** at offset, size_t at count */
	K_WEIGHTS,    /* scoring.resources into the struct score_config at offset */
};

typedef enum err (*check_fn)(struct loader *l, const struct doc *v, const char *text,
			     size_t *len);

/* One key of the schema. */
struct field {
	const char *key;
	enum kind kind;
	size_t offset;
	size_t count;                 /* K_NAMES: offset of the size_t count */
	const char *def_text;         /* K_STRING: the default (NULL: none) */
	int64_t def;                  /* numbers; K_ENUM, K_BOOL: an index */
	int64_t min, max;             /* K_INT, K_DURATION, K_BYTES */
	const char *range;            /* min..max as messages show it */
	const char *below;            /* K_DURATION: the problem when below min */
	check_fn check;               /* K_STRING: validate, maybe shorten */
	const char *const *names;     /* K_ENUM, NULL-terminated, in enum order */
	const struct field *fields;   /* K_SECTION and K_WEIGHTS items */
	size_t nfields;
	enum slot slot;
};

/* K_ENUM fields are stored as an int. */
_Static_assert(sizeof(enum config_source) == sizeof(int), "enum size");
_Static_assert(sizeof(enum config_on_stale) == sizeof(int), "enum size");
_Static_assert(sizeof(enum config_missing) == sizeof(int), "enum size");
_Static_assert(sizeof(enum log_level) == sizeof(int), "enum size");
_Static_assert(sizeof(enum ledger_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum score_strategy) == sizeof(int), "enum size");
_Static_assert(sizeof(enum config_dra_alignment) == sizeof(int), "enum size");
_Static_assert(sizeof(enum config_dra_unknown_numa) == sizeof(int), "enum size");
_Static_assert(sizeof(enum config_dra_order) == sizeof(int), "enum size");

/* ---- Messages ---------------------------------------------------------- */

static enum err fail_at(struct loader *l, unsigned line, unsigned column, enum err rc,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "origin:LINE:COL: path: problem", with the loader's current path. */
static enum err fail_at(struct loader *l, unsigned line, unsigned column, enum err rc,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	doc_verror_at(l->msg, l->origin, line, column, &l->path, fmt, ap);
	va_end(ap);
	return rc;
}

#define fail(l, node, rc, ...) fail_at((l), (node)->line, (node)->column, (rc), __VA_ARGS__)

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

/* What a YAML node is, in YAML's words. */
static const char *yaml_kind(const struct doc *v)
{
	switch (v->kind) {
	case DOC_OBJECT:
		return "a mapping";
	case DOC_ARRAY:
		return "a sequence";
	default:
		return "a scalar";
	}
}

static bool is_scalar(const struct doc *v)
{
	return v->kind != DOC_OBJECT && v->kind != DOC_ARRAY;
}

static bool text_is(const char *text, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(text, word, len) == 0;
}

static void *at(void *base, size_t offset)
{
	return (char *)base + offset;
}

/* ---- Values ------------------------------------------------------------ */

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

	while (end < len && (unsigned char)text[end] - (unsigned)'0' <= 9)
		end++;
	if (end == start)
		return -1;
	if (end == len)
		return -2;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (!text_is(text + end, len - end, units[i].unit))
			continue;
		/* Digits only, and leading zeros are harmless here: no YAML
		 * typing competes. */
		if (doc_int_parse(text + start, end - start, 0, &v) != ERR_OK ||
		    v > INT64_MAX / units[i].ms)
			return 1;
		v *= units[i].ms;
		*ms = text[0] == '-' ? -v : v;
		return 0;
	}
	return -1;
}

static enum err expect_scalar(struct loader *l, const struct doc *v, const char *what)
{
	if (is_scalar(v))
		return ERR_OK;
	return fail(l, v, ERR_INVALID, "expected %s, got %s", what, yaml_kind(v));
}

static enum err no_nul(struct loader *l, const struct doc *v)
{
	if (memchr(v->text, '\0', v->len) == NULL)
		return ERR_OK;
	return fail(l, v, ERR_INVALID, "must not contain a NUL byte");
}

static enum err read_string(struct loader *l, const struct field *f,
			    const struct doc *v, void *base)
{
	char **dst = at(base, f->offset);
	size_t len;
	enum err rc;

	if ((rc = expect_scalar(l, v, "a string")) != ERR_OK ||
	    (rc = no_nul(l, v)) != ERR_OK)
		return rc;
	len = v->len;
	if (f->check != NULL && (rc = f->check(l, v, v->text, &len)) != ERR_OK)
		return rc;
	free(*dst);
	*dst = xstrndup(v->text, len);
	return ERR_OK;
}

static enum err range_error(struct loader *l, const struct field *f, const struct doc *v)
{
	char text[40];

	shown(text, sizeof text, v->text, v->len);
	return fail(l, v, ERR_RANGE, "%s is out of range (%s)", text, f->range);
}

static enum err read_integer(struct loader *l, const struct field *f,
			     const struct doc *v, void *base)
{
	char q[DOC_QUOTE_CAP];
	int64_t n = 0;
	enum err rc;

	if ((rc = expect_scalar(l, v, "an integer")) != ERR_OK)
		return rc;
	doc_quote(q, sizeof q, v->text, v->len);
	/* A quoted "12" is a string in YAML, and in Kubernetes' own decoding;
	 * say so rather than guess. */
	if (v->kind != DOC_PLAIN)
		return fail(l, v, ERR_INVALID, "expected an integer, got the string %s", q);
	rc = doc_int_parse(v->text, v->len, DOC_INT_STRICT, &n);
	if (rc == ERR_INVALID)
		return fail(l, v, ERR_INVALID, "expected an integer, got %s", q);
	if (rc != ERR_OK || n < f->min || n > f->max)
		return range_error(l, f, v);
	*(int64_t *)at(base, f->offset) = n;
	return ERR_OK;
}

static enum err read_duration(struct loader *l, const struct field *f,
			      const struct doc *v, void *base)
{
	char q[DOC_QUOTE_CAP];
	int64_t ms = 0;
	enum err rc;
	int r;

	if ((rc = expect_scalar(l, v, "a duration")) != ERR_OK)
		return rc;
	doc_quote(q, sizeof q, v->text, v->len);
	r = parse_duration(v->text, v->len, &ms);
	if (r == -2)
		return fail(l, v, ERR_INVALID, "a duration needs a unit (ms, s, m, h), got %s", q);
	if (r < 0)
		return fail(l, v, ERR_INVALID,
			    "expected a duration such as 500ms, 30s, 5m or 1h, got %s", q);
	if (r == 0 && ms < f->min && ms >= 0 && f->below != NULL)
		return fail(l, v, ERR_RANGE, "%s", f->below);
	if (r > 0 || ms < f->min || ms > f->max)
		return range_error(l, f, v);
	*(int64_t *)at(base, f->offset) = ms;
	return ERR_OK;
}

static enum err read_bytes(struct loader *l, const struct field *f,
			   const struct doc *v, void *base)
{
	struct errmsg qmsg = { { 0 } };
	struct quantity q;
	char text[DOC_QUOTE_CAP];
	int64_t n = 0;
	enum err rc;

	if ((rc = expect_scalar(l, v, "a quantity of bytes")) != ERR_OK)
		return rc;
	rc = quantity_parse(v->text, v->len, &q, &qmsg);
	if (rc == ERR_RANGE)
		return range_error(l, f, v);
	if (rc != ERR_OK)
		return fail(l, v, ERR_INVALID, "%s", qmsg.text);
	if (!quantity_is_exact(&q, 0)) {
		doc_quote(text, sizeof text, v->text, v->len);
		return fail(l, v, ERR_INVALID, "%s is not a whole number of bytes", text);
	}
	if (quantity_scaled(&q, 0, &n) != ERR_OK || n < f->min || n > f->max)
		return range_error(l, f, v);
	*(int64_t *)at(base, f->offset) = n;
	return ERR_OK;
}

/* v names one of names[] (NULL-terminated): *index. */
static enum err read_choice(struct loader *l, const struct doc *v,
			    const char *const *names, size_t *index)
{
	char choices[160] = "", q[DOC_QUOTE_CAP];
	size_t i, n = 0;

	for (i = 0; names[i] != NULL; i++)
		n += (size_t)snprintf(choices + n, sizeof choices - n, "%s%s",
				      i ? ", " : "", names[i]);
	if (!is_scalar(v))
		return fail(l, v, ERR_INVALID, "expected one of %s, got %s", choices,
			    yaml_kind(v));
	for (i = 0; names[i] != NULL; i++) {
		if (text_is(v->text, v->len, names[i])) {
			*index = i;
			return ERR_OK;
		}
	}
	doc_quote(q, sizeof q, v->text, v->len);
	return fail(l, v, ERR_INVALID, "expected one of %s, got %s", choices, q);
}

static void store_enum(void *dst, int value)
{
	memcpy(dst, &value, sizeof value);
}

static const char *const bool_names[] = { "false", "true", NULL };

static enum err read_enum(struct loader *l, const struct field *f,
			  const struct doc *v, void *base)
{
	size_t i;
	enum err rc = read_choice(l, v, f->kind == K_BOOL ? bool_names : f->names, &i);

	if (rc != ERR_OK)
		return rc;
	if (f->kind == K_BOOL)
		*(bool *)at(base, f->offset) = i != 0;
	else
		store_enum(at(base, f->offset), (int)i);
	return ERR_OK;
}

/* The strategies by the names topology/score.c gives them. */
static enum err read_strategy(struct loader *l, const struct field *f,
			      const struct doc *v, void *base)
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
	rc = read_choice(l, v, names, &i);
	if (rc == ERR_OK)
		store_enum(at(base, f->offset), (int)all[i]);
	return rc;
}

static enum err read_mapping(struct loader *l, const struct field *fields,
			     size_t nfields, const struct doc *map, void *base);

static enum err read_section(struct loader *l, const struct field *f,
			     const struct doc *v, void *base)
{
	if (v->kind != DOC_OBJECT)
		return fail(l, v, ERR_INVALID, "expected a mapping, got %s", yaml_kind(v));
	return read_mapping(l, f->fields, f->nfields, v, base);
}

typedef enum err (*item_fn)(struct loader *l, const struct field *f,
			    const struct doc *item, void *base);

/* A sequence of at most CONFIG_MAX_LIST entries, each read by one(); the
 * entries before the one too many are read (and may fail) first. */
static enum err read_list(struct loader *l, const struct field *f, const struct doc *v,
			  void *base, item_fn one)
{
	size_t i, mark;
	enum err rc;

	if (v->kind != DOC_ARRAY)
		return fail(l, v, ERR_INVALID, "expected a sequence, got %s", yaml_kind(v));
	for (i = 0; i < v->nchildren; i++) {
		if (i == CONFIG_MAX_LIST)
			return fail(l, v->children[i].value, ERR_TOO_LARGE,
				    "more than %d entries", CONFIG_MAX_LIST);
		mark = doc_path_index(&l->path, i);
		rc = one(l, f, v->children[i].value, base);
		doc_path_pop(&l->path, mark);
		if (rc != ERR_OK)
			return rc;
	}
	return ERR_OK;
}

/* An entry of tls.clientNames. */
static enum err read_name(struct loader *l, const struct field *f,
			  const struct doc *item, void *base)
{
	char ***list = at(base, f->offset);
	size_t *n = at(base, f->count);
	enum err rc;

	if (doc_is_null(item))
		return fail(l, item, ERR_INVALID, "expected a string, got null");
	if ((rc = expect_scalar(l, item, "a string")) != ERR_OK ||
	    (rc = no_nul(l, item)) != ERR_OK)
		return rc;
	if (item->len == 0)
		return fail(l, item, ERR_INVALID, "must not be empty");
	*list = xreallocarray(*list, *n + 1, sizeof **list);
	(*list)[(*n)++] = xstrndup(item->text, item->len);
	return ERR_OK;
}

/* An entry of scoring.resources. */
static enum err read_weight(struct loader *l, const struct field *f,
			    const struct doc *item, void *base)
{
	struct score_config *sc = at(base, f->offset);
	char q[DOC_QUOTE_CAP];
	struct score_weight *w;
	size_t i;
	enum err rc;

	if (item->kind != DOC_OBJECT)
		return fail(l, item, ERR_INVALID,
			    "expected a mapping with name and weight, got %s", yaml_kind(item));
	/* Appended before it is filled, so that the scratch config's cleanup
	 * frees a half-read entry too. -1 marks "no weight". */
	sc->weights = xreallocarray(sc->weights, sc->nweights + 1, sizeof *sc->weights);
	w = &sc->weights[sc->nweights++];
	w->name = NULL;
	w->weight = -1;
	if ((rc = read_mapping(l, f->fields, f->nfields, item, w)) != ERR_OK)
		return rc;
	if (w->name == NULL)
		return fail(l, item, ERR_INVALID, "missing key \"name\"");
	if (w->weight < 0)
		return fail(l, item, ERR_INVALID, "missing key \"weight\"");
	for (i = 0; i + 1 < sc->nweights; i++) {
		if (strcmp(sc->weights[i].name, w->name) != 0)
			continue;
		doc_path_key(&l->path, "name");
		doc_quote(q, sizeof q, w->name, strlen(w->name));
		return fail(l, l->slot[SLOT_RES_NAME], ERR_INVALID,
			    "%s is listed twice (also resources[%zu])", q, i);
	}
	return ERR_OK;
}

static enum err read_value(struct loader *l, const struct field *f,
			   const struct doc *v, void *base)
{
	if (doc_is_null(v))
		return ERR_OK;
	switch (f->kind) {
	case K_STRING:
		return read_string(l, f, v, base);
	case K_INT:
		return read_integer(l, f, v, base);
	case K_DURATION:
		return read_duration(l, f, v, base);
	case K_BYTES:
		return read_bytes(l, f, v, base);
	case K_ENUM:
	case K_BOOL:
		return read_enum(l, f, v, base);
	case K_STRATEGY:
		return read_strategy(l, f, v, base);
	case K_SECTION:
		return read_section(l, f, v, base);
	case K_NAMES:
		return read_list(l, f, v, base, read_name);
	case K_WEIGHTS:
		return read_list(l, f, v, base, read_weight);
	}
	abort(); /* every kind is handled above */
}

/* Every member of map is one of fields[]; the document layer has already
 * refused repeated keys. */
static enum err read_mapping(struct loader *l, const struct field *fields,
			     size_t nfields, const struct doc *map, void *base)
{
	char q[DOC_QUOTE_CAP];
	const struct field *f;
	size_t i, j, mark;
	enum err rc;

	for (i = 0; i < map->nchildren; i++) {
		const struct doc_child *ch = &map->children[i];

		f = NULL;
		for (j = 0; j < nfields && f == NULL; j++) {
			if (strcmp(ch->key, fields[j].key) == 0)
				f = &fields[j];
		}
		if (f == NULL) {
			doc_quote(q, sizeof q, ch->key, strlen(ch->key));
			return fail_at(l, ch->value->key_line, ch->value->key_column,
				       ERR_INVALID, "unknown key %s", q);
		}
		if (f->slot != SLOT_NONE)
			l->slot[f->slot] = ch->value;
		mark = doc_path_key(&l->path, f->key);
		rc = read_value(l, f, ch->value, base);
		doc_path_pop(&l->path, mark);
		if (rc != ERR_OK)
			return rc;
	}
	return ERR_OK;
}

/* ---- Checks of single values ------------------------------------------- */

static enum err check_hostport(struct loader *l, const struct doc *v, const char *text,
			       size_t *len)
{
	struct errmsg sub = { { 0 } };
	char *host = NULL;
	int port = 0;

	(void)len;
	if (net_split_hostport(text, &host, &port, &sub) != ERR_OK)
		return fail(l, v, ERR_INVALID, "%s", sub.text);
	free(host);
	return ERR_OK;
}

static enum err check_nonempty(struct loader *l, const struct doc *v, const char *text,
			       size_t *len)
{
	(void)text;
	if (*len == 0)
		return fail(l, v, ERR_INVALID, "must not be empty");
	return ERR_OK;
}

/* "" or "/a/b": routes are prefix + "/filter", so a trailing slash would
 * double up, and a lone "/" means no prefix. */
static enum err check_url_prefix(struct loader *l, const struct doc *v, const char *text,
				 size_t *len)
{
	char q[DOC_QUOTE_CAP];
	size_t i;

	if (*len == 1 && text[0] == '/') {
		*len = 0;
		return ERR_OK;
	}
	if (*len == 0)
		return ERR_OK;
	doc_quote(q, sizeof q, text, *len);
	if (text[0] != '/')
		return fail(l, v, ERR_INVALID, "%s: must start with \"/\"", q);
	if (text[*len - 1] == '/')
		return fail(l, v, ERR_INVALID, "%s: must not end with \"/\"", q);
	for (i = 0; i < *len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c <= 0x20 || c == 0x7f || c == '?' || c == '#')
			return fail(l, v, ERR_INVALID,
				    "%s: must not contain spaces, control characters, \"?\" or \"#\"",
				    q);
	}
	return ERR_OK;
}

/* ---- The schema -------------------------------------------------------- */

/* In enum order, so that the index is the value. */
static const char *const source_names[] = { "files", "kubernetes", NULL };
static const char *const on_stale_names[] = { "failClosed", "failOpen", NULL };
static const char *const missing_names[] = { "allow", "deny", NULL };
static const char *const dra_alignment_names[] = { "require", "prefer", "off", NULL };
static const char *const dra_unknown_names[] = { "allow", "deny", NULL };
static const char *const dra_order_names[] = { "sorted", "unsorted", NULL };

#define NFIELDS(a) (sizeof (a) / sizeof (a)[0])
#define CFG(member) offsetof(struct config, member)

/* One row of the table per key: name, member, default, then its range or
 * its check. */
#define STRING(k, m, d, chk) \
	.key = (k), .kind = K_STRING, .offset = CFG(m), .def_text = (d), .check = (chk)
#define NUMBER(kd, k, m, d, lo, hi, r) \
	.key = (k), .kind = (kd), .offset = CFG(m), .def = (d), .min = (lo), .max = (hi), \
	.range = (r)
#define INT(...) NUMBER(K_INT, __VA_ARGS__)
#define DURATION(...) NUMBER(K_DURATION, __VA_ARGS__)
#define BYTES(...) NUMBER(K_BYTES, __VA_ARGS__)
#define ENUM(k, m, d, n) .key = (k), .kind = K_ENUM, .offset = CFG(m), .def = (d), .names = (n)
#define BOOL(k, m, d) .key = (k), .kind = K_BOOL, .offset = CFG(m), .def = (d)
#define SECTION(k, f) .key = (k), .kind = K_SECTION, .fields = (f), .nfields = NFIELDS(f)

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define TiB ((int64_t)1 << 40)

static const struct field tls_fields[] = {
	{ STRING("certFile", tls_cert_file, NULL, check_nonempty), .slot = SLOT_TLS_CERT },
	{ STRING("keyFile", tls_key_file, NULL, check_nonempty), .slot = SLOT_TLS_KEY },
	{ STRING("clientCAFile", tls_client_ca_file, NULL, check_nonempty), .slot = SLOT_TLS_CA },
	{ .key = "clientNames", .kind = K_NAMES, .offset = CFG(tls_client_names),
	  .count = CFG(ntls_client_names), .slot = SLOT_TLS_NAMES },
};

/* inventory.dra: where the DRA objects come from with source files. */
static const struct field inventory_dra_fields[] = {
	{ STRING("dir", dra_dir, NULL, check_nonempty), .slot = SLOT_DRA_DIR },
};

static const struct field inventory_fields[] = {
	{ ENUM("source", inventory_source, CONFIG_SOURCE_FILES, source_names) },
	{ STRING("dir", inventory_dir, "config/examples", check_nonempty) },
	{ DURATION("pollInterval", inventory_poll_ms, 500, 50, 3600000, "50ms..1h") },
	{ BYTES("maxFileBytes", inventory_max_file_bytes, 16 * MiB, KiB, 64 * MiB, "1Ki..64Mi") },
	{ STRING("kubeconfig", kubeconfig, NULL, check_nonempty), .slot = SLOT_KUBECONFIG },
	{ DURATION("staleAfter", stale_after_ms, 300000, 1000, 86400000, "1s..24h") },
	{ ENUM("onStale", on_stale, CONFIG_STALE_FAIL_CLOSED, on_stale_names) },
	{ DURATION("watchIdleTimeout", watch_idle_timeout_ms, 90000, 1000, 3600000, "1s..1h") },
	{ DURATION("requestTimeout", request_timeout_ms, 30000, 1000, 600000, "1s..10m") },
	{ BYTES("maxEventBytes", max_event_bytes, 16 * MiB, 64 * KiB, GiB, "64Ki..1Gi") },
	{ SECTION("dra", inventory_dra_fields) },
};

/* The items of scoring.resources: no defaults, both keys are required. */
static const struct field weight_fields[] = {
	{ .key = "name", .kind = K_STRING, .offset = offsetof(struct score_weight, name),
	  .check = check_nonempty, .slot = SLOT_RES_NAME },
	{ .key = "weight", .kind = K_INT, .offset = offsetof(struct score_weight, weight),
	  .min = 0, .max = SCORE_MAX_WEIGHT, .range = "0..100" },
};

static const struct field scoring_fields[] = {
	{ .key = "strategy", .kind = K_STRATEGY, .offset = CFG(scoring.strategy),
	  .def = SCORE_LEAST_ALLOCATED },
	{ .key = "resources", .kind = K_WEIGHTS, .offset = CFG(scoring),
	  .fields = weight_fields, .nfields = NFIELDS(weight_fields) },
};

static const struct field limits_fields[] = {
	{ BYTES("maxBodyBytes", max_body_bytes, 8 * MiB, KiB, GiB, "1Ki..1Gi") },
	{ INT("maxConnections", max_connections, 256, 1, 100000, "1..100000") },
	/* kube-scheduler's Go transport drops idle connections after 90 s;
	 * a server that closes at the same moment races it and a request
	 * sent on a dying connection fails. */
	{ DURATION("idleTimeout", idle_timeout_ms, 120000, 90001, 3600000,
		   "more than 90s, up to 1h"),
	  .below = "must be more than 90s (kube-scheduler closes idle connections at 90s)" },
	/* From accept (or from the request line on a kept-alive connection)
	 * to the last byte of the request: silent and trickling clients give
	 * their connection back after this, whatever the idle timeout. */
	{ DURATION("requestTimeout", http_request_timeout_ms, 10000, 1000, 600000, "1s..10m") },
	/* kube-scheduler comes from one address: keep this well above the
	 * binds it runs at once (0 turns the cap off). */
	{ INT("maxConnectionsPerClient", max_connections_per_client, 64, 0, 100000,
	      "0..100000") },
	/* 0: 64 MiB, or maxBodyBytes when larger. */
	{ BYTES("maxBufferedBytes", max_buffered_bytes, 0, KiB, TiB, "1Ki..1Ti"),
	  .slot = SLOT_MAX_BUFFERED },
};

static const struct field decision_log_fields[] = {
	{ STRING("path", decision_log_path, NULL, check_nonempty) },
	{ BYTES("maxBytes", decision_log_max_bytes, 64 * MiB, 64 * KiB, TiB, "64Ki..1Ti") },
	{ INT("maxFiles", decision_log_max_files, 3, 1, 100, "1..100") },
	{ INT("queue", decision_log_queue, 4096, 16, 1000000, "16..1000000") },
};

static const struct field ledger_fields[] = {
	{ BOOL("enabled", ledger_enabled, true) },
	{ ENUM("mode", ledger_mode, LEDGER_PREDICTED, ledger_mode_names) },
	{ DURATION("assumeTTL", ledger_assume_ttl_ms, 30000, 1000, 3600000, "1s..1h") },
	{ DURATION("maxAssumeAge", ledger_max_assume_age_ms, 600000, 1000, 86400000,
		   "1s..24h") },
};

static const struct field bind_fields[] = {
	{ BOOL("enabled", bind_enabled, false), .slot = SLOT_BIND },
};

/* prefer is the default: it never rejects a node, so turning the DRA
 * inventory on cannot make a pod unschedulable. */
static const struct field dra_fields[] = {
	{ BOOL("enabled", dra_enabled, false), .slot = SLOT_DRA_ENABLED },
	{ ENUM("alignment", dra_alignment, CONFIG_DRA_PREFER, dra_alignment_names) },
	{ ENUM("unknownNUMA", dra_unknown_numa, CONFIG_DRA_UNKNOWN_ALLOW, dra_unknown_names) },
	{ ENUM("allocatorOrder", dra_allocator_order, CONFIG_DRA_SORTED, dra_order_names) },
};

static const struct field log_fields[] = {
	{ ENUM("level", log_level, LOG_LEVEL_INFO, log_level_names) },
};

static const struct field top_fields[] = {
	{ STRING("listen", listen, "127.0.0.1:8888", check_hostport) },
	{ STRING("metricsListen", metrics_listen, NULL, check_hostport),
	  .slot = SLOT_METRICS_LISTEN },
	{ STRING("urlPrefix", url_prefix, "", check_url_prefix) },
	{ SECTION("tls", tls_fields) },
	{ SECTION("inventory", inventory_fields) },
	{ ENUM("missingInventory", missing_inventory, CONFIG_MISSING_ALLOW, missing_names) },
	{ SECTION("scoring", scoring_fields) },
	{ SECTION("limits", limits_fields) },
	{ INT("threads", threads, 2, 1, 64, "1..64") },
	{ SECTION("log", log_fields) },
	{ SECTION("decisionLog", decision_log_fields) },
	{ SECTION("ledger", ledger_fields) },
	{ SECTION("bind", bind_fields) },
	{ SECTION("dra", dra_fields) },
};

/* The schema is at most three levels deep (inventory.dra.dir) plus list
 * items: paths stay short. */
#define KEY_PATH_MAX 128

static void each_key(const struct field *f, size_t n, const char *prefix,
		     void (*fn)(const char *path, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char mem[KEY_PATH_MAX];
		struct textbuf path;

		textbuf_init_fixed(&path, mem, sizeof mem);
		textbuf_adds(&path, prefix);
		textbuf_adds(&path, f[i].key);
		if (f[i].kind != K_SECTION)
			fn(textbuf_str(&path), arg);
		if (f[i].kind == K_SECTION || f[i].kind == K_WEIGHTS) {
			textbuf_adds(&path, f[i].kind == K_WEIGHTS ? "[]." : ".");
			each_key(f[i].fields, f[i].nfields, textbuf_str(&path), fn, arg);
		}
	}
}

void config_each_key(void (*fn)(const char *path, void *arg), void *arg)
{
	each_key(top_fields, NFIELDS(top_fields), "", fn, arg);
}

/* ---- Rules between keys ------------------------------------------------ */

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
	} else if (c->dra_dir != NULL && c->inventory_source != CONFIG_SOURCE_FILES) {
		v->slot = SLOT_DRA_DIR;
		v->section = "inventory";
		v->problem = "dra.dir needs source: files (with kubernetes the DRA objects come from the API)";
	} else if (c->dra_dir != NULL && !c->dra_enabled) {
		v->slot = SLOT_DRA_DIR;
		v->section = "inventory";
		v->problem = "dra.dir needs dra.enabled: true";
	} else if (c->dra_enabled && c->inventory_source == CONFIG_SOURCE_FILES && c->dra_dir == NULL) {
		v->slot = SLOT_DRA_ENABLED;
		v->section = "dra";
		v->problem = "enabled with inventory.source: files needs inventory.dra.dir";
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

/* The rules between keys, checked once everything is read; each names the
 * key that cannot stand as written. The limits rule comes last: the buffer
 * shared by all requests must hold the largest one (unset, it grows with
 * maxBodyBytes). */
static enum err cross_check(struct loader *l, const struct config *c)
{
	const struct doc *v;
	struct violation rule;

	doc_path_init(&l->path);
	if (!find_violation(c, &rule)) {
		v = l->slot[rule.slot];
		doc_path_key(&l->path, rule.section);
		return fail_at(l, v ? v->key_line : 1, v ? v->key_column : 1, ERR_INVALID,
			       "%s", rule.problem);
	}
	if (c->max_buffered_bytes != 0 && c->max_buffered_bytes < c->max_body_bytes) {
		doc_path_key(&l->path, "limits.maxBufferedBytes");
		return fail(l, l->slot[SLOT_MAX_BUFFERED], ERR_INVALID,
			    "%lld is less than limits.maxBodyBytes (%lld): the largest body "
			    "allowed could never be taken",
			    (long long)c->max_buffered_bytes, (long long)c->max_body_bytes);
	}
	return ERR_OK;
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

static enum err load(struct loader *l, const char *buf, size_t len, struct config *c)
{
	struct doc **docs = NULL;
	size_t ndocs = 0;
	enum err rc;

	rc = doc_parse_yaml_rules(buf, len, l->origin, &config_yaml, &docs, &ndocs, l->msg);
	if (rc != ERR_OK)
		return rc;
	doc_path_init(&l->path);
	/* The rules allow at most one document; none is an empty file. */
	if (ndocs == 1 && docs[0]->kind == DOC_OBJECT)
		rc = read_mapping(l, top_fields, NFIELDS(top_fields), docs[0], c);
	else if (ndocs == 1 && !doc_is_null(docs[0]))
		rc = fail(l, docs[0], ERR_INVALID, "expected a mapping at the top level, got %s",
			  yaml_kind(docs[0]));
	if (rc == ERR_OK)
		rc = cross_check(l, c);
	doc_free_all(docs, ndocs);
	return rc;
}

/* ---- Public ------------------------------------------------------------ */

/* Sets every key of fields[] over base to its default. */
static void set_defaults(const struct field *fields, size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct field *f = &fields[i];

		switch (f->kind) {
		case K_STRING:
			*(char **)at(base, f->offset) = f->def_text ? xstrdup(f->def_text) : NULL;
			break;
		case K_INT:
		case K_DURATION:
		case K_BYTES:
			*(int64_t *)at(base, f->offset) = f->def;
			break;
		case K_ENUM:
		case K_STRATEGY:
			store_enum(at(base, f->offset), (int)f->def);
			break;
		case K_BOOL:
			*(bool *)at(base, f->offset) = f->def != 0;
			break;
		case K_SECTION:
			set_defaults(f->fields, f->nfields, base);
			break;
		case K_NAMES:
		case K_WEIGHTS:
			break; /* empty: zeroed by the caller */
		}
	}
}

/* Frees what the keys of fields[] own over base. */
static void free_fields(const struct field *fields, size_t n, void *base)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct field *f = &fields[i];

		if (f->kind == K_STRING) {
			free(*(char **)at(base, f->offset));
		} else if (f->kind == K_NAMES) {
			char **list = *(char ***)at(base, f->offset);

			for (j = 0; j < *(size_t *)at(base, f->count); j++)
				free(list[j]);
			free(list);
		} else if (f->kind == K_WEIGHTS) {
			score_config_cleanup(at(base, f->offset));
		} else if (f->kind == K_SECTION) {
			free_fields(f->fields, f->nfields, base);
		}
	}
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	set_defaults(top_fields, NFIELDS(top_fields), c);
}

void config_cleanup(struct config *c)
{
	if (c == NULL)
		return;
	free_fields(top_fields, NFIELDS(top_fields), c);
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
	l.msg = msg;
	config_init(&tmp);
	rc = load(&l, buf, len, &tmp);
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

static enum err config_text(const char *buf, size_t len, const char *origin, void *out,
			    struct errmsg *msg)
{
	return config_load_buffer(buf, len, origin, out, msg);
}

enum err config_load_file(const char *path, struct config *out, struct errmsg *msg)
{
	/* The shared reader: capped before it allocates, clear errors. */
	return file_read_with(path, CONFIG_MAX_BYTES, config_text, out, msg);
}
