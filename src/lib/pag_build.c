/* pag_build.c - build the program activity graph from spans.
 *
 * A worker (service@host by default) runs one activity at a time. Its spans
 * are dealt out to lanes by interval partitioning: a span joins its parent's
 * lane when it nests in the parent and no sibling is still running there,
 * else the lowest lane that is idle. Each lane is then swept in time order:
 * every span start and end is a vertex, the stretch between two vertices is
 * an activity of the span on top of the lane's stack (processing, io or
 * waiting), or unknown when no span covers it. Lanes run from the first to
 * the last time of the graph, so every window sees every lane. Spans on
 * different lanes are joined by communication edges. */
#include "pag.h"
#include "pick.h"

#include <stdlib.h>
#include <string.h>

typedef struct bspan {
	int64_t start, end;
	uint32_t worker, op, ref;	/* ref: the graph's spanref */
	int32_t parent;		/* builder index, -1 */
	uint32_t depth;
	uint32_t lane;		/* graph lane */
	uint32_t vstart, vend;	/* graph vertices */
	uint8_t kind, follows, type, remote_child;
} bspan;

typedef struct lane_ev {
	uint32_t span;
	uint8_t end;		/* 0: the span starts, 1: it ends */
} lane_ev;

typedef struct lane_state {
	int32_t *stack;		/* open spans, innermost last */
	size_t n, cap;
	lane_ev *ev;		/* the lane's starts and ends in time order */
	size_t nev, capev;
} lane_state;

/* A vertex a communication edge needs on its parent's lane, in mid-activity. */
enum { POINT_JOIN, POINT_SPAWN };
typedef struct point {
	uint32_t lane;
	int64_t t;
	uint8_t kind;
	uint32_t child;		/* the span on the other lane */
	uint32_t vertex;	/* the vertex, once made, or PAG_NONE ... */
	uint32_t waiting_end;	/* ... the end of this waiting span (a join target) */
} point;

struct pag_builder {
	pag_build_opts o;
	pag_graph g;
	char **key;		/* worker key parts */
	uint8_t *part;		/* per part: KEY_SERVICE, KEY_HOST or KEY_TAG */
	tr_keywatch *watch;	/* per part: did any span have the tag? */
	size_t nkey;
	bspan *spans;
	size_t n, cap;
	int32_t *local;		/* trace span index -> builder index */
	size_t caplocal;
	strbuf name;
};

/* What a part of the worker key reads. */
enum { KEY_SERVICE, KEY_HOST, KEY_TAG };

pag_builder *
pag_builder_new(const pag_build_opts *o)
{
	pag_builder *b = xcalloc(1, sizeof *b);
	const char *keys = o && o->worker_key && *o->worker_key ? o->worker_key : "service,host";
	char *copy = xstrdup(keys), *tok, *save = NULL;

	if (o)
		b->o = *o;
	pag_graph_init(&b->g);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		b->key = xrealloc(b->key, (b->nkey + 1) * sizeof *b->key);
		b->watch = xrealloc(b->watch, (b->nkey + 1) * sizeof *b->watch);
		b->part = xrealloc(b->part, b->nkey + 1);
		b->part[b->nkey] = strcmp(tok, "service") == 0 ? KEY_SERVICE :
				   strcmp(tok, "host") == 0 ? KEY_HOST : KEY_TAG;
		b->key[b->nkey] = xstrdup(tok);
		tr_keywatch_init(&b->watch[b->nkey], b->key[b->nkey]);
		b->nkey++;
	}
	free(copy);
	return b;
}

static uint32_t
worker_of(pag_builder *b, const tr_span *s)
{
	sb_clear(&b->name);
	for (size_t i = 0; i < b->nkey; i++) {
		const char *v = b->part[i] == KEY_SERVICE ? s->service :
				b->part[i] == KEY_HOST ? s->host : tr_span_tag(s, b->key[i]);

		if (b->part[i] == KEY_TAG)
			tr_keywatch_note(&b->watch[i], s, v != NULL);
		if (i)
			sb_addc(&b->name, b->part[i] == KEY_HOST ? '@' : '/');
		sb_adds(&b->name, v ? v : "");
	}
	return pag_intern_worker(&b->g, b->name.s ? b->name.s : "", b->name.len);
}

