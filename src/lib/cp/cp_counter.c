/* cp_counter.c - the counterfactual what-if: work removed (trace=ID:remove,
 * service=X:remove), waits replaced by the baseline's (wait=baseline), and
 * scale and minus acting on the work of every trace.
 *
 * A request is delayed by work in other traces through the resources they
 * share (service@host): a server that started late waited in its queue
 * (recorded: queue.wait_us, an enqueue log; else inferred as tr-temporal
 * does, the request's transit taken as its response's). Every trace is
 * kept; each one's tree is re-laid (cp_whatif.c) to know its spans' new
 * durations and when they become ready. Then, to a fixed point: the
 * resource timelines are laid again from those ready times
 * (tp_whatif_relay: work-conserving, first come, first served),
 * which says how much each queue shrank or grew; each request whose queues
 * changed has its tree re-laid with its spans starting that much earlier
 * (or later), never more than the queue they had, which gives new ready
 * times and durations; until nothing moves, or WHATIF_ROUNDS rounds. A
 * wait=baseline span waits what the baseline's calls of the same service
 * and operation waited on average (Carata, eqs. 3.2-3.3: latency - wait +
 * baseline wait), and holds its resource from then on. */
#include <stdlib.h>
#include <string.h>

#include "cp/whatif_impl.h"
#include "core/format.h"
#include "core/json.h"
#include "temporal/temporal.h"

/* The rounds of resources and trees laid before the what-if gives up on a
 * fixed point (said in the assumptions). */
#define WHATIF_ROUNDS 64

int
cp_whatif_counterfactual(const cp_whatif *w)
{
	return w && w->counter;
}

int
cp_whatif_wants_baseline(const cp_whatif *w)
{
	for (size_t i = 0; i < w->nrules; i++)
		if (w->rule[i].kind == WR_WAIT)
			return 1;
	return 0;
}

void
cp_whatif_keep(cp_whatif *w, tr_trace *t, int picked)
{
	tr_trace *k = xcalloc(1, sizeof *k);

	/* the reader's trace is only valid until its next call: take it whole */
	k->files = t->files;
	tr_trace_swap(k, t);
	GROW(w->kept, w->capkept, w->nkept + 1);
	w->kept[w->nkept++] = (whatif_kept){k, picked};
}

/* The first rule that matches s, without counting anything. */
static const whatif_rule *
rule_of(const cp_whatif *w, const tr_trace *t, const tr_span *s)
{
	for (size_t i = 0; i < w->nrules; i++)
		if (cpw_rule_matches(&w->rule[i], t, s))
			return &w->rule[i];
	return NULL;
}

static int
occupies(const tr_trace *t, int32_t s)
{
	const tr_span *x = &t->spans[s], *p = x->parent >= 0 ? &t->spans[x->parent] : NULL;

	if (!(x->flags & TR_SPAN_HAS_TIME) || x->kind == TR_KIND_CLIENT || x->kind == TR_KIND_PRODUCER)
		return 0;
	/* work nested in a span of the same resource holds no worker of its own */
	return !p || strcmp(p->service, x->service) != 0 || strcmp(p->host, x->host) != 0;
}

/* The queue wait span s can lose: the recorded one, or the time a server
 * (or consumer) started after its client's request could have arrived,
 * the request's transit taken as its response's. */
static int64_t
queue_of(const cp_whatif *w, const tr_trace *t, const cp_trace *c, int analysed, int32_t s)
{
	const tr_span *x = &t->spans[s];
	int32_t p = x->parent;
	int64_t q;

	if (p < 0 || t->spans[p].kind != TR_KIND_CLIENT ||
	    (x->kind != TR_KIND_SERVER && x->kind != TR_KIND_CONSUMER))
		return w->qwait[s];
	if (analysed && c->state[s] != CP_OFF && c->state[p] != CP_OFF)
		q = (c->start[s] - c->start[p]) - (c->end[p] - c->end[s]);
	else
		q = (x->start - t->spans[p].start) -
		    (tr_span_end(&t->spans[p]) - tr_span_end(x));
	return q > w->qwait[s] ? q : w->qwait[s];
}

