/* SPDX-License-Identifier: Apache-2.0 */
/* Copy-on-publish DRA snapshots: per kind a sorted array of refcounted
 * objects. A publish merges each kind's sorted batch into a new array
 * (O(objects + batch log batch)), sharing every unchanged object, and
 * rebuilds only the views whose inputs changed (dra_view.c). */
#include "extender/inventory/dra_store_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "dra/cel.h"
#include "dra/numa.h"

struct dra_store {
	pthread_mutex_t lock;          /* guards the pointer `current` */
	pthread_mutex_t publish_lock;  /* one publisher at a time */
	struct dra_snap *current;
	_Atomic bool ready;
	_Atomic uint64_t errors, publishes;
};

/* A put (entry) or a delete (entry NULL) of one key. */
struct op {
	char *key;
	struct dra_entry *entry;
	size_t seq;                    /* batch order: the last op of a key wins */
};

struct dra_batch {
	struct op *ops[DRA_KIND_COUNT];
	size_t nops[DRA_KIND_COUNT];
	char **keeps[DRA_KIND_COUNT];
	size_t nkeeps[DRA_KIND_COUNT];
	bool replace[DRA_KIND_COUNT];
	size_t seq;
};

void dra_key(char *buf, size_t size, const char *ns, const char *name)
{
	if (ns != NULL)
		snprintf(buf, size, "%s\x01%s", ns, name);
	else
		snprintf(buf, size, "%s", name);
}

void dra_entry_ref(struct dra_entry *e)
{
	atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

void dra_entry_unref(struct dra_entry *e)
{
	if (e == NULL || atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (e->kind == DRA_KIND_SLICE)
		dra_slice_cleanup(&e->u.slice);
	else if (e->kind == DRA_KIND_CLASS)
		dra_class_cleanup(&e->u.cls);
	else
		dra_claim_cleanup(&e->u.claim);
	free(e->key);
	free(e->version);
	free(e->origin);
	free(e);
}

const char *dra_object_version(const void *object)
{
	return ((const struct dra_entry *)object)->version;
}

const char *dra_object_origin(const void *object)
{
	return ((const struct dra_entry *)object)->origin;
}

/* ---- snapshots ----------------------------------------------------------- */

static void snap_publish_arrays(struct dra_snap *snap)
{
	int k;

	for (k = 0; k < DRA_KIND_COUNT; k++) {
		size_t i;

		snap->typed[k] = xcalloc(snap->nkinds[k] + 1, sizeof *snap->typed[k]);
		for (i = 0; i < snap->nkinds[k]; i++)
			snap->typed[k][i] = &snap->kinds[k][i]->u;
	}
	snap->pub.classes = (const struct dra_class *const *)snap->typed[DRA_KIND_CLASS];
	snap->pub.nclasses = snap->nkinds[DRA_KIND_CLASS];
	snap->pub.claims = (const struct dra_claim *const *)snap->typed[DRA_KIND_CLAIM];
	snap->pub.nclaims = snap->nkinds[DRA_KIND_CLAIM];
	snap->pub.templates = (const struct dra_claim *const *)snap->typed[DRA_KIND_TEMPLATE];
	snap->pub.ntemplates = snap->nkinds[DRA_KIND_TEMPLATE];
}

static void snap_unref(struct dra_snap *snap)
{
	int k;
	size_t i;

	if (snap == NULL || atomic_fetch_sub_explicit(&snap->refs, 1, memory_order_acq_rel) != 1)
		return;
	dra_views_release(snap);
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		for (i = 0; i < snap->nkinds[k]; i++)
			dra_entry_unref(snap->kinds[k][i]);
		free(snap->kinds[k]);
		free((void *)snap->typed[k]);
	}
	free(snap);
}

static struct dra_snap *snap_empty(void)
{
	struct dra_snap *snap = xcalloc(1, sizeof *snap);

	atomic_init(&snap->refs, 1);
	snap_publish_arrays(snap);
	dra_views_build(snap, NULL, false, false, false);
	return snap;
}

struct dra_store *dra_store_new(void)
{
	struct dra_store *s = xcalloc(1, sizeof *s);

	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->publish_lock, NULL);
	s->current = snap_empty();
	return s;
}

void dra_store_free(struct dra_store *s)
{
	if (s == NULL)
		return;
	snap_unref(s->current);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->publish_lock);
	free(s);
}

