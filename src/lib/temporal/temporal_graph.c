/* temporal_graph.c - spans to vertices, and resources to worker chains.
 *
 * Per span, the awaited children's intervals (a client's server child covers
 * the whole client span: request, server, response) split the span into self
 * segments seg0 .. final. Preconditions, the causal edges of Zeno:
 *   seg k        <- seg k-1, and what the parent waited for in the gap before
 *   seg0 of c    <- c's trigger: the parent's latest segment ending at or
 *                   before c's start, or an earlier child's completion when
 *                   c started within TP_EPSILON_US of it; with tr-infer's
 *                   happens-before edges bound to the trace (infer/hb.h)
 *                   and c named by them: the completions of its model
 *                   predecessors, else that segment of the parent
 *   server seg0  <- request transit <- client seg0
 *   client final <- response transit <- server final
 *   consumer     <- message transit <- the producer's final segment
 * Sequencing edges come from the resources: every occupying segment of every
 * buffered trace is placed on a worker (latest free worker first), and its
 * predecessor is the segment that ran before it on that worker. */
#include "temporal_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/kinds.h"
#include "infer/hb.h"

enum { AW_NONE, AW_LOCAL, AW_REMOTE };

/* Per span facts used while building; in the trace's arena. */
typedef struct span_info {
	int64_t es, ee, arr;	/* effective start and end, arrival */
	int64_t shift;		/* clock correction: es = start + shift */
	int32_t seg0, waiter, rq, rs, mt;
	int32_t recv_wait;	/* blocking receive: its segment that gets the message */
	int32_t src;		/* local message source span, -1 */
	int32_t ext;		/* external message source, -1 */
	int64_t enq, deq;	/* its enqueue and dequeue log events, if has_enq, has_deq */
	int64_t wait_from;	/* a queue wait inside the span: [wait_from, deq) */
	uint8_t aw, blocking, timed;
	uint8_t has_enq, has_deq, in_wait;
	uint8_t recorded;	/* its arrival is recorded, not inferred */
	uint8_t from_receive;	/* its message came with its parent's receive */
	uint8_t detached;	/* with edges: no sibling waits for it (model_detach) */
} span_info;

typedef struct event {
	int64_t end;
	int32_t v;
} event;

/* Sort n elements of size bytes (at most 64) by cmp, a total order, so
 * that any sort gives the same result: by insertion when n is small (a
 * span's children, its events), where qsort's setup costs more than the
 * sort. */
static void
sort_small(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base, tmp[64];

	if (n > 16 || size > sizeof tmp) {
		qsort(base, n, size, cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		memcpy(tmp, a + i * size, size);
		while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0) {
			memcpy(a + j * size, a + (j - 1) * size, size);
			j--;
		}
		memcpy(a + j * size, tmp, size);
	}
}

static int
occupies(const tr_span *s)
{
	return s->kind == TR_KIND_SERVER || s->kind == TR_KIND_CONSUMER ||
	       s->kind == TR_KIND_INTERNAL || s->kind == TR_KIND_NONE;
}

static int64_t
clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int32_t
tpg_resource(temporal *tp, const char *name)
{
	int added;
	strmap_slot *s = strmap_intern(&tp->res_ids, &tp->mem, name, strlen(name), &added);

	if (!added)
		return (int32_t)s->val;
	GROW(tp->res, tp->capres, tp->nres + 1);
	tp_resource *r = &tp->res[tp->nres++];
	memset(r, 0, sizeof *r);
	r->name = s->key;
	r->workers = INT32_MAX;
	for (size_t i = 0; i < tp->o.ncaps; i++)
		if (strcmp(tp->o.caps[i].resource, name) == 0)
			r->workers = tp->o.caps[i].workers;
	return (int32_t)s->val;
}

static int32_t
span_resource(temporal *tp, const tr_span *s, strbuf *b)
{
	int had;

	sb_clear(b);
	had = tp_resource_name(tp, s, b);
	if (tp->o.resource_key)
		tr_keywatch_note(&tp->rkey, s, had);
	return tpg_resource(tp, b->s);
}

static int32_t
new_vert(wtrace *w, int kind, int32_t span, int64_t start, int64_t end)
{
	GROW(w->v, w->capv, w->nv + 1);
	tp_vert *x = &w->v[w->nv];
	memset(x, 0, sizeof *x);
	x->kind = (uint8_t)kind;
	x->span = span;
	x->peer = -1;
	x->res = -1;
	x->ext = -1;
	x->start = start;
	x->end = end < start ? start : end;
	x->seq_v = -1;
	return (int32_t)w->nv++;
}

/* A server that does not fit in its client: with per-host clock offsets
 * applied, what is left is noise, clamped into the client; without them,
 * it ran on a skewed clock and is centred in the client (as Zipkin's skew
 * correction does), its subtree with it. A server longer than its client
 * can only be clamped. */
static void
skew(const span_info *client, span_info *ci, const tr_span *cs, int corrected)
{
	int64_t slack = (client->ee - client->es) - cs->duration;

	if (ci->es >= client->es && ci->ee <= client->ee)
		return;
	if (slack >= 0 && !corrected) {
		ci->shift = client->es + slack / 2 - cs->start;
		ci->es = cs->start + ci->shift;
		ci->ee = tr_span_end(cs) + ci->shift;
		return;
	}
	ci->es = clamp64(ci->es, client->es, client->ee);
	ci->ee = clamp64(ci->ee, ci->es, client->ee);
}