static struct base_wait *
base_of(cp_whatif *w, const tr_span *s, int add)
{
	strbuf *key = &w->base_key;
	strmap_slot *slot;
	int added = 0;

	sb_clear(key);
	sb_addf(key, "%s\t%s", s->service, s->operation);
	slot = add ? strmap_intern(&w->base_ids, &w->mem, key->s, key->len, &added)
		   : strmap_get(&w->base_ids, key->s, key->len);
	if (added) {
		GROW(w->base, w->capbase, w->nbase + 1);
		w->base[w->nbase++] = (struct base_wait){0, 0};
	}
	return slot ? &w->base[slot->val] : NULL;
}

void
cp_whatif_baseline_add(cp_whatif *w, const tr_trace *t, const cp_trace *c)
{
	w->nbaseline++;
	cpw_reserve(w, t->nspans ? t->nspans : 1);
	tr_trace_queue_waits(t, w->qwait);
	for (size_t i = 0; i < t->nspans; i++) {
		const whatif_rule *r = rule_of(w, t, &t->spans[i]);

		if (r && r->kind == WR_WAIT && (t->spans[i].flags & TR_SPAN_HAS_TIME)) {
			struct base_wait *b = base_of(w, &t->spans[i], 1);
			int64_t q = queue_of(w, t, c, 1, (int32_t)i);

			b->sum += q > 0 ? q : 0;
			b->n++;
		}
	}
}

/* What the re-lay needs of every kept trace: per span (at off[i] + s) its
 * queue wait, where its segment is (-1: none) and the cut it gets. */
typedef struct counter_run {
	cp_trace *c;
	size_t *off;
	int64_t *qcap, *cut;
	int64_t *moved;			/* per span: how much later it became ready */
	int32_t *seg;
	tp_wseg *segs;
	size_t nsegs, capsegs;
	size_t *nmatched;
	uint8_t *removed;		/* per trace: its request is gone */
	uint8_t *dirty;			/* per trace: a cut changed this round */
	strmap res_ids;
	arena res_mem;
	strbuf name;			/* a resource's name being made */
} counter_run;

static void
add_segment(counter_run *k, const tr_trace *t, int32_t s, int64_t q, int64_t newdur)
{
	const tr_span *x = &t->spans[s];
	int added;

	sb_clear(&k->name);
	sb_addf(&k->name, "%s@%s", x->service, x->host);
	strmap_slot *slot = strmap_intern(&k->res_ids, &k->res_mem, k->name.s, k->name.len, &added);
	GROW(k->segs, k->capsegs, k->nsegs + 1);
	k->segs[k->nsegs++] = (tp_wseg){(int32_t)slot->val, x->start - q, x->start, x->duration,
					newdur, x->start - q, -1, 0};
}

/* A span's new duration in the what-if, from its tree's re-lay when it
 * was analysed (the sanitised tree may have moved its ends); -1: gone. */
static int64_t
new_duration(const cp_whatif *w, const tr_trace *t, const cp_trace *c, int analysed, int32_t s,
	     const whatif_rule *r, int removed)
{
	int64_t d = t->spans[s].duration;

	if (removed || (r && r->kind == WR_REMOVE))
		return -1;
	if (analysed && c->state[s] != CP_OFF)
		d += w->dur[s] - (c->end[s] - c->start[s]);
	return d < 0 ? 0 : d;
}

/* Trace i's segments from its tree just re-laid: when they become ready
 * and how long they take. Returns whether one changed. */
