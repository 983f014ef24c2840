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
 * into other traces included. A root span's start is an entry: who sends
 * its request is not traced, so no edge enters it, and its lane's idle time
 * before it is no part of the graph (its run begins there), as a dataflow
 * source's input is (SnailTrail, Defs. 5-7).
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
#include "pag_build_impl.h"
#include "core/kinds.h"
#include "core/pick.h"

#include <stdlib.h>
#include <string.h>

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
	b->default_key = b->nkey == 2 && b->part[0] == KEY_SERVICE && b->part[1] == KEY_HOST;
	for (size_t i = 0; i < NAME_CACHE_SLOTS; i++)
		b->name_cache[i].op = PAG_NONE;
	b->holding = 1;
	b->placed_to = b->frontier = b->latest = INT64_MIN;
	b->unknown_op = pag_intern_op(&b->names, "", "");
	return b;
}

int
pag_builder_reads_tags(const pag_builder *b)
{
	for (size_t i = 0; i < b->nkey; i++)
		if (b->part[i] == KEY_TAG)
			return 1;
	return 0;
}

const pag_build_stats *
pag_builder_stats(const pag_builder *b)
{
	return &b->st;
}

pag_entries *
pag_builder_entries(pag_builder *b)
{
	b->keep_entries = 1;
	return &b->entries;
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

/* The last 8 bytes of s (n long; all of it, NUL-padded, if shorter). */
static uint64_t
tail8(const char *s, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, n >= 8 ? s + n - 8 : s, n >= 8 ? 8 : n);
	return w;
}

/* The slot of name_cache[] for a span's names: the library's hash of
 * their lengths and the last bytes of operation and host, not of the
 * names whole (a hit is checked against them anyway). */
static size_t
name_cache_slot(const tr_span *s, size_t ls, size_t lo, size_t lh)
{
	uint64_t key[3] = {(uint64_t)ls << 42 ^ (uint64_t)lo << 21 ^ lh, tail8(s->operation, lo),
			   tail8(s->host, lh)};

	return (size_t)(hash_bytes(key, sizeof key) % NAME_CACHE_SLOTS);
}

/* Span s's worker and operation: with the default key, service@host, from
 * the cache when there, else interned (and cached). */
static void
names_of(pag_builder *b, const tr_span *s, uint32_t *worker, uint32_t *op)
{
	if (!b->default_key) {
		*worker = worker_of(b, s);
		*op = pag_intern_op(&b->names, s->service, s->operation);
		return;
	}
	size_t ls = strlen(s->service), lo = strlen(s->operation), lh = strlen(s->host);
	struct name_cache_slot *r = &b->name_cache[name_cache_slot(s, ls, lo, lh)];

	if (r->op != PAG_NONE && r->service_len == ls) {
		const pag_op *o = &b->names.ops[r->op];
		const char *w = b->names.workers[r->worker];

		/* the names themselves, not only their hash: the op's service
		 * and operation, the worker's service@host (w, as filled from a
		 * span whose service was ls long, holds ls + 1 bytes at least) */
		if (strcmp(o->service, s->service) == 0 && strcmp(o->operation, s->operation) == 0 &&
		    memcmp(w, s->service, ls) == 0 && w[ls] == '@' && strcmp(w + ls + 1, s->host) == 0) {
			*worker = r->worker;
			*op = r->op;
			return;
		}
	}
	*worker = worker_of(b, s);
	*op = pag_intern_op(&b->names, s->service, s->operation);
	*r = (struct name_cache_slot){*worker, *op, (uint32_t)ls};
}

int
pag_span_usable(const tr_span *s)
{
	return (s->flags & TR_SPAN_HAS_TIME) && s->duration >= 0;
}

/* ---- reading a trace ---- */

/* Spans to place, kept in read order with their placing keys; a step
 * sorts those it places (a heap's sifting cost more). */
static void
todo_push(pag_builder *b, bspan *s)
{
	GROW(b->todo, b->captodo, b->ntodo + 1);
	b->todo[b->ntodo++] = (todo_item){s->start, s->seq, s->depth, s};
}

