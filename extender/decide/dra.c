/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA verdict of a node (dra.h): the pod's claims resolved once, then
 * per node the allocator's prediction and the alignment with the kubelet's
 * affinities. */
#include "extender/decide/dra.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"
#include "dra/alloc_selectors.h"

static const char *const outcome_names[DRA_OUTCOME_COUNT] = {
	[DRA_OUTCOME_NO_CLAIMS] = "noClaims",
	[DRA_OUTCOME_ALIGNED] = "aligned",
	[DRA_OUTCOME_MISALIGNED] = "misaligned",
	[DRA_OUTCOME_UNPREDICTABLE] = "unpredictable",
	[DRA_OUTCOME_UNKNOWN_NUMA] = "unknownNUMA",
};

const char *dra_outcome_name(enum dra_outcome o)
{
	return (unsigned)o < DRA_OUTCOME_COUNT ? outcome_names[o] : "";
}

struct dra_pod {
	const struct dra_snapshot *snap;
	const struct dra_pod_claims *pc;
	char *namespace_, *pod_name;
	enum dra_alloc_order order;
	const struct dra_device_set *assumed;
	bool labels_known;
	const struct sched_node *(*node_of)(const void *ctx, const char *name);
	const void *node_ctx;
	/* claims[i] for pc->claims[i], NULL when missing. */
	const struct dra_claim **claims;
	/* Where each came from: 'c' a claim, 't' a template's spec, 0 missing. */
	char *source;
	/* Why the claims cannot be judged (a missing claim), or "". */
	char missing[DRA_WHY_MAX];
	/* The allocator takes the classes as one array: shallow copies of the
	 * snapshot's (their strings stay the snapshot's). */
	struct dra_class *classes;
	size_t nclasses;
	struct dra_selectors selectors;
	/* A slice that selects nodes by label, or NULL. */
	const char *label_slice;
};

static const char *pod_ns(const struct dra_pod_input *in)
{
	return in->namespace_ != NULL && in->namespace_[0] != '\0' ? in->namespace_ : "default";
}

/* spec.resourceClaims[i] as the scheduler reads it: the claim by name, or
 * the template's generated claim; while that claim is not there yet (or
 * not in our snapshot yet) the template's spec stands for it. */
static void resolve(struct dra_pod *p, const char *ns, size_t i)
{
	const struct dra_pod_claim *pc = &p->pc->claims[i];
	const struct dra_claim *c = NULL;
	struct textbuf b;

	if (pc->claim_name != NULL)
		c = dra_snapshot_claim(p->snap, ns, pc->claim_name);
	if (c != NULL) {
		p->source[i] = 'c';
	} else if (pc->template_name != NULL &&
		   (c = dra_snapshot_template(p->snap, ns, pc->template_name)) != NULL) {
		p->source[i] = 't';
	}
	p->claims[i] = c;
	if (c != NULL || p->missing[0] != '\0')
		return;
	textbuf_init_fixed(&b, p->missing, sizeof p->missing);
	textbuf_adds(&b, "DRA: the pod's claim ");
	dra_align_add_name(&b, pc->name != NULL ? pc->name : "");
	if (pc->template_name != NULL) {
		textbuf_adds(&b, ": ResourceClaimTemplate ");
		dra_align_add_name(&b, pc->template_name);
	} else {
		textbuf_adds(&b, ": ResourceClaim ");
		dra_align_add_name(&b, pc->claim_name != NULL ? pc->claim_name : "");
	}
	textbuf_adds(&b, " is not known");
}

static bool selects_by_label(const struct dra_slice *s)
{
	size_t i;

	if (s->selection == DRA_NODE_SELECTOR)
		return true;
	for (i = 0; s->selection == DRA_PER_DEVICE && i < s->ndevices; i++)
		if (s->devices[i].selection == DRA_NODE_SELECTOR)
			return true;
	return false;
}

struct dra_pod *dra_pod_new(const struct dra_pod_input *in)
{
	const char *ns = pod_ns(in);
	struct dra_pod *p;
	size_t i;

