/* tr-pag - build SnailTrail's program activity graph from traces. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"
#include "core/shard.h"
#include "pag/pag.h"
#include "core/pick.h"
#include "core/table.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: tr-pag [-Pkqnv] [-w D] [--origin T] [--worker-key K] [--cp-part]\n"
		"              [--unknown-threshold D] [--lateness D] [--max-gap D] [--hold N]\n"
		"              [-f line|dot|pag-dot|svg] [--dot] [--top N] [--trace ID]\n"
		"              [--from T] [--to T] [--worker W] [-o FILE] [FILE...]\n"
		"Build the program activity graph of all traces (workers, activities,\n"
		"communication) and write it as PG, PW, PO, PV and PE records among the\n"
		"traces, window by window as they are read, with a PM mark per window,\n"
		"for tr-cp to rank activities by critical participation window by window.\n"
		"  -w, --window D          tumbling windows of length D (1s, 250ms, 10us)\n"
		"      --origin T          windows start at T + k*D (µs or a duration; 0)\n"
		"      --worker-key K      what makes a worker: service,host[,tag...]\n"
		"      --unknown-threshold D\n"
		"                          unknown gaps shorter than D take the activity before\n"
		"      --lateness D        traces may come D out of start order (5s)\n"
		"      --max-gap D         a lane idle longer than D ends there (1s)\n"
		"      --hold N            spans held before any is placed: a smaller input\n"
		"                          may come in any order (50000; 0: all)\n"
		"  -f, --format F          line (default); dot: workers and channels by CP;\n"
		"                          pag-dot: every vertex and edge; svg: each\n"
		"                          summary's CP over the windows; --dot is -f dot\n"
		"      --top N             pictures: the N keys with most CP (dot 30, svg 6)\n"
		"      --trace ID          pictures: only the activities of this trace\n"
		"      --units U           dot, pag-dot: durations in us, ms, s or auto (the\n"
		"                          default: a readable unit each)\n"
		"      --from T, --to T    pictures: only activities overlapping [from, to] (µs)\n"
		"      --worker W          pictures: only activities on, to or from W\n"
		"  -P, --pag-only          write the graph only, not the traces\n"
		"  -n, --no-vertices       write no PV records (PE records stand alone)\n"
		"      --cp-part           tag every span with cp.part, its critical\n"
		"                          participation (the traces wait for the graph)\n"
		"      --max-windows N     more windows is a usage error (default 1000000; 0:\n"
		"                          none)\n"
		"  -o, --output FILE       output file (written via a temporary file)\n"
		"  -k, --keep-going        skip bad traces\n"
		"  -q, --quiet             no warnings about the instrumentation\n"
		"  -v, --verbose           a summary line on stderr\n"
		TR_ALLOW_EMPTY_USAGE
		TR_FILES_FROM_USAGE
		TR_LIMIT_USAGE
		"  -h, --help              this help\n"
		"      --version           the version\n");
}

typedef struct check_sum {
	pag_violations v;
	size_t windows, p1_windows, p2_windows;
	char eg1[512], eg2[512];	/* the first examples, said while their spans are known */
} check_sum;

typedef struct pag_ctx {
	pag_builder *b;
	size_t bad_keys;	/* --worker-key tags no span had */
	pag_graph read;		/* PAG records of the input (used when it holds no traces) */
	pag_graph built;	/* the graph built: whole (pictures, --cp-part), or
				 * window by window for the checks (streaming) */
	int stream;		/* the records are written as the windows complete */
	int checks;		/* check the instrumentation properties */
	int64_t checked;	/* streaming: windows before this are checked */
	check_sum sum;
	strbuf recs;		/* records the builder wrote, not read back yet */
	size_t ntraces, nbad_records;
	int pag_only, vertices, quiet, verbose;
	int dot;		/* a picture instead of the records: enum picture */
	int units;		/* of the DOT pictures' durations (--units, auto) */
	pag_filter filter;	/* what a picture keeps */
	tr_pick *pick;		/* --trace: was the trace met? */
	size_t top;		/* --top, 0: the picture's default */
	int has_top;
	int64_t window, origin;
	int has_window, has_origin;
	size_t nlate;		/* traces that came too late for the graph */
	size_t max_windows;
	int cp_part;		/* --cp-part: the output waits for the graph */
	strbuf held;		/* --cp-part: the output until the graph is done */
	strbuf keys;		/* --cp-part: "trace\tspan" of each cp.part tag held */
	size_t *order;		/* --cp-part: where each key starts in keys */
	size_t norder, caporder;
	size_t *mark_at;	/* --cp-part: where each tag's value goes in held */
	size_t nmarks, capmarks;
} pag_ctx;

