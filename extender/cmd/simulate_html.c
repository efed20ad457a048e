/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML page of `simulate --html` (simulate_html.h). Text only through
 * the bounded builder; every name from the input through esc(). The page
 * names no URL at all: inline SVG needs no namespace in HTML, and the
 * extenders' urlPrefix values are left out of it. */
#include "extender/cmd/simulate_html.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "extender/cmd/sim_report.h"
#include "topology/bitmask.h"
#include "topology/inventory.h"

/* Ceilings: what a browser still shows at once. Past them the page says how
 * many were left out. */
#define PAGE_MAX ((size_t)64 << 20)
#define NODES_DRAWN 300
#define ROWS_SHOWN 3000
#define TIED_SHOWN 6

#define SVG_W 960
#define LABEL_W 250

static const char style[] =
	"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;"
	"color:#1d2433;background:#fff}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:2px solid #d8dde6;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}"
	".sub{color:#5a6478;margin:0 0 12px}ul.notes{margin:4px 0 10px;padding-left:20px;"
	"color:#3d4657;font-size:13px}"
	"table{border-collapse:collapse;font-size:13px;margin:4px 0 8px}"
	"th,td{border:1px solid #d8dde6;padding:3px 8px;text-align:left;vertical-align:top}"
	"th{background:#f1f4f8}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"tr.no td{background:#fdf0ef}.tie{color:#5a6478;font-size:12px}"
	".cards{display:flex;flex-wrap:wrap;gap:10px}"
	".card{border:1px solid #d8dde6;border-radius:6px;padding:6px 8px}"
	".card h4{margin:0 0 4px;font-size:13px}"
	"svg text{font-size:11px;fill:#1d2433}svg text.dim{fill:#5a6478}"
	".alloc{fill:#e9edf3}.used{fill:#4e79a7}.before{fill:#a0b6d3}.usable{fill:#59a14f}"
	".frag{fill:#f28e2b}.none{fill:none;stroke:#c3c9d4;stroke-dasharray:3 2}"
	".legend span{display:inline-block;width:11px;height:11px;margin:0 4px 0 12px;"
	"vertical-align:-1px}"
	".k-used{background:#4e79a7}.k-before{background:#a0b6d3}.k-usable{background:#59a14f}"
	".k-frag{background:#f28e2b}.k-alloc{background:#e9edf3;border:1px solid #c3c9d4}";

/* s as HTML text or attribute value: the five special characters as
 * entities, control bytes as spaces. */
static void esc(struct textbuf *t, const char *s)
{
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': textbuf_adds(t, "&amp;"); break;
		case '<': textbuf_adds(t, "&lt;"); break;
		case '>': textbuf_adds(t, "&gt;"); break;
		case '"': textbuf_adds(t, "&quot;"); break;
		case '\'': textbuf_adds(t, "&#39;"); break;
		default: textbuf_addc(t, c < 0x20 || c == 0x7f ? ' ' : (char)c); break;
		}
	}
}

/* An amount for the eye: bytes of memory and hugepages in GiB (or MiB)
 * with one decimal, counts as they are. */
static void amount(struct textbuf *t, const char *resource, int64_t v)
{
	char buf[48];

	if (resource_kind_of(resource) == RESOURCE_MEMORY && v >= ((int64_t)1 << 30))
		textbuf_printf(t, "%.1f GiB", (double)v / (double)((int64_t)1 << 30));
	else if (resource_kind_of(resource) == RESOURCE_MEMORY && v >= ((int64_t)1 << 20))
		textbuf_printf(t, "%.0f MiB", (double)v / (double)((int64_t)1 << 20));
	else {
		resource_amount_format(resource, v, buf, sizeof buf);
		esc(t, buf);
	}
}

/* x scaled to width w against of (0 when of is 0); of > 0 and 0 <= x. */
static int64_t scale(int64_t x, int64_t of, int64_t w)
{
	if (of <= 0 || x <= 0)
		return 0;
	if (x >= of)
		return w;
	/* x < of: x / of < 1, computed in double to stay clear of overflow. */
	return (int64_t)((double)x / (double)of * (double)w);
}

static void rect(struct textbuf *t, const char *cls, int64_t x, int64_t y, int64_t w, int64_t h)
{
	textbuf_printf(t, "<rect class=\"%s\" x=\"%lld\" y=\"%lld\" width=\"%lld\" height=\"%lld\"/>",
		       cls, (long long)x, (long long)y, (long long)(w < 0 ? 0 : w), (long long)h);
}

