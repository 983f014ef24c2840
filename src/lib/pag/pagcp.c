/* pagcp.c - critical participation over the PAG records tr-pag writes:
 * per window, CP of every activity (pag_snap_cp) summed into SnailTrail's
 * four summaries: by activity type, by worker (stragglers), by service and
 * operation, by worker pair (communication). */
#include "pag/pagcp.h"
#include "core/table.h"

#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/json.h"
#include "core/partial.h"
#include "core/shard.h"
#include "pag/pag.h"


/* Summaries in the order they are written. */
enum { SUM_WINDOW, SUM_ACTIVITY, SUM_WORKER, SUM_OPERATION, SUM_CHANNEL, SUM_N };
/* Rows over the whole input take summary + SUM_N. */
static const char *const summary_names[2 * SUM_N] = {
	"window", "activity", "worker", "operation", "channel",
	"total.window", "total.activity", "total.worker", "total.operation", "total.channel"
};

typedef struct row {
	int summary;
	const char *key, *detail;
	double cp;
	int64_t time;
	size_t edges, workers;
	uint32_t last_worker;	/* of its last edge: that pair is counted */
} row;

/* The summaries over the whole input: every window's rows, their CP
 * weighted by the window's length, durations and edges summed, workers
 * counted once. */
typedef struct totals {
	arena mem;
	strmap ids;		/* summary+key+detail -> row */
	row *rows;		/* cp: sum of CP * window length, until the end */
	size_t nrows, caprows;
	u64map pairs;		/* (row, worker) pairs seen */
	strbuf key;		/* scratch */
	int64_t ts, te;		/* the first window's start, the last one's end */
	double len;		/* the windows' lengths, summed */
	size_t nwin;
} totals;

typedef struct report {
	pag_cp *p;
	totals all;
	tr_output *out;
	strbuf line, key;
	arena mem;		/* keys of one window */
	strmap ids;		/* summary+key+detail -> row */
	row *rows;
	size_t nrows, caprows;
	u64map pairs;		/* (row, worker) pairs seen: a row's distinct workers */
	u64map channels;	/* (source, destination worker) -> its row, this window */
	uint32_t *seen;		/* per worker: last window (1-based) it was counted in */
	size_t capseen;
	size_t nworkers_ever;	/* workers seen in any window */
	uint32_t nwindow;
	uint64_t own_records;	/* tr-pag --own: the partial's records so far */
	size_t own_skipped;	/* and the windows of its halo left out */
	double *cp;
	size_t capcp;
	/* The window's row of each activity type, worker and operation, so
	 * that most edges find their rows without building and hashing keys:
	 * valid while its stamp is the window's number. */
	struct row_cache {
		uint32_t *row, *stamp;
		size_t cap;
	} by_type, by_worker, by_op;
} report;

/* Window by window (the input has PM marks): each window is computed once
 * the mark after it arrives, its rows wait in r.line for pag_cp_take, and
 * the graph forgets what no later window needs. Without marks, everything
 * waits for pag_cp_report. */
struct pag_cp {
	pag_cp_opts o;
	pag_graph g;
	int fed;
	int header_done;
	size_t cycles;
	size_t timeless;	/* windows whose activities last no time */
	report r;
	int streaming;		/* windows up to done were computed */
	int too_many;		/* an open-ended graph went past max_windows */
	int64_t done;
};

int
pag_cp_is_record(const char *line, size_t len)
{
	return pag_is_record(line, len);
}

pag_cp *
pag_cp_new(const pag_cp_opts *o)
{
	pag_cp *p = xcalloc(1, sizeof *p);

	if (o)
		p->o = *o;
	if (!p->o.format)
		p->o.format = "tsv";
	if (!p->o.max_windows)
		p->o.max_windows = PAG_MAX_WINDOWS;
	pag_graph_init(&p->g);
	p->g.skip_spanrefs = 1;	/* the summaries name workers and operations only */
	pag_graph_stream(&p->g);
	p->r.p = p;
	return p;
}

static void cp_window(void *ctx, const pag_graph *g, const pag_snap *s);

/* Would the windows from `from` to `to` (INT64_MAX: the end of the edges
 * held), over the edges held, take the report past --max-windows? A
 * header's time range says nothing of edges written past it by hand, and
 * one edge across a million windows is a million windows to compute. */
static int
past_max_windows(const pag_cp *p, int64_t from, int64_t to)
{
	const pag_graph *g = &p->g;
	int64_t lo, hi, n;

	if (g->window <= 0 || g->nedges == 0)
		return 0;
	pag_edge_range(g, &lo, &hi);
	if (from > lo)
		lo = from;
	if (to < hi)
		hi = to;
	if (hi < lo)
		return 0;
	n = (pag_window_start(g, hi) - pag_window_start(g, lo)) / g->window + 1;
	return (uint64_t)n + p->r.nwindow > p->o.max_windows;
}

