/* tr-aggregate - Pivot Tracing queries over the spans of traces: group-by,
 * happened-before joins, percentiles, CI gates. See tr-aggregate(1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/shard.h"
#include "query/query.h"
#include "core/table.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tr-aggregate [-kqv] [-o FILE] [options] QUERY [FILE...]\n"
		"       tr-aggregate [options] -Q QUERYFILE [FILE...]\n"
		"       tr-aggregate --merge [--partial] [options] QUERY [PARTIAL...]\n"
		"Run a Pivot Tracing query (From, Join, Where, GroupBy, Select) over the\n"
		"spans of all traces and write its table.\n"
		"  -f, --format=tsv|csv|json|crosstab\n"
		"                          the table's format (tsv); crosstab: Select row,\n"
		"                          column, value as a table with totals\n"
		"      --no-header         no header line (tsv, csv)\n"
		TABLE_UNITS_USAGE
		"  -o, --output FILE       write the table to FILE\n"
		"  -Q, --query-file=FILE   read the query from FILE\n"
		"      --hb=seq|tree       happened-before: siblings in sequence too (seq) or\n"
		"                          ancestry only (tree)\n"
		"      --max-rows-per-trace=N\n"
		"                          skip a trace whose joins give more rows (1000000)\n"
		"      --fail-if=EXPR      exit 1 when EXPR holds for a result row, or when\n"
		"                          the query matched no row\n"
		TR_FILES_FROM_USAGE
		TR_WHERE_USAGE
		"      --allow-empty       no trace in the input, or no row for --fail-if,\n"
		"                          is not an error\n"
		"      --emit-every=D      write the table of each window of D (by the\n"
		"                          start of the rows' From spans) once it closes\n"
		"      --lateness=L        a window closes L after its end, in input time (0)\n"
		"      --explain           the parsed query and join counts on stderr\n"
		"      --partial           write mergeable group states, not the table\n"
		"      --exact-percentiles with --partial: percentiles as value counts, so\n"
		"                          that the merge is exact (not a 1%% sketch)\n"
		"      --merge             merge --partial files (none: stdin) into the table;\n"
		"                          with --partial, into one partial (a combiner)\n"
		"  -k, --keep-going        skip bad traces\n"
		"  -q, --quiet             no message per --fail-if row\n"
		"  -v, --verbose           a summary line on stderr\n"
		TR_LIMIT_USAGE
		"  -h, --help              this help\n"
		"      --version           the version\n");
}

enum { OPT_NO_HEADER = 256, OPT_HB, OPT_MAX_ROWS, OPT_FAIL_IF, OPT_EXPLAIN, OPT_PARTIAL,
       OPT_MERGE, OPT_EMIT_EVERY, OPT_LATENESS, OPT_EXACT_PCT };

typedef struct cli {
	query_run *run;
	int partial;
} cli;

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	cli *c = ctx;
	return query_run_trace(c->run, t, out);
}

static void
on_end(void *ctx, tr_output *out)
{
	cli *c = ctx;
	if (c->partial)
		query_run_write_partial(c->run, out);
	else
		query_run_finish(c->run, out);
}

static char *
read_query_file(const char *path)
{
	tr_input *in = tr_input_open(path);
	strbuf b = {0};

	tr_input_slurp(in, &b);
	tr_input_close(in);
	sb_addc(&b, '\0');
	return b.s;
}

/* A query or --fail-if syntax error: message, the line, a caret; exit 2. */
static _Noreturn void
syntax_error(const char *what, const char *src, size_t pos, const char *msg)
{
	strbuf b = {0};
	query_error_text(src, pos, msg, &b);
	if (strcmp(what, "query") != 0 && b.len > 5 && memcmp(b.s, "query", 5) == 0)
		fprintf(stderr, "%s: %s%s", tr_progname, what, b.s + 5);
	else
		fprintf(stderr, "%s: %s", tr_progname, b.s);
	sb_free(&b);
	tr_usage_try();
}

/* Option flags, as parsed. */
typedef struct options {
	query_opts qo;
	tr_filter f;
	const char *query_file, *fail_if;
	int explain, partial, merge, lateness;
	tr_filelist from;	/* --files-from */
} options;

