/* pag_summary.c - SnailTrail's four summaries of a whole PAG for pictures:
 * critical participation by activity type, worker, operation and channel
 * in every window and over the whole input, restricted to the activities
 * a filter keeps; drawn as a DOT graph of workers and channels weighted by
 * CP, or as SVG time series of each summary over the windows. */
#include "pag/pag.h"
#include "draw/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/table.h"
#include "draw/dot.h"

static const char *const summary_titles[PAG_NSUMMARIES] = {
	"activity type", "worker (stragglers)", "operation (per worker)", "communication"
};

/* ---- accumulating ---- */

typedef struct acc {
	const pag_filter *f;
	pag_summary *out;
	double *cp;		/* CP of the window's snapshot edges */
	size_t capcp;
	double *win[PAG_NSUMMARIES];	/* this window's CP per key */
	uint32_t *touched;	/* keys (summary << 28 | key) this window wrote */
	size_t ntouched, captouched;
	strmap pairs;		/* this window's (op, worker) pairs: the operator summary */
	uint32_t *opworkers;	/* per op: its workers in this window */
	arena mem;
} acc;

static uint32_t
channel_id(pag_summary *s, uint32_t src, uint32_t dst)
{
	uint32_t pair[2] = {src, dst};
	int added;
	strmap_slot *sl = strmap_intern(&s->channel_ids, &s->mem, pair, sizeof pair, &added);

	if (added) {
		GROW(s->channels, s->capchannels, s->nchannels + 1);
		s->channels[s->nchannels][0] = src;
		s->channels[s->nchannels++][1] = dst;
	}
	return (uint32_t)sl->val;
}

static size_t
nkeys(const pag_summary *s, int sum)
{
	return sum == PAG_SUM_ACTIVITY ? PAG_NTYPES : sum == PAG_SUM_WORKER ? s->nworkers :
	       sum == PAG_SUM_OPERATION ? s->nops : s->nchannels;
}

static void
add_key(acc *a, int sum, uint32_t key, double cp, int64_t time)
{
	pag_summary *s = a->out;

	if (key >= s->cap[sum]) {	/* channels appear as they come */
		size_t cap = s->cap[sum] ? s->cap[sum] : 16;

		while (cap <= key)
			cap *= 2;
		s->total[sum] = xrealloc(s->total[sum], cap * sizeof *s->total[sum]);
		s->time[sum] = xrealloc(s->time[sum], cap * sizeof *s->time[sum]);
		a->win[sum] = xrealloc(a->win[sum], cap * sizeof *a->win[sum]);
		for (size_t i = s->cap[sum]; i < cap; i++) {
			s->total[sum][i] = 0;
			s->time[sum][i] = 0;
			a->win[sum][i] = -1;
		}
		s->cap[sum] = cap;
	}
	if (a->win[sum][key] < 0) {
		a->win[sum][key] = 0;
		GROW(a->touched, a->captouched, a->ntouched + 1);
		a->touched[a->ntouched++] = (uint32_t)sum << 28 | key;
	}
	a->win[sum][key] += cp;
	s->time[sum][key] = i64_add_sat(s->time[sum][key], time);
}

/* Count op's worker once per window: the operator summary's divisor. */
static void
note_op_worker(acc *a, uint32_t op, uint32_t worker)
{
	uint32_t pair[2] = {op, worker};
	int added;

	strmap_put_copy(&a->pairs, &a->mem, pair, sizeof pair, &added);
	if (added)
		a->opworkers[op]++;
}

