/* SPDX-License-Identifier: Apache-2.0 */
#include "match.h"

#include <string.h>

#include "base/checked.h"

bool sched_toleration_tolerates(const struct sched_toleration *t,
				const struct sched_taint *taint)
{
	if (t->effect != SCHED_EFFECT_ALL && t->effect != taint->effect)
		return false;
	if (t->key[0] != '\0' && strcmp(t->key, taint->key) != 0)
		return false;
	switch (t->op) {
	case SCHED_TOL_EQUAL: return strcmp(t->value, taint->value) == 0;
	case SCHED_TOL_EXISTS: return true;
	case SCHED_TOL_LT:
	case SCHED_TOL_GT: return false;
	}
	return false;
}

bool sched_pod_tolerates(const struct sched_pod *pod,
			 const struct sched_taint *taint)
{
	size_t i;

	for (i = 0; i < pod->ntolerations; i++)
		if (sched_toleration_tolerates(&pod->tolerations[i], taint))
			return true;
	return false;
}

const struct sched_taint *sched_untolerated_taint(const struct sched_node *node,
						  const struct sched_pod *pod)
{
	size_t i;

	for (i = 0; i < node->ntaints; i++) {
		const struct sched_taint *t = &node->taints[i];

		if ((t->effect == SCHED_EFFECT_NO_SCHEDULE || t->effect == SCHED_EFFECT_NO_EXECUTE) &&
		    !sched_pod_tolerates(pod, t))
			return t;
	}
	return NULL;
}

int64_t sched_intolerable_prefer_count(const struct sched_node *node,
				       const struct sched_pod *pod)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < node->ntaints; i++)
		if (node->taints[i].effect == SCHED_EFFECT_PREFER_NO_SCHEDULE &&
		    !sched_pod_tolerates(pod, &node->taints[i]))
			n++;
	return n;
}

bool sched_parse_go_int64(const char *s, int64_t *out)
{
	uint64_t limit = (uint64_t)INT64_MAX, v = 0;
	bool neg = false;

	if (*s == '+' || *s == '-') {
		neg = *s == '-';
		limit += neg ? 1u : 0u;
		s++;
	}
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return false;
		d = (unsigned)(*s - '0');
		if (v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return true;
}

static bool has_value(const struct sched_requirement *r, const char *v)
{
	size_t i;

	for (i = 0; i < r->nvalues; i++)
		if (strcmp(r->values[i], v) == 0)
			return true;
	return false;
}

/* Requirement.Matches over a value that is there (v) or not (NULL). */
static bool requirement_holds(const struct sched_requirement *r, const char *v)
{
	int64_t have, want;

	switch (r->op) {
	case SCHED_OP_IN: return v != NULL && has_value(r, v);
	case SCHED_OP_NOT_IN: return v == NULL || !has_value(r, v);
	case SCHED_OP_EXISTS: return v != NULL;
	case SCHED_OP_DOES_NOT_EXIST: return v == NULL;
	case SCHED_OP_GT:
	case SCHED_OP_LT:
		if (v == NULL || r->nvalues != 1 || !sched_parse_go_int64(v, &have) ||
		    !sched_parse_go_int64(r->values[0], &want))
			return false;
		return r->op == SCHED_OP_GT ? have > want : have < want;
	}
	return false;
}

bool sched_expression_matches(const struct sched_requirement *r,
			      const struct sched_node *node)
{
	return requirement_holds(r, sched_node_label(node, r->key));
}

bool sched_field_matches(const struct sched_requirement *r,
			 const struct sched_node *node)
{
	const char *v = strcmp(r->key, "metadata.name") == 0 ? node->name : "";

	/* A field selector term compares with the one value; an absent field
	 * reads as the empty string. */
	if (r->nvalues != 1)
		return false;
	if (r->op == SCHED_OP_IN)
		return strcmp(v, r->values[0]) == 0;
	if (r->op == SCHED_OP_NOT_IN)
		return strcmp(v, r->values[0]) != 0;
	return false;
}

bool sched_term_matches(const struct sched_term *t, const struct sched_node *node)
{
	size_t i;

	if (t->nexprs == 0 && t->nfields == 0)
		return false;
	for (i = 0; i < t->nexprs; i++)
		if (!sched_expression_matches(&t->exprs[i], node))
			return false;
	for (i = 0; i < t->nfields; i++)
		if (!sched_field_matches(&t->fields[i], node))
			return false;
	return true;
}

bool sched_required_affinity_matches(const struct sched_pod *pod,
				     const struct sched_node *node)
{
	size_t i;

	for (i = 0; i < pod->nnode_selector; i++) {
		const char *v = sched_node_label(node, pod->node_selector[i].key);

		if (v == NULL || strcmp(v, pod->node_selector[i].value) != 0)
			return false;
	}
	if (!pod->has_required)
		return true;
	for (i = 0; i < pod->nrequired; i++)
		if (sched_term_matches(&pod->required[i], node))
			return true;
	return false;
}

int64_t sched_preferred_affinity_score(const struct sched_pod *pod,
				       const struct sched_node *node)
{
	int64_t score = 0;
	size_t i;

	for (i = 0; i < pod->npreferred; i++) {
		const struct sched_preferred *p = &pod->preferred[i];

		if (p->weight != 0 && sched_term_matches(&p->term, node))
			score = i64_add_sat(score, p->weight);
	}
	return score;
}
