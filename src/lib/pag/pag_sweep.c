/* pag_sweep.c - the second half of the PAG builder (pag_build.c): sweep
 * each lane in time order into activity edges, join lanes by the
 * communication edges whose vertices are made, and write every edge the
 * frontier has passed, in start order, window by window. */
#include "pag_build_impl.h"

#include <stdlib.h>
#include <string.h>

/* Edges made wait, in the order made, until the frontier passes them:
 * written in start order through sorted keys, then the rest closes up, so
 * that what waits stays at the front of one array (a pool whose free slots
 * were reused in any order spread a few thousand edges over megabytes). */
static void
edge_push(pag_builder *b, const pedge *e)
{
	GROW(b->pend, b->cappend, b->npend + 1);
	b->pend[b->npend++] = *e;
}

/* The keys of the edges that start before f, into b->due in start order
 * (ties in the order made). */
static size_t
take_due(pag_builder *b, int64_t f)
{
	size_t ndue = 0;

	GROW(b->due, b->capdue, b->npend + 1);
	for (size_t i = 0; i < b->npend; i++)
		if (b->pend[i].src.t < f)
			b->due[ndue++] = (pag_start_key){b->pend[i].src.t, (uint32_t)i};
	pag_sort_by_start(b->due, ndue, b->names.work);
	return ndue;
}

/* Drop the edges that start before f (written), keeping the order. */
static void
drop_written(pag_builder *b, int64_t f)
{
	size_t kept = 0;

	for (size_t i = 0; i < b->npend; i++)
		if (b->pend[i].src.t >= f)
			b->pend[kept++] = b->pend[i];
	b->npend = kept;
}

/* ---- the sweep ---- */

void
pag_build_edge(pag_builder *b, const bvert *src, const bvert *dst, int type, uint32_t op,
	  const bspan *about)
{
	if (src->t < b->frontier) {	/* cannot happen: the frontier waits for every edge */
		b->st.nlost++;
		return;
	}
	edge_push(b, &(pedge){*src, *dst, about, op, (uint8_t)type});
}

/* A vertex at time t that an incoming edge about span `enters` enters (or
 * NULL), where span `by` hands a child over (or NULL). The edge from the
 * previous vertex is the activity of the span on top of the stack, or of no
 * span (a gap). Assumption 2: only an incoming edge ends a wait, so a
 * blocked span and a gap wait only when an incoming edge ends the stretch;
 * else the span was busy (handing over more work: the work of the span that
 * hands it over) and the gap is unknown. */
static bvert
sweep_vertex(pag_builder *b, uint32_t lane, int64_t t, int event, const bspan *span,
	     const bspan *enters, const bspan *by)
{
	blane *l = &b->lanes[lane];
	bvert v = make_vertex(b, lane, t, event, span);

	if (l->prev.id != PAG_NONE) {
		int type = PAG_UNKNOWN;
		uint32_t op = b->unknown_op;
		const bspan *ref = NULL;

		if (l->nopen) {
			const bspan *top = l->open[l->nopen - 1];

			type = top->type == PAG_PROCESSING && top->waiting_for ? PAG_WAITING : top->type;
			op = top->op;
			ref = top;
			if (type == PAG_WAITING && !enters) {
				/* it hands work over or starts a local span: busy */
				type = PAG_PROCESSING;
				if (by) {
					op = by->op;
					ref = by;
				}
			}
		} else if (enters) {
			type = PAG_WAITING;
			op = enters->op;
			ref = enters;
		} else if (t - l->prev.t < b->o.unknown_threshold && l->last_type >= 0) {
			type = l->last_type;	/* a short gap is absorbed */
			op = l->last_op;
			ref = l->last_ref;
		}
		pag_build_edge(b, &l->prev, &v, type, op, ref);
		l->last_type = type;
		l->last_op = op;
		l->last_ref = ref;
	}
	l->prev = v;
	return v;
}

