/* temporal_links.c - work in linked traces.
 *
 * A reference into another trace that is not a message (an OTLP link of a
 * span that is not a consumer, a child_of across traces) joins two spans.
 * Where their times overlap, the span that started first (or, starting
 * together, ends last) waited for the other: that part of the waiter's own
 * time is the linked span's work, annotated into the linked trace as a
 * precondition would be. Both directions count, so a span finds the spans
 * it links to in its own references and the spans linking to it in an
 * index of the buffered traces' references, by the trace they name.
 * FOLLOWS_FROM and a consumer's link are messages, followed already as
 * transits from the sender's end (temporal_graph.c): a sender does not
 * wait for its receiver, and a receiver does not wait for a sender that
 * had not ended when it started. */
#include "temporal_impl.h"

#include <stdlib.h>
#include <string.h>

/* A reference into another trace that is a wait, not a message: a
 * FOLLOWS_FROM and a consumer's link are messages (temporal_graph.c's
 * message sources: the sender's end to the receiver's arrival), and a
 * sender that ended after its receiver started is not its cause. */
static int
waited_link(const tr_trace *t, const tr_ref *r)
{
	if (strcmp(r->trace_id, t->trace_id) == 0 || strcmp(r->type, "follows_from") == 0)
		return 0;
	return strcmp(r->type, "link") != 0 || t->spans[r->span].kind != TR_KIND_CONSUMER;
}

/* The index names only buffered traces: rebuilt as the window moves on,
 * as the id map is. */
static void
add_xrefs(temporal *tp, const wtrace *w)
{
	const tr_trace *t = &w->t;

	for (size_t r = 0; r < t->nrefs; r++) {
		const char *id = t->refs[r].trace_id;
		int added;

		if (!waited_link(t, &t->refs[r]))
			continue;
		strmap_slot *s = strmap_put_copy(&tp->xref_ids, &tp->xref_mem, id, strlen(id), &added);
		GROW(tp->xrefs, tp->capxrefs, tp->nxrefs + 1);
		tp->xrefs[tp->nxrefs] = (tp_xref){.serial = w->serial, .span = t->refs[r].span,
						  .ref = (int32_t)r, .next = added ? -1 : (int32_t)s->val};
		s->val = (int64_t)tp->nxrefs++;
		tp->xrefs_seen++;
	}
}

void
tpl_index(temporal *tp, wtrace *w)
{
	if (!w->t.nrefs && !tp->nxrefs)
		return;
	if (tp->nxrefs && w->serial >= tp->xrefs_built + tp->ringcap) {
		strmap_clear(&tp->xref_ids);
		arena_reset(&tp->xref_mem);
		tp->nxrefs = 0;
		tp->xrefs_built = w->serial;
		for (uint64_t s = tp->oldest; s < w->serial; s++) {
			wtrace *o = tp->ring[s % tp->ringcap];

			if (o && o->serial == s)
				add_xrefs(tp, o);
		}
	}
	add_xrefs(tp, w);
}

/* The buffered trace of serial, or NULL once evicted. */
static wtrace *
buffered(temporal *tp, uint64_t serial)
{
	if (serial < tp->oldest || serial >= tp->next_serial)
		return NULL;
	wtrace *o = tp->ring[serial % tp->ringcap];
	return o && o->serial == serial ? o : NULL;
}

/* A span's interval: from its arrival (or start) to its last end. */
static void
span_time(const wtrace *w, int32_t s, int64_t *start, int64_t *end)
{
	int64_t st = w->v[w->seg0[s]].start;

	*start = w->arrival[s] < st ? w->arrival[s] : st;
	*end = w->v[w->final[s]].end;
}

/* Whether span a of wa waited for span b of wb: a started first, or
 * starting together ends last (a strict order, so no two spans wait for
 * each other). */
static int
waits_for(const wtrace *wa, int32_t a, const wtrace *wb, int32_t b)
{
	int64_t as, ae, bs, be;

	span_time(wa, a, &as, &ae);
	span_time(wb, b, &bs, &be);
	return as < bs || (as == bs && ae > be);
}

