/* tr-ingest - Jaeger, Zipkin and OTLP JSON to the tr line format. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/format.h"
#include "ingest/ingest.h"
#include "core/shard.h"

static void
usage(FILE *f, int status)
{
	fprintf(f,
		"usage: tr-ingest [-kqvz] [-j N] [-f FORMAT] [-o FILE] [--max-spans N]\n"
		"                 [--max-bytes N] [--no-merge] [--time-unit UNIT]\n"
		"                 [--shard K/N | --split N] [--files-from LIST] [FILE|DIR...]\n"
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
		"      --files-from LIST   also read the files LIST names, one a line (-: stdin)\n"
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

static size_t
size_arg(const char *s, const char *opt)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end || *s == '-')
		tr_die(TR_EXIT_USAGE, "%s: not a number: %s", opt, s);
	return (size_t)v;
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

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'}, {"keep-going", no_argument, NULL, 'k'},
		{"output", required_argument, NULL, 'o'}, {"zstd", no_argument, NULL, 'z'},
		{"quiet", no_argument, NULL, 'q'}, {"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},
		{"threads", required_argument, NULL, 'j'}, {"no-merge", no_argument, NULL, 'M'},
		{"allow-empty", no_argument, NULL, TR_OPT_ALLOW_EMPTY},
		{"time-unit", required_argument, NULL, 'U'},
		{"shard", required_argument, NULL, 'S'}, {"split", required_argument, NULL, 'P'},
		{"files-from", required_argument, NULL, 'F'},
		TR_LIMIT_LONGOPTS,
		{NULL, 0, NULL, 0}
	};
	ingest_opts o = {.max_spans = INGEST_DEFAULT_MAX_SPANS, .max_bytes = INGEST_DEFAULT_MAX_BYTES};
	const char *outpath = NULL;
	int c, zstd = 0, quiet = 0, allow_empty = 0, status = TR_EXIT_OK;
	tr_shard_opts so = {.exports = tr_exports()};
	char **files = NULL;
	int nfiles = 0;

	tr_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, ":f:j:ko:zqvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((c = ingest_format_parse(optarg)) < 0)
				tr_die(TR_EXIT_USAGE, "unknown format: %s (auto, jaeger, otlp, zipkin, zipkin1, zipkin2)", optarg);
			o.format = (enum ingest_format)c;
			break;
		case 'j':
			o.threads = (int)size_arg(optarg, "-j");
			if (o.threads < 1 || o.threads > 256)
				tr_die(TR_EXIT_USAGE, "-j: between 1 and 256 threads");
			break;
		case 'k': o.keep_going = 1; break;
		case 'M': o.no_merge = 1; break;
		case 'U':
			if ((c = ingest_time_unit_parse(optarg)) < 0)
				tr_die(TR_EXIT_USAGE, "unknown time unit: %s (ns, us, ms, s)", optarg);
			o.time_unit = c;
			break;
		case 'o': outpath = optarg; break;
		case 'z': zstd = 1; break;
		case TR_OPT_ALLOW_EMPTY: allow_empty = 1; break;
		case 'q': quiet = o.quiet = 1; break;
		case 'v': o.verbose = 1; break;
		case 'S': {
			unsigned k, n;

			if (so.n)
				tr_usage_error("--shard and --split: one of them");
			if (tr_shard_parse(optarg, &k, &n) < 0)
				tr_usage_error("--shard: K/N with 0 <= K < N <= %u: %s", TR_SHARDS_MAX, optarg);
			so.k = k;
			so.n = n;
			break;
		}
		case 'P':
			if (so.n || size_arg(optarg, "--split") < 1 || size_arg(optarg, "--split") > TR_SPLIT_MAX)
				tr_usage_error(so.n ? "--shard and --split: one of them" :
					       "--split: between 1 and %u outputs: %s", TR_SPLIT_MAX, optarg);
			so.n = (unsigned)size_arg(optarg, "--split");
			so.split = 1;
			break;
		case 'F': tr_files_from(optarg, &files, &nfiles); break;
		case 'h': usage(stdout, TR_EXIT_OK); break;
		case 'V': tr_print_version(); return TR_EXIT_OK;
		default:
			if (!tr_limit_option(c, optarg, &o.max_spans, &o.max_bytes))
				tr_option_error(c, argv, (struct option *)longopts);
			break;
		}
	}
	for (int i = optind; i < argc; i++) {
		files = xrealloc(files, ((size_t)nfiles + 1) * sizeof *files);
		files[nfiles++] = xstrdup(argv[i]);
	}
	if (so.split && !outpath)
		tr_usage_error("--split: -o PREFIX names the outputs");
	ingest_list inputs = {0};

	if (!nfiles && ingest_list_add(&inputs, "-") < 0)
		status = TR_EXIT_INPUT;
	for (int i = 0; i < nfiles; i++)
		if (ingest_list_add(&inputs, files[i]) < 0)
			status = TR_EXIT_INPUT;
	if (status == TR_EXIT_OK && (so.n || any_lines(&inputs)))
		return shard_main(&so, &o, &inputs, outpath, zstd, allow_empty);
	tr_output *out = tr_output_open(outpath, zstd ? 3 : 0);
	ingest *g = ingest_new(&o, out);
	tr_output_puts(out, TR_FORMAT_HEADER "\n");
	if ((status == TR_EXIT_OK || o.keep_going) && ingest_files(g, &inputs) < 0)
		status = TR_EXIT_INPUT;
	ingest_list_free(&inputs);
	ingest_end(g);
	const ingest_stats *st = ingest_stats_get(g);
	/* an empty pipe or an export of nothing answers nothing downstream */
	if (status == TR_EXIT_OK && !st->spans && !allow_empty) {
		const char *first = nfiles && strcmp(files[0], "-") ? files[0] : "<stdin>";
		char name[512];

		tr_inputs_name(name, sizeof name, first, nfiles);
		tr_warn("%s: no span in the input (--allow-empty accepts that)", name);
		status = TR_EXIT_INPUT;
	}
	if (!quiet && (o.verbose || (o.keep_going && st->broken)))
		tr_warn("%zu files, %zu traces, %zu spans written; %zu broken traces skipped, "
			"%zu duplicate spans dropped, %zu span ids renamed",
			st->files, st->traces, st->spans, st->broken, st->dropped_duplicates, st->renamed);
	if (!quiet && o.verbose && (st->merged || st->split))
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
