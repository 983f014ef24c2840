/* filter.c - the main loop every line-format tool shares. */
#include "filter.h"
#include "core/progress.h"
#include "core/shard.h"
#include "core/table.h"
#include "where.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int
tr_limit_option(int opt, const char *arg, size_t *spans, size_t *bytes)
{
	if (opt != TR_OPT_MAX_SPANS && opt != TR_OPT_MAX_BYTES)
		return 0;
	*(opt == TR_OPT_MAX_SPANS ? spans : bytes) =
		tr_parse_limit(opt == TR_OPT_MAX_SPANS ? "--max-spans" : "--max-bytes", arg);
	return 1;
}

size_t
tr_parse_limit(const char *option, const char *arg)
{
	int64_t v = tr_arg_count(option, arg, 0, TR_ARG_NO_MAX);

	return v && (uint64_t)v <= SIZE_MAX ? (size_t)v : SIZE_MAX;
}

int
tr_filter_option(tr_filter *f, tr_filelist *from, int opt, const char *arg)
{
	switch (opt) {
	case 'o': f->out_path = arg; break;
	case 'k': f->keep_going = 1; break;
	case 'q': f->quiet = 1; break;
	case 'v': f->verbose = 1; break;
	case TR_OPT_ALLOW_EMPTY: f->allow_empty = 1; break;
	case TR_OPT_FILES_FROM: tr_filelist_from(from, arg); break;
	case TR_OPT_WHERE: f->where = tr_where_option(arg); break;
	case TR_OPT_CLOCK_OFFSETS: f->clock_offsets = tr_clock_option(arg); break;
	default: return tr_limit_option(opt, arg, &f->max_spans, &f->max_bytes);
	}
	return 1;
}

const char *
tr_clock_option(const char *arg)
{
	if (!arg)
		return TR_CLOCK_ESTIMATE;
	return strcmp(arg, "none") == 0 ? NULL : arg;
}

const tr_clock *
tr_filter_clock(const tr_filter *f)
{
	return f->offsets ? tr_offsets_clock(f->offsets) : NULL;
}

void
tr_print_version(void)
{
	printf("%s (tr) %s\n", tr_progname, TR_VERSION);
}

/* The #tr/1 header goes out with the first record, so that a tool whose whole
 * output is a report (tr-cp over PAG records) writes the report alone. */
static void
emit(tr_output *out, strbuf *b, int *header_pending)
{
	if (!b->len)
		return;
	if (*header_pending) {
		tr_output_puts(out, TR_FORMAT_HEADER "\n");
		*header_pending = 0;
	}
	tr_output_sb(out, b);
	sb_clear(b);
}

/* The input, read here or a few traces ahead on a thread of its own. */
typedef struct filter_input {
	tr_reader *r;
	tr_ahead *ahead;	/* NULL: read here */
} filter_input;

static enum tr_next
input_next(filter_input *in, tr_trace **t, const char **line, size_t *len)
{
	return in->ahead ? tr_ahead_next(in->ahead, t, line, len) : tr_reader_next(in->r, t, line, len);
}

static const char *
input_where(filter_input *in)
{
	return in->ahead ? tr_ahead_where(in->ahead) : tr_reader_where(in->r);
}

/* The reader's counts as of the last trace taken (read ahead: not those of
 * what the thread has read since). */
static tr_read_counts
input_counts(filter_input *in)
{
	return in->ahead ? tr_ahead_counts(in->ahead) : tr_reader_counts(in->r);
}

/* Per line: the reader's own counts, not all of them at once */
static void
input_tick(filter_input *in, tr_progress *p)
{
	if (in->ahead) {
		tr_read_counts c = tr_ahead_counts(in->ahead);

		tr_progress_tick(p, c.bytes, c.traces);
	} else
		tr_progress_tick(p, tr_reader_bytes(in->r), tr_reader_traces(in->r));
}

/* Stop reading ahead; 0 when the thread still holds the reader (stopped
 * before the end). */
