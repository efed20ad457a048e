/* SPDX-License-Identifier: Apache-2.0 */
#include "dra_fixture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textbuf.h"
#include "base/xalloc.h"
#include "tests/support/sched_build.h"

/* --- the text --- */

static void bad(const char *line, const char *why)
{
	fprintf(stderr, "dra_fixture: %s: %s\n", why, line);
	abort();
}

#define PUSH(arr, n) (*(arr) = xreallocarray(*(arr), (n) + 1, sizeof **(arr)), \
		      memset(&(*(arr))[(n)], 0, sizeof **(arr)), &(*(arr))[(n)++])

static void push_str(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

static const char *opt(const char *tok, const char *key)
{
	size_t n = strlen(key);

	return strncmp(tok, key, n) == 0 && tok[n] == '=' ? tok + n + 1 : NULL;
}

/* "select:K=V" or "field:NAME" into a term. */
static bool selector_token(const char *tok, struct sched_term *t)
{
	char key[128], val[128];

	if (sscanf(tok, "select:%127[^=]=%127s", key, val) == 2) {
		sb_expr(t, 0, key, SCHED_OP_IN, val, (const char *)NULL);
		return true;
	}
	if (sscanf(tok, "field:%127s", val) == 1) {
		sb_expr(t, 1, "metadata.name", SCHED_OP_IN, val, (const char *)NULL);
		return true;
	}
	return false;
}

static enum dra_attr_type attr_type(const char *t, size_t n, const char *line)
{
	static const struct {
		const char *name;
		enum dra_attr_type type;
	} types[] = {
		{ "i", DRA_ATTR_INT }, { "b", DRA_ATTR_BOOL }, { "s", DRA_ATTR_STRING },
		{ "v", DRA_ATTR_VERSION }, { "is", DRA_ATTR_INTS }, { "bs", DRA_ATTR_BOOLS },
		{ "ss", DRA_ATTR_STRINGS }, { "vs", DRA_ATTR_VERSIONS },
	};
	size_t i;

	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].name) == n && strncmp(types[i].name, t, n) == 0)
			return types[i].type;
	bad(line, "unknown attribute type");
	return DRA_ATTR_INT;
}

/* "[DOMAIN/]ID=T:VALUE[,VALUE...]"; false when tok is no attribute. */
static bool attribute_token(struct dra_device *d, const char *driver, const char *tok,
			    const char *line)
{
	const char *eq = strchr(tok, '='), *colon, *slash, *v;
	struct dra_attribute *a;
	char *copy, *save = NULL, *part;

	if (eq == NULL || (colon = strchr(eq, ':')) == NULL || colon - eq > 3)
		return false;
	a = PUSH(&d->attributes, d->nattributes);
	slash = memchr(tok, '/', (size_t)(eq - tok));
	a->domain = slash ? xstrndup(tok, (size_t)(slash - tok)) : xstrdup(driver);
	a->name = slash ? xstrndup(slash + 1, (size_t)(eq - slash - 1))
			: xstrndup(tok, (size_t)(eq - tok));
	a->type = attr_type(eq + 1, (size_t)(colon - eq - 1), line);
	v = colon + 1;
	copy = xstrdup(v);
	for (part = strtok_r(copy, ",", &save); part != NULL; part = strtok_r(NULL, ",", &save)) {
		a->ints = xreallocarray(a->ints, a->n + 1, sizeof *a->ints);
		a->bools = xreallocarray(a->bools, a->n + 1, sizeof *a->bools);
		a->strings = xreallocarray(a->strings, a->n + 1, sizeof *a->strings);
		a->ints[a->n] = strtoll(part, NULL, 10);
		a->bools[a->n] = strcmp(part, "true") == 0;
		a->strings[a->n] = xstrdup(part);
		a->n++;
	}
	free(copy);
	if (a->n == 0)
		bad(line, "attribute without a value");
	return true;
}

