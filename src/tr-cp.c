/* tr-cp - critical paths of traces: cp.self tags, sections, summaries,
 * folded stacks, DOT, what-if; and SnailTrail's critical participation
 * over PAG records (pagcp.h). See tr-cp(1). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp/baseline.h"
#include "cp/cp.h"
#include "cp/cp_flame.h"
#include "cp/suspects.h"
#include "draw/dot.h"
#include "filter.h"
#include "pag/pagcp.h"
#include "core/pick.h"
#include "core/shard.h"
#include "core/table.h"
#include "draw/timeline.h"

enum mode { MODE_FILTER, MODE_SUMMARY, MODE_FOLDED, MODE_DOT, MODE_WHATIF, MODE_SVG, MODE_FLAME,
	    MODE_SUSPECTS };

typedef struct cp_ctx {
	cp_trace cp;
	enum mode mode;
	int sections, quiet;
	cp_summary *summary;
	cp_folded *folded;
	cp_whatif *whatif;
	tr_pick *pick;		/* --trace, --trace-file; none: every trace */
	size_t drawn;
	int bad_key;		/* --summary names a tag no span has */
	int format, units;
	size_t noutside, ntr_outside;	/* children left out, and their traces */
	pag_cp *pag;
	size_t pag_bad;
	int pag_alone;		/* no trace so far, and the rows are the only output
				 * at the end: a window's rows can go out at once */
	int header_pending;	/* filter: #tr/1 goes before the first trace or line,
				 * not before a report of PAG records alone */
	timeline_opts timeline;	/* --svg: the slowest picked trace's picture */
	tr_trace slow;		/* --svg: the slowest picked trace, taken whole */
	int has_slow;
	int64_t svg_latency;
	int keep_streams;	/* --keep-streams: --svg and --flame bands rank them */
	size_t streams;		/* --svg: long-lived streams passed over */
	cp_flames *flames;	/* --flame */
	int pct[16];		/* --percentile */
	size_t npct;
	cp_compare *compare;	/* --summary with --baseline */
	cp_suspects *suspects;	/* --suspects */
	const char *empty;	/* --flame, --baseline: nothing to draw or compare */
	int partial;		/* --partial: --summary's state, for --merge */
} cp_ctx;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: tr-cp [-kqv] [-o FILE] [--overlap-allowance F] [--sections] [FILE...]\n"
	    "       tr-cp --summary KEY [-f tsv|csv|json] [--units U] [options] [FILE...]\n"
	    "       tr-cp --folded | --dot [options] [FILE...]\n"
	    "       tr-cp --summary KEY | --folded --partial | --merge [--partial] [FILE...]\n"
	    "       tr-cp --svg [--trace ID] [--min-share F] [--width PX] [FILE...]\n"
	    "       tr-cp --flame [--percentile P,...] [--baseline FILE] [options] [FILE...]\n"
	    "       tr-cp --summary service|operation --baseline FILE [options] [FILE...]\n"
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
	    "      --partial           --summary: a mergeable state, not the table;\n"
	    "                          --folded: the stacks (they add up as they are)\n"
	    "      --merge             --summary, --folded: add up partials (none: stdin);\n"
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
	    TR_LIMIT_USAGE
	    "  -h, --help              this help\n"
	    "      --version           the version\n");
}

static void
add_self(void *ctx, const tr_trace *t, int32_t span, strbuf *extra)
{
	const cp_trace *c = ctx;

	(void)t;
	sb_add(extra, "\tcp.self=", 9);
	sb_addi(extra, c->self[span]);
}

static void
write_sections(strbuf *out, const tr_trace *t, const cp_trace *c)
{
	for (size_t i = 0; i < c->nsec; i++) {
		const cp_section *s = &c->sec[i];

		sb_add(out, "C\t", 2);
		tr_escapes(out, t->trace_id, 0);
		sb_addc(out, '\t');
		tr_escapes(out, t->spans[s->span].span_id, 0);
		sb_addc(out, '\t');
		sb_addi(out, s->start);
		sb_addc(out, '\t');
		sb_addi(out, s->end);
		sb_addc(out, '\n');
	}
}

