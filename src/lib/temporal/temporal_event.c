/* temporal_event.c - Zeno's T-QUERY(e1, e2): the delay between two causally
 * related events of one trace, ANNOTATE(v2, [t(e1), t(e2)]) where v2 is the
 * vertex that holds e2. An event is a span's start, its end, or its first
 * log with event=NAME (in the segment of the span in which it falls). The
 * two must be causally related: a path of preconditions leads from e2's
 * vertex back to e1's. A start that opens a question is the span's
 * arrival, recorded or inferred (Zeno §6): the queue before a server span
 * is part of the delay asked about. */
#include "temporal_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/args.h"

enum { FROM, TO };

void
tp_event_parse(tp_event *e, const char *opt, const char *arg)
{
	const char *log = strstr(arg, ":log="), *colon = strrchr(arg, ':');
	size_t len;

	e->text = arg;
	e->log = NULL;
	if (log) {
		e->kind = TP_EV_LOG;
		e->log = log + 5;
		len = (size_t)(log - arg);
	} else if (colon && (strcmp(colon + 1, "start") == 0 || strcmp(colon + 1, "end") == 0)) {
		e->kind = colon[1] == 's' ? TP_EV_START : TP_EV_END;
		len = (size_t)(colon - arg);
	} else
		len = 0;
	if (!len || len >= sizeof e->span || (e->log && !*e->log))
		tr_usage_error("%s %s: not SPAN:start, SPAN:end or SPAN:log=NAME (SPAN: an id, or "
			       "service:operation)", opt, arg);
	memcpy(e->span, arg, len);
	e->span[len] = '\0';
}

void
tp_events_check(const tp_opts *o, int baseline)
{
	const tp_event *f = o->from, *t = o->to;

	if (!f != !t)
		tr_usage_error("--from and --to go together: the delay between two events");
	if (f && (o->span || o->end_to_end || baseline))
		tr_usage_error("--from and --to ask about two events: not with --span, --end-to-end or --baseline");
	/* within one span, an end comes after its start and its logs */
	if (f && strcmp(f->span, t->span) == 0 && f->kind > t->kind)
		tr_usage_error("--from %s --to %s: backwards: the span's %s comes first", f->text, t->text,
			       t->kind == TP_EV_START ? "start" : "log");
}

/* The span of w that e names: by id, else by service:operation when one
 * span has it; -1 when none, -2 when several. */
static int32_t
event_span(const wtrace *w, const tp_event *e)
{
	const tr_trace *t = &w->t;
	int32_t s = tr_trace_find(t, e->span), found = -1;

	if (s >= 0)
		return s;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *x = &t->spans[i];
		size_t n = strlen(x->service);

		if (strncmp(e->span, x->service, n) == 0 && e->span[n] == ':' &&
		    strcmp(e->span + n + 1, x->operation) == 0) {
			if (found >= 0)
				return -2;
			found = (int32_t)i;
		}
	}
	return found;
}

/* The value of the event tag of log g, or NULL. */
static const char *
log_event(const tr_log *g)
{
	for (uint32_t k = 0; k < g->ntags; k++)
		if (strcmp(g->tags[k].key, "event") == 0)
			return g->tags[k].val;
	return NULL;
}

/* The first log (in time) of span s named name; -1 when none. */
static int32_t
first_log(const tr_trace *t, int32_t s, const char *name)
{
	int32_t best = -1;

	for (int32_t l = t->spans[s].first_log; l >= 0; l = t->logs[l].next) {
		const char *ev = log_event(&t->logs[l]);

		if (ev && strcmp(ev, name) == 0 && (best < 0 || t->logs[l].time < t->logs[best].time))
			best = l;
	}
	return best;
}

/* An event placed: the vertex that holds it and its time. */
typedef struct ev_at {
	int32_t span, v;
	int64_t t;
} ev_at;

/* Where e is in w; 0, or -1 (with the reason in tp's notes for the
 * verdict) when w has no such event. */
static int
place(temporal *tp, const wtrace *w, const tp_event *e, int side, ev_at *at)
{
	const tr_trace *t = &w->t;
	int32_t s = event_span(w, e), l;

	if (s == -2)
		tp->ev_ambiguous[side]++;
	if (s < 0 || w->final[s] < 0)
		return -1;
	tp->ev_span_seen[side] = 1;
	at->span = s;
	if (e->kind != TP_EV_LOG) {
		at->v = e->kind == TP_EV_START ? w->seg0[s] : w->final[s];
		at->t = e->kind == TP_EV_END ? w->v[at->v].end
			: side == FROM ? tpq_question_start(w, s) : w->v[at->v].start;
		return 0;
	}
	if ((l = first_log(t, s, e->log)) < 0)
		return -1;
	tp->ev_log_seen[side] = 1;
	/* in the span's own clock: moved as its start was */
	int64_t shift = w->v[w->seg0[s]].start - t->spans[s].start;
	int64_t lt = t->logs[l].time + shift;
	int32_t v = w->seg0[s];

	while (v < w->final[s] && w->v[v + 1].start <= lt)
		v++;
	if (lt < w->v[v].start)
		lt = w->v[v].start;
	if (side == TO && lt > w->v[v].end)	/* while it waited: as its segment ended */
		lt = w->v[v].end;
	at->v = v;
	at->t = lt;
	return 0;
}