static int
update_segments(cp_whatif *w, counter_run *k, size_t i)
{
	const tr_trace *t = w->kept[i].t;
	const cp_trace *c = k->c;
	int64_t *moved = k->moved + k->off[i];
	int changed = 0;

	cpw_ready_shifts(w, c, moved);
	for (size_t s = 0; s < t->nspans; s++) {
		int32_t at = k->seg[k->off[i] + s];
		tp_wseg *g = at >= 0 ? &k->segs[at] : NULL;
		int64_t dur;

		if (!g || c->state[s] == CP_OFF)
			continue;
		dur = t->spans[s].duration + w->dur[s] - (c->end[s] - c->start[s]);
		dur = g->newdur < 0 ? -1 : dur < 0 ? 0 : dur;
		changed |= g->newready != g->ready + moved[s] || g->newdur != dur;
		g->newready = g->ready + moved[s];
		g->newdur = dur;
	}
	return changed;
}

/* Span s of trace i under a wait=baseline rule: the wait it gets, fixed
 * (its own when the baseline has no such call), and the cut that makes. */
static void
baseline_wait(cp_whatif *w, counter_run *k, const tr_trace *t, size_t i, size_t s)
{
	const struct base_wait *b = base_of(w, &t->spans[s], 0);
	size_t at = k->off[i] + s;
	int64_t wait = b && b->n ? b->sum / (int64_t)b->n : k->qcap[at];

	k->cut[at] = k->qcap[at] - wait;
	if (k->seg[at] >= 0)
		k->segs[k->seg[at]].wait = wait;
	w->nwaits += b && b->n;
	w->nwaits_unknown += !(b && b->n);
}

/* Trace i: its tree re-laid as the rules say, its queues and segments. */
static void
gather(cp_whatif *w, counter_run *k, size_t i)
{
	const tr_trace *t = w->kept[i].t;
	cp_trace *c = k->c;
	int analysed = cp_trace_run(c, t) == 0;
	const whatif_rule *rr;

	cpw_reserve(w, t->nspans ? t->nspans : 1);
	if (analysed)
		k->nmatched[i] = cpw_relay_trace(w, t, c, 1);
	else
		tr_trace_queue_waits(t, w->qwait);
	rr = analysed ? rule_of(w, t, &t->spans[c->root]) : t->nroots ? rule_of(w, t, &t->spans[t->roots[0]]) : NULL;
	k->removed[i] = rr && rr->kind == WR_REMOVE;
	for (size_t s = 0; s < t->nspans; s++) {
		size_t at = k->off[i] + s;
		const whatif_rule *r = rule_of(w, t, &t->spans[s]);

		k->qcap[at] = (t->spans[s].flags & TR_SPAN_HAS_TIME) ? queue_of(w, t, c, analysed, (int32_t)s) : 0;
		k->qcap[at] = k->qcap[at] > 0 ? k->qcap[at] : 0;
		k->seg[at] = -1;
		if (occupies(t, (int32_t)s)) {
			k->seg[at] = (int32_t)k->nsegs;
			add_segment(k, t, (int32_t)s, k->qcap[at],
				    new_duration(w, t, c, analysed, (int32_t)s, r, k->removed[i]));
		}
		if (r && r->kind == WR_WAIT)	/* its wait is the baseline's, not the queue's */
			baseline_wait(w, k, t, i, s);
		else if (r && r->kind == WR_REMOVE)	/* no work: nothing to wait for */
			k->cut[at] = k->qcap[at];
		w->nqueued += k->qcap[at] > 0;
	}
	if (analysed && !k->removed[i])
		update_segments(w, k, i);
}

/* Trace i re-laid with its spans' cuts; its segments from that. Returns
 * whether one of them changed. */
static int
relay_request(cp_whatif *w, counter_run *k, size_t i)
{
	const tr_trace *t = w->kept[i].t;
	int changed;

	if (k->removed[i] || cp_trace_run(k->c, t) < 0)
		return 0;
	cpw_reserve(w, t->nspans ? t->nspans : 1);
	w->cut = k->cut + k->off[i];
	w->qcap = k->qcap + k->off[i];
	cpw_relay_trace(w, t, k->c, 0);
	changed = update_segments(w, k, i);
	w->cut = w->qcap = NULL;
	return changed;
}