void
pag_builder_add(pag_builder *b, const tr_trace *t)
{
	pag_graph *g = &b->g;
	const char *tid = arena_strndup(&g->mem, t->trace_id, strlen(t->trace_id));

	GROW(b->local, b->caplocal, t->nspans + 1);
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		bspan *x;

		b->local[i] = -1;
		if (!(s->flags & TR_SPAN_HAS_TIME) || s->duration < 0) {
			g->nspans_skipped++;
			continue;
		}
		GROW(b->spans, b->cap, b->n + 1);
		GROW(g->spans, g->capspans, g->nspans + 1);
		g->spans[g->nspans] = (pag_spanref){tid,
			arena_strndup(&g->mem, s->span_id, strlen(s->span_id))};
		x = &b->spans[b->n];
		*x = (bspan){.start = s->start, .end = tr_span_end(s), .worker = worker_of(b, s),
			     .op = pag_intern_op(g, s->service, s->operation),
			     .ref = (uint32_t)g->nspans++, .parent = -1, .depth = s->depth,
			     .lane = PAG_NONE, .vstart = PAG_NONE, .vend = PAG_NONE,
			     .kind = s->kind, .follows = !!(s->flags & TR_SPAN_FOLLOWS)};
		b->local[i] = (int32_t)b->n++;
	}
	/* spans are sorted by start, so a parent may come after its child */
	for (size_t i = 0; i < t->nspans; i++)
		if (b->local[i] >= 0 && t->spans[i].parent >= 0)
			b->spans[b->local[i]].parent = b->local[t->spans[i].parent];
}

/* ---- activity types ---- */

static void
assign_types(pag_builder *b)
{
	for (size_t i = 0; i < b->n; i++) {
		int32_t p = b->spans[i].parent;

		if (p >= 0 && b->spans[p].worker != b->spans[i].worker)
			b->spans[p].remote_child = 1;
	}
	/* a client whose callee is traced waits for its response; one whose
	 * callee is not traced is doing I/O against an outside system */
	for (size_t i = 0; i < b->n; i++) {
		bspan *s = &b->spans[i];

		s->type = s->kind != TR_KIND_CLIENT ? PAG_PROCESSING :
			  s->remote_child ? PAG_WAITING : PAG_IO;
	}
}

/* ---- lanes ---- */

typedef struct order_key {
	uint32_t worker, depth;
	int64_t start;
	uint32_t span;
} order_key;

static int
by_worker_start(const void *pa, const void *pb)
{
	const order_key *a = pa, *b = pb;

	if (a->worker != b->worker)
		return a->worker < b->worker ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->depth != b->depth)	/* a parent before a child that starts with it */
		return a->depth < b->depth ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

static void
lane_push_ev(lane_state *l, uint32_t span, int end)
{
	GROW(l->ev, l->capev, l->nev + 1);
	l->ev[l->nev++] = (lane_ev){span, (uint8_t)end};
}

/* Close the spans of lane l that ended by time t (innermost first). */
static void
lane_pop_until(lane_state *l, const bspan *spans, int64_t t)
{
	while (l->n && spans[l->stack[l->n - 1]].end <= t)
		lane_push_ev(l, (uint32_t)l->stack[--l->n], 1);
}

static void
lane_push(lane_state *l, uint32_t span)
{
	GROW(l->stack, l->cap, l->n + 1);
	l->stack[l->n++] = (int32_t)span;
	lane_push_ev(l, span, 0);
}

/* A binary min-heap of lanes by key: busy lanes by the time they fall idle
 * (the end of the span at the bottom of their stack), idle lanes by number. */
typedef struct lane_heap {
	struct heap_item { int64_t key; uint32_t lane; } *h;
	size_t n, cap;
} lane_heap;

static void
heap_push(lane_heap *q, int64_t key, uint32_t lane)
{
	size_t i = q->n++;

	GROW(q->h, q->cap, q->n);
	for (; i > 0 && q->h[(i - 1) / 2].key > key; i = (i - 1) / 2)
		q->h[i] = q->h[(i - 1) / 2];
	q->h[i] = (struct heap_item){key, lane};
}

