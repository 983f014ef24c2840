/* tr-infer - the happens-before relation between span events learnt from
 * many traces with a threshold (The Mystery Machine, Scooby Systems), its
 * per-trace reformatted traces, and service dependency links; with partial
 * counts that merge, for sharded runs. See tr-infer(1). */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "core/shard.h"
#include "infer/infer.h"

typedef struct infer_ctx {
	infer *model;		/* NULL with --links */
	infer_links *links;	/* NULL without --links */
	infer_out out;
	int links_rule;		/* enum infer_links_rule asked for */
	int reduce;		/* --reduce: reformatted traces transitively reduced */
	int partial, quiet;
} infer_ctx;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: tr-infer [-akqv] [-t EXPR] [-f FMT] [-o FILE] [--name FIELDS]\n"
	    "                [--backtrace-depth K] [--count traces|pairs] [--max-events N]\n"
	    "                [--dot [--spans]] [--partial | --merge] [FILE...]\n"
	    "       tr-infer --reformat [--reduce] [options] [FILE...]\n"
	    "       tr-infer --links[=zipkin|jaeger] [-f tsv|csv|json|jaeger-json|dot]\n"
	    "                [--partial | --merge] [FILE...]\n"
	    "Global causal model of span start (_S) and end (_E) events over all traces.\n"
	    "  -t, --threshold EXPR    keep edge A->B when EXPR over s v u q T holds (default\n"
	    "                          'v == 0', The Mystery Machine)\n"
	    "  -a, --all               every counted ordered pair, with a pass column\n"
	    "  -n, --name FIELDS       nameID fields, of service,operation,kind,host (default\n"
	    "                          service,operation; joined by ':')\n"
	    "  -d, --backtrace-depth K\n"
	    "                          append the names of up to K ancestors\n"
	    "  -c, --count MODE        repeated names: traces (default; every occurrence must\n"
	    "                          agree) or pairs (count occurrence pairs)\n"
	    "  -m, --max-events N      skip traces with more than N distinct events (default\n"
	    "                          2048; 0: no cap)\n"
	    "  -f, --format FMT        tsv (default), csv, json, dot; links: jaeger-json\n"
	    "      --dot               the same as -f dot\n"
	    "      --spans             with --dot: nameIDs as nodes, X->Y when X_E->Y_S\n"
	    "  -r, --reformat          pass traces through with IE records: the model's edges\n"
	    "                          among their events\n"
	    "      --reduce            with --reformat: transitively reduce them\n"
	    "  -l, --links[=RULE]      service dependency links by Zipkin's rules, or\n"
	    "                          Jaeger's (parent -> child service); default: Jaeger's\n"
	    "                          when no span has a kind or peer.service, else Zipkin's\n"
	    "  -p, --partial           write raw counts (IT, IP; IK, IL, IJ records) to merge\n"
	    "                          later\n"
	    "  -M, --merge             read raw counts, sum them, then apply the threshold\n"
	    "  -o, --output FILE       write to FILE (atomically)\n"
	    "  -k, --keep-going        skip bad traces instead of stopping\n"
	    "  -q, --quiet             no notes on stderr\n"
	    "  -v, --verbose           counts on stderr at the end\n"
	    TR_ALLOW_EMPTY_USAGE
	    TR_FILES_FROM_USAGE
	    TR_WHERE_USAGE
	    TR_LIMIT_USAGE
	    "  -h, --help              this help\n"
	    "      --version           the version\n");
}

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	infer_ctx *x = ctx;

	(void)out;
	if (x->model)
		infer_add_trace(x->model, t);
	if (x->links)
		infer_links_add_trace(x->links, t);
	return 0;
}

static int
on_reformat(void *ctx, tr_trace *t, strbuf *out)
{
	infer_ctx *x = ctx;

	tr_write_trace(out, t, &(tr_write_opts){ .drop_type = "IE" });
	infer_reformat_trace(x->model, t, x->reduce, out);
	return 0;
}

static void
note_skipped(const infer_ctx *x)
{
	if (x->model && infer_skipped(x->model) && !x->quiet)
		tr_warn("%llu traces over --max-events left out of the model",
			(unsigned long long)infer_skipped(x->model));
}

