/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for doc_from_text (extender/codec/doc_text.c), differentially: for
 * every text it builds a tree of, json-c's strict parse of the same text
 * through doc_from_json_kept must give the identical tree (kinds, text bytes
 * and lengths, keys, order), for the whole tree and for pod_fields alone.
 * The corpus: every JSON file under tests/data and every object inside
 * them, the benchmark pod, hand-written quirks, generated documents and
 * pods, and random mutations of all of these. Realistic pods must be built
 * (the fast path is taken); the quirks it gives up on must be given up on.
 * Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "extender/codec/doc.h"
#include "extender/codec/pod_decode.h"
#include "tests/support/bench_cluster.h"
#include "tests/support/http_client.h"

/* How many texts were built and how many given up on, to show the checks
 * are not vacuous. */
struct tally {
	size_t built;
	size_t bailed;
};

/* json-c's tree of text as decode_common parsed the Pod before doc_text.c,
 * or NULL when json-c refuses the text. */
static struct doc *json_c_tree(const char *text, size_t len, const struct doc_keep *keep)
{
	struct json_tokener *tok = json_tokener_new_ex(DOC_MAX_DEPTH);
	struct errmsg msg = { { 0 } };
	struct json_object *o;
	struct doc *d = NULL;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o != NULL && json_tokener_get_error(tok) == json_tokener_success &&
	    json_tokener_get_parse_end(tok) == len && doc_from_json_kept(o, keep, &d, &msg) != ERR_OK)
		d = NULL;
	json_object_put(o);
	json_tokener_free(tok);
	return d;
}

/* NULL when a and b are identical, else what differs first; path then
 * says where. */
static const char *tree_diff(const struct doc *a, const struct doc *b, struct doc_path *path)
{
	size_t i;

	if (a->kind != b->kind)
		return "kind";
	if (a->len != b->len || (a->text == NULL) != (b->text == NULL) ||
	    (a->text != NULL && memcmp(a->text, b->text, a->len + 1) != 0))
		return "text";
	if (a->nchildren != b->nchildren)
		return "number of children";
	if (a->line != b->line || a->column != b->column)
		return "position";
	for (i = 0; i < a->nchildren; i++) {
		const char *ka = a->children[i].key, *kb = b->children[i].key;
		size_t mark = ka != NULL ? doc_path_key(path, ka) : doc_path_index(path, i);
		const char *why;

		if ((ka == NULL) != (kb == NULL) || (ka != NULL && strcmp(ka, kb) != 0))
			return "key";
		why = tree_diff(a->children[i].value, b->children[i].value, path);
		if (why != NULL)
			return why;
		doc_path_pop(path, mark);
	}
	return NULL;
}

/* The check: doc_from_text gives up, or json-c gives the same tree. Returns
 * whether it built one. */
static bool check(const char *text, size_t len, const struct doc_keep *keep, struct tally *t)
{
	struct doc *mine = NULL, *theirs;
	struct doc_path where;
	const char *why;

	if (!doc_from_text(text, len, keep, &mine)) {
		assert_null(mine);
		t->bailed++;
		return false;
	}
	t->built++;
	theirs = json_c_tree(text, len, keep);
	if (theirs == NULL)
		fail_msg("built a tree of a text json-c refuses (%s): %.*s",
			 keep ? "pod_fields" : "whole", (int)(len > 400 ? 400 : len), text);
	doc_path_init(&where);
	why = tree_diff(mine, theirs, &where);
	if (why != NULL)
		fail_msg("trees differ in %s at \"%s\" (%s): %.*s", why, where.text,
			 keep ? "pod_fields" : "whole", (int)(len > 400 ? 400 : len), text);
	doc_free(mine);
	doc_free(theirs);
	return true;
}

static void check_both(const char *text, size_t len, struct tally *t)
{
	check(text, len, NULL, t);
	check(text, len, pod_fields, t);
}

/* ---- Random texts ------------------------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return (size_t)(rnd() % n);
}

/* Half of the generated pods are tame: none of the forms doc_from_text
 * gives up on, so that many are built and compared. */
static bool tame;

struct gen {
	char *buf;
	size_t len;
	size_t cap;
};