/* The span a query on w explains: the request, that is the longest timed
 * root that is not an orphan (a fragment whose parent was lost is not the
 * request), else the longest timed root; the first of equals. */
static int32_t
request_root(const tr_trace *t)
{
	int32_t best = -1;

	for (size_t r = 0; r < t->nroots; r++) {
		const tr_span *s = &t->spans[t->roots[r]];
		const tr_span *b = best >= 0 ? &t->spans[best] : NULL;

		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;
		int orphan = (s->flags & TR_SPAN_ORPHAN) != 0;
		if (!b || (!orphan && (b->flags & TR_SPAN_ORPHAN)) ||
		    (orphan == ((b->flags & TR_SPAN_ORPHAN) != 0) && s->duration > b->duration))
			best = t->roots[r];
	}
	return best;
}

/* Effective times (in the reference clock), awaited-ness, parents before children. */
static int32_t *
order_spans(temporal *tp, wtrace *w, span_info *si)
{
	tr_trace *t = &w->t;
	int32_t *order = arena_alloc(w->scratch, (t->nspans + 1) * sizeof *order);
	size_t head = 0, tail = 0;
	const tr_clock *clk = tp->o.clock;

	for (size_t r = 0; r < t->nroots; r++) {
		int32_t i = t->roots[r];
		const tr_span *s = &t->spans[i];

		order[tail++] = i;
		si[i].timed = (s->flags & TR_SPAN_HAS_TIME) != 0;
		si[i].shift = -tr_clock_offset(clk, s->host);
		si[i].es = s->start + si[i].shift;
		si[i].ee = tr_span_end(s) + si[i].shift;
	}
	while (head < tail) {
		int32_t p = order[head++];
		const tr_span *ps = &t->spans[p];

		for (int32_t c = ps->first_child; c >= 0; c = t->spans[c].next_sibling) {
			const tr_span *cs = &t->spans[c];
			span_info *ci = &si[c];

			order[tail++] = c;
			ci->timed = (cs->flags & TR_SPAN_HAS_TIME) != 0;
			if (strcmp(cs->host, ps->host) == 0)
				ci->shift = si[p].shift;	/* same clock as its parent */
			else
				ci->shift = -tr_clock_offset(clk, cs->host);
			ci->es = cs->start + ci->shift;
			ci->ee = tr_span_end(cs) + ci->shift;
			if (!ci->timed || !si[p].timed)
				continue;
			if ((cs->flags & TR_SPAN_FOLLOWS) || ps->kind == TR_KIND_PRODUCER)
				ci->aw = AW_NONE;	/* the sender does not wait */
			else if (cs->kind == TR_KIND_SERVER && ps->kind == TR_KIND_CLIENT) {
				ci->aw = AW_REMOTE;
				skew(&si[p], ci, cs, clk != NULL);
			} else if (ci->es > si[p].ee || ci->ee > si[p].ee + TP_EPSILON_US)
				ci->aw = AW_NONE;	/* the parent returned first */
			else {	/* an overshoot of a few µs is noise: clamped, as tr-cp does */
				ci->aw = AW_LOCAL;
				ci->es = clamp64(ci->es, si[p].es, si[p].ee);
				ci->ee = clamp64(ci->ee, ci->es, si[p].ee);
			}
		}
	}
	return order;
}

/* The transit a request to server span c (client p) is taken to need: this
 * RPC's own response transit, or less when the same hosts' RPCs show that
 * a request can arrive sooner; never below 0. */
static int64_t
request_transit(const temporal *tp, const tr_trace *t, const span_info *si, int32_t c, int32_t p)
{
	int64_t est = si[p].ee - si[c].ee;
	int64_t seen = tr_clock_min_transit(tp->o.clock, t->spans[p].host, t->spans[c].host);

	if (seen >= 0 && seen < est)
		est = seen;
	return est > 0 ? est : 0;
}

/* The enqueue and dequeue log events of each span, in the reference clock:
 * the earliest enqueue, and the earliest dequeue within the span (where
 * its work began: a span may start when its request is received and wait
 * in a queue inside it). An enqueue after the dequeue is not its. */
static void
queue_events(const tr_trace *t, span_info *si)
{
	for (size_t l = 0; l < t->nlogs; l++) {
		const tr_log *g = &t->logs[l];
		const tr_span *s = &t->spans[g->span];
		span_info *x = &si[g->span];
		int64_t at = g->time + x->shift;

		for (uint32_t k = 0; k < g->ntags; k++) {
			if (strcmp(g->tags[k].key, "event") != 0)
				continue;
			if (strcmp(g->tags[k].val, "enqueue") == 0 && (!x->has_enq || at < x->enq)) {
				x->enq = at;
				x->has_enq = 1;
			} else if (strcmp(g->tags[k].val, "dequeue") == 0 && g->time >= s->start &&
				   g->time <= tr_span_end(s) && (!x->has_deq || at < x->deq)) {
				x->deq = at;
				x->has_deq = 1;
			}
		}
	}
	for (size_t i = 0; i < t->nspans; i++)
		if (si[i].has_enq && si[i].has_deq && si[i].enq > si[i].deq)
			si[i].has_enq = 0;
}

