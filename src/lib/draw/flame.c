/* flame.c - flame graphs as SVG. Frames are laid out children in name
 * order (as flamegraph.pl does), each as wide as the time spent in it and
 * in everything it called; with a baseline, red where the incident spends
 * more per trace than the baseline did, blue where less. */
#include "draw/flame.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "draw/svg.h"
#include "core/table.h"

#define FRAME_H 17.0
#define HEAD_H 40.0
#define AXIS_H 22.0	/* the time axis under the frames */
#define MIN_PX 0.3	/* narrower frames are not drawn */

typedef struct fnode {
	uint32_t parent, depth;
	const char *service, *operation, *name;	/* name: "service: operation" */
} fnode;

struct flame {
	arena mem;
	strmap names;		/* "service\0operation" -> interned name */
	strmap index;		/* (parent, name pointer) -> node */
	fnode *node;
	size_t nnodes, cap;
	strbuf buf;
};

flame *
flame_new(void)
{
	return xcalloc(1, sizeof(flame));
}

void
flame_free(flame *f)
{
	if (!f)
		return;
	strmap_free(&f->names);
	strmap_free(&f->index);
	free(f->node);
	arena_free(&f->mem);
	sb_free(&f->buf);
	free(f);
}

size_t
flame_nnodes(const flame *f)
{
	return f->nnodes;
}

uint32_t
flame_node_frame(const flame *f, uint32_t n, const char **service, const char **operation)
{
	*service = f->node[n].service;
	*operation = f->node[n].operation;
	return f->node[n].parent;
}

/* The interned "service: operation" of a frame; service and operation
 * point into it. */
static const char *
intern(flame *f, const char *service, const char *operation, const char **svc, const char **op)
{
	size_t ls = sb_set_pair(&f->buf, service, operation) - 1, lo = f->buf.len - ls - 1;
	int added;

	strmap_slot *slot = strmap_put(&f->names, f->buf.s, f->buf.len, &added);
	if (added) {
		/* "service\0operation\0service: operation\0" */
		char *k = arena_alloc(&f->mem, 2 * (ls + lo) + 5);

		memcpy(k, service, ls + 1);
		memcpy(k + ls + 1, operation, lo + 1);
		snprintf(k + ls + lo + 2, ls + lo + 3, "%s: %s", service, operation);
		slot->key = k;
		slot->val = 0;
	}
	*svc = slot->key;
	*op = slot->key + ls + 1;
	return slot->key + ls + lo + 2;
}

uint32_t
flame_node(flame *f, uint32_t parent, const char *service, const char *operation)
{
	const char *svc, *op, *name = intern(f, service, operation, &svc, &op);
	struct { uint32_t parent; const char *name; } key;
	int added;

	memset(&key, 0, sizeof key);
	key.parent = parent;
	key.name = name;
	strmap_slot *slot = strmap_put_copy(&f->index, &f->mem, &key, sizeof key, &added);
	if (added) {
		slot->val = (int64_t)f->nnodes;
		GROW(f->node, f->cap, f->nnodes + 1);
		f->node[f->nnodes++] = (fnode){parent, parent == FLAME_TOP ? 0 : f->node[parent].depth + 1,
					       svc, op, name};
	}
	return (uint32_t)slot->val;
}

/* --- layout --- */

typedef struct placed {
	double *incl, *base_incl;	/* inclusive values per trace */
	double *delta;			/* self value per trace less the baseline's */
	double *x;			/* left edge, in value units */
	double total;			/* the top frames' inclusive sum */
	uint32_t maxdepth;
} placed;

/* Depth, then parent, then name: parents are placed before their children
 * and siblings come in name order. */
typedef struct sortkey {
	uint32_t depth, parent, node;
	const char *name;
} sortkey;

