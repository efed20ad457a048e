/* SPDX-License-Identifier: Apache-2.0 */
/* A pod as the Topology Manager sees it: containers in admission order (init
 * containers in spec order, then app containers), their requests and limits as
 * exact quantities, and the QoS class. pod_spec is what the decoder in extender/
 * fills; pod_demand is what the judge consumes (which container asks which
 * resource from which hint provider). */
#ifndef TOPOLOGY_POD_H
#define TOPOLOGY_POD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "quantity.h"

enum container_kind {
	CONTAINER_INIT,    /* regular init container */
	CONTAINER_SIDECAR, /* init container with restartPolicy: Always */
	CONTAINER_APP,
};

enum qos_class {
	QOS_BEST_EFFORT,
	QOS_BURSTABLE,
	QOS_GUARANTEED,
};

struct pod_quantity {
	char *name;
	struct quantity q;
};

struct pod_container {
	char *name;
	enum container_kind kind;
	struct pod_quantity *requests;
	size_t nrequests;
	struct pod_quantity *limits;
	size_t nlimits;
};

/* Decoded v1.Pod. Containers are stored in admission order: all init containers
 * (regular and sidecar, in spec order) first, then app containers. */
struct pod_spec {
	char *namespace_;               /* "default" when absent */
	char *name;
	char *uid;                      /* may be NULL */
	bool has_status_qos;            /* status.qosClass was set */
	enum qos_class status_qos;
	struct pod_container *containers;
	size_t ncontainers;
};

/* A deep copy of in (a NULL namespace becomes "default", a NULL pod or
 * container name ""); free it with pod_spec_cleanup. */
void pod_spec_copy(const struct pod_spec *in, struct pod_spec *out);
void pod_spec_cleanup(struct pod_spec *pod);

const char *qos_class_name(enum qos_class q);

#endif
