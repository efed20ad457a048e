/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/support/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		abort();
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}