/* The line format's header, before the first record the filter writes. */
static void
records_begin(cp_ctx *x, strbuf *out)
{
	if (x->header_pending) {
		sb_adds(out, TR_FORMAT_HEADER "\n");
		x->header_pending = 0;
	}
}

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	cp_ctx *x = ctx;
	int analysed;
	tr_write_opts wo = {"cp.self", "C", add_self, &x->cp};	/* cp.part is tr-pag's */

	x->pag_alone = 0;	/* what it writes at the end comes before the windows' rows */
	records_begin(x, out);	/* on_trace never fails: the header stays */

	if (x->mode == MODE_SUSPECTS) {	/* reads spans, not critical paths */
		if (tr_pick_match(x->pick, t->trace_id))
			cp_suspects_add(x->suspects, t, 0);
		return 0;
	}
	if (!tr_pick_match(x->pick, t->trace_id)) {
		if (x->mode == MODE_FILTER)
			tr_write_trace(out, t, NULL);	/* not asked for: unchanged */
		return 0;
	}
	analysed = cp_trace_run(&x->cp, t) == 0;
	if (!analysed)
		wo.span_extra = NULL;
	x->noutside += x->cp.noutside;
	x->ntr_outside += x->cp.noutside > 0;

	switch (x->mode) {
	case MODE_FILTER:
		tr_write_trace(out, t, &wo);
		if (analysed && x->sections)
			write_sections(out, t, &x->cp);
		break;
	case MODE_SUMMARY:
		if (x->compare)
			cp_compare_add(x->compare, t, &x->cp, 0);
		else
			cp_summary_add(x->summary, t, &x->cp);
		break;
	case MODE_FOLDED:
		if (analysed)
			cp_folded_add(x->folded, t, &x->cp);
		break;
	case MODE_DOT:
		if (!x->drawn++)
			dot_begin(out, "tr-cp", "TB");
		cp_dot_trace(out, t, &x->cp, x->units);
		break;
	case MODE_WHATIF:
		if (analysed)
			cp_whatif_add(x->whatif, t, &x->cp, out);
		break;
	case MODE_FLAME:
		cp_flames_add(x->flames, t, &x->cp, 0);
		break;
	case MODE_SVG:
		/* kept (no copy: the reader gets the older one's memory) and
		 * drawn once at the end; a slower one replaces it */
		if (analysed && !x->keep_streams && tr_pick_all(x->pick) &&
		    tr_span_is_stream(&t->spans[x->cp.root])) {
			x->streams++;	/* a connection's lifetime, not a request's latency */
			break;
		}
		if (analysed && (!x->has_slow || x->cp.root_duration > x->svg_latency)) {
			x->slow.files = t->files;
			tr_trace_swap(&x->slow, t);
			x->svg_latency = x->cp.root_duration;
			x->has_slow = 1;
		}
		break;
	case MODE_SUSPECTS:	/* handled above */
		break;
	}
	return 0;
}

static void
on_line(void *ctx, const char *line, size_t len, const char *where, strbuf *out)
{
	cp_ctx *x = ctx;

	if (pag_cp_is_record(line, len)) {
		if (pag_cp_feed(x->pag, line, len, where) < 0)
			x->pag_bad++;
		if (x->pag_alone)	/* the first window's rows before the input ends */
			pag_cp_take(x->pag, out);
		return;
	}
	if (x->mode == MODE_FILTER) {
		records_begin(x, out);
		sb_add(out, line, len);
		sb_addc(out, '\n');
	}
}

