/* SPDX-License-Identifier: Apache-2.0 */
/* The docs stand alone and match the code:
 *  - README.md, docs/ and tests/fuzz/README.md, the comments of config/ and
 *    manifests/ YAML, and the code (its comments, what it prints) cite no
 *    document or section outside the repository: no section sign, no
 *    numbered section, no markdown page the tree does not hold (this file
 *    writes its own examples of each in pieces, so that it passes too);
 *  - every markdown link of README.md, docs/ and tests/fuzz/README.md that
 *    is not a URL reaches a file or folder of the tree, and its "#anchor" a
 *    heading of that file (GitHub's rule: lower case, punctuation dropped,
 *    spaces to "-");
 *  - the key table of docs/configuration.md ("## Every key") names exactly
 *    the keys of the configuration's schema (config_each_key).
 * Tests run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extender/config.h"
#include "tests/support/http_client.h"
#include "tests/support/report.h"
#include "tests/support/tree_files.h"

#define MAX_KEYS 128
/* The made-up page the self-checks report on (in pieces: see above). */
#define SELF_CHECK "docs/self-check" ".md"

static char *slurp(const char *path)
{
	return read_file_or_die(path, NULL);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- the files the checks read ------------------------------------------ */

static struct tree_files files;

/* The markdown the project writes: the README, docs/, the fuzzing notes. */
static void markdown_files(void)
{
	tree_files_add_one(&files, "README.md");
	tree_files_add_one(&files, "tests/fuzz/README.md");
	assert_true(tree_files_add(&files, "docs", ".md"));
}

/* ---- references outside the repository ---------------------------------- */

/* The comment lines of a YAML file ("# ..." after optional blanks). */
static char *yaml_comments(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *p = text;

	assert_non_null(out);
	while (*p != '\0') {
		const char *end = strchr(p, '\n'), *q = p;

		if (end == NULL)
			end = p + strlen(p);
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '#') {
			memcpy(o, q, (size_t)(end - q));
			o += end - q;
			*o++ = '\n';
		}
		p = *end ? end + 1 : end;
	}
	*o = '\0';
	return out;
}

static bool icase_prefix(const char *s, const char *prefix)
{
	for (; *prefix != '\0'; s++, prefix++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return false;
	return true;
}

/* The markdown pages of the tree, by file name: a page named anywhere must
 * be one of them. */
static struct tree_files pages;

static void load_pages(void)
{
	static const char *const roots[] = { "docs", "tests", "manifests", "config", "scripts" };
	size_t i;

	if (pages.n != 0)
		return;
	tree_files_add_one(&pages, "README.md");
	for (i = 0; i < sizeof roots / sizeof roots[0]; i++)
		assert_true(tree_files_add(&pages, roots[i], ".md"));
}

static bool page_in_tree(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < pages.n; i++) {
		const char *base = strrchr(pages.path[i], '/');

		base = base ? base + 1 : pages.path[i];
		if (strlen(base) == len && memcmp(base, name, len) == 0)
			return true;
	}
	return false;
}

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.' || c == '/';
}

/* Every markdown file name in text (not part of a URL) is a page of the
 * tree. */
static void check_pages(struct report *r, const char *where, const char *text)
{
	const char *p, *start, *base;

	for (p = strstr(text, ".md"); p != NULL; p = strstr(p + 3, ".md")) {
		if (path_char(p[3]) && p[3] != '.' && p[3] != '/')
			continue; /* ".mdx", ".md5": another word */
		for (start = p; start > text && path_char(start[-1]); start--)
			;
		if (start > text && start[-1] == ':')
			continue; /* a URL */
		for (base = p; base > start && base[-1] != '/'; base--)
			;
		if (base == p || page_in_tree(base, (size_t)(p + 3 - base)))
			continue;
		report_add(r, "%s: names %.*s, which is not in the repository", where,
			   (int)(p + 3 - start), start);
	}
}

/* The section sign, a numbered section (the word, then a number), or a
 * page outside the tree. */
static void check_references(struct report *r, const char *where, const char *text)
{
	const char *p;

	if (strstr(text, "\xc2\xa7") != NULL)
		report_add(r, "%s: cites a section with \"\xc2\xa7\"", where);
	for (p = text; *p != '\0'; p++) {
		const char *q = p + 8;

		if (!icase_prefix(p, "section ") || (p > text && isalnum((unsigned char)p[-1])))
			continue;
		if (isdigit((unsigned char)*q))
			report_add(r, "%s: cites \"%.*s\", a numbered section", where, 12, p);
	}
	check_pages(r, where, text);
}

