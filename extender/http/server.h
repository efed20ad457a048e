/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP service (libmicrohttpd): listeners, TLS and mTLS (client
 * certificates verified here, since libmicrohttpd only requests them),
 * routing, the body cap, the network limits (a deadline for receiving each
 * request, connections per listener -- over it, the one waiting longest for
 * a request is closed to make room --, connections per client address,
 * request bytes buffered at once), and a graceful drain. Routes: POST
 * <prefix>/filter and <prefix>/prioritize; GET /healthz, /readyz, /metrics
 * (on the metrics listener when one is configured, else on the main one). */
#ifndef EXTENDER_SERVER_H
#define EXTENDER_SERVER_H

#include <stdint.h>

#include "extender/config.h"
#include "extender/http/handlers.h"
#include "base/err.h"

struct server;

/* Starts listening with cfg (copied where needed); requests go to ctx, which
 * must outlive the server. */
enum err server_start(const struct config *cfg, const struct handler_ctx *ctx,
		      struct server **out, struct errmsg *msg);
/* The port actually bound (useful with port 0). */
int server_port(const struct server *s);
int server_metrics_port(const struct server *s);
/* Stops accepting, waits for requests in flight (at most deadline_ms),
 * closes every connection and frees the server. /readyz fails from the
 * first moment. */
void server_drain_and_stop(struct server *s, int64_t deadline_ms);

#endif