/* A PM mark: the windows before it are complete. Computed and forgotten,
 * unless the header's time range has more windows than allowed: then
 * everything waits for pag_cp_report, which refuses it as before. */
static void
cp_mark(pag_cp *p)
{
	pag_graph *g = &p->g;
	int64_t mark = g->mark;

	if (g->window <= 0 || !g->has_header || p->too_many)
		return;
	if (g->end_open) {	/* written as its input was read: count as they come */
		int64_t n = (pag_window_start(g, mark) - pag_window_start(g, g->start)) / g->window;

		if ((uint64_t)n > p->o.max_windows) {
			p->too_many = 1;
			return;
		}
		if (!p->streaming)
			p->done = INT64_MIN;
		p->streaming = 1;
	}
	if (!p->streaming) {
		int64_t n;

		if (__builtin_sub_overflow(pag_window_start(g, g->end), pag_window_start(g, g->start), &n) ||
		    n / g->window + 1 > (int64_t)p->o.max_windows)
			return;
		p->streaming = 1;
		p->done = INT64_MIN;
	}
	if (past_max_windows(p, p->done, mark)) {
		p->too_many = 1;
		return;
	}
	pag_windows_between(g, p->done, mark, cp_window, &p->r);
	pag_graph_drop_before(g, mark);
	p->done = mark;
}

int
pag_cp_feed(pag_cp *p, const char *line, size_t len, const char *where)
{
	size_t marks = p->g.nmarks;

	p->fed = 1;
	if (pag_read_record(&p->g, line, len, where) < 0)
		return -1;
	if (p->g.nmarks != marks)
		cp_mark(p);
	return 0;
}

void
pag_cp_take(pag_cp *p, strbuf *out)
{
	if (!p->r.line.len)
		return;
	sb_add(out, p->r.line.s, p->r.line.len);
	sb_clear(&p->r.line);
}

int
pag_cp_has_input(const pag_cp *p)
{
	return p->fed;
}

static void
report_free(report *r)
{
	sb_free(&r->line);
	sb_free(&r->key);
	arena_free(&r->mem);
	strmap_free(&r->ids);
	u64map_free(&r->pairs);
	u64map_free(&r->channels);
	free(r->rows);
	arena_free(&r->all.mem);
	strmap_free(&r->all.ids);
	u64map_free(&r->all.pairs);
	free(r->all.rows);
	sb_free(&r->all.key);
	free(r->seen);
	free(r->cp);
	free(r->by_type.row);
	free(r->by_type.stamp);
	free(r->by_worker.row);
	free(r->by_worker.stamp);
	free(r->by_op.row);
	free(r->by_op.stamp);
}

void
pag_cp_free(pag_cp *p)
{
	if (!p)
		return;
	pag_graph_free(&p->g);
	report_free(&p->r);
	free(p);
}

/* ---- grouping ---- */

static row *
row_get(report *r, int summary, const char *key, const char *detail)
{
	int added;
	strmap_slot *sl;

	sb_clear(&r->key);
	sb_addc(&r->key, (char)('0' + summary));
	sb_adds(&r->key, key);
	sb_addc(&r->key, '\t');
	sb_adds(&r->key, detail);
	sl = strmap_intern(&r->ids, &r->mem, r->key.s, r->key.len, &added);
	if (added) {
		GROW(r->rows, r->caprows, r->nrows + 1);
		r->rows[r->nrows++] = (row){summary, key, detail, 0, 0, 0, 0, PAG_NONE};
	}
	return &r->rows[sl->val];
}

/* The channel row from worker src to dst, found by the pair's numbers. */
static row *
channel_row(report *r, const pag_graph *g, uint32_t src, uint32_t dst)
{
	int added;
	int64_t *at = u64map_put(&r->channels, (uint64_t)src << 32 | dst, &added);

	if (added) {
		row *w = row_get(r, SUM_CHANNEL, g->workers[src], g->workers[dst]);

		*at = w - r->rows;	/* after row_get, which may move the rows */
	}
	return &r->rows[*at];
}

/* row_get through cache c at index i (a type, worker or operation). */
static row *
row_cached(report *r, struct row_cache *c, size_t i, int summary, const char *key,
	   const char *detail)
{
	if (i >= c->cap) {
		size_t cap = c->cap;

		GROW(c->stamp, cap, i + 1);
		c->row = xrealloc(c->row, cap * sizeof *c->row);
		memset(c->stamp + c->cap, 0, (cap - c->cap) * sizeof *c->stamp);
		c->cap = cap;
	}
	if (c->stamp[i] != r->nwindow) {
		row *w = row_get(r, summary, key, detail);

		c->row[i] = (uint32_t)(w - r->rows);	/* after row_get moved them */
		c->stamp[i] = r->nwindow;
	}
	return &r->rows[c->row[i]];
}

