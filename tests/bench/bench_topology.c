/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of the topology core (not a test; exits 0 whatever the numbers):
 *  1. the fast policy merge (topology/merge.c) against the kubelet's cross
 *     product on identical, provider-shaped hint lists, at 2/4/8 NUMA nodes
 *     and 2/3/4 lists, best-effort and single-numa-node; every measured input
 *     is checked for agreement (exit 1 if not);
 *  2. judge_node_ex() per node, as the filter calls it, for a 2-container
 *     Guaranteed pod at 8, 16, 32 and 64 NUMA nodes, every policy, on a node
 *     where the pod fits one NUMA node and on one where it does not (node
 *     snapshot and pod demand built once; only the judgement timed).
 * The cross product is the algorithm of tests/support/ref_merge.c, ported here
 * line by line onto lists of any length (ref_merge.c holds 8 hints per list,
 * an 8-NUMA provider list up to 255); the port is checked against
 * ref_policy_merge on every input that fits it, and on random small inputs.
 *
 * Modes: (none) the full run, about 30 s; --quick tiny iteration counts (for
 * valgrind or sanitizers); --callgrind N POLICY admit|reject exactly 1000
 * judgements of one row of part 2 and nothing else, for
 *   valgrind --tool=callgrind --toggle-collect=judge_node_ex \
 *     ./bench_topology --callgrind 16 restricted admit
 * (scripts/judge-instructions.sh runs every row that way).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/bench_machine.h"
#include "tests/support/ref_merge.h"
#include "base/xalloc.h"
#include "base/arena.h"
#include "topology/demand.h"
#include "topology/hint.h"
#include "topology/inventory.h"
#include "topology/judge.h"
#include "topology/merge.h"
#include "topology/nrt.h"
#include "topology/pod.h"
#include "topology/quantity.h"

/* --- settings, clock, random numbers, failures --- */

struct settings {
	uint64_t min_ns;          /* every timed cell runs at least this long */
	size_t pool;              /* distinct inputs per merge cell */
	size_t pool_8x4;          /* ... at 8 NUMA x 4 lists (the reference is slow) */
	double perm_budget;       /* largest cross product of one input */
	long port_checks;         /* random inputs: port vs ref_merge.c vs fast */
};

static struct settings cfg = { 200000000u, 16, 8, 2e7, 20000 };

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench_topology: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		die("clock_gettime(CLOCK_MONOTONIC) failed");
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One timed batch: reps repetitions of the measured work. */
typedef void (*batch_fn)(void *ctx, uint64_t reps);

#define ROUNDS 5

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per operation (ops operations per repetition): the repetition count is
 * grown until a batch lasts min_ns/ROUNDS, then the median of ROUNDS such
 * batches is taken (this machine may be shared: the median resists
 * interference). When a single repetition already lasts min_ns, that one
 * measurement is the answer. */
static double measure(batch_fn fn, void *ctx, uint64_t ops)
{
	uint64_t reps = 1, slice = cfg.min_ns / ROUNDS, t0, elapsed;
	double round_ns[ROUNDS];
	int r;

	for (;;) {
		t0 = now_ns();
		fn(ctx, reps);
		elapsed = now_ns() - t0;
		if (reps == 1 && elapsed >= cfg.min_ns)
			return (double)elapsed / (double)ops;
		if (elapsed >= slice)
			break;
		if (elapsed < slice / 100)
			reps *= 10;
		else
			reps = (uint64_t)((double)reps * (double)slice * 1.1 / (double)elapsed) + 1;
	}
	round_ns[0] = (double)elapsed / (double)(reps * ops);
	for (r = 1; r < ROUNDS; r++) {
		t0 = now_ns();
		fn(ctx, reps);
		round_ns[r] = (double)(now_ns() - t0) / (double)(reps * ops);
	}
	qsort(round_ns, ROUNDS, sizeof round_ns[0], by_double);
	return round_ns[ROUNDS / 2];
}

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so every run sees the same inputs. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

static int rnd_below(int k)
{
	return (int)(rnd() % (uint64_t)k);
}

static volatile uint64_t sink; /* keeps results observable */
static long official_checks;   /* measured inputs also run through ref_merge.c */

/* ======================================================================
 * Part 1: the merge.
 * ====================================================================== */

#define MAX_LISTS 4
#define MAX_HINTS 255 /* non-empty subsets of 8 NUMA nodes */
#define MAX_N 8

/* One flattened provider list, as the kubelet holds it. */
struct plist {
	struct topo_hint hints[MAX_HINTS];
	size_t nhints;
	int min_aff;
};

/* One merge input: the same lists as hint arrays (reference) and as mask
 * sets (fast merge). */
struct minput {
	size_t nlists;
	struct plist lists[MAX_LISTS];
	struct hint_list fast[MAX_LISTS];
	uint64_t *bits;            /* storage of fast[].all and fast[].pref */
	double perms_all;          /* cross product before any filtering */
	double perms_single;       /* after single-numa-node's filter */
};

static const char *const list_names[MAX_LISTS] = { "cpu", "memory", "nvidia.com/gpu",
						   "dsa.intel.com/wq-user-shared" };

static int by_value_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The count-based providers (the kubelet's cpumanager policy_static.go and
 * devicemanager topology_hints.go): a request, per-NUMA capacity and
 * availability; every non-empty subset whose available sum reaches the
 * request is a hint, preferred when its size is the minimal subset size by
 * capacity. The request is drawn among the subset sums
 * so that the list holds lo..hi hints. With must != 0, the minimal size is
 * popcount(must) and must is a (preferred) hint: the NUMA nodes of must are
 * mostly free, the others busy, as on a node where every resource of a large
 * request fits the same NUMA nodes. */