static void
comm_vertex(pag_builder *b, const point *pt, const bvert *v)
{
	bcomm *c = &b->comm[pt->comm];

	if (!c->src)
		c->src_v = *v;
	else
		c->dst_v = *v;
}

static void
sweep_point(pag_builder *b, uint32_t lane, const point *pt)
{
	bspan *child = pt->child, *parent = &child->trace->spans[child->parent];
	bvert v = sweep_vertex(b, lane, pt->t, PAG_EV_POINT, child,
			       pt->kind == POINT_JOIN ? child : NULL,
			       pt->kind == POINT_SPAWN ? parent : NULL);

	comm_vertex(b, pt, &v);
	if (pt->waits && pt->kind == POINT_SPAWN)
		parent->waiting_for++;
	else if (pt->waits && pt->kind == POINT_JOIN)
		parent->waiting_for--;
}

/* A root's start at time t on lane: an entry, which no edge enters and
 * property 1 accepts (pag_snap_check). */
static void
note_entry(pag_builder *b, uint32_t lane, int64_t t)
{
	pag_entries *e = &b->entries;

	if (!b->keep_entries)
		return;
	GROW(e->e, e->cap, e->n + 1);
	e->e[e->n++] = (pag_entry){t, lane};
	e->sorted = 0;
}

/* An idle lane whose gap has grown longer than max_gap by time t ends its run. */
static void
end_idle_run(pag_builder *b, blane *l, int64_t t)
{
	if (!l->nopen && l->prev.id != PAG_NONE && t - l->prev.t > b->o.max_gap) {
		l->prev = no_vertex;
		l->last_type = -1;
	}
}

/* Sweep lane `lane` up to (not including) time `until`. */
static void
sweep_lane(pag_builder *b, uint32_t lane, int64_t until)
{
	blane *l = &b->lanes[lane];
	size_t j = l->ptsdone;

	lane_pop_until(l, until == INT64_MAX ? INT64_MAX : until - 1);
	for (;;) {
		const lane_ev *e = l->evdone < l->nev ? &l->ev[l->evdone] : NULL;
		bspan *s = e ? e->span : NULL;
		int64_t te = e ? (e->end ? s->end : s->start) : INT64_MAX;
		const point *p = j < l->npts ? &l->pts[j] : NULL;
		int point_first = p && (p->t < te || (p->t == te && p->kind == POINT_JOIN));

		if ((!e && !p) || (point_first ? p->t : te) >= until)
			break;
		end_idle_run(b, l, point_first ? p->t : te);
		/* A root's start is an entry with no sender: the lane's idle time
		 * before it is not waiting for anything traced, nor unknown work;
		 * it is no part of the graph, and a new run begins. */
		if (!point_first && e && !e->end && s->incoming == 2 && !l->nopen) {
			l->prev = no_vertex;
			l->last_type = -1;
			note_entry(b, lane, te);
		}
		/* A run whose first span comes from outside (no incoming edge)
		 * begins with its worker (at most max_gap before): unknown time */
		if (l->prev.id == PAG_NONE && e && !e->end && !s->incoming && !(p && p->t < te)) {
			int64_t begin = b->workers[l->worker].start;

			if (te - begin > b->o.max_gap)
				begin = te - b->o.max_gap;
			if (te > begin)
				sweep_vertex(b, lane, begin, PAG_EV_BEGIN, NULL, NULL, NULL);
		}
		if (point_first) {
			sweep_point(b, lane, p);
			j++;
			continue;
		}
		if (!e->end) {
			s->vs = sweep_vertex(b, lane, te, PAG_EV_START, s, s->incoming ? s : NULL, NULL);
			GROW(l->open, l->capopen, l->nopen + 1);
			l->open[l->nopen++] = s;
		} else {
			/* a waiting client's response enters its end */
			s->ve = sweep_vertex(b, lane, te, PAG_EV_END, s,
					     s->type == PAG_WAITING ? s : NULL, NULL);
			l->nopen--;
		}
		l->evdone++;
	}
	/* what is swept is dropped once it is half: a lane may hold a whole
	 * input's events and points (finishing what was held) */
	l->ptsdone = j;
	if (l->ptsdone > 64 && l->ptsdone * 2 > l->npts) {
		memmove(l->pts, l->pts + l->ptsdone, (l->npts - l->ptsdone) * sizeof *l->pts);
		l->npts -= l->ptsdone;
		l->ptsdone = 0;
	}
	if (l->evdone > 64 && l->evdone * 2 > l->nev) {
		memmove(l->ev, l->ev + l->evdone, (l->nev - l->evdone) * sizeof *l->ev);
		l->nev -= l->evdone;
		l->evdone = 0;
	}
	if (until == INT64_MAX)
		l->prev = no_vertex;	/* the end: no lane has more to do */
	else
		end_idle_run(b, l, until);
	if (until > l->swept)
		l->swept = until;
}

