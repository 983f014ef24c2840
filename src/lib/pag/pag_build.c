/* pag_build.c - build the program activity graph from spans, as the traces
 * are read, and write its records window by window.
 *
 * A worker (service@host by default) runs one activity at a time. Its spans
 * are dealt out to lanes by interval partitioning: a span joins its parent's
 * lane when it nests in the parent and no sibling is still running there,
 * else the lowest lane that is idle. Each lane is swept in time order: every
 * span start and end is a vertex, the stretch between two vertices is an
 * activity of the span on top of the lane's stack (processing, io or
 * waiting). A stretch no span covers is waiting when an incoming request,
 * response or message ends it (SnailTrail's Assumption 2), else unknown.
 * A lane runs from its first to its last activity, and an idle stretch
 * longer than max_gap is not part of it: the lane ends before it and begins
 * again after it (a run whose first span nothing enters begins with an
 * unknown stretch back to its worker's first time, at most max_gap long).
 * Spans on different lanes are joined by communication edges, references
 * into other traces included; root spans get their requests from the
 * untraced clients' own worker.
 *
 * Streaming. Spans are placed in start order once no trace still to come
 * can start before them: traces may arrive up to `lateness` out of start
 * order (a later one is refused). Lanes are swept `lateness` behind that,
 * so that a callee whose clock runs up to `lateness` ahead of its client
 * still finds the client's lane unswept. Every edge that can still be made
 * starts at or after the frontier (the earliest open end of a lane, of a
 * pending communication edge, or max_gap before the sweep); the edges
 * before it are written in start order, and a trace is forgotten once the
 * frontier has passed its end by max_gap. Memory is what that span of time
 * holds, not the input. Until `hold` spans are read nothing is placed: a
 * small input may come in any order. */
#include "pag.h"
#include "pick.h"

#include <stdlib.h>
#include <string.h>

typedef struct btrace btrace;
typedef struct bspan bspan;

/* A vertex, made by the sweep: id is its record number (PAG_NONE: not yet). */
typedef struct bvert {
	uint32_t id, lane;
	int64_t t;
	const bspan *span;	/* whose vertex, for PV records; NULL */
	uint8_t ev;
} bvert;

struct bspan {
	int64_t start, end;
	btrace *trace;
	uint32_t ids, idslen;	/* in the trace's text: "\ttrace\tspan" as records
				 * write it (escaped) */
	uint32_t key, keylen;	/* "trace\tspan" as read: the reference map's key */
	uint64_t seq;		/* read order: ties in start order */
	uint32_t worker, op, depth;
	int32_t parent;		/* index in the trace, -1 */
	int32_t child, sibling;	/* first child, next sibling: indices, -1 */
	uint32_t lane;		/* PAG_NONE until placed */
	uint32_t waiting_for;	/* sweep: spawned children it waits for (not yet joined) */
	int64_t lane_child_end;	/* the end of its last child placed on its lane */
	bvert vs, ve;
	uint8_t kind, follows, type;
	uint8_t remote;		/* not on its parent's lane: a handed-over child */
	uint8_t remote_child;	/* has a child on another lane */
	uint8_t async;		/* a client whose callee cannot be waited for: it does not block */
	uint8_t incoming;	/* a communication edge enters its start: 1, from another
				 * lane; 2, from the clients (a root) */
	uint8_t placed;
};

/* A reference (R record) of span `span` to a span named by key. */
typedef struct bref {
	uint32_t span;
	uint32_t off, len;	/* key "trace\tspan" in the trace's text */
} bref;

/* A trace's spans, held until the frontier has passed them. */
struct btrace {
	bspan *spans;
	size_t n;
	bref *refs;
	size_t nrefs;
	char *text;		/* trace id, span names, reference keys */
	const char *id;
	int64_t end;		/* its latest span end */
	int dead;		/* forgotten, kept until the reference map is rebuilt */
	btrace *next;
};

/* A communication edge waiting for its vertices: span vertices by pointer,
 * a point's (or the clients') vertex in place. */
typedef struct bcomm {
	const bvert *src, *dst;	/* NULL: src_v, dst_v */
	bvert src_v, dst_v;
	int64_t t0;		/* when it leaves: no earlier than the frontier */
	const bspan *about;
	uint8_t type, live;
} bcomm;

/* A vertex a communication edge needs in mid-activity: on a parent's lane
 * where a child is handed over (spawn) or taken back (join), or where a
 * request or response that clock skew would send back in time leaves
 * (clamped to the time it arrives). */
enum { POINT_JOIN, POINT_SPAWN, POINT_REQUEST, POINT_RESPONSE };
typedef struct point {
	int64_t t;
	bspan *child;		/* the span on the other lane */
	uint32_t comm;		/* its edge */
	uint8_t kind, waits;	/* spawn: the parent waits until the child joins */
} point;

typedef struct lane_ev {
	bspan *span;
	uint8_t end;		/* 0: the span starts, 1: it ends */
} lane_ev;

typedef struct blane {
	uint32_t worker;
	bspan **stack;		/* placing: open spans, innermost last */
	size_t n, cap;
	lane_ev *ev;		/* starts and ends in time order, from evdone unswept */
	size_t nev, capev, evdone;
	point *pts;		/* points in order (by_point_order), unswept */
	size_t npts, cappts;
	int64_t swept;		/* swept up to (not including) this time */
	/* the sweep */
	bspan **open;		/* open spans, innermost last */
	size_t nopen, capopen;
	bvert prev;		/* the last vertex of the run; id PAG_NONE: no run */
	int last_type;		/* type of the last edge, for absorbed gaps */
	uint32_t last_op;
	const bspan *last_ref;
} blane;

