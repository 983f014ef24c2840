/* context.h - the converter context every file of ingest/ works in: the
 * options, the output, the batch, the scanner's and the converters' scratch,
 * the counts. One per ingest_new, one per worker thread. */
#ifndef TR_INGEST_CONTEXT_H
#define TR_INGEST_CONTEXT_H

#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/io.h"
#include "core/progress.h"
#include "core/trace.h"
#include "core/util.h"
#include "ingest/batch.h"
#include "ingest/ingest.h"
#include "ingest/jtree.h"

typedef struct ingest_pool ingest_pool;

/* Where each trace a worker wrote ends, in its output and its messages. */
typedef struct ig_marks {
	struct ig_mark {
		size_t out, msg;
	} *v;
	size_t n, cap;
} ig_marks;
struct ingest {
	ingest_opts opts;
	tr_output *out;
	strbuf *sink;		/* a worker's output goes here instead of out */
	strbuf *sink_msg;	/* and its messages here, */
	ig_marks *marks;	/* with a mark after each trace (files.c) */
	ingest_pool *pool;	/* worker threads for Jaeger traces (-j) */
	ingest_seen *seen;	/* the traces written, to merge a trace met again */
	int pool_status;	/* what stopped the pool in this file, 0 if nothing */
	strbuf msg;		/* the message of the element that failed */
	ingest_stats stats;
	ibatch batch;
	tr_progress progress;
	uint64_t bytes_before;	/* input bytes of the files already read */
	jtree_parser *parser;	/* reads one element at a time */
	arena json_mem;		/* the nodes of the element being converted */
	arena doc_mem;		/* a top-level object's members read whole */
	ibuild build;
	iproc *procs;		/* the processes of the Jaeger trace being read */
	size_t nprocs, capprocs;
	strbuf text, scratch;
	strbuf value;		/* an OTLP array or key-value attribute being written */
	const char *file;	/* name for messages */
	char err[512];		/* the converter's message for the current element */
	uint64_t err_line, err_col;	/* where the element being converted starts */
	int file_failed;
	int zipkin_seen;	/* the batch holds Zipkin spans: pair shared ids */
	const char *format_name;	/* what this file was read as, for -v */
	int foreign;		/* the file is another format: stop reading it */
	size_t documents;	/* top-level JSON values of this file */
	size_t trace_documents;	/* OTLP documents holding spans */
	size_t other_signals;	/* OTLP metrics, logs and profiles documents skipped */
	/* Writing Zipkin and OTLP traces before the file's end (prescan.c) */
	const char *path;	/* the file being read ("-": standard input) */
	int swept;		/* the first pass ran, or was found impossible */
	int early_flush;	/* it went through: write traces as they are whole */
	strmap last_key;	/* trace id -> offset of the last key naming it */
	arena prescan_mem;	/* its keys */
	arena sweep_mem;	/* the first pass's scratch copies of ids */
	uint64_t batch_need;	/* the last offset the batch's traces wait for */
	size_t batch_mark;	/* batch spans looked at by ig_after_element */
	int batch_broken;	/* a Zipkin/OTLP element of this file was lost whole */
	strbuf brackets;	/* scanner scratch: brackets not yet closed */
	strmap ids;		/* scratch: span ids while writing a trace */
	int32_t *order;
	size_t capord;
};

/* A converter context without worker threads, and freeing one (context.c);
 * ingest_new adds the threads when asked for. */
ingest *ig_context_new(const ingest_opts *o, tr_output *out);
void ig_context_free(ingest *g);

#endif