static void
on_end(void *ctx, tr_output *out)
{
	cp_ctx *x = ctx;
	strbuf b = {0};

	switch (x->mode) {
	case MODE_SUMMARY:
		if (x->compare) {
			if (!cp_compare_ntraces(x->compare, 0))
				x->empty = "--baseline: no trace with a timed root to compare";
			else
				cp_compare_write(x->compare, &b, x->format, x->units);
			break;
		}
		/* a key no span has would make one group with an empty name */
		if (!(x->bad_key = cp_summary_unmatched(x->summary)))
			(x->partial ? cp_summary_write_partial : cp_summary_write)(x->summary, out);
		break;
	case MODE_FOLDED:
		cp_folded_write(x->folded, out);
		break;
	case MODE_DOT:
		if (!x->drawn)
			dot_begin(&b, "tr-cp", "TB");
		dot_end(&b);
		break;
	case MODE_WHATIF:
		cp_whatif_finish(x->whatif, &b);
		break;
	case MODE_SVG:
		if (x->has_slow && cp_trace_run(&x->cp, &x->slow) == 0)
			timeline_svg(&b, &x->slow, &x->cp, &x->timeline);
		else
			x->has_slow = 0;
		break;
	case MODE_FLAME:
		if (!cp_flames_ntraces(x->flames, 0)) {
			x->empty = "--flame: no trace with a timed root to draw";
			break;
		}
		cp_flames_svg(x->flames, &b, x->pct, x->npct, x->timeline.width > 0 ? x->timeline.width : 1000);
		break;
	case MODE_SUSPECTS:
		if (!cp_suspects_ntraces(x->suspects, 0))
			x->empty = "--suspects: no trace in the incident";
		else if (!cp_suspects_common(x->suspects))
			x->empty = "--suspects: the baseline and the incident have no service in common";
		else
			cp_suspects_write(x->suspects, &b, x->format, x->units);
		break;
	case MODE_FILTER:
		break;
	}
	tr_output_sb(out, &b);
	sb_free(&b);
	if (pag_cp_has_input(x->pag) && pag_cp_report(x->pag, out) < 0)
		x->pag_bad++;
}

static double
parse_fraction(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		tr_die(TR_EXIT_USAGE, "%s: not a fraction >= 0: %s", opt, s);
	return v;
}

static void
add_baseline(void *ctx, const tr_trace *t, const cp_trace *c)
{
	cp_ctx *x = ctx;

	if (x->flames)
		cp_flames_add(x->flames, t, c, 1);
	if (x->compare)
		cp_compare_add(x->compare, t, c, 1);
}

static void
add_suspects_baseline(void *ctx, tr_trace *t)
{
	cp_suspects_add(ctx, t, 1);
}

/* The baseline goes first: a baseline that cannot be read stops the run
 * before any output. */
static int
read_baseline(cp_ctx *x, const char *path, int keep_going, size_t max_spans)
{
	long n;

	if (x->suspects) {
		if ((n = tr_each_trace((char **)&path, NULL, 1, keep_going, max_spans, 0, add_suspects_baseline,
				       x->suspects)) < 0)
			return -1;
		if (n > 0)
			return 0;
		tr_warn("%s: --baseline: no trace", path);
		return -1;
	}
	n = cp_read_traces(path, &x->cp, keep_going, max_spans, add_baseline, x);
	if (n < 0)
		return -1;
	return cp_baseline_check(path, n, x->flames ? cp_flames_ntraces(x->flames, 1) :
			 cp_compare_ntraces(x->compare, 1));
}

/* What the ranking rests on and what may mislead it, then the verdict. */
static void
suspects_notes(cp_ctx *x, int verbose)
{
	strbuf b = {0};
	const cp_suspect *rows;
	size_t n = cp_suspects_rank(x->suspects, &rows);
	char ev[160];

	if (verbose)
		cp_suspects_assumptions(x->suspects, &b);
	if (!x->quiet)
		cp_suspects_warnings(x->suspects, &b);
	for (char *line = b.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = 0;
		tr_warn("--suspects: %s", line);
	}
	sb_free(&b);
	if (x->quiet)
		return;
	if (!n) {
		tr_warn("--suspects: nothing stands out: no service's latency or failures differ "
			"beyond the baseline's spread");
		return;
	}
	cp_suspects_evidence(rows[0].evidence, ev, sizeof ev);
	tr_warn("--suspects: likely cause: %s (%s; confidence %s)", rows[0].service, ev,
		rows[0].confidence);
}

static void
free_ctx(cp_ctx *x, const char **rules)
{
	pag_cp_free(x->pag);
	cp_summary_free(x->summary);
	cp_folded_free(x->folded);
	cp_whatif_free(x->whatif);
	cp_flames_free(x->flames);
	cp_compare_free(x->compare);
	cp_suspects_free(x->suspects);
	cp_trace_free(&x->cp);
	tr_trace_free(&x->slow);
	tr_pick_free(x->pick);
	free(rules);
}

/* A picture narrower than this has no room for labels and bars. */
static double
parse_width(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 400 || v > 100000)
		tr_die(TR_EXIT_USAGE, "--width: not a width in px from 400 to 100000: %s", s);
	return v;
}