static int
input_stop(filter_input *in)
{
	return in->ahead ? tr_ahead_finish(in->ahead) : 1;
}

/* One run of the loop: the input, the output and what was counted. */
typedef struct filter_run {
	const tr_filter *f;
	filter_input in;
	tr_output *out;
	strbuf b;
	int header_pending;
	tr_filter_counts c;
	size_t failed;		/* traces on_trace failed */
	tr_where *where;	/* --where, parsed */
} filter_run;

/* --where's EXPR, checked when the option was given. */
static tr_where *
where_parse(const char *src)
{
	char err[256];
	size_t errpos = 0;
	tr_where *w = src ? tr_where_parse(src, err, sizeof err, &errpos) : NULL;

	if (src && !w)
		tr_usage_error("--where: %s at offset %zu in \"%s\"", err, errpos, src);
	return w;
}

const char *
tr_where_option(const char *arg)
{
	tr_where_free(where_parse(arg));
	return arg;
}

static tr_reader *
open_reader(const tr_filter *f, const tr_where *where, char **files, int nfiles, char *const *names,
	    int flags)
{
	if (where && tr_where_reads_tags(where))
		flags &= ~TR_READ_NO_SPAN_TAGS;
	return tr_reader_open(files, nfiles, names, f->max_spans, f->max_bytes,
			      flags | (f->keep_going ? TR_READ_KEEP_GOING : 0));
}

/* A trace to the tool: returns TR_BAD when on_trace failed it. */
static enum tr_next
take_trace(filter_run *run, tr_trace *t)
{
	const tr_filter *f = run->f;
	size_t mark = run->b.len;

	if (run->where && !tr_where_keep(run->where, t))
		return TR_TRACE;
	run->c.kept++;
	int rc = f->on_trace(f->ctx, t, &run->b);

	if (rc < 0) {
		run->b.len = mark;	/* nothing of a failed trace is written */
		run->failed++;
		return TR_BAD;
	}
	if (rc > 0) {
		emit(run->out, &run->b, &run->header_pending);
		tr_output_flush(run->out);
	}
	return TR_TRACE;
}

static void
take_line(filter_run *run, const char *line, size_t len)
{
	const tr_filter *f = run->f;

	if (f->on_line)
		f->on_line(f->ctx, line, len, input_where(&run->in), &run->b);
	else if (f->pass_through) {
		sb_add(&run->b, line, len);
		sb_addc(&run->b, '\n');
	}
}

/* The loop proper; returns TR_EXIT_INPUT when it stopped at a bad trace. */
static int
read_all(filter_run *run)
{
	tr_progress progress;
	int status = TR_EXIT_OK;

	tr_progress_init(&progress);
	if (run->f->nfiles)
		tr_progress_set_inputs(&progress, run->f->files, (size_t)run->f->nfiles);
	for (;;) {
		tr_trace *t = NULL;
		const char *line = NULL;
		size_t len = 0;
		enum tr_next n = input_next(&run->in, &t, &line, &len);

		if (n == TR_EOF)
			break;
		if (n == TR_LINE)
			take_line(run, line, len);
		else if (n == TR_TRACE)
			n = take_trace(run, t);
		if (n == TR_BAD && !run->f->keep_going) {
			status = TR_EXIT_INPUT;
			run->c.stopped = 1;
			break;
		}
		if (run->b.len >= TR_SPILL_BYTES)	/* after the header: not tr_output_spill */
			emit(run->out, &run->b, &run->header_pending);
		input_tick(&run->in, &progress);
	}
	tr_progress_done(&progress);
	return status;
}

/* Nothing to answer about: an empty input, or --where keeping no trace.
 * Returns the status; on_end is not called, -o FILE is not made. */
static int
nothing_to_answer(filter_run *run, tr_reader *r)
{
	const tr_filter *f = run->f;
	int status = run->c.nothing ? tr_reader_empty_error(r) : tr_where_none(run->where, run->c.traces);

	tr_output_discard(run->out);
	return f->verdict ? f->verdict(f->ctx, &run->c, status) : status;
}