enum picture { PIC_NONE, PIC_DOT, PIC_PAG_DOT, PIC_SVG };

#define CP_PART_TAG "\tcp.part="

/* A cp.part tag with its value left out, filled in once the graph is
 * done: the span is remembered by its "trace\tspan" key. */
static void
mark_span(void *ctx, const tr_trace *t, int32_t span, strbuf *extra)
{
	pag_ctx *c = ctx;

	if (span < 0 || !pag_span_usable(&t->spans[span]))
		return;
	sb_adds(extra, CP_PART_TAG);
	GROW(c->order, c->caporder, c->norder + 2);
	c->order[c->norder++] = c->keys.len;
	sb_adds(&c->keys, t->trace_id);
	sb_addc(&c->keys, '\t');
	sb_adds(&c->keys, t->spans[span].span_id);
	c->order[c->norder] = c->keys.len;	/* the end of the last key */
}

static void
hold_trace(pag_ctx *c, const tr_trace *t)
{
	tr_write_opts wo = {"cp.part", NULL, mark_span, c};

	size_t from = c->held.len, tl = strlen(CP_PART_TAG);

	tr_write_trace(&c->held, t, &wo);
	/* The marks are the ends of this trace's S records that end with an
	 * empty cp.part tag (an old one was dropped): found here, by place,
	 * so that no other line passed through can take a value. */
	for (size_t at = from; at < c->held.len;) {
		const char *line = c->held.s + at;
		const char *nl = memchr(line, '\n', c->held.len - at);
		size_t len = nl ? (size_t)(nl - line) : c->held.len - at;

		if (line[0] == 'S' && len >= tl && memcmp(line + len - tl, CP_PART_TAG, tl) == 0) {
			GROW(c->mark_at, c->capmarks, c->nmarks + 1);
			c->mark_at[c->nmarks++] = at + len;
		}
		at += len + 1;
	}
	if (c->nmarks != c->norder)	/* one mark per S record mark_span tagged */
		tr_die(TR_EXIT_SYSTEM, "trace %s: %zu cp.part marks for %zu spans", t->trace_id,
		       c->nmarks, c->norder);
}

/* The held output with every cp.part tag's value. */
static void
write_held(pag_ctx *c, const pag_graph *g, tr_output *out)
{
	double *part = xmalloc((g->nspans ? g->nspans : 1) * sizeof *part);
	size_t at = 0;
	strbuf buf = {0};

	pag_span_cp(g, part);
	for (size_t k = 0; k <= c->nmarks; k++) {
		size_t to = k < c->nmarks ? c->mark_at[k] : c->held.len;
		char num[32];

		sb_add(&buf, c->held.s + at, to - at);
		at = to;
		if (k == c->nmarks)
			break;
		size_t kend = k + 1 < c->norder ? c->order[k + 1] : c->keys.len;
		const strmap_slot *sl = strmap_get(&g->span_ids, c->keys.s + c->order[k],
						   kend - c->order[k]);
		double v = sl ? part[sl->val] : 0;	/* a span on no edge: none */

		snprintf(num, sizeof num, "%.6g", v < 1e-12 ? 0 : v);
		sb_adds(&buf, num);
		if (buf.len >= 256 * 1024) {
			tr_output_sb(out, &buf);
			sb_clear(&buf);
		}
	}
	tr_output_sb(out, &buf);
	sb_free(&buf);
	free(part);
}

static void read_back(pag_ctx *c, const char *text, size_t len);