static void
add_to_row(report *r, row *w, double cp, int64_t time, uint32_t worker)
{
	int added;

	w->cp += cp;
	w->time = i64_add_sat(w->time, time);	/* many long edges of hand-written records */
	w->edges++;
	if (w->last_worker == worker)	/* most edges of a row are its last one's worker's */
		return;
	w->last_worker = worker;
	u64map_put(&r->pairs, (uint64_t)(w - r->rows) << 32 | worker, &added);
	w->workers += added;
}

/* Rank within a summary: highest CP first, then by name for a stable order. */
static int
by_rank(const void *pa, const void *pb)
{
	const row *a = pa, *b = pb;
	int c;

	if (a->summary != b->summary)
		return a->summary - b->summary;
	if (a->cp != b->cp)
		return a->cp > b->cp ? -1 : 1;
	if ((c = strcmp(a->key, b->key)))
		return c;
	return strcmp(a->detail, b->detail);
}

/* ---- output ---- */

static void
add_text(strbuf *b, const char *fmt, const char *s)
{
	if (strcmp(fmt, "json") == 0)
		tr_json_string(b, s, strlen(s));
	else if (strcmp(fmt, "csv") == 0)
		table_csv_field(b, s, strlen(s));
	else if (strcmp(fmt, "tsv") == 0)
		tr_escapes(b, s, 0);	/* a TAB or LF in a name must not split the row */
	else
		sb_adds(b, s);
}

static const char *const columns[] = {
	"start_us", "end_us", "summary", "key", "detail", "cp", "time_us", "edges", "workers"
};

/* The activities' time is a duration, in the units asked for; the
 * window's bounds are times, in µs. */
static const char *
time_col(const report *r, char *buf, size_t size)
{
	table_dur_col(buf, size, "time_us", r->p->o.units);
	return buf;
}

static void
write_header(report *r)
{
	const char *fmt = r->p->o.format;
	char sep = strcmp(fmt, "csv") == 0 ? ',' : '\t', name[32];

	if (strcmp(fmt, "json") == 0 || !r->p->o.header || r->p->header_done)
		return;
	r->p->header_done = 1;
	for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
		if (i)
			sb_addc(&r->line, sep);
		sb_adds(&r->line, strcmp(columns[i], "time_us") == 0 ?
			time_col(r, name, sizeof name) : columns[i]);
	}
	sb_addc(&r->line, '\n');
}

static void
write_row(report *r, int64_t ts, int64_t te, const row *w)
{
	const char *fmt = r->p->o.format;
	int json = strcmp(fmt, "json") == 0;
	char sep = strcmp(fmt, "csv") == 0 ? ',' : '\t', num[40], time[40], name[32];
	strbuf *b = &r->line;

	snprintf(num, sizeof num, "%.6g", w->cp < 1e-12 && w->cp > -1e-12 ? 0 : w->cp);
	table_duration(time, sizeof time, w->time, r->p->o.units);
	if (json) {
		/* A row a line; strings encoded by jansson, cp and the time
		 * keep their TSV text (%.6g's 1e+06, 1.5 ms), which jansson's
		 * reals do not write. */
		sb_addf(b, "{\"start_us\":%lld,\"end_us\":%lld,\"summary\":", (long long)ts, (long long)te);
		add_text(b, fmt, summary_names[w->summary]);
		sb_adds(b, ",\"key\":");
		add_text(b, fmt, w->key);
		sb_adds(b, ",\"detail\":");
		add_text(b, fmt, w->detail);
		sb_addf(b, ",\"cp\":%s,\"%s\":%s,\"edges\":%zu,\"workers\":%zu}\n",
			num, time_col(r, name, sizeof name), time, w->edges, w->workers);
		return;
	}
	/* a row per summary key and window: tens of thousands, no printf */
	sb_addi(b, ts);
	sb_addc(b, sep);
	sb_addi(b, te);
	sb_addc(b, sep);
	sb_adds(b, summary_names[w->summary]);
	sb_addc(b, sep);
	add_text(b, fmt, w->key);
	sb_addc(b, sep);
	add_text(b, fmt, w->detail);
	sb_addc(b, sep);
	sb_adds(b, num);
	sb_addc(b, sep);
	sb_adds(b, time);
	sb_addc(b, sep);
	sb_addu(b, w->edges);
	sb_addc(b, sep);
	sb_addu(b, w->workers);
	sb_addc(b, '\n');
}

/* ---- one window ---- */

