/* SPDX-License-Identifier: Apache-2.0 */
#include "dra/align.h"

#include <string.h>

#include "base/textbuf.h"

/* Whether a result named request ("<req>" or "<req>/<sub>") is what a
 * container's reference to want covers (NULL: the whole claim). */
static bool covers(const char *want, const char *request)
{
	size_t n;

	if (want == NULL)
		return true;
	n = strlen(want);
	return strncmp(request, want, n) == 0 && (request[n] == '\0' || request[n] == '/');
}

static const struct dra_claim_picks *claim_of(const struct dra_alloc_result *res,
					      const struct dra_pod_claim *pod_claims,
					      size_t nclaims, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < nclaims && i < res->nclaims; i++)
		if (pod_claims[i].name != NULL && strcmp(pod_claims[i].name, name) == 0)
			return &res->claims[i];
	return NULL;
}

static struct dra_align_verdict unit_verdict(const struct dra_alloc_result *res,
					     const struct dra_pod_claim *pod_claims,
					     size_t nclaims, const struct dra_align_unit *u)
{
	struct dra_align_verdict v = { DRA_ALIGNED_NULL, DRA_ALIGN_NOTHING, NULL, u };
	const struct dra_pick *unknown = NULL;
	bool any = false;
	size_t r, i;

	for (r = 0; r < u->nrefs; r++) {
		const struct dra_claim_picks *cp =
			claim_of(res, pod_claims, nclaims, u->refs[r].claim);

		for (i = 0; cp != NULL && i < cp->n; i++) {
			const struct dra_pick *p = &cp->picks[i];

			if (!covers(u->refs[r].request, p->request))
				continue;
			any = true;
			if (!u->has_affinity)
				continue;
			if (!p->numa.known) {
				if (unknown == NULL)
					unknown = p;
			} else if ((p->numa.nodes & ~u->affinity) != 0) {
				v.aligned = DRA_ALIGNED_NO;
				v.why = DRA_ALIGN_OUTSIDE;
				v.device = p;
				return v;
			}
		}
	}
	if (!any)
		return v;
	if (!u->has_affinity) {
		v.why = DRA_ALIGN_NO_AFFINITY;
	} else if (unknown != NULL) {
		v.why = DRA_ALIGN_UNKNOWN_NUMA;
		v.device = unknown;
	} else {
		v.aligned = DRA_ALIGNED_YES;
		v.why = DRA_ALIGN_INSIDE;
	}
	return v;
}

/* Which of two verdicts speaks for the pod. */
static int rank(enum dra_align_why w)
{
	switch (w) {
	case DRA_ALIGN_OUTSIDE: return 4;
	case DRA_ALIGN_UNKNOWN_NUMA: return 3;
	case DRA_ALIGN_INSIDE: return 2;
	case DRA_ALIGN_NO_AFFINITY: return 1;
	case DRA_ALIGN_NOTHING: break;
	}
	return 0;
}

struct dra_align_verdict dra_align(const struct dra_alloc_result *res,
				   const struct dra_pod_claim *pod_claims, size_t nclaims,
				   const struct dra_align_unit *units, size_t nunits,
				   struct dra_align_verdict *per_unit)
{
	struct dra_align_verdict all = { DRA_ALIGNED_NULL, DRA_ALIGN_NOTHING, NULL, NULL };
	size_t i;

	for (i = 0; i < nunits; i++) {
		struct dra_align_verdict v = unit_verdict(res, pod_claims, nclaims, &units[i]);

		if (per_unit != NULL)
			per_unit[i] = v;
		if (rank(v.why) > rank(all.why))
			all = v;
	}
	return all;
}

void dra_align_add_name(struct textbuf *b, const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_'))
			break;
	}
	if (n > 0 && i == n && n <= 253)
		textbuf_add(b, s, n);
	else
		textbuf_quote(b, s, n, 64, TEXTBUF_QUOTE_RAW_HIGH);
}

const char *dra_align_reason(const struct dra_align_verdict *v, char *buf, size_t size)
{
	struct textbuf b;

	textbuf_init_fixed(&b, buf, size);
	if (v->why != DRA_ALIGN_OUTSIDE || v->device == NULL || v->unit == NULL)
		return buf;
	textbuf_adds(&b, "NUMA: DRA devices ");
	dra_align_add_name(&b, v->device->device);
	textbuf_adds(&b, " (");
	dra_align_add_name(&b, v->device->driver);
	textbuf_adds(&b, ") on NUMA ");
	dra_numa_ids(&b, v->device->numa.nodes);
	textbuf_adds(&b, v->unit->pod_scope ? ", pod " : ", container ");
	textbuf_quote(&b, v->unit->name, strlen(v->unit->name), 64, TEXTBUF_QUOTE_RAW_HIGH);
	textbuf_adds(&b, " CPUs on NUMA ");
	dra_numa_ids(&b, v->unit->affinity);
	return buf;
}
