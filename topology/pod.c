/* SPDX-License-Identifier: Apache-2.0 */
/* Ownership of decoded pods and QoS names. */
#include "pod.h"

#include <stdlib.h>
#include <string.h>

static void quantities_free(struct pod_quantity *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
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
