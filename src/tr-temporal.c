/* tr-temporal - temporal provenance: why a request took as long as it did,
 * with the causes that are in other traces. See tr-temporal(1). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/shard.h"
#include "core/pick.h"
#include "core/table.h"
#include "temporal/temporal.h"
#include "infer/hb.h"
#include "core/util.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tr-temporal [-kqv] [-f line|explain|dot|csv|json] [--explain] [--dot]\n"
		"                   [-w N] [-r KEY] [-c RESOURCE=K ...] [-t ID ...]\n"
		"                   [--span ID] [--end-to-end] [--from EVENT --to EVENT]\n"
		"                   [--no-infer-queues] [--clock-offsets[=F|none]]\n"
		"                   [--min-share S] [--units U] [--check [--allow-empty]]\n"
		"                   [-o FILE] [FILE...]\n"
		"       tr-temporal --baseline FILE [--band P] [-f csv|json] [options] [FILE...]\n"
		"Split each trace's root duration (from its recorded arrival, if any) among\n"
		"its causes (Zeno temporal provenance), blockers in other traces of the\n"
		"window included.\n"
		"  -f, --format F          line (default: tags and D records), explain, dot, or\n"
		"                          the causes as a table: csv, json\n"
		"      --explain           same as -f explain: ranked causes and the annotated\n"
		"                          tree\n"
		"      --dot               same as -f dot: the annotated provenance graph\n"
		TABLE_UNITS_USAGE
		"  -w, --window N          traces buffered around each queried one (default 1000)\n"
		"  -r, --resource-key K    span tag that refines a resource (thread, lock, queue)\n"
		"  -c, --capacity R=K      resource R has K parallel workers (default: as many as\n"
		"                          its segments overlap)\n"
		"  -t, --trace ID          query this trace only (repeatable); others still block\n"
		"      --trace-file FILE   the same for the ids in FILE, one per line\n"
		"      --span ID           explain span ID (in the traces that have it), not\n"
		"                          the request's root\n"
		"      --end-to-end        explain from the root's start to the last end below\n"
		"                          it (asynchronous work the root did not wait for)\n"
		"      --from EVENT        with --to: explain the delay between two events of\n"
		"                          a trace: SPAN:start, SPAN:end or SPAN:log=NAME\n"
		"                          (SPAN: an id, or service:operation)\n"
		"      --to EVENT          the event that ends the delay (see --from)\n"
		"      --no-infer-queues   a late server or consumer without a recorded queue\n"
		"                          wait started on arrival (no queueing inferred)\n"
		"      --no-clock-offsets  clocks as recorded; --clock-offsets=F: F's O records\n"
		"      --baseline FILE     the slow requests' causes against FILE's requests\n"
		"                          of the same operations: which are new or grew\n"
		"      --band P            --baseline: the slow requests are those at or above\n"
		"                          the P-th percentile of their operation (90 or 90%%;\n"
		"                          default 90)\n"
		"      --min-share S       --dot: leave out nodes under a share S of the delay:\n"
		"                          a fraction or N%% (default 1%%)\n"
		"      --check             exit 1 when an invariant of an annotation breaks, or\n"
		"                          when no trace was analysed\n"
		TR_FILES_FROM_USAGE
		TR_WHERE_USAGE HB_USAGE
		"      --allow-empty       no trace in the input, or none analysed by\n"
		"                          --check, --explain, csv or json, is not an error\n"
		"  -o, --output FILE       write to FILE (via a temporary file)\n"
		"  -k, --keep-going        skip bad traces instead of stopping\n"
		"  -q, --quiet             no warnings about skipped traces\n"
		"  -v, --verbose           a summary on stderr\n"
		TR_LIMIT_USAGE
		"  -h, --help              this help\n"
		"      --version           the version\n");
}

enum { OPT_EXPLAIN = 256, OPT_DOT, OPT_CHECK, OPT_TRACE_FILE,
       OPT_NO_INFER, OPT_NO_CLOCK, OPT_SPAN, OPT_END_TO_END, OPT_MIN_SHARE, OPT_BASELINE,
       OPT_BAND, OPT_FROM, OPT_TO };

static const struct option longopts[] = {
	{"format", required_argument, NULL, 'f'}, {"explain", no_argument, NULL, OPT_EXPLAIN},
	{"dot", no_argument, NULL, OPT_DOT}, {"window", required_argument, NULL, 'w'},
	{"resource-key", required_argument, NULL, 'r'}, {"capacity", required_argument, NULL, 'c'},
	{"trace", required_argument, NULL, 't'}, {"check", no_argument, NULL, OPT_CHECK},
	{"trace-file", required_argument, NULL, OPT_TRACE_FILE},
	{"no-infer-queues", no_argument, NULL, OPT_NO_INFER},
	{"no-clock-offsets", no_argument, NULL, OPT_NO_CLOCK}, TR_CLOCK_LONGOPT,
	{"span", required_argument, NULL, OPT_SPAN}, {"end-to-end", no_argument, NULL, OPT_END_TO_END},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"baseline", required_argument, NULL, OPT_BASELINE}, {"band", required_argument, NULL, OPT_BAND},
	{"from", required_argument, NULL, OPT_FROM}, {"to", required_argument, NULL, OPT_TO},
	TR_UNITS_LONGOPT, HB_LONGOPTS,
	TR_COMMON_LONGOPTS,
	{NULL, 0, NULL, 0}
};

/* What the command line says, before the run sees it. */
typedef struct cli {
	tp_opts o;
	tr_filter f;		/* the common options */
	tr_filelist from;
	tr_pick *pick;
	int units, format_set;
	const char *baseline;
	double band;
	tp_event ev_from, ev_to;	/* --from, --to */
} cli;

