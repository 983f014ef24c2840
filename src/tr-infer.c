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
	    "  -n, --name FIELDS       nameID fields, of service,operation,kind,host,tag:KEY\n"
	    "                          (default service,operation; joined by ':')\n"
	    "      --events logs       span logs with event=X are events NAME@X too\n"
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
	    TR_CLOCK_USAGE
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
run_reformat(infer_ctx *x, tr_filter *f)
{
	(void)x;	/* f->ctx: the first pass adds to its model */
	f->pass_through = 1;
	f->on_trace = on_reformat;
	f->on_end = NULL;
	f->first_pass = first_pass;
	return tr_filter_run(f);
}

/* Long-only options: values past any character, so no short option. */
enum { OPT_DOT = 256, OPT_SPANS, OPT_REDUCE, OPT_EVENTS };

static const struct option longopts[] = {
	{"threshold", required_argument, NULL, 't'}, {"all", no_argument, NULL, 'a'},
	{"name", required_argument, NULL, 'n'}, {"backtrace-depth", required_argument, NULL, 'd'},
	{"count", required_argument, NULL, 'c'}, {"max-events", required_argument, NULL, 'm'},
	{"format", required_argument, NULL, 'f'}, {"dot", no_argument, NULL, OPT_DOT},
	{"spans", no_argument, NULL, OPT_SPANS}, {"reformat", no_argument, NULL, 'r'},
	{"reduce", no_argument, NULL, OPT_REDUCE}, {"links", optional_argument, NULL, 'l'},
	{"partial", no_argument, NULL, 'p'}, {"merge", no_argument, NULL, 'M'},
	{"events", required_argument, NULL, OPT_EVENTS}, TR_COMMON_LONGOPTS,
	TR_CLOCK_LONGOPT,
	{NULL, 0, NULL, 0}
};

/* What the command line says. */
typedef struct cli {
	infer_opts o;
	infer_ctx x;
	tr_filter f;
	tr_filelist from;
	const char *threshold;
	int links, merge, reformat;
} cli;

/* One option of tr-infer's own into c; 0 when it is none. */
static int
infer_option(cli *c, int opt, const char *arg)
{
	static const char *const formats[] = {"tsv", "csv", "json", "dot", "jaeger-json", NULL};	/* enum infer_format */
	static const char *const rules[] = {"zipkin", "jaeger", NULL};	/* enum infer_links_rule */
	static const char *const counts[] = {"traces", "pairs", NULL};	/* enum infer_count */
	static const char *const events[] = {"spans", "logs", NULL};	/* log_events 0, 1 */

	switch (opt) {
	case 't': c->threshold = arg; break;
	case 'a': c->x.out.all = 1; break;
	case 'n':
		if (infer_parse_fields(arg, &c->o) < 0)
			tr_usage_error("--name: \"%s\": a comma list of service, operation, kind, host, tag:KEY", arg);
		break;
	case 'd': c->o.depth = (int)tr_arg_count("--backtrace-depth", arg, 0, 1000); break;
	case 'c': c->o.count = tr_arg_choice("--count", "mode", arg, counts); break;
	case 'm': c->o.max_events = (size_t)tr_arg_count("--max-events", arg, 0, 1L << 24); break;
	case 'f': c->x.out.format = tr_arg_choice("-f", "format", arg, formats); break;
	case OPT_DOT: c->x.out.format = INFER_DOT; break;
	case OPT_SPANS: c->x.out.spans = 1; break;
	case 'r': c->reformat = 1; break;
	case OPT_REDUCE: c->x.reduce = 1; break;
	case 'l':
		c->links = 1;
		c->x.links_rule = arg ? tr_arg_choice("--links", "rule", arg, rules) : INFER_LINKS_AUTO;
		break;
	case 'p': c->x.partial = 1; break;
	case 'M': c->merge = 1; break;
	case OPT_EVENTS: c->o.log_events = tr_arg_choice("--events", "kind", arg, events); break;
	default: return 0;
	}
	return 1;
}

/* The options that go with some others only. */
static void
check_options(const cli *c)
{
	if (c->reformat && (c->links || c->x.partial || c->merge))
		tr_usage_error("--reformat excludes --links, --partial and --merge");
	if (c->merge && c->f.where)
		tr_usage_error("--where goes with traces: not with --merge");
	if (c->x.reduce && !c->reformat)
		tr_usage_error("--reduce goes with --reformat");
	if (c->x.out.format == INFER_JAEGER_JSON && !c->links)
		tr_usage_error("-f jaeger-json goes with --links");
	if (c->x.out.spans && (c->x.out.format != INFER_DOT || c->links))
		tr_usage_error("--spans goes with --dot");
	if (c->x.out.all && c->links)
		tr_usage_error("--all goes with the causal model, not --links");
	if (c->o.log_events && (c->links || c->x.partial || c->merge))
		tr_usage_error("--events logs goes with the model and --reformat, not --links, --partial, --merge");
}

int
main(int argc, char **argv)
{
	cli c = {.o = {.fields = {INFER_SERVICE, INFER_OPERATION}, .nfields = 2, .max_events = 2048},
		 .threshold = "v == 0"};
	infer_ctx *x = &c.x;
	char err[256];
	size_t errpos = 0;
	int opt, status;

	tr_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, ":t:an:d:c:m:f:rlpMko:qvh", longopts, NULL)) != -1) {
		if (opt == 'h' || opt == TR_OPT_VERSION) {
			(opt == 'h' ? usage(stdout) : tr_print_version());
			return TR_EXIT_OK;
		}
		if (!infer_option(&c, opt, optarg) && !tr_filter_option(&c.f, &c.from, opt, optarg))
			tr_option_error(opt, argv, longopts);
	}
	check_options(&c);
	x->quiet = c.f.quiet;
	if (c.links) {
		x->links = infer_links_new(x->links_rule);
	} else {
		x->model = infer_new(&c.o);
		if (infer_set_threshold(x->model, c.threshold, err, sizeof err, &errpos) < 0)
			tr_usage_error("--threshold: %s at offset %zu in \"%s\"", err, errpos, c.threshold);
	}
	c.f.files = tr_filelist_with(&c.from, argv + optind, argc - optind, &c.f.nfiles);
	c.f.on_trace = on_trace;
	c.f.on_end = on_end;
	c.f.ctx = x;
	if (c.merge)
		status = run_merge(x, &c.f);
	else if (c.reformat)
		status = run_reformat(x, &c.f);
	else
		status = tr_filter_run(&c.f);
	infer_free(x->model);
	infer_links_free(x->links);
	return status;
}
