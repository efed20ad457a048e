/* SPDX-License-Identifier: Apache-2.0 */
#include "extender/cmd/simulate_html.h"

#include <stdio.h>
#include <stdlib.h>

char *simulate_html_page(const struct sim_run *runs, size_t nruns, const struct sched_pod *pods,
			 size_t npods, bool has_running, size_t *len, struct errmsg *msg)
{
	(void)runs; (void)nruns; (void)pods; (void)npods; (void)has_running; (void)len;
	errmsg_set(msg, "not yet");
	return NULL;
}

enum err simulate_html_write(const char *path, const struct sim_run *runs, size_t nruns,
			     const struct sched_pod *pods, size_t npods, bool has_running,
			     struct errmsg *msg)
{
	(void)path;
	free(simulate_html_page(runs, nruns, pods, npods, has_running, NULL, msg));
	return ERR_IO;
}
