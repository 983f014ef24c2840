/* tr-cp - critical paths of traces: cp.self tags, sections, summaries,
 * folded stacks, DOT, what-if; and SnailTrail's critical participation
 * over PAG records (pagcp.h). The modes are cp/modes.h's. See tr-cp(1). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/shard.h"
#include "core/table.h"
#include "cp/cp.h"
#include "cp/cp_flame.h"
#include "cp/modes.h"
#include "filter.h"
#include "infer/hb.h"

enum { OPT_OVERLAP = 256, OPT_SECTIONS, OPT_SUMMARY, OPT_FOLDED, OPT_DOT,
       OPT_TRACE, OPT_TRACE_FILE, OPT_WHATIF, OPT_SVG, OPT_MIN_SHARE, OPT_WIDTH,
       OPT_FLAME, OPT_PERCENTILE, OPT_BASELINE, OPT_SUSPECTS, OPT_KEEP_STREAMS, OPT_PARTIAL,
       OPT_MERGE, OPT_RANKS, OPT_BANDS };

static const struct option longopts[] = {
	{"overlap-allowance", required_argument, NULL, OPT_OVERLAP},
	{"sections", no_argument, NULL, OPT_SECTIONS},
	{"summary", required_argument, NULL, OPT_SUMMARY},
	{"folded", no_argument, NULL, OPT_FOLDED},
	{"dot", no_argument, NULL, OPT_DOT},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"trace-file", required_argument, NULL, OPT_TRACE_FILE},
	{"whatif", required_argument, NULL, OPT_WHATIF},
	{"svg", no_argument, NULL, OPT_SVG},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"width", required_argument, NULL, OPT_WIDTH},
	{"flame", no_argument, NULL, OPT_FLAME},
	{"percentile", required_argument, NULL, OPT_PERCENTILE},
	{"baseline", required_argument, NULL, OPT_BASELINE},
	{"suspects", no_argument, NULL, OPT_SUSPECTS},
	{"keep-streams", no_argument, NULL, OPT_KEEP_STREAMS},
	{"partial", no_argument, NULL, OPT_PARTIAL},
	{"merge", no_argument, NULL, OPT_MERGE},
	{"ranks", no_argument, NULL, OPT_RANKS},
	{"bands", required_argument, NULL, OPT_BANDS},
	{"format", required_argument, NULL, 'f'},
	TR_UNITS_LONGOPT,
	{"max-windows", required_argument, NULL, TR_OPT_MAX_WINDOWS},
	TR_COMMON_LONGOPTS,
	TR_CLOCK_LONGOPT,
	HB_LONGOPTS,
	{NULL, 0, NULL, 0}
};

/* What the command line says, before the modes see it. */
typedef struct cli {
	cp_run_opts o;
	tr_filter f;
	tr_filelist from;
	int set_picture;
} cli;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: tr-cp [-kqv] [-o FILE] [--overlap-allowance F] [--sections] [FILE...]\n"
	    "       tr-cp --summary KEY [-f tsv|csv|json] [--units U] [options] [FILE...]\n"
	    "       tr-cp --folded | --dot [options] [FILE...]\n"
	    "       tr-cp --summary KEY | --folded | --whatif RULE... | --flame\n"
	    "             --partial | --merge [--partial] [FILE...]\n"
	    "       tr-cp --svg [--trace ID] [--min-share F] [--width PX] [FILE...]\n"
	    "       tr-cp --flame [--percentile P,...] [--baseline FILE] [options] [FILE...]\n"
	    "       tr-cp --flame --percentile P,... --partial [--bands FILE]\n"
	    "             | --merge [--ranks] [FILE...]\n"
	    "       tr-cp --summary service|operation --baseline FILE [options] [FILE...]\n"
	    "       tr-cp --summary KEY | --flame [--percentile P,...] --baseline SHARD\n"
	    "             --partial [--bands FILE] [FILE...] | --baseline - --merge [--ranks]\n"
	    "       tr-cp --suspects --baseline FILE [-f FMT] [options] [FILE...]\n"
	    "       tr-cp --whatif 'service=X[,operation=Y]:scale=F|minus=D'... [-f FMT]\n"
	    "             [options] [FILE...]\n"
	    "Critical path of every trace: tags spans with cp.self=<us>.\n"
	    "      --overlap-allowance F\n"
	    "                          siblings overlapping by less than F of their parent's\n"
	    "                          duration are sequential (default 0.01; 0 gives exactly\n"
	    "                          Jaeger UI's path)\n"
	    "      --sections          also write C records (Jaeger UI's sections)\n"
	    "      --summary KEY       table per service, operation or tag KEY\n"
	    "      --folded            critical-path time as folded stacks\n"
	    "      --partial           --summary, --whatif, --flame: a mergeable state;\n"
	    "                          --folded: the stacks (they add up as they are)\n"
	    "      --merge             --summary, --folded, --whatif, --flame: add up\n"
	    "                          partials (none: stdin);\n"
	    "                          exact, the output of one pass over all the traces\n"
	    "      --dot               span trees with the critical path in red\n"
	    "      --svg               the timeline of the slowest trace (of those --trace\n"
	    "                          picks) as SVG, critical path solid\n"
	    "      --min-share F       --svg: fold subtrees holding at most F of the\n"
	    "                          critical path into one row (default 0)\n"
	    "      --width PX          --svg, --flame: picture width (default 1000)\n"
	    "      --keep-streams      --svg, --flame: long-lived streams (a root operation\n"
	    "                          naming a Stream) rank among the slowest too\n"
	    "      --flame             flame graph (SVG) of critical-path time, all traces\n"
	    "      --percentile P,...  --flame: one graph more for the traces around each\n"
	    "                          percentile P of latency (e.g. 50,95,99)\n"
	    "      --ranks             --merge of phase 1 (--percentile, --baseline): bands\n"
	    "      --bands FILE        --partial, phase 2: --ranks's bands\n"
	    "      --baseline FILE     compare with FILE's traces: --summary service or\n"
	    "                          operation per request, with a test; --flame:\n"
	    "                          differential graphs\n"
	    "      --suspects          with --baseline: the services most likely to have\n"
	    "                          caused the change, ranked, with their evidence\n"
	    "      --trace ID          analyse only this trace (repeatable; with the\n"
	    "                          line-format output the others pass unchanged)\n"
	    "      --trace-file FILE   the same for the ids in FILE, one per line\n"
	    "      --whatif RULE       scale (or shorten by D) matching spans' own time and\n"
	    "                          predict latency; repeatable, rules apply together\n"
	    "  -f, --format FMT        table format: tsv (default), csv, json\n"
	    TABLE_UNITS_USAGE
	    "      --max-windows N     PAG records with more windows are bad input (default\n"
	    "                          1000000; 0: none)\n"
	    "  -o, --output FILE       write to FILE (atomically)\n"
	    "  -k, --keep-going        skip bad traces instead of stopping\n"
	    "  -q, --quiet             no notes on stderr\n"
	    "  -v, --verbose           counts on stderr at the end\n"
	    TR_ALLOW_EMPTY_USAGE
	    TR_FILES_FROM_USAGE
	    TR_WHERE_USAGE
	    TR_CLOCK_USAGE
	    HB_USAGE
	    TR_LIMIT_USAGE
	    "  -h, --help              this help\n"
	    "      --version           the version\n");
}