/* One option of tr-aggregate's own into o; 0 when it is none. */
static int
aggregate_option(options *o, int opt, const char *arg)
{
	static const char *const formats[] = {"tsv", "csv", "json", "crosstab", NULL};
	static const int format_of[] = {QUERY_TSV, QUERY_CSV, QUERY_JSON, QUERY_CROSSTAB};
	static const char *const hbs[] = {"seq", "tree", NULL};

	switch (opt) {
	case 'f': o->qo.format = format_of[tr_arg_choice("-f", "format", arg, formats)]; break;
	case OPT_NO_HEADER: o->qo.header = 0; break;
	case 'Q': o->query_file = arg; break;
	case OPT_HB: o->qo.hb = tr_arg_choice("--hb", "order", arg, hbs) ? QUERY_HB_TREE : QUERY_HB_SEQ; break;
	case OPT_MAX_ROWS:
		o->qo.max_rows_per_trace = (size_t)tr_arg_count("--max-rows-per-trace", arg, 0, TR_ARG_NO_MAX);
		break;
	case OPT_FAIL_IF: o->fail_if = arg; break;
	case OPT_EXPLAIN: o->explain = 1; break;
	case OPT_PARTIAL: o->partial = 1; break;
	case OPT_MERGE: o->merge = 1; break;
	case OPT_EXACT_PCT: o->qo.exact_pct = 1; break;
	case OPT_EMIT_EVERY: o->qo.every = tr_arg_duration("--emit-every", arg, 1); break;
	case OPT_LATENESS: o->qo.lateness = tr_arg_duration("--lateness", arg, 0); o->lateness = 1; break;
	case TR_OPT_UNITS: o->qo.units = tr_units_option(arg); break;
	default: return 0;
	}
	return 1;
}

/* Returns optind, or -1 when main should exit with *status. */
static int
parse_options(int argc, char **argv, options *o, int *status)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"no-header", no_argument, NULL, OPT_NO_HEADER},
		{"query-file", required_argument, NULL, 'Q'},
		{"hb", required_argument, NULL, OPT_HB},
		{"max-rows-per-trace", required_argument, NULL, OPT_MAX_ROWS},
		{"fail-if", required_argument, NULL, OPT_FAIL_IF},
		{"explain", no_argument, NULL, OPT_EXPLAIN},
		{"partial", no_argument, NULL, OPT_PARTIAL},
		{"merge", no_argument, NULL, OPT_MERGE},
		{"emit-every", required_argument, NULL, OPT_EMIT_EVERY},
		{"lateness", required_argument, NULL, OPT_LATENESS},
		{"exact-percentiles", no_argument, NULL, OPT_EXACT_PCT},
		TR_UNITS_LONGOPT,
		TR_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	int ch;

	while ((ch = getopt_long(argc, argv, ":f:o:Q:kqvh", longopts, NULL)) != -1) {
		if (ch == 'h' || ch == TR_OPT_VERSION) {
			(ch == 'h' ? usage(stdout) : tr_print_version());
			*status = TR_EXIT_OK;
			return -1;
		}
		if (!aggregate_option(o, ch, optarg) && !tr_filter_option(&o->f, &o->from, ch, optarg))
			tr_option_error(ch, argv, longopts);
	}
	o->qo.quiet = o->f.quiet;
	if (o->qo.exact_pct && !o->partial)
		tr_usage_error("--exact-percentiles: only with --partial");
	if (o->qo.every && (o->partial || o->merge))
		tr_usage_error("--emit-every does not go with --partial or --merge: "
			       "GroupBy bucket(s.start, D) makes windows that merge");
	if (o->merge && o->f.where)
		tr_usage_error("--where goes with traces: not with --merge");
	if (o->lateness && !o->qo.every)
		tr_usage_error("--lateness is for --emit-every");
	tr_units_check(o->qo.units, o->qo.format == QUERY_CSV || o->qo.format == QUERY_JSON);
	if (o->qo.format == QUERY_CROSSTAB && !o->qo.header)
		tr_usage_error("-f crosstab has its header line: --no-header does not go with it");
	return optind;
}