static void legend(struct textbuf *t)
{
	textbuf_adds(t, "<p class=\"legend\"><span class=\"k-used\"></span>used"
			"<span class=\"k-usable\"></span>free on one NUMA node"
			"<span class=\"k-frag\"></span>free, but no single NUMA node offers it"
			"<span class=\"k-before\"></span>used before the placements"
			"<span class=\"k-alloc\"></span>allocatable</p>\n");
}

/* One bar of the cluster view: used, then the free a single NUMA node can
 * still offer somewhere, then the fragmented rest. */
static void cluster_bar(struct textbuf *t, const struct sim_free *f, int64_t y, int64_t w)
{
	int64_t used = scale(f->used, f->allocatable, w);
	int64_t frag = scale(f->fragmented, f->allocatable, w);
	int64_t usable = w - used - frag;

	rect(t, "alloc", LABEL_W, y, w, 14);
	rect(t, "used", LABEL_W, y, used, 14);
	rect(t, "usable", LABEL_W + used, y, usable < 0 ? 0 : usable, 14);
	rect(t, "frag", LABEL_W + w - frag, y, frag, 14);
}

static void cluster_view(struct textbuf *t, const struct sim_run *r)
{
	const char **names = NULL;
	size_t n = sim_resource_names(&r->cluster, &names), i;
	int64_t w = SVG_W - LABEL_W - 10, h = (int64_t)n * 62 + 8;

	textbuf_adds(t, "<h3>Cluster: free capacity and fragmentation, before and after</h3>\n");
	if (n == 0) {
		textbuf_adds(t, "<p>No node has a NodeResourceTopology inventory.</p>\n");
		free(names);
		return;
	}
	textbuf_printf(t, "<svg width=\"%d\" height=\"%lld\" role=\"img\">", SVG_W, (long long)h);
	for (i = 0; i < n; i++) {
		struct sim_free b, a;
		int64_t y = (int64_t)i * 62 + 4;

		sim_cluster_free(&r->cluster, names[i], false, &b);
		sim_cluster_free(&r->cluster, names[i], true, &a);
		textbuf_printf(t, "<text x=\"0\" y=\"%lld\">", (long long)(y + 11));
		esc(t, names[i]);
		textbuf_printf(t, "</text><text class=\"dim\" x=\"%d\" y=\"%lld\">before</text>",
			       LABEL_W - 44, (long long)(y + 11));
		cluster_bar(t, &b, y, w);
		textbuf_printf(t, "<text class=\"dim\" x=\"%d\" y=\"%lld\">after</text>", LABEL_W - 44,
			       (long long)(y + 29));
		cluster_bar(t, &a, y + 18, w);
		textbuf_printf(t, "<text class=\"dim\" x=\"%d\" y=\"%lld\">free ", LABEL_W,
			       (long long)(y + 47));
		amount(t, names[i], b.free);
		textbuf_adds(t, " &#8594; ");
		amount(t, names[i], a.free);
		textbuf_adds(t, " of ");
		amount(t, names[i], a.allocatable);
		textbuf_adds(t, "; of the free, no single NUMA node offers ");
		amount(t, names[i], b.fragmented);
		textbuf_adds(t, " &#8594; ");
		amount(t, names[i], a.fragmented);
		textbuf_adds(t, "</text>");
	}
	textbuf_adds(t, "</svg>\n");
	legend(t);
	free(names);
}

static const char *node_of(const struct sim_run *r, size_t i)
{
	return i == SIM_UNPLACED ? NULL : r->cluster.views[i].name;
}

static void tied_cell(struct textbuf *t, const struct sim_run *r, const struct sim_placement *pl)
{
	size_t i;

	if (pl->ntied < 2)
		return;
	textbuf_adds(t, "<span class=\"tie\">tied: ");
	for (i = 0; i < pl->ntied && i < TIED_SHOWN; i++) {
		textbuf_adds(t, i ? ", " : "");
		esc(t, r->cluster.views[pl->tied[i]].name);
	}
	if (pl->ntied > TIED_SHOWN)
		textbuf_printf(t, " and %zu more", pl->ntied - TIED_SHOWN);
	textbuf_adds(t, "</span>");
}

