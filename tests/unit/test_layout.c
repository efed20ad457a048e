/* SPDX-License-Identifier: Apache-2.0 */
/* The docs against the tree, so that they cannot drift from it unseen:
 *  - the layout block of docs/architecture.md names only folders and files
 *    that exist, and names every .c file under base/, topology/, scheduler/, dra/
 *    and extender/;
 *  - every file name ending in .c or .h that README.md, every .md file of docs/ and
 *    tests/fuzz/README.md mention is a file of the tree.
 *
 * The layout block (the code block under "## Layout") is read this way:
 * words inside parentheses are comments, even across lines; every other
 * word is a name. "NAME/" at the start of an unindented line is a top
 * folder; any other "NAME/" is a folder inside the current top folder, and
 * the names after it belong to it. A name with a dot is a file ("example.yaml"),
 * a name with "*" a pattern ("sched_*") that must match some .c or .h, any
 * other name a module: NAME.c or NAME.h. Tests run from the repository
 * root and read the files there. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/report.h"
#include "tests/support/tree_files.h"

/* The document whose "## Layout" block is held to the tree. */
#define LAYOUT_DOC "docs/architecture.md"
#define MAX_NAMED 1024
#define MAX_SOURCES 4096

struct named {
	char dir[128];
	char name[64];
};

struct check {
	struct named named[MAX_NAMED];
	size_t nnamed;
	struct report rep;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		fail_msg("%s: cannot open (tests run from the repository root)", path);
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
		buf[n] = '\0';
	}
	fclose(f);
	assert_non_null(buf);
	return buf;
}

static bool exists(const char *path, bool dir)
{
	struct stat st;

	return stat(path, &st) == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* The text between the fences of the first code block after "## Layout". */
static char *layout_block(const char *readme)
{
	const char *h = strstr(readme, "\n## Layout\n"), *open, *close;
	char *out;

	assert_non_null(h);
	open = strstr(h, "\n```\n");
	assert_non_null(open);
	open += 5;
	close = strstr(open, "```\n");
	assert_non_null(close);
	out = malloc((size_t)(close - open) + 1);
	assert_non_null(out);
	memcpy(out, open, (size_t)(close - open));
	out[close - open] = '\0';
	return out;
}

/* A .c or .h file of dir whose name without the ending fnmatches pattern. */
static bool pattern_matches(const char *dir, const char *pattern)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char stem[256];

		if (n < 3 || n >= sizeof stem || e->d_name[n - 2] != '.' ||
		    (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h'))
			continue;
		memcpy(stem, e->d_name, n - 2);
		stem[n - 2] = '\0';
		found = fnmatch(pattern, stem, 0) == 0;
	}
	closedir(d);
	return found;
}

static void name_word(struct check *c, const char *cur, const char *word)
{
	char path[512];
	size_t i;

	for (i = 0; word[i] != '\0'; i++) {
		if (!isalnum((unsigned char)word[i]) && strchr("_.*-", word[i]) == NULL) {
			report_add(&c->rep, "layout: \"%s\": a word outside parentheses must be a name", word);
			return;
		}
	}
	if (cur[0] == '\0') {
		report_add(&c->rep, "layout: \"%s\" is named before any folder", word);
		return;
	}
	if (strchr(word, '*') != NULL) {
		if (!pattern_matches(cur, word))
			report_add(&c->rep, "layout: %s/%s matches no .c or .h file", cur, word);
	} else if (strchr(word, '.') != NULL) {
		snprintf(path, sizeof path, "%s/%s", cur, word);
		if (!exists(path, false))
			report_add(&c->rep, "layout: %s: no such file", path);
	} else {
		snprintf(path, sizeof path, "%s/%s.c", cur, word);
		if (!exists(path, false)) {
			snprintf(path, sizeof path, "%s/%s.h", cur, word);
			if (!exists(path, false))
				report_add(&c->rep, "layout: %s/%s: neither %s.c nor %s.h exists", cur, word,
					word, word);
		}
	}
	if (c->nnamed < MAX_NAMED && strlen(cur) < sizeof c->named[0].dir &&
	    strlen(word) < sizeof c->named[0].name) {
		strcpy(c->named[c->nnamed].dir, cur);
		strcpy(c->named[c->nnamed].name, word);
		c->nnamed++;
	}
}

static void folder_word(struct check *c, char *top, char *cur, const char *word, bool opens_line)
{
	size_t n = strlen(word) - 1; /* without the '/' */

	if (n == 0 || n >= 64) {
		report_add(&c->rep, "layout: \"%s\": not a folder name", word);
		return;
	}
	if (opens_line) {
		memcpy(top, word, n);
		top[n] = '\0';
		strcpy(cur, top);
	} else if (top[0] == '\0') {
		report_add(&c->rep, "layout: %s is named before any top folder", word);
		return;
	} else {
		snprintf(cur, 128, "%s/%.*s", top, (int)n, word);
	}
	if (!exists(cur, true))
		report_add(&c->rep, "layout: %s/: no such folder", cur);
}

static void read_layout(struct check *c, const char *block)
{
	char top[64] = "", cur[128] = "", word[128];
	const char *p = block;
	int depth = 0;

	while (*p != '\0') {
		const char *end = strchr(p, '\n'), *q;
		bool first = true;

		if (end == NULL)
			end = p + strlen(p);
		for (q = p; q < end;) {
			size_t n = 0;

			if (*q == '(' || *q == ')') {
				depth += *q == '(' ? 1 : -1;
				if (depth < 0) {
					report_add(&c->rep, "layout: a ')' closes nothing");
					depth = 0;
				}
				q++;
				continue;
			}
			if (depth > 0 || *q == ' ' || *q == '\t') {
				q++;
				continue;
			}
			while (q + n < end && q[n] != ' ' && q[n] != '\t' && q[n] != '(' && q[n] != ')')
				n++;
			if (n >= sizeof word) {
				report_add(&c->rep, "layout: a word of %zu bytes", n);
			} else {
				memcpy(word, q, n);
				word[n] = '\0';
				if (word[n - 1] == '/')
					folder_word(c, top, cur, word, first && q == p);
				else
					name_word(c, cur, word);
			}
			first = false;
			q += n;
		}
		p = *end != '\0' ? end + 1 : end;
	}
	if (depth != 0)
		report_add(&c->rep, "layout: a '(' is never closed");
}

/* Every .c (with sources) or .c/.h (without) below a few roots, as
 * "dir/name.c", collected by nftw's callback. */
static char *sources[MAX_SOURCES];
static size_t nsources;
static bool with_headers;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (type != FTW_F || n < 3 || path[n - 2] != '.' ||
	    (path[n - 1] != 'c' && !(with_headers && path[n - 1] == 'h')))
		return 0;
	if (nsources == MAX_SOURCES)
		return 1;
	sources[nsources] = strdup(strncmp(path, "./", 2) == 0 ? path + 2 : path);
	assert_non_null(sources[nsources]);
	nsources++;
	return 0;
}

