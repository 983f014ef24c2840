/* pag_window.c - the PAG cut into windows (SnailTrail's snapshots), path
 * counts that do not overflow, transient path centrality and critical
 * participation (Algorithm 2), and the instrumentation properties. */
#include "pag/pag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- path counts ---- */

static pag_count
count_norm(double m, int64_t e)
{
	int k;

	if (m == 0)
		return (pag_count){0, 0};
	m = frexp(m, &k);
	return (pag_count){m, e + k};
}

pag_count
pag_count_of(double v)
{
	return count_norm(v, 0);
}

pag_count
pag_count_add(pag_count a, pag_count b)
{
	if (a.m == 0)
		return b;
	if (b.m == 0)
		return a;
	if (a.e < b.e) {
		pag_count t = a;
		a = b;
		b = t;
	}
	if (a.e - b.e > 64)	/* b is below a's precision */
		return a;
	return count_norm(a.m + ldexp(b.m, (int)(b.e - a.e)), a.e);
}

pag_count
pag_count_mul(pag_count a, pag_count b)
{
	if (a.m == 0 || b.m == 0)
		return (pag_count){0, 0};
	return count_norm(a.m * b.m, a.e + b.e);
}

double
pag_count_ratio(pag_count a, pag_count b)
{
	int64_t e;

	if (a.m == 0 || b.m == 0)
		return 0;
	e = a.e - b.e;
	if (e < -2000)
		return 0;
	if (e > 2000)
		return HUGE_VAL;
	return ldexp(a.m / b.m, (int)e);
}

double
pag_count_log2(pag_count a)
{
	return a.m == 0 ? -HUGE_VAL : log2(a.m) + (double)a.e;
}

void
pag_count_format(char *buf, size_t size, pag_count a)
{
	if (a.m == 0) {
		snprintf(buf, size, "0");
	} else if (a.e < 1000) {
		snprintf(buf, size, "%.6g", ldexp(a.m, (int)a.e));
	} else {
		double l = log10(a.m) + (double)a.e * log10(2.0);
		double x = floor(l);

		snprintf(buf, size, "%.6ge+%.0f", pow(10, l - x), x);
	}
}

/* ---- windows ---- */

static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* ---- scratch kept from window to window ---- */

typedef struct snap_buf {
	pag_snap s;
	size_t cap, capv;
	int32_t *vmap;	/* graph vertex -> snapshot vertex; -1 between uses */
	size_t capvmap;
} snap_buf;

/* What one window's computation needs for a moment, one buffer per slot.
 * Asked of malloc and given back window by window (a few hundred KB each
 * time), the heap's top went back to the kernel after every window and
 * tr-cp spent a tenth of its time faulting the same pages in again; kept
 * with the graph (pag_graph_init), they are grown once. A function owns
 * its slots until it returns, and the functions that nest (a window
 * callback inside pag_windows_between) use different ones. */
enum work_slot {
	W_TMP, W_COUNT,	/* pag_sort_by_start */
	W_KEYS, W_ORDER, W_ACT, W_WIN,	/* pag_windows_between */
	W_FIRST, W_INDEG, W_ADJ, W_FILL, W_TOPO, W_VORDER, W_FWD, W_BWD, W_FIRSTT, W_LASTT,	/* pag_snap_cp */
	W_BUSY, W_ENTERED, W_EV,	/* pag_snap_check */
	W_NSLOTS
};

struct pag_work {
	void *buf[W_NSLOTS];
	size_t cap[W_NSLOTS];
	snap_buf sb;
};

pag_work *
pag_work_new(void)
{
	return xcalloc(1, sizeof(pag_work));
}

void
pag_work_free(pag_work *w)
{
	if (!w)
		return;
	for (int i = 0; i < W_NSLOTS; i++)
		free(w->buf[i]);
	free(w->sb.vmap);
	free(w->sb.s.edge);
	free(w->sb.s.t0);
	free(w->sb.s.t1);
	free(w->sb.s.src);
	free(w->sb.s.dst);
	free(w->sb.s.vtime);
	free(w->sb.s.vlane);
	free(w->sb.s.vcopy);
	free(w);
}

