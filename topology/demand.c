/* SPDX-License-Identifier: Apache-2.0 */
/* Per-provider requests of a pod, following kubelet cpumanager
 * (guaranteedCPUs, podGuaranteedCPUs), memorymanager (getRequestedResources,
 * getPodRequestedResources), devicemanager (getContainerDeviceRequest,
 * getPodDeviceRequest via component-helpers PodLimits) and qos.ComputePodQOS. */
#include "demand.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/checked.h"
#include "base/textbuf.h"
#include "inventory.h"
#include "judge.h"

__extension__ typedef __int128 i128;

static const struct quantity *find(const struct pod_quantity *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return &list[i].q;
	return NULL;
}

const struct quantity *container_request(const struct pod_container *c, const char *name)
{
	const struct quantity *q = find(c->requests, c->nrequests, name);

	/* The API server defaults a missing request to the limit. */
	return q ? q : find(c->limits, c->nlimits, name);
}

static i128 qos_units(const struct quantity *q, const char *name)
{
	int64_t v = 0;

	/* Milli-CPU and bytes compare exactly for every realistic request. */
	if (quantity_scaled(q, strcmp(name, "cpu") == 0 ? -3 : 0, &v) != ERR_OK)
		v = INT64_MAX;
	return v;
}

enum qos_class pod_qos(const struct pod_spec *pod)
{
	static const char *const names[2] = { "cpu", "memory" };
	i128 req[2] = { 0, 0 }, lim[2] = { 0, 0 };
	bool has_req[2] = { false, false }, has_lim[2] = { false, false };
	bool guaranteed = true;
	size_t i;
	int k;

	if (pod->has_status_qos)
		return pod->status_qos;
	for (i = 0; i < pod->ncontainers; i++) {
		const struct pod_container *c = &pod->containers[i];
		bool found[2] = { false, false };

		for (k = 0; k < 2; k++) {
			const struct quantity *r = container_request(c, names[k]);
			const struct quantity *l = find(c->limits, c->nlimits, names[k]);

			if (r && quantity_sign(r) > 0) {
				req[k] += qos_units(r, names[k]);
				has_req[k] = true;
			}
			if (l && quantity_sign(l) > 0) {
				lim[k] += qos_units(l, names[k]);
				has_lim[k] = true;
				found[k] = true;
			}
		}
		if (!found[0] || !found[1])
			guaranteed = false;
	}
	if (!has_req[0] && !has_req[1] && !has_lim[0] && !has_lim[1])
		return QOS_BEST_EFFORT;
	if (guaranteed) {
		for (k = 0; k < 2; k++)
			if (has_req[k] && (!has_lim[k] || lim[k] != req[k]))
				guaranteed = false;
		/* len(requests) == len(limits) */
		if ((has_req[0] + has_req[1]) != (has_lim[0] + has_lim[1]))
			guaranteed = false;
	}
	return guaranteed ? QOS_GUARANTEED : QOS_BURSTABLE;
}

static bool is_memory_type(const char *name)
{
	return strcmp(name, "memory") == 0 || strncmp(name, "hugepages-", 10) == 0;
}

/* kubelet guaranteedCPUs: Value()*1000 == MilliValue(), both rounded up. */
static enum err guaranteed_cpus(enum qos_class qos, const struct pod_container *c,
				int64_t *out, struct errmsg *msg)
{
	const struct quantity *q = container_request(c, "cpu");
	int64_t value, milli, thousand;

	*out = 0;
	if (qos != QOS_GUARANTEED || q == NULL)
		return ERR_OK;
	if (quantity_scaled(q, 0, &value) != ERR_OK || quantity_scaled(q, -3, &milli) != ERR_OK ||
	    value > INT32_MAX || !i64_mul_ok(value, 1000, &thousand)) {
		errmsg_set(msg, "container \"%s\": cpu request out of range", c->name);
		return ERR_RANGE;
	}
	if (thousand == milli)
		*out = value;
	return ERR_OK;
}