static int
key_cmp(const void *pa, const void *pb)
{
	const sortkey *a = pa, *b = pb;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void
place(placed *P, const flame *f, const flame_view *v)
{
	size_t n = f->nnodes ? f->nnodes : 1;
	sortkey *ord = xmalloc(n * sizeof *ord);
	double *cursor = xcalloc(n, sizeof *cursor), top = 0;

	P->incl = xcalloc(n, sizeof *P->incl);
	P->base_incl = xcalloc(n, sizeof *P->base_incl);
	P->x = xcalloc(n, sizeof *P->x);
	P->delta = xcalloc(n, sizeof *P->delta);
	P->maxdepth = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		P->incl[i] = v->ntraces ? (double)v->value[i] / (double)v->ntraces : 0;
		if (v->base && v->nbase)
			P->base_incl[i] = (double)v->base[i] / (double)v->nbase;
		P->delta[i] = P->incl[i] - P->base_incl[i];
	}
	for (size_t i = f->nnodes; i-- > 0;) {	/* children were made after parents */
		uint32_t p = f->node[i].parent;

		if (p != FLAME_TOP) {
			P->incl[p] += P->incl[i];
			P->base_incl[p] += P->base_incl[i];
		}
	}
	for (size_t i = 0; i < f->nnodes; i++)
		ord[i] = (sortkey){f->node[i].depth, f->node[i].parent, (uint32_t)i, f->node[i].name};
	qsort(ord, f->nnodes, sizeof *ord, key_cmp);
	for (size_t k = 0; k < f->nnodes; k++) {
		uint32_t i = ord[k].node, p = f->node[i].parent;

		if (P->incl[i] <= 0)
			continue;
		if (p == FLAME_TOP) {
			P->x[i] = top;
			top += P->incl[i];
		} else {
			P->x[i] = cursor[p];
			cursor[p] += P->incl[i];
		}
		cursor[i] = P->x[i];
		if (f->node[i].depth > P->maxdepth)
			P->maxdepth = f->node[i].depth;
	}
	P->total = top;
	free(ord);
	free(cursor);
}

static void
placed_free(placed *P)
{
	free(P->incl);
	free(P->base_incl);
	free(P->x);
	free(P->delta);
}

double
flame_height(const flame *f, const flame_view *v)
{
	placed P;
	double h;

	place(&P, f, v);
	h = HEAD_H + (P.total > 0 ? (double)(P.maxdepth + 1) * FRAME_H + AXIS_H : FRAME_H) + 8;
	placed_free(&P);
	return h;
}

/* Red for more than the baseline, blue for less, by the change's share of
 * the largest change; pale when nothing moved. The change is the frame's
 * own (self) time's, so that callers of a slower frame stay pale. */
static void
diff_colour(char out[8], double delta, double scale)
{
	double k = scale > 0 ? fabs(delta) / scale : 0;
	int shade = (int)(235 - 190 * (k > 1 ? 1 : k));

	if (delta > 0)
		snprintf(out, 8, "#ff%02x%02x", shade, shade);
	else if (delta < 0)
		snprintf(out, 8, "#%02x%02xff", shade, shade);
	else
		snprintf(out, 8, "#eeeeee");
}

/* A change in time, signed: "+120 ms", "-3.5 ms", "+0 µs". */
static void
delta_text(char *buf, size_t size, double us)
{
	char d[40];

	svg_duration(d, sizeof d, (int64_t)llround(fabs(us)));
	snprintf(buf, size, "%s%s", us < 0 ? "-" : "+", d);
}

static void
frame_tip(strbuf *tip, const fnode *n, const placed *P, uint32_t i, const flame_view *v)
{
	char a[40], b[40], d[48];

	svg_duration(a, sizeof a, (int64_t)llround(P->incl[i]));
	sb_clear(tip);
	sb_addf(tip, "%s\n%s per trace on the critical path (%.1f%%)", n->name, a,
		P->total > 0 ? 100 * P->incl[i] / P->total : 0);
	if (v->base) {
		svg_duration(b, sizeof b, (int64_t)llround(P->base_incl[i]));
		delta_text(d, sizeof d, P->delta[i]);
		sb_addf(tip, "\nbaseline %s per trace; its own time %s", b, d);
	}
}

