/* SPDX-License-Identifier: Apache-2.0 */
/* v1 Node objects into the scheduler model's node view (scheduler/
 * node_view.h): metadata.name and labels, spec.unschedulable and
 * spec.taints, status.allocatable. One Node, a NodeList or kubectl's List,
 * or a YAML stream of them (`kubectl get nodes -o yaml`), read as
 * extender/codec/sched_objects.h says: in a text of several nodes a bad one
 * becomes a placeholder (its `invalid` holds the message) and the rest are
 * read. Messages read "<origin>: <field path>: <problem>", e.g.
 * `nodes.yaml (node w1): spec.taints[0].effect: "NoScheduel": expected
 * NoSchedule, PreferNoSchedule or NoExecute`. Nothing is requested yet:
 * sched_nodes_add_pods adds the running pods. */
#ifndef EXTENDER_SCHED_NODE_DECODE_H
#define EXTENDER_SCHED_NODE_DECODE_H

#include <stddef.h>

#include "base/err.h"
#include "scheduler/node_view.h"

enum err sched_nodes_decode(const char *buf, size_t len, const char *origin,
			    struct sched_node **nodes, size_t *n,
			    struct errmsg *msg);
enum err sched_nodes_load(const char *path, struct sched_node **nodes,
			  size_t *n, struct errmsg *msg);

#endif
