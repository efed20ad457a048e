/* SPDX-License-Identifier: Apache-2.0 */
/* Ownership of decoded pods (copy, cleanup) and QoS names. */
#include "pod.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static void quantities_free(struct pod_quantity *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}

static struct pod_quantity *quantities_copy(const struct pod_quantity *list, size_t n)
{
	struct pod_quantity *out = xcalloc(n + 1, sizeof *out);
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].name = xstrdup(list[i].name);
		out[i].q = list[i].q;
	}
	return out;
}

void pod_spec_copy(const struct pod_spec *in, struct pod_spec *out)
{
	size_t i;

	memset(out, 0, sizeof *out);
	out->namespace_ = xstrdup(in->namespace_ ? in->namespace_ : "default");
	out->name = xstrdup(in->name ? in->name : "");
	out->uid = in->uid ? xstrdup(in->uid) : NULL;
	out->has_status_qos = in->has_status_qos;
	out->status_qos = in->status_qos;
	out->ncontainers = in->ncontainers;
	out->containers = xcalloc(in->ncontainers + 1, sizeof *out->containers);
	for (i = 0; i < in->ncontainers; i++) {
		const struct pod_container *a = &in->containers[i];
		struct pod_container *b = &out->containers[i];

		b->name = xstrdup(a->name ? a->name : "");
		b->kind = a->kind;
		b->nrequests = a->nrequests;
		b->requests = quantities_copy(a->requests, a->nrequests);
		b->nlimits = a->nlimits;
		b->limits = quantities_copy(a->limits, a->nlimits);
	}
}

void pod_spec_cleanup(struct pod_spec *pod)
{
	size_t i;

	if (pod == NULL)
		return;
	free(pod->namespace_);
	free(pod->name);
	free(pod->uid);
	for (i = 0; i < pod->ncontainers; i++) {
		struct pod_container *c = &pod->containers[i];

		free(c->name);
		quantities_free(c->requests, c->nrequests);
		quantities_free(c->limits, c->nlimits);
	}
	free(pod->containers);
	memset(pod, 0, sizeof *pod);
}

const char *qos_class_name(enum qos_class q)
{
	switch (q) {
	case QOS_BEST_EFFORT: return "BestEffort";
	case QOS_BURSTABLE: return "Burstable";
	case QOS_GUARANTEED: return "Guaranteed";
	}
	return "?";
}
