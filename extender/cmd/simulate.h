/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender simulate --nrt PATH --pods PATH [--config FILE ...] [-o text|json]`:
 * places pods in order as kube-scheduler with this extender would (filter,
 * prioritize, highest score, ties by node name), taking each placement's
 * predicted usage off the node (as the assumed-pod ledger does), and reports
 * placements, unschedulable pods with reasons, and per node the NUMA
 * utilisation and fragmentation. With two --config, both outcomes side by
 * side. Exit 0, or 2 on bad input. */
#ifndef EXTENDER_SIMULATE_H
#define EXTENDER_SIMULATE_H

int simulate_main(int argc, char **argv);

#endif
