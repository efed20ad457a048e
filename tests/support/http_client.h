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

/* One request on a client of its own to http://127.0.0.1:<port><path>, with
 * body (NULL: none). Returns the HTTP status, -1 when the request failed;
 * when reply is not NULL, *reply is a copy of the body ("" when there is
 * none; free it). */
long http_local_request(int port, const char *method, const char *path, const char *body, char **reply);
/* GETs path on 127.0.0.1:<port> every 50 ms, `seconds` long at most, until
 * it answers 200 with a body that holds text; false when it never did. */
bool http_local_wait_for(int port, const char *path, const char *text, int seconds);

/* Reads a whole file (tests only; aborts on error). */
char *read_file_or_die(const char *path, size_t *len);

#endif
