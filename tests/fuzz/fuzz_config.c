/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for config_load_buffer: any bytes must load or fail with
 * a message, never crash, leak or hang, and a failed load must leave the
 * config it was given as it was. The same bytes also go through
 * net_split_hostport. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extender/config.h"
#include "extender/net_addr.h"
#include "base/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errmsg msg = { { 0 } };
	struct config c, before;
	char *text, *host = NULL;
	int port = 0;

	config_init(&c);
	memcpy(&before, &c, sizeof c);
	if (config_load_buffer((const char *)data, size, "fuzz", &c, &msg) != ERR_OK) {
		if (msg.text[0] == '\0')
			__builtin_trap(); /* every error must say something */
		if (memcmp(&before, &c, sizeof c) != 0)
			__builtin_trap(); /* a failed load must not touch its output */
	}
	config_cleanup(&c);

	text = xstrndup((const char *)data, size);
	if (net_split_hostport(text, &host, &port, &msg) == ERR_OK &&
	    (host == NULL || port < 0 || port > 65535))
		__builtin_trap();
	free(host);
	free(text);
	return 0;
}