static void amount_add(struct demand_amount **list, size_t *n, const char *name, int64_t v)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*list)[i].name, name) == 0) {
			(*list)[i].amount = i64_add_sat((*list)[i].amount, v);
			return;
		}
	}
	*list = xrealloc(*list, sizeof **list * (*n + 1));
	(*list)[*n].name = name;
	(*list)[*n].amount = v;
	(*n)++;
}

static int64_t amount_get(const struct demand_amount *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return list[i].amount;
	return 0;
}

static void amount_max(struct demand_amount **list, size_t *n, const char *name, int64_t v)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*list)[i].name, name) == 0) {
			if (v > (*list)[i].amount)
				(*list)[i].amount = v;
			return;
		}
	}
	amount_add(list, n, name, v);
}

static enum err container_fill(enum qos_class qos, const struct pod_container *c,
			       struct container_demand *d, struct errmsg *msg)
{
	enum err rc;
	size_t i;

	d->name = c->name;
	d->kind = c->kind;
	d->has_cpu_request = container_request(c, "cpu") != NULL;
	d->memory_whole = true;
	rc = guaranteed_cpus(qos, c, &d->cpus, msg);
	if (rc != ERR_OK)
		return rc;

	/* Memory types come from the (defaulted) requests. */
	for (i = 0; i < c->nrequests + c->nlimits; i++) {
		const struct pod_quantity *pq = i < c->nrequests ? &c->requests[i]
							       : &c->limits[i - c->nrequests];
		const struct quantity *q;
		int64_t v;

		if (!is_memory_type(pq->name))
			continue;
		if (i >= c->nrequests && find(c->requests, c->nrequests, pq->name))
			continue;
		q = &pq->q;
		if (!quantity_is_exact(q, 0) || quantity_scaled(q, 0, &v) != ERR_OK) {
			/* kubelet: "failed to represent quantity as int64". */
			d->memory_whole = false;
			continue;
		}
		amount_add(&d->memory, &d->nmemory, pq->name, v);
	}

	/* Device-plugin resources: limits (== requests for extended resources). */
	for (i = 0; i < c->nlimits + c->nrequests; i++) {
		const struct pod_quantity *pq = i < c->nlimits ? &c->limits[i]
							     : &c->requests[i - c->nlimits];
		int64_t v;

		if (resource_kind_of(pq->name) != RESOURCE_DEVICE)
			continue;
		if (i >= c->nlimits && find(c->limits, c->nlimits, pq->name))
			continue;
		if (quantity_scaled(&pq->q, 0, &v) != ERR_OK || v > INT32_MAX) {
			errmsg_set(msg, "container \"%s\": %s: out of range", c->name, pq->name);
			return ERR_RANGE;
		}
		if (v > 0)
			amount_add(&d->devices, &d->ndevices, pq->name, v);
	}
	return ERR_OK;
}

static void amounts_max_into(struct demand_amount **dst, size_t *ndst,
			     const struct demand_amount *src, size_t nsrc)
{
	size_t i;

	for (i = 0; i < nsrc; i++)
		amount_max(dst, ndst, src[i].name, src[i].amount);
}

/* component-helpers resource.PodLimits for device counts: app containers and
 * sidecars summed; each init container counts with the sidecars declared
 * before it, each sidecar with the sidecars up to it; the larger side wins. */
static void pod_devices(const struct pod_demand *pd, struct demand_amount **out, size_t *nout)
{
	struct demand_amount *restartable = NULL, *init_max = NULL, *tmp = NULL;
	size_t nrestartable = 0, ninit_max = 0, ntmp = 0, i, j;

	for (i = 0; i < pd->ncontainers; i++) {
		const struct container_demand *c = &pd->containers[i];

		if (c->kind == CONTAINER_APP) {
			for (j = 0; j < c->ndevices; j++)
				amount_add(out, nout, c->devices[j].name, c->devices[j].amount);
		} else if (c->kind == CONTAINER_SIDECAR) {
			for (j = 0; j < c->ndevices; j++) {
				amount_add(out, nout, c->devices[j].name, c->devices[j].amount);
				amount_add(&restartable, &nrestartable, c->devices[j].name,
					   c->devices[j].amount);
			}
			amounts_max_into(&init_max, &ninit_max, restartable, nrestartable);
		} else {
			ntmp = 0;
			for (j = 0; j < c->ndevices; j++)
				amount_add(&tmp, &ntmp, c->devices[j].name, c->devices[j].amount);
			for (j = 0; j < nrestartable; j++)
				amount_add(&tmp, &ntmp, restartable[j].name, restartable[j].amount);
			amounts_max_into(&init_max, &ninit_max, tmp, ntmp);
		}
	}
	amounts_max_into(out, nout, init_max, ninit_max);
	free(restartable);
	free(init_max);
	free(tmp);
}