static void
group_edges(report *r, const pag_graph *g, const pag_snap *s)
{
	for (size_t i = 0; i < s->nedges; i++) {
		const pag_edge *e = &g->edges[s->edge[i]];
		const pag_op *op = &g->ops[e->op];
		uint32_t src = g->lanes[s->vlane[s->src[i]]].worker;
		uint32_t dst = g->lanes[s->vlane[s->dst[i]]].worker;
		int64_t w = s->t1[i] - s->t0[i];
		double cp = r->cp[i];

		add_to_row(r, row_cached(r, &r->by_type, e->type, SUM_ACTIVITY, pag_type_name(e->type), ""),
			   cp, w, src);
		if (pag_type_is_comm(e->type)) {
			add_to_row(r, channel_row(r, g, src, dst), cp, w, src);
			continue;
		}
		/* a worker's conventional time is its busy time, not its lifetime */
		add_to_row(r, row_cached(r, &r->by_worker, src, SUM_WORKER, g->workers[src], ""),
			   cp, e->type == PAG_PROCESSING || e->type == PAG_IO ? w : 0, src);
		if ((e->type == PAG_PROCESSING || e->type == PAG_IO) && (*op->service || *op->operation))
			add_to_row(r, row_cached(r, &r->by_op, e->op, SUM_OPERATION, op->service,
						 op->operation), cp, w, src);
	}
}

/* The total row of a key: looked up through a scratch key, copied only
 * when new, so that memory does not grow with the number of windows. */
static row *
total_row(totals *t, int summary, const char *key, const char *detail)
{
	size_t lk = strlen(key);
	int added;
	strmap_slot *sl;

	sb_clear(&t->key);
	sb_addc(&t->key, (char)('0' + summary));
	sb_add(&t->key, key, lk);
	sb_addc(&t->key, '\t');
	sb_adds(&t->key, detail);
	sl = strmap_intern(&t->ids, &t->mem, t->key.s, t->key.len, &added);
	if (added) {
		const char *k = sl->key;

		GROW(t->rows, t->caprows, t->nrows + 1);
		t->rows[t->nrows++] = (row){summary + SUM_N, arena_strndup(&t->mem, key, lk),
					    k + lk + 2, 0, 0, 0, 0, PAG_NONE};
	}
	return &t->rows[sl->val];
}

struct total_pairs {
	totals *t;
	const uint32_t *map;	/* window row -> total row */
};

/* A window's (row, worker) pair, counted in the totals once. */
static void
add_total_pair(void *ctx, uint64_t pair, int64_t unused)
{
	struct total_pairs *tp = ctx;
	uint32_t row = tp->map[pair >> 32];
	int added;

	(void)unused;
	u64map_put(&tp->t->pairs, (uint64_t)row << 32 | (uint32_t)pair, &added);
	tp->t->rows[row].workers += added;
}

/* Add one window's rows (before they are ranked) to the totals. */
static void
add_totals(report *r, int64_t ts, int64_t te)
{
	totals *t = &r->all;
	double len = (double)(te - ts);
	uint32_t *map = xmalloc((r->nrows ? r->nrows : 1) * sizeof *map);

	if (t->nwin++ == 0)
		t->ts = ts;
	t->te = te;
	t->len += len;
	for (size_t i = 0; i < r->nrows; i++) {
		const row *w = &r->rows[i];
		int win = w->summary == SUM_WINDOW;	/* its detail is the window's N */
		row *x = total_row(t, w->summary, win ? "windows" : w->key, win ? "" : w->detail);

		map[i] = (uint32_t)(x - t->rows);
		x->cp += w->cp * len;
		x->time = i64_add_sat(x->time, w->time);
		x->edges += w->edges;
		if (win)
			x->workers = r->nworkers_ever;
	}
	u64map_each(&r->pairs, add_total_pair, &(struct total_pairs){t, map});
	free(map);
}

/* The operator summary (SnailTrail §4.2): an operation's CP divided by the
 * number of workers that ran it in the window, so that an operation spread
 * evenly over many workers does not look more critical than one worker
 * doing the same share alone. */
static void
normalise_operations(report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].summary == SUM_OPERATION && r->rows[i].workers > 1)
			r->rows[i].cp /= (double)r->rows[i].workers;
}

/* ---- a shard by time (tr-pag --own): the partial of its windows ----
 *
 * A graph whose PG record names the windows a shard owns gets, instead of
 * the table, a partial (tr-pag(1), Shards by time): each owned window's
 * rows before ranking, with the workers behind them, what the merge needs
 * to write the table and the totals of one pass; and a digest of the rows
 * of each window computed, owned or next to the owned ones, so that two
 * shards that computed one window can be checked to agree. */
enum { OWN_ALL, OWN_NONE, OWN_MINE, OWN_NEXT };

static int
own_role(const pag_graph *g, int64_t ts)
{
	if (!g->has_own || g->window <= 0)
		return OWN_ALL;
	if (ts >= g->own[0] && ts < g->own[1])
		return OWN_MINE;
	return ts == g->own[0] - g->window || ts == g->own[1] ? OWN_NEXT : OWN_NONE;
}