static void
note(temporal *tp, const tp_linknote *n)
{
	for (size_t i = 0; i < tp->nnotes; i++)
		if (!n->w && !tp->notes[i].w && strcmp(tp->notes[i].trace_id, n->trace_id) == 0)
			return;	/* one note a trace outside the input */
	GROW(tp->notes, tp->capnotes, tp->nnotes + 1);
	tp->notes[tp->nnotes++] = *n;
}

static int
is_call(const tp_task *t, const wtrace *w, int32_t v)
{
	return t->base == ROLE_LINK && t->w == w && t->v == v && !t->leaf;
}

/* Whether vertex v of w is already the target of a link call (a second
 * waiter on the same linked span takes its share as a leaf): among the
 * tasks, and the nq found now. */
static int
claimed(const temporal *tp, const wtrace *w, int32_t v, size_t nq)
{
	for (size_t i = 0; i < tp->ntasks; i++)
		if (is_call(&tp->tasks[i], w, v))
			return 1;
	for (size_t i = 0; i < nq; i++)
		if (is_call(&tp->linkq[i], w, v))
			return 1;
	return 0;
}

/* A scan of what a query follows: where the waiter's own time stands. */
typedef struct follow {
	int32_t ti;
	int64_t cur, te;
	size_t nq;
	int64_t linked;
} follow;

/* The waiter (task f->ti, own time from f->cur to f->te) and linked span
 * x of o: their overlap goes to x. */
static void
take(temporal *tp, follow *f, const wtrace *o, int32_t x)
{
	const tp_task *t = &tp->tasks[f->ti];
	int64_t xs, xe;

	if (o->final[x] < 0 || !waits_for(t->w, t->w->v[t->v].span, o, x))
		return;
	span_time(o, x, &xs, &xe);
	int64_t os = xs > f->cur ? xs : f->cur, oe = xe < f->te ? xe : f->te;
	if (oe <= os)
		return;	/* no overlap: the link explains nothing here */
	int32_t v = o->final[x];
	/* the linked span ended inside: annotated from its end as a
	 * precondition is; else its share so far, as a leaf */
	int leaf = oe != xe || claimed(tp, o, v, f->nq);
	tp_task c = {.w = (wtrace *)o, .v = leaf ? o->seg0[x] : v, .res = -1, .parent = f->ti,
		     .ts = os, .te = oe, .self = leaf ? oe - os : 0, .role = ROLE_LINK,
		     .base = ROLE_LINK, .leaf = (uint8_t)leaf};

	if (!leaf && o->v[v].kind == TV_TRANSIT)
		c.role = ROLE_TRANSIT;
	GROW(tp->linkq, tp->caplinkq, f->nq + 1);
	tp->linkq[f->nq++] = c;
	note(tp, &(tp_linknote){.w = o, .span = x, .waiter = t->w->v[t->v].span, .ww = t->w,
				.delay = oe - os});
	f->cur = oe;
	f->linked += oe - os;
}

/* The spans w's span s links to, in other traces. */
static void
follow_out(temporal *tp, follow *f, int32_t s)
{
	wtrace *w = tp->tasks[f->ti].w;

	for (size_t r = 0; r < w->t.nrefs; r++) {
		const tr_ref *ref = &w->t.refs[r];

		if (ref->span != s || !waited_link(&w->t, ref))
			continue;
		wtrace *o = tpg_lookup(tp, ref->trace_id);
		int32_t x = o ? tr_trace_find(&o->t, ref->span_id) : -1;

		if (x < 0)
			note(tp, &(tp_linknote){.waiter = s, .ww = w, .trace_id = ref->trace_id});
		else
			take(tp, f, o, x);
	}
}

