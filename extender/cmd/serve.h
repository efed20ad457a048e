/* SPDX-License-Identifier: Apache-2.0 */
/* `numa-extender serve`: process lifetime of the service — flags over the
 * config file, start order (inventory, then listeners), signals (SIGHUP
 * reloads scoring and log settings, SIGTERM/SIGINT drain and exit 0). */
#ifndef EXTENDER_SERVE_H
#define EXTENDER_SERVE_H

/* argv after "serve"; returns the exit status. */
int serve_main(int argc, char **argv);

#endif
