/* SPDX-License-Identifier: Apache-2.0 */
/* What a running `serve` shows an operator is what the docs say:
 *  - /metrics of a serve with every part on (the Kubernetes source, the
 *    ledger) names exactly the metrics of the operator guide's table
 *    (docs/operator-guide.md, "## Metrics"), with the same type and label
 *    names, and every numa_extender_ name the docs and the YAML comments
 *    mention is one it serves;
 *  - the README's quick start answers as printed: its filter reply and its
 *    prioritize answer for config/requests/filter-dsa.json against
 *    config/example.yaml;
 *  - with the Kubernetes source and ledger.enabled: false, /ledger says the
 *    ledger is off and why.
 * serve runs as a process ($BIN) against the fake API server or the example
 * files. Tests run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/serve_cluster.h"
#include "tests/support/spawn.h"
#include "tests/support/tree_files.h"

#define TOKEN "docs-token"
#define PREFIX "numa_extender_"
#define MAX_METRICS 128
#define MAX_LABELS 4
#define DEADLINE_S 20

/* A metric as served or as documented: its name, type and label names. */
struct metric {
	char name[96];
	char type[16];
	char labels[MAX_LABELS][24];
	size_t nlabels;
};

struct metrics {
	struct metric v[MAX_METRICS];
	size_t n;
};

static struct metric *find(struct metrics *m, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->v[i].name) == len && strncmp(m->v[i].name, name, len) == 0)
			return &m->v[i];
	return NULL;
}

static struct metric *add(struct metrics *m, const char *name, size_t len)
{
	struct metric *x = find(m, name, len);

	if (x != NULL)
		return x;
	assert_true(m->n < MAX_METRICS);
	assert_true(len < sizeof m->v[0].name);
	x = &m->v[m->n++];
	memset(x, 0, sizeof *x);
	memcpy(x->name, name, len);
	return x;
}

static void add_label(struct metric *x, const char *label, size_t len)
{
	size_t i;

	if (len == 2 && strncmp(label, "le", 2) == 0)
		return; /* a histogram's buckets */
	for (i = 0; i < x->nlabels; i++)
		if (strlen(x->labels[i]) == len && strncmp(x->labels[i], label, len) == 0)
			return;
	assert_true(x->nlabels < MAX_LABELS);
	assert_true(len < sizeof x->labels[0]);
	memcpy(x->labels[x->nlabels], label, len);
	x->labels[x->nlabels++][len] = '\0';
}

