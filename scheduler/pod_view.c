/* SPDX-License-Identifier: Apache-2.0 */
/* Ownership of scheduling views of pods, and the two questions every caller
 * asks of one. */
#include "pod_view.h"

#include <stdlib.h>
#include <string.h>

static void strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void quantities_free(struct pod_quantity *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}

static void requirements_free(struct sched_requirement *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].key);
		strings_free(r[i].values, r[i].nvalues);
	}
	free(r);
}

void sched_term_cleanup(struct sched_term *t)
{
	requirements_free(t->exprs, t->nexprs);
	requirements_free(t->fields, t->nfields);
	memset(t, 0, sizeof *t);
}

void sched_pod_cleanup(struct sched_pod *pod)
{
	size_t i;

	if (pod == NULL)
		return;
	pod_spec_cleanup(&pod->spec);
	free(pod->node_name);
	free(pod->scheduler_name);
	free(pod->phase);
	for (i = 0; i < pod->nnode_selector; i++) {
		free(pod->node_selector[i].key);
		free(pod->node_selector[i].value);
	}
	free(pod->node_selector);
	for (i = 0; i < pod->nrequired; i++)
		sched_term_cleanup(&pod->required[i]);
	free(pod->required);
	for (i = 0; i < pod->npreferred; i++)
		sched_term_cleanup(&pod->preferred[i].term);
	free(pod->preferred);
	for (i = 0; i < pod->ntolerations; i++) {
		free(pod->tolerations[i].key);
		free(pod->tolerations[i].value);
	}
	free(pod->tolerations);
	quantities_free(pod->overhead, pod->noverhead);
	quantities_free(pod->pod_requests, pod->npod_requests);
	free(pod->invalid);
	memset(pod, 0, sizeof *pod);
}

void sched_pods_free(struct sched_pod *pods, size_t n)
{
	size_t i;

	if (pods == NULL)
		return;
	for (i = 0; i < n; i++)
		sched_pod_cleanup(&pods[i]);
	free(pods);
}

bool sched_pod_is_assigned(const struct sched_pod *pod)
{
	if (pod->invalid != NULL || pod->node_name == NULL || pod->node_name[0] == '\0')
		return false;
	return pod->phase == NULL ||
	       (strcmp(pod->phase, "Succeeded") != 0 && strcmp(pod->phase, "Failed") != 0);
}

const char *sched_pod_scheduler(const struct sched_pod *pod)
{
	if (pod->scheduler_name == NULL || pod->scheduler_name[0] == '\0')
		return "default-scheduler";
	return pod->scheduler_name;
}