static void
set_mode(cp_run_opts *o, enum cp_mode m)
{
	if (o->mode != CP_MODE_FILTER && o->mode != m)
		tr_usage_error("--summary, --folded, --dot, --svg, --flame, --whatif and "
			       "--suspects exclude each other");
	o->mode = m;
}

/* One option of tr-cp's own into c; 0 when it is none. */
static int
cp_option(cli *c, int opt, const char *arg)
{
	static const char *const formats[] = {"tsv", "csv", "json", NULL};	/* enum cp_format */
	cp_run_opts *o = &c->o;
	char err[256];

	switch (opt) {
	case OPT_OVERLAP: o->allowance = tr_arg_real("--overlap-allowance", arg, 0, HUGE_VAL); break;
	case OPT_SVG: set_mode(o, CP_MODE_SVG); break;
	case OPT_MIN_SHARE: o->timeline.min_share = tr_arg_share("--min-share", arg); c->set_picture = 1; break;
	/* a picture narrower than 400 px has no room for labels and bars */
	case OPT_WIDTH: o->timeline.width = tr_arg_real("--width", arg, 400, 100000); break;
	case OPT_FLAME: set_mode(o, CP_MODE_FLAME); break;
	case OPT_PERCENTILE: cp_percentiles_option(o, arg); break;
	case OPT_BASELINE: o->baseline = arg; break;
	case OPT_SUSPECTS: set_mode(o, CP_MODE_SUSPECTS); break;
	case OPT_KEEP_STREAMS: o->keep_streams = 1; break;
	case OPT_PARTIAL: o->partial = 1; break;
	case OPT_MERGE: o->merge = 1; break;
	case OPT_RANKS: o->ranks = 1; break;
	case OPT_BANDS: o->bands = arg; break;
	case OPT_SECTIONS: o->sections = 1; break;
	case OPT_SUMMARY: set_mode(o, CP_MODE_SUMMARY); o->summary_key = arg; break;
	case OPT_FOLDED: set_mode(o, CP_MODE_FOLDED); break;
	case OPT_DOT: set_mode(o, CP_MODE_DOT); break;
	case OPT_TRACE: tr_pick_add(o->pick, arg); break;
	case OPT_TRACE_FILE:
		if (tr_pick_add_file(o->pick, arg, err, sizeof err) < 0)
			tr_usage_error("--trace-file: %s", err);
		break;
	case OPT_WHATIF: set_mode(o, CP_MODE_WHATIF); o->rules[o->nrules++] = arg; break;
	case 'f': o->format = tr_arg_choice("-f", "format", arg, formats); break;
	case TR_OPT_UNITS: o->units = tr_units_option(arg); break;
	case TR_OPT_MAX_WINDOWS: o->max_windows = tr_parse_limit("--max-windows", arg); break;
	default: return hb_option(&o->model, &o->name, opt, arg);
	}
	return 1;
}