/* Does an awaited child of span p start before t? */
static int
child_before(const tr_trace *t, const span_info *si, int32_t p, int64_t at)
{
	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
		if (si[c].aw != AW_NONE && si[c].es < at)
			return 1;
	return 0;
}

/* A dequeue event: the span's work began there. Waiting from an arrival
 * before its start (an enqueue log, a Kafka queue time), the span starts
 * its work at the dequeue, and the whole wait is one; else it waited
 * inside the span, from its start or from an enqueue inside it, to the
 * dequeue (a wait the segments go around, as around a child: also where a
 * child started before the dequeue, which the data then contradicts). The
 * queue.wait_us tag wins over both. */
static void
apply_dequeue(const tr_trace *t, span_info *si, int32_t i)
{
	span_info *x = &si[i];

	if (x->has_deq && x->deq > x->ee)
		x->deq = x->ee;	/* the span was clamped into its caller: so is its dequeue */
	if (!x->has_deq || x->deq <= x->es || tr_span_tag(&t->spans[i], "queue.wait_us"))
		return;
	x->recorded = 1;
	if (x->arr < x->es && !x->blocking && !child_before(t, si, i, x->deq)) {
		x->es = x->deq;
		return;
	}
	x->in_wait = 1;
	x->wait_from = x->has_enq && x->enq > x->es ? x->enq : x->es;
	if (x->wait_from > x->deq)
		x->wait_from = x->deq;
}

/* A Kafka consumer's queue time: OpenTelemetry's Java instrumentation
 * records kafka.record.queue_time_ms (an experimental attribute) on a
 * consumer span, the ms from the record's timestamp to the span's start:
 * its message waited that long. 0 when the span has none, or another
 * recorded wait. */
static int64_t
kafka_queue_time(const tr_span *s, int64_t recorded)
{
	const char *v;
	int64_t ms;

	if (recorded || s->kind != TR_KIND_CONSUMER || !(v = tr_span_tag(s, "kafka.record.queue_time_ms")) ||
	    parse_i64(v, strlen(v), &ms) < 0 || ms <= 0 || ms > TR_TIME_MAX / 1000)
		return 0;
	return ms * 1000;
}

/* A consumer that processes what its parent, a blocking receive, got: its
 * message arrived when the receive ended (OpenTelemetry's messaging spans:
 * a "process" span below the "receive" span that delivered the message). */
static int
after_receive(const tr_trace *t, const span_info *si, int32_t i)
{
	int32_t p = t->spans[i].parent;

	return p >= 0 && si[p].blocking && si[p].timed && !si[i].blocking &&
	       t->spans[i].kind == TR_KIND_CONSUMER && si[i].aw == AW_NONE && si[p].ee <= si[i].es;
}

/* An arrival from what the data shows, when nothing records it: a server's
 * request at its client's send plus the request transit, a consumer's
 * message when its producer in the trace ended. */
static void
infer_arrival(temporal *tp, wtrace *w, span_info *si, int32_t i)
{
	tr_trace *t = &w->t;
	int32_t p = t->spans[i].parent;

	if (si[i].aw == AW_REMOTE) {
		si[i].arr = si[p].es + request_transit(tp, t, si, i, p);
		w->inferred[i] = si[i].arr < si[i].es;
	} else if (p >= 0 && !si[i].blocking && t->spans[i].kind == TR_KIND_CONSUMER &&
		   t->spans[p].kind == TR_KIND_PRODUCER && si[p].timed && si[p].ee < si[i].es) {
		si[i].arr = si[p].ee;
		w->inferred[i] = 1;
	}
}

/* When the work of span i arrived: recorded (queue.wait_us, an enqueue
 * log, a dequeue log, a Kafka record's queue time, a receive that
 * delivered its message), else inferred
 * (infer_arrival): the time from there to its start is queueing behind
 * whatever occupied its resource (Zeno §6, under the work-conserving
 * assumption of §3.2: a resource does not idle while work waits), and idle
 * time in it is unexplained. A blocking receive gets its message at its
 * end. w->arrival keeps the recorded arrivals: the start of a question. */
static void
arrivals(temporal *tp, wtrace *w, span_info *si)
{
	tr_trace *t = &w->t;
	int64_t *wait = arena_alloc(w->scratch, (t->nspans + 1) * sizeof *wait);

	/* the recorded waits are in the span's own clock: before its shifted start */
	tr_trace_queue_waits(t, wait);
	queue_events(t, si);
	memset(w->inferred, 0, t->nspans + 1);
	for (size_t i = 0; i < t->nspans; i++) {
		/* only a consumer receives: no tag lookup for the others */
		si[i].blocking = t->spans[i].kind == TR_KIND_CONSUMER &&
				 tr_span_is_blocking_receive(&t->spans[i]);
		wait[i] += kafka_queue_time(&t->spans[i], wait[i]);
		si[i].arr = si[i].blocking ? si[i].ee : si[i].es - wait[i];
		si[i].recorded = wait[i] > 0;
		apply_dequeue(t, si, (int32_t)i);
	}
	for (size_t i = 0; i < t->nspans; i++) {
		int32_t p = t->spans[i].parent;

		if (!si[i].recorded && after_receive(t, si, (int32_t)i)) {
			si[i].arr = si[p].ee;
			si[i].recorded = si[i].from_receive = 1;
		} else if (!si[i].recorded && tp->o.infer_queues)
			infer_arrival(tp, w, si, (int32_t)i);
		if (si[i].aw == AW_REMOTE)	/* it cannot arrive before it was sent */
			si[i].arr = clamp64(si[i].arr, si[p].es, si[i].es);
		else if (si[i].aw == AW_LOCAL && !si[i].blocking)	/* nor before its parent started */
			si[i].arr = clamp64(si[i].arr, si[p].es, si[i].es);
		else if (si[i].arr > si[i].es && !si[i].blocking)
			si[i].arr = si[i].es;
		w->arrival[i] = si[i].recorded && !si[i].blocking ? si[i].arr : si[i].es;
	}
}

