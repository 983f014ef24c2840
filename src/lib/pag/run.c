/* run.c - one run of tr-pag (run.h): the read loop's callbacks around the
 * builder, the records read back and checked (checks.h), the output held
 * for --cp-part (cppart.h), and the pictures. */
#include "pag/run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pag/checks.h"
#include "pag/cppart.h"
#include "pag/pagcp.h"

struct pag_run {
	pag_run_opts o;
	pag_builder *b;
	size_t bad_keys;	/* --worker-key tags no span had */
	pag_graph read;		/* PAG records of the input (used when it holds no traces) */
	pag_graph built;	/* the graph built: whole (pictures, --cp-part), or
				 * window by window for the checks (streaming) */
	int stream;		/* the records are written as the windows complete */
	pag_checks checks;
	strbuf recs;		/* records the builder wrote, not read back yet */
	size_t ntraces, nbad_records;
	size_t nlate;		/* traces that came too late for the graph */
	pag_cppart *held;	/* --cp-part: the output until the graph is done */
	char *slowest;		/* -f pag-dot of everything: the slowest request */
	int64_t slowest_us;
};

/* A picture of every activity of a large input is one dot cannot lay out
 * nor a person read (6,423 edges on the samples): past this many edges,
 * -f pag-dot without --trace, --from/--to or --worker draws the slowest
 * request's activities, and says so. */
#define PAG_DOT_MAX_EDGES 1000

static int
picture_all(const pag_run_opts *o)
{
	return o->picture == PAG_PIC_PAG_DOT && !o->filter.trace && !o->filter.worker &&
	       o->filter.from == INT64_MIN && o->filter.to == INT64_MAX;
}

/* The slowest request so far: its root's duration, a stream's lifetime
 * not counted (tr_span_is_stream). */
static void
note_slowest(pag_run *r, const tr_trace *t)
{
	const tr_span *root = t->nroots ? &t->spans[t->roots[0]] : NULL;

	if (!root || !(root->flags & TR_SPAN_HAS_TIME) || tr_span_is_stream(root) ||
	    (r->slowest && root->duration <= r->slowest_us))
		return;
	free(r->slowest);
	r->slowest = xstrdup(t->trace_id);
	r->slowest_us = root->duration;
}

/* More windows than --max-windows: a usage error, said once. */
static _Noreturn void
too_many_windows(int64_t n, int64_t window, size_t max)
{
	if (n < 0)
		tr_warn("more windows of %lld us than can be counted: choose a longer --window",
			(long long)window);
	else if (n > 0)
		tr_warn("%lld windows of %lld us, more than --max-windows %zu: "
			"choose a longer --window", (long long)n, (long long)window, max);
	else
		tr_warn("more than --max-windows %zu windows of %lld us: choose a longer --window",
			max, (long long)window);
	exit(TR_EXIT_USAGE);	/* the temporary output file is removed at exit */
}

static void
builder_windows_check(const pag_run *r)
{
	const pag_build_stats *st = pag_builder_stats(r->b);

	if (st->too_many_windows)
		too_many_windows(st->windows_needed, r->o.window, r->o.max_windows);
}

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	pag_run *r = ctx;
	int writes = !r->o.pag_only && !r->o.picture;

	r->ntraces++;
	if (picture_all(&r->o))
		note_slowest(r, t);
	if (r->o.pick)
		tr_pick_match(r->o.pick, t->trace_id);
	if (writes && r->held)
		pag_cppart_hold_trace(r->held, t);
	else if (writes)
		tr_write_trace(out, t, NULL);
	size_t from = out->len;

	/* streaming, the records go straight out among the traces */
	if (pag_builder_add(r->b, t, r->stream ? out : &r->recs) < 0) {
		tr_warn("trace %s: starts %lld us before spans already in the graph (the input is "
			"not in start order): left out of the graph; --lateness or --hold take it",
			t->trace_id, (long long)pag_builder_stats(r->b)->late_by);
		r->nlate++;
	}
	if (r->stream && out->len > from) {	/* the windows it completed */
		if (r->checks.on)
			pag_read_back(&r->built, out->s + from, out->len - from, &r->checks);
		builder_windows_check(r);
	}
	return 0;
}

