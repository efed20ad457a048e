/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: whole request bodies, as kube-scheduler (or anyone who
 * reaches the port) sends them, through the filter, prioritize, bind and
 * preempt handlers with everything on: the decision log, the assumed-pod ledger, and
 * bind talking to a fake API server on loopback that holds a few unbound
 * pods. The first byte picks the verb (modulo 4); the rest is the body. A fixed
 * inventory of four nodes (2 and 4 NUMA, every policy) arrives through the
 * NRT source's watch handling; a DRA inventory (two GPUs a node, one per
 * NUMA node, one of them allocated; a class, a claim and a template in
 * namespace default) is on, under dra.alignment: require, with bind's
 * vetoes, so pods that reference claims are judged against devices.
 * Invariants: every reply has a status and a body; 200 replies to filter,
 * bind and preempt are JSON objects, to prioritize a JSON array. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extender/config.h"
#include "extender/decide/dra_veto.h"
#include "extender/decisionlog.h"
#include "extender/http/handlers.h"
#include "extender/kube/binder.h"
#include "extender/inventory/ledger.h"
#include "extender/log.h"
#include "extender/decide/settings.h"
#include "extender/inventory/source_kube.h"
#include "extender/inventory/store.h"
#include "tests/support/dra_sample.h"
#include "tests/support/fake_apiserver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ZONE(id, other, cpu, gpu)                                                              \
	"{\"name\":\"node-" #id "\",\"type\":\"Node\",\"costs\":[{\"name\":\"node-" #id           \
	"\",\"value\":10},{\"name\":\"node-" #other "\",\"value\":21}],\"resources\":["          \
	"{\"name\":\"cpu\",\"capacity\":\"16\",\"allocatable\":\"16\",\"available\":\"" cpu "\"}," \
	"{\"name\":\"memory\",\"capacity\":\"68719476736\",\"allocatable\":\"68719476736\","     \
	"\"available\":\"68719476736\"},"                                                       \
	"{\"name\":\"nvidia.com/gpu\",\"capacity\":\"2\",\"allocatable\":\"2\",\"available\":\"" \
	gpu "\"}]}"

#define NRT(name, policy, scope, zones)                                                        \
	"{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\","      \
	"\"kind\":\"NodeResourceTopology\",\"metadata\":{\"name\":\"" name "\","                 \
	"\"resourceVersion\":\"1\"},\"attributes\":[{\"name\":\"topologyManagerPolicy\","        \
	"\"value\":\"" policy "\"},{\"name\":\"topologyManagerScope\",\"value\":\"" scope "\"}],"  \
	"\"zones\":[" zones "]}}\n"

static const char inventory[] =
	NRT("w1", "single-numa-node", "container", ZONE(0, 1, "16", "2") "," ZONE(1, 0, "4", "0"))
	NRT("w2", "restricted", "pod", ZONE(0, 1, "8", "1") "," ZONE(1, 0, "8", "1"))
	NRT("w3", "best-effort", "container", ZONE(0, 1, "2", "2") "," ZONE(1, 0, "16", "0"))
	NRT("w4", "none", "container", ZONE(0, 1, "16", "2") "," ZONE(1, 0, "16", "2"));

static const char unbound_pod[] =
	"{\"metadata\":{\"uid\":\"uid-%d\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
	"{\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"},"
	"\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"}}}]},"
	"\"status\":{\"phase\":\"Pending\"}}";

static struct handler_ctx ctx;
static struct fake_apiserver *api;


static void put_pods(void)
{
	char name[16], json[sizeof unbound_pod + 16];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "p%d", i);
		snprintf(json, sizeof json, unbound_pod, i);
		fake_apiserver_pod_put(api, "default", name, json);
	}
}

static void setup(void)
{
	static struct settings_holder holder;
	static struct config cfg;
	struct fake_apiserver_options ao = { NULL, NULL, NULL, true, true, 0 };
	struct ledger_options lo = { LEDGER_PREDICTED, 30000, 600000, true };
	char kubeconfig[] = "/tmp/numa-fuzz-kc-XXXXXX", log[64];
	struct source_kube *src;
	struct errmsg msg;
	FILE *f;
	int fd;

	log_set_level(LOG_LEVEL_ERROR);
	api = fake_apiserver_start(&ao);
	if (api == NULL)
		abort();
	put_pods();
	fd = mkstemp(kubeconfig);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL)
		abort();
	fprintf(f, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		   "contexts:\n- name: t\n  context: {cluster: fake, user: u}\n"
		   "clusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:%d\n"
		   "users:\n- name: u\n  user: {}\n",
		fake_apiserver_port(api));
	fclose(f);
	config_init(&cfg);
	free(cfg.kubeconfig);
	cfg.kubeconfig = strdup(kubeconfig);
	cfg.dra_enabled = true;
	cfg.dra_alignment = CONFIG_DRA_REQUIRE;
	settings_holder_init(&holder, settings_new(&cfg));
	ctx.dra = dra_sample_store();
	ctx.veto = dra_veto_new();
	ctx.store = store_new();
	ctx.settings = &holder;
	ctx.ledger = ledger_new(ctx.store, &lo);
	ledger_list_begin(ctx.ledger);
	ledger_list_end(ctx.ledger, true);
	src = source_kube_detached(ctx.store);
	if (!source_kube_feed(src, inventory, sizeof inventory - 1, sizeof inventory))
		abort();
	source_kube_stop(src);
	snprintf(log, sizeof log, "/tmp/numa-fuzz-decisions-%d.jsonl", (int)getpid());
	if (decision_log_open(log, 1 << 20, 1, 64, &ctx.decisions, &msg) != ERR_OK)
		abort();
	if (kube_binder_new(&cfg, &ctx.binder, &msg) != ERR_OK)
		abort();
	unlink(kubeconfig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct json_object *o;
	struct reply r;
	int verb;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1)
		return 0;
	verb = data[0] % 4;
	memset(&r, 0, sizeof r);
	if (verb == 0)
		handle_filter(&ctx, (const char *)data + 1, size - 1, &r);
	else if (verb == 1)
		handle_prioritize(&ctx, (const char *)data + 1, size - 1, &r);
	else if (verb == 2)
		handle_bind(&ctx, (const char *)data + 1, size - 1, &r);
	else
		handle_preempt(&ctx, (const char *)data + 1, size - 1, &r);
	if (r.status < 200 || r.body == NULL || r.content_type == NULL)
		abort();
	if (r.status == 200) {
		o = json_tokener_parse(r.body);
		if (o == NULL || !json_object_is_type(o, verb == 1 ? json_type_array : json_type_object))
			abort();
		/* A bind that went through: the pods are unbound again for the
		 * next input, and the ledger forgets nothing it should keep. */
		if (verb == 2 && strcmp(json_object_get_string(json_object_object_get(o, "Error")), "") == 0)
			put_pods();
		json_object_put(o);
	}
	free(r.body);
	return 0;
}