static void collect_sources(const char *const *roots, size_t nroots, bool headers)
{
	size_t i;

	nsources = 0;
	with_headers = headers;
	for (i = 0; i < nroots; i++)
		assert_int_equal(nftw(roots[i], collect, 16, FTW_PHYS), 0);
}

static void free_sources(void)
{
	while (nsources > 0)
		free(sources[--nsources]);
}

static const char *const code_roots[] = { "base", "topology", "scheduler", "dra", "extender" };

/* Every .c file under the code roots is named in its folder. */
static void check_coverage(struct check *c)
{
	size_t i, k;

	collect_sources(code_roots, sizeof code_roots / sizeof code_roots[0], false);
	for (i = 0; i < nsources; i++) {
		char dir[256], stem[128];
		const char *slash = strrchr(sources[i], '/');
		size_t dn = (size_t)(slash - sources[i]), sn = strlen(slash + 1) - 2;
		bool named = false;

		assert_true(dn < sizeof dir && sn < sizeof stem);
		memcpy(dir, sources[i], dn);
		dir[dn] = '\0';
		memcpy(stem, slash + 1, sn);
		stem[sn] = '\0';
		for (k = 0; k < c->nnamed && !named; k++)
			named = strcmp(c->named[k].dir, dir) == 0 &&
				(strcmp(c->named[k].name, stem) == 0 ||
				 (strchr(c->named[k].name, '*') != NULL &&
				  fnmatch(c->named[k].name, stem, 0) == 0));
		if (!named)
			report_add(&c->rep, "layout: %s is not named (add %s under %s/)", sources[i], stem, dir);
	}
	free_sources();
}

static void check_layout(struct check *c, const char *block)
{
	memset(c, 0, sizeof *c);
	read_layout(c, block);
	check_coverage(c);
}

