/* filter.h - the main loop every line-format tool shares: read traces,
 * analyse each, write the results, pass everything else through. */
#ifndef TR_FILTER_H
#define TR_FILTER_H

#include <getopt.h>

#include "core/args.h"
#include "core/io.h"
#include "core/trace.h"
#include "exports.h"
#include "offsets.h"

#define TR_VERSION "0.1.0"

typedef struct tr_filter tr_filter;

/* What the loop read, for a tool's verdict. */
typedef struct tr_filter_counts {
	size_t traces;		/* good traces read (before --where) */
	size_t bad;		/* bad traces: the reader's and on_trace's */
	size_t kept;		/* traces --where kept (all of them without it) */
	int stopped;		/* stopped at a bad trace (no -k) */
	int nothing;		/* the input held nothing */
} tr_filter_counts;

struct tr_filter {
	char **files;		/* inputs; none means stdin */
	int nfiles;
	char **names;		/* for messages, one a file (NULL: the files' own) */
	const char *out_path;	/* -o FILE, NULL for stdout */
	int keep_going;		/* -k: skip bad traces instead of stopping */
	int verbose;		/* -v: a summary line on stderr at the end */
	int quiet;		/* -q: no notes about the input (TR_READ_NO_NOTES) */
	int pass_through;	/* write the #tr/1 header and pass traceless lines */
	int allow_empty;	/* --allow-empty: an input with nothing in it is fine */
	size_t max_spans;	/* per trace; 0: the reader's default */
	size_t max_bytes;	/* per trace; 0: the reader's default */
	int read_ahead;		/* read and parse on a second thread (tr_ahead):
				 * for tools whose work per trace is long */
	int no_span_tags;	/* spans' tags are checked, not kept
				 * (TR_READ_NO_SPAN_TAGS): for tools that read none */
	/* Analyse one trace and append its output to out (a filter calls
	 * tr_write_trace first). Return -1 to count the trace as bad, 1 to
	 * have out written and flushed now (a report that comes in parts as
	 * the input streams), else 0. */
	int (*on_trace)(void *ctx, tr_trace *t, strbuf *out);
	/* A traceless line; NULL means: pass it through when pass_through. */
	void (*on_line)(void *ctx, const char *line, size_t len, const char *where, strbuf *out);
	/* on_end writes line-format records (not a report): the header goes first. */
	int end_writes_records;
	/* After the last trace: reports over all traces. */
	void (*on_end)(void *ctx, tr_output *out);
	/* on_end runs after a stop at a bad trace too: for a tool whose
	 * answer about what it read before is still an answer. */
	int end_on_stop;
	/* A first pass, for a tool that needs every trace before the loop
	 * (clock offsets, a model): called with the inputs, standard input
	 * spooled to a file that the loop reads again; it reads them with
	 * tr_filter_each. */
	void (*first_pass)(void *ctx, const tr_filter *f, char **files, int nfiles, char *const *names);
	/* The tool's verdict, after on_end and before the output is closed:
	 * from the loop's status and counts, the exit status, with the tool's
	 * own messages (the loop then prints no summary of its own). Called
	 * for an empty input too, with the status of its error. */
	int (*verdict)(void *ctx, const tr_filter_counts *c, int status);
	int loop_summary;	/* with verdict: the loop's -v lines (traces read,
				 * --where's count) still go first */
	/* --where EXPR (tr(7), WHERE): only the traces it keeps are handed
	 * on, to the first pass too; NULL: every trace. */
	const char *where;
	/* --clock-offsets (tr(7), CLOCKS): NULL: clocks as recorded;
	 * TR_CLOCK_ESTIMATE: estimated in a first pass over the input (as
	 * tr-temporal does); else the file of O records to read them from.
	 * Every span (and log) moves by its host's offset as it is read, for
	 * the first pass and the loop alike. */
	const char *clock_offsets;
	/* The tool moves spans itself (tr-temporal): the loop leaves the
	 * times as recorded, hands the offsets to the tool's first pass
	 * (tr_filter_clock) and leaves -v's report of them to the tool. */
	int clock_by_tool;
	/* The loop's: the offsets while it runs, NULL before. */
	tr_offsets *offsets;
	void *ctx;
};

/* --clock-offsets[=FILE|none], for the tools that analyse times across
 * hosts (tr-pag, tr-infer, tr-cp, tr-temporal). */
#define TR_CLOCK_ESTIMATE ""
#define TR_CLOCK_LONGOPT {"clock-offsets", optional_argument, NULL, TR_OPT_CLOCK_OFFSETS}
#define TR_CLOCK_USAGE \
	"      --clock-offsets[=FILE|none]\n" \
	"                          move each host's spans by its clock offset: estimated\n" \
	"                          from the input's RPCs, or read from FILE's O records\n" \
	"                          (tr-ingest --clock-offsets); none: as recorded\n"
/* The value for tr_filter's clock_offsets of --clock-offsets' argument
 * (NULL when it had none). */
const char *tr_clock_option(const char *arg);
/* The offsets' clock in a first pass of a loop with clock_offsets, NULL
 * without. */
const tr_clock *tr_filter_clock(const tr_filter *f);

/* --max-spans N and --max-bytes N, the same in every tool: a trace over a
 * limit is bad input, never cut short; 0 means no limit. */
enum { TR_OPT_VERSION = 0x1000, TR_OPT_MAX_SPANS, TR_OPT_MAX_BYTES, TR_OPT_MAX_WINDOWS, TR_OPT_UNITS,
       TR_OPT_ALLOW_EMPTY, TR_OPT_FILES_FROM, TR_OPT_WHERE, TR_OPT_CLOCK_OFFSETS };