static int
by_depth_then_read(const void *pa, const void *pb)
{
	const todo_item *a = pa, *b = pb;

	if (a->depth != b->depth)	/* a parent before a child that starts with it */
		return a->depth < b->depth ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Move the spans that start before upto to b->placing, in placing order; the
 * others stay, in read order. Sorted by start (stably: read order), then
 * each run of one start by depth. */
size_t
pag_build_take_due(pag_builder *b, int64_t upto)
{
	size_t ndue = 0, kept = 0;

	GROW(b->placing, b->capplacing, b->ntodo + 1);
	GROW(b->place_order, b->capplace_order, b->ntodo + 1);
	for (size_t i = 0; i < b->ntodo; i++)
		if (b->todo[i].start < upto) {
			b->place_order[ndue] = (pag_start_key){b->todo[i].start, (uint32_t)ndue};
			b->placing[ndue++] = b->todo[i];
		} else {
			b->todo[kept++] = b->todo[i];
		}
	b->ntodo = kept;
	pag_sort_by_start(b->place_order, ndue, b->names.work);
	/* b->todo's free tail holds the sorted items while runs are ordered */
	GROW(b->todo, b->captodo, kept + ndue);
	todo_item *sorted = b->todo + kept;

	for (size_t i = 0; i < ndue; i++)
		sorted[i] = b->placing[b->place_order[i].edge];
	for (size_t i = 0, j; i < ndue; i = j) {
		for (j = i + 1; j < ndue && sorted[j].start == sorted[i].start; j++)
			;
		if (j - i > 1)
			qsort(sorted + i, j - i, sizeof *sorted, by_depth_then_read);
	}
	memcpy(b->placing, sorted, ndue * sizeof *sorted);
	return ndue;
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
	int in_order = 1;

	for (size_t i = 0; i < tr->n; i++) {	/* read order within a trace is seq order */
		b->order[i] = (order_key){sp[i].start, sp[i].depth, (uint32_t)i};
		if (i && by_start(&b->order[i - 1], &b->order[i]) > 0)
			in_order = 0;
	}
	if (!in_order)	/* the spans come by start: mostly in order already */
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
	uint32_t i = comm_take_slot(b);

	if (i >= b->ncomm) {
		GROW(b->comm, b->capcomm, (size_t)i + 1);
		b->ncomm = (size_t)i + 1;
	}
	b->comm[i] = (bcomm){src, dst, no_vertex, no_vertex, t0, about, (uint8_t)type};
	GROW(b->livecomm, b->caplive, b->nlive + 1);
	b->livecomm[b->nlive++] = i;
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

/* Name trace tr in the reference map: one entry per trace id, fragments
 * of one trace chained in read order. */
static void
note_ids(pag_builder *b, btrace *tr)
{
	int added;
	strmap_slot *sl = strmap_put(&b->ids, tr->id, strlen(tr->id), &added);

	tr->same_id = NULL;
	if (added) {
		sl->val = (int64_t)(intptr_t)tr;
		return;
	}
	btrace *t = (btrace *)(intptr_t)sl->val;

	while (t->same_id)
		t = t->same_id;
	t->same_id = tr;
}

/* The span of trace t whose key is "trace\tspan" (the first of a span id
 * twice), or NULL. The spans are searched in turn: most traces are looked
 * into once or twice (a follows_from reference), and a map of every span
 * for that cost more than the search. A trace looked into often, with many
 * spans, gets the map. */
static const bspan *
span_by_key(btrace *t, const char *key, size_t len)
{
	const strmap_slot *sl;

	if (!t->by_key && (t->n <= 16 || t->lookups++ < 8)) {
		for (size_t i = 0; i < t->n; i++)
			if (t->spans[i].keylen == len && memcmp(t->text + t->spans[i].key, key, len) == 0)
				return &t->spans[i];
		return NULL;
	}
	if (!t->by_key) {
		t->by_key = xcalloc(1, sizeof *t->by_key);
		for (size_t i = 0; i < t->n; i++) {
			int added;
			strmap_slot *s = strmap_put(t->by_key, t->text + t->spans[i].key,
						    t->spans[i].keylen, &added);

			if (added)
				s->val = (int64_t)i;
		}
	}
	sl = strmap_get(t->by_key, key, len);
	return sl ? &t->spans[sl->val] : NULL;
}

/* The span reference r names, among the traces held (and those forgotten
 * that the map still names), or NULL. */
static const bspan *
find_ref(pag_builder *b, const btrace *from, const bref *r)
{
	const char *key = from->text + r->off;
	const strmap_slot *sl = strmap_get(&b->ids, key, r->tlen);

	for (btrace *t = sl ? (btrace *)(intptr_t)sl->val : NULL; t; t = t->same_id) {
		const bspan *s = span_by_key(t, key, r->len);

		if (s)
			return s;
	}
	return NULL;
}

/* Append a span's names to text (tid is lt bytes): its fields as records
 * write them (when they are written: escaped is 0 with -n), then its key
 * as read, unless that is the same bytes after the first tab. */
static void
add_names(strbuf *text, const char *tid, size_t lt, const char *sid, bspan *x, int escaped)
{
	size_t ls = strlen(sid);

	x->ids = (uint32_t)text->len;
	if (escaped) {
		sb_addc(text, '\t');
		tr_escape(text, tid, lt, 0);
		sb_addc(text, '\t');
		tr_escape(text, sid, ls, 0);
	}
	x->idslen = (uint32_t)(text->len - x->ids);
	x->keylen = (uint32_t)(lt + 1 + ls);
	x->key = x->ids + 1;
	if (x->idslen != x->keylen + 1) {	/* escaping changed them, or none */
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
	if (t->nspans + 1 > b->capkind) {
		b->capkind = t->nspans + 1;
		b->kind = xrealloc(b->kind, b->capkind);
		b->wrapper = xrealloc(b->wrapper, b->capkind);
	}
	tr_trace_kinds(t, b->kind);
	b->st.nwrappers += tr_trace_wrappers(t, b->kind, b->wrapper);
	for (size_t i = 0; i < t->nspans; i++) {
		/* a wrapper only waits for its sibling call: not an activity
		 * (it has no child to lose) */
		b->local[i] = pag_span_usable(&t->spans[i]) && !b->wrapper[i] ? (int32_t)n++ : -1;
		if (b->local[i] < 0 && !b->wrapper[i])
			b->st.nspans_skipped++;
	}
	if (!n)
		return NULL;
	tr = xcalloc(1, sizeof *tr);
	tr->spans = xmalloc(n * sizeof *tr->spans);
	tr->n = n;
	/* a span's key, "trace\tspan", is most of it: room for all at once,
	 * not a dozen reallocations a trace */
	size_t tlen = strlen(t->trace_id);

	sb_reserve(&text, (n + 1) * (tlen + 24));
	sb_add(&text, t->trace_id, tlen);
	sb_addc(&text, '\0');
	tr->end = INT64_MIN;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		bspan *x;

		if (b->local[i] < 0)
			continue;
		x = &tr->spans[b->local[i]];
		uint32_t worker, op;

		names_of(b, s, &worker, &op);
		*x = (bspan){.start = s->start, .end = tr_span_end(s), .trace = tr,
			     .seq = b->seq++, .worker = worker, .op = op, .depth = s->depth,
			     .parent = s->parent >= 0 ? b->local[s->parent] : -1, .child = -1,
			     .sibling = -1, .lane = PAG_NONE, .lane_child_end = INT64_MIN,
			     .vs = no_vertex, .ve = no_vertex, .kind = s->kind,
			     .follows = !!(s->flags & TR_SPAN_FOLLOWS)};
		add_names(&text, t->trace_id, tlen, s->span_id, x, b->o.vertices);
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
					       (uint32_t)(text.len - key),
					       (uint32_t)strlen(r->trace_id)};
	}
	tr->text = text.s;	/* the trace keeps the buffer */
	tr->id = tr->text;
	return tr;
}

static void free_trace(btrace *tr);

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
	tr->prev = b->last;
	if (b->last)
		b->last->next = tr;
	else
		b->first = tr;
	b->last = tr;
	b->live_spans += tr->n;
	for (size_t i = 0; i < tr->n; i++)
		todo_push(b, &tr->spans[i]);
	if (first > b->latest)
		b->latest = first;
	b->held += tr->n;
	if (b->holding && b->held >= b->o.hold)
		b->holding = 0;
	/* place in steps of a quarter of the lateness: each step sweeps every lane */
	if (!b->holding && b->latest - b->o.lateness >= b->placed_to + b->o.lateness / 4)
		pag_build_process(b, b->latest - b->o.lateness, out);
	return 0;
}

