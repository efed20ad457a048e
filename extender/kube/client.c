/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes credentials: in-cluster files or a kubeconfig (read through the
 * YAML document tree), applied to libcurl handles. */
#include "extender/kube/client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extender/codec/doc.h"
#include "extender/file_read.h"
#include "base/xalloc.h"

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define TOKEN_MAX (64 * 1024)

void kube_credentials_cleanup(struct kube_credentials *c)
{
	if (c == NULL)
		return;
	free(c->server);
	free(c->ca_file);
	free(c->ca_data);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_data);
	if (c->key_data)
		memset(c->key_data, 0, c->key_len);
	free(c->key_data);
	if (c->token)
		memset(c->token, 0, strlen(c->token));
	free(c->token);
	free(c->token_file);
	memset(c, 0, sizeof *c);
}

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

enum err kube_base64_decode(const char *in, size_t len, char **out, size_t *outlen)
{
	char *buf = xmalloc(len / 4 * 3 + 4);
	unsigned acc = 0;
	size_t n = 0, i;
	int bits = 0, pad = 0;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];
		int v;

		if (ch == '\n' || ch == '\r' || ch == ' ' || ch == '\t')
			continue;
		if (ch == '=') {
			pad++;
			continue;
		}
		v = b64_value(ch);
		if (v < 0 || pad) {
			free(buf);
			return ERR_PARSE;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[n++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2) {
		free(buf);
		return ERR_PARSE;
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return ERR_OK;
}

/* Reads the token file when it changed since the last read. */
static enum err refresh_token(struct kube_credentials *c, struct errmsg *msg)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;

	if (c->token_file == NULL)
		return ERR_OK;
	if (stat(c->token_file, &st) != 0) {
		errmsg_set(msg, "%s: cannot read the bearer token: %s", c->token_file, strerror(errno));
		return ERR_IO;
	}
	if (c->token && st.st_mtim.tv_sec == c->token_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == c->token_mtime.tv_nsec && st.st_size == c->token_size &&
	    st.st_ino == c->token_ino)
		return ERR_OK;
	if (file_read_all(c->token_file, TOKEN_MAX, &buf, &len, msg) != ERR_OK)
		return ERR_IO;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (len == 0) {
		free(buf);
		errmsg_set(msg, "%s: the bearer token file is empty", c->token_file);
		return ERR_INVALID;
	}
	if (c->token)
		memset(c->token, 0, strlen(c->token));
	free(c->token);
	c->token = buf;
	c->token_mtime = st.st_mtim;
	c->token_size = st.st_size;
	c->token_ino = st.st_ino;
	return ERR_OK;
}

enum err kube_credentials_in_cluster(struct kube_credentials *out, struct errmsg *msg)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	const char *dir = getenv("NUMA_EXTENDER_SERVICEACCOUNT_DIR");
	char path[4096];
	enum err rc;

	memset(out, 0, sizeof *out);
	if (dir == NULL || *dir == '\0')
		dir = SA_DIR;
	if (host == NULL || *host == '\0' || port == NULL || *port == '\0') {
		errmsg_set(msg, "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (give inventory.kubeconfig to run outside)");
		return ERR_INVALID;
	}
	out->server = xmalloc(strlen(host) + strlen(port) + 16);
	/* An IPv6 service address needs brackets in a URL. */
	if (strchr(host, ':'))
		sprintf(out->server, "https://[%s]:%s", host, port);
	else
		sprintf(out->server, "https://%s:%s", host, port);
	snprintf(path, sizeof path, "%s/ca.crt", dir);
	out->ca_file = xstrdup(path);
	if (access(path, R_OK) != 0) {
		errmsg_set(msg, "%s: cannot read the cluster CA bundle: %s", path, strerror(errno));
		kube_credentials_cleanup(out);
		return ERR_IO;
	}
	snprintf(path, sizeof path, "%s/token", dir);
	out->token_file = xstrdup(path);
	rc = refresh_token(out, msg);
	if (rc != ERR_OK)
		kube_credentials_cleanup(out);
	return rc;
}

/* The member `key` of the list entry whose name is `name`. */
static const struct doc *named(const struct doc *list, const char *name, const char *key)
{
	size_t i;

	if (list == NULL || list->kind != DOC_ARRAY)
		return NULL;
	for (i = 0; i < list->nchildren; i++) {
		const struct doc *e = list->children[i].value;
		const struct doc *n = doc_get(e, "name");

		if (n && n->text && strcmp(n->text, name) == 0)
			return doc_get(e, key);
	}
	return NULL;
}

static const char *text(const struct doc *d, const char *key)
{
	const struct doc *v = doc_lookup(d, key);

	if (v == NULL || v->text == NULL || v->kind == DOC_ARRAY || v->kind == DOC_OBJECT)
		return NULL;
	return v->text;
}

/* Paths in a kubeconfig are relative to the file's directory. */
static char *resolve(const char *kubeconfig, const char *p)
{
	const char *slash = strrchr(kubeconfig, '/');
	char *out;

	if (p[0] == '/' || slash == NULL)
		return xstrdup(p);
	out = xmalloc((size_t)(slash - kubeconfig) + strlen(p) + 2);
	sprintf(out, "%.*s/%s", (int)(slash - kubeconfig), kubeconfig, p);
	return out;
}

static enum err data_field(const char *path, const struct doc *d, const char *key, char **out,
			   size_t *len, struct errmsg *msg)
{
	const char *t = text(d, key);

	if (t == NULL)
		return ERR_OK;
	if (kube_base64_decode(t, strlen(t), out, len) != ERR_OK) {
		errmsg_set(msg, "%s: %s: not valid base64", path, key);
		return ERR_PARSE;
	}
	return ERR_OK;
}

