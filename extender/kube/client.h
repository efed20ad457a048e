/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials for the Kubernetes API and their application to a libcurl
 * handle: in-cluster (service-account token re-read when it changes, CA
 * bundle, KUBERNETES_SERVICE_HOST/PORT) or a kubeconfig (current context;
 * http or https; CA file or data; insecure-skip-tls-verify; client
 * certificate and key as files or data; bearer token or token file).
 * Exec plugins and auth providers are not supported and say so. */
#ifndef EXTENDER_KUBE_CLIENT_H
#define EXTENDER_KUBE_CLIENT_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "base/err.h"

struct kube_credentials {
	char *server;              /* "https://10.0.0.1:443", no trailing slash */
	char *ca_file;
	char *ca_data;             /* PEM bytes */
	size_t ca_len;
	bool insecure;
	char *cert_file, *key_file;
	char *cert_data, *key_data;
	size_t cert_len, key_len;
	char *token;               /* the current bearer token */
	char *token_file;          /* re-read when its mtime/size/inode change */
	struct timespec token_mtime;
	off_t token_size;
	ino_t token_ino;
};

/* The service account of the pod we run in. The directory is
 * /var/run/secrets/kubernetes.io/serviceaccount unless
 * NUMA_EXTENDER_SERVICEACCOUNT_DIR names another (tests). */
enum err kube_credentials_in_cluster(struct kube_credentials *out, struct errmsg *msg);
enum err kube_credentials_from_kubeconfig(const char *path, struct kube_credentials *out,
					  struct errmsg *msg);
void kube_credentials_cleanup(struct kube_credentials *c);

/* Sets TLS and authentication on curl and appends the Authorization header
 * to *headers (re-reading the token file first if it changed). */
enum err kube_apply(struct kube_credentials *c, CURL *curl, struct curl_slist **headers,
		    struct errmsg *msg);

/* Standard base64 (RFC 4648) into a new buffer; ERR_PARSE on bad input. */
enum err kube_base64_decode(const char *in, size_t len, char **out, size_t *outlen);

#endif