/* More windows than --max-windows: a usage error, said once. */
static _Noreturn void
too_many_windows(const pag_ctx *c)
{
	int64_t n = pag_builder_stats(c->b)->windows_needed;

	if (n < 0)
		tr_warn("more windows of %lld us than can be counted: choose a longer --window",
			(long long)c->window);
	else if (n > 0)
		tr_warn("%lld windows of %lld us, more than --max-windows %zu: "
			"choose a longer --window", (long long)n, (long long)c->window,
			c->max_windows);
	else
		tr_warn("more than --max-windows %zu windows of %lld us: choose a longer --window",
			c->max_windows, (long long)c->window);
	exit(TR_EXIT_USAGE);	/* the temporary output file is removed at exit */
}

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	pag_ctx *c = ctx;

	c->ntraces++;
	if (c->pick)
		tr_pick_match(c->pick, t->trace_id);
	if (!c->pag_only && !c->dot && c->cp_part)
		hold_trace(c, t);
	else if (!c->pag_only && !c->dot)
		tr_write_trace(out, t, NULL);
	size_t from = out->len;

	/* streaming, the records go straight out among the traces */
	if (pag_builder_add(c->b, t, c->stream ? out : &c->recs) < 0) {
		tr_warn("trace %s: starts %lld us before spans already in the graph (the input is "
			"not in start order): left out of the graph; --lateness or --hold take it",
			t->trace_id, (long long)pag_builder_stats(c->b)->late_by);
		c->nlate++;
	}
	if (c->stream && out->len > from) {	/* the windows it completed */
		if (c->checks)
			read_back(c, out->s + from, out->len - from);
		if (pag_builder_stats(c->b)->too_many_windows)
			too_many_windows(c);
	}
	return 0;
}

static void
on_line(void *ctx, const char *line, size_t len, const char *where, strbuf *out)
{
	pag_ctx *c = ctx;

	if (pag_is_record(line, len)) {	/* ours: rebuilt, or read back and checked */
		if (pag_read_record(&c->read, line, len, where) < 0)
			c->nbad_records++;
		return;
	}
	if (!c->dot) {
		strbuf *to = c->cp_part ? &c->held : out;	/* in input order */

		sb_add(to, line, len);
		sb_addc(to, '\n');
	}
}

static const char *example_text(const pag_graph *g, const pag_example *x, char *buf, size_t size);

static void
check_window(void *ctx, const pag_graph *g, const pag_snap *s)
{
	check_sum *sum = ctx;
	pag_violations v = {0};

	pag_snap_check(g, s, &v);
	sum->windows++;
	sum->p1_windows += v.no_input > 0;
	sum->p2_windows += v.all_waiting > 0;
	sum->v.no_input += v.no_input;
	sum->v.all_waiting += v.all_waiting;
	sum->v.all_waiting_us += v.all_waiting_us;
	if (!sum->v.no_input_at.set && v.no_input_at.set) {
		sum->v.no_input_at = v.no_input_at;
		example_text(g, &v.no_input_at, sum->eg1, sizeof sum->eg1);
	}
	if (!sum->v.all_waiting_at.set && v.all_waiting_at.set) {
		sum->v.all_waiting_at = v.all_waiting_at;
		example_text(g, &v.all_waiting_at, sum->eg2, sizeof sum->eg2);
	}
}

/* "e.g. at T us on worker W, trace T span S": where to look first. */
static const char *
example_text(const pag_graph *g, const pag_example *x, char *buf, size_t size)
{
	const pag_spanref *r = x->span != PAG_NONE && x->span < g->nspans ? &g->spans[x->span] : NULL;
	const char *worker = x->lane != PAG_NONE && x->lane < g->nlanes ?
			     g->workers[g->lanes[x->lane].worker] : "?";

	if (r)
		snprintf(buf, size, "e.g. at %lld us on %s, trace %s span %s", (long long)x->t,
			 worker, r->trace_id, r->span_id);
	else
		snprintf(buf, size, "e.g. at %lld us on %s", (long long)x->t, worker);
	return buf;
}

/* Read the records the builder wrote into the graph built; streaming,
 * check the windows each PM mark completes and forget them. */
static void
read_back(pag_ctx *c, const char *text, size_t len)
{
	pag_graph *g = &c->built;
	size_t at = 0, marks = g->nmarks;

	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = (size_t)(nl - line);

		if (pag_read_record(g, line, n, NULL) < 0)	/* ours: cannot be bad */
			tr_die(TR_EXIT_SYSTEM, "a record of the graph built does not read back");
		at += n + 1;
		if (c->stream && g->nmarks != marks) {
			marks = g->nmarks;
			pag_windows_between(g, c->checked, g->mark, check_window, &c->sum);
			pag_graph_drop_before(g, g->mark);
			c->checked = g->mark;
		}
	}
}