/* The message each span receives: from a producer parent, a FOLLOWS_FROM
 * parent, or the first follows_from reference (or link, for a consumer). */
static void
message_sources(wtrace *w, span_info *si)
{
	tr_trace *t = &w->t;

	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		si[i].src = -1;
		si[i].ext = -1;
		if (s->parent >= 0 && ((s->flags & TR_SPAN_FOLLOWS) ||
				       t->spans[s->parent].kind == TR_KIND_PRODUCER || si[i].from_receive))
			si[i].src = s->parent;
	}
	for (size_t r = 0; r < t->nrefs; r++) {
		const tr_ref *ref = &t->refs[r];
		span_info *x = &si[ref->span];
		int link = strcmp(ref->type, "link") == 0;

		if (x->src >= 0 || x->ext >= 0)
			continue;
		if (strcmp(ref->type, "follows_from") != 0 &&
		    !(link && t->spans[ref->span].kind == TR_KIND_CONSUMER))
			continue;
		if (strcmp(ref->trace_id, t->trace_id) == 0) {
			int32_t j = tr_trace_find(t, ref->span_id);

			if (j >= 0 && j != ref->span)
				x->src = j;
			continue;
		}
		GROW(w->exts, w->capext, w->next + 1);
		w->exts[w->next].trace_id = ref->trace_id;
		w->exts[w->next].span_id = ref->span_id;
		x->ext = (int32_t)w->next++;
	}
}

typedef struct cover {
	int64_t start, end;
	int32_t child;		/* -1: a blocking receive waiting for its message;
				 * -2: a wait in a queue inside the span */
} cover;

static int
cover_cmp(const void *a, const void *b)
{
	const cover *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->child < y->child ? -1 : x->child > y->child;
}

/* With edges bound: a local child they name that no sibling waits for (no
 * model successor) and that ends before the parent's last awaited child
 * is detached: the parent went on without it, so it splits none of the
 * parent's segments and no segment waits for it (the parent's final
 * segment starts after it ended: it delays nothing). */
static void
model_detach(temporal *tp, wtrace *w, span_info *si, int32_t p)
{
	const tr_trace *t = &w->t;
	int64_t last = INT64_MIN;	/* the latest end of the awaited children */

	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling) {
		int32_t x = t->spans[p].first_child;

		si[c].detached = 0;
		if (si[c].aw == AW_LOCAL && hb_known(tp->hb, c)) {
			while (x >= 0 && (x == c || si[x].aw == AW_NONE || !hb_before(tp->hb, c, x)))
				x = t->spans[x].next_sibling;
			si[c].detached = x < 0;
		}
		if (si[c].aw != AW_NONE && si[c].ee > last)
			last = si[c].ee;
	}
	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
		if (si[c].detached && si[c].ee >= last)
			si[c].detached = 0;	/* the last: the parent's end waits for it */
}

/* The segments of span p; sets si[c].waiter for its awaited children. */
static void
segments(temporal *tp, wtrace *w, span_info *si, int32_t p, strbuf *nb)
{
	tr_trace *t = &w->t;
	const tr_span *ps = &t->spans[p];
	size_t n = 0;
	cover *cv;

	for (int32_t c = ps->first_child; c >= 0; c = t->spans[c].next_sibling)
		n++;
	cv = arena_alloc(w->scratch, (n + 2) * sizeof *cv);	/* and a receive's wait, a queue wait */
	n = 0;
	if (tp->hb_bound)
		model_detach(tp, w, si, p);
	for (int32_t c = ps->first_child; c >= 0; c = t->spans[c].next_sibling) {
		if (tp->hb_bound && si[c].detached)
			continue;
		if (si[c].aw == AW_REMOTE)
			cv[n++] = (cover){si[p].es, si[p].ee, c};
		else if (si[c].aw == AW_LOCAL)	/* waited for from its arrival (a lock, a queue) */
			cv[n++] = (cover){si[c].arr < si[c].es ? si[c].arr : si[c].es, si[c].ee, c};
	}
	if (si[p].blocking)
		cv[n++] = (cover){si[p].es, si[p].ee, -1};
	if (si[p].in_wait)	/* queued inside the span: no child, the resource's work */
		cv[n++] = (cover){si[p].wait_from, si[p].deq, -2};
	sort_small(cv, n, sizeof *cv, cover_cmp);

	int32_t res = occupies(ps) ? span_resource(tp, ps, nb) : -1;
	int64_t at = si[p].es;
	size_t i = 0;
	int32_t seg = new_vert(w, TV_SEG, p, at, n ? cv[0].start : si[p].ee);

	si[p].seg0 = seg;
	while (i < n) {
		int64_t bend = cv[i].end;
		size_t j = i;

		while (j < n && cv[j].start <= bend) {	/* one block of overlapping cover */
			if (cv[j].end > bend)
				bend = cv[j].end;
			j++;
		}
		int32_t next = new_vert(w, TV_SEG, p, bend, j < n ? cv[j].start : si[p].ee);
		for (size_t k = i; k < j; k++)
			if (cv[k].child >= 0)
				si[cv[k].child].waiter = next;
			else if (cv[k].child == -1)
				si[p].recv_wait = next;	/* the receive's own wait */
		seg = next;
		i = j;
	}
	w->final[p] = seg;
	const tp_label *label = tpr_span_label(tp, w, p, res);
	for (int32_t v = si[p].seg0; v <= seg; v++) {
		w->v[v].label = label;
		if (res >= 0 && w->v[v].end > w->v[v].start)
			w->v[v].res = res;
	}
}

