/* SPDX-License-Identifier: Apache-2.0 */
/* `simulate --html FILE`: one self-contained page of the run(s) — inline SVG
 * and CSS, no script, nothing fetched from elsewhere, so it opens offline
 * and can be attached to a pull request. It shows, per node, each NUMA
 * zone's allocatable against what is used of cpu, memory and every device
 * before and after the placements; the cluster's fragmentation (free
 * capacity no single NUMA node offers); the placement table with the nodes
 * tied at the top; and for two configurations, the pods placed differently
 * and how their scores changed. Every name from the input is HTML-escaped. */
#ifndef EXTENDER_SIMULATE_HTML_H
#define EXTENDER_SIMULATE_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "extender/cmd/sim_place.h"

/* The page as a heap string (*len its length), or NULL when it would pass
 * the builder's ceiling (msg says so). */
char *simulate_html_page(const struct sim_run *runs, size_t nruns, const struct sched_pod *pods,
			 size_t npods, bool has_running, size_t *len, struct errmsg *msg);

/* simulate_html_page written to path (replaced whole, created 0644). */
enum err simulate_html_write(const char *path, const struct sim_run *runs, size_t nruns,
			     const struct sched_pod *pods, size_t npods, bool has_running,
			     struct errmsg *msg);

#endif