/* A binary min-heap of lanes by key: busy lanes by the time they fall idle
 * (the end of the span at the bottom of their stack), idle lanes by number. */
typedef struct lane_heap {
	struct heap_item { int64_t key; uint32_t lane; } *h;
	size_t n, cap;
} lane_heap;

typedef struct bworker {
	lane_heap busy, idle;
	int64_t start;		/* its first activity */
	uint32_t nlanes;
} bworker;

/* An edge made, waiting for the frontier to pass its start. */
typedef struct pedge {
	bvert src, dst;
	const bspan *about;
	uint32_t op;
	uint8_t type;
} pedge;

struct edge_key {
	int64_t t0;
	uint32_t slot;		/* in the pool */
};

struct pag_builder {
	pag_build_opts o;
	pag_graph names;	/* workers and operations */
	pag_build_stats st;
	char **key;		/* worker key parts */
	uint8_t *part;		/* per part: KEY_SERVICE, KEY_HOST or KEY_TAG */
	tr_keywatch *watch;	/* per part: did any span have the tag? */
	size_t nkey;
	strbuf name, opfields;
	uint32_t *opat;		/* per op: its "\tservice\toperation" in opfields */
	size_t nopat, capopat;
	int32_t *local;		/* trace span index -> builder index */
	size_t caplocal;
	struct order_key *order;	/* scratch: a trace's spans in start order */
	size_t caporder;
	btrace *first, *last;	/* held traces, in read order */
	btrace *dead;		/* forgotten ones the reference map still names */
	struct todo_item *todo;	/* a heap of spans read, not placed */
	size_t ntodo, captodo;
	size_t held;		/* spans read so far, while holding */
	int holding;
	uint64_t seq;
	int64_t latest;		/* the latest trace start read */
	int64_t placed_to;	/* spans before this are placed (INT64_MIN: none) */
	int64_t frontier;	/* edges before this are written */
	int has_start;
	int64_t start, end;	/* of all spans */
	blane *lanes;
	size_t nlanes, caplanes;
	bworker *workers;
	size_t capworkers;
	uint32_t unknown_op;
	bcomm *comm;
	size_t ncomm, capcomm;
	uint32_t *freecomm;
	size_t nfree, capfree;
	pedge *pool;		/* edges made, not written */
	size_t npool, cappool;
	uint32_t *freeedge;
	size_t nfreeedge, capfreeedge;
	struct edge_key *edges;	/* a heap over the pool */
	size_t nedges, capedges;
	uint32_t next_vertex;
	uint8_t *written;	/* per vertex id: its PV record is out */
	size_t capwritten;
	int header_done;
	int has_window;
	int64_t window_end, first_window;
	uint32_t clients;	/* the clients' lane, PAG_NONE */
	bvert clients_prev;
	strmap ids;		/* "trace\tspan" -> span, once a reference needs it */
	int has_ids;
	size_t ids_dead;	/* entries of traces forgotten */
};

/* What a part of the worker key reads. */
enum { KEY_SERVICE, KEY_HOST, KEY_TAG };

#define DEFAULT_LATENESS 5000000	/* 5 s */
#define DEFAULT_MAX_GAP 1000000	/* 1 s */
#define DEFAULT_HOLD 50000

static const bvert no_vertex = {PAG_NONE, PAG_NONE, 0, NULL, 0};

static uint32_t intern_op(pag_builder *b, const char *service, const char *operation);

pag_builder *
pag_builder_new(const pag_build_opts *o)
{
	pag_builder *b = xcalloc(1, sizeof *b);
	const char *keys = o && o->worker_key && *o->worker_key ? o->worker_key : "service,host";
	char *copy = xstrdup(keys), *tok, *save = NULL;

	if (o)
		b->o = *o;
	if (b->o.lateness <= 0)
		b->o.lateness = DEFAULT_LATENESS;
	if (b->o.max_gap <= 0)
		b->o.max_gap = DEFAULT_MAX_GAP;
	if (!b->o.hold)
		b->o.hold = DEFAULT_HOLD;
	if (!b->o.max_windows)
		b->o.max_windows = PAG_MAX_WINDOWS;
	pag_graph_init(&b->names);
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
	b->holding = 1;
	b->placed_to = b->frontier = b->latest = INT64_MIN;
	b->clients = PAG_NONE;
	b->clients_prev = no_vertex;
	b->unknown_op = intern_op(b, "", "");
	return b;
}

const pag_build_stats *
pag_builder_stats(const pag_builder *b)
{
	return &b->st;
}

/* An operation, with its "\tservice\toperation" fields escaped once for
 * the edges (millions of edges, a few hundred operations). */
static uint32_t
intern_op(pag_builder *b, const char *service, const char *operation)
{
	uint32_t op = pag_intern_op(&b->names, service, operation);

	if (op >= b->nopat) {	/* new: ops are numbered in order */
		GROW(b->opat, b->capopat, (size_t)op + 2);
		b->opat[op] = (uint32_t)b->opfields.len;
		pag_put_op(&b->opfields, service, operation);
		b->opat[op + 1] = (uint32_t)b->opfields.len;
		b->nopat = op + 1;
	}
	return op;
}

static void
ensure_worker(pag_builder *b, uint32_t w)
{
	size_t had = b->capworkers;

	if (w < had)
		return;
	GROW(b->workers, b->capworkers, (size_t)w + 1);
	memset(b->workers + had, 0, (b->capworkers - had) * sizeof *b->workers);
}