	if (in->claims == NULL || in->claims->nclaims == 0)
		return NULL;
	p = xcalloc(1, sizeof *p);
	p->snap = in->snap;
	p->pc = in->claims;
	p->namespace_ = xstrdup(ns);
	p->pod_name = xstrdup(in->pod_name != NULL ? in->pod_name : "");
	p->order = in->order;
	p->assumed = in->assumed;
	p->labels_known = in->node_labels_known;
	p->node_of = in->node_labels_known ? in->node_of : NULL;
	p->node_ctx = in->node_ctx;
	p->claims = xcalloc(in->claims->nclaims, sizeof *p->claims);
	p->source = xcalloc(in->claims->nclaims, 1);
	for (i = 0; i < in->claims->nclaims; i++)
		resolve(p, ns, i);
	p->classes = xcalloc(in->snap->nclasses + 1, sizeof *p->classes);
	p->nclasses = in->snap->nclasses;
	for (i = 0; i < p->nclasses; i++)
		p->classes[i] = *in->snap->classes[i];
	/* Every expression compiled now: judging nodes only reads the set, so
	 * threads may share it. */
	dra_selectors_init(&p->selectors, &dra_cel_ops);
	if (p->missing[0] == '\0')
		dra_selectors_prepare(&p->selectors, p->claims, in->claims->nclaims, p->classes,
				      p->nclasses);
	for (i = 0; !p->labels_known && p->label_slice == NULL && i < in->snap->nshared; i++)
		if (selects_by_label(in->snap->shared[i]))
			p->label_slice = in->snap->shared[i]->name;
	return p;
}

void dra_pod_free(struct dra_pod *p)
{
	if (p == NULL)
		return;
	dra_selectors_free(&p->selectors);
	free(p->classes);
	free(p->claims);
	free(p->source);
	free(p->namespace_);
	free(p->pod_name);
	free(p);
}

void dra_pod_key(const struct dra_pod *p, struct textbuf *b)
{
	uint64_t assumed = 0;
	size_t i, k;

	textbuf_adds(b, "|dra ns=");
	textbuf_adds(b, p->namespace_);
	textbuf_adds(b, " pod=");
	textbuf_adds(b, p->pod_name);
	for (i = 0; i < p->pc->nclaims; i++) {
		const struct dra_claim *c = p->claims[i];

		textbuf_printf(b, " claim[%zu]=%c:", i, p->source[i] ? p->source[i] : '-');
		if (c == NULL)
			continue;
		/* The object's version: a claim's changes with its status. */
		textbuf_adds(b, c->name != NULL ? c->name : "");
		textbuf_addc(b, '@');
		textbuf_adds(b, dra_object_version(c));
		textbuf_addc(b, '@');
		textbuf_adds(b, dra_object_origin(c));
		textbuf_addc(b, ';');
		textbuf_adds(b, p->pc->claims[i].name != NULL ? p->pc->claims[i].name : "");
	}
	for (i = 0; i < p->pc->ncontainers; i++) {
		const struct dra_container_claims *cc = &p->pc->containers[i];

		if (cc->nclaims == 0)
			continue;
		textbuf_adds(b, " refs=");
		textbuf_adds(b, cc->container != NULL ? cc->container : "");
		for (k = 0; k < cc->nclaims; k++)
			textbuf_printf(b, ",%s/%s", cc->claims[k].claim != NULL ? cc->claims[k].claim : "",
				       cc->claims[k].request != NULL ? cc->claims[k].request : "*");
	}
	for (i = 0; p->assumed != NULL && i < p->assumed->n; i++) {
		uint64_t pair[2] = { assumed, hash_str(p->assumed->keys[i]) };

		assumed = hash_bytes(pair, sizeof pair);
	}
	textbuf_printf(b, " order=%d assumed=%zu:%llx", (int)p->order,
		       p->assumed != NULL ? p->assumed->n : 0, (unsigned long long)assumed);
}

uint64_t dra_pod_node_version(const struct dra_pod *p, const char *node)
{
	const struct dra_node_slices *n = dra_snapshot_node(p->snap, node);

	return n != NULL ? n->version : p->snap->version;
}

uint64_t dra_pod_cache_id(const struct dra_pod *p, const char *node, uint64_t snapshot_id)
{
	uint64_t pair[2], h;

	if (snapshot_id == 0)
		return 0;
	pair[0] = snapshot_id;
	pair[1] = dra_pod_node_version(p, node);
	h = hash_bytes(pair, sizeof pair);
	return h != 0 ? h : 1;
}

size_t dra_pod_claims_resolved(const struct dra_pod *p, const struct dra_pod_claim **pod_claims,
			       const struct dra_claim *const **claims)
{
	*pod_claims = p->pc->claims;
	*claims = p->claims;
	return p->pc->nclaims;
}

const char *dra_pod_label_slice(const struct dra_pod *p)
{
	return p->label_slice;
}

/* ---- one node ------------------------------------------------------------ */

static bool in_use(const void *ctx, const char *driver, const char *pool, const char *device)
{
	const struct dra_pod *p = ctx;

	return dra_snapshot_allocated(p->snap, driver, pool, device) ||
	       (p->assumed != NULL && dra_device_set_has(p->assumed, driver, pool, device));
}

static const struct verdict_container *kubelet_container(const struct verdict *v, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < v->ncontainers; i++)
		if (v->containers[i].name != NULL && strcmp(v->containers[i].name, name) == 0)
			return &v->containers[i];
	return NULL;
}

