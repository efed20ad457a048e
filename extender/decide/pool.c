/* SPDX-License-Identifier: Apache-2.0 */
/* The pool: helpers sleep on a condition variable until a job is posted;
 * everyone (caller included) claims chunk numbers from the job's own atomic
 * counter and the caller waits until the last chunk is reported done.
 *
 * A job lives on its caller's stack and is published as a pointer under the
 * lock. A helper takes it (active++) only while it is still published, and
 * the caller withdraws it only once every chunk is done and no helper holds
 * it: a helper that wakes late, after the job is over, finds nothing to take
 * rather than claiming chunks from a counter the next job has reset. */
#include "extender/decide/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/xalloc.h"

struct job {
	decide_pool_fn fn;
	void *ctx;
	size_t n, chunk, nchunks;
	atomic_size_t next;
	size_t done;            /* under the pool's lock */
};

struct decide_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;     /* helpers: a job was posted, or stop */
	pthread_cond_t finished; /* caller: the last chunk is done */
	pthread_mutex_t busy;    /* held by the one request being shared */
	pthread_t *threads;
	int nthreads;
	bool stop;
	uint64_t generation;     /* counts posted jobs */
	struct job *job;         /* the job being shared, or NULL */
	int active;              /* helpers holding job, under lock */
};

/* Claims and runs chunks of j until none is left; returns how many it ran. */
static size_t work(struct job *j)
{
	size_t ran = 0, c;

	while ((c = atomic_fetch_add(&j->next, 1)) < j->nchunks) {
		size_t begin = c * j->chunk, end = begin + j->chunk;

		j->fn(j->ctx, begin, end < j->n ? end : j->n);
		ran++;
	}
	return ran;
}

static void *helper_main(void *arg)
{
	struct decide_pool *p = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct job *j;
		size_t ran;

		while (!p->stop && p->generation == seen)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stop)
			break;
		seen = p->generation;
		j = p->job;
		if (j == NULL)
			continue; /* woke after the job was over */
		p->active++;
		pthread_mutex_unlock(&p->lock);
		ran = work(j);
		pthread_mutex_lock(&p->lock);
		p->active--;
		j->done += ran;
		if (j->done == j->nchunks && p->active == 0)
			pthread_cond_broadcast(&p->finished);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct decide_pool *decide_pool_new(int helpers)
{
	struct decide_pool *p = xcalloc(1, sizeof *p);
	int i;

	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->busy, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->finished, NULL);
	if (helpers < 0)
		helpers = 0;
	p->threads = xcalloc((size_t)helpers + 1, sizeof *p->threads);
	/* A helper that cannot be started only means less sharing. */
	for (i = 0; i < helpers; i++) {
		if (pthread_create(&p->threads[i], NULL, helper_main, p) != 0)
			break;
		p->nthreads++;
	}
	return p;
}

void decide_pool_free(struct decide_pool *p)
{
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	pthread_cond_destroy(&p->finished);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->busy);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int decide_pool_helpers(const struct decide_pool *p)
{
	return p ? p->nthreads : 0;
}

bool decide_pool_run(struct decide_pool *p, size_t n, size_t chunk, decide_pool_fn fn, void *ctx)
{
	struct job j;
	size_t nchunks, ran;

	if (n == 0)
		return false;
	if (chunk == 0)
		chunk = 1;
	nchunks = (n - 1) / chunk + 1;
	if (p == NULL || p->nthreads == 0 || nchunks < 2 || pthread_mutex_trylock(&p->busy) != 0) {
		fn(ctx, 0, n);
		return false;
	}
	j.fn = fn;
	j.ctx = ctx;
	j.n = n;
	j.chunk = chunk;
	j.nchunks = nchunks;
	j.done = 0;
	atomic_init(&j.next, 0);
	pthread_mutex_lock(&p->lock);
	p->job = &j;
	p->generation++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	ran = work(&j);
	pthread_mutex_lock(&p->lock);
	j.done += ran;
	while (j.done < j.nchunks || p->active > 0)
		pthread_cond_wait(&p->finished, &p->lock);
	p->job = NULL;
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->busy);
	return true;
}
