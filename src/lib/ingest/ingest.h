/* ingest.h - Jaeger, Zipkin (v1, v2) and OTLP JSON to the tr line format.
 *
 * The public layer of ingest/ (ingest.c, lines.c). Below it, each calling
 * only the layers under it: the drivers (drive.h: worker threads, the
 * first pass), the scanner (scan.h: JSON elements, no format), the
 * converters (convert.h: Jaeger, OTLP, Zipkin), the assembly (batch.h,
 * context.h: spans, the batch, writing traces) and the JSON tree (jtree.h).
 * ingest.c says more; tests/cycles.bats checks the order. */
#ifndef TR_INGEST_H
#define TR_INGEST_H

#include <stddef.h>

#include "core/io.h"

enum ingest_format {
	INGEST_AUTO, INGEST_JAEGER, INGEST_OTLP, INGEST_ZIPKIN, INGEST_ZIPKIN1, INGEST_ZIPKIN2
};

/* The limits of one trace by default: about 1 GB of memory for the largest
 * (a Jaeger trace of a million spans, 133 MB of JSON, peaks at 1.19 GB). */
#define INGEST_DEFAULT_MAX_SPANS ((size_t)1000000)
#define INGEST_DEFAULT_MAX_BYTES ((size_t)128 << 20)

/* The unit of an input's time fields: the format's own (Jaeger and Zipkin
 * microseconds, OTLP nanoseconds) unless --time-unit says otherwise. */
enum ingest_time_unit { INGEST_TU_FORMAT, INGEST_TU_NS, INGEST_TU_US, INGEST_TU_MS, INGEST_TU_S };

typedef struct ingest_opts {
	enum ingest_format format;
	int keep_going;		/* skip broken traces instead of stopping */
	int verbose;		/* per-file counts and tree problems on stderr */
	size_t max_spans;	/* spans per trace; 0: no limit */
	size_t max_bytes;	/* bytes of one JSON trace or document; 0: no limit */
	int threads;		/* parse Jaeger traces on this many threads (1: none) */
	int no_merge;		/* do not remember written traces (a trace met again is written again) */
	int time_unit;		/* enum ingest_time_unit */
	int quiet;		/* -q: no notes (OTLP documents of other signals skipped) */
} ingest_opts;

typedef struct ingest_stats {
	size_t files, traces, spans, broken, dropped_duplicates, renamed;
	size_t orphans, cycles;	/* counted with verbose only */
	size_t merged;		/* traces met again, every span already written */
	size_t split;		/* traces met again with new spans: written as a second group */
} ingest_stats;

typedef struct ingest ingest;

int ingest_format_parse(const char *name);	/* -1 when unknown */
int ingest_time_unit_parse(const char *name);	/* ns, us, µs, ms, s; -1 when unknown */
ingest *ingest_new(const ingest_opts *o, tr_output *out);
/* Convert one file ("-": stdin). Returns 0, or -1 when it held a broken
 * trace or could not be read (the message is printed). Without keep_going
 * the caller stops at the first -1. */
int ingest_file(ingest *g, const char *path);
/* The same for an input already open (its first bytes may have been peeked
 * at, not read); path is opened again for the first pass over a Zipkin or
 * OTLP file when it is a regular file; messages name the input name. The
 * caller closes in. */
int ingest_input(ingest *g, tr_input *in, const char *path, const char *name);
/* What the last input was read as: "Zipkin (JSON Lines), zstd". */
void ingest_shape(const ingest *g, const tr_input *in, strbuf *b);
/* Write from now on to out (the previous output is the caller's). */
void ingest_set_output(ingest *g, tr_output *out);
/* An export where the line format is expected (every filter's reader):
 * convert in (named name) as ingest_input does, into a temporary file, and
 * return that file open for reading, already removed from its directory.
 * *bad: the broken traces it had (at least 1 when the file failed), their
 * messages printed. */
tr_input *ingest_lines(ingest *g, tr_input *in, const char *path, const char *name, size_t *bad);
/* The inputs of a run, in order; a directory stands for the trace files
 * under it (*.json, *.jsonl, *.ndjson, optionally .gz or .zst), sorted by
 * path, subdirectories included. */
typedef struct ingest_list {
	char **paths;
	size_t n, cap;
} ingest_list;

/* Add path ("-": stdin); -1 with a message when it is a directory holding no
 * trace file. */
int ingest_list_add(ingest_list *l, const char *path);
void ingest_list_free(ingest_list *l);
/* Convert every file of the list, in order; with threads > 1, small files
 * are converted in parallel and written in order. Returns 0, or -1 when a
 * file had a broken trace (without keep_going, the run stops there). */
int ingest_files(ingest *g, const ingest_list *l);
const ingest_stats *ingest_stats_get(const ingest *g);
/* After the last file: clears the progress line, if one was shown. */
void ingest_end(ingest *g);
void ingest_free(ingest *g);

#endif