/* One option of tr-temporal's own into c; 0 when it is none. */
static int
temporal_option(cli *c, tp_capacity *caps, int opt, char *arg)
{
	static const char *const formats[] = {"line", "explain", "dot", "csv", "json", NULL};	/* enum tp_format */
	tp_opts *o = &c->o;
	char err[256];

	switch (opt) {
	case 'f': o->format = tr_arg_choice("-f", "format", arg, formats); c->format_set = 1; break;
	case OPT_EXPLAIN: o->format = TP_EXPLAIN; c->format_set = 1; break;
	case OPT_DOT: o->format = TP_DOT; c->format_set = 1; break;
	case 'w': o->window = (size_t)tr_arg_count("--window", arg, 1, INT_MAX); break;
	case 'r': o->resource_key = arg; break;
	case 'c': tp_capacity_option(o, caps, arg); break;
	case 't': tr_pick_add(c->pick, arg); break;
	case OPT_TRACE_FILE:
		if (tr_pick_add_file(c->pick, arg, err, sizeof err) < 0)
			tr_usage_error("--trace-file: %s", err);
		break;
	case TR_OPT_UNITS: c->units = tr_units_option(arg); break;
	case OPT_NO_INFER: o->infer_queues = 0; break;
	case OPT_SPAN: o->span = arg; break;
	case OPT_END_TO_END: o->end_to_end = 1; break;
	case OPT_FROM: tp_event_parse(&c->ev_from, "--from", arg); o->from = &c->ev_from; break;
	case OPT_TO: tp_event_parse(&c->ev_to, "--to", arg); o->to = &c->ev_to; break;
	case OPT_MIN_SHARE: o->min_share = 100 * tr_arg_share("--min-share", arg); break;	/* kept as a percentage */
	case OPT_BASELINE: c->baseline = arg; break;
	case OPT_BAND: c->band = tr_arg_percentile("--band", arg); break;
	case OPT_CHECK: o->check = 1; break;
	default: return hb_option(&o->model, &o->name, opt, arg);
	}
	return 1;
}

/* The options that go with some others only. */
static void
check_options(cli *c)
{
	tp_opts *o = &c->o;

	if (o->min_share >= 0 && o->format != TP_DOT)
		tr_usage_error("--min-share goes with --dot");
	tp_events_check(o, c->baseline != NULL);
	if (c->band >= 0 && !c->baseline)
		tr_usage_error("--band goes with --baseline");
	if (c->baseline && ((c->format_set && o->format != TP_CSV && o->format != TP_JSON) ||
			    o->check || o->span || o->end_to_end || !tr_pick_all(c->pick)))
		tr_usage_error("--baseline writes a table (-f csv or json) of whole requests' causes: "
			       "not with --check, --span, --end-to-end or -t");
	if (c->baseline && c->f.where)
		tr_usage_error("--where filters one input: not with --baseline");
	if (c->baseline && !c->format_set)
		o->format = TP_CSV;
	if (o->min_share < 0)	/* a readable picture by default: causes of 1 % and more */
		o->min_share = 1;
	if (c->units < 0 && (o->format == TP_CSV || o->format == TP_JSON))
		c->units = TABLE_US;
	else if (c->units < 0 && o->format == TP_DOT)	/* a picture is for people */
		c->units = TABLE_AUTO;
	else if (c->units >= 0 && o->format == TP_LINE)
		tr_usage_error("--units goes with -f explain, dot, csv or json: the tags are µs");
	tr_units_check(c->units, o->format == TP_CSV || o->format == TP_JSON);
}

typedef struct temporal_run {
	tp_job job;		/* first: the filter's ctx is both */
	const tr_filter *f;
} temporal_run;

/* An answer about no trace is no answer: a -t id no trace has, a --span
 * no trace has (their own message, exit 2), nothing analysed. */