static uint32_t
worker_of(pag_builder *b, const tr_span *s)
{
	uint32_t w;

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
	w = pag_intern_worker(&b->names, b->name.s ? b->name.s : "", b->name.len);
	ensure_worker(b, w);
	return w;
}

int
pag_span_usable(const tr_span *s)
{
	return (s->flags & TR_SPAN_HAS_TIME) && s->duration >= 0;
}

/* ---- reading a trace ---- */

/* Spans to place, a min-heap in start order (then parents first, then
 * read order), its keys copied in so that sifting stays in cache. */
typedef struct todo_item {
	int64_t start;
	uint64_t seq;
	uint32_t depth;
	bspan *span;
} todo_item;

static int
todo_before(const todo_item *a, const todo_item *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->depth != b->depth)	/* a parent before a child that starts with it */
		return a->depth < b->depth;
	return a->seq < b->seq;
}

static void
todo_push(pag_builder *b, bspan *s)
{
	todo_item it = {s->start, s->seq, s->depth, s};
	size_t i = b->ntodo++;

	GROW(b->todo, b->captodo, b->ntodo);
	for (; i > 0 && todo_before(&it, &b->todo[(i - 1) / 2]); i = (i - 1) / 2)
		b->todo[i] = b->todo[(i - 1) / 2];
	b->todo[i] = it;
}

static bspan *
todo_pop(pag_builder *b)
{
	bspan *top = b->todo[0].span;
	todo_item last = b->todo[--b->ntodo];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= b->ntodo)
			break;
		if (c + 1 < b->ntodo && todo_before(&b->todo[c + 1], &b->todo[c]))
			c++;
		if (!todo_before(&b->todo[c], &last))
			break;
		b->todo[i] = b->todo[c];
		i = c;
	}
	if (b->ntodo)
		b->todo[i] = last;
	return top;
}

typedef struct order_key {
	int64_t start;
	uint32_t depth, span;
} order_key;

static int
by_start(const void *pa, const void *pb)
{
	const order_key *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

/* Which children are placed on their parent's lane: decided within the
 * trace, since only a parent's own descendants can be stacked above it.
 * A child nesting in its parent joins the parent's lane when the parent is
 * placed before it and is on top of its lane then: the parent has not
 * ended and its last child on the lane has. Everything else is handed over
 * (remote), which also fixes the types of the spans before any is swept. */
static void
decide_lanes(pag_builder *b, btrace *tr)
{
	bspan *sp = tr->spans;

	GROW(b->order, b->caporder, tr->n);
	for (size_t i = 0; i < tr->n; i++)	/* read order within a trace is seq order */
		b->order[i] = (order_key){sp[i].start, sp[i].depth, (uint32_t)i};
	qsort(b->order, tr->n, sizeof *b->order, by_start);
	for (size_t k = 0; k < tr->n; k++) {
		bspan *x = &sp[b->order[k].span], *p;

		x->placed = 1;	/* here: met in start order */
		if (x->parent < 0)
			continue;
		p = &sp[x->parent];
		x->remote = !(p->placed && p->worker == x->worker && x->end <= p->end &&
			      p->end > x->start && p->lane_child_end <= x->start);
		if (!x->remote)
			p->lane_child_end = x->end;
	}
	for (size_t i = 0; i < tr->n; i++)
		sp[i].placed = 0;
}

/* A client whose callee starts after the client ended, or runs longer than
 * the client, cannot have waited for its response: the call is async. */
static int
callee_is_async(const bspan *client, const bspan *callee)
{
	return callee->start > client->end ||
	       callee->end - callee->start > client->end - client->start;
}

static int
within(int64_t t, const bspan *s)
{
	return t >= s->start && t <= s->end;
}

/* Activity types, and which starts an incoming edge enters (the gap before
 * them waits): a client whose traced callee answers waits for the response;
 * one whose callee is not traced is doing I/O against an outside system;
 * an async client only sends. */
static void
assign_types(btrace *tr)
{
	bspan *sp = tr->spans;

	for (size_t i = 0; i < tr->n; i++) {
		bspan *x = &sp[i], *p;

		if (x->parent < 0 || !x->remote)
			continue;
		p = &sp[x->parent];
		p->remote_child = 1;
		if (p->kind == TR_KIND_CLIENT && !x->follows && callee_is_async(p, x))
			p->async = 1;
		if (x->follows || p->kind == TR_KIND_PRODUCER || p->kind == TR_KIND_CLIENT)
			x->incoming = 1;
		else
			x->incoming = x->start >= p->start;	/* handed over */
	}
	for (size_t i = 0; i < tr->n; i++) {
		bspan *s = &sp[i];

		s->type = s->kind != TR_KIND_CLIENT ? PAG_PROCESSING :
			  !s->remote_child ? PAG_IO : s->async ? PAG_PROCESSING : PAG_WAITING;
	}
}

/* ---- communication edges waiting for their vertices ---- */

static uint32_t
comm_add(pag_builder *b, const bvert *src, const bvert *dst, int64_t t0, int type,
	 const bspan *about)
{
	uint32_t i;

	if (b->nfree) {
		i = b->freecomm[--b->nfree];
	} else {
		GROW(b->comm, b->capcomm, b->ncomm + 1);
		i = (uint32_t)b->ncomm++;
	}
	b->comm[i] = (bcomm){src, dst, no_vertex, no_vertex, t0, about, (uint8_t)type, 1};
	return i;
}

/* Edges between spans of one trace that need no point, registered as the
 * trace is read (their times are known: the frontier waits for them). */
static void
link_trace(pag_builder *b, btrace *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		bspan *x = &tr->spans[i], *p;

		if (x->parent < 0 || !x->remote)
			continue;
		p = &tr->spans[x->parent];
		if (x->follows || p->kind == TR_KIND_PRODUCER) {
			/* a message: from the producer's end, or its start when
			 * the consumer starts before the producer ends */
			int from_end = p->end <= x->start;

			comm_add(b, from_end ? &p->ve : &p->vs, &x->vs, from_end ? p->end : p->start,
				 PAG_MESSAGE, x);
		} else if (p->kind == TR_KIND_CLIENT) {
			/* skewed ones leave from points; an async client gets no response */
			if (x->start >= p->start)
				comm_add(b, &p->vs, &x->vs, p->start, PAG_REQUEST, x);
			if (!p->async && x->end <= p->end)
				comm_add(b, &x->ve, &p->ve, x->end, PAG_RESPONSE, x);
		} else if (x->start > p->end) {
			comm_add(b, &p->ve, &x->vs, p->end, PAG_SPAWN, x);	/* async, after the parent */
		} else if (x->start < p->start) {
			b->st.nskew++;
		}
	}
}