/* Does a path of preconditions lead from vertex to back to vertex from? */
static int
reaches(temporal *tp, wtrace *w, int32_t to, int32_t from)
{
	int32_t *q = xmalloc((w->nv + 1) * sizeof *q);
	size_t n = 0, head = 0;
	int found = 0;

	if (++tp->stamp == 0)
		tp->stamp = 1;
	q[n++] = to;
	w->v[to].stamp = tp->stamp;
	while (head < n && !found) {
		const tp_vert *x = &w->v[q[head++]];

		found = q[head - 1] == from;
		for (uint32_t i = 0; i < x->npre; i++) {
			int32_t p = w->pre[x->pre + i];

			if (w->v[p].stamp != tp->stamp) {
				w->v[p].stamp = tp->stamp;
				q[n++] = p;
			}
		}
	}
	free(q);
	return found;
}

int
tpe_annotate(temporal *tp, wtrace *w)
{
	const tp_event *f = tp->o.from, *t = tp->o.to;
	ev_at a, b;

	int fa = place(tp, w, f, FROM, &a), fb = place(tp, w, t, TO, &b);

	if (fa < 0 || fb < 0)	/* both placed: each seen where it is */
		return -1;
	tp->st.span_found++;
	if (a.t > b.t) {
		tp->unrelated++;
		tr_warn("--from %s --to %s: not causally related (trace %s: the first event is the "
			"later one)", f->text, t->text, w->t.trace_id);
		return -1;
	}
	if (!reaches(tp, w, b.v, a.v)) {
		tp->unrelated++;
		tr_warn("--from %s --to %s: not causally related (trace %s: no path of causes leads "
			"from the first to the second)", f->text, t->text, w->t.trace_id);
		return -1;
	}
	tpq_annotate_at(tp, w, b.span, b.v, a.t, b.t);
	return 0;
}

/* The closest span id or service:operation of w to name, into *near. */
static void
closest_span(const wtrace *w, const char *name, char **near)
{
	const tr_trace *t = &w->t;
	const char **names = xmalloc((2 * t->nspans + 1) * sizeof *names);
	strbuf b = {0};
	size_t *at = xmalloc((t->nspans + 1) * sizeof *at);

	for (size_t i = 0; i < t->nspans; i++) {
		at[i] = b.len;
		sb_addf(&b, "%s:%s", t->spans[i].service, t->spans[i].operation);
		sb_addc(&b, '\0');
	}
	for (size_t i = 0; i < t->nspans; i++) {
		names[i] = t->spans[i].span_id;
		names[t->nspans + i] = b.s + at[i];
	}
	const char *c = closest_name(name, names, 2 * t->nspans);
	if (c)
		*near = xstrdup(c);
	free(names);
	free(at);
	sb_free(&b);
}

void
tpe_missed(temporal *tp, const wtrace *w)
{
	const tp_event *e[2] = {tp->o.from, tp->o.to};

	for (int i = 0; i < 2; i++)
		if (!tp->ev_near[i] && !tp->ev_span_seen[i] && event_span(w, e[i]) == -1)
			closest_span(w, e[i]->span, &tp->ev_near[i]);
}

int
tp_events_verdict(const temporal *tp, int status)
{
	static const char *const opt[2] = {"--from", "--to"};
	const tp_event *e[2] = {tp->o.from, tp->o.to};
	int missing = 0;

	if (!e[0])
		return status;
	for (int i = 0; i < 2 && !tp->st.span_found; i++) {
		const char *near = tp->ev_near[i];

		if (tp->ev_ambiguous[i] && !tp->ev_span_seen[i])
			tr_warn("%s %s: several spans are %s: name one by its id", opt[i], e[i]->text,
				e[i]->span);
		else if (!tp->ev_span_seen[i] && near)
			tr_warn("%s %s: no trace has span %s (did you mean %s?)", opt[i], e[i]->text,
				e[i]->span, near);
		else if (!tp->ev_span_seen[i])
			tr_warn("%s %s: no trace has span %s", opt[i], e[i]->text, e[i]->span);
		else if (e[i]->kind == TP_EV_LOG && !tp->ev_log_seen[i])
			tr_warn("%s %s: span %s has no log event=%s", opt[i], e[i]->text, e[i]->span,
				e[i]->log);
		else
			continue;
		missing = 1;
	}
	if (!tp->st.span_found && !missing) {
		tr_warn("--from %s --to %s: no trace has both events", e[0]->text, e[1]->text);
		missing = 1;
	}
	if (missing && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
		return TR_EXIT_USAGE;
	if (tp->unrelated && status == TR_EXIT_OK)
		return TR_EXIT_INPUT;
	return status;
}
