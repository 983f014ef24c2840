/* pag_build.c - build the program activity graph from spans.
 *
 * A worker (service@host by default) runs one activity at a time. Its spans
 * are dealt out to lanes by interval partitioning: a span joins its parent's
 * lane when it nests in the parent and no sibling is still running there,
 * else the lowest lane that is idle. Each lane is then swept in time order:
 * every span start and end is a vertex, the stretch between two vertices is
 * an activity of the span on top of the lane's stack (processing, io or
 * waiting). A stretch no span covers is waiting when an incoming request,
 * response or message ends it (SnailTrail's Assumption 2), else unknown.
 * A lane runs from its first to its last activity (one whose first span
 * nothing enters begins with its worker, the gap unknown): a worker exists
 * from its first to its last activity. Spans on different lanes are joined
 * by communication edges, references into other traces included; root
 * spans get their requests from the untraced clients' own worker. */
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
	uint32_t waiting_for;	/* sweep: spawned children it waits for (not yet joined) */
	uint8_t kind, follows, type;
	uint8_t remote_child;	/* a child on another lane */
	uint8_t async;		/* a client whose callee cannot be waited for: it does not block */
	uint8_t incoming;	/* a communication edge enters its start: 1, from another
				 * lane; 2, from the clients (a root) */
} bspan;

/* A reference (R record) to a span, maybe of another trace: a message. */
typedef struct bref {
	uint32_t span;		/* the referring span (builder index) */
	const char *key;	/* "trace_id\tspan_id" of the span referred to */
	size_t len;
} bref;

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

/* A vertex a communication edge needs in mid-activity: on a parent's lane
 * where a child is handed over (spawn) or taken back (join), or where a
 * request or response that clock skew would send back in time leaves
 * (clamped to the time it arrives). */