static void
summary_window(void *ctx, const pag_graph *g, const pag_snap *sn)
{
	acc *a = ctx;
	pag_summary *s = a->out;
	pag_count n;
	int64_t ts = g->window > 0 ? sn->ts : sn->tmin, te = g->window > 0 ? sn->te : sn->tmax;
	double len = (double)(te - ts);
	uint32_t w = (uint32_t)s->nwindows;

	GROW(a->cp, a->capcp, sn->nedges);
	pag_snap_cp(g, sn, a->cp, &n);
	for (size_t i = 0; i < sn->nedges; i++) {
		const pag_edge *e = &g->edges[sn->edge[i]];
		uint32_t src = g->lanes[sn->vlane[sn->src[i]]].worker;
		uint32_t dst = g->lanes[sn->vlane[sn->dst[i]]].worker;
		int64_t dur = sn->t1[i] - sn->t0[i];

		if (!pag_edge_passes(g, a->f, e))
			continue;
		add_key(a, PAG_SUM_ACTIVITY, e->type, a->cp[i], dur);
		if (pag_type_is_comm(e->type)) {
			add_key(a, PAG_SUM_CHANNEL, channel_id(s, src, dst), a->cp[i], dur);
			continue;
		}
		/* a worker's conventional time is its busy time, not its lifetime */
		add_key(a, PAG_SUM_WORKER, src, a->cp[i],
			e->type == PAG_PROCESSING || e->type == PAG_IO ? dur : 0);
		if (e->type == PAG_PROCESSING || e->type == PAG_IO) {
			note_op_worker(a, e->op, src);
			add_key(a, PAG_SUM_OPERATION, e->op, a->cp[i], dur);
		}
	}
	if (!a->ntouched)
		return;
	GROW(s->windows, s->capwindows, s->nwindows + 1);
	s->windows[s->nwindows++] = (pag_window_range){ts, te};
	s->len += len;
	for (size_t k = 0; k < a->ntouched; k++) {
		int sum = (int)(a->touched[k] >> 28);
		uint32_t key = a->touched[k] & 0x0fffffff;
		double cp = a->win[sum][key];

		if (sum == PAG_SUM_OPERATION && a->opworkers[key] > 1)
			cp /= a->opworkers[key];	/* SnailTrail 4.2 */
		s->total[sum][key] += cp * len;
		GROW(s->samples, s->capsamples, s->nsamples + 1);
		s->samples[s->nsamples++] = (pag_sample){w, (uint8_t)sum, key, cp};
		a->win[sum][key] = -1;
		if (sum == PAG_SUM_OPERATION)
			a->opworkers[key] = 0;
	}
	a->ntouched = 0;
	strmap_clear(&a->pairs);
	arena_reset(&a->mem);
}

void
pag_summarise(const pag_graph *g, const pag_filter *f, pag_summary *s)
{
	acc a = {.f = f, .out = s};

	memset(s, 0, sizeof *s);
	s->nworkers = g->nworkers;
	s->nops = g->nops;
	a.opworkers = xcalloc(g->nops ? g->nops : 1, sizeof *a.opworkers);
	pag_windows(g, summary_window, &a);
	for (int sum = 0; sum < PAG_NSUMMARIES; sum++) {
		for (size_t k = 0; s->len > 0 && k < s->cap[sum]; k++)
			s->total[sum][k] /= s->len;
		free(a.win[sum]);
	}
	free(a.cp);
	free(a.touched);
	free(a.opworkers);
	strmap_free(&a.pairs);
	arena_free(&a.mem);
}

void
pag_summary_free(pag_summary *s)
{
	for (int sum = 0; sum < PAG_NSUMMARIES; sum++) {
		free(s->total[sum]);
		free(s->time[sum]);
	}
	free(s->windows);
	free(s->samples);
	free(s->channels);
	strmap_free(&s->channel_ids);
	arena_free(&s->mem);
	memset(s, 0, sizeof *s);
}

/* ---- ranking ---- */

typedef struct ranked {
	double cp;
	uint32_t key;
} ranked;

