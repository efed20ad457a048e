/* SPDX-License-Identifier: Apache-2.0 */
/* explain --dra (explain_dra.h). */
#include "extender/cmd/explain_dra.h"

#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "dra/numa.h"
#include "extender/cmd/dra_paths.h"
#include "extender/codec/doc.h"
#include "extender/codec/dra_pod_decode.h"
#include "extender/file_read.h"

/* A line of the table holds at most this much (names are bounded by the
 * API server, but a file may hold anything). */
#define LINE_MAX_BYTES 4096

struct explain_dra {
	struct dra_store *store;
	const struct dra_snapshot *snap;
	struct dra_pod_claims claims;
	struct dra_pod *pod;
};

/* The claims of the one pod of the text (pod_load_file has read the same
 * file: it holds one document). */
static enum err claims_text(const char *buf, size_t len, const char *origin, void *arg, struct errmsg *msg)
{
	struct dra_pod_claims *out = arg;
	struct doc **docs = NULL;
	size_t ndocs = 0, i;
	enum err rc;

	rc = doc_parse(buf, len, origin, &docs, &ndocs, msg);
	if (rc != ERR_OK)
		return rc;
	rc = ERR_INVALID;
	errmsg_set(msg, "%s: no document", origin);
	for (i = 0; i < ndocs; i++) {
		if (!doc_is_null(docs[i])) {
			rc = dra_pod_claims_decode(docs[i], origin, out, msg);
			break;
		}
	}
	doc_free_all(docs, ndocs);
	return rc;
}

enum err explain_dra_open(const char *pod_path, const struct pod_spec *pod, const char *const *paths,
			  size_t npaths, enum config_dra_order order, FILE *warn, struct explain_dra **out,
			  struct errmsg *msg)
{
	struct explain_dra *e = xcalloc(1, sizeof *e);
	struct dra_pod_input in;
	enum err rc;

	*out = NULL;
	rc = dra_paths_load(paths, npaths, warn, &e->store, msg);
	if (rc == ERR_OK)
		rc = file_read_with(pod_path, FILE_READ_DOC_MAX_BYTES, claims_text, &e->claims, msg);
	if (rc != ERR_OK || e->claims.nclaims == 0) {
		explain_dra_free(e);
		return rc;
	}
	e->snap = dra_store_acquire(e->store);
	memset(&in, 0, sizeof in);
	in.snap = e->snap;
	in.claims = &e->claims;
	in.namespace_ = pod->namespace_;
	in.pod_name = pod->name;
	in.order = order == CONFIG_DRA_UNSORTED ? DRA_ORDER_UNSORTED : DRA_ORDER_SORTED;
	/* explain reads NRT objects, not Nodes: it knows no node's labels,
	 * like serve, to which kube-scheduler sends node names only. */
	in.node_labels_known = false;
	e->pod = dra_pod_new(&in);
	if (e->pod == NULL) {
		explain_dra_free(e);
		return ERR_OK;
	}
	*out = e;
	return ERR_OK;
}

void explain_dra_free(struct explain_dra *e)
{
	if (e == NULL)
		return;
	dra_pod_free(e->pod);
	if (e->snap != NULL)
		dra_snapshot_release(e->snap);
	dra_pod_claims_cleanup(&e->claims);
	dra_store_free(e->store);
	free(e);
}

const struct dra_pod *explain_dra_pod(const struct explain_dra *e)
{
	return e != NULL ? e->pod : NULL;
}

void explain_dra_judge(const struct dra_pod *p, const struct inventory_node *node, const struct verdict *kubelet, bool reach,
		       struct dra_node_verdict *out)
{
	struct sched_node n;

	memset(&n, 0, sizeof n);
	n.name = node->name;
	dra_judge(p, &n, kubelet, DRA_JUDGE_KEEP | (reach ? DRA_JUDGE_REACH : 0), out);
	/* Kept, the prediction is made even where the kubelet rejects the
	 * pod; the verdict then says so, as decide's does. */
	if (out->outcome == DRA_OUTCOME_NO_CLAIMS && !kubelet->admit)
		snprintf(out->why, sizeof out->why, "%s",
			 "the kubelet would not admit the pod: nothing to align with");
}

/* The prediction's devices, per claim: NULL when there is none. */
static const struct dra_alloc_result *picks_of(const struct dra_node_verdict *v)
{
	if (!v->kept || (v->alloc.verdict != DRA_ALLOC_OK && v->alloc.verdict != DRA_ALLOC_SAME_NUMA))
		return NULL;
	return &v->alloc;
}

static struct json_object *string_or_empty(const char *s)
{
	return json_object_new_string(s != NULL ? s : "");
}

static struct json_object *device_json(const struct dra_pick *pk)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ids = json_object_new_array();
	uint64_t m = pk->numa.known ? pk->numa.nodes : 0;
	int id;

	for (id = 0; m != 0; id++, m >>= 1)
		if (m & 1)
			json_object_array_add(ids, json_object_new_int(id));
	json_object_object_add(o, "request", string_or_empty(pk->request));
	json_object_object_add(o, "driver", string_or_empty(pk->driver));
	json_object_object_add(o, "pool", string_or_empty(pk->pool));
	json_object_object_add(o, "device", string_or_empty(pk->device));
	json_object_object_add(o, "numaNodes", ids);
	return o;
}

