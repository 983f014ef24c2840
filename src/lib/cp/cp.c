/* cp.c - the critical path of one trace.
 *
 * The algorithm of Jaeger UI and CRISP: start at a root, take the child
 * that finished last, then walk back through the children that finished
 * before the one taken started; do the same inside every child taken.
 * Before that the tree is sanitised as the current Jaeger UI does: a
 * CONSUMER under a PRODUCER goes with its subtree (FOLLOWS_FROM children
 * stay: the UI counts them as blocking), a child overflowing its parent is
 * clamped to it, a child entirely outside it goes with its subtree. Every
 * root is analysed, earliest first, and its sections follow the previous
 * root's. Everything uses explicit stacks: traces can be deep. With
 * tr-infer's happens-before edges (infer/hb.h), a child the model names
 * waits for the siblings the model puts before it, not for those that
 * happened to end before it started; the others keep the timing guess. */
#include "cp/cp.h"
#include "infer/hb.h"

#include <stdlib.h>
#include <string.h>

typedef struct cp_frame {
	int32_t span;
	uint32_t pos;		/* next candidate in the span's kids range */
	int32_t lrc;		/* the child taken last, -1 before the first */
} cp_frame;

void
cp_trace_init(cp_trace *c, double overlap_allowance)
{
	memset(c, 0, sizeof *c);
	c->overlap_allowance = overlap_allowance;
	c->root = -1;
}

void
cp_trace_free(cp_trace *c)
{
	free(c->state);
	free(c->start);
	free(c->end);
	free(c->self);
	free(c->order);
	free(c->path);
	free(c->sec);
	free(c->kids);
	free(c->kstart);
	free(c->kend);
	free(c->koff);
	free(c->kn);
	free(c->stack);
	free(c->cut);
	free(c->kcut);
	free(c->overfull);
	free(c->frames);
	free(c->slack);
	free(c->from);
	memset(c, 0, sizeof *c);
}

static void
reserve(cp_trace *c, size_t n)
{
	if (n <= c->cap)
		return;
	size_t cap = c->cap ? c->cap : 64;

	while (cap < n)
		cap *= 2;
	c->state = xrealloc(c->state, cap * sizeof *c->state);
	c->start = xrealloc(c->start, cap * sizeof *c->start);
	c->end = xrealloc(c->end, cap * sizeof *c->end);
	c->self = xrealloc(c->self, cap * sizeof *c->self);
	c->order = xrealloc(c->order, cap * sizeof *c->order);
	c->path = xrealloc(c->path, cap * sizeof *c->path);
	c->kids = xrealloc(c->kids, cap * sizeof *c->kids);
	c->kstart = xrealloc(c->kstart, cap * sizeof *c->kstart);
	c->kend = xrealloc(c->kend, cap * sizeof *c->kend);
	c->koff = xrealloc(c->koff, cap * sizeof *c->koff);
	c->kn = xrealloc(c->kn, cap * sizeof *c->kn);
	c->stack = xrealloc(c->stack, cap * sizeof *c->stack);
	c->cut = xrealloc(c->cut, cap * sizeof *c->cut);
	c->kcut = xrealloc(c->kcut, cap * sizeof *c->kcut);
	c->overfull = xrealloc(c->overfull, cap * sizeof *c->overfull);
	c->slack = xrealloc(c->slack, cap * sizeof *c->slack);
	c->from = xrealloc(c->from, cap * sizeof *c->from);
	c->cap = cap;
}

/* Latest end first; equal ends: earliest start, then span order (start, id). */
static int
kid_cmp(const void *pa, const void *pb)
{
	const cp_kid *a = pa, *b = pb;

	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->span > b->span) - (a->span < b->span);
}

/* A child the parent waits for: anything timed but a CONSUMER of a PRODUCER. */
static int
blocks(const tr_span *parent, const tr_span *child)
{
	if (child->kind == TR_KIND_CONSUMER && parent->kind == TR_KIND_PRODUCER)
		return 0;
	return (child->flags & TR_SPAN_HAS_TIME) != 0;
}

/* Clamp [*s, *e) to the parent's window [ps, pe) as Jaeger UI does;
 * returns 0 when the child lies entirely outside it. */
