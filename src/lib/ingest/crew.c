/* crew.c - the worker threads of tr-ingest -j. Each converts with an ingest
 * context of its own and takes jobs from a ring in the order they were put;
 * the main thread fills the ring and takes the results out oldest first.
 * The two pools (parallel.c: the Jaeger traces of one file; files.c: whole
 * small files) keep what a job holds and how its result is written; the
 * threads, the lock and the ring's positions are here, once. */
#include "ingest/crew.h"

#include <stdlib.h>

enum { JOB_FREE, JOB_READY, JOB_TAKEN, JOB_DONE };

typedef struct crew_arg {
	ig_crew *c;
	int index;
} crew_arg;

static void *
crew_main(void *arg)
{
	crew_arg *a = arg;
	ig_crew *c = a->c;
	ingest *w = c->ctx[a->index];

	free(a);
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->quit && c->take == c->tail)
			pthread_cond_wait(&c->work, &c->mu);
		if (c->quit)
			break;
		size_t i = c->take++ % c->njobs;

		if (c->state[i] != JOB_READY)
			continue;	/* put done already: nothing to convert */
		c->state[i] = JOB_TAKEN;
		pthread_mutex_unlock(&c->mu);
		c->run(w, c->pool, i);
		pthread_mutex_lock(&c->mu);
		c->state[i] = JOB_DONE;
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

void
ig_crew_start(ig_crew *c, const ingest *g, int threads, size_t njobs, ig_crew_fn *run, void *pool)
{
	ingest_opts wo = g->opts;

	wo.threads = 1;
	c->n = threads;
	c->njobs = njobs;
	c->head = c->take = c->tail = 0;
	c->quit = 0;
	c->run = run;
	c->pool = pool;
	c->state = xcalloc(njobs, 1);
	c->threads = xcalloc((size_t)threads, sizeof *c->threads);
	c->ctx = xcalloc((size_t)threads, sizeof *c->ctx);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
	for (int i = 0; i < threads; i++) {
		crew_arg *a = xmalloc(sizeof *a);

		c->ctx[i] = ig_context_new(&wo, NULL);
		c->ctx[i]->progress.on = 0;	/* the main thread shows progress */
		a->c = c;
		a->index = i;
		if (pthread_create(&c->threads[i], NULL, crew_main, a) != 0)
			tr_die(TR_EXIT_SYSTEM, "cannot start a thread");
	}
}

void
ig_crew_stop(ig_crew *c)
{
	pthread_mutex_lock(&c->mu);
	c->quit = 1;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->mu);
	for (int i = 0; i < c->n; i++) {
		pthread_join(c->threads[i], NULL);
		ig_context_free(c->ctx[i]);
	}
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done);
	free(c->state);
	free(c->threads);
	free(c->ctx);
}

void
ig_crew_put(ig_crew *c, int ready)
{
	pthread_mutex_lock(&c->mu);
	c->state[c->tail % c->njobs] = ready ? JOB_READY : JOB_DONE;
	c->tail++;
	if (ready)
		pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->mu);
}

int
ig_crew_oldest_done(ig_crew *c)
{
	int done;

	pthread_mutex_lock(&c->mu);
	done = c->head < c->tail && c->state[c->head % c->njobs] == JOB_DONE;
	pthread_mutex_unlock(&c->mu);
	return done;
}

size_t
ig_crew_oldest(ig_crew *c)
{
	size_t i = c->head % c->njobs;

	pthread_mutex_lock(&c->mu);
	while (c->state[i] != JOB_DONE)
		pthread_cond_wait(&c->done, &c->mu);
	pthread_mutex_unlock(&c->mu);
	return i;
}

void
ig_crew_pop(ig_crew *c)
{
	pthread_mutex_lock(&c->mu);
	c->state[c->head++ % c->njobs] = JOB_FREE;
	pthread_mutex_unlock(&c->mu);
}
