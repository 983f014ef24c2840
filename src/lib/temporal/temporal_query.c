/* temporal_query.c - Zeno's ANNOTATE (Fig. 6) without recursion.
 *
 * ANNOTATE(v, [ts, te]) decides the intervals of its calls from v alone
 * (the end times of its preconditions, the start times along its sequencing
 * chain), never from what the calls return. So a call is a task on a stack:
 * pop it, weight v with te - ts, push the calls it makes. Printed line 19,
 * E <- t_start(s), contradicts the assertion t_e = t_end(v) of the call it
 * feeds; as the proof of Lemma 7 says, E starts at t_start(v). A gap on a
 * resource with no segment that explains it (idle time: unsampled or
 * uninstrumented work) goes to an explicit unexplained@RESOURCE task, and a
 * vertex that occupies no resource keeps a gap before its start as its own
 * time, so the self times always add up to the root's duration. */
#include "temporal_impl.h"

#include <stdlib.h>
#include <string.h>

static void
violation(temporal *tp, wtrace *w, const char *what)
{
	tp->violations++;
	if (tp->o.check)
		tr_trace_warn(&w->t, "invariant broken: %s", what);
}

static int32_t
push(temporal *tp, const tp_task *x)
{
	GROW(tp->tasks, tp->captasks, tp->ntasks + 1);
	tp->tasks[tp->ntasks] = *x;
	return (int32_t)tp->ntasks++;
}

/* The base role of a vertex reached from a task of base role 'from'. */
static uint8_t
base_role(const wtrace *q, const wtrace *w, const tp_vert *x, int from, int seq)
{
	if (seq || from == ROLE_SEQ)
		return ROLE_SEQ;
	if (from == ROLE_LINK)
		return ROLE_LINK;
	if (from == ROLE_OFFPATH || w != q || !w->in_main[x->span])
		return ROLE_OFFPATH;
	return ROLE_ONPATH;
}

/* The sender of an external message transit, resolved in the window now. */
static int
resolve_ext(temporal *tp, wtrace *w, tp_vert *x, wtrace **sw, int32_t *sv)
{
	const tp_ext *e = &w->exts[x->ext];
	wtrace *o = tpg_lookup(tp, e->trace_id);
	int32_t s;

	if (!o || (s = tr_trace_find(&o->t, e->span_id)) < 0 || o->final[s] < 0)
		return 0;
	if (o->v[o->final[s]].end > x->end)
		return 0;	/* it ended after the message arrived: not its cause */
	x->start = o->v[o->final[s]].end;
	*sw = o;
	*sv = o->final[s];
	return 1;
}

static void
call(temporal *tp, int32_t parent, wtrace *w, int32_t v, int64_t ts, int64_t te, int seq)
{
	tp_task *p = &tp->tasks[parent];
	tp_task c = {.w = w, .v = v, .res = -1, .parent = parent, .ts = ts, .te = te};

	if (ts < p->ts || te > p->te)
		violation(tp, p->w, "a call's interval is outside its caller's");
	c.base = base_role(tp->tasks[0].w, w, &w->v[v], p->base, seq);
	c.role = w->v[v].kind == TV_TRANSIT ? ROLE_TRANSIT : c.base;
	c.seq_edge = (uint8_t)seq;
	push(tp, &c);
}

static void
unexplained(temporal *tp, int32_t parent, int32_t res, int64_t ts, int64_t te)
{
	tp_task c = {.w = tp->tasks[parent].w, .v = -1, .res = res, .parent = parent,
		     .ts = ts, .te = te, .self = te - ts, .role = ROLE_UNEXPLAINED,
		     .base = ROLE_UNEXPLAINED, .seq_edge = 1};

	push(tp, &c);
}

/* What remains after the last precondition, [T, start(v)), goes back along
 * the worker chain; each predecessor takes its own time. */
static void
sequencing(temporal *tp, int32_t ti, int64_t T)
{
	tp_task *t = &tp->tasks[ti];
	wtrace *w = t->w, *sw;
	int32_t v = t->v, sv;
	int32_t res = w->v[v].res;
	int64_t E = w->v[v].start;
	int have = tpg_pred(tp, w, v, &sw, &sv);

	while (T < E) {
		if (!have) {
			unexplained(tp, ti, res, T, E);
			break;
		}
		const tp_vert *s = &sw->v[sv];
		if (s->end < E) {	/* the resource was idle before E */
			unexplained(tp, ti, res, T > s->end ? T : s->end, E);
			E = s->end;
			continue;
		}
		call(tp, ti, sw, sv, T > s->start ? T : s->start, E, 1);
		E = s->start;
		have = tpg_pred(tp, sw, sv, &sw, &sv);
	}
}

