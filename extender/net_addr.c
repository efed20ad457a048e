/* SPDX-License-Identifier: Apache-2.0 */
/* "HOST:PORT" and loopback rules (net_addr.h). */
#include "extender/net_addr.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/textbuf.h"
#include "base/xalloc.h"

/* Room for an address quoted into a message (64 bytes shown, each up to
 * \xNN). */
#define QUOTE_CAP (64 * 4 + 8)

enum err net_split_hostport(const char *text, char **host, int *port,
			    struct errmsg *msg)
{
	char q[QUOTE_CAP];
	struct textbuf t;
	const char *colon, *p;
	size_t hlen, i;
	long v = 0;

	*host = NULL;
	*port = 0;
	if (text == NULL)
		text = "";
	textbuf_init_fixed(&t, q, sizeof q);
	textbuf_quote(&t, text, strlen(text), 64, 0);
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':') {
			errmsg_set(msg, "%s: expected [V6]:PORT", q);
			return ERR_INVALID;
		}
		text++;
		hlen = (size_t)(close - text);
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (colon == NULL) {
			errmsg_set(msg, "%s: expected HOST:PORT", q);
			return ERR_INVALID;
		}
		hlen = (size_t)(colon - text);
		if (memchr(text, ':', hlen) != NULL) {
			errmsg_set(msg, "%s: an IPv6 address needs brackets ([V6]:PORT)", q);
			return ERR_INVALID;
		}
	}
	if (hlen == 0) {
		errmsg_set(msg, "%s: the host is empty", q);
		return ERR_INVALID;
	}
	for (i = 0; i < hlen; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c <= 0x20 || c >= 0x7f || c == '/' || c == '[' || c == ']') {
			errmsg_set(msg, "%s: invalid character in the host", q);
			return ERR_INVALID;
		}
	}
	p = colon + 1;
	if (*p == '\0') {
		errmsg_set(msg, "%s: expected HOST:PORT", q);
		return ERR_INVALID;
	}
	for (i = 0; p[i] != '\0'; i++) {
		if ((unsigned char)p[i] - (unsigned)'0' > 9) {
			errmsg_set(msg, "%s: the port must be a number", q);
			return ERR_INVALID;
		}
		if (v <= 65535)
			v = v * 10 + (p[i] - '0');
	}
	if (v > 65535) {
		errmsg_set(msg, "%s: the port is out of range (0..65535)", q);
		return ERR_INVALID;
	}
	*host = xstrndup(text, hlen);
	*port = (int)v;
	return ERR_OK;
}

/* Whether an address is one only this machine can connect to: 127.0.0.0/8,
 * ::1, or an IPv4-mapped 127.0.0.0/8. */
static bool loopback_sockaddr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127;
	}
	return false;
}

bool net_host_is_loopback(const char *host)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct in6_addr v6;
	struct in_addr v4;
	bool yes;

	if (host == NULL)
		return false;
	/* An address literal, as the listener will bind it. */
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &v6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&v6) ||
		       (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
	/* Of the host names only localhost, and only when every address the
	 * local resolver gives it is loopback. Any other name is refused
	 * without a lookup: whoever answers for it would decide. */
	if (strcmp(host, "localhost") != 0)
		return false;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(host, "0", &hints, &res) != 0 || res == NULL)
		return false;
	yes = true;
	for (ai = res; ai != NULL; ai = ai->ai_next)
		if (ai->ai_addr == NULL || !loopback_sockaddr(ai->ai_addr))
			yes = false;
	freeaddrinfo(res);
	return yes;
}

bool net_hostport_is_loopback(const char *hostport)
{
	char *host = NULL;
	int port = 0;
	bool yes = false;

	if (hostport == NULL)
		return false;
	if (net_split_hostport(hostport, &host, &port, NULL) == ERR_OK)
		yes = net_host_is_loopback(host);
	free(host);
	return yes;
}
