/* SPDX-License-Identifier: Apache-2.0 */
/* What a pod asks of each provider: QoS (qos.ComputePodQOS with API-server
 * defaulting), exclusive CPUs (guaranteedCPUs, podGuaranteedCPUs), memory
 * (getPodRequestedResources) and devices (PodLimits). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "extender/codec/pod_decode.h"
#include "topology/demand.h"

struct fixture {
	struct pod_spec pod;
	struct pod_demand *d;
};

static void load(struct fixture *f, const char *spec)
{
	char text[4096];
	struct errmsg msg;

	memset(f, 0, sizeof *f);
	snprintf(text, sizeof text, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n%s", spec);
	if (pod_decode_buffer(text, strlen(text), "pod.yaml", &f->pod, &msg) != ERR_OK)
		fail_msg("decode: %s", msg.text);
	if (pod_demand_new(&f->pod, &f->d, &msg) != ERR_OK)
		fail_msg("demand: %s", msg.text);
}

static void unload(struct fixture *f)
{
	pod_demand_free(f->d);
	pod_spec_cleanup(&f->pod);
}

static int64_t amount(const struct demand_amount *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return list[i].amount;
	return -1;
}

#define G(cpu, mem) "{requests: {cpu: \"" cpu "\", memory: " mem "}, limits: {cpu: \"" cpu "\", memory: " mem "}}"

static void demand_qos_classes(void **state)
{
	struct fixture f;

	(void)state;
	load(&f, "spec: {containers: [{name: a}]}");
	assert_int_equal(f.d->qos, QOS_BEST_EFFORT);
	unload(&f);
	load(&f, "spec: {containers: [{name: a, resources: {requests: {cpu: 1}}}]}");
	assert_int_equal(f.d->qos, QOS_BURSTABLE);
	unload(&f);
	/* Limits only: requests default to limits, so Guaranteed. */
	load(&f, "spec: {containers: [{name: a, resources: {limits: {cpu: 2, memory: 1Gi}}}]}");
	assert_int_equal(f.d->qos, QOS_GUARANTEED);
	assert_int_equal(f.d->containers[0].cpus, 2);
	unload(&f);
	/* An init container without limits makes the pod Burstable. */
	load(&f, "spec: {initContainers: [{name: i, resources: {requests: {cpu: 1}}}],"
		 " containers: [{name: a, resources: " G("2", "1Gi") "}]}");
	assert_int_equal(f.d->qos, QOS_BURSTABLE);
	assert_int_equal(f.d->containers[1].cpus, 0);
	unload(&f);
	/* Equal sums in different units still compare equal. */
	load(&f, "spec: {containers: [{name: a, resources: {requests: {cpu: 1000m, memory: 1Gi},"
		 " limits: {cpu: 1, memory: 1073741824}}}]}");
	assert_int_equal(f.d->qos, QOS_GUARANTEED);
	unload(&f);
	load(&f, "spec: {containers: [{name: a, resources: " G("2", "1Gi") "}]}\n"
		 "status: {qosClass: BestEffort}");
	assert_int_equal(f.d->qos, QOS_BEST_EFFORT);
	assert_int_equal(f.d->containers[0].cpus, 0);
	unload(&f);
}

static void demand_exclusive_cpus_follow_kubelet_rounding(void **state)
{
	struct fixture f;

	(void)state;
	load(&f, "spec: {containers: [{name: a, resources: " G("1500m", "1Gi") "},"
		 " {name: b, resources: " G("3", "1Gi") "},"
		 " {name: c, resources: " G("1.9995", "1Gi") "}]}");
	assert_int_equal(f.d->qos, QOS_GUARANTEED);
	assert_int_equal(f.d->containers[0].cpus, 0);
	assert_int_equal(f.d->containers[1].cpus, 3);
	/* Value()=2 and MilliValue()=2000 (both round up): the kubelet pins 2. */
	assert_int_equal(f.d->containers[2].cpus, 2);
	unload(&f);
}