/* memorymanager getPodRequestedResources: per type the larger of the
 * long-running sum (apps + sidecars) and the init maximum (each regular init
 * container plus the sidecars declared before it); only types the app
 * containers request. */
static void pod_memory(const struct pod_demand *pd, struct demand_amount **out, size_t *nout)
{
	struct demand_amount *restartable = NULL, *init_max = NULL, *apps = NULL;
	size_t nrestartable = 0, ninit_max = 0, napps = 0, i, j;

	for (i = 0; i < pd->ncontainers; i++) {
		const struct container_demand *c = &pd->containers[i];

		for (j = 0; j < c->nmemory; j++) {
			const struct demand_amount *a = &c->memory[j];

			if (c->kind == CONTAINER_APP)
				amount_add(&apps, &napps, a->name, a->amount);
			else if (c->kind == CONTAINER_SIDECAR)
				amount_add(&restartable, &nrestartable, a->name, a->amount);
			else
				amount_max(&init_max, &ninit_max, a->name,
					   i64_add_sat(amount_get(restartable, nrestartable, a->name),
						       a->amount));
		}
	}
	for (i = 0; i < napps; i++) {
		int64_t lr = i64_add_sat(apps[i].amount,
					 amount_get(restartable, nrestartable, apps[i].name));
		int64_t init = amount_get(init_max, ninit_max, apps[i].name);

		amount_add(out, nout, apps[i].name, init > lr ? init : lr);
	}
	free(restartable);
	free(init_max);
	free(apps);
}

/* A zero request is no request: the memory manager's hints for a zero
 * amount fit every mask (single NUMA nodes preferred), so such a type never
 * narrows the merge, and a size no zone publishes must not fail the pod.
 * Dropped only after pod_memory, where an app container's zero still makes
 * its type one the init containers' maximum counts for. */
static void drop_zero_amounts(struct demand_amount *a, size_t *n)
{
	size_t i, k = 0;

	for (i = 0; i < *n; i++)
		if (a[i].amount != 0)
			a[k++] = a[i];
	*n = k;
}

/* Equal resource names become one pointer (the first seen, borrowed from the
 * same pod_spec), so that the judge's per-judgement name cache, keyed by
 * pointer, resolves each name once. At most DEMAND_NAMES distinct names are
 * shared; further ones keep their own pointers (a cache miss, never a wrong
 * index), which bounds the work on a pod with very many resources. */
#define DEMAND_NAMES 64

static void share_names(struct demand_amount *a, size_t n, const char **seen, size_t *nseen)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < *nseen; j++) {
			if (seen[j] == a[i].name || strcmp(seen[j], a[i].name) == 0) {
				a[i].name = seen[j];
				break;
			}
		}
		if (j == *nseen && *nseen < DEMAND_NAMES)
			seen[(*nseen)++] = a[i].name;
	}
}

static void share_demand_names(struct pod_demand *pd)
{
	const char *seen[DEMAND_NAMES];
	size_t nseen = 0, i;

	for (i = 0; i < pd->ncontainers; i++) {
		share_names(pd->containers[i].memory, pd->containers[i].nmemory, seen, &nseen);
		share_names(pd->containers[i].devices, pd->containers[i].ndevices, seen, &nseen);
	}
	share_names(pd->pod_memory, pd->npod_memory, seen, &nseen);
	share_names(pd->pod_devices, pd->npod_devices, seen, &nseen);
}

