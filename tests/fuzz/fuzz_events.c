/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: what an API server (or whoever stands in for it) can send
 * on its watches. The input is a chunk size byte, then a
 * NodeResourceTopology watch stream and a Pod watch stream separated by the
 * first NUL byte. Both go through the reflector's line handling into the
 * sources, the store and the assumed-pod ledger (NRT, pods — as the bound-pod
 * watch and again as the failed-pod watch of kubelet rejections —, the NRT again so
 * that fingerprints and TTLs flush); pods bound with DRA claims are held
 * against a small DRA inventory (tests/support/dra_sample.h) under
 * dra.alignment: require; then a filter judges a fixed pod with a GPU
 * claim on every node the store holds, and /ledger renders. Invariants: the filter
 * reply is JSON naming every node once; the ledger's JSON parses. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/decide/dra_assume.h"
#include "extender/http/handlers.h"
#include "extender/inventory/ledger.h"
#include "extender/log.h"
#include "extender/decide/settings.h"
#include "extender/inventory/source_kube.h"
#include "extender/inventory/source_pods.h"
#include "extender/inventory/store.h"
#include "base/textbuf.h"
#include "extender/codec/json_write.h"
#include "tests/support/dra_sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char pod_json[] =
	"{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{\"resourceClaims\":"
	"[{\"name\":\"g\",\"resourceClaimName\":\"gpu\"}],\"containers\":[{\"name\":\"c\","
	"\"resources\":{\"claims\":[{\"name\":\"g\"}],\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"},"
	"\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"}}}]}}";

static void check_filter(const struct handler_ctx *h, struct store *store)
{
	struct store_set *set = store_acquire(store);
	struct textbuf b;
	struct reply r;
	struct json_object *o, *names;
	size_t i, n = store_size(set);

	textbuf_init(&b, (size_t)64 << 20);
	textbuf_printf(&b, "{\"Pod\":%s,\"NodeNames\":[", pod_json);
	for (i = 0; i < n; i++) {
		if (i)
			textbuf_addc(&b, ',');
		textbuf_json_cstr(&b, store_at(set, i)->inventory->name);
	}
	textbuf_adds(&b, "]}");
	store_release(set);
	handle_filter(h, textbuf_str(&b), textbuf_len(&b), &r);
	if (r.status != 200)
		abort();
	o = json_tokener_parse(r.body);
	if (o == NULL)
		abort();
	/* Every candidate lands somewhere; names given twice are answered once. */
	names = json_object_object_get(o, "NodeNames");
	if (names && json_object_array_length(names) > n)
		abort();
	json_object_put(o);
	free(r.body);
	textbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger_options lo = { LEDGER_PREDICTED, 30000, 600000, false };
	const char *text = (const char *)data + 1;
	const char *nul;
	size_t chunk, nrt_len, pods_len;
	struct settings_holder holder;
	struct handler_ctx ctx;
	struct source_kube *nrt;
	struct source_pods *pods;
	struct ledger *ledger;
	struct dra_store *dra;
	struct dra_assume *assumed;
	struct store *store;
	struct config cfg;
	struct json_object *o;
	char *json;

	log_set_level(LOG_LEVEL_ERROR);
	if (size < 2)
		return 0;
	chunk = ((size_t)data[0] + 1) * 16; /* 16 B .. 4 KiB, as curl delivers */
	nul = memchr(text, '\0', size - 1);
	nrt_len = nul ? (size_t)(nul - text) : size - 1;
	pods_len = nul ? size - 2 - nrt_len : 0;
	store = store_new();
	ledger = ledger_new(store, &lo);
	nrt = source_kube_detached(store);
	pods = source_pods_detached(ledger);
	config_init(&cfg);
	cfg.dra_enabled = true;
	cfg.dra_alignment = CONFIG_DRA_REQUIRE;
	settings_holder_init(&holder, settings_new(&cfg));
	dra = dra_sample_store();
	assumed = dra_assume_new(30000, 0);
	source_pods_set_dra(pods, assumed, dra, &holder);
	ledger_list_begin(ledger);
	ledger_list_end(ledger, true);
	source_kube_feed(nrt, text, nrt_len, chunk);
	if (nul) {
		source_pods_feed(pods, nul + 1, pods_len, chunk);
		/* The same bytes as the failed-pod watch: kubelet rejections. */
		source_pods_feed_failed(pods, nul + 1, pods_len, chunk);
	}
	source_kube_feed(nrt, text, nrt_len, chunk + 7);
	memset(&ctx, 0, sizeof ctx);
	ctx.dra = dra;
	ctx.dra_assumed = assumed;
	ctx.store = store;
	ctx.settings = &holder;
	ctx.ledger = ledger;
	check_filter(&ctx, store);
	json = ledger_json(ledger, NULL);
	o = json_tokener_parse(json);
	if (o == NULL)
		abort();
	json_object_put(o);
	free(json);
	settings_holder_cleanup(&holder);
	config_cleanup(&cfg);
	source_pods_stop(pods);
	source_kube_stop(nrt);
	dra_assume_free(assumed);
	dra_store_free(dra);
	ledger_free(ledger);
	store_free(store);
	return 0;
}