/* The partial's header and its claim, once. */
static void
own_begin(report *r, const pag_graph *g)
{
	if (r->p->header_done)
		return;
	r->p->header_done = 1;
	tr_partial_header(&r->line, "pag", "cp");
	sb_addf(&r->line, "XO\t%lld\t%lld\t%lld\t%lld\n", (long long)g->own[0], (long long)g->own[1],
		(long long)g->window, (long long)g->origin);
	r->own_records++;
}

struct own_pairs {
	report *r;
	const pag_graph *g;
};

static void
write_pair(void *ctx, uint64_t pair, int64_t unused)
{
	struct own_pairs *op = ctx;

	(void)unused;
	sb_addf(&op->r->line, "XP\t%u\t", (unsigned)(pair >> 32));
	tr_escapes(&op->r->line, op->g->workers[(uint32_t)pair], 0);
	sb_addc(&op->r->line, '\n');
	op->r->own_records++;
}

/* An owned window's rows as they are before ranking, its workers, and
 * which workers each row counts. */
static void
write_own_rows(report *r, const pag_graph *g, int64_t ts, int64_t te)
{
	strbuf *b = &r->line;

	sb_addf(b, "XW\t%lld\t%lld\n", (long long)ts, (long long)te);
	for (size_t w = 0; w < g->nworkers; w++)
		if (r->seen[w] == r->nwindow) {
			sb_adds(b, "XN\t");
			tr_escapes(b, g->workers[w], 0);
			sb_addc(b, '\n');
			r->own_records++;
		}
	for (size_t i = 0; i < r->nrows; i++) {
		const row *w = &r->rows[i];

		sb_addf(b, "XR\t%d\t", w->summary);
		tr_escapes(b, w->key, 0);
		sb_addc(b, '\t');
		tr_escapes(b, w->detail, 0);
		sb_addf(b, "\t%.17g\t%lld\t%zu\t%zu\n", w->cp, (long long)w->time, w->edges, w->workers);
	}
	r->own_records += 1 + r->nrows;
	u64map_each(&r->pairs, write_pair, &(struct own_pairs){r, g});
}

/* The digest of a window's ranked rows as the table writes them. */
static uint64_t
rows_digest(report *r, int64_t ts, int64_t te)
{
	strbuf keep = r->line;
	uint64_t h;

	r->line = (strbuf){0};
	qsort(r->rows, r->nrows, sizeof *r->rows, by_rank);
	for (size_t i = 0; i < r->nrows; i++)
		write_row(r, ts, te, &r->rows[i]);
	h = tr_shard_hash(r->line.s ? r->line.s : "", r->line.len);
	sb_free(&r->line);
	r->line = keep;
	return h;
}

static void
own_window(report *r, const pag_graph *g, int64_t ts, int64_t te, int role)
{
	own_begin(r, g);
	if (role == OWN_MINE)
		write_own_rows(r, g, ts, te);
	sb_addf(&r->line, "XD\t%lld\t%lld\t%016llx\n", (long long)ts, (long long)te,
		(unsigned long long)rows_digest(r, ts, te));
	r->own_records++;
}

static void window_rows(report *r, int64_t ts, int64_t te);
static void window_reset(report *r);

static void
cp_window(void *ctx, const pag_graph *g, const pag_snap *s)
{
	report *r = ctx;
	pag_count n;
	char paths[64];
	row *win;
	int one_window = g->window <= 0;
	int64_t ts = one_window ? s->tmin : s->ts, te = one_window ? s->tmax : s->te;
	int role = own_role(g, ts);

	if (role == OWN_NONE) {	/* a shard's halo: not its to write */
		r->own_skipped++;
		return;
	}
	GROW(r->cp, r->capcp, s->nedges);
	r->p->cycles += pag_snap_cp(g, s, r->cp, &n);
	if (s->tmax <= s->tmin)	/* nothing to share: every CP is 0 */
		r->p->timeless++;
	pag_count_format(paths, sizeof paths, n);
	win = row_get(r, SUM_WINDOW, "paths", arena_strndup(&r->mem, paths, strlen(paths)));
	win->time = s->tmax - s->tmin;
	win->edges = s->nedges;
	for (size_t i = 0; i < s->nedges; i++)
		win->cp += r->cp[i];
	r->nwindow++;
	GROW(r->seen, r->capseen, g->nworkers);
	if (r->nwindow == 1 && r->capseen)
		memset(r->seen, 0, r->capseen * sizeof *r->seen);
	for (size_t v = 0; v < s->nvertices; v++) {	/* the window row counts every worker */
		uint32_t w = g->lanes[s->vlane[v]].worker;

		if (r->seen[w] != r->nwindow) {
			r->nworkers_ever += r->seen[w] == 0;
			r->seen[w] = r->nwindow;
			win->workers++;
		}
	}
	if (n.m != 0)
		group_edges(r, g, s);
	normalise_operations(r);
	if (role != OWN_ALL)
		own_window(r, g, ts, te, role);
	else
		window_rows(r, ts, te);
	window_reset(r);
}