static uint32_t
heap_pop(lane_heap *q)
{
	uint32_t top = q->h[0].lane;
	struct heap_item last = q->h[--q->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && q->h[c + 1].key < q->h[c].key)
			c++;
		if (q->h[c].key >= last.key)
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n)
		q->h[i] = last;
	return top;
}

/* The lane of span s: its parent's, when s nests in the parent there and no
 * sibling is still running; else the lowest idle lane; else a new one. */
static uint32_t
pick_lane(pag_builder *b, const bspan *s, lane_state *lanes, lane_heap *busy, lane_heap *idle,
	  size_t first)	/* lanes: every lane there is so far */
{
	pag_graph *g = &b->g;
	int32_t p = s->parent;
	uint32_t l;

	if (p >= 0 && b->spans[p].worker == s->worker && b->spans[p].lane != PAG_NONE &&
	    s->end <= b->spans[p].end) {
		lane_state *pl = &lanes[b->spans[p].lane];

		lane_pop_until(pl, b->spans, s->start);
		if (pl->n && pl->stack[pl->n - 1] == p)
			return b->spans[p].lane;
	}
	while (busy->n && busy->h[0].key <= s->start) {
		l = heap_pop(busy);
		heap_push(idle, l, l);
	}
	if (idle->n) {
		l = heap_pop(idle);
	} else {
		l = pag_add_lane(g, s->worker, (uint32_t)(g->nlanes - first));
	}
	heap_push(busy, s->end, l);
	return l;
}

/* Deal the spans of every worker out to lanes; lanes[i] is graph lane i. */
static lane_state *
assign_lanes(pag_builder *b)
{
	pag_graph *g = &b->g;
	order_key *k = xmalloc((b->n ? b->n : 1) * sizeof *k);
	lane_state *lanes = NULL;
	lane_heap busy = {0}, idle = {0};
	size_t caplanes = 0, first = 0;	/* first: the current worker's first lane */

	for (size_t i = 0; i < b->n; i++)
		k[i] = (order_key){b->spans[i].worker, b->spans[i].depth, b->spans[i].start, (uint32_t)i};
	qsort(k, b->n, sizeof *k, by_worker_start);
	for (size_t i = 0; i < b->n; i++) {
		bspan *s = &b->spans[k[i].span];
		size_t had;

		if (i == 0 || k[i - 1].worker != s->worker) {
			first = g->nlanes;
			busy.n = idle.n = 0;
		}
		had = g->nlanes;
		s->lane = pick_lane(b, s, lanes, &busy, &idle, first);
		if (g->nlanes > had) {
			GROW(lanes, caplanes, g->nlanes);
			memset(&lanes[s->lane], 0, sizeof lanes[s->lane]);
		}
		lane_pop_until(&lanes[s->lane], b->spans, s->start);
		lane_push(&lanes[s->lane], k[i].span);
	}
	for (size_t j = 0; j < g->nlanes; j++)
		lane_pop_until(&lanes[j], b->spans, INT64_MAX);
	if (!lanes)
		lanes = xcalloc(1, sizeof *lanes);
	free(busy.h);
	free(idle.h);
	free(k);
	return lanes;
}

/* ---- points for spawn and join edges ---- */

typedef struct points {
	point *p;
	size_t n, cap;
} points;

static void
add_point(points *pts, uint32_t lane, int64_t t, int kind, uint32_t child)
{
	GROW(pts->p, pts->cap, pts->n + 1);
	pts->p[pts->n++] = (point){lane, t, (uint8_t)kind, child, PAG_NONE, PAG_NONE};
}

static int
by_lane_time(const void *pa, const void *pb)
{
	const point *a = pa, *b = pb;

	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->child < b->child ? -1 : a->child > b->child;
}

/* A child on another lane than its parent, not called through a client span
 * nor sent a message: its parent's lane hands it over (spawn) and, when the
 * child ends within the parent, takes its result back (join). */
static int
is_spawned(const bspan *spans, const bspan *x)
{
	const bspan *p = &spans[x->parent];

	return !x->follows && p->kind != TR_KIND_PRODUCER && p->kind != TR_KIND_CLIENT;
}