/* Communication edge slot i, if its two vertices are made: made into an
 * edge (or dropped when clock skew would make it arrive before it leaves)
 * and freed, 1. Else 0, and *first lowered to when it leaves. */
static int
resolve_one(pag_builder *b, uint32_t i, int64_t *first)
{
	bcomm *c = &b->comm[i];
	const bvert *src = c->src ? c->src : &c->src_v;
	const bvert *dst = c->dst ? c->dst : &c->dst_v;

	if (src->id == PAG_NONE || dst->id == PAG_NONE) {
		if (c->t0 < *first)
			*first = c->t0;
		return 0;
	}
	if (dst->t < src->t)
		b->st.nskew++;	/* clock skew: the message would arrive before it left */
	else
		pag_build_edge(b, src, dst, c->type, c->about->op, c->about);
	comm_free_slot(b, i);
	return 1;
}

/* The communication edges whose vertices the sweep up to swept made.
 * Returns the earliest start of those still waiting (INT64_MAX: none).
 * Only the waiting ones are visited, and of those sorted by when they
 * leave, only the ones that leave before swept: one of its vertices is
 * there (a span's start or end, or a point, at or after it), and a lane
 * holds no vertex at or after the time it is swept to. */
static int64_t
resolve_comm(pag_builder *b, int64_t swept)
{
	int64_t first = INT64_MAX;
	size_t kept = 0, k = 0, sorted;

	for (; k < b->nsorted && b->comm[b->livecomm[k]].t0 < swept; k++)
		if (!resolve_one(b, b->livecomm[k], &first))
			b->livecomm[kept++] = b->livecomm[k];
	if (k < b->nsorted && b->comm[b->livecomm[k]].t0 < first)
		first = b->comm[b->livecomm[k]].t0;
	if (kept != k)	/* the rest of the sorted ones, untouched, close up */
		memmove(b->livecomm + kept, b->livecomm + k, (b->nsorted - k) * sizeof *b->livecomm);
	kept += b->nsorted - k;
	sorted = kept;
	for (k = b->nsorted; k < b->nlive; k++)
		if (!resolve_one(b, b->livecomm[k], &first))
			b->livecomm[kept++] = b->livecomm[k];
	b->nsorted = sorted;
	b->nlive = kept;
	return first;
}

/* Finishing: the communication edges waiting, by when they leave. */
void
pag_sweep_sort_comm(pag_builder *b)
{
	pag_start_key *k = xmalloc((b->nlive ? b->nlive : 1) * sizeof *k);

	for (size_t i = 0; i < b->nlive; i++)
		k[i] = (pag_start_key){b->comm[b->livecomm[i]].t0, b->livecomm[i]};
	pag_sort_by_start(k, b->nlive, b->names.work);
	for (size_t i = 0; i < b->nlive; i++)
		b->livecomm[i] = k[i].edge;
	b->nsorted = b->nlive;
	free(k);
}