/* The rows of a window, ranked, with the totals: the table's. */
static void
window_rows(report *r, int64_t ts, int64_t te)
{
	add_totals(r, ts, te);	/* before ranking: pairs name rows by index */
	qsort(r->rows, r->nrows, sizeof *r->rows, by_rank);
	write_header(r);
	for (size_t i = 0; i < r->nrows; i++)
		write_row(r, ts, te, &r->rows[i]);
	if (r->out && r->line.len) {
		tr_output_sb(r->out, &r->line);
		sb_clear(&r->line);
	}
}

static void
window_reset(report *r)
{
	strmap_clear(&r->ids);
	u64map_clear(&r->pairs);
	u64map_clear(&r->channels);
	arena_reset(&r->mem);
	r->nrows = 0;
}

/* The summaries over the whole input, after the windows: only when there
 * is more than one window (else they are that window's rows). */
static void
write_totals(report *r)
{
	totals *t = &r->all;
	char count[32];

	if (t->nwin < 2 || t->len <= 0)
		return;
	snprintf(count, sizeof count, "%zu", t->nwin);
	for (size_t i = 0; i < t->nrows; i++) {
		t->rows[i].cp /= t->len;
		if (t->rows[i].summary == SUM_WINDOW + SUM_N)
			t->rows[i].detail = arena_strndup(&t->mem, count, strlen(count));
	}
	qsort(t->rows, t->nrows, sizeof *t->rows, by_rank);
	for (size_t i = 0; i < t->nrows; i++)
		write_row(r, t->ts, t->te, &t->rows[i]);
}

static int
too_many_windows(pag_cp *p, int64_t n)
{
	if (n >= 0 && (uint64_t)n <= p->o.max_windows)
		return 0;
	if (n < 0)
		tr_warn("the graph has more windows of %lld us than can be counted: "
			"no critical participation computed", (long long)p->g.window);
	else
		tr_warn("the graph has %lld windows of %lld us, more than --max-windows %zu: "
			"no critical participation computed", (long long)n,
			(long long)p->g.window, p->o.max_windows);
	return 1;
}

int
pag_cp_report(pag_cp *p, tr_output *out)
{
	report *r = &p->r;

	pag_read_finish(&p->g);
	if (p->streaming && past_max_windows(p, p->done, INT64_MAX))
		p->too_many = 1;
	if (p->too_many) {
		tr_warn("the graph has more than %zu windows of %lld us (--max-windows): "
			"no critical participation computed after them", p->o.max_windows,
			(long long)p->g.window);
		return -1;
	}
	if (!p->streaming && too_many_windows(p, pag_window_count(&p->g)))
		return -1;

	if (r->line.len)	/* rows of windows done, not taken yet */
		tr_output_sb(out, &r->line);
	sb_clear(&r->line);
	r->out = out;
	if (p->g.has_own && p->g.window > 0)
		own_begin(r, &p->g);
	write_header(r);
	pag_windows_between(&p->g, p->streaming ? p->done : INT64_MIN, INT64_MAX, cp_window, r);
	if (p->g.has_own && p->g.window > 0)
		tr_partial_end(&r->line, r->own_records);
	else
		write_totals(r);
	if (r->line.len)
		tr_output_sb(out, &r->line);
	sb_clear(&r->line);
	r->out = NULL;
	if (p->cycles)
		tr_warn("%zu vertices on cycles of zero-length edges left out of the path counts",
			p->cycles);
	if (!r->nwindow && !r->own_skipped) {
		tr_warn("the graph has no edge: no critical participation to compute");
		return -1;
	}
	if (p->timeless && p->timeless == r->nwindow) {
		tr_warn("no window of the graph lasts any time (spans without durations?): "
			"no critical participation to share");
		return -1;
	}
	if (p->timeless)
		tr_warn("%zu of %zu windows last no time: their critical participation is 0",
			p->timeless, (size_t)r->nwindow);
	return 0;
}

/* ---- the merge of shards' partials (tr-pag --merge) ---- */

typedef struct merge_win {
	int64_t ts, te;
	size_t row0, nrows, name0, nnames, pair0, npairs;
} merge_win;

typedef struct merge_pair {
	uint32_t row;
	const char *worker;
} merge_pair;