/* The links of input whose spans carry no kind (nor peer.service) follow
 * Jaeger's rule: say so. */
static void
note_links_rule(const infer_ctx *x)
{
	if (x->links && x->links_rule == INFER_LINKS_AUTO && !x->partial && !x->quiet &&
	    infer_links_rule(x->links) == INFER_LINKS_JAEGER)
		tr_warn("no span has a kind (or peer.service): links by Jaeger's rule, parent "
			"service -> child service (--links=zipkin for Zipkin's)");
}

static void
on_end(void *ctx, tr_output *out)
{
	infer_ctx *x = ctx;

	note_skipped(x);
	note_links_rule(x);
	if (x->partial)
		infer_write_partial(x->model, x->links, out);
	else if (x->links)
		infer_links_write(x->links, x->out.format, out);
	else
		infer_write_model(x->model, &x->out, out);
}

/* --merge: every line of every input is a partial record. */
static int
run_merge(infer_ctx *x, const tr_filter *f)
{
	if (f->where)
		tr_usage_error("--where goes with traces: not with --merge");
	int status = infer_merge_files(x->model, x->links, f->files, f->nfiles, f->keep_going);

	if (status < 0)
		tr_die(TR_EXIT_INPUT, "nothing written");
	if (x->model && infer_check_counts(x->model) < 0)
		tr_die(TR_EXIT_INPUT, "partial counts do not add up (an IT record is missing?)");
	tr_output *out = tr_output_open(f->out_path, 0);
	on_end(x, out);
	tr_output_close(out);
	return status;
}

static void
add_model_trace(void *ctx, tr_trace *t)
{
	infer_add_trace(ctx, t);
}

/* --reformat's first pass: the model needs every trace before the first
 * can be written. It is silent: the loop reports bad input exactly as any
 * filter does, and stops where it stops. */
static void
first_pass(void *ctx, const tr_filter *f, char **files, int nfiles, char *const *names)
{
	infer_ctx *x = ctx;

	tr_filter_each(f, files, nfiles, names, add_model_trace, x->model);
	note_skipped(x);
}

static int
run_reformat(tr_filter *f)
{
	f->pass_through = 1;
	f->on_trace = on_reformat;
	f->on_end = NULL;
	f->first_pass = first_pass;
	return tr_filter_run(f);
}

static int
parse_format(const char *s)
{
	static const char *const names[] = { "tsv", "csv", "json", "dot", "jaeger-json" };

	for (int i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return i;	/* enum infer_format order */
	tr_die(TR_EXIT_USAGE, "-f: unknown format \"%s\" (tsv, csv, json, dot, jaeger-json)", s);
}

static int
parse_links_rule(const char *s)
{
	if (!s)
		return INFER_LINKS_AUTO;
	if (strcmp(s, "zipkin") == 0)
		return INFER_LINKS_ZIPKIN;
	if (strcmp(s, "jaeger") == 0)
		return INFER_LINKS_JAEGER;
	tr_die(TR_EXIT_USAGE, "--links: zipkin or jaeger, not \"%s\"", s);
}

static long
parse_count_arg(const char *opt, const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > max)
		tr_die(TR_EXIT_USAGE, "%s: not a number from 0 to %ld: %s", opt, max, s);
	return v;
}

