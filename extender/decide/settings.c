/* SPDX-License-Identifier: Apache-2.0 */
/* Refcounted settings values and their holder. */
#include "extender/decide/settings.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct settings *settings_new(const struct config *cfg)
{
	struct settings *s = xcalloc(1, sizeof *s);
	size_t i;

	static _Atomic uint64_t next_id = 1;

	s->refs = 1;
	s->id = atomic_fetch_add(&next_id, 1);
	s->scoring.strategy = cfg->scoring.strategy;
	s->scoring.nweights = cfg->scoring.nweights;
	s->scoring.weights = xcalloc(cfg->scoring.nweights + 1, sizeof *s->scoring.weights);
	for (i = 0; i < cfg->scoring.nweights; i++) {
		s->scoring.weights[i].name = xstrdup(cfg->scoring.weights[i].name);
		s->scoring.weights[i].weight = cfg->scoring.weights[i].weight;
	}
	s->missing_inventory = cfg->missing_inventory;
	s->log_level = cfg->log_level;
	s->dra_alignment = cfg->dra_alignment;
	s->dra_unknown_numa = cfg->dra_unknown_numa;
	s->dra_order = cfg->dra_allocator_order;
	return s;
}

void settings_unref(struct settings *s)
{
	if (s == NULL)
		return;
	if (atomic_fetch_sub_explicit((_Atomic int *)&s->refs, 1, memory_order_acq_rel) != 1)
		return;
	score_config_cleanup(&s->scoring);
	free(s);
}

void settings_holder_init(struct settings_holder *h, struct settings *initial)
{
	pthread_mutex_init(&h->lock, NULL);
	h->current = initial;
}

void settings_holder_cleanup(struct settings_holder *h)
{
	settings_unref(h->current);
	h->current = NULL;
	pthread_mutex_destroy(&h->lock);
}

struct settings *settings_acquire(struct settings_holder *h)
{
	struct settings *s;

	pthread_mutex_lock(&h->lock);
	s = h->current;
	atomic_fetch_add_explicit((_Atomic int *)&s->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
	return s;
}

void settings_replace(struct settings_holder *h, struct settings *s)
{
	struct settings *old;

	pthread_mutex_lock(&h->lock);
	old = h->current;
	h->current = s;
	pthread_mutex_unlock(&h->lock);
	settings_unref(old);
}
