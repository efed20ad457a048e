/* SPDX-License-Identifier: Apache-2.0 */
/* API clients as the configuration asks for them (see from_config.h). */
#include "extender/kube/from_config.h"

#include <string.h>

enum err kube_credentials_for(const struct config *cfg, struct kube_credentials *out,
			      struct errmsg *msg)
{
	if (cfg->kubeconfig)
		return kube_credentials_from_kubeconfig(cfg->kubeconfig, out, msg);
	return kube_credentials_in_cluster(out, msg);
}

enum err kube_reflector_start_for(const struct config *cfg, const struct kube_reflector_ops *ops,
				  void *arg, struct kube_reflector **out, struct errmsg *msg)
{
	struct kube_credentials creds;
	struct kube_reflector_limits limits = {
		cfg->watch_idle_timeout_ms, cfg->request_timeout_ms, (size_t)cfg->max_event_bytes,
	};
	enum err rc;

	*out = NULL;
	memset(&creds, 0, sizeof creds);
	rc = kube_credentials_for(cfg, &creds, msg);
	if (rc != ERR_OK) {
		kube_credentials_cleanup(&creds);
		return rc;
	}
	return kube_reflector_start(ops, arg, &creds, &limits, out, msg);
}