static int
by_cp(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;

	if (a->cp != b->cp)
		return a->cp > b->cp ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* The keys of summary sum that have activities, highest CP first, at most
 * top (0: all); returns how many. */
static size_t
top_keys(const pag_summary *s, int sum, size_t top, uint32_t *out)
{
	size_t n = 0;
	ranked *r = xmalloc((s->cap[sum] ? s->cap[sum] : 1) * sizeof *r);

	for (size_t k = 0; k < s->cap[sum] && k < nkeys(s, sum); k++)
		if (s->time[sum][k] > 0 || s->total[sum][k] > 0)
			r[n++] = (ranked){s->total[sum][k], (uint32_t)k};
	qsort(r, n, sizeof *r, by_cp);
	if (top && n > top)
		n = top;
	for (size_t i = 0; i < n; i++)
		out[i] = r[i].key;
	free(r);
	return n;
}

static void
key_name(const pag_graph *g, const pag_summary *s, int sum, uint32_t key, strbuf *b)
{
	sb_clear(b);
	switch (sum) {
	case PAG_SUM_ACTIVITY:
		sb_adds(b, pag_type_name((int)key));
		break;
	case PAG_SUM_WORKER:
		sb_adds(b, g->workers[key]);
		break;
	case PAG_SUM_OPERATION:
		sb_adds(b, g->ops[key].service);
		sb_addc(b, ' ');
		sb_adds(b, g->ops[key].operation);
		break;
	default:
		sb_adds(b, g->workers[s->channels[key][0]]);
		sb_adds(b, " -> ");
		sb_adds(b, g->workers[s->channels[key][1]]);
		break;
	}
}

/* ---- DOT: workers and channels weighted by CP ---- */

static void
fmt_duration(char *buf, size_t size, int64_t us)
{
	if (us >= 1000000)
		snprintf(buf, size, "%.3g s", (double)us / 1e6);
	else if (us >= 1000)
		snprintf(buf, size, "%.3g ms", (double)us / 1e3);
	else
		snprintf(buf, size, "%lld us", (long long)us);
}

/* A DOT picture's duration in units, with its unit (auto writes its own). */
static void
dot_dur(char *buf, size_t size, int64_t us, int units)
{
	char d[24];

	table_duration(d, sizeof d, us, units);
	snprintf(buf, size, "%s%s", d, units == TABLE_AUTO ? "" : units == TABLE_MS ? " ms" :
		 units == TABLE_S ? " s" : " \xc2\xb5s");
}

void
pag_write_summary_dot(const pag_graph *g, const pag_summary *s, size_t top, tr_output *o, int units)
{
	uint32_t *keep = xmalloc((s->cap[PAG_SUM_WORKER] ? s->cap[PAG_SUM_WORKER] : 1) * sizeof *keep);
	uint8_t *kept = xcalloc(g->nworkers ? g->nworkers : 1, 1);
	size_t n = top_keys(s, PAG_SUM_WORKER, top, keep);
	double max = 0;
	strbuf out = {0}, attrs = {0};
	char id[32], id2[32], label[512], d[40];

	for (size_t c = 0; c < s->nchannels && c < s->cap[PAG_SUM_CHANNEL]; c++)
		if (s->total[PAG_SUM_CHANNEL][c] > max)
			max = s->total[PAG_SUM_CHANNEL][c];
	for (size_t i = 0; i < n; i++)
		if (s->total[PAG_SUM_WORKER][keep[i]] > max)
			max = s->total[PAG_SUM_WORKER][keep[i]];
	dot_begin(&out, "critical participation", "LR");
	sb_addf(&out, "  label=\"critical participation (CP) over %zu window%s; conventional "
		"profiling: time\";\n", s->nwindows, s->nwindows == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		uint32_t w = keep[i];
		double cp = s->total[PAG_SUM_WORKER][w];
		int shade = max > 0 ? (int)(255 - 155 * cp / max) : 255;

		kept[w] = 1;
		dot_dur(d, sizeof d, s->time[PAG_SUM_WORKER][w], units);
		snprintf(id, sizeof id, "w%u", w);
		snprintf(label, sizeof label, "%s\nCP %.3g\ntime %s", g->workers[w], cp, d);
		sb_clear(&attrs);
		sb_addf(&attrs, "style=filled, fillcolor=\"#ff%02x%02x\", penwidth=%.2f",
			shade, shade, 1 + (max > 0 ? 4 * cp / max : 0));
		dot_node(&out, id, label, attrs.s);
	}
	for (size_t c = 0; c < s->nchannels && c < s->cap[PAG_SUM_CHANNEL]; c++) {
		uint32_t src = s->channels[c][0], dst = s->channels[c][1];
		double cp = s->total[PAG_SUM_CHANNEL][c];

		if (!kept[src] || !kept[dst] || src == dst)
			continue;
		dot_dur(d, sizeof d, s->time[PAG_SUM_CHANNEL][c], units);
		snprintf(id, sizeof id, "w%u", src);
		snprintf(id2, sizeof id2, "w%u", dst);
		snprintf(label, sizeof label, "CP %.3g\n%s", cp, d);
		sb_clear(&attrs);
		sb_addf(&attrs, "penwidth=%.2f%s", 1 + (max > 0 ? 6 * cp / max : 0),
			cp > max / 100 ? ", color=\"#c00000\"" : ", color=gray");
		dot_edge(&out, id, id2, label, attrs.s);
	}
	dot_end(&out);
	tr_output_sb(o, &out);
	sb_free(&out);
	sb_free(&attrs);
	free(keep);
	free(kept);
}

/* ---- SVG: each summary over the windows ---- */

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf"
};
#define NPALETTE (sizeof palette / sizeof palette[0])

