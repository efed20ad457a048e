/* SPDX-License-Identifier: Apache-2.0 */
/* A TCP port on 127.0.0.1 that nothing listens on right now, for tests that
 * start a server process on a port of their choosing. */
#ifndef TESTS_FREE_PORT_H
#define TESTS_FREE_PORT_H

/* Aborts when no socket can be bound (the machine is broken, not the test). */
int free_port(void);

#endif
