/* SPDX-License-Identifier: Apache-2.0 */
#include "sched_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "scheduler/resources.h"
#include "topology/quantity.h"

static struct quantity parse(const char *text)
{
	struct quantity q;

	if (quantity_parse(text, strlen(text), &q, NULL) != ERR_OK) {
		fprintf(stderr, "sched_build: bad quantity %s\n", text);
		abort();
	}
	return q;
}

static int64_t value(const char *resource, const char *text)
{
	struct quantity q = parse(text);

	return sched_quantity_value(resource, &q);
}

void sb_node(struct sched_node *n, const char *name, const char *cpu,
	     const char *mem, int64_t pods)
{
	memset(n, 0, sizeof *n);
	n->name = xstrdup(name);
	n->cpu_known = true;
	sb_node_alloc(n, "cpu", cpu);
	sb_node_alloc(n, "memory", mem);
	n->allocatable.pods = pods;
}

void sb_node_alloc(struct sched_node *n, const char *resource, const char *qty)
{
	sched_resources_set(&n->allocatable, resource, value(resource, qty));
}

void sb_node_used(struct sched_node *n, const char *cpu, const char *mem,
		  int64_t pods)
{
	n->requested.milli_cpu = n->nonzero_milli_cpu = value("cpu", cpu);
	n->requested.memory = n->nonzero_memory = value("memory", mem);
	n->npods = pods;
}

void sb_node_label(struct sched_node *n, const char *key, const char *v)
{
	n->labels = xreallocarray(n->labels, n->nlabels + 1, sizeof *n->labels);
	n->labels[n->nlabels].key = xstrdup(key);
	n->labels[n->nlabels].value = xstrdup(v);
	n->nlabels++;
}

void sb_node_taint(struct sched_node *n, const char *key, const char *v,
		   enum sched_taint_effect effect)
{
	n->taints = xreallocarray(n->taints, n->ntaints + 1, sizeof *n->taints);
	n->taints[n->ntaints].key = xstrdup(key);
	n->taints[n->ntaints].value = xstrdup(v);
	n->taints[n->ntaints].effect = effect;
	n->ntaints++;
}

void sb_pod(struct sched_pod *p, const char *name)
{
	memset(p, 0, sizeof *p);
	p->spec.name = xstrdup(name);
	p->spec.namespace_ = xstrdup("default");
}

size_t sb_container(struct sched_pod *p, enum container_kind kind)
{
	struct pod_container *c;
	char name[32];

	p->spec.containers = xreallocarray(p->spec.containers, p->spec.ncontainers + 1,
					   sizeof *p->spec.containers);
	c = &p->spec.containers[p->spec.ncontainers];
	memset(c, 0, sizeof *c);
	snprintf(name, sizeof name, "c%zu", p->spec.ncontainers);
	c->name = xstrdup(name);
	c->kind = kind;
	return p->spec.ncontainers++;
}

static void add_quantity(struct pod_quantity **list, size_t *n, const char *resource,
			 const char *qty)
{
	*list = xreallocarray(*list, *n + 1, sizeof **list);
	(*list)[*n].name = xstrdup(resource);
	(*list)[*n].q = parse(qty);
	(*n)++;
}

void sb_request(struct sched_pod *p, size_t c, const char *resource, const char *qty)
{
	struct pod_container *ct = &p->spec.containers[c];

	add_quantity(&ct->requests, &ct->nrequests, resource, qty);
}

void sb_limit(struct sched_pod *p, size_t c, const char *resource, const char *qty)
{
	struct pod_container *ct = &p->spec.containers[c];

	add_quantity(&ct->limits, &ct->nlimits, resource, qty);
}

void sb_overhead(struct sched_pod *p, const char *resource, const char *qty)
{
	add_quantity(&p->overhead, &p->noverhead, resource, qty);
}

void sb_pod_request(struct sched_pod *p, const char *resource, const char *qty)
{
	add_quantity(&p->pod_requests, &p->npod_requests, resource, qty);
}

void sb_simple_pod(struct sched_pod *p, const char *name, const char *cpu,
		   const char *mem)
{
	size_t c;

	sb_pod(p, name);
	c = sb_container(p, CONTAINER_APP);
	if (cpu != NULL)
		sb_request(p, c, "cpu", cpu);
	if (mem != NULL)
		sb_request(p, c, "memory", mem);
}

void sb_toleration(struct sched_pod *p, const char *key, enum sched_toleration_op op,
		   const char *v, enum sched_taint_effect effect)
{
	struct sched_toleration *t;

	p->tolerations = xreallocarray(p->tolerations, p->ntolerations + 1, sizeof *p->tolerations);
	t = &p->tolerations[p->ntolerations++];
	t->key = xstrdup(key);
	t->op = op;
	t->value = xstrdup(v);
	t->effect = effect;
}

void sb_node_selector(struct sched_pod *p, const char *key, const char *v)
{
	p->node_selector = xreallocarray(p->node_selector, p->nnode_selector + 1,
					 sizeof *p->node_selector);
	p->node_selector[p->nnode_selector].key = xstrdup(key);
	p->node_selector[p->nnode_selector].value = xstrdup(v);
	p->nnode_selector++;
}

struct sched_term *sb_required(struct sched_pod *p)
{
	p->has_required = true;
	p->required = xreallocarray(p->required, p->nrequired + 1, sizeof *p->required);
	memset(&p->required[p->nrequired], 0, sizeof *p->required);
	return &p->required[p->nrequired++];
}

struct sched_term *sb_preferred(struct sched_pod *p, int32_t weight)
{
	p->preferred = xreallocarray(p->preferred, p->npreferred + 1, sizeof *p->preferred);
	memset(&p->preferred[p->npreferred], 0, sizeof *p->preferred);
	p->preferred[p->npreferred].weight = weight;
	return &p->preferred[p->npreferred++].term;
}

void sb_expr(struct sched_term *t, int fields, const char *key,
	     enum sched_selector_op op, ...)
{
	struct sched_requirement **list = fields ? &t->fields : &t->exprs;
	size_t *n = fields ? &t->nfields : &t->nexprs;
	struct sched_requirement *r;
	const char *v;
	va_list ap;

	*list = xreallocarray(*list, *n + 1, sizeof **list);
	r = &(*list)[(*n)++];
	memset(r, 0, sizeof *r);
	r->key = xstrdup(key);
	r->op = op;
	va_start(ap, op);
	while ((v = va_arg(ap, const char *)) != NULL) {
		r->values = xreallocarray(r->values, r->nvalues + 1, sizeof *r->values);
		r->values[r->nvalues++] = xstrdup(v);
	}
	va_end(ap);
}