static int
clamp(int64_t *s, int64_t *e, int64_t ps, int64_t pe)
{
	if (*s >= ps) {
		if (*s >= pe)
			return 0;
		if (*e > pe)
			*e = pe;
		return 1;
	}
	if (*e <= ps)
		return 0;
	*s = ps;
	if (*e > pe)
		*e = pe;
	return 1;
}

/* Collect p's blocking children inside its window into its kids range. */
static void
collect_kids(cp_trace *c, const tr_trace *t, int32_t p, uint32_t *nk)
{
	const tr_span *ps = &t->spans[p];
	uint32_t off = *nk;

	c->koff[p] = off;
	for (int32_t k = ps->first_child; k >= 0; k = t->spans[k].next_sibling) {
		const tr_span *ks = &t->spans[k];
		int64_t s = ks->start, e = tr_span_end(ks);

		if (!blocks(ps, ks))
			continue;
		if (!clamp(&s, &e, c->start[p], c->end[p])) {
			c->noutside++;	/* skewed clocks, or async work: said at the end */
			continue;
		}
		c->start[k] = s;
		c->end[k] = e;
		c->state[k] = CP_TREE;
		c->kids[*nk] = (cp_kid){e, s, k};
		c->kstart[*nk] = s;
		(*nk)++;
		if (c->hb) {
			int known = hb_known(c->hb, k);

			c->nkids_model += known;
			c->nkids_guess += !known;
		}
	}
	c->kn[p] = *nk - off;
	if (c->kn[p] > 1) {
		qsort(c->kids + off, c->kn[p], sizeof *c->kids, kid_cmp);
		if (c->overlap_allowance > 0)	/* happens_before counts events in them */
			qsort(c->kstart + off, c->kn[p], sizeof *c->kstart, cmp_i64);
	}
	for (uint32_t i = 0; i < c->kn[p]; i++)	/* kids come latest end first */
		c->kend[off + i] = c->kids[*nk - 1 - i].end;
}

/* The sanitised tree under root, parents before children, appended to
 * c->order; *nk counts the kids ranges used so far. */
static void
sanitise(cp_trace *c, const tr_trace *t, int32_t root, uint32_t *nk)
{
	size_t top = 0;
	int32_t *stack = c->stack;

	stack[top++] = root;
	while (top) {
		int32_t p = stack[--top];

		c->order[c->norder++] = p;
		collect_kids(c, t, p, nk);
		for (uint32_t i = c->kn[p]; i-- > 0;)
			stack[top++] = c->kids[c->koff[p] + i].span;
	}
}

/* Number of values of the ascending v[0..n) in [lo, hi]. */
static size_t
count_in(const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
	size_t a = 0, b = n, first, last;

	while (a < b) {		/* first v >= lo */
		size_t m = a + (b - a) / 2;
		if (v[m] < lo) a = m + 1; else b = m;
	}
	first = a;
	b = n;
	while (a < b) {		/* first v > hi */
		size_t m = a + (b - a) / 2;
		if (v[m] <= hi) a = m + 1; else b = m;
	}
	last = a;
	return last - first;
}

/* CRISP's happensBefore: child a ends before child b starts; with an
 * overlap allowance, a may overlap b's start by less than that fraction of
 * the parent's duration when nothing else of the parent's children starts
 * or ends in the overlap (exactly the two events a's end and b's start). */
static int
happens_before(const cp_trace *c, int32_t p, int32_t a, int32_t b)
{
	if (c->end[a] < c->start[b])
		return 1;
	if (c->overlap_allowance <= 0 || c->end[a] >= c->end[b] || c->start[a] >= c->start[b])
		return 0;
	int64_t overlap = c->end[a] - c->start[b];
	double limit = c->overlap_allowance * (double)(c->end[p] - c->start[p]);

	if (!((double)overlap < limit))
		return 0;
	uint32_t off = c->koff[p], n = c->kn[p];
	size_t events = count_in(c->kstart + off, n, c->start[b], c->end[a]) +
			count_in(c->kend + off, n, c->start[b], c->end[a]);
	return events == 2;
}

/* The next child of the frame's span on the critical path, or -1. Children
 * come latest end first; one that fails happens_before against the child
 * taken last can never pass later (starts only move back), so each child is
 * looked at once. A model's edge holds only where the trace agrees (the
 * predecessor ended before the child started): the same holds with it. */
