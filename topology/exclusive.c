/* SPDX-License-Identifier: Apache-2.0 */
#include "exclusive.h"

#include <string.h>

#include "base/xalloc.h"

/* k8s.io/kubernetes/pkg/apis/core/v1/helper.IsNativeResource. */
static bool is_native(const char *name)
{
	return strchr(name, '/') == NULL || strstr(name, "kubernetes.io/") != NULL;
}

static bool is_exclusive(enum qos_class qos, const char *name, const struct quantity *q,
			 const struct inventory_node *node)
{
	int64_t v = 0, milli = 0;

	if (!is_native(name))
		return node != NULL && inventory_find(node, name) >= 0;
	if (qos != QOS_GUARANTEED || quantity_sign(q) <= 0)
		return false;
	if (strcmp(name, "cpu") == 0)
		/* Quantity.Value()*1000 == MilliValue(): a whole number of CPUs. */
		return quantity_scaled(q, -3, &milli) == ERR_OK && milli % 1000 == 0;
	if (strcmp(name, "memory") == 0 || strncmp(name, "hugepages-", 10) == 0)
		return quantity_scaled(q, 0, &v) != ERR_OK || v > 0;
	return false;
}

/* Every effective request of the container: requests, and limits standing in
 * for requests the API server would default from them. */
static bool container_exclusive(enum qos_class qos, const struct pod_container *c,
				const struct inventory_node *node)
{
	size_t i;

	for (i = 0; i < c->nrequests; i++)
		if (is_exclusive(qos, c->requests[i].name, &c->requests[i].q, node))
			return true;
	for (i = 0; i < c->nlimits; i++) {
		const char *name = c->limits[i].name;

		if (container_request(c, name) == &c->limits[i].q &&
		    is_exclusive(qos, name, &c->limits[i].q, node))
			return true;
	}
	return false;
}

bool pod_has_exclusive_resources(const struct pod_spec *pod, const struct inventory_node *node)
{
	enum qos_class qos = pod_qos(pod);
	size_t i;

	for (i = 0; i < pod->ncontainers; i++) {
		const struct pod_container *c = &pod->containers[i];

		if (c->kind == CONTAINER_INIT)
			continue;
		if (container_exclusive(qos, c, node))
			return true;
	}
	return false;
}

size_t pod_exclusive_amounts(const struct pod_demand *d, struct demand_amount **out)
{
	size_t n = 0, i;

	*out = xcalloc(1 + d->npod_memory + d->npod_devices, sizeof **out);
	if (d->qos == QOS_GUARANTEED) {
		if (d->pod_cpus > 0)
			(*out)[n++] = (struct demand_amount){ "cpu", d->pod_cpus };
		for (i = 0; i < d->npod_memory; i++)
			if (d->pod_memory[i].amount > 0)
				(*out)[n++] = d->pod_memory[i];
	}
	for (i = 0; i < d->npod_devices; i++)
		if (d->pod_devices[i].amount > 0)
			(*out)[n++] = d->pod_devices[i];
	return n;
}
