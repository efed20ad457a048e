/* SPDX-License-Identifier: Apache-2.0 */
/* What a pod asks of each hint provider: the QoS class, each container's
 * exclusive CPUs, memory/hugepages and device counts, and the pod-level
 * aggregates used by pod scope (init maximum vs long-running sum, sidecars on
 * the long-running side). Computed once per pod, independent of any node.
 * Names are borrowed from the pod_spec, which must outlive the demand; equal
 * names are one pointer (for the first 64 distinct names), so that the judge
 * resolves each once per node. */
#ifndef TOPOLOGY_DEMAND_H
#define TOPOLOGY_DEMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "pod.h"

struct demand_amount {
	const char *name;
	int64_t amount;          /* bytes for memory types, count for devices */
};

struct container_demand {
	const char *name;
	enum container_kind kind;
	int64_t cpus;            /* exclusive CPUs (kubelet guaranteedCPUs); 0: shared pool */
	bool has_cpu_request;
	struct demand_amount *memory;   /* memory and hugepages-* requests */
	size_t nmemory;
	bool memory_whole;       /* every memory amount is a whole number of bytes */
	struct demand_amount *devices;  /* extended resources, from limits */
	size_t ndevices;
};

struct pod_demand {
	enum qos_class qos;
	struct container_demand *containers;  /* admission order */
	size_t ncontainers;
	/* Pod scope. */
	int64_t pod_cpus;
	struct demand_amount *pod_memory;
	size_t npod_memory;
	bool pod_memory_whole;
	struct demand_amount *pod_devices;
	size_t npod_devices;
	/* Verdicts on emptied nodes, keyed by the node's whole shape (see
	 * judge.c): owned by the judge, created on first use, freed with the
	 * demand. Safe to share between threads judging with one demand. */
	struct judge_memo *_Atomic memo;
};

/* ERR_RANGE with msg when a request does not fit the kubelet's integer types. */
enum err pod_demand_new(const struct pod_spec *pod, struct pod_demand **out,
			struct errmsg *msg);
void pod_demand_free(struct pod_demand *d);

/* A canonical text of everything the judge reads from a demand: two demands
 * with the same key get the same verdict on the same node. New string. */
char *pod_demand_key(const struct pod_demand *d);

/* kubelet qos.ComputePodQOS over effective requests (requests defaulted from
 * limits, as the API server does); status.qosClass wins when set. */
enum qos_class pod_qos(const struct pod_spec *pod);

/* The effective request (request, else limit) of a container, or NULL. */
const struct quantity *container_request(const struct pod_container *c, const char *name);

#endif
