/* parallel.c - Jaeger traces parsed on worker threads (tr-ingest -j).
 *
 * The scanner stays on the main thread: it finds each trace's bytes and copies
 * them into a slot of a ring. Workers take slots in order, parse and convert
 * them with an ingest context of their own, and leave the text in the slot.
 * The main thread writes slots strictly in input order, with their messages
 * and counts, and stops where one thread would have stopped, so the output
 * is byte for byte that of -j 1. */
#include "ingest_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_READY, SLOT_TAKEN, SLOT_DONE };

typedef struct slot {
	enum slot_state state;
	strbuf in, out, msg;
	strbuf warns;		/* what the worker said meanwhile (-v, --max-spans) */
	uint64_t line, col;
	const char *file;
	int status;
	ingest_stats delta;	/* what converting this element added to the counts */
} slot;

struct ingest_pool {
	ingest *main;
	int nthreads;
	pthread_t *threads;
	ingest **ctx;		/* one converter context per worker */
	slot *slots;
	size_t nslots;
	size_t head, take, tail;	/* write, take and fill positions (mod nslots) */
	int stop;		/* the status that stopped the file, 0 while going */
	int quit;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
};

static void
convert_slot(ingest *w, slot *s)
{
	ingest_stats before = w->stats;

	w->file = s->file;
	w->sink = &s->out;
	sb_clear(&s->out);
	sb_clear(&s->msg);
	sb_clear(&s->warns);
	tr_warn_to(&s->warns);
	s->status = ig_element(w, s->in.s, s->in.len, s->line, s->col, ig_elem_jaeger, 1, &s->msg);
	tr_warn_to(NULL);
	ig_stats_diff(&s->delta, &w->stats, &before);
}

typedef struct worker_arg {
	ingest_pool *p;
	int index;
} worker_arg;

static void *
worker(void *arg)
{
	worker_arg *a = arg;
	ingest_pool *p = a->p;
	ingest *w = p->ctx[a->index];

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->take == p->tail)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->quit)
			break;
		slot *s = &p->slots[p->take++ % p->nslots];

		if (s->state != SLOT_READY)
			continue;
		s->state = SLOT_TAKEN;
		pthread_mutex_unlock(&p->mu);
		convert_slot(w, s);
		pthread_mutex_lock(&p->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	free(a);
	return NULL;
}

ingest_pool *
ig_pool_new(ingest *g, int threads)
{
	ingest_pool *p = xcalloc(1, sizeof *p);

	p->main = g;
	p->nthreads = threads;
	p->nslots = (size_t)threads * 8;
	p->slots = xcalloc(p->nslots, sizeof *p->slots);
	p->threads = xcalloc((size_t)threads, sizeof *p->threads);
	p->ctx = xcalloc((size_t)threads, sizeof *p->ctx);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	ingest_opts wo = g->opts;
	wo.threads = 1;
	for (int i = 0; i < threads; i++) {
		worker_arg *a = xmalloc(sizeof *a);

		p->ctx[i] = ingest_new(&wo, NULL);
		a->p = p;
		a->index = i;
		if (pthread_create(&p->threads[i], NULL, worker, a) != 0)
			tr_die(TR_EXIT_SYSTEM, "cannot start a thread");
	}
	return p;
}

/* Write the oldest slot once it is done; the caller holds the lock. */
static void
write_head(ingest_pool *p)
{
	slot *s = &p->slots[p->head % p->nslots];
	ingest *g = p->main;

	while (s->state != SLOT_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	if (!p->stop) {
		/* In the order one thread says them: the trace's own notes,
		 * its error, then (a written trace) what writing it says. */
		if (s->warns.len)
			fwrite(s->warns.s, 1, s->warns.len, stderr);
		if (s->msg.len)
			tr_warn("%s", s->msg.s);
		ig_stats_add(&g->stats, &s->delta);
		ig_emit(g, s->file, s->out.s, s->out.len);
		if (s->status == -2 || (s->status == -1 && !g->opts.keep_going))
			p->stop = s->status;
	}
	s->state = SLOT_FREE;
	p->head++;
}

int
ig_pool_submit(ingest_pool *p, const char *bytes, size_t n, uint64_t line, uint64_t col)
{
	int stop;

	pthread_mutex_lock(&p->mu);
	/* Write what is done in order; wait only when the ring is full. */
	while (p->head < p->tail &&
	       (p->tail - p->head == p->nslots || p->slots[p->head % p->nslots].state == SLOT_DONE))
		write_head(p);
	stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	if (stop)
		return stop;
	slot *s = &p->slots[p->tail % p->nslots];	/* free: only this thread fills */
	sb_clear(&s->in);
	sb_add(&s->in, bytes, n);
	s->line = line;
	s->col = col;
	s->file = p->main->file;
	pthread_mutex_lock(&p->mu);
	s->state = SLOT_READY;
	p->tail++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
	tr_progress_tick(&p->main->progress, p->main->bytes_before, p->main->stats.traces);
	return 0;
}

int
ig_pool_fail(ingest_pool *p, uint64_t line, uint64_t col, size_t max_bytes)
{
	int stop;

	pthread_mutex_lock(&p->mu);
	while (p->tail - p->head == p->nslots)
		write_head(p);
	stop = p->stop;
	if (!stop) {
		/* A slot no worker takes: already done, failed, in its place in the order. */
		slot *s = &p->slots[p->tail % p->nslots];

		sb_clear(&s->out);
		sb_clear(&s->msg);
		sb_addf(&s->msg, "%s:%llu:%llu: JSON value larger than --max-bytes %zu", p->main->file,
			(unsigned long long)line, (unsigned long long)col, max_bytes);
		memset(&s->delta, 0, sizeof s->delta);
		s->delta.broken = 1;
		s->status = -1;
		s->state = SLOT_DONE;
		p->tail++;	/* workers step over it: it is not READY */
	}
	pthread_mutex_unlock(&p->mu);
	return stop ? stop : 0;
}

int
ig_pool_drain(ingest_pool *p)
{
	int stop;

	pthread_mutex_lock(&p->mu);
	while (p->head < p->tail)
		write_head(p);
	stop = p->stop;
	p->stop = 0;	/* the next file starts afresh */
	pthread_mutex_unlock(&p->mu);
	return stop;
}

void
ig_pool_free(ingest_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++) {
		pthread_join(p->threads[i], NULL);
		ingest_free(p->ctx[i]);
	}
	for (size_t i = 0; i < p->nslots; i++) {
		sb_free(&p->slots[i].in);
		sb_free(&p->slots[i].out);
		sb_free(&p->slots[i].msg);
		sb_free(&p->slots[i].warns);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p->slots);
	free(p->threads);
	free(p->ctx);
	free(p);
}
