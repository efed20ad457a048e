/* SPDX-License-Identifier: Apache-2.0 */
#include "plugins.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static void set_cleanup(struct sched_plugin_set *s)
{
	size_t i;

	for (i = 0; i < s->nenabled; i++)
		free(s->enabled[i].name);
	free(s->enabled);
	for (i = 0; i < s->ndisabled; i++)
		free(s->disabled[i]);
	free(s->disabled);
	memset(s, 0, sizeof *s);
}

void sched_plugins_spec_cleanup(struct sched_plugins_spec *s)
{
	set_cleanup(&s->multi_point);
	set_cleanup(&s->filter);
	set_cleanup(&s->score);
}

static bool disables(const struct sched_plugin_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ndisabled; i++)
		if (strcmp(s->disabled[i], name) == 0)
			return true;
	return false;
}

static const struct sched_plugin_ref *enables(const struct sched_plugin_set *s,
					      const char *name)
{
	size_t i;

	for (i = 0; i < s->nenabled; i++)
		if (strcmp(s->enabled[i].name, name) == 0)
			return &s->enabled[i];
	return NULL;
}

/* One entry of the merged MultiPoint list; name borrowed. */
struct entry {
	const char *name;
	bool has_weight;
	int32_t weight;
};

/* mergePluginSet(default MultiPoint, custom MultiPoint). The inert default
 * plugins are left out: they neither filter nor score. */
static struct entry *merge_multi_point(const struct sched_plugin_set *mp, size_t *n)
{
	struct entry *out = xcalloc(SCHED_PLUGIN_COUNT + mp->nenabled + 1, sizeof *out);
	bool *replaced = xcalloc(mp->nenabled + 1, sizeof *replaced);
	size_t i, k = 0;

	for (i = 0; i < SCHED_PLUGIN_COUNT && !disables(mp, "*"); i++) {
		const struct sched_plugin_info *info = sched_plugin_info((enum sched_plugin)i);
		const struct sched_plugin_ref *custom;

		if (!info->default_on || disables(mp, info->name))
			continue;
		out[k].name = info->name;
		out[k].has_weight = info->default_weight > 0;
		out[k].weight = info->default_weight;
		custom = enables(mp, info->name);
		if (custom != NULL) {
			out[k].has_weight = custom->has_weight;
			out[k].weight = custom->weight;
			replaced[custom - mp->enabled] = true;
		}
		k++;
	}
	for (i = 0; i < mp->nenabled; i++) {
		if (replaced[i])
			continue;
		out[k].name = mp->enabled[i].name;
		out[k].has_weight = mp->enabled[i].has_weight;
		out[k].weight = mp->enabled[i].weight;
		k++;
	}
	free(replaced);
	*n = k;
	return out;
}

static void note_unmodelled(struct sched_profile *p, const char *name)
{
	size_t i;

	if (sched_plugin_is_inert(name))
		return;
	for (i = 0; i < p->nunmodelled; i++)
		if (strcmp(p->unmodelled[i], name) == 0)
			return;
	p->unmodelled = xreallocarray(p->unmodelled, p->nunmodelled + 1, sizeof *p->unmodelled);
	p->unmodelled[p->nunmodelled++] = xstrdup(name);
}

/* Enables at one point (Filter: table[].filters, Score: .scores) the
 * plugins of that point's own set and the merged MultiPoint ones it does
 * not disable. */
static void enable_point(struct sched_profile *p, bool *table, bool scoring,
			 const struct sched_plugin_set *point,
			 const struct entry *mp, size_t nmp)
{
	bool all_off = disables(point, "*");
	enum sched_plugin pl;
	size_t i;

	memset(table, 0, SCHED_PLUGIN_COUNT * sizeof *table);
	for (i = 0; i < point->nenabled; i++) {
		if (!sched_plugin_lookup(point->enabled[i].name, &pl)) {
			note_unmodelled(p, point->enabled[i].name);
			if (scoring && !sched_plugin_is_inert(point->enabled[i].name))
				p->other_scorers = true;
			continue;
		}
		table[pl] = scoring ? sched_plugin_info(pl)->scores : sched_plugin_info(pl)->filters;
	}
	for (i = 0; i < nmp && !all_off; i++) {
		if (disables(point, mp[i].name))
			continue;
		if (!sched_plugin_lookup(mp[i].name, &pl)) {
			note_unmodelled(p, mp[i].name);
			/* Whether it scores is not known here; counting it
			 * only ever turns on scoring that the default plugins
			 * turn on anyway. */
			if (scoring && !sched_plugin_is_inert(mp[i].name))
				p->other_scorers = true;
			continue;
		}
		if (scoring ? sched_plugin_info(pl)->scores : sched_plugin_info(pl)->filters)
			table[pl] = true;
	}
}

/* getScoreWeights over score.enabled, then MultiPoint: the first mention
 * wins; unset or 0 is 1. */
static void set_weights(struct sched_profile *p, const struct sched_plugin_set *score,
			const struct entry *mp, size_t nmp)
{
	bool set[SCHED_PLUGIN_COUNT] = { false };
	enum sched_plugin pl;
	size_t i;

	for (i = 0; i < SCHED_PLUGIN_COUNT; i++)
		p->weight[i] = 1;
	for (i = 0; i < score->nenabled + nmp; i++) {
		const char *name = i < score->nenabled ? score->enabled[i].name : mp[i - score->nenabled].name;
		bool has = i < score->nenabled ? score->enabled[i].has_weight : mp[i - score->nenabled].has_weight;
		int32_t w = i < score->nenabled ? score->enabled[i].weight : mp[i - score->nenabled].weight;

		if (!sched_plugin_lookup(name, &pl) || set[pl])
			continue;
		set[pl] = true;
		p->weight[pl] = has && w != 0 ? w : 1;
	}
}

void sched_profile_apply_plugins(struct sched_profile *p,
				 const struct sched_plugins_spec *s)
{
	size_t nmp = 0;
	struct entry *mp = merge_multi_point(&s->multi_point, &nmp);

	p->other_scorers = false;
	enable_point(p, p->filter, false, &s->filter, mp, nmp);
	enable_point(p, p->score, true, &s->score, mp, nmp);
	set_weights(p, &s->score, mp, nmp);
	free(mp);
}
