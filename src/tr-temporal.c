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
#include "core/util.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tr-temporal [-kqv] [-f line|explain|dot|csv|json] [--explain] [--dot]\n"
		"                   [-w N] [-r KEY] [-c RESOURCE=K ...] [-t ID ...]\n"
		"                   [--span ID] [--end-to-end] [--no-infer-queues]\n"
		"                   [--no-clock-offsets] [--min-share P]\n"
		"                   [--units U] [--check [--allow-empty]] [-o FILE] [FILE...]\n"
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
		"      --no-infer-queues   a late server or consumer without a recorded queue\n"
		"                          wait started on arrival (no queueing inferred)\n"
		"      --no-clock-offsets  take every host's clock as recorded (one pass)\n"
		"      --baseline FILE     the slow requests' causes against FILE's requests\n"
		"                          of the same operations: which are new or grew\n"
		"      --band P            --baseline: the slow requests are those at or above\n"
		"                          the P-th percentile of their operation (default 90)\n"
		"      --min-share P       --dot: leave out nodes under P %% of the delay\n"
		"                          (default 1)\n"
		"      --check             exit 1 when an invariant of an annotation breaks, or\n"
		"                          when no trace was analysed\n"
		TR_FILES_FROM_USAGE
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

static long
parse_count(const char *s, const char *what, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > INT_MAX)
		tr_usage_error("%s: %s", what, s);
	return v;
}

/* --min-share: a percentage, 0 to 100. */
static double
parse_share(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 100))
		tr_usage_error("%s: %s", "--min-share is a percentage from 0 to 100", s);
	return v;
}

