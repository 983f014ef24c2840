/* report_graph.c - the service graph of tr-report, laid out here (graphviz
 * is not a dependency): services in columns by the longest chain of calls
 * from the services requests enter at, calls as arrows with their counts;
 * a call back to an earlier column curves below, dashed. */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "draw/svg.h"

#define BOX_H 24.0
#define ROW_GAP 22.0
#define COL_GAP 90.0
#define MARGIN 16.0
#define HEAD 30.0

/* Columns: the longest chain of calls from the services requests enter
 * at (a service no call reaches is one of those), so that a callee sits
 * right of every caller; a cycle stops growing after as many rounds as
 * there are services, and its back edges are drawn dashed. */
static int
assign_layers(report *r)
{
	int maxlayer = 0, changed = 1;

	for (size_t i = 0; i < r->nsvc; i++)
		r->svc[i].layer = 0;
	for (size_t round = 0; changed && round < r->nsvc; round++) {
		changed = 0;
		for (size_t e = 0; e < r->nedge; e++) {
			svc_node *f = &r->svc[r->edge[e].from], *t = &r->svc[r->edge[e].to];

			if (!t->root && t->layer < f->layer + 1) {
				t->layer = f->layer + 1;
				changed = 1;
			}
		}
	}
	for (size_t i = 0; i < r->nsvc; i++)
		if (r->svc[i].layer > maxlayer)
			maxlayer = r->svc[i].layer;
	return maxlayer;
}

typedef struct box {
	double x, y, w;
} box;

void
report_service_graph(report *r, strbuf *out)
{
	int maxlayer = assign_layers(r);
	int nl = maxlayer + 1;
	double *colw = xcalloc((size_t)nl, sizeof *colw), *colx = xcalloc((size_t)nl + 1, sizeof *colx);
	int *rows = xcalloc((size_t)nl, sizeof *rows), maxrows = 0;
	box *b = xcalloc(r->nsvc ? r->nsvc : 1, sizeof *b);
	size_t *into = xcalloc(r->nsvc ? r->nsvc : 1, sizeof *into);	/* labels drawn at each */
	strbuf tip = {0};
	char colour[8], label[32];
	double width, height;

	for (size_t i = 0; i < r->nsvc; i++) {
		svc_node *s = &r->svc[i];
		double w = svg_text_width(s->name, SVG_FONT_PX) + 16;

		s->row = rows[s->layer]++;
		if (rows[s->layer] > maxrows)
			maxrows = rows[s->layer];
		if (w > colw[s->layer])
			colw[s->layer] = w;
	}
	colx[0] = MARGIN;
	for (int l = 0; l < nl; l++)
		colx[l + 1] = colx[l] + colw[l] + COL_GAP;
	width = colx[nl] - COL_GAP + MARGIN;
	if (width < 300)
		width = 300;
	height = HEAD + maxrows * (BOX_H + ROW_GAP) + 40;
	for (size_t i = 0; i < r->nsvc; i++) {
		svc_node *s = &r->svc[i];

		b[i] = (box){colx[s->layer], HEAD + s->row * (BOX_H + ROW_GAP) + 10, colw[s->layer]};
	}
	svg_begin(out, width, height, "Service graph");
	sb_adds(out, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" "
		"fill=\"#666\"/></marker></defs>\n");
	svg_text(out, MARGIN, 20, "start", "h", "Calls between services");
	for (size_t e = 0; e < r->nedge; e++) {
		const box *f = &b[r->edge[e].from], *t = &b[r->edge[e].to];
		double x1 = f->x + f->w, y1 = f->y + BOX_H / 2, x2 = t->x, y2 = t->y + BOX_H / 2;
		int forward = r->svc[r->edge[e].to].layer > r->svc[r->edge[e].from].layer;

		if (forward)
			sb_addf(out, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
				"stroke=\"#666\" marker-end=\"url(#arrow)\"/>\n", x1, y1, x1 + 40, y1,
				x2 - 40, y2, x2, y2);
		else {	/* back or sideways: from the bottom of one to the bottom of the other */
			x1 = f->x + f->w / 2;
			y1 = f->y + BOX_H;
			x2 = t->x + t->w / 2;
			y2 = t->y + BOX_H;
			sb_addf(out, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
				"stroke=\"#666\" stroke-dasharray=\"4,2\" marker-end=\"url(#arrow)\"/>\n",
				x1, y1, x1, y1 + 30, x2, y2 + 30, x2, y2);
		}
		snprintf(label, sizeof label, "%zu", r->edge[e].calls);
		if (forward)	/* near the callee, one above the other */
			svg_text(out, x2 - 8, y2 - 4 - 11.0 * (double)into[r->edge[e].to]++, "end", "tick", label);
		else
			svg_text(out, (x1 + x2) / 2, (y1 + y2) / 2 + 26, "middle", "tick", label);
	}
	for (size_t i = 0; i < r->nsvc; i++) {
		svg_service_colour(r->svc[i].name, colour);
		sb_clear(&tip);
		sb_addf(&tip, "%s: %zu spans", r->svc[i].name, r->svc[i].spans);
		svg_rect(out, b[i].x, b[i].y, b[i].w, BOX_H, colour, "cp", tip.s);
		svg_text(out, b[i].x + 8, b[i].y + BOX_H / 2 + 4, "start", NULL, r->svc[i].name);
	}
	svg_end(out);
	free(colw);
	free(colx);
	free(rows);
	free(b);
	free(into);
	sb_free(&tip);
}
