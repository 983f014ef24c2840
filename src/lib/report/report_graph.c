/* report_graph.c - the service graph of tr-report: the calls between
 * services as tr-infer --links counts them (infer_links: the same rules,
 * the same edges, calls and errors), laid out here (graphviz is not a
 * dependency) from top to bottom in the manner of graphviz's dot:
 *   1. ranks, callers above callees: a depth-first walk from the services
 *      requests enter at finds the calls that close a cycle; with those
 *      turned round the calls form a DAG, and a service's rank is the
 *      longest chain of calls above it (a cycle spreads over ranks, it is
 *      not stacked in one);
 *   2. a call across several ranks passes through a slot of its own in
 *      each rank between (a virtual node), so that it never runs through
 *      a box;
 *   3. the order within each rank: sweeps of the barycentre heuristic,
 *      down and up, to uncross the calls;
 *   4. each call's label sits beside its first segment, in the gap between
 *      two ranks, where there is no box.
 * A call with errors is drawn red and dashed, its label giving the errors:
 * legible in greyscale too. */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "draw/svg.h"

#define BOX_H 24.0
#define RANK_GAP 56.0
#define NODE_GAP 36.0
#define SLOT_W 8.0		/* a virtual node */
#define LOOP_W 34.0		/* room for a call of a service to itself */
#define MARGIN 16.0
#define HEAD 30.0
#define SWEEPS 6

/* A box (a service) or a slot (a virtual node) of the layout. */
typedef struct gnode {
	const char *name;	/* NULL: a slot */
	size_t spans;
	int root;
	int rank;
	double order;		/* place within its rank, then its barycentre */
	double w, room, x;	/* room: w and what a loop and its label take */
} gnode;

/* A call: its ends, its counts, and its path through the ranks. */
typedef struct gedge {
	uint32_t from, to;
	uint64_t calls, errors;
	int back;		/* turned round: it closes a cycle */
	uint32_t up, down;	/* its ends in the DAG's direction */
	size_t slot0, nslots;	/* its virtual nodes, ranks up+1 .. down-1 */
	double out_x, in_x;	/* ports on the boxes, along their bottom and top */
	char label[48];
} gedge;

typedef struct layout {
	gnode *n;
	size_t nn, capn, nreal;
	gedge *e;
	size_t ne;
	strmap names;		/* service -> node */
	arena mem;
	int nranks;
} layout;

static uint32_t
node_of(layout *g, const char *name, size_t spans, int root)
{
	int added;
	strmap_slot *slot = strmap_intern(&g->names, &g->mem, name, strlen(name), &added);

	if (added) {
		GROW(g->n, g->capn, g->nn + 1);
		g->n[g->nn++] = (gnode){slot->key, 0, 0, 0, 0, 0, 0, 0};
	}
	g->n[slot->val].spans += spans;
	g->n[slot->val].root |= root;
	return (uint32_t)slot->val;
}

/* The services with spans, in the order met, then those only calls name. */
static void
take_calls(layout *g, report *r)
{
	size_t n = r->links ? infer_links_sort(r->links) : 0;

	for (size_t i = 0; i < r->nsvc; i++)
		node_of(g, r->svc[i].name, r->svc[i].spans, r->svc[i].root);
	g->e = xcalloc(n ? n : 1, sizeof *g->e);
	for (size_t i = 0; i < n; i++) {
		infer_link k = infer_links_at(r->links, i);
		gedge *e = &g->e[g->ne++];

		e->from = node_of(g, k.parent, 0, 0);
		e->to = node_of(g, k.child, 0, 0);
		e->calls = k.calls;
		e->errors = k.errors;
		if (k.errors)
			snprintf(e->label, sizeof e->label, "%llu (%llu errors)",
				 (unsigned long long)k.calls, (unsigned long long)k.errors);
		else
			snprintf(e->label, sizeof e->label, "%llu", (unsigned long long)k.calls);
	}
	g->nreal = g->nn;
}

/* Step 1a: a depth-first walk, on an explicit stack, from the services
 * requests enter at (then from any left), marks as back the calls to a
 * service still on the walk's path. state: 0 unseen, 1 on the path, 2 done. */