static void
collect_points(pag_builder *b, points *pts)
{
	for (size_t i = 0; i < b->n; i++) {
		const bspan *x = &b->spans[i];
		const bspan *p;

		if (x->parent < 0 || b->spans[x->parent].lane == x->lane || !is_spawned(b->spans, x))
			continue;
		p = &b->spans[x->parent];
		if (x->start >= p->start && x->start <= p->end)
			add_point(pts, p->lane, x->start, POINT_SPAWN, (uint32_t)i);
		if (x->end >= p->start && x->end <= p->end)
			add_point(pts, p->lane, x->end, POINT_JOIN, (uint32_t)i);
	}
	if (pts->n)
		qsort(pts->p, pts->n, sizeof *pts->p, by_lane_time);
}

/* ---- the sweep of one lane ---- */

typedef struct sweep {
	pag_builder *b;
	uint32_t lane;
	uint32_t prev;		/* last vertex, PAG_NONE before the first */
	int64_t prev_t;
	int last_type;		/* type of the last edge, for absorbed gaps */
	uint32_t last_op, last_ref;
	uint32_t unknown_op;
	int32_t *stack;
	size_t n, cap;
} sweep;

/* A vertex at time t; the edge from the previous vertex is the activity of
 * the span on top of the stack. */
static uint32_t
sweep_vertex(sweep *w, int64_t t, int event, uint32_t ref)
{
	pag_graph *g = &w->b->g;
	uint32_t v = pag_add_vertex(g, w->lane, t, event, ref);

	if (w->prev != PAG_NONE) {
		int type = PAG_UNKNOWN;
		uint32_t op = w->unknown_op, sref = PAG_NONE;

		if (w->n) {
			const bspan *top = &w->b->spans[w->stack[w->n - 1]];

			type = top->type;
			op = top->op;
			sref = top->ref;
		} else if (t - w->prev_t < w->b->o.unknown_threshold && w->last_type >= 0) {
			type = w->last_type;	/* a short gap is absorbed */
			op = w->last_op;
			sref = w->last_ref;
		}
		pag_add_edge(g, w->prev, v, type, op, sref);
		w->last_type = type;
		w->last_op = op;
		w->last_ref = sref;
	}
	w->prev = v;
	w->prev_t = t;
	return v;
}

static void
sweep_point(sweep *w, point *pt)
{
	bspan *top = w->n ? &w->b->spans[w->stack[w->n - 1]] : NULL;

	if (top && top->type == PAG_WAITING) {
		/* a waiting lane is blocked: it spawned when the wait began and
		 * takes the result back when the wait ends */
		if (pt->kind == POINT_SPAWN)
			pt->vertex = top->vstart;
		else
			pt->waiting_end = (uint32_t)w->stack[w->n - 1];
		return;
	}
	pt->vertex = sweep_vertex(w, pt->t, PAG_EV_POINT, w->b->spans[pt->child].ref);
}

static void
sweep_lane(pag_builder *b, uint32_t lane, const lane_state *l, point *pts, size_t npts)
{
	pag_graph *g = &b->g;
	sweep w = {.b = b, .lane = lane, .prev = PAG_NONE, .last_type = -1,
		   .unknown_op = pag_intern_op(g, "", "")};
	size_t i = 0, j = 0;

	for (;;) {
		const lane_ev *e = i < l->nev ? &l->ev[i] : NULL;
		bspan *s = e ? &b->spans[e->span] : NULL;
		int64_t te = e ? (e->end ? s->end : s->start) : INT64_MAX;
		point *p = j < npts ? &pts[j] : NULL;

		if (!e && !p)
			break;
		if (w.prev == PAG_NONE && (p ? p->t : te) > g->start)
			sweep_vertex(&w, g->start, PAG_EV_BEGIN, PAG_NONE);
		if (p && (p->t < te || (p->t == te && p->kind == POINT_JOIN))) {
			sweep_point(&w, p);
			j++;
			continue;
		}
		if (!e->end) {
			s->vstart = sweep_vertex(&w, te, PAG_EV_START, s->ref);
			GROW(w.stack, w.cap, w.n + 1);
			w.stack[w.n++] = (int32_t)e->span;
		} else {
			s->vend = sweep_vertex(&w, te, PAG_EV_END, s->ref);
			w.n--;
		}
		i++;
	}
	if (w.prev == PAG_NONE)
		sweep_vertex(&w, g->start, PAG_EV_BEGIN, PAG_NONE);
	if (w.prev_t < g->end)
		sweep_vertex(&w, g->end, PAG_EV_FINISH, PAG_NONE);
	free(w.stack);
}