/* The earliest time an edge still to be made can start: comm, that of the
 * communication edges waiting. */
static int64_t
frontier(const pag_builder *b, int64_t swept, int64_t comm)
{
	int64_t f = swept == INT64_MAX ? INT64_MAX : swept - b->o.max_gap;

	if (comm < f)
		f = comm;
	for (size_t i = 0; i < b->nlanes; i++)
		if (b->lanes[i].prev.id != PAG_NONE && b->lanes[i].prev.t < f)
			f = b->lanes[i].prev.t;
	return f;
}

/* ---- writing the edges before the frontier ---- */

static void
put_vertex(pag_builder *b, const bvert *v, strbuf *out)
{
	if (v->id >= b->capwritten) {
		size_t had = b->capwritten;

		GROW(b->written, b->capwritten, (size_t)v->id + 1);
		memset(b->written + had, 0, b->capwritten - had);
	}
	if (b->written[v->id])
		return;
	b->written[v->id] = 1;
	pag_put_vertex(out, v->id, v->lane, v->t, v->ev, v->span ? v->span->trace->text + v->span->ids : "\t\t",
		       v->span ? v->span->idslen : 2);
}

/* An operation's PO record, before the first edge that names it. */
static void
put_op(pag_builder *b, uint32_t op, strbuf *out)
{
	if (op >= b->capop_written) {
		size_t had = b->capop_written;

		GROW(b->op_written, b->capop_written, (size_t)op + 1);
		memset(b->op_written + had, 0, b->capop_written - had);
	}
	if (b->op_written[op])
		return;
	b->op_written[op] = 1;
	pag_put_op(out, op, b->names.ops[op].service, b->names.ops[op].operation);
}

/* Write the edges that start before f, in start order, with a PM mark
 * before the first edge of each window. */
static void
write_edges(pag_builder *b, int64_t f, strbuf *out)
{
	size_t ndue = b->st.too_many_windows ? 0 : take_due(b, f);

	for (size_t i = 0; i < ndue && !b->st.too_many_windows; i++) {
		const pedge *e = &b->pend[b->due[i].edge];

		if (b->o.window > 0 && (!b->has_window || e->src.t >= b->window_end)) {
			int64_t ws = pag_window_start_at(b->o.origin, b->o.window, e->src.t);

			if (!b->has_window)
				b->first_window = ws;
			b->has_window = 1;
			if ((uint64_t)((ws - b->first_window) / b->o.window) >= b->o.max_windows) {
				b->st.too_many_windows = 1;
				break;
			}
			pag_put_mark(out, ws);
			b->window_end = ws + b->o.window;
			b->st.nwindows++;
		}
		if (b->o.vertices) {
			put_vertex(b, &e->src, out);
			put_vertex(b, &e->dst, out);
		}
		put_op(b, e->op, out);
		/* span ids with the vertices: -n writes only what tr-cp reads */
		pag_put_edge(out, e->src.id, e->dst.id, e->type, e->src.t, e->dst.t, e->src.lane,
			     e->dst.lane, e->op,
			     !b->o.vertices ? "" : e->about ? e->about->trace->text + e->about->ids : "\t\t",
			     !b->o.vertices ? 0 : e->about ? e->about->idslen : 2);
		b->st.nedges++;
	}
	if (ndue)
		drop_written(b, f);
	if (f > b->frontier)
		b->frontier = f;
}

/* ---- the whole step ---- */

/* Sweep the lanes up to sweep_to, make the communication edges whose
 * vertices are there and write what the frontier has passed (the builder
 * then forgets the traces written: pag_build_sweep). */
void
pag_sweep_write(pag_builder *b, int64_t sweep_to, strbuf *out)
{
	for (uint32_t l = 0; l < b->nlanes; l++)
		sweep_lane(b, l, sweep_to);
	write_edges(b, frontier(b, sweep_to, resolve_comm(b, sweep_to)), out);
}