static bool same_labels(const struct metric *a, const struct metric *b)
{
	size_t i, k;

	if (a->nlabels != b->nlabels)
		return false;
	for (i = 0; i < a->nlabels; i++) {
		bool found = false;

		for (k = 0; k < b->nlabels; k++)
			found |= strcmp(a->labels[i], b->labels[k]) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* The exposition's families (# TYPE), and the label names of their
 * samples (a histogram's _bucket, _sum and _count belong to it). */
static void parse_exposition(const char *text, struct metrics *out)
{
	const char *p = text;

	while (*p != '\0') {
		const char *end = strchr(p, '\n'), *name_end;

		if (end == NULL)
			end = p + strlen(p);
		if (strncmp(p, "# TYPE ", 7) == 0) {
			const char *name = p + 7, *sp = memchr(name, ' ', (size_t)(end - name));
			struct metric *x;

			assert_non_null(sp);
			x = add(out, name, (size_t)(sp - name));
			snprintf(x->type, sizeof x->type, "%.*s", (int)(end - sp - 1), sp + 1);
		} else if (*p != '#' && p < end) {
			struct metric *x;

			for (name_end = p; name_end < end && *name_end != '{' && *name_end != ' '; name_end++)
				continue;
			x = find(out, p, (size_t)(name_end - p));
			if (x == NULL) {
				static const char *const parts[] = { "_bucket", "_sum", "_count" };
				size_t i;

				for (i = 0; i < 3 && x == NULL; i++) {
					size_t k = strlen(parts[i]), n = (size_t)(name_end - p);

					if (n > k && strncmp(name_end - k, parts[i], k) == 0)
						x = find(out, p, n - k);
				}
			}
			if (x == NULL)
				fail_msg("a sample without a # TYPE: %.*s", (int)(end - p), p);
			if (*name_end == '{') {
				const char *q = name_end + 1;

				while (q < end && *q != '}') {
					const char *eq = memchr(q, '=', (size_t)(end - q));

					assert_non_null(eq);
					add_label(x, q, (size_t)(eq - q));
					/* Past the quoted value. */
					q = strchr(eq + 2, '"');
					assert_non_null(q);
					q++;
					if (*q == ',')
						q++;
				}
			}
		}
		p = *end ? end + 1 : end;
	}
}

static char *slurp(const char *path)
{
	size_t len;

	return read_file_or_die(path, &len);
}

/* The operator guide's table: rows "| `name{a,b}` | type | what |" under
 * "## Metrics". */
static void parse_docs_table(const char *doc, struct metrics *out)
{
	const char *p = strstr(doc, "\n## Metrics\n"), *stop;

	assert_non_null(p);
	stop = strstr(p + 1, "\n## ");
	if (stop == NULL)
		stop = p + strlen(p);
	for (p = strchr(p + 1, '\n'); p && p < stop; p = strchr(p + 1, '\n')) {
		const char *name = p + 1, *q, *type, *type_end;
		struct metric *x;

		if (strncmp(name, "| `" PREFIX, 3 + strlen(PREFIX)) != 0)
			continue;
		name += 3;
		for (q = name; *q != '{' && *q != '`' && *q != '\n'; q++)
			continue;
		if (find(out, name, (size_t)(q - name)) != NULL)
			fail_msg("the metrics table lists %.*s twice", (int)(q - name), name);
		x = add(out, name, (size_t)(q - name));
		if (*q == '{') {
			const char *l = q + 1;

			while (*l != '}') {
				const char *e = l;

				while (*e != ',' && *e != '}')
					e++;
				add_label(x, l, (size_t)(e - l));
				l = *e == ',' ? e + 1 : e;
			}
		}
		type = strstr(q, "| ");
		assert_non_null(type);
		type += 2;
		type_end = strchr(type, ' ');
		assert_non_null(type_end);
		snprintf(x->type, sizeof x->type, "%.*s", (int)(type_end - type), type);
	}
}

static void label_list(const struct metric *x, char *buf, size_t cap)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < x->nlabels && o + 1 < cap; i++) {
		int n = snprintf(buf + o, cap - o, "%s%s", i ? "," : "", x->labels[i]);

		if (n < 0 || (size_t)n >= cap - o)
			break;
		o += (size_t)n;
	}
}

/* ---- every numa_extender_ name the project's text mentions -------------- */

static bool name_char(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '_';
}

/* Each numa_extender_NAME of text is a served family, or a histogram's
 * _bucket/_sum/_count of one; "numa_extender_http_*" must prefix one. */
static size_t check_mentions(const char *where, const char *text, struct metrics *served)
{
	const char *p = text;
	size_t bad = 0;

	while ((p = strstr(p, PREFIX)) != NULL) {
		const char *e = p;
		size_t n, i;
		bool ok = false;

		while (name_char(*e))
			e++;
		n = (size_t)(e - p);
		for (i = 0; i < served->n && !ok; i++) {
			const char *s = served->v[i].name;
			size_t k = strlen(s);

			if (*e == '*')
				ok = k >= n && strncmp(s, p, n) == 0;
			else if (k == n)
				ok = strncmp(s, p, n) == 0;
			else if (k < n && strncmp(s, p, k) == 0 && strcmp(served->v[i].type, "histogram") == 0)
				ok = (n - k == 7 && strncmp(p + k, "_bucket", 7) == 0) ||
				     (n - k == 4 && strncmp(p + k, "_sum", 4) == 0) ||
				     (n - k == 6 && strncmp(p + k, "_count", 6) == 0);
		}
		if (!ok) {
			print_error("%s names %.*s, which /metrics does not serve\n", where, (int)n, p);
			bad++;
		}
		p = e;
	}
	return bad;
}

static void served_metrics_are_the_documented_ones(void **state)
{
	static struct metrics served, documented;
	static struct tree_files files;
	struct serve_cluster c;
	char *body = NULL, *doc = slurp("docs/operator-guide.md");
	size_t i, bad = 0;

	(void)state;
	memset(&served, 0, sizeof served);
	memset(&documented, 0, sizeof documented);
	/* The Kubernetes source with the ledger: every family is rendered. */
	assert_true(serve_cluster_start_pair(&c, "docs", TOKEN));
	assert_int_equal(serve_cluster_get(&c, "/metrics", &body), 200);
	assert_int_equal(serve_cluster_stop(&c), 0);
	parse_exposition(body, &served);
	parse_docs_table(doc, &documented);
	/* The process-wide families, the ledger's and the server's own. */
	assert_true(served.n >= 38);
	for (i = 0; i < served.n; i++) {
		const struct metric *s = &served.v[i];
		const struct metric *x = find(&documented, s->name, strlen(s->name));
		char a[128], b[128];

		if (x == NULL) {
			print_error("%s is served but not in the operator guide's metrics table\n", s->name);
			bad++;
			continue;
		}
		label_list(s, a, sizeof a);
		label_list(x, b, sizeof b);
		if (!same_labels(s, x)) {
			print_error("%s: served with labels {%s}, documented with {%s}\n", s->name, a, b);
			bad++;
		}
		if (strcmp(s->type, x->type) != 0) {
			print_error("%s: served as a %s, documented as a %s\n", s->name, s->type, x->type);
			bad++;
		}
	}
	for (i = 0; i < documented.n; i++)
		if (find(&served, documented.v[i].name, strlen(documented.v[i].name)) == NULL) {
			print_error("the metrics table lists %s, which /metrics does not serve\n", documented.v[i].name);
			bad++;
		}
	/* Every mention elsewhere names a served metric too. */
	tree_files_add_one(&files, "README.md");
	assert_true(tree_files_add(&files, "docs", ".md"));
	assert_true(tree_files_add(&files, "config", ".yaml"));
	assert_true(tree_files_add(&files, "manifests", ".yaml"));
	for (i = 0; i < files.n; i++) {
		char *text = slurp(files.path[i]);

		bad += check_mentions(files.path[i], text, &served);
		free(text);
	}
	tree_files_free(&files);
	assert_int_equal(bad, 0);
	/* The checks find what is wrong. */
	assert_int_equal(check_mentions("(self-check)", "numa_extender_nodes_total{verb} numa_extender_http_* "
			 "numa_extender_request_duration_seconds_bucket numa_extender_no_such_total", &served), 1);
	free(body);
	free(doc);
}

/* ---- the README's quick start ------------------------------------------- */

/* The text between the first `from` after `after` and the next `to`. */
static char *between(const char *text, const char *after, const char *from, const char *to)
{
	const char *a = strstr(text, after), *b, *e;
	char *out;

	assert_non_null(a);
	b = strstr(a + strlen(after), from);
	assert_non_null(b);
	b += strlen(from);
	e = strstr(b, to);
	assert_non_null(e);
	out = strndup(b, (size_t)(e - b));
	assert_non_null(out);
	return out;
}

/* POST body to /verb answers 200 with the JSON printed. */
static void answers_as_printed(int port, const char *verb, const char *body, const char *printed_text)
{
	struct json_object *printed = json_tokener_parse(printed_text), *answered;
	char *reply = NULL, path[64];

	assert_non_null(printed);
	snprintf(path, sizeof path, "/%s", verb);
	assert_int_equal(http_local_request(port, "POST", path, body, &reply), 200);
	answered = json_tokener_parse(reply);
	assert_non_null(answered);
	if (!json_object_equal(printed, answered))
		fail_msg("README prints the %s answer\n%s\nserve answers\n%s", verb, printed_text, reply);
	json_object_put(printed);
	json_object_put(answered);
	free(reply);
}

static void readme_quick_start_answers_as_printed(void **state)
{
	char *readme = slurp("README.md"), *request = slurp("config/requests/filter-dsa.json");
	char *filter_text = between(readme, "http://127.0.0.1:8888/filter", "```json\n", "\n```");
	char *prio_text = between(readme, "The same body to `/prioritize` answers", "`", "`");
	char log[] = "/tmp/numa-docs-log-XXXXXX";
	const char *argv[] = { spawn_serve_bin(), "serve", "--config", "config/example.yaml",
			       "--listen", "127.0.0.1:0", NULL };
	int fd = mkstemp(log), port, i;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* make run's command, on a free port. */
	pid = spawn_process(argv, log);
	port = spawn_wait_listening(log, DEADLINE_S);
	assert_true(port > 0);
	for (i = 0; i < 400 && http_local_request(port, "GET", "/readyz", NULL, NULL) != 200; i++)
		usleep(25 * 1000);
	assert_int_equal(http_local_request(port, "GET", "/readyz", NULL, NULL), 200);

	answers_as_printed(port, "filter", request, filter_text);
	answers_as_printed(port, "prioritize", request, prio_text);
	kill(pid, SIGTERM);
	assert_int_equal(spawn_wait_exit(pid, DEADLINE_S), 0);
	unlink(log);
	free(filter_text);
	free(prio_text);
	free(request);
	free(readme);
}

/* ---- /ledger with the ledger turned off ---------------------------------- */

static void ledger_disabled_says_why(void **state)
{
	struct fake_apiserver_options o = { NULL, NULL, TOKEN, true, false, 0 };
	struct serve_cluster c;
	char *body = NULL;
	FILE *f;

	(void)state;
	memset(&c, 0, sizeof c);
	c.api = fake_apiserver_start(&o);
	assert_non_null(c.api);
	serve_cluster_write_kubeconfig(&c, "docs", TOKEN);
	f = serve_cluster_open_config(&c, "docs");
	fprintf(f, "listen: \"127.0.0.1:0\"\nurlPrefix: /numa\n"
		   "inventory: {source: kubernetes, kubeconfig: %s}\nledger: {enabled: false}\n",
		c.kubeconfig);
	fclose(f);
	serve_cluster_launch(&c);
	assert_true(serve_cluster_wait_ready(&c));
	assert_int_equal(serve_cluster_get(&c, "/ledger", &body), 404);
	assert_string_equal(body, "the assumed-pod ledger is off: ledger.enabled is false in the configuration\n");
	free(body);
	assert_int_equal(serve_cluster_stop(&c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(served_metrics_are_the_documented_ones),
		cmocka_unit_test(readme_quick_start_answers_as_printed),
		cmocka_unit_test(ledger_disabled_says_why),
	};

	return cmocka_run_group_tests_name("serve_docs", tests, NULL, NULL);
}
