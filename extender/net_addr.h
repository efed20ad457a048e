/* SPDX-License-Identifier: Apache-2.0 */
/* Network addresses as the operator writes them: "HOST:PORT" and
 * "[V6]:PORT" split into their parts, and which hosts only this machine can
 * connect to. The configuration checks its listeners with these, the server
 * binds what they split, and the command line's --listen goes through them
 * too, so every place reads an address the same way. */
#ifndef EXTENDER_NET_ADDR_H
#define EXTENDER_NET_ADDR_H

#include <stdbool.h>

#include "base/err.h"

/* Splits "HOST:PORT" / "[V6]:PORT"; ERR_INVALID when malformed, with msg
 * (optional) quoting the text and saying what is wrong. host is a new
 * string; on error it is NULL. */
enum err net_split_hostport(const char *text, char **host, int *port, struct errmsg *msg);

/* Whether only this machine can connect to host (as a listener binds it):
 * an IP address literal in 127.0.0.0/8 or ::1 (or IPv4-mapped 127/8), or
 * "localhost" when every address the local resolver gives it is one of
 * those. Any other host name is not: no lookup is made for it. */
bool net_host_is_loopback(const char *host);

/* The same for the host of a "HOST:PORT" text; false when it does not split
 * (or is NULL). */
bool net_hostport_is_loopback(const char *hostport);

#endif
