/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender replay --log FILE [--config NEW.yaml] [--scheduler-config
 * FILE] [--version V] [-o text|json]`: re-decides every logged filter and
 * prioritize call with the logged inventories and the given (else the
 * logged) configuration, with the same judge as serve, and reports which
 * decisions change and which node kube-scheduler would now take (the
 * scheduler model on the call's nodes). Exit 0: nothing changed; 1:
 * something did; 2: error (a damaged line names its number). */
#ifndef EXTENDER_REPLAY_H
#define EXTENDER_REPLAY_H

int replay_main(int argc, char **argv);

#endif
