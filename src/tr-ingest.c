/* tr-ingest - Jaeger, Zipkin and OTLP JSON to the tr line format. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/format.h"
#include "ingest/ingest.h"
#include "core/shard.h"
#include "core/halo.h"

static void
usage(FILE *f, int status)
{
	fprintf(f,
		"usage: tr-ingest [-kqvz] [-j N] [-f FORMAT] [-o FILE] [--max-spans N]\n"
		"                 [--clock-offsets [--partial | --merge]]\n"
		"                 [--max-bytes N] [--no-merge] [--time-unit UNIT]\n"
		"                 [--shard K/N | --split N] [--files-from LIST] [FILE|DIR...]\n"
		"       tr-ingest --split-time N [--halo K | --window D --halo DURATION]\n"
		"                 -o PREFIX FILE\n"
		"Convert Jaeger, Zipkin (v1, v2), OTLP and Tempo JSON, plain, zstd or gzip, to\n"
		"the tr line format. A directory stands for the *.json, *.jsonl and *.ndjson\n"
		"files under it (.gz, .zst too).\n"
		"  -f, --format FORMAT     auto (default), jaeger, otlp, zipkin, zipkin1, zipkin2\n"
		"  -j, --threads N         parse on N threads: a file's Jaeger traces, or many\n"
		"                          files (same output as -j 1)\n"
		"  -k, --keep-going        skip broken traces, write every good one, report at\n"
		"                          the end\n"
		"      --no-merge          do not remember written traces: one met again is\n"
		"                          written again\n"
		"      --time-unit UNIT    the input's times are in UNIT (ns, us, ms, s), not the\n"
		"                          format's own (Jaeger, Zipkin: us; OTLP: ns)\n"
		"  -o, --output FILE       write to FILE (through a temporary file) instead of\n"
		"                          stdout\n"
		"  -z, --zstd              compress the output with zstd\n"
		"      --allow-empty       an input with no span is not an error\n"
		"      --shard K/N         keep the traces of shard K of N (by a hash of the\n"
		"                          trace id), each as one group\n"
		"      --split N           every trace to its shard's output, -o PREFIX:\n"
		"                          PREFIX0.tr ... PREFIX<N-1>.tr (.tr.zst with -z)\n"
		"      --split-time N      FILE's traces in order, in N runs: PREFIX0.tr ...\n"
		"      --halo K            with --split-time: K traces of the neighbours before\n"
		"                          and after a run, tagged tr.halo=true\n"
		"      --window D          with --split-time and --halo DURATION (6s): N runs of\n"
		"                          whole windows of D by trace start, each with the\n"
		"                          traces from DURATION before to after, PREFIXk.own\n"
		"                          the range (tr-pag --own)\n"
		"      --files-from LIST   also read the files LIST names, one a line (-: stdin)\n"
		"      --clock-offsets     write the hosts' clock offsets, estimated from the\n"
		"                          input's RPCs, as O records (not the traces)\n"
		"      --partial           with --clock-offsets: the RPCs' evidence, to merge\n"
		"      --merge             with --clock-offsets: the O records of the partials\n"
		"                          given (none: stdin), as one pass would write\n"
		"      --max-spans N       a trace with more spans is bad input, skipped as it is\n"
		"                          read (default 1000000; 0: none)\n"
		"      --max-bytes N       a JSON trace larger than N bytes is bad input, skipped\n"
		"                          as it is read (default 128 MiB; 0: none)\n"
		"  -q, --quiet             no summary, even with -k\n"
		"  -v, --verbose           each file's shape, span-tree problems and a summary on\n"
		"                          stderr\n"
		"  -h, --help              this help\n"
		"      --version           the version\n");
	exit(status);
}

static int
any_lines(const ingest_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (tr_file_is_lines(l->paths[i]))
			return 1;
	return 0;
}

/* --shard, --split, or an input in the line format: every trace read as the
 * filters read it, regrouped, written to its shard's output. */
static int
shard_main(tr_shard_opts *so, const ingest_opts *o, ingest_list *inputs, const char *outpath,
	   int zstd, int allow_empty)
{
	unsigned nout = so->split ? so->n : 1;
	strbuf name = {0};

	if (!so->n)
		so->n = 1;	/* every trace: shard 0 of 1 */
	so->exports = tr_exports();
	so->files = inputs->paths;
	so->nfiles = (int)inputs->n;
	so->keep_going = o->keep_going;
	so->verbose = o->verbose;
	so->allow_empty = allow_empty;
	so->max_spans = o->max_spans;
	so->max_bytes = o->max_bytes;
	so->outs = xcalloc(nout, sizeof *so->outs);
	for (unsigned i = 0; i < nout; i++) {
		sb_clear(&name);
		if (so->split)
			sb_addf(&name, "%s%u.tr%s", outpath, i, zstd ? ".zst" : "");
		so->outs[i] = tr_output_open(so->split ? name.s : outpath, zstd ? 3 : 0);
	}
	int status = tr_shard_run(so);

	for (unsigned i = 0; i < nout; i++)
		if (status != TR_EXIT_OK && !so->keep_going)
			tr_output_discard(so->outs[i]);
		else
			tr_output_close(so->outs[i]);
	free(so->outs);
	sb_free(&name);
	ingest_list_free(inputs);
	return status;
}