static void
set_mode(cp_ctx *x, enum mode m)
{
	if (x->mode != MODE_FILTER && x->mode != m)
		tr_die(TR_EXIT_USAGE, "--summary, --folded, --dot, --svg, --flame, --whatif and "
		       "--suspects exclude each other");
	x->mode = m;
}

static int
summary_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_summary_merge_line(ctx, line, len, err, errlen);
}

static int
folded_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_folded_sum_line(ctx, line, len, err, errlen);
}

/* --merge: add up the partials of --summary or --folded, write the result. */
static int
merge_partials(cp_ctx *x, char **files, int nfiles, const char *out_path)
{
	cp_folded_sum *sum = x->mode == MODE_FOLDED ? cp_folded_sum_new() : NULL;
	int status = sum ? tr_merge_files(files, nfiles, folded_line, sum)
			 : tr_merge_files(files, nfiles, summary_line, x->summary);

	if (status == TR_EXIT_OK) {
		tr_output *out = tr_output_open(out_path, 0);

		if (sum)
			cp_folded_sum_write(sum, out);
		else
			(x->partial ? cp_summary_write_partial : cp_summary_write)(x->summary, out);
		tr_output_close(out);
	}
	cp_folded_sum_free(sum);
	return status;
}

int
main(int argc, char **argv)
{
	enum { OPT_OVERLAP = 256, OPT_SECTIONS, OPT_SUMMARY, OPT_FOLDED, OPT_DOT,
	       OPT_TRACE, OPT_TRACE_FILE, OPT_WHATIF, OPT_SVG, OPT_MIN_SHARE, OPT_WIDTH,
	       OPT_FLAME, OPT_PERCENTILE, OPT_BASELINE, OPT_SUSPECTS, OPT_KEEP_STREAMS, OPT_PARTIAL,
	       OPT_MERGE };
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
		{"format", required_argument, NULL, 'f'},
		TR_UNITS_LONGOPT,
		{"max-windows", required_argument, NULL, TR_OPT_MAX_WINDOWS},
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	cp_ctx x = {0};
	tr_filter f = {0};
	tr_filelist from = {0};
	const char *summary_key = NULL, *baseline = NULL;
	const char **rules;
	size_t nrules = 0;
	char err[256];
	double allowance = 0.01;
	size_t max_windows = 0;		/* pagcp's default */
	int format = CP_TSV, units = -1, opt, status = TR_EXIT_OK, set_picture = 0, merge = 0;

	tr_setprogname(argv[0]);
	x.pick = tr_pick_new();
	rules = xcalloc((size_t)argc, sizeof *rules);
	while ((opt = getopt_long(argc, argv, ":f:ko:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_OVERLAP: allowance = parse_fraction("--overlap-allowance", optarg); break;
		case OPT_SVG: set_mode(&x, MODE_SVG); break;
		case OPT_MIN_SHARE: x.timeline.min_share = parse_fraction("--min-share", optarg); set_picture = 1; break;
		case OPT_WIDTH: x.timeline.width = parse_width(optarg); break;
		case OPT_FLAME: set_mode(&x, MODE_FLAME); break;
		case OPT_PERCENTILE: {
			int n = cp_percentiles_parse(optarg, x.pct, sizeof x.pct / sizeof x.pct[0]);

			if (n < 0)
				tr_die(TR_EXIT_USAGE, "--percentile: not a list of 1 to 16 percentiles "
				       "from 1 to 100: %s", optarg);
			x.npct = (size_t)n;
			break;
		}
		case OPT_BASELINE: baseline = optarg; break;
		case OPT_SUSPECTS: set_mode(&x, MODE_SUSPECTS); break;
		case OPT_KEEP_STREAMS: x.keep_streams = 1; break;
		case OPT_PARTIAL: x.partial = 1; break;
		case OPT_MERGE: merge = 1; break;
		case OPT_SECTIONS: x.sections = 1; break;
		case OPT_SUMMARY: set_mode(&x, MODE_SUMMARY); summary_key = optarg; break;
		case OPT_FOLDED: set_mode(&x, MODE_FOLDED); break;
		case OPT_DOT: set_mode(&x, MODE_DOT); break;
		case OPT_TRACE: tr_pick_add(x.pick, optarg); break;
		case OPT_TRACE_FILE:
			if (tr_pick_add_file(x.pick, optarg, err, sizeof err) < 0)
				tr_die(TR_EXIT_USAGE, "--trace-file: %s", err);
			break;
		case OPT_WHATIF: set_mode(&x, MODE_WHATIF); rules[nrules++] = optarg; break;
		case 'f':
			if ((format = cp_format_parse(optarg)) < 0)
				tr_die(TR_EXIT_USAGE, "-f: unknown format \"%s\" (tsv, csv, json)", optarg);
			break;
		case TR_OPT_UNITS: units = tr_units_option(optarg); break;
		case 'k': f.keep_going = 1; break;
		case TR_OPT_ALLOW_EMPTY: f.allow_empty = 1; break;
		case TR_OPT_FILES_FROM: tr_filelist_from(&from, optarg); break;
		case 'o': f.out_path = optarg; break;
		case 'q': x.quiet = f.quiet = 1; break;
		case 'v': f.verbose = 1; break;
		case 'h': usage(stdout); tr_pick_free(x.pick); free(rules); return TR_EXIT_OK;
		case TR_OPT_VERSION: tr_print_version(); tr_pick_free(x.pick); free(rules); return TR_EXIT_OK;
		case TR_OPT_MAX_WINDOWS: max_windows = tr_parse_limit("--max-windows", optarg); break;
		default:
			if (!tr_limit_option(opt, optarg, &f.max_spans, &f.max_bytes))
				tr_option_error(opt, argv, longopts);
			break;
		}
	}
	if (x.sections && x.mode != MODE_FILTER)
		tr_die(TR_EXIT_USAGE, "--sections goes with the line-format output only");
	if (set_picture && x.mode != MODE_SVG)
		tr_usage_error("--min-share goes with --svg");
	if (x.timeline.width > 0 && x.mode != MODE_SVG && x.mode != MODE_FLAME)
		tr_usage_error("--width goes with --svg and --flame");
	if (x.keep_streams && x.mode != MODE_SVG && x.mode != MODE_FLAME)
		tr_usage_error("--keep-streams goes with --svg and --flame");
	if (x.npct && x.mode != MODE_FLAME)
		tr_usage_error("--percentile goes with --flame");
	if (baseline && x.mode != MODE_FLAME && x.mode != MODE_SUMMARY && x.mode != MODE_SUSPECTS)
		tr_usage_error("--baseline goes with --summary, --flame and --suspects");
	if (!baseline && x.mode == MODE_SUSPECTS)
		tr_usage_error("--suspects needs --baseline FILE: what the incident is compared with");
	if (baseline && x.mode == MODE_SUMMARY && strcmp(summary_key, "service") != 0 &&
	    strcmp(summary_key, "operation") != 0)
		tr_usage_error("--baseline compares --summary service or operation, not a tag");
	if ((x.partial || merge) && ((x.mode != MODE_SUMMARY && x.mode != MODE_FOLDED) || baseline))
		tr_usage_error("--partial and --merge go with --summary (no --baseline) and --folded");
	if (summary_key && !*summary_key)
		tr_die(TR_EXIT_USAGE, "--summary: empty key");
	if (units >= 0 && x.mode != MODE_SUMMARY && x.mode != MODE_WHATIF && x.mode != MODE_FILTER &&
	    x.mode != MODE_SUSPECTS && x.mode != MODE_DOT)
		tr_usage_error("--units goes with --summary, --whatif, --suspects, --dot and PAG records");
	tr_units_check(units, format != CP_TSV);
	cp_trace_init(&x.cp, allowance);
	x.format = format;
	x.units = units >= 0 ? units : x.mode == MODE_SUSPECTS ? TABLE_MS : x.mode == MODE_DOT ? TABLE_AUTO : TABLE_US;
	if (x.mode == MODE_SUSPECTS)
		x.suspects = cp_suspects_new();
	if (x.mode == MODE_FLAME) {
		x.flames = cp_flames_new();
		cp_flames_keep_streams(x.flames, x.keep_streams);
	}
	if (baseline && x.mode == MODE_SUMMARY)
		x.compare = cp_compare_new(summary_key);
	if (baseline && read_baseline(&x, baseline, f.keep_going, f.max_spans) < 0)
		status = TR_EXIT_INPUT;
	else if (x.mode == MODE_SUMMARY) {
		x.summary = cp_summary_new(summary_key, format);
		cp_summary_set_units(x.summary, units < 0 ? TABLE_US : units);
	} else if (x.mode == MODE_FOLDED)
		x.folded = cp_folded_new();
	else if (x.mode == MODE_WHATIF) {
		x.whatif = cp_whatif_new(format);
		cp_whatif_set_units(x.whatif, units < 0 ? TABLE_US : units);
		for (size_t i = 0; i < nrules; i++)
			if (cp_whatif_add_rule(x.whatif, rules[i], err, sizeof err) < 0)
				tr_die(TR_EXIT_USAGE, "--whatif: %s", err);
	}
	x.pag = pag_cp_new(&(pag_cp_opts){format == CP_CSV ? "csv" : format == CP_JSON ? "json" : "tsv",
					  1, max_windows, units < 0 ? TABLE_US : units});

	if (status != TR_EXIT_OK) {
		free_ctx(&x, rules);
		return status;
	}
	if (merge && status == TR_EXIT_OK) {
		f.files = tr_filelist_with(&from, argv + optind, argc - optind, &f.nfiles);
		status = merge_partials(&x, f.files, f.nfiles, f.out_path);
		free_ctx(&x, rules);
		return status;
	}
	f.files = tr_filelist_with(&from, argv + optind, argc - optind, &f.nfiles);
	f.pass_through = 0;	/* on_line passes lines; records_begin writes the header */
	x.header_pending = x.pag_alone = x.mode == MODE_FILTER;
	f.read_ahead = x.mode == MODE_SUSPECTS;	/* the reading is most of its work */
	f.on_trace = on_trace;
	f.on_line = on_line;
	f.on_end = on_end;
	f.ctx = &x;
	status = tr_filter_run(&f);
	if (x.pag_bad && status == TR_EXIT_OK)
		status = TR_EXIT_INPUT;
	/* the data did not support the tree everywhere: say where it gave way */
	if (x.noutside && !x.quiet)
		tr_warn("%zu spans in %zu traces lie wholly outside their parent (skewed clocks, or "
			"work that outlives it): left off the critical path with their subtrees, as "
			"Jaeger UI leaves them", x.noutside, x.ntr_outside);
	if (x.flames && x.npct)
		x.streams = cp_flames_streams(x.flames);
	if (x.streams && !x.quiet)
		tr_warn("left %zu long-lived streams out of the %s (--keep-streams keeps them)",
			x.streams, x.mode == MODE_SVG ? "slowest trace" : "percentile flame graphs");
	/* A selector that matched nothing answered nothing: say so, fail. */
	if (x.whatif && cp_whatif_unmatched(x.whatif, f.verbose) && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	if (x.compare && !x.empty && !x.quiet && status == TR_EXIT_OK) {
		strbuf v = {0};

		cp_compare_verdict(x.compare, &v);
		tr_warn("--baseline: %s", v.s);
		if (f.verbose)
			tr_warn("--baseline: %zu span kinds inferred from process boundaries "
				"(service and host), where the export records none",
				cp_compare_inferred(x.compare));
		sb_free(&v);
	}
	if (x.suspects && !x.empty && status == TR_EXIT_OK)
		suspects_notes(&x, f.verbose);
	if (tr_pick_missing(x.pick, "--trace") && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	if (x.empty && status == TR_EXIT_OK) {
		tr_warn("%s", x.empty);
		status = TR_EXIT_INPUT;
	}
	if (x.mode == MODE_SVG && !x.has_slow && status == TR_EXIT_OK) {
		tr_warn("--svg: no trace with a timed root to draw");
		status = TR_EXIT_INPUT;
	}
	if (x.bad_key && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	/* the line format is µs: --units had no table to act on */
	if (units >= 0 && x.mode == MODE_FILTER && !pag_cp_has_input(x.pag) && status == TR_EXIT_OK) {
		tr_warn("--units: no table was written (it goes with --summary, --whatif "
			"and PAG records; tags and sections are µs)");
		status = TR_EXIT_USAGE;
	}

	free_ctx(&x, rules);
	return status;
}
