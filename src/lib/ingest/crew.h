/* crew.h - the worker threads the two pools of tr-ingest -j share
 * (parallel.c: the Jaeger traces of a file; files.c: whole small files). */
#ifndef TR_INGEST_CREW_H
#define TR_INGEST_CREW_H

#include <pthread.h>

#include "ingest/context.h"

/* Worker threads converting jobs of a ring in order (crew.c); head, tail
 * and the filling of jobs belong to the main thread, which reads head and
 * tail without the lock. */
typedef void ig_crew_fn(ingest *w, void *pool, size_t job);
typedef struct ig_crew {
	int n;
	pthread_t *threads;
	ingest **ctx;		/* one converter context per worker */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	unsigned char *state;	/* per job of the ring */
	size_t njobs, head, take, tail;	/* oldest, next to take, next to fill (mod njobs) */
	int quit;
	ig_crew_fn *run;
	void *pool;
} ig_crew;
void ig_crew_start(ig_crew *c, const ingest *g, int threads, size_t njobs, ig_crew_fn *run, void *pool);
void ig_crew_stop(ig_crew *c);
/* Job tail % njobs is filled: for a worker, or (ready 0) done already. */
void ig_crew_put(ig_crew *c, int ready);
int ig_crew_oldest_done(ig_crew *c);
/* Wait for the oldest job; its index. ig_crew_pop frees it once written. */
size_t ig_crew_oldest(ig_crew *c);
void ig_crew_pop(ig_crew *c);
#endif
