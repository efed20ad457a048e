/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/declog_check.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/support/http_client.h"

struct json_object *declog_read(const char *path, char *why, size_t size)
{
	struct json_object *lines;
	size_t len = 0, lineno = 0;
	char *text, *p, *nl;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		snprintf(why, size, "%s: cannot open", path);
		return NULL;
	}
	fclose(f);
	text = read_file_or_die(path, &len);
	if (len > 0 && text[len - 1] != '\n') {
		snprintf(why, size, "%s ends in a cut line", path);
		free(text);
		return NULL;
	}
	lines = json_object_new_array();
	for (p = text; (nl = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p = nl + 1) {
		struct json_tokener *tok = json_tokener_new();
		struct json_object *o = json_tokener_parse_ex(tok, p, (int)(nl - p));
		bool whole = o != NULL && json_tokener_get_parse_end(tok) == (size_t)(nl - p) &&
			     json_object_is_type(o, json_type_object);

		lineno++;
		json_tokener_free(tok);
		if (!whole) {
			snprintf(why, size, "%s line %zu is not a JSON object", path, lineno);
			json_object_put(o);
			json_object_put(lines);
			free(text);
			return NULL;
		}
		json_object_array_add(lines, o);
	}
	free(text);
	return lines;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v) : -1;
}

/* A decision's references, each held before it. */
static bool refs_held(struct json_object *o, struct json_object *held, size_t i, char *why, size_t size)
{
	struct json_object *nodes = NULL;
	char key[512];
	size_t k;

	snprintf(key, sizeof key, "config %s", get_str(o, "config"));
	if (!json_object_object_get_ex(held, key, NULL)) {
		snprintf(why, size, "line %zu: a decision before its %s", i + 1, key);
		return false;
	}
	if (!json_object_object_get_ex(o, "nodes", &nodes) || !json_object_is_type(nodes, json_type_array)) {
		snprintf(why, size, "line %zu: a decision without nodes", i + 1);
		return false;
	}
	for (k = 0; k < json_object_array_length(nodes); k++) {
		struct json_object *n = json_object_array_get_idx(nodes, k);

		if (strcmp(get_str(n, "verdict"), "noInventory") == 0)
			continue;
		snprintf(key, sizeof key, "node %s %s", get_str(n, "node"), get_str(n, "version"));
		if (!json_object_object_get_ex(held, key, NULL)) {
			snprintf(why, size, "line %zu: a decision before its inventory %s", i + 1, key);
			return false;
		}
	}
	return true;
}

bool declog_tally(struct json_object *lines, const char *node, struct declog_tally *t, char *why,
		  size_t size)
{
	struct json_object *held = json_object_new_object();
	int64_t last_seq = 0, seqs = 0;
	bool ok = true;
	size_t i;

	memset(t, 0, sizeof *t);
	t->first_marker = t->first_inventory = SIZE_MAX;
	for (i = 0; ok && i < json_object_array_length(lines); i++) {
		struct json_object *o = json_object_array_get_idx(lines, i);
		const char *type = get_str(o, "type");
		char key[512];

		if (get_int(o, "seq") >= 0) {
			if (get_int(o, "seq") <= last_seq) {
				snprintf(why, size, "line %zu: seq %lld after %lld", i + 1,
					 (long long)get_int(o, "seq"), (long long)last_seq);
				ok = false;
				break;
			}
			last_seq = get_int(o, "seq");
			seqs++;
		}
		if (strcmp(type, "config") == 0) {
			snprintf(key, sizeof key, "config %s", get_str(o, "digest"));
			json_object_object_add(held, key, NULL);
		} else if (strcmp(type, "inventory") == 0) {
			snprintf(key, sizeof key, "node %s %s", get_str(o, "node"), get_str(o, "version"));
			json_object_object_add(held, key, NULL);
			if (strcmp(get_str(o, "node"), node) == 0 && t->inventories++ == 0)
				t->first_inventory = i;
		} else if (strcmp(type, "lost") == 0) {
			if (get_int(o, "records") <= 0 || !get_str(o, "since")[0] || !get_str(o, "error")[0]) {
				snprintf(why, size, "line %zu: a lost marker without records, since or error", i + 1);
				ok = false;
				break;
			}
			t->lost += (uint64_t)get_int(o, "records");
			if (t->markers++ == 0)
				t->first_marker = i;
		} else if (strcmp(type, "decision") == 0) {
			ok = refs_held(o, held, i, why, size);
			t->decisions++;
		}
	}
	t->missing = (uint64_t)(last_seq - seqs);
	json_object_put(held);
	return ok;
}

size_t declog_decisions_now(const char *path)
{
	static const char prefix[] = "{\"type\":\"decision\"";
	size_t n = 0, len = 0;
	char *text, *p, *nl;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	fclose(f);
	text = read_file_or_die(path, &len);
	for (p = text; (nl = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p = nl + 1)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	free(text);
	return n;
}

int declog_replay(const char *bin, const char *args, char **out)
{
	char cmd[1024];
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	FILE *p;
	int status;

	snprintf(cmd, sizeof cmd, "%s replay %s 2>&1", bin, args);
	p = popen(cmd, "r");
	if (p == NULL || buf == NULL)
		abort();
	for (;;) {
		size_t got;

		if (n + 1 == cap && (buf = realloc(buf, cap *= 2)) == NULL)
			abort();
		got = fread(buf + n, 1, cap - 1 - n, p);
		if (got == 0)
			break;
		n += got;
	}
	buf[n] = '\0';
	status = pclose(p);
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