static void put(struct gen *g, const char *s, size_t n)
{
	if (g->len + n + 1 > g->cap) {
		g->cap = (g->len + n + 1) * 2;
		g->buf = realloc(g->buf, g->cap);
		assert_non_null(g->buf);
	}
	memcpy(g->buf + g->len, s, n);
	g->len += n;
	g->buf[g->len] = '\0';
}

static void puts_(struct gen *g, const char *s)
{
	put(g, s, strlen(s));
}

static void gen_ws(struct gen *g)
{
	static const char *const ws[] = { " ", "\n", "\t", "\r\n  " };

	if (below(4) == 0)
		puts_(g, ws[below(4)]);
}

/* Every number form that matters to json-c's reading. */
static const char *const numbers[] = {
	"0", "-0", "1", "-1", "7", "42", "-17", "10", "1e3", "1E3", "1e+3", "1e-3", "1.50", "-0.0",
	"0.0", "0e0", "-0e-0", "3.14159", "2.5E+10", "1.7976931348623157e309", "5e-324",
	"2.5e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"100000000000000000000", "12345678901234567890", "-99999999999999999999",
};

static void gen_number(struct gen *g)
{
	char buf[32];
	size_t n, i;

	if (below(3) != 0) {
		const char *t;

		do
			t = numbers[below(sizeof numbers / sizeof numbers[0])];
		while (tame && (strcmp(t, "-0") == 0 || strlen(t) >= 19));
		puts_(g, t);
		return;
	}
	n = 0;
	if (below(3) == 0)
		buf[n++] = '-';
	buf[n++] = (char)('1' + below(9));
	for (i = below(tame ? 18 : 22); i > 0; i--)
		buf[n++] = (char)('0' + below(10));
	put(g, buf, n);
}

/* A \u escape of some kind: ASCII (NUL and the <>& Go escapes among them),
 * two- and three-byte code points, a surrogate pair, or a lone or badly
 * followed surrogate. */
static void gen_unicode(struct gen *g)
{
	static const char *const fixed[] = {
		"\\u0000", "\\u003c", "\\u003e", "\\u0026", "\\u0041", "\\u00e9", "\\u00E9",
		"\\u20ac", "\\u2028", "\\uFFFD", "\\uffff", "\\ud83d\\ude00", "\\uD83D\\uDE00",
		"\\ud800", "\\udc00", "\\udbff\\udfff", "\\ud800\\u0041", "\\ud800\\ud800\\udc00",
		"\\ud800\\n", "\\udfff\\ud800",
	};
	char buf[16];

	unsigned cp;

	if (below(2) == 0 && !tame) {
		puts_(g, fixed[below(sizeof fixed / sizeof fixed[0])]);
		return;
	}
	if (below(2) == 0) {
		puts_(g, fixed[below(12)]); /* the first 12 are no surrogate */
		return;
	}
	do
		cp = (unsigned)(below(4) == 0 ? below(0x80) : below(0x10000));
	while (tame && cp >= 0xD800 && cp <= 0xDFFF);
	snprintf(buf, sizeof buf, below(2) ? "\\u%04x" : "\\u%04X", cp);
	puts_(g, buf);
}