/* The units to align: each container that uses claims, or under the pod
 * scope the pod with every container's references. *refs holds the pod
 * unit's references (free it). A rejected pod has no affinity anywhere. */
static size_t build_units(const struct dra_pod *p, const struct verdict *kubelet,
			  struct dra_align_unit **out, struct dra_container_claim **refs,
			  bool *any_affinity)
{
	const struct dra_pod_claims *pc = p->pc;
	struct dra_align_unit *u = xcalloc(pc->ncontainers + 1, sizeof *u);
	size_t i, k, n = 0, nrefs = 0;

	*refs = NULL;
	*any_affinity = false;
	if (kubelet->scope == TM_SCOPE_POD) {
		for (i = 0; i < pc->ncontainers; i++)
			nrefs += pc->containers[i].nclaims;
		*refs = xcalloc(nrefs + 1, sizeof **refs);
		u->name = p->pod_name;
		u->pod_scope = true;
		u->refs = *refs;
		for (i = 0; i < pc->ncontainers; i++)
			for (k = 0; k < pc->containers[i].nclaims; k++)
				(*refs)[u->nrefs++] = pc->containers[i].claims[k];
		/* Every container of the pod gets the pod's affinity. */
		for (i = 0; kubelet->admit && i < kubelet->ncontainers; i++) {
			if (!kubelet->containers[i].has_affinity)
				continue;
			u->has_affinity = true;
			u->affinity |= kubelet->containers[i].numa_ids;
		}
		*any_affinity = u->has_affinity && u->nrefs > 0;
		*out = u;
		return u->nrefs > 0 ? 1 : 0;
	}
	for (i = 0; i < pc->ncontainers; i++) {
		const struct dra_container_claims *cc = &pc->containers[i];
		const struct verdict_container *vc;

		if (cc->nclaims == 0)
			continue;
		vc = kubelet->admit ? kubelet_container(kubelet, cc->container) : NULL;
		u[n].name = cc->container != NULL ? cc->container : "";
		u[n].refs = cc->claims;
		u[n].nrefs = cc->nclaims;
		u[n].has_affinity = vc != NULL && vc->has_affinity;
		u[n].affinity = u[n].has_affinity ? vc->numa_ids : 0;
		*any_affinity |= u[n].has_affinity;
		n++;
	}
	*out = u;
	return n;
}

static void set_why(struct dra_node_verdict *out, enum dra_outcome o, const char *why)
{
	out->outcome = o;
	snprintf(out->why, sizeof out->why, "%s", why);
}

/* "NUMA: DRA device u0 (gpu.x) has no known NUMA node, container "c" CPUs
 * on NUMA 0": the reason dra.unknownNUMA: deny gives. */
static void unknown_numa_why(const struct dra_align_verdict *v, char *buf, size_t size)
{
	struct textbuf b;

	textbuf_init_fixed(&b, buf, size);
	textbuf_adds(&b, "NUMA: DRA device ");
	dra_align_add_name(&b, v->device->device);
	textbuf_adds(&b, " (");
	dra_align_add_name(&b, v->device->driver);
	textbuf_printf(&b, ") has no known NUMA node, %s ", v->unit->pod_scope ? "pod" : "container");
	textbuf_quote(&b, v->unit->name, strlen(v->unit->name), 64, TEXTBUF_QUOTE_RAW_HIGH);
	textbuf_adds(&b, " CPUs on NUMA ");
	dra_numa_ids(&b, v->unit->affinity);
}

/* The outcome of a prediction that gave devices. */
static void from_alignment(const struct dra_alloc_input *in, const struct dra_pod *p,
			   const struct dra_align_verdict *all, unsigned flags,
			   struct dra_node_verdict *out)
{
	switch (all->why) {
	case DRA_ALIGN_OUTSIDE:
		out->outcome = DRA_OUTCOME_MISALIGNED;
		if (!(flags & DRA_JUDGE_NO_WHY))
			dra_align_reason(all, out->why, sizeof out->why);
		if (flags & DRA_JUDGE_REACH)
			out->unresolvable = dra_align_reach(in, p->pc->claims, all->unit) == DRA_REACH_NO;
		return;
	case DRA_ALIGN_INSIDE:
		set_why(out, DRA_OUTCOME_ALIGNED, "");
		return;
	case DRA_ALIGN_UNKNOWN_NUMA:
		out->outcome = DRA_OUTCOME_UNKNOWN_NUMA;
		if (!(flags & DRA_JUDGE_NO_WHY))
			unknown_numa_why(all, out->why, sizeof out->why);
		return;
	case DRA_ALIGN_NO_AFFINITY:
		set_why(out, DRA_OUTCOME_NO_CLAIMS, "no container that uses DRA devices has a NUMA affinity");
		return;
	case DRA_ALIGN_NOTHING:
		break;
	}
	set_why(out, DRA_OUTCOME_NO_CLAIMS, "no container uses the devices of the pod's claims");
}

