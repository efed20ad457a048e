/* SPDX-License-Identifier: Apache-2.0 */
/* Error names and the message buffer helpers. */
#include "base/err.h"

#include <stdio.h>
#include <string.h>

void errmsg_set(struct errmsg *msg, const char *fmt, ...)
{
	va_list ap;

	if (msg == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg->text, sizeof msg->text, fmt, ap);
	va_end(ap);
}

void errmsg_prefix(struct errmsg *msg, const char *fmt, ...)
{
	char head[sizeof msg->text];
	char tail[sizeof msg->text];
	va_list ap;

	if (msg == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(tail, msg->text, sizeof tail);
	{
		size_t hl = strlen(head), tl = strlen(tail);

		/* Keep the head whole; the tail is cut if both do not fit. */
		if (hl + tl >= sizeof msg->text)
			tl = sizeof msg->text - 1 - hl;
		memcpy(msg->text, head, hl);
		memcpy(msg->text + hl, tail, tl);
		msg->text[hl + tl] = '\0';
	}
}

const char *err_name(enum err e)
{
	switch (e) {
	case ERR_OK: return "ok";
	case ERR_INVALID: return "invalid";
	case ERR_PARSE: return "parse error";
	case ERR_RANGE: return "out of range";
	case ERR_TOO_LARGE: return "too large";
	case ERR_IO: return "I/O error";
	case ERR_NOT_FOUND: return "not found";
	case ERR_HTTP: return "HTTP error";
	case ERR_TIMEOUT: return "timeout";
	}
	return "unknown error";
}