static void
transits(wtrace *w, span_info *si, int32_t c)
{
	tr_trace *t = &w->t;
	int32_t p = t->spans[c].parent;

	si[c].rq = si[c].rs = si[c].mt = -1;
	if (si[c].aw == AW_REMOTE) {
		si[c].rq = new_vert(w, TV_TRANSIT, c, si[p].es, si[c].arr);
		w->v[si[c].rq].tkind = TT_REQUEST;
		w->v[si[c].rq].peer = p;
		si[c].rs = new_vert(w, TV_TRANSIT, p, si[c].ee, si[p].ee);
		w->v[si[c].rs].tkind = TT_RESPONSE;
		w->v[si[c].rs].peer = c;
	}
	int32_t m = si[c].src;
	if (m >= 0 && si[m].timed && si[m].ee <= si[c].arr) {
		si[c].mt = new_vert(w, TV_TRANSIT, c, si[m].ee, si[c].arr);
		w->v[si[c].mt].peer = m;
	} else if (si[c].ext >= 0) {
		si[c].mt = new_vert(w, TV_TRANSIT, c, si[c].arr, si[c].arr);
		w->v[si[c].mt].ext = si[c].ext;
	}
	if (si[c].mt >= 0)
		w->v[si[c].mt].tkind = TT_MESSAGE;
}

typedef struct edge {
	int32_t to, from;	/* vertex to waits for vertex from */
} edge;

static void
add_edge(edge **e, size_t *n, size_t *cap, int32_t to, int32_t from)
{
	if (to < 0 || from < 0)
		return;
	GROW(*e, *cap, *n + 1);
	(*e)[(*n)++] = (edge){to, from};
}

static int
event_cmp(const void *a, const void *b)
{
	const event *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Is vertex v one of span p's self segments (not a child's completion)? */
static int
own_segment(const wtrace *w, int32_t v, int32_t p)
{
	return w->v[v].kind == TV_SEG && w->v[v].span == p;
}

/* Can the completion vertex v of a sibling have started child c? Only a
 * sibling that started first (by start, then by index: the spans' order):
 * two that start and end at the same instant (zero-length spans clamped
 * into their parent) must not each be the other's trigger, a cycle. */
static int
started_before(const wtrace *w, const span_info *si, int32_t v, int32_t c)
{
	const tp_vert *x = &w->v[v];
	int32_t sib = x->kind == TV_TRANSIT ? x->peer : x->span;

	return sib >= 0 && (si[sib].es < si[c].es || (si[sib].es == si[c].es && sib < c));
}

/* With edges that name local child c of p: its model predecessors'
 * completions (awaited siblings that ended by c's start; one that waited
 * for a log event of a sibling still running: that sibling's latest
 * segment ending by c's start), else p's own latest segment among
 * ev[0..lo) (the events ending by c's start). */
static void
model_triggers(temporal *tp, wtrace *w, const span_info *si, int32_t p, int32_t c,
	       const event *ev, size_t lo, edge **e, size_t *n, size_t *cap)
{
	const tr_trace *t = &w->t;
	int found = 0;

	for (int32_t x = t->spans[p].first_child; x >= 0; x = t->spans[x].next_sibling) {
		if (x == c || si[x].aw == AW_NONE || !hb_before(tp->hb, x, c))
			continue;
		int32_t v = w->done[x];

		if (w->v[v].end > si[c].es)	/* by its log event: x still ran */
			for (int32_t s = v = si[x].seg0; s >= 0 && s <= w->final[x]; s++)
				v = w->v[s].end <= si[c].es ? s : v;
		if (v >= 0 && w->v[v].end <= si[c].es) {
			add_edge(e, n, cap, si[c].seg0, v);
			found = 1;
		}
	}
	while (!found && lo > 0 && !own_segment(w, ev[lo - 1].v, p))
		lo--;
	if (!found && lo > 0)
		add_edge(e, n, cap, si[c].seg0, ev[lo - 1].v);
}

