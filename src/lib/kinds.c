/* kinds.c - span kinds inferred from process boundaries, and wrapper
 * spans. Many exports carry no kinds (traces converted from CSV tables,
 * some instrumentations); what a call looks like is still plain from the
 * tree: the parent of a span of another process made the call, the span
 * served it. Recorded kinds always win. */
#include "kinds.h"

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

static int64_t
overlap(const tr_span *a, const tr_span *b)
{
	int64_t lo = a->start > b->start ? a->start : b->start;
	int64_t hi = tr_span_end(a) < tr_span_end(b) ? tr_span_end(a) : tr_span_end(b);

	return hi > lo ? hi - lo : 0;
}

/* Is sibling c the call that wrapper candidate w waits for? */
static int
waits_for(const tr_span *w, const tr_span *c, int ckind)
{
	int64_t o;

	if (!tr_kind_calls_out(ckind) || c->first_child < 0 || !(c->flags & TR_SPAN_HAS_TIME) ||
	    !tr_same_process(w, c))
		return 0;
	o = overlap(w, c);
	return 5 * o >= 4 * w->duration && 5 * o >= 4 * c->duration &&
	       tr_span_end(c) >= tr_span_end(w) - w->duration / 100;
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
		/* siblings come by start: one that starts after w ends cannot cover it */
		for (int32_t c = t->spans[w->parent].first_child; c >= 0 && t->spans[c].start < tr_span_end(w);
		     c = t->spans[c].next_sibling)
			if (c != (int32_t)i && waits_for(w, &t->spans[c], kind[c])) {
				wrapper[i] = 1;
				n++;
				break;
			}
	}
	return n;
}