static void gen_string_body(struct gen *g)
{
	static const char *const escapes[] = { "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t" };
	static const char *const raw[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\x7f" };
	size_t n = below(10), i;

	for (i = 0; i < n; i++) {
		switch (below(12)) {
		case 0:
			puts_(g, escapes[below(sizeof escapes / sizeof escapes[0])]);
			break;
		case 1:
			gen_unicode(g);
			break;
		case 2:
			puts_(g, raw[below(sizeof raw / sizeof raw[0])]);
			break;
		case 3:
			if (below(20) == 0 && !tame)
				put(g, "\x01", 1); /* a raw control byte */
			break;
		default: {
			char c = (char)('a' + below(26));

			put(g, &c, 1);
		}
		}
	}
}

/* Keys repeat often (a small pool), and the pod's own keys are in it,
 * sometimes spelled with escapes. */
static void gen_key(struct gen *g, size_t i)
{
	static const char *const pool[] = {
		"a", "b", "c", "name", "kind", "metadata", "spec", "status", "containers",
		"initContainers", "resources", "requests", "limits", "cpu", "memory", "qosClass",
		"uid", "namespace", "restartPolicy", "n\\u0061me", "\\u006bind", "spe\\u0063", "",
		"a\\u0000b", "kind\\u0000x",
	};
	/* Tame keys are none of the pod's, and the i-th member's own. */
	static const char *const other[] = { "x", "y", "z", "q", "r", "s", "w\\u00e9" };

	puts_(g, "\"");
	if (tame)
		puts_(g, other[i % (sizeof other / sizeof other[0])]);
	else if (below(4) != 0)
		puts_(g, pool[below(sizeof pool / sizeof pool[0])]);
	else
		gen_string_body(g);
	puts_(g, "\"");
}

static void gen_value(struct gen *g, unsigned depth);

static void gen_object(struct gen *g, unsigned depth)
{
	size_t n = below(6), i;

	puts_(g, "{");
	for (i = 0; i < n; i++) {
		if (i)
			puts_(g, ",");
		gen_ws(g);
		gen_key(g, i);
		gen_ws(g);
		puts_(g, ":");
		gen_value(g, depth + 1);
	}
	gen_ws(g);
	puts_(g, "}");
}

static void gen_array(struct gen *g, unsigned depth)
{
	size_t n = below(5), i;

	puts_(g, "[");
	for (i = 0; i < n; i++) {
		if (i)
			puts_(g, ",");
		gen_value(g, depth + 1);
	}
	gen_ws(g);
	puts_(g, "]");
}

static void gen_value(struct gen *g, unsigned depth)
{
	static const char *const literals[] = { "true", "false", "null" };

	gen_ws(g);
	switch (depth > 5 ? 2 + below(3) : below(7)) {
	case 0:
	case 5:
		gen_object(g, depth);
		break;
	case 1:
	case 6:
		gen_array(g, depth);
		break;
	case 2:
		puts_(g, "\"");
		gen_string_body(g);
		puts_(g, "\"");
		break;
	case 3:
		gen_number(g);
		break;
	default:
		puts_(g, literals[below(3)]);
	}
	gen_ws(g);
}

/* A quantity: usually a string, sometimes a number of any form. */
static void gen_quantity(struct gen *g)
{
	static const char *const q[] = { "\"2\"", "\"500m\"", "\"1Gi\"", "\"1.5\"", "\"x\"" };

	if (below(4) == 0)
		gen_number(g);
	else
		puts_(g, q[below(sizeof q / sizeof q[0])]);
}

/* A pod's skeleton with random members and values around what pod_fields
 * keeps, some repeated. */
static void gen_pod(struct gen *g)
{
	size_t nc = 1 + below(3), i, k;

	puts_(g, "{");
	if (below(2) == 0) {
		gen_key(g, 0);
		puts_(g, ":");
		gen_value(g, 1);
		puts_(g, ",");
	}
	puts_(g, below(8) ? "\"kind\":\"Pod\"," : "\"kind\":7,");
	puts_(g, "\"metadata\":{\"name\":\"");
	gen_string_body(g);
	puts_(g, "\",\"managedFields\":");
	gen_value(g, 2);
	if (below(2) == 0) {
		puts_(g, ",");
		gen_key(g, 0);
		puts_(g, ":");
		gen_value(g, 2);
	}
	puts_(g, "},\"spec\":{");
	puts_(g, below(2) ? "\"volumes\":" : "\"initContainers\":");
	gen_value(g, 2);
	puts_(g, ",\"containers\":[");
	for (i = 0; i < nc; i++) {
		if (i)
			puts_(g, ",");
		if (below(10) == 0) {
			gen_value(g, 3);
			continue;
		}
		puts_(g, "{\"name\":\"c");
		gen_string_body(g);
		puts_(g, "\",\"env\":");
		gen_value(g, 4);
		puts_(g, ",\"resources\":{\"requests\":{");
		for (k = below(4); k > 0; k--) {
			gen_key(g, k);
			puts_(g, ":");
			gen_quantity(g);
			puts_(g, k > 1 ? "," : "");
		}
		puts_(g, "},\"limits\":{\"cpu\":");
		gen_quantity(g);
		puts_(g, "}}");
		if (below(3) == 0) {
			puts_(g, ",");
			gen_key(g, 0);
			puts_(g, ":");
			gen_value(g, 4);
		}
		puts_(g, "}");
	}
	puts_(g, "]");
	if (below(4) == 0) {
		puts_(g, ",");
		gen_key(g, 0);
		puts_(g, ":");
		gen_value(g, 2);
	}
	puts_(g, "},\"status\":{\"qosClass\":\"Guaranteed\"}");
	if (below(6) == 0) {
		puts_(g, ",");
		gen_key(g, 0);
		puts_(g, ":");
		gen_value(g, 1);
	}
	puts_(g, "}");
}

/* One to three edits: delete, insert, replace a byte, or copy a span
 * elsewhere (repeating members). */
static char *mutate(const char *text, size_t len, size_t *out_len)
{
	static const char bytes[] = "{}[],:\"\\ 0-1e.+atfn\x01\xc3";
	struct gen g = { NULL, 0, 0 };
	size_t edits = 1 + below(3), e;

	put(&g, text, len);
	for (e = 0; e < edits && g.len > 0; e++) {
		size_t at = below(g.len);
		char c = bytes[below(sizeof bytes - 1)];

		switch (below(4)) {
		case 0:
			memmove(g.buf + at, g.buf + at + 1, g.len - at - 1);
			g.len--;
			break;
		case 1:
			put(&g, "", 0);
			put(&g, " ", 1);
			memmove(g.buf + at + 1, g.buf + at, g.len - at - 1);
			g.buf[at] = c;
			break;
		case 2:
			g.buf[at] = c;
			break;
		default: {
			size_t from = below(g.len), n = below(g.len - from < 64 ? g.len - from : 64) + 1;
			char *span = malloc(n);

			assert_non_null(span);
			memcpy(span, g.buf + from, n);
			put(&g, span, n);
			memmove(g.buf + at + n, g.buf + at, g.len - n - at);
			memcpy(g.buf + at, span, n);
			free(span);
		}
		}
	}
	*out_len = g.len;
	return g.buf;
}

/* ---- The corpus -------------------------------------------------------- */

/* Where the value at text[i] (after white space) ends, for texts json-c
 * took; len when it does not. */
static size_t value_end(const char *text, size_t len, size_t i)
{
	size_t depth = 0;

	for (; i < len; i++) {
		char c = text[i];

		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				i += text[i] == '\\';
			if (depth == 0)
				return i + 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 && strchr(",}] \t\r\n", c) != NULL) {
			return i;
		}
	}
	return len;
}