static void
warn_graph(pag_ctx *c, const pag_graph *g)
{
	check_sum *sum = &c->sum;
	const pag_build_stats *st = g == &c->built ? pag_builder_stats(c->b) : NULL;

	if (c->checks && c->stream)
		pag_windows_between(g, c->checked, INT64_MAX, check_window, sum);
	else if (c->checks)
		pag_windows(g, check_window, sum);
	if (c->verbose && st && c->stream)
		tr_warn("%zu workers, %zu lanes, %zu vertices, %zu edges, %zu windows",
			st->nworkers, st->nlanes, st->nvertices, st->nedges, sum->windows);
	else if (c->verbose)
		tr_warn("%zu workers, %zu lanes, %zu vertices, %zu edges, %zu windows",
			g->nworkers, g->nlanes, g->nvertices, g->nedges, sum->windows);
	if (c->quiet)
		return;
	if (sum->v.no_input)
		tr_warn("property 1: %zu vertices in %zu of %zu windows have no incoming edge "
			"a critical path can use (missing instrumentation?); %s",
			sum->v.no_input, sum->p1_windows, sum->windows, sum->eg1);
	if (sum->v.all_waiting)
		tr_warn("property 2: %zu times (%lld us) in %zu of %zu windows every worker waits "
			"and no message is in flight (missing instrumentation?); %s",
			sum->v.all_waiting, (long long)sum->v.all_waiting_us, sum->p2_windows,
			sum->windows, sum->eg2);
	if (!st)
		return;
	if (st->nclamped)
		tr_warn("%zu requests or responses clamped to take no time: clock skew would send "
			"them back in time", st->nclamped);
	if (st->nskew)
		tr_warn("%zu communication edges dropped: they arrive before they leave (clock skew)",
			st->nskew);
	if (st->nrefs_missing)
		tr_warn("%zu references to spans the graph does not hold (not in the input, or "
			"written and forgotten: --lateness): no message edge", st->nrefs_missing);
	if (st->nspans_skipped)
		tr_warn("%zu spans without time left out", st->nspans_skipped);
	if (st->nwrappers)
		tr_warn("%zu wrapper spans (childless, covering a sibling call of their process) "
			"left out: they wait for that call, they do not process", st->nwrappers);
	if (st->nlost)
		tr_warn("%zu edges lost: they start before edges already written (a bug in tr-pag: "
			"please report it)", st->nlost);
}

/* Does every selector of a picture name something in the graph? Says which
 * does not (with the closest name met) when not. */