static void placements(struct textbuf *t, const struct sim_run *r, const struct sched_pod *pods,
		       size_t npods)
{
	size_t i;

	textbuf_adds(t, "<h3>Placements, in order</h3>\n<table><tr><th>#</th><th>pod</th><th>node</th>"
			"<th>NUMA</th><th>numa-extender score</th><th>scheduler total</th>"
			"<th>tied at the top / why not placed</th></tr>\n");
	for (i = 0; i < npods && i < ROWS_SHOWN; i++) {
		const struct sim_placement *pl = &r->placed[i];
		char ids[200];

		textbuf_printf(t, "<tr%s><td class=\"num\">%zu</td><td>",
			       pl->node == SIM_UNPLACED ? " class=\"no\"" : "", i + 1);
		esc(t, pods[i].spec.namespace_);
		textbuf_addc(t, '/');
		esc(t, pods[i].spec.name);
		textbuf_adds(t, "</td><td>");
		if (pl->node == SIM_UNPLACED) {
			textbuf_adds(t, "unschedulable</td><td></td><td></td><td></td><td>");
			esc(t, pl->reason);
			textbuf_adds(t, "</td></tr>\n");
			continue;
		}
		esc(t, node_of(r, pl->node));
		bitmask_format(pl->numa_ids, ids, sizeof ids);
		textbuf_adds(t, "</td><td>");
		esc(t, ids[0] ? ids : "-");
		textbuf_printf(t, "</td><td class=\"num\">%lld</td><td class=\"num\">", (long long)pl->ext_score);
		if (pl->scored)
			textbuf_printf(t, "%lld", (long long)pl->score.total);
		else
			textbuf_adds(t, "only feasible node");
		textbuf_adds(t, "</td><td>");
		tied_cell(t, r, pl);
		if (pl->has_dra) {
			char line[2048];

			textbuf_adds(t, pl->ntied >= 2 ? "<br><span class=\"dra\">" : "<span class=\"dra\">");
			esc(t, sim_dra_line(pl, line, sizeof line));
			textbuf_adds(t, "</span>");
		}
		textbuf_adds(t, "</td></tr>\n");
	}
	textbuf_adds(t, "</table>\n");
	if (npods > ROWS_SHOWN)
		textbuf_printf(t, "<p>%zu more pods not listed.</p>\n", npods - ROWS_SHOWN);
}

/* "used/allocatable" in a zone's cell, short: memory in GiB. */
static void zone_amounts(struct textbuf *t, const char *resource, int64_t used, int64_t alloc)
{
	if (resource_kind_of(resource) == RESOURCE_MEMORY && alloc >= ((int64_t)1 << 30)) {
		textbuf_printf(t, "%.0f/%.0f GiB", (double)used / (double)((int64_t)1 << 30),
			       (double)alloc / (double)((int64_t)1 << 30));
		return;
	}
	amount(t, resource, used);
	textbuf_addc(t, '/');
	amount(t, resource, alloc);
}

/* One node's zones: a row per resource, a column per NUMA zone; in each cell
 * the allocatable as the full width, what was used before (thin) and what
 * is used after (thick). */