/* Run the query over the inputs (or merge partials); the exit status. */
static int
run(options *o, query_run *run, char **files, int nfiles)
{
	cli c = {run, o->partial};

	if (o->merge) {
		static char *std_in[] = {"-"};
		int status = nfiles ? query_run_merge_files(run, files, nfiles)
				    : query_run_merge_files(run, std_in, 1);
		if (status == TR_EXIT_OK) {
			tr_output *out = tr_output_open(o->f.out_path, 0);
			if (o->partial)
				query_run_write_partial(run, out);
			else
				query_run_finish(run, out);
			tr_output_close(out);
		}
		return status;
	}
	o->f.files = files;
	o->f.nfiles = nfiles;
	o->f.on_trace = on_trace;
	o->f.on_end = on_end;
	o->f.ctx = &c;
	return tr_filter_run(&o->f);
}

/* A gate with nothing to judge fails: no row matched (a misspelt name) must
 * not pass as "no row over the threshold". (An input with no trace already
 * failed in tr_filter_run.) Partials are judged where they are merged. */
static int
gate_empty(const options *o, const query_run *r)
{
	if (!o->fail_if || o->f.allow_empty || o->partial || query_run_rows(r) > 0)
		return TR_EXIT_OK;
	tr_warn("fail-if %s: the query matched no row: the gate fails (--allow-empty lets it pass)",
		o->fail_if);
	return TR_EXIT_FINDING;
}

int
main(int argc, char **argv)
{
	options o = {.qo = {.hb = QUERY_HB_SEQ, .max_rows_per_trace = 1000000, .format = QUERY_TSV, .header = 1}};
	char err[300], *src;
	size_t pos;
	int status = TR_EXIT_OK, first;

	tr_setprogname(argv[0]);
	if ((first = parse_options(argc, argv, &o, &status)) < 0)
		return status;
	argc -= first;
	argv += first;
	if (o.query_file)
		src = read_query_file(o.query_file);
	else if (argc > 0) {
		src = xstrdup(argv[0]);
		argc--;
		argv++;
	} else
		tr_usage_error("no query: give one, or -Q FILE");
	query *q = query_parse(src, err, sizeof err, &pos);
	if (!q)
		syntax_error("query", src, pos, err);
	if ((o.partial || o.merge) && !query_is_grouped(q))
		tr_usage_error("--partial and --merge need a query with GroupBy or an aggregate");
	if (o.qo.format == QUERY_CROSSTAB && query_crosstab_check(q, err, sizeof err) < 0)
		tr_usage_error("%s", err);
	if (o.qo.every && !query_is_grouped(q))
		tr_usage_error("--emit-every needs a query with GroupBy or an aggregate: "
			       "raw rows are written as they are found");
	expr *fe = NULL;
	if (o.fail_if && !(fe = query_fail_if_parse(q, o.fail_if, err, sizeof err, &pos)))
		syntax_error("fail-if", o.fail_if, pos, err);
	o.qo.fail_if = fe;
	o.qo.fail_if_text = o.fail_if;
	o.qo.explain = o.explain;
	o.qo.sketch = o.merge;

	query_run *r = query_run_new(q, &o.qo);
	argv = tr_filelist_with(&o.from, argv, argc, &argc);
	status = run(&o, r, argv, argc);
	if (o.explain)
		query_run_explain(r, stderr);
	if (status == TR_EXIT_OK && query_run_left_out(r))
		status = TR_EXIT_INPUT;	/* the windows miss rows: said on stderr */
	if (status == TR_EXIT_OK && query_run_failed(r))
		status = TR_EXIT_FINDING;
	/* a misspelt name in a comparison: the closest one the spans have,
	 * before the gate says that nothing matched; under a gate it is an
	 * error whatever the gate said (it judged rows of a name no span
	 * has), told even with -q, unless --allow-empty accepts no match */
	size_t misnamed = !o.merge && (!o.qo.quiet || o.fail_if) ? query_run_unmatched_names(r) : 0;
	if (status == TR_EXIT_OK)
		status = gate_empty(&o, r);
	if (misnamed && o.fail_if && !o.f.allow_empty && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
		status = TR_EXIT_USAGE;
	/* a GroupBy tag no span has makes one group of nulls, a tag no span
	 * has under --fail-if only nulls: say so, fail, whatever the gate said */
	if (!o.merge && query_run_unmatched_keys(r) && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
		status = TR_EXIT_USAGE;
	query_run_free(r);
	expr_free(fe);
	query_free(q);
	free(src);
	return status;
}