/* The graph's scratch, or a fresh one for a graph made without
 * pag_graph_init (the caller frees it: work_done). */
static pag_work *
work_of(const pag_graph *g)
{
	return g->work ? g->work : pag_work_new();
}

static void
work_done(const pag_graph *g, pag_work *w)
{
	if (w != g->work)
		pag_work_free(w);
}

/* Slot's buffer, at least bytes long; what it held is not kept. */
static void *
work_buf(pag_work *w, enum work_slot slot, size_t bytes)
{
	if (bytes > w->cap[slot] || !w->buf[slot]) {	/* never NULL, even for 0 */
		size_t cap = bytes + bytes / 2 + 64;

		free(w->buf[slot]);
		w->buf[slot] = xmalloc(cap);
		w->cap[slot] = cap;
	}
	return w->buf[slot];
}

static void *
work_zeroed(pag_work *w, enum work_slot slot, size_t bytes)
{
	return memset(work_buf(w, slot, bytes), 0, bytes);
}

int64_t
pag_window_start_at(int64_t origin, int64_t window, int64_t t)
{
	return origin + floor_div(t - origin, window) * window;
}

/* Sort k by start, stably, RADIX_BITS of (t0 - lo) at a time (least
 * significant first) over the bits that differ: millions of edges in a few
 * passes where qsort's comparisons took a tenth of tr-pag's time; a step's
 * or a window's few seconds of µs in two. */