static void
note_ids(pag_builder *b, btrace *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		const bspan *s = &tr->spans[i];
		int added;
		strmap_slot *sl = strmap_put(&b->ids, tr->text + s->key, s->keylen, &added);

		if (added)	/* a span id twice in one trace: the first */
			sl->val = (int64_t)(intptr_t)s;
	}
}

/* Append a span's names to text: its fields as records write them, then
 * its key as read, unless that is the same bytes after the first tab. */
static void
add_names(strbuf *text, const char *tid, const char *sid, bspan *x)
{
	size_t lt = strlen(tid), ls = strlen(sid);

	x->ids = (uint32_t)text->len;
	sb_addc(text, '\t');
	tr_escape(text, tid, lt, 0);
	sb_addc(text, '\t');
	tr_escape(text, sid, ls, 0);
	x->idslen = (uint32_t)(text->len - x->ids);
	x->keylen = (uint32_t)(lt + 1 + ls);
	x->key = x->ids + 1;
	if (x->idslen != x->keylen + 1) {	/* escaping changed them */
		x->key = (uint32_t)text->len;
		sb_add(text, tid, lt);
		sb_addc(text, '\t');
		sb_add(text, sid, ls);
	}
}

/* Copy a trace's usable spans and references; NULL when it has none. */
static btrace *
read_trace(pag_builder *b, const tr_trace *t)
{
	btrace *tr;
	size_t n = 0;
	strbuf text = {0};

	GROW(b->local, b->caplocal, t->nspans + 1);
	for (size_t i = 0; i < t->nspans; i++) {
		b->local[i] = pag_span_usable(&t->spans[i]) ? (int32_t)n++ : -1;
		if (b->local[i] < 0)
			b->st.nspans_skipped++;
	}
	if (!n)
		return NULL;
	tr = xcalloc(1, sizeof *tr);
	tr->spans = xmalloc(n * sizeof *tr->spans);
	tr->n = n;
	sb_adds(&text, t->trace_id);
	sb_addc(&text, '\0');
	tr->end = INT64_MIN;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		bspan *x;

		if (b->local[i] < 0)
			continue;
		x = &tr->spans[b->local[i]];
		*x = (bspan){.start = s->start, .end = tr_span_end(s), .trace = tr,
			     .seq = b->seq++, .worker = worker_of(b, s),
			     .op = intern_op(b, s->service, s->operation), .depth = s->depth,
			     .parent = s->parent >= 0 ? b->local[s->parent] : -1, .child = -1,
			     .sibling = -1, .lane = PAG_NONE, .lane_child_end = INT64_MIN,
			     .vs = no_vertex, .ve = no_vertex, .kind = s->kind,
			     .follows = !!(s->flags & TR_SPAN_FOLLOWS)};
		add_names(&text, t->trace_id, s->span_id, x);
		if (x->end > tr->end)
			tr->end = x->end;
	}
	for (size_t i = n; i-- > 0;)	/* children in read order */
		if (tr->spans[i].parent >= 0) {
			tr->spans[i].sibling = tr->spans[tr->spans[i].parent].child;
			tr->spans[tr->spans[i].parent].child = (int32_t)i;
		}
	tr->refs = t->nrefs ? xmalloc(t->nrefs * sizeof *tr->refs) : NULL;
	for (size_t i = 0; i < t->nrefs; i++) {
		const tr_ref *r = &t->refs[i];
		size_t key = text.len;

		if (r->span < 0 || b->local[r->span] < 0 || !r->trace_id || !r->span_id)
			continue;
		sb_adds(&text, r->trace_id);
		sb_addc(&text, '\t');
		sb_adds(&text, r->span_id);
		tr->refs[tr->nrefs++] = (bref){(uint32_t)b->local[r->span], (uint32_t)key,
					       (uint32_t)(text.len - key)};
	}
	tr->text = text.s;	/* the trace keeps the buffer */
	tr->id = tr->text;
	return tr;
}

static void free_trace(btrace *tr);
static void process(pag_builder *b, int64_t upto, strbuf *out);

