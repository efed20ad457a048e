/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl client for tests. */
#include "tests/support/http_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct http_client {
	CURL *curl;
	char *authorization;  /* "Authorization: Bearer ..." or NULL */
};

struct upload {
	const char *p;
	size_t left;
};

static size_t on_write(char *data, size_t size, size_t n, void *arg)
{
	struct http_response *r = arg;
	size_t add = size * n;

	r->body = realloc(r->body, r->len + add + 1);
	memcpy(r->body + r->len, data, add);
	r->len += add;
	r->body[r->len] = '\0';
	return add;
}

static size_t on_read(char *buf, size_t size, size_t n, void *arg)
{
	struct upload *u = arg;
	size_t take = size * n < u->left ? size * n : u->left;

	/* Small pieces, so a chunked body really arrives in chunks. */
	if (take > 4096)
		take = 4096;
	memcpy(buf, u->p, take);
	u->p += take;
	u->left -= take;
	return take;
}

struct http_client *http_client_new(const char *ca, const char *cert, const char *key)
{
	struct http_client *c = calloc(1, sizeof *c);

	c->curl = curl_easy_init();
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 30L);
	if (ca)
		curl_easy_setopt(c->curl, CURLOPT_CAINFO, ca);
	if (cert) {
		curl_easy_setopt(c->curl, CURLOPT_SSLCERT, cert);
		curl_easy_setopt(c->curl, CURLOPT_SSLKEY, key);
	}
	return c;
}

void http_client_free(struct http_client *c)
{
	if (c == NULL)
		return;
	curl_easy_cleanup(c->curl);
	free(c->authorization);
	free(c);
}

void http_client_set_bearer(struct http_client *c, const char *token)
{
	free(c->authorization);
	c->authorization = NULL;
	if (token) {
		c->authorization = malloc(strlen(token) + 32);
		sprintf(c->authorization, "Authorization: Bearer %s", token);
	}
}

void http_request(struct http_client *c, const char *method, const char *url, const char *body,
		  size_t len, bool chunked, struct http_response *out)
{
	struct curl_slist *headers = NULL;
	struct upload up = { body, len };

	memset(out, 0, sizeof *out);
	out->body = calloc(1, 1);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, NULL);
	curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	if (body) {
		headers = curl_slist_append(headers, "Content-Type: application/json");
		headers = curl_slist_append(headers, "Expect:");
		curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
		if (chunked) {
			headers = curl_slist_append(headers, "Transfer-Encoding: chunked");
			curl_easy_setopt(c->curl, CURLOPT_READFUNCTION, on_read);
			curl_easy_setopt(c->curl, CURLOPT_READDATA, &up);
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, NULL);
		} else {
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
		}
	}
	if (method && strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
	if (c->authorization)
		headers = curl_slist_append(headers, c->authorization);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
	out->curl_error = (int)curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &out->status);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
}

void http_response_cleanup(struct http_response *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

long http_local_request(int port, const char *method, const char *path, const char *body, char **reply)
{
	struct http_client *c = http_client_new(NULL, NULL, NULL);
	struct http_response r;
	char url[256];
	long status;

	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
	http_request(c, method, url, body, body ? strlen(body) : 0, false, &r);
	status = r.curl_error ? -1 : r.status;
	if (reply)
		*reply = strdup(r.body ? r.body : "");
	http_response_cleanup(&r);
	http_client_free(c);
	return status;
}

bool http_local_wait_for(int port, const char *path, const char *text, int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		char *body = NULL;
		bool seen = http_local_request(port, "GET", path, NULL, &body) == 200 && strstr(body, text) != NULL;

		free(body);
		if (seen)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

char *read_file_or_die(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL) {
		perror(path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}