static void
mark_back_calls(layout *g)
{
	size_t n = g->nreal;
	uint8_t *state = xcalloc(n, 1);
	size_t *stack = xmalloc((n + 1) * sizeof *stack), *next = xcalloc(n, sizeof *next);

	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < n; s++) {
			size_t top = 0;

			if (state[s] || (pass == 0 && !g->n[s].root))
				continue;
			stack[top++] = s;
			state[s] = 1;
			while (top) {
				size_t u = stack[top - 1], k = next[u]++;

				if (k >= g->ne) {
					state[u] = 2;
					top--;
					continue;
				}
				gedge *e = &g->e[k];
				if (e->from != u || e->to == u)
					continue;
				if (state[e->to] == 1)
					e->back = 1;
				else if (!state[e->to]) {
					state[e->to] = 1;
					stack[top++] = e->to;
				}
			}
		}
	free(state);
	free(stack);
	free(next);
}

/* Step 1b: ranks by the longest chain of calls above, over the DAG (every
 * pass settles one more link of the longest chain: at most n passes). */
static void
assign_ranks(layout *g)
{
	int changed = 1;

	for (size_t i = 0; i < g->ne; i++) {
		gedge *e = &g->e[i];

		e->up = e->back ? e->to : e->from;
		e->down = e->back ? e->from : e->to;
	}
	for (size_t pass = 0; changed && pass <= g->nreal; pass++) {
		changed = 0;
		for (size_t i = 0; i < g->ne; i++) {
			const gedge *e = &g->e[i];

			if (e->up != e->down && g->n[e->down].rank < g->n[e->up].rank + 1) {
				g->n[e->down].rank = g->n[e->up].rank + 1;
				changed = 1;
			}
		}
	}
	g->nranks = 1;
	for (size_t i = 0; i < g->nreal; i++)
		if (g->n[i].rank + 1 > g->nranks)
			g->nranks = g->n[i].rank + 1;
}

/* Step 2: a slot in every rank a call crosses; widths and first order. */
static void
add_slots(layout *g)
{
	for (size_t i = 0; i < g->nreal; i++) {
		gnode *v = &g->n[i];

		v->w = svg_text_width(v->name, SVG_FONT_PX) + 16;
		v->room = v->w;
		v->order = (double)i;
	}
	for (size_t i = 0; i < g->ne; i++) {
		gedge *e = &g->e[i];
		int r0 = g->n[e->up].rank, r1 = g->n[e->down].rank;

		if (e->up == e->down) {	/* a loop beside the box, its label right of it */
			gnode *v = &g->n[e->up];
			v->room += LOOP_W + svg_text_width(e->label, 10.0) + 6;
			continue;
		}
		e->slot0 = g->nn;
		e->nslots = r1 > r0 + 1 ? (size_t)(r1 - r0 - 1) : 0;
		for (int r = r0 + 1; r < r1; r++) {
			GROW(g->n, g->capn, g->nn + 1);
			g->n[g->nn] = (gnode){NULL, 0, 0, r, (double)g->nn, SLOT_W, SLOT_W, 0};
			g->nn++;
		}
	}
}

/* The node before (toward up) or after (toward down) step k of call e's
 * chain up, slots..., down: k from 0 (up) to nslots + 1 (down). */
static uint32_t
chain_at(const gedge *e, size_t k)
{
	if (k == 0)
		return e->up;
	if (k > e->nslots)
		return e->down;
	return (uint32_t)(e->slot0 + k - 1);
}

/* Step 3, one sweep over one rank: each node's barycentre of its
 * neighbours in the rank above (down) or below (!down); a node with none
 * keeps its place. */
static void
barycentres(layout *g, int rank, int down)
{
	double *sum = xcalloc(g->nn, sizeof *sum);
	size_t *cnt = xcalloc(g->nn, sizeof *cnt);

	for (size_t i = 0; i < g->ne; i++) {
		const gedge *e = &g->e[i];

		for (size_t k = 0; e->up != e->down && k <= e->nslots; k++) {
			uint32_t a = chain_at(e, k), b = chain_at(e, k + 1);
			uint32_t here = down ? b : a, there = down ? a : b;

			if (g->n[here].rank == rank) {
				sum[here] += g->n[there].order;
				cnt[here]++;
			}
		}
	}
	for (size_t i = 0; i < g->nn; i++)
		if (g->n[i].rank == rank && cnt[i])
			g->n[i].order = sum[i] / (double)cnt[i];
	free(sum);
	free(cnt);
}