static void demand_pod_scope_aggregates(void **state)
{
	struct fixture f;

	(void)state;
	/* init 10 > sidecar 2 + app 4 + app 3: CPUs are max(10, 9) = 10.
	 * The second init (5) counts with the sidecar before it: 7. */
	load(&f, "spec:\n"
		 "  initContainers:\n"
		 "  - {name: i1, resources: " G("10", "1Gi") "}\n"
		 "  - {name: sc, restartPolicy: Always, resources: " G("2", "3Gi") "}\n"
		 "  - {name: i2, resources: " G("5", "8Gi") "}\n"
		 "  containers:\n"
		 "  - {name: a, resources: " G("4", "1Gi") "}\n"
		 "  - {name: b, resources: " G("3", "1Gi") "}\n");
	assert_int_equal(f.d->qos, QOS_GUARANTEED);
	assert_int_equal(f.d->ncontainers, 5);
	assert_int_equal(f.d->containers[1].kind, CONTAINER_SIDECAR);
	assert_int_equal(f.d->containers[3].kind, CONTAINER_APP);
	assert_int_equal(f.d->pod_cpus, 10);
	/* memory: long-running 1+1+3 = 5Gi; init max: i2 8Gi + sidecar 3Gi = 11Gi. */
	assert_int_equal(amount(f.d->pod_memory, f.d->npod_memory, "memory"), (int64_t)11 << 30);
	unload(&f);
}

static void demand_pod_devices_follow_pod_limits(void **state)
{
	struct fixture f;

	(void)state;
	load(&f, "spec:\n"
		 "  initContainers:\n"
		 "  - {name: sc, restartPolicy: Always, resources: {limits: {example.com/dev: 1}}}\n"
		 "  - {name: i, resources: {limits: {example.com/dev: 3, nvidia.com/gpu: 2}}}\n"
		 "  containers:\n"
		 "  - {name: a, resources: {limits: {example.com/dev: 1, nvidia.com/gpu: 1}}}\n");
	/* dev: max(app 1 + sidecar 1, init 3 + sidecar 1) = 4; gpu: max(1, 2) = 2. */
	assert_int_equal(amount(f.d->pod_devices, f.d->npod_devices, "example.com/dev"), 4);
	assert_int_equal(amount(f.d->pod_devices, f.d->npod_devices, "nvidia.com/gpu"), 2);
	assert_int_equal(amount(f.d->containers[1].devices, f.d->containers[1].ndevices,
				"nvidia.com/gpu"), 2);
	/* Host-level resources are never devices. */
	unload(&f);
	load(&f, "spec: {containers: [{name: a, resources: {limits: {ephemeral-storage: 1Gi}}}]}");
	assert_int_equal(f.d->containers[0].ndevices, 0);
	unload(&f);
}

static void demand_memory_types_and_whole_bytes(void **state)
{
	struct fixture f;

	(void)state;
	load(&f, "spec: {containers: [{name: a, resources: {limits: {cpu: 1, memory: 1Gi,"
		 " hugepages-2Mi: 64Mi}}}]}");
	assert_int_equal(f.d->containers[0].nmemory, 2);
	assert_true(f.d->containers[0].memory_whole);
	assert_int_equal(amount(f.d->containers[0].memory, 2, "hugepages-2Mi"), 64 << 20);
	unload(&f);
	load(&f, "spec: {containers: [{name: a, resources: {limits: {cpu: 1, memory: 1500m}}}]}");
	assert_false(f.d->containers[0].memory_whole);
	assert_false(f.d->pod_memory_whole);
	unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(demand_qos_classes),
		cmocka_unit_test(demand_exclusive_cpus_follow_kubelet_rounding),
		cmocka_unit_test(demand_pod_scope_aggregates),
		cmocka_unit_test(demand_pod_devices_follow_pod_limits),
		cmocka_unit_test(demand_memory_types_and_whole_bytes),
	};

	return cmocka_run_group_tests_name("demand", tests, NULL, NULL);
}