int
pag_builder_add(pag_builder *b, const tr_trace *t, strbuf *out)
{
	btrace *tr = read_trace(b, t);
	int64_t first = INT64_MAX;

	if (!tr)
		return 0;
	for (size_t i = 0; i < tr->n; i++)
		if (tr->spans[i].start < first)
			first = tr->spans[i].start;
	if (first < b->placed_to) {	/* its place in the graph is written already */
		b->st.nlate++;
		b->st.late_by = b->placed_to - first;
		free_trace(tr);
		return -1;
	}
	decide_lanes(b, tr);
	assign_types(tr);
	link_trace(b, tr);
	if (b->has_ids || tr->nrefs) {
		if (!b->has_ids)	/* the first reference: every span held so far */
			for (btrace *h = b->first; h; h = h->next)
				note_ids(b, h);
		b->has_ids = 1;
		note_ids(b, tr);
	}
	if (b->last)
		b->last->next = tr;
	else
		b->first = tr;
	b->last = tr;
	for (size_t i = 0; i < tr->n; i++)
		todo_push(b, &tr->spans[i]);
	if (first > b->latest)
		b->latest = first;
	b->held += tr->n;
	if (b->holding && b->held >= b->o.hold)
		b->holding = 0;
	/* place in steps of a quarter of the lateness: each step sweeps every lane */
	if (!b->holding && b->latest - b->o.lateness >= b->placed_to + b->o.lateness / 4)
		process(b, b->latest - b->o.lateness, out);
	return 0;
}

/* ---- records ---- */

static void
write_header(pag_builder *b, strbuf *out, int final)
{
	int64_t end = b->end;

	pag_put_header(out, b->o.window, b->o.origin, b->start, final ? &end : NULL);
	b->header_done = 1;
}

static uint32_t
add_lane(pag_builder *b, uint32_t worker, strbuf *out)
{
	uint32_t l = (uint32_t)b->nlanes;
	bworker *w = &b->workers[worker];

	GROW(b->lanes, b->caplanes, b->nlanes + 1);
	memset(&b->lanes[l], 0, sizeof b->lanes[l]);
	b->lanes[l].worker = worker;
	b->lanes[l].swept = INT64_MIN;
	b->lanes[l].prev = no_vertex;
	b->lanes[l].last_type = -1;
	b->nlanes++;
	pag_put_lane(out, l, b->names.workers[worker], w->nlanes++);
	return l;
}

/* ---- placing spans on lanes ---- */

static void
lane_push_ev(blane *l, bspan *span, int end)
{
	GROW(l->ev, l->capev, l->nev + 1);
	l->ev[l->nev++] = (lane_ev){span, (uint8_t)end};
}

/* Close the spans of lane l that ended by time t (innermost first). */
static void
lane_pop_until(blane *l, int64_t t)
{
	while (l->n && l->stack[l->n - 1]->end <= t)
		lane_push_ev(l, l->stack[--l->n], 1);
}

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

/* The lane of span s: its parent's, when decided so; else the lowest idle
 * lane of its worker; else a new one. */
static uint32_t
pick_lane(pag_builder *b, bspan *s, strbuf *out)
{
	bworker *w = &b->workers[s->worker];
	uint32_t l;

	if (s->parent >= 0 && !s->remote) {
		blane *pl = &b->lanes[s->trace->spans[s->parent].lane];

		lane_pop_until(pl, s->start);
		return s->trace->spans[s->parent].lane;
	}
	while (w->busy.n && w->busy.h[0].key <= s->start) {
		l = heap_pop(&w->busy);
		heap_push(&w->idle, l, l);
	}
	l = w->idle.n ? heap_pop(&w->idle) : add_lane(b, s->worker, out);
	heap_push(&w->busy, s->end, l);
	return l;
}

/* Insert a point into its lane, in order: by time; a zero-length child is
 * handed over before it is joined (joins first would make a cycle: join ->
 * spawn -> child -> join); then by kind and child. */
static int
point_before(const point *a, const point *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->child == b->child && a->kind != b->kind &&
	    a->kind + b->kind == POINT_JOIN + POINT_SPAWN)
		return a->kind == POINT_SPAWN;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->child->seq < b->child->seq;
}

static void
add_point(blane *l, int64_t t, int kind, bspan *child, uint32_t comm, int waits)
{
	point p = {t, child, comm, (uint8_t)kind, (uint8_t)waits};
	size_t i = l->npts;

	GROW(l->pts, l->cappts, l->npts + 1);
	while (i > 0 && point_before(&p, &l->pts[i - 1]))
		i--;
	memmove(l->pts + i + 1, l->pts + i, (l->npts - i) * sizeof *l->pts);
	l->pts[i] = p;
	l->npts++;
}

/* Points for child x of parent p, both placed: on the parent's lane where
 * a child without a client span is handed over and taken back, and where a
 * request or response that skew would send back in time is clamped. */
static void
add_points(pag_builder *b, bspan *x, bspan *p)
{
	blane *pl = &b->lanes[p->lane], *xl = &b->lanes[x->lane];

	if (x->follows || p->kind == TR_KIND_PRODUCER)
		return;
	if (p->kind == TR_KIND_CLIENT) {
		if (x->start < p->start) {
			/* the request leaves when the callee starts, if the
			 * client's worker was there then and the lane is not swept */
			if (x->start >= b->workers[p->worker].start && x->start >= pl->swept &&
			    x->start >= b->frontier) {
				uint32_t c = comm_add(b, NULL, &x->vs, x->start, PAG_REQUEST, x);

				add_point(pl, x->start, POINT_REQUEST, x, c, 0);
				b->st.nclamped++;
			} else {
				b->st.nskew++;
			}
		}
		if (!p->async && x->end > p->end) {
			uint32_t c = comm_add(b, NULL, &p->ve, p->end, PAG_RESPONSE, x);

			add_point(xl, p->end, POINT_RESPONSE, x, c, 0);
			b->st.nclamped++;
		}
		return;
	}
	/* neither called through a client span nor sent a message: the
	 * parent's lane hands the child over (spawn) and, when it ends within
	 * the parent, takes its result back (join), waiting for it in between,
	 * as for a call */
	int waits = within(x->start, p) && within(x->end, p);

	if (within(x->start, p))
		add_point(pl, x->start, POINT_SPAWN, x,
			  comm_add(b, NULL, &x->vs, x->start, PAG_SPAWN, x), waits);
	if (within(x->end, p))
		add_point(pl, x->end, POINT_JOIN, x,
			  comm_add(b, &x->ve, NULL, x->end, PAG_JOIN, x), waits);
}

