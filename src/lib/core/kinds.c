/* kinds.c - span kinds inferred from process boundaries, and wrapper
 * spans. Many exports carry no kinds (traces converted from CSV tables,
 * some instrumentations); what a call looks like is still plain from the
 * tree: the parent of a span of another process made the call, the span
 * served it. Recorded kinds always win. */
#include "core/kinds.h"

#include <string.h>

int
tr_same_process(const tr_span *a, const tr_span *b)
{
	return strcmp(a->service, b->service) == 0 && strcmp(a->host, b->host) == 0;
}

static int
has_client_tag(const tr_span *s)
{
	return tr_span_tag(s, "peer.service") || tr_span_tag(s, "db.system");
}

/* The kind span i's neighbours imply, or TR_KIND_NONE. */
static int
implied_kind(const tr_trace *t, int32_t i)
{
	const tr_span *s = &t->spans[i];

	if (s->parent >= 0 && !tr_same_process(s, &t->spans[s->parent]))
		return t->spans[s->parent].kind == TR_KIND_PRODUCER || (s->flags & TR_SPAN_FOLLOWS) ?
		       TR_KIND_CONSUMER : TR_KIND_SERVER;
	for (int32_t c = s->first_child; c >= 0; c = t->spans[c].next_sibling)
		if (!tr_same_process(s, &t->spans[c]))
			return t->spans[c].kind == TR_KIND_CONSUMER || (t->spans[c].flags & TR_SPAN_FOLLOWS) ?
			       TR_KIND_PRODUCER : TR_KIND_CLIENT;
	if (s->first_child < 0 && has_client_tag(s))
		return TR_KIND_CLIENT;
	return TR_KIND_NONE;
}

size_t
tr_trace_kinds(const tr_trace *t, uint8_t *kind)
{
	size_t inferred = 0;

	for (size_t i = 0; i < t->nspans; i++) {
		kind[i] = t->spans[i].kind;
		if (kind[i] == TR_KIND_NONE && (kind[i] = (uint8_t)implied_kind(t, (int32_t)i)) != TR_KIND_NONE)
			inferred++;
	}
	return inferred;
}

/* Does sibling c carry a call w could be waiting for: a client or producer
 * of w's process with a child, timed? */
static int
is_call(const tr_span *w, const tr_span *c, int ckind)
{
	return tr_kind_calls_out(ckind) && c->first_child >= 0 && (c->flags & TR_SPAN_HAS_TIME) &&
	       tr_same_process(w, c);
}

/* Does w only wait for the calls beside it (those at least half within
 * it): they cover 80% of it, lie 80% within it, and the last ends no
 * earlier than it (1% allowed)? Siblings come by start, so their union is
 * summed as they come. */
static int
waits_for_calls(const tr_trace *t, const uint8_t *kind, int32_t i)
{
	const tr_span *w = &t->spans[i];
	int64_t wend = tr_span_end(w), at = w->start, covered = 0, inside = 0, calls = 0, last = INT64_MIN;

	for (int32_t c = t->spans[w->parent].first_child; c >= 0 && t->spans[c].start < wend;
	     c = t->spans[c].next_sibling) {
		const tr_span *cs = &t->spans[c];
		int64_t lo, hi;

		if (c == i || !is_call(w, cs, kind[c]))
			continue;
		lo = cs->start > w->start ? cs->start : w->start;
		hi = tr_span_end(cs) < wend ? tr_span_end(cs) : wend;
		if (2 * (hi - lo) < cs->duration)	/* mostly outside w: not one it waits for */
			continue;
		calls += cs->duration;
		inside += hi - lo;
		if (lo < at)
			lo = at;
		if (hi > lo) {
			covered += hi - lo;
			at = hi;
		}
		if (tr_span_end(cs) > last)
			last = tr_span_end(cs);
	}
	return calls > 0 && 5 * covered >= 4 * w->duration && 5 * inside >= 4 * calls &&
	       last >= wend - w->duration / 100;
}

/* A handler's span beside its call is one of a few siblings; a wider fan-out
 * is not searched (each candidate looks at its siblings). */
static int
narrow(const tr_trace *t, int32_t parent)
{
	int n = 0;

	for (int32_t c = t->spans[parent].first_child; c >= 0; c = t->spans[c].next_sibling)
		if (++n > TR_WRAPPER_MAX_SIBLINGS)
			return 0;
	return 1;
}

size_t
tr_trace_wrappers(const tr_trace *t, const uint8_t *kind, uint8_t *wrapper)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *w = &t->spans[i];

		wrapper[i] = 0;
		if (w->first_child >= 0 || w->parent < 0 || tr_kind_calls_out(kind[i]) ||
		    !(w->flags & TR_SPAN_HAS_TIME) || w->duration <= 0 ||
		    !narrow(t, w->parent))
			continue;
		if (waits_for_calls(t, kind, (int32_t)i)) {
			wrapper[i] = 1;
			n++;
		}
	}
	return n;
}
