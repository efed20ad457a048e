/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender replay --log FILE [--config NEW.yaml] [-o text|json]`:
 * re-decides every logged filter and prioritize call with the logged
 * inventories and the given (else the logged) configuration, with the same
 * judge as serve, and reports which decisions change. Exit 0: nothing
 * changed; 1: something did; 2: error (a damaged line names its number). */
#ifndef EXTENDER_REPLAY_H
#define EXTENDER_REPLAY_H

int replay_main(int argc, char **argv);

#endif