static int
picture_selects(pag_ctx *c, const pag_graph *g)
{
	const pag_filter *f = &c->filter;
	size_t i;

	if (c->pick && c->ntraces && tr_pick_missing(c->pick, "--trace"))
		return 0;	/* a graph read back is checked by its edges below */
	if (f->worker && !strmap_get(&g->worker_ids, f->worker, strlen(f->worker))) {
		const char *near = closest_name(f->worker, g->workers, g->nworkers);

		tr_warn("--worker %s: no worker has this name%s%s%s", f->worker,
			near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
		return 0;
	}
	for (i = 0; i < g->nedges && !pag_edge_passes(g, f, &g->edges[i]); i++)
		;
	if (g->nedges && i == g->nedges) {
		tr_warn("no activity is within --from %lld --to %lld%s%s%s%s", (long long)f->from,
			(long long)f->to, f->trace ? " of --trace " : "", f->trace ? f->trace : "",
			f->worker ? " on --worker " : "", f->worker ? f->worker : "");
		return 0;
	}
	return 1;
}

static void
write_picture(pag_ctx *c, const pag_graph *g, tr_output *out)
{
	pag_summary sum;

	if (c->dot == PIC_PAG_DOT) {
		pag_write_dot(g, &c->filter, out, c->units);
		return;
	}
	pag_summarise(g, &c->filter, &sum);
	if (c->dot == PIC_DOT)
		pag_write_summary_dot(g, &sum, c->has_top ? c->top : 30, out, c->units);
	else
		pag_write_summary_svg(g, &sum, c->has_top ? c->top : 6, out);
	pag_summary_free(&sum);
}

static void
on_end(void *ctx, tr_output *out)
{
	pag_ctx *c = ctx;
	pag_graph *g = &c->built;

	if (c->stream) {	/* the rest a step at a time: what was held goes out as made */
		int more;

		do {
			more = pag_builder_finish_step(c->b, &c->recs);
			if (pag_builder_stats(c->b)->too_many_windows)
				too_many_windows(c);
			tr_output_sb(out, &c->recs);
			if (c->checks)
				read_back(c, c->recs.s, c->recs.len);
			sb_clear(&c->recs);
		} while (more);
	} else {
		pag_builder_finish(c->b, &c->recs);
	}
	c->bad_keys = pag_builder_unmatched_keys(c->b);
	if (c->stream && (c->ntraces || !c->read.nedges)) {
		warn_graph(c, g);
		return;
	}
	read_back(c, c->recs.s, c->recs.len);
	if (!c->ntraces && c->read.nedges) {	/* a graph of an earlier run, rewritten */
		g = &c->read;
		pag_read_finish(g);
		if (c->has_window)
			g->window = c->window;
		if (c->has_origin)
			g->origin = c->origin;
	} else {
		pag_read_finish(g);
	}
	int64_t n = pag_window_count(g);
	if (n < 0 || (uint64_t)n > c->max_windows) {
		if (n < 0)
			tr_warn("more windows of %lld us than can be counted: choose a longer --window",
				(long long)g->window);
		else
			tr_warn("%lld windows of %lld us, more than --max-windows %zu: "
				"choose a longer --window", (long long)n, (long long)g->window,
				c->max_windows);
		exit(TR_EXIT_USAGE);	/* the temporary output file is removed at exit */
	}
	warn_graph(c, g);
	if (c->cp_part && !c->dot)
		write_held(c, g, out);
	if (c->dot && !g->nedges) {	/* an empty picture would pass for an answer */
		tr_warn("nothing to draw: no span has a start and a duration");
		exit(TR_EXIT_INPUT);
	}
	if (c->dot && !picture_selects(c, g))
		exit(TR_EXIT_USAGE);	/* said why; the temporary output file is removed */
	if (c->dot)
		write_picture(c, g, out);
	else
		pag_write_records(g, out, c->vertices);
}

static int64_t
duration_arg(const char *opt, const char *arg)
{
	int64_t v;

	if (parse_duration(arg, &v) < 0) {
		tr_warn("bad %s: %s", opt, arg);
		exit(TR_EXIT_USAGE);
	}
	return v;
}

/* Read the input on a second thread? Building takes as long as reading, so
 * alone tr-pag runs a third faster with it. But piped into tr-cp on two
 * cores, a third thread takes turns with tr-cp's and the pipeline runs
 * slower (1.06 against 1.2 s on 1M spans): then the core is left to the
 * next tool. */
static int
read_ahead_pays(const char *out_path)
{
	struct stat st;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (cores > 2)
		return 1;
	if (cores < 2)
		return 0;
	if (out_path && strcmp(out_path, "-") != 0)
		return 1;
	return fstat(STDOUT_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"window", required_argument, NULL, 'w'},
		{"origin", required_argument, NULL, 'O'},
		{"worker-key", required_argument, NULL, 'K'},
		{"unknown-threshold", required_argument, NULL, 'U'},
		{"format", required_argument, NULL, 'f'},
		{"dot", no_argument, NULL, 'D'},
		{"pag-only", no_argument, NULL, 'P'},
		{"no-vertices", no_argument, NULL, 'n'},
		{"max-windows", required_argument, NULL, TR_OPT_MAX_WINDOWS},
		{"cp-part", no_argument, NULL, 'C'},
		{"top", required_argument, NULL, 'T'},
		{"trace", required_argument, NULL, 'I'},
		{"from", required_argument, NULL, 'F'},
		{"to", required_argument, NULL, 'E'},
		{"worker", required_argument, NULL, 'W'},
		{"lateness", required_argument, NULL, 'L'},
		{"max-gap", required_argument, NULL, 'G'},
		{"hold", required_argument, NULL, 'H'},
		TR_UNITS_LONGOPT,
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	pag_ctx c = {.vertices = 1, .max_windows = PAG_MAX_WINDOWS, .units = -1,
		     .filter = {NULL, INT64_MIN, INT64_MAX, NULL}};
	pag_build_opts bo = {0};
	tr_filter f = {.pass_through = 1, .on_trace = on_trace, .on_line = on_line,
		       .on_end = on_end, .end_writes_records = 1, .ctx = &c};
	tr_filelist from = {0};
	int ch, status;

	tr_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, ":w:f:o:DPnkqvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			c.window = duration_arg("window", optarg);
			c.has_window = 1;
			if (c.window <= 0) {
				tr_warn("the window must be longer than 0");
				return TR_EXIT_USAGE;
			}
			break;
		case 'O':
			c.origin = duration_arg("origin", optarg);
			c.has_origin = 1;
			if (c.origin < -TR_TIME_MAX || c.origin > TR_TIME_MAX)
				tr_usage_error("--origin %s: beyond the times a span can have (2^61 us)",
					       optarg);
			break;
		case 'K': bo.worker_key = optarg; break;
		case 'U': bo.unknown_threshold = duration_arg("unknown threshold", optarg); break;
		case 'f':
			if (strcmp(optarg, "dot") == 0)
				c.dot = PIC_DOT;
			else if (strcmp(optarg, "pag-dot") == 0)
				c.dot = PIC_PAG_DOT;
			else if (strcmp(optarg, "svg") == 0)
				c.dot = PIC_SVG;
			else if (strcmp(optarg, "line") != 0) {
				tr_warn("unknown format: %s (line, dot, pag-dot or svg)", optarg);
				return TR_EXIT_USAGE;
			}
			break;
		case 'D': c.dot = PIC_DOT; break;
		case 'T': c.top = tr_parse_limit("--top", optarg); c.has_top = 1; break;
		case 'I':
			c.filter.trace = optarg;
			if (!c.pick)
				c.pick = tr_pick_new();
			tr_pick_add(c.pick, optarg);
			break;
		case 'F': c.filter.from = duration_arg("--from", optarg); break;
		case 'E': c.filter.to = duration_arg("--to", optarg); break;
		case 'W': c.filter.worker = optarg; break;
		case 'L':
			if ((bo.lateness = duration_arg("--lateness", optarg)) <= 0)
				tr_usage_error("--lateness must be longer than 0");
			break;
		case 'G':
			if ((bo.max_gap = duration_arg("--max-gap", optarg)) <= 0)
				tr_usage_error("--max-gap must be longer than 0");
			break;
		case 'H': bo.hold = tr_parse_limit("--hold", optarg); break;
		case 'P': c.pag_only = 1; break;
		case 'n': c.vertices = 0; break;
		case 'C': c.cp_part = 1; break;
		case 'o': f.out_path = optarg; break;
		case 'k': f.keep_going = 1; break;
		case TR_OPT_ALLOW_EMPTY: f.allow_empty = 1; break;
		case TR_OPT_FILES_FROM: tr_filelist_from(&from, optarg); break;
		case 'q': c.quiet = f.quiet = 1; break;
		case 'v': c.verbose = f.verbose = 1; break;
		case 'h': usage(stdout); return TR_EXIT_OK;
		case TR_OPT_VERSION: tr_print_version(); return TR_EXIT_OK;
		case TR_OPT_MAX_WINDOWS: c.max_windows = tr_parse_limit("--max-windows", optarg); break;
		case TR_OPT_UNITS: c.units = tr_units_option(optarg); break;
		default:
			if (!tr_limit_option(ch, optarg, &f.max_spans, &f.max_bytes))
				tr_option_error(ch, argv, longopts);
			break;
		}
	}
	if (c.units >= 0 && c.dot != PIC_DOT && c.dot != PIC_PAG_DOT)
		tr_usage_error("--units goes with -f dot and pag-dot: the records are µs");
	c.units = c.units < 0 ? TABLE_AUTO : c.units;
	f.files = tr_filelist_with(&from, argv + optind, argc - optind, &f.nfiles);
	f.pass_through = !c.dot;
	pag_graph_init(&c.read);
	pag_graph_stream(&c.read);	/* records in window order number vertices freely */
	/* Pictures and cp.part need the whole graph; the records alone are
	 * written window by window, as the traces are read. */
	c.stream = !c.dot && !c.cp_part;
	c.checks = !c.quiet || c.verbose;
	pag_graph_init(&c.built);
	if (c.stream) {
		pag_graph_stream(&c.built);	/* checked and forgotten window by window */
		c.checked = INT64_MIN;
	}
	bo.window = c.window;
	bo.origin = c.origin;
	bo.vertices = c.stream ? c.vertices : 1;
	bo.max_windows = c.stream ? c.max_windows : SIZE_MAX;	/* else checked on the graph */
	if (!c.stream)
		bo.hold = SIZE_MAX;
	c.b = pag_builder_new(&bo);
	f.read_ahead = read_ahead_pays(f.out_path);
	f.no_span_tags = !pag_builder_reads_tags(c.b);	/* unless the worker key names one */
	status = tr_filter_run(&f);
	pag_builder_free(c.b);
	pag_graph_free(&c.read);
	pag_graph_free(&c.built);
	sb_free(&c.held);
	sb_free(&c.recs);
	sb_free(&c.keys);
	tr_pick_free(c.pick);
	free(c.order);
	free(c.mark_at);
	if (status == TR_EXIT_OK && (c.nbad_records || c.nlate))
		status = TR_EXIT_INPUT;
	if (status == TR_EXIT_OK && c.bad_keys)
		status = TR_EXIT_USAGE;	/* a key that names nothing: said on stderr */
	return status;
}