/* One ANNOTATE call: weight, calls for preconditions, sequencing, self. */
static void
annotate_one(temporal *tp, int32_t ti)
{
	tp_task *t = &tp->tasks[ti];
	wtrace *w = t->w;
	tp_vert *x = &w->v[t->v];
	int64_t T = t->ts, te = t->te;

	if (x->stamp == tp->stamp)
		violation(tp, w, "a vertex is annotated twice");
	x->stamp = tp->stamp;
	if (x->ext >= 0) {
		wtrace *sw;
		int32_t sv;

		if (resolve_ext(tp, w, x, &sw, &sv) && sw->v[sv].end > T) {
			call(tp, ti, sw, sv, T, sw->v[sv].end, 0);
			T = sw->v[sv].end;
		}
	}
	for (uint32_t i = 0; i < x->npre; i++) {
		int32_t c = w->pre[x->pre + i];
		const tp_vert *cv = &w->v[c];

		if (cv->kind == TV_TRANSIT && cv->ext >= 0) {
			wtrace *sw;
			int32_t sv;

			if (!resolve_ext(tp, w, &w->v[c], &sw, &sv))
				continue;	/* sender not in the window: no such edge */
		}
		if (cv->end <= T)
			continue;	/* satisfied before the interval: no delay */
		if (cv->end > x->start && x->kind == TV_SEG) {
			violation(tp, w, "a precondition ends after its vertex starts");
			continue;
		}
		call(tp, ti, w, c, T, cv->end, 0);
		T = cv->end;
		t = &tp->tasks[ti];
	}
	if (T > te) {
		violation(tp, w, "preconditions end after the interval");
		T = te;
	}
	if (x->res >= 0 && T < x->start) {
		sequencing(tp, ti, T);
		T = x->start;
	}
	/* own time covered by a linked span of another trace is its work */
	int64_t linked = 0;
	size_t nlinks = tp->xrefs_seen && x->kind == TV_SEG ? tpl_follow(tp, ti, T, &linked) : 0;
	for (size_t i = 0; i < nlinks; i++)
		push(tp, &tp->linkq[i]);
	t = &tp->tasks[ti];
	t->self = te - T - linked;
}

int32_t
tpq_span(const temporal *tp, const wtrace *w)
{
	if (tp->o.span)
		return tr_trace_find(&w->t, tp->o.span);
	return w->root;
}

/* With end_to_end, the span below span (itself included) that ends last:
 * the last consumer of an asynchronous request. */
static int32_t
last_below(const wtrace *w, int32_t span)
{
	const tr_trace *t = &w->t;
	int32_t best = span, *stack = xmalloc((t->nspans + 1) * sizeof *stack);
	size_t n = 0;

	stack[n++] = span;
	while (n) {
		int32_t p = stack[--n];

		if (w->final[p] >= 0 && w->v[w->final[p]].end > w->v[w->final[best]].end)
			best = p;
		for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
			stack[n++] = c;
	}
	free(stack);
	return best;
}

int64_t
tpq_question_start(const wtrace *w, int32_t s)
{
	int32_t v0 = w->seg0[s];
	int64_t at = w->arrival[s] < w->v[v0].start ? w->arrival[s] : w->v[v0].start;

	/* an inferred arrival ends the transit that brought the request */
	for (uint32_t i = 0; w->inferred[s] && i < w->v[v0].npre; i++) {
		const tp_vert *x = &w->v[w->pre[w->v[v0].pre + i]];

		if (x->kind == TV_TRANSIT && x->span == s && x->end < at)
			at = x->end;
	}
	return at;
}

/* A new query: no task, no note, a new stamp. */
static void
begin(temporal *tp)
{
	tp->ntasks = 0;
	tp->nnotes = 0;
	tp->violations = 0;
	if (++tp->stamp == 0)
		tp->stamp = 1;
}

void
tpq_annotate_at(temporal *tp, wtrace *w, int32_t span, int32_t v, int64_t ts, int64_t te)
{
	begin(tp);
	tp->q_span = tp->q_last = span;
	tp->q_ts = ts;
	tp->q_te = te;
	tp_task r = {.w = w, .v = v, .res = -1, .parent = -1,
		     .ts = tp->q_ts, .te = tp->q_te, .role = ROLE_ONPATH, .base = ROLE_ONPATH};

	push(tp, &r);
	/* Tasks are processed in creation order: a task only adds tasks after
	 * itself, so the array is its own work list (breadth first, no stack). */
	for (size_t i = 0; i < tp->ntasks; i++)
		if (tp->tasks[i].v >= 0 && tp->tasks[i].te > tp->tasks[i].ts && !tp->tasks[i].leaf)
			annotate_one(tp, (int32_t)i);
	int64_t sum = 0;
	for (size_t i = 0; i < tp->ntasks; i++)
		sum += tp->tasks[i].self;
	if (sum != tp->q_te - tp->q_ts)
		violation(tp, w, "the self times do not add up to the root's duration");
}

int
tpq_annotate(temporal *tp, wtrace *w, int32_t span)
{
	if (span < 0 || w->final[span] < 0) {
		begin(tp);
		return -1;
	}
	int32_t last = tp->o.end_to_end ? last_below(w, span) : span;

	/* a wait before the span's work is part of the question, as it is of
	 * its caller's: recorded, or inferred for a called span (a root has
	 * no caller's send time to infer it from) */
	tpq_annotate_at(tp, w, span, w->final[last], tpq_question_start(w, span),
			w->v[w->final[last]].end);
	tp->q_last = last;
	return 0;
}
