/* timeline.c - the waterfall of one trace, Jaeger UI's picture with the
 * critical path in it. Rows follow the span tree depth first, children in
 * start order; a subtree holding no more than min_share of the critical
 * path folds into its top span's row ("+N"), so that a trace of a thousand
 * spans stays a picture of what mattered. Explicit stacks: traces are deep. */
#include "draw/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "draw/svg.h"

#define ROW_H 16.0
#define BAR_H 11.0
#define TOP 72.0
#define INDENT 8.0
#define MAX_INDENT_LEVELS 12

/* Where each span is drawn: rows in tree order, and the row of every span
 * (a folded span: its nearest drawn ancestor's). */
typedef struct layout {
	int32_t *rows;		/* drawn spans, in row order */
	size_t nrows;
	int32_t *row_of;	/* per span */
	int32_t *fold_into;	/* per span: the row its descendants fold into, or -1 */
	size_t *folded;		/* per row: descendants folded into it */
	int64_t *below;		/* per span: critical-path µs of its descendants */
	size_t nfolded;
} layout;

/* Critical-path time under each span; c->order has parents first, so
 * walking it backwards adds children before their parents are added. */
static void
sum_below(layout *L, const tr_trace *t, const cp_trace *c)
{
	memset(L->below, 0, t->nspans * sizeof *L->below);
	for (size_t k = c->norder; k-- > 0;) {
		int32_t s = c->order[k], p = t->spans[s].parent;

		if (p >= 0)
			L->below[p] += L->below[s] + c->self[s];
	}
}

/* Depth first from every root, children in start order (the span list's). */
static void
lay_out(layout *L, const tr_trace *t, const cp_trace *c, double min_share)
{
	int32_t *stack = xmalloc((t->nspans + 1) * sizeof *stack);
	int32_t *kids = xmalloc((t->nspans + 1) * sizeof *kids);
	double limit = min_share * (double)c->path_length;
	size_t top = 0;

	for (size_t r = t->nroots; r-- > 0;)
		stack[top++] = t->roots[r];
	while (top) {
		int32_t s = stack[--top], p = t->spans[s].parent, nk = 0;

		for (int32_t k = t->spans[s].first_child; k >= 0; k = t->spans[k].next_sibling)
			kids[nk++] = k;
		if (p >= 0 && L->fold_into[p] >= 0) {
			L->row_of[s] = L->fold_into[s] = L->fold_into[p];
			L->folded[L->row_of[s]]++;
			L->nfolded++;
		} else {
			L->row_of[s] = (int32_t)L->nrows;
			L->folded[L->nrows] = 0;
			L->rows[L->nrows++] = s;
			L->fold_into[s] = nk > 0 && (double)L->below[s] <= limit ? L->row_of[s] : -1;
		}
		while (nk-- > 0)
			stack[top++] = kids[nk];
	}
	free(stack);
	free(kids);
}

/* The time window drawn: every timed span's, so that skewed children show. */
void
timeline_time_range(const tr_trace *t, int64_t *lo, int64_t *hi)
{
	int any = 0;

	*lo = *hi = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;
		if (!any || s->start < *lo)
			*lo = s->start;
		if (!any || tr_span_end(s) > *hi)
			*hi = tr_span_end(s);
		any = 1;
	}
	if (*hi <= *lo)
		*hi = *lo + 1;
}

typedef struct frame {
	double x0, x1, label_w;		/* chart from x0 to x1; labels left of it */
	int64_t lo, hi;
} frame;

static double
xpos(const frame *F, int64_t t)
{
	return F->x0 + (double)(t - F->lo) / (double)(F->hi - F->lo) * (F->x1 - F->x0);
}

static void
draw_axis(strbuf *b, const frame *F, double bottom)
{
	int64_t step = svg_tick_step(F->hi - F->lo, F->x1 - F->x0, 70);
	char buf[40];

	svg_line(b, F->x0, TOP - 8, F->x1, TOP - 8, "ax");
	for (int64_t v = 0; v <= F->hi - F->lo; v += step) {
		double x = xpos(F, F->lo + v);

		svg_line(b, x, TOP - 8, x, bottom, "grid");
		svg_tick_label(buf, sizeof buf, v, step);
		svg_text(b, x, TOP - 12, v ? "middle" : "start", "tick", buf);
	}
}

static void
draw_label(strbuf *b, strbuf *tmp, const frame *F, const tr_span *s, size_t folded, double y,
	   int failed)
{
	uint32_t depth = s->depth < MAX_INDENT_LEVELS ? s->depth : MAX_INDENT_LEVELS;
	double x = 6 + depth * INDENT;
	strbuf text = {0};

	sb_addf(&text, "%s%s: %s", failed ? "\xe2\x9c\x97 " : "", s->service, s->operation);
	if (folded)
		sb_addf(&text, " (+%zu)", folded);
	if (svg_fit(tmp, text.s, F->label_w - x, SVG_FONT_PX))
		svg_text(b, x, y + BAR_H - 1.5, "start", folded ? "dim" : NULL, tmp->s);
	sb_free(&text);
}