/* The spans of other traces that link to w's span s. */
static void
follow_in(temporal *tp, follow *f, int32_t s)
{
	wtrace *w = tp->tasks[f->ti].w;
	const char *id = w->t.trace_id, *sid = w->t.spans[s].span_id;
	strmap_slot *slot = strmap_get(&tp->xref_ids, id, strlen(id));

	for (int32_t i = slot ? (int32_t)slot->val : -1; i >= 0; i = tp->xrefs[i].next) {
		const tp_xref *e = &tp->xrefs[i];
		wtrace *o = buffered(tp, e->serial);

		if (o && o != w && strcmp(o->t.refs[e->ref].span_id, sid) == 0)
			take(tp, f, o, e->span);
	}
}

size_t
tpl_follow(temporal *tp, int32_t ti, int64_t T, int64_t *linked)
{
	const tp_task *t = &tp->tasks[ti];
	int32_t s = t->w->v[t->v].span;
	follow f = {.ti = ti, .cur = T, .te = t->te};

	*linked = 0;
	if (f.te <= T)
		return 0;
	follow_out(tp, &f, s);
	follow_in(tp, &f, s);
	*linked = f.linked;
	return f.nq;
}

/* "service:operation" of span s of w. */
static void
add_span(strbuf *b, const wtrace *w, int32_t s)
{
	sb_addf(b, "%s:%s", w->t.spans[s].service, w->t.spans[s].operation);
}

/* The share of the delay that went to linked trace notes[i].w, counted at
 * its first note; -1 at the others. */
static int64_t
linked_delay(const temporal *tp, size_t i)
{
	int64_t delay = 0;

	for (size_t j = 0; j < tp->nnotes; j++)
		if (tp->notes[j].w == tp->notes[i].w) {
			if (j < i)
				return -1;
			delay += tp->notes[j].delay;
		}
	return delay;
}

void
tpl_write_explain(temporal *tp, strbuf *b, int64_t total)
{
	if (!tp->nnotes)
		return;
	sb_adds(b, "  links:\n");
	for (size_t i = 0; i < tp->nnotes; i++) {
		const tp_linknote *n = &tp->notes[i];
		int64_t delay = n->w ? linked_delay(tp, i) : -1;

		if (delay < 0)
			continue;
		sb_addf(b, "    work in linked trace %s", n->w->t.trace_id);
		if (n->w->root >= 0) {
			sb_adds(b, " (");
			add_span(b, n->w, n->w->root);
			sb_addc(b, ')');
		}
		sb_adds(b, " = ");
		tp_add_dur(b, delay, tp->o.units);
		sb_adds(b, " (");
		tp_add_pct(b, delay, total);
		sb_adds(b, "), waited for by ");
		add_span(b, n->ww, n->waiter);
		sb_addc(b, '\n');
	}
	for (size_t i = 0; i < tp->nnotes; i++) {
		const tp_linknote *n = &tp->notes[i];

		if (n->w)
			continue;
		sb_adds(b, "    note: ");
		add_span(b, n->ww, n->waiter);
		sb_addf(b, " links to trace %s, which is not in the input (or further than -w/2 "
			"traces away): not followed\n", n->trace_id);
	}
}

void
tpl_emit(temporal *tp, const wtrace *w)
{
	strbuf root = {0};

	for (size_t i = 0; i < tp->nnotes; i++) {
		const tp_linknote *n = &tp->notes[i];
		int64_t delay = n->w ? linked_delay(tp, i) : -1;

		if (delay < 0)
			continue;
		sb_clear(&root);
		if (n->w->root >= 0)
			add_span(&root, n->w, n->w->root);
		tp_link_row row = {w->t.trace_id, n->w->t.trace_id, root.s ? root.s : "", delay,
				   tp->q_te - tp->q_ts};
		tp->o.on_link(tp->o.link_ctx, &row);
	}
	sb_free(&root);
}

void
tpl_free(temporal *tp)
{
	strmap_free(&tp->xref_ids);
	arena_free(&tp->xref_mem);
	free(tp->xrefs);
	free(tp->notes);
	free(tp->linkq);
}
