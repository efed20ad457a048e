/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_affinity_decode.h"

#include <string.h>

#include "extender/codec/sched_fields.h"
#include "scheduler/match.h"

static const char *const operators[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };
static const enum sched_selector_op operator_values[] = {
	SCHED_OP_IN, SCHED_OP_NOT_IN, SCHED_OP_EXISTS,
	SCHED_OP_DOES_NOT_EXIST, SCHED_OP_GT, SCHED_OP_LT,
};

/* The value count (and for Gt/Lt the integer) the operator needs. */
static enum err check_values(struct decode_ctx *c, const struct sched_requirement *r,
			     bool field)
{
	size_t mark = doc_path_key(&c->path, "values");
	enum err rc = ERR_OK;
	int64_t v;

	if (field && r->nvalues != 1)
		rc = decode_fail(c, ERR_INVALID, "must have one element");
	else if ((r->op == SCHED_OP_IN || r->op == SCHED_OP_NOT_IN) && r->nvalues == 0)
		rc = decode_fail(c, ERR_INVALID, "must be specified when operator is In or NotIn");
	else if ((r->op == SCHED_OP_EXISTS || r->op == SCHED_OP_DOES_NOT_EXIST) && r->nvalues != 0)
		rc = decode_fail(c, ERR_INVALID, "may not be specified when operator is Exists or DoesNotExist");
	else if ((r->op == SCHED_OP_GT || r->op == SCHED_OP_LT) &&
		 (r->nvalues != 1 || !sched_parse_go_int64(r->values[0], &v)))
		rc = decode_fail(c, ERR_INVALID, "must be one integer when operator is Gt or Lt");
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_requirement(struct decode_ctx *c, const struct doc *d,
				   void *elem, void *arg)
{
	struct sched_requirement *r = elem;
	bool field = *(const bool *)arg;
	size_t op = SIZE_MAX;
	enum err rc;

	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "key", DECODE_REQUIRED | DECODE_NONEMPTY, &r->key);
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "operator", DECODE_REQUIRED, operators, field ? 2 : 6, &op);
	if (rc != ERR_OK)
		return rc;
	r->op = operator_values[op];
	rc = sf_strings(c, d, "values", &r->values, &r->nvalues);
	if (rc == ERR_OK && field && strcmp(r->key, "metadata.name") != 0)
		rc = decode_fail_at(c, "key", ERR_INVALID, "only metadata.name is supported");
	if (rc == ERR_OK)
		rc = check_values(c, r, field);
	return rc;
}

static enum err decode_term(struct decode_ctx *c, const struct doc *d, void *elem,
			    void *arg)
{
	struct sched_term *t = elem;
	void *exprs = NULL, *fields = NULL;
	bool no = false, yes = true;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc != ERR_OK)
		return rc;
	rc = decode_array(c, d, "matchExpressions", 0, sizeof *t->exprs, &exprs, &t->nexprs,
			  decode_requirement, &no);
	t->exprs = exprs;
	if (rc == ERR_OK) {
		rc = decode_array(c, d, "matchFields", 0, sizeof *t->fields, &fields, &t->nfields,
				  decode_requirement, &yes);
		t->fields = fields;
	}
	return rc;
}

enum err sched_term_decode(struct decode_ctx *c, const struct doc *d, struct sched_term *t)
{
	return decode_term(c, d, t, NULL);
}

static enum err decode_preferred(struct decode_ctx *c, const struct doc *d,
				 void *elem, void *arg)
{
	struct sched_preferred *p = elem;
	const struct doc *pref;
	size_t mark;
	int64_t w = 0;
	bool present = false;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = sf_int(c, d, "weight", 1, 100, &w, &present);
	if (rc == ERR_OK && !present) {
		rc = decode_fail_at(c, "weight", ERR_INVALID, "missing");
	}
	if (rc != ERR_OK)
		return rc;
	p->weight = (int32_t)w;
	mark = doc_path_key(&c->path, "preference");
	rc = decode_field(c, d, "preference", DOC_OBJECT, DECODE_REQUIRED, &pref);
	if (rc == ERR_OK)
		rc = decode_term(c, pref, &p->term, NULL);
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_node_affinity(struct decode_ctx *c, const struct doc *na,
				     struct sched_pod *pod)
{
	size_t mark = doc_path_key(&c->path, "requiredDuringSchedulingIgnoredDuringExecution");
	const struct doc *req;
	void *terms = NULL, *pref = NULL;
	enum err rc;

	rc = decode_field(c, na, "requiredDuringSchedulingIgnoredDuringExecution", DOC_OBJECT, 0,
			  &req);
	if (rc == ERR_OK && req != NULL) {
		pod->has_required = true;
		rc = decode_array(c, req, "nodeSelectorTerms", DECODE_REQUIRED, sizeof *pod->required,
				  &terms, &pod->nrequired, decode_term, NULL);
		pod->required = terms;
	}
	doc_path_pop(&c->path, mark);
	if (rc != ERR_OK)
		return rc;
	rc = decode_array(c, na, "preferredDuringSchedulingIgnoredDuringExecution", 0,
			  sizeof *pod->preferred, &pref, &pod->npreferred, decode_preferred, NULL);
	pod->preferred = pref;
	return rc;
}

enum err sched_affinity_decode(struct decode_ctx *c, const struct doc *spec,
			       struct sched_pod *pod)
{
	const struct doc *aff, *na = NULL;
	size_t mark, m;
	enum err rc;

	rc = sf_string_map(c, spec, "nodeSelector", &pod->node_selector, &pod->nnode_selector);
	if (rc != ERR_OK)
		return rc;
	mark = doc_path_key(&c->path, "affinity");
	rc = decode_field(c, spec, "affinity", DOC_OBJECT, 0, &aff);
	m = doc_path_key(&c->path, "nodeAffinity");
	if (rc == ERR_OK && aff != NULL)
		rc = decode_field(c, aff, "nodeAffinity", DOC_OBJECT, 0, &na);
	if (rc == ERR_OK && na != NULL)
		rc = decode_node_affinity(c, na, pod);
	doc_path_pop(&c->path, m);
	doc_path_pop(&c->path, mark);
	return rc;
}