const struct dra_snapshot *dra_store_acquire(struct dra_store *s)
{
	struct dra_snap *snap;

	pthread_mutex_lock(&s->lock);
	snap = s->current;
	atomic_fetch_add_explicit(&snap->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&s->lock);
	return &snap->pub;
}

const struct dra_snapshot *dra_snapshot_ref(const struct dra_snapshot *snap)
{
	struct dra_snap *in = (struct dra_snap *)(uintptr_t)snap;

	atomic_fetch_add_explicit(&in->refs, 1, memory_order_relaxed);
	return snap;
}

void dra_snapshot_release(const struct dra_snapshot *snap)
{
	if (snap != NULL)
		snap_unref((struct dra_snap *)(uintptr_t)snap);
}

/* ---- batches ------------------------------------------------------------- */

struct dra_batch *dra_batch_new(void)
{
	return xcalloc(1, sizeof(struct dra_batch));
}

static void add_op(struct dra_batch *b, enum dra_kind k, const char *key, struct dra_entry *e)
{
	struct op *op;

	b->ops[k] = xreallocarray(b->ops[k], b->nops[k] + 1, sizeof *b->ops[k]);
	op = &b->ops[k][b->nops[k]++];
	op->key = xstrdup(key);
	op->entry = e;
	op->seq = b->seq++;
}

static struct dra_entry *entry_new(enum dra_kind k, const char *ns, const char *name,
				   const char *version, const char *origin)
{
	struct dra_entry *e = xcalloc(1, sizeof *e);
	char key[DRA_KEY_MAX];

	atomic_init(&e->refs, 1);
	e->kind = k;
	dra_key(key, sizeof key, ns, name);
	e->key = xstrdup(key);
	e->version = xstrdup(version ? version : "");
	e->origin = xstrdup(origin ? origin : "");
	return e;
}

/* Moves the size bytes of obj into a new entry of kind k and queues it. */
static void put(struct dra_batch *b, enum dra_kind k, const char *ns, const char *name, void *obj,
		size_t size, const char *version, const char *origin)
{
	struct dra_entry *e = entry_new(k, ns, name, version, origin);

	memcpy(&e->u, obj, size);
	memset(obj, 0, size);
	add_op(b, k, e->key, e);
}

void dra_batch_put_slice(struct dra_batch *b, struct dra_slice *obj, const char *version,
			 const char *origin)
{
	size_t i;

	/* Stored slices do not change: their devices' NUMA nodes and their
	 * duplicate names are worked out once here, not by every prediction. */
	for (i = 0; i < obj->ndevices; i++) {
		dra_numa_cache(&obj->devices[i]);
		dra_cel_device_prepare(&obj->devices[i], obj->driver);
	}
	dra_slice_check_duplicates(obj);
	put(b, DRA_KIND_SLICE, NULL, obj->name, obj, sizeof *obj, version, origin);
}

void dra_batch_put_class(struct dra_batch *b, struct dra_class *obj, const char *version,
			 const char *origin)
{
	put(b, DRA_KIND_CLASS, NULL, obj->name, obj, sizeof *obj, version, origin);
}

void dra_batch_put_objects(struct dra_batch *b, struct dra_objects *o, const char *version,
			   const char *origin)
{
	size_t i;

	for (i = 0; i < o->nslices; i++)
		dra_batch_put_slice(b, &o->slices[i], version, origin);
	for (i = 0; i < o->nclasses; i++)
		dra_batch_put_class(b, &o->classes[i], version, origin);
	for (i = 0; i < o->nclaims; i++)
		dra_batch_put_claim(b, &o->claims[i], version, origin);
	for (i = 0; i < o->ntemplates; i++)
		dra_batch_put_claim(b, &o->templates[i], version, origin);
}

void dra_batch_put_claim(struct dra_batch *b, struct dra_claim *obj, const char *version,
			 const char *origin)
{
	put(b, obj->from_template ? DRA_KIND_TEMPLATE : DRA_KIND_CLAIM, obj->namespace_, obj->name,
	    obj, sizeof *obj, version, origin);
}

void dra_batch_delete(struct dra_batch *b, enum dra_kind kind, const char *ns, const char *name)
{
	char key[DRA_KEY_MAX];

	dra_key(key, sizeof key, kind >= DRA_KIND_CLAIM ? ns : NULL, name);
	add_op(b, kind, key, NULL);
}

void dra_batch_replace(struct dra_batch *b, enum dra_kind kind)
{
	b->replace[kind] = true;
}

