/* SPDX-License-Identifier: Apache-2.0 */
/* The DRA devices of pods seen bound (dra_assume.h): an array of pods in
 * the order they were held, the oldest evicted first when it is full.
 * Each remembers the claims that were not allocated when it was held; it
 * lets go once the snapshot shows them all allocated (the allocation then
 * says which devices are taken) or once the TTL has passed. */
#include "extender/decide/dra_assume.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"
#include "extender/decide/dra.h"

struct held {
	uint64_t hash;          /* of the UID */
	char *uid, *namespace_, *node;
	/* The claims unallocated when held, by name; NULL: a template's
	 * claim whose name the pod did not say yet (never seen allocated). */
	char **claims;
	size_t nclaims;
	/* devices[3 * i ...]: driver, pool, device. */
	char **devices;
	size_t ndevices;
	int64_t since_ms;
};

struct dra_assume {
	pthread_mutex_t lock;
	int64_t ttl_ms;
	size_t max;
	struct held **held;     /* oldest first */
	size_t n;
};

struct dra_assume *dra_assume_new(int64_t ttl_ms, size_t max)
{
	struct dra_assume *a = xcalloc(1, sizeof *a);

	pthread_mutex_init(&a->lock, NULL);
	a->ttl_ms = ttl_ms > 0 ? ttl_ms : 0;
	a->max = max > 0 && max < DRA_ASSUME_MAX ? max : DRA_ASSUME_MAX;
	a->held = xcalloc(a->max, sizeof *a->held);
	return a;
}

static void held_free(struct held *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nclaims; i++)
		free(h->claims[i]);
	for (i = 0; i < 3 * h->ndevices; i++)
		free(h->devices[i]);
	free(h->claims);
	free(h->devices);
	free(h->uid);
	free(h->namespace_);
	free(h->node);
	free(h);
}

void dra_assume_free(struct dra_assume *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		held_free(a->held[i]);
	free(a->held);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

static uint64_t uid_hash(const char *uid)
{
	return hash_str(uid);
}

/* The index of uid's pod, or a->n. Under the lock. */
static size_t find(const struct dra_assume *a, const char *uid)
{
	uint64_t h = uid_hash(uid);
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->held[i]->hash == h && strcmp(a->held[i]->uid, uid) == 0)
			return i;
	return a->n;
}

/* Removes held[i], keeping the order. Under the lock. */
static void remove_at(struct dra_assume *a, size_t i)
{
	held_free(a->held[i]);
	memmove(&a->held[i], &a->held[i + 1], (a->n - i - 1) * sizeof *a->held);
	a->n--;
}

static bool claim_allocated(const struct dra_snapshot *snap, const char *ns, const char *name)
{
	const struct dra_claim *c = name != NULL ? dra_snapshot_claim(snap, ns, name) : NULL;

	return c != NULL && c->allocated;
}

static bool expired(const struct dra_assume *a, const struct held *h, int64_t now_ms)
{
	/* since_ms + ttl_ms <= now_ms, without overflow. */
	return h->since_ms <= now_ms && now_ms - h->since_ms >= a->ttl_ms;
}

static bool settled(const struct dra_snapshot *snap, const struct held *h)
{
	size_t i;

	for (i = 0; i < h->nclaims; i++)
		if (!claim_allocated(snap, h->namespace_, h->claims[i]))
			return false;
	return true;
}

/* Drops the pods that expired or whose claims are allocated now; adds the
 * others' devices to out (when not NULL). Under the lock. */
static size_t sweep(struct dra_assume *a, const struct dra_snapshot *snap, int64_t now_ms,
		    const char *except_uid, struct dra_device_set *out)
{
	size_t i, kept = 0, used = 0;

	for (i = 0; i < a->n; i++) {
		struct held *h = a->held[i];
		size_t k;

		if (expired(a, h, now_ms) || settled(snap, h)) {
			held_free(h);
			continue;
		}
		a->held[kept++] = h;
		if (except_uid != NULL && strcmp(h->uid, except_uid) == 0)
			continue;
		used++;
		for (k = 0; out != NULL && k < h->ndevices; k++)
			dra_device_set_add(out, h->devices[3 * k], h->devices[3 * k + 1],
					   h->devices[3 * k + 2]);
	}
	a->n = kept;
	return used;
}

size_t dra_assume_devices(struct dra_assume *a, const struct dra_snapshot *snap, int64_t now_ms,
			  const char *except_uid, struct dra_device_set *out)
{
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->n > 0 ? sweep(a, snap, now_ms, except_uid, out) : 0;
	pthread_mutex_unlock(&a->lock);
	return n;
}

size_t dra_assume_count(struct dra_assume *a, const struct dra_snapshot *snap, int64_t now_ms)
{
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->n > 0 ? sweep(a, snap, now_ms, NULL, NULL) : 0;
	pthread_mutex_unlock(&a->lock);
	return n;
}

void dra_assume_forget(struct dra_assume *a, const char *uid)
{
	size_t i;

	pthread_mutex_lock(&a->lock);
	i = find(a, uid);
	if (i < a->n)
		remove_at(a, i);
	pthread_mutex_unlock(&a->lock);
}