/* ---- records ---- */

void
pag_build_header(pag_builder *b, strbuf *out, int final)
{
	int64_t end = b->end;

	pag_put_header_own(out, b->o.window, b->o.origin, b->start, final ? &end : NULL, b->o.own);
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
		l = (uint32_t)tr_heap_pop(&w->busy).val;
		tr_heap_push(&w->idle, l, l);
	}
	l = w->idle.n ? (uint32_t)tr_heap_pop(&w->idle).val : add_lane(b, s->worker, out);
	tr_heap_push(&w->busy, s->end, l);
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
	while (i > l->ptsdone && point_before(&p, &l->pts[i - 1]))
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
		const bspan *y;

		if (r->span != self)
			continue;
		if (!(y = find_ref(b, tr, r))) {
			b->st.nrefs_missing++;	/* not in the input, or forgotten */
			continue;
		}
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

/* Place span s: its lane, its events there, the points it and its placed
 * relatives need and its references. */
void
pag_build_place(pag_builder *b, bspan *s, strbuf *out)
{
	bworker *w = &b->workers[s->worker];
	btrace *tr = s->trace;

	if (!b->has_start) {
		b->start = s->start;
		b->has_start = 1;
	}
	if (!b->header_done)
		pag_build_header(b, out, 0);
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
	if (s->parent < 0 && !s->incoming)
		s->incoming = 2;	/* an entry: its sender is not traced */
}