static void from_prediction(const struct dra_alloc_result *res, struct dra_node_verdict *out)
{
	struct textbuf b;

	out->outcome = DRA_OUTCOME_UNPREDICTABLE;
	textbuf_init_fixed(&b, out->why, sizeof out->why);
	switch (res->verdict) {
	case DRA_ALLOC_UNSATISFIABLE:
		/* The scheduler let the node through its own DRA filter: what
		 * it sees (allocations in flight, newer slices) is not what we
		 * see. */
		textbuf_adds(&b, "DRA: no devices for the claims here as the extender sees the "
				 "cluster: ");
		break;
	case DRA_ALLOC_FATAL:
		textbuf_adds(&b, "DRA: the scheduler's allocator fails the pod: ");
		break;
	default:
		textbuf_adds(&b, "DRA: cannot predict the allocator: ");
		break;
	}
	textbuf_adds(&b, res->why.text);
}

void dra_judge(const struct dra_pod *p, const struct sched_node *node,
	       const struct verdict *kubelet, unsigned flags, struct dra_node_verdict *out)
{
	struct dra_container_claim *refs = NULL;
	struct dra_align_unit *units = NULL;
	struct dra_align_verdict all, *per = NULL;
	struct dra_alloc_result res;
	struct dra_alloc_input in;
	size_t nunits;
	bool any;

	memset(out, 0, sizeof *out);
	if (p->node_of != NULL && node->name != NULL) {
		const struct sched_node *labelled = p->node_of(p->node_ctx, node->name);

		if (labelled != NULL)
			node = labelled;
	}
	if (p->missing[0] != '\0') {
		set_why(out, DRA_OUTCOME_UNPREDICTABLE, p->missing);
		return;
	}
	nunits = build_units(p, kubelet, &units, &refs, &any);
	if (!any && !(flags & DRA_JUDGE_KEEP)) {
		set_why(out, DRA_OUTCOME_NO_CLAIMS,
			!kubelet->admit ? "the kubelet would not admit the pod: nothing to align with"
			: nunits == 0 ? "no container uses the pod's claims"
				      : "no container that uses DRA devices has a NUMA affinity");
		free(units);
		free(refs);
		return;
	}
	memset(&res, 0, sizeof res);
	if (p->label_slice != NULL) {
		struct textbuf b;

		out->outcome = DRA_OUTCOME_UNPREDICTABLE;
		textbuf_init_fixed(&b, out->why, sizeof out->why);
		textbuf_adds(&b, "DRA: cannot predict the allocator: ResourceSlice ");
		dra_align_add_name(&b, p->label_slice);
		textbuf_adds(&b, " selects nodes by label, and the extender does not know the node's labels");
		res.verdict = DRA_ALLOC_CANNOT_PREDICT;
		errmsg_set(&res.why, "%s", out->why);
	} else {
		memset(&in, 0, sizeof in);
		in.node = node;
		in.slices = p->snap->index;
		in.classes = p->classes;
		in.nclasses = p->nclasses;
		in.claims = p->claims;
		in.nclaims = p->pc->nclaims;
		in.order = p->order;
		/* Prepared: lookups only read it. */
		in.selectors = (struct dra_selectors *)(uintptr_t)&p->selectors;
		in.in_use = in_use;
		in.in_use_ctx = p;
		dra_alloc_predict(&in, &res);
		if (res.verdict == DRA_ALLOC_OK || res.verdict == DRA_ALLOC_SAME_NUMA) {
			per = xcalloc(nunits + 1, sizeof *per);
			all = dra_align(&res, p->pc->claims, p->pc->nclaims, units, nunits, per);
			from_alignment(&in, p, &all, flags, out);
			out->align = all;
		} else {
			from_prediction(&res, out);
		}
	}
	if (flags & DRA_JUDGE_KEEP) {
		out->kept = true;
		out->alloc = res;
		out->units = units;
		out->per_unit = per;
		out->nunits = nunits;
		/* The pod unit's references live as long as the units. */
		if (refs != NULL)
			units[0].refs = refs;
		out->refs_ = refs;
		return;
	}
	dra_alloc_result_free(&res);
	free(per);
	free(units);
	free(refs);
}

void dra_node_verdict_cleanup(struct dra_node_verdict *v)
{
	if (!v->kept)
		return;
	dra_alloc_result_free(&v->alloc);
	free(v->units);
	free(v->per_unit);
	free(v->refs_);
	v->kept = false;
	v->units = NULL;
	v->per_unit = NULL;
	v->refs_ = NULL;
}