static void
on_line(void *ctx, const char *line, size_t len, const char *where, strbuf *out)
{
	pag_run *r = ctx;

	if (pag_is_record(line, len)) {	/* ours: rebuilt, or read back and checked */
		if (pag_read_record(&r->read, line, len, where) < 0)
			r->nbad_records++;
		return;
	}
	if (r->o.picture)
		return;
	if (r->held) {	/* in input order */
		pag_cppart_hold_line(r->held, line, len);
		return;
	}
	sb_add(out, line, len);
	sb_addc(out, '\n');
}

/* Does every selector of a picture name something in the graph? Says which
 * does not (with the closest name met) when not. */
static int
picture_selects(const pag_run *r, const pag_graph *g)
{
	const pag_filter *f = &r->o.filter;
	size_t i;

	if (r->o.pick && r->ntraces && tr_pick_missing(r->o.pick, "--trace"))
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
write_picture(const pag_run *r, const pag_graph *g, tr_output *out)
{
	pag_summary sum;

	if (!g->nedges) {	/* an empty picture would pass for an answer */
		tr_warn("nothing to draw: no span has a start and a duration");
		exit(TR_EXIT_INPUT);
	}
	if (!picture_selects(r, g))
		exit(TR_EXIT_USAGE);	/* said why; the temporary output file is removed */
	if (r->o.picture == PAG_PIC_PAG_DOT) {
		pag_filter f = r->o.filter;

		if (picture_all(&r->o) && g->nedges > PAG_DOT_MAX_EDGES && r->slowest) {
			f.trace = r->slowest;
			if (!r->o.quiet)
				tr_warn("-f pag-dot: %zu edges are more than a picture can show; drawing "
					"the slowest request, %s (--trace, --from/--to or --worker choose)",
					g->nedges, r->slowest);
		}
		pag_write_dot(g, &f, out, r->o.units);
		return;
	}
	pag_summarise(g, &r->o.filter, &sum);
	if (r->o.picture == PAG_PIC_DOT)
		pag_write_summary_dot(g, &sum, r->o.has_top ? r->o.top : 30, out, r->o.units);
	else
		pag_write_summary_svg(g, &sum, r->o.has_top ? r->o.top : 6, out);
	pag_summary_free(&sum);
}

/* Streaming: the rest a step at a time, what was held going out as made. */
static void
finish_stream(pag_run *r, tr_output *out)
{
	int more;

	do {
		more = pag_builder_finish_step(r->b, &r->recs);
		builder_windows_check(r);
		tr_output_sb(out, &r->recs);
		if (r->checks.on)
			pag_read_back(&r->built, r->recs.s, r->recs.len, &r->checks);
		sb_clear(&r->recs);
	} while (more);
}

/* The whole graph: the one built, or a graph of an earlier run rewritten. */
static pag_graph *
whole_graph(pag_run *r)
{
	pag_graph *g = &r->built;

	pag_read_back(g, r->recs.s, r->recs.len, NULL);
	if (!r->ntraces && r->read.nedges) {
		g = &r->read;
		if (r->o.has_window)
			g->window = r->o.window;
		if (r->o.has_origin)
			g->origin = r->o.origin;
	}
	pag_read_finish(g);
	int64_t n = pag_window_count(g);
	if (n < 0 || (uint64_t)n > r->o.max_windows)
		too_many_windows(n < 0 ? -1 : n, g->window, r->o.max_windows);
	return g;
}

static void
on_end(void *ctx, tr_output *out)
{
	pag_run *r = ctx;
	pag_graph *g;

	if (r->stream)
		finish_stream(r, out);
	else
		pag_builder_finish(r->b, &r->recs);
	r->bad_keys = pag_builder_unmatched_keys(r->b);
	if (r->stream && (r->ntraces || !r->read.nedges)) {
		pag_checks_report(&r->checks, &r->built, pag_builder_stats(r->b));
		return;
	}
	g = whole_graph(r);
	if (g != &r->built)	/* records read: their entries are not known */
		r->checks.entries = NULL;
	pag_checks_report(&r->checks, g, g == &r->built ? pag_builder_stats(r->b) : NULL);
	if (r->held && !r->o.picture)
		pag_cppart_write(r->held, g, out);
	if (r->o.picture)
		write_picture(r, g, out);
	else
		pag_write_records(g, out, r->o.vertices);
}

/* Read the input on a second thread? Building takes as long as reading, so
 * alone tr-pag runs faster with it. But piped into tr-cp, a third thread
 * takes turns with tr-cp's and the pipeline runs slower (make bench): then
 * the core is left to the next tool. */
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

pag_run *
pag_run_new(const pag_run_opts *o)
{
	pag_run *r = xcalloc(1, sizeof *r);
	pag_build_opts bo = o->build;

	r->o = *o;
	pag_graph_init(&r->read);
	pag_graph_stream(&r->read);	/* records in window order number vertices freely */
	/* Pictures and cp.part need the whole graph; the records alone are
	 * written window by window, as the traces are read. */
	r->stream = !o->picture && !o->cp_part;
	r->checks = (pag_checks){.on = !o->quiet || o->verbose, .stream = r->stream,
				 .verbose = o->verbose, .quiet = o->quiet};
	pag_graph_init(&r->built);
	if (r->stream) {
		pag_graph_stream(&r->built);	/* checked and forgotten window by window */
		r->checks.checked = INT64_MIN;
	}
	if (o->cp_part)
		r->held = pag_cppart_new();
	bo.window = o->window;
	bo.origin = o->origin;
	bo.own = o->has_own ? o->own : NULL;
	bo.vertices = r->stream ? o->vertices : 1;
	bo.max_windows = r->stream ? o->max_windows : SIZE_MAX;	/* else checked on the graph */
	if (!r->stream)
		bo.hold = SIZE_MAX;
	r->b = pag_builder_new(&bo);
	if (r->checks.on)
		r->checks.entries = pag_builder_entries(r->b);
	return r;
}

void
pag_run_filter(pag_run *r, tr_filter *f)
{
	f->pass_through = !r->o.picture;
	f->on_trace = on_trace;
	f->on_line = on_line;
	f->on_end = on_end;
	f->end_writes_records = 1;
	f->ctx = r;
	f->read_ahead = read_ahead_pays(f->out_path);
	f->no_span_tags = !pag_builder_reads_tags(r->b);	/* unless the worker key names one */
	if (f->where && r->o.pick)	/* a --trace id may be in the input, not kept */
		tr_pick_filtered(r->o.pick, "--where");
}

pag_outcome
pag_run_outcome(const pag_run *r)
{
	return (pag_outcome){.bad_records = r->nbad_records, .late = r->nlate,
			     .bad_keys = r->bad_keys};
}

void
pag_run_free(pag_run *r)
{
	pag_builder_free(r->b);
	pag_graph_free(&r->read);
	pag_graph_free(&r->built);
	sb_free(&r->recs);
	pag_cppart_free(r->held);
	free(r->slowest);
	tr_pick_free(r->o.pick);
	free(r);
}

void
pag_own_option(pag_run_opts *o, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char from[64];

	if (!comma || (size_t)(comma - arg) >= sizeof from)
		tr_usage_error("--own FROM,TO: two times (µs or durations): %s", arg);
	memcpy(from, arg, (size_t)(comma - arg));
	from[comma - arg] = '\0';
	o->own[0] = tr_arg_duration("--own", from, 0);
	o->own[1] = tr_arg_duration("--own", comma + 1, 0);
	if (o->own[0] >= o->own[1])
		tr_usage_error("--own %s: FROM must come before TO", arg);
	o->has_own = 1;
}

void
pag_own_check(const pag_run_opts *o)
{
	if (!o->has_own)
		return;
	if (!o->has_window || !o->pag_only || o->picture || o->cp_part)
		tr_usage_error("--own goes with --window and -P (a shard's graph, for tr-cp)");
	for (int i = 0; i < 2; i++)
		if ((o->own[i] - o->origin) % o->window != 0)
			tr_usage_error("--own: %lld is not on a window boundary (--origin + k * --window)",
				       (long long)o->own[i]);
}

int
pag_merge_main(char **files, int nfiles, const char *out_path)
{
	tr_output *out = tr_output_open(out_path, 0);
	int status = pag_cp_merge(files, nfiles, out);

	if (status == TR_EXIT_OK)
		tr_output_close(out);
	else
		tr_output_discard(out);
	return status;
}