/* ---- forgetting ---- */

static void
free_trace(btrace *tr)
{
	if (tr->by_key) {
		strmap_free(tr->by_key);
		free(tr->by_key);
	}
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
	if (b->ids_dead <= b->live_spans + 4096)
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

/* Can trace t be forgotten: is every edge about it written? No edge still
 * to be made starts before the frontier, and every edge about a span
 * starts by its end (an absorbed gap within unknown_threshold after it). */
static int
written_out(const pag_builder *b, const btrace *t)
{
	return t->end + b->o.unknown_threshold + b->o.max_gap < b->frontier;
}

static void
forget_trace(pag_builder *b, btrace *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		b->first = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		b->last = t->prev;
	b->live_spans -= t->n;
	if (b->has_ids) {	/* the map names its spans until rebuilt */
		t->dead = 1;
		t->next = b->dead;
		b->dead = t;
		b->ids_dead += t->n;
	} else {
		free_trace(t);
	}
}

static int
by_end(const void *pa, const void *pb)
{
	const btrace *a = *(btrace *const *)pa, *b = *(btrace *const *)pb;

	return (a->end > b->end) - (a->end < b->end);
}

/* Finishing: the traces held, by end, so that forgetting them does not
 * look at every one each step (all of the input, with --hold 0). */
void
pag_build_sort_held(pag_builder *b)
{
	size_t n = 0;

	for (btrace *t = b->first; t; t = t->next)
		n++;
	b->by_end = xmalloc((n ? n : 1) * sizeof *b->by_end);
	for (btrace *t = b->first; t; t = t->next)
		b->by_end[b->nby_end++] = t;
	qsort(b->by_end, b->nby_end, sizeof *b->by_end, by_end);
}

void
pag_build_retire(pag_builder *b)
{
	if (b->by_end) {
		while (b->retired < b->nby_end && written_out(b, b->by_end[b->retired]))
			forget_trace(b, b->by_end[b->retired++]);
	} else {
		for (btrace *t = b->first, *next; t; t = next) {
			next = t->next;
			if (written_out(b, t))
				forget_trace(b, t);
		}
	}
	if (b->has_ids)
		rebuild_ids(b);
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
	free(b->entries.e);
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
		tr_heap_free(&b->workers[i].busy);
		tr_heap_free(&b->workers[i].idle);
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
	free(b->kind);
	free(b->wrapper);
	free(b->order);
	free(b->todo);
	free(b->placing);
	free(b->place_order);
	free(b->comm);
	free(b->comm_used);
	free(b->livecomm);
	free(b->by_end);
	free(b->due);
	free(b->pend);
	free(b->written);
	free(b->op_written);
	strmap_free(&b->ids);
	sb_free(&b->name);
	pag_graph_free(&b->names);
	free(b);
}

/* ---- the step ---- */

/* Sweep the lanes up to sweep_to, make the communication edges whose
 * vertices are there, write what the frontier has passed, and forget the
 * traces written. */
void
pag_build_sweep(pag_builder *b, int64_t sweep_to, strbuf *out)
{
	pag_sweep_write(b, sweep_to, out);
	pag_build_retire(b);
}

/* Place every span read that starts before `upto`, sweep the lanes
 * `lateness` behind, and write what the frontier has passed. */
void
pag_build_process(pag_builder *b, int64_t upto, strbuf *out)
{
	size_t n = pag_build_take_due(b, upto);

	for (size_t i = 0; i < n; i++)
		pag_build_place(b, b->placing[i].span, out);
	if (upto > b->placed_to)
		b->placed_to = upto;
	pag_build_sweep(b, upto == INT64_MAX ? INT64_MAX : upto - b->o.lateness, out);
}