/* References of span s (R records) into spans placed before it: messages.
 * The reference to the tree's own parent is that edge already. */
static void
link_refs(pag_builder *b, bspan *s)
{
	btrace *tr = s->trace;
	uint32_t self = (uint32_t)(s - tr->spans);

	for (size_t i = 0; i < tr->nrefs; i++) {
		const bref *r = &tr->refs[i];
		const strmap_slot *sl;
		const bspan *y;

		if (r->span != self)
			continue;
		if (!(sl = strmap_get(&b->ids, tr->text + r->off, r->len))) {
			b->st.nrefs_missing++;	/* not in the input, or forgotten */
			continue;
		}
		y = (const bspan *)(intptr_t)sl->val;
		if (s->parent >= 0 && y == &tr->spans[s->parent])
			continue;
		if (y->trace->dead) {	/* forgotten: its windows are written */
			b->st.nrefs_missing++;
			continue;
		}
		if (!y->placed || y->lane == s->lane) {
			if (!y->placed)	/* it starts later: the message goes back in time */
				b->st.nskew++;
			continue;
		}
		s->incoming = 1;
		int from_end = y->end <= s->start;
		int64_t t0 = from_end ? y->end : y->start;

		if (t0 < b->frontier) {	/* its window is written: too far back */
			b->st.nrefs_missing++;
			continue;
		}
		comm_add(b, from_end ? &y->ve : &y->vs, &s->vs, t0, PAG_MESSAGE, s);
	}
}

/* Who sends a root span its request is not traced: a worker of its own,
 * PAG_CLIENTS, there from the graph's first time on, sends every root's
 * request when the root starts, and its time in between is unknown. So no
 * root comes out of the blue (Property 1), a worker idle until a request
 * arrives waits (Assumption 2), and a system that waits for its clients
 * says so: unknown time of the clients. */
static void pedge_add(pag_builder *b, const bvert *src, const bvert *dst, int type, uint32_t op,
		      const bspan *about);

static bvert
make_vertex(pag_builder *b, uint32_t lane, int64_t t, int ev, const bspan *span)
{
	return (bvert){b->next_vertex++, lane, t, span, (uint8_t)ev};
}

static void split_clients(pag_builder *b, int64_t upto);

static void
link_client(pag_builder *b, bspan *x, strbuf *out)
{
	bvert *prev = &b->clients_prev;

	if (b->clients == PAG_NONE) {
		uint32_t w = pag_intern_worker(&b->names, PAG_CLIENTS, strlen(PAG_CLIENTS));

		ensure_worker(b, w);
		b->clients = add_lane(b, w, out);
		if (x->start > b->start)	/* there from the first time on */
			*prev = make_vertex(b, b->clients, b->start, PAG_EV_BEGIN, NULL);
	}
	split_clients(b, x->start);	/* the same cuts however the input was held */
	if (prev->id == PAG_NONE || prev->t < x->start) {
		bvert v = make_vertex(b, b->clients, x->start, PAG_EV_POINT, x);

		if (prev->id != PAG_NONE)
			pedge_add(b, prev, &v, PAG_UNKNOWN, b->unknown_op, NULL);
		*prev = v;
	}
	uint32_t c = comm_add(b, NULL, &x->vs, x->start, PAG_REQUEST, x);

	b->comm[c].src_v = *prev;
}

/* The clients' unknown time up to `upto`, before which every root is
 * placed: cut at each window's start, so that the frontier need not wait
 * for the next root. Windows see the same time as uncut; the clients lane
 * is never idle, so every window has a path from its start to its end.
 * Without windows nothing is cut: the one window is read whole anyway. */
static void
split_clients(pag_builder *b, int64_t upto)
{
	bvert *prev = &b->clients_prev;
	int64_t step = b->o.window, next;

	if (prev->id == PAG_NONE || upto == INT64_MAX || step <= 0)
		return;
	next = prev->t - b->o.origin;
	next = b->o.origin + (next / step - (next % step < 0)) * step + step;
	if (next < upto && (uint64_t)((upto - next) / step) >= b->o.max_windows) {
		b->st.too_many_windows = 1;	/* that many windows are refused anyway */
		return;
	}
	for (; next < upto; next += step) {
		bvert v = make_vertex(b, b->clients, next, PAG_EV_POINT, NULL);

		pedge_add(b, prev, &v, PAG_UNKNOWN, b->unknown_op, NULL);
		*prev = v;
	}
}

/* Place span s: its lane, its events there, the points it and its placed
 * relatives need, its references and, for a root, its clients' request. */