/* Checks a text, every object in it with pod_fields, and mutations of the
 * text (counted in mt). */
static void check_corpus_text(const char *text, size_t len, size_t mutations, struct tally *t,
			      struct tally *mt)
{
	size_t i;

	check_both(text, len, t);
	for (i = 0; i < len; i++) {
		if (text[i] == '{')
			check(text + i, value_end(text, len, i) - i, pod_fields, t);
	}
	for (i = 0; i < mutations; i++) {
		size_t n;
		char *m = mutate(text, len, &n);

		check_both(m, n, mt);
		free(m);
	}
}

static void walk(const char *dir, struct tally *t, struct tally *mt, size_t *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[512];
		size_t n = strlen(e->d_name), len;
		char *text;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			walk(path, t, mt, files);
			continue;
		}
		if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		text = read_file_or_die(path, &len);
		check_corpus_text(text, len, 40, t, mt);
		free(text);
		(*files)++;
	}
	closedir(d);
}

/* ---- Tests ------------------------------------------------------------- */

static void doc_text_agrees_on_every_fixture(void **state)
{
	struct tally t = { 0, 0 }, mt = { 0, 0 };
	size_t files = 0;

	(void)state;
	walk("tests/data", &t, &mt, &files);
	check_corpus_text(bench_pod_json, bench_pod_len, 2000, &t, &mt);
	print_message("%zu files: %zu of %zu texts built, %zu of %zu mutants\n", files, t.built,
		      t.built + t.bailed, mt.built, mt.built + mt.bailed);
	assert_true(files >= 50);
	assert_true(t.built > 10 * t.bailed);
	assert_true(mt.built > 500 && mt.bailed > 500);
}

/* The fast path is taken: kube-scheduler's pods and every pod fixture are
 * built, whole and as pod_fields. */