static void slice_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_slice *s = PUSH(&f->slices, f->nslices);
	size_t i;

	s->name = xstrdup(tok[1]);
	s->generation = 1;
	s->slice_count = 1;
	s->selection = DRA_NODE_NAME;
	for (i = 2; i < n; i++) {
		const char *v;

		if ((v = opt(tok[i], "driver")) != NULL)
			s->driver = xstrdup(v);
		else if ((v = opt(tok[i], "pool")) != NULL)
			s->pool = xstrdup(v);
		else if ((v = opt(tok[i], "gen")) != NULL)
			s->generation = strtoll(v, NULL, 10);
		else if ((v = opt(tok[i], "count")) != NULL)
			s->slice_count = strtoll(v, NULL, 10);
		else if ((v = opt(tok[i], "node")) != NULL)
			s->node_name = xstrdup(v);
		else if (strcmp(tok[i], "all") == 0)
			s->selection = DRA_ALL_NODES;
		else if (strcmp(tok[i], "perdevice") == 0)
			s->selection = DRA_PER_DEVICE;
		else if (strcmp(tok[i], "counters") == 0)
			s->shared_counters = true;
		else if (selector_token(tok[i], &s->node_selector))
			s->selection = DRA_NODE_SELECTOR;
		else
			bad(line, "unknown slice field");
	}
	if (s->driver == NULL || s->pool == NULL)
		bad(line, "a slice needs driver= and pool=");
	if (s->selection == DRA_NODE_NAME && s->node_name == NULL)
		s->node_name = xstrdup("n1");
}

static void dev_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_slice *s;
	struct dra_device *d;
	size_t i;

	if (f->nslices == 0)
		bad(line, "a device before any slice");
	s = &f->slices[f->nslices - 1];
	d = PUSH(&s->devices, s->ndevices);
	d->name = xstrdup(tok[1]);
	d->selection = DRA_NODE_NAME;
	for (i = 2; i < n; i++) {
		const char *v;

		if ((v = opt(tok[i], "taint")) != NULL) {
			struct dra_device_taint *t = PUSH(&d->taints, d->ntaints);

			t->key = xstrdup("k");
			t->value = xstrdup("");
			t->effect = xstrdup(v);
		} else if ((v = opt(tok[i], "node")) != NULL) {
			d->node_name = xstrdup(v);
		} else if (strcmp(tok[i], "all") == 0) {
			d->selection = DRA_ALL_NODES;
		} else if (strcmp(tok[i], "consumes") == 0) {
			d->consumes_counters = true;
		} else if (strcmp(tok[i], "binding") == 0) {
			d->binding_conditions = true;
		} else if (strcmp(tok[i], "multi") == 0) {
			d->allow_multiple_allocations = true;
		} else if (selector_token(tok[i], &d->node_selector)) {
			d->selection = DRA_NODE_SELECTOR;
		} else if (!attribute_token(d, s->driver, tok[i], line)) {
			bad(line, "unknown device field");
		}
	}
}

static struct dra_request *last_request(struct dra_fixture *f, const char *line)
{
	struct dra_claim *c;

	if (f->nclaims == 0 || f->claims[f->nclaims - 1].nrequests == 0)
		bad(line, "no request to add to");
	c = &f->claims[f->nclaims - 1];
	return &c->requests[c->nrequests - 1];
}

/* class=, count=, all, admin, tolerations, capacity of a request or an
 * alternative. */
static void spec_fields(struct dra_request_spec *sp, char **tok, size_t n, const char *line)
{
	size_t i;

	sp->count = 1;
	for (i = 2; i < n; i++) {
		const char *v;

		if ((v = opt(tok[i], "class")) != NULL)
			sp->class_name = xstrdup(v);
		else if ((v = opt(tok[i], "count")) != NULL)
			sp->count = strtoll(v, NULL, 10);
		else if (strcmp(tok[i], "all") == 0)
			sp->mode = DRA_ALL;
		else if (strcmp(tok[i], "admin") == 0)
			sp->admin_access = true;
		else if (strcmp(tok[i], "tolerations") == 0)
			sp->tolerations = true;
		else if (strcmp(tok[i], "capacity") == 0)
			sp->capacity_requests = true;
		else
			bad(line, "unknown request field");
	}
}

static void req_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_claim *c;
	struct dra_request *r;
	struct dra_request_spec sp;

	if (f->nclaims == 0)
		bad(line, "a request before any claim");
	c = &f->claims[f->nclaims - 1];
	r = PUSH(&c->requests, c->nrequests);
	r->name = xstrdup(tok[1]);
	memset(&sp, 0, sizeof sp);
	spec_fields(&sp, tok, n, line);
	if (sp.class_name == NULL)
		return; /* alternatives follow */
	r->specs = xcalloc(1, sizeof *r->specs);
	r->specs[0] = sp;
	r->nspecs = 1;
	f->sel_list = &r->specs[0].selectors;
	f->sel_n = &r->specs[0].nselectors;
}

static void alt_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_request *r = last_request(f, line);
	struct dra_request_spec *sp;

	if (r->nspecs > 0 && r->subnames == NULL)
		bad(line, "alternatives of a request with a class");
	r->subnames = xreallocarray(r->subnames, r->nspecs + 1, sizeof *r->subnames);
	r->subnames[r->nspecs] = xstrdup(tok[1]);
	sp = PUSH(&r->specs, r->nspecs);
	spec_fields(sp, tok, n, line);
	f->sel_list = &sp->selectors;
	f->sel_n = &sp->nselectors;
}