static void layout_names_what_exists_and_every_source_file(void **state)
{
	static struct check c;
	char *doc = slurp(LAYOUT_DOC), *block = layout_block(doc);

	(void)state;
	check_layout(&c, block);
	if (c.rep.problems != 0)
		fail_msg(LAYOUT_DOC "'s layout does not match the tree:\n%s", c.rep.text);
	/* The block was read: the roots and a pattern are in it. */
	assert_true(c.nnamed > 100);
	free(block);
	free(doc);
}

/* The checker itself: a block that names a missing module, prose outside
 * parentheses, and leaves out most of the tree is refused on each count. */
static void layout_check_refuses_a_wrong_block(void **state)
{
	static struct check c;

	(void)state;
	check_layout(&c, "base/       xalloc err arena checked textbuf hash strmap nosuch\n"
				"  cmd/      main, serve   (the commands\n"
				"            still a comment)\n"
				"topology/   sched_*\n");
	assert_non_null(strstr(c.rep.text, "layout: base/nosuch: neither nosuch.c nor nosuch.h exists"));
	assert_non_null(strstr(c.rep.text, "layout: base/cmd/: no such folder"));
	assert_non_null(strstr(c.rep.text, "\"main,\": a word outside parentheses must be a name"));
	assert_non_null(strstr(c.rep.text, "layout: topology/sched_* matches no .c or .h file"));
	assert_non_null(strstr(c.rep.text, "layout: topology/judge.c is not named"));
	assert_non_null(strstr(c.rep.text, "layout: extender/codec/wire_scan.c is not named"));
	assert_null(strstr(c.rep.text, "base/arena.c is not named"));
	assert_null(strstr(c.rep.text, "never closed"));
}

static bool ident(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* Each word of text that ends in ".c" or ".h" names a file of the tree:
 * the path as written, or a file whose path ends in "/" and it. */
static void check_mentions(struct check *c, const char *doc, const char *text)
{
	const char *p;

	for (p = text; (p = strchr(p, '.')) != NULL; p++) {
		const char *start = p;
		char word[256];
		size_t n, i;
		bool found = false;

		if ((p[1] != 'c' && p[1] != 'h') || ident(p[2]) || p == text)
			continue;
		while (start > text && (ident(start[-1]) || strchr("./-", start[-1]) != NULL))
			start--;
		/* "*.c" and ".c" name no file. */
		if (!ident(*start) || (start > text && start[-1] == '*'))
			continue;
		n = (size_t)(p + 2 - start);
		if (n >= sizeof word)
			continue;
		memcpy(word, start, n);
		word[n] = '\0';
		for (i = 0; i < nsources && !found; i++) {
			size_t l = strlen(sources[i]);

			found = strcmp(sources[i], word) == 0 ||
				(l > n && sources[i][l - n - 1] == '/' &&
				 strcmp(sources[i] + l - n, word) == 0);
		}
		if (!found)
			report_add(&c->rep, "%s names %s, which is no file of the tree", doc, word);
	}
}

static void docs_name_only_files_that_exist(void **state)
{
	static const char *const roots[] = { "base", "topology", "scheduler", "dra", "extender", "tests" };
	static struct tree_files docs;
	static struct check c;
	size_t i;

	(void)state;
	memset(&c, 0, sizeof c);
	collect_sources(roots, sizeof roots / sizeof roots[0], true);
	assert_true(nsources > 100);
	tree_files_add_one(&docs, "README.md");
	tree_files_add_one(&docs, "tests/fuzz/README.md");
	assert_true(tree_files_add(&docs, "docs", ".md"));
	for (i = 0; i < docs.n; i++) {
		char *text = slurp(docs.path[i]);

		check_mentions(&c, docs.path[i], text);
		free(text);
	}
	/* README, fuzz notes; architecture, operator guide, configuration, ... */
	assert_true(docs.n >= 10);
	tree_files_free(&docs);
	if (c.rep.problems != 0) {
		free_sources();
		fail_msg("the docs name files the tree does not have:\n%s", c.rep.text);
	}
	/* The checker finds a stale name among good ones and skips patterns. */
	check_mentions(&c, "(self-check)",
		       "the flow: codec/wire.c, then decide/decide.c, sim.h; every *.c and .h file.");
	free_sources();
	assert_int_equal(c.rep.problems, 1);
	assert_string_equal(c.rep.text, "(self-check) names codec/wire.c, which is no file of the tree\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_names_what_exists_and_every_source_file),
		cmocka_unit_test(layout_check_refuses_a_wrong_block),
		cmocka_unit_test(docs_name_only_files_that_exist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