void dra_batch_keep(struct dra_batch *b, enum dra_kind kind, const char *ns, const char *name)
{
	char key[DRA_KEY_MAX];

	dra_key(key, sizeof key, kind >= DRA_KIND_CLAIM ? ns : NULL, name);
	b->keeps[kind] = xreallocarray(b->keeps[kind], b->nkeeps[kind] + 1, sizeof *b->keeps[kind]);
	b->keeps[kind][b->nkeeps[kind]++] = xstrdup(key);
}

size_t dra_batch_size(const struct dra_batch *b)
{
	size_t n = 0;
	int k;

	for (k = 0; k < DRA_KIND_COUNT; k++)
		n += b->nops[k] + (b->replace[k] ? 1 : 0);
	return n;
}

void dra_batch_free(struct dra_batch *b)
{
	int k;
	size_t i;

	if (b == NULL)
		return;
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		for (i = 0; i < b->nops[k]; i++) {
			free(b->ops[k][i].key);
			dra_entry_unref(b->ops[k][i].entry);
		}
		for (i = 0; i < b->nkeeps[k]; i++)
			free(b->keeps[k][i]);
		free(b->ops[k]);
		free(b->keeps[k]);
	}
	free(b);
}

/* ---- publishing ---------------------------------------------------------- */

static int op_cmp(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same(const struct dra_entry *a, const struct dra_entry *b)
{
	return strcmp(a->version, b->version) == 0 && strcmp(a->origin, b->origin) == 0;
}

/* Sorts the ops of a kind and keeps only the last of each key (the others'
 * entries are released); returns how many are left. */
static size_t last_ops(struct op *ops, size_t n)
{
	size_t i, out = 0;

	if (n > 1)
		qsort(ops, n, sizeof *ops, op_cmp);
	for (i = 0; i < n; i++) {
		if (i + 1 < n && strcmp(ops[i].key, ops[i + 1].key) == 0) {
			free(ops[i].key);
			dra_entry_unref(ops[i].entry);
			continue;
		}
		ops[out++] = ops[i];
	}
	return out;
}

struct merge {
	struct dra_entry **v;
	size_t n;
	bool changed;
};

static void emit(struct merge *m, struct dra_entry *e)
{
	m->v[m->n++] = e;
}

/* An old object the batch does not name: kept, unless a complete list left
 * it out (and did not keep it). */
static void old_only(struct merge *m, struct dra_entry *e, const struct dra_batch *b, int k)
{
	if (b->replace[k] && (b->nkeeps[k] == 0 ||
			      bsearch(&e->key, b->keeps[k], b->nkeeps[k], sizeof *b->keeps[k],
				      str_cmp) == NULL)) {
		m->changed = true;
		return;
	}
	dra_entry_ref(e);
	emit(m, e);
}

/* The new objects of kind k: prev's merged with the batch's ops (sorted,
 * one per key), whose entries pass to the result or are released. */
static struct merge merge_kind(const struct dra_snap *prev, struct dra_batch *b, int k)
{
	struct dra_entry **old = prev->kinds[k];
	size_t nold = prev->nkinds[k], nops = last_ops(b->ops[k], b->nops[k]), i = 0, j = 0;
	struct op *ops = b->ops[k];
	struct merge m = { xcalloc(nold + nops + 1, sizeof *m.v), 0, false };

	if (b->nkeeps[k] > 1)
		qsort(b->keeps[k], b->nkeeps[k], sizeof *b->keeps[k], str_cmp);
	while (i < nold || j < nops) {
		int cmp = i == nold ? 1 : j == nops ? -1 : strcmp(old[i]->key, ops[j].key);

		if (cmp < 0) {
			old_only(&m, old[i++], b, k);
			continue;
		}
		if (cmp == 0 && ops[j].entry != NULL && same(old[i], ops[j].entry)) {
			dra_entry_ref(old[i]);
			emit(&m, old[i]);
		} else if (ops[j].entry != NULL) {
			emit(&m, ops[j].entry);
			ops[j].entry = NULL;
			m.changed = true;
		} else if (cmp == 0) {
			m.changed = true; /* deleted */
		}
		i += cmp == 0;
		j++;
	}
	b->nops[k] = nops;
	return m;
}

uint64_t dra_store_publish(struct dra_store *s, struct dra_batch *b)
{
	struct dra_snap *prev, *snap;
	bool changed[DRA_KIND_COUNT], any = false;
	uint64_t version;
	int k;

	pthread_mutex_lock(&s->publish_lock);
	prev = s->current;
	snap = xcalloc(1, sizeof *snap);
	atomic_init(&snap->refs, 1);
	for (k = 0; k < DRA_KIND_COUNT; k++) {
		struct merge m = merge_kind(prev, b, k);

		snap->kinds[k] = m.v;
		snap->nkinds[k] = m.n;
		changed[k] = m.changed;
		any = any || m.changed;
	}
	dra_batch_free(b);
	if (!any) {
		version = prev->pub.version;
		snap_unref(snap);
		pthread_mutex_unlock(&s->publish_lock);
		return version;
	}
	snap->pub.version = prev->pub.version + 1;
	snap_publish_arrays(snap);
	dra_views_build(snap, prev, !changed[DRA_KIND_SLICE], !changed[DRA_KIND_CLAIM],
			!changed[DRA_KIND_SLICE] && !changed[DRA_KIND_CLASS]);
	pthread_mutex_lock(&s->lock);
	s->current = snap;
	pthread_mutex_unlock(&s->lock);
	version = snap->pub.version;
	atomic_fetch_add(&s->publishes, 1);
	pthread_mutex_unlock(&s->publish_lock);
	snap_unref(prev);
	return version;
}

/* ---- counts -------------------------------------------------------------- */

void dra_store_count_error(struct dra_store *s)
{
	atomic_fetch_add(&s->errors, 1);
}

void dra_store_set_ready(struct dra_store *s, bool ready)
{
	atomic_store(&s->ready, ready);
}

bool dra_store_ready(struct dra_store *s)
{
	return atomic_load(&s->ready);
}

void dra_store_stats(struct dra_store *s, struct dra_store_stats *out)
{
	const struct dra_snapshot *snap = dra_store_acquire(s);
	const struct dra_snap *in = (const struct dra_snap *)snap;
	int k;

	memset(out, 0, sizeof *out);
	out->version = snap->version;
	out->publishes = atomic_load(&s->publishes);
	out->errors = atomic_load(&s->errors);
	for (k = 0; k < DRA_KIND_COUNT; k++)
		out->objects[k] = in->nkinds[k];
	out->nodes = snap->nnodes;
	out->devices = snap->ndevices;
	out->allocated = snap->nallocated;
	dra_snapshot_release(snap);
}

void dra_store_metrics(struct dra_store *s, struct textbuf *b)
{
	static const char *const kinds[DRA_KIND_COUNT] = {
		"resourceslice", "deviceclass", "resourceclaim", "resourceclaimtemplate",
	};
	struct dra_store_stats st;
	int k;

	dra_store_stats(s, &st);
	textbuf_adds(b, "# HELP numa_extender_dra_objects DRA objects in the inventory, by kind.\n"
			"# TYPE numa_extender_dra_objects gauge\n");
	for (k = 0; k < DRA_KIND_COUNT; k++)
		textbuf_printf(b, "numa_extender_dra_objects{kind=\"%s\"} %zu\n", kinds[k], st.objects[k]);
	textbuf_printf(b,
		       "# HELP numa_extender_dra_devices Devices of all ResourceSlices.\n"
		       "# TYPE numa_extender_dra_devices gauge\n"
		       "numa_extender_dra_devices %zu\n"
		       "# HELP numa_extender_dra_allocated_devices Devices allocated to ResourceClaims (admin access and shared devices aside).\n"
		       "# TYPE numa_extender_dra_allocated_devices gauge\n"
		       "numa_extender_dra_allocated_devices %zu\n"
		       "# HELP numa_extender_dra_nodes Nodes with ResourceSlices of their own.\n"
		       "# TYPE numa_extender_dra_nodes gauge\n"
		       "numa_extender_dra_nodes %zu\n"
		       "# HELP numa_extender_dra_version Version of the DRA inventory (grows with every change).\n"
		       "# TYPE numa_extender_dra_version gauge\n"
		       "numa_extender_dra_version %llu\n"
		       "# HELP numa_extender_dra_load_errors_total DRA objects that could not be loaded.\n"
		       "# TYPE numa_extender_dra_load_errors_total counter\n"
		       "numa_extender_dra_load_errors_total %llu\n",
		       st.devices, st.allocated, st.nodes, (unsigned long long)st.version,
		       (unsigned long long)st.errors);
}