/* Long-only options: values past any character, so no short option. */
enum { OPT_NO_MERGE = 256, OPT_TIME_UNIT, OPT_SHARD, OPT_SPLIT, OPT_PARTIAL, OPT_MERGE };

static const struct option longopts[] = {
	{"format", required_argument, NULL, 'f'}, {"threads", required_argument, NULL, 'j'},
	{"zstd", no_argument, NULL, 'z'}, {"no-merge", no_argument, NULL, OPT_NO_MERGE},
	{"time-unit", required_argument, NULL, OPT_TIME_UNIT},
	{"shard", required_argument, NULL, OPT_SHARD}, {"split", required_argument, NULL, OPT_SPLIT},
	{"clock-offsets", no_argument, NULL, TR_OPT_CLOCK_OFFSETS},
	{"partial", no_argument, NULL, OPT_PARTIAL}, {"merge", no_argument, NULL, OPT_MERGE},
	TR_SPLIT_LONGOPTS,
	TR_COMMON_LONGOPTS,
	{NULL, 0, NULL, 0}
};

/* What the command line says. */
typedef struct cli {
	ingest_opts o;
	tr_filter f;		/* the common options */
	tr_filelist from;
	tr_shard_opts so;
	int zstd;
	enum tr_offsets_mode clocks;	/* --partial, --merge */
	tr_split_opts split;	/* --split-time, --halo, --window */
} cli;

static void
shard_option(tr_shard_opts *so, int opt, const char *arg)
{
	unsigned k, n;

	if (so->n)
		tr_usage_error("--shard and --split: one of them");
	if (opt == OPT_SPLIT) {
		so->n = (unsigned)tr_arg_count("--split", arg, 1, TR_SPLIT_MAX);
		so->split = 1;
		return;
	}
	if (tr_shard_parse(arg, &k, &n) < 0)
		tr_usage_error("--shard: K/N with 0 <= K < N <= %u: %s", TR_SHARDS_MAX, arg);
	so->k = k;
	so->n = n;
}

/* One option of tr-ingest's own into c; 0 when it is none. */
static int
ingest_option(cli *c, int opt, const char *arg)
{
	static const char *const formats[] = {"auto", "jaeger", "otlp", "zipkin", "zipkin1", "zipkin2",
					      NULL};	/* enum ingest_format */
	static const char *const units[] = {"ns", "us", "ms", "s", NULL};
	int u;

	switch (opt) {
	case 'f': c->o.format = (enum ingest_format)tr_arg_choice("-f", "format", arg, formats); break;
	case 'j': c->o.threads = (int)tr_arg_count("-j", arg, 1, 256); break;
	case OPT_NO_MERGE: c->o.no_merge = 1; break;
	case OPT_TIME_UNIT:
		/* the library's names, µs too; else the one message */
		if ((u = ingest_time_unit_parse(arg)) < 0)
			tr_arg_choice("--time-unit", "time unit", arg, units);
		c->o.time_unit = u;
		break;
	case 'z': c->zstd = 1; break;
	case OPT_SHARD: case OPT_SPLIT: shard_option(&c->so, opt, arg); break;
	case OPT_PARTIAL: case OPT_MERGE:
		if (c->clocks)
			tr_usage_error("--partial and --merge: one of them");
		c->clocks = opt == OPT_PARTIAL ? TR_OFFSETS_PARTIAL : TR_OFFSETS_MERGE;
		break;
	default: return tr_split_option(&c->split, opt, arg);
	}
	return 1;
}