static void claim_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_claim *c = PUSH(&f->claims, f->nclaims);
	struct dra_pod_claim *pc;
	const char *v;

	(void)line;
	c->namespace_ = xstrdup("default");
	c->name = xstrdup(tok[1]);
	c->uid = xstrdup(tok[1]);
	if (n > 2 && strncmp(tok[2], "allocated", 9) == 0) {
		c->allocated = true;
		if ((v = opt(tok[2], "allocated")) != NULL)
			c->allocated_node = xstrdup(v);
	}
	f->pod_claims = xreallocarray(f->pod_claims, f->nclaims, sizeof *f->pod_claims);
	pc = &f->pod_claims[f->nclaims - 1];
	memset(pc, 0, sizeof *pc);
	pc->name = xstrdup(tok[1]);
	pc->claim_name = xstrdup(tok[1]);
}

static void constraint_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_claim *c;
	struct dra_constraint *k;
	const char *slash;
	size_t i;

	if (f->nclaims == 0 || n < 3 || (slash = strchr(tok[2], '/')) == NULL)
		bad(line, "constraint match|distinct DOMAIN/ID [REQUEST...] after a claim");
	c = &f->claims[f->nclaims - 1];
	k = PUSH(&c->constraints, c->nconstraints);
	k->kind = strcmp(tok[1], "distinct") == 0 ? DRA_DISTINCT_ATTRIBUTE : DRA_MATCH_ATTRIBUTE;
	k->domain = xstrndup(tok[2], (size_t)(slash - tok[2]));
	k->name = xstrdup(slash + 1);
	for (i = 3; i < n; i++)
		push_str(&k->requests, &k->nrequests, tok[i]);
}

static void result_line(struct dra_fixture *f, char **tok, size_t n, const char *line)
{
	struct dra_claim *c;
	struct dra_result *r;
	size_t i;

	if (f->nclaims == 0 || n < 5)
		bad(line, "result REQUEST DRIVER POOL DEVICE after a claim");
	c = &f->claims[f->nclaims - 1];
	r = PUSH(&c->results, c->nresults);
	r->request = xstrdup(tok[1]);
	r->driver = xstrdup(tok[2]);
	r->pool = xstrdup(tok[3]);
	r->device = xstrdup(tok[4]);
	for (i = 5; i < n; i++) {
		if (strcmp(tok[i], "admin") == 0)
			r->admin_access = true;
		else if (strcmp(tok[i], "share") == 0)
			r->share_id = xstrdup("share-1");
		else
			bad(line, "unknown result field");
	}
}

static void node_line(struct dra_fixture *f, char **tok, size_t n)
{
	size_t i;

	free(f->node.name);
	f->node.name = xstrdup(tok[1]);
	for (i = 2; i < n; i++) {
		char *eq = strchr(tok[i], '=');

		if (eq != NULL) {
			*eq = '\0';
			sb_node_label(&f->node, tok[i], eq + 1);
		}
	}
}

static void line_load(struct dra_fixture *f, char *line)
{
	char *tok[32], *save = NULL, *p, *copy = xstrdup(line);
	size_t n = 0;

	for (p = strtok_r(line, " \t", &save); p != NULL && n < 32; p = strtok_r(NULL, " \t", &save))
		tok[n++] = p;
	if (n == 0 || tok[0][0] == '#') {
		free(copy);
		return;
	}
	if (strcmp(tok[0], "sel") == 0) {
		if (f->sel_list == NULL)
			bad(copy, "a selector before any class or request");
		push_str(f->sel_list, f->sel_n, strstr(copy, "sel") + 4);
	} else if (strcmp(tok[0], "class") == 0 && n == 2) {
		struct dra_class *c = PUSH(&f->classes, f->nclasses);

		c->name = xstrdup(tok[1]);
		f->sel_list = &c->selectors;
		f->sel_n = &c->nselectors;
	} else if (strcmp(tok[0], "node") == 0 && n >= 2) {
		node_line(f, tok, n);
	} else if (strcmp(tok[0], "slice") == 0 && n >= 2) {
		slice_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "dev") == 0 && n >= 2) {
		dev_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "claim") == 0 && n >= 2) {
		claim_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "req") == 0 && n >= 2) {
		req_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "alt") == 0 && n >= 2) {
		alt_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "constraint") == 0) {
		constraint_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "result") == 0) {
		result_line(f, tok, n, copy);
	} else if (strcmp(tok[0], "used") == 0 && n == 4) {
		dra_device_set_add(&f->allocated, tok[1], tok[2], tok[3]);
	} else if (strcmp(tok[0], "order") == 0 && n == 2 && strcmp(tok[1], "unsorted") == 0) {
		f->order = DRA_ORDER_UNSORTED;
	} else {
		bad(copy, "unknown line");
	}
	free(copy);
}