/* ---- communication edges ---- */

static void
comm_edge(pag_builder *b, uint32_t src, uint32_t dst, int type, const bspan *about)
{
	pag_graph *g = &b->g;

	if (src == PAG_NONE || dst == PAG_NONE)
		return;
	if (g->vtime[dst] < g->vtime[src]) {
		g->nskew++;	/* clock skew: the message would arrive before it left */
		return;
	}
	pag_add_edge(g, src, dst, type, about->op, about->ref);
}

static void
link_spans(pag_builder *b, const points *pts)
{
	for (size_t i = 0; i < b->n; i++) {
		const bspan *x = &b->spans[i], *p;

		if (x->parent < 0 || b->spans[x->parent].lane == x->lane)
			continue;
		p = &b->spans[x->parent];
		if (x->follows || p->kind == TR_KIND_PRODUCER) {
			uint32_t from = p->end <= x->start ? p->vend : p->vstart;

			comm_edge(b, from, x->vstart, PAG_MESSAGE, x);
		} else if (p->kind == TR_KIND_CLIENT) {
			comm_edge(b, p->vstart, x->vstart, PAG_REQUEST, x);
			comm_edge(b, x->vend, p->vend, PAG_RESPONSE, x);
		} else if (x->start > p->end) {
			comm_edge(b, p->vend, x->vstart, PAG_SPAWN, x);	/* async, after the parent */
		} else if (x->start < p->start) {
			b->g.nskew++;
		}
	}
	for (size_t i = 0; i < pts->n; i++) {
		const point *pt = &pts->p[i];
		const bspan *x = &b->spans[pt->child];

		if (pt->kind == POINT_SPAWN)
			comm_edge(b, pt->vertex, x->vstart, PAG_SPAWN, x);
		else
			comm_edge(b, x->vend, pt->vertex != PAG_NONE ? pt->vertex :
				  b->spans[pt->waiting_end].vend, PAG_JOIN, x);
	}
}

/* Worker key parts no span had: named in warnings, counted. */
static size_t
unmatched_keys(const pag_builder *b)
{
	static const char *const builtin[] = {"service", "host"};
	size_t bad = 0;

	for (size_t i = 0; b->n && i < b->nkey; i++)
		if (b->part[i] == KEY_TAG)
			bad += (size_t)tr_keywatch_missing(&b->watch[i], "--worker-key", builtin, 2);
	return bad;
}

size_t
pag_builder_finish(pag_builder *b, pag_graph *g)
{
	lane_state *lanes;
	points pts = {0};
	size_t j = 0, bad = unmatched_keys(b);

	for (size_t i = 0; i < b->n; i++) {
		if (i == 0 || b->spans[i].start < b->g.start)
			b->g.start = b->spans[i].start;
		if (i == 0 || b->spans[i].end > b->g.end)
			b->g.end = b->spans[i].end;
	}
	assign_types(b);
	lanes = assign_lanes(b);
	collect_points(b, &pts);
	for (uint32_t l = 0; l < b->g.nlanes; l++) {
		size_t k = j;

		while (k < pts.n && pts.p[k].lane == l)
			k++;
		sweep_lane(b, l, &lanes[l], pts.p + j, k - j);
		j = k;
		free(lanes[l].stack);
		free(lanes[l].ev);
	}
	free(lanes);
	link_spans(b, &pts);
	free(pts.p);
	*g = b->g;
	for (size_t i = 0; i < b->nkey; i++) {
		free(b->key[i]);
		tr_keywatch_free(&b->watch[i]);
	}
	free(b->key);
	free(b->part);
	free(b->watch);
	free(b->spans);
	free(b->local);
	sb_free(&b->name);
	free(b);
	return bad;
}