/* Resources and requests laid in turn until nothing moves: each round lays
 * the resources from the ready times the trees gave, takes each queue's
 * change as its span's cut, and re-lays the trees whose cuts changed. */
static void
fixed_point(cp_whatif *w, counter_run *k)
{
	size_t round;

	for (round = 0; round < WHATIF_ROUNDS; round++) {
		int again = 0;

		w->nmoved = tp_whatif_relay(k->segs, k->nsegs);
		for (size_t i = 0; i < w->nkept; i++) {
			k->dirty[i] = 0;
			for (size_t s = 0; s < w->kept[i].t->nspans; s++) {
				size_t at = k->off[i] + s;
				const tp_wseg *g = k->seg[at] >= 0 ? &k->segs[k->seg[at]] : NULL;

				if (!g || g->wait >= 0 || g->newdur < 0 || k->cut[at] == g->shift)
					continue;
				k->cut[at] = g->shift;
				k->dirty[i] = 1;
			}
		}
		for (size_t i = 0; i < w->nkept; i++)
			if (k->dirty[i] && relay_request(w, k, i))
				again = 1;
		if (!again)
			break;
	}
	w->nrounds = round < WHATIF_ROUNDS ? round + 1 : round;
	w->round_capped = round == WHATIF_ROUNDS;
}

/* Trace i's row: its tree re-laid with its spans' cuts. */
static void
predict(cp_whatif *w, counter_run *k, size_t i, strbuf *out)
{
	const tr_trace *t = w->kept[i].t;
	cp_trace *c = k->c;

	if (!w->kept[i].picked || k->removed[i] || cp_trace_run(c, t) < 0) {
		w->nremoved += k->removed[i] && w->kept[i].picked;
		return;
	}
	cpw_reserve(w, t->nspans ? t->nspans : 1);
	w->cut = k->cut + k->off[i];
	w->qcap = k->qcap + k->off[i];
	cpw_relay_trace(w, t, c, 0);
	cpw_add_latency(w, t->trace_id, cpw_latency(w, t, c, 0), cpw_latency(w, t, c, 1),
			(int64_t)k->nmatched[i], out);
	w->cut = w->qcap = NULL;
}

/* trace=ID rules that matched no trace: the closest id. */
static void
closest_ids(cp_whatif *w)
{
	strmap ids = {0};
	int added;

	for (size_t i = 0; i < w->nrules; i++) {
		whatif_rule *r = &w->rule[i];

		if (!r->trace_id || r->matched)
			continue;
		if (!ids.count)
			for (size_t j = 0; j < w->nkept; j++)
				strmap_put(&ids, w->kept[j].t->trace_id, strlen(w->kept[j].t->trace_id), &added);
		const char *near = strmap_closest(&ids, r->trace_id);
		r->near = near ? arena_strndup(&w->mem, near, strlen(near)) : NULL;
	}
	strmap_free(&ids);
}

static void
counter_rows(cp_whatif *w, strbuf *out)
{
	counter_run k = {0};
	size_t total = 0;

	k.c = xcalloc(1, sizeof *k.c);
	cp_trace_init(k.c, w->allowance);
	k.off = xmalloc((w->nkept + 1) * sizeof *k.off);
	for (size_t i = 0; i < w->nkept; i++) {
		k.off[i] = total;
		total += w->kept[i].t->nspans;
	}
	k.qcap = xcalloc(total + 1, sizeof *k.qcap);
	k.cut = xcalloc(total + 1, sizeof *k.cut);
	k.seg = xmalloc((total + 1) * sizeof *k.seg);
	k.nmatched = xcalloc(w->nkept + 1, sizeof *k.nmatched);
	k.removed = xcalloc(w->nkept + 1, sizeof *k.removed);
	k.dirty = xcalloc(w->nkept + 1, sizeof *k.dirty);
	k.moved = xcalloc(total + 1, sizeof *k.moved);
	for (size_t i = 0; i < w->nkept; i++)
		gather(w, &k, i);
	fixed_point(w, &k);
	w->nsegs = k.nsegs;
	w->nres = k.res_ids.count;
	for (size_t i = 0; i < w->nkept; i++)
		predict(w, &k, i, out);
	closest_ids(w);
	cp_trace_free(k.c);
	free(k.c);
	free(k.off);
	free(k.qcap);
	free(k.cut);
	free(k.seg);
	free(k.segs);
	free(k.nmatched);
	free(k.removed);
	free(k.dirty);
	free(k.moved);
	strmap_free(&k.res_ids);
	arena_free(&k.res_mem);
	sb_free(&k.name);
}