static void docs_cite_nothing_outside_the_repository(void **state)
{
	static const char *const code_roots[] = {
		"base", "topology", "scheduler", "dra", "extender", "tests/bench", "tests/support",
		"tests/integration", "tests/unit", "tests/fuzz",
	};
	static struct report r;
	size_t i, nmd, nyaml;

	(void)state;
	memset(&r, 0, sizeof r);
	load_pages();
	markdown_files();
	nmd = files.n;
	assert_true(tree_files_add(&files, "config", ".yaml"));
	assert_true(tree_files_add(&files, "manifests", ".yaml"));
	/* README, fuzz notes, 8 docs; example.yaml, the manifests. */
	assert_true(nmd >= 10);
	assert_true(files.n >= nmd + 20);
	/* The code too: a comment, or what a benchmark prints, is read. */
	nyaml = files.n;
	for (i = 0; i < sizeof code_roots / sizeof code_roots[0]; i++) {
		assert_true(tree_files_add(&files, code_roots[i], ".c"));
		assert_true(tree_files_add(&files, code_roots[i], ".h"));
	}
	assert_true(tree_files_add(&files, "scripts", ".sh"));
	tree_files_add_one(&files, "Makefile");
	tree_files_add_one(&files, "Dockerfile");
	for (i = 0; i < files.n; i++) {
		char *text = slurp(files.path[i]);

		if (i < nmd || i >= nyaml) {
			check_references(&r, files.path[i], text);
		} else {
			char *comments = yaml_comments(text);

			check_references(&r, files.path[i], comments);
			free(comments);
		}
		free(text);
	}
	tree_files_free(&files);
	if (r.problems != 0)
		fail_msg("the docs cite what the repository does not hold:\n%s", r.text);
	/* The check finds each kind. */
	check_references(&r, SELF_CHECK,
			 "as doc \xc2\xa7" "7 says; see no-such-page" ".md Sec" "tion 4.4 and sec" "tion 3; "
			 "the sections below; inter" "sec" "tion 5; https://example.com/a/notes" ".md; docs/tools"
			 ".md; ../README" ".md");
	assert_int_equal(r.problems, 4);
	assert_non_null(strstr(r.text, SELF_CHECK ": cites \"Sec" "tion 4.4 \""));
	assert_non_null(strstr(r.text, SELF_CHECK ": cites \"sec" "tion 3; t\""));
	assert_non_null(strstr(r.text, "names no-such-page" ".md, which is not"));
}

/* ---- links --------------------------------------------------------------- */

/* A line that opens or closes a fenced code block (indented in a list too). */
static bool fence(const char *line, const char *end)
{
	while (line < end && *line == ' ')
		line++;
	return end - line >= 3 && strncmp(line, "```", 3) == 0;
}

/* GitHub's anchor of a heading's text. */
static void slug(const char *heading, size_t n, char *out, size_t cap)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < cap; i++) {
		unsigned char c = (unsigned char)heading[i];

		if (isalnum(c) || c == '_' || c == '-')
			out[o++] = (char)tolower(c);
		else if (c == ' ')
			out[o++] = '-';
		else if (c >= 0x80)
			out[o++] = (char)c; /* letters beyond ASCII stay */
	}
	out[o] = '\0';
}

/* The text has a heading ("#" to "######" at a line's start, outside code
 * blocks) whose anchor is anchor. */
