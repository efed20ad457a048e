/* SPDX-License-Identifier: Apache-2.0 */
/* Exclusive resources: what a pod holds on its node's NUMA zones once
 * admitted, as node agents account it. Two uses in the assumed-pod ledger:
 * which pods the agents' `with-exclusive-resources` fingerprint counts, and
 * what the pessimistic ledger mode takes off every zone. Pure. */
#ifndef TOPOLOGY_EXCLUSIVE_H
#define TOPOLOGY_EXCLUSIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "demand.h"
#include "inventory.h"
#include "pod.h"

/* scheduler-plugins resourcerequests.AreExclusiveForPod, the rule node agents
 * and the NodeResourceTopologyMatch resync share: over sidecar init
 * containers and app containers (regular init containers have finished in
 * the steady state), some effective request is exclusive: a non-native
 * resource (a name with a domain other than *kubernetes.io/) that the node's
 * NRT lists; or, in a Guaranteed pod, an integral CPU request > 0, memory > 0
 * or hugepages-* > 0. node may be NULL (no NRT: no non-native resource
 * counts). */
bool pod_has_exclusive_resources(const struct pod_spec *pod, const struct inventory_node *node);

/* What the kubelet would hold for the pod, pod-wide (the pod-scope
 * aggregates): exclusive CPUs, memory and hugepages of a Guaranteed pod (the
 * static CPU and Memory Managers give nothing to other QoS classes), devices
 * of any pod. A new array of n entries, names borrowed from the demand; zero
 * amounts left out. */
size_t pod_exclusive_amounts(const struct pod_demand *d, struct demand_amount **out);

#endif