static void doc_text_builds_realistic_pods(void **state)
{
	static const char *const files[] = {
		"tests/data/fixtures/wire/filter-request-nodecache.json",
		"tests/data/fixtures/wire/filter-request-fullnodes.json",
		"tests/data/fixtures/wire/prioritize-request.json",
		"tests/data/fixtures/wire/preempt-request.json",
		"tests/data/fixtures/podfingerprint/pods.json",
		"tests/data/decode/pod/guaranteed.json",
		"tests/data/decode/pod/besteffort.json",
		"tests/data/decide/pods/00-fixture.json",
		"tests/data/decide/pods/31-init-sidecar-adds-to-app-pod-scope.json",
		"tests/data/decide/pods/117-init-gpu-reused-by-app.json",
	};
	struct tally t = { 0, 0 };
	size_t i, pods = 0;

	(void)state;
	assert_true(check(bench_pod_json, bench_pod_len, pod_fields, &t));
	assert_true(check(bench_pod_json, bench_pod_len, NULL, &t));
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len, k;
		char *text = read_file_or_die(files[i], &len);
		const char *p = text;

		if (!check(text, len, NULL, &t))
			fail_msg("%s: given up on", files[i]);
		/* Each Pod member of a request. */
		while ((p = strstr(p, "\"Pod\": ")) != NULL) {
			p += 7;
			k = (size_t)(p - text);
			if (!check(p, value_end(text, len, k) - k, pod_fields, &t))
				fail_msg("%s: Pod at byte %zu given up on", files[i], k);
			pods++;
		}
		free(text);
	}
	assert_true(pods >= 4);
	assert_int_equal(t.bailed, 0);
}

/* What it gives up on: each case json-c reads in its own way. */
static void doc_text_gives_up_on_quirks(void **state)
{
	static const struct {
		const char *text;
		bool pod; /* with pod_fields, else whole */
	} quirks[] = {
		{ "{\"a\":-0}", false },
		{ "{\"a\":18446744073709551616}", false },
		{ "{\"a\":-9223372036854775809}", false },
		{ "{\"a\":100000000000000000000}", false },
		{ "{\"a\":1,\"a\":2}", false },
		{ "{\"a\":{\"b\":1,\"c\":2,\"b\":3}}", false },
		{ "{\"a\":1,\"\\u0061\":2}", false },
		{ "{\"a\\u0000b\":1}", false },
		{ "{\"a\":\"\\ud800\"}", false },
		{ "{\"a\":\"\\udc00\"}", false },
		{ "{\"a\":\"\\ud800\\u0041\"}", false },
		{ "{\"a\":\"\\ud800\\n\"}", false },
		{ "{\"a\":\"x\x01y\"}", false },
		{ "{\"a\":NaN}", false },
		{ "{\"a\":Infinity}", false },
		{ "{\"a\":01}", false },
		{ "{\"a\":1.}", false },
		{ "{\"a\":1,}", false },
		{ "[1,]", false },
		{ "{'a':1}", false },
		{ "{\"a\":1} x", false },
		{ "7", false },
		{ "\"text\"", false },
		/* pod_fields: a kept member twice, a kept key spelled with a
		 * NUL that json-c would cut to a kept one, "-0" in a kept
		 * subtree. */
		{ "{\"metadata\":{},\"metadata\":{\"name\":\"p\"}}", true },
		{ "{\"kind\\u0000x\":\"Pod\"}", true },
		{ "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":-0}}}]}}", true },
		{ "{\"spec\":{\"containers\":[{\"name\":\"a\",\"name\":\"b\"}]}}", true },
	};
	struct tally t = { 0, 0 };
	char deep[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof quirks / sizeof quirks[0]; i++) {
		if (check(quirks[i].text, strlen(quirks[i].text), quirks[i].pod ? pod_fields : NULL, &t))
			fail_msg("built %s", quirks[i].text);
	}
	/* 63 nested arrays are built, 64 (json-c's limit is a 64th level
	 * that holds nothing) are not. */
	memset(deep, '[', 63);
	memset(deep + 63, ']', 63);
	assert_true(check(deep, 126, NULL, &t));
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	assert_false(check(deep, 128, NULL, &t));
	memset(deep, '[', 66);
	memset(deep + 66, ']', 66);
	assert_false(check(deep, 132, NULL, &t));
}

