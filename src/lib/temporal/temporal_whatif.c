/* temporal_whatif.c - the resource timelines re-laid for a what-if.
 *
 * The work-conserving assumption tr-temporal's queue inference states
 * (Zeno §3.2): a resource does not idle while work waits for it. Each
 * resource's segments are laid again in the order they were served, on as
 * many workers as their overlaps needed: a segment starts when it is ready
 * and a worker is free. Laid twice, as recorded and as changed (work gone,
 * shorter or longer), the difference of each segment's starts is what the
 * change moves it; laying the recorded world too keeps a segment the data
 * did not show waiting where it was (an idle resource is not taken for a
 * queue). */
#include <stdlib.h>

#include "temporal/temporal.h"
#include "core/util.h"

/* A min-heap of times, the workers' free times or running ends. */
static void
push(int64_t *h, size_t *n, int64_t v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int64_t
pop(int64_t *h, size_t *n)
{
	int64_t top = h[0], last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= *n)
			break;
		if (l + 1 < *n && h[l + 1] < h[l])
			m = l + 1;
		if (h[m] >= last)
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n)
		h[i] = last;
	return top;
}

typedef struct by_res {
	const tp_wseg *s;
	size_t i;
} by_res;

static int
by_res_cmp(const void *pa, const void *pb)
{
	const tp_wseg *a = ((const by_res *)pa)->s, *b = ((const by_res *)pb)->s;

	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->ready != b->ready)
		return a->ready < b->ready ? -1 : 1;
	return (((const by_res *)pa)->i > ((const by_res *)pb)->i) -
	       (((const by_res *)pa)->i < ((const by_res *)pb)->i);
}

/* The workers the recorded segments o[0..n) needed: the most that overlap
 * by more than clock noise. */
static size_t
workers_needed(const by_res *o, size_t n, int64_t *heap)
{
	size_t nh = 0, most = 1;

	for (size_t i = 0; i < n; i++) {
		while (nh && heap[0] <= o[i].s->start + TP_EPSILON_US)
			pop(heap, &nh);
		push(heap, &nh, o[i].s->start + o[i].s->dur);
		most = nh > most ? nh : most;
	}
	return most;
}

/* Lay o[0..n) on k workers; changed: the what-if's durations, removed
 * segments left out. The starts into at[]. */
static void
lay(const by_res *o, size_t n, size_t k, int changed, int64_t *heap, int64_t *at)
{
	size_t nh = 0;

	for (size_t i = 0; i < k; i++)
		push(heap, &nh, INT64_MIN);
	for (size_t i = 0; i < n; i++) {
		const tp_wseg *s = o[i].s;
		int64_t dur = changed ? s->newdur : s->dur;

		if (dur < 0)
			continue;
		int64_t free_at = pop(heap, &nh);
		at[i] = free_at > s->ready ? free_at : s->ready;
		push(heap, &nh, at[i] + dur);
	}
}

size_t
tp_whatif_relay(tp_wseg *seg, size_t n)
{
	by_res *o = xmalloc((n ? n : 1) * sizeof *o);
	int64_t *heap = xmalloc((n ? n : 1) * sizeof *heap);
	int64_t *at0 = xmalloc((n ? 2 * n : 1) * sizeof *at0), *at1 = at0 + n;
	size_t moved = 0;

	for (size_t i = 0; i < n; i++) {
		o[i] = (by_res){&seg[i], i};
		seg[i].shift = 0;
	}
	qsort(o, n, sizeof *o, by_res_cmp);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		size_t k;

		for (hi = lo + 1; hi < n && o[hi].s->res == o[lo].s->res;)
			hi++;
		k = workers_needed(o + lo, hi - lo, heap);
		lay(o + lo, hi - lo, k, 0, heap, at0 + lo);
		lay(o + lo, hi - lo, k, 1, heap, at1 + lo);
		for (size_t i = lo; i < hi; i++) {
			if (o[i].s->newdur < 0 || at0[i] == at1[i])
				continue;
			seg[o[i].i].shift = at0[i] - at1[i];
			moved++;
		}
	}
	free(o);
	free(heap);
	free(at0);
	return moved;
}