static void
place(pag_builder *b, bspan *s, strbuf *out)
{
	bworker *w = &b->workers[s->worker];
	btrace *tr = s->trace;

	if (!b->has_start) {
		b->start = s->start;
		b->has_start = 1;
	}
	if (!b->header_done)
		write_header(b, out, 0);
	if (!w->nlanes && !w->busy.n)
		w->start = s->start;	/* placed in start order: its first time */
	s->lane = pick_lane(b, s, out);
	lane_pop_until(&b->lanes[s->lane], s->start);
	GROW(b->lanes[s->lane].stack, b->lanes[s->lane].cap, b->lanes[s->lane].n + 1);
	b->lanes[s->lane].stack[b->lanes[s->lane].n++] = s;
	lane_push_ev(&b->lanes[s->lane], s, 0);
	s->placed = 1;
	if (s->parent >= 0 && s->remote && tr->spans[s->parent].placed)
		add_points(b, s, &tr->spans[s->parent]);
	for (int32_t c = s->child; c >= 0; c = tr->spans[c].sibling)
		if (tr->spans[c].remote && tr->spans[c].placed)	/* a child placed first: skew */
			add_points(b, &tr->spans[c], s);
	if (tr->nrefs)
		link_refs(b, s);
	if (s->parent < 0 && !s->incoming) {
		s->incoming = 2;
		link_client(b, s, out);
	}
}

/* Edges made wait until the frontier passes them: kept in a pool, found
 * through a min-heap of (start, slot) small enough to stay in cache. */
static int
key_before(const struct edge_key *a, const struct edge_key *b)
{
	return a->t0 != b->t0 ? a->t0 < b->t0 : a->slot < b->slot;
}

static void
edge_push(pag_builder *b, const pedge *e)
{
	struct edge_key k;
	size_t i;

	if (b->nfreeedge) {
		k.slot = b->freeedge[--b->nfreeedge];
	} else {
		GROW(b->pool, b->cappool, b->npool + 1);
		k.slot = (uint32_t)b->npool++;
	}
	b->pool[k.slot] = *e;
	k.t0 = e->src.t;
	i = b->nedges++;
	GROW(b->edges, b->capedges, b->nedges);
	for (; i > 0 && key_before(&k, &b->edges[(i - 1) / 2]); i = (i - 1) / 2)
		b->edges[i] = b->edges[(i - 1) / 2];
	b->edges[i] = k;
}

static const pedge *
edge_pop(pag_builder *b)
{
	struct edge_key top = b->edges[0], last = b->edges[--b->nedges];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= b->nedges)
			break;
		if (c + 1 < b->nedges && key_before(&b->edges[c + 1], &b->edges[c]))
			c++;
		if (!key_before(&b->edges[c], &last))
			break;
		b->edges[i] = b->edges[c];
		i = c;
	}
	if (b->nedges)
		b->edges[i] = last;
	GROW(b->freeedge, b->capfreeedge, b->nfreeedge + 1);
	b->freeedge[b->nfreeedge++] = top.slot;	/* valid until the next push */
	return &b->pool[top.slot];
}

/* ---- the sweep ---- */