/* What it reads exactly as json-c does, quirks of json-c's included. */
static void doc_text_matches_json_c_exactly(void **state)
{
	static const char *const exact[] = {
		"{\"a\":0,\"b\":1e3,\"c\":1.50,\"d\":-0.0,\"e\":1E+3,\"f\":5e-324,\"g\":2.5e-400}",
		"{\"a\":9223372036854775807,\"b\":9223372036854775808,\"c\":18446744073709551615}",
		"{\"a\":-9223372036854775808,\"b\":-1,\"c\":1.7976931348623157e309}",
		"{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}",
		"{\"a\":\"\\u003cb\\u003e \\u0026 \\u00e9 \\u20AC \\ud83d\\ude00 \\uDBFF\\uDFFF\"}",
		"{\"a\":\"x\\u0000y\",\"b\":\"\xff\xfe raw\"}",
		"{\"n\\u0061me\":\"p\",\"\":[],\"e\":{}}",
		" \n[true,false,null,[],{},\"\"] \t",
		/* pod_fields: repeats and quirks outside what is kept do not
		 * matter; kept members come in the list's order. */
		"{\"status\":{\"qosClass\":\"BestEffort\",\"x\":1,\"x\":-0},\"x\":1,\"x\":2,"
		"\"spec\":{\"containers\":[{\"env\":-0,\"env\":1e999,\"name\":\"c\"},7,[1,[2]],null],"
		"\"volumes\":[{\"a\":\"\\ud800\"}]},\"metadata\":{\"name\":\"p\",\"labels\":"
		"{\"l\":1,\"l\":2}},\"kind\":\"Pod\"}",
		"{\"metadata\":null,\"spec\":[{\"name\":1}],\"status\":\"x\",\"kind\":{\"a\":[1]}}",
		"{\"spe\\u0063\":{\"containers\":{\"name\":\"whole\"},\"initContainers\":[{\"name\":\"i\"}]}}",
	};
	struct tally t = { 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof exact / sizeof exact[0]; i++) {
		if (!check(exact[i], strlen(exact[i]), i < 8 ? NULL : pod_fields, &t))
			fail_msg("gave up on %s", exact[i]);
		if (i < 8 && !check(exact[i], strlen(exact[i]), pod_fields, &t))
			fail_msg("gave up on %s with pod_fields", exact[i]);
	}
}

/* Generated documents and pods, and mutations of them. */
static void doc_text_agrees_on_generated_texts(void **state)
{
	struct tally docs = { 0, 0 }, pods = { 0, 0 }, mutants = { 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct gen g = { NULL, 0, 0 };
		size_t n;
		char *m;

		if (i % 2) {
			tame = i % 4 == 1;
			gen_pod(&g);
			tame = false;
			check_both(g.buf, g.len, &pods);
		} else {
			if (below(2))
				gen_object(&g, 0);
			else
				gen_array(&g, 0);
			check_both(g.buf, g.len, &docs);
		}
		m = mutate(g.buf, g.len, &n);
		check_both(m, n, &mutants);
		free(m);
		free(g.buf);
	}
	/* Deep chains about json-c's depth limit, with a pod at the bottom. */
	for (i = 55; i < 68; i++) {
		struct gen g = { NULL, 0, 0 };
		size_t k;

		for (k = 0; k < i; k++)
			puts_(&g, k % 2 ? "[" : "{\"spec\":");
		gen_pod(&g);
		for (k = i; k > 0; k--)
			puts_(&g, k % 2 == 0 ? "]" : "}");
		check_both(g.buf, g.len, &docs);
		free(g.buf);
	}
	print_message("documents %zu/%zu, pods %zu/%zu, mutants %zu/%zu built\n", docs.built,
		      docs.built + docs.bailed, pods.built, pods.built + pods.bailed, mutants.built,
		      mutants.built + mutants.bailed);
	/* Every kind of outcome happened often enough to mean something. */
	assert_true(docs.built > 500 && docs.bailed > 500);
	assert_true(pods.built > 500 && pods.bailed > 100);
	assert_true(mutants.built > 300 && mutants.bailed > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doc_text_builds_realistic_pods),
		cmocka_unit_test(doc_text_gives_up_on_quirks),
		cmocka_unit_test(doc_text_matches_json_c_exactly),
		cmocka_unit_test(doc_text_agrees_on_every_fixture),
		cmocka_unit_test(doc_text_agrees_on_generated_texts),
	};

	return cmocka_run_group_tests_name("doc_text", tests, NULL, NULL);
}
