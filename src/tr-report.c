/* tr-report - one command from traces (the line format or an export) to
 * a report a postmortem can paste: HTML, or Markdown with SVG files beside
 * it. See tr-report(1). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp_flame.h"
#include "filter.h"
#include "core/shard.h"
#include "report/report.h"
#include "where.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: tr-report [-kqv] [-f html|md] [-o FILE] [--baseline FILE] [--top N]\n"
	    "                 [--percentile P,...] [--min-share F]\n"
	    "                 [--keep-streams] [FILE...]\n"
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

static size_t
parse_top(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 100)
		tr_die(TR_EXIT_USAGE, "--top: not a count from 1 to 100: %s", s);
	return (size_t)v;
}

static double
parse_share(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 1))
		tr_die(TR_EXIT_USAGE, "--min-share: not a fraction from 0 to 1: %s", s);
	return v;
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
	if (!n.analysed && (n.traces || !o->allow_empty)) {
		tr_warn("%zu traces read, none with a timed root: nothing to report", n.traces);
		return TR_EXIT_INPUT;
	}
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
 * report's), then the page. */
static int
run(const report_opts *o)
{
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
	enum { OPT_BASELINE = 256, OPT_TOP, OPT_PERCENTILE, OPT_MIN_SHARE, OPT_KEEP_STREAMS };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"top", required_argument, NULL, OPT_TOP},
		{"percentile", required_argument, NULL, OPT_PERCENTILE},
		{"min-share", required_argument, NULL, OPT_MIN_SHARE},
		{"keep-streams", no_argument, NULL, OPT_KEEP_STREAMS},
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	report_opts o = {.top = 5};
	tr_filelist from = {0};
	int opt, n;

	tr_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, ":f:ko:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (strcmp(optarg, "html") == 0)
				o.markdown = 0;
			else if (strcmp(optarg, "md") == 0)
				o.markdown = 1;
			else
				tr_die(TR_EXIT_USAGE, "-f: unknown format \"%s\" (html, md)", optarg);
			break;
		case OPT_BASELINE: o.baseline = optarg; break;
		case OPT_TOP: o.top = parse_top(optarg); break;
		case OPT_PERCENTILE:
			if ((n = cp_percentiles_parse(optarg, o.pct, sizeof o.pct / sizeof o.pct[0])) < 0)
				tr_die(TR_EXIT_USAGE, "--percentile: not a list of 1 to 16 percentiles "
				       "from 1 to 100: %s", optarg);
			o.npct = (size_t)n;
			break;
		case OPT_MIN_SHARE: o.min_share = parse_share(optarg); break;
		case OPT_KEEP_STREAMS: o.keep_streams = 1; break;
		case 'k': o.keep_going = 1; break;
		case TR_OPT_ALLOW_EMPTY: o.allow_empty = 1; break;
		case TR_OPT_FILES_FROM: tr_filelist_from(&from, optarg); break;
		case TR_OPT_WHERE: o.where = tr_where_option(optarg); break;
		case 'o': o.out_path = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'v': o.verbose = 1; break;
		case 'h': usage(stdout); return TR_EXIT_OK;
		case TR_OPT_VERSION: tr_print_version(); return TR_EXIT_OK;
		default:
			if (!tr_limit_option(opt, optarg, &o.max_spans, &o.max_bytes))
				tr_option_error(opt, argv, longopts);
			break;
		}
	}
	if (o.markdown && !o.out_path)
		tr_usage_error("-f md writes its pictures beside the report: give -o FILE");
	o.files = tr_filelist_with(&from, argv + optind, argc - optind, &o.nfiles);
	return run(&o);
}