/* The long options every filter has: -o, -k, -q, -v, -h, --version,
 * --allow-empty and the limits. */
#define TR_COMMON_LONGOPTS \
	{"output", required_argument, NULL, 'o'}, \
	{"keep-going", no_argument, NULL, 'k'}, \
	{"quiet", no_argument, NULL, 'q'}, \
	{"verbose", no_argument, NULL, 'v'}, \
	{"help", no_argument, NULL, 'h'}, \
	{"version", no_argument, NULL, TR_OPT_VERSION}, \
	{"allow-empty", no_argument, NULL, TR_OPT_ALLOW_EMPTY}, \
	{"files-from", required_argument, NULL, TR_OPT_FILES_FROM}, \
	{"where", required_argument, NULL, TR_OPT_WHERE}, \
	TR_LIMIT_LONGOPTS
#define TR_LIMIT_LONGOPTS \
	{"max-spans", required_argument, NULL, TR_OPT_MAX_SPANS}, \
	{"max-bytes", required_argument, NULL, TR_OPT_MAX_BYTES}
#define TR_LIMIT_USAGE \
	"      --max-spans N       a trace with more spans is bad input (default\n" \
	"                          10000000; 0: none)\n" \
	"      --max-bytes N       a trace larger than N bytes is bad input (default\n" \
	"                          4 GiB; 0: none)\n"
/* Store a limit option in *spans or *bytes (0 becomes "no limit"); returns 1
 * when opt was one, dies with exit 2 on a bad number. */
int tr_limit_option(int opt, const char *arg, size_t *spans, size_t *bytes);
/* The value of a limit option: a count, 0 meaning none (SIZE_MAX); exits
 * with a usage error naming option when arg is not one. */
size_t tr_parse_limit(const char *option, const char *arg);

/* Every tool's option string starts with ':' so that getopt_long says
 * nothing itself and reports a missing argument as ':'. On its '?' or ':'
 * (c), say what went wrong in one line (the closest long option for a
 * mistyped one, the candidates for an ambiguous abbreviation), then
 * "try 'tr-xxx --help'"; exit 2. */
_Noreturn void tr_option_error(int c, char **argv, const struct option *longopts);
/* Any other usage error: tr_usage_error (core/args.h). */

/* The options every filter shares, into f and from: -o, -k, -q, -v,
 * --allow-empty, --files-from, --max-spans, --max-bytes. Returns 1 when opt
 * was one of them, so that a tool's switch holds only its own options:
 *	default: if (!tr_filter_option(&f, &from, opt, optarg))
 *			tr_option_error(opt, argv, longopts); */
typedef struct tr_filelist tr_filelist;
int tr_filter_option(tr_filter *f, tr_filelist *from, int opt, const char *arg);

/* --units U of a report (table.h); a usage error unless U is us, ms, s or
 * auto. */
#define TR_UNITS_LONGOPT {"units", required_argument, NULL, TR_OPT_UNITS}
int tr_units_option(const char *arg);
/* auto writes text with a unit in each field: for people, so a usage error
 * with a format for programs (CSV, JSON). */
void tr_units_check(int units, int machine_format);

/* --files-from LIST, the same in every filter (shard.h: tr_files_from). */
#define TR_FILES_FROM_USAGE \
	"      --files-from LIST   also read the files LIST names, one a line (-: stdin)\n"

/* --where EXPR, the same in every filter (tr(7), WHERE). */
#define TR_WHERE_USAGE \
	"      --where EXPR        only the traces with a span for which EXPR holds\n" \
	"                          (tr(7), WHERE)\n"
/* --where's EXPR, checked (a usage error when it is not one), for
 * tr_filter's where. */
const char *tr_where_option(const char *arg);

/* --allow-empty, the same in every tool. */
#define TR_ALLOW_EMPTY_USAGE \
	"      --allow-empty       an input with no trace is not an error\n"

/* Runs the loop; returns the exit status (0, or TR_EXIT_INPUT when a trace
 * was bad, or when the input held nothing and allow_empty is not set: then
 * on_end is not called and -o FILE is not made). Output goes through a
 * temporary file when out_path is set. */
int tr_filter_run(const tr_filter *f);
/* The loop's -v summary (traces read, bad, where it stopped), for a
 * verdict that writes its own lines after it. */
void tr_filter_summary(const tr_filter *f, const tr_filter_counts *c);

/* Every trace of files (the line format or exports; names for messages,
 * NULL: the files') to fn, for a tool's second input (a baseline) or a
 * pass of its own. Returns the traces read, or -1 when a file could not
 * be read or held a bad trace, after the reader's message (keep_going:
 * bad traces are skipped, as -k does). */
long tr_each_trace(char **files, char *const *names, int nfiles, int keep_going, size_t max_spans,
		   size_t max_bytes, void (*fn)(void *ctx, tr_trace *t), void *ctx);

/* Every trace of files through f's settings, for a first pass: the
 * limits, -k, --where; quietly (the loop reports bad input). Returns the
 * traces handed to fn, or -1 when it stopped at a bad trace. */
long tr_filter_each(const tr_filter *f, char **files, int nfiles, char *const *names,
		    void (*fn)(void *ctx, tr_trace *t), void *ctx);
/* tr_each_trace with the reader's flags (TR_READ_*) given. */
long tr_each_trace_flags(char **files, char *const *names, int nfiles, int flags, size_t max_spans,
			 size_t max_bytes, void (*fn)(void *ctx, tr_trace *t), void *ctx);

/* "tr-xxx (tr) 0.1.0" on stdout. */
void tr_print_version(void);

#endif