static void gen_list(int n, size_t lo, size_t hi, uint64_t must, struct plist *out)
{
	uint64_t size = (uint64_t)1 << n, m;
	long attempt;

	for (attempt = 0; attempt < 1000000L; attempt++) {
		int64_t cap[MAX_N], avail[MAX_N], top[MAX_N + 1], sums[MAX_HINTS + 1];
		int64_t sorted[MAX_HINTS + 1], total = 0, want, lo_r = 1, hi_r;
		bool device = must == 0 && rnd_below(3) == 0;
		int busy = 1 + rnd_below(4), i, j, min_aff = n;
		size_t nsums = (size_t)(size - 1), ranks[MAX_HINTS], nranks = 0, r, pref = 0;

		for (i = 0; i < n; i++) {
			/* CPU-like: 8..32 per NUMA node; device-like: 0..4. */
			cap[i] = device ? rnd_below(5) : 8 + rnd_below(25);
			if (must != 0)
				avail[i] = (must >> i) & 1u ? cap[i] - rnd_below((int)cap[i] / 4 + 1)
							    : rnd_below((int)cap[i] / 3 + 1);
			else
				avail[i] = rnd_below((int)(cap[i] / busy) + 1);
			total += avail[i];
		}
		if (total == 0)
			continue;
		/* top[k]: the k largest capacities, summed. */
		for (i = 0; i < n; i++) {
			int64_t c = cap[i];

			for (j = i; j > 0 && sorted[j - 1] < c; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = c;
		}
		top[0] = 0;
		for (i = 0; i < n; i++)
			top[i + 1] = top[i] + sorted[i];
		sums[0] = 0;
		for (m = 1; m < size; m++)
			sums[m] = sums[m & (m - 1)] + avail[__builtin_ctzll(m)];
		hi_r = total;
		if (must != 0) {
			int k = __builtin_popcountll(must);

			lo_r = top[k - 1] + 1;
			hi_r = top[k] < sums[must] ? top[k] : sums[must];
		}
		/* The request at a rank r of the subset sums: at least r hints. */
		memcpy(sorted, sums + 1, nsums * sizeof sorted[0]);
		qsort(sorted, nsums, sizeof sorted[0], by_value_desc);
		for (r = lo; r <= hi && r <= nsums; r++)
			if (sorted[r - 1] >= lo_r && sorted[r - 1] <= hi_r)
				ranks[nranks++] = r;
		if (nranks == 0)
			continue;
		want = sorted[ranks[rnd_below((int)nranks)] - 1];
		for (i = 0; i < n; i++) {
			if (top[i + 1] >= want) {
				min_aff = i + 1;
				break;
			}
		}
		out->nhints = 0;
		for (m = 1; m < size; m++) {
			bool preferred;

			if (sums[m] < want)
				continue;
			preferred = __builtin_popcountll(m) == min_aff;
			out->hints[out->nhints++] = (struct topo_hint){ m, false, preferred };
			pref += preferred;
		}
		if (out->nhints < lo || out->nhints > hi || (must != 0 && pref == 0))
			continue;
		out->min_aff = min_aff;
		return;
	}
	die("internal error: cannot generate a %d-NUMA list of %zu..%zu hints", n, lo, hi);
}

static void input_free(struct minput *in)
{
	free(in->bits);
	in->bits = NULL;
}

/* Mask-set form of the lists, as topology/providers.c builds them. */
static void input_build_fast(int n, struct minput *in)
{
	size_t words = maskset_words(n), i, k;

	input_free(in);
	in->bits = xcalloc(2 * MAX_LISTS * words, sizeof *in->bits);
	in->perms_all = 1;
	in->perms_single = 1;
	for (i = 0; i < in->nlists; i++) {
		struct hint_list *l = &in->fast[i];
		const struct plist *pl = &in->lists[i];
		size_t singles = 0;

		memset(l, 0, sizeof *l);
		l->resource = list_names[i];
		l->amount = 1;
		l->min_affinity = pl->min_aff;
		l->all = in->bits + 2 * i * words;
		l->pref = in->bits + (2 * i + 1) * words;
		for (k = 0; k < pl->nhints; k++) {
			maskset_add(l->all, pl->hints[k].mask);
			if (pl->hints[k].preferred) {
				maskset_add(l->pref, pl->hints[k].mask);
				singles += __builtin_popcountll(pl->hints[k].mask) == 1;
			}
		}
		in->perms_all *= (double)pl->nhints;
		in->perms_single *= (double)singles;
	}
}

static struct topo_hint fast_once(const struct minput *in, const struct merge_params *p,
				  bool *admit)
{
	struct hint_list work[MAX_LISTS];
	struct topo_hint h;
	struct arena a;

	/* single-numa-node filters the lists in place: merge a copy. */
	memcpy(work, in->fast, in->nlists * sizeof work[0]);
	arena_init(&a);
	h = policy_merge(p, work, in->nlists, &a, admit);
	arena_cleanup(&a);
	return h;
}

/* --- the reference cross product (tests/support/ref_merge.c), on lists of
 * any length --- */

struct port_ctx {
	int n;
	bool closest;
	const int64_t *distance;
	int best_nonpreferred;
	struct topo_hint best;
	bool have_best;
};

static double port_avg_distance(const struct port_ctx *c, uint64_t m)
{
	double sum = 0, count = 0;
	int i, j;

	for (i = 0; i < c->n; i++) {
		if (!((m >> i) & 1))
			continue;
		for (j = 0; j < c->n; j++) {
			if (!((m >> j) & 1))
				continue;
			sum += c->distance ? (double)c->distance[i * c->n + j] : 0.0;
			count++;
		}
	}
	return count > 0 ? sum / count : 0.0;
}

static bool port_narrower(uint64_t a, uint64_t b)
{
	int ca = __builtin_popcountll(a), cb = __builtin_popcountll(b);

	return ca == cb ? a < b : ca < cb;
}

static uint64_t port_pick(const struct port_ctx *c, uint64_t current, uint64_t candidate)
{
	uint64_t best;

	if (current == candidate)
		return current;
	if (c->closest) {
		if (__builtin_popcountll(current) != __builtin_popcountll(candidate)) {
			best = port_narrower(candidate, current) ? candidate : current;
		} else {
			double d1 = port_avg_distance(c, current);
			double d2 = port_avg_distance(c, candidate);

			if (d1 == d2)
				best = current < candidate ? current : candidate;
			else
				best = d1 < d2 ? current : candidate;
		}
	} else {
		best = port_narrower(candidate, current) ? candidate : current;
	}
	return best;
}

static void port_compare(struct port_ctx *c, struct topo_hint cand)
{
	struct topo_hint *cur = &c->best;
	int cc, bc, B = c->best_nonpreferred;

	if (cand.mask == 0)
		return;
	if (!c->have_best) {
		c->best = cand;
		c->have_best = true;
		return;
	}
	if (!cur->preferred && cand.preferred) {
		*cur = cand;
		return;
	}
	if (cur->preferred && !cand.preferred)
		return;
	if (cur->preferred && cand.preferred) {
		if (port_pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	bc = __builtin_popcountll(cur->mask);
	cc = __builtin_popcountll(cand.mask);
	if (bc > B) { /* 1 */
		if (port_pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	if (bc == B) { /* 2 */
		if (cc != B)
			return;
		if (port_pick(c, cur->mask, cand.mask) != cur->mask)
			*cur = cand;
		return;
	}
	if (cc > B) /* 3a */
		return;
	if (cc == B) { /* 3b */
		*cur = cand;
		return;
	}
	if (cc > bc) { /* 3ca */
		*cur = cand;
		return;
	}
	if (cc < bc) /* 3cb */
		return;
	if (port_pick(c, cur->mask, cand.mask) != cur->mask) /* 3cc */
		*cur = cand;
}

static void port_iterate(struct port_ctx *c, const struct plist *const *lists, size_t nlists,
			 size_t i, struct topo_hint *perm)
{
	size_t k;

	if (i == nlists) {
		uint64_t full = c->n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << c->n) - 1);
		struct topo_hint merged = { full, false, true };
		bool have_first = false;
		uint64_t first = 0;

		for (k = 0; k < nlists; k++) {
			if (!perm[k].nil) {
				if (!have_first) {
					first = perm[k].mask;
					have_first = true;
				} else if (perm[k].mask != first) {
					merged.preferred = false;
				}
				merged.mask &= perm[k].mask;
			}
			if (!perm[k].preferred)
				merged.preferred = false;
		}
		port_compare(c, merged);
		return;
	}
	for (k = 0; k < lists[i]->nhints; k++) {
		perm[i] = lists[i]->hints[k];
		port_iterate(c, lists, nlists, i + 1, perm);
	}
}

/* ref_policy_merge; scratch (MAX_LISTS lists) holds single-numa-node's
 * filtered copies. */
static struct topo_hint port_policy_merge(int n, enum tm_policy policy, bool prefer_closest,
					  const int64_t *distance, const struct plist *lists_in,
					  size_t nlists, struct plist *scratch, bool *admit)
{
	const struct plist *lists[MAX_LISTS];
	struct topo_hint perm[MAX_LISTS];
	struct port_ctx c;
	uint64_t full = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
	size_t i, k;

	for (i = 0; i < nlists; i++)
		lists[i] = &lists_in[i];
	if (policy == TM_POLICY_SINGLE_NUMA_NODE) {
		for (i = 0; i < nlists; i++) {
			size_t kept = 0;

			for (k = 0; k < lists_in[i].nhints; k++) {
				struct topo_hint h = lists_in[i].hints[k];

				if ((h.nil && h.preferred) ||
				    (!h.nil && __builtin_popcountll(h.mask) == 1 && h.preferred))
					scratch[i].hints[kept++] = h;
			}
			scratch[i].nhints = kept;
			lists[i] = &scratch[i];
		}
	}
	memset(&c, 0, sizeof c);
	c.n = n;
	c.closest = prefer_closest && policy != TM_POLICY_SINGLE_NUMA_NODE;
	c.distance = distance;
	for (i = 0; i < nlists; i++) {
		bool have = false;
		uint64_t narrowest = 0;

		for (k = 0; k < lists[i]->nhints; k++) {
			if (lists[i]->hints[k].nil)
				continue;
			if (!have || port_narrower(lists[i]->hints[k].mask, narrowest))
				narrowest = lists[i]->hints[k].mask;
			have = true;
		}
		if (have && __builtin_popcountll(narrowest) > c.best_nonpreferred)
			c.best_nonpreferred = __builtin_popcountll(narrowest);
	}
	port_iterate(&c, lists, nlists, 0, perm);
	if (!c.have_best)
		c.best = (struct topo_hint){ full, false, false };
	if (policy == TM_POLICY_SINGLE_NUMA_NODE && c.best.mask == full) {
		c.best.nil = true;
		c.best.mask = 0;
	}
	*admit = policy == TM_POLICY_BEST_EFFORT || c.best.preferred;
	return c.best;
}

/* --- agreement --- */

struct outcome {
	struct topo_hint h;
	bool admit;
};

static bool same(struct outcome a, struct outcome b)
{
	return a.h.nil == b.h.nil && (a.h.nil || a.h.mask == b.h.mask) &&
	       a.h.preferred == b.h.preferred && a.admit == b.admit;
}

static void dump_input(int n, const struct minput *in)
{
	size_t i, k;

	for (i = 0; i < in->nlists; i++) {
		fprintf(stderr, "  list %zu (%s, %zu hints):", i, list_names[i], in->lists[i].nhints);
		for (k = 0; k < in->lists[i].nhints; k++)
			fprintf(stderr, " %llx%s", (unsigned long long)in->lists[i].hints[k].mask,
				in->lists[i].hints[k].preferred ? "P" : "");
		fputc('\n', stderr);
	}
	fprintf(stderr, "  (%d NUMA nodes)\n", n);
}

static void disagree(const char *what, int n, enum tm_policy policy, const struct minput *in,
		     struct outcome a, struct outcome b) __attribute__((noreturn));

static void disagree(const char *what, int n, enum tm_policy policy, const struct minput *in,
		     struct outcome a, struct outcome b)
{
	fflush(stdout);
	fprintf(stderr, "bench_topology: DISAGREEMENT (%s), %s, %d NUMA, %zu lists\n", what,
		tm_policy_name(policy), n, in->nlists);
	dump_input(n, in);
	fprintf(stderr, "  first:  nil=%d mask=%llx preferred=%d admit=%d\n", a.h.nil,
		(unsigned long long)a.h.mask, a.h.preferred, a.admit);
	fprintf(stderr, "  second: nil=%d mask=%llx preferred=%d admit=%d\n", b.h.nil,
		(unsigned long long)b.h.mask, b.h.preferred, b.admit);
	exit(1);
}

/* ref_policy_merge from tests/support when every list fits its 8 hints. */
static bool official_ref(int n, enum tm_policy policy, bool closest, const int64_t *distance,
			 const struct minput *in, struct outcome *out)
{
	struct ref_list rl[MAX_LISTS];
	size_t i;

	for (i = 0; i < in->nlists; i++) {
		if (in->lists[i].nhints > sizeof rl[i].hints / sizeof rl[i].hints[0])
			return false;
		rl[i].nhints = in->lists[i].nhints;
		memcpy(rl[i].hints, in->lists[i].hints, rl[i].nhints * sizeof rl[i].hints[0]);
	}
	out->h = ref_policy_merge(n, policy, closest, distance, rl, in->nlists, &out->admit);
	return true;
}

static void distances(int n, int64_t *d)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = i == j ? 10 : 21;
}

/* The port against ref_merge.c and the fast merge on random provider-shaped
 * inputs that fit ref_merge.c (lists of at most 8 hints), every policy, with
 * and without prefer-closest. */
static void port_self_check(void)
{
	static const enum tm_policy policies[3] = { TM_POLICY_BEST_EFFORT, TM_POLICY_RESTRICTED,
						    TM_POLICY_SINGLE_NUMA_NODE };
	struct minput *in = xcalloc(1, sizeof *in);
	struct plist *scratch = xcalloc(MAX_LISTS, sizeof *scratch);
	int64_t d[MAX_N * MAX_N];
	long done, official = 0;

	for (done = 0; done < cfg.port_checks; done++) {
		int n = 1 + rnd_below(MAX_N), i, j;
		enum tm_policy policy = policies[rnd_below(3)];
		bool closest = rnd_below(2) == 0;
		struct merge_params p = { n, policy, closest, d, 0, NULL, false, false };
		struct outcome port, fast, ref;
		size_t k;

		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				d[i * n + j] = i == j ? 10 : 11 + rnd_below(20);
		in->nlists = (size_t)(1 + rnd_below(MAX_LISTS));
		for (k = 0; k < in->nlists; k++)
			gen_list(n, 1, n <= 3 ? 7 : 8, 0, &in->lists[k]);
		input_build_fast(n, in);
		port.h = port_policy_merge(n, policy, closest, d, in->lists, in->nlists, scratch,
					   &port.admit);
		fast.h = fast_once(in, &p, &fast.admit);
		if (!same(port, fast))
			disagree("port vs fast, self-check", n, policy, in, port, fast);
		if (official_ref(n, policy, closest, d, in, &ref)) {
			official++;
			if (!same(ref, port))
				disagree("ref_merge.c vs port, self-check", n, policy, in, ref, port);
		}
	}
	printf("self-check: %ld random provider-shaped inputs (1-8 NUMA, 1-4 lists, all policies, "
	       "prefer-closest on/off): port == fast merge on all, port == ref_merge.c on %ld\n",
	       done, official);
	input_free(in);
	free(in);
	free(scratch);
}

/* Per-cell pool generation: half the inputs aim at a preferred best-effort
 * outcome (every list prefers the same NUMA nodes), half at a non-preferred
 * one (independent lists). Each list's length is bounded so that the cross
 * product stays within the budget. */
static void gen_input(int n, size_t nlists, bool want_pref, struct minput *in)
{
	size_t lo = n == 8 ? 30 : 1, hi = n == 8 ? 120 : ((size_t)1 << n) - 1, k;
	int64_t d[MAX_N * MAX_N];
	struct merge_params p = { n, TM_POLICY_BEST_EFFORT, false, d, 0, NULL, false, false };
	int attempt;

	distances(n, d);
	for (attempt = 0;; attempt++) {
		double budget = cfg.perm_budget, reserve = (double)lo;
		size_t floor_len = lo;
		uint64_t must = 0;
		struct outcome o;

		if (want_pref) {
			/* A preferred size-k hint brings its 2^(n-k) supersets:
			 * at 8 NUMA k = 2 means 64+ hints per list, k = 3 32+. */
			int k_size = 1 + rnd_below(2);
			double p72 = 1;

			if (n == 8) {
				for (k = 0; k < nlists; k++)
					p72 *= 72;
				k_size = p72 <= budget && rnd_below(2) ? 2 : 3;
			}
			while (__builtin_popcountll(must) < k_size)
				must |= (uint64_t)1 << rnd_below(n);
			floor_len = ((size_t)1 << (n - k_size)) + 8;
			reserve = 1.5 * (double)((size_t)1 << (n - k_size));
		}
		in->nlists = nlists;
		for (k = 0; k < nlists; k++) {
			double rest = 1, room;
			size_t j, hk;

			/* Leave room for the shortest lists that may follow. */
			for (j = k + 1; j < nlists; j++)
				rest *= reserve;
			room = budget / rest;
			hk = room < (double)hi ? (size_t)room : hi;
			hk = hk < floor_len ? floor_len : hk;
			hk = hk > hi ? hi : hk;
			gen_list(n, lo, hk, must, &in->lists[k]);
			budget /= (double)in->lists[k].nhints;
		}
		input_build_fast(n, in);
		if (in->perms_all > cfg.perm_budget)
			continue;
		o.h = fast_once(in, &p, &o.admit);
		if (o.h.preferred == want_pref || attempt >= 1000)
			return;
	}
}

struct fast_batch {
	const struct minput *pool;
	const size_t *idx;
	size_t nidx;
	const struct merge_params *p;
	struct outcome *out;        /* per pool index, or NULL */
};

static void fast_batch_run(void *ctx, uint64_t reps)
{
	const struct fast_batch *b = ctx;
	uint64_t r;
	size_t k;

	for (r = 0; r < reps; r++) {
		for (k = 0; k < b->nidx; k++) {
			struct outcome o;

			o.h = fast_once(&b->pool[b->idx[k]], b->p, &o.admit);
			if (b->out)
				b->out[b->idx[k]] = o;
			sink += o.h.mask;
		}
	}
}

/* Fast merge, ns per merge over the pool entries idx. */
static double time_fast(const struct minput *pool, const size_t *idx, size_t nidx,
			const struct merge_params *p, struct outcome *out)
{
	struct fast_batch b = { pool, idx, nidx, p, out };

	return measure(fast_batch_run, &b, nidx);
}

struct ref_batch {
	int n;
	const struct minput *pool;
	size_t npool;
	enum tm_policy policy;
	const int64_t *d;
	struct outcome *out;
	struct plist *scratch;
};

static void ref_batch_run(void *ctx, uint64_t reps)
{
	const struct ref_batch *b = ctx;
	uint64_t r;
	size_t k;

	for (r = 0; r < reps; r++) {
		for (k = 0; k < b->npool; k++) {
			struct outcome o;

			o.h = port_policy_merge(b->n, b->policy, false, b->d, b->pool[k].lists,
						b->pool[k].nlists, b->scratch, &o.admit);
			b->out[k] = o;
			sink += o.h.mask;
		}
	}
}

/* The cross product, ns per merge over the whole pool (each input at least
 * once: a single pass of the 8x4 pool takes seconds). */
static double time_ref(int n, const struct minput *pool, size_t npool, enum tm_policy policy,
		       const int64_t *d, struct outcome *out)
{
	struct ref_batch b = { n, pool, npool, policy, d, out, NULL };
	double ns;

	b.scratch = xcalloc(MAX_LISTS, sizeof *b.scratch);
	ns = measure(ref_batch_run, &b, npool);
	free(b.scratch);
	return ns;
}

struct split_row {
	int n;
	size_t nlists;
	double pref_ns, nonpref_ns;
	size_t npref, nnonpref;
};

/* The fast best-effort merge timed apart on the inputs whose merged hint is
 * preferred (one AND per list) and on the others (subset convolution); half
 * the usual time each. idx: scratch of npool entries. */
static void time_by_outcome(int n, const struct minput *pool, size_t npool, const int64_t *d,
			    size_t *idx, struct split_row *split)
{
	struct merge_params p = { n, TM_POLICY_BEST_EFFORT, false, d, 0, NULL, false, false };
	uint64_t saved = cfg.min_ns;
	size_t nidx, k;
	int want;

	cfg.min_ns = saved / 2;
	for (want = 1; want >= 0; want--) {
		double t = 0;

		nidx = 0;
		for (k = 0; k < npool; k++) {
			struct outcome o;

			o.h = fast_once(&pool[k], &p, &o.admit);
			if (o.h.preferred == (want == 1))
				idx[nidx++] = k;
		}
		if (nidx > 0)
			t = time_fast(pool, idx, nidx, &p, NULL);
		if (want) {
			split->pref_ns = t;
			split->npref = nidx;
		} else {
			split->nonpref_ns = t;
			split->nnonpref = nidx;
		}
	}
	cfg.min_ns = saved;
}

static void merge_cell(int n, size_t nlists, struct split_row *split)
{
	static const enum tm_policy policies[2] = { TM_POLICY_BEST_EFFORT,
						    TM_POLICY_SINGLE_NUMA_NODE };
	size_t npool = n == 8 && nlists == 4 ? cfg.pool_8x4 : cfg.pool, k, pi;
	struct minput *pool = xcalloc(npool, sizeof *pool);
	struct outcome *fast = xcalloc(npool, sizeof *fast);
	struct outcome *ref = xcalloc(npool, sizeof *ref);
	size_t *idx = xcalloc(npool, sizeof *idx);
	size_t hmin = SIZE_MAX, hmax = 0, htotal = 0, hcount = 0;
	int64_t d[MAX_N * MAX_N];

	distances(n, d);
	for (k = 0; k < npool; k++) {
		gen_input(n, nlists, k % 2 == 0, &pool[k]);
		for (pi = 0; pi < nlists; pi++) {
			size_t h = pool[k].lists[pi].nhints;

			hmin = h < hmin ? h : hmin;
			hmax = h > hmax ? h : hmax;
			htotal += h;
			hcount++;
		}
		idx[k] = k;
	}
	for (pi = 0; pi < 2; pi++) {
		enum tm_policy policy = policies[pi];
		struct merge_params p = { n, policy, false, d, 0, NULL, false, false };
		double perms = 0, speedup, tf, tr;
		size_t npref = 0;
		char hints[32], target[16] = "-", ok[8] = "-";

		tf = time_fast(pool, idx, npool, &p, fast);
		tr = time_ref(n, pool, npool, policy, d, ref);
		for (k = 0; k < npool; k++) {
			struct outcome o;

			if (!same(fast[k], ref[k]))
				disagree("fast vs reference", n, policy, &pool[k], fast[k], ref[k]);
			if (official_ref(n, policy, false, d, &pool[k], &o)) {
				official_checks++;
				if (!same(o, ref[k]))
					disagree("ref_merge.c vs port", n, policy, &pool[k], o, ref[k]);
			}
			npref += ref[k].h.preferred;
			perms += policy == TM_POLICY_SINGLE_NUMA_NODE ? pool[k].perms_single
								      : pool[k].perms_all;
		}
		speedup = tr / tf;
		if (n == 8 && nlists == 4 && policy == TM_POLICY_BEST_EFFORT) {
			snprintf(target, sizeof target, ">= 100x");
			snprintf(ok, sizeof ok, "%s", speedup >= 100 ? "ok" : "MISSED");
		}
		snprintf(hints, sizeof hints, "%zu-%zu (avg %.0f)", hmin, hmax,
			 (double)htotal / (double)hcount);
		printf("%4d %5zu  %-16s %-17s %9.3g %4zu/%-4zu %12.1f %14.1f %10.1fx  %-8s %-6s\n",
		       n, nlists, tm_policy_name(policy), hints, perms / (double)npool, npref, npool,
		       tf, tr, speedup, target, ok);
	}

	split->n = n;
	split->nlists = nlists;
	time_by_outcome(n, pool, npool, d, idx, split);
	for (k = 0; k < npool; k++)
		input_free(&pool[k]);
	free(pool);
	free(fast);
	free(ref);
	free(idx);
}

struct official_batch {
	int n;
	const struct ref_list (*rl)[MAX_LISTS];
	size_t npool, nlists;
	const int64_t *d;
};

static void official_batch_run(void *ctx, uint64_t reps)
{
	const struct official_batch *b = ctx;
	uint64_t r;
	size_t k;

	for (r = 0; r < reps; r++) {
		for (k = 0; k < b->npool; k++) {
			bool admit;
			struct topo_hint h = ref_policy_merge(b->n, TM_POLICY_BEST_EFFORT, false, b->d,
							      b->rl[k], b->nlists, &admit);

			sink += h.mask + admit;
		}
	}
}

/* ref_merge.c itself against the port on the same inputs that fit it (8 NUMA,
 * 4 lists of 4-8 hints), to show the port times the same algorithm. */
static void official_vs_port(void)
{
	size_t npool = cfg.pool, k, i;
	struct minput *pool = xcalloc(npool, sizeof *pool);
	struct outcome *out = xcalloc(npool, sizeof *out);
	struct ref_list (*rl)[MAX_LISTS] = xcalloc(npool, sizeof *rl);
	struct official_batch b = { 8, NULL, npool, 4, NULL };
	double perms = 0, t_official, t_port;
	int64_t d[MAX_N * MAX_N];

	distances(8, d);
	for (k = 0; k < npool; k++) {
		pool[k].nlists = 4;
		for (i = 0; i < 4; i++) {
			gen_list(8, 4, 8, 0, &pool[k].lists[i]);
			rl[k][i].nhints = pool[k].lists[i].nhints;
			memcpy(rl[k][i].hints, pool[k].lists[i].hints,
			       rl[k][i].nhints * sizeof rl[k][i].hints[0]);
		}
		input_build_fast(8, &pool[k]);
		perms += pool[k].perms_all;
	}
	b.rl = (const struct ref_list (*)[MAX_LISTS])rl;
	b.d = d;
	t_official = measure(official_batch_run, &b, npool);
	t_port = time_ref(8, pool, npool, TM_POLICY_BEST_EFFORT, d, out);
	printf("reference implementations, 8 NUMA x 4 lists of 4-8 hints (%.0f perms), best-effort: "
	       "ref_merge.c %.1f ns/merge, port %.1f ns/merge\n",
	       perms / (double)npool, t_official, t_port);
	for (k = 0; k < npool; k++)
		input_free(&pool[k]);
	free(pool);
	free(out);
	free(rl);
}

static void part_merge(void)
{
	static const int numas[3] = { 2, 4, 8 };
	struct split_row split[9];
	size_t ni, li, s = 0;

	printf("\n== Part 1: policy merge, fast (topology/merge.c) vs kubelet cross product "
	       "(reference), identical inputs\n");
	printf("inputs: count-based provider lists (random request, per-NUMA capacity/available; "
	       "8 NUMA: 30-120 hints per list,\n"
	       "cross product <= %.3g); pool of %zu inputs per cell (%zu at 8x4), half aimed at a "
	       "preferred merge; prefer-closest off;\n"
	       "every input checked: fast == reference (mask, nil, preferred, admit). Each cell "
	       "timed >= %.3f s: median of %d rounds.\n",
	       cfg.perm_budget, cfg.pool, cfg.pool_8x4, (double)cfg.min_ns / 1e9, ROUNDS);
	port_self_check();
	official_vs_port();
	printf("\n%4s %5s  %-16s %-17s %9s %9s %12s %14s %11s  %-8s %-6s\n", "NUMA", "lists",
	       "policy", "hints/list", "perms", "preferred", "fast ns", "reference ns", "speedup",
	       "target", "ok");
	for (ni = 0; ni < 3; ni++) {
		for (li = 0; li < 3; li++) {
			merge_cell(numas[ni], 2 + li, &split[s]);
			s++;
		}
	}
	printf("(perms: average cross product the reference enumerates, after single-numa-node's "
	       "filter; preferred: merged hints that are\n"
	       " preferred. At 8 NUMA a list of 30-120 hints has no single-node hint - one would bring "
	       "its 128 supersets -\n"
	       " so single-numa-node rejects every 8-NUMA input. %ld measured inputs were also "
	       "checked against ref_merge.c itself.)\n",
	       official_checks);
	printf("\nfast merge by outcome, best-effort, same pools (preferred: one AND per list; "
	       "not preferred: subset convolution)\n%4s %5s %16s %7s %16s %7s\n", "NUMA", "lists",
	       "preferred ns", "inputs", "not pref. ns", "inputs");
	for (s = 0; s < 9; s++)
		printf("%4d %5zu %16.1f %7zu %16.1f %7zu\n", split[s].n, split[s].nlists,
		       split[s].pref_ns, split[s].npref, split[s].nonpref_ns, split[s].nnonpref);
}

/* ======================================================================
 * Part 2: judge_node per node.
 * ====================================================================== */

#define GIB ((int64_t)1 << 30)

static void attr_set(struct nrt_attribute *a, const char *name, const char *value)
{
	a->name = xstrdup(name);
	a->value = xstrdup(value);
}

static void res_set(struct nrt_resource *r, const char *name, int64_t capacity,
		    int64_t allocatable, int64_t available)
{
	r->name = xstrdup(name);
	r->capacity = capacity;
	r->allocatable = allocatable;
	r->available = available;
}

/* A node of n NUMA nodes. Admit layout: 4..16 free CPUs, some memory in use,
 * GPUs (1-2 per NUMA node) free on two thirds of the nodes, DSA queues 0..4
 * free. Reject layout: free GPUs only where fewer than 4 CPUs are free. */
static struct inventory_node *node_build(int n, const char *policy, bool reject)
{
	struct nrt_object obj;
	struct inventory_node *node = NULL;
	struct errmsg msg;
	char name[32];
	enum err rc;
	int i, j;

	memset(&obj, 0, sizeof obj);
	snprintf(name, sizeof name, "bench-%d-%s%s", n, policy, reject ? "-reject" : "");
	obj.name = xstrdup(name);
	obj.api_version = xstrdup("topology.node.k8s.io/v1alpha2");
	obj.nattributes = n > 8 ? 3 : 2;
	obj.attributes = xcalloc(obj.nattributes, sizeof *obj.attributes);
	attr_set(&obj.attributes[0], "topologyManagerPolicy", policy);
	attr_set(&obj.attributes[1], "topologyManagerScope", "container");
	if (n > 8) {
		char opt[64];

		snprintf(opt, sizeof opt, "max-allowable-numa-nodes=%d", n);
		attr_set(&obj.attributes[2], "topologyManagerPolicyOptions", opt);
	}
	obj.nzones = (size_t)n;
	obj.zones = xcalloc(obj.nzones, sizeof *obj.zones);
	for (i = 0; i < n; i++) {
		struct nrt_zone *z = &obj.zones[i];
		int64_t gpu_cap = 1 + i % 2, cpu, gpu, dsa, mem;

		if (!reject) {
			cpu = 4 + (i * 5) % 13;
			gpu = i % 3 == 0 ? 0 : gpu_cap;
		} else {
			cpu = i % 2 ? 2 : 8 + (i * 5) % 9;
			gpu = i % 2 ? gpu_cap : 0;
		}
		dsa = (i * 3) % 5;
		mem = (64 - 8 * (i % 4)) * GIB;
		snprintf(name, sizeof name, "node-%d", i);
		z->name = xstrdup(name);
		z->type = xstrdup("Node");
		z->nresources = 4;
		z->resources = xcalloc(z->nresources, sizeof *z->resources);
		res_set(&z->resources[0], "cpu", 16, 16, cpu);
		res_set(&z->resources[1], "memory", 64 * GIB, 64 * GIB, mem);
		res_set(&z->resources[2], "nvidia.com/gpu", gpu_cap, gpu_cap, gpu);
		res_set(&z->resources[3], "dsa.intel.com/wq-user-shared", 4, 4, dsa);
		z->ncosts = (size_t)n;
		z->costs = xcalloc(z->ncosts, sizeof *z->costs);
		for (j = 0; j < n; j++) {
			snprintf(name, sizeof name, "node-%d", j);
			z->costs[j].name = xstrdup(name);
			z->costs[j].value = i == j ? 10 : 21;
		}
	}
	rc = inventory_node_new(&obj, &node, &msg);
	nrt_object_cleanup(&obj);
	if (rc != ERR_OK || node == NULL)
		die("internal error: inventory_node_new: %s: %s", err_name(rc), msg.text);
	if (node->config_error[0])
		die("internal error: %s: kubelet config error: %s", node->name, node->config_error);
	return node;
}

static void quantities_set(struct pod_quantity **out, size_t *nout, const char *const *kv,
			   size_t nkv)
{
	size_t i;

	*nout = nkv;
	*out = xcalloc(nkv, sizeof **out);
	for (i = 0; i < nkv; i++) {
		struct errmsg msg;
		const char *text = kv[2 * i + 1];

		(*out)[i].name = xstrdup(kv[2 * i]);
		if (quantity_parse(text, strlen(text), &(*out)[i].q, &msg) != ERR_OK)
			die("internal error: quantity %s: %s", text, msg.text);
	}
}

/* Requests == limits (Guaranteed). kv: name, quantity, name, quantity, ... */
static void container_set(struct pod_container *c, const char *name, const char *const *kv,
			  size_t nkv)
{
	c->name = xstrdup(name);
	c->kind = CONTAINER_APP;
	quantities_set(&c->requests, &c->nrequests, kv, nkv);
	quantities_set(&c->limits, &c->nlimits, kv, nkv);
}

static void pod_build(struct pod_spec *pod, struct pod_demand **demand)
{
	static const char *const a[] = { "cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "1",
					 "dsa.intel.com/wq-user-shared", "1" };
	static const char *const b[] = { "cpu", "2", "memory", "2Gi",
					 "dsa.intel.com/wq-user-shared", "1" };
	struct errmsg msg;
	enum err rc;

	memset(pod, 0, sizeof *pod);
	pod->namespace_ = xstrdup("default");
	pod->name = xstrdup("bench-pod");
	pod->ncontainers = 2;
	pod->containers = xcalloc(2, sizeof *pod->containers);
	container_set(&pod->containers[0], "a", a, 4);
	container_set(&pod->containers[1], "b", b, 3);
	rc = pod_demand_new(pod, demand, &msg);
	if (rc != ERR_OK || *demand == NULL)
		die("internal error: pod_demand_new: %s: %s", err_name(rc), msg.text);
	if ((*demand)->qos != QOS_GUARANTEED || (*demand)->containers[0].cpus != 4 ||
	    (*demand)->containers[1].cpus != 2)
		die("internal error: the bench pod is not Guaranteed with exclusive CPUs");
}

static void verdict_outline(const struct verdict *v, char *buf, size_t size)
{
	size_t i, len;

	if (!v->admit) {
		snprintf(buf, size, "reject, unresolvable: %s", v->unresolvable ? "yes" : "no");
		return;
	}
	snprintf(buf, size, "admit");
	for (i = 0; i < v->ncontainers; i++) {
		char ids[64];

		len = strlen(buf);
		if (!v->containers[i].has_affinity)
			snprintf(ids, sizeof ids, "any");
		else
			bitmask_format(v->containers[i].numa_ids, ids, sizeof ids);
		snprintf(buf + len, size - len, "%s %s: NUMA %s", i ? "," : "", v->containers[i].name,
			 ids);
	}
}

struct judge_batch {
	const struct inventory_node *node;
	const struct pod_demand *pod;
};

/* As the filter judges: with the unresolvable check on rejection. */
static void judge_batch_run(void *ctx, uint64_t reps)
{
	const struct judge_batch *b = ctx;
	uint64_t r;

	for (r = 0; r < reps; r++) {
		struct verdict v;

		judge_node_ex(b->node, b->pod, JUDGE_UNRESOLVABLE, &v);
		sink += v.admit;
		verdict_cleanup(&v);
	}
}

static double time_judge(const struct inventory_node *node, const struct pod_demand *pod)
{
	struct judge_batch b = { node, pod };

	return measure(judge_batch_run, &b, 1);
}

/* Every policy and layout at 8, 16, 32 and 64 NUMA nodes; the targets are
 * ratios to the same policy and layout at 8 (16: <= 4x; 32 and 64: <= 10x),
 * plus <= 2 us for the 8-NUMA single-numa-node admission. */
static void part_judge(void)
{
	static const char *const policies[] = { "single-numa-node", "restricted", "best-effort" };
	static const int sizes[] = { 8, 16, 32, 64 };
	struct pod_spec pod;
	struct pod_demand *demand = NULL;
	size_t pi, si;
	int layout;

	printf("\n== Part 2: judge_node_ex per node (as the filter calls it, with the unresolvable "
	       "check on rejection),\n2-container Guaranteed pod "
	       "(a: cpu 4, memory 8Gi, nvidia.com/gpu 1, dsa 1; b: cpu 2, memory 2Gi, dsa 1),\n"
	       "container scope; snapshot and pod demand built once; "
	       ">= %.3f s per row, median of %d rounds\n",
	       (double)cfg.min_ns / 1e9, ROUNDS);
	printf("%4s  %-16s %-6s %-26s %10s %7s  %-12s %-6s\n", "NUMA", "policy", "layout", "verdict",
	       "ns/node", "x of 8", "target", "ok");
	pod_build(&pod, &demand);
	for (pi = 0; pi < sizeof policies / sizeof policies[0]; pi++) {
		for (layout = 0; layout < 2; layout++) {
			bool split = layout == 1;
			double ns8 = 0;

			for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
				const char *policy = policies[pi];
				int n = sizes[si];
				struct inventory_node *node = node_build(n, policy, split);
				bool best_effort = strcmp(policy, "best-effort") == 0;
				char summary[96], target[16] = "-", ok[8] = "-";
				double ns, limit = 0;
				struct verdict v;

				judge_node_ex(node, demand, JUDGE_UNRESOLVABLE, &v);
				verdict_outline(&v, summary, sizeof summary);
				if (v.admit != (!split || best_effort) ||
				    (!v.admit && v.reason != REASON_TOPOLOGY_AFFINITY))
					die("internal error: %s: unexpected verdict: %s (%s)",
					    node->name, summary, v.message);
				verdict_cleanup(&v);
				ns = time_judge(node, demand);
				if (n == 8) {
					ns8 = ns;
					if (!split && pi == 0)
						limit = 2000;
				} else {
					limit = (n == 16 ? 4 : 10) * ns8;
				}
				if (limit > 0) {
					snprintf(target, sizeof target, n == 8 ? "<= 2000 ns" : "<= %dx",
						 n == 16 ? 4 : 10);
					snprintf(ok, sizeof ok, "%s", ns <= limit ? "ok" : "MISSED");
				}
				printf("%4d  %-16s %-6s %-26s %10.1f %7.2f  %-12s %-6s\n", n, policy,
				       split ? "split" : "fits", summary, ns, ns / ns8, target, ok);
				inventory_node_free(node);
			}
		}
	}
	printf("(fits: some NUMA node holds the whole pod; split: the free GPUs sit only on "
	       "NUMA nodes with fewer than 4\nfree CPUs, so single-numa-node and restricted "
	       "reject and best-effort admits a wider mask. Instructions,\nwhich do not vary "
	       "with the machine: scripts/judge-instructions.sh)\n");
	pod_demand_free(demand);
	pod_spec_cleanup(&pod);
}

/* Exactly 1000 judge_node_ex calls as the filter path makes them
 * (JUDGE_UNRESOLVABLE), one node and verdict, for
 *   valgrind --tool=callgrind --toggle-collect=judge_node_ex \
 *     ./bench_topology --callgrind N POLICY admit|reject
 * Rejections after the first are answered from the demand's emptied-node
 * memo, as on a cluster of one machine shape. */
static int callgrind_case(int n, const char *policy, bool reject)
{
	struct inventory_node *node = node_build(n, policy, reject);
	struct pod_demand *demand = NULL;
	struct pod_spec pod;
	int i, admitted = 0;

	pod_build(&pod, &demand);
	for (i = 0; i < 1000; i++) {
		struct verdict v;

		judge_node_ex(node, demand, JUDGE_UNRESOLVABLE, &v);
		admitted += v.admit;
		if (i == 0 && v.admit == reject && strcmp(policy, "best-effort") != 0)
			die("internal error: %s: unexpected verdict (%s)", node->name,
			    verdict_reason_name(v.reason));
		verdict_cleanup(&v);
	}
	printf("callgrind %d %s %s: 1000 judgements, %d admitted\n", n, policy,
	       reject ? "reject" : "admit", admitted);
	pod_demand_free(demand);
	pod_spec_cleanup(&pod);
	inventory_node_free(node);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_topology [--quick | --callgrind N POLICY admit|reject]\n");
}

int main(int argc, char **argv)
{
	uint64_t t0 = now_ns();

	if (argc == 5 && strcmp(argv[1], "--callgrind") == 0)
		return callgrind_case(atoi(argv[2]), argv[3], strcmp(argv[4], "reject") == 0);
	if (argc > 2) {
		usage();
		return 1;
	}
	if (argc == 2) {
		if (strcmp(argv[1], "--quick") != 0) {
			usage();
			return 1;
		}
		cfg.min_ns = 1000000u;
		cfg.pool = 4;
		cfg.pool_8x4 = 2;
		cfg.perm_budget = 3e6;
		cfg.port_checks = 300;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_print_machine(argc > 0 ? argv[0] : NULL);
	part_merge();
	part_judge();
	printf("\ntotal %.1f s\n", (double)(now_ns() - t0) / 1e9);
	return 0;
}