typedef struct merger {
	arena mem;
	merge_win *wins;
	size_t nwins, capwins;
	row *rows;
	size_t nrows, caprows;
	const char **names;
	size_t nnames, capnames;
	merge_pair *pairs;
	size_t npairs, cappairs;
	int64_t (*claims)[2];
	size_t nclaims, capclaims;
	size_t win0;		/* the first window of the partial being read */
	int64_t window, origin;
	u64map digests;		/* window start -> the digest of its rows */
} merger;

/* Field f unescaped into the merger's memory. */
static const char *
merge_text(merger *m, const tr_field *f)
{
	char *s = arena_alloc(&m->mem, f->len + 1);

	s[tr_unescape(s, f->s, f->len)] = '\0';
	return s;
}

static int
merge_claim(merger *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	int64_t v[4];

	for (int i = 0; i < 4; i++)
		if (nf != 5 || parse_i64(f[i + 1].s, f[i + 1].len, &v[i]) < 0)
			return snprintf(what, whatlen, "bad XO record"), -1;
	if (m->nclaims && (v[2] != m->window || v[3] != m->origin))
		return snprintf(what, whatlen, "made with another --window or --origin than the "
				"partials before it"), -1;
	for (size_t i = 0; i < m->nclaims; i++)
		if (v[0] < m->claims[i][1] && m->claims[i][0] < v[1])
			return snprintf(what, whatlen, "the windows from %lld to %lld: another partial "
					"owns some of them", (long long)v[0], (long long)v[1]), -1;
	GROW(m->claims, m->capclaims, m->nclaims + 1);
	m->win0 = m->nwins;	/* its rows come after its own XW, not another's */
	m->claims[m->nclaims][0] = v[0];
	m->claims[m->nclaims++][1] = v[1];
	m->window = v[2];
	m->origin = v[3];
	return 0;
}

/* XD: two shards that computed one window must have the same rows. */
static int
merge_digest(merger *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	int64_t ts, te;
	char hex[17], *end;
	int added;

	if (nf != 4 || parse_i64(f[1].s, f[1].len, &ts) < 0 || parse_i64(f[2].s, f[2].len, &te) < 0 ||
	    f[3].len != 16)
		return snprintf(what, whatlen, "bad XD record"), -1;
	memcpy(hex, f[3].s, 16);
	hex[16] = '\0';
	uint64_t d = strtoull(hex, &end, 16);
	int64_t *at = u64map_put(&m->digests, (uint64_t)ts, &added);

	if (*end)
		return snprintf(what, whatlen, "bad XD record"), -1;
	if (!added && (uint64_t)*at != d)
		return snprintf(what, whatlen, "the window from %lld to %lld differs from another "
				"shard's: a halo too small, or other clock offsets?", (long long)ts,
				(long long)te), -1;
	*at = (int64_t)d;
	return 0;
}

static int
merge_window(merger *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	merge_win w = {.row0 = m->nrows, .name0 = m->nnames, .pair0 = m->npairs};
	const int64_t *own = m->nclaims ? m->claims[m->nclaims - 1] : NULL;

	if (nf != 3 || parse_i64(f[1].s, f[1].len, &w.ts) < 0 || parse_i64(f[2].s, f[2].len, &w.te) < 0)
		return snprintf(what, whatlen, "bad XW record"), -1;
	if (!own || w.ts < own[0] || w.ts >= own[1])
		return snprintf(what, whatlen, "the window from %lld: not one its partial owns",
				(long long)w.ts), -1;
	if (m->nwins > m->win0 && w.ts < m->wins[m->nwins - 1].te)	/* else merged twice */
		return snprintf(what, whatlen, "the window from %lld: not after the one before it",
				(long long)w.ts), -1;
	GROW(m->wins, m->capwins, m->nwins + 1);
	m->wins[m->nwins++] = w;
	return 0;
}

static int
merge_row(merger *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	int64_t summary, time, edges, workers;
	char num[64], *end;

	if (m->nwins == m->win0 || nf != 8 || parse_i64(f[1].s, f[1].len, &summary) < 0 || summary < 0 ||
	    summary >= SUM_N || parse_i64(f[5].s, f[5].len, &time) < 0 ||
	    parse_i64(f[6].s, f[6].len, &edges) < 0 || parse_i64(f[7].s, f[7].len, &workers) < 0 ||
	    edges < 0 || workers < 0 || f[4].len >= sizeof num)
		return snprintf(what, whatlen, "bad XR record"), -1;
	memcpy(num, f[4].s, f[4].len);
	num[f[4].len] = '\0';
	double cp = strtod(num, &end);

	if (*end || end == num)
		return snprintf(what, whatlen, "bad XR record"), -1;
	GROW(m->rows, m->caprows, m->nrows + 1);
	m->rows[m->nrows++] = (row){(int)summary, merge_text(m, &f[2]), merge_text(m, &f[3]), cp, time,
				    (size_t)edges, (size_t)workers, PAG_NONE};
	m->wins[m->nwins - 1].nrows++;
	return 0;
}

