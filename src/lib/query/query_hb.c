/* query_hb.c - happened-before over a trace's span tree, and self times.
 *
 * A span's tuple reaches its descendants (the call carries it down), and a
 * child's work reaches its parent when the parent waits for the child: the
 * child returns, like a branch of Pivot Tracing's baggage rejoining. A
 * child is *joined* to its parent when both have times, the link is not
 * FOLLOWS_FROM, the child is not a CONSUMER (a message, not a call) and it
 * ended by the time its parent did (a child that outlives its parent was
 * not waited for, whatever its link says). Roots with times are joined to
 * the trace. J(x), the work that returns with x, is x and every descendant
 * whose path up to x, x excluded, is joined.
 *
 * a -> b when a is a proper ancestor of b, or (seq) when x and y are the
 * siblings (children of one span, or roots) above a and b, a is in J(x), x
 * is joined, x comes before y in sibling order (start, span id) and x ended
 * no later than y started. Every span in J(x) ends by x's end, so x's own
 * end is the end of the work that returned with it; an async subtree under
 * x is a branch of its own and precedes nothing outside itself. That is a
 * strict partial order (tr-aggregate(1) has the argument), pre-order is a
 * linear extension of it (First picks by pre-order), and when no span
 * starts before its parent, a -> b implies start(a) <= end(b).
 * Log events are leaves of their span at their time. */
#include "query/query.h"

#include "cp/cp.h"

#include <stdlib.h>
#include <string.h>

struct query_hb_index {
	int32_t n;
	int32_t *pre, *last;	/* pre-order number; largest in the subtree */
	int64_t *start, *end;
	uint8_t *timed;
	uint8_t *joined;	/* its parent (the trace for a root) waits for it */
	int32_t *reach;		/* the highest node its work returns to: J(x) holds it */
	int levels;
	int32_t **up;		/* up[k][v]: the 2^k-th ancestor, -1 past a root */
};

typedef struct child_key {
	int64_t start;
	int32_t node;
	int is_log;
} child_key;

static int
cmp_child(const void *pa, const void *pb)
{
	const child_key *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->is_log != b->is_log)
		return a->is_log - b->is_log;
	return (a->node > b->node) - (a->node < b->node);
}

/* Logs grouped by span, in time order: first[s]..first[s+1] index order[]. */
static void
logs_by_span(const tr_trace *t, arena *mem, int32_t **first, int32_t **order)
{
	int32_t *f = arena_alloc(mem, (t->nspans + 1) * sizeof *f);
	int32_t *o = arena_alloc(mem, (t->nlogs + 1) * sizeof *o);
	memset(f, 0, (t->nspans + 1) * sizeof *f);
	for (size_t i = 0; i < t->nlogs; i++)
		f[t->logs[i].span + 1]++;
	for (size_t s = 0; s < t->nspans; s++)
		f[s + 1] += f[s];
	int32_t *fill = arena_alloc(mem, (t->nspans + 1) * sizeof *fill);
	memcpy(fill, f, (t->nspans + 1) * sizeof *f);
	for (size_t i = 0; i < t->nlogs; i++)
		o[fill[t->logs[i].span]++] = (int32_t)i;
	*first = f;
	*order = o;
}

/* Times and parents of the nodes: spans, then logs under their span. */
static int32_t *
node_facts(query_hb_index *h, const tr_trace *t, arena *mem)
{
	int32_t ns = (int32_t)t->nspans, n = h->n;
	int32_t *parent = arena_alloc(mem, (n + 1) * sizeof *parent);

	h->start = arena_alloc(mem, (n + 1) * sizeof *h->start);
	h->end = arena_alloc(mem, (n + 1) * sizeof *h->end);
	h->timed = arena_alloc(mem, n + 1);
	h->joined = arena_alloc(mem, n + 1);	/* the link allows waiting; times later */
	for (int32_t i = 0; i < ns; i++) {
		const tr_span *s = &t->spans[i];
		h->timed[i] = (s->flags & TR_SPAN_HAS_TIME) != 0;
		h->start[i] = h->timed[i] ? s->start : INT64_MAX;
		h->end[i] = h->timed[i] ? s->start + s->duration : INT64_MAX;
		parent[i] = s->parent;
		h->joined[i] = !(s->flags & TR_SPAN_FOLLOWS) && s->kind != TR_KIND_CONSUMER;
	}
	for (int32_t i = ns; i < n; i++) {
		const tr_log *l = &t->logs[i - ns];
		h->timed[i] = 1;
		h->start[i] = h->end[i] = l->time;
		parent[i] = l->span;
		h->joined[i] = 1;
	}
	return parent;
}

/* Number the nodes in pre-order with an explicit stack (children merged
 * from spans and logs by start); returns the deepest depth. */