enum { SVG_W = 1100, PANEL_H = 180, PLOT_X = 60, PLOT_W = 520, LEGEND_X = 600, TOP = 40 };

static double
x_of(const pag_summary *s, size_t w)
{
	int64_t t0 = s->windows[0].ts, t1 = s->windows[s->nwindows - 1].te;
	double mid = ((double)s->windows[w].ts + (double)s->windows[w].te) / 2;

	return PLOT_X + (t1 > t0 ? (mid - (double)t0) / (double)(t1 - t0) : 0.5) * PLOT_W;
}

static void
svg_panel(strbuf *b, const pag_graph *g, const pag_summary *s, int sum, size_t top, double *series)
{
	uint32_t keys[NPALETTE];
	size_t n = top_keys(s, sum, top && top < NPALETTE ? top : NPALETTE, keys);
	double y0 = TOP + sum * (PANEL_H + 30);
	strbuf name = {0};
	char d[32];

	sb_addf(b, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">", PLOT_X, y0 - 8);
	svg_escape(b, summary_titles[sum]);
	sb_adds(b, "</text>\n");
	sb_addf(b, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
		PLOT_X, y0, PLOT_W, PANEL_H);
	fmt_duration(d, sizeof d, s->windows[s->nwindows - 1].te - s->windows[0].ts);
	sb_addf(b, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\">+0</text>\n"
		"<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">+%s</text>\n",
		PLOT_X, y0 + PANEL_H + 12, PLOT_X + PLOT_W, y0 + PANEL_H + 12, d);
	for (int tick = 0; tick <= 4; tick++)
		sb_addf(b, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" font-size=\"10\">%.2f</text>\n",
			PLOT_X - 4, y0 + PANEL_H - tick * PANEL_H / 4.0 + 3, tick / 4.0);
	for (size_t i = 0; i < n; i++) {
		for (size_t w = 0; w < s->nwindows; w++)
			series[w] = 0;
		for (size_t j = 0; j < s->nsamples; j++)
			if (s->samples[j].summary == sum && s->samples[j].key == keys[i])
				series[s->samples[j].window] = s->samples[j].cp;
		sb_addf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			palette[i]);
		for (size_t w = 0; w < s->nwindows; w++)
			sb_addf(b, "%s%.1f,%.1f", w ? " " : "", x_of(s, w),
				y0 + PANEL_H - (series[w] > 1 ? 1 : series[w]) * PANEL_H);
		sb_adds(b, "\"/>\n");
		if (s->nwindows == 1)
			sb_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x_of(s, 0),
				y0 + PANEL_H - series[0] * PANEL_H, palette[i]);
		key_name(g, s, sum, keys[i], &name);
		fmt_duration(d, sizeof d, s->time[sum][keys[i]]);
		sb_addf(b, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\" fill=\"%s\">CP %.3f  time %s  ",
			LEGEND_X, y0 + 12 + 16 * (double)i, palette[i], s->total[sum][keys[i]], d);
		svg_escape(b, name.s ? name.s : "");
		sb_adds(b, "</text>\n");
	}
	sb_free(&name);
}

void
pag_write_summary_svg(const pag_graph *g, const pag_summary *s, size_t top, tr_output *o)
{
	strbuf b = {0};
	double *series = xmalloc((s->nwindows ? s->nwindows : 1) * sizeof *series);
	int height = TOP + PAG_NSUMMARIES * (PANEL_H + 30) + 20;
	char d[32];

	sb_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	svg_begin(&b, SVG_W, height, "tr-pag: critical participation per window");
	if (s->nwindows) {
		fmt_duration(d, sizeof d, s->windows[s->nwindows - 1].te - s->windows[0].ts);
		sb_addf(&b, "<text x=\"%d\" y=\"20\" font-size=\"14\">Critical participation per window "
			"(%zu window%s over %s from %lld us); legend: CP over all, conventional "
			"profiling time</text>\n", PLOT_X, s->nwindows, s->nwindows == 1 ? "" : "s", d,
			(long long)s->windows[0].ts);
		for (int sum = 0; sum < PAG_NSUMMARIES; sum++)
			svg_panel(&b, g, s, sum, top, series);
	}
	svg_end(&b);
	tr_output_sb(o, &b);
	sb_free(&b);
	free(series);
}