static bool has_anchor(const char *text, const char *anchor)
{
	const char *p = text;
	bool code = false;

	while (*p != '\0') {
		const char *end = strchr(p, '\n');
		size_t len;

		if (end == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (fence(p, end))
			code = !code;
		else if (!code && len > 1 && *p == '#') {
			const char *h = p;
			char s[256];

			while (h < end && *h == '#')
				h++;
			while (h < end && *h == ' ')
				h++;
			slug(h, (size_t)(end - h), s, sizeof s);
			if (strcmp(s, anchor) == 0)
				return true;
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

/* Each "](target)" of a markdown file outside code blocks: target is a URL,
 * or a path relative to the file's folder (with an optional #anchor), or
 * "#anchor" in the file itself. */
static void check_links(struct report *r, const char *path, const char *text)
{
	char dir[256];
	const char *slash = strrchr(path, '/'), *p = text;
	bool code = false;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 0, path);
	while (*p != '\0') {
		const char *end = strchr(p, '\n'), *q;

		if (end == NULL)
			end = p + strlen(p);
		if (fence(p, end)) {
			code = !code;
			p = *end ? end + 1 : end;
			continue;
		}
		for (q = p; !code && q + 1 < end; q++) {
			const char *t, *close, *hash;
			char target[512], file[800], anchor[256];

			if (q[0] != ']' || q[1] != '(')
				continue;
			t = q + 2;
			close = memchr(t, ')', (size_t)(end - t));
			if (close == NULL || (size_t)(close - t) >= sizeof target)
				continue;
			snprintf(target, sizeof target, "%.*s", (int)(close - t), t);
			if (strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0 ||
			    strncmp(target, "mailto:", 7) == 0)
				continue;
			hash = strchr(target, '#');
			snprintf(anchor, sizeof anchor, "%s", hash ? hash + 1 : "");
			if (hash)
				target[hash - target] = '\0';
			if (target[0] == '\0') {
				/* "#anchor": a heading of this file. */
				if (!has_anchor(text, anchor))
					report_add(r, "%s: link to #%s: no such heading", path, anchor);
				continue;
			}
			if (dir[0] != '\0')
				snprintf(file, sizeof file, "%s/%s", dir, target);
			else
				snprintf(file, sizeof file, "%s", target);
			if (!exists(file)) {
				report_add(r, "%s: link to %s: no such file", path, file);
			} else if (anchor[0] != '\0') {
				char *linked = slurp(file);

				if (!has_anchor(linked, anchor))
					report_add(r, "%s: link to %s#%s: no such heading", path, file, anchor);
				free(linked);
			}
		}
		p = *end ? end + 1 : end;
	}
}

static void docs_links_reach_files_and_headings(void **state)
{
	static struct report r;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof r);
	markdown_files();
	for (i = 0; i < files.n; i++) {
		char *text = slurp(files.path[i]);

		check_links(&r, files.path[i], text);
		free(text);
	}
	tree_files_free(&files);
	if (r.problems != 0)
		fail_msg("the docs link to what is not there:\n%s", r.text);
	/* The check finds a missing file and a missing heading, and follows
	 * good links of both kinds. */
	check_links(&r, SELF_CHECK,
		    "# Self check (mTLS)\n[a](operator-guide.md#metrics) [b](nosuch" ".md) "
		    "[c](#self-check-mtls) [d](#nowhere) [e](../README.md) [f](https://example.com/x)\n"
		    "```\n[g](inside-a-code-block" ".md)\n```\n");
	if (r.problems != 2)
		fail_msg("self-check: %s", r.text);
	assert_non_null(strstr(r.text, SELF_CHECK ": link to docs/nosuch" ".md: no such file"));
	assert_non_null(strstr(r.text, SELF_CHECK ": link to #nowhere: no such heading"));
}

/* ---- the configuration's key table --------------------------------------- */

struct keys {
	char *v[MAX_KEYS];
	size_t n;
};

static void add_key(const char *path, void *arg)
{
	struct keys *k = arg;

	assert_true(k->n < MAX_KEYS);
	k->v[k->n] = strdup(path);
	assert_non_null(k->v[k->n]);
	k->n++;
}

static bool in_keys(const struct keys *k, const char *key)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->v[i], key) == 0)
			return true;
	return false;
}

static void free_keys(struct keys *k)
{
	while (k->n > 0)
		free(k->v[--k->n]);
}

/* The keys of the table under "## Every key": each row's first cell holds
 * one or more `key`s. */
static void table_keys(const char *doc, struct keys *out)
{
	const char *p = strstr(doc, "\n## Every key\n"), *stop;

	assert_non_null(p);
	stop = strstr(p + 1, "\n## ");
	if (stop == NULL)
		stop = p + strlen(p);
	for (p = strchr(p + 1, '\n'); p && p < stop; p = strchr(p + 1, '\n')) {
		const char *cell = p + 1, *cell_end, *q;

		if (*cell != '|' || strncmp(cell, "| key ", 6) == 0 || strncmp(cell, "|---", 4) == 0)
			continue;
		cell_end = strchr(cell + 1, '|');
		assert_non_null(cell_end);
		for (q = cell; q < cell_end; q++) {
			const char *close;
			char key[128];

			if (*q != '`')
				continue;
			close = memchr(q + 1, '`', (size_t)(cell_end - q - 1));
			assert_non_null(close);
			assert_true((size_t)(close - q - 1) < sizeof key);
			snprintf(key, sizeof key, "%.*s", (int)(close - q - 1), q + 1);
			add_key(key, out);
			q = close;
		}
	}
}

static void docs_key_table_is_the_schema(void **state)
{
	static struct keys schema, table;
	char *doc = slurp("docs/configuration.md");
	size_t i, missing = 0;

	(void)state;
	config_each_key(add_key, &schema);
	table_keys(doc, &table);
	/* listen, the tls, inventory, limits, ledger keys, ... */
	assert_true(schema.n >= 39);
	for (i = 0; i < schema.n; i++)
		if (!in_keys(&table, schema.v[i])) {
			print_error("docs/configuration.md: key %s is not in the table\n", schema.v[i]);
			missing++;
		}
	for (i = 0; i < table.n; i++)
		if (!in_keys(&schema, table.v[i])) {
			print_error("docs/configuration.md: %s is no key of the configuration\n", table.v[i]);
			missing++;
		}
	assert_int_equal(missing, 0);
	assert_int_equal(table.n, schema.n);
	free_keys(&schema);
	free_keys(&table);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docs_cite_nothing_outside_the_repository),
		cmocka_unit_test(docs_links_reach_files_and_headings),
		cmocka_unit_test(docs_key_table_is_the_schema),
	};

	return cmocka_run_group_tests_name("docs", tests, NULL, NULL);
}