enum { POINT_JOIN, POINT_SPAWN, POINT_REQUEST, POINT_RESPONSE };
typedef struct point {
	uint32_t lane;
	int64_t t;
	uint8_t kind;
	uint8_t waits;		/* spawn: the parent waits until the child joins */
	uint32_t child;		/* the span on the other lane */
	uint32_t vertex;	/* the vertex, once made */
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
	bref *refs;
	size_t nrefs, caprefs;
	int64_t *worker_start;	/* per worker: its first activity */
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

int
pag_span_usable(const tr_span *s)
{
	return (s->flags & TR_SPAN_HAS_TIME) && s->duration >= 0;
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
		if (!pag_span_usable(s)) {
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
	for (size_t i = 0; i < t->nrefs; i++) {
		const tr_ref *r = &t->refs[i];
		size_t lt, ls;
		char *key;

		if (r->span < 0 || b->local[r->span] < 0 || !r->trace_id || !r->span_id)
			continue;
		lt = strlen(r->trace_id);
		ls = strlen(r->span_id);
		key = arena_alloc(&g->mem, lt + ls + 2);
		memcpy(key, r->trace_id, lt);
		key[lt] = '\t';
		memcpy(key + lt + 1, r->span_id, ls + 1);
		GROW(b->refs, b->caprefs, b->nrefs + 1);
		b->refs[b->nrefs++] = (bref){(uint32_t)b->local[r->span], key, lt + ls + 1};
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

/* ---- activity types ---- */

/* A client whose callee starts after the client ended, or runs longer than
 * the client, cannot have waited for its response: the call is async. */
static int
callee_is_async(const bspan *client, const bspan *callee)
{
	return callee->start > client->end ||
	       callee->end - callee->start > client->end - client->start;
}

static void
assign_types(pag_builder *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const bspan *x = &b->spans[i];
		bspan *p;

		if (x->parent < 0 || (p = &b->spans[x->parent])->lane == x->lane)
			continue;
		p->remote_child = 1;
		if (p->kind == TR_KIND_CLIENT && !x->follows && callee_is_async(p, x))
			p->async = 1;
	}
	/* a client whose traced callee answers waits for the response; one
	 * whose callee is not traced is doing I/O against an outside system;
	 * an async client only sends */
	for (size_t i = 0; i < b->n; i++) {
		bspan *s = &b->spans[i];

		s->type = s->kind != TR_KIND_CLIENT ? PAG_PROCESSING :
			  !s->remote_child ? PAG_IO : s->async ? PAG_PROCESSING : PAG_WAITING;
	}
}

/* ---- references (R records), into other traces too ---- */

/* The span each reference names, or PAG_NONE: looked up by trace and span
 * id over all spans read, once, when the first reference needs it. */
static void
resolve_refs(pag_builder *b, uint32_t *target)
{
	const pag_graph *g = &b->g;
	arena keys = {0};
	strmap ids = {0};

	for (size_t i = 0; i < b->n; i++) {
		const pag_spanref *r = &g->spans[b->spans[i].ref];
		size_t lt = strlen(r->trace_id), ls = strlen(r->span_id);
		char *k = arena_alloc(&keys, lt + ls + 2);
		int added;
		strmap_slot *sl;

		memcpy(k, r->trace_id, lt);
		k[lt] = '\t';
		memcpy(k + lt + 1, r->span_id, ls + 1);
		sl = strmap_put(&ids, k, lt + ls + 1, &added);
		if (added)	/* a span id twice in one trace: the first */
			sl->val = (int64_t)i;
	}
	for (size_t i = 0; i < b->nrefs; i++) {
		const strmap_slot *sl = strmap_get(&ids, b->refs[i].key, b->refs[i].len);
		bspan *x = &b->spans[b->refs[i].span];
		uint32_t y = sl ? (uint32_t)sl->val : PAG_NONE;

		/* the reference to the tree's own parent is that edge already */
		if (y != PAG_NONE && ((int32_t)y == x->parent || b->spans[y].lane == x->lane))
			y = PAG_NONE;
		target[i] = y;
		if (y != PAG_NONE)
			x->incoming = 1;
	}
	strmap_free(&ids);
	arena_free(&keys);
}

/* ---- points in mid-activity ---- */

typedef struct points {
	point *p;
	size_t n, cap;
} points;

static void
add_point(points *pts, uint32_t lane, int64_t t, int kind, uint32_t child, int waits)
{
	GROW(pts->p, pts->cap, pts->n + 1);
	pts->p[pts->n++] = (point){lane, t, (uint8_t)kind, (uint8_t)waits, child, PAG_NONE};
}

static int
by_lane_time(const void *pa, const void *pb)
{
	const point *a = pa, *b = pb;

	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	/* A zero-length child is handed over before it is joined: joins
	 * first would make a cycle (join -> spawn -> child -> join) */
	if (a->child == b->child && a->kind + b->kind == POINT_JOIN + POINT_SPAWN &&
	    a->kind != b->kind)
		return a->kind == POINT_SPAWN ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->child < b->child ? -1 : a->child > b->child;
}

static int
within(int64_t t, const bspan *s)
{
	return t >= s->start && t <= s->end;
}

/* Where a span's communication edges leave and enter, and whether the span
 * starts with an incoming edge (that makes a gap before it waiting). */
static void
collect_points(pag_builder *b, points *pts)
{
	for (size_t i = 0; i < b->n; i++) {
		bspan *x = &b->spans[i];
		const bspan *p;

		if (x->parent < 0 || b->spans[x->parent].lane == x->lane)
			continue;
		p = &b->spans[x->parent];
		if (x->follows || p->kind == TR_KIND_PRODUCER) {
			x->incoming = 1;
		} else if (p->kind == TR_KIND_CLIENT) {
			x->incoming = 1;
			/* clock skew: the request leaves when the callee starts,
			 * the response when the client ends (clamped, not dropped) */
			if (x->start < p->start) {
				if (x->start >= b->worker_start[p->worker]) {
					add_point(pts, p->lane, x->start, POINT_REQUEST, (uint32_t)i, 0);
					b->g.nclamped++;
				} else {
					b->g.nskew++;
				}
			}
			if (!p->async && x->end > p->end) {
				add_point(pts, x->lane, p->end, POINT_RESPONSE, (uint32_t)i, 0);
				b->g.nclamped++;
			}
		} else {
			/* neither called through a client span nor sent a message:
			 * the parent's lane hands the child over (spawn) and, when
			 * it ends within the parent, takes its result back (join),
			 * waiting for it in between, as for a call */
			int waits = within(x->start, p) && within(x->end, p);

			x->incoming = x->start >= p->start;
			if (within(x->start, p))
				add_point(pts, p->lane, x->start, POINT_SPAWN, (uint32_t)i, waits);
			if (within(x->end, p))
				add_point(pts, p->lane, x->end, POINT_JOIN, (uint32_t)i, waits);
		}
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

/* A vertex at time t that an incoming edge about span `enters` enters (or
 * PAG_NONE), where span `by` hands a child over (or PAG_NONE). The edge from
 * the previous vertex is the activity of the span on top of the stack, or
 * of no span (a gap). Assumption 2: only an incoming edge ends a wait, so a
 * blocked span and a gap wait only when an incoming edge ends the stretch;
 * else the span was busy (handing over more work: the work of the span that
 * hands it over) and the gap is unknown. */
static uint32_t
sweep_vertex(sweep *w, int64_t t, int event, uint32_t ref, uint32_t enters, uint32_t by)
{
	pag_graph *g = &w->b->g;
	uint32_t v = pag_add_vertex(g, w->lane, t, event, ref);

	if (w->prev != PAG_NONE) {
		int type = PAG_UNKNOWN;
		uint32_t op = w->unknown_op, sref = PAG_NONE;

		if (w->n) {
			const bspan *top = &w->b->spans[w->stack[w->n - 1]];

			type = top->type == PAG_PROCESSING && top->waiting_for ? PAG_WAITING : top->type;
			op = top->op;
			sref = top->ref;
			if (type == PAG_WAITING && enters == PAG_NONE) {
				/* it hands work over or starts a local span: busy */
				type = PAG_PROCESSING;
				if (by != PAG_NONE) {
					op = w->b->spans[by].op;
					sref = w->b->spans[by].ref;
				}
			}
		} else if (enters != PAG_NONE) {
			type = PAG_WAITING;
			op = w->b->spans[enters].op;
			sref = w->b->spans[enters].ref;
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
	bspan *child = &w->b->spans[pt->child];

	pt->vertex = sweep_vertex(w, pt->t, PAG_EV_POINT, child->ref,
				  pt->kind == POINT_JOIN ? pt->child : PAG_NONE,
				  pt->kind == POINT_SPAWN ? (uint32_t)child->parent : PAG_NONE);
	if (pt->waits && pt->kind == POINT_SPAWN)
		w->b->spans[child->parent].waiting_for++;
	else if (pt->waits && pt->kind == POINT_JOIN)
		w->b->spans[child->parent].waiting_for--;
}

static void
sweep_lane(pag_builder *b, uint32_t lane, const lane_state *l, point *pts, size_t npts)
{
	pag_graph *g = &b->g;
	sweep w = {.b = b, .lane = lane, .prev = PAG_NONE, .last_type = -1,
		   .unknown_op = pag_intern_op(g, "", "")};
	int64_t begin = b->worker_start[g->lanes[lane].worker];	/* its worker's first time */
	size_t i = 0, j = 0;

	for (;;) {
		const lane_ev *e = i < l->nev ? &l->ev[i] : NULL;
		bspan *s = e ? &b->spans[e->span] : NULL;
		int64_t te = e ? (e->end ? s->end : s->start) : INT64_MAX;
		point *p = j < npts ? &pts[j] : NULL;

		if (!e && !p)
			break;
		/* A lane whose first span comes from outside (no incoming
		 * edge) begins with its worker: the gap is unknown time. */
		if (w.prev == PAG_NONE && e && !e->end && !s->incoming && te > begin &&
		    !(p && p->t < te))
			sweep_vertex(&w, begin, PAG_EV_BEGIN, PAG_NONE, PAG_NONE, PAG_NONE);
		if (p && (p->t < te || (p->t == te && p->kind == POINT_JOIN))) {
			sweep_point(&w, p);
			j++;
			continue;
		}
		if (!e->end) {
			s->vstart = sweep_vertex(&w, te, PAG_EV_START, s->ref,
						 s->incoming ? e->span : PAG_NONE, PAG_NONE);
			GROW(w.stack, w.cap, w.n + 1);
			w.stack[w.n++] = (int32_t)e->span;
		} else {
			/* a waiting client's response enters its end */
			s->vend = sweep_vertex(&w, te, PAG_EV_END, s->ref,
					       s->type == PAG_WAITING ? e->span : PAG_NONE, PAG_NONE);
			w.n--;
		}
		i++;
	}
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

/* A message from span y to span x: from y's end, or its start when x starts
 * before y ends. */
static void
message_edge(pag_builder *b, const bspan *y, const bspan *x)
{
	comm_edge(b, y->end <= x->start ? y->vend : y->vstart, x->vstart, PAG_MESSAGE, x);
}

static void
link_spans(pag_builder *b, const points *pts, const uint32_t *target)
{
	for (size_t i = 0; i < b->n; i++) {
		const bspan *x = &b->spans[i], *p;

		if (x->parent < 0 || b->spans[x->parent].lane == x->lane)
			continue;
		p = &b->spans[x->parent];
		if (x->follows || p->kind == TR_KIND_PRODUCER) {
			message_edge(b, p, x);
		} else if (p->kind == TR_KIND_CLIENT) {
			/* skewed ones leave from points; an async client gets no response */
			if (x->start >= p->start)
				comm_edge(b, p->vstart, x->vstart, PAG_REQUEST, x);
			if (!p->async && x->end <= p->end)
				comm_edge(b, x->vend, p->vend, PAG_RESPONSE, x);
		} else if (x->start > p->end) {
			comm_edge(b, p->vend, x->vstart, PAG_SPAWN, x);	/* async, after the parent */
		} else if (x->start < p->start) {
			b->g.nskew++;
		}
	}
	for (size_t i = 0; i < b->nrefs; i++)
		if (target[i] != PAG_NONE)
			message_edge(b, &b->spans[target[i]], &b->spans[b->refs[i].span]);
	for (size_t i = 0; i < pts->n; i++) {
		const point *pt = &pts->p[i];
		const bspan *x = &b->spans[pt->child];

		switch (pt->kind) {
		case POINT_SPAWN:
			comm_edge(b, pt->vertex, x->vstart, PAG_SPAWN, x);
			break;
		case POINT_JOIN:
			comm_edge(b, x->vend, pt->vertex, PAG_JOIN, x);
			break;
		case POINT_REQUEST:
			comm_edge(b, pt->vertex, x->vstart, PAG_REQUEST, x);
			break;
		case POINT_RESPONSE:
			comm_edge(b, pt->vertex, b->spans[x->parent].vend, PAG_RESPONSE, x);
			break;
		}
	}
}

/* ---- the untraced clients ---- */

typedef struct root_key {
	int64_t start;
	uint32_t span;
} root_key;

static int
by_root_start(const void *pa, const void *pb)
{
	const root_key *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

/* Who sends a root span its request is not traced: a worker of its own,
 * PAG_CLIENTS, there from the graph's first time on, sends every root's
 * request when the root starts, and its time in between is unknown. So no root comes out of the blue (Property
 * 1), a worker idle until a request arrives waits (Assumption 2), and a
 * system that waits for its clients says so: unknown time of the clients. */
static void
mark_roots(pag_builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->spans[i].parent < 0 && !b->spans[i].incoming)
			b->spans[i].incoming = 2;	/* from the clients */
}

static void
link_clients(pag_builder *b)
{
	pag_graph *g = &b->g;
	root_key *k = NULL;
	size_t n = 0, cap = 0;
	uint32_t lane, prev = PAG_NONE, unknown = pag_intern_op(g, "", "");

	for (size_t i = 0; i < b->n; i++)
		if (b->spans[i].incoming == 2) {
			GROW(k, cap, n + 1);
			k[n++] = (root_key){b->spans[i].start, (uint32_t)i};
		}
	if (!n)
		return;
	qsort(k, n, sizeof *k, by_root_start);
	lane = pag_add_lane(g, pag_intern_worker(g, PAG_CLIENTS, strlen(PAG_CLIENTS)), 0);
	if (k[0].start > g->start)	/* the clients are there from the first time on */
		prev = pag_add_vertex(g, lane, g->start, PAG_EV_BEGIN, PAG_NONE);
	for (size_t i = 0; i < n; i++) {
		const bspan *x = &b->spans[k[i].span];

		if (prev == PAG_NONE || g->vtime[prev] < x->start) {
			uint32_t v = pag_add_vertex(g, lane, x->start, PAG_EV_POINT, x->ref);

			if (prev != PAG_NONE)
				pag_add_edge(g, prev, v, PAG_UNKNOWN, unknown, PAG_NONE);
			prev = v;
		}
		pag_add_edge(g, prev, x->vstart, PAG_REQUEST, x->op, x->ref);
	}
	free(k);
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
	uint32_t *target = xmalloc((b->nrefs ? b->nrefs : 1) * sizeof *target);

	b->worker_start = xmalloc((b->g.nworkers ? b->g.nworkers : 1) * sizeof *b->worker_start);
	for (size_t w = 0; w < b->g.nworkers; w++)
		b->worker_start[w] = INT64_MAX;
	for (size_t i = 0; i < b->n; i++) {
		const bspan *s = &b->spans[i];

		if (i == 0 || s->start < b->g.start)
			b->g.start = s->start;
		if (i == 0 || s->end > b->g.end)
			b->g.end = s->end;
		if (s->start < b->worker_start[s->worker])
			b->worker_start[s->worker] = s->start;
	}
	lanes = assign_lanes(b);
	assign_types(b);
	if (b->nrefs)
		resolve_refs(b, target);
	collect_points(b, &pts);
	mark_roots(b);
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
	link_spans(b, &pts, target);
	link_clients(b);
	free(pts.p);
	free(target);
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
	free(b->refs);
	free(b->worker_start);
	sb_free(&b->name);
	free(b);
	return bad;
}