static void
pedge_add(pag_builder *b, const bvert *src, const bvert *dst, int type, uint32_t op,
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
		pedge_add(b, &l->prev, &v, type, op, ref);
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
	size_t j = 0;

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
	if (j) {
		memmove(l->pts, l->pts + j, (l->npts - j) * sizeof *l->pts);
		l->npts -= j;
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

/* Communication edges whose two vertices are made; dropped when clock skew
 * would make them arrive before they leave. Returns the earliest start of
 * those still waiting (INT64_MAX: none). */
static int64_t
resolve_comm(pag_builder *b)
{
	int64_t first = INT64_MAX;

	for (size_t i = 0; i < b->ncomm; i++) {
		bcomm *c = &b->comm[i];
		const bvert *src, *dst;

		if (!c->live)
			continue;
		src = c->src ? c->src : &c->src_v;
		dst = c->dst ? c->dst : &c->dst_v;
		if (src->id == PAG_NONE || dst->id == PAG_NONE) {
			if (c->t0 < first)
				first = c->t0;
			continue;
		}
		if (dst->t < src->t)
			b->st.nskew++;	/* clock skew: the message would arrive before it left */
		else
			pedge_add(b, src, dst, c->type, c->about->op, c->about);
		c->live = 0;
		GROW(b->freecomm, b->capfree, b->nfree + 1);
		b->freecomm[b->nfree++] = (uint32_t)i;
	}
	return first;
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
	if (b->clients_prev.id != PAG_NONE && b->clients_prev.t < f)
		f = b->clients_prev.t;
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

static int64_t
window_start(const pag_builder *b, int64_t t)
{
	int64_t d = t - b->o.origin, q = d / b->o.window;

	if (d % b->o.window < 0)
		q--;
	return b->o.origin + q * b->o.window;
}

/* Write the edges that start before f, in start order, with a PM mark
 * before the first edge of each window. */
static void
write_edges(pag_builder *b, int64_t f, strbuf *out)
{
	while (b->nedges && b->edges[0].t0 < f && !b->st.too_many_windows) {
		const pedge *e = edge_pop(b);

		if (b->o.window > 0 && (!b->has_window || e->src.t >= b->window_end)) {
			int64_t ws = window_start(b, e->src.t);

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
		pag_put_edge(out, e->src.id, e->dst.id, e->type, e->src.t, e->dst.t, e->src.lane,
			     e->dst.lane, b->opfields.s + b->opat[e->op],
			     b->opat[e->op + 1] - b->opat[e->op],
			     e->about ? e->about->trace->text + e->about->ids : "\t\t",
			     e->about ? e->about->idslen : 2);
		b->st.nedges++;
	}
	if (f > b->frontier)
		b->frontier = f;
}

/* ---- forgetting ---- */

static void
free_trace(btrace *tr)
{
	free(tr->spans);
	free(tr->refs);
	free(tr->text);
	free(tr);
}

/* The reference map again from the traces held, once the forgotten ones
 * it still names outnumber them: then those are freed. */
static void
rebuild_ids(pag_builder *b)
{
	size_t live = 0;

	for (btrace *t = b->first; t; t = t->next)
		live += t->n;
	if (b->ids_dead <= live + 4096)
		return;
	strmap_free(&b->ids);
	for (btrace *t = b->first; t; t = t->next)
		note_ids(b, t);
	while (b->dead) {
		btrace *t = b->dead;

		b->dead = t->next;
		free_trace(t);
	}
	b->ids_dead = 0;
}

/* Forget the traces every edge about which is written: no edge still to
 * be made starts before the frontier, and every edge about a span starts
 * by its end (an absorbed gap within unknown_threshold after it). */
static void
retire(pag_builder *b)
{
	btrace **at = &b->first, *last = NULL;

	while (*at) {
		btrace *t = *at;

		if (t->end + b->o.unknown_threshold + b->o.max_gap < b->frontier) {
			*at = t->next;
			if (b->has_ids) {	/* the map names its spans until rebuilt */
				t->dead = 1;
				t->next = b->dead;
				b->dead = t;
				b->ids_dead += t->n;
			} else {
				free_trace(t);
			}
			continue;
		}
		last = t;
		at = &t->next;
	}
	b->last = last;
	if (b->has_ids)
		rebuild_ids(b);
}

/* Place every span that starts before `upto`, sweep the lanes `lateness`
 * behind, and write what the frontier has passed. */
static void
process(pag_builder *b, int64_t upto, strbuf *out)
{
	int64_t sweep_to = upto == INT64_MAX ? INT64_MAX : upto - b->o.lateness;

	while (b->ntodo && b->todo[0].start < upto)
		place(b, todo_pop(b), out);
	if (upto > b->placed_to)
		b->placed_to = upto;
	split_clients(b, upto);
	for (uint32_t l = 0; l < b->nlanes; l++)
		sweep_lane(b, l, sweep_to);
	if (sweep_to == INT64_MAX)
		b->clients_prev = no_vertex;	/* the end: the clients' last request is sent */
	write_edges(b, frontier(b, sweep_to, resolve_comm(b)), out);
	retire(b);
}

/* With the whole input held: how many windows it spans (st.windows_needed,
 * -1: beyond counting); -1 with too_many_windows set when over the limit. */
static int
count_windows(pag_builder *b)
{
	/* in 128 bits: an origin far from the spans makes no overflow */
	__int128 w = b->o.window, d0 = (__int128)b->start - b->o.origin,
		 d1 = (__int128)b->end - b->o.origin;
	__int128 n = (d1 / w - (d1 % w < 0)) - (d0 / w - (d0 % w < 0)) + 1;

	if (n > INT64_MAX) {
		b->st.windows_needed = -1;
	} else {
		b->st.windows_needed = (int64_t)n;
		if ((uint64_t)n <= b->o.max_windows)
			return 0;
	}
	b->st.too_many_windows = 1;
	return -1;
}

void
pag_builder_finish(pag_builder *b, strbuf *out)
{
	if (b->first && !b->header_done) {	/* held everything: the end is known */
		for (btrace *t = b->first; t; t = t->next)
			for (size_t i = 0; i < t->n; i++) {
				if (!b->has_start || t->spans[i].start < b->start)
					b->start = t->spans[i].start;
				b->has_start = 1;
			}
		b->end = INT64_MIN;
		for (btrace *t = b->first; t; t = t->next)
			if (t->end > b->end)
				b->end = t->end;
		if (b->o.window > 0 && count_windows(b) < 0)
			return;	/* refused before anything is written */
		write_header(b, out, 1);
	}
	if (!b->st.too_many_windows)
		process(b, INT64_MAX, out);
	b->st.nworkers = b->names.nworkers;
	b->st.nlanes = b->nlanes;
	b->st.nvertices = b->next_vertex;
}

/* Worker key parts no span had: named in warnings, counted. */
size_t
pag_builder_unmatched_keys(const pag_builder *b)
{
	static const char *const builtin[] = {"service", "host"};
	size_t bad = 0;

	for (size_t i = 0; b->seq && i < b->nkey; i++)
		if (b->part[i] == KEY_TAG)
			bad += (size_t)tr_keywatch_missing(&b->watch[i], "--worker-key", builtin, 2);
	return bad;
}

void
pag_builder_free(pag_builder *b)
{
	if (!b)
		return;
	while (b->first) {
		btrace *t = b->first;

		b->first = t->next;
		free_trace(t);
	}
	while (b->dead) {
		btrace *t = b->dead;

		b->dead = t->next;
		free_trace(t);
	}
	for (size_t i = 0; i < b->nlanes; i++) {
		free(b->lanes[i].stack);
		free(b->lanes[i].ev);
		free(b->lanes[i].pts);
		free(b->lanes[i].open);
	}
	for (size_t i = 0; i < b->capworkers; i++) {
		free(b->workers[i].busy.h);
		free(b->workers[i].idle.h);
	}
	for (size_t i = 0; i < b->nkey; i++) {
		free(b->key[i]);
		tr_keywatch_free(&b->watch[i]);
	}
	free(b->key);
	free(b->part);
	free(b->watch);
	free(b->lanes);
	free(b->workers);
	free(b->local);
	free(b->order);
	free(b->todo);
	free(b->comm);
	free(b->freecomm);
	free(b->edges);
	free(b->pool);
	free(b->freeedge);
	free(b->written);
	free(b->opat);
	strmap_free(&b->ids);
	sb_free(&b->name);
	sb_free(&b->opfields);
	pag_graph_free(&b->names);
	free(b);
}
