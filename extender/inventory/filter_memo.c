/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/inventory/filter_memo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

struct memo_node {
	uint64_t hash;     /* hash_key of the node's name */
	size_t version;    /* offset in text */
	bool pass;
};

struct filter_memo_entry {
	char *uid;         /* NULL: free slot */
	struct memo_node *nodes;
	size_t n;
	char *text;
};

struct filter_memo {
	struct filter_memo_entry *ring;
	size_t cap, next;
};

struct filter_memo *filter_memo_new(size_t cap)
{
	struct filter_memo *m = xcalloc(1, sizeof *m);

	m->cap = cap ? cap : 1;
	m->ring = xcalloc(m->cap, sizeof *m->ring);
	return m;
}

static void entry_clear(struct filter_memo_entry *e)
{
	free(e->uid);
	free(e->nodes);
	free(e->text);
	memset(e, 0, sizeof *e);
}

void filter_memo_free(struct filter_memo *m)
{
	size_t k;

	if (m == NULL)
		return;
	for (k = 0; k < m->cap; k++)
		entry_clear(&m->ring[k]);
	free(m->ring);
	free(m);
}

struct filter_memo_entry *filter_memo_entry_new(const char *uid, size_t n,
						const char *const *names, const bool *passes,
						const char *const *versions)
{
	struct filter_memo_entry *e;
	size_t i, size = 0, at = 0;

	for (i = 0; i < n; i++)
		if (versions[i])
			size += strlen(versions[i]) + 1;
	if (size == 0)
		return NULL;
	e = xcalloc(1, sizeof *e);
	e->uid = xstrdup(uid);
	e->nodes = xcalloc(n, sizeof *e->nodes);
	e->text = xmalloc(size);
	for (i = 0; i < n; i++) {
		size_t len;

		if (versions[i] == NULL)
			continue;
		len = strlen(versions[i]) + 1;
		e->nodes[e->n].hash = hash_key(names[i]);
		e->nodes[e->n].pass = passes[i];
		e->nodes[e->n].version = at;
		memcpy(e->text + at, versions[i], len);
		at += len;
		e->n++;
	}
	return e;
}

/* The slot holding uid, or cap. */
static size_t find(const struct filter_memo *m, const char *uid)
{
	size_t k;

	for (k = 0; k < m->cap; k++)
		if (m->ring[k].uid && strcmp(m->ring[k].uid, uid) == 0)
			break;
	return k;
}

void filter_memo_put(struct filter_memo *m, struct filter_memo_entry *e)
{
	size_t k = find(m, e->uid);

	if (k == m->cap) {
		k = m->next;
		m->next = (m->next + 1) % m->cap;
	}
	entry_clear(&m->ring[k]);
	m->ring[k] = *e;
	free(e);
}

bool filter_memo_take(struct filter_memo *m, const char *uid, const char *node, bool *pass,
		      char **version)
{
	size_t k = find(m, uid), i;
	uint64_t h;
	bool found = false;

	if (k == m->cap)
		return false;
	h = hash_key(node);
	for (i = 0; i < m->ring[k].n; i++) {
		const struct memo_node *mn = &m->ring[k].nodes[i];

		if (mn->hash != h)
			continue;
		*pass = mn->pass;
		*version = xstrdup(m->ring[k].text + mn->version);
		found = true;
		break;
	}
	entry_clear(&m->ring[k]);
	return found;
}
