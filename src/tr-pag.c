/* tr-pag - build SnailTrail's program activity graph from traces: the
 * options, then one run of pag/run.h. See tr-pag(1). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "core/pick.h"
#include "core/shard.h"
#include "core/table.h"
#include "filter.h"
#include "pag/run.h"

/* Long-only options: values past any character, so no short option. */
enum { OPT_ORIGIN = 256, OPT_WORKER_KEY, OPT_UNKNOWN_THRESHOLD, OPT_DOT, OPT_CP_PART, OPT_TOP,
       OPT_TRACE, OPT_FROM, OPT_TO, OPT_WORKER, OPT_LATENESS, OPT_MAX_GAP, OPT_HOLD,
       OPT_OWN, OPT_MERGE };

static const struct option longopts[] = {
	{"window", required_argument, NULL, 'w'},
	{"origin", required_argument, NULL, OPT_ORIGIN},
	{"worker-key", required_argument, NULL, OPT_WORKER_KEY},
	{"unknown-threshold", required_argument, NULL, OPT_UNKNOWN_THRESHOLD},
	{"format", required_argument, NULL, 'f'},
	{"dot", no_argument, NULL, OPT_DOT},
	{"pag-only", no_argument, NULL, 'P'},
	{"no-vertices", no_argument, NULL, 'n'},
	{"max-windows", required_argument, NULL, TR_OPT_MAX_WINDOWS},
	{"cp-part", no_argument, NULL, OPT_CP_PART},
	{"top", required_argument, NULL, OPT_TOP},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"worker", required_argument, NULL, OPT_WORKER},
	{"lateness", required_argument, NULL, OPT_LATENESS},
	{"max-gap", required_argument, NULL, OPT_MAX_GAP},
	{"hold", required_argument, NULL, OPT_HOLD},
	{"own", required_argument, NULL, OPT_OWN},
	{"merge", no_argument, NULL, OPT_MERGE},
	TR_UNITS_LONGOPT,
	TR_COMMON_LONGOPTS,
	TR_CLOCK_LONGOPT,
	{NULL, 0, NULL, 0}
};

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: tr-pag [-Pkqnv] [-w D] [--origin T] [--worker-key K] [--cp-part]\n"
		"              [--unknown-threshold D] [--lateness D] [--max-gap D] [--hold N]\n"
		"              [-f line|dot|pag-dot|svg] [--dot] [--top N] [--trace ID]\n"
		"              [--from T] [--to T] [--worker W] [--own FROM,TO] [-o FILE]\n"
		"              [FILE...]\n"
		"       tr-pag --merge [-o FILE] [PARTIAL...]\n"
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
		"      --own FROM,TO       a shard by time: its tr-cp writes a partial of the\n"
		"                          windows from FROM to TO (with -w and -P)\n"
		"      --merge             the table of tr-cp over shards' --own partials\n"
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
		TR_WHERE_USAGE
		TR_CLOCK_USAGE
		TR_LIMIT_USAGE
		"  -h, --help              this help\n"
		"      --version           the version\n");
}

static void
origin_option(pag_run_opts *o, const char *arg)
{
	o->origin = tr_arg_duration("--origin", arg, 0);
	o->has_origin = 1;
	if (o->origin > TR_TIME_MAX)
		tr_usage_error("--origin %s: beyond the times a span can have (2^61 us)", arg);
}

static void
trace_option(pag_run_opts *o, const char *arg)
{
	o->filter.trace = arg;
	if (!o->pick)
		o->pick = tr_pick_new();
	tr_pick_add(o->pick, arg);
}

/* One option of tr-pag's own into o; 0 when it is none. */
static int
pag_option(pag_run_opts *o, int opt, const char *arg)
{
	static const char *const formats[] = {"line", "dot", "pag-dot", "svg", NULL};	/* enum pag_picture */

	switch (opt) {
	case 'w': o->window = tr_arg_duration("--window", arg, 1); o->has_window = 1; break;
	case OPT_ORIGIN: origin_option(o, arg); break;
	case OPT_WORKER_KEY: o->build.worker_key = arg; break;
	case OPT_UNKNOWN_THRESHOLD: o->build.unknown_threshold = tr_arg_duration("--unknown-threshold", arg, 0); break;
	case 'f': o->picture = tr_arg_choice("-f", "format", arg, formats); break;
	case OPT_DOT: o->picture = PAG_PIC_DOT; break;
	case OPT_TOP: o->top = tr_parse_limit("--top", arg); o->has_top = 1; break;
	case OPT_TRACE: trace_option(o, arg); break;
	case OPT_FROM: o->filter.from = tr_arg_duration("--from", arg, 0); break;
	case OPT_TO: o->filter.to = tr_arg_duration("--to", arg, 0); break;
	case OPT_WORKER: o->filter.worker = arg; break;
	case OPT_LATENESS: o->build.lateness = tr_arg_duration("--lateness", arg, 1); break;
	case OPT_MAX_GAP: o->build.max_gap = tr_arg_duration("--max-gap", arg, 1); break;
	case OPT_HOLD: o->build.hold = tr_parse_limit("--hold", arg); break;
	case OPT_OWN: pag_own_option(o, arg); break;
	case 'P': o->pag_only = 1; break;
	case 'n': o->vertices = 0; break;
	case OPT_CP_PART: o->cp_part = 1; break;
	case TR_OPT_UNITS: o->units = tr_units_option(arg); break;
	case TR_OPT_MAX_WINDOWS: o->max_windows = tr_parse_limit("--max-windows", arg); break;
	default: return 0;
	}
	return 1;
}

/* The exit status of a run whose read gave status: input the graph could
 * not take fails it first, then a --worker-key tag that names nothing. */
static int
verdict(const pag_run *r, int status)
{
	pag_outcome w = pag_run_outcome(r);

	if (status != TR_EXIT_OK)
		return status;
	if (w.bad_records || w.late)
		return TR_EXIT_INPUT;
	return w.bad_keys ? TR_EXIT_USAGE : TR_EXIT_OK;
}

int
main(int argc, char **argv)
{
	pag_run_opts o = {.vertices = 1, .max_windows = PAG_MAX_WINDOWS, .units = -1,
			  .filter = {NULL, INT64_MIN, INT64_MAX, NULL}};
	tr_filter f = {0};
	tr_filelist from = {0};
	pag_run *r;
	int ch, status, merge = 0;

	tr_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, ":w:f:o:Pnkqvh", longopts, NULL)) != -1) {
		if (ch == 'h' || ch == TR_OPT_VERSION) {
			(ch == 'h' ? usage(stdout) : tr_print_version());
			tr_pick_free(o.pick);
			return TR_EXIT_OK;
		}
		if (ch == OPT_MERGE)
			merge = 1;
		else if (!pag_option(&o, ch, optarg) && !tr_filter_option(&f, &from, ch, optarg))
			tr_option_error(ch, argv, longopts);
	}
	f.files = tr_filelist_with(&from, argv + optind, argc - optind, &f.nfiles);
	if (merge)
		return pag_merge_main(f.files, f.nfiles, f.out_path);
	pag_own_check(&o);
	if (o.units >= 0 && o.picture != PAG_PIC_DOT && o.picture != PAG_PIC_PAG_DOT)
		tr_usage_error("--units goes with -f dot and pag-dot: the records are µs");
	o.units = o.units < 0 ? TABLE_AUTO : o.units;
	o.quiet = f.quiet;
	o.verbose = f.verbose;
	r = pag_run_new(&o);
	pag_run_filter(r, &f);
	status = verdict(r, tr_filter_run(&f));
	pag_run_free(r);
	return status;
}