static void node_card(struct textbuf *t, const struct sim_run *r, size_t i)
{
	const struct sim_node *sn = &r->cluster.numa[i];
	const struct inventory_node *now = sn->now ? sn->now->inventory : NULL;
	const struct inventory_node *first = sn->first ? sn->first->inventory : NULL;
	int64_t cw, label = 210, rows = 0, y;
	int k, d;

	textbuf_adds(t, "<div class=\"card\"><h4>");
	esc(t, r->cluster.views[i].name);
	if (now == NULL) {
		textbuf_adds(t, "</h4><p>no NodeResourceTopology inventory</p></div>\n");
		return;
	}
	textbuf_printf(t, " <span class=\"tie\">%s, %s scope</span></h4>", tm_policy_name(now->policy),
		       tm_scope_name(now->scope));
	for (k = 0; k < now->nresources; k++)
		rows += now->resources[k].kind != RESOURCE_HOST;
	cw = now->numa_count > 0 ? (SVG_W - 40 - label) / now->numa_count : 0;
	if (cw > 120)
		cw = 120;
	textbuf_printf(t, "<svg width=\"%lld\" height=\"%lld\" role=\"img\">",
		       (long long)(label + cw * now->numa_count + 4), (long long)(rows * 30 + 18));
	for (d = 0; d < now->numa_count; d++) {
		textbuf_printf(t, "<text class=\"dim\" x=\"%lld\" y=\"11\">", (long long)(label + d * cw));
		esc(t, now->zone_names[d]);
		textbuf_adds(t, "</text>");
	}
	y = 18;
	for (k = 0; k < now->nresources; k++) {
		const struct inventory_resource *res = &now->resources[k];
		int fk = first ? inventory_find(first, res->name) : -1;

		if (res->kind == RESOURCE_HOST)
			continue;
		textbuf_printf(t, "<text x=\"0\" y=\"%lld\">", (long long)(y + 10));
		esc(t, res->name);
		textbuf_adds(t, "</text>");
		for (d = 0; d < now->numa_count; d++) {
			int64_t a = res->allocatable[d], x = label + d * cw, w = cw - 8;
			int64_t after = a - (res->available[d] < 0 ? 0 : res->available[d]);
			int64_t before = after;

			if (fk >= 0 && d < first->numa_count)
				before = first->resources[fk].allocatable[d] -
					 (first->resources[fk].available[d] < 0 ? 0 : first->resources[fk].available[d]);
			if (a <= 0) {
				rect(t, "none", x, y, w, 16);
				continue;
			}
			rect(t, "alloc", x, y, w, 16);
			rect(t, "before", x, y, scale(before, a, w), 4);
			rect(t, "used", x, y + 5, scale(after, a, w), 11);
			textbuf_printf(t, "<text class=\"dim\" x=\"%lld\" y=\"%lld\">", (long long)x,
				       (long long)(y + 27));
			zone_amounts(t, res->name, after, a);
			textbuf_adds(t, "</text>");
		}
		y += 30;
	}
	textbuf_adds(t, "</svg></div>\n");
}

static void nodes_view(struct textbuf *t, const struct sim_run *r)
{
	size_t *order = sim_nodes_by_name(&r->cluster), i;

	textbuf_adds(t, "<h3>Nodes: each NUMA zone, allocatable against used</h3>\n");
	legend(t);
	textbuf_adds(t, "<div class=\"cards\">\n");
	for (i = 0; i < r->cluster.n && i < NODES_DRAWN; i++)
		node_card(t, r, order[i]);
	textbuf_adds(t, "</div>\n");
	if (r->cluster.n > NODES_DRAWN)
		textbuf_printf(t, "<p>%zu more nodes not drawn (the first %d by name are).</p>\n",
			       r->cluster.n - NODES_DRAWN, NODES_DRAWN);
	free(order);
}

static void run_section(struct textbuf *t, const struct sim_run *r, const struct sched_pod *pods,
			size_t npods, bool has_running)
{
	char **lines = NULL;
	size_t n = sim_run_notes(r, has_running, true, &lines), i;

	textbuf_adds(t, "<section>\n<h2>");
	esc(t, r->label);
	textbuf_printf(t, ": %zu placed, %zu unschedulable</h2>\n<ul class=\"notes\">", r->nplaced,
		       npods - r->nplaced);
	for (i = 0; i < n; i++) {
		textbuf_adds(t, "<li>");
		esc(t, lines[i]);
		textbuf_adds(t, "</li>");
	}
	textbuf_adds(t, "</ul>\n");
	sim_notes_free(lines, n);
	cluster_view(t, r);
	placements(t, r, pods, npods);
	nodes_view(t, r);
	textbuf_adds(t, "</section>\n");
}

static void cell_of(struct textbuf *t, const struct sim_run *r, const struct sim_placement *pl)
{
	textbuf_adds(t, "<td>");
	if (pl->node == SIM_UNPLACED) {
		textbuf_adds(t, "unschedulable</td><td></td><td></td>");
		return;
	}
	esc(t, node_of(r, pl->node));
	textbuf_printf(t, "</td><td class=\"num\">%lld</td><td class=\"num\">", (long long)pl->ext_score);
	if (pl->scored)
		textbuf_printf(t, "%lld", (long long)pl->score.total);
	textbuf_adds(t, "</td>");
}

/* Two configurations: the pods placed differently, then those placed alike
 * whose scores moved. */