static int
finish(filter_run *run, int status)
{
	const tr_filter *f = run->f;

	emit(run->out, &run->b, &run->header_pending);
	if (run->header_pending && f->end_writes_records && status == TR_EXIT_OK)
		tr_output_puts(run->out, TR_FORMAT_HEADER "\n");
	if ((status == TR_EXIT_OK || f->end_on_stop) && f->on_end)
		f->on_end(f->ctx, run->out);
	if (run->c.bad)
		status = TR_EXIT_INPUT;
	/* standard output goes out before the verdict's lines, as it comes */
	int to_file = f->out_path && strcmp(f->out_path, "-") != 0;
	if (!to_file)
		tr_output_end(run->out, !run->c.stopped);
	if (!f->verdict || f->loop_summary) {
		tr_filter_summary(f, &run->c);
		if (f->where && f->verbose)
			tr_where_summary(run->c.kept, run->c.traces);
	}
	if (f->verdict)
		status = f->verdict(f->ctx, &run->c, status);
	if (f->verdict && !f->loop_summary && f->where && f->verbose)
		tr_where_summary(run->c.kept, run->c.traces);
	/* -o FILE is replaced by a complete result only: not when the loop
	 * stopped at bad input, nor when the verdict says the run answered
	 * nothing (a selector that matched nothing, nothing to draw); with -k,
	 * the good traces of an input with bad ones are a complete result.
	 * Standard output has whole traces. */
	if (to_file)
		tr_output_end(run->out, !run->c.stopped && (status == TR_EXIT_OK || status == TR_EXIT_FINDING ||
							    (status == TR_EXIT_INPUT && run->c.bad)));
	return status;
}

void
tr_filter_summary(const tr_filter *f, const tr_filter_counts *c)
{
	if (f->verbose || (c->bad && f->keep_going))
		tr_warn("%zu traces read, %zu bad", c->traces + c->bad, c->bad);
	if (f->verbose && c->stopped)
		tr_warn("stopped at the first bad trace; -k goes on");
}

static int
clocks_estimated(const tr_filter *f)
{
	return f->clock_offsets && !*f->clock_offsets;
}

static void
add_clock_trace(void *ctx, tr_trace *t)
{
	tr_clock_add_trace(ctx, t);
}

/* --clock-offsets without a file: the offsets of the RPCs of the traces
 * --where keeps (all of them: a quick scan of the line format). */
static tr_offsets *
estimate_clocks(const tr_filter *f, char **files, int nfiles, char *const *names)
{
	tr_clock *c;

	if (f->where) {
		c = tr_clock_new();
		tr_filter_each(f, files, nfiles, names, add_clock_trace, c);
		tr_clock_solve(c);
	} else
		c = tr_clock_from_inputs(files, nfiles, names, f->max_spans, f->max_bytes,
					 (f->keep_going ? TR_READ_KEEP_GOING : 0) |
					 (f->quiet ? TR_READ_NO_NOTES : 0));
	return tr_offsets_of_clock(c);
}

/* The first pass's inputs: standard input and pipes spooled, read again. */
static void
first_pass(tr_filter *f, tr_inputs *in)
{
	tr_inputs_twice(in, f->files, f->nfiles);
	if (clocks_estimated(f))
		f->offsets = estimate_clocks(f, in->files, in->n, in->names);
	if (f->first_pass)
		f->first_pass(f->ctx, f, in->files, in->n, in->names);
}

/* The offsets into a reader: every span moved, or (the tool moves them)
 * the hosts noted for the records' check. */
static void
shift_reader(const tr_filter *f, tr_reader *r)
{
	if (f->offsets && !f->clock_by_tool)
		tr_reader_set_shift(r, tr_offsets_shift, f->offsets);
	else if (f->offsets && !clocks_estimated(f))
		tr_reader_set_shift(r, tr_offsets_note, f->offsets);
}

/* After the loop: -v's report, and the records' hosts no span had. */
static void
report_clocks(const tr_filter *f)
{
	if (f->verbose && !f->clock_by_tool)
		tr_offsets_report(f->offsets);
	tr_offsets_unseen(f->offsets);
}

