/* SPDX-License-Identifier: Apache-2.0 */
/* A small libcurl client for the integration tests: one keep-alive handle
 * per client, optional TLS with a client certificate. */
#ifndef TESTS_HTTP_CLIENT_H
#define TESTS_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct http_client;

struct http_response {
	long status;
	char *body;        /* NUL-terminated, malloc'd */
	size_t len;
	int curl_error;    /* CURLcode; 0 when the request completed */
};

/* tls: "https" with ca (server verification) and an optional client cert. */
struct http_client *http_client_new(const char *ca, const char *cert, const char *key);
void http_client_free(struct http_client *c);
/* Sends "Authorization: Bearer <token>" with every later request (NULL: stop). */
void http_client_set_bearer(struct http_client *c, const char *token);
/* body NULL: GET. chunked: send without Content-Length. */
void http_request(struct http_client *c, const char *method, const char *url, const char *body,
		  size_t len, bool chunked, struct http_response *out);
void http_response_cleanup(struct http_response *r);

/* Reads a whole file (tests only; aborts on error). */
char *read_file_or_die(const char *path, size_t *len);

#endif
