/* ahead.c - the input read and parsed on a second core.
 *
 * Reading, grouping and parsing traces does not depend on the analysis, so
 * a thread does it a few traces ahead, into a ring of slots the analysis
 * takes in input order. What the reader says (bad traces, limits) is kept
 * with the slot and written when the analysis takes it: stderr reads as
 * the one-thread run writes it. Its counts are kept too, so that a run
 * stopped at a bad trace counts what it took, not what was read ahead. A
 * fatal error while reading (a file that will not open, a read error) ends
 * the thread with a slot that says so: the analysis reaches it in order,
 * says what came before, then the error, and exits as tr_die would. */
#include "core/trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { AHEAD_SLOTS = 32 };

typedef struct slot {
	enum tr_next n;
	tr_trace t;
	strbuf line;
	strbuf msgs;		/* what the reader said while reading it */
	strbuf where;		/* a line's file:line */
	tr_read_counts counts;	/* the reader's, after it */
	int died;		/* tr_die's status + 1 while reading it; 0: none */
} slot;

struct tr_ahead {
	tr_reader *rd;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	slot s[AHEAD_SLOTS];
	size_t head, tail;	/* slots [head, tail) filled, modulo AHEAD_SLOTS */
	int taken;		/* the analysis holds slot head - 1 */
	int stop, done;		/* stop: wanted no more; done: the reader ended */
	const slot *last;	/* the slot taken last: its counts */
	slot *filling;		/* the slot the thread reads into */
};

/* Fill a slot with the next thing the reader hands out. */
static void
read_into(tr_ahead *a, slot *x)
{
	tr_trace *t = NULL;
	const char *line = NULL;
	size_t len = 0;

	x->msgs.len = 0;
	tr_warn_to(&x->msgs);
	x->n = tr_reader_next(a->rd, &t, &line, &len);
	tr_warn_to(NULL);
	if (x->n == TR_TRACE) {
		/* the reader's trace lives until its next call: the slot takes
		 * it whole and gives it the slot's old memory */
		const char *const *files = t->files;

		tr_trace_swap(&x->t, t);
		x->t.files = files;
	} else if (x->n == TR_LINE) {
		sb_clear(&x->line);
		sb_add(&x->line, line, len);
		sb_clear(&x->where);
		sb_adds(&x->where, tr_reader_where(a->rd));
	}
	x->counts = tr_reader_counts(a->rd);
}

/* tr_die on the reading thread: its message is in the slot being filled;
 * hand the slot over as the last one and end the thread. */
static void
reader_died(int status, void *arg)
{
	tr_ahead *a = arg;

	tr_warn_to(NULL);
	a->filling->died = status + 1;
	pthread_mutex_lock(&a->mu);
	a->tail++;
	a->done = 1;
	pthread_cond_signal(&a->filled);
	pthread_mutex_unlock(&a->mu);
	pthread_exit(NULL);
}

static void *
reader_thread(void *arg)
{
	tr_ahead *a = arg;

	tr_die_to(reader_died, a);
	pthread_mutex_lock(&a->mu);
	for (;;) {
		/* full: wait until half the slots are free, not for each one (a
		 * wake-up per trace costs more than the reading it saves) */
		if (a->tail - a->head + a->taken >= AHEAD_SLOTS)
			while (!a->stop && a->tail - a->head + a->taken > AHEAD_SLOTS / 2)
				pthread_cond_wait(&a->freed, &a->mu);
		if (a->stop)
			break;
		slot *x = a->filling = &a->s[a->tail % AHEAD_SLOTS];
		pthread_mutex_unlock(&a->mu);
		read_into(a, x);
		pthread_mutex_lock(&a->mu);
		a->tail++;
		pthread_cond_signal(&a->filled);
		if (x->n == TR_EOF)
			break;
	}
	a->done = 1;
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

tr_ahead *
tr_ahead_start(tr_reader *rd)
{
	tr_ahead *a = xcalloc(1, sizeof *a);

	a->rd = rd;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->freed, NULL);
	if (pthread_create(&a->th, NULL, reader_thread, a) != 0)
		tr_die(TR_EXIT_SYSTEM, "cannot start a thread");
	return a;
}

enum tr_next
tr_ahead_next(tr_ahead *a, tr_trace **t, const char **line, size_t *len)
{
	pthread_mutex_lock(&a->mu);
	if (a->taken) {		/* the slot taken last is free again */
		a->taken = 0;
		if (a->tail - a->head == AHEAD_SLOTS / 2)
			pthread_cond_signal(&a->freed);
	}
	while (a->head == a->tail)
		pthread_cond_wait(&a->filled, &a->mu);
	slot *x = &a->s[a->head++ % AHEAD_SLOTS];
	a->taken = 1;
	pthread_mutex_unlock(&a->mu);
	if (x->died)
		fflush(stdout);
	if (x->msgs.len)
		fwrite(x->msgs.s, 1, x->msgs.len, stderr);
	if (x->died)
		exit(x->died - 1);
	a->last = x;
	*t = &x->t;
	*line = x->line.s;
	*len = x->line.len;
	return x->n;
}

tr_read_counts
tr_ahead_counts(const tr_ahead *a)
{
	return a->last ? a->last->counts : (tr_read_counts){0, 0, 0, 0};
}

const char *
tr_ahead_where(const tr_ahead *a)
{
	return a->last && a->last->where.s ? a->last->where.s : "";
}

int
tr_ahead_finish(tr_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->freed);
	int done = a->done;
	pthread_mutex_unlock(&a->mu);
	if (!done) {
		/* stopped early: the reader may be waiting for input that never
		 * ends; the exit ends it, with what it holds */
		pthread_detach(a->th);
		return 0;
	}
	pthread_join(a->th, NULL);
	for (size_t i = 0; i < AHEAD_SLOTS; i++) {
		tr_trace_free(&a->s[i].t);
		sb_free(&a->s[i].line);
		sb_free(&a->s[i].msgs);
		sb_free(&a->s[i].where);
	}
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->freed);
	free(a);
	return 1;
}