static void compare(struct textbuf *t, const struct sim_run *runs, const struct sched_pod *pods,
		    size_t npods)
{
	size_t i, pass, shown = 0, count[2] = { 0, 0 };

	textbuf_adds(t, "<section>\n<h2>A/B: ");
	esc(t, runs[0].label);
	textbuf_adds(t, " against ");
	esc(t, runs[1].label);
	textbuf_printf(t, "</h2>\n<p>placed %zu against %zu.</p>\n", runs[0].nplaced, runs[1].nplaced);
	for (pass = 0; pass < 2; pass++) {
		textbuf_adds(t, pass == 0 ? "<h3>Pods placed differently</h3>\n"
					  : "<h3>Pods placed alike whose scores changed</h3>\n");
		textbuf_adds(t, "<table><tr><th>pod</th><th>A: node</th><th>score</th><th>total</th>"
				"<th>B: node</th><th>score</th><th>total</th></tr>\n");
		for (i = 0; i < npods; i++) {
			const struct sim_placement *a = &runs[0].placed[i], *b = &runs[1].placed[i];
			const char *x = node_of(&runs[0], a->node), *y = node_of(&runs[1], b->node);
			bool differ = (x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0);
			bool moved = !differ && x != NULL &&
				     (a->ext_score != b->ext_score || a->score.total != b->score.total);

			if (!(pass == 0 ? differ : moved))
				continue;
			count[pass]++;
			if (shown++ >= ROWS_SHOWN)
				continue;
			textbuf_adds(t, "<tr><td>");
			esc(t, pods[i].spec.namespace_);
			textbuf_addc(t, '/');
			esc(t, pods[i].spec.name);
			textbuf_adds(t, "</td>");
			cell_of(t, &runs[0], a);
			cell_of(t, &runs[1], b);
			textbuf_adds(t, "</tr>\n");
		}
		textbuf_printf(t, "</table>\n<p>%zu pod(s).</p>\n", count[pass]);
	}
	if (shown > ROWS_SHOWN)
		textbuf_printf(t, "<p>%zu rows not listed.</p>\n", shown - ROWS_SHOWN);
	textbuf_adds(t, "</section>\n");
}

char *simulate_html_page(const struct sim_run *runs, size_t nruns, const struct sched_pod *pods,
			 size_t npods, bool has_running, size_t *len, struct errmsg *msg)
{
	struct textbuf t;
	size_t i;

	textbuf_init(&t, PAGE_MAX);
	textbuf_adds(&t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<title>numa-extender simulate</title>\n<style>");
	textbuf_adds(&t, style);
	textbuf_adds(&t, "</style></head>\n<body>\n<h1>numa-extender simulate</h1>\n");
	textbuf_printf(&t, "<p class=\"sub\">%zu pod(s) placed in order on %zu node(s), as kube-scheduler "
			   "with numa-extender as its extender would place them%s.</p>\n",
		       npods, nruns ? runs[0].cluster.n : 0,
		       nruns == 2 ? "; two numa-extender configurations side by side" : "");
	if (nruns == 2)
		compare(&t, runs, pods, npods);
	for (i = 0; i < nruns; i++)
		run_section(&t, &runs[i], pods, npods, has_running);
	textbuf_adds(&t, "</body></html>\n");
	if (textbuf_failed(&t)) {
		textbuf_free(&t);
		errmsg_set(msg, "the HTML page would pass %zu bytes", PAGE_MAX);
		return NULL;
	}
	return textbuf_take(&t, len);
}

enum err simulate_html_write(const char *path, const struct sim_run *runs, size_t nruns,
			     const struct sched_pod *pods, size_t npods, bool has_running,
			     struct errmsg *msg)
{
	size_t len = 0, off = 0;
	char *page = simulate_html_page(runs, nruns, pods, npods, has_running, &len, msg);
	int fd;

	if (page == NULL)
		return ERR_TOO_LARGE;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		errmsg_set(msg, "%s: %s", path, strerror(errno));
		free(page);
		return ERR_IO;
	}
	while (off < len) {
		ssize_t w = write(fd, page + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errmsg_set(msg, "%s: %s", path, w < 0 ? strerror(errno) : "short write");
			close(fd);
			free(page);
			return ERR_IO;
		}
		off += (size_t)w;
	}
	free(page);
	if (close(fd) != 0) {
		errmsg_set(msg, "%s: %s", path, strerror(errno));
		return ERR_IO;
	}
	return ERR_OK;
}
