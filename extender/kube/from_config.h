/* SPDX-License-Identifier: Apache-2.0 */
/* The API clients as the configuration asks for them: credentials from
 * cfg->kubeconfig, else in-cluster, and reflectors with cfg's watch limits.
 * Shared by every API client of the service (the NRT and pod sources, the
 * binder); client.c and reflector.c themselves know nothing of the
 * configuration. */
#ifndef EXTENDER_KUBE_FROM_CONFIG_H
#define EXTENDER_KUBE_FROM_CONFIG_H

#include "extender/config.h"
#include "extender/kube/client.h"
#include "extender/kube/reflector.h"
#include "base/err.h"

/* Credentials from cfg->kubeconfig, else in-cluster. */
enum err kube_credentials_for(const struct config *cfg, struct kube_credentials *out,
			      struct errmsg *msg);

/* A reflector with those credentials and cfg's watch limits. */
enum err kube_reflector_start_for(const struct config *cfg, const struct kube_reflector_ops *ops,
				  void *arg, struct kube_reflector **out, struct errmsg *msg);

#endif