/* The options that go with some modes only. */
static void
check_modes(const cli *c)
{
	const cp_run_opts *o = &c->o;
	enum cp_mode m = o->mode;

	if (o->baseline && c->f.where)
		tr_usage_error("--where filters one input: not with --baseline");
	if (o->sections && m != CP_MODE_FILTER)
		tr_usage_error("--sections goes with the line-format output only");
	if (c->set_picture && m != CP_MODE_SVG)
		tr_usage_error("--min-share goes with --svg");
	if (o->timeline.width > 0 && m != CP_MODE_SVG && m != CP_MODE_FLAME)
		tr_usage_error("--width goes with --svg and --flame");
	if (o->keep_streams && m != CP_MODE_SVG && m != CP_MODE_FLAME)
		tr_usage_error("--keep-streams goes with --svg and --flame");
	if (o->npct && m != CP_MODE_FLAME)
		tr_usage_error("--percentile goes with --flame");
	if (o->baseline && m != CP_MODE_FLAME && m != CP_MODE_SUMMARY && m != CP_MODE_SUSPECTS && m != CP_MODE_WHATIF)
		tr_usage_error("--baseline goes with --summary, --flame, --suspects and --whatif");
	if (!o->baseline && m == CP_MODE_SUSPECTS)
		tr_usage_error("--suspects needs --baseline FILE: what the incident is compared with");
	if (o->baseline && m == CP_MODE_SUMMARY && strcmp(o->summary_key, "service") != 0 &&
	    strcmp(o->summary_key, "operation") != 0)
		tr_usage_error("--baseline compares --summary service or operation, not a tag");
	if (cp_merge_opts_error(o))
		tr_usage_error("%s", cp_merge_opts_error(o));
	if (o->merge && c->f.where)
		tr_usage_error("--where goes with traces: not with --merge");
	if (o->summary_key && !*o->summary_key)
		tr_usage_error("--summary: empty key");
	if (o->units >= 0 && m != CP_MODE_SUMMARY && m != CP_MODE_WHATIF && m != CP_MODE_FILTER &&
	    m != CP_MODE_SUSPECTS && m != CP_MODE_DOT)
		tr_usage_error("--units goes with --summary, --whatif, --suspects, --dot and PAG records");
	tr_units_check(o->units, o->format != CP_TSV);
}

/* The exit status of a run whose read gave status: the first failure in
 * the order they were met; a selector that matched nothing answered
 * nothing. Called by the read loop before -o FILE is kept or not. */
static int
verdict(void *ctx, const tr_filter_counts *c, int status)
{
	cp_run *r = ctx;
	cp_outcome w;

	(void)c;
	cp_run_notes(r, status, &w);
	if (status != TR_EXIT_OK)
		return status;
	if (w.pag_bad)
		return TR_EXIT_INPUT;
	if (w.whatif_unmatched || w.trace_missing || w.model_unmatched)
		return TR_EXIT_USAGE;
	if (w.nothing) {
		tr_warn("%s", w.nothing);
		return TR_EXIT_INPUT;
	}
	if (w.bad_key)
		return TR_EXIT_USAGE;
	if (w.units_idle) {
		tr_warn("--units: no table was written (it goes with --summary, --whatif "
			"and PAG records; tags and sections are µs)");
		return TR_EXIT_USAGE;
	}
	return TR_EXIT_OK;
}

int
main(int argc, char **argv)
{
	cli c = {.o = {.allowance = 0.01, .format = CP_TSV, .units = -1}};
	cp_run *r;
	int opt, status;

	tr_setprogname(argv[0]);
	c.o.pick = tr_pick_new();
	c.o.rules = xcalloc((size_t)argc, sizeof *c.o.rules);
	while ((opt = getopt_long(argc, argv, ":f:ko:qvh", longopts, NULL)) != -1) {
		if (opt == 'h' || opt == TR_OPT_VERSION) {
			(opt == 'h' ? usage(stdout) : tr_print_version());
			tr_pick_free(c.o.pick);
			free(c.o.rules);
			return TR_EXIT_OK;
		}
		if (!cp_option(&c, opt, optarg) && !tr_filter_option(&c.f, &c.from, opt, optarg))
			tr_option_error(opt, argv, longopts);
	}
	check_modes(&c);
	c.o.quiet = c.f.quiet;
	c.o.verbose = c.f.verbose;
	c.o.keep_going = c.f.keep_going;
	c.o.max_spans = c.f.max_spans;
	r = cp_run_new(&c.o, &status);
	c.f.files = tr_filelist_with(&c.from, argv + optind, argc - optind, &c.f.nfiles);
	if (status != TR_EXIT_OK) {
		/* the baseline could not be read: said */
	} else if (c.o.merge) {
		status = cp_run_merge(r, c.f.files, c.f.nfiles, c.f.out_path);
	} else {
		cp_run_filter(r, &c.f);
		c.f.verdict = verdict;
		c.f.loop_summary = 1;
		status = tr_filter_run(&c.f);
	}
	cp_run_free(r);
	free(c.o.rules);
	return status;
}