/* The share of the critical path a span holds, right of its bar, or left
 * of it when the right has no room. Returns where the row is free again
 * right of the bar (and of the share, when written there). */
static double
draw_share(strbuf *b, const frame *F, const cp_trace *c, int32_t s, double bx0, double bx1,
	   double y, double width)
{
	char dur[40], text[64];
	double pct = c->path_length ? 100.0 * (double)c->self[s] / (double)c->path_length : 0;

	svg_duration(dur, sizeof dur, c->self[s]);
	snprintf(text, sizeof text, pct >= 9.95 ? "%.0f%% \xc2\xb7 %s" : "%.1f%% \xc2\xb7 %s", pct, dur);
	if (bx1 + 4 + svg_text_width(text, SVG_FONT_PX) <= width) {
		svg_text(b, bx1 + 4, y + BAR_H - 1.5, "start", "share", text);
		return bx1 + 4 + svg_text_width(text, SVG_FONT_PX);
	}
	if (bx0 - 4 - svg_text_width(text, SVG_FONT_PX) >= F->x0)
		svg_text(b, bx0 - 4, y + BAR_H - 1.5, "end", "share", text);
	else {	/* inside the bar, at its end: the row is taken up to there */
		svg_text(b, bx1 - 2, y + BAR_H - 1.5, "end", "share", text);
		return width;
	}
	return bx1;
}

#define MIN_MESSAGE_PX 80	/* less room than this: the message goes in the bar */
#define SHARE_PX 100		/* room kept for a share written at a bar's end */

/* A failed span's message right of its bar (and share) from x, or at the
 * start of a bar that fills the row, cut to the room there; none when
 * there is too little. */
static void
draw_failure(strbuf *b, strbuf *tmp, const tr_failure *f, double x, double bx0, double bx1,
	     double y, double width)
{
	strbuf text = {0};
	double room = width - x - 6;

	if (room < MIN_MESSAGE_PX) {	/* in the bar, left of a share drawn at its end */
		room = bx1 - bx0 - 8 - (x >= width ? SHARE_PX : 0);
		x = bx0 - 2;
	}
	sb_adds(&text, "ERROR ");
	tr_failure_text(f, 0, &text);
	if (room >= MIN_MESSAGE_PX && svg_fit(tmp, text.s, room, SVG_FONT_PX))
		svg_text(b, x + 6, y + BAR_H - 1.5, "start", NULL, tmp->s);
	sb_free(&text);
}

/* over: what is drawn over the critical sections (a failed span's message). */
static void
draw_row(strbuf *b, strbuf *over, strbuf *tmp, const frame *F, const tr_trace *t, const cp_trace *c,
	 const layout *L, size_t row, double width)
{
	int32_t s = L->rows[row];
	const tr_span *sp = &t->spans[s];
	double y = TOP + (double)row * ROW_H + (ROW_H - BAR_H) / 2;
	char colour[8], dur[40];
	strbuf tip = {0};
	tr_failure f;
	int failed = tr_span_error(t, s, &f);

	if (row % 2)
		svg_rect(b, 0, TOP + (double)row * ROW_H, width, ROW_H, "#f7f7f7", NULL, NULL);
	draw_label(b, tmp, F, sp, L->folded[row], y, failed);
	if (!(sp->flags & TR_SPAN_HAS_TIME))
		return;
	double bx0 = xpos(F, sp->start), bx1 = xpos(F, tr_span_end(sp));

	if (bx1 - bx0 < 1)
		bx1 = bx0 + 1;
	svg_service_colour(sp->service, colour);
	svg_duration(dur, sizeof dur, sp->duration);
	sb_addf(&tip, "%s: %s\n%s", sp->service, sp->operation, dur);
	if (c->state[s] == CP_PATH) {
		svg_duration(dur, sizeof dur, c->self[s]);
		sb_addf(&tip, ", %s on the critical path", dur);
	} else if (c->state[s] == CP_OFF)
		sb_adds(&tip, ", not analysed (no time, async or outside its parent)");
	if (L->folded[row])
		sb_addf(&tip, "\n%zu spans below, off the critical path or under --min-share, folded",
			L->folded[row]);
	if (failed) {
		sb_adds(&tip, "\nERROR ");
		tr_failure_text(&f, 1, &tip);
		svg_failed_outline(b, bx0, y, bx1 - bx0, BAR_H);
	}
	svg_rect(b, bx0, y, bx1 - bx0, BAR_H, c->state[s] == CP_OFF ? NULL : colour,
		 c->state[s] == CP_OFF ? "na" : "off", tip.s);
	double free_x = bx1;

	if (c->state[s] == CP_PATH && c->self[s] > 0)
		free_x = draw_share(b, F, c, s, bx0, bx1, y, width);
	if (failed)
		draw_failure(over, tmp, &f, free_x, bx0, bx1, y, width);
	sb_free(&tip);
}