/* Triggers of p's local children: p's latest event at or before each start. */
static void
triggers(temporal *tp, wtrace *w, span_info *si, int32_t p, edge **e, size_t *n, size_t *cap)
{
	tr_trace *t = &w->t;
	size_t ne = 0, k = 0;
	event *ev;

	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
		k++;
	ev = arena_alloc(w->scratch, (k + (size_t)(w->final[p] - si[p].seg0) + 2) * sizeof *ev);
	for (int32_t v = si[p].seg0; v <= w->final[p]; v++)
		ev[ne++] = (event){w->v[v].end, v};
	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
		if (si[c].aw != AW_NONE)
			ev[ne++] = (event){w->v[w->done[c]].end, w->done[c]};
	sort_small(ev, ne, sizeof *ev, event_cmp);
	for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling) {
		if (si[c].aw != AW_LOCAL)
			continue;
		size_t lo = 0, hi = ne;	/* first event ending after c's start */

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (ev[mid].end <= si[c].es)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (tp->hb_bound) {
			int known = hb_known(tp->hb, c);

			tp->nkids_model += known;
			tp->nkids_guess += !known;
			if (known) {
				model_triggers(tp, w, si, p, c, ev, lo, e, n, cap);
				continue;
			}
		}
		/* a sibling's completion started c only if c started right
		 * after it (within the tolerance): siblings that merely ran
		 * concurrently are not each other's cause; else the trigger is
		 * the parent's own latest segment */
		while (lo > 0 && (ev[lo - 1].v == w->done[c] || w->v[ev[lo - 1].v].span == c ||
				  ev[lo - 1].v == si[c].waiter ||
				  (!own_segment(w, ev[lo - 1].v, p) &&
				   (ev[lo - 1].end + TP_EPSILON_US < si[c].es ||
				    !started_before(w, si, ev[lo - 1].v, c)))))
			lo--;
		if (lo > 0)
			add_edge(e, n, cap, si[c].seg0, ev[lo - 1].v);
	}
}