static int32_t
number_preorder(query_hb_index *h, const tr_trace *t, int with_logs, int32_t *order, arena *mem)
{
	int32_t ns = (int32_t)t->nspans, n = h->n, counter = 0, maxdepth = 0;
	int32_t *stack = arena_alloc(mem, (n + 1) * sizeof *stack);
	int32_t *depth = arena_alloc(mem, (n + 1) * sizeof *depth);
	child_key *kids = arena_alloc(mem, (n + 1) * sizeof *kids);
	int32_t *lfirst = NULL, *lorder = NULL;
	size_t sp = 0;

	if (with_logs)
		logs_by_span(t, mem, &lfirst, &lorder);
	for (size_t r = t->nroots; r-- > 0;) {
		stack[sp++] = t->roots[r];
		depth[t->roots[r]] = 0;
	}
	while (sp) {
		int32_t v = stack[--sp];
		size_t nk = 0;
		h->pre[v] = counter;
		order[counter++] = v;
		if (v >= ns)
			continue;
		for (int32_t c = t->spans[v].first_child; c >= 0; c = t->spans[c].next_sibling)
			kids[nk++] = (child_key){h->start[c], c, 0};
		for (int32_t k = with_logs ? lfirst[v] : 0; with_logs && k < lfirst[v + 1]; k++)
			kids[nk++] = (child_key){t->logs[lorder[k]].time, ns + lorder[k], 1};
		if (with_logs && lfirst[v + 1] > lfirst[v])
			qsort(kids, nk, sizeof *kids, cmp_child);
		for (size_t k = nk; k-- > 0;) {
			stack[sp++] = kids[k].node;
			depth[kids[k].node] = depth[v] + 1;
		}
		if (nk && depth[v] + 1 > maxdepth)
			maxdepth = depth[v] + 1;
	}
	return maxdepth;
}

query_hb_index *
query_hb_build(const tr_trace *t, int with_logs, arena *mem)
{
	query_hb_index *h = arena_alloc(mem, sizeof *h);
	int32_t n = (int32_t)t->nspans + (with_logs ? (int32_t)t->nlogs : 0);

	h->n = n;
	h->pre = arena_alloc(mem, (n + 1) * sizeof *h->pre);
	h->last = arena_alloc(mem, (n + 1) * sizeof *h->last);
	int32_t *parent = node_facts(h, t, mem);
	int32_t *order = arena_alloc(mem, (n + 1) * sizeof *order);
	int32_t maxdepth = number_preorder(h, t, with_logs, order, mem);

	/* subtree ends: children before parents in reverse pre-order */
	for (int32_t i = 0; i < n; i++)
		h->last[order[i]] = i;
	for (int32_t i = n; i-- > 0;) {
		int32_t v = order[i], p = parent[v];
		if (p >= 0 && h->last[v] > h->last[p])
			h->last[p] = h->last[v];
	}
	/* joined and reach: parents before children in pre-order */
	h->reach = arena_alloc(mem, (n + 1) * sizeof *h->reach);
	for (int32_t i = 0; i < n; i++) {
		int32_t v = order[i], p = parent[v];
		if (p < 0)
			h->joined[v] = h->timed[v];
		else
			h->joined[v] = h->joined[v] && h->timed[v] && h->timed[p] &&
				       h->end[v] <= h->end[p];
		h->reach[v] = p >= 0 && h->joined[v] ? h->reach[p] : v;
	}
	/* jump pointers: up[k][v] is the 2^k-th ancestor */
	for (h->levels = 1; (1 << h->levels) <= maxdepth; h->levels++)
		;
	h->up = arena_alloc(mem, h->levels * sizeof *h->up);
	h->up[0] = parent;
	for (int k = 1; k < h->levels; k++) {
		h->up[k] = arena_alloc(mem, (n + 1) * sizeof *h->up[k]);
		for (int32_t v = 0; v < n; v++) {
			int32_t m = h->up[k - 1][v];
			h->up[k][v] = m < 0 ? -1 : h->up[k - 1][m];
		}
	}
	return h;
}

int32_t
query_hb_order(const query_hb_index *h, int32_t node)
{
	return h->pre[node];
}

/* Is u an ancestor of v, or v itself? */
static int
covers(const query_hb_index *h, int32_t u, int32_t v)
{
	return h->pre[u] <= h->pre[v] && h->pre[v] <= h->last[u];
}

/* The ancestor-or-self of a just below the lowest common ancestor with b. */
static int32_t
below_lca(const query_hb_index *h, int32_t a, int32_t b)
{
	for (int k = h->levels; k-- > 0;) {
		int32_t u = h->up[k][a];
		if (u >= 0 && !covers(h, u, b))
			a = u;
	}
	return a;
}

int
query_hb_before(const query_hb_index *h, int32_t a, int32_t b, enum query_hb mode)
{
	if (a == b || covers(h, b, a))
		return 0;
	if (covers(h, a, b))
		return 1;
	if (mode == QUERY_HB_TREE)
		return 0;
	int32_t x = below_lca(h, a, b), y = below_lca(h, b, a);
	return h->joined[x] && covers(h, h->reach[a], x) && h->timed[y] &&
	       h->end[x] <= h->start[y] && h->pre[x] < h->pre[y];
}

int64_t
query_hb_reached(const query_hb_index *h, int32_t a, int32_t b)
{
	if (!h->timed[a])
		return INT64_MIN;
	return a != b && covers(h, a, b) ? h->start[a] : h->end[a];
}

void
query_self_times(const tr_trace *t, int64_t *self)
{
	/* Jaeger UI's self time: FOLLOWS_FROM children count like the others. */
	for (size_t i = 0; i < t->nspans; i++)
		self[i] = t->spans[i].flags & TR_SPAN_HAS_TIME ?
			  cp_conventional_self(t, (int32_t)i) : INT64_MIN;
}