enum err kube_credentials_from_kubeconfig(const char *path, struct kube_credentials *out,
					  struct errmsg *msg)
{
	struct doc **docs = NULL;
	const struct doc *root, *ctx, *cluster, *user;
	const char *current, *cname, *uname, *t;
	size_t ndocs = 0, len = 0;
	char *buf = NULL;
	enum err rc = ERR_INVALID;

	memset(out, 0, sizeof *out);
	if (file_read_all(path, 4 << 20, &buf, &len, msg) != ERR_OK)
		return ERR_IO;
	if (doc_parse(buf, len, path, &docs, &ndocs, msg) != ERR_OK) {
		rc = ERR_PARSE;
		goto out;
	}
	root = ndocs ? docs[0] : NULL;
	current = text(root, "current-context");
	if (current == NULL) {
		errmsg_set(msg, "%s: current-context: missing", path);
		goto out;
	}
	ctx = named(doc_get(root, "contexts"), current, "context");
	if (ctx == NULL) {
		errmsg_set(msg, "%s: contexts: no context named \"%s\"", path, current);
		goto out;
	}
	cname = text(ctx, "cluster");
	uname = text(ctx, "user");
	cluster = cname ? named(doc_get(root, "clusters"), cname, "cluster") : NULL;
	if (cluster == NULL) {
		errmsg_set(msg, "%s: clusters: no cluster named \"%s\" (context \"%s\")", path,
			   cname ? cname : "", current);
		goto out;
	}
	t = text(cluster, "server");
	if (t == NULL || (strncmp(t, "https://", 8) != 0 && strncmp(t, "http://", 7) != 0)) {
		errmsg_set(msg, "%s: cluster \"%s\": server: expected an http:// or https:// URL", path,
			   cname);
		goto out;
	}
	out->server = xstrdup(t);
	while (out->server[0] && out->server[strlen(out->server) - 1] == '/')
		out->server[strlen(out->server) - 1] = '\0';
	if ((t = text(cluster, "certificate-authority")) != NULL)
		out->ca_file = resolve(path, t);
	if ((rc = data_field(path, cluster, "certificate-authority-data", &out->ca_data, &out->ca_len,
			     msg)) != ERR_OK)
		goto out;
	t = text(cluster, "insecure-skip-tls-verify");
	out->insecure = t && strcmp(t, "true") == 0;
	rc = ERR_INVALID;
	user = uname ? named(doc_get(root, "users"), uname, "user") : NULL;
	if (uname && user == NULL) {
		errmsg_set(msg, "%s: users: no user named \"%s\" (context \"%s\")", path, uname, current);
		goto out;
	}
	if (user) {
		if (doc_lookup(user, "exec") || doc_lookup(user, "auth-provider")) {
			errmsg_set(msg, "%s: user \"%s\": exec and auth-provider credentials are not supported; use a token, a token file or a client certificate",
				   path, uname);
			goto out;
		}
		if ((t = text(user, "token")) != NULL)
			out->token = xstrdup(t);
		if ((t = text(user, "tokenFile")) != NULL)
			out->token_file = resolve(path, t);
		if ((t = text(user, "client-certificate")) != NULL)
			out->cert_file = resolve(path, t);
		if ((t = text(user, "client-key")) != NULL)
			out->key_file = resolve(path, t);
		if ((rc = data_field(path, user, "client-certificate-data", &out->cert_data,
				     &out->cert_len, msg)) != ERR_OK ||
		    (rc = data_field(path, user, "client-key-data", &out->key_data, &out->key_len,
				     msg)) != ERR_OK)
			goto out;
		rc = ERR_INVALID;
		if ((out->cert_file || out->cert_data) != (out->key_file || out->key_data)) {
			errmsg_set(msg, "%s: user \"%s\": a client certificate needs its key (and the key its certificate)",
				   path, uname);
			goto out;
		}
	}
	rc = refresh_token(out, msg);
out:
	doc_free_all(docs, ndocs);
	free(buf);
	if (rc != ERR_OK)
		kube_credentials_cleanup(out);
	return rc;
}

enum err kube_apply(struct kube_credentials *c, CURL *curl, struct curl_slist **headers,
		    struct errmsg *msg)
{
	enum err rc = refresh_token(c, msg);

	if (rc != ERR_OK)
		return rc;
	if (c->ca_file)
		curl_easy_setopt(curl, CURLOPT_CAINFO, c->ca_file);
	if (c->ca_data) {
		struct curl_blob blob = { c->ca_data, c->ca_len, CURL_BLOB_COPY };

		curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
	}
	if (c->insecure) {
		curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (c->cert_file)
		curl_easy_setopt(curl, CURLOPT_SSLCERT, c->cert_file);
	if (c->key_file)
		curl_easy_setopt(curl, CURLOPT_SSLKEY, c->key_file);
	if (c->cert_data) {
		struct curl_blob blob = { c->cert_data, c->cert_len, CURL_BLOB_COPY };

		curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &blob);
		curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
	}
	if (c->key_data) {
		struct curl_blob blob = { c->key_data, c->key_len, CURL_BLOB_COPY };

		curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &blob);
		curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
	}
	if (c->token) {
		char *h = xmalloc(strlen(c->token) + 32);

		sprintf(h, "Authorization: Bearer %s", c->token);
		*headers = curl_slist_append(*headers, h);
		memset(h, 0, strlen(h));
		free(h);
	}
	return ERR_OK;
}
