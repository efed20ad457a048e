/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/codec/sched_pod_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "extender/codec/pod_decode.h"
#include "extender/codec/sched_affinity_decode.h"
#include "extender/codec/sched_fields.h"
#include "extender/codec/sched_objects.h"

static const char *const tol_ops[] = { "", "Equal", "Exists", "Lt", "Gt" };
static const enum sched_toleration_op tol_op_values[] = {
	SCHED_TOL_EQUAL, SCHED_TOL_EQUAL, SCHED_TOL_EXISTS, SCHED_TOL_LT, SCHED_TOL_GT,
};
static const char *const tol_effects[] = { "", "NoSchedule", "PreferNoSchedule", "NoExecute" };
static const enum sched_taint_effect tol_effect_values[] = {
	SCHED_EFFECT_ALL, SCHED_EFFECT_NO_SCHEDULE, SCHED_EFFECT_PREFER_NO_SCHEDULE,
	SCHED_EFFECT_NO_EXECUTE,
};
static const char *const phases[] = { "Pending", "Running", "Succeeded", "Failed", "Unknown" };

static enum err decode_toleration(struct decode_ctx *c, const struct doc *d,
				  void *elem, void *arg)
{
	struct sched_toleration *t = elem;
	size_t op = 0, effect = 0;
	enum err rc;

	(void)arg;
	rc = decode_expect(c, d, DOC_OBJECT);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "key", 0, &t->key);
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "operator", 0, tol_ops, 5, &op);
	if (rc == ERR_OK)
		rc = decode_string(c, d, "value", DECODE_SCALAR, &t->value);
	if (rc == ERR_OK)
		rc = decode_choice(c, d, "effect", 0, tol_effects, 4, &effect);
	if (rc != ERR_OK)
		return rc;
	if (t->key == NULL)
		t->key = xstrdup("");
	if (t->value == NULL)
		t->value = xstrdup("");
	t->op = tol_op_values[op];
	t->effect = tol_effect_values[effect];
	if (t->key[0] == '\0' && t->op != SCHED_TOL_EXISTS) {
		rc = decode_fail_at(c, "operator", ERR_INVALID, "must be Exists when key is empty");
	} else if (t->op == SCHED_TOL_EXISTS && t->value[0] != '\0') {
		rc = decode_fail_at(c, "value", ERR_INVALID, "must be empty when operator is Exists");
	}
	return rc;
}

/* Everything beyond pod_decode's part: spec and status extras. */
static enum err decode_extras(struct decode_ctx *c, const struct doc *d,
			      struct sched_pod *pod)
{
	const struct doc *spec = doc_lookup(d, "spec"), *res, *status;
	void *tolerations = NULL;
	size_t mark, phase = 0;
	enum err rc;

	mark = doc_path_key(&c->path, "spec");
	rc = decode_string(c, spec, "nodeName", 0, &pod->node_name);
	if (rc == ERR_OK)
		rc = decode_string(c, spec, "schedulerName", 0, &pod->scheduler_name);
	if (rc == ERR_OK)
		rc = sched_affinity_decode(c, spec, pod);
	if (rc == ERR_OK) {
		rc = decode_array(c, spec, "tolerations", 0, sizeof *pod->tolerations,
				  &tolerations, &pod->ntolerations, decode_toleration, NULL);
		pod->tolerations = tolerations;
	}
	if (rc == ERR_OK)
		rc = sf_quantities(c, spec, "overhead", &pod->overhead, &pod->noverhead);
	if (rc == ERR_OK) {
		size_t m = doc_path_key(&c->path, "resources");

		rc = decode_field(c, spec, "resources", DOC_OBJECT, 0, &res);
		if (rc == ERR_OK && res != NULL)
			rc = sf_quantities(c, res, "requests", &pod->pod_requests,
					   &pod->npod_requests);
		doc_path_pop(&c->path, m);
	}
	doc_path_pop(&c->path, mark);
	if (rc != ERR_OK)
		return rc;
	mark = doc_path_key(&c->path, "status");
	status = doc_lookup(d, "status");
	/* pod_decode has checked that status is an object when present. */
	rc = decode_choice(c, status, "phase", 0, phases, 5, &phase);
	if (rc == ERR_OK && doc_lookup(status, "phase") != NULL)
		pod->phase = xstrdup(phases[phase]);
	doc_path_pop(&c->path, mark);
	return rc;
}

static enum err decode_pod(struct decode_ctx *c, const struct doc *d, bool in_list,
			   void *elem)
{
	struct sched_pod *pod = elem;
	char origin[1024];
	enum err rc;

	(void)in_list;
	/* pod_decode starts its own path: hand it where this item is. */
	if (c->path.len > 0)
		snprintf(origin, sizeof origin, "%s: %s", c->origin, c->path.text);
	else
		snprintf(origin, sizeof origin, "%s", c->origin);
	rc = pod_decode_doc(d, origin, &pod->spec, c->msg);
	if (rc == ERR_OK)
		rc = decode_extras(c, d, pod);
	return rc;
}

enum err sched_pod_decode_doc(const struct doc *d, const char *origin,
			      struct sched_pod *out, struct errmsg *msg)
{
	struct decode_ctx c;
	enum err rc;

	memset(out, 0, sizeof *out);
	decode_ctx_init(&c, origin, msg);
	rc = decode_pod(&c, d, false, out);
	if (rc != ERR_OK)
		sched_pod_cleanup(out);
	return rc;
}

static void cleanup(void *elem)
{
	sched_pod_cleanup(elem);
}

static void placeholder(void *elem, const char *name, const char *ns, const char *message)
{
	struct sched_pod *pod = elem;

	pod->spec.name = xstrdup(name != NULL ? name : "");
	pod->spec.namespace_ = xstrdup(ns != NULL ? ns : "default");
	pod->invalid = xstrdup(message);
}

static const struct sched_objects_spec pod_spec = {
	"Pod", "PodList", "pod", true, sizeof(struct sched_pod),
	decode_pod, cleanup, placeholder,
};

enum err sched_pods_decode(const char *buf, size_t len, const char *origin,
			   struct sched_pod **pods, size_t *n, struct errmsg *msg)
{
	void *items = NULL;
	enum err rc = sched_objects_decode(buf, len, origin, &pod_spec, &items, n, msg);

	*pods = items;
	return rc;
}

enum err sched_pods_load(const char *path, struct sched_pod **pods, size_t *n,
			 struct errmsg *msg)
{
	void *items = NULL;
	enum err rc = sched_objects_load(path, &pod_spec, &items, n, msg);

	*pods = items;
	return rc;
}