static int
order_cmp(const void *x, const void *y, void *ctx)
{
	const gnode *n = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (n[a].rank != n[b].rank)
		return n[a].rank < n[b].rank ? -1 : 1;
	if (n[a].order != n[b].order)
		return n[a].order < n[b].order ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Nodes sorted by (rank, order); then each order is its place in its rank. */
static void
renumber(layout *g, uint32_t *by)
{
	for (size_t i = 0; i < g->nn; i++)
		by[i] = (uint32_t)i;
	/* insertion sort: no qsort_r in C11, and graphs are small */
	for (size_t i = 1; i < g->nn; i++)
		for (size_t j = i; j > 0 && order_cmp(&by[j - 1], &by[j], g->n) > 0; j--) {
			uint32_t t = by[j];
			by[j] = by[j - 1];
			by[j - 1] = t;
		}
	for (size_t i = 0, place = 0; i < g->nn; i++, place++) {
		if (i && g->n[by[i]].rank != g->n[by[i - 1]].rank)
			place = 0;
		g->n[by[i]].order = (double)place;
	}
}

/* Step 3 and x positions: each rank centred on the widest. */
static double
order_and_place(layout *g)
{
	uint32_t *by = xmalloc((g->nn ? g->nn : 1) * sizeof *by);
	double *width = xcalloc((size_t)g->nranks, sizeof *width), widest = 0, x = 0;

	renumber(g, by);
	for (int s = 0; s < SWEEPS; s++) {
		for (int r = 1; r < g->nranks; r++) {
			barycentres(g, r, 1);
			renumber(g, by);
		}
		for (int r = g->nranks - 2; r >= 0; r--) {
			barycentres(g, r, 0);
			renumber(g, by);
		}
	}
	for (size_t i = 0; i < g->nn; i++)
		width[g->n[i].rank] += g->n[i].room + (g->n[i].order > 0 ? NODE_GAP : 0);
	for (int r = 0; r < g->nranks; r++)
		widest = width[r] > widest ? width[r] : widest;
	for (size_t i = 0; i < g->nn; i++) {
		gnode *v = &g->n[by[i]];

		if (v->order == 0)
			x = MARGIN + (widest - width[v->rank]) / 2;
		v->x = x;
		x += v->room + NODE_GAP;
	}
	free(by);
	free(width);
	return widest + 2 * MARGIN;
}

static double
rank_y(int rank)
{
	return HEAD + 10 + rank * (BOX_H + RANK_GAP);
}

static double
centre(const gnode *v)
{
	return v->x + v->w / 2;
}

/* Ports: the calls leaving a box spread along its bottom, those entering
 * along its top, each in the order of where its other end lies. */
static void
place_ports(layout *g)
{
	for (size_t u = 0; u < g->nreal; u++)
		for (int bottom = 0; bottom < 2; bottom++) {
			size_t n = 0;

			for (size_t i = 0; i < g->ne; i++)
				n += g->e[i].up != g->e[i].down && (bottom ? g->e[i].up : g->e[i].down) == u;
			for (size_t i = 0; i < g->ne; i++) {
				gedge *e = &g->e[i];
				if (e->up == e->down || (bottom ? e->up : e->down) != u)
					continue;
				/* its rank among this box's calls, by the other end's x */
				double far = centre(&g->n[chain_at(e, bottom ? 1 : e->nslots)]);
				size_t before = 0;
				for (size_t j = 0; j < g->ne; j++) {
					const gedge *f = &g->e[j];
					if (j == i || f->up == f->down || (bottom ? f->up : f->down) != u)
						continue;
					double ff = centre(&g->n[chain_at(f, bottom ? 1 : f->nslots)]);
					before += ff < far || (ff == far && j < i);
				}
				double x = g->n[u].x + g->n[u].w * (double)(before + 1) / (double)(n + 1);
				*(bottom ? &e->out_x : &e->in_x) = x;
			}
		}
}

/* A call's stroke: red and dashed with errors, grey else. */
static const char *
call_style(const gedge *e)
{
	return e->errors ? "stroke=\"#c0392b\" stroke-width=\"1.6\" stroke-dasharray=\"6,3\" "
			   "marker-end=\"url(#arrow-err)\"" :
			   "stroke=\"#666\" marker-end=\"url(#arrow)\"";
}

/* A call's path from its up end to its down end, through its slots: each
 * step a curve leaving and arriving vertically (straight through a slot).
 * A back call is drawn from its down end, so that its arrow points up. */
static void
draw_path(strbuf *out, const layout *g, const gedge *e)
{
	size_t np = 2 * e->nslots + 2;
	double (*p)[2] = xmalloc(np * sizeof *p);

	p[0][0] = e->out_x;
	p[0][1] = rank_y(g->n[e->up].rank) + BOX_H;
	for (size_t k = 0; k < e->nslots; k++) {
		const gnode *v = &g->n[e->slot0 + k];

		p[1 + 2 * k][0] = p[2 + 2 * k][0] = centre(v);
		p[1 + 2 * k][1] = rank_y(v->rank);
		p[2 + 2 * k][1] = rank_y(v->rank) + BOX_H;
	}
	p[np - 1][0] = e->in_x;
	p[np - 1][1] = rank_y(g->n[e->down].rank);
	if (e->back)	/* reversed, the same curves */
		for (size_t i = 0; i < np / 2; i++) {
			double t0 = p[i][0], t1 = p[i][1];
			p[i][0] = p[np - 1 - i][0];
			p[i][1] = p[np - 1 - i][1];
			p[np - 1 - i][0] = t0;
			p[np - 1 - i][1] = t1;
		}
	sb_addf(out, "<path d=\"M%.1f,%.1f", p[0][0], p[0][1]);
	for (size_t i = 1; i < np; i++) {
		double mid = (p[i - 1][1] + p[i][1]) / 2;

		sb_addf(out, " C%.1f,%.1f %.1f,%.1f %.1f,%.1f", p[i - 1][0], mid, p[i][0], mid,
			p[i][0], p[i][1]);
	}
	sb_addf(out, "\" fill=\"none\" %s/>\n", call_style(e));
	free(p);
}

/* A call's path and its label: beside the middle of its first step below
 * the up end, in the gap between two ranks; a loop right of its box. */
static void
draw_line(strbuf *out, const layout *g, const gedge *e, const char *cls, double y)
{
	const gnode *u = &g->n[e->up];

	if (e->up == e->down) {
		double x = u->x + u->w;

		sb_addf(out, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" %s/>\n",
			x, y + 5, x + LOOP_W - 6, y - 6, x + LOOP_W - 6, y + BOX_H + 6, x, y + BOX_H - 5,
			call_style(e));
		svg_text(out, x + LOOP_W, y + BOX_H / 2 + 4, "start", cls, e->label);
		return;
	}
	draw_path(out, g, e);
	double x0 = e->out_x, x1 = e->nslots ? centre(&g->n[e->slot0]) : e->in_x;
	svg_text(out, (x0 + x1) / 2 + 4, y + BOX_H + RANK_GAP / 2 + 4, "start", cls, e->label);
}

/* A call, with its names and counts as its tooltip. */
static void
draw_call(strbuf *out, const layout *g, const gedge *e)
{
	const char *cls = e->errors ? "tick edge err" : "tick edge";
	const gnode *u = &g->n[e->up];
	double y = rank_y(u->rank);

	sb_adds(out, "<g class=\"call\"><title>");
	svg_escape(out, g->n[e->from].name);
	sb_adds(out, " \xe2\x86\x92 ");	/* → */
	svg_escape(out, g->n[e->to].name);
	sb_addf(out, ": %llu calls, %llu errors</title>\n", (unsigned long long)e->calls,
		(unsigned long long)e->errors);
	draw_line(out, g, e, cls, y);
	sb_adds(out, "</g>\n");
}

static void
draw_boxes(strbuf *out, const layout *g)
{
	strbuf tip = {0};
	char colour[8];

	for (size_t i = 0; i < g->nreal; i++) {
		const gnode *v = &g->n[i];
		double y = rank_y(v->rank);

		svg_service_colour(v->name, colour);
		sb_clear(&tip);
		sb_addf(&tip, "%s: %zu spans", v->name, v->spans);
		svg_rect(out, v->x, y, v->w, BOX_H, colour, "cp", tip.s);
		svg_text(out, v->x + 8, y + BOX_H / 2 + 4, "start", NULL, v->name);
	}
	sb_free(&tip);
}

void
report_service_graph(report *r, strbuf *out)
{
	layout g = {0};
	double width, height;

	take_calls(&g, r);
	mark_back_calls(&g);
	assign_ranks(&g);
	add_slots(&g);
	width = order_and_place(&g);
	place_ports(&g);
	if (width < 300)
		width = 300;
	height = rank_y(g.nranks) - RANK_GAP + 20;
	svg_begin(out, width, height, "Service graph");
	sb_adds(out, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" "
		"fill=\"#666\"/></marker><marker id=\"arrow-err\" viewBox=\"0 0 10 10\" refX=\"10\" "
		"refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path "
		"d=\"M0,0L10,5L0,10z\" fill=\"#c0392b\"/></marker></defs>\n");
	svg_text(out, MARGIN, 20, "start", "h", "Calls between services");
	for (size_t i = 0; i < g.ne; i++)
		draw_call(out, &g, &g.e[i]);
	draw_boxes(out, &g);
	svg_end(out);
	free(g.n);
	free(g.e);
	strmap_free(&g.names);
	arena_free(&g.mem);
}