/* A frame's label, the most that fits in w px: "name 412 ms +120 ms"
 * (the change only against a baseline), "name +120 ms" (the change
 * matters more than the size the width shows), "name 412 ms", the name,
 * or the name cut; 0 when nothing fits. */
static int
frame_label(strbuf *label, const fnode *n, const placed *P, uint32_t i,
	    const flame_view *v, double w)
{
	char a[40], d[48];

	svg_duration(a, sizeof a, (int64_t)llround(P->incl[i]));
	delta_text(d, sizeof d, P->delta[i]);
	sb_clear(label);
	if (v->base) {
		sb_addf(label, "%s %s %s", n->name, a, d);
		if (svg_text_width(label->s, SVG_FONT_PX) <= w)
			return 1;
		sb_clear(label);
		sb_addf(label, "%s %s", n->name, d);
	} else
		sb_addf(label, "%s %s", n->name, a);
	if (svg_text_width(label->s, SVG_FONT_PX) <= w)
		return 1;
	return svg_fit(label, n->name, w, SVG_FONT_PX);
}

/* Time per trace under the frames (the title says per trace): ticks from
 * 0 to the top frames' total, as wide as the frames. */
static void
time_axis(strbuf *b, const placed *P, double x0, double w, double y)
{
	int64_t total = (int64_t)llround(P->total);
	int64_t step = svg_tick_step(total > 0 ? total : 1, w, 80);
	char tick[40];

	svg_line(b, x0, y, x0 + w, y, "ax");
	for (int64_t t = 0; step > 0 && t <= total; t += step) {
		double x = x0 + w * (double)t / P->total;

		svg_line(b, x, y, x, y + 4, "ax");
		svg_tick_label(tick, sizeof tick, t, step);
		svg_text(b, x, y + 15, t == 0 ? "start" : x > x0 + w - 30 ? "end" : "middle", "tick", tick);
	}
}

void
flame_draw(strbuf *b, const flame *f, const flame_view *v, double width, double y)
{
	placed P;
	strbuf tip = {0}, label = {0}, head = {0};
	double scale, maxdelta = 0, x0 = 10, w = width - 20, bottom;
	char colour[8], dur[40];

	place(&P, f, v);
	svg_duration(dur, sizeof dur, (int64_t)llround(P.total));
	sb_addf(&head, "%s \xc2\xb7 %zu traces \xc2\xb7 %s of critical path per trace", v->title,
		v->ntraces, dur);
	if (v->base)
		sb_addf(&head, " \xc2\xb7 against %zu baseline traces: red more, blue less", v->nbase);
	svg_text(b, x0, y + 18, "start", "h", head.s);
	if (P.total <= 0) {
		svg_text(b, x0, y + HEAD_H + 12, "start", "dim", "no critical-path time in these traces");
		goto out;
	}
	scale = w / P.total;
	bottom = y + HEAD_H + (double)(P.maxdepth + 1) * FRAME_H;
	for (size_t i = 0; i < f->nnodes && v->base; i++) {
		double self_d = fabs(P.delta[i]);
		if (self_d > maxdelta)
			maxdelta = self_d;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		const fnode *n = &f->node[i];
		double fw = P.incl[i] * scale, fx = x0 + P.x[i] * scale;
		double fy = bottom - (double)(n->depth + 1) * FRAME_H;

		if (P.incl[i] <= 0 || fw < MIN_PX)
			continue;
		if (v->base)
			diff_colour(colour, P.delta[i], maxdelta);
		else
			svg_service_colour(n->service, colour);
		frame_tip(&tip, n, &P, (uint32_t)i, v);
		svg_rect(b, fx, fy, fw, FRAME_H - 1, colour, "fr", tip.s);
		if (fw > 24 && frame_label(&label, n, &P, (uint32_t)i, v, fw - 6))
			svg_text(b, fx + 3, fy + FRAME_H - 5, "start", NULL, label.s);
	}
	time_axis(b, &P, x0, w, bottom + 4);
out:
	placed_free(&P);
	sb_free(&tip);
	sb_free(&label);
	sb_free(&head);
}
