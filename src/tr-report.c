/* tr-report - one command from traces (the line format or an export) to
 * a report a postmortem can paste: HTML, or Markdown with SVG files beside
 * it. See tr-report(1). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp_flame.h"
#include "filter.h"
#include "core/shard.h"
#include "report/report.h"
#include "where.h"

enum { OPT_BASELINE = 256, OPT_TOP, OPT_PERCENTILE, OPT_MIN_SHARE, OPT_KEEP_STREAMS, OPT_PARTIAL,
       OPT_MERGE, OPT_PAGE, OPT_CHOSEN };

static const struct option longopts[] = {
	{"format", required_argument, NULL, 'f'},
	{"baseline", required_argument, NULL, OPT_BASELINE},
	{"top", required_argument, NULL, OPT_TOP},
	{"percentile", required_argument, NULL, OPT_PERCENTILE},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"keep-streams", no_argument, NULL, OPT_KEEP_STREAMS},
	{"partial", no_argument, NULL, OPT_PARTIAL},
	{"merge", no_argument, NULL, OPT_MERGE},
	{"page", no_argument, NULL, OPT_PAGE},
	{"chosen", required_argument, NULL, OPT_CHOSEN},
	TR_COMMON_LONGOPTS,
	{NULL, 0, NULL, 0}
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: tr-report [-kqv] [-f html|md] [-o FILE] [--baseline FILE] [--top N]\n"
	    "                 [--percentile P,...] [--min-share F]\n"
	    "                 [--keep-streams] [FILE...]\n"
	    "       tr-report --partial [--chosen CHOSEN] [OPTION...] [FILE...]\n"
	    "       tr-report --merge [--page] [--top N] [--keep-streams]\n"
	    "                 [--percentile P,...] [-o FILE]\n"
	    "                 [PARTIAL...]\n"
	    "A report of the traces: inputs, slowest requests with their timelines, latency\n"
	    "per operation, critical-path time per service with flame graphs, tr-temporal's\n"
	    "top causes, the service graph, and the comparison with a baseline.\n"
	    "  -f, --format FMT        html (default: one self-contained page) or md\n"
	    "                          (Markdown, pictures as SVG files beside -o FILE)\n"
	    "      --baseline FILE     compare with FILE's traces (e.g. yesterday's)\n"
	    "      --top N             slowest requests drawn and explained (default 5)\n"
	    "      --percentile P,...  flame graphs for the traces around these latency\n"
	    "                          percentiles (default 50,95,99)\n"
	    "      --min-share F       timelines fold subtrees holding at most F of the\n"
	    "                          critical path into one row (default 0)\n"
	    "      --keep-streams      rank long-lived streams (a root operation naming a\n"
	    "                          Stream) among the slowest requests\n"
	    "      --partial           a shard's sums and candidates for the slowest\n"
	    "                          requests, to merge, in place of the page\n"
	    "      --chosen CHOSEN     with --partial: phase 2, given the merge of phase 1\n"
	    "                          (adds the critical path's sums and flame graphs)\n"
	    "      --merge             the slowest requests of the partials' shards, one\n"
	    "                          after the other (the chosen traces, as a partial)\n"
	    "      --page              with --merge: the page of those shards (from phase\n"
	    "                          1's partials, but its critical path, causes and\n"
	    "                          timelines)\n"
	    "  -o, --output FILE       write to FILE (atomically); md needs it\n"
	    "  -k, --keep-going        skip bad traces instead of stopping\n"
	    "  -q, --quiet             no count of skipped traces on stderr\n"
	    "  -v, --verbose           counts on stderr at the end\n"
	    "      --allow-empty       an input with no trace gives a report that says so\n"
	    TR_FILES_FROM_USAGE
	    TR_WHERE_USAGE
	    TR_LIMIT_USAGE
	    "  -h, --help              this help\n"
	    "      --version           the version\n");
}

/* One option of tr-report's own into o; 0 when it is none. */
static int
report_option(report_opts *o, int opt, const char *arg)
{
	static const char *const formats[] = {"html", "md", NULL};
	int n;

	switch (opt) {
	case 'f': o->markdown = tr_arg_choice("-f", "format", arg, formats); break;
	case OPT_BASELINE: o->baseline = arg; break;
	case OPT_TOP: o->top = (size_t)tr_arg_count("--top", arg, 1, 100); break;
	case OPT_PERCENTILE:
		if ((n = cp_percentiles_parse(arg, o->pct, sizeof o->pct / sizeof o->pct[0])) < 0)
			tr_usage_error("--percentile: not a list of 1 to 16 percentiles from 1 to 100: %s",
				       arg);
		o->npct = (size_t)n;
		break;
	case OPT_MIN_SHARE: o->min_share = tr_arg_share("--min-share", arg); break;
	case OPT_KEEP_STREAMS: o->keep_streams = 1; break;
	case OPT_PARTIAL: o->partial = 1; break;
	case OPT_MERGE: o->merge = 1; break;
	case OPT_PAGE: o->page = 1; break;
	case OPT_CHOSEN: o->chosen = arg; break;
	default: return 0;
	}
	return 1;
}