static int
answered(const tp_opts *o, const tp_stats *st, int status)
{
	if (status || st->halo_short)	/* a halo too small: said */
		return status ? status : TR_EXIT_INPUT;
	if (o->check && st->violations)
		return TR_EXIT_FINDING;
	if (o->check && !st->analysed && !o->allow_empty)
		return tp_check_empty(st);
	if (!st->analysed && !o->allow_empty && st->queried && !(o->from || (o->span && !st->span_found)) &&
	    (o->format == TP_EXPLAIN || o->format == TP_CSV || o->format == TP_JSON)) {
		tr_warn("%zu traces read, none analysed (no timed root): nothing to explain",
			st->traces);
		return TR_EXIT_INPUT;
	}
	return TR_EXIT_OK;
}

static int
verdict(void *ctx, const tr_filter_counts *c, int status)
{
	const temporal_run *x = ctx;
	const tp_opts *o = &x->job.o;
	const tp_stats *st = tp_stats_get(x->job.tp);
	int findable = 0;

	status = tp_events_verdict(x->job.tp, answered(o, st, c->bad ? TR_EXIT_INPUT : status));
	status = tp_model_verdict(x->job.tp, status, x->f->verbose);
	/* --span naming a span no trace has answered nothing: say so, fail */
	if (o->span && !st->span_found) {
		tr_warn("--span %s: no trace has this span", o->span);
		if (status == TR_EXIT_OK || status == TR_EXIT_FINDING)
			status = TR_EXIT_USAGE;
	}
	/* -r naming a tag no span has would refine no resource: fail */
	if (tp_resource_key_missing(x->job.tp) && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	findable = status == TR_EXIT_OK || status == TR_EXIT_FINDING;
	if (tp_unknown_capacities(x->job.tp) && findable)
		status = TR_EXIT_USAGE;
	if (x->f->verbose && x->job.clock)
		tp_report_clocks(x->job.clock);
	if (x->f->verbose || (c->bad && x->f->keep_going))
		tr_warn("%zu traces read, %zu analysed, %zu without a timed root, %zu bad; %zu causes",
			st->traces + c->bad, st->analysed, st->skipped, c->bad, st->causes);
	if (x->f->verbose && c->stopped)
		tr_warn("stopped at the first bad trace; -k goes on");
	if (o->check && st->violations)
		tr_warn("%zu invariant violations", st->violations);
	if (x->f->verbose)
		tp_report_overlaps(x->job.tp);
	/* an id no trace has was answered nothing: say so, fail */
	if (tr_pick_missing(o->pick, "--trace") && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
		status = TR_EXIT_USAGE;
	return status;
}

/* The analysis through the read loop; the verdict above. */
static int
run(const tp_run_opts *r, const tp_opts *o)
{
	tr_filter f = {.files = r->files, .nfiles = r->nfiles, .out_path = r->out_path,
		       .keep_going = r->keep_going, .verbose = r->verbose, .max_spans = r->max_spans,
		       .max_bytes = r->max_bytes, .where = r->where};
	temporal_run x = {.f = &f};

	tp_job_init(&x.job, &f, o, r->clock_offsets);
	f.verdict = verdict;
	int status = tr_filter_run(&f);

	tp_job_free(&x.job);
	return status;
}

int
main(int argc, char **argv)
{
	cli c = {.o = {.format = TP_LINE, .window = 1000, .infer_queues = 1, .min_share = -1},
		 .units = -1, .band = -1};
	tp_run_opts r = {.clock_offsets = TR_CLOCK_ESTIMATE};
	tp_capacity *caps = xcalloc((size_t)argc, sizeof *caps);
	int opt, status;

	tr_setprogname(argv[0]);
	c.pick = tr_pick_new();
	while ((opt = getopt_long(argc, argv, ":f:w:r:c:t:o:kqvh", longopts, NULL)) != -1) {
		if (opt == 'h' || opt == TR_OPT_VERSION) {
			(opt == 'h' ? usage(stdout) : tr_print_version());
			free(caps);
			tr_pick_free(c.pick);
			return TR_EXIT_OK;
		}
		if (opt == OPT_NO_CLOCK || opt == TR_OPT_CLOCK_OFFSETS)
			r.clock_offsets = opt == OPT_NO_CLOCK ? NULL : tr_clock_option(optarg);
		else if (!temporal_option(&c, caps, opt, optarg) &&
			 !tr_filter_option(&c.f, &c.from, opt, optarg))
			tr_option_error(opt, argv, longopts);
	}
	check_options(&c);
	c.o.units = c.units;
	c.o.caps = caps;
	c.o.pick = c.pick;
	c.o.quiet = c.f.quiet;
	c.o.allow_empty = c.f.allow_empty;
	r.out_path = c.f.out_path;
	r.keep_going = c.f.keep_going;
	r.verbose = c.f.verbose;
	r.max_spans = c.f.max_spans;
	r.max_bytes = c.f.max_bytes;
	r.where = c.f.where;
	r.files = tr_filelist_with(&c.from, argv + optind, argc - optind, &r.nfiles);
	if (c.baseline)
		status = tp_diff_run(&r, &c.o, c.baseline, c.band < 0 ? 90 : c.band);
	else
		status = run(&r, &c.o);
	free(caps);
	tr_pick_free(c.pick);
	return status;
}
