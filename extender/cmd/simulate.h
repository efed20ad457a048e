/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate --nrt PATH --pods FILE [--nodes FILE] [--running FILE]
 * [--scheduler-config FILE] [--version V] [--config FILE ...] [-o text|json]
 * [--html FILE]`: places pods in order, each through kube-scheduler's cycle
 * with numa-extender as its extender (sim_place.h), each placement taken off
 * its node, and reports placements with the nodes tied at the top,
 * unschedulable pods with kube-scheduler's reasons, and per node the NUMA
 * utilisation and fragmentation; with two --config, both outcomes side by
 * side. Exit 0, or 2 on bad input (the argument or the file and field
 * named). */
#ifndef EXTENDER_SIMULATE_H
#define EXTENDER_SIMULATE_H

int simulate_main(int argc, char **argv);

#endif