enum err pod_demand_new(const struct pod_spec *pod, struct pod_demand **out,
			struct errmsg *msg)
{
	struct pod_demand *pd = xcalloc(1, sizeof *pd);
	int64_t init_max = 0, sidecar_sum = 0, app_sum = 0;
	enum err rc = ERR_OK;
	size_t i;

	*out = NULL;
	pd->qos = pod_qos(pod);
	pd->ncontainers = pod->ncontainers;
	pd->containers = xcalloc(pod->ncontainers, sizeof *pd->containers);
	pd->pod_memory_whole = true;
	for (i = 0; i < pod->ncontainers; i++) {
		struct container_demand *c = &pd->containers[i];

		rc = container_fill(pd->qos, &pod->containers[i], c, msg);
		if (rc != ERR_OK)
			goto out;
		if (!c->memory_whole)
			pd->pod_memory_whole = false;
		/* podGuaranteedCPUs: only containers with a cpu request count. */
		if (!c->has_cpu_request)
			continue;
		if (c->kind == CONTAINER_SIDECAR)
			sidecar_sum = i64_add_sat(sidecar_sum, c->cpus);
		else if (c->kind == CONTAINER_INIT) {
			if (i64_add_sat(sidecar_sum, c->cpus) > init_max)
				init_max = i64_add_sat(sidecar_sum, c->cpus);
		} else
			app_sum = i64_add_sat(app_sum, c->cpus);
	}
	pd->pod_cpus = init_max > i64_add_sat(app_sum, sidecar_sum) ? init_max
								     : i64_add_sat(app_sum, sidecar_sum);
	pod_memory(pd, &pd->pod_memory, &pd->npod_memory);
	drop_zero_amounts(pd->pod_memory, &pd->npod_memory);
	for (i = 0; i < pd->ncontainers; i++)
		drop_zero_amounts(pd->containers[i].memory, &pd->containers[i].nmemory);
	pod_devices(pd, &pd->pod_devices, &pd->npod_devices);
	share_demand_names(pd);
out:
	if (rc != ERR_OK) {
		pod_demand_free(pd);
		return rc;
	}
	*out = pd;
	return ERR_OK;
}

void pod_demand_free(struct pod_demand *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->ncontainers; i++) {
		free(d->containers[i].memory);
		free(d->containers[i].devices);
	}
	free(d->containers);
	free(d->pod_memory);
	free(d->pod_devices);
	judge_memo_free(d->memo);
	free(d);
}

/* The key is shorter than the pod's JSON, which the request body bounds. */
#define DEMAND_KEY_MAX ((size_t)1 << 30)

static void key_amounts(struct textbuf *b, const struct demand_amount *a,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		textbuf_printf(b, "%s=%lld,", a[i].name, (long long)a[i].amount);
	textbuf_addc(b, ';');
}

char *pod_demand_key(const struct pod_demand *d)
{
	static _Atomic unsigned long long uncached;
	struct textbuf b;
	size_t i;

	textbuf_init(&b, DEMAND_KEY_MAX);
	textbuf_printf(&b, "q%d|c%lld|w%d|", (int)d->qos, (long long)d->pod_cpus,
		       (int)d->pod_memory_whole);
	key_amounts(&b, d->pod_memory, d->npod_memory);
	key_amounts(&b, d->pod_devices, d->npod_devices);
	for (i = 0; i < d->ncontainers; i++) {
		const struct container_demand *c = &d->containers[i];

		/* Names matter too: verdicts name containers. */
		textbuf_printf(&b, "|%s:%d:%lld:%d:%d:", c->name, (int)c->kind,
			       (long long)c->cpus, (int)c->has_cpu_request, (int)c->memory_whole);
		key_amounts(&b, c->memory, c->nmemory);
		key_amounts(&b, c->devices, c->ndevices);
	}
	/* A cut key could name two demands: past the ceiling (a pod larger than
	 * any request body we accept) the key is unique, so nothing is shared. */
	if (textbuf_failed(&b)) {
		textbuf_reset(&b);
		textbuf_printf(&b, "!uncached#%llu", ++uncached);
	}
	return textbuf_take(&b, NULL);
}