int
main(int argc, char **argv)
{
	enum { OPT_EXPLAIN = 256, OPT_DOT, OPT_CHECK, OPT_TRACE_FILE,
	       OPT_NO_INFER, OPT_NO_CLOCK, OPT_SPAN, OPT_END_TO_END, OPT_MIN_SHARE, OPT_BASELINE,
	       OPT_BAND };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"explain", no_argument, NULL, OPT_EXPLAIN},
		{"dot", no_argument, NULL, OPT_DOT},
		{"window", required_argument, NULL, 'w'},
		{"resource-key", required_argument, NULL, 'r'},
		{"capacity", required_argument, NULL, 'c'},
		{"trace", required_argument, NULL, 't'},
		{"check", no_argument, NULL, OPT_CHECK},
		{"trace-file", required_argument, NULL, OPT_TRACE_FILE},
		{"no-infer-queues", no_argument, NULL, OPT_NO_INFER},
		{"no-clock-offsets", no_argument, NULL, OPT_NO_CLOCK},
		{"span", required_argument, NULL, OPT_SPAN},
		{"end-to-end", no_argument, NULL, OPT_END_TO_END},
		{"min-share", required_argument, NULL, OPT_MIN_SHARE},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"band", required_argument, NULL, OPT_BAND},
		TR_UNITS_LONGOPT,
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	tp_opts o = {.format = TP_LINE, .window = 1000, .infer_queues = 1, .min_share = -1};
	tp_run_opts r = {.clock_offsets = 1};
	tr_filelist from = {0};
	tp_capacity *caps = xcalloc((size_t)argc, sizeof *caps);
	tr_pick *pick = tr_pick_new();
	char err[256];
	int c, status = -1, units = -1, format_set = 0;
	const char *baseline = NULL;
	double band = -1;

	tr_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, ":f:w:r:c:t:o:kqvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "line") == 0)
				o.format = TP_LINE;
			else if (strcmp(optarg, "explain") == 0)
				o.format = TP_EXPLAIN;
			else if (strcmp(optarg, "dot") == 0)
				o.format = TP_DOT;
			else if (strcmp(optarg, "csv") == 0)
				o.format = TP_CSV;
			else if (strcmp(optarg, "json") == 0)
				o.format = TP_JSON;
			else
				tr_usage_error("%s: %s", "unknown format", optarg);
			format_set = 1;
			break;
		case OPT_EXPLAIN: o.format = TP_EXPLAIN; format_set = 1; break;
		case OPT_DOT: o.format = TP_DOT; format_set = 1; break;
		case 'w': o.window = (size_t)parse_count(optarg, "bad window", 1); break;
		case 'r': o.resource_key = optarg; break;
		case 'c': {
			char *eq = strrchr(optarg, '=');

			if (!eq || eq == optarg)
				tr_usage_error("%s: %s", "capacity is RESOURCE=K", optarg);
			*eq = '\0';
			caps[o.ncaps].resource = optarg;
			caps[o.ncaps++].workers = (int)parse_count(eq + 1, "bad capacity", 1);
			break;
		}
		case 't': tr_pick_add(pick, optarg); break;
		case OPT_TRACE_FILE:
			if (tr_pick_add_file(pick, optarg, err, sizeof err) < 0)
				tr_die(TR_EXIT_USAGE, "--trace-file: %s", err);
			break;
		case TR_OPT_UNITS: units = tr_units_option(optarg); break;
		case OPT_NO_INFER: o.infer_queues = 0; break;
		case OPT_NO_CLOCK: r.clock_offsets = 0; break;
		case OPT_SPAN: o.span = optarg; break;
		case OPT_END_TO_END: o.end_to_end = 1; break;
		case OPT_MIN_SHARE: o.min_share = parse_share(optarg); break;
		case OPT_BASELINE: baseline = optarg; break;
		case OPT_BAND: band = parse_share(optarg); break;
		case OPT_CHECK: o.check = 1; break;
		case TR_OPT_ALLOW_EMPTY: o.allow_empty = 1; break;
		case TR_OPT_FILES_FROM: tr_filelist_from(&from, optarg); break;
		case 'o': r.out_path = optarg; break;
		case 'k': r.keep_going = 1; break;
		case 'q': o.quiet = 1; break;
		case 'v': r.verbose = 1; break;
		case 'h': usage(stdout); status = TR_EXIT_OK; break;
		case TR_OPT_VERSION: tr_print_version(); status = TR_EXIT_OK; break;
		default:
			if (!tr_limit_option(c, optarg, &r.max_spans, &r.max_bytes))
				tr_option_error(c, argv, longopts);
			break;
		}
		if (status >= 0)
			break;
	}
	if (o.min_share >= 0 && o.format != TP_DOT && status < 0)
		tr_usage_error("--min-share goes with --dot");
	if (band >= 0 && !baseline && status < 0)
		tr_usage_error("--band goes with --baseline");
	if (baseline && status < 0 && ((format_set && o.format != TP_CSV && o.format != TP_JSON) ||
				       o.check || o.span || o.end_to_end || !tr_pick_all(pick)))
		tr_usage_error("--baseline writes a table (-f csv or json) of whole requests' causes: "
			       "not with --check, --span, --end-to-end or -t");
	if (baseline && !format_set)
		o.format = TP_CSV;
	if (o.min_share < 0)	/* a readable picture by default: causes of 1 % and more */
		o.min_share = 1;
	if (units < 0 && (o.format == TP_CSV || o.format == TP_JSON))
		units = TABLE_US;
	else if (units < 0 && o.format == TP_DOT)	/* a picture is for people */
		units = TABLE_AUTO;
	else if (units >= 0 && o.format == TP_LINE && status < 0)
		tr_usage_error("--units goes with -f explain, dot, csv or json: the tags are µs");
	tr_units_check(units, o.format == TP_CSV || o.format == TP_JSON);
	o.units = units;
	o.caps = caps;
	o.pick = pick;
	r.files = tr_filelist_with(&from, argv + optind, argc - optind, &r.nfiles);
	if (status < 0 && baseline)
		status = tp_diff_run(&r, &o, baseline, band < 0 ? 90 : band);
	else if (status < 0) {
		status = tp_run(&r, &o);
		/* an id no trace has was answered nothing: say so, fail */
		if (tr_pick_missing(pick, "--trace") && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
			status = TR_EXIT_USAGE;
	}
	free(caps);
	tr_pick_free(pick);
	return status;
}