void df_load(struct dra_fixture *f, const char *text)
{
	char *all = xstrdup(text), *save = NULL, *line;
	size_t i;

	memset(f, 0, sizeof *f);
	f->node.name = xstrdup("n1");
	dra_device_set_init(&f->allocated);
	for (line = strtok_r(all, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		line_load(f, line);
	free(all);
	f->sel_list = NULL;
	f->sel_n = NULL;
	f->claim_ptrs = xcalloc(f->nclaims ? f->nclaims : 1, sizeof *f->claim_ptrs);
	for (i = 0; i < f->nclaims; i++) {
		f->claim_ptrs[i] = &f->claims[i];
		dra_device_set_add_claim(&f->allocated, &f->claims[i]);
	}
	df_index(f);
	dra_selectors_init(&f->selectors, &df_test_ops);
}

void df_index(struct dra_fixture *f)
{
	size_t i;

	dra_slice_index_free(&f->index);
	free(f->slice_ptrs);
	f->slice_ptrs = xcalloc(f->nslices + 1, sizeof *f->slice_ptrs);
	for (i = 0; i < f->nslices; i++)
		f->slice_ptrs[i] = &f->slices[i];
	dra_slice_index_build(&f->index, f->slice_ptrs, f->nslices);
}

void df_input(struct dra_fixture *f, struct dra_alloc_input *in)
{
	memset(in, 0, sizeof *in);
	in->node = &f->node;
	in->slices = &f->index;
	in->classes = f->classes;
	in->nclasses = f->nclasses;
	in->claims = f->claim_ptrs;
	in->nclaims = f->nclaims;
	in->allocated = &f->allocated;
	in->order = f->order;
	in->selectors = &f->selectors;
}

static void render_picks(struct dra_fixture *f, struct textbuf *b)
{
	size_t c, i;

	for (c = 0; c < f->result.nclaims; c++) {
		const struct dra_claim_picks *cp = &f->result.claims[c];

		textbuf_printf(b, "%s%s:", c ? "; " : "", f->claims[c].name);
		for (i = 0; i < cp->n; i++) {
			char numa[64];

			textbuf_printf(b, " %s=%s", cp->picks[i].request, cp->picks[i].device);
			if (f->show_numa)
				textbuf_printf(b, "@%s",
					       cp->picks[i].numa.known
						       ? dra_numa_text(&cp->picks[i].numa, numa, sizeof numa)
						       : "?");
		}
	}
}

const char *df_predict(struct dra_fixture *f)
{
	struct dra_alloc_input in;
	struct textbuf b;

	dra_alloc_result_free(&f->result);
	df_input(f, &in);
	dra_alloc_predict(&in, &f->result);
	textbuf_init_fixed(&b, f->text, sizeof f->text);
	switch (f->result.verdict) {
	case DRA_ALLOC_OK:
		render_picks(f, &b);
		break;
	case DRA_ALLOC_SAME_NUMA:
		textbuf_adds(&b, "sameNUMA ");
		render_picks(f, &b);
		break;
	default:
		textbuf_printf(&b, "%s: %s", dra_alloc_verdict_name(f->result.verdict),
			       f->result.why.text);
	}
	return f->text;
}

void df_free(struct dra_fixture *f)
{
	size_t i;

	dra_alloc_result_free(&f->result);
	dra_selectors_free(&f->selectors);
	dra_slice_index_free(&f->index);
	free(f->slice_ptrs);
	dra_device_set_free(&f->allocated);
	for (i = 0; i < f->nslices; i++)
		dra_slice_cleanup(&f->slices[i]);
	free(f->slices);
	for (i = 0; i < f->nclasses; i++)
		dra_class_cleanup(&f->classes[i]);
	free(f->classes);
	for (i = 0; i < f->nclaims; i++) {
		dra_claim_cleanup(&f->claims[i]);
		dra_pod_claim_cleanup(&f->pod_claims[i]);
	}
	free(f->claims);
	free(f->pod_claims);
	free(f->claim_ptrs);
	sched_node_cleanup(&f->node);
	memset(f, 0, sizeof *f);
}

const char *df_run(const char *text, bool numa)
{
	static char out[4096];
	struct dra_fixture f;

	df_load(&f, text);
	f.show_numa = numa;
	snprintf(out, sizeof out, "%s", df_predict(&f));
	df_free(&f);
	return out;
}