static int
merge_record(void *ctx, char *line, size_t len, char *what, size_t whatlen)
{
	merger *m = ctx;
	tr_field f[9];
	size_t nf = tr_split(line, len, f, 9);
	merge_win *w = m->nwins > m->win0 ? &m->wins[m->nwins - 1] : NULL;
	int64_t row;

	if (nf < 2 || f[0].len != 2 || f[0].s[0] != 'X')
		return snprintf(what, whatlen, "not a tr-pag --own record"), -1;
	switch (f[0].s[1]) {
	case 'O': return merge_claim(m, f, nf, what, whatlen);
	case 'D': return merge_digest(m, f, nf, what, whatlen);
	case 'W': return merge_window(m, f, nf, what, whatlen);
	case 'R': return merge_row(m, f, nf, what, whatlen);
	case 'N':
		if (!w || nf != 2)
			break;
		GROW(m->names, m->capnames, m->nnames + 1);
		m->names[m->nnames++] = merge_text(m, &f[1]);
		w->nnames++;
		return 0;
	case 'P':
		if (!w || nf != 3 || parse_i64(f[1].s, f[1].len, &row) < 0 || row < 0 ||
		    (size_t)row >= w->nrows)
			break;
		GROW(m->pairs, m->cappairs, m->npairs + 1);
		m->pairs[m->npairs++] = (merge_pair){(uint32_t)row, merge_text(m, &f[2])};
		w->npairs++;
		return 0;
	}
	return snprintf(what, whatlen, "bad %.2s record", f[0].s), -1;
}

static int
by_window_start(const void *pa, const void *pb)
{
	const merge_win *a = pa, *b = pb;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int
by_claim_start(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* A number for each worker name, for the (row, worker) pairs. */
typedef struct worker_ids {
	strmap ids, ever;	/* name -> number; names of windows replayed */
	size_t n;
} worker_ids;

/* One owned window as one pass writes it, counted in the totals. */
static void
replay_window(report *r, merger *m, const merge_win *w, worker_ids *wk)
{
	int added;

	GROW(r->rows, r->caprows, w->nrows + 1);
	memcpy(r->rows, m->rows + w->row0, w->nrows * sizeof *r->rows);
	r->nrows = w->nrows;
	for (size_t i = 0; i < w->nnames; i++) {
		const char *name = m->names[w->name0 + i];

		strmap_intern(&wk->ever, &m->mem, name, strlen(name), &added);
		r->nworkers_ever += added;	/* as the window's workers were counted */
	}
	for (size_t i = 0; i < w->npairs; i++) {
		const merge_pair *p = &m->pairs[w->pair0 + i];
		strmap_slot *s = strmap_intern(&wk->ids, &m->mem, p->worker, strlen(p->worker), &added);

		if (added)
			s->val = wk->n++;
		u64map_put(&r->pairs, (uint64_t)p->row << 32 | (uint32_t)s->val, &added);
	}
	window_rows(r, w->ts, w->te);
	window_reset(r);
}

/* The claims, sorted, must leave no window between them unowned. */
static int
claims_gap(merger *m)
{
	qsort(m->claims, m->nclaims, sizeof *m->claims, by_claim_start);
	for (size_t i = 1; i < m->nclaims; i++)
		if (m->claims[i][0] != m->claims[i - 1][1]) {
			tr_warn("no partial owns the windows from %lld to %lld: a shard missing?",
				(long long)m->claims[i - 1][1], (long long)m->claims[i][0]);
			return -1;
		}
	return 0;
}

static void
merger_free(merger *m)
{
	arena_free(&m->mem);
	free(m->wins);
	free(m->rows);
	free(m->names);
	free(m->pairs);
	free(m->claims);
	u64map_free(&m->digests);
}

int
pag_cp_merge(char **files, int nfiles, tr_output *out)
{
	merger m = {0};
	worker_ids wk = {0};
	pag_cp *p;
	int status = TR_EXIT_INPUT;

	if (tr_partial_merge_files(files, nfiles, "pag", "cp", 0, merge_record, &m) != 0 ||
	    claims_gap(&m) < 0) {
		merger_free(&m);
		return status;
	}
	p = pag_cp_new(&(pag_cp_opts){.format = "tsv", .header = 1});
	p->r.out = out;
	qsort(m.wins, m.nwins, sizeof *m.wins, by_window_start);
	write_header(&p->r);
	for (size_t i = 0; i < m.nwins; i++)
		replay_window(&p->r, &m, &m.wins[i], &wk);
	write_totals(&p->r);
	if (p->r.line.len)
		tr_output_sb(out, &p->r.line);
	strmap_free(&wk.ids);
	strmap_free(&wk.ever);
	pag_cp_free(p);
	merger_free(&m);
	return TR_EXIT_OK;
}