struct json_object *explain_dra_json(const struct dra_pod *p, const struct dra_node_verdict *v)
{
	const struct dra_alloc_result *res = picks_of(v);
	const struct dra_pod_claim *pod_claims = NULL;
	const struct dra_claim *const *claims = NULL;
	struct json_object *o = json_object_new_object();
	struct json_object *cs = json_object_new_array();
	struct json_object *aligned = NULL;
	size_t n = dra_pod_claims_resolved(p, &pod_claims, &claims), i, k;

	for (i = 0; res != NULL && i < n && i < res->nclaims; i++) {
		struct json_object *c = json_object_new_object();
		struct json_object *ds = json_object_new_array();

		for (k = 0; k < res->claims[i].n; k++)
			json_object_array_add(ds, device_json(&res->claims[i].picks[k]));
		json_object_object_add(c, "name", string_or_empty(pod_claims[i].name));
		json_object_object_add(c, "devices", ds);
		json_object_array_add(cs, c);
	}
	if (v->outcome == DRA_OUTCOME_ALIGNED || v->outcome == DRA_OUTCOME_MISALIGNED)
		aligned = json_object_new_boolean(v->outcome == DRA_OUTCOME_ALIGNED);
	json_object_object_add(o, "predictable", json_object_new_boolean(v->outcome != DRA_OUTCOME_UNPREDICTABLE));
	json_object_object_add(o, "why", json_object_new_string(v->why));
	json_object_object_add(o, "claims", cs);
	json_object_object_add(o, "aligned", aligned);
	return o;
}

/* "gpu-1 (gpu.nvidia.com) on NUMA 1": names quoted unless plain. */
static void add_device(struct textbuf *b, const struct dra_pick *pk, bool driver)
{
	char numa[96];

	dra_align_add_name(b, pk->device != NULL ? pk->device : "");
	if (driver) {
		textbuf_adds(b, " (");
		dra_align_add_name(b, pk->driver != NULL ? pk->driver : "");
		textbuf_adds(b, ")");
	}
	textbuf_printf(b, " on NUMA %s", dra_numa_text(&pk->numa, numa, sizeof numa));
}

static void put_line(FILE *out, struct textbuf *b)
{
	fprintf(out, "%s%s\n", textbuf_str(b), textbuf_failed(b) ? "..." : "");
	textbuf_reset(b);
}

void explain_dra_text(FILE *out, const struct dra_pod *p, const struct dra_node_verdict *v)
{
	const struct dra_alloc_result *res = picks_of(v);
	const struct dra_pod_claim *pod_claims = NULL;
	const struct dra_claim *const *claims = NULL;
	size_t n = dra_pod_claims_resolved(p, &pod_claims, &claims), i, k;
	struct textbuf b;

	textbuf_init(&b, LINE_MAX_BYTES);
	for (i = 0; res != NULL && i < n && i < res->nclaims; i++) {
		size_t at;

		textbuf_adds(&b, "  claim ");
		at = textbuf_len(&b);
		dra_align_add_name(&b, pod_claims[i].name);
		/* The container lines' column. */
		while (textbuf_len(&b) < at + 28 && textbuf_addc(&b, ' '))
			;
		textbuf_addc(&b, ' ');
		for (k = 0; k < res->claims[i].n; k++) {
			const struct dra_pick *pk = &res->claims[i].picks[k];

			if (k > 0)
				textbuf_adds(&b, ", ");
			dra_align_add_name(&b, pk->request != NULL ? pk->request : "");
			textbuf_adds(&b, ": ");
			add_device(&b, pk, true);
		}
		if (res->claims[i].n == 0)
			textbuf_adds(&b, "(no devices)");
		if (res->claims[i].preallocated)
			textbuf_adds(&b, " [allocated]");
		put_line(out, &b);
	}
	textbuf_adds(&b, "  dra: ");
	switch (v->outcome) {
	case DRA_OUTCOME_ALIGNED:
		textbuf_adds(&b, "aligned (");
		for (i = 0, k = 0; res != NULL && i < res->nclaims; i++) {
			size_t j;

			for (j = 0; j < res->claims[i].n; j++, k++) {
				if (k > 0)
					textbuf_adds(&b, ", ");
				add_device(&b, &res->claims[i].picks[j], false);
			}
		}
		textbuf_adds(&b, ")");
		break;
	case DRA_OUTCOME_MISALIGNED:
		textbuf_printf(&b, "misaligned%s: %s", v->unresolvable ? " (unresolvable)" : "", v->why);
		break;
	case DRA_OUTCOME_UNKNOWN_NUMA:
		textbuf_printf(&b, "unknown NUMA: %s", v->why);
		break;
	case DRA_OUTCOME_UNPREDICTABLE:
		textbuf_printf(&b, "unpredictable: %s", v->why);
		break;
	default:
		textbuf_printf(&b, "nothing to align: %s", v->why);
		break;
	}
	put_line(out, &b);
	textbuf_free(&b);
}