#define RADIX_BITS 12
#define RADIX_COUNTS ((1u << RADIX_BITS) + 1)
static void
radix_by_start(pag_start_key *k, size_t n, int64_t lo, int64_t hi, pag_start_key *tmp, size_t *count)
{
	uint64_t range = (uint64_t)hi - (uint64_t)lo;
	const uint64_t mask = (1u << RADIX_BITS) - 1;
	pag_start_key *from = k, *to = tmp;

	for (int shift = 0; shift < 64 && (range >> shift); shift += RADIX_BITS) {
		memset(count, 0, ((size_t)mask + 2) * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(((uint64_t)from[i].t0 - (uint64_t)lo) >> shift & mask) + 1]++;
		for (size_t b = 0; b <= mask; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			to[count[((uint64_t)from[i].t0 - (uint64_t)lo) >> shift & mask]++] = from[i];
		pag_start_key *t = from;
		from = to;
		to = t;
	}
	if (from != k)
		memcpy(k, from, n * sizeof *k);
}

void
pag_sort_by_start(pag_start_key *k, size_t n, pag_work *w)
{
	int64_t lo = n ? k[0].t0 : 0, hi = lo;

	for (size_t i = 1; i < n; i++) {
		lo = k[i].t0 < lo ? k[i].t0 : lo;
		hi = k[i].t0 > hi ? k[i].t0 : hi;
	}
	if (n >= 64) {
		radix_by_start(k, n, lo, hi, work_buf(w, W_TMP, n * sizeof *k),
			       work_buf(w, W_COUNT, RADIX_COUNTS * sizeof(size_t)));
		return;
	}
	for (size_t i = 1; i < n; i++) {	/* a few: by insertion, as stably */
		pag_start_key x = k[i];
		size_t j = i;

		for (; j > 0 && k[j - 1].t0 > x.t0; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

/* The graph's edges by start into order (n), sorting in w's buffers. */
static void
edges_by_start(const pag_graph *g, uint32_t *order, pag_work *w)
{
	size_t n = g->nedges;
	pag_start_key *k = work_buf(w, W_KEYS, n * sizeof *k);

	for (size_t i = 0; i < n; i++)	/* in index order: ties stay so */
		k[i] = (pag_start_key){g->edges[i].t0, (uint32_t)i};
	pag_sort_by_start(k, n, w);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].edge;
}

uint32_t *
pag_edges_by_start(const pag_graph *g)
{
	uint32_t *order = xmalloc((g->nedges ? g->nedges : 1) * sizeof *order);
	pag_work *w = pag_work_new();

	edges_by_start(g, order, w);
	pag_work_free(w);
	return order;
}

/* Is edge e in the window [ts, te)? Edges of positive length overlap it by a
 * positive length; a zero-length edge belongs to the window it starts in. */
static int
in_window(const pag_edge *e, int64_t ts, int64_t te)
{
	if (e->t1 > e->t0)
		return e->t0 < te && e->t1 > ts;
	return e->t0 >= ts && e->t0 < te;
}

int64_t
pag_window_start(const pag_graph *g, int64_t t)
{
	return pag_window_start_at(g->origin, g->window, t);
}

void
pag_edge_range(const pag_graph *g, int64_t *lo, int64_t *hi)
{
	*lo = *hi = g->nedges ? g->edges[0].t0 : 0;
	for (size_t i = 0; i < g->nedges; i++) {
		if (g->edges[i].t0 < *lo)
			*lo = g->edges[i].t0;
		if (g->edges[i].t1 > *hi)
			*hi = g->edges[i].t1;
	}
}

int64_t
pag_window_count(const pag_graph *g)
{
	int64_t lo, hi;

	if (g->nedges == 0)
		return 0;
	if (g->window <= 0)
		return 1;
	pag_edge_range(g, &lo, &hi);
	/* hand-written records can put times and origin anywhere: -1, too many */
	int64_t n;

	if (__builtin_sub_overflow(hi, g->origin, &hi) || __builtin_sub_overflow(lo, g->origin, &lo) ||
	    __builtin_sub_overflow(floor_div(hi, g->window), floor_div(lo, g->window), &n) ||
	    n == INT64_MAX)
		return -1;
	return n + 1;
}

static void
snap_fill(snap_buf *sb, const pag_graph *g, const uint32_t *act, size_t n, int64_t ts, int64_t te)
{
	pag_snap *s = &sb->s;

	if (n > sb->cap) {
		sb->cap = n;
		s->edge = xrealloc(s->edge, n * sizeof *s->edge);
		s->t0 = xrealloc(s->t0, n * sizeof *s->t0);
		s->t1 = xrealloc(s->t1, n * sizeof *s->t1);
		s->src = xrealloc(s->src, n * sizeof *s->src);
		s->dst = xrealloc(s->dst, n * sizeof *s->dst);
	}
	if (2 * n > sb->capv) {
		sb->capv = 2 * n;
		s->vtime = xrealloc(s->vtime, sb->capv * sizeof *s->vtime);
		s->vlane = xrealloc(s->vlane, sb->capv * sizeof *s->vlane);
		s->vcopy = xrealloc(s->vcopy, sb->capv * sizeof *s->vcopy);
	}
	s->ts = ts;
	s->te = te;
	s->nedges = n;
	s->nvertices = 0;
	for (size_t i = 0; i < n; i++) {
		const pag_edge *e = &g->edges[act[i]];
		uint32_t ends[2] = {e->src, e->dst};
		uint32_t local[2];

		for (int k = 0; k < 2; k++) {
			uint32_t v = ends[k];

			if (sb->vmap[v] < 0) {
				int64_t t = g->vtime[v];

				/* a vertex outside the window becomes its copy on the edge (Def. 5) */
				s->vtime[s->nvertices] = t < ts ? ts : t > te ? te : t;
				s->vlane[s->nvertices] = g->vlane[v];
				s->vcopy[s->nvertices] = t < ts || t > te;
				sb->vmap[v] = (int32_t)s->nvertices++;
			}
			local[k] = (uint32_t)sb->vmap[v];
		}
		s->edge[i] = act[i];
		s->src[i] = local[0];
		s->dst[i] = local[1];
		s->t0[i] = s->vtime[local[0]];
		s->t1[i] = s->vtime[local[1]];
		if (i == 0 || s->t0[i] < s->tmin)
			s->tmin = s->t0[i];
		if (i == 0 || s->t1[i] > s->tmax)
			s->tmax = s->t1[i];
	}
	for (size_t i = 0; i < n; i++) {
		sb->vmap[g->edges[act[i]].src] = -1;
		sb->vmap[g->edges[act[i]].dst] = -1;
	}
}

void
pag_windows(const pag_graph *g, pag_window_fn *fn, void *ctx)
{
	pag_windows_between(g, INT64_MIN, INT64_MAX, fn, ctx);
}

/* The vertex map for g's vertices, all -1 (snap_fill leaves it so). */
static void
vmap_reserve(snap_buf *sb, size_t nvertices)
{
	if (nvertices <= sb->capvmap)
		return;
	size_t cap = nvertices + nvertices / 2;

	sb->vmap = xrealloc(sb->vmap, cap * sizeof *sb->vmap);
	memset(sb->vmap + sb->capvmap, 0xff, (cap - sb->capvmap) * sizeof *sb->vmap);
	sb->capvmap = cap;
}

void
pag_windows_between(const pag_graph *g, int64_t from, int64_t to, pag_window_fn *fn, void *ctx)
{
	size_t n = g->nedges, next = 0, nact = 0;
	uint32_t *order, *act, *win;
	pag_work *work;
	snap_buf *sb;
	int64_t w = g->window, k, kfrom;

	if (n == 0)
		return;
	work = work_of(g);
	sb = &work->sb;
	order = work_buf(work, W_ORDER, n * sizeof *order);
	edges_by_start(g, order, work);
	act = work_buf(work, W_ACT, n * sizeof *act);
	win = work_buf(work, W_WIN, n * sizeof *win);
	vmap_reserve(sb, g->nvertices);
	if (w <= 0) {	/* one window over the whole graph */
		int64_t te = g->edges[order[0]].t1;

		for (size_t i = 0; i < n; i++)
			if (g->edges[i].t1 > te)
				te = g->edges[i].t1;
		snap_fill(sb, g, order, n, g->edges[order[0]].t0, te);
		fn(ctx, g, &sb->s);
		goto done;
	}
	/* from is a mark, which may lie inside its window (the earliest time
	 * allowed): windows are compared by number, not by start */
	kfrom = from == INT64_MIN ? INT64_MIN : floor_div(from - g->origin, w);
	k = floor_div(g->edges[order[0]].t0 - g->origin, w);
	if (kfrom > k)
		k = kfrom;	/* not every done window again */
	while (next < n || nact) {
		int64_t ts = g->origin + k * w, te = ts + w;
		size_t keep = 0;

		if (te > to)	/* its edges may not all be there yet */
			break;

		/* act stays sorted by start: what is carried over started in an
		 * earlier window, what is added starts in this one */
		while (next < n && g->edges[order[next]].t0 < te)
			act[nact++] = order[next++];
		for (size_t i = 0; i < nact; i++)
			if (in_window(&g->edges[act[i]], ts, te))
				win[keep++] = act[i];
		if (keep && (from == INT64_MIN || k >= kfrom)) {
			snap_fill(sb, g, win, keep, ts, te);
			fn(ctx, g, &sb->s);
		}
		/* keep only edges that reach into later windows */
		keep = 0;
		for (size_t i = 0; i < nact; i++)
			if (g->edges[act[i]].t1 > te)
				act[keep++] = act[i];
		nact = keep;
		if (!nact && next < n)	/* skip empty windows at once */
			k = floor_div(g->edges[order[next]].t0 - g->origin, w);
		else
			k++;
	}
done:
	work_done(g, work);
}

/* ---- transient path centrality and CP (Algorithm 2) ---- */

/* Out-edges (that are not waiting) per snapshot vertex, as CSR. */
typedef struct adjacency {
	uint32_t *first;	/* nvertices + 1 */
	uint32_t *edges;
	uint32_t *indeg;
} adjacency;

static void
adj_build(adjacency *a, const pag_graph *g, const pag_snap *s, pag_work *w)
{
	size_t nv = s->nvertices;

	a->first = work_zeroed(w, W_FIRST, (nv + 1) * sizeof *a->first);
	a->indeg = work_zeroed(w, W_INDEG, nv * sizeof *a->indeg);
	a->edges = work_buf(w, W_ADJ, s->nedges * sizeof *a->edges);
	for (size_t i = 0; i < s->nedges; i++)
		if (g->edges[s->edge[i]].type != PAG_WAITING) {
			a->first[s->src[i] + 1]++;
			a->indeg[s->dst[i]]++;
		}
	for (size_t v = 0; v < nv; v++)
		a->first[v + 1] += a->first[v];
	uint32_t *fill = work_buf(w, W_FILL, (nv + 1) * sizeof *fill);
	memcpy(fill, a->first, (nv + 1) * sizeof *fill);
	for (size_t i = 0; i < s->nedges; i++)
		if (g->edges[s->edge[i]].type != PAG_WAITING)
			a->edges[fill[s->src[i]]++] = (uint32_t)i;
}

/* Kahn's algorithm: a topological order of the vertices; returns its length
 * (shorter than nvertices when zero-length edges form a cycle). */
static size_t
topo_order(const adjacency *a, const pag_snap *s, uint32_t *order, pag_work *w)
{
	uint32_t *indeg = work_buf(w, W_TOPO, s->nvertices * sizeof *indeg);
	size_t head = 0, tail = 0;

	memcpy(indeg, a->indeg, s->nvertices * sizeof *indeg);
	for (size_t v = 0; v < s->nvertices; v++)
		if (indeg[v] == 0)
			order[tail++] = (uint32_t)v;
	while (head < tail) {
		uint32_t v = order[head++];

		for (uint32_t j = a->first[v]; j < a->first[v + 1]; j++)
			if (--indeg[s->dst[a->edges[j]]] == 0)
				order[tail++] = s->dst[a->edges[j]];
	}
	return tail;
}

/* Def. 7: the transient critical paths are the longest paths of the
 * snapshot (waiting edges are never on one). Every edge lasts its time, so a
 * path is as long as from its first vertex's time to its last's, and a
 * longest path through v runs from the earliest vertex that reaches v
 * (first[v]) to the latest that v reaches (last[v]): fwd[v] counts the
 * paths from vertices no edge enters at first[v], bwd[v] those to vertices
 * no edge leaves at last[v]. When some path crosses the whole window, they
 * are the paths from its first time to its last; when none does (a window
 * where only separate requests run), the longest of them, each of length L. */
static void
count_forward(const adjacency *a, const pag_snap *s, const uint32_t *order, size_t ntopo,
	      int64_t *first, pag_count *fwd)
{
	pag_count one = pag_count_of(1);

	for (size_t i = 0; i < ntopo; i++) {
		uint32_t v = order[i];

		if (a->indeg[v] == 0) {
			first[v] = s->vtime[v];
			fwd[v] = one;
		}
		for (uint32_t j = a->first[v]; j < a->first[v + 1]; j++) {
			uint32_t d = s->dst[a->edges[j]];

			if (first[v] < first[d]) {
				first[d] = first[v];
				fwd[d] = fwd[v];
			} else if (first[v] == first[d]) {
				fwd[d] = pag_count_add(fwd[d], fwd[v]);
			}
		}
	}
}

static void
count_backward(const adjacency *a, const pag_snap *s, const uint32_t *order, size_t ntopo,
	       int64_t *last, pag_count *bwd)
{
	pag_count one = pag_count_of(1);

	for (size_t i = ntopo; i-- > 0;) {
		uint32_t v = order[i];

		if (a->first[v] == a->first[v + 1]) {
			last[v] = s->vtime[v];
			bwd[v] = one;
		}
		for (uint32_t j = a->first[v]; j < a->first[v + 1]; j++) {
			uint32_t d = s->dst[a->edges[j]];

			if (last[d] > last[v]) {
				last[v] = last[d];
				bwd[v] = bwd[d];
			} else if (last[d] == last[v]) {
				bwd[v] = pag_count_add(bwd[v], bwd[d]);
			}
		}
	}
}

size_t
pag_snap_cp(const pag_graph *g, const pag_snap *s, double *cp, pag_count *npaths)
{
	size_t nv = s->nvertices, ntopo;
	adjacency a;
	pag_work *w = work_of(g);
	uint32_t *order = work_buf(w, W_VORDER, nv * sizeof *order);
	pag_count *fwd = work_zeroed(w, W_FWD, nv * sizeof *fwd);
	pag_count *bwd = work_zeroed(w, W_BWD, nv * sizeof *bwd);
	int64_t *first = work_buf(w, W_FIRSTT, nv * sizeof *first);
	int64_t *last = work_buf(w, W_LASTT, nv * sizeof *last);
	pag_count n = {0, 0};
	int64_t len = -1;

	adj_build(&a, g, s, w);
	ntopo = topo_order(&a, s, order, w);
	for (size_t v = 0; v < nv; v++) {
		first[v] = INT64_MAX;
		last[v] = INT64_MIN;
	}
	count_forward(&a, s, order, ntopo, first, fwd);
	count_backward(&a, s, order, ntopo, last, bwd);
	for (size_t i = 0; i < ntopo; i++) {	/* L, and N: the paths of length L */
		uint32_t v = order[i];

		if (a.first[v] != a.first[v + 1] || first[v] == INT64_MAX)
			continue;
		if (s->vtime[v] - first[v] > len) {
			len = s->vtime[v] - first[v];
			n = fwd[v];
		} else if (s->vtime[v] - first[v] == len) {
			n = pag_count_add(n, fwd[v]);
		}
	}
	for (size_t i = 0; i < s->nedges; i++) {
		uint32_t u = s->src[i], d = s->dst[i];

		cp[i] = 0;
		if (g->edges[s->edge[i]].type == PAG_WAITING || n.m == 0 || len <= 0 ||
		    first[u] == INT64_MAX || last[d] == INT64_MIN || last[d] - first[u] != len)
			continue;
		cp[i] = pag_count_ratio(pag_count_mul(fwd[u], bwd[d]), n) *
			((double)(s->t1[i] - s->t0[i]) / (double)len);
	}
	*npaths = n;
	work_done(g, w);
	return nv - ntopo;
}

/* ---- instrumentation properties (Appendix A.2) ---- */

typedef struct sweep_ev {
	int64_t t;
	int8_t alive, waiting, comm;
} sweep_ev;

static int
by_time(const void *pa, const void *pb)
{
	const sweep_ev *a = pa, *b = pb;

	return a->t < b->t ? -1 : a->t > b->t;
}

/* True when some lane runs through the whole snapshot without waiting: then
 * not every lane can wait at once (the common case, found in linear time). */
static int
lane_never_waits(const pag_graph *g, const pag_snap *s, pag_work *w)
{
	int64_t *busy = work_zeroed(w, W_BUSY, g->nlanes * sizeof *busy);
	int found = 0;

	for (size_t i = 0; i < s->nedges; i++) {
		int type = g->edges[s->edge[i]].type;
		uint32_t l = s->vlane[s->src[i]];

		if (pag_type_is_comm(type))
			continue;
		if (type == PAG_WAITING)
			busy[l] = INT64_MIN;
		else if (busy[l] >= 0)
			busy[l] = i64_add_sat(busy[l], s->t1[i] - s->t0[i]);
	}
	for (size_t l = 0; l < g->nlanes && !found; l++)
		found = busy[l] == s->tmax - s->tmin && busy[l] > 0;
	return found;
}

/* The span of snapshot vertex u: the one its graph vertex names, else the
 * span of an edge it ends or starts. */
static pag_example
vertex_example(const pag_graph *g, const pag_snap *s, uint32_t u)
{
	pag_example x = {1, s->vtime[u], s->vlane[u], PAG_NONE};

	for (size_t i = 0; i < s->nedges && x.span == PAG_NONE; i++) {
		const pag_edge *e = &g->edges[s->edge[i]];

		if (s->dst[i] == u)
			x.span = g->vspan[e->dst] != PAG_NONE ? g->vspan[e->dst] : e->span;
		else if (s->src[i] == u)
			x.span = g->vspan[e->src] != PAG_NONE ? g->vspan[e->src] : e->span;
	}
	return x;
}

/* A waiting activity at time t (every lane waits then). */
static pag_example
waiting_example(const pag_graph *g, const pag_snap *s, int64_t t)
{
	pag_example x = {1, t, PAG_NONE, PAG_NONE};

	for (size_t i = 0; i < s->nedges; i++) {
		const pag_edge *e = &g->edges[s->edge[i]];

		if (e->type == PAG_WAITING && s->t0[i] <= t && t < s->t1[i]) {
			x.lane = s->vlane[s->src[i]];
			x.span = e->span;
			break;
		}
	}
	return x;
}

static int
by_entry(const void *pa, const void *pb)
{
	const pag_entry *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->lane > b->lane) - (a->lane < b->lane);
}

void
pag_entries_sort(pag_entries *e)
{
	if (!e->sorted && e->n > 1)
		qsort(e->e, e->n, sizeof *e->e, by_entry);
	e->sorted = 1;
}

void
pag_entries_drop_before(pag_entries *e, int64_t t)
{
	size_t k = 0;

	while (k < e->n && e->e[k].t < t)
		k++;
	memmove(e->e, e->e + k, (e->n - k) * sizeof *e->e);
	e->n -= k;
}

static int
is_entry(const pag_entries *e, uint32_t lane, int64_t t)
{
	pag_entry key = {t, lane};

	return e && e->n && bsearch(&key, e->e, e->n, sizeof *e->e, by_entry);
}

/* Is a root's start at time t (on any lane)? */
static int
entry_at(const pag_entries *e, int64_t t)
{
	size_t lo = 0, hi = e ? e->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->e[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return e && lo < e->n && e->e[lo].t == t;
}

/* One stretch of us from time `from` where every lane waits. */
static void
all_waiting(const pag_graph *g, const pag_snap *s, int64_t from, int64_t us, pag_violations *v)
{
	v->all_waiting++;
	if (!v->all_waiting_at.set)
		v->all_waiting_at = waiting_example(g, s, from);
	v->all_waiting_us += us;
}

/* Property 2 over the events sorted by time: a stretch where every live
 * lane waits and no message is in flight, unless a root's start ends it
 * (then the system waits for its load, whose sender is not traced) or the
 * window's end does (the next window sees how it ends). */
static void
sweep_all_waiting(const pag_graph *g, const pag_snap *s, const pag_entries *entries,
		  const sweep_ev *ev, size_t nev, pag_violations *v)
{
	long alive = 0, waiting = 0, comm = 0;
	int pending = 0;
	int64_t from = 0, us = 0;

	for (size_t i = 0; i < nev;) {
		int64_t t = ev[i].t;

		for (; i < nev && ev[i].t == t; i++) {
			alive += ev[i].alive;
			waiting += ev[i].waiting;
			comm += ev[i].comm;
		}
		int bad = alive > 0 && waiting == alive && comm == 0;
		if (pending && !bad && (entry_at(entries, t) || (g->window > 0 && t == s->te)))
			pending = 0;	/* the load arrives, or the next window checks it */
		if (pending && !bad) {
			all_waiting(g, s, from, us, v);
			pending = 0;
		}
		if (bad && i < nev) {
			if (!pending) {
				from = t;
				us = 0;
			}
			pending = 1;
			us += ev[i].t - t;
		}
	}
	if (pending)
		all_waiting(g, s, from, us, v);
}

void
pag_snap_check(const pag_graph *g, const pag_snap *s, const pag_entries *entries,
	       pag_violations *v)
{
	pag_work *w = work_of(g);
	uint8_t *entered = work_zeroed(w, W_ENTERED, s->nvertices);
	sweep_ev *ev = work_buf(w, W_EV, 2 * s->nedges * sizeof *ev);
	size_t nev = 0;

	/* Property 1: every vertex after the window start has an incoming edge
	 * a transient critical path can use (waiting edges cannot). A copy at
	 * the window end stands for a vertex of a later window, and a vertex at
	 * the end may be entered by a zero-length edge of the next: not counted. */
	for (size_t i = 0; i < s->nedges; i++)
		if (g->edges[s->edge[i]].type != PAG_WAITING)
			entered[s->dst[i]] = 1;
	for (size_t u = 0; u < s->nvertices; u++)
		if (s->vtime[u] > s->tmin && !entered[u] && !s->vcopy[u] &&
		    !is_entry(entries, s->vlane[u], s->vtime[u]) &&	/* a root's start */
		    !(g->window > 0 && s->vtime[u] == s->te)) {	/* the next window checks it */
			v->no_input++;
			if (!v->no_input_at.set)
				v->no_input_at = vertex_example(g, s, (uint32_t)u);
		}
	/* Property 2: never do all lanes wait while no message is in flight. */
	if (lane_never_waits(g, s, w))
		goto done;
	for (size_t i = 0; i < s->nedges; i++) {
		int type = g->edges[s->edge[i]].type;
		int c = pag_type_is_comm(type), waits = type == PAG_WAITING;

		if (s->t1[i] <= s->t0[i])
			continue;
		ev[nev++] = (sweep_ev){s->t0[i], (int8_t)!c, (int8_t)waits, (int8_t)c};
		ev[nev++] = (sweep_ev){s->t1[i], (int8_t)-!c, (int8_t)-waits, (int8_t)-c};
	}
	qsort(ev, nev, sizeof *ev, by_time);
	sweep_all_waiting(g, s, entries, ev, nev, v);
done:
	work_done(g, w);
}


/* ---- CP per span ---- */

typedef struct span_acc {
	double *cp_time;	/* per span: sum of CP * window length */
	double *time;		/* per span: sum of the lengths of its windows */
	uint32_t *last;		/* per span: last window (1-based) counted in time */
	uint32_t nwin;
	double *cp;
	size_t capcp;
} span_acc;

static void
span_window(void *ctx, const pag_graph *g, const pag_snap *s)
{
	span_acc *a = ctx;
	pag_count n;
	double len = g->window > 0 ? (double)(s->te - s->ts) : (double)(s->tmax - s->tmin);

	GROW(a->cp, a->capcp, s->nedges);
	pag_snap_cp(g, s, a->cp, &n);
	a->nwin++;
	for (size_t i = 0; i < s->nedges; i++) {
		const pag_edge *e = &g->edges[s->edge[i]];

		if (e->span == PAG_NONE || pag_type_is_comm(e->type))
			continue;	/* communication is the channel's, not the span's */
		if (a->last[e->span] != a->nwin) {
			a->last[e->span] = a->nwin;
			a->time[e->span] += len;
		}
		a->cp_time[e->span] += a->cp[i] * len;
	}
}

void
pag_span_cp(const pag_graph *g, double *part)
{
	size_t n = g->nspans ? g->nspans : 1;
	span_acc a = {xcalloc(n, sizeof *a.cp_time), xcalloc(n, sizeof *a.time),
		      xcalloc(n, sizeof *a.last), 0, NULL, 0};

	pag_windows(g, span_window, &a);
	for (size_t i = 0; i < g->nspans; i++)
		part[i] = a.last[i] == 0 ? -1 : a.time[i] > 0 ? a.cp_time[i] / a.time[i] : 0;
	free(a.cp_time);
	free(a.time);
	free(a.last);
	free(a.cp);
}