/* The prediction's devices for the claims not allocated in snap. */
static void take_picks(struct held *h, const struct dra_alloc_result *res,
		       const bool *unallocated)
{
	size_t i, k;

	for (i = 0; i < res->nclaims; i++) {
		const struct dra_claim_picks *cp = &res->claims[i];

		if (!unallocated[i] || cp->preallocated)
			continue;
		for (k = 0; k < cp->n; k++) {
			const struct dra_pick *pk = &cp->picks[k];

			if (pk->driver == NULL || pk->pool == NULL || pk->device == NULL)
				continue;
			h->devices = xreallocarray(h->devices, 3 * (h->ndevices + 1), sizeof *h->devices);
			h->devices[3 * h->ndevices] = xstrdup(pk->driver);
			h->devices[3 * h->ndevices + 1] = xstrdup(pk->pool);
			h->devices[3 * h->ndevices + 2] = xstrdup(pk->device);
			h->ndevices++;
		}
	}
}

/* The devices the allocator would give the pod on node, the others held
 * counting as taken; NULL when it cannot be predicted. */
static struct held *predict(struct dra_assume *a, const struct dra_snapshot *snap,
			    const char *uid, const char *ns, const char *pod_name,
			    const char *node, const struct dra_pod_claims *claims,
			    const bool *unallocated, int64_t bound_ms, enum dra_alloc_order order)
{
	struct dra_device_set others;
	struct dra_pod_input in;
	struct dra_node_verdict v;
	struct sched_node sn;
	struct verdict kubelet;
	struct dra_pod *p;
	struct held *h = NULL;
	size_t i;

	dra_device_set_init(&others);
	dra_assume_devices(a, snap, bound_ms, uid, &others);
	memset(&in, 0, sizeof in);
	in.snap = snap;
	in.claims = claims;
	in.namespace_ = ns;
	in.pod_name = pod_name;
	in.order = order;
	in.assumed = &others;
	p = dra_pod_new(&in);
	if (p == NULL) {
		dra_device_set_free(&others);
		return NULL;
	}
	memset(&sn, 0, sizeof sn);
	sn.name = (char *)(uintptr_t)node;
	/* Only the allocator's prediction is wanted: with DRA_JUDGE_KEEP it is
	 * made whatever the kubelet's verdict, and a rejecting one aligns
	 * nothing. */
	memset(&kubelet, 0, sizeof kubelet);
	kubelet.admit = false;
	dra_judge(p, &sn, &kubelet, DRA_JUDGE_KEEP | DRA_JUDGE_NO_WHY, &v);
	if (v.kept && (v.alloc.verdict == DRA_ALLOC_OK || v.alloc.verdict == DRA_ALLOC_SAME_NUMA) &&
	    v.alloc.nclaims == claims->nclaims) {
		h = xcalloc(1, sizeof *h);
		h->hash = uid_hash(uid);
		h->uid = xstrdup(uid);
		h->namespace_ = xstrdup(ns);
		h->node = xstrdup(node);
		h->since_ms = bound_ms;
		h->claims = xcalloc(claims->nclaims, sizeof *h->claims);
		for (i = 0; i < claims->nclaims; i++)
			if (unallocated[i])
				h->claims[h->nclaims++] = claims->claims[i].claim_name != NULL
					? xstrdup(claims->claims[i].claim_name) : NULL;
		take_picks(h, &v.alloc, unallocated);
	}
	dra_node_verdict_cleanup(&v);
	dra_pod_free(p);
	dra_device_set_free(&others);
	return h;
}

size_t dra_assume_pod(struct dra_assume *a, const struct dra_snapshot *snap, const char *uid,
		      const char *namespace_, const char *pod_name, const char *node,
		      const struct dra_pod_claims *claims, int64_t bound_ms,
		      enum dra_alloc_order order)
{
	const char *ns = namespace_ != NULL && namespace_[0] != '\0' ? namespace_ : "default";
	struct held *h;
	bool *unallocated, any = false;
	size_t i, n = 0;

	if (uid == NULL || node == NULL || node[0] == '\0' || claims == NULL || claims->nclaims == 0)
		return 0;
	pthread_mutex_lock(&a->lock);
	i = find(a, uid);
	if (i < a->n && strcmp(a->held[i]->node, node) == 0)
		n = a->held[i]->ndevices;
	pthread_mutex_unlock(&a->lock);
	if (n > 0)
		return n;
	unallocated = xcalloc(claims->nclaims, sizeof *unallocated);
	for (i = 0; i < claims->nclaims; i++) {
		unallocated[i] = !claim_allocated(snap, ns, claims->claims[i].claim_name);
		any |= unallocated[i];
	}
	h = any ? predict(a, snap, uid, ns, pod_name, node, claims, unallocated, bound_ms, order)
		: NULL;
	free(unallocated);
	if (h == NULL || h->ndevices == 0) {
		held_free(h);
		return 0;
	}
	n = h->ndevices;
	pthread_mutex_lock(&a->lock);
	i = find(a, uid);
	if (i < a->n)
		remove_at(a, i);
	if (a->n == a->max)
		remove_at(a, 0);
	a->held[a->n++] = h;
	pthread_mutex_unlock(&a->lock);
	return n;
}