/* Critical sections solid over the pale bars: each on its span's row. */
static void
draw_sections(strbuf *b, const frame *F, const tr_trace *t, const cp_trace *c, const layout *L)
{
	char colour[8];

	for (size_t i = 0; i < c->nsec; i++) {
		const cp_section *sec = &c->sec[i];
		int32_t row = L->row_of[sec->span];
		double x0 = xpos(F, sec->start), x1 = xpos(F, sec->end);

		if (row < 0)
			continue;
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		svg_service_colour(t->spans[sec->span].service, colour);
		svg_rect(b, x0, TOP + (double)row * ROW_H + (ROW_H - BAR_H) / 2, x1 - x0, BAR_H,
			 colour, "cp", NULL);
	}
}

/* One swatch per service, in first-drawn order, wrapped to the width. */
static double
draw_legend(strbuf *b, const tr_trace *t, const layout *L, double y, double width, int draw)
{
	strmap seen = {0};
	double x = 6;

	for (size_t r = 0; r < L->nrows; r++) {
		const char *svc = t->spans[L->rows[r]].service;
		char colour[8];
		int added;
		double w = svg_text_width(svc, SVG_FONT_PX) + 24;

		strmap_put(&seen, svc, strlen(svc), &added)->key = svc;
		if (!added)
			continue;
		if (x + w > width && x > 6) {
			x = 6;
			y += ROW_H;
		}
		if (draw) {
			svg_service_colour(svc, colour);
			svg_rect(b, x, y, 12, BAR_H, colour, "cp", NULL);
			svg_text(b, x + 16, y + BAR_H - 1.5, "start", NULL, svc);
		}
		x += w;
	}
	strmap_free(&seen);
	return y + ROW_H;
}

size_t
timeline_svg(strbuf *b, const tr_trace *t, const cp_trace *c, const timeline_opts *o)
{
	double width = o->width > 0 ? o->width : 1000;
	size_t n = t->nspans ? t->nspans : 1;
	layout L = {0};
	frame F;
	strbuf tmp = {0}, title = {0}, over = {0};
	char dur[40];

	L.rows = xmalloc(n * sizeof *L.rows);
	L.row_of = xmalloc(n * sizeof *L.row_of);
	L.fold_into = xmalloc(n * sizeof *L.fold_into);
	L.folded = xmalloc(n * sizeof *L.folded);
	L.below = xmalloc(n * sizeof *L.below);
	for (size_t i = 0; i < n; i++)
		L.row_of[i] = -1;
	sum_below(&L, t, c);
	lay_out(&L, t, c, o->min_share);
	timeline_time_range(t, &F.lo, &F.hi);
	if (o->hi > o->lo) {
		F.lo = o->lo;
		F.hi = o->hi;
	}
	F.label_w = width * 0.3 < 320 ? width * 0.3 : 320;
	F.x0 = F.label_w + 8;
	F.x1 = width - 110;	/* room for the share of a span that ends last */

	double rows_end = TOP + (double)L.nrows * ROW_H;
	double height = draw_legend(b, t, &L, rows_end + 10, width, 0) + 6;
	const tr_span *root = c->root >= 0 ? &t->spans[c->root] : t->nspans ? &t->spans[0] : NULL;

	svg_duration(dur, sizeof dur, c->root >= 0 ? c->root_duration : F.hi - F.lo);
	sb_addf(&title, "trace %s \xc2\xb7 %s: %s \xc2\xb7 %s", t->trace_id,
		root ? root->service : "", root ? root->operation : "", dur);
	svg_begin(b, width, height, title.s);
	/* long names cut to the width (the <title> keeps them whole); bold
	 * 14 px runs about a tenth wider than the estimate's plain text */
	svg_fit(&tmp, title.s, (width - 12) / 1.1, 14);
	svg_text(b, 6, 20, "start", "h", tmp.s);
	sb_clear(&tmp);
	svg_duration(dur, sizeof dur, c->path_length);
	sb_addf(&tmp, "%zu spans, %zu on the critical path (solid, its share of %s beside each); "
		"%zu folded into the row above them", t->nspans, c->npath, dur, L.nfolded);
	svg_text(b, 6, 38, "start", "sub", tmp.s);
	draw_axis(b, &F, rows_end);
	for (size_t r = 0; r < L.nrows; r++)
		draw_row(b, &over, &tmp, &F, t, c, &L, r, width);
	draw_sections(b, &F, t, c, &L);
	sb_add(b, over.s, over.len);
	draw_legend(b, t, &L, rows_end + 10, width, 1);
	svg_end(b);

	size_t nfolded = L.nfolded;
	free(L.rows);
	free(L.row_of);
	free(L.fold_into);
	free(L.folded);
	free(L.below);
	sb_free(&tmp);
	sb_free(&title);
	sb_free(&over);
	return nfolded;
}