int
main(int argc, char **argv)
{
	enum { OPT_DOT = 256, OPT_SPANS, OPT_REDUCE };
	static const struct option longopts[] = {
		{"threshold", required_argument, NULL, 't'},
		{"all", no_argument, NULL, 'a'},
		{"name", required_argument, NULL, 'n'},
		{"backtrace-depth", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'c'},
		{"max-events", required_argument, NULL, 'm'},
		{"format", required_argument, NULL, 'f'},
		{"dot", no_argument, NULL, OPT_DOT},
		{"spans", no_argument, NULL, OPT_SPANS},
		{"reformat", no_argument, NULL, 'r'},
		{"reduce", no_argument, NULL, OPT_REDUCE},
		{"links", optional_argument, NULL, 'l'},
		{"partial", no_argument, NULL, 'p'},
		{"merge", no_argument, NULL, 'M'},
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	infer_opts o = { .fields = { INFER_SERVICE, INFER_OPERATION }, .nfields = 2,
			 .max_events = 2048 };
	infer_ctx x = {0};
	tr_filter f = {0};
	tr_filelist from = {0};
	const char *threshold = "v == 0";
	int opt, links = 0, merge = 0, reformat = 0, status;

	tr_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, ":t:an:d:c:m:f:rlpMko:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't': threshold = optarg; break;
		case 'a': x.out.all = 1; break;
		case 'n':
			if (infer_parse_fields(optarg, &o) < 0)
				tr_die(TR_EXIT_USAGE, "--name: \"%s\": a comma list of "
				       "service, operation, kind, host", optarg);
			break;
		case 'd': o.depth = (int)parse_count_arg("--backtrace-depth", optarg, 1000); break;
		case 'c':
			if (strcmp(optarg, "traces") == 0)
				o.count = INFER_COUNT_TRACES;
			else if (strcmp(optarg, "pairs") == 0)
				o.count = INFER_COUNT_PAIRS;
			else
				tr_die(TR_EXIT_USAGE, "--count: traces or pairs, not \"%s\"", optarg);
			break;
		case 'm': o.max_events = (size_t)parse_count_arg("--max-events", optarg, 1L << 24); break;
		case 'f': x.out.format = parse_format(optarg); break;
		case OPT_DOT: x.out.format = INFER_DOT; break;
		case OPT_SPANS: x.out.spans = 1; break;
		case 'r': reformat = 1; break;
		case OPT_REDUCE: x.reduce = 1; break;
		case 'l':
			links = 1;
			x.links_rule = parse_links_rule(optarg);
			break;
		case 'p': x.partial = 1; break;
		case 'M': merge = 1; break;
		case 'k': f.keep_going = 1; break;
		case TR_OPT_ALLOW_EMPTY: f.allow_empty = 1; break;
		case TR_OPT_FILES_FROM: tr_filelist_from(&from, optarg); break;
		case TR_OPT_WHERE: f.where = tr_where_option(optarg); break;
		case 'o': f.out_path = optarg; break;
		case 'q': x.quiet = f.quiet = 1; break;
		case 'v': f.verbose = 1; break;
		case 'h': usage(stdout); return TR_EXIT_OK;
		case TR_OPT_VERSION: tr_print_version(); return TR_EXIT_OK;
		default:
			if (!tr_limit_option(opt, optarg, &f.max_spans, &f.max_bytes))
				tr_option_error(opt, argv, longopts);
			break;
		}
	}
	if (reformat && (links || x.partial || merge))
		tr_die(TR_EXIT_USAGE, "--reformat excludes --links, --partial and --merge");
	if (x.reduce && !reformat)
		tr_die(TR_EXIT_USAGE, "--reduce goes with --reformat");
	if (x.out.format == INFER_JAEGER_JSON && !links)
		tr_die(TR_EXIT_USAGE, "-f jaeger-json goes with --links");
	if (x.out.spans && (x.out.format != INFER_DOT || links))
		tr_die(TR_EXIT_USAGE, "--spans goes with --dot");
	if (x.out.all && links)
		tr_die(TR_EXIT_USAGE, "--all goes with the causal model, not --links");

	char err[256];
	size_t errpos = 0;
	if (links) {
		x.links = infer_links_new(x.links_rule);
	} else {
		x.model = infer_new(&o);
		if (infer_set_threshold(x.model, threshold, err, sizeof err, &errpos) < 0)
			tr_die(TR_EXIT_USAGE, "--threshold: %s at offset %zu in \"%s\"",
			       err, errpos, threshold);
	}

	f.files = tr_filelist_with(&from, argv + optind, argc - optind, &f.nfiles);
	f.on_trace = on_trace;
	f.on_end = on_end;
	f.ctx = &x;
	if (merge)
		status = run_merge(&x, &f);
	else if (reformat)
		status = run_reformat(&f);
	else
		status = tr_filter_run(&f);
	infer_free(x.model);
	infer_links_free(x.links);
	return status;
}
