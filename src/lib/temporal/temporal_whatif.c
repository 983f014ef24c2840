/* temporal_whatif.c - the resource timelines re-laid for a what-if.
 *
 * The work-conserving assumption tr-temporal's queue inference states
 * (Zeno §3.2): a resource does not idle while work waits for it. Each
 * resource's segments are laid again first come, first served (the order
 * they were served breaks ties), on as many workers as their overlaps
 * needed: a segment starts when it is ready and a worker is free. In the
 * order of service alone, a call that now comes much earlier would wait
 * for work that arrives after it, while the workers idle: not
 * work-conserving. Laid twice, as recorded and as changed (work gone,
 * shorter or longer, ready at another time), the difference of each
 * segment's queues (start less ready) is what the change takes off its
 * wait; laying the recorded world too keeps a segment the data did not
 * show waiting where it was (an idle resource is not taken for a queue).
 * A segment whose wait the what-if gives (wait >= 0) starts that long
 * after it is ready and holds a worker from then: the work behind it
 * queues behind it. The caller alternates this with re-laying the
 * requests' trees (new ready times) until nothing moves. */
#include <stdlib.h>

#include "temporal/temporal.h"
#include "core/heap.h"
#include "core/util.h"

/* A segment with the time it is ordered by on its resource. */
typedef struct by_res {
	const tp_wseg *s;
	int64_t key;
	size_t i;
} by_res;

static int
by_res_cmp(const void *pa, const void *pb)
{
	const by_res *x = pa, *y = pb;
	const tp_wseg *a = x->s, *b = y->s;

	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* When s joins its resource's queue: as recorded, or in the what-if; a
 * segment whose wait the rule gives starts then, whatever the queue, and
 * holds a worker from then on (the work behind it queues behind it). */
static int64_t
arrival(const tp_wseg *s, int changed)
{
	if (!changed)
		return s->ready;
	return s->wait >= 0 ? s->newready + s->wait : s->newready;
}

/* The workers the recorded segments o[0..n) needed: the most that overlap
 * by more than clock noise. */
static size_t
workers_needed(const by_res *o, size_t n, tr_heap *running)
{
	size_t most = 1;

	running->n = 0;
	for (size_t i = 0; i < n; i++) {
		while (running->n && running->h[0].key <= o[i].s->start + TP_EPSILON_US)
			tr_heap_pop(running);
		tr_heap_push(running, o[i].s->start + o[i].s->dur, 0);
		most = running->n > most ? running->n : most;
	}
	return most;
}

/* Lay one resource's o[0..n) on k workers in the order they joined its
 * queue (first come, first served; the recorded order of service breaks
 * ties); changed: the what-if's arrivals and durations, removed segments
 * left out. The starts into at[], by segment. */
static void
lay(by_res *o, size_t n, size_t k, int changed, tr_heap *free_at_heap, int64_t *at)
{
	for (size_t i = 0; i < n; i++)
		o[i].key = arrival(o[i].s, changed);
	qsort(o, n, sizeof *o, by_res_cmp);
	free_at_heap->n = 0;
	for (size_t i = 0; i < k; i++)
		tr_heap_push(free_at_heap, INT64_MIN, 0);
	for (size_t i = 0; i < n; i++) {
		int64_t dur = changed ? o[i].s->newdur : o[i].s->dur;

		if (dur < 0)
			continue;
		int64_t free_at = tr_heap_pop(free_at_heap).key, end;

		at[o[i].i] = free_at > o[i].key ? free_at : o[i].key;
		if (changed && o[i].s->wait >= 0)	/* the rule's wait, not the queue's */
			at[o[i].i] = o[i].key;
		end = at[o[i].i] + dur;
		tr_heap_push(free_at_heap, end > free_at ? end : free_at, 0);
	}
}

size_t
tp_whatif_relay(tp_wseg *seg, size_t n)
{
	by_res *o = xmalloc((n ? n : 1) * sizeof *o);
	tr_heap heap = {0};
	int64_t *at0 = xmalloc((n ? 2 * n : 1) * sizeof *at0), *at1 = at0 + n;
	size_t moved = 0;

	for (size_t i = 0; i < n; i++) {
		o[i] = (by_res){&seg[i], seg[i].start, i};
		seg[i].shift = 0;
	}
	qsort(o, n, sizeof *o, by_res_cmp);	/* by resource, then as served */
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		size_t k;

		for (hi = lo + 1; hi < n && o[hi].s->res == o[lo].s->res;)
			hi++;
		k = workers_needed(o + lo, hi - lo, &heap);
		lay(o + lo, hi - lo, k, 0, &heap, at0);
		lay(o + lo, hi - lo, k, 1, &heap, at1);
		for (size_t i = lo; i < hi; i++) {
			const tp_wseg *x = o[i].s;
			size_t j = o[i].i;

			if (x->newdur < 0)
				continue;
			seg[j].shift = (at0[j] - x->ready) - (at1[j] - x->newready);
			moved += seg[j].shift != 0;
		}
	}
	free(o);
	tr_heap_free(&heap);
	free(at0);
	return moved;
}