/* One line of the assumptions: "# text" under the tables, a string of the
 * json's "assumptions" list. */
static void
note(const cp_whatif *w, strbuf *out, int *first, const char *text)
{
	if (w->format != CP_JSON) {
		sb_adds(out, *first ? "\n# assumptions:\n# " : "# ");
		sb_adds(out, text);
		sb_addc(out, '\n');
	} else {
		sb_adds(out, *first ? ", \"assumptions\": [\n  " : ",\n  ");
		tr_json_string(out, text, strlen(text));
	}
	*first = 0;
}

static void
counter_footer(cp_whatif *w, strbuf *out)
{
	strbuf b = {0};
	int first = 1;

	note(w, out, &first, "work-conserving: a resource (service@host) does not idle while work waits "
	     "for it; its segments are re-laid first come, first served (the recorded order of service "
	     "breaks ties), on the workers their overlaps needed, each starting when it is ready and a "
	     "worker is free: a queue shrinks when the work ahead of it disappears or shrinks (Zeno, "
	     "section 3.2)");
	sb_addf(&b, "window: every trace of the input (%zu), %zu segments on %zu resources", w->nkept,
		w->nsegs, w->nres);
	note(w, out, &first, b.s);
	sb_clear(&b);
	if (w->round_capped)
		sb_addf(&b, "ready times: resources and requests re-laid in turn, stopped after %zu rounds "
			"without a fixed point: the last round's prediction", w->nrounds);
	else
		sb_addf(&b, "ready times: resources and requests re-laid in turn to a fixed point (%zu "
			"round%s): a call that comes earlier because an earlier one got faster queues anew",
			w->nrounds, w->nrounds == 1 ? "" : "s");
	note(w, out, &first, b.s);
	sb_clear(&b);
	sb_addf(&b, "queues: spans that waited: %zu (queue.wait_us, an enqueue log, or a server "
		"that started after its request could have arrived, the request's transit taken as "
		"its response's); segments whose queue the re-lay changes: %zu", w->nqueued, w->nmoved);
	note(w, out, &first, b.s);
	if (!w->nmoved && !w->nwaits) {
		sb_clear(&b);
		sb_adds(&b, "no resource overlap found that the rules change: the prediction is each "
			"request's own tree re-laid alone");
		note(w, out, &first, b.s);
	}
	if (cp_whatif_wants_baseline(w)) {
		sb_clear(&b);
		sb_addf(&b, "wait=baseline: a span waits the mean wait per call of the baseline's spans "
			"of the same service and operation (%zu baseline traces; latency - wait + "
			"baseline wait, Carata eqs. 3.2-3.3); spans with no such call in the "
			"baseline, which keep their wait: %zu", w->nbaseline, w->nwaits_unknown);
		note(w, out, &first, b.s);
	}
	if (w->nremoved) {
		sb_clear(&b);
		sb_addf(&b, "requests removed (their root span is), not reported: %zu", w->nremoved);
		note(w, out, &first, b.s);
	}
	if (w->format == CP_JSON)
		sb_adds(out, "\n]");
	sb_free(&b);
}

void
cp_whatif_counter_finish(cp_whatif *w, strbuf *out)
{
	counter_rows(w, out);
	cpw_table_end(w, out);
	counter_footer(w, out);
	if (w->format == CP_JSON)
		sb_adds(out, "}\n");
}
