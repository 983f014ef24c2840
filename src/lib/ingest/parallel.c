/* parallel.c - Jaeger traces parsed on worker threads (tr-ingest -j).
 *
 * The scanner stays on the main thread: it finds each trace's bytes and copies
 * them into a slot of a ring. Workers take slots in order, parse and convert
 * them with an ingest context of their own, and leave the text in the slot.
 * The main thread writes slots strictly in input order, with their messages
 * and counts, and stops where one thread would have stopped, so the output
 * is byte for byte that of -j 1. */
#include "ingest/crew.h"
#include "ingest/drive.h"
#include "ingest/scan.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
	strbuf in, out, msg;
	strbuf warns;		/* what the worker said meanwhile (-v, --max-spans) */
	uint64_t line, col;
	const char *file;
	int status;
	ingest_stats delta;	/* what converting this element added to the counts */
} slot;

struct ingest_pool {
	ingest *main;
	ig_crew crew;
	slot *slots;
	int stop;		/* the status that stopped the file, 0 while going */
};

static void
convert_slot(ingest *w, void *pool, size_t i)
{
	slot *s = &((ingest_pool *)pool)->slots[i];
	ingest_stats before = w->stats;

	w->file = s->file;
	w->sink = &s->out;
	sb_clear(&s->out);
	sb_clear(&s->msg);
	sb_clear(&s->warns);
	tr_warn_to(&s->warns);
	s->status = ig_element(w, s->in.s, s->in.len, s->line, s->col, jaeger_trace, 1, &s->msg);
	tr_warn_to(NULL);
	ig_stats_diff(&s->delta, &w->stats, &before);
}

ingest_pool *
ig_pool_new(ingest *g, int threads)
{
	ingest_pool *p = xcalloc(1, sizeof *p);
	size_t n = (size_t)threads * 8;

	p->main = g;
	p->slots = xcalloc(n, sizeof *p->slots);
	ig_crew_start(&p->crew, g, threads, n, convert_slot, p);
	return p;
}

/* Write the oldest slot once it is done. */
static void
write_head(ingest_pool *p)
{
	slot *s = &p->slots[ig_crew_oldest(&p->crew)];
	ingest *g = p->main;

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
	ig_crew_pop(&p->crew);
}

int
ig_pool_submit(ingest_pool *p, const char *bytes, size_t n, uint64_t line, uint64_t col)
{
	ig_crew *c = &p->crew;

	/* Write what is done in order; wait only when the ring is full. */
	while (c->head < c->tail && (c->tail - c->head == c->njobs || ig_crew_oldest_done(c)))
		write_head(p);
	if (p->stop)
		return p->stop;
	slot *s = &p->slots[c->tail % c->njobs];	/* free: only this thread fills */
	sb_clear(&s->in);
	sb_add(&s->in, bytes, n);
	s->line = line;
	s->col = col;
	s->file = p->main->file;
	ig_crew_put(c, 1);
	tr_progress_tick(&p->main->progress, p->main->bytes_before, p->main->stats.traces);
	return 0;
}

int
ig_pool_fail(ingest_pool *p, uint64_t line, uint64_t col, const char *what)
{
	ig_crew *c = &p->crew;

	while (c->tail - c->head == c->njobs)
		write_head(p);
	if (!p->stop) {
		/* A slot no worker takes: already done, failed, in its place in the order. */
		slot *s = &p->slots[c->tail % c->njobs];

		sb_clear(&s->out);
		sb_clear(&s->msg);
		sb_clear(&s->warns);
		sb_addf(&s->msg, "%s:%llu:%llu: %s", p->main->file, (unsigned long long)line,
			(unsigned long long)col, what);
		memset(&s->delta, 0, sizeof s->delta);
		s->delta.broken = 1;
		s->status = -1;
		s->file = p->main->file;
		ig_crew_put(c, 0);
	}
	return p->stop;
}

int
ig_pool_drain(ingest_pool *p)
{
	int stop;

	while (p->crew.head < p->crew.tail)
		write_head(p);
	stop = p->stop;
	p->stop = 0;	/* the next file starts afresh */
	return stop;
}

void
ig_pool_free(ingest_pool *p)
{
	if (!p)
		return;
	ig_crew_stop(&p->crew);
	for (size_t i = 0; i < p->crew.njobs; i++) {
		sb_free(&p->slots[i].in);
		sb_free(&p->slots[i].out);
		sb_free(&p->slots[i].msg);
		sb_free(&p->slots[i].warns);
	}
	free(p->slots);
	free(p);
}
