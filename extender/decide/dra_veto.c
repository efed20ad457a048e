/* SPDX-License-Identifier: Apache-2.0 */
/* The bind's DRA vetoes (dra_veto.h): a ring of DRA_VETO_MAX slots, the
 * oldest overwritten first; a lookup compares a hash of the UID before
 * the text. Binds that fail on alignment are rare, so a linear scan under
 * one mutex costs a filter a few microseconds at most. */
#include "extender/decide/dra_veto.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

struct slot {
	uint64_t hash;      /* of the UID; 0: empty */
	char *uid, *node, *reason;
	int64_t until_ms;
};

struct dra_veto {
	pthread_mutex_t lock;
	struct slot slots[DRA_VETO_MAX];
	size_t next;        /* the slot the next new veto takes */
};

static uint64_t uid_hash(const char *uid)
{
	uint64_t h = hash_str(uid);

	return h != 0 ? h : 1;
}

struct dra_veto *dra_veto_new(void)
{
	struct dra_veto *v = xcalloc(1, sizeof *v);

	pthread_mutex_init(&v->lock, NULL);
	return v;
}

static void slot_clear(struct slot *s)
{
	free(s->uid);
	free(s->node);
	free(s->reason);
	memset(s, 0, sizeof *s);
}

void dra_veto_free(struct dra_veto *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < DRA_VETO_MAX; i++)
		slot_clear(&v->slots[i]);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

static bool is(const struct slot *s, uint64_t h, const char *uid)
{
	return s->hash == h && strcmp(s->uid, uid) == 0;
}

void dra_veto_add(struct dra_veto *v, const char *uid, const char *node, const char *reason,
		  int64_t now_ms)
{
	uint64_t h = uid_hash(uid);
	struct slot *s = NULL;
	size_t i;

	pthread_mutex_lock(&v->lock);
	for (i = 0; i < DRA_VETO_MAX && s == NULL; i++)
		if (is(&v->slots[i], h, uid) && strcmp(v->slots[i].node, node) == 0)
			s = &v->slots[i];
	if (s == NULL) {
		s = &v->slots[v->next];
		v->next = (v->next + 1) % DRA_VETO_MAX;
	}
	slot_clear(s);
	s->hash = h;
	s->uid = xstrdup(uid);
	s->node = xstrdup(node);
	s->reason = xstrndup(reason, strnlen(reason, DRA_VETO_REASON_MAX - 1));
	s->until_ms = now_ms > INT64_MAX - DRA_VETO_TTL_MS ? INT64_MAX : now_ms + DRA_VETO_TTL_MS;
	pthread_mutex_unlock(&v->lock);
}

void dra_veto_of(struct dra_veto *v, const char *uid, int64_t now_ms, struct dra_veto_list *out)
{
	uint64_t h = uid_hash(uid);
	size_t i;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&v->lock);
	for (i = 0; i < DRA_VETO_MAX; i++) {
		const struct slot *s = &v->slots[i];

		if (!is(s, h, uid) || s->until_ms <= now_ms)
			continue;
		out->nodes = xreallocarray(out->nodes, out->n + 1, sizeof *out->nodes);
		out->reasons = xreallocarray(out->reasons, out->n + 1, sizeof *out->reasons);
		out->nodes[out->n] = xstrdup(s->node);
		out->reasons[out->n++] = xstrdup(s->reason);
	}
	pthread_mutex_unlock(&v->lock);
}

const char *dra_veto_list_find(const struct dra_veto_list *l, const char *node)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->nodes[i], node) == 0)
			return l->reasons[i];
	return NULL;
}

void dra_veto_list_free(struct dra_veto_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->nodes[i]);
		free(l->reasons[i]);
	}
	free(l->nodes);
	free(l->reasons);
	memset(l, 0, sizeof *l);
}

size_t dra_veto_count(struct dra_veto *v, int64_t now_ms)
{
	size_t i, n = 0;

	pthread_mutex_lock(&v->lock);
	for (i = 0; i < DRA_VETO_MAX; i++)
		n += v->slots[i].hash != 0 && v->slots[i].until_ms > now_ms;
	pthread_mutex_unlock(&v->lock);
	return n;
}