/* The conversion in one pass to one output; the exit status. */
static int
ingest_main(cli *c, ingest_list *inputs, char **files, int nfiles, int status)
{
	tr_output *out = tr_output_open(c->f.out_path, c->zstd ? 3 : 0);
	ingest *g = ingest_new(&c->o, out);
	tr_output_puts(out, TR_FORMAT_HEADER "\n");
	if ((status == TR_EXIT_OK || c->o.keep_going) && ingest_files(g, inputs) < 0)
		status = TR_EXIT_INPUT;
	ingest_list_free(inputs);
	ingest_end(g);
	const ingest_stats *st = ingest_stats_get(g);
	/* an empty pipe or an export of nothing answers nothing downstream */
	if (status == TR_EXIT_OK && !st->spans && !c->f.allow_empty) {
		const char *first = nfiles ? tr_path_name(files[0]) : "<stdin>";
		char name[512];

		tr_inputs_name(name, sizeof name, first, nfiles);
		tr_warn("%s: no span in the input (--allow-empty accepts that)", name);
		status = TR_EXIT_INPUT;
	}
	if (!c->f.quiet && (c->o.verbose || (c->o.keep_going && st->broken)))
		tr_warn("%zu files, %zu traces, %zu spans written; %zu broken traces skipped, "
			"%zu duplicate spans dropped, %zu span ids renamed",
			st->files, st->traces, st->spans, st->broken, st->dropped_duplicates, st->renamed);
	if (!c->f.quiet && c->o.verbose && (st->merged || st->split))
		tr_warn("%zu traces met again: %zu wholly written before, %zu with new spans written as a "
			"second group", st->merged + st->split, st->merged, st->split);
	/* A failed run that wrote no trace leaves no file behind -o, and
	 * writes nothing on stdout, not even the header. */
	if (status != TR_EXIT_OK && !st->traces)
		tr_output_discard(out);
	else
		tr_output_close(out);
	ingest_free(g);
	return status;
}

/* --clock-offsets: the O records of the hosts' offsets (tr-format(5)),
 * estimated from the input's RPCs, for the tools' --clock-offsets=FILE;
 * or their evidence as a partial, or the merge of partials. */
static int
clocks_main(const cli *c, char **files, int nfiles)
{
	strbuf b = {0};
	size_t nhosts;
	int status = tr_offsets_produce(c->clocks, files, nfiles, c->f.max_spans, c->f.max_bytes,
					c->f.keep_going ? TR_READ_KEEP_GOING : 0, &b, &nhosts);

	if (status == TR_EXIT_OK) {
		tr_output *out = tr_output_open(c->f.out_path, c->zstd ? 3 : 0);

		tr_output_sb(out, &b);
		tr_output_close(out);
		if (c->f.verbose)
			tr_warn("clock offsets of %zu hosts written", nhosts);
	}
	sb_free(&b);
	return status;
}

int
main(int argc, char **argv)
{
	cli c = {.o = {.max_spans = INGEST_DEFAULT_MAX_SPANS, .max_bytes = INGEST_DEFAULT_MAX_BYTES}};
	ingest_list inputs = {0};
	int opt, status = TR_EXIT_OK, nfiles;
	char **files;

	tr_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, ":f:j:ko:zqvh", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(stdout, TR_EXIT_OK);
		if (opt == TR_OPT_VERSION) {
			tr_print_version();
			return TR_EXIT_OK;
		}
		if (!ingest_option(&c, opt, optarg) && !tr_filter_option(&c.f, &c.from, opt, optarg))
			tr_option_error(opt, argv, longopts);
	}
	c.o.keep_going = c.f.keep_going;
	c.o.quiet = c.f.quiet;
	c.o.verbose = c.f.verbose;
	if (c.f.max_spans)
		c.o.max_spans = c.f.max_spans;	/* SIZE_MAX: none */
	if (c.f.max_bytes)
		c.o.max_bytes = c.f.max_bytes;
	files = tr_filelist_with(&c.from, argv + optind, argc - optind, &nfiles);
	if (c.f.where)	/* a filter's option: tr-ingest writes every trace it reads */
		tr_usage_error("--where goes with the filters: tr-ingest ... | tr-cp --where EXPR");
	if (c.f.clock_offsets)
		return clocks_main(&c, files, nfiles);
	if (c.clocks)
		tr_usage_error("--partial and --merge go with --clock-offsets");
	if (tr_split_given(&c.split))
		return tr_split_halo_main(&c.split, files, nfiles, c.f.out_path, c.zstd, c.f.allow_empty);
	if (c.so.split && !c.f.out_path)
		tr_usage_error("--split: -o PREFIX names the outputs");
	if (!nfiles && ingest_list_add(&inputs, "-") < 0)
		status = TR_EXIT_INPUT;
	for (int i = 0; i < nfiles; i++)
		if (ingest_list_add(&inputs, files[i]) < 0)
			status = TR_EXIT_INPUT;
	if (status == TR_EXIT_OK && (c.so.n || any_lines(&inputs)))
		return shard_main(&c.so, &c.o, &inputs, c.f.out_path, c.zstd, c.f.allow_empty);
	return ingest_main(&c, &inputs, files, nfiles, status);
}