static int
run_loop(tr_filter *f)
{
	filter_run run = {.f = f, .header_pending = f->pass_through};
	tr_inputs twice = {0};
	int status, two = f->first_pass || clocks_estimated(f);

	if (f->clock_offsets && !clocks_estimated(f))
		f->offsets = tr_offsets_read(f->clock_offsets);
	if (two)
		first_pass(f, &twice);
	int flags = (f->verbose ? TR_READ_VERBOSE : 0) | (f->no_span_tags ? TR_READ_NO_SPAN_TAGS : 0) |
		    (f->quiet ? TR_READ_NO_NOTES : 0);
	run.where = where_parse(f->where);
	tr_reader *r = two ? open_reader(f, run.where, twice.files, twice.n, twice.names, flags)
			   : open_reader(f, run.where, f->files, f->nfiles, f->names, flags);

	shift_reader(f, r);
	run.in.r = r;
	run.out = tr_output_open(f->out_path, 0);
	if (f->read_ahead)
		run.in.ahead = tr_ahead_start(r);
	status = read_all(&run);
	/* stopped before the end: a reading thread still holds r */
	tr_read_counts counts = input_counts(&run.in);
	int r_free = input_stop(&run.in);

	if (f->offsets)
		report_clocks(f);
	run.c.traces = counts.traces;
	run.c.bad = counts.bad + run.failed;
	run.c.nothing = counts.nothing;
	if (!f->where)
		run.c.kept = counts.traces;
	if (status == TR_EXIT_OK && !f->allow_empty && counts.nothing)
		status = nothing_to_answer(&run, r);
	else if (status == TR_EXIT_OK && f->where && counts.traces && !run.c.kept)
		status = nothing_to_answer(&run, r);
	else
		status = finish(&run, status);
	sb_free(&run.b);
	if (r_free)
		tr_reader_free(r);
	tr_inputs_free(&twice);
	tr_where_free(run.where);
	return status;
}

/* On a copy of f, so that the loop's passes share the offsets it sets. */
int
tr_filter_run(const tr_filter *f)
{
	tr_filter g = *f;

	g.offsets = NULL;
	int status = run_loop(&g);

	tr_offsets_free(g.offsets);
	return status;
}

int
tr_units_option(const char *arg)
{
	int u = table_units_parse(arg);

	if (u < 0)
		tr_usage_error("--units: us, ms, s or auto, not \"%s\"", arg);
	return u;
}

void
tr_units_check(int units, int machine_format)
{
	if (units == TABLE_AUTO && machine_format)
		tr_usage_error("--units auto writes text for people: with -f csv or json, "
			       "choose us, ms or s");
}

/* The long options whose names begin with the len bytes of name: the exact
 * one alone when there is one, as getopt_long takes it. */
static size_t
long_matches(const struct option *longopts, const char *name, size_t len,
	     const struct option **found, size_t max)
{
	size_t n = 0;

	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len) {
			found[0] = o;
			return 1;
		}
		if (n < max)
			found[n] = o;
		n++;
	}
	return n;
}

static _Noreturn void
long_option_error(int c, const char *arg, const struct option *longopts)
{
	const struct option *found[8];
	const char *names[256];
	size_t len = strcspn(arg, "="), n, nnames = 0;
	char list[256] = "";

	n = long_matches(longopts, arg, len, found, 8);
	if (n == 1 && c == ':')
		tr_usage_error("option --%s needs an argument", found[0]->name);
	if (n == 1)
		tr_usage_error("option --%s takes no argument", found[0]->name);
	if (n > 1) {
		for (size_t i = 0; i < n && i < 8; i++) {
			strncat(list, i ? ", --" : "--", sizeof list - strlen(list) - 1);
			strncat(list, found[i]->name, sizeof list - strlen(list) - 1);
		}
		tr_usage_error("option --%.*s is ambiguous: %s", (int)len, arg, list);
	}
	for (const struct option *o = longopts; o->name && nnames < 256; o++)
		names[nnames++] = o->name;
	char typed[128];
	snprintf(typed, sizeof typed, "%.*s", (int)len, arg);
	const char *near = closest_name(typed, names, nnames);
	if (near)
		tr_usage_error("unknown option --%.*s (did you mean --%s?)", (int)len, arg, near);
	tr_usage_error("unknown option --%.*s", (int)len, arg);
}