static int
edge_cmp_end(const void *a, const void *b, const wtrace *w)
{
	const edge *x = a, *y = b;
	const tp_vert *u = &w->v[x->from], *v = &w->v[y->from];

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (u->end != v->end)
		return u->end < v->end ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Sort edges by (waiting vertex, end of precondition), insertion sort per run:
 * a vertex has few preconditions. Counting by 'to' first keeps it linear. */
static void
store_edges(wtrace *w, edge *e, size_t n)
{
	uint32_t *count = arena_alloc(w->scratch, (w->nv + 1) * sizeof *count);

	memset(count, 0, (w->nv + 1) * sizeof *count);
	for (size_t i = 0; i < n; i++)
		count[e[i].to + 1]++;
	for (size_t v = 0; v < w->nv; v++)
		count[v + 1] += count[v];
	GROW(w->pre, w->cappre, n + 1);
	w->npre = n;
	edge *sorted = arena_alloc(w->scratch, (n + 1) * sizeof *sorted);
	uint32_t *fill = arena_alloc(w->scratch, (w->nv + 1) * sizeof *fill);
	memcpy(fill, count, (w->nv + 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		sorted[fill[e[i].to]++] = e[i];
	for (size_t v = 0; v < w->nv; v++) {
		uint32_t a = count[v], b = count[v + 1];

		for (uint32_t i = a + 1; i < b; i++) {
			edge x = sorted[i];
			uint32_t j = i;

			while (j > a && edge_cmp_end(&x, &sorted[j - 1], w) < 0) {
				sorted[j] = sorted[j - 1];
				j--;
			}
			sorted[j] = x;
		}
		w->v[v].pre = a;
		w->v[v].npre = b - a;
		for (uint32_t i = a; i < b; i++)
			w->pre[i] = sorted[i].from;
	}
}

static void
mark_main(wtrace *w)
{
	tr_trace *t = &w->t;
	int32_t *stack;
	size_t n = 0;

	memset(w->in_main, 0, t->nspans);
	if (w->root < 0)
		return;
	stack = arena_alloc(w->scratch, (t->nspans + 1) * sizeof *stack);
	stack[n++] = w->root;
	while (n) {
		int32_t p = stack[--n];

		w->in_main[p] = 1;
		for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling)
			stack[n++] = c;
	}
}

/* The preconditions (see the top of this file), as (waiting, awaited) pairs. */
static void
causal_edges(temporal *tp, wtrace *w, span_info *si, const int32_t *order, edge **e, size_t *ne,
	     size_t *cape)
{
	for (size_t k = 0; k < w->t.nspans; k++) {
		int32_t c = order[k];
		int32_t p = w->t.spans[c].parent;

		if (!si[c].timed)
			continue;
		for (int32_t v = si[c].seg0 + 1; v <= w->final[c]; v++)
			add_edge(e, ne, cape, v, v - 1);
		if (si[c].aw != AW_NONE)
			add_edge(e, ne, cape, si[c].waiter, w->done[c]);
		if (si[c].aw == AW_REMOTE) {
			add_edge(e, ne, cape, si[c].seg0, si[c].rq);
			add_edge(e, ne, cape, si[c].rq, si[p].seg0);
			add_edge(e, ne, cape, si[c].rs, w->final[c]);
		}
		if (si[c].mt >= 0) {
			add_edge(e, ne, cape, si[c].blocking ? si[c].recv_wait : si[c].seg0, si[c].mt);
			if (si[c].src >= 0)
				add_edge(e, ne, cape, si[c].mt, w->final[si[c].src]);
		}
		triggers(tp, w, si, c, e, ne, cape);
	}
}

/* A wrapper span (kinds.h) only waits for its sibling call: it gets no
 * vertex, so it is never a cause; its parent waits for the call itself. */
static void
leave_out_wrappers(wtrace *w, span_info *si)
{
	const tr_trace *t = &w->t;
	uint8_t *kind = arena_alloc(w->scratch, t->nspans + 1);
	uint8_t *wrapper = arena_alloc(w->scratch, t->nspans + 1);

	tr_trace_kinds(t, kind);
	w->nwrappers = tr_trace_wrappers(t, kind, wrapper);
	for (size_t i = 0; w->nwrappers && i < t->nspans; i++)
		if (wrapper[i]) {
			si[i].timed = 0;
			si[i].aw = AW_NONE;	/* nor does its parent wait for it */
		}
}

void
tpg_build(temporal *tp, wtrace *w)
{
	tr_trace *t = &w->t;
	size_t ns = t->nspans;
	span_info *si;
	edge *e = NULL;
	size_t ne = 0, cape = 0;

	w->scratch = &tp->build_mem;	/* what only the build needs */
	arena_reset(w->scratch);
	si = arena_alloc(w->scratch, (ns + 1) * sizeof *si);
	w->nv = w->npre = w->next = 0;
	memset(si, 0, (ns + 1) * sizeof *si);
	w->final = arena_alloc(&t->mem, (ns + 1) * sizeof *w->final);
	w->seg0 = arena_alloc(&t->mem, (ns + 1) * sizeof *w->seg0);
	w->done = arena_alloc(&t->mem, (ns + 1) * sizeof *w->done);
	w->in_main = arena_alloc(&t->mem, ns + 1);
	w->inferred = arena_alloc(&t->mem, ns + 1);
	w->arrival = arena_alloc(&t->mem, (ns + 1) * sizeof *w->arrival);
	w->root = request_root(t);
	if (tp->hb_bound)
		hb_moved(tp->hb, t);	/* tp_add_trace took the trace bound */
	mark_main(w);
	int32_t *order = order_spans(tp, w, si);
	leave_out_wrappers(w, si);
	arrivals(tp, w, si);
	message_sources(w, si);
	for (size_t i = 0; i < ns; i++) {
		w->final[i] = w->done[i] = -1;
		si[i].seg0 = si[i].waiter = si[i].rq = si[i].rs = si[i].mt = -1;
		si[i].recv_wait = -1;
	}
	for (size_t k = 0; k < ns; k++)
		if (si[order[k]].timed)
			segments(tp, w, si, order[k], &tp->text);
	for (size_t k = 0; k < ns; k++) {
		int32_t c = order[k];

		w->seg0[c] = si[c].timed ? si[c].seg0 : -1;
		if (!si[c].timed)
			continue;
		transits(w, si, c);
		w->done[c] = si[c].aw == AW_REMOTE ? si[c].rs : w->final[c];
	}
	for (size_t v = 0; v < w->nv; v++)	/* a transit's: its span's */
		if (!w->v[v].label && w->seg0[w->v[v].span] >= 0)
			w->v[v].label = w->v[w->seg0[w->v[v].span]].label;
	w->root_label = w->root >= 0 && si[w->root].timed ? w->v[si[w->root].seg0].label : NULL;
	size_t named = tp->nkids_model, guessed = tp->nkids_guess;

	causal_edges(tp, w, si, order, &e, &ne, &cape);
	w->hb_used = tp->hb_bound;
	w->hb_model = tp->nkids_model - named;
	w->hb_guess = tp->nkids_guess - guessed;
	store_edges(w, e, ne);
	free(e);
}

static void assign_workers(temporal *tp, tp_resource *r);

/* Drop the entries of evicted traces; the workers are assigned again. The
 * dropped ones are assigned first, so that their overruns are counted. */
static void
compact(temporal *tp, tp_resource *r)
{
	size_t live = 0;

	if (r->assigned < r->ne)
		assign_workers(tp, r);
	for (size_t i = 0; i < r->ne; i++)
		if (r->e[i].serial >= tp->oldest)
			r->e[live++] = r->e[i];
		else
			r->dropped_overlaps += r->e[i].overlap;
	r->ne = live;
	r->assigned = 0;
	r->compact_at = 2 * live + 1024;
}

typedef struct new_entry {
	int32_t res;
	tp_entry e;
} new_entry;

static int
entry_less(const tp_entry *a, const tp_entry *b)
{
	return a->start != b->start ? a->start < b->start : a->end < b->end;
}

static int
new_entry_cmp(const void *pa, const void *pb)
{
	const new_entry *a = pa, *b = pb;

	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (entry_less(&a->e, &b->e) || entry_less(&b->e, &a->e))
		return entry_less(&a->e, &b->e) ? -1 : 1;
	return a->e.v < b->e.v ? -1 : a->e.v > b->e.v;	/* deterministic ties */
}

/* Merge k sorted entries into r's sorted timeline, from the back: input
 * comes roughly in time order, so they usually go at the end and the
 * workers assigned so far stay valid. */
static void
merge_entries(temporal *tp, tp_resource *r, const new_entry *n, size_t k)
{
	size_t i, j = k, out;

	if (r->ne >= r->compact_at)
		compact(tp, r);
	i = r->ne;
	out = r->ne + k;
	GROW(r->e, r->cape, r->ne + k);
	while (j > 0) {
		if (i > 0 && entry_less(&n[j - 1].e, &r->e[i - 1]))
			r->e[--out] = r->e[--i];
		else
			r->e[--out] = n[--j].e;
	}
	r->ne += k;
	if (out < r->assigned)
		r->assigned = out;
}

/* Place w's occupying segments on their resources' timelines. */
void
tpg_insert(temporal *tp, wtrace *w)
{
	new_entry *n = arena_alloc(&tp->build_mem, (w->nv + 1) * sizeof *n);
	size_t k = 0;

	for (size_t v = 0; v < w->nv; v++) {
		const tp_vert *x = &w->v[v];

		if (x->res >= 0)
			n[k++] = (new_entry){x->res, {.start = x->start, .end = x->end, .w = w,
						     .serial = w->serial, .v = (int32_t)v}};
	}
	qsort(n, k, sizeof *n, new_entry_cmp);
	for (size_t a = 0, b; a < k; a = b) {
		for (b = a; b < k && n[b].res == n[a].res; b++)
			;
		merge_entries(tp, &tp->res[n[a].res], n + a, b - a);
	}
}

/* The workers' state just before entry i, from the entries before it. */
static size_t
rewind_workers(tp_resource *r, size_t i)
{
	size_t nw = i ? (size_t)r->e[i - 1].nworkers : 0, found = 0;

	GROW(r->free_at, r->capfree, nw + 1);
	GROW(r->last, r->caplast, nw + 1);
	for (size_t k = 0; k < nw; k++)
		r->last[k] = -1;
	for (size_t j = i; j-- > 0 && found < nw;) {
		int32_t k = r->e[j].worker;

		if (r->last[k] < 0) {
			r->last[k] = (int32_t)j;
			r->free_at[k] = r->e[j].end;
			found++;
		}
	}
	return nw;
}

/* Assign workers from entry r->assigned on, in start order: each segment
 * takes the free worker that became free last (the one that just finished
 * what ran before it); with none free, a new worker up to the capacity, else
 * the one that frees first (the data overlaps the capacity). */
static void
assign_workers(temporal *tp, tp_resource *r)
{
	size_t nw = rewind_workers(r, r->assigned);

	for (size_t i = r->assigned; i < r->ne; i++) {
		tp_entry *e = &r->e[i];
		size_t best = SIZE_MAX;

		for (size_t k = 0; k < nw; k++)
			if (r->free_at[k] <= e->start + TP_EPSILON_US &&
			    (best == SIZE_MAX || r->free_at[k] > r->free_at[best]))
				best = k;
		e->overlap = 0;
		if (best == SIZE_MAX && nw < (size_t)r->workers) {
			GROW(r->free_at, r->capfree, nw + 1);
			GROW(r->last, r->caplast, nw + 1);
			r->last[nw] = -1;
			best = nw++;
		} else if (best == SIZE_MAX) {
			best = 0;
			for (size_t k = 1; k < nw; k++)
				if (r->free_at[k] < r->free_at[best])
					best = k;
			e->overlap = 1;
		}
		if (e->serial >= tp->oldest) {	/* an evicted vertex is gone */
			tp_vert *x = &e->w->v[e->v];
			int32_t p = r->last[best];

			x->seq_w = p >= 0 ? r->e[p].w : NULL;
			x->seq_v = p >= 0 ? r->e[p].v : -1;
			x->seq_serial = p >= 0 ? r->e[p].serial : 0;
		}
		e->worker = (int32_t)best;
		e->nworkers = (int32_t)nw;
		if ((int)nw > r->maxworkers)
			r->maxworkers = (int)nw;
		r->free_at[best] = e->end;
		r->last[best] = (int32_t)i;
	}
	r->assigned = r->ne;
}

int
tpg_pred(temporal *tp, wtrace *w, int32_t v, wtrace **pw, int32_t *pv)
{
	tp_vert *x = &w->v[v];
	tp_resource *r;

	if (x->res < 0)
		return 0;
	r = &tp->res[x->res];
	if (r->assigned < r->ne)
		assign_workers(tp, r);
	if (!x->seq_w || x->seq_serial < tp->oldest)
		return 0;	/* none, or beyond the window */
	*pw = x->seq_w;
	*pv = x->seq_v;
	return 1;
}

size_t
tpg_overlaps(temporal *tp, size_t i)
{
	tp_resource *r = &tp->res[i];
	size_t n = r->dropped_overlaps;

	if (r->assigned < r->ne)
		assign_workers(tp, r);
	for (size_t j = 0; j < r->assigned; j++)
		n += r->e[j].overlap;
	return n;
}

wtrace *
tpg_lookup(temporal *tp, const char *trace_id)
{
	strmap_slot *s = strmap_get(&tp->ids, trace_id, strlen(trace_id));

	if (!s)
		return NULL;
	uint64_t serial = (uint64_t)s->val;
	if (serial < tp->oldest || serial >= tp->next_serial)
		return NULL;
	wtrace *w = tp->ring[serial % tp->ringcap];
	if (!w || w->serial != serial || strcmp(w->t.trace_id, trace_id) != 0)
		return NULL;
	return w;
}