static int32_t
next_child(const cp_trace *c, cp_frame *f)
{
	uint32_t off = c->koff[f->span], n = c->kn[f->span];

	/* a model predecessor by its log event may end after the child taken
	 * last starts, so come before it in the list: look at them all */
	if (f->lrc >= 0 && c->hb && hb_logs(c->hb) && hb_known(c->hb, f->lrc)) {
		for (uint32_t i = 0; i < n; i++) {
			int32_t k = c->kids[off + i].span;

			if (c->state[k] != CP_PATH && hb_before(c->hb, k, f->lrc))
				return k;
		}
		return -1;
	}

	while (f->pos < n) {
		int32_t k = c->kids[off + f->pos++].span;

		if (f->lrc < 0)
			return k;
		if (c->hb && hb_known(c->hb, f->lrc) ? hb_before(c->hb, k, f->lrc) :
		    happens_before(c, f->span, k, f->lrc))
			return k;
	}
	return -1;
}

/* Emit [from, *at) for span: the walk only moves back in time, so a
 * section never overlaps a later one. */
static void
emit(cp_trace *c, int32_t span, int64_t from, int64_t *at)
{
	if (from >= *at)
		return;
	GROW(c->sec, c->capsec, c->nsec + 1);
	c->sec[c->nsec++] = (cp_section){span, from, *at};
	*at = from;
}

static void
push_frame(cp_trace *c, size_t *top, int32_t span)
{
	GROW(c->frames, c->capframes, *top + 1);
	c->frames[(*top)++] = (cp_frame){span, 0, -1};
	c->state[span] = CP_PATH;
	c->self[span] = c->end[span] - c->start[span];
	c->kcut[span] = 0;
}

/* The walk. Sections follow Jaeger UI; where an allowed overlap makes a
 * child end after the point the walk reached, its sections start at that
 * point (its cut), so that sections never overlap. cp.self starts as
 * CRISP's exclusive time: a span's duration less its critical children's. */
static void
walk(cp_trace *c, int32_t root)
{
	size_t top = 0;
	int64_t at = c->end[root];

	push_frame(c, &top, root);
	c->path[c->npath++] = root;
	while (top) {
		cp_frame *f = &c->frames[top - 1];
		int32_t p = f->span, k = next_child(c, f);

		if (k < 0) {
			emit(c, p, c->start[p], &at);
			top--;
			continue;
		}
		emit(c, p, c->end[k], &at);
		c->self[p] -= c->end[k] - c->start[k];
		c->cut[k] = c->end[k] - (at > c->start[k] ? at : c->start[k]);
		c->kcut[p] += c->cut[k];
		f->lrc = k;
		push_frame(c, &top, k);		/* may move c->frames: f is stale */
		c->path[c->npath++] = k;
	}
}

/* CRISP's exclusive times add up to the root's duration, but with allowed
 * overlaps a span's critical children can add up to more than the span,
 * and CRISP gives it a negative time. There (an overfull span) the overlaps
 * go to the earlier of the two siblings instead, as the sections have it:
 * the span keeps its sections' time and each critical child loses its cut.
 * Elsewhere CRISP's numbers stand. Each root's sum stays its duration. */
static void
settle_overlaps(cp_trace *c, const tr_trace *t)
{
	for (size_t i = 0; i < c->npath; i++) {	/* parents first */
		int32_t s = c->path[i], p = t->spans[s].parent;

		if (p >= 0 && c->overfull[p])
			c->self[s] -= c->cut[s];
		c->overfull[s] = c->self[s] < 0;
		if (c->overfull[s])
			c->self[s] += c->kcut[s];
	}
}

/* Does sibling s wait for sibling k's end? By the model when it names s,
 * else by timing (k ended by s's start), as the what-if re-lays them. */
static int
waits_for(const cp_trace *c, int32_t s, int32_t k)
{
	if (c->end[k] > c->start[s])
		return 0;	/* a log event's edge: s waits for no end of k */
	return !hb_known(c->hb, s) || hb_before(c->hb, k, s);
}

/* The Mystery Machine's slack over the edges, parents first: a child can
 * end as late as its parent's last child may (the latest end of its
 * children plus the parent's slack) and as each sibling waiting for it
 * allows (that sibling's latest predecessor's end plus its slack). The
 * children come latest end first: the siblings waiting for one come
 * before it. */