/* A report over what was read: stopped at a bad trace, an empty input
 * or --where keeping nothing is none (the loop said why); no request
 * with a timed root is none either. */
static int
verdict(report *r, const report_opts *o, int status)
{
	report_counts n = report_counts_get(r);
	const tr_filter_counts *c = &n.read;

	if (status && !(status == TR_EXIT_INPUT && c->bad && !c->stopped))
		return status;
	if (o->verbose && o->where)
		tr_where_summary(c->kept, c->traces);
	if (o->partial)
		report_write_partial(r);
	else if (!n.analysed && (n.traces || !o->allow_empty)) {
		tr_warn("%zu traces read, none with a timed root: nothing to report", n.traces);
		return TR_EXIT_INPUT;
	} else
		report_write_out(r);
	if (c->bad) {
		if (!o->quiet)	/* each was told; -q: the status alone says so */
			tr_warn("%zu traces read, %zu bad (skipped)", n.traces, c->bad);
		return TR_EXIT_INPUT;
	}
	if (o->verbose)
		tr_warn("%zu traces read, %zu spans, %zu with a timed root", n.traces, n.spans,
			n.analysed);
	return TR_EXIT_OK;
}

/* The baseline, then one pass over the input through the read loop
 * (notes of exports said unless -q; no reader's -v: the summary is the
 * report's), then the page (--partial: the shard's partial). */
static int
run(const report_opts *o)
{
	if (o->merge)	/* partials, not traces */
		return report_merge(o);
	report *r = report_new(o);
	tr_filter f = {.files = o->files, .nfiles = o->nfiles, .keep_going = o->keep_going,
		       .quiet = o->quiet, .allow_empty = o->allow_empty, .max_spans = o->max_spans,
		       .max_bytes = o->max_bytes, .where = o->where, .on_trace = report_trace,
		       .on_end = report_end, .verdict = report_read, .ctx = r};
	int status = report_read_baseline(r);

	if (status == TR_EXIT_OK)
		status = verdict(r, o, tr_filter_run(&f));
	report_free(r);
	return status;
}

int
main(int argc, char **argv)
{
	report_opts o = {.top = 5};
	tr_filter f = {0};
	tr_filelist from = {0};
	int opt;

	tr_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, ":f:ko:qvh", longopts, NULL)) != -1) {
		if (opt == 'h' || opt == TR_OPT_VERSION) {
			(opt == 'h' ? usage(stdout) : tr_print_version());
			return TR_EXIT_OK;
		}
		if (!report_option(&o, opt, optarg) && !tr_filter_option(&f, &from, opt, optarg))
			tr_option_error(opt, argv, longopts);
	}
	if ((o.partial || o.merge) && (o.markdown || o.baseline))
		tr_usage_error("--partial and --merge: -f md and --baseline have no partial form");
	if (o.page && !o.merge)
		tr_usage_error("--page: only with --merge");
	if (o.chosen && !o.partial)
		tr_usage_error("--chosen: only with --partial");
	if (o.partial && o.merge)
		tr_usage_error("--partial and --merge: one at a time");
	if (o.markdown && !f.out_path)
		tr_usage_error("-f md writes its pictures beside the report: give -o FILE");
	o.keep_going = f.keep_going;
	o.allow_empty = f.allow_empty;
	o.out_path = f.out_path;
	o.quiet = f.quiet;
	o.verbose = f.verbose;
	o.max_spans = f.max_spans;
	o.max_bytes = f.max_bytes;
	o.where = f.where;
	o.files = tr_filelist_with(&from, argv + optind, argc - optind, &o.nfiles);
	return run(&o);
}