void
tr_option_error(int c, char **argv, const struct option *longopts)
{
	/* getopt_long has moved past a long option it failed on, and past a
	 * short one needing an argument; optopt is 0 for an unknown or
	 * ambiguous long option, the option's value for the others. */
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (strncmp(arg, "--", 2) == 0 && arg[2]) {
		const struct option *found[1];
		size_t len = strcspn(arg + 2, "=");

		if (optopt == 0 || (long_matches(longopts, arg + 2, len, found, 1) == 1 &&
				    found[0]->val == optopt))
			long_option_error(c, arg + 2, longopts);
	}
	if (c == ':')
		tr_usage_error("option -%c needs an argument", optopt);
	if (optopt > ' ' && optopt < 0x7f)
		tr_usage_error("unknown option -%c", optopt);
	tr_usage_error("unknown option %s", arg);
}

long
tr_each_trace(char **files, char *const *names, int nfiles, int keep_going, size_t max_spans,
	      size_t max_bytes, void (*fn)(void *ctx, tr_trace *t), void *ctx)
{
	return tr_each_trace_flags(files, names, nfiles, keep_going ? TR_READ_KEEP_GOING : 0, max_spans,
				   max_bytes, fn, ctx);
}

/* tr_filter_each's trace: the --where test before the tool's function. */
typedef struct each_where {
	tr_where *where;
	void (*fn)(void *ctx, tr_trace *t);
	void *ctx;
} each_where;

static void
each_kept(void *ctx, tr_trace *t)
{
	each_where *e = ctx;

	if (tr_where_keep(e->where, t))
		e->fn(e->ctx, t);
}

/* Every trace of r to fn; returns the traces, or -1 when it stopped at a
 * bad one. */
static long
each_trace(tr_reader *r, int flags, void (*fn)(void *ctx, tr_trace *t), void *ctx)
{
	tr_ahead *ahead = tr_ahead_start(r);	/* parsing overlaps fn's work */
	int keep_going = (flags & TR_READ_KEEP_GOING) != 0;
	long n = 0;
	int bad = 0;

	for (;;) {
		tr_trace *t;
		const char *line;
		size_t len;
		enum tr_next next = tr_ahead_next(ahead, &t, &line, &len);

		if (next == TR_EOF)
			break;
		if (next == TR_BAD) {
			bad = 1;	/* the reader said what */
			if (!keep_going)
				break;
		}
		if (next != TR_TRACE)
			continue;
		n++;
		fn(ctx, t);
	}
	if (tr_ahead_finish(ahead))
		tr_reader_free(r);
	return bad && !keep_going ? -1 : n;
}

long
tr_filter_each(const tr_filter *f, char **files, int nfiles, char *const *names,
	       void (*fn)(void *ctx, tr_trace *t), void *ctx)
{
	int flags = (f->keep_going ? TR_READ_KEEP_GOING : 0) | TR_READ_QUIET;
	each_where e = {where_parse(f->where), fn, ctx};
	tr_reader *r = tr_reader_open(files, nfiles, names, f->max_spans, f->max_bytes, flags);
	long n;

	shift_reader(f, r);
	n = each_trace(r, flags, e.where ? each_kept : fn, e.where ? (void *)&e : ctx);
	tr_where_free(e.where);
	return n;
}

long
tr_each_trace_flags(char **files, char *const *names, int nfiles, int flags, size_t max_spans,
		    size_t max_bytes, void (*fn)(void *ctx, tr_trace *t), void *ctx)
{
	return each_trace(tr_reader_open(files, nfiles, names, max_spans, max_bytes, flags), flags, fn,
			  ctx);
}
