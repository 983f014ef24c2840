/* pag_finish.c - the end of the PAG builder's input: place every span
 * left, then sweep and write the rest step by step (pag_build.c places,
 * pag_sweep.c sweeps). */
#include "pag_build_impl.h"

/* With the whole input held: how many windows it spans (st.windows_needed,
 * -1: beyond counting); -1 with too_many_windows set when over the limit. */
static int
count_windows(pag_builder *b)
{
	/* in 128 bits: an origin far from the spans makes no overflow */
	__int128 w = b->o.window, d0 = (__int128)b->start - b->o.origin,
		 d1 = (__int128)b->end - b->o.origin;
	__int128 n = (d1 / w - (d1 % w < 0)) - (d0 / w - (d0 % w < 0)) + 1;

	if (n > INT64_MAX) {
		b->st.windows_needed = -1;
	} else {
		b->st.windows_needed = (int64_t)n;
		if ((uint64_t)n <= b->o.max_windows)
			return 0;
	}
	b->st.too_many_windows = 1;
	return -1;
}

static void
finish_stats(pag_builder *b)
{
	b->st.nworkers = b->names.nworkers;
	b->st.nlanes = b->nlanes;
	b->st.nvertices = b->next_vertex;
}

/* Finishing: place every span left, as if the rest came at once (so a
 * reference reaches back as far as the spans held), then sweep up to the
 * start of every FINISH_STEP-th span of them per step, so that what a step
 * sweeps and writes stays that many spans' worth however much was held
 * (--hold 0), and an empty stretch of time costs no step. */
#define FINISH_STEP 4096

static void
finish_begin(pag_builder *b, strbuf *out)
{
	b->nfinish = pag_build_take_due(b, INT64_MAX);
	for (size_t i = 0; i < b->nfinish; i++)
		pag_build_place(b, b->placing[i].span, out);
	b->placed_to = INT64_MAX;
	b->swept_spans = 0;
	pag_build_sort_held(b);
	pag_sweep_sort_comm(b);
}

/* Held everything, nothing written yet: the header gives the time range.
 * -1 when it has too many windows: refused before anything is written. */
static int
held_header(pag_builder *b, strbuf *out)
{
	for (btrace *t = b->first; t; t = t->next)
		for (size_t i = 0; i < t->n; i++) {
			if (!b->has_start || t->spans[i].start < b->start)
				b->start = t->spans[i].start;
			b->has_start = 1;
		}
	b->end = INT64_MIN;
	for (btrace *t = b->first; t; t = t->next)
		if (t->end > b->end)
			b->end = t->end;
	if (b->o.window > 0 && count_windows(b) < 0)
		return -1;
	pag_build_header(b, out, 1);
	return 0;
}

int
pag_builder_finish_step(pag_builder *b, strbuf *out)
{
	if (!b->finishing) {
		b->finishing = 1;
		if (b->first && !b->header_done && held_header(b, out) < 0) {
			finish_stats(b);
			return 0;
		}
		finish_begin(b, out);
	}
	if (!b->st.too_many_windows && b->nfinish - b->swept_spans > FINISH_STEP) {
		b->swept_spans += FINISH_STEP;
		pag_build_sweep(b, b->placing[b->swept_spans].start, out);
		return 1;
	}
	if (!b->st.too_many_windows)
		pag_build_sweep(b, INT64_MAX, out);
	finish_stats(b);
	return 0;
}

void
pag_builder_finish(pag_builder *b, strbuf *out)
{
	while (pag_builder_finish_step(b, out))
		;
}
