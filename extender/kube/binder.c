/* SPDX-License-Identifier: Apache-2.0 */
/* One libcurl easy handle per call: binds are rare next to filters, and a
 * fresh handle needs no lock beyond the credentials' token re-read. */
#include "extender/kube/binder.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/kube/client.h"
#include "extender/kube/from_config.h"
#include "base/xalloc.h"

#define ANSWER_MAX ((size_t)4 << 20)

struct kube_binder {
	pthread_mutex_t lock;   /* guards creds (the token file is re-read) */
	struct kube_credentials creds;
	int64_t request_ms;
};

struct sink {
	char *p;
	size_t len;
};

static size_t sink_write(char *data, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t add = size * n;

	if (s->len + add > ANSWER_MAX)
		return 0;
	s->p = xrealloc(s->p, s->len + add + 1);
	memcpy(s->p + s->len, data, add);
	s->len += add;
	s->p[s->len] = '\0';
	return add;
}

/* Names travel in paths: the API server's names are DNS labels and
 * subdomains, but a request body could carry anything. */
static bool path_safe(const char *s)
{
	if (s == NULL || *s == '\0' || strlen(s) > 253)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			return false;
	return true;
}

static void call(struct kube_binder *b, const char *path, const char *post, struct kube_answer *out,
		 struct errmsg *msg)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = NULL;
	struct sink sink = { xstrdup(""), 0 };
	char *url = xmalloc(strlen(b->creds.server) + strlen(path) + 1);
	enum err rc;
	CURLcode cc;

	out->status = -1;
	sprintf(url, "%s%s", b->creds.server, path);
	pthread_mutex_lock(&b->lock);
	rc = kube_apply(&b->creds, curl, &headers, msg);
	pthread_mutex_unlock(&b->lock);
	if (rc != ERR_OK)
		goto done;
	headers = curl_slist_append(headers, "Accept: application/json");
	if (post)
		headers = curl_slist_append(headers, "Content-Type: application/json");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)b->request_ms);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "numa-extender");
	if (post)
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post);
	cc = curl_easy_perform(curl);
	if (cc != CURLE_OK)
		errmsg_set(msg, "%s: %s", url, curl_easy_strerror(cc));
	else
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
done:
	out->body = sink.p;
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	free(url);
}

/* Whether ns and name may go into a path; when not, out says so (400). */
static bool names_ok(const char *ns, const char *name, const char *what, struct kube_answer *out,
		     struct errmsg *msg)
{
	if (path_safe(ns) && path_safe(name))
		return true;
	errmsg_set(msg, "not a valid %s name or namespace", what);
	out->status = 400;
	out->body = xstrdup("");
	return false;
}

void kube_get_pod(struct kube_binder *b, const char *ns, const char *name, struct kube_answer *out,
		  struct errmsg *msg)
{
	char path[640];

	if (!names_ok(ns, name, "pod", out, msg))
		return;
	snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s", ns, name);
	call(b, path, NULL, out, msg);
}

void kube_get_resource_claim(struct kube_binder *b, const char *ns, const char *name,
			     struct kube_answer *out, struct errmsg *msg)
{
	char path[640];

	if (!names_ok(ns, name, "claim", out, msg))
		return;
	snprintf(path, sizeof path, "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s", ns, name);
	call(b, path, NULL, out, msg);
}

void kube_create_binding(struct kube_binder *b, const char *ns, const char *name, const char *uid,
			 const char *node, struct kube_answer *out, struct errmsg *msg)
{
	struct json_object *o = json_object_new_object(), *meta = json_object_new_object(),
			   *target = json_object_new_object();
	char path[640];

	if (!names_ok(ns, name, "pod", out, msg)) {
		json_object_put(o);
		json_object_put(meta);
		json_object_put(target);
		return;
	}
	json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(o, "kind", json_object_new_string("Binding"));
	json_object_object_add(meta, "name", json_object_new_string(name));
	json_object_object_add(meta, "namespace", json_object_new_string(ns));
	if (uid && *uid)
		json_object_object_add(meta, "uid", json_object_new_string(uid));
	json_object_object_add(o, "metadata", meta);
	json_object_object_add(target, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(target, "kind", json_object_new_string("Node"));
	json_object_object_add(target, "name", json_object_new_string(node));
	json_object_object_add(o, "target", target);
	snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
	call(b, path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), out, msg);
	json_object_put(o);
}

enum err kube_binder_new(const struct config *cfg, struct kube_binder **out, struct errmsg *msg)
{
	struct kube_binder *b = xcalloc(1, sizeof *b);
	enum err rc;

	*out = NULL;
	rc = kube_credentials_for(cfg, &b->creds, msg);
	if (rc != ERR_OK) {
		kube_credentials_cleanup(&b->creds);
		free(b);
		return rc;
	}
	pthread_mutex_init(&b->lock, NULL);
	/* kube-scheduler gives a bind its httpTimeout (seconds, typically):
	 * a call that outlives it only ties up a request thread. */
	b->request_ms = cfg->request_timeout_ms < 5000 ? cfg->request_timeout_ms : 5000;
	*out = b;
	return ERR_OK;
}

void kube_binder_free(struct kube_binder *b)
{
	if (b == NULL)
		return;
	kube_credentials_cleanup(&b->creds);
	pthread_mutex_destroy(&b->lock);
	free(b);
}