static void
compute_slack(cp_trace *c)
{
	for (size_t i = 0; i < c->norder; i++) {
		int32_t p = c->order[i];
		uint32_t off = c->koff[p], n = c->kn[p];

		for (uint32_t a = 0; a < n; a++) {
			int32_t s = c->kids[off + a].span;

			c->from[s] = c->start[p];
			for (uint32_t b = a + 1; b < n; b++) {
				int32_t k = c->kids[off + b].span;

				if (c->end[k] > c->from[s] && waits_for(c, s, k))
					c->from[s] = c->end[k];
			}
		}
		for (uint32_t a = 0; a < n; a++) {
			int32_t k = c->kids[off + a].span;
			int64_t limit = c->kids[off].end + c->slack[p];

			for (uint32_t b = 0; b < a; b++) {
				int32_t s = c->kids[off + b].span;

				if (c->from[s] + c->slack[s] < limit && waits_for(c, s, k))
					limit = c->from[s] + c->slack[s];
			}
			c->slack[k] = limit - c->end[k];
		}
	}
}

/* Take root in: its window is its own. Returns 0 when it has no time. */
static int
plant_root(cp_trace *c, const tr_trace *t, int32_t root)
{
	const tr_span *r = &t->spans[root];

	if (!(r->flags & TR_SPAN_HAS_TIME))
		return 0;
	c->start[root] = r->start;
	c->end[root] = tr_span_end(r);
	c->state[root] = CP_TREE;
	return 1;
}

int
cp_trace_run(cp_trace *c, const tr_trace *t)
{
	return cp_trace_run_model(c, t, NULL);
}

int
cp_trace_run_model(cp_trace *c, const tr_trace *t, const struct hb_model *hb)
{
	uint32_t nk = 0;

	c->hb = hb;
	c->nkids_model = c->nkids_guess = 0;
	reserve(c, t->nspans ? t->nspans : 1);
	c->nspans = t->nspans;
	c->nsec = 0;
	c->norder = 0;
	c->npath = 0;
	memset(c->state, CP_OFF, t->nspans);
	memset(c->self, 0, t->nspans * sizeof *c->self);
	c->root = -1;
	c->root_duration = 0;
	c->path_length = 0;
	c->nanalysed = 0;
	c->noutside = 0;
	for (size_t r = 0; r < t->nroots; r++) {
		int32_t root = t->roots[r];

		if (!plant_root(c, t, root))
			continue;
		if (c->root < 0) {
			c->root = root;
			c->root_duration = c->end[root] - c->start[root];
		}
		c->path_length += c->end[root] - c->start[root];
		c->nanalysed++;
		c->slack[root] = 0;
		sanitise(c, t, root, &nk);
		walk(c, root);
	}
	if (c->root < 0)
		return -1;
	settle_overlaps(c, t);
	if (hb)
		compute_slack(c);
	return 0;
}

int64_t
cp_conventional_self(const tr_trace *t, int32_t i)
{
	const tr_span *s = &t->spans[i];
	int64_t lo = s->start, hi = tr_span_end(s), covered = 0, cs = 0, ce = 0;
	int open = 0;

	if (!(s->flags & TR_SPAN_HAS_TIME))
		return 0;
	/* children come in start order: sweep their union */
	for (int32_t k = s->first_child; k >= 0; k = t->spans[k].next_sibling) {
		const tr_span *ks = &t->spans[k];
		int64_t a = ks->start, b = tr_span_end(ks);

		if (!(ks->flags & TR_SPAN_HAS_TIME))
			continue;
		a = a < lo ? lo : a;
		b = b > hi ? hi : b;
		if (a >= b)
			continue;
		if (open && a <= ce) {
			if (b > ce)
				ce = b;
			continue;
		}
		if (open)
			covered += ce - cs;
		cs = a;
		ce = b;
		open = 1;
	}
	if (open)
		covered += ce - cs;
	return hi - lo - covered;
}

int64_t
cp_percentile(const int64_t *v, size_t n, int p)
{
	if (!n)
		return 0;
	size_t rank = ((size_t)p * n + 99) / 100;	/* ceil(p/100 * n) */

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}
